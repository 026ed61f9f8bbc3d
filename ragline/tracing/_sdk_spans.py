"""Starting and ending ragline's own spans below the OpenTelemetry SDK's public calls.

A traced ``retriever.invoke`` with a real query embedding runs its tracing code once per
call, just after the model's forward pass has evicted the CPU caches, so every distinct
Python function on that path costs its own cache misses. Through the SDK's public calls
(``Tracer.start_span``, ``Span.set_attributes``, ``Span.end``) one span runs some
twenty-five functions: the sampler's layers, the id generator, ``SpanContext.__new__``,
the span's three ``__init__`` layers, the attribute container's cleaning per value, the
multi-processor's loops, the read-only copy's ``__init__``. :class:`SdkSpans` does the
same steps in two functions, for the configurations whose outcome it knows:

- the SDK tracer of opentelemetry-sdk 1.x as tested (``_VERIFIED``), enabled;
- the default sampler (parent-based, always on) or always-on, and a decision to record
  and sample (a parent that is not sampled goes the public way);
- the random id generator, the internal metrics off, no attribute value length limit;
- a ``SynchronousMultiSpanProcessor`` (the provider's default), whose processors it calls
  itself: ``on_start``, ``_on_ending``, ``on_end``, in order, skipping a processor's
  method only when that method does nothing (its code returns None at once: the batch
  and simple processors' ``on_start`` and ``_on_ending``), and handing a batch processor
  the span as its ``on_end`` does (its queue's ``emit``) when that ``on_end`` is the SDK's;
- attribute values that need no cleaning (``str``, ``bool``, ``int``, ``float``) and room
  for them under the attribute count limit.

Anything else takes the public path, per call, so the spans are the SDK's own either way:
the same ``_Span`` and ``ReadableSpan`` objects with the same fields, ids drawn from the
same generator in the same order, the same parent, trace state, flags, attributes and
their order, the same processor calls. tests/tracing/test_sdk_spans.py compares the two
paths field by field.
"""

from __future__ import annotations

import dis
import random
from collections import deque
from collections.abc import Mapping
from threading import Lock
from time import time_ns
from typing import Any

__all__ = ["SdkSpans", "sdk_spans"]

# opentelemetry-sdk versions (major, minor) whose internals this module was checked against
_VERIFIED = ((1, 45),)
_PLAIN = (str, bool, int, float)  # attribute values the SDK keeps as they are


def sdk_spans(tracer: Any) -> SdkSpans | None:
    """The direct span path for ``tracer``, or None when ``tracer`` is not an SDK tracer
    of a verified version whose internals look as expected (then the handler uses the
    public ``start_span`` path only)."""
    try:
        from opentelemetry.sdk import trace as sdk
        from opentelemetry.sdk.version import __version__
    except ImportError:
        return None
    try:
        version = tuple(int(part) for part in __version__.split(".")[:2])
    except ValueError:
        return None
    if version not in _VERIFIED or type(tracer) is not sdk.Tracer:
        return None
    try:
        return SdkSpans(tracer)
    except (AttributeError, ImportError, KeyError, TypeError):  # internals not as expected
        return None


def _does_nothing(method: Any) -> bool:
    """Whether ``method``'s code only returns None (a docstring and ``pass`` at most)."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return False
    steps = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP")]
    if len(steps) == 1:
        return steps[0].opname == "RETURN_CONST" and steps[0].argval is None
    return (
        len(steps) == 2
        and steps[0].opname == "LOAD_CONST"
        and steps[0].argval is None
        and steps[1].opname == "RETURN_VALUE"
    )


class SdkSpans:
    """Start and end spans of one SDK ``Tracer`` as ``start_span`` and ``Span.end``
    would (see the module docstring); the public calls where it cannot be sure."""

    def __init__(self, tracer: Any) -> None:
        import inspect

        from opentelemetry import context as context_api
        from opentelemetry.attributes import BoundedAttributes
        from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
        from opentelemetry.sdk import trace as sdk
        from opentelemetry.sdk.trace import _tracer_metrics, sampling
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
        from opentelemetry.sdk.util import BoundedList
        from opentelemetry.trace import INVALID_SPAN, Span, propagation, set_span_in_context
        from opentelemetry.trace.span import SpanContext, TraceFlags

        self._tracer = tracer
        sampler = tracer.sampler
        always_on, always_off = sampling.ALWAYS_ON, sampling.ALWAYS_OFF
        if not (
            sampler is always_on
            or (
                type(sampler) is sampling.ParentBased
                and sampler._root is always_on
                and sampler._remote_parent_sampled is always_on
                and sampler._local_parent_sampled is always_on
                and sampler._remote_parent_not_sampled is always_off
                and sampler._local_parent_not_sampled is always_off
            )
        ):
            raise TypeError("a sampler whose decisions this path does not know")
        if type(tracer.id_generator) is not RandomIdGenerator:
            raise TypeError("not the random id generator")
        if type(tracer._tracer_metrics) is not _tracer_metrics.NoOpTracerMetrics:
            raise TypeError("the SDK's internal metrics are on")
        limits = tracer._span_limits
        if limits.max_span_attribute_length is not None or limits.max_span_attributes is None:
            raise TypeError("attribute limits this path does not apply")
        if type(tracer.span_processor) is not sdk.SynchronousMultiSpanProcessor:
            raise TypeError("not the synchronous multi span processor")
        runtime = context_api._RUNTIME_CONTEXT
        if type(runtime) is not ContextVarsRuntimeContext:
            raise TypeError("not the contextvars runtime context")
        # what start_span's steps read, each checked again per call where it can change
        self._sampler, self._id_generator = sampler, tracer.id_generator
        self._metrics, self._limits = tracer._tracer_metrics, limits
        self._processor = tracer.span_processor
        self._current = runtime._current_context  # the ContextVar holding the Context
        self._span_key, self._invalid_span, self._span_type = (
            propagation._SPAN_KEY,
            INVALID_SPAN,
            Span,
        )
        self._set_in_context = set_span_in_context
        self._sdk_span, self._readable = sdk._Span, sdk.ReadableSpan
        self._attributes_type, self._list_type = BoundedAttributes, BoundedList
        self._span_context = SpanContext
        self._sampled = TraceFlags(TraceFlags.SAMPLED)
        self._sampled_random = TraceFlags(TraceFlags.SAMPLED | TraceFlags.RANDOM_TRACE_ID)
        self._end_metrics = _tracer_metrics.noop
        self._batch_on_end = BatchSpanProcessor.on_end
        # the defaults Span.__init__ leaves in place (the same objects, not copies)
        self._unset = inspect.signature(sdk.ReadableSpan.__init__).parameters["status"].default
        self._default_state = (
            inspect.signature(SpanContext.__new__).parameters["trace_state"].default
        )
        # that every field start_span's Span gets is one this path sets
        fields = set(vars(self._probe_span()))
        if fields != _SPAN_FIELDS:
            raise TypeError(f"an SDK span's fields differ: {sorted(fields ^ _SPAN_FIELDS)}")
        # (the processors, those whose on_start / _on_ending do something, what ends a
        # span in each): one tuple, replaced whole, so a thread never reads one field of
        # a new set with another of the old one
        self._listening: tuple[tuple[Any, ...], ...] = self._listen_processors()

    def _probe_span(self) -> Any:
        """A span made as ``Tracer.start_span`` makes one, never started (so no processor
        sees it): to check its fields are the ones this path sets."""
        tracer = self._tracer
        context = self._span_context(1, 1, False, self._sampled)
        return self._sdk_span(
            name="probe",
            context=context,
            sampler=tracer.sampler,
            resource=tracer.resource,
            span_processor=tracer.span_processor,
            instrumentation_info=tracer.instrumentation_info,
            limits=self._limits,
            instrumentation_scope=tracer._instrumentation_scope,
            record_end_metrics=self._end_metrics,
        )

    def _listen_processors(self) -> tuple[tuple[Any, ...], ...]:
        """Which processors' ``on_start`` / ``_on_ending`` / ``on_end`` do something
        (recomputed when the provider's processors change); sets and returns
        ``_listening``."""
        processors = self._processor._span_processors
        starting = tuple(p for p in processors if not _does_nothing(p.on_start))
        ending = tuple(p for p in processors if not _does_nothing(p._on_ending))
        # what ends a span in each processor: its on_end, or for a batch processor (its
        # on_end not overridden) the queue's emit, which that on_end calls for a sampled
        # span (every span this path makes is sampled): three property reads fewer
        finishing = []
        processor: Any
        for processor in processors:
            if _does_nothing(processor.on_end):
                continue
            if (
                type(processor).on_end is self._batch_on_end
                and "on_end" not in vars(processor)
                and hasattr(getattr(processor, "_batch_processor", None), "emit")
            ):
                finishing.append(processor._batch_processor.emit)
            else:
                finishing.append(processor.on_end)
        self._listening = (processors, starting, ending, tuple(finishing))
        return self._listening

    def start(self, name: str, kind: Any, attributes: dict[str, Any], parent: Any) -> Any:
        """Start a span named ``name`` as ``tracer.start_span(name, context, kind,
        attributes)`` does, where ``context`` holds ``parent`` (a span), or is None (the
        current context) when ``parent`` is None. ``attributes`` becomes the span's."""
        tracer = self._tracer
        limits = self._limits
        if (
            tracer.sampler is not self._sampler
            or tracer.id_generator is not self._id_generator
            or tracer._tracer_metrics is not self._metrics
            or tracer._span_limits is not limits
            or tracer.span_processor is not self._processor
            or not tracer._tracer_config.is_enabled
            or len(attributes) > limits.max_span_attributes
        ):
            return self._public_start(name, kind, attributes, parent)
        for key, value in attributes.items():
            if type(value) not in _PLAIN or type(key) is not str or not key:
                return self._public_start(name, kind, attributes, parent)
        listening = self._listening
        if self._processor._span_processors is not listening[0]:
            listening = self._listen_processors()
        # the parent's span context, as get_current_span(context).get_span_context()
        parent_context: Any
        if parent is None:  # start_span is given no context: the current one's span
            current = self._current.get().get(self._span_key)
            if (
                current is None
                or current is self._invalid_span
                or not isinstance(current, self._span_type)  # get_current_span's INVALID_SPAN
            ):
                parent_context = None
            elif type(current) is self._sdk_span:
                parent_context = current._context
            else:
                parent_context = current.get_span_context()
        elif type(parent) is self._sdk_span:
            parent_context = parent._context
        else:
            parent_context = parent.get_span_context()
        # RandomIdGenerator's draws: random.getrandbits looked up per span, as it does
        getrandbits = random.getrandbits
        if parent_context is None:
            is_root = True
        elif type(parent_context) is not self._span_context:
            return self._public_start(name, kind, attributes, parent)
        else:
            is_root = not parent_context[5]  # is_valid
        if is_root:
            parent_context = None
            trace_id = getrandbits(128)  # RandomIdGenerator.generate_trace_id
            while not trace_id:
                trace_id = getrandbits(128)
            flags, trace_state = self._sampled_random, self._default_state
        elif parent_context[3] & 1:  # trace_flags: a sampled parent, always on
            trace_id = parent_context[0]
            flags = self._sampled_random if parent_context[3] & 2 else self._sampled
            trace_state = parent_context[4]
            if trace_state is None:
                trace_state = self._default_state
        else:  # not sampled: the sampler drops it (the public path makes that span)
            return self._public_start(name, kind, attributes, parent)
        span_id = getrandbits(64)  # RandomIdGenerator.generate_span_id
        while not span_id:
            span_id = getrandbits(64)
        # SpanContext.__new__'s tuple (valid: both ids are in range)
        context = tuple.__new__(
            self._span_context, (trace_id, span_id, False, flags, trace_state, True)
        )
        # BoundedAttributes(maxlen, attributes, immutable=False, max_value_len=None)
        bounded = object.__new__(self._attributes_type)
        bounded._dict = attributes
        bounded.maxlen = limits.max_span_attributes
        bounded.dropped = 0
        bounded.max_value_len = None
        bounded._lock = Lock()
        bounded._immutable = False
        # the BoundedLists of events and links
        events: Any = object.__new__(self._list_type)
        events.dropped = 0
        events._dq = deque(maxlen=limits.max_events)
        events._lock = Lock()
        links: Any = object.__new__(self._list_type)
        links.dropped = 0
        links._dq = deque(maxlen=limits.max_links)
        links._lock = Lock()
        # _Span(...): ReadableSpan.__init__'s fields, then Span.__init__'s
        span = object.__new__(self._sdk_span)
        span._name = name
        span._context = context
        span._kind = kind
        span._instrumentation_info = tracer.instrumentation_info
        span._instrumentation_scope = tracer._instrumentation_scope
        span._parent = parent_context
        span._start_time = None
        span._end_time = None
        span._attributes = bounded
        span._events = events
        span._links = links
        span._resource = tracer.resource
        span._status = self._unset
        span._sampler = self._sampler
        span._trace_config = None
        span._record_exception = True
        span._set_status_on_exception = True
        span._span_processor = self._processor
        span._limits = limits
        span._lock = Lock()
        span._record_end_metrics = self._end_metrics
        span._start_time = time_ns()  # Span.start
        if listening[1]:
            context_given = None if parent is None else self._set_in_context(parent)
            for processor in listening[1]:
                processor.on_start(span, parent_context=context_given)
        return span

    def _public_start(self, name: str, kind: Any, attributes: dict[str, Any], parent: Any) -> Any:
        return self._tracer.start_span(
            name,
            context=None if parent is None else self._set_in_context(parent),
            kind=kind,
            attributes=attributes,
        )

    @staticmethod
    def _public_end(span: Any, attributes: Mapping[str, Any] | None) -> None:
        if attributes:
            span.set_attributes(attributes)
        span.end()

    def end(self, span: Any, attributes: Mapping[str, Any] | None = None) -> None:
        """``span.set_attributes(attributes)`` (when given), then ``span.end()``."""
        listening = self._listening
        if (
            type(span) is not self._sdk_span
            or span._span_processor is not self._processor
            or self._processor._span_processors is not listening[0]
            or span._record_end_metrics is not self._end_metrics
        ):
            self._public_end(span, attributes)
            return
        with span._lock:
            if span._end_time is None and span._start_time is not None:
                bounded: Any = span._attributes
                if attributes:
                    kept = bounded._dict
                    if (
                        bounded._immutable
                        or bounded.max_value_len is not None
                        or bounded.maxlen is None
                        or len(kept) + len(attributes) > bounded.maxlen
                    ):
                        kept = None
                    else:
                        for value in attributes.values():
                            if type(value) not in _PLAIN:
                                kept = None
                                break
                    if kept is None:
                        bounded._set_items(attributes)  # the SDK's own cleaning and limits
                    else:
                        with bounded._lock:  # _setitem_locked: a key set again moves last
                            for key, value in attributes.items():
                                if key in kept:
                                    del kept[key]
                                kept[key] = value
                span._end_time = time_ns()
                bounded._immutable = True
                ended = True
            else:
                ended = False
        if not ended:  # not started, or ended already: the SDK's error or warning
            self._public_end(span, attributes)
            return
        for processor in listening[2]:
            processor._on_ending(span)
        # Span._readable_span
        readable = object.__new__(self._readable)
        readable._name = span._name
        readable._context = span._context
        readable._kind = span._kind
        readable._instrumentation_info = span._instrumentation_info
        readable._instrumentation_scope = span._instrumentation_scope
        readable._parent = span._parent
        readable._start_time = span._start_time
        readable._end_time = span._end_time
        readable._attributes = span._attributes
        readable._events = span._events
        readable._links = span._links
        readable._resource = span._resource
        readable._status = span._status
        for finish in listening[3]:
            finish(readable)


# the instance fields of an SDK _Span (checked against a real one when the path is made)
_SPAN_FIELDS = {
    "_name", "_context", "_kind", "_instrumentation_info", "_instrumentation_scope",
    "_parent", "_start_time", "_end_time", "_attributes", "_events", "_links",
    "_resource", "_status", "_sampler", "_trace_config", "_record_exception",
    "_set_status_on_exception", "_span_processor", "_limits", "_lock",
    "_record_end_metrics",
}  # fmt: skip

"""Run records: ``RunCollectorCallbackHandler``, ``collect_runs`` and the handler behind
``with_listeners``, each building :class:`Run` trees in LangChain's shapes.

A :class:`Run` holds what LangChain's tracers record: ``inputs`` and ``outputs`` as
dicts (a chain given ``0`` has ``{"input": 0}``; a model ``{"prompts": [...]}`` and its
``LLMResult`` as a dict; a retriever ``{"query": ...}`` and ``{"documents": [...]}``),
``error`` as text, ``events``, ``extra`` (with ``metadata``), ``child_runs`` in the
order they started, ``trace_id`` and ``dotted_order``. ``run.tree()`` and
``run.find(name)`` are ragline's own helpers for assertions.

Example:
    >>> from ragline.core import RunnableLambda
    >>> collector = RunCollectorCallbackHandler()
    >>> add = RunnableLambda(lambda x: x + 1, name="add")
    >>> chain = add | RunnableLambda(lambda x: x * 2, name="double")
    >>> chain.invoke(1, {"callbacks": [collector]})
    4
    >>> collector.traced_runs[0].tree()
    ('RunnableSequence', [('add', []), ('double', [])])
    >>> collector.traced_runs[0].inputs, collector.traced_runs[0].outputs
    ({'input': 1}, {'output': 4})
"""

from __future__ import annotations

import contextlib
import inspect
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

from ragline.core.callbacks._run_shapes import (
    chain_value,
    empty_model_result,
    error_text,
    model_result,
    serialized_message,
)
from ragline.core.callbacks.base import BaseCallbackHandler

__all__ = [
    "BaseTracer",
    "RootListenersHandler",
    "Run",
    "RunCollectorCallbackHandler",
    "collect_runs",
    "wait_for_all_tracers",
]


_UTC = timezone.utc


def _now() -> datetime:
    return datetime.now(_UTC)


def _stamp(start_time: datetime, run_id: UUID) -> str:
    return f"{start_time:%Y%m%dT%H%M%S%fZ}{run_id}"


@dataclass(repr=False)
class Run:
    """One recorded run, with the attributes of LangChain's ``Run``.

    Attributes:
        id: the run id (a UUID).
        name: the run name (``run_name`` from the config, or the runnable's name).
        run_type: ``"chain"``, ``"prompt"``, ``"parser"``, ``"llm"``, ``"chat_model"``,
            ``"retriever"`` or ``"tool"``. A chat model's run is ``"llm"`` in
            ``RunCollectorCallbackHandler`` (its messages as transcript lines under
            ``"prompts"``) and ``"chat_model"`` for ``with_listeners`` (its messages
            under ``"messages"``), as in LangChain.
        inputs: a dict: a chain's input (``{"input": value}`` when it is not a dict),
            ``{"prompts": [...]}`` or ``{"messages": [[...]]}`` for a model,
            ``{"query": ...}`` for a retriever, a tool's arguments
            (``{"input": text}`` for a text input).
        outputs: a dict (``{}`` until the run ends, and when it failed): a chain's
            output (``{"output": value}`` when it is not a dict), a model's
            ``LLMResult`` as a dict, ``{"documents": [...]}``, ``{"output": ...}``.
        error: ``None``, or the exception's repr followed by its traceback.
        parent_run_id: the enclosing run's id, or ``None`` for a root run (a run whose
            parent this handler did not see).
        tags: the run's tags.
        extra: the start event's other keywords (``invocation_params`` of a model, a
            tool's ``color``) and ``metadata`` when there is any.
        child_runs: child runs, in the order they started (also ``children``).
        events: ``{"name": "start" | "new_token" | "end" | "error", "time": ...}``, in
            order; a token's has ``"kwargs": {"token": ..., "chunk": ...}``.
        start_time, end_time: UTC datetimes (``end_time`` is ``None`` until it ends).
        serialized: the ``serialized`` argument of the start event.
        reference_example_id: the collector's ``example_id``.
        exception: the exception itself (ragline's own; ``error`` is LangChain's text).
    """

    id: UUID
    name: str
    run_type: str
    inputs: dict[str, Any]
    parent_run_id: UUID | None = None
    tags: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] | None = field(default_factory=dict)
    error: str | None = None
    child_runs: list[Run] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    start_time: datetime = field(default_factory=_now)
    end_time: datetime | None = None
    serialized: dict[str, Any] | None = None
    reference_example_id: UUID | None = None
    exception: BaseException | None = field(default=None, compare=False)
    # The enclosing run's (its own _parent, start_time, id), or None for a root: trace_id
    # and dotted_order are worked out from it when read, so recording a run costs no
    # string formatting (and holds no reference to the parent Run itself).
    _parent: tuple[Any, datetime, UUID] | None = field(default=None, repr=False, compare=False)

    @property
    def metadata(self) -> dict[str, Any]:
        """The run's metadata (kept in ``extra["metadata"]``, as LangChain keeps it)."""
        return self.extra.setdefault("metadata", {})  # type: ignore[no-any-return]

    @property
    def children(self) -> list[Run]:
        """ragline's name for :attr:`child_runs`."""
        return self.child_runs

    def _lineage(self) -> list[tuple[datetime, UUID]]:
        """``(start_time, id)`` of this run and each enclosing one, outermost first."""
        pairs = [(self.start_time, self.id)]
        link = self._parent
        while link is not None:
            link, start_time, run_id = link
            pairs.append((start_time, run_id))
        return pairs[::-1]

    @property
    def trace_id(self) -> UUID:
        """The id of the outermost run of this run's tree."""
        return self._lineage()[0][1]

    @property
    def dotted_order(self) -> str:
        """``<start time><id>`` of each run from the outermost down to this one, joined
        with dots (LangChain's ordering key: sorting by it gives the runs in start order,
        each parent before its children)."""
        return ".".join(_stamp(start_time, run_id) for start_time, run_id in self._lineage())

    def tree(self) -> tuple[str, list[Any]]:
        """Return ``(name, [child trees])``, handy in assertions."""
        return (self.name, [child.tree() for child in self.child_runs])

    def find(self, name: str) -> Run | None:
        """Return the first run named ``name`` in this tree (depth-first), or ``None``."""
        if self.name == name:
            return self
        for child in self.child_runs:
            found = child.find(name)
            if found is not None:
                return found
        return None

    def __repr__(self) -> str:
        error = self.exception if self.exception is not None else self.error
        return (
            f"Run(name={self.name!r}, run_type={self.run_type!r}, "
            f"children={len(self.child_runs)}, error={error!r})"
        )


# Start-event keywords that are not the run's ``extra`` (LangChain's tracers take them as
# the run's own fields, or ragline's run plumbing passes them).
_NOT_EXTRA = frozenset({"name", "run_type", "inputs"})


def _run_name(serialized: Any, run_type: str) -> str:
    """The name of a run started without one, as LangChain's: ``"Retriever"`` for a
    retriever run (whatever its ``serialized`` says), else from ``serialized``, else
    ``"Unnamed"``."""
    if run_type == "retriever":
        return "Retriever"
    if isinstance(serialized, dict):
        if serialized.get("name"):
            return str(serialized["name"])
        if serialized.get("id"):
            return str(serialized["id"][-1])
    return "Unnamed"


def _tool_call_count(result: Any) -> int:
    """How many tool calls the replies in a model's result make."""
    return sum(
        len(getattr(getattr(one, "message", None), "tool_calls", None) or ())
        for row in getattr(result, "generations", ())
        for one in row
    )


class _RunTreeHandler(BaseCallbackHandler):
    """Builds a :class:`Run` tree per root run from the callback events.

    Subclasses say where the event log and the ended root runs go (``_event_log``,
    ``_ended_roots``, kept under the lock), hear of root runs (``_notify``, outside it,
    where ``_notifies`` is set) and say whether chat model runs keep their messages
    (``chat_runs``; otherwise they are LLM runs of transcript lines, as LangChain's
    ``RunCollectorCallbackHandler`` records them).
    """

    raise_error = True  # a broken record (or a listener's exception) is the user's to see
    chat_runs = False
    # Whether ended runs stay in ``_open`` (the collector's ``runs_by_id`` is that dict;
    # an ended run is then told apart by its ``end_time``) or are forgotten at once.
    _keeps_ended = False

    def __init__(self) -> None:
        self._open: dict[UUID, Run] = {}
        self._lock = threading.Lock()
        self._chat_ids: set[UUID] = set()  # open chat model runs (a failed one's result differs)

    # ---- hooks ----
    _notifies = False  # whether _notify is called (outside the lock) for root runs

    # Where a subclass wants them (the collector): every ``(event, run)`` in order, the
    # event named as its callback without ``on_``; and the root runs as they end.
    _event_log: list[tuple[str, Run]] | None = None
    _ended_roots: list[Run] | None = None
    _example_id: UUID | None = None

    def _notify(self, which: str, run: Run) -> None:
        """A root run started, ended or failed (``which``); called outside the lock."""

    _hears_every_run = False  # whether _heard is called (outside the lock) for every run

    def _heard(self, event: str, run: Run) -> None:
        """Any run started, ended or failed (``event``: its callback's name without
        ``on_``, e.g. ``chat_model_start``, ``llm_end``); called outside the lock."""

    # ---- recording ----
    def _start(
        self,
        event: str,
        run_type: str,
        inputs: dict[str, Any],
        serialized: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        extra = {key: value for key, value in kwargs.items() if key not in _NOT_EXTRA}
        if metadata:
            extra["metadata"] = dict(metadata)
        name = kwargs.get("name") or _run_name(serialized, run_type)
        start_time = datetime.now(_UTC)
        with self._lock:
            parent = self._open.get(parent_run_id) if parent_run_id is not None else None
            if parent is not None and parent.end_time is not None:
                parent = None  # a run that ended is no parent: this one is a root, as in LangChain
            run = Run(
                id=run_id,
                name=name,
                run_type=run_type,
                inputs=inputs,
                tags=list(tags) if tags else [],
                extra=extra,
                events=[{"name": "start", "time": start_time}],
                start_time=start_time,
                serialized=serialized,
            )
            if parent is not None:
                run.parent_run_id = parent_run_id
                run._parent = (parent._parent, parent.start_time, parent.id)
                parent.child_runs.append(run)
            self._open[run_id] = run
            if self._event_log is not None:
                self._event_log.append((event, run))
        if self._notifies and parent is None:
            self._notify("start", run)
        if self._hears_every_run:
            self._heard(event, run)

    def _end(
        self,
        event: str,
        run_id: UUID,
        outputs: Any,
        error: BaseException | None,
        inputs: dict[str, Any] | None = None,
        output_key: str | None = None,
    ) -> None:
        """End a run: ``outputs`` (a dict, or the value to keep under ``output_key``) go
        into the run's ``outputs`` dict, which stays the one it started with, as in
        LangChain."""
        text = None if error is None else error_text(error)  # formatted outside the lock
        end_time = datetime.now(_UTC)
        with self._lock:
            run = self._open.get(run_id) if self._keeps_ended else self._open.pop(run_id, None)
            if run is None or run.end_time is not None:
                return
            run.end_time = end_time
            if error is None:
                run.events.append({"name": "end", "time": end_time})
            else:
                run.error, run.exception = text, error
                run.events.append({"name": "error", "time": end_time})
            if output_key is not None:
                run.outputs[output_key] = outputs  # type: ignore[index]
            elif outputs is not None:
                run.outputs.update(outputs)  # type: ignore[union-attr]
            if inputs is not None:  # streamed runs learn their whole input only at the end
                run.inputs = inputs
            is_root = run.parent_run_id is None
            if self._event_log is not None:
                self._event_log.append((event, run))
            if is_root and self._ended_roots is not None:
                run.reference_example_id = self._example_id
                self._ended_roots.append(run)
        if self._notifies and is_root:
            self._notify("end" if error is None else "error", run)
        if self._hears_every_run:
            self._heard(event, run)

    def _model_end(self, event: str, run_id: UUID, outputs: Any, error: Any, kwargs: Any) -> None:
        with self._lock:
            run = self._open.get(run_id)
            chat = run_id in self._chat_ids
            if chat:
                self._chat_ids.discard(run_id)
        if run is None or run.end_time is not None:
            return
        if error is None:
            calls = _tool_call_count(outputs)
            if calls:
                run.extra["tool_call_count"] = calls
            self._end(event, run_id, model_result(outputs), None)
        elif kwargs.get("response") is not None:
            self._end(event, run_id, model_result(kwargs["response"]), error)
        else:  # ragline's models end a failed run without a result; LangChain's give an empty one
            self._end(event, run_id, empty_model_result(chat), error)

    # ---- starts ----
    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chain run (``run_type`` ``"prompt"`` or ``"parser"`` when given)."""
        recorded = chain_value(inputs, "input")  # a streamed input starts as {"input": ""}
        run_type = kwargs.get("run_type") or "chain"
        self._start(
            "chain_start", run_type, recorded, serialized, run_id, parent_run_id, tags,
            metadata, kwargs,
        )  # fmt: skip

    def on_llm_start(
        self,
        serialized: Any,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record an LLM run (``inputs`` ``{"prompts": [...]}``)."""
        self._start(
            "llm_start", "llm", {"prompts": list(prompts)}, serialized, run_id, parent_run_id,
            tags, metadata, kwargs,
        )  # fmt: skip

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chat model run: with its messages where ``chat_runs`` is set, else as
        an LLM run of one transcript line per message list."""
        recorded: dict[str, Any]
        if self.chat_runs:
            run_type = "chat_model"
            recorded = {"messages": [[serialized_message(m) for m in batch] for batch in messages]}
        else:
            from ragline.core.messages import get_buffer_string

            run_type = "llm"
            recorded = {"prompts": [get_buffer_string(list(batch)) for batch in messages]}
        with self._lock:
            self._chat_ids.add(run_id)
        self._start(
            "chat_model_start", run_type, recorded, serialized, run_id, parent_run_id, tags,
            metadata, kwargs,
        )  # fmt: skip

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a retriever run (``inputs`` ``{"query": ...}``)."""
        self._start(
            "retriever_start", "retriever", {"query": query}, serialized, run_id, parent_run_id,
            tags, metadata, kwargs,
        )  # fmt: skip

    def on_tool_start(
        self,
        serialized: Any,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a tool run (``inputs``: its arguments, or ``{"input": text}``)."""
        given = kwargs.get("inputs")
        recorded = dict(given) if isinstance(given, dict) else {"input": input_str}
        self._start(
            "tool_start", "tool", recorded, serialized, run_id, parent_run_id, tags, metadata,
            kwargs,
        )  # fmt: skip

    # ---- in between ----
    def _note(self, event: str, run_id: UUID) -> None:
        with self._lock:
            run = self._open.get(run_id)
            if run is not None and self._event_log is not None:
                self._event_log.append((event, run))

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a streamed token on its run's ``events``."""
        details: dict[str, Any] = {"token": token}
        if kwargs.get("chunk"):
            details["chunk"] = kwargs["chunk"]
        with self._lock:
            run = self._open.get(run_id)
            if run is not None:
                run.events.append({"name": "new_token", "time": _now(), "kwargs": details})
                if self._event_log is not None:
                    self._event_log.append(("llm_new_token", run))

    def on_agent_action(self, action: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Not kept on the run (LangChain's tracers keep no agent events)."""
        self._note("agent_action", run_id)

    def on_agent_finish(self, finish: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Not kept on the run."""
        self._note("agent_finish", run_id)

    def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Not kept on the run."""
        self._note("text", run_id)

    def on_retry(self, retry_state: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Not kept on the run (each attempt is a child run of its own)."""
        self._note("retry", run_id)

    # ---- ends ----
    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a chain's output."""
        given = chain_value(kwargs["inputs"], "input") if "inputs" in kwargs else None
        key = None if isinstance(outputs, dict) else "output"
        self._end("chain_end", run_id, outputs, None, given, key)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a chain's error."""
        given = chain_value(kwargs["inputs"], "input") if "inputs" in kwargs else None
        self._end("chain_error", run_id, None, error, given)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a model's result (as a dict)."""
        self._model_end("llm_end", run_id, response, None, kwargs)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a model's error."""
        self._model_end("llm_error", run_id, None, error, kwargs)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a retriever's documents."""
        self._end("retriever_end", run_id, documents, None, output_key="documents")

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a retriever's error."""
        self._end("retriever_error", run_id, None, error)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a tool's output."""
        self._end("tool_end", run_id, output, None, output_key="output")

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a tool's error."""
        self._end("tool_error", run_id, None, error)


class BaseTracer(_RunTreeHandler):
    """Base of a tracer: a handler that builds each run tree and hands the root run to
    :meth:`_persist_run` when it ends (or fails), as LangChain's ``BaseTracer`` does.

    A subclass writes ``_persist_run``; the :class:`Run` it gets has the run's ``name``,
    ``run_type``, ``inputs``, ``outputs``, ``error`` and ``child_runs`` (the same tree
    :class:`RunCollectorCallbackHandler` collects). A subclass's ``__init__`` calls
    ``super().__init__()``. LangChain's other hooks are called too, for every run:
    ``_start_trace`` / ``_on_run_create`` as it starts, ``_end_trace`` / ``_on_run_update``
    as it ends, then ``_on_chain_start``, ``_on_llm_end``, ``_on_tool_error``... (its kind
    and phase; a chat model's run is an LLM run, as in LangChain's sync tracer) and
    ``_on_llm_new_token(run, token, chunk)`` per streamed token.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> class Printer(BaseTracer):
        ...     def _persist_run(self, run):
        ...         print(run.name, run.run_type, run.outputs)
        >>> def double(x):
        ...     return x * 2
        >>> RunnableLambda(double).invoke(3, {"callbacks": [Printer()]})
        double chain {'output': 6}
        6
    """

    _hears_every_run = True
    # a tracer's failure is logged and the run goes on, as LangChain's BaseTracer (whose
    # raise_error is the handlers' default); the collector's stay the user's to see
    raise_error = False

    def _heard(self, event: str, run: Run) -> None:
        # LangChain's order: the trace hook, then the run type's own hook
        kind, _, phase = event.rpartition("_")
        if kind == "chat_model" and run.run_type == "llm":
            kind = "llm"  # a chat model recorded as an LLM run, as LangChain's sync tracer does
        if phase == "start":
            self._start_trace(run)
        else:
            self._end_trace(run)
        getattr(self, f"_on_{kind}_{phase}")(run)

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        super().on_llm_new_token(token, run_id=run_id, **kwargs)
        with self._lock:
            run = self._open.get(run_id)
        if run is not None:
            self._on_llm_new_token(run, token, kwargs.get("chunk"))

    def _persist_run(self, run: Run) -> None:
        """Keep a root run that ended (a subclass says how)."""
        raise NotImplementedError(f"{type(self).__name__} must define _persist_run(run)")

    # The other hooks LangChain's BaseTracer calls, each a no-op here: a subclass
    # overrides the ones it needs. Every run: _start_trace (then _on_run_create) as it
    # starts, _end_trace (_persist_run for a root, then _on_run_update) as it ends; then
    # the hook of its kind and phase.
    def _start_trace(self, run: Run) -> None:
        self._on_run_create(run)

    def _end_trace(self, run: Run) -> None:
        if run.parent_run_id is None:
            self._persist_run(run)
        self._on_run_update(run)

    def _on_run_create(self, run: Run) -> None: ...
    def _on_run_update(self, run: Run) -> None: ...
    def _on_chain_start(self, run: Run) -> None: ...
    def _on_chain_end(self, run: Run) -> None: ...
    def _on_chain_error(self, run: Run) -> None: ...
    def _on_llm_start(self, run: Run) -> None: ...
    def _on_chat_model_start(self, run: Run) -> None: ...
    def _on_llm_new_token(self, run: Run, token: str, chunk: Any) -> None: ...
    def _on_llm_end(self, run: Run) -> None: ...
    def _on_llm_error(self, run: Run) -> None: ...
    def _on_tool_start(self, run: Run) -> None: ...
    def _on_tool_end(self, run: Run) -> None: ...
    def _on_tool_error(self, run: Run) -> None: ...
    def _on_retriever_start(self, run: Run) -> None: ...
    def _on_retriever_end(self, run: Run) -> None: ...
    def _on_retriever_error(self, run: Run) -> None: ...


class RunCollectorCallbackHandler(_RunTreeHandler):
    """Collect every run into trees of :class:`Run` (thread-safe).

    Args:
        example_id: set as every collected root run's ``reference_example_id``.

    Attributes:
        traced_runs: root runs (runs whose parent this handler did not see), each added
            when it ends, as LangChain's collector adds them.
        example_id: as given.
        runs_by_id: every run, by id (ragline's own; runs are there from their start).
        event_log: ``(event, run)`` pairs in the order events arrived, where ``event``
            is the callback name without ``on_`` (``"chain_start"``, ``"llm_new_token"``).
    """

    _keeps_ended = True

    def __init__(self, example_id: UUID | str | None = None) -> None:
        super().__init__()
        self.example_id = example_id
        self.traced_runs: list[Run] = []
        self._ended_roots = self.traced_runs
        self.runs_by_id = self._open
        self.event_log: list[tuple[str, Run]] = []
        self._event_log = self.event_log

    def timeline(self) -> list[tuple[str, str, str | None]]:
        """Return ``(event, run name, parent run name or None)`` for every event, in order."""
        with self._lock:
            rows = []
            for event, run in self.event_log:
                parent = self.runs_by_id.get(run.parent_run_id) if run.parent_run_id else None
                rows.append((event, run.name, parent.name if parent else None))
            return rows

    @property
    def example_id(self) -> UUID | None:
        """The id collected root runs get as ``reference_example_id``."""
        return self._example_id

    @example_id.setter
    def example_id(self, value: UUID | str | None) -> None:
        self._example_id = UUID(value) if isinstance(value, str) else value


@contextlib.contextmanager
def collect_runs() -> Iterator[RunCollectorCallbackHandler]:
    """Collect every run started inside the ``with`` block (in this thread or task, and
    the threads and tasks ragline starts from it) into a new
    :class:`RunCollectorCallbackHandler`.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> with collect_runs() as collector:
        ...     RunnableLambda(lambda x: x + 1).invoke(1)
        2
        >>> collector.traced_runs[0].outputs
        {'output': 2}
    """
    from ragline.core.callbacks.manager import context_handler

    collector = RunCollectorCallbackHandler()
    with context_handler(collector):
        yield collector


def listener_takes_config(listener: Any) -> bool:
    """Whether ``listener`` has a parameter named ``config`` (LangChain then passes it)."""
    try:
        return "config" in inspect.signature(listener).parameters
    except (TypeError, ValueError):  # no signature to read: call it with the run only
        return False


class RootListenersHandler(_RunTreeHandler):
    """Calls ``on_start(run)`` / ``on_end(run)`` / ``on_error(run)`` for root runs only.

    Behind ``Runnable.with_listeners``: the handler joins the config of the bound
    runnable, so the "root" runs it sees are the bound runnable's own runs. Each root's
    :class:`Run` has its whole tree (``child_runs``) by the time ``on_end`` sees it; a
    chat model's runs keep their messages (``run_type="chat_model"``), as LangChain's
    listeners see them. Runs are forgotten when they end, so memory stays flat.
    """

    chat_runs = True
    _notifies = True

    def __init__(
        self,
        on_start: Any = None,
        on_end: Any = None,
        on_error: Any = None,
        *,
        config: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self._listeners = {"start": on_start, "end": on_end, "error": on_error}
        # LangChain calls a listener with a ``config`` parameter as (run, config): the
        # config of the call the handler was made for.
        self._config = config
        self._with_config = {
            key: listener is not None and listener_takes_config(listener)
            for key, listener in self._listeners.items()
        }

    def _notify(self, which: str, run: Run) -> None:
        listener = self._listeners[which]
        if listener is None:
            return
        if self._with_config[which]:
            listener(run, config=dict(self._config or {}))
        else:
            listener(run)


class AsyncRootListenersHandler(RootListenersHandler):
    """:class:`RootListenersHandler` for coroutine listeners (behind
    ``Runnable.with_alisteners``): each listener's coroutine is awaited by the run's
    callbacks before the run goes on (a start listener before the runnable runs, an
    end listener before the call returns), as LangChain's async listeners."""

    def __init__(
        self,
        on_start: Any = None,
        on_end: Any = None,
        on_error: Any = None,
        *,
        config: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(on_start, on_end, on_error, config=config)
        self._pending: list[Any] = []

    def _notify(self, which: str, run: Run) -> None:
        listener = self._listeners[which]
        if listener is None:
            return
        if self._with_config[which]:
            self._pending.append(listener(run, config=dict(self._config or {})))
        else:
            self._pending.append(listener(run))


async def _await_all(pending: list[Any]) -> None:
    for awaitable in pending:
        if inspect.isawaitable(awaitable):
            await awaitable


def _awaiting_listeners(event: str) -> Any:
    """``event``'s method of :class:`AsyncRootListenersHandler`: the run recorded as
    ever, then the listeners' coroutines it started returned as one to await (taken in
    the same step, so concurrent runs' listeners stay apart)."""
    recorded = getattr(RootListenersHandler, event)

    def method(self: AsyncRootListenersHandler, *args: Any, **kwargs: Any) -> Any:
        recorded(self, *args, **kwargs)
        if not self._pending:
            return None
        pending, self._pending = self._pending, []
        return _await_all(pending)

    method.__name__ = method.__qualname__ = event
    return method


for _event in (
    "on_chain_start", "on_llm_start", "on_chat_model_start", "on_retriever_start",
    "on_tool_start", "on_chain_end", "on_chain_error", "on_llm_end", "on_llm_error",
    "on_retriever_end", "on_retriever_error", "on_tool_end", "on_tool_error",
):  # fmt: skip
    setattr(AsyncRootListenersHandler, _event, _awaiting_listeners(_event))
del _event


def wait_for_all_tracers() -> None:
    """Wait until every tracer has sent its runs (LangChain's, for its LangSmith tracer).

    ragline's tracers keep their runs in this process (OpenTelemetry spans go out through
    the exporter the program configured), so nothing is ever waiting to be sent: this
    returns at once, as LangChain's does when nothing traces to LangSmith.
    """

"""The direct span path (ragline.tracing._sdk_spans) against the SDK's public one: the
same spans, field by field, the same processor calls, and the public path wherever the
direct one cannot know the outcome."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
from opentelemetry import context as context_api
from opentelemetry import trace
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, TracerProvider, _Span, sampling
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanProcessor,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import ragline.tracing
from ragline.core import ChatPromptTemplate, FakeListChatModel, RunnableLambda, StrOutputParser
from ragline.core.callbacks import run_managers
from ragline.embeddings import HashingEmbeddings
from ragline.tracing import _sdk_spans
from ragline.tracing._sdk_spans import SdkSpans, _does_nothing, sdk_spans
from ragline.vectorstores import InMemoryVectorStore


class Recorder(SpanProcessor):
    """A processor that keeps every call it gets, with what it saw then."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        parent = None
        if parent_context is not None:
            parent = trace.get_current_span(parent_context).get_span_context()
        self.calls.append(("on_start", span, span.name, parent, dict(span.attributes)))

    def _on_ending(self, span: Any) -> None:
        self.calls.append(("_on_ending", span, span.name, span.end_time is not None))

    def on_end(self, span: Any) -> None:
        self.calls.append(("on_end", span, span.name, dict(span.attributes)))


class Setup:
    """A provider with a recording processor and an in-memory exporter, and tracing on
    through it; ``direct``: whether ragline may use the direct path."""

    def __init__(self, direct: bool, **provider: Any) -> None:
        self.recorder = Recorder()
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": "t"}),
                                       **provider)  # fmt: skip
        self.provider.add_span_processor(self.recorder)
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.handler = ragline.tracing.configure(tracer_provider=self.provider)
        if not direct:
            self.handler._direct = None
        assert (self.handler._direct is not None) is direct


def scenario(provider: Any) -> None:
    """Nested runs (a retrieval chain), an embedding under a retriever, a failing run,
    a run under the application's own span, and one under a remote parent."""
    store = InMemoryVectorStore.from_texts(
        ["cats purr", "dogs bark"], HashingEmbeddings(dimension=8), ids=["c", "d"]
    )
    retriever = store.as_retriever(search_kwargs={"k": 1})
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    chain = prompt | FakeListChatModel(responses=["yes"]) | StrOutputParser()
    assert chain.invoke({"q": "cats?"}) == "yes"
    assert [d.id for d in retriever.invoke("cats purr")] == ["c"]

    def fail(_: Any) -> None:
        raise ValueError("no")

    with pytest.raises(ValueError):
        RunnableLambda(fail).invoke(1)
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("app span"):
        retriever.invoke("dogs bark")
    remote = extract({"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"})
    token = context_api.attach(remote)
    try:
        retriever.invoke("cats purr")
    finally:
        context_api.detach(token)


def run(direct: bool, play: Callable[[Any], None] = scenario, **provider: Any) -> Setup:
    setup = Setup(direct, **provider)
    random.seed(20261129)  # the same span and trace ids on both paths
    run_managers._RUN_ID_BITS.seed(11)  # and the same run ids
    try:
        play(setup.provider)
    finally:
        ragline.tracing.disable()
    return setup


@pytest.fixture(autouse=True)
def _off() -> Iterator[None]:
    yield
    ragline.tracing.disable()


def same_attributes(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert list(a._dict.items()) == list(b._dict.items())  # the order too
    assert {k: type(v) for k, v in a._dict.items()} == {k: type(v) for k, v in b._dict.items()}
    for field in ("maxlen", "dropped", "max_value_len", "_immutable"):
        assert getattr(a, field) == getattr(b, field), field
    assert sorted(vars(a)) == sorted(vars(b))


def same_list(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert sorted(vars(a)) == sorted(vars(b))
    assert a.dropped == b.dropped and a._dq.maxlen == b._dq.maxlen and len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x.name, dict(x.attributes)) == (y.name, dict(y.attributes))


def same_span(a: Any, b: Any) -> None:
    """Every field of two spans (SDK _Span or ReadableSpan) equal, times excepted."""
    assert type(a) is type(b)
    assert sorted(vars(a)) == sorted(vars(b))
    for field, value in vars(a).items():
        other = getattr(b, field)
        if field in ("_start_time", "_end_time"):
            assert type(value) is type(other), field
        elif field == "_attributes":
            same_attributes(value, other)
        elif field in ("_events", "_links"):
            same_list(value, other)
        elif field == "_resource":
            assert value.attributes == other.attributes
        elif field == "_status":
            assert (value.status_code, value.description) == (
                other.status_code, other.description)  # fmt: skip
        elif field == "_context" or field == "_parent":
            assert value == other, field
            if value is not None:
                assert type(value) is type(other)
                assert type(value.trace_flags) is type(other.trace_flags)
                assert value.trace_state == other.trace_state
        elif field == "_limits":
            assert repr(value) == repr(other)
        elif field in ("_sampler", "_span_processor", "_lock"):
            assert type(value) is type(other), field
        else:
            assert value == other, field


def compare(direct: Setup, public: Setup) -> None:
    calls, expected = direct.recorder.calls, public.recorder.calls
    assert [c[0] for c in calls] == [c[0] for c in expected]
    for got, want in zip(calls, expected, strict=True):
        assert got[2:] == want[2:], got[0]
        same_span(got[1], want[1])
    exported = direct.exporter.get_finished_spans()
    assert len(exported) == len(public.exporter.get_finished_spans())
    for got, want in zip(exported, public.exporter.get_finished_spans(), strict=True):
        same_span(got, want)


def test_configure_takes_the_direct_path_with_the_default_provider() -> None:
    handler = ragline.tracing.configure(tracer_provider=TracerProvider())
    assert isinstance(handler._direct, SdkSpans)


def test_direct_spans_equal_public_spans_field_by_field() -> None:
    direct, public = run(True), run(False)
    names = [c[2] for c in direct.recorder.calls if c[0] == "on_end"]
    assert names.count("retrieval") == 3 and "app span" in names
    assert [s.name for s in direct.exporter.get_finished_spans()] == [
        "embeddings", "ChatPromptTemplate", "chat FakeListChatModel", "StrOutputParser",
        "RunnableSequence", "embeddings", "retrieval", "fail", "embeddings", "retrieval",
        "app span", "embeddings", "retrieval",
    ]  # fmt: skip
    compare(direct, public)
    spans = {type(c[1]) for c in direct.recorder.calls}
    assert spans == {_Span, ReadableSpan}
    failed = [s for s in direct.exporter.get_finished_spans() if s.name == "fail"]
    assert failed[0].status.status_code is trace.StatusCode.ERROR
    assert failed[0].events[0].name == "exception"


def test_the_remote_parent_and_the_application_span_are_parents() -> None:
    spans = run(True).exporter.get_finished_spans()
    app = next(s for s in spans if s.name == "app span")
    retrievals = [s for s in spans if s.name == "retrieval"]
    assert retrievals[1].parent == app.context
    assert retrievals[2].context.trace_id == 0x0AF7651916CD43DD8448EB211C80319C
    assert retrievals[2].parent.span_id == 0xB7AD6B7169203331
    assert retrievals[2].parent.is_remote
    assert retrievals[0].parent is None
    assert retrievals[0].context.trace_flags == 3  # sampled, random trace id


def test_an_unsampled_remote_parent_takes_the_public_path_and_records_nothing() -> None:
    def play(provider: Any) -> None:
        retriever = InMemoryVectorStore.from_texts(
            ["a"], HashingEmbeddings(dimension=8)
        ).as_retriever(search_kwargs={"k": 1})
        header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
        token = context_api.attach(extract({"traceparent": header}))
        try:
            retriever.invoke("a")
        finally:
            context_api.detach(token)

    direct, public = run(True, play), run(False, play)
    assert [s.name for s in direct.exporter.get_finished_spans()] == ["embeddings"]
    compare(direct, public)


@pytest.mark.parametrize(
    "provider",
    [
        {"sampler": sampling.TraceIdRatioBased(0.5)},
        {"span_limits": SpanLimits(max_span_attribute_length=4)},
        {"span_limits": SpanLimits(max_span_attributes=2)},
    ],
    ids=["ratio sampler", "value length limit", "two attributes"],
)
def test_other_configurations_give_the_same_spans(provider: dict[str, Any]) -> None:
    compare(run(True, **provider) if _direct_ok(provider) else run(False, **provider),
            run(False, **provider))  # fmt: skip


def _direct_ok(provider: dict[str, Any]) -> bool:
    return sdk_spans(TracerProvider(**provider).get_tracer("x")) is not None


def test_a_small_attribute_count_limit_falls_back_per_span() -> None:
    provider = {"span_limits": SpanLimits(max_span_attributes=2)}
    assert _direct_ok(provider)  # the limit is checked per span, not per tracer
    direct = run(True, **provider)
    retrieval = next(s for s in direct.exporter.get_finished_spans() if s.name == "retrieval")
    assert retrieval.dropped_attributes > 0
    compare(direct, run(False, **provider))


def test_a_processor_added_later_gets_every_call() -> None:
    def play(provider: Any) -> None:
        scenario(provider)
        later = Recorder()
        provider.add_span_processor(later)
        RunnableLambda(lambda x: x).invoke(1)
        assert [c[0] for c in later.calls] == ["on_start", "_on_ending", "on_end"]

    compare(run(True, play), run(False, play))


@pytest.mark.parametrize(
    "make",
    [
        lambda: trace.NoOpTracerProvider().get_tracer("x"),
        lambda: TracerProvider(sampler=sampling.ALWAYS_OFF).get_tracer("x"),
        lambda: TracerProvider(sampler=sampling.ParentBasedTraceIdRatio(0.1)).get_tracer("x"),
        lambda: TracerProvider(
            sampler=sampling.ParentBased(
                sampling.ALWAYS_ON, remote_parent_not_sampled=sampling.ALWAYS_ON
            )
        ).get_tracer("x"),
        lambda: TracerProvider(span_limits=SpanLimits(max_attribute_length=10)).get_tracer("x"),
    ],
    ids=["no-op tracer", "always off", "ratio", "remote unsampled on", "value length"],
)
def test_tracers_whose_outcome_it_does_not_know_take_the_public_path(make: Any) -> None:
    assert sdk_spans(make()) is None


def test_an_unverified_sdk_version_takes_the_public_path(monkeypatch: pytest.MonkeyPatch) -> None:
    import opentelemetry.sdk.version

    tracer = TracerProvider().get_tracer("x")
    assert sdk_spans(tracer) is not None
    monkeypatch.setattr(opentelemetry.sdk.version, "__version__", "1.99.0")
    assert sdk_spans(tracer) is None


def test_sdk_spans_with_other_fields_take_the_public_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tracer = TracerProvider().get_tracer("x")
    monkeypatch.setattr(_sdk_spans, "_SPAN_FIELDS", _sdk_spans._SPAN_FIELDS | {"_new"})
    assert sdk_spans(tracer) is None
    monkeypatch.undo()
    monkeypatch.setattr(_Span, "__init__", lambda self, **kwargs: None)
    assert sdk_spans(tracer) is None  # a span without the fields


def test_which_processor_methods_do_nothing() -> None:
    assert _does_nothing(BatchSpanProcessor.on_start)
    assert _does_nothing(BatchSpanProcessor._on_ending)
    assert _does_nothing(SpanProcessor.on_end)
    assert not _does_nothing(BatchSpanProcessor.on_end)
    assert not _does_nothing(SimpleSpanProcessor.on_end)
    assert not _does_nothing(Recorder.on_start)
    assert not _does_nothing(lambda: 0)
    assert not _does_nothing(print)


class Presetting(SpanProcessor):
    """Sets, on start, an attribute that ragline sets again at the end."""

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        span.set_attribute("ragline.retrieval.score_type", "pending")


def test_an_attribute_set_again_at_the_end_moves_last_as_in_the_sdk() -> None:
    def play(provider: Any) -> None:
        provider.add_span_processor(Presetting())
        scenario(provider)

    direct = run(True, play)
    retrieval = next(s for s in direct.exporter.get_finished_spans() if s.name == "retrieval")
    assert list(retrieval.attributes)[-1] == "ragline.retrieval.score_type"
    assert retrieval.attributes["ragline.retrieval.score_type"] == "native"
    compare(direct, run(False, play))


class CountingBatch(BatchSpanProcessor):
    """A batch processor whose on_end is its own."""

    ended: ClassVar[list[str]] = []

    def on_end(self, span: Any) -> None:
        CountingBatch.ended.append(span.name)
        super().on_end(span)


def test_a_batch_processor_gets_the_same_spans_and_an_own_on_end_is_called() -> None:
    exported: dict[bool, list[Any]] = {}
    patched: list[str] = []
    for direct in (True, False):
        batch, counting = InMemorySpanExporter(), InMemorySpanExporter()
        plain = BatchSpanProcessor(batch)
        own = CountingBatch(counting)
        patched_processor = BatchSpanProcessor(InMemorySpanExporter())
        original = patched_processor.on_end

        def on_end(span: Any, original: Any = original) -> None:
            patched.append(span.name)
            original(span)

        patched_processor.on_end = on_end  # type: ignore[method-assign]

        def play(provider: Any, processors: Any = (plain, own, patched_processor)) -> None:
            for processor in processors:
                provider.add_span_processor(processor)
            scenario(provider)

        CountingBatch.ended = []
        setup = run(direct, play)
        setup.provider.force_flush()
        exported[direct] = [batch.get_finished_spans(), counting.get_finished_spans()]
        assert CountingBatch.ended == [s.name for s in setup.exporter.get_finished_spans()]
        assert patched == CountingBatch.ended
        patched.clear()
        setup.provider.shutdown()
    for got, want in zip(exported[True], exported[False], strict=True):
        assert len(got) == len(want) == 13
        for a, b in zip(got, want, strict=True):
            same_span(a, b)


class Slow(Recorder):
    """A recorder whose ``on_start`` is slow to look up in one thread (``blocker``): a
    processor being listened to in one thread while another starts and ends a span."""

    def __init__(self) -> None:
        super().__init__()
        self.blocker: threading.Thread | None = None
        self.entered, self.go = threading.Event(), threading.Event()

    @property  # type: ignore[override]
    def on_start(self) -> Any:
        if threading.current_thread() is self.blocker and not self.go.is_set():
            self.entered.set()
            assert self.go.wait(10)
        return super().on_start


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "public"])
def test_a_processor_added_is_called_for_a_span_started_in_another_thread_meanwhile(
    direct: bool,
) -> None:
    provider = TracerProvider()
    provider.add_span_processor(Recorder())
    tracer = provider.get_tracer("x")
    spans = sdk_spans(tracer)
    assert spans is not None

    def span(name: str) -> None:
        if direct:
            spans.end(spans.start(name, trace.SpanKind.INTERNAL, {"k": 1}, None))
        else:
            tracer.start_span(name, kind=trace.SpanKind.INTERNAL, attributes={"k": 1}).end()

    span("before")
    slow = Slow()
    provider.add_span_processor(slow)
    slow.blocker = threading.Thread(target=span, args=("first",))
    slow.blocker.start()
    try:
        assert slow.entered.wait(10)  # the other thread is at the new processor's on_start
        span("second")  # started after add_span_processor returned: the processor sees it
    finally:
        slow.go.set()
        slow.blocker.join(10)
    assert sorted((c[0], c[2]) for c in slow.calls) == [
        ("_on_ending", "first"), ("_on_ending", "second"),
        ("on_end", "first"), ("on_end", "second"),
        ("on_start", "first"), ("on_start", "second"),
    ]  # fmt: skip


def test_ids_come_from_random_getrandbits_as_it_is_at_each_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def play(provider: Any) -> None:
        drawn = iter(range(1, 1000))  # the SDK's id generator reads random.getrandbits
        monkeypatch.setattr(random, "getrandbits", lambda bits: next(drawn))  # per id
        try:
            scenario(provider)
        finally:
            monkeypatch.undo()

    direct = run(True, play)
    first = direct.exporter.get_finished_spans()[0].context  # from_texts' embedding
    assert (first.trace_id, first.span_id) == (1, 2)
    compare(direct, run(False, play))

"""Parity: ``astream_events(version="v1")`` against langchain_core's.

Each scenario runs through both libraries; the event sequences are compared whole: each
event's kind, name, tags, metadata (without LangChain's ``lc_versions``), ``data`` (as
:func:`observe` sees it, so message ids are left out), its keys in order, its
``parent_ids`` (always empty in v1) and its ``run_id`` mapped to the order in which run
ids are first seen. Both warn that v1 is deprecated (each with its own wording).
"""

from __future__ import annotations

import asyncio
import types
import warnings
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.documents as lc_documents
import langchain_core.embeddings as lc_embeddings
import langchain_core.language_models as lc_models
import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
import langchain_core.tools as lc_tools
import langchain_core.vectorstores as lc_vectorstores
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks
import ragline.embeddings as rl_embeddings
import ragline.tools as rl_tools
import ragline.vectorstores as rl_vectorstores
from tests.parity._observe import observe

LC = types.SimpleNamespace(
    Lambda=lc_runnables.RunnableLambda,
    Parallel=lc_runnables.RunnableParallel,
    ChatPrompt=lc_prompts.ChatPromptTemplate,
    Prompt=lc_prompts.PromptTemplate,
    Str=lc_parsers.StrOutputParser,
    Chat=lc_models.FakeListChatModel,
    LLM=lc_models.FakeListLLM,
    StreamingLLM=lc_models.FakeStreamingListLLM,
    tool=lc_tools.tool,
    Store=lc_vectorstores.InMemoryVectorStore,
    Embeddings=lc_embeddings.DeterministicFakeEmbedding,
    Document=lc_documents.Document,
    adispatch=lc_callbacks.adispatch_custom_event,
)
OURS = types.SimpleNamespace(
    Lambda=rl.RunnableLambda,
    Parallel=rl.RunnableParallel,
    ChatPrompt=rl.ChatPromptTemplate,
    Prompt=rl.PromptTemplate,
    Str=rl.StrOutputParser,
    Chat=rl.FakeListChatModel,
    LLM=rl.FakeListLLM,
    StreamingLLM=rl.FakeStreamingListLLM,
    tool=rl_tools.tool,
    Store=rl_vectorstores.InMemoryVectorStore,
    Embeddings=rl_embeddings.DeterministicFakeEmbedding,
    Document=rl.Document,
    adispatch=rl_callbacks.adispatch_custom_event,
)


# ---- scenarios: (build(ns) -> runnable, input) --------------------------------------
def _sequence(ns: Any) -> Any:
    prompt = ns.ChatPrompt.from_messages([("human", "Say {word}")])
    return prompt | ns.Chat(responses=["hi there"]) | ns.Str()


async def _plus_one(x: int) -> int:
    return x + 1


async def _twice(x: int) -> int:
    return x * 2


def _parallel(ns: Any) -> Any:
    # async steps: sync ones run in worker threads, whose timing orders the events
    return ns.Parallel(a=ns.Lambda(_plus_one), b=ns.Lambda(_twice))


async def _awords(text: str) -> Any:
    for word in text.split():
        yield word + " "


def _generator(ns: Any) -> Any:
    return ns.Lambda(_awords, name="words")


def _generator_in_chain(ns: Any) -> Any:
    return ns.Lambda(lambda x: x, name="before") | _generator(ns) | ns.Lambda(str.strip)


def _retriever(ns: Any) -> Any:
    store = ns.Store(embedding=ns.Embeddings(size=8))
    texts = ["cats purr", "dogs bark", "fish swim"]
    store.add_documents([ns.Document(page_content=t, id=str(i)) for i, t in enumerate(texts)])
    return store.as_retriever(search_kwargs={"k": 2})


def _retriever_in_chain(ns: Any) -> Any:
    def join(docs: list[Any]) -> str:
        return " / ".join(d.page_content for d in docs)

    return _retriever(ns) | ns.Lambda(join, name="join")


def _add_tool(ns: Any) -> Any:
    @ns.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return add


def _tool_in_chain(ns: Any) -> Any:
    return ns.Lambda(lambda x: {"a": x, "b": 10}, name="args") | _add_tool(ns)


def _echo_tool(ns: Any) -> Any:
    @ns.tool
    def echo(text: str) -> str:
        """Say the text back."""
        return text * 2

    return ns.Lambda(str.strip, name="strip") | echo


def _nested(ns: Any) -> Any:
    inner = ns.Lambda(lambda x: x + "!", name="shout") | ns.Lambda(str.upper, name="upper")
    inner = inner.with_config(tags=["inner"], metadata={"k": 1}, run_name="inner_chain")
    prompt = ns.Prompt.from_template("got {x}")
    return ns.Lambda(lambda x: x, name="first") | inner | prompt | ns.LLM(responses=["done"])


def _streaming_llm_in_chain(ns: Any) -> Any:
    return ns.Prompt.from_template("{q}") | ns.StreamingLLM(responses=["ok!"]) | ns.Str()


def _boom(x: str) -> str:
    raise ValueError(f"no {x}")


def _failing(ns: Any) -> Any:
    return ns.Lambda(lambda x: x, name="first") | ns.Lambda(_boom, name="boom") | ns.Lambda(str)


def _custom_event(ns: Any) -> Any:
    async def emit(x: str) -> str:
        await ns.adispatch("mine", {"n": 1})
        return x

    return ns.Lambda(emit, name="emitter") | ns.Lambda(str.upper, name="upper")


def _dict_output(ns: Any) -> Any:
    return ns.Lambda(lambda x: {"a": x}, name="mk") | ns.Lambda(lambda d: d, name="same")


SCENARIOS = {
    "prompt | chat model | parser": (_sequence, {"word": "hi"}),
    "parallel": (_parallel, 3),
    "async generator lambda": (_generator, "a b c"),
    "generator in a chain": (_generator_in_chain, "a b"),
    "retriever": (_retriever, "cats"),
    "retriever in a chain": (_retriever_in_chain, "dogs"),
    "tool": (_add_tool, {"a": 1, "b": 2}),
    "tool in a chain": (_tool_in_chain, 5),
    "tool given a string": (_echo_tool, " ab "),
    "chat model given messages": (
        lambda ns: ns.ChatPrompt.from_messages([("human", "{q}")]) | ns.Chat(responses=["no"]),
        {"q": "why"},
    ),
    "nested chain with tags and metadata": (_nested, "hi"),
    "streaming llm in a chain": (_streaming_llm_in_chain, {"q": "why"}),
    "chat model alone": (lambda ns: ns.Chat(responses=["yo"]), "hey"),
    "llm alone": (lambda ns: ns.LLM(responses=["ok"]), "hey"),
    "streaming llm alone": (lambda ns: ns.StreamingLLM(responses=["ok"]), "hey"),
    "prompt alone": (lambda ns: ns.Prompt.from_template("{q}?"), {"q": "why"}),
    "dict output": (_dict_output, "x"),
    "custom event": (_custom_event, "x"),
}


# ---- running and comparing ------------------------------------------------------------
def _seen(value: Any) -> Any:
    """``observe`` that also shows prompt values by their messages."""
    if hasattr(value, "to_messages") and hasattr(value, "to_string"):
        return (type(value).__name__, observe(value.to_messages()))
    if isinstance(value, dict):
        return {key: _seen(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_seen(item) for item in value]
    return observe(value)


def _run(runnable: Any, value: Any, **options: Any) -> tuple[list[dict[str, Any]], Any, list[Any]]:
    async def main() -> tuple[list[dict[str, Any]], Any]:
        events: list[dict[str, Any]] = []
        try:
            async for event in runnable.astream_events(value, version="v1", **options):
                events.append(event)
        except Exception as err:  # the run's own error, compared by type and text
            return events, (type(err).__name__, str(err))
        return events, None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        events, error = asyncio.run(main())
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    return events, error, deprecations


def _shape(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids: dict[str, int] = {}
    shaped = []
    for event in events:
        metadata = {k: v for k, v in event["metadata"].items() if k != "lc_versions"}
        shaped.append(
            {
                "keys": list(event),
                "event": event["event"],
                "name": event["name"],
                "run": ids.setdefault(event["run_id"], len(ids)),
                "parent_ids": event["parent_ids"],
                "tags": event["tags"],
                "metadata": metadata,
                "data": _seen(event["data"]),
            }
        )
    return shaped


def _both(name: str, **options: Any) -> tuple[Any, Any]:
    build, value = SCENARIOS[name]
    lc_events, lc_error, lc_warned = _run(build(LC), value, **options)
    our_events, our_error, our_warned = _run(build(OURS), value, **options)
    assert len(lc_warned) == 1
    assert len(our_warned) == 1
    assert "version='v1'" in str(our_warned[0].message)
    assert lc_events, "LangChain gave no events"
    return (_shape(lc_events), lc_error), (_shape(our_events), our_error)


@pytest.mark.parametrize("scenario", [name for name in SCENARIOS if name != "parallel"])
def test_v1_events_are_langchains(scenario: str) -> None:
    theirs, ours = _both(scenario)
    assert ours == theirs


def _same_events_in_any_order(ours: list[Any], theirs: list[Any]) -> bool:
    left = list(ours)
    for event in theirs:
        if event not in left:
            return False
        left.remove(event)
    return not left


def test_a_parallels_events_are_langchains_run_by_run() -> None:
    # LangChain starts every branch before the first one streams, ragline streams the
    # first before starting the next (as in v2: docs/differences-from-langchain.md);
    # LangChain's order of the branches' chunks and ends also varies from run to run
    (theirs, _), (ours, _) = _both("parallel")
    assert _same_events_in_any_order(ours, theirs)
    assert [(e["event"], e["name"]) for e in ours] == [
        ("on_chain_start", "RunnableParallel<a,b>"),
        ("on_chain_start", "_plus_one"),
        ("on_chain_stream", "_plus_one"),
        ("on_chain_start", "_twice"),
        ("on_chain_stream", "_twice"),
        ("on_chain_stream", "RunnableParallel<a,b>"),
        ("on_chain_stream", "RunnableParallel<a,b>"),
        ("on_chain_end", "_plus_one"),
        ("on_chain_end", "_twice"),
        ("on_chain_end", "RunnableParallel<a,b>"),
    ]
    assert [e["data"] for e in ours if e["run"] == 0] == [
        {"input": 3},
        {"chunk": {"a": 4}},
        {"chunk": {"b": 6}},
        {"output": {"a": 4, "b": 6}},
    ]


def test_a_run_that_raises_ends_its_step_with_no_output_then_raises() -> None:
    theirs, ours = _both_failing(_failing, "x")
    assert ours == theirs
    events, error = ours
    assert error == ("ValueError", "no x")
    assert [(e["event"], e["name"]) for e in events][-2:] == [
        ("on_chain_end", "first"),
        ("on_chain_end", "boom"),
    ]
    assert events[-1]["data"] == {"input": "x", "output": None}


def _failing_tool(ns: Any) -> Any:
    @ns.tool
    def divide(a: int, b: int) -> float:
        """Divide a by b."""
        return a / b

    return ns.Lambda(lambda x: {"a": x, "b": 0}, name="args") | divide


def test_a_tool_that_raises_ends_with_no_output_then_raises() -> None:
    theirs, ours = _both_failing(_failing_tool, 1)
    assert ours == theirs
    events, error = ours
    assert error == ("ZeroDivisionError", "division by zero")
    assert (events[-1]["event"], events[-1]["data"]) == (
        "on_tool_end",
        {"input": {"a": 1, "b": 0}, "output": None},
    )


def _both_failing(build: Any, value: Any) -> tuple[Any, Any]:
    lc_events, lc_error, _ = _run(build(LC), value)
    our_events, our_error, _ = _run(build(OURS), value)
    return (_shape(lc_events), lc_error), (_shape(our_events), our_error)


def test_custom_events_are_left_out_as_in_langchain() -> None:
    (events, _), _ = _both("custom event")
    assert "on_custom_event" not in [e["event"] for e in events]


def test_the_outermost_run_takes_the_config_name_tags_and_metadata() -> None:
    config = {"run_name": "top", "tags": ["t1"], "metadata": {"user": "u"}}
    theirs, ours = _both("prompt | chat model | parser", config=config)
    assert ours == theirs
    first, *_, last = ours[0]
    assert (first["name"], first["tags"], first["metadata"]) == ("top", ["t1"], {"user": "u"})
    assert (last["event"], last["data"]) == ("on_chain_end", {"output": "hi there"})


def test_a_bound_root_reports_its_bound_config_too() -> None:
    def build(ns: Any) -> Any:
        bound = ns.Lambda(str.upper, name="up").with_config(tags=["own"], metadata={"m": 1})
        return bound.with_config(run_name="renamed")

    lc_events, _, _ = _run(build(LC), "a", config={"tags": ["call"]})
    our_events, _, _ = _run(build(OURS), "a", config={"tags": ["call"]})
    assert _shape(our_events) == _shape(lc_events)
    assert [(e["name"], e["tags"], e["metadata"]) for e in our_events] == [
        ("renamed", ["call", "own"], {"m": 1})
    ] * 3


FILTERS = {
    "include_names": {"include_names": ["shout", "upper"]},
    "include_types": {"include_types": ["llm", "prompt"]},
    "include_tags": {"include_tags": ["inner"]},
    "exclude_names": {"exclude_names": ["inner_chain", "first"]},
    "exclude_types": {"exclude_types": ["chain"]},
    "exclude_tags": {"exclude_tags": ["inner"]},
    "include then exclude": {"include_tags": ["inner"], "exclude_names": ["shout"]},
    "the outermost by name": {"include_names": ["RunnableSequence"]},
}


@pytest.mark.parametrize("filters", list(FILTERS))
def test_filters_pick_the_same_events(filters: str) -> None:
    theirs, ours = _both("nested chain with tags and metadata", **FILTERS[filters])
    assert ours == theirs


def test_a_chat_model_is_its_own_type_in_the_v1_filters() -> None:
    theirs, ours = _both("prompt | chat model | parser", include_types=["chat_model"])
    assert ours == theirs
    assert {e["event"] for e in ours[0]} == {
        "on_chat_model_start",
        "on_chat_model_stream",
        "on_chat_model_end",
    }

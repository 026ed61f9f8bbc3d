"""Retrievers through the bridge skip the run bookkeeping of a side nobody listens to
(LangChain's ``configure`` decides), so every way a listener can be there must still
hear the run and the runs inside it, with their parents: a handler in the config, one
handed down by an enclosing LangChain run, ``collect_runs`` (a context variable), the
global debug switch, LangSmith tracing (``tracing_v2_enabled``, posting to a loopback
server), and, the other way, ragline handlers and ``astream_events``.

Each retriever here makes one inner run (a lambda named "shout"), so a test fails if a
shortcut dropped the wrapper's run or cut its inner runs off from the listener.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.globals import set_debug
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.tracers.context import collect_runs, tracing_v2_enabled
from langsmith import Client

from ragline.core import BaseRetriever, Document, RunnableLambda
from ragline.core.callbacks import RunCollectorCallbackHandler
from ragline.interop.langchain import from_langchain, to_langchain


class _Shouting(BaseRetriever):
    """A ragline retriever with one inner run."""

    def _get_relevant_documents(self, query: str) -> list[Document]:
        shouted = RunnableLambda(lambda q: q.upper(), name="shout").invoke(query)
        return [Document(shouted, metadata={"n": 1}, id="x")]


class _LCShouting(LCBaseRetriever):
    """A LangChain retriever with one inner run."""

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[LCDocument]:
        shout = LCRunnableLambda(lambda q: q.upper(), name="shout")
        shouted = shout.invoke(query, {"callbacks": run_manager.get_child()})
        return [LCDocument(shouted, metadata={"n": 1}, id="x")]


class _LCOldStyle(LCBaseRetriever):
    """A LangChain retriever whose hook takes no run manager."""

    def _get_relevant_documents(self, query: str) -> list[LCDocument]:  # type: ignore[override]
        return [LCDocument(query[::-1], id="r")]


class _LCOwnInvoke(_LCShouting):
    """A LangChain retriever with its own ``invoke``: the bridge must call it."""

    def invoke(self, input: str, config: Any = None, **kwargs: Any) -> list[LCDocument]:
        return [LCDocument("own invoke", id="own"), *super().invoke(input, config, **kwargs)]


class _Heard(LCHandler):
    """Records (event, name, run id, parent run id) of retriever and chain runs."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str | None, UUID, UUID | None]] = []

    def _record(self, event: str, kwargs: dict[str, Any]) -> None:
        self.events.append((event, kwargs.get("name"), kwargs["run_id"], kwargs["parent_run_id"]))

    def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
        self._record("on_retriever_start", kwargs)

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        self._record("on_retriever_end", kwargs)

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self._record("on_chain_start", kwargs)

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self._record("on_chain_end", kwargs)


SHOUTED = [LCDocument("HI", metadata={"n": 1}, id="x")]


def _traced(runs: dict[str, dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """(name, run type, parent's name) of each traced run, sorted."""
    names = {run_id: fields["name"] for run_id, fields in runs.items()}
    return sorted(
        (fields["name"], fields["run_type"], names.get(fields.get("parent_run_id")))  # type: ignore[arg-type]
        for fields in runs.values()
    )


def _assert_retriever_then_shout(events: list[Any], name: str, parent: UUID | None) -> None:
    """The retriever run under ``parent``, and the inner "shout" run under it."""
    (start, retriever, wrapper, above), (shout, inner, shout_id, shout_parent) = events[:2]
    assert (start, retriever, above) == ("on_retriever_start", name, parent)
    assert (shout, inner, shout_parent) == ("on_chain_start", "shout", wrapper)
    assert events[2:] == [
        ("on_chain_end", None, shout_id, wrapper),
        ("on_retriever_end", None, wrapper, parent),
    ]


# ---- to_langchain: a ragline retriever inside LangChain -------------------------------


def test_with_no_langchain_listener_the_bridged_retriever_finds_the_same() -> None:
    assert to_langchain(_Shouting()).invoke("hi") == SHOUTED


def test_a_handler_in_the_langchain_config_hears_the_retriever_and_its_inner_run() -> None:
    handler = _Heard()
    assert to_langchain(_Shouting()).invoke("hi", {"callbacks": [handler]}) == SHOUTED
    _assert_retriever_then_shout(handler.events, "_Shouting", None)


def test_a_handler_of_an_enclosing_langchain_run_hears_the_retriever_under_it() -> None:
    # no config passed to invoke: the lambda's run hands its handler down by context
    bridged = to_langchain(_Shouting())
    outer = LCRunnableLambda(lambda q: bridged.invoke(q), name="outer")
    handler = _Heard()
    assert outer.invoke("hi", {"callbacks": [handler]}) == SHOUTED
    (event, name, outer_id, top) = handler.events[0]
    assert (event, name, top) == ("on_chain_start", "outer", None)
    _assert_retriever_then_shout(handler.events[1:-1], "_Shouting", outer_id)


def test_collect_runs_hears_the_bridged_retriever_and_its_inner_run() -> None:
    with collect_runs() as collected:
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    (run,) = collected.traced_runs
    assert (run.name, run.run_type, run.parent_run_id) == ("_Shouting", "retriever", None)
    assert [(child.name, child.run_type) for child in run.child_runs] == [("shout", "chain")]


def test_langchain_s_global_debug_output_shows_the_inner_run_under_the_retriever(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_debug(True)
    try:
        to_langchain(_Shouting()).invoke("hi")
    finally:
        set_debug(False)
    assert "[retriever:_Shouting > chain:shout] Entering Chain run" in capsys.readouterr().out


def test_langsmith_tracing_records_the_bridged_retriever_and_its_inner_run(
    langsmith: tuple[Client, dict[str, dict[str, Any]]],
) -> None:
    client, runs = langsmith
    with tracing_v2_enabled(project_name="bridge", client=client) as tracer:
        assert to_langchain(_Shouting()).invoke("hi") == SHOUTED
    tracer.wait_for_futures()
    assert _traced(runs) == [("_Shouting", "retriever", None), ("shout", "chain", "_Shouting")]


async def test_async_listeners_hear_the_bridged_retriever_and_its_inner_run() -> None:
    bridged = to_langchain(_Shouting())
    assert await bridged.ainvoke("hi") == SHOUTED
    handler = _Heard()
    assert await bridged.ainvoke("hi", {"callbacks": [handler]}) == SHOUTED
    _assert_retriever_then_shout(handler.events, "_Shouting", None)
    with collect_runs() as collected:
        await bridged.ainvoke("hi")
    (run,) = collected.traced_runs
    assert [child.name for child in run.child_runs] == ["shout"]


async def test_langchain_astream_events_see_the_bridged_retriever_and_its_inner_run() -> None:
    events = [
        (event["event"], event["name"], len(event["parent_ids"]))
        async for event in to_langchain(_Shouting()).astream_events("hi", version="v2")
    ]
    assert events == [
        ("on_retriever_start", "_Shouting", 0),
        ("on_chain_start", "shout", 1),
        ("on_chain_end", "shout", 1),
        ("on_retriever_end", "_Shouting", 0),
    ]


# ---- from_langchain: a LangChain retriever inside ragline -----------------------------


def test_with_no_listener_a_wrapped_langchain_retriever_finds_the_same() -> None:
    expected = [Document("HI", metadata={"n": 1}, id="x")]
    assert from_langchain(_LCShouting()).invoke("hi") == expected
    assert from_langchain(_LCOldStyle()).invoke("abc") == [Document("cba", id="r")]


async def test_with_no_listener_a_wrapped_langchain_retriever_finds_the_same_async() -> None:
    expected = [Document("HI", metadata={"n": 1}, id="x")]
    assert await from_langchain(_LCShouting()).ainvoke("hi") == expected
    assert await from_langchain(_LCOldStyle()).ainvoke("abc") == [Document("cba", id="r")]


def test_a_langchain_retriever_s_own_invoke_is_called_through_the_bridge() -> None:
    found = from_langchain(_LCOwnInvoke()).invoke("hi")
    assert [document.id for document in found] == ["own", "x"]


async def test_a_langchain_retriever_s_own_ainvoke_path_is_kept_async() -> None:
    found = await from_langchain(_LCOwnInvoke()).ainvoke("hi")
    # LangChain's default ainvoke does not go through a subclass's invoke
    assert [document.id for document in found] == ["x"]


def test_a_ragline_handler_hears_the_langchain_retriever_s_inner_run_under_the_wrapper() -> None:
    collector = RunCollectorCallbackHandler()
    assert from_langchain(_LCShouting()).invoke("hi", {"callbacks": [collector]}) == [
        Document("HI", metadata={"n": 1}, id="x")
    ]
    (run,) = collector.traced_runs
    assert (run.name, run.run_type) == ("_LCShouting", "retriever")
    (child,) = run.child_runs
    assert (child.name, child.run_type, child.parent_run_id) == ("shout", "chain", run.id)


async def test_ragline_astream_events_see_the_langchain_retriever_s_inner_run() -> None:
    events = [
        (event["event"], event["name"], len(event["parent_ids"]))
        async for event in from_langchain(_LCShouting()).astream_events("hi", version="v2")
    ]
    assert events == [
        ("on_retriever_start", "_LCShouting", 0),
        ("on_chain_start", "shout", 1),
        ("on_chain_end", "shout", 1),
        ("on_retriever_end", "_LCShouting", 0),
    ]


def test_collect_runs_hears_a_wrapped_langchain_retriever_with_no_ragline_listener() -> None:
    with collect_runs() as collected:
        from_langchain(_LCShouting()).invoke("hi")
    (run,) = collected.traced_runs
    assert (run.name, run.run_type) == ("_LCShouting", "retriever")
    assert [child.name for child in run.child_runs] == ["shout"]


def test_langsmith_tracing_records_a_wrapped_langchain_retriever_with_no_ragline_listener(
    langsmith: tuple[Client, dict[str, dict[str, Any]]],
) -> None:
    client, runs = langsmith
    with tracing_v2_enabled(project_name="bridge", client=client) as tracer:
        from_langchain(_LCShouting()).invoke("hi")
    tracer.wait_for_futures()
    assert _traced(runs) == [("_LCShouting", "retriever", None), ("shout", "chain", "_LCShouting")]


async def test_collect_runs_hears_a_wrapped_langchain_retriever_async() -> None:
    with collect_runs() as collected:
        await from_langchain(_LCShouting()).ainvoke("hi")
    (run,) = collected.traced_runs
    assert (run.name, run.run_type) == ("_LCShouting", "retriever")
    assert [child.name for child in run.child_runs] == ["shout"]


def test_langchain_s_global_debug_output_shows_a_wrapped_retriever_s_inner_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    set_debug(True)
    try:
        from_langchain(_LCShouting()).invoke("hi")
    finally:
        set_debug(False)
    assert "[retriever:_LCShouting > chain:shout] Entering Chain run" in capsys.readouterr().out

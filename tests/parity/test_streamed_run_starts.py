"""Parity: how a streamed run starts, and the name of a run started by hand, against
langchain_core.

A runnable that streams through its transform (a sequence, a map, a lambda, a
passthrough or an assign) starts its run with ``{"input": ""}``, as LangChain's does: the
input is whole only when the stream ends, when the end callback carries it and the Run
record's ``inputs`` become it. A run started on a callback manager with neither a name
nor a ``serialized`` that names it reaches the handlers with ``serialized=None`` and
``name=None``, and its Run is named ``"Unnamed"`` (``"Retriever"`` for a retriever).
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.outputs as lc_outputs
import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

COVERS = {"core.RunnableSequence", "core.RunnableParallel", "core.RunnablePassthrough"}

LC = types.SimpleNamespace(
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableParallel=lc_runnables.RunnableParallel,
    RunnablePassthrough=lc_runnables.RunnablePassthrough,
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    CallbackManager=lc_callbacks.CallbackManager,
    collect_runs=lc_tracer_context.collect_runs,
    LLMResult=lc_outputs.LLMResult,
)
OURS = types.SimpleNamespace(
    RunnableLambda=rl.RunnableLambda,
    RunnableParallel=rl.RunnableParallel,
    RunnablePassthrough=rl.RunnablePassthrough,
    BaseCallbackHandler=rl_callbacks.BaseCallbackHandler,
    CallbackManager=rl_callbacks.CallbackManager,
    collect_runs=rl_callbacks.collect_runs,
    LLMResult=rl.LLMResult,
)


def _exclaim(text: str) -> Any:
    yield text + "!"


def _streamers(ns: Any) -> dict[str, tuple[Any, Any]]:
    add = ns.RunnableLambda(lambda text: text + "1")
    return {
        "sequence": (add | ns.RunnableLambda(lambda text: text + "2"), "a"),
        "map": (ns.RunnableParallel(first=add), "a"),
        "lambda": (add, "a"),
        "generator lambda": (ns.RunnableLambda(_exclaim), "a"),
        "passthrough": (ns.RunnablePassthrough(), {"q": 1}),
        "assign": (ns.RunnablePassthrough.assign(size=lambda row: len(row)), {"q": 1}),
    }


def _observed(ns: Any, which: str, *, run_async: bool) -> list[Any]:
    seen: list[Any] = []

    class Handler(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            if kwargs.get("parent_run_id") is None:
                seen.append(("start", inputs))

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            if kwargs.get("parent_run_id") is None:
                seen.append(("end", kwargs.get("inputs")))

    runnable, value = _streamers(ns)[which]
    listened = runnable.with_listeners(
        on_start=lambda run: seen.append(("listener start", run.inputs)),
        on_end=lambda run: seen.append(("listener end", run.inputs)),
    )
    config = {"callbacks": [Handler()]}
    if run_async:

        async def drain() -> None:
            async for _ in runnable.astream(value, config):
                pass

        asyncio.run(drain())
    else:
        for _ in runnable.stream(value, config):
            pass
    for _ in listened.stream(value):
        pass
    return seen


@pytest.mark.parametrize(
    "which", ["sequence", "map", "lambda", "generator lambda", "passthrough", "assign"]
)
def test_a_streamed_run_starts_with_an_empty_input_and_learns_it_at_the_end(which: str) -> None:
    theirs = _observed(LC, which, run_async=False)
    assert _observed(OURS, which, run_async=False) == theirs
    value = _streamers(LC)[which][1]
    assert theirs == [
        ("start", {"input": ""}),
        ("end", value),
        ("listener start", {"input": ""}),
        ("listener end", value if isinstance(value, dict) else {"input": value}),
    ]


@pytest.mark.parametrize("which", ["sequence", "map", "assign"])
def test_an_async_streamed_run_starts_with_an_empty_input(which: str) -> None:
    assert _observed(OURS, which, run_async=True) == _observed(LC, which, run_async=True)


def _hand_started(ns: Any) -> tuple[list[Any], list[Any]]:
    calls: list[Any] = []

    class Handler(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            calls.append(("chain", serialized, kwargs.get("name")))

        def on_tool_start(self, serialized: Any, text: Any, **kwargs: Any) -> None:
            calls.append(("tool", serialized, kwargs.get("name")))

        def on_retriever_start(self, serialized: Any, query: Any, **kwargs: Any) -> None:
            calls.append(("retriever", serialized, kwargs.get("name")))

        def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
            calls.append(("llm", serialized, kwargs.get("name")))

    with ns.collect_runs() as collector:
        manager = ns.CallbackManager(handlers=[collector, Handler()])
        manager.on_chain_start(None, {"x": 1}).on_chain_end({"y": 2})
        manager.on_tool_start(None, "q").on_tool_end("done")
        manager.on_retriever_start(None, "q").on_retriever_end([])
        manager.on_llm_start(None, ["q"])[0].on_llm_end(ns.LLMResult(generations=[[]]))
        manager.on_chain_start({"id": ["pkg", "Named"]}, {"x": 1}).on_chain_end({})
        manager.on_chain_start(None, {"x": 1}, name="given").on_chain_end({})
    return calls, [(run.name, run.run_type) for run in collector.traced_runs]


def test_a_run_started_by_hand_without_a_name_is_unnamed() -> None:
    theirs = _hand_started(LC)
    ours = _hand_started(OURS)
    # the handler sees serialized=None and name=None for the runs nothing names (a named
    # run's serialized / name keywords are ragline's own: {"name": ...} and the name)
    assert ours[0][:4] == theirs[0][:4]
    assert ours[1] == theirs[1]
    assert theirs[1][:4] == [
        ("Unnamed", "chain"),
        ("Unnamed", "tool"),
        ("Retriever", "retriever"),
        ("Unnamed", "llm"),
    ]

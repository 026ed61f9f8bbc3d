"""Parity: what handlers receive for a run a program starts by hand on a callback manager.

LangChain passes ``serialized`` and ``name`` to the handlers as the program gave them: a
run started with ``name=`` and ``serialized=None`` reaches them with ``serialized=None``
and that name; one named only by its ``serialized`` reaches them with no ``name``
keyword (its Run record still takes the name from ``serialized``); ``run_type`` reaches
them only when given. Each scenario starts the same runs on both libraries' managers
(sync and async) and compares the handler's records and the collected runs' names.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.tracers.context as lc_tracer_context

import ragline.core.callbacks as rl_callbacks

COVERS = {"core.CallbackManager", "core.AsyncCallbackManager"}

LC = types.SimpleNamespace(callbacks=lc_callbacks, collect_runs=lc_tracer_context.collect_runs)
OURS = types.SimpleNamespace(callbacks=rl_callbacks, collect_runs=rl_callbacks.collect_runs)

_MISSING = "<no keyword>"

# (method, serialized, payload, keywords)
STARTS: list[tuple[str, Any, Any, dict[str, Any]]] = [
    ("on_chain_start", None, {"a": 1}, {"name": "by-name"}),
    ("on_chain_start", {"name": "by-serialized"}, {"a": 1}, {}),
    ("on_chain_start", {"name": "serialized"}, {"a": 1}, {"name": "both"}),
    ("on_chain_start", {"id": ["pkg", "ByItsId"]}, {"a": 1}, {}),
    ("on_chain_start", None, {"a": 1}, {"name": "typed", "run_type": "parser"}),
    ("on_llm_start", None, ["p"], {"name": "by-name"}),
    ("on_llm_start", {"name": "by-serialized"}, ["p"], {}),
    ("on_chat_model_start", {"name": "by-serialized"}, [[]], {}),
    ("on_retriever_start", None, "q", {"name": "by-name"}),
    ("on_retriever_start", {"name": "by-serialized"}, "q", {}),
    ("on_tool_start", None, "s", {"name": "by-name"}),
    ("on_tool_start", {"name": "by-serialized"}, "s", {}),
]


def _recorder(ns: Any, log: list[Any]) -> Any:
    def record(event: str) -> Any:
        def method(self: Any, serialized: Any, payload: Any, **kwargs: Any) -> None:
            log.append(
                (
                    event,
                    serialized,
                    kwargs.get("name", _MISSING),
                    kwargs.get("run_type", _MISSING),
                )
            )

        return method

    names = ("on_chain_start", "on_llm_start", "on_chat_model_start")
    names += ("on_retriever_start", "on_tool_start")
    body = {name: record(name) for name in names}
    return type("Recorder", (ns.callbacks.BaseCallbackHandler,), body)()


def _chat_payload(ns: Any) -> Any:
    if ns is LC:
        from langchain_core.messages import HumanMessage
    else:
        from ragline.core import HumanMessage
    return [[HumanMessage(content="hi")]]


def _sync(ns: Any) -> tuple[list[Any], list[str]]:
    log: list[Any] = []
    with ns.collect_runs() as collector:
        manager = ns.callbacks.CallbackManager(handlers=[_recorder(ns, log), collector])
        for method, serialized, payload, keywords in STARTS:
            if method == "on_chat_model_start":
                payload = _chat_payload(ns)
            run = getattr(manager, method)(serialized, payload, **keywords)
            _end(ns, method, run[0] if isinstance(run, list) else run)
    return log, sorted(run.name for run in collector.traced_runs)


def _end(ns: Any, method: str, run: Any) -> None:
    if method == "on_chain_start":
        run.on_chain_end({"out": 1})
    elif method == "on_retriever_start":
        run.on_retriever_end([])
    elif method == "on_tool_start":
        run.on_tool_end("done")
    else:
        if ns is LC:
            from langchain_core.outputs import LLMResult
        else:
            from ragline.core import LLMResult
        run.on_llm_end(LLMResult(generations=[[]]))


def _async(ns: Any) -> list[Any]:
    log: list[Any] = []
    manager = ns.callbacks.AsyncCallbackManager(handlers=[_recorder(ns, log)])

    async def main() -> None:
        for method, serialized, payload, keywords in STARTS:
            if method == "on_chat_model_start":
                payload = _chat_payload(ns)
            await getattr(manager, method)(serialized, payload, **keywords)

    asyncio.run(main())
    return log


def test_handlers_get_serialized_and_name_as_the_program_gave_them() -> None:
    lc_log, _ = _sync(LC)
    rl_log, _ = _sync(OURS)
    assert rl_log == lc_log
    assert lc_log[0] == ("on_chain_start", None, "by-name", _MISSING)
    assert lc_log[1] == ("on_chain_start", {"name": "by-serialized"}, _MISSING, _MISSING)


def test_the_collected_runs_are_named_as_langchains() -> None:
    """The Run records (not only the handler's view): a run named only by its
    ``serialized`` is still named after it."""
    _, lc_names = _sync(LC)
    _, rl_names = _sync(OURS)
    assert rl_names == lc_names


def test_async_managers_pass_them_as_given_too() -> None:
    assert _async(OURS) == _async(LC)

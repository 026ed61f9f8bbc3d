"""Parity: the start and end events of streamed runs, against langchain_core.

- A run streamed through its transform starts with ``defers_inputs=False`` (``True`` for a
  ``RunnableGenerator``), and its Run record keeps that in ``extra``.
- A parser streaming a chunk stream starts with ``{"input": ""}``; a parser's ``stream``
  of one whole output is its ``invoke``: the run starts with the input, its end carries
  no ``inputs=``, and one piece comes out.
- A streamed ``RunnableBranch`` / ``RunnableWithFallbacks`` starts with the whole input,
  so its end carries no ``inputs=``.

Each scenario runs through both libraries with a handler that records the events (and
with ``collect_runs``), and compares the records.
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.output_parsers as lc_parsers
import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

COVERS = {"core.RunnableBranch", "core.RunnableWithFallbacks", "core.RunnableGenerator"}

LC = types.SimpleNamespace(
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableGenerator=lc_runnables.RunnableGenerator,
    RunnableBranch=lc_runnables.RunnableBranch,
    StrOutputParser=lc_parsers.StrOutputParser,
    JsonOutputParser=lc_parsers.JsonOutputParser,
    collect_runs=lc_tracer_context.collect_runs,
)
OURS = types.SimpleNamespace(
    BaseCallbackHandler=rl_callbacks.BaseCallbackHandler,
    RunnableLambda=rl.RunnableLambda,
    RunnableGenerator=rl.RunnableGenerator,
    RunnableBranch=rl.RunnableBranch,
    StrOutputParser=rl.StrOutputParser,
    JsonOutputParser=rl.JsonOutputParser,
    collect_runs=rl_callbacks.collect_runs,
)
_MISSING = "<no keyword>"


def _recorder(ns: Any, log: list[Any]) -> Any:
    class Recorder(ns.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            log.append(("start", kwargs["name"], inputs, kwargs.get("defers_inputs", _MISSING)))

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            log.append(("end", outputs, kwargs.get("inputs", _MISSING)))

        def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
            log.append(("error", type(error).__name__, kwargs.get("inputs", _MISSING)))

    return Recorder()


def _words(chunks: Any) -> Any:
    for chunk in chunks:
        yield chunk + "!"


def _gen(text: str) -> Any:
    yield from ("a", "b")


def _chain(ns: Any) -> Any:
    return ns.RunnableLambda(_gen) | ns.RunnableGenerator(_words) | ns.StrOutputParser()


def _branch(ns: Any) -> Any:
    return ns.RunnableBranch(
        (lambda x: x == "a", ns.RunnableLambda(_gen)), ns.RunnableLambda(lambda x: x + "?")
    )


def _fail(x: str) -> str:
    raise ValueError(x)


def _fallbacks(ns: Any) -> Any:
    return ns.RunnableLambda(_fail).with_fallbacks([ns.RunnableLambda(_gen)])


SCENARIOS = {
    "a chain with a generator and a parser": (_chain, "x"),
    "a parser's stream of one whole text": (lambda ns: ns.StrOutputParser(), "abc"),
    "a JSON parser's stream of one whole text": (lambda ns: ns.JsonOutputParser(), '{"a": [1]}'),
    "a branch": (_branch, "a"),
    "fallbacks": (_fallbacks, "a"),
}


def _run(ns: Any, scenario: str) -> tuple[list[Any], list[Any], list[Any]]:
    build, value = SCENARIOS[scenario]
    log: list[Any] = []
    with ns.collect_runs() as collector:
        chunks = list(build(ns).stream(value, {"callbacks": [_recorder(ns, log)]}))
    runs: list[Any] = []
    pending = list(collector.traced_runs)
    while pending:
        run = pending.pop(0)
        runs.append((run.name, run.extra.get("defers_inputs", _MISSING), run.inputs))
        pending[:0] = sorted(run.child_runs, key=lambda child: child.dotted_order)
    return chunks, log, runs


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_streamed_runs_start_and_end_as_langchains(scenario: str) -> None:
    assert _run(OURS, scenario) == _run(LC, scenario)


def test_a_parsers_astream_of_one_whole_text_is_its_ainvoke() -> None:
    def run(ns: Any) -> tuple[list[Any], list[Any]]:
        log: list[Any] = []

        async def main() -> list[Any]:
            parser = ns.StrOutputParser()
            return [c async for c in parser.astream("abc", {"callbacks": [_recorder(ns, log)]})]

        return asyncio.run(main()), log

    assert run(OURS) == run(LC)


@pytest.mark.parametrize("scenario", ["a branch", "fallbacks", "a sequence of lambdas"])
def test_a_sync_lambda_in_an_async_stream_is_a_streamed_run(scenario: str) -> None:
    """LangChain streams a sync-only RunnableLambda in ``astream`` (its run starts with
    ``{"input": ""}`` and reports a chunk), rather than invoking it."""

    def build(ns: Any) -> Any:
        if scenario == "a sequence of lambdas":
            return ns.RunnableLambda(lambda x: x + "1") | ns.RunnableLambda(lambda x: x + "2")
        if scenario == "fallbacks":  # a sync generator cannot astream in LangChain
            return ns.RunnableLambda(_fail).with_fallbacks([ns.RunnableLambda(lambda x: x + "F")])
        return _branch(ns)

    def run(ns: Any) -> tuple[list[Any], list[Any], list[Any]]:
        log: list[Any] = []

        async def main() -> tuple[list[Any], list[Any]]:
            runnable = build(ns)
            config = {"callbacks": [_recorder(ns, log)]}
            chunks = [c async for c in runnable.astream("b", config)]
            events = [
                (e["event"], e["name"]) async for e in runnable.astream_events("b", version="v2")
            ]
            return chunks, events

        chunks, events = asyncio.run(main())
        return chunks, log, events

    assert run(OURS) == run(LC)

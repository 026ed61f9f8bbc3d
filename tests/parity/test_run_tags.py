"""Parity: the tags a composite gives the runs of its parts, against langchain_core.

A sequence tags each step's run ``seq:step:N`` (from 1), a parallel each branch's run
``map:key:K``, a branch its conditions' runs ``condition:N`` and the chosen runnable's
run ``branch:N`` (``branch:default``), a retry its later attempts' runs
``retry:attempt:N``. The tag is on the part's own run only: the runs inside the part
do not inherit it, while the caller's tags reach every run.

Each scenario runs the same runnable through both libraries in every calling mode, and
compares the run tree (names, tags, nesting) that ``collect_runs`` records, the
``tags`` a callback handler's ``on_chain_start`` receives, and the
``astream_events`` sequence (event, name, tags, the names of its parent runs).
"""

from __future__ import annotations

import asyncio
import types
from typing import Any

import langchain_core.callbacks as lc_callbacks
import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

COVERS = {
    "core.RunnableSequence",
    "core.RunnableParallel",
    "core.RunnableBranch",
    "core.RunnableRetry",
}

LC = types.SimpleNamespace(
    BaseCallbackHandler=lc_callbacks.BaseCallbackHandler,
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableParallel=lc_runnables.RunnableParallel,
    RunnablePassthrough=lc_runnables.RunnablePassthrough,
    RunnableBranch=lc_runnables.RunnableBranch,
    collect_runs=lc_tracer_context.collect_runs,
)
OURS = types.SimpleNamespace(
    BaseCallbackHandler=rl_callbacks.BaseCallbackHandler,
    RunnableLambda=rl.RunnableLambda,
    RunnableParallel=rl.RunnableParallel,
    RunnablePassthrough=rl.RunnablePassthrough,
    RunnableBranch=rl.RunnableBranch,
    collect_runs=rl_callbacks.collect_runs,
)


def _step(name: str, m: Any) -> Any:
    return m.RunnableLambda(lambda x: x, name=name)


def _nested_call(m: Any) -> Any:
    def outer(x: Any) -> Any:  # a lambda that invokes a chain of its own
        return (_step("inner1", m) | _step("inner2", m)).invoke(x)

    return m.RunnableLambda(outer, name="outer")


def _sequence(m: Any) -> Any:
    named = (_step("n1", m) | _step("n2", m)).with_config(run_name="named")
    return _step("first", m) | _nested_call(m) | named | _step("last", m)


def _parallel(m: Any) -> Any:
    return _step("before", m) | m.RunnableParallel(
        a=_step("a", m), b=_step("b1", m) | _step("b2", m), c=_nested_call(m)
    )


def _branch(m: Any) -> Any:
    return m.RunnableBranch(
        (m.RunnableLambda(lambda x: x == "never", name="cond1"), _step("one", m)),
        (m.RunnableLambda(lambda x: x != "never", name="cond2"), _step("t1", m) | _step("t2", m)),
        _step("default", m),
    )


def _default_branch(m: Any) -> Any:
    return m.RunnableBranch(
        (m.RunnableLambda(lambda x: False, name="cond1"), _step("one", m)),
        _step("d1", m) | _step("d2", m),
    )


def _assign(m: Any) -> Any:
    return m.RunnableLambda(lambda x: {"q": x}, name="wrap") | m.RunnablePassthrough.assign(
        k=_step("k1", m) | _step("k2", m)
    )


def _retry(m: Any) -> Any:
    calls: list[Any] = []

    def flaky(x: Any) -> Any:
        calls.append(x)
        if len(calls) < 3:
            raise ValueError("boom")
        return x

    attempt = _step("try1", m) | m.RunnableLambda(flaky)
    return attempt.with_retry(stop_after_attempt=3, wait_exponential_jitter=False)


SCENARIOS = {
    "a sequence": _sequence,
    "a parallel": _parallel,
    "a branch": _branch,
    "a branch's default": _default_branch,
    "an assign": _assign,
}
MODES = ["invoke", "ainvoke", "batch", "abatch", "stream", "astream"]
CONFIG = {"tags": ["mine"]}


def _tree(run: Any) -> Any:
    # a parallel's branches start in any order: children are compared as a sorted list
    children = sorted((_tree(child) for child in run.child_runs), key=repr)
    return (run.name, run.tags or [], children)


def _recorder(m: Any, log: list[Any]) -> Any:
    class Recorder(m.BaseCallbackHandler):  # type: ignore[misc, name-defined]
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            log.append((kwargs["name"], kwargs["tags"]))

    return Recorder()


def _call(runnable: Any, mode: str, config: dict[str, Any]) -> None:
    value = "x"
    if mode == "invoke":
        runnable.invoke(value, config)
    elif mode == "batch":
        runnable.batch([value, value], config)
    elif mode == "stream":
        list(runnable.stream(value, config))
    else:

        async def main() -> None:
            if mode == "ainvoke":
                await runnable.ainvoke(value, config)
            elif mode == "abatch":
                await runnable.abatch([value, value], config)
            else:
                [chunk async for chunk in runnable.astream(value, config)]

        asyncio.run(main())


def _observe(m: Any, build: Any, mode: str) -> tuple[list[Any], list[Any]]:
    log: list[Any] = []
    with m.collect_runs() as collector:
        _call(build(m), mode, {**CONFIG, "callbacks": [_recorder(m, log)]})
    trees = sorted((_tree(run) for run in collector.traced_runs), key=repr)
    return trees, sorted(log)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_part_runs_are_tagged_as_langchains(scenario: str, mode: str) -> None:
    build = SCENARIOS[scenario]
    assert _observe(OURS, build, mode) == _observe(LC, build, mode)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_only_a_retrys_later_attempts_own_runs_are_tagged(mode: str) -> None:
    ours, theirs = _observe(OURS, _retry, mode), _observe(LC, _retry, mode)
    assert ours == theirs
    attempt_2 = ("RunnableSequence", ["retry:attempt:2", "mine"])
    assert attempt_2 in theirs[1]  # the scenario does retry
    assert ("try1", ["seq:step:1", "mine"]) in theirs[1]  # not the attempt's tag


def _events(m: Any, build: Any) -> list[Any]:
    runnable = build(m)

    async def main() -> list[Any]:
        return [e async for e in runnable.astream_events("x", CONFIG, version="v2")]

    events = asyncio.run(main())
    names = {e["run_id"]: e["name"] for e in events}
    return [
        (e["event"], e["name"], e["tags"], [names.get(p) for p in e["parent_ids"]]) for e in events
    ]


@pytest.mark.parametrize("scenario", ["a sequence", "a branch", "a branch's default"])
def test_astream_events_carry_langchains_tags(scenario: str) -> None:
    build = SCENARIOS[scenario]
    assert _events(OURS, build) == _events(LC, build)

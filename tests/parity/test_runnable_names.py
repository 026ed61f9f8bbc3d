"""Parity: runnables' names (``get_name``) and the names and tags of their runs, against
langchain_core.

A binding (``with_config(run_name=...)``, ``bind``) is named after what it binds (a bound
``run_name`` names the runs, not the binding); a retry is named after what it retries,
and its second and later attempts' runs are tagged ``retry:attempt:N``. Each scenario
builds the same runnable in both libraries, invokes it under ``collect_runs`` and
compares ``get_name()`` and the run tree (names and tags).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

COVERS = {"core.RunnableRetry", "core.RunnableBinding"}


def named(x: Any) -> Any:
    return x


class Callable_:
    def __call__(self, x: Any) -> Any:
        return x

    def method(self, x: Any) -> Any:
        return x


def _flaky() -> Callable[[Any], Any]:
    calls: list[Any] = []

    def flaky(x: Any) -> Any:
        calls.append(x)
        if len(calls) < 3:
            raise ValueError("boom")
        return x

    return flaky


def _scenarios(m: Any) -> dict[str, Any]:
    lam = m.RunnableLambda
    return {
        "a lambda": lam(lambda x: x),
        "a function": lam(named),
        "a partial": lam(functools.partial(named)),
        "a callable object": lam(Callable_()),
        "a bound method": lam(Callable_().method),
        "name=": lam(named, name="given"),
        "a parallel": m.RunnableParallel(a=named, b=named),
        "an assign": m.RunnablePassthrough.assign(c=named),
        "a pick": m.RunnablePassthrough().pick(["a"]),
        "bind": lam(named).bind(),
        "with_config(run_name=)": lam(named).with_config(run_name="cfg"),
        "a named sequence": (lam(named) | lam(named)).with_config(run_name="s"),
        "with_retry": lam(_flaky()).with_retry(stop_after_attempt=3, wait_exponential_jitter=False),
        "with_fallbacks": lam(named).with_fallbacks([lam(named)]),
        "map": lam(named).map(),
        "a branch": m.RunnableBranch((lambda x: True, named), named),
    }


LC = type(
    "LC",
    (),
    {
        "RunnableLambda": lc_runnables.RunnableLambda,
        "RunnableParallel": lc_runnables.RunnableParallel,
        "RunnablePassthrough": lc_runnables.RunnablePassthrough,
        "RunnableBranch": lc_runnables.RunnableBranch,
        "collect_runs": lc_tracer_context.collect_runs,
    },
)
OURS = type(
    "OURS",
    (),
    {
        "RunnableLambda": rl.RunnableLambda,
        "RunnableParallel": rl.RunnableParallel,
        "RunnablePassthrough": rl.RunnablePassthrough,
        "RunnableBranch": rl.RunnableBranch,
        "collect_runs": rl_callbacks.collect_runs,
    },
)


def _tree(run: Any) -> Any:
    return (run.name, run.tags or [], [_tree(child) for child in run.child_runs])


def _observe(m: Any, scenario: str, asynchronous: bool) -> tuple[str, Any]:
    runnable = _scenarios(m)[scenario]
    value: Any = [{"a": 1}] if scenario == "map" else {"a": 1}
    with m.collect_runs() as collector:
        if asynchronous:
            asyncio.run(runnable.ainvoke(value))
        else:
            runnable.invoke(value)
    return runnable.get_name(), _tree(collector.traced_runs[0])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("scenario", list(_scenarios(LC)))
def test_names_and_run_trees_are_langchains(scenario: str, asynchronous: bool) -> None:
    assert _observe(OURS, scenario, asynchronous) == _observe(LC, scenario, asynchronous)


def test_a_retry_tags_its_later_attempts() -> None:
    _, tree = _observe(LC, "with_retry", False)
    assert tree == (
        "flaky",
        [],
        [("flaky", [], []), ("flaky", ["retry:attempt:2"], []), ("flaky", ["retry:attempt:3"], [])],
    )
    assert _observe(OURS, "with_retry", False)[1] == tree

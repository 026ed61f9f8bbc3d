"""Parity: ``bind``, ``with_config`` and ``with_listeners`` called on a ``RunnableEach``.

LangChain's ``RunnableEach`` answers them itself by wrapping the runnable it applies
(``RunnableEach(bound=bound.with_config(...))``): each element's run gets the name, tags
and metadata, and a listener is called once per element with that element's run. The
same scenario runs through both libraries; the result's class, the output, the run tree
``collect_runs`` records and what the listener saw are compared.
"""

from __future__ import annotations

from typing import Any

import langchain_core.runnables as lc_runnables
import langchain_core.tracers.context as lc_tracer_context
import pytest

import ragline.core as rl
import ragline.core.callbacks as rl_callbacks

LIBS = {
    "langchain": (lc_runnables.RunnableLambda, lc_tracer_context.collect_runs),
    "ragline": (rl.RunnableLambda, rl_callbacks.collect_runs),
}


def add(x: int) -> int:
    return x + 1


def _tree(run: Any) -> Any:
    return (run.name, run.tags, run.extra.get("metadata"), [_tree(c) for c in run.child_runs])


SCENARIOS = {
    "with_config": lambda each, seen: each.with_config(tags=["o"], run_name="R", metadata={"m": 1}),
    "with_listeners": lambda each, seen: each.with_listeners(
        on_start=lambda run: seen.append(("start", run.name, run.inputs)),
        on_end=lambda run: seen.append(("end", run.name, run.outputs)),
    ),
    "bind then with_config": lambda each, seen: each.bind().with_config(run_name="R"),
}


def _observe(lib: str, scenario: str) -> Any:
    lam, collect_runs = LIBS[lib]
    seen: list[Any] = []
    runnable = SCENARIOS[scenario](lam(add).map(), seen)
    with collect_runs() as collector:
        result = runnable.invoke([1, 2], {"tags": ["z"]})
    trees = [_tree(run) for run in collector.traced_runs]
    return type(runnable).__name__, result, trees, seen


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_runnable_each_s_wrappers_apply_to_each_element_as_langchains(scenario: str) -> None:
    ours, theirs = _observe("ragline", scenario), _observe("langchain", scenario)
    assert ours == theirs
    assert ours[0] == "RunnableEach"


def test_listeners_on_a_runnable_each_see_each_element() -> None:
    _, result, _, seen = _observe("ragline", "with_listeners")
    assert result == [2, 3]
    assert sorted(seen, key=repr) == [
        ("end", "add", {"output": 2}),
        ("end", "add", {"output": 3}),
        ("start", "add", {"input": 1}),
        ("start", "add", {"input": 2}),
    ]

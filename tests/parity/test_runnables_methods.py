"""Parity: the Runnable methods and base names LangChain programs call, against langchain_core.

batch_as_completed / abatch_as_completed, get_prompts, with_listeners whose listeners
take ``(run, config)``, and the RunnableEachBase / RunnableBindingBase names: each
scenario runs through LangChain's class and ragline's and compares what a program sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import warnings
from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.runnables import RunnableBinding as LCRunnableBinding
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.base import RunnableBindingBase as LCRunnableBindingBase
from langchain_core.runnables.base import RunnableEach as LCRunnableEach
from langchain_core.runnables.base import RunnableEachBase as LCRunnableEachBase
from typing_extensions import TypedDict

from ragline.core import (
    RunnableBinding,
    RunnableBindingBase,
    RunnableEach,
    RunnableEachBase,
    RunnableLambda,
)
from ragline.core.fake_models import FakeListChatModel
from ragline.core.prompts import ChatPromptTemplate, PromptTemplate

COVERS = {
    "core.Runnable",
    "core.RunnableEach",
    "core.RunnableEachBase",
    "core.RunnableBinding",
    "core.RunnableBindingBase",
}


def _as_completed_in_turn(runnable_class: Any, inputs: list[int]) -> list[tuple[int, int]]:
    """``batch_as_completed`` of x -> 2x, the calls finishing in ascending order of x:
    each call but the smallest waits until the consumer has the one before it. (Not
    sleeps of different lengths: on a loaded machine a thread can start later than the
    difference between them.)"""
    order = sorted(inputs)
    turn = {x: threading.Event() for x in inputs}
    turn[order[0]].set()

    def double_in_turn(x: int) -> int:
        turn[x].wait(60)  # bounds a hang: a batch that waits for its first input first
        return x * 2

    got = []
    for index, output in runnable_class(double_in_turn).batch_as_completed(inputs):
        got.append((index, output))
        after = order.index(inputs[index]) + 1
        if after < len(order):
            turn[order[after]].set()
    return got


async def _abatch_as_completed_in_turn(
    runnable_class: Any, inputs: list[int]
) -> list[tuple[int, int]]:
    """``abatch_as_completed`` of x -> -x, finishing in ascending order of x (as above)."""
    order = sorted(inputs)
    turn = {x: asyncio.Event() for x in inputs}
    turn[order[0]].set()

    async def negate_in_turn(x: int) -> int:
        with contextlib.suppress(TimeoutError):  # bounds a hang, as above
            await asyncio.wait_for(turn[x].wait(), timeout=60)
        return -x

    got = []
    async for index, output in runnable_class(negate_in_turn).abatch_as_completed(inputs):
        got.append((index, output))
        after = order.index(inputs[index]) + 1
        if after < len(order):
            turn[order[after]].set()
    return got


def _fails_on_two(x: int) -> int:
    if x == 2:
        raise ValueError("two")
    return x


# ---- batch_as_completed ---------------------------------------------------------------------
def test_batch_as_completed_yields_index_and_output_in_finishing_order():
    inputs = [3, 1, 2]
    lc = _as_completed_in_turn(LCRunnableLambda, inputs)
    ours = _as_completed_in_turn(RunnableLambda, inputs)
    assert ours == lc == [(1, 2), (2, 4), (0, 6)]


def test_batch_as_completed_with_return_exceptions_puts_the_error_at_its_index():
    def run(r: Any) -> list[tuple[int, Any]]:
        pairs = sorted(r.batch_as_completed([1, 2, 3], return_exceptions=True))
        return [
            (i, (type(v).__name__, str(v)) if isinstance(v, Exception) else v) for i, v in pairs
        ]

    lc, ours = run(LCRunnableLambda(_fails_on_two)), run(RunnableLambda(_fails_on_two))
    assert ours == lc == [(0, 1), (1, ("ValueError", "two")), (2, 3)]


def test_batch_as_completed_raises_the_error_without_return_exceptions():
    with pytest.raises(ValueError, match="two"):
        list(LCRunnableLambda(_fails_on_two).batch_as_completed([2]))
    with pytest.raises(ValueError, match="two"):
        list(RunnableLambda(_fails_on_two).batch_as_completed([2]))
    assert list(RunnableLambda(_fails_on_two).batch_as_completed([])) == []
    assert list(LCRunnableLambda(_fails_on_two).batch_as_completed([])) == []


async def test_abatch_as_completed_yields_in_finishing_order():
    lc = await _abatch_as_completed_in_turn(LCRunnableLambda, [3, 1, 2])
    ours = await _abatch_as_completed_in_turn(RunnableLambda, [3, 1, 2])
    assert ours == lc == [(1, -1), (2, -2), (0, -3)]


# ---- get_prompts ----------------------------------------------------------------------------
def test_get_prompts_lists_the_prompt_templates_of_a_chain():
    def build(prompt: Any, chat: Any, model: Any) -> Any:
        first = prompt.from_template("Summarise {text}")
        second = chat.from_messages([("system", "be brief"), ("human", "{question}")])
        return first | model(responses=["a"]) | (lambda m: {"question": m.content}) | second

    lc = build(LCPromptTemplate, LCChatPromptTemplate, LCFakeListChatModel).get_prompts()
    ours = build(PromptTemplate, ChatPromptTemplate, FakeListChatModel).get_prompts()
    assert [type(p).__name__ for p in ours] == [type(p).__name__ for p in lc]
    assert [p.input_variables for p in ours] == [p.input_variables for p in lc]
    assert ours[0].template == lc[0].template == "Summarise {text}"
    assert RunnableLambda(str).get_prompts() == LCRunnableLambda(str).get_prompts() == []


# ---- with_listeners -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "config",
    [
        None,
        {"tags": ["x"], "metadata": {"k": 1}, "run_name": "named", "max_concurrency": 3},
        {"configurable": {"c": 1}},
    ],
)
def test_listeners_taking_run_and_config_get_the_calls_config(config: Any):
    def record(r: Any) -> list[tuple[str, Any, Any]]:
        seen: list[tuple[str, Any, Any]] = []
        bound = r.with_listeners(
            on_start=lambda run, config: seen.append(("start", run.inputs, config)),
            on_end=lambda run, config: seen.append(("end", run.outputs, config)),
        )
        bound.invoke(4, config)
        return seen

    lc = record(LCRunnableLambda(lambda x: x + 1))
    ours = record(RunnableLambda(lambda x: x + 1))
    assert [(event, cfg) for event, _, cfg in ours] == [(event, cfg) for event, _, cfg in lc]
    assert [event for event, _, _ in ours] == ["start", "end"]


def test_listeners_taking_run_and_config_on_error():
    def record(r: Any) -> list[Any]:
        seen: list[Any] = []
        bound = r.with_listeners(on_error=lambda run, config: seen.append((str(run.error), config)))
        with pytest.raises(ValueError):
            bound.invoke(2, {"tags": ["t"]})
        return seen

    lc = record(LCRunnableLambda(_fails_on_two))
    ours = record(RunnableLambda(_fails_on_two))
    assert [cfg for _, cfg in ours] == [cfg for _, cfg in lc]
    assert "two" in ours[0][0] and "two" in lc[0][0]


def test_listeners_taking_only_the_run_still_work():
    lc_ends: list[Any] = []
    our_ends: list[Any] = []
    LCRunnableLambda(lambda x: x * 3).with_listeners(on_end=lc_ends.append).invoke(2)
    RunnableLambda(lambda x: x * 3).with_listeners(on_end=our_ends.append).invoke(2)
    assert len(our_ends) == len(lc_ends) == 1
    assert [r.name for r in our_ends] == [r.name for r in lc_ends]


# ---- the base names -------------------------------------------------------------------------
def test_map_and_bind_build_instances_of_the_base_classes():
    lc_each, ours_each = LCRunnableLambda(str).map(), RunnableLambda(str).map()
    assert isinstance(lc_each, LCRunnableEach) and isinstance(lc_each, LCRunnableEachBase)
    assert isinstance(ours_each, RunnableEach) and isinstance(ours_each, RunnableEachBase)
    lc_bound, ours_bound = LCRunnableLambda(str).bind(), RunnableLambda(str).bind()
    assert isinstance(lc_bound, LCRunnableBinding) and isinstance(lc_bound, LCRunnableBindingBase)
    assert isinstance(ours_bound, RunnableBinding) and isinstance(ours_bound, RunnableBindingBase)
    assert ours_each.invoke([1, 2]) == lc_each.invoke([1, 2]) == ["1", "2"]


def test_subclasses_of_the_base_classes_built_with_bound_keyword():
    class LCTwice(LCRunnableEachBase):
        pass

    class Twice(RunnableEachBase):
        pass

    lc = LCTwice(bound=LCRunnableLambda(lambda x: x * 2))
    ours = Twice(bound=RunnableLambda(lambda x: x * 2))
    assert ours.invoke([1, 2]) == lc.invoke([1, 2]) == [2, 4]
    lc_binding = LCRunnableBindingBase(
        bound=LCRunnableLambda(lambda x, k=0: x + k), kwargs={"k": 5}
    )
    ours_binding = RunnableBindingBase(bound=RunnableLambda(lambda x, k=0: x + k), kwargs={"k": 5})
    assert ours_binding.invoke(1) == lc_binding.invoke(1) == 6


# ---- as_tool --------------------------------------------------------------------------------
class _Args(TypedDict):
    a: int
    b: list[int]


def _multiply(x: _Args) -> str:
    return str(x["a"] * max(x["b"]))


# resolved here: LangChain's pydantic cannot resolve this module's string annotations
_multiply.__annotations__ = {"x": _Args, "return": str}


def _shout(text: str) -> str:
    return text.upper()


@pytest.fixture
def _no_beta_warning() -> Any:
    with warnings.catch_warnings():  # LangChain marks as_tool as beta
        warnings.simplefilter("ignore")
        yield


@pytest.mark.usefixtures("_no_beta_warning")
def test_as_tool_of_a_typed_dict_runnable_takes_its_keys():
    lc = LCRunnableLambda(_multiply).as_tool(name="mult", description="multiply")
    ours = RunnableLambda(_multiply).as_tool(name="mult", description="multiply")
    assert (ours.name, ours.description, ours.args) == (lc.name, lc.description, lc.args)
    assert ours.invoke({"a": 2, "b": [1, 3]}) == lc.invoke({"a": 2, "b": [1, 3]}) == "6"
    with pytest.raises(ValueError):
        lc.invoke({"a": "x", "b": [1]})
    with pytest.raises(ValueError):
        ours.invoke({"a": "x", "b": [1]})


@pytest.mark.usefixtures("_no_beta_warning")
def test_as_tool_with_arg_types():
    lc = LCRunnableLambda(lambda d: d["a"] + d["b"]).as_tool(arg_types={"a": int, "b": int})
    ours = RunnableLambda(lambda d: d["a"] + d["b"]).as_tool(arg_types={"a": int, "b": int})
    assert (ours.name, ours.args) == (lc.name, lc.args)
    assert ours.invoke({"a": 1, "b": 2}) == lc.invoke({"a": 1, "b": 2}) == 3


@pytest.mark.usefixtures("_no_beta_warning")
async def test_as_tool_of_a_string_runnable_takes_one_string():
    lc = LCRunnableLambda(_shout).as_tool(description="shout it")
    ours = RunnableLambda(_shout).as_tool(description="shout it")
    assert (ours.name, ours.description, list(ours.args)) == (
        lc.name,
        lc.description,
        list(lc.args),
    )
    assert ours.invoke("hi") == lc.invoke("hi") == "HI"
    assert await ours.ainvoke("yo") == await lc.ainvoke("yo") == "YO"

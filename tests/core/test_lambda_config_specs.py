"""A lambda's configurable fields are those of the runnables its function uses, also when
the function uses the chain it belongs to (a recursive chain)."""

from __future__ import annotations

from ragline.core.fake_models import FakeListLLM
from ragline.core.runnables import ConfigurableField, RunnableLambda

model = FakeListLLM(responses=["plain"]).configurable_fields(
    responses=ConfigurableField(id="answers")
)


def count_down(number: int) -> str:
    """Calls its own chain until zero, then the model."""
    if number > 0:
        return recursive.invoke(number - 1)
    return model.invoke("question")


recursive = RunnableLambda(count_down) | RunnableLambda(lambda text: text.upper())


def loops(number: int) -> int:
    return looping.invoke(number - 1) if number > 0 else number


looping = RunnableLambda(loops) | RunnableLambda(lambda number: number + 1)


def test_a_recursive_chain_lists_the_fields_of_the_model_its_function_calls_once():
    assert [spec.id for spec in recursive.config_specs] == ["answers"]


def test_a_recursive_chain_runs_with_configurable_values():
    assert recursive.invoke(2) == "PLAIN"
    assert recursive.invoke(2, config={"configurable": {"answers": ["chosen"]}}) == "CHOSEN"


def test_a_recursive_chain_without_fields_runs_with_any_configurable_id():
    # a session id as RunnableWithMessageHistory passes it: the tree has no fields to check
    assert looping.config_specs == []
    assert looping.invoke(3, config={"configurable": {"session_id": "a"}}) == 4

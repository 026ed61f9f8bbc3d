"""AgentExecutor details a mutation sample found unpinned (issue 32): the output keys of
``__call__(return_only_outputs=True)`` with intermediate steps, which side wins when a
memory variable and an input share a name, and the order of the tool names an unknown
tool's observation lists."""

from __future__ import annotations

from typing import Any

from ragline.agents import REACT_PROMPT, AgentExecutor, create_react_agent
from ragline.core import FakeListLLM
from ragline.tools import tool

QUESTION = "Where is Etna?"


@tool
def search(query: str) -> str:
    """Search the notes."""
    return "Etna is in Sicily."


@tool
def almanac(query: str) -> str:
    """Look a date up."""
    return "1669"


def _react(*replies: str, tools: list[Any], **options: Any) -> AgentExecutor:
    llm = FakeListLLM(responses=list(replies))
    return AgentExecutor(agent=create_react_agent(llm, tools, REACT_PROMPT), tools=tools, **options)


def test_return_only_outputs_keeps_the_intermediate_steps() -> None:
    """With return_intermediate_steps a Runnable agent's output keys are the steps only
    (its return values are none, as in LangChain); ``return_only_outputs`` still keeps the
    answer and the steps (as LangChain's Chain does)."""
    replies = (" Search.\nAction: search\nAction Input: etna", " I know.\nFinal Answer: Sicily")
    executor = _react(*replies, tools=[search], return_intermediate_steps=True)
    assert executor.output_keys == ["intermediate_steps"]
    result = executor({"input": QUESTION}, return_only_outputs=True)
    assert list(result) == ["output", "intermediate_steps"]
    assert result["output"] == "Sicily"
    assert [(action.tool, seen) for action, seen in result["intermediate_steps"]] == [
        ("search", "Etna is in Sicily.")
    ]


def test_a_memory_variable_wins_over_an_input_of_the_same_name() -> None:
    """LangChain's prep_inputs is ``dict(inputs, **memory_variables)``: what the memory
    loads replaces an input of the same name, and is what the memory saves."""

    class Memory:
        def __init__(self) -> None:
            self.saved: list[tuple[dict[str, Any], dict[str, Any]]] = []

        def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
            return {"history": "from memory"}

        def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
            self.saved.append((inputs, outputs))

    memory = Memory()
    executor = _react(" I know.\nFinal Answer: Sicily", tools=[search], memory=memory)
    result = executor.invoke({"input": QUESTION, "history": "sent by the caller"})
    assert result == {"input": QUESTION, "history": "from memory", "output": "Sicily"}
    assert memory.saved == [({"input": QUESTION, "history": "from memory"}, {"output": "Sicily"})]


def test_an_unknown_tool_is_told_the_tools_in_the_order_given() -> None:
    """The invalid_tool observation lists the executor's tools as given (search before
    almanac), not sorted."""
    replies = (" Use google.\nAction: google\nAction Input: etna", " I know.\nFinal Answer: ?")
    executor = _react(*replies, tools=[search, almanac], return_intermediate_steps=True)
    ((_, observation),) = executor.invoke({"input": QUESTION})["intermediate_steps"]
    assert observation == "google is not a valid tool, try one of [search, almanac]."

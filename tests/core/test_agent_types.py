"""Agent data types (ragline.core.agents): fields, equality, their chat messages."""

from __future__ import annotations

import doctest

from ragline.core import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    AIMessage,
    HumanMessage,
    ToolAgentAction,
)
from ragline.core import agents as agents_module


def test_actions_take_langchains_positional_arguments_and_compare_by_value():
    action = AgentAction("search", "etna", "Action: search\nAction Input: etna")
    assert (action.tool, action.tool_input, action.log) == (
        "search",
        "etna",
        "Action: search\nAction Input: etna",
    )
    assert action == AgentAction(tool="search", tool_input="etna", log=action.log)
    assert action.messages == [AIMessage("Action: search\nAction Input: etna")]
    assert AgentFinish({"output": "x"}, "Final Answer: x").messages == [
        AIMessage("Final Answer: x")
    ]


def test_message_log_actions_render_as_their_messages_and_observations():
    reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])
    action = ToolAgentAction("add", {"a": 1}, "log", message_log=[reply], tool_call_id="c1")
    assert isinstance(action, AgentActionMessageLog)
    assert action.messages == [reply]
    step = AgentStep(action=action, observation={"sum": 2})
    (message,) = step.messages
    assert (message.content, message.name) == ('{"sum": 2}', "add")
    plain = AgentStep(action=AgentAction("t", "i", "l"), observation=7)
    assert plain.messages == [HumanMessage("7")]


def test_docstring_examples_run():
    result = doctest.testmod(agents_module)
    assert result.attempted > 0 and result.failed == 0

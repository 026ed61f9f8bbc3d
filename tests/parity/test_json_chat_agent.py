"""Parity: create_json_chat_agent and format_log_to_messages against LangChain's.

A fake chat model answers with JSON blobs (a tool call with arguments, a one-input
tool, then the final answer); each library's AgentExecutor runs its own agent. Compared:
the output, each step (tool, input, log, observation), the scratchpad messages the
model gets back (``template_tool_response`` filled with the observation), the stop
sequences, and the errors (missing prompt variables, a template without
``{observation}``). ``TEMPLATE_TOOL_RESPONSE`` is ragline's own wording with
LangChain's variable; a custom template is used where the text is compared.
"""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest
from langchain_classic.agents import AgentExecutor as LCAgentExecutor
from langchain_classic.agents import create_json_chat_agent as lc_create
from langchain_classic.agents.format_scratchpad import (
    format_log_to_messages as lc_format_log_to_messages,
)
from langchain_core.agents import AgentAction as LCAgentAction
from langchain_core.language_models import FakeMessagesListChatModel as LCFakeChat
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
from langchain_core.tools import Tool as LCTool
from langchain_core.tools import tool as lc_tool

from ragline.agents import AgentExecutor, create_json_chat_agent, format_log_to_messages
from ragline.core import (
    AgentAction,
    AIMessage,
    ChatPromptTemplate,
    FakeMessagesListChatModel,
    MessagesPlaceholder,
)
from ragline.tools import Tool, tool

COVERS = {"agents.create_json_chat_agent", "agents.format_log_to_messages"}


def blob(action: str, action_input: Any) -> str:
    body = json.dumps({"action": action, "action_input": action_input})
    return f"```json\n{body}\n```"


REPLIES = [blob("add", {"a": 2, "b": 3}), blob("shout", "hi"), blob("Final Answer", "It is 5.")]


def tools_for(decorator: Any, tool_class: Any) -> list[Any]:
    @decorator
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    shout = tool_class(name="shout", func=lambda text: text.upper() + "!", description="Shout it.")
    return [add, shout]


def prompt_for(chat: Any, placeholder: Any) -> Any:
    return chat.from_messages(
        [
            ("system", "Tools:\n{tools}\nNames: {tool_names}"),
            ("human", "{input}"),
            placeholder("agent_scratchpad"),
        ]
    )


def steps(result: dict[str, Any]) -> Any:
    return [(a.tool, a.tool_input, a.log, seen) for a, seen in result["intermediate_steps"]]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"stop_sequence": False},
        {"stop_sequence": ["STOP"], "template_tool_response": "Got: {observation}"},
    ],
)
def test_an_agent_run_as_langchains(options):
    lc_tools, rl_tools = tools_for(lc_tool, LCTool), tools_for(tool, Tool)
    lc_model = LCFakeChat(responses=[LCAIMessage(r) for r in REPLIES])
    rl_model = FakeMessagesListChatModel(responses=[AIMessage(r) for r in REPLIES])
    lc_agent = lc_create(
        lc_model, lc_tools, prompt_for(LCChatPromptTemplate, LCMessagesPlaceholder), **options
    )
    rl_agent = create_json_chat_agent(
        rl_model, rl_tools, prompt_for(ChatPromptTemplate, MessagesPlaceholder), **options
    )
    lc = LCAgentExecutor(agent=lc_agent, tools=lc_tools, return_intermediate_steps=True)
    rl = AgentExecutor(agent=rl_agent, tools=rl_tools, return_intermediate_steps=True)
    theirs, ours = lc.invoke({"input": "2+3?"}), rl.invoke({"input": "2+3?"})
    assert ours["output"] == theirs["output"] == "It is 5."
    assert steps(ours) == steps(theirs)
    assert len(steps(ours)) == 2
    step = {"input": "q", "intermediate_steps": theirs["intermediate_steps"]}
    if "template_tool_response" in options:
        lc_messages = lc_agent.steps[0].invoke(step)["agent_scratchpad"]
        rl_messages = rl_agent.steps[0].invoke(
            {"input": "q", "intermediate_steps": ours["intermediate_steps"]}
        )["agent_scratchpad"]
        assert [(type(m).__name__, m.content) for m in rl_messages] == [
            (type(m).__name__, m.content) for m in lc_messages
        ]


def test_format_log_to_messages():
    lc_steps = [(LCAgentAction("t", "x", "log one"), "seen 1"), (LCAgentAction("u", {}, ""), 42)]
    rl_steps = [(AgentAction("t", "x", "log one"), "seen 1"), (AgentAction("u", {}, ""), 42)]
    for template in [None, "Result <{observation}>"]:
        kw = {} if template is None else {"template_tool_response": template}
        ours = [(type(m).__name__, m.content) for m in format_log_to_messages(rl_steps, **kw)]
        theirs = [(type(m).__name__, m.content) for m in lc_format_log_to_messages(lc_steps, **kw)]
        assert ours == theirs


def test_errors_as_langchains():
    bad = ChatPromptTemplate.from_messages([("human", "{input} {tools}")])
    lc_bad = LCChatPromptTemplate.from_messages([("human", "{input} {tools}")])
    good = prompt_for(ChatPromptTemplate, MessagesPlaceholder)
    lc_good = prompt_for(LCChatPromptTemplate, LCMessagesPlaceholder)
    model = FakeMessagesListChatModel(responses=["x"])
    lc_model = LCFakeChat(responses=[LCAIMessage("x")])
    cases = [
        ((model, [], bad), (lc_model, [], lc_bad), {}),
        ((model, [], good), (lc_model, [], lc_good), {"template_tool_response": "none here"}),
    ]
    for ours_args, theirs_args, kw in cases:
        with pytest.raises(ValueError) as lc_error:
            lc_create(*theirs_args, **kw)
        with pytest.raises(ValueError) as rl_error:
            create_json_chat_agent(*ours_args, **kw)
        ours, theirs = str(rl_error.value), str(lc_error.value)
        if "{" in theirs:  # a set of names: its order is the hash's
            ours_head, ours_set = ours.split(": ", 1)
            theirs_head, theirs_set = theirs.split(": ", 1)
            assert ours_head == theirs_head
            assert ast.literal_eval(ours_set) == ast.literal_eval(theirs_set)
        else:
            assert ours == theirs

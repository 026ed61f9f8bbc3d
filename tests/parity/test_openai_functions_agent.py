"""Parity: create_openai_functions_agent and OpenAIFunctionsAgentOutputParser against
LangChain's.

A fake chat model replies with OpenAI ``function_call`` messages (a structured tool, a
one-argument tool written ``__arg1``, empty arguments), then a final answer; each
library's AgentExecutor runs its own agent and tools. Compared: the output, every
intermediate step (tool, tool input, log, observation) and, for the parser alone, what
each kind of reply becomes (an action with its message log, the finish, the errors).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_classic.agents import AgentExecutor as LCAgentExecutor
from langchain_classic.agents import create_openai_functions_agent as lc_create
from langchain_classic.agents.output_parsers import (
    OpenAIFunctionsAgentOutputParser as LCOpenAIFunctionsAgentOutputParser,
)
from langchain_core.language_models import FakeMessagesListChatModel as LCFakeChat
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
from langchain_core.tools import Tool as LCTool
from langchain_core.tools import tool as lc_tool

from ragline.agents import (
    AgentExecutor,
    OpenAIFunctionsAgentOutputParser,
    create_openai_functions_agent,
)
from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    FakeMessagesListChatModel,
    MessagesPlaceholder,
)
from ragline.tools import Tool, tool

COVERS = {"agents.create_openai_functions_agent", "agents.OpenAIFunctionsAgentOutputParser"}


def call(name: str, arguments: Any, content: str = "") -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "content": content,
        "additional_kwargs": {"function_call": {"name": name, "arguments": text}},
    }


REPLIES = [
    call("add", {"a": 2, "b": 3}),
    call("shout", {"__arg1": "hi"}, content="Let me shout."),
    call("now", ""),
    {"content": "The sum is 5.", "additional_kwargs": {}},
]


def tools_for(decorator: Any, tool_class: Any) -> list[Any]:
    @decorator
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @decorator
    def now() -> str:
        """The time."""
        return "noon"

    shout = tool_class(name="shout", func=lambda text: text.upper() + "!", description="Shout it.")
    return [add, shout, now]


def prompt_for(chat: Any, placeholder: Any) -> Any:
    return chat.from_messages(
        [("system", "Use the tools."), ("human", "{input}"), placeholder("agent_scratchpad")]
    )


def steps(result: dict[str, Any]) -> Any:
    return [
        (action.tool, action.tool_input, action.log, observation)
        for action, observation in result["intermediate_steps"]
    ]


def test_an_agent_run_as_langchains():
    lc_tools = tools_for(lc_tool, LCTool)
    rl_tools = tools_for(tool, Tool)
    lc_agent = lc_create(
        LCFakeChat(responses=[LCAIMessage(**r) for r in REPLIES]),
        lc_tools,
        prompt_for(LCChatPromptTemplate, LCMessagesPlaceholder),
    )
    rl_agent = create_openai_functions_agent(
        FakeMessagesListChatModel(responses=[AIMessage(**r) for r in REPLIES]),
        rl_tools,
        prompt_for(ChatPromptTemplate, MessagesPlaceholder),
    )
    lc = LCAgentExecutor(agent=lc_agent, tools=lc_tools, return_intermediate_steps=True)
    rl = AgentExecutor(agent=rl_agent, tools=rl_tools, return_intermediate_steps=True)
    theirs, ours = lc.invoke({"input": "2+3?"}), rl.invoke({"input": "2+3?"})
    assert ours["output"] == theirs["output"] == "The sum is 5."
    assert steps(ours) == steps(theirs)
    assert len(steps(ours)) == 3


def outcome(call_: Any, *args: Any) -> Any:
    try:
        value = call_(*args)
    except Exception as err:
        # pydantic's ValidationError (LangChain) and InvalidInputError (ragline) are both
        # ValueErrors; an OutputParserException is one too, so it is named first
        name = type(err).__name__
        if name != "OutputParserException" and isinstance(err, ValueError):
            name = "ValueError"
        return ("raised", name)
    if hasattr(value, "return_values"):
        return ("finish", value.return_values, value.log)
    return (
        "action",
        value.tool,
        value.tool_input,
        value.log,
        [m.content for m in value.message_log],
    )


@pytest.mark.parametrize(
    "reply",
    [
        *REPLIES,
        call("add", "{not json"),
        call("add", '"just text"'),
        call("add", "[1, 2]"),
        call("add", '{"x": "line\\nbreak"}'),
    ],
)
def test_the_parser_reads_replies_as_langchains(reply):
    lc, rl = LCOpenAIFunctionsAgentOutputParser(), OpenAIFunctionsAgentOutputParser()
    assert outcome(rl.invoke, AIMessage(**reply)) == outcome(lc.invoke, LCAIMessage(**reply))


def test_errors_as_langchains():
    lc, rl = LCOpenAIFunctionsAgentOutputParser(), OpenAIFunctionsAgentOutputParser()
    assert outcome(rl.parse, "text") == outcome(lc.parse, "text") == ("raised", "ValueError")
    bad_prompt = ChatPromptTemplate.from_messages([("human", "{input}")])
    lc_bad = LCChatPromptTemplate.from_messages([("human", "{input}")])
    ours = outcome(
        create_openai_functions_agent, FakeMessagesListChatModel(responses=["x"]), [], bad_prompt
    )
    theirs = outcome(lc_create, LCFakeChat(responses=[LCAIMessage("x")]), [], lc_bad)
    assert ours == theirs == ("raised", "ValueError")

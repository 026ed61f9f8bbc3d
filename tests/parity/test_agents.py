"""Parity: agents and their executor, against LangChain's (langchain_classic.agents).

Each scenario builds the same agent from LangChain's classes and from ragline's classes
of the same names, with scripted fake models, and compares outputs, the callback events
a handler sees and the answer a limit stops the agent with.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic import agents as lc_agents
from langchain_core import callbacks as lc_callbacks
from langchain_core import language_models as lc_models
from langchain_core import messages as lc_messages
from langchain_core import prompts as lc_prompts
from langchain_core import tools as lc_tools

from ragline import agents, core, tools

COVERS = {
    "agents.AgentExecutor",
    "agents.initialize_agent",
    "agents.create_tool_calling_agent",
    "agents.create_react_agent",
}

REACT_REPLIES = [" I will echo.\nAction: echo\nAction Input: hi", " I know.\nFinal Answer: hi"]


def lib(which: str) -> dict[str, Any]:
    """The classes a scenario uses, from LangChain or from ragline, by the same names."""
    if which == "langchain":
        return {
            "agents": lc_agents,
            "Handler": lc_callbacks.BaseCallbackHandler,
            "FakeListLLM": lc_models.FakeListLLM,
            "FakeChat": lc_models.FakeMessagesListChatModel,
            "AIMessage": lc_messages.AIMessage,
            "ChatPromptTemplate": lc_prompts.ChatPromptTemplate,
            "PromptTemplate": lc_prompts.PromptTemplate,
            "tool": lc_tools.tool,
        }
    return {
        "agents": agents,
        "Handler": core.BaseCallbackHandler,
        "FakeListLLM": core.FakeListLLM,
        "FakeChat": core.FakeMessagesListChatModel,
        "AIMessage": core.AIMessage,
        "ChatPromptTemplate": core.ChatPromptTemplate,
        "PromptTemplate": core.PromptTemplate,
        "tool": tools.tool,
    }


def echo_tool(ns: dict[str, Any]) -> Any:
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    return ns["tool"](echo)


def recorder(ns: dict[str, Any]) -> Any:
    class Recorder(ns["Handler"]):
        def __init__(self) -> None:
            self.events: list[tuple[Any, ...]] = []

        def on_chain_start(self, serialized, inputs, **kw):
            self.events.append(("chain_start", kw.get("name")))

        def on_chain_end(self, outputs, **kw):
            self.events.append(("chain_end",))

        def on_llm_start(self, serialized, prompts, **kw):
            self.events.append(("llm_start",))

        def on_tool_start(self, serialized, input_str, **kw):
            self.events.append(("tool_start", input_str))

        def on_agent_action(self, action, **kw):
            self.events.append(("agent_action", action.tool, action.tool_input))

        def on_agent_finish(self, finish, **kw):
            self.events.append(("agent_finish", dict(finish.return_values)))

    return Recorder()


@pytest.mark.parametrize("how", ["constructor", "invoke"])
def test_initialize_agent_takes_callbacks_scoped_as_langchain_scopes_them(how):
    """Handlers given to the constructor see the executor's own run only; handlers
    given to invoke see every run below it too."""
    seen = {}
    for which in ("langchain", "ragline"):
        ns = lib(which)
        handler = recorder(ns)
        options = {"callbacks": [handler]} if how == "constructor" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain's deprecation of initialize_agent
            executor = ns["agents"].initialize_agent(
                [echo_tool(ns)],
                ns["FakeListLLM"](responses=REACT_REPLIES),
                agent="zero-shot-react-description",
                **options,
            )
        config = {"callbacks": [handler]} if how == "invoke" else None
        output = executor.invoke({"input": "Say hi"}, config)
        seen[which] = (output, handler.events)
    assert seen["ragline"] == seen["langchain"]
    if how == "constructor":
        assert seen["ragline"][1] == [
            ("chain_start", "AgentExecutor"),
            ("agent_action", "echo", "hi"),
            ("agent_finish", {"output": "hi"}),
            ("chain_end",),
        ]


def tool_calling_executor(ns: dict[str, Any], **options: Any) -> Any:
    class Model(ns["FakeChat"]):
        def bind_tools(self, tools, **kwargs):
            return self

    call = {"name": "echo", "args": {"text": "x"}}
    replies = [ns["AIMessage"](content="", tool_calls=[{**call, "id": f"c{n}"}]) for n in range(4)]
    prompt = ns["ChatPromptTemplate"].from_messages(
        [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    echo = echo_tool(ns)
    agent = ns["agents"].create_tool_calling_agent(Model(responses=replies), [echo], prompt)
    return ns["agents"].AgentExecutor(agent=agent, tools=[echo], **options)


def react_executor(ns: dict[str, Any], **options: Any) -> Any:
    prompt = ns["PromptTemplate"].from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    llm = ns["FakeListLLM"](responses=[REACT_REPLIES[0]] * 4)
    echo = echo_tool(ns)
    agent = ns["agents"].create_react_agent(llm, [echo], prompt)
    return ns["agents"].AgentExecutor(agent=agent, tools=[echo], **options)


@pytest.mark.parametrize("build", [tool_calling_executor, react_executor])
@pytest.mark.parametrize("limit", [{"max_iterations": 2}, {"max_execution_time": 1e-9}])
def test_the_answer_when_a_limit_stops_the_agent_is_langchains(build, limit):
    theirs = build(lib("langchain"), **limit).invoke({"input": "go"})
    ours = build(lib("ragline"), **limit).invoke({"input": "go"})
    assert ours == theirs
    expected = {
        tool_calling_executor: "Agent stopped due to max iterations.",
        react_executor: "Agent stopped due to iteration limit or time limit.",
    }[build]
    assert ours["output"] == expected

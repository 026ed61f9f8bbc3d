"""``return_direct`` when one step calls several tools: ragline's AgentExecutor beside
LangChain's (langchain_classic's AgentExecutor, the oracle) on the same scripted replies.

LangChain ends the run with a ``return_direct`` tool's output only when the step made
exactly one call; with two calls in a step (whichever of them is ``return_direct``) both
observations go back to the model, which is asked again. Both libraries run here, sync
and async, and must agree on the output, the steps and how many times the model was
asked.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ragline.agents import AgentExecutor, create_tool_calling_agent
from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    FakeMessagesListChatModel,
    MessagesPlaceholder,
)
from ragline.tools import tool

lc_agents = pytest.importorskip("langchain_classic.agents")
lc_fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
lc_messages = pytest.importorskip("langchain_core.messages")
lc_prompts = pytest.importorskip("langchain_core.prompts")
lc_tools = pytest.importorskip("langchain_core.tools")

FINAL = "the model's own answer"
SPARE = "never asked for"


def _lookup(query: str) -> str:
    """Look an answer up directly."""
    return f"direct: {query}"


def _echo(query: str) -> str:
    """Repeat the query."""
    return f"echo: {query}"


def _calls(names: list[str]) -> list[dict[str, Any]]:
    return [{"name": n, "args": {"query": f"q{i}"}, "id": f"c{i}"} for i, n in enumerate(names)]


def _ragline(names: list[str], *, run_async: bool) -> tuple[Any, list[Any], int]:
    lookup = tool("lookup", return_direct=True)(_lookup)
    echo = tool("echo")(_echo)
    replies = [AIMessage("", tool_calls=_calls(names)), AIMessage(FINAL), AIMessage(SPARE)]
    model = FakeMessagesListChatModel(responses=replies)
    prompt = ChatPromptTemplate.from_messages(
        [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
    )
    tools = [lookup, echo]
    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, tools, prompt),
        tools=tools,
        return_intermediate_steps=True,
    )
    question = {"input": "what is it?"}
    result = asyncio.run(executor.ainvoke(question)) if run_async else executor.invoke(question)
    steps = [
        (action.tool, action.tool_input, seen) for action, seen in result["intermediate_steps"]
    ]
    return result["output"], steps, len(model.calls)


class _LangChainModel(lc_fakes.FakeMessagesListChatModel):  # type: ignore[name-defined,misc]
    """LangChain's scripted chat model; its bind_tools raises, a tool-calling agent needs one."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def _langchain(names: list[str], *, run_async: bool) -> tuple[Any, list[Any], int]:
    lookup = lc_tools.tool("lookup", return_direct=True)(_lookup)
    echo = lc_tools.tool("echo")(_echo)
    replies = [
        lc_messages.AIMessage("", tool_calls=_calls(names)),
        lc_messages.AIMessage(FINAL),
        lc_messages.AIMessage(SPARE),
    ]
    model = _LangChainModel(responses=replies)
    prompt = lc_prompts.ChatPromptTemplate.from_messages(
        [("human", "{input}"), lc_prompts.MessagesPlaceholder("agent_scratchpad")]
    )
    tools = [lookup, echo]
    executor = lc_agents.AgentExecutor(
        agent=lc_agents.create_tool_calling_agent(model, tools, prompt),
        tools=tools,
        return_intermediate_steps=True,
    )
    question = {"input": "what is it?"}
    result = asyncio.run(executor.ainvoke(question)) if run_async else executor.invoke(question)
    steps = [
        (action.tool, action.tool_input, seen) for action, seen in result["intermediate_steps"]
    ]
    # i: the replies given so far (it wraps to 0 after the last, hence the spare reply)
    return result["output"], steps, model.i


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["lookup"], ("direct: q0", [("lookup", {"query": "q0"}, "direct: q0")], 1)),
        (
            ["lookup", "echo"],
            (
                FINAL,
                [("lookup", {"query": "q0"}, "direct: q0"), ("echo", {"query": "q1"}, "echo: q1")],
                2,
            ),
        ),
        (
            ["echo", "lookup"],
            (
                FINAL,
                [("echo", {"query": "q0"}, "echo: q0"), ("lookup", {"query": "q1"}, "direct: q1")],
                2,
            ),
        ),
        (
            ["lookup", "lookup"],
            (
                FINAL,
                [
                    ("lookup", {"query": "q0"}, "direct: q0"),
                    ("lookup", {"query": "q1"}, "direct: q1"),
                ],
                2,
            ),
        ),
    ],
    ids=["one-direct-call", "direct-first-of-two", "direct-second-of-two", "two-direct-calls"],
)
def test_return_direct_ends_the_run_only_when_it_is_the_steps_one_call(
    names: list[str], expected: tuple[Any, list[Any], int], run_async: bool
) -> None:
    """One return_direct call: its output is the answer, the model is asked once. Two calls
    in one step, either of them (or both) return_direct: the model is asked again and its
    reply is the answer. Exact values, and LangChain's executor gives the same."""
    ours = _ragline(names, run_async=run_async)
    assert ours == expected
    assert _langchain(names, run_async=run_async) == ours

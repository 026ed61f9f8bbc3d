"""Agents over real HTTP: ChatOpenAI against the local OpenAI-protocol server.

Tool calls arrive as JSON (``stream_runnable=False``) or streamed in chunks whose
arguments are split across events (the default: the executor streams from the model);
ReAct text goes out with its ``stop`` sequence. The server records every request, so
the tests check what the model was sent as exactly as what came back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _openai_server import CHAT_PATH, Reply, chat_completion, chat_completion_chunks

from ragline.agents import (
    REACT_PROMPT,
    AgentExecutor,
    create_react_agent,
    create_tool_calling_agent,
)
from ragline.chat_models import ChatOpenAI
from ragline.core import ChatPromptTemplate, MessagesPlaceholder, RunCollectorCallbackHandler

from ._math_tools import add, multiply

pytestmark = pytest.mark.network

PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a calculator."),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)


def delta(index: int, *, call_id: str | None = None, name: str | None = None,
          arguments: str = "") -> dict[str, Any]:  # fmt: skip
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    item: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        item.update(id=call_id, type="function")
    return item


STREAMED_CALLS = chat_completion_chunks(
    [],
    finish_reason="tool_calls",
    tool_call_deltas=[
        [delta(0, call_id="call_a", name="add")],
        [delta(0, arguments='{"a": 1')],
        [delta(0, arguments=', "b": 2}'), delta(1, call_id="call_m", name="multiply")],
        [delta(1, arguments='{"a": 3, "b": 4}')],
    ],
)


def model(server: Any) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model")


def bodies(server: Any) -> list[dict[str, Any]]:
    return [request.body for request in server.requests_to(CHAT_PATH)]


def test_streamed_parallel_tool_calls_end_to_end(openai_server):
    openai_server.enqueue(
        CHAT_PATH,
        Reply(events=STREAMED_CALLS),
        Reply(events=chat_completion_chunks(["3 and ", "12."])),
    )
    agent = create_tool_calling_agent(model(openai_server), [add, multiply], PROMPT)
    executor = AgentExecutor(agent=agent, tools=[add, multiply], return_intermediate_steps=True)
    collector = RunCollectorCallbackHandler()
    result = executor.invoke({"input": "1+2 and 3*4?"}, {"callbacks": [collector]})
    assert result["output"] == "3 and 12."
    assert [(a.tool, a.tool_input, a.tool_call_id, o) for a, o in result["intermediate_steps"]] == [
        ("add", {"a": 1, "b": 2}, "call_a", 3),
        ("multiply", {"a": 3, "b": 4}, "call_m", 12),
    ]
    first, second = bodies(openai_server)
    assert first["stream"] is True
    assert [spec["function"]["name"] for spec in first["tools"]] == ["add", "multiply"]
    assert second["messages"][2:] == [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "add", "arguments": json.dumps({"a": 1, "b": 2})}},
            {"id": "call_m", "type": "function",
             "function": {"name": "multiply", "arguments": json.dumps({"a": 3, "b": 4})}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "3"},
        {"role": "tool", "tool_call_id": "call_m", "content": "12"},
    ]  # fmt: skip
    root = collector.traced_runs[0]
    assert [child.name for child in root.children] == [
        "RunnableSequence", "add", "multiply", "RunnableSequence"
    ]  # fmt: skip
    tokens = [run for event, run in collector.event_log if event == "llm_new_token"]
    # every streamed chunk reached callbacks, and each of the two model calls' closing
    # empty chunk (LangChain 1.x)
    assert len(tokens) == len(STREAMED_CALLS) + 4 + 2


def test_json_tool_calls_without_streaming(openai_server):
    openai_server.enqueue(
        CHAT_PATH,
        Reply(
            body=chat_completion(
                None,
                finish_reason="tool_calls",
                tool_calls=[{"id": "call_1", "name": "multiply", "arguments": '{"a": 6, "b": 7}'}],
            )
        ),
        Reply(body=chat_completion("42")),
    )
    agent = create_tool_calling_agent(model(openai_server), [add, multiply], PROMPT)
    executor = AgentExecutor(agent=agent, tools=[add, multiply], stream_runnable=False)
    chunks = list(executor.stream({"input": "6*7?"}))
    assert [next(iter(chunk)) for chunk in chunks] == ["actions", "steps", "output"]
    assert chunks[1]["steps"][0].observation == 42
    assert chunks[-1]["output"] == "42"
    assert [body.get("stream") for body in bodies(openai_server)] == [None, None]


async def test_async_streamed_tool_calls(openai_server):
    openai_server.enqueue(
        CHAT_PATH,
        Reply(events=STREAMED_CALLS),
        Reply(events=chat_completion_chunks(["done"])),
    )
    agent = create_tool_calling_agent(model(openai_server), [add, multiply], PROMPT)
    executor = AgentExecutor(agent=agent, tools=[add, multiply], return_intermediate_steps=True)
    result = await executor.ainvoke({"input": "x"})
    assert [o for _, o in result["intermediate_steps"]] == [3, 12]
    assert bodies(openai_server)[1]["messages"][-1] == {
        "role": "tool", "tool_call_id": "call_m", "content": "12"
    }  # fmt: skip


def test_react_text_over_http_sends_the_stop_sequence(openai_server):
    openai_server.enqueue(
        CHAT_PATH,
        Reply(
            events=chat_completion_chunks(
                [" I add.\nAction: add\n", 'Action Input: {"a": 2, "b": 2}']
            )
        ),
        Reply(events=chat_completion_chunks([" Done.\nFinal Answer: 4"])),
    )
    agent = create_react_agent(model(openai_server), [add], REACT_PROMPT)
    result = AgentExecutor(agent=agent, tools=[add]).invoke({"input": "2+2?"})
    assert result["output"] == "4"
    first, second = bodies(openai_server)
    assert first["stop"] == ["\nObservation"] and first["stream"] is True
    assert second["messages"][0]["content"].endswith(
        'Thought: I add.\nAction: add\nAction Input: {"a": 2, "b": 2}\nObservation: 4\nThought: '
    )

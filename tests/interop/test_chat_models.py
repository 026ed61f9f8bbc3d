"""LangChain's own ChatOpenAI (langchain-openai) through from_langchain, against the
loopback OpenAI-protocol server: the same calls natively and bridged give the same
replies, streams, tool calls, structured output and token usage, and ragline's callback
handlers and astream_events see the runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_openai import ChatOpenAI as LCChatOpenAI
from pydantic import BaseModel

from ragline.core import AIMessage, ChatPromptTemplate, ChatPromptValue, StrOutputParser
from ragline.core.callbacks import RunCollectorCallbackHandler
from ragline.interop.langchain import from_langchain, message_from_langchain
from ragline.interop.langchain._from import LangChainChatModel
from ragline.tools import tool
from tests._openai_server import OpenAITestServer


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


@pytest.fixture
def native(server: OpenAITestServer) -> LCChatOpenAI:
    # its own async client: langchain-openai's shared one stays bound to the first test's loop
    return LCChatOpenAI(
        base_url=server.base_url,
        api_key="test",
        model="test-model",
        http_async_client=httpx.AsyncClient(),
    )


def _without_id(message: Any) -> dict[str, Any]:
    dumped = message.model_dump()
    dumped.pop("id")
    dumped.pop("chunk_position", None)
    dumped.pop("type")
    return dumped


def _same(bridged: Any, native: Any) -> None:
    assert type(bridged).__name__ == type(native).__name__
    assert _without_id(bridged) == _without_id(message_from_langchain(native))


def test_invoke_gives_the_native_reply_with_its_usage(native: LCChatOpenAI) -> None:
    model = from_langchain(native)
    assert isinstance(model, LangChainChatModel)
    collector = RunCollectorCallbackHandler()
    reply = model.invoke("hello there", {"callbacks": [collector]})
    _same(reply, native.invoke("hello there"))
    assert reply.content == "echo: hello there"
    assert reply.usage_metadata == {
        "input_tokens": 7,
        "output_tokens": 3,
        "total_tokens": 10,
        "input_token_details": {},
        "output_token_details": {},
    }
    (run,) = collector.traced_runs
    assert run.run_type == "llm"  # a collector's chat model run, as LangChain records it
    assert reply.id == f"lc_run--{run.id}-0"  # the id LangChain gives, from ragline's run
    assert run.outputs["llm_output"]["token_usage"]["total_tokens"] == 10


def test_stream_gives_the_native_chunks(native: LCChatOpenAI) -> None:
    model = from_langchain(native)
    bridged = list(model.stream("one two three"))
    expected = list(native.stream("one two three"))
    assert [chunk.content for chunk in bridged] == ["echo: ", "one ", "two ", "three", "", ""]
    assert len(bridged) == len(expected)
    for mine, theirs in zip(bridged, expected, strict=True):
        _same(mine, theirs)


async def test_async_invoke_and_stream(native: LCChatOpenAI) -> None:
    model = from_langchain(native)
    _same(await model.ainvoke("hi"), await native.ainvoke("hi"))
    chunks = [chunk.content async for chunk in model.astream("a b")]
    assert chunks == [chunk.content async for chunk in native.astream("a b")]
    assert "".join(chunks) == "echo: a b"


@tool
def search(query: str) -> str:
    """Search the pet notes."""
    return query


def test_bind_tools_sends_the_native_tool_spec_and_returns_its_calls(
    native: LCChatOpenAI, server: OpenAITestServer
) -> None:
    def search_native(query: str) -> str:
        """Search the pet notes."""
        return query

    search_native.__name__ = "search"
    bridged = from_langchain(native).bind_tools([search], tool_choice="search").invoke("cats")
    sent = server.requests[-1].body
    expected = native.bind_tools([search_native], tool_choice="search").invoke("cats")
    assert sent["tools"] == server.requests[-1].body["tools"]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "search"}}
    _same(bridged, expected)
    assert bridged.tool_calls == [
        {"name": "search", "args": {"query": "query: cats"}, "id": "call_1", "type": "tool_call"}
    ]


def test_streamed_tool_calls_add_up_to_the_native_ones(native: LCChatOpenAI) -> None:
    model = from_langchain(native).bind_tools([search], tool_choice="search")
    total = None
    for chunk in model.stream("dogs"):
        total = chunk if total is None else total + chunk
    assert total is not None
    assert total.tool_calls == [
        {"name": "search", "args": {"query": "query: dogs"}, "id": "call_1", "type": "tool_call"}
    ]
    assert [c["args"] for c in total.tool_call_chunks] == ['{"query": "query: dogs"}']


class City(BaseModel):
    name: str


def test_with_structured_output_is_the_native_one(native: LCChatOpenAI) -> None:
    model = from_langchain(native)
    assert model.with_structured_output(City).invoke("Paris") == City(name="name: Paris")
    raw = model.with_structured_output(City, include_raw=True).invoke("Paris")
    assert raw["parsed"] == City(name="name: Paris")
    assert isinstance(raw["raw"], AIMessage)  # converted back to ragline's message
    assert raw["raw"].content == '{"name": "name: Paris"}'
    assert raw["parsing_error"] is None


def test_a_ragline_chain_around_the_bridged_model(native: LCChatOpenAI) -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "Q: {q}")])
    chain = prompt | from_langchain(native) | StrOutputParser()
    lc_chain = (
        LCChatPromptTemplate.from_messages([("human", "Q: {q}")]) | native | LCStrOutputParser()
    )
    assert chain.invoke({"q": "why"}) == lc_chain.invoke({"q": "why"}) == "echo: Q: why"


async def test_astream_events_see_the_model_stream_inside_a_ragline_chain(
    native: LCChatOpenAI,
) -> None:
    chain = ChatPromptTemplate.from_messages([("human", "{q}")]) | from_langchain(native)
    events = [
        (event["event"], event["name"])
        async for event in chain.astream_events({"q": "x y"}, version="v2")
        if event["event"] != "on_chain_stream"
    ]
    assert events == [
        ("on_chain_start", "RunnableSequence"),
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
        ("on_chat_model_start", "ChatOpenAI"),
        ("on_chat_model_stream", "ChatOpenAI"),
        ("on_chat_model_stream", "ChatOpenAI"),
        ("on_chat_model_stream", "ChatOpenAI"),
        ("on_chat_model_stream", "ChatOpenAI"),
        ("on_chat_model_stream", "ChatOpenAI"),
        ("on_chat_model_end", "ChatOpenAI"),
        ("on_chain_end", "RunnableSequence"),
    ]


def test_a_langchain_chain_s_runs_are_children_of_the_wrapper(native: LCChatOpenAI) -> None:
    lc_chain = LCChatPromptTemplate.from_messages([("human", "{q}")]) | native | LCStrOutputParser()
    collector = RunCollectorCallbackHandler()
    assert from_langchain(lc_chain).invoke({"q": "hi"}, {"callbacks": [collector]}) == "echo: hi"
    (root,) = collector.traced_runs
    assert root.name == "RunnableSequence"
    children = [(child.name, child.run_type, child.parent_run_id) for child in root.children]
    assert children == [
        ("ChatPromptTemplate", "prompt", root.id),
        ("ChatOpenAI", "llm", root.id),
        ("StrOutputParser", "parser", root.id),
    ]
    # LangChain's payloads arrive as ragline objects: the prompt's output is ragline's
    assert isinstance(root.children[0].outputs["output"], ChatPromptValue)
    message = root.children[1].outputs["generations"][0][0]["message"]
    assert (message["id"][-1], message["kwargs"]["content"]) == ("AIMessage", "echo: hi")

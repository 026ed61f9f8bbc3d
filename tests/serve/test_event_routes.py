"""/stream_events and /stream_log end to end: a ragline chain served over HTTP, its events
in LangChain's v2 shape (filters sent by the client honoured) and its log patches adding
up to the run's final state."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _run_ids import STREAMED_RUN_ID

from ragline.core import (
    AIMessageChunk,
    ChatPromptTemplate,
    FakeListChatModel,
    RunLogPatch,
    StrOutputParser,
)
from ragline.serve import BackgroundServer, RemoteRunnable, add_routes, create_app

pytestmark = pytest.mark.network

EXPECTED_EVENTS = [
    ("on_chain_start", "RunnableSequence", 0),
    ("on_prompt_start", "ChatPromptTemplate", 1),
    ("on_prompt_end", "ChatPromptTemplate", 1),
    ("on_chat_model_start", "FakeListChatModel", 1),
    ("on_chat_model_stream", "FakeListChatModel", 1),
    ("on_parser_start", "StrOutputParser", 1),
    ("on_parser_stream", "StrOutputParser", 1),
    ("on_chain_stream", "RunnableSequence", 0),
    ("on_chat_model_stream", "FakeListChatModel", 1),
    ("on_parser_stream", "StrOutputParser", 1),
    ("on_chain_stream", "RunnableSequence", 0),
    ("on_chat_model_end", "FakeListChatModel", 1),
    ("on_parser_end", "StrOutputParser", 1),
    ("on_chain_end", "RunnableSequence", 0),
]


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    chain = prompt | FakeListChatModel(responses=["Hi"]) | StrOutputParser()
    app = create_app()
    add_routes(app, chain, path="/chain")
    with BackgroundServer(app) as running:
        yield running


def test_remote_astream_events_gives_the_chains_events(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/chain")

    async def collect(**filters: Any) -> list[dict[str, Any]]:
        return [event async for event in remote.astream_events({"q": "hello"}, **filters)]

    events = asyncio.run(collect())
    assert [(e["event"], e["name"], len(e["parent_ids"])) for e in events] == EXPECTED_EVENTS
    root = events[0]["run_id"]
    assert all(e["parent_ids"] == [root] for e in events if e["name"] != "RunnableSequence")
    tokens = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(token, AIMessageChunk) for token in tokens)
    assert [token.content for token in tokens] == ["H", "i"]
    assert events[0]["data"] == {"input": {"q": "hello"}}
    assert events[-1]["data"] == {"output": "Hi"}

    only_model = asyncio.run(collect(include_types=["chat_model"]))
    assert [e["event"] for e in only_model] == [
        "on_chat_model_start",
        "on_chat_model_stream",
        "on_chat_model_stream",
        "on_chat_model_end",
    ]


def test_stream_events_speaks_server_sent_events(server: BackgroundServer) -> None:
    body = {"input": {"q": "hello"}, "include_names": ["StrOutputParser"]}
    response = httpx.post(server.url + "/chain/stream_events", json=body)
    blocks = [block for block in response.text.split("\r\n\r\n") if block.strip()]
    kinds = [block.split("\r\n")[0] for block in blocks]
    # no metadata event before the data: LangServe sends it on /stream only
    assert kinds == ["event: data"] * 4 + ["event: end"]
    data = [json.loads(block.split("data: ", 1)[1]) for block in blocks[:-1]]
    # as LangChain's: the first event let through carries the stream's input, and its
    # run's end only the output
    assert [(d["event"], d["data"]) for d in data] == [
        ("on_parser_start", {"input": {"q": "hello"}}),
        ("on_parser_stream", {"chunk": "H"}),
        ("on_parser_stream", {"chunk": "i"}),
        ("on_parser_end", {"output": "Hi"}),
    ]
    # after a model's events, the parser's end carries its input, in LangServe's form
    body = {"input": {"q": "hello"}, "include_types": ["chat_model", "parser"]}
    response = httpx.post(server.url + "/chain/stream_events", json=body)
    blocks = [block for block in response.text.split("\r\n\r\n") if block.strip()]
    data = [json.loads(block.split("data: ", 1)[1]) for block in blocks[:-1]]
    message_id = data[-1]["data"]["input"]["id"]  # the model's run's, streamed: no suffix
    assert STREAMED_RUN_ID.fullmatch(message_id), message_id
    assert data[0]["data"] == {"input": {"q": "hello"}}  # the model's start, shown first
    assert (data[0]["event"], data[-1]["event"]) == ("on_chat_model_start", "on_parser_end")
    assert data[-1]["data"] == {"output": "Hi", "input": {**_STREAMED_MESSAGE, "id": message_id}}


# The parser's input after a streamed model is the added-up AIMessageChunk, as in
# langchain-core (not the joined text), sent in LangServe's message form.
_STREAMED_MESSAGE = {
    "content": "Hi",
    "additional_kwargs": {},
    "response_metadata": {},
    "type": "AIMessageChunk",
    "name": None,
    "id": None,  # set to the run's id where compared
    "tool_calls": [],
    "invalid_tool_calls": [],
    "usage_metadata": None,
    "tool_call_chunks": [],
    "chunk_position": "last",  # the fake marks its last piece, as LangChain's does
}


def test_stream_log_patches_add_up_to_the_final_state(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/chain")

    async def collect() -> list[dict[str, Any]]:
        return [patch async for patch in remote.astream_log({"q": "hello"})]

    patches = asyncio.run(collect())
    log = RunLogPatch(*patches[0]["ops"])
    for patch in patches[1:]:
        log = log + RunLogPatch(*patch["ops"])
    state = log.state  # type: ignore[attr-defined]
    assert (state["name"], state["type"], state["final_output"]) == (
        "RunnableSequence",
        "chain",
        "Hi",
    )
    assert state["streamed_output"] == ["H", "i"]
    assert sorted(state["logs"]) == ["ChatPromptTemplate", "FakeListChatModel", "StrOutputParser"]
    model = state["logs"]["FakeListChatModel"]
    assert (model["type"], model["streamed_output_str"]) == ("llm", ["H", "i"])
    assert state["logs"]["StrOutputParser"]["final_output"] == {"output": "Hi"}
    assert all(entry["end_time"] for entry in state["logs"].values())

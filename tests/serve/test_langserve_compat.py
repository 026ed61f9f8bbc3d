"""The LangServe protocol both ways: LangServe's own ``RemoteRunnable`` calls a ragline
server, and ragline's ``RemoteRunnable`` calls a LangServe server (langserve from PyPI,
on the installed langchain-core)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatPromptTemplate,
    Document,
    FakeListChatModel,
    RunnableLambda,
    StrOutputParser,
)
from ragline.serve import BackgroundServer, RemoteRunnable, add_routes, create_app
from tests._run_ids import RUN_ID

langserve = pytest.importorskip("langserve")
lc_documents = pytest.importorskip("langchain_core.documents")
lc_messages = pytest.importorskip("langchain_core.messages")
lc_runnables = pytest.importorskip("langchain_core.runnables")
lc_fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
lc_prompts = pytest.importorskip("langchain_core.prompts")
lc_parsers = pytest.importorskip("langchain_core.output_parsers")

pytestmark = pytest.mark.network


def _ragline_search(query: str) -> list[Document]:
    return [Document(f"about {query}", metadata={"source": "a.txt"}, id="d1")]


def _langchain_search(query: str) -> list[Any]:
    return [lc_documents.Document(page_content=f"about {query}", metadata={"source": "a.txt"},
                                  id="d1")]  # fmt: skip


@pytest.fixture(scope="module")
def ragline_server() -> Iterator[BackgroundServer]:
    app = create_app()
    add_routes(app, RunnableLambda(_ragline_search), path="/search")
    add_routes(app, FakeListChatModel(responses=["Etna erupts."]), path="/model")
    chain = (
        ChatPromptTemplate.from_messages([("human", "{q}")])
        | FakeListChatModel(responses=["Etna erupts."])
        | StrOutputParser()
    )
    add_routes(app, chain, path="/chain")
    with BackgroundServer(app) as server:
        yield server


@pytest.fixture(scope="module")
def langserve_server() -> Iterator[BackgroundServer]:
    from fastapi import FastAPI

    app = FastAPI()
    langserve.add_routes(app, lc_runnables.RunnableLambda(_langchain_search), path="/search")
    model = lc_fakes.FakeListChatModel(responses=["Etna erupts."])
    langserve.add_routes(app, model, path="/model")
    chain = (
        lc_prompts.ChatPromptTemplate.from_messages([("human", "{q}")])
        | lc_fakes.FakeListChatModel(responses=["Etna erupts."])
        | lc_parsers.StrOutputParser()
    )
    langserve.add_routes(app, chain, path="/chain")
    with BackgroundServer(app) as server:
        yield server


def test_langserves_client_reads_a_ragline_server(ragline_server: BackgroundServer) -> None:
    search = langserve.RemoteRunnable(ragline_server.url + "/search")
    assert search.invoke("etna") == _langchain_search("etna")
    assert search.batch(["a", "b"]) == [_langchain_search("a"), _langchain_search("b")]
    model = langserve.RemoteRunnable(ragline_server.url + "/model")
    reply = model.invoke("hi")
    assert reply.id is not None and RUN_ID.fullmatch(reply.id)  # the run's id, as LangChain's
    assert reply == lc_messages.AIMessage(content="Etna erupts.", id=reply.id)
    chunks = list(model.stream("hi"))
    assert all(isinstance(chunk, lc_messages.AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == "Etna erupts."


def test_langserves_async_stream_reads_a_ragline_server(ragline_server: BackgroundServer) -> None:
    model = langserve.RemoteRunnable(ragline_server.url + "/model")

    async def collect() -> list[Any]:
        return [chunk async for chunk in model.astream("hi")]

    assert "".join(chunk.content for chunk in asyncio.run(collect())) == "Etna erupts."


def test_langserves_client_reads_a_ragline_servers_events_and_log(
    ragline_server: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    """LangServe's ``astream_events`` and ``astream_log`` read ragline's /stream_events
    and /stream_log as they read LangServe's own, without a warning about the stream."""
    remote = langserve.RemoteRunnable(ragline_server.url + "/chain")

    async def collect() -> tuple[list[Any], list[Any]]:
        events = [e async for e in remote.astream_events({"q": "hi"}, version="v2")]
        patches = [patch async for patch in remote.astream_log({"q": "hi"})]
        return events, patches

    with caplog.at_level("WARNING"):
        events, patches = asyncio.run(collect())
    assert [r.getMessage() for r in caplog.records if r.name.startswith("langserve")] == []
    assert [(e["event"], e["name"]) for e in events[:5]] == [
        ("on_chain_start", "RunnableSequence"),
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
        ("on_chat_model_start", "FakeListChatModel"),
        ("on_chat_model_stream", "FakeListChatModel"),
    ]
    chunks = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(chunk, lc_messages.AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == "Etna erupts."
    assert events[-1]["event"] == "on_chain_end"
    assert events[-1]["data"]["output"] == "Etna erupts."
    log = patches[0]
    for patch in patches[1:]:
        log = log + patch  # LangServe's RunLogPatch objects add up to the RunLog
    assert log.state["final_output"] == "Etna erupts."
    assert "".join(log.state["streamed_output"]) == "Etna erupts."


def test_our_client_reads_a_langserve_server(langserve_server: BackgroundServer) -> None:
    search = RemoteRunnable(langserve_server.url + "/search")
    assert search.invoke("etna") == _ragline_search("etna")
    assert search.batch(["a", "b"]) == [_ragline_search("a"), _ragline_search("b")]
    model = RemoteRunnable(langserve_server.url + "/model")
    answer = model.invoke("hi")
    assert isinstance(answer, AIMessage) and answer.content == "Etna erupts."
    chunks = list(model.stream("hi"))
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == "Etna erupts."


def test_our_client_streams_a_langserve_servers_events(langserve_server: BackgroundServer) -> None:
    """``RemoteRunnable.astream_events`` reads LangServe's /stream_events: every run of
    the served prompt | model | parser in order, the model's chunks as ragline
    ``AIMessageChunk``s, the filters applied on the server."""
    remote = RemoteRunnable(langserve_server.url + "/chain")

    async def collect(**filters: Any) -> list[dict[str, Any]]:
        return [event async for event in remote.astream_events({"q": "hi"}, **filters)]

    events = asyncio.run(collect())
    answer = "Etna erupts."
    model, parser = ("FakeListChatModel", "StrOutputParser")
    # LangChain starts the parser run with the model's first chunk
    first_chunk = [("on_chat_model_stream", model), ("on_parser_start", parser),
                   ("on_parser_stream", parser), ("on_chain_stream", "/chain")]  # fmt: skip
    next_chunk = [("on_chat_model_stream", model), ("on_parser_stream", parser),
                  ("on_chain_stream", "/chain")]  # fmt: skip
    assert [(e["event"], e["name"]) for e in events] == [
        ("on_chain_start", "/chain"),
        ("on_prompt_start", "ChatPromptTemplate"),
        ("on_prompt_end", "ChatPromptTemplate"),
        ("on_chat_model_start", model),
        *first_chunk,
        *next_chunk * (len(answer) - 1),
        ("on_chat_model_end", model),
        ("on_parser_end", parser),
        ("on_chain_end", "/chain"),
    ]
    chunks = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == answer
    assert events[-1]["data"] == {"output": answer}
    root = events[0]["run_id"]
    assert all(e["parent_ids"] == [root] for e in events[1:-1] if e["name"] != "/chain")
    model_only = asyncio.run(collect(include_types=["chat_model"]))
    assert [e["event"] for e in model_only] == [
        "on_chat_model_start",
        *["on_chat_model_stream"] * len(answer),
        "on_chat_model_end",
    ]


def test_our_client_streams_a_langserve_servers_log(langserve_server: BackgroundServer) -> None:
    """``RemoteRunnable.astream_log`` reads LangServe's /stream_log: JSON-patch ops whose
    root ``streamed_output`` additions spell the answer."""
    remote = RemoteRunnable(langserve_server.url + "/chain")

    async def collect() -> list[dict[str, Any]]:
        return [patch async for patch in remote.astream_log({"q": "hi"})]

    patches = asyncio.run(collect())
    first = patches[0]["ops"][0]
    assert (first["op"], first["path"], first["value"]["name"]) == ("replace", "", "/chain")
    ops = [op for patch in patches for op in patch["ops"]]
    streamed = [op["value"] for op in ops if op["path"] == "/streamed_output/-"]
    assert "".join(streamed) == "Etna erupts."
    model_chunks = [op["value"] for op in ops
                    if op["path"] == "/logs/FakeListChatModel/streamed_output/-"]  # fmt: skip
    assert all(isinstance(chunk, AIMessageChunk) for chunk in model_chunks)
    assert {op["path"] for op in ops if op["path"].endswith("/final_output")} >= {
        "/logs/ChatPromptTemplate/final_output",
        "/logs/FakeListChatModel/final_output",
        "/logs/StrOutputParser/final_output",
    }

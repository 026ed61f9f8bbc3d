"""The LangServe protocol both ways: LangServe's own ``RemoteRunnable`` calls a ragline
server, and ragline's ``RemoteRunnable`` calls a LangServe server (langserve from PyPI,
on the installed langchain-core)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from ragline.core import AIMessage, AIMessageChunk, Document, FakeListChatModel, RunnableLambda
from ragline.serve import BackgroundServer, RemoteRunnable, add_routes, create_app

langserve = pytest.importorskip("langserve")
lc_documents = pytest.importorskip("langchain_core.documents")
lc_messages = pytest.importorskip("langchain_core.messages")
lc_runnables = pytest.importorskip("langchain_core.runnables")
lc_fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")

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
    with BackgroundServer(app) as server:
        yield server


@pytest.fixture(scope="module")
def langserve_server() -> Iterator[BackgroundServer]:
    from fastapi import FastAPI

    app = FastAPI()
    langserve.add_routes(app, lc_runnables.RunnableLambda(_langchain_search), path="/search")
    model = lc_fakes.FakeListChatModel(responses=["Etna erupts."])
    langserve.add_routes(app, model, path="/model")
    with BackgroundServer(app) as server:
        yield server


def test_langserves_client_reads_a_ragline_server(ragline_server: BackgroundServer) -> None:
    search = langserve.RemoteRunnable(ragline_server.url + "/search")
    assert search.invoke("etna") == _langchain_search("etna")
    assert search.batch(["a", "b"]) == [_langchain_search("a"), _langchain_search("b")]
    model = langserve.RemoteRunnable(ragline_server.url + "/model")
    assert model.invoke("hi") == lc_messages.AIMessage(content="Etna erupts.", id=None)
    chunks = list(model.stream("hi"))
    assert all(isinstance(chunk, lc_messages.AIMessageChunk) for chunk in chunks)
    assert "".join(chunk.content for chunk in chunks) == "Etna erupts."


def test_langserves_async_stream_reads_a_ragline_server(ragline_server: BackgroundServer) -> None:
    model = langserve.RemoteRunnable(ragline_server.url + "/model")

    async def collect() -> list[Any]:
        return [chunk async for chunk in model.astream("hi")]

    assert "".join(chunk.content for chunk in asyncio.run(collect())) == "Etna erupts."


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

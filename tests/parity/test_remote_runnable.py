"""Parity: ragline's RemoteRunnable against LangServe's, both clients reading the same
servers over HTTP on loopback: a chain served by LangServe and the same chain served by
ragline. Compared: invoke, batch, stream (the pieces in order), ainvoke and astream
results, and a chat model's reply message.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser
from ragline.serve import BackgroundServer, RemoteRunnable, add_routes, create_app

langserve = pytest.importorskip("langserve")
lc_fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
lc_prompts = pytest.importorskip("langchain_core.prompts")
lc_parsers = pytest.importorskip("langchain_core.output_parsers")

COVERS = {"serve.RemoteRunnable"}


def chain(prompts: Any, fakes: Any, parsers: Any) -> Any:
    prompt = prompts.ChatPromptTemplate.from_messages([("human", "Tell me about {topic}")])
    model = fakes.FakeListChatModel(responses=["Etna erupts often."])
    return {"text": prompt | model | parsers.StrOutputParser(), "chat": prompt | model}


class _Ours:
    ChatPromptTemplate = ChatPromptTemplate
    FakeListChatModel = FakeListChatModel
    StrOutputParser = StrOutputParser


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    from fastapi import FastAPI

    ours = create_app()
    for path, runnable in chain(_Ours, _Ours, _Ours).items():
        add_routes(ours, runnable, path=f"/{path}")
    theirs = FastAPI()
    for path, runnable in chain(lc_prompts, lc_fakes, lc_parsers).items():
        langserve.add_routes(theirs, runnable, path=f"/{path}")
    with BackgroundServer(ours) as mine, BackgroundServer(theirs) as other:
        yield {"ragline": mine.url, "langserve": other.url}


CLIENTS = {"ragline": RemoteRunnable, "langserve": langserve.RemoteRunnable}


@pytest.mark.parametrize("server", ["ragline", "langserve"])
def test_invoke_batch_and_stream_read_the_same(servers: dict[str, str], server: str) -> None:
    seen = {}
    for name, client in CLIENTS.items():
        remote = client(servers[server] + "/text")
        seen[name] = (
            remote.invoke({"topic": "Etna"}),
            remote.batch([{"topic": "a"}, {"topic": "b"}]),
            list(remote.stream({"topic": "Etna"})),
        )
    assert seen["ragline"] == seen["langserve"]
    answer, batch, pieces = seen["ragline"]
    assert answer == "Etna erupts often."
    assert batch == [answer, answer]
    assert "".join(pieces) == answer
    assert len(pieces) > 1  # streamed in pieces, not as one


@pytest.mark.parametrize("server", ["ragline", "langserve"])
async def test_ainvoke_and_astream_read_the_same(servers: dict[str, str], server: str) -> None:
    seen = {}
    for name, client in CLIENTS.items():
        remote = client(servers[server] + "/text")
        seen[name] = (
            await remote.ainvoke({"topic": "Etna"}),
            [piece async for piece in remote.astream({"topic": "Etna"})],
        )
    assert seen["ragline"] == seen["langserve"]
    assert seen["ragline"][0] == "Etna erupts often."


@pytest.mark.parametrize("server", ["ragline", "langserve"])
def test_a_chat_reply_comes_back_as_a_message(servers: dict[str, str], server: str) -> None:
    seen = {}
    for name, client in CLIENTS.items():
        reply = client(servers[server] + "/chat").invoke({"topic": "Etna"})
        seen[name] = (type(reply).__name__, reply.content)
    assert seen["ragline"] == seen["langserve"] == ("AIMessage", "Etna erupts often.")

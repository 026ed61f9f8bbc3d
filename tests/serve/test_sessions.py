"""``/chat`` conversations on ``ragline serve`` (issue 31): ids the server issues,
unguessable; an unknown or missing id refused (also per item of a batch); the
terminal's ``chat.sqlite`` left alone unless sharing it is asked for."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragline.core import FakeListChatModel
from ragline.memory import SQLChatMessageHistory
from ragline.serve import BackgroundServer, create_store_app

pytestmark = pytest.mark.network


@pytest.fixture
def folder(store_folder: Path, tmp_path: Path) -> Path:
    """A copy of the store folder, whose chat files this test may write."""
    import shutil

    return Path(shutil.copytree(store_folder, tmp_path / "store"))


@pytest.fixture
def server(folder: Path) -> Iterator[BackgroundServer]:
    app = create_store_app(folder, model=FakeListChatModel(responses=["an answer"]), k=2)
    with BackgroundServer(app) as running:
        yield running


def chat(server: BackgroundServer, session_id: object = None, **extra: object) -> httpx.Response:
    config = {} if session_id is None else {"configurable": {"session_id": session_id}}
    return httpx.post(server.url + "/chat/invoke",
                      json={"input": {"input": "Hi"}, "config": config, **extra})  # fmt: skip


def new_session(server: BackgroundServer) -> str:
    response = httpx.post(server.url + "/chat/session")
    assert response.status_code == 200
    return str(response.json()["session_id"])


def test_the_server_issues_unguessable_session_ids(server: BackgroundServer) -> None:
    ids = {new_session(server) for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) == 32 and i.replace("-", "").replace("_", "").isalnum() for i in ids)
    assert chat(server, ids.pop()).json()["output"]["answer"] == "an answer"


@pytest.mark.parametrize("session_id", ["default", "s1", "web-abc"])
def test_an_id_the_server_did_not_issue_is_refused(
    server: BackgroundServer, session_id: str
) -> None:
    response = chat(server, session_id)
    assert response.status_code == 404
    assert response.json()["detail"][0]["msg"].startswith("unknown session_id: this server")


def test_chat_without_a_session_id_is_422_not_500(server: BackgroundServer) -> None:
    response = chat(server)
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["loc"] == ["config", "configurable", "session_id"]
    assert problem["msg"] == "a conversation needs a session_id: get one with POST /chat/session"
    stream = httpx.post(server.url + "/chat/stream", json={"input": {"input": "Hi"}})
    assert stream.status_code == 422


def test_one_bad_item_of_a_chat_batch_is_named(server: BackgroundServer) -> None:
    good = new_session(server)
    body = {
        "inputs": [{"input": "a"}, {"input": "b"}, {"input": "c"}],
        "config": [{"configurable": {"session_id": good}}, {},
                   {"configurable": {"session_id": good}}],
    }  # fmt: skip
    response = httpx.post(server.url + "/chat/batch", json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["config", 1, "configurable", "session_id"]
    body["config"][1] = {"configurable": {"session_id": good}}  # type: ignore[index]
    answered = httpx.post(server.url + "/chat/batch", json=body)
    assert answered.status_code == 200 and len(answered.json()["output"]) == 3


def test_the_terminals_history_is_not_shared_by_default(
    server: BackgroundServer, folder: Path
) -> None:
    SQLChatMessageHistory("default", connection=folder / "chat.sqlite").add_user_message("mine")
    session_id = new_session(server)
    assert chat(server, session_id).json()["output"]["chat_history"] == []
    assert chat(server, "default").status_code == 404
    with sqlite3.connect(folder / "chat.sqlite") as db:
        rows = db.execute("SELECT session_id, message FROM message_store").fetchall()
    assert [(s, json.loads(m)["data"]["content"]) for s, m in rows] == [("default", "mine")]


def test_sharing_the_terminals_history_is_explicit(folder: Path) -> None:
    SQLChatMessageHistory("default", connection=folder / "chat.sqlite").add_user_message("mine")
    model = FakeListChatModel(responses=["an answer"])
    app = create_store_app(folder, model=model, k=2, share_terminal_history=True)
    with BackgroundServer(app) as running:
        history = chat(running, "default").json()["output"]["chat_history"]
    assert [m["kwargs"]["content"] if "kwargs" in m else m["content"] for m in history] == ["mine"]


def test_with_an_api_key_a_session_needs_it(folder: Path) -> None:
    app = create_store_app(folder, model=FakeListChatModel(responses=["a"]), api_key="k-1")
    with BackgroundServer(app) as running:
        assert httpx.post(running.url + "/chat/session").status_code == 401
        given = httpx.post(running.url + "/chat/session", headers={"X-API-Key": "k-1"})
        assert given.status_code == 200 and len(given.json()["session_id"]) == 32

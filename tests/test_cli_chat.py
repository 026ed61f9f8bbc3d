"""``ragline chat``: a conversation over a store folder, streamed with sources, kept in the
folder's chat.sqlite so that it resumes; the local OpenAI-protocol server plays the model."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragline.cli import main
from tests._cli_corpus import write_corpus
from tests._openai_server import (
    CHAT_PATH,
    OpenAITestServer,
    RecordedRequest,
    Reply,
    chat_completion,
    chat_completion_chunks,
)

pytestmark = pytest.mark.network

REWRITES = {"And dogs?": "Why do dogs bark?"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    return folder


def _model(request: RecordedRequest) -> Reply:
    """Rewrites follow-up questions it knows; answers 'answer to <question>' otherwise."""
    messages = request.body["messages"]
    question = messages[-1]["content"]
    if "Rewrite the user's latest question" in messages[0]["content"]:
        text = REWRITES.get(question, question)
    else:
        text = f"answer to {question}"
    if request.body.get("stream"):
        return Reply(events=chat_completion_chunks(text.split(" ")[:1] + [
            " " + word for word in text.split(" ")[1:]
        ]))  # fmt: skip
    return Reply(body=chat_completion(text))


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        running.add_route(CHAT_PATH, _model)
        yield running


def chat(
    store: Path, lines: str, *args: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragline.cli", "chat", "--store", str(store), "-k", "1", *args],
        input=lines,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )


def _env(server: OpenAITestServer) -> dict[str, str]:
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}


def test_a_conversation_streams_answers_with_sources_and_resumes(
    store: Path, server: OpenAITestServer
) -> None:
    first = chat(store, "Why do cats purr?\n\n", "--session", "ada", env=_env(server))
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        "answer to Why do cats purr?",
        f"  [1] {_source(store, 'cats.md')}",
    ]
    second = chat(store, "And dogs?\n/exit\nnever asked\n", "--session", "ada", env=_env(server))
    assert second.returncode == 0, second.stderr
    assert "resuming session 'ada' (2 messages)" in second.stderr
    assert second.stdout.splitlines() == [
        "answer to And dogs?",
        f"  [1] {_source(store, 'dogs.txt')}",
    ]
    requests = [r.body for r in server.requests_to(CHAT_PATH)]
    # turn 1: one answer call; turn 2: the question rewritten with the history, then answered
    assert len(requests) == 3
    rewrite, answer = requests[1]["messages"], requests[2]["messages"]
    assert [m["content"] for m in rewrite[1:]] == [
        "Why do cats purr?",
        "answer to Why do cats purr?",
        "And dogs?",
    ]
    assert "Dogs bark at strangers" in answer[0]["content"]
    assert [m["role"] for m in answer[1:]] == ["user", "assistant", "user"]
    with sqlite3.connect(store / "chat.sqlite") as connection:
        rows = connection.execute("SELECT session_id, message FROM message_store ORDER BY id")
        stored = [(session, json.loads(message)["data"]["content"]) for session, message in rows]
    assert stored == [
        ("ada", "Why do cats purr?"),
        ("ada", "answer to Why do cats purr?"),
        ("ada", "And dogs?"),
        ("ada", "answer to And dogs?"),
    ]


def test_sessions_are_separate_and_reset_forgets(store: Path, server: OpenAITestServer) -> None:
    assert chat(store, "Why do cats purr?\n", "--session", "a", env=_env(server)).returncode == 0
    other = chat(store, "Why do cats purr?\n", "--session", "b", env=_env(server))
    assert "resuming" not in other.stderr
    reset = chat(store, "/reset\n", "--session", "a", env=_env(server))
    assert reset.stdout == "(session 'a' forgotten)\n"
    with sqlite3.connect(store / "chat.sqlite") as connection:
        sessions = [row[0] for row in connection.execute("SELECT session_id FROM message_store")]
    assert sessions == ["b", "b"]


def test_without_a_model_it_shows_the_passages(store: Path) -> None:
    result = chat(store, "Why do cats purr?\n", env={"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""})
    assert result.returncode == 0
    assert result.stderr.strip().splitlines() == [
        "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY); showing the "
        "retrieved passages instead"
    ]
    assert result.stdout.startswith(f"[1] {_source(store, 'cats.md')}\n    # Cats")
    assert not (store / "chat.sqlite").exists() or _count(store) == 0


def test_a_failing_turn_stores_nothing_and_the_chat_goes_on(store: Path) -> None:
    with OpenAITestServer() as server:
        server.enqueue(CHAT_PATH, Reply(status=400, body={"error": {"message": "bad"}}))
        server.add_route(CHAT_PATH, _model)
        result = chat(store, "Why do cats purr?\nWhy do cats purr?\n", env=_env(server))
    assert result.returncode == 2
    assert result.stderr.count("ragline: error:") == 1
    assert "answer to Why do cats purr?" in result.stdout
    assert _count(store) == 2  # the failed turn left nothing; the second one is stored


def test_a_corrupted_chat_file_is_a_clear_error_and_left_alone(
    store: Path, server: OpenAITestServer
) -> None:
    (store / "chat.sqlite").write_bytes(b"garbage" * 100)
    result = chat(store, "Why do cats purr?\n", env=_env(server))
    assert result.returncode == 2
    assert "chat.sqlite" in result.stderr and "not a database" in result.stderr
    assert (store / "chat.sqlite").read_bytes() == b"garbage" * 100


def test_an_empty_session_name_is_refused(store: Path, server: OpenAITestServer) -> None:
    result = chat(store, "hi\n", "--session", "", env=_env(server))
    assert result.returncode == 2
    assert result.stderr.strip() == "ragline: error: session_id must be a non-empty str, got ''"


def _count(store: Path) -> int:
    with sqlite3.connect(store / "chat.sqlite") as connection:
        return int(connection.execute("SELECT COUNT(*) FROM message_store").fetchone()[0])


def _source(store: Path, name: str) -> str:
    """How ``location`` prints the one chunk of ``name``: its path relative to the indexed
    folder, and its section (issue 29: it was the absolute path and '@ 0')."""
    del store  # where the folder lies no longer shows
    return {"cats.md": "cats.md § Cats"}.get(name, name)

"""The README's examples run as written (against a local OpenAI-protocol server): the
quick example, then the chat example on the store the first one saved."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests._openai_server import CHAT_PATH, OpenAITestServer, Reply, chat_completion

README = Path(__file__).resolve().parent.parent / "README.md"


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def _run(code: str, server: OpenAITestServer, cwd: Path) -> str:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test",
        "RAGLINE_MODEL": "local-model",
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_readme_has_two_examples() -> None:
    assert len(_examples()) == 2


@pytest.mark.slow
def test_quick_example_runs(tmp_path: Path) -> None:
    quick = _examples()[0]
    with OpenAITestServer() as server:
        server.enqueue(CHAT_PATH, Reply(body=chat_completion("Several times a year.")))
        assert _run(quick, server, tmp_path) == "Several times a year. ['etna.txt']\n"
        (request,) = server.requests_to(CHAT_PATH)
    assert request.body["model"] == "local-model"
    assert (
        "Mount Etna in Sicily erupts several times a year."
        in request.body["messages"][0]["content"]
    )
    assert (tmp_path / "my-store").is_dir()


@pytest.mark.slow
def test_chat_example_runs_and_resumes(tmp_path: Path) -> None:
    """Turn 1 is answered directly; turn 2 is rewritten from the history, then answered
    from the passage the rewritten question finds; the session is in chats.db."""
    quick, chat = _examples()
    with OpenAITestServer() as server:
        server.enqueue(CHAT_PATH, Reply(body=chat_completion("Several times a year.")))
        _run(quick, server, tmp_path)
        server.enqueue(
            CHAT_PATH,
            Reply(body=chat_completion("Several times a year.")),
            Reply(body=chat_completion("Where is Mount Etna?")),
            Reply(body=chat_completion("In Sicily.")),
        )
        assert _run(chat, server, tmp_path) == "Several times a year.\nIn Sicily.\n"
        _, first, rewrite, second = [r.body["messages"] for r in server.requests_to(CHAT_PATH)]
    assert [m["role"] for m in first] == ["system", "user"]
    assert [m["content"] for m in rewrite[1:]] == [
        "How often does Etna erupt?",
        "Several times a year.",
        "And where is it?",
    ]
    assert "Mount Etna in Sicily" in second[0]["content"]
    assert second[-1] == {"role": "user", "content": "And where is it?"}
    with sqlite3.connect(tmp_path / "chats.db") as connection:
        rows = connection.execute("SELECT session_id, message FROM message_store ORDER BY id")
        stored = [(s, json.loads(m)["type"], json.loads(m)["data"]["content"]) for s, m in rows]
    assert stored == [
        ("ada", "human", "How often does Etna erupt?"),
        ("ada", "ai", "Several times a year."),
        ("ada", "human", "And where is it?"),
        ("ada", "ai", "In Sicily."),
    ]

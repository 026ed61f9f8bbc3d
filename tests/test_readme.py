"""The README: at most 200 lines, its commands and example run, its links lead somewhere;
and the two Python examples it leads to (docs/getting-started.md: the quick example,
then the chat example on the store the first one saved) run as written, against a local
OpenAI-protocol server."""

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
from tests.test_docs import blocks

REPO_ROOT = Path(__file__).resolve().parent.parent
README = REPO_ROOT / "README.md"
GETTING_STARTED = REPO_ROOT / "docs" / "getting-started.md"


def _examples() -> list[str]:
    """The Python examples of docs/getting-started.md."""
    return [
        b.code
        for b in blocks(GETTING_STARTED.read_text(encoding="utf-8"))
        if b.language == "python"
    ]


def _env(server: OpenAITestServer) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test",
        "RAGLINE_MODEL": "local-model",
    }


def _run(code: str, server: OpenAITestServer, cwd: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=_env(server),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_readme_fits_on_a_few_screens() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_the_readme_example_is_the_one_the_docs_run() -> None:
    """The README's one Python example is getting started's first, which the tests
    below run (so the README's copy cannot drift untested)."""
    readme = [b.code for b in blocks(README.read_text(encoding="utf-8")) if b.language == "python"]
    assert len(readme) == 1
    assert readme[0] == _examples()[0]
    assert len(_examples()) == 2


def test_the_readme_links_lead_to_pages_and_headings() -> None:
    """Every relative link of the README names a file of the checkout, and a
    ``#fragment`` a heading of that page (slugged as MkDocs does)."""
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#([^)]+))?\)", text)
    assert len(links) >= 15
    broken = []
    for target, fragment in links:
        if target.startswith(("http://", "https://")):
            continue
        page = REPO_ROOT / target
        if not page.is_file():
            broken.append(target)
        elif fragment:
            headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {
                re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", h).strip().lower()) for h in headings
            }
            if fragment not in slugs:
                broken.append(f"{target}#{fragment}")
    assert broken == []
    for page in [
        "docs/getting-started.md",
        "docs/cli.md",
        "docs/indexing.md",
        "docs/stores.md",
        "docs/retrieval.md",
        "docs/chains.md",
        "docs/conversations.md",
        "docs/agents.md",
        "docs/serving.md",
        "docs/ray.md",
        "docs/embeddings.md",
        "docs/evaluation.md",
        "docs/differences-from-langchain.md",
        "docs/indexing-structure.md",
        "docs/scale.md",
        "docs/hybrid-search.md",
        "docs/mcp.md",
        "docs/tracing.md",
        "docs/langchain-integrations.md",
        "docs/benchmarks.md",
        "ARCHITECTURE.md",
    ]:
        assert f"]({page}" in text, page


@pytest.mark.slow
def test_the_readme_quick_start_runs(tmp_path: Path) -> None:
    """index, query (dense and hybrid), ask and chat, as the README writes them, with the
    test server as the model (its default reply: ``echo: <the question>``)."""
    shell = [b for b in blocks(README.read_text(encoding="utf-8")) if b.language == "bash"]
    commands = "\n".join(b.code for b in shell if not b.skip_reason)
    assert [line.split()[:2] for line in commands.splitlines() if line.startswith("ragline")] == [
        ["ragline", "index"],
        ["ragline", "query"],
        ["ragline", "query"],
        ["ragline", "ask"],
    ]
    with OpenAITestServer() as server:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", commands],
            cwd=tmp_path,
            env=_env(server),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        questions = [r.body["messages"][-1]["content"] for r in server.requests_to(CHAT_PATH)]
    assert "Mount Etna in Sicily erupts several times a year." in result.stdout
    assert "Sourdough rises with a starter of wild yeast." in result.stdout
    assert "echo: How often does Etna erupt?" in result.stdout
    assert "echo: And where is it?" in result.stdout
    assert questions[0] == "How often does Etna erupt?"  # ask
    assert (tmp_path / "kb" / "chat.sqlite").is_file()  # chat kept the conversation


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

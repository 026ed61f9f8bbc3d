"""``ragline`` command-line stumbles (issue 29): what a user or a script is told when the
input matches nothing, no model answers, or a flag is named in a message."""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ragline.cli import main
from tests._openai_server import CHAT_PATH, OpenAITestServer, Reply, chat_completion_chunks

FILES = {
    "library/csv.html": "<h1>csv</h1><p>Read and write comma separated values files.</p>",
    "library/json.html": "<h1>json</h1><p>Encode and decode JSON documents.</p>",
    "admin/server.txt": "To restart the server run pg_ctl restart with the data directory.",
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    folder = tmp_path / "store"
    assert main(["index", str(root), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    return folder


def run_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command in a subprocess, with no chat model configured unless ``env`` sets one."""
    return subprocess.run(
        [sys.executable, "-m", "ragline.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", **env},
        check=False,
    )


def _eval(store: Path, tmp_path: Path, qrels: str) -> subprocess.CompletedProcess[str]:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\trestart the server\nq2\tcomma separated values\n")
    judged = tmp_path / "qrels.tsv"
    judged.write_text(qrels)
    return run_cli("eval", "--store", str(store), "--queries", str(queries),
                   "--qrels", str(judged), "--search-type", "bm25", "--json", "-q")  # fmt: skip


def test_eval_names_qrels_ids_that_match_no_stored_document(store: Path, tmp_path: Path) -> None:
    """Ids written as absolute paths (or with another extension) matched nothing: the run
    printed 0.000 everywhere and exited 0."""
    looks = "stored ids look like 'admin/server.txt', 'library/csv.html', 'library/json.html'"
    none = _eval(store, tmp_path, "q1 0 /docs/admin/server.txt 1\nq2 0 csv.htm 1\n")
    assert (none.returncode, none.stdout) == (2, "")
    assert none.stderr == (
        "ragline: error: 2 of the 2 document ids in the qrels match no chunk's 'path' "
        f"metadata in the store ('/docs/admin/server.txt', 'csv.htm'); {looks}; every "
        "score would be 0 (check --qrels and --id-key)\n"
    )
    some = _eval(store, tmp_path, "q1 0 admin/server.txt 1\nq2 0 csv.htm 1\n")
    assert some.returncode == 0
    assert some.stderr == (
        "ragline: warning: 1 of the 2 document ids in the qrels match no chunk's 'path' "
        f"metadata in the store ('csv.htm'); {looks}\n"
    )
    (summary,) = json.loads(some.stdout)
    assert (summary["recall@10"], summary["queries"]) == (0.5, 2)


def test_ask_without_a_model_exits_3_and_its_json_answer_is_null(store: Path) -> None:
    """A script could not tell passages shown for want of a model from an answer: both
    exited 0."""
    shown = run_cli("ask", "restart the server", "--store", str(store), "-k", "1")
    assert shown.returncode == 3
    assert shown.stdout.splitlines()[0] == "[1] admin/server.txt"
    as_json = run_cli("ask", "restart the server", "--store", str(store), "-k", "1", "--json")
    assert as_json.returncode == 3
    printed = json.loads(as_json.stdout)
    assert (printed["question"], printed["answer"]) == ("restart the server", None)
    assert [(row["rank"], row["metadata"]["path"]) for row in printed["sources"]] == [
        (1, "admin/server.txt")
    ]
    assert printed["sources"][0]["content"] == FILES["admin/server.txt"]
    help_text = " ".join(run_cli("ask", "--help").stdout.split())
    assert (
        "exit status: 0 answered; 3 no chat model answered (none configured, or the server "
        "has none), so the retrieved passages were shown instead (with --json: "
        '"answer": null); 2 an error'
    ) in help_text


def test_ask_json_with_a_model_holds_the_answer_and_exits_0(store: Path) -> None:
    with OpenAITestServer() as server:
        server.enqueue(CHAT_PATH, Reply(events=chat_completion_chunks(["Run ", "pg_ctl."])))
        model = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test"}
        result = run_cli("ask", "restart the server", "--store", str(store), "-k", "1", "--json",
                         **model)  # fmt: skip
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert printed["answer"] == "Run pg_ctl."
    assert [row["metadata"]["path"] for row in printed["sources"]] == ["admin/server.txt"]


def test_model_option_has_help_text() -> None:
    """``ask --help`` listed ``--model MODEL`` with no text."""
    help_text = " ".join(run_cli("ask", "--help").stdout.split())
    assert (
        "--model NAME the chat model's name at the OpenAI-protocol server set by "
        "$OPENAI_BASE_URL / $OPENAI_API_KEY (default: $RAGLINE_MODEL, else gpt-4o-mini)"
    ) in help_text


@pytest.mark.parametrize("text", ["", "  \t "])
def test_an_empty_query_or_question_is_refused(
    store: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ragline query ""`` searched for the empty string and printed arbitrary chunks."""
    assert main(["query", text, "--store", str(store), "-q"]) == 2
    assert capsys.readouterr() == (
        "",
        f"ragline: error: the query text is empty ({text!r}); give the words to search for\n",
    )
    assert main(["ask", text, "--store", str(store), "-q"]) == 2
    assert capsys.readouterr() == (
        "",
        f"ragline: error: the question is empty ({text!r}); give the question to answer\n",
    )


HOLD_THE_LOCK = """
import sys
from ragline.store_folder import StoreFolder
with StoreFolder(sys.argv[1]).writer(embedding="hashing") as writer:
    print("locked", flush=True)
    sys.stdin.read()  # held until the test closes stdin
"""


def test_the_lock_message_names_the_wait_flag(store: Path, tmp_path: Path) -> None:
    """From the command line the message named ``index_paths(..., wait=SECONDS)``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_LOCK, str(store)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        result = run_cli("index", str(tmp_path / "docs"), "--store", str(store), "-q")
    finally:
        holder.communicate("")
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"ragline: error: {store} is being written by another ragline process (pid {holder.pid} "
    )
    assert line.endswith("; wait for it to finish, or pass --wait SECONDS to wait for it")
    assert "wait=" not in line


def test_an_unreachable_openai_api_is_named_in_a_sentence(store: Path) -> None:
    """With an API key and no base URL the message read "cannot reach the chat completions
    endpoint the OpenAI API". The OpenAI API is reached through a proxy on a closed
    loopback port here, so the connection fails on this machine."""
    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        proxy = f"http://127.0.0.1:{probe.getsockname()[1]}"
        env = {name: value for name, value in os.environ.items()
               if name.upper() not in ("OPENAI_BASE_URL", "NO_PROXY", "ALL_PROXY")}  # fmt: skip
        env.update(OPENAI_API_KEY="sk-bogus", HTTPS_PROXY=proxy, https_proxy=proxy)
        result = subprocess.run(
            [sys.executable, "-m", "ragline.cli", "ask", "why?", "--store", str(store)],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )  # fmt: skip
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "ragline: error: cannot reach the OpenAI API's chat completions endpoint: "
        "[Errno 111] Connection refused\n"
    )


def _synopsis_by_command(synopsis: str) -> dict[str, str]:
    """The synopsis's lines per sub-command: a line ``ragline NAME ...`` (or
    ``ragline query|ask|chat ...``) and the indented lines under it (``ragline --version``
    names no command); a command whose lines
    say ``(and query's search options)`` gets query's lines too."""
    blocks: dict[str, str] = {}
    names: list[str] = []
    for line in synopsis.splitlines():
        if line.startswith("ragline "):
            names = [name for name in line.split()[1].split("|") if not name.startswith("-")]
        elif not line.startswith(" "):
            names = []
        for name in names:
            blocks[name] = blocks.get(name, "") + line + "\n"
    for name, block in blocks.items():
        if "(and query's search options)" in block:
            blocks[name] = block + blocks["query"]
    return blocks


def test_the_readme_synopsis_lists_every_option() -> None:
    """The synopsis of ``ragline`` (the README's, now docs/cli.md's) lacked ``--width``
    (query, ask, chat), then ``mcp`` and ``serve --mcp``, ``serve --embedding``, ``index
    --device`` and ``--index``. Every sub-command's options are read from its parser and
    looked for in that command's own lines (``-h/--help`` and ``-q/--quiet``, which every
    command takes, excepted); an option given as ``-k`` or ``--name`` counts once."""
    from ragline.cli import build_parser

    cli = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    start = cli.index("```text\n", cli.index("## Synopsis"))
    synopsis = cli[start + len("```text\n") : cli.index("\n```", start + 1)]
    blocks = _synopsis_by_command(synopsis)
    choices = next(action for action in build_parser()._actions if action.dest == "command").choices
    assert isinstance(choices, dict)
    commands: dict[str, argparse.ArgumentParser] = choices
    assert sorted(blocks) == sorted(commands)

    def named(flag: str, text: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None

    missing = {
        name: [
            "/".join(action.option_strings)
            for action in parser._actions
            if action.option_strings
            and not {"--help", "--quiet"} & set(action.option_strings)
            and not any(named(flag, blocks[name]) for flag in action.option_strings)
        ]
        for name, parser in commands.items()
    }
    assert missing == {name: [] for name in commands}
    assert "ragline port FILE... [--diff]" in synopsis
    assert "ragline mcp --store DIR " in synopsis


def test_the_synopsis_check_finds_a_missing_option() -> None:
    """The check above splits the synopsis per command: ``--mcp`` named on ``serve``'s
    line does not count for ``mcp``, and ``-k`` is not found inside ``--fetch-k``."""
    blocks = _synopsis_by_command(
        'ragline query "text" --store DIR [--fetch-k N]\n'
        "                      [--json]\n"
        "ragline chat --store DIR   (and query's search options)\n"
        "ragline serve --store DIR [--mcp]\n"
        "ragline mcp --store DIR\n"
        "ragline query|chat ... --server URL\n"
        "ragline --version\n"
    )
    assert sorted(blocks) == ["chat", "mcp", "query", "serve"]
    assert "--mcp" not in blocks["mcp"]
    assert "--json" in blocks["chat"] and "--server" in blocks["chat"]
    assert "--server" not in blocks["serve"]

"""``ragline serve`` as a user runs it, and ``query`` / ``ask`` / ``chat --server`` against
it: real processes, real HTTP on loopback, the local OpenAI-protocol server as the model."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._openai_server import (
    CHAT_PATH,
    OpenAITestServer,
    RecordedRequest,
    Reply,
    chat_completion,
    chat_completion_chunks,
)

pytestmark = pytest.mark.network


def _model(request: RecordedRequest) -> Reply:
    """Answers 'answer to <question>', streamed word by word when asked to stream."""
    words = f"answer to {request.body['messages'][-1]['content']}".split(" ")
    if request.body.get("stream"):
        return Reply(events=chat_completion_chunks([words[0], *(" " + w for w in words[1:])]))
    return Reply(body=chat_completion(" ".join(words)))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServeProcess:
    """``ragline serve`` in a subprocess, stopped (SIGINT, then SIGKILL) at the end."""

    def __init__(self, store: Path, env: dict[str, str], *args: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "ragline.cli", "serve", "--store", str(store),
                   "--port", str(self.port), *args]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"ragline serve exited: {self.process.communicate()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code in (200, 401):
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError("ragline serve did not start in 120 s")

    def stop(self) -> tuple[str, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.communicate()


@pytest.fixture(scope="module")
def model() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        running.add_route(CHAT_PATH, _model)
        yield running


@pytest.fixture(scope="module")
def served(store_folder: Path, model: OpenAITestServer) -> Iterator[ServeProcess]:
    env = {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "test"}
    process = ServeProcess(store_folder, env, "-k", "1")
    yield process
    process.stop()


def run_cli(*args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragline.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", **env},
        check=False,
    )


def test_query_through_the_server_prints_what_a_local_query_prints(
    served: ServeProcess, store_folder: Path
) -> None:
    for options in ([], ["--json"], ["--search-type", "mmr", "-k", "2"], ["-k", "3"]):
        local = run_cli("query", "volcano", "--store", str(store_folder), *options)
        remote = run_cli("query", "volcano", "--server", served.url, *options)
        assert remote.returncode == local.returncode == 0, remote.stderr
        assert remote.stdout == local.stdout
    by_env = run_cli("query", "volcano", RAGLINE_SERVER=served.url)
    assert by_env.stdout == run_cli("query", "volcano", "--store", str(store_folder)).stdout


def test_ask_through_the_server_streams_the_answer_and_sources(
    served: ServeProcess, store_folder: Path
) -> None:
    result = run_cli("ask", "Which volcano is largest?", "--server", served.url, "-k", "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "answer to Which volcano is largest?",
        "",
        "sources:",
        "  [1] mars.txt",  # relative to the indexed folder, no character offset
    ]


def test_chat_through_the_server_keeps_the_session(served: ServeProcess) -> None:
    result = run_cli("chat", "--server", served.url, "-k", "1",
                     stdin="Tell me about Mars\nAnd its volcano?\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("(session ")  # issued by the server
    unissued = run_cli("chat", "--server", served.url, "--session", "cli", stdin="Hi\n")
    assert unissued.returncode == 2 and "unknown session_id" in unissued.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "answer to Tell me about Mars"
    assert lines[2].startswith("answer to ")  # the rewritten follow-up, answered
    assert len(lines) == 4


def test_server_errors_are_one_line(served: ServeProcess, store_folder: Path) -> None:
    both = run_cli("query", "x", "--store", str(store_folder), "--server", served.url)
    assert (both.returncode, both.stderr) == (
        2,
        "ragline: error: give --store or --server, not both\n",
    )
    dead = f"http://127.0.0.1:{_free_port()}"
    gone = run_cli("query", "x", "--server", dead)
    assert gone.returncode == 2
    assert gone.stderr.startswith(f"ragline: error: cannot reach {dead}/healthz")
    bad = run_cli("query", "x", "--server", served.url, "--filter", '{"source": {"$regex": 1}}')
    assert bad.returncode == 2
    assert "answered 422: unknown filter operator '$regex'" in bad.stderr
    neither = run_cli("query", "x", RAGLINE_SERVER="")
    assert "--store DIR is required (or --server URL, or set RAGLINE_SERVER)" in neither.stderr


def test_serve_without_a_model_answers_with_passages(store_folder: Path) -> None:
    process = ServeProcess(store_folder, {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""})
    try:
        result = run_cli("ask", "volcano?", "--server", process.url, "-k", "1")
        chats = [
            run_cli("chat", "--server", process.url, "-k", "1", *session, stdin="volcano?\ntides\n")
            for session in ([], ["--session", "mine"])
        ]
    finally:
        _, stderr = process.stop()
    # chat --server shows the passages as chat --store and ask --server do (issue 29: 503)
    for chat in chats:
        assert chat.returncode == 0, chat.stderr
        assert chat.stderr.count("showing the retrieved passages instead") == 1
        assert "answered 503: no chat model configured" in chat.stderr
        lines = chat.stdout.splitlines()
        assert [line for line in lines if line.startswith("[1] ")] == [
            "[1] mars.txt",
            "[1] moon.txt",
        ]
    assert "no chat model configured" in stderr  # the server's warning at start
    assert result.returncode == 3  # passages, no answer
    assert "answered 503: no chat model configured" in result.stderr
    assert result.stdout.splitlines()[0].startswith("[1] ")
    assert result.stdout.splitlines()[0] == "[1] mars.txt"


def _non_loopback_address() -> str | None:
    """This machine's address on its outward interface (a UDP connect sends nothing; it
    only picks the route), or None when it has only loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_serve_binds_to_loopback_by_default(served: ServeProcess) -> None:
    """Started without --host, the server answers on 127.0.0.1 and refuses connections
    to the machine's other address."""
    address = _non_loopback_address()
    if address is None:
        pytest.skip("this machine has no address besides loopback")
    assert httpx.get(served.url + "/healthz", timeout=5).status_code == 200
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((address, served.port), timeout=5).close()


def test_serve_takes_the_chain_type(store_folder: Path) -> None:
    process = ServeProcess(store_folder, {"OPENAI_BASE_URL": ""}, "--chain", "refine")
    try:
        health = httpx.get(process.url + "/healthz", timeout=5).json()
    finally:
        process.stop()
    assert health["chain_type"] == "refine"
    bad = run_cli("serve", "--store", str(store_folder), "--chain", "stuf")
    assert bad.returncode == 2
    assert "invalid choice: 'stuf'" in bad.stderr


def test_serve_needs_the_api_key_it_was_given(store_folder: Path) -> None:
    process = ServeProcess(store_folder, {"RAGLINE_API_KEY": "k-9", "OPENAI_BASE_URL": ""})
    try:
        refused = run_cli("query", "volcano", "--server", process.url)
        allowed = run_cli("query", "volcano", "--server", process.url, RAGLINE_API_KEY="k-9")
    finally:
        process.stop()
    assert refused.returncode == 2 and "answered 401: missing or wrong API key" in refused.stderr
    assert allowed.returncode == 0 and "\n[1]  score " in allowed.stdout


def test_serve_on_a_public_address_without_a_key_warns_and_checks_host(
    store_folder: Path,
) -> None:
    process = ServeProcess(store_folder, {"RAGLINE_API_KEY": "", "OPENAI_BASE_URL": ""},
                           "--host", "0.0.0.0", "--allowed-host", "rag.example")  # fmt: skip
    try:
        named = httpx.get(process.url + "/healthz", headers={"Host": "rag.example:8000"})
        other = httpx.get(process.url + "/healthz", headers={"Host": "evil.example"})
    finally:
        _, stderr = process.stop()
    assert (named.status_code, other.status_code) == (200, 400)
    assert "serving on 0.0.0.0, reachable from other machines, without an API key" in stderr


def test_serve_on_a_busy_port_or_a_missing_store_is_one_error_line(
    store_folder: Path, tmp_path: Path
) -> None:
    """A busy port printed "serving on ..." and then uvicorn's own error; a missing store
    folder printed the no-model warning before the real error."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--store", str(store_folder), "--port", str(port))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"ragline: error: cannot serve on 127.0.0.1:{port}: Address already in use; stop "
        "what uses it or pick another --port (or --host)\n"
    )
    missing = tmp_path / "nowhere"
    result = run_cli("serve", "--store", str(missing))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"ragline: error: {missing}: not a ragline store (no ragline.json); run 'ragline "
        "index' first\n"
    )

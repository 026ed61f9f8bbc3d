"""Clients against a wrong or hostile server (issue 31): an HTML page, a redirect, an
endless body, a huge Content-Length, 10,000 headers. ``ragline query --server``, the
command line's socket client and ``RemoteRunnable`` each give one ServerError naming the
URL and what was wrong (the command: one line, exit status 2), never a traceback, a
JSONDecodeError or a MemoryError. The servers are real sockets on free loopback ports."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterator

import pytest

from ragline.cli import main
from ragline.core.exceptions import InvalidInputError, RaglineError, ServerError
from ragline.serve import RemoteRunnable, _light

from .test_light_client import RawServer, Script, answer


@pytest.fixture
def serve() -> Iterator[Callable[[Script], RawServer]]:
    servers: list[RawServer] = []

    def start(script: Script) -> RawServer:
        servers.append(RawServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


HTML = b"<!doctype html><html><body>Welcome to nginx!</body></html>"


def _endless(connection: socket.socket, request: bytes) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
    piece = b"1," * 32_768
    while True:  # until the client hangs up (OSError, suppressed by RawServer)
        connection.sendall(piece)


def _huge_length(connection: socket.socket, request: bytes) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 10000000000000\r\n\r\n[1,")
    connection.recv(1)  # hold the connection until the client closes it


CASES = {
    "html": (
        answer(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s"
            % (len(HTML), HTML)
        ),
        "answered 200 with text/html, not JSON (it starts b'<!doctype html><html><body>Welcome "
        "to ng'); is it a ragline server URL?",
    ),
    "redirect": (
        answer(
            b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/elsewhere\r\n"
            b"Content-Length: 0\r\n\r\n"
        ),
        "answered 307, a redirect to http://127.0.0.1:9/elsewhere; ragline clients do not "
        "follow redirects: give the final URL",
    ),
    "endless": (
        _endless,
        "sent an answer over 1000000 bytes (the client's max_response_bytes); is it a "
        "ragline server?",
    ),
    "huge-length": (
        _huge_length,
        "sent an answer over 1000000 bytes (the client's max_response_bytes); is it a "
        "ragline server?",
    ),
    "headers": (
        answer(
            b"HTTP/1.1 200 OK\r\n" + b"X-Filler: x\r\n" * 10_000 + b"Content-Length: 2\r\n\r\n[]"
        ),
        "sent more than 100 headers (the client's max_response_headers); is it a ragline server?",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_socket_client_names_the_url_and_the_problem(serve, case):
    script, problem = CASES[case]
    server = serve(script)
    url = f"{server.url}/retrieve/invoke"
    with pytest.raises(ServerError) as caught:
        _light.post(url, {"input": "x"}, timeout=5, max_response_bytes=1_000_000)
    assert str(caught.value) == f"{url} {problem}"
    with pytest.raises(ServerError) as caught:
        list(_light.stream(url, {"input": "x"}, timeout=5, max_response_bytes=1_000_000))
    assert str(caught.value).startswith(url)


@pytest.mark.parametrize("case", list(CASES))
def test_remote_runnable_names_the_url_and_the_problem(serve, case):
    script, problem = CASES[case]
    server = serve(script)
    remote = RemoteRunnable(f"{server.url}/ask", timeout=5, max_response_bytes=1_000_000)
    # httpx's own parser may refuse 10,000 header lines before they are counted
    refused = (problem, "broke the HTTP protocol (Receive buffer too long); is it a ragline")
    with pytest.raises(RaglineError) as caught:
        remote.invoke("x")
    assert str(caught.value).startswith(f"{server.url}/ask/invoke ")
    assert any(words in str(caught.value) for words in refused)
    with pytest.raises(RaglineError) as caught:
        asyncio.run(remote.ainvoke("x"))
    assert any(words in str(caught.value) for words in refused)
    with pytest.raises(RaglineError) as caught:
        list(remote.stream("x"))
    assert str(caught.value).startswith(f"{server.url}/ask/stream ")
    remote.close()


@pytest.mark.parametrize("case", list(CASES))
def test_ragline_query_server_prints_one_line_and_exits_2(serve, case, capsys):
    script, problem = CASES[case]
    server = serve(script)
    assert main(["query", "cats", "--server", server.url]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"ragline: error: {server.url}/")
    if case in ("endless", "huge-length"):  # the default limit, 64 MiB
        problem = problem.replace("1000000", str(64 * 1024 * 1024))
    assert line.endswith(problem)
    assert captured.out == ""


def test_the_limits_are_checked():
    with pytest.raises(InvalidInputError, match="max_response_bytes must be an int >= 1, got 0"):
        RemoteRunnable("http://127.0.0.1:9/ask", max_response_bytes=0)

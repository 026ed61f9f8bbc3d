"""Stalled connections are closed (issue 31): a connection that stays silent, drips
its headers or trickles its body is closed within the configured timeout; the number
of connections is capped. Raw sockets against a real server on loopback, with short
timeouts."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragline.serve import BackgroundServer, create_store_app

pytestmark = pytest.mark.network
HEADER_TIMEOUT, BODY_TIMEOUT = 1.0, 1.5
# how late the server may close a connection: wide enough for a loaded machine's event
# loop, short of what would close it anyway (uvicorn's 5 s keep-alive, the default
# timeouts of 10 s and 30 s), so a timeout that is not applied still fails
LATE = 3.0


@pytest.fixture(scope="module")
def server(store_folder: Path) -> Iterator[BackgroundServer]:
    app = create_store_app(store_folder)
    with BackgroundServer(app, header_timeout=HEADER_TIMEOUT, body_timeout=BODY_TIMEOUT,
                          max_connections=20) as running:  # fmt: skip
        yield running


def _open(server: BackgroundServer) -> socket.socket:
    connection = socket.create_connection((server.host, server.port), timeout=10)
    connection.settimeout(0.05)
    return connection


def _closed_after(
    connection: socket.socket, drip: bytes, limit: float, since: float
) -> tuple[float, bytes]:
    """Send ``drip`` a byte every 0.1 s until the server closes the connection (or
    ``limit`` s pass); the seconds it took since ``since`` (a ``time.monotonic()`` taken
    before the server's clock can have started: a loaded client may read its own clock
    late) and what the server sent."""
    started, received, position = since, b"", 0
    while time.monotonic() - started < limit:
        try:
            chunk = connection.recv(4096)
            if not chunk:
                return time.monotonic() - started, received
            received += chunk
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - started, received
        if position < len(drip):
            try:
                connection.sendall(drip[position : position + 1])
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - started, received
            position += 1
            time.sleep(0.05)
    return time.monotonic() - started, received


def test_a_silent_connection_is_closed(server: BackgroundServer) -> None:
    opened = time.monotonic()
    with _open(server) as connection:
        seconds, received = _closed_after(connection, b"", limit=10, since=opened)
    assert received == b"" and HEADER_TIMEOUT - 0.2 < seconds < HEADER_TIMEOUT + LATE


def test_dripped_headers_are_cut_off(server: BackgroundServer) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    opened = time.monotonic()
    with _open(server) as connection:
        seconds, received = _closed_after(connection, head, limit=10, since=opened)
    assert received == b"" and seconds < HEADER_TIMEOUT + LATE


def test_a_trickled_body_gets_408_and_is_closed(server: BackgroundServer) -> None:
    head = (b"POST /retrieve/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n")  # fmt: skip
    with _open(server) as connection:
        sent = time.monotonic()
        connection.sendall(head)
        seconds, received = _closed_after(connection, b'{"input": "' + b"x" * 380, limit=10,
                                          since=sent)  # fmt: skip
    assert received.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert received.endswith(b'the request body did not arrive in time; the connection is closed"}')
    assert BODY_TIMEOUT - 0.2 < seconds < BODY_TIMEOUT + LATE


def test_an_idle_keep_alive_connection_is_closed(server: BackgroundServer) -> None:
    with _open(server) as connection:
        sent = time.monotonic()
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        seconds, received = _closed_after(connection, b"", limit=10, since=sent)
    assert received.startswith(b"HTTP/1.1 200 OK") and seconds < HEADER_TIMEOUT + LATE


def test_many_stalled_connections_are_all_closed_and_the_server_answers(
    server: BackgroundServer,
) -> None:
    """40 silent connections (twice the cap): requests meanwhile get an answer (503
    over the cap), and every stalled one is closed within the timeout."""
    stalled = [_open(server) for _ in range(40)]
    try:
        answered = httpx.get(server.url + "/healthz", timeout=10).status_code
        assert answered in (200, 503)
        deadline = time.monotonic() + HEADER_TIMEOUT + LATE  # all were opened before
        for connection in stalled:
            connection.settimeout(max(0.01, deadline - time.monotonic()))
            with contextlib.suppress(ConnectionResetError):
                assert connection.recv(1) == b""
        assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    finally:
        for connection in stalled:
            connection.close()

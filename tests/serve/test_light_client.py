"""The command line's socket client (``ragline.serve._light``) against a loopback server
that answers with exact bytes: every way HTTP/1.1 delimits a body, streaming as it
arrives, errors, timeouts and broken answers."""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from ragline.core import Document
from ragline.core.exceptions import ServerError, ServerTimeoutError, StoreConnectionError
from ragline.serve import _light

Script = Callable[[socket.socket, bytes], None]


class RawServer:
    """Accepts connections on a free loopback port; each is handed, with the request it
    sent (head and body), to ``script``, which writes the answer."""

    def __init__(self, script: Script, tls: ssl.SSLContext | None = None) -> None:
        self.script = script
        self.tls = tls
        self.requests: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                if self.tls is not None:
                    try:
                        connection = self.tls.wrap_socket(connection, server_side=True)
                    except (OSError, ssl.SSLError):
                        continue  # the client refused the certificate
                request = self._read_request(connection)
                self.requests.append(request)
                with contextlib.suppress(OSError):  # the client went away
                    self.script(connection, request)

    @staticmethod
    def _read_request(connection: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            data += connection.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ),
            0,
        )
        while len(body) < length:
            body += connection.recv(65536)
        return head + b"\r\n\r\n" + body

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    def start(script: Script, tls: ssl.SSLContext | None = None) -> RawServer:
        servers.append(RawServer(script, tls))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def answer(raw: bytes) -> Script:
    return lambda connection, request: connection.sendall(raw)


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def test_post_sends_one_json_request_and_reads_a_content_length_body(serve):
    body = b'{"output": [{"type": "Document", "page_content": "Etna", "metadata": {"k": 1}}]}'
    server = serve(answer(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)))

    result = _light.post(f"{server.url}/retrieve/invoke", {"input": "lava"}, headers={"X-Key": "7"})

    assert result == {"output": [Document("Etna", metadata={"k": 1})]}
    head, _, sent = server.requests[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /retrieve/invoke HTTP/1.1"
    assert set(lines[1:]) == {
        b"Host: 127.0.0.1:%d" % server.port,
        b"Accept: application/json, text/event-stream",
        b"Connection: close",
        b"Content-Type: application/json",
        b"X-Key: 7",
        b"Content-Length: %d" % len(sent),
    }
    assert sent == b'{"input":"lava"}'


def test_get_reads_a_chunked_body_and_skips_informational_answers(serve):
    server = serve(
        answer(
            b"HTTP/1.1 100 Continue\r\n\r\n"
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b'5;ext=1\r\n{"a":\r\n'
            + b"3\r\n 1}\r\n0\r\nX-Trailer: t\r\n\r\n"
        )
    )
    assert _light.get(f"{server.url}/healthz?verbose=1") == {"a": 1}
    assert server.requests[0].startswith(b"GET /healthz?verbose=1 HTTP/1.1\r\n")
    assert b"Content-Length" not in server.requests[0]


def test_a_body_delimited_by_the_server_closing(serve):
    server = serve(answer(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[1, 2]"))
    assert _light.get(server.url) == [1, 2]
    assert server.requests[0].startswith(b"GET / HTTP/1.1\r\n")


def test_stream_yields_each_item_before_the_server_sends_the_next(serve):
    first_seen = threading.Event()
    went_on = []

    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        # the first event split over two chunks, in the middle of a line
        connection.sendall(
            chunked(b'event: metadata\r\ndata: {"run_id": "r"}\r\n\r\nevent: da')[:-5]
        )
        connection.sendall(chunked(b'ta\r\ndata: "Etna "\r\n\r\n')[:-5])
        went_on.append(first_seen.wait(10))
        connection.sendall(chunked(b'event: data\r\ndata: "erupts"\r\n\r\n', b"event: end\r\n\r\n"))

    server = serve(script)
    items = []
    for item in _light.stream(f"{server.url}/ask/stream", {"input": "x"}):
        items.append(item)
        first_seen.set()
    assert items == ["Etna ", "erupts"]
    assert went_on == [True]  # the first item arrived while the server still held the rest


def test_an_error_status_raises_the_servers_message(serve):
    detail = b'{"detail": "input.query: field required"}'
    server = serve(
        answer(
            b"HTTP/1.1 422 Unprocessable\r\nContent-Length: %d\r\n\r\n%s" % (len(detail), detail)
        )
    )
    with pytest.raises(ServerError) as caught:
        _light.post(f"{server.url}/retrieve/invoke", {"input": {}})
    assert caught.value.status_code == 422
    assert str(caught.value) == (
        f"{server.url}/retrieve/invoke answered 422: input.query: field required"
    )


def test_an_error_event_mid_stream_raises_it(serve):
    events = (
        b'event: data\r\ndata: "half"\r\n\r\n'
        b'event: error\r\ndata: {"status_code": 500, "message": "model fell over"}\r\n\r\n'
    )
    server = serve(
        answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(events))
    )
    got = []
    with pytest.raises(ServerError, match=r"failed while streaming \(500\): model fell over"):
        for item in _light.stream(f"{server.url}/ask/stream", {"input": "x"}):
            got.append(item)
    assert got == ["half"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"a"', "closed the connection mid-answer"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size b'zz'"),
        (b"SSH-2.0-OpenSSH_9.2\r\n", "did not answer in HTTP (got b'SSH-2.0-OpenSSH_9.2\\r\\n')"),
        (b"HTTP/1.1 200 OK\r\nContent-Le", "closed the connection mid-answer"),
        (b"", "did not answer in HTTP (got b'nothing')"),
    ],
)
def test_a_broken_answer_is_a_connection_error_naming_the_url(serve, raw, message):
    server = serve(answer(raw))
    with pytest.raises(StoreConnectionError) as caught:
        _light.get(f"{server.url}/healthz")
    assert str(caught.value).startswith(f"{server.url}/healthz ")
    assert message in str(caught.value)


def test_a_server_that_never_answers_times_out(serve):
    release = threading.Event()
    server = serve(lambda connection, request: release.wait(10))
    try:
        with pytest.raises(ServerTimeoutError, match=r"/healthz did not answer within 0.2 s"):
            _light.get(f"{server.url}/healthz", timeout=0.2)
    finally:
        release.set()


def test_a_closed_port_is_a_connection_error_naming_the_url():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nothing listens once it is closed
    url = f"http://127.0.0.1:{port}/healthz"
    with pytest.raises(StoreConnectionError, match=rf"^cannot reach {url}: "):
        _light.get(url)


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        (
            "http://127.0.0.1:8000/ask/stream",
            ("http", "127.0.0.1", 8000, "/ask/stream", "127.0.0.1:8000"),
        ),
        ("HTTP://example.org", ("http", "example.org", 80, "/", "example.org")),
        ("https://example.org/x?q=1#top", ("https", "example.org", 443, "/x?q=1", "example.org")),
        ("http://[::1]:9000/healthz", ("http", "::1", 9000, "/healthz", "[::1]:9000")),
        ("http://user:pw@host:81/", ("http", "host", 81, "/", "host:81")),
        ("http://host?a=b", ("http", "host", 80, "/?a=b", "host")),
    ],
)
def test_urls_are_split_into_host_port_and_target(url, parts):
    assert _light._split_url(url) == parts


@pytest.mark.parametrize(
    "url", ["ftp://host/", "127.0.0.1:8000", "http://", "http://host:port/", "http://host:70000/"]
)
def test_a_bad_url_is_refused_before_connecting(url):
    with pytest.raises(StoreConnectionError, match="not an http\\(s\\) server URL"):
        _light.get(url)


def test_a_header_with_a_line_break_is_refused(serve):
    server = serve(answer(b"HTTP/1.1 204 No Content\r\n\r\n"))
    with pytest.raises(StoreConnectionError, match="header 'X-API-Key' holds a line break"):
        _light.get(server.url, headers={"X-API-Key": "k\r\nX-Admin: 1"})
    assert server.requests == []


def test_the_client_imports_no_http_library():
    code = (
        "import sys; import ragline.serve._light; "
        "print(sorted(m for m in ('http.client', 'email.parser', 'ssl', 'httpx', 'urllib.request') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_a_stream_reset_midway_is_a_connection_error_after_the_items_so_far(serve):
    """The server resets the connection once the client has the first item (a reset
    drops what the client has not read yet: after a fixed pause, a loaded client could
    still be short of it)."""
    first_read = threading.Event()

    def script(connection: socket.socket, request: bytes) -> None:
        connection.sendall(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunked(b'event: data\r\ndata: "one"\r\n\r\n')[:-5]
        )
        first_read.wait(30)  # the client reads the first item, then waits for more
        # close with a reset (linger 0), as a crashed server or a proxy would
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    server = serve(script)
    got = []
    with pytest.raises(StoreConnectionError) as caught:
        for item in _light.stream(f"{server.url}/ask/stream", {"input": "x"}):
            got.append(item)
            first_read.set()
    assert got == ["one"]
    assert str(caught.value).startswith(f"{server.url}/ask/stream broke off its stream: ")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate for localhost (openssl, from Debian's package)."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = str(folder / "cert.pem"), str(folder / "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", key, "-out", cert, "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def test_https_is_spoken_over_tls_and_checks_the_certificate(serve, certificate, monkeypatch):
    cert, key = certificate
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    server = serve(answer(b'HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{"ok": true}'), tls)
    url = f"https://localhost:{server.port}/healthz"

    with pytest.raises(StoreConnectionError, match=rf"^cannot reach {url}: .*CERTIFICATE_VERIFY"):
        _light.get(url)  # a certificate no authority this machine trusts signed

    monkeypatch.setenv("SSL_CERT_FILE", cert)  # now trusted: OpenSSL reads it per context
    assert _light.get(url) == {"ok": True}
    assert server.requests[-1].startswith(b"GET /healthz HTTP/1.1\r\nHost: localhost:")

"""Shared fixtures for the loader tests: a local HTTP server and a hand-made PDF."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Route:
    """What the test server answers for one path."""

    body: bytes = b""
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    # before the delay: wait until this says True (checked every 10 ms, 30 s at most)
    until: Callable[[], bool] | None = None
    send_length: bool = True  # False: no Content-Length, the body ends when the connection closes


@dataclass
class Server:
    """A real HTTP server on 127.0.0.1 with a free port, recording what it saw."""

    base_url: str
    routes: dict[str, Route]
    arrivals: list[tuple[str, float]] = field(default_factory=list)
    request_headers: list[dict[str, str]] = field(default_factory=list)
    active: int = 0
    peak: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str) -> str:
        return self.base_url + path


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:
            counted = True
            with server.lock:
                server.arrivals.append((self.path, time.monotonic()))
                server.request_headers.append(dict(self.headers))
                server.active += 1
                server.peak = max(server.peak, server.active)
            try:
                route = server.routes.get(self.path)
                if route is None:
                    route = Route(b"<h1>Not here</h1>", status=404)
                if route.until is not None:
                    deadline = time.monotonic() + 30
                    while not route.until() and time.monotonic() < deadline:
                        if server.stopping.wait(0.01):
                            break
                if route.delay:
                    server.stopping.wait(route.delay)
                # The request stops counting as active before the reply goes out: once
                # the client has the reply it may start its next request at once, before
                # this thread would get to the `finally` below.
                with server.lock:
                    server.active -= 1
                    counted = False
                self.send_response(route.status)
                if route.content_type is not None:
                    self.send_header("Content-Type", route.content_type)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if route.send_length:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test)
            finally:
                if counted:
                    with server.lock:
                        server.active -= 1

    return Handler


@pytest.fixture
def http_server() -> Iterator[Server]:
    """Serve ``server.routes`` on 127.0.0.1 (a free port) for the duration of a test."""
    server = Server(base_url="", routes={})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    server.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def make_pdf() -> object:
    """The :func:`build_pdf` function, for tests that write PDFs."""
    return build_pdf


def build_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF written by hand: one line of Helvetica text per page."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in once the pages' numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    kids = []
    for text in pages:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 24 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % len(objects)
        )
        kids.append(len(objects))
    references = b" ".join(b"%d 0 R" % kid for kid in kids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (references, len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)

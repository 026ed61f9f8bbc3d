"""Fixtures of the interop tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langsmith import Client


class _LangSmithRuns(BaseHTTPRequestHandler):
    """Takes LangSmith's run posts (``POST /runs``, ``PATCH /runs/<id>``) and keeps their
    fields, merged per run id, in the server's ``runs``."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/runs") and body:
            fields = json.loads(body)
            self.server.runs.setdefault(fields["id"], {}).update(fields)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PATCH = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def langsmith() -> Iterator[tuple[Client, dict[str, dict[str, Any]]]]:
    """A LangSmith client posting to a loopback server, and the runs it received."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LangSmithRuns)
    server.runs = {}  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield Client(api_url=url, api_key="test", auto_batch_tracing=False), server.runs  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()

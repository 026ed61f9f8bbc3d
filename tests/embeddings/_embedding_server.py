"""A real HTTP server speaking OpenAI's ``POST /v1/embeddings``, for the client tests.

It listens on a free 127.0.0.1 port in a background thread, records every request (path,
headers, JSON body) and answers with deterministic vectors computed by HashingEmbeddings
(dimension = the request's ``dimensions`` or ``default_dimension``), so expected values
are known exactly. Like OpenAI it honours ``encoding_format``: ``"base64"`` gives
little-endian float32 bytes in base64, ``"float"`` (or absent) gives float lists.

Knobs for the awkward cases a client must survive:
    shuffle: return ``data`` in reverse order (clients must sort by ``index``).
    ignore_encoding_format: always answer with float lists (servers that do so exist).
    fail_with: (status, body) answered to every request instead.
    drop_last: leave out the last item of ``data`` (a broken server).
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from ragline.embeddings import HashingEmbeddings


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class EmbeddingServer:
    default_dimension: int = 16
    shuffle: bool = False
    ignore_encoding_format: bool = False
    drop_last: bool = False
    fail_with: tuple[int, dict[str, Any]] | None = None
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @staticmethod
    def vectors(texts: list[str], dimension: int) -> np.ndarray:
        """What the server answers for ``texts``: the expected values in tests."""
        return HashingEmbeddings(dimension=dimension).embed_documents_array(texts)

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.fail_with is not None:
            return self.fail_with
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            # what vLLM and friends do with token-id arrays they do not accept
            return 400, {"error": {"message": "input must be a string or a list of strings"}}
        dimension = body.get("dimensions") or self.default_dimension
        vectors = self.vectors(texts, dimension)
        as_base64 = body.get("encoding_format") == "base64" and not self.ignore_encoding_format
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": (
                    base64.b64encode(vector.astype("<f4").tobytes()).decode("ascii")
                    if as_base64
                    else [float(x) for x in vector]
                ),
            }
            for index, vector in enumerate(vectors)
        ]
        if self.shuffle:
            data.reverse()
        if self.drop_last:
            data = data[:-1]
        tokens = sum(len(text.split()) for text in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": body.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(
                    RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                if self.path != "/v1/embeddings":
                    status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    status, payload = server.answer(body)
                encoded = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

        return Handler

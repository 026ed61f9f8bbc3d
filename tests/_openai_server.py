"""A real HTTP server speaking OpenAI's wire protocol, for tests of OpenAI-compatible clients.

It listens on a free 127.0.0.1 port in a background thread, records every request and
answers each route either from a queue of scripted replies or, when the queue is empty,
from the route's default handler. Nothing is mocked: clients talk HTTP/1.1 to it exactly
as they would to vLLM or OpenAI.

Routes:
    POST /v1/chat/completions   default: ``"echo: <last user message>"``, as JSON or, when
                                the body has ``"stream": true``, as server-sent events
                                (one ``data: {chunk}`` per word, usage last when
                                ``stream_options.include_usage`` is set, then
                                ``data: [DONE]``). Structured requests are answered in
                                kind (see ``fill_schema``): a ``response_format`` of type
                                ``json_schema`` with JSON filling its schema,
                                ``json_object`` with ``{"echo": <last user message>}``, a
                                ``tool_choice`` naming a function with a call to it
                                (``call_1``) whose arguments fill its parameters.
    POST /v1/embeddings         default: deterministic HashingEmbeddings vectors of the
                                inputs (dimension = the body's ``dimensions`` or 16), in
                                input order, base64 float32 when ``encoding_format`` is
                                ``"base64"``, else float lists; 400 for non-string inputs
                                (token-id arrays). ``embedding_response`` builds others.
    anything else               404 with an OpenAI-style error body.

Add a route (the embeddings tests may add ``/v1/embeddings``)::

    def embeddings(request: RecordedRequest) -> Reply:
        return Reply(body={"object": "list", "data": [...], "model": request.body["model"]})

    server.add_route("/v1/embeddings", embeddings)

Script the next replies of a route (used first, in order)::

    server.enqueue("/v1/chat/completions",
                   Reply(status=429, body=error_body("slow down", "rate_limit_error"),
                         headers={"retry-after-ms": "10"}),
                   Reply(body=chat_completion("Paris")))

Use it as a context manager (or call ``start``/``stop``)::

    with OpenAITestServer() as server:
        model = ChatOpenAI(base_url=server.base_url, api_key="test")
        ...
        assert server.requests[0].body["model"] == "gpt-4o-mini"
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"
# How long a gated stream waits for its gate before giving up (so a failed test ends).
GATE_TIMEOUT = 10.0


@dataclass
class RecordedRequest:
    """One request the server received: method, path, lower-cased headers, JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    """How to answer one request.

    Attributes:
        status: the HTTP status.
        body: a JSON body (used when ``events`` is None).
        events: server-sent events instead of a JSON body: each item is sent as
            ``data: <json>`` (strings are sent as they are); ``data: [DONE]`` follows.
        headers: extra response headers (``retry-after-ms`` makes clients wait briefly).
        delay: seconds to wait before answering (to make a client time out).
        gate: for ``events``: after the first event, wait until this event is set
            (to prove a client hands out chunks before the stream has ended).
    """

    status: int = 200
    body: Any = None
    events: list[Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    gate: threading.Event | None = None


def error_body(
    message: str, error_type: str = "server_error", code: str | None = None
) -> dict[str, Any]:
    """An OpenAI-style error body: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def chat_completion(
    content: str | None,
    *,
    model: str = "test-model",
    tool_calls: list[dict[str, Any]] | None = None,
    prompt_tokens: int = 7,
    completion_tokens: int = 3,
    finish_reason: str = "stop",
    completion_id: str = "chatcmpl-test",
) -> dict[str, Any]:
    """A ``chat.completion`` response body with one choice.

    ``tool_calls`` items are ``{"id", "name", "arguments"}`` (arguments as JSON text).
    """
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for call in tool_calls
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "system_fingerprint": "fp_test",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def chat_completion_chunks(
    pieces: list[str],
    *,
    model: str = "test-model",
    usage: tuple[int, int] | None = (7, 3),
    tool_call_deltas: list[list[dict[str, Any]]] | None = None,
    finish_reason: str = "stop",
    completion_id: str = "chatcmpl-test",
) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events of a streamed reply.

    One chunk per text piece (the first also carries ``role``), then optional chunks
    whose delta holds ``tool_calls`` (one list of tool-call deltas per chunk), then a
    chunk with ``finish_reason``, then (if ``usage`` is given as (prompt, completion)
    tokens) a usage chunk with empty ``choices``, as OpenAI sends with
    ``stream_options={"include_usage": true}``.
    """

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    events = []
    for number, piece in enumerate(pieces):
        delta = {"role": "assistant", "content": piece} if number == 0 else {"content": piece}
        events.append(chunk(delta))
    for deltas in tool_call_deltas or []:
        events.append(chunk({"tool_calls": deltas}))
    events.append(chunk({}, finish_reason))
    if usage is not None:
        prompt, completion = usage
        events.append(
            {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )
    return events


def fill_schema(schema: dict[str, Any], text: str, name: str = "value") -> Any:
    """A value that fits a JSON Schema, made from the last user message ``text``: a string
    is ``"<property name>: <text>"``, an integer ``len(text)``, a number ``0.5``, a boolean
    ``true``, an enum its first value, an array one item, an object every property."""
    if "enum" in schema:
        return schema["enum"][0]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return fill_schema(options[0], text, name)
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: fill_schema(value, text, key) for key, value in properties.items()}
    if kind == "array":
        return [fill_schema(schema.get("items", {}), text, name)]
    return {
        "string": f"{name}: {text}",
        "integer": len(text),
        "number": 0.5,
        "boolean": True,
        "null": None,
    }[kind]


def _structured_reply(body: dict[str, Any], text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(content, tool calls) answering a structured request, or (None, []) for others."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format["json_schema"].get("schema", {})
        return json.dumps(fill_schema(schema, text)), []
    if response_format.get("type") == "json_object":
        return json.dumps({"echo": text}), []
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = choice["function"]["name"]
        for tool in body.get("tools", []):
            if tool.get("function", {}).get("name") == name:
                args = fill_schema(tool["function"].get("parameters", {}), text)
                return None, [{"id": "call_1", "name": name, "arguments": json.dumps(args)}]
    return None, []


def _default_chat(request: RecordedRequest) -> Reply:
    body = request.body or {}
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    text = users[-1]["content"] if users else ""
    structured, tool_calls = _structured_reply(body, text)
    content = structured if structured is not None else "" if tool_calls else f"echo: {text}"
    finish = "tool_calls" if tool_calls else "stop"
    model = body.get("model", "test-model")
    if not body.get("stream"):
        return Reply(
            body=chat_completion(
                content or None, model=model, tool_calls=tool_calls, finish_reason=finish
            )
        )
    words = content.split(" ") if content else []
    pieces = [word + " " for word in words[:-1]] + words[-1:]
    deltas: list[list[dict[str, Any]]] = []
    for call in tool_calls:  # the name first, then the arguments in three pieces
        deltas.append(
            [{"index": 0, "id": call["id"], "type": "function",
              "function": {"name": call["name"], "arguments": ""}}]
        )  # fmt: skip
        arguments = call["arguments"]
        size = max(1, -(-len(arguments) // 3))
        for start in range(0, len(arguments), size):
            piece = arguments[start : start + size]
            deltas.append([{"index": 0, "function": {"arguments": piece}}])
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    return Reply(
        events=chat_completion_chunks(
            pieces,
            model=model,
            usage=(7, 3) if include_usage else None,
            tool_call_deltas=deltas or None,
            finish_reason=finish,
        )
    )


def embedding_response(
    vectors: Any,
    *,
    model: str = "test-model",
    encoding_format: str | None = "float",
    order: list[int] | None = None,
) -> dict[str, Any]:
    """A ``list`` of ``embedding`` items for ``vectors`` (rows of floats).

    ``encoding_format="base64"`` sends little-endian float32 bytes in base64, as OpenAI
    does; ``order`` lists the row indices in the order the items appear (to test that
    clients sort by ``index``).
    """
    import numpy as np

    rows = np.asarray(vectors, dtype="<f4")
    data = [
        {
            "object": "embedding",
            "index": index,
            "embedding": (
                base64.b64encode(row.tobytes()).decode("ascii")
                if encoding_format == "base64"
                else [float(x) for x in row]
            ),
        }
        for index, row in enumerate(rows)
    ]
    if order is not None:
        data = [data[index] for index in order]
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": len(rows), "total_tokens": len(rows)},
    }


def _default_embeddings(request: RecordedRequest) -> Reply:
    from ragline.embeddings import HashingEmbeddings

    body = request.body or {}
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        # what vLLM, LM Studio and others answer to token-id arrays
        return Reply(
            status=400,
            body=error_body("input must be a string or a list of strings", "invalid_request_error"),
        )
    vectors = HashingEmbeddings(dimension=body.get("dimensions") or 16).embed_documents_array(texts)
    return Reply(
        body=embedding_response(
            vectors,
            model=body.get("model", "test-model"),
            encoding_format=body.get("encoding_format"),
        )
    )


class OpenAITestServer:
    """The server (see the module docstring).

    Attributes:
        requests: every request received, in order (recorded before any ``delay``).
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._routes: dict[str, Callable[[RecordedRequest], Reply]] = {
            CHAT_PATH: _default_chat,
            EMBEDDINGS_PATH: _default_embeddings,
        }
        self._queues: dict[str, deque[Reply]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # A short poll interval keeps stop() (shutdown) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def base_url(self) -> str:
        """The API root to give a client, ``http://127.0.0.1:<port>/v1``."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAITestServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OpenAITestServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def add_route(self, path: str, handler: Callable[[RecordedRequest], Reply]) -> None:
        """Answer POSTs to ``path`` with ``handler(request)`` (after any queued replies)."""
        self._routes[path] = handler

    def enqueue(self, path: str, *replies: Reply) -> None:
        """Answer the next requests to ``path`` with ``replies``, in order."""
        with self._lock:
            self._queues.setdefault(path, deque()).extend(replies)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        """The requests received for ``path``."""
        return [request for request in self.requests if request.path == path]

    def _reply_for(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self._queues.get(request.path)
            if queue:
                return queue.popleft()
        handler = self._routes.get(request.path)
        if handler is None:
            return Reply(status=404, body=error_body(f"no route {request.path}", "not_found"))
        return handler(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes on a kept-alive connection;
            # with Nagle's algorithm on, the body waited for the client's delayed ACK
            # (about 40 ms a reply).
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                request = RecordedRequest(
                    "POST",
                    self.path.split("?")[0],
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                )
                reply = server._reply_for(request)
                try:
                    if reply.delay:
                        time.sleep(reply.delay)
                    if reply.events is None:
                        self._send_json(reply)
                    else:
                        self._send_events(reply)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (a timeout test)

            def _send_json(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_events(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                payloads = [e if isinstance(e, str) else json.dumps(e) for e in reply.events or []]
                for number, payload in enumerate([*payloads, "[DONE]"]):
                    self._write_chunk(f"data: {payload}\n\n".encode())
                    if number == 0 and reply.gate is not None:
                        reply.gate.wait(GATE_TIMEOUT)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _write_chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        return Handler

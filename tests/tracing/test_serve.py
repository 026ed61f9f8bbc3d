"""``ragline serve`` traced: a server span per request that continues the client's W3C
``traceparent`` down to the model call, a streamed ``/ask`` on a real server, the access
log (and ``--quiet``), and a real OTLP/HTTP export decoded from its protobuf."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from opentelemetry import propagate
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.trace import SpanKind, StatusCode

from ragline.chat_models import ChatOpenAI
from ragline.serve import BackgroundServer, create_store_app
from tests._openai_server import OpenAITestServer

from .conftest import Traced, span_tree

pytestmark = pytest.mark.network

FILES = {
    "mars.txt": "Mars is a cold desert planet with the largest volcano in the solar system.",
    "moon.txt": "The Moon causes the tides of the oceans on Earth.",
}


@pytest.fixture(scope="module")
def store_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ragline.store_folder import index_paths

    root = tmp_path_factory.mktemp("traced-store")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in FILES.items():
        (corpus / name).write_text(text, encoding="utf-8")
    index_paths([corpus], root / "store", embedding="hashing")
    return root / "store"


@pytest.fixture(scope="module")
def model_server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as server:
        yield server


@pytest.fixture
def served(
    store_folder: Path, model_server: OpenAITestServer, traced: Traced
) -> Iterator[BackgroundServer]:
    model = ChatOpenAI(model="gpt-4o-mini", base_url=model_server.base_url, api_key="test")
    with BackgroundServer(create_store_app(store_folder, model=model, k=1)) as server:
        yield server


def finished(traced: Traced, name: str) -> Any:
    """The span ``name`` once the server has ended it (after the response's last byte)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [span for span in traced.spans if span.name == name]
        if found:
            return found[0]
        time.sleep(0.01)
    raise AssertionError(f"no span {name!r}: {[span.name for span in traced.spans]}")


def test_streamed_ask_continues_the_clients_trace_to_the_model_call(
    served: BackgroundServer, traced: Traced
) -> None:
    client_tracer = traced.provider.get_tracer("test-client")
    with client_tracer.start_as_current_span("client ask", kind=SpanKind.CLIENT) as client:
        headers: dict[str, str] = {}
        propagate.inject(headers)
        with httpx.stream(
            "POST",
            served.url + "/ask/stream",
            json={"input": {"input": "Which volcano is largest?"}},
            headers=headers,
            timeout=60,
        ) as response:
            assert response.status_code == 200
            body = "".join(response.iter_text())
    assert "echo:" in body
    server = finished(traced, "POST /ask/stream")
    assert server.kind == SpanKind.SERVER
    assert server.parent.span_id == client.get_span_context().span_id
    assert server.context.trace_id == client.get_span_context().trace_id
    assert server.attributes["http.request.method"] == "POST"
    assert server.attributes["url.path"] == "/ask/stream"
    assert server.attributes["http.response.status_code"] == 200
    tree = span_tree(traced.spans)
    assert tree == [
        ("client ask", [
            ("POST /ask/stream", [
                ("retrieval_chain", [
                    ("RunnableAssign<context>", [
                        ("RunnableParallel<context>", [
                            ("retrieval", [("retrieval", [("embeddings", [])])]),
                        ]),
                    ]),
                    ("RunnableAssign<answer>", [
                        ("RunnableParallel<answer>", [
                            ("stuff_documents_chain", [
                                ("answer", [
                                    ("ChatPromptTemplate", []),
                                    ("chat gpt-4o-mini", []),
                                    ("StrOutputParser", []),
                                ]),
                            ]),
                        ]),
                    ]),
                ]),
            ]),
        ]),
    ]  # fmt: skip
    assert len({span.context.trace_id for span in traced.spans}) == 1
    model = traced.named("chat gpt-4o-mini")
    assert model.kind == SpanKind.CLIENT
    attributes = {key: value for key, value in model.attributes.items() if key != "ragline.run.id"}
    assert attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "ragline.run.name": "ChatOpenAI",
        "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.response.id": "chatcmpl-test",
        "gen_ai.usage.input_tokens": 7,  # the streamed reply's usage chunk
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ("stop",),
    }
    (store_search,) = [
        span
        for span in traced.spans
        if span.attributes.get("ragline.run.name") == "VectorStoreRetriever"
    ]
    assert store_search.attributes["gen_ai.retrieval.top_k"] == 1
    (found,) = json.loads(store_search.attributes["gen_ai.retrieval.documents"])
    assert 0 < found["score"] <= 1 and len(found["id"]) == 64


def test_a_request_without_traceparent_starts_a_trace(
    served: BackgroundServer, traced: Traced
) -> None:
    response = httpx.post(served.url + "/retrieve/invoke", json={"input": "tides"}, timeout=60)
    assert response.status_code == 200
    server = finished(traced, "POST /retrieve/invoke")
    assert server.parent is None
    assert span_tree(traced.spans) == [
        ("POST /retrieve/invoke", [("retrieval", [("retrieval", [("embeddings", [])])])])
    ]


def test_refused_and_failed_requests_get_server_spans(
    served: BackgroundServer, traced: Traced
) -> None:
    refused = httpx.get(served.url + "/healthz", headers={"host": "evil.example"}, timeout=60)
    assert refused.status_code == 400
    span = finished(traced, "GET /healthz")
    assert span.attributes["http.response.status_code"] == 400
    assert span.status.status_code == StatusCode.UNSET  # a client's error is no server error


def test_every_request_gets_one_access_log_line(
    served: BackgroundServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="ragline.serve.access")
    assert httpx.get(served.url + "/healthz", timeout=60).status_code == 200
    assert httpx.post(served.url + "/retrieve/invoke", json={"x": 1}, timeout=60).status_code == 422
    deadline = time.monotonic() + 30
    while len(caplog.records) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    lines = [record.getMessage() for record in caplog.records]
    assert [line.rsplit(" ", 1)[0] for line in lines] == [
        "GET /healthz 200",
        "POST /retrieve/invoke 422",
    ]
    for line in lines:
        milliseconds = line.rsplit(" ", 1)[1]
        assert milliseconds.endswith("ms") and float(milliseconds[:-2]) >= 0


def test_ragline_serve_prints_the_access_log_unless_quiet(store_folder: Path) -> None:
    from tests.serve.test_cli_serve import ServeProcess

    outputs = {}
    for args in ((), ("--quiet",)):
        process = ServeProcess(store_folder, {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}, *args)
        try:
            assert httpx.get(process.url + "/nowhere", timeout=60).status_code == 404
        finally:
            _, stderr = process.stop()
        outputs[args] = [line for line in stderr.splitlines() if line.startswith("GET /")]
    # the start-up wait polls /healthz; then the one 404
    loud = outputs[()]
    assert {line.rsplit(" ", 1)[0] for line in loud[:-1]} == {"GET /healthz 200"}
    assert loud[-1].rsplit(" ", 1)[0] == "GET /nowhere 404"
    assert outputs[("--quiet",)] == []


class _Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: keeps each POST /v1/traces body, answers 200."""

    bodies: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.bodies.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_spans_export_over_otlp_http_from_the_environment() -> None:
    """RAGLINE_TRACING=otel and the standard OTEL_* variables alone: a chain run in a
    fresh process reaches a loopback OTLP/HTTP receiver as protobuf, on exit."""
    _Receiver.bodies = []
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    code = (
        "from ragline.core import ChatPromptTemplate, FakeListChatModel, StrOutputParser\n"
        "chain = (ChatPromptTemplate.from_messages([('human', '{q}')])\n"
        "         | FakeListChatModel(responses=['fine']) | StrOutputParser())\n"
        "print(chain.invoke({'q': 'how are you?'}))\n"
    )
    env = {
        **os.environ,
        "RAGLINE_TRACING": "otel",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_address[1]}",
        "OTEL_SERVICE_NAME": "tracing-test",
    }
    try:
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        receiver.shutdown()
        receiver.server_close()
    assert (result.returncode, result.stdout) == (0, "fine\n"), result.stderr
    assert [(path, kind) for path, kind, _ in _Receiver.bodies] == [
        ("/v1/traces", "application/x-protobuf")
    ]
    request = ExportTraceServiceRequest()
    request.ParseFromString(_Receiver.bodies[0][2])
    (resource_spans,) = request.resource_spans
    resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert resource["service.name"] == "tracing-test"
    (scope_spans,) = resource_spans.scope_spans
    assert scope_spans.scope.name == "ragline"
    spans = {span.name: span for span in scope_spans.spans}
    assert sorted(spans) == [
        "ChatPromptTemplate",
        "RunnableSequence",
        "StrOutputParser",
        "chat FakeListChatModel",
    ]
    root = spans["RunnableSequence"]
    assert root.parent_span_id == b""
    for name in ("ChatPromptTemplate", "StrOutputParser", "chat FakeListChatModel"):
        assert spans[name].parent_span_id == root.span_id
        assert spans[name].trace_id == root.trace_id
    model = {a.key: a.value.string_value for a in spans["chat FakeListChatModel"].attributes}
    assert model["gen_ai.operation.name"] == "chat"
    assert model["gen_ai.provider.name"] == "fake-list-chat-model"

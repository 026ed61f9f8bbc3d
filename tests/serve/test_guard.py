"""What a hostile page or client cannot do to ``ragline serve`` (issue 31): another
``Host`` (DNS rebinding), a cross-site form post, deeply nested JSON, a lone surrogate;
and what every response carries (security headers), what needs the API key (the docs,
``/healthz``). Real store folder, real server on loopback, real HTTP."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragline.core import FakeListChatModel
from ragline.serve import BackgroundServer, create_store_app
from ragline.serve._guard import host_port, is_loopback

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def server(store_folder: Path) -> Iterator[BackgroundServer]:
    model = FakeListChatModel(responses=["an answer"])
    app = create_store_app(store_folder, model=model, k=2, allowed_hosts=["rag.example:8443"],
                           cors_origins=["https://app.example"])  # fmt: skip
    with BackgroundServer(app) as running:
        yield running


def retrieve(server: BackgroundServer, **kwargs: object) -> httpx.Response:
    return httpx.post(server.url + "/retrieve/invoke", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8000", "127.0.0.1", "[::1]:9", "rag.example:8443"]
)
def test_the_servers_own_host_names_are_answered(server: BackgroundServer, host: str) -> None:
    response = retrieve(server, json={"input": "volcano"}, headers={"Host": host})
    assert response.status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "rag.example:80", ""])
def test_another_host_gets_400(server: BackgroundServer, host: str) -> None:
    """A page whose domain re-resolves to 127.0.0.1 sends its own domain as Host."""
    for response in (
        retrieve(server, json={"input": "volcano"}, headers={"Host": host}),
        httpx.get(server.url + "/healthz", headers={"Host": host}),
    ):
        assert response.status_code == 400
        assert "does not answer to the host name" in response.json()["detail"]


def test_host_names_parse_with_or_without_port() -> None:
    assert host_port("LocalHost:80") == ("localhost", 80)
    assert host_port("[::1]:8000") == ("::1", 8000)
    assert host_port("::1") == ("::1", None)
    assert host_port("example.com.") == ("example.com", None)
    with pytest.raises(ValueError, match="not a port number"):
        host_port("example.com:http")
    assert is_loopback("127.0.0.2") and is_loopback("::1") and not is_loopback("0.0.0.0")


def test_a_forged_text_plain_chat_post_is_415_and_writes_nothing(
    server: BackgroundServer, store_folder: Path
) -> None:
    """The issue's case: a cross-site form posting text/plain JSON to /chat/invoke (no
    preflight needed) ran the chat and wrote two messages into a session."""
    body = json.dumps({"input": {"input": "hi"}, "config": {"configurable": {"session_id": "s"}}})
    forged = httpx.post(
        server.url + "/chat/invoke",
        content=body,
        headers={"Content-Type": "text/plain", "Origin": "http://127.0.0.1:1"},
    )
    assert forged.status_code == 415
    assert forged.json()["detail"] == (
        "request bodies are JSON sent with Content-Type: application/json, got 'text/plain'"
    )
    for path in (store_folder / "chat.sqlite", store_folder / "serve-chat.sqlite"):
        if path.exists():
            with sqlite3.connect(path) as db:
                tables = db.execute("SELECT name FROM sqlite_master").fetchall()
                if ("message_store",) in tables:
                    assert db.execute("SELECT COUNT(*) FROM message_store").fetchone() == (0,)


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", ""])
def test_post_bodies_must_be_declared_json(server: BackgroundServer, content_type: str) -> None:
    response = retrieve(server, content=b'{"input": "volcano"}',
                        headers={"Content-Type": content_type})  # fmt: skip
    assert response.status_code == 415


def test_json_with_a_charset_is_json(server: BackgroundServer) -> None:
    response = retrieve(server, content=b'{"input": "volcano"}',
                        headers={"Content-Type": "application/json; charset=utf-8"})  # fmt: skip
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        ("https://evil.example", 403),
        ("null", 403),
        ("http://127.0.0.1:5", 200),  # the server's own pages
        ("https://app.example", 200),  # an allowed CORS origin
    ],
)
def test_origin_is_checked_when_present(server: BackgroundServer, origin: str, status: int) -> None:
    response = retrieve(server, json={"input": "volcano"}, headers={"Origin": origin})
    assert response.status_code == status
    if status == 403:
        assert response.json()["detail"].startswith(f"requests from pages on {origin!r}")


NESTED = '{"a": ' * 1000 + '"x"' + "}" * 1000  # 1,000 levels, as the hostile run sent


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/retrieve/invoke", '{"input": {"query": "x", "filter": NESTED}}'),
        ("/retrieve/invoke", '{"input": "x", "config": {"metadata": NESTED}}'),
        ("/retrieve/batch", '{"inputs": [NESTED]}'),
        ("/ask/stream", '{"input": {"input": NESTED}}'),
        ("/chat/invoke", '{"input": {"input": "x"}, "config": NESTED}'),
    ],
)
def test_deeply_nested_json_is_422_on_every_route(
    server: BackgroundServer, path: str, body: str
) -> None:
    raw = body.replace("NESTED", NESTED).encode()
    response = httpx.post(server.url + path, content=raw,
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["msg"] == (
        "nested deeper than the limit of 64 levels (max_json_depth); send a flatter value"
    )


def test_a_body_too_deep_for_the_parser_is_422(server: BackgroundServer) -> None:
    raw = b'{"input": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = retrieve(server, content=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert "nested deeper than the limit of 64 levels" in response.text


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        (b'{"input": "a\\ud800b"}', ["input"]),
        (b'{"input": {"query": "\\udfff", "k": 1}}', ["input", "query"]),
        (b'{"inputs": ["ok", "x\\ud800"]}', ["inputs", "1"]),
    ],
)
def test_a_lone_surrogate_is_a_clear_422(
    server: BackgroundServer, raw: bytes, loc: list[str]
) -> None:
    path = "/retrieve/batch" if raw.startswith(b'{"inputs"') else "/retrieve/invoke"
    response = httpx.post(server.url + path, content=raw,
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 422
    [problem] = response.json()["detail"]
    assert problem["loc"] == loc
    assert problem["msg"].startswith("the text holds a lone surrogate (U+D")
    assert problem["msg"].endswith("which is not valid Unicode; send UTF-8 text")


@pytest.mark.parametrize("path", ["/", "/healthz", "/retrieve/input_schema", "/docs", "/nowhere"])
def test_every_response_has_the_security_headers(server: BackgroundServer, path: str) -> None:
    headers = httpx.get(server.url + path).headers
    csp = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self';" in csp
    assert "default-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["x-frame-options"] == "DENY"


def test_refusals_carry_the_headers_too(server: BackgroundServer) -> None:
    response = httpx.get(server.url + "/healthz", headers={"Host": "evil.example"})
    assert response.status_code == 400 and response.headers["x-frame-options"] == "DENY"


def test_docs_work_offline(server: BackgroundServer) -> None:
    for path in ("/docs", "/redoc"):
        page = httpx.get(server.url + path)
        assert page.status_code == 200 and "<code>/retrieve/invoke</code>" in page.text
        assert "<script" not in page.text and "http" not in page.text.replace("https://", "")
        assert "https://" not in page.text
    assert httpx.get(server.url + "/openapi.json").json()["info"]["title"].startswith("ragline")


def test_healthz_shows_the_store_by_name_not_by_path(
    server: BackgroundServer, store_folder: Path
) -> None:
    health = httpx.get(server.url + "/healthz").json()
    assert health["store"] == store_folder.name
    assert str(store_folder.parent) not in json.dumps(health)


def test_with_an_api_key_healthz_and_the_docs_need_it(store_folder: Path) -> None:
    with BackgroundServer(create_store_app(store_folder, api_key="k-7")) as server:
        for path in ("/healthz", "/docs", "/redoc", "/openapi.json"):
            refused = httpx.get(server.url + path)
            assert refused.status_code == 401, path
            assert "missing or wrong API key" in refused.json()["detail"]
            allowed = httpx.get(server.url + path, headers={"X-API-Key": "k-7"})
            assert allowed.status_code == 200, path
        assert httpx.get(server.url + "/").status_code == 200  # the page asks for the key

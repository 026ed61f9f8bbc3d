"""``add_routes`` and ``RemoteRunnable`` against a real uvicorn server on loopback.

Each route serves a small runnable; the tests call it with raw HTTP (httpx), to pin the
wire format, and with ``RemoteRunnable``, to check that what comes back is the ragline
object the runnable returned.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ConfigurableField,
    Document,
    FakeListChatModel,
    PromptTemplate,
    RunnableGenerator,
    RunnableLambda,
    ServerError,
    ServerTimeoutError,
    StoreConnectionError,
    StringPromptValue,
)
from ragline.core.exceptions import ConfigurationError
from ragline.serve import BackgroundServer, RemoteRunnable, add_routes, create_app
from tests._run_ids import STREAMED_RUN_ID
from tests.serve.conftest import TokenRecorder

pytestmark = pytest.mark.network

TOPIC_SCHEMA = {
    "title": "TopicInput",
    "type": "object",
    "properties": {"topic": {"type": "string"}, "n": {"type": "integer"}},
    "required": ["topic"],
}
GATE = threading.Event()  # the gated stream waits for the client between its two chunks
SLOW = TokenRecorder()  # the slow model's tokens, for the disconnect test
STREAMED = TokenRecorder()  # the streaming model's tokens, for the first-chunk test
HOLD = threading.Event()  # cleared: the /model model holds after its first token
HOLD.set()


class HeldAfterFirstToken(FakeListChatModel):
    """FakeListChatModel that, while HOLD is cleared, stops after its first token until
    HOLD is set (30 s at most, against a hang)."""

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for number, chunk in enumerate(super()._stream(*args, **kwargs)):
            yield chunk
            if number == 0:
                HOLD.wait(30)

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        number = 0
        async for chunk in super()._astream(*args, **kwargs):
            yield chunk
            deadline = time.monotonic() + 30
            while number == 0 and not HOLD.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            number += 1


def _documents(query: str) -> list[Any]:
    return [
        Document(f"about {query}", metadata={"source": "a.txt", "start_index": 7}, id="d1"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": query}, "id": "c1"}]),
    ]


def _boom(_: Any) -> Any:
    raise ValueError("the volcano is asleep")


def _seen_config(_: Any, config: Any) -> dict[str, Any]:
    metadata = {k: v for k, v in (config.get("metadata") or {}).items() if k != "client"}
    return {
        "tags": config.get("tags", []),
        "metadata": config.get("metadata", {}),
        "stray_metadata": metadata != config.get("metadata", {}),
        "configurable": config.get("configurable", {}),
        "recursion_limit": config.get("recursion_limit"),
    }


async def _gated(chunks: AsyncIterator[Any]) -> AsyncIterator[str]:
    async for _ in chunks:
        pass
    yield "first"
    opened = await asyncio.to_thread(GATE.wait, 20)
    yield "second" if opened else "the client never saw the first chunk"


def _slow_sleep(seconds: float) -> Any:
    def sleep(x: Any) -> Any:
        time.sleep(seconds)
        return x

    return RunnableLambda(sleep)


GREETING = PromptTemplate.from_template("Hello {name}").configurable_fields(
    template=ConfigurableField(id="greeting", description="the greeting template")
)


def _from_header(config: dict[str, Any], request: Any) -> dict[str, Any]:
    user = request.headers.get("x-user", "nobody")
    configurable = {**config.get("configurable", {}), "greeting": f"Hi {user}, {{name}}"}
    return {**config, "configurable": configurable}


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    app = create_app()
    add_routes(app, RunnableLambda(_documents), path="/docs")
    add_routes(app, RunnableLambda(lambda d: f"about {d['topic']} x{d.get('n', 1)}"),
               path="/typed", input_schema=TOPIC_SCHEMA)  # fmt: skip
    add_routes(app, RunnableLambda(_boom), path="/boom")
    add_routes(app, RunnableLambda(lambda x: x), path="/echo")
    add_routes(app, RunnableLambda(_seen_config), path="/config",
               config_keys=("configurable", "tags", "recursion_limit"))  # fmt: skip
    add_routes(app, GREETING, path="/greeting")
    add_routes(app, GREETING, path="/noconfig", config_keys=())
    add_routes(app, GREETING, path="/peruser", per_req_config_modifier=_from_header)
    add_routes(app, RunnableGenerator(_gated), path="/gated")
    add_routes(app, _slow_sleep(2.0), path="/sleepy")
    model = HeldAfterFirstToken(responses=["The Moon causes the tides."], sleep=0.05)
    add_routes(app, model.with_config(callbacks=[STREAMED]), path="/model")
    slow = FakeListChatModel(responses=["abcdefghijklmnopqrstuvwxyz" * 4], sleep=0.3)
    add_routes(app, slow.with_config(callbacks=[SLOW]), path="/slow")
    add_routes(app, RunnableLambda(lambda x: x), path="/secure", api_key="s3cret-key")
    add_routes(app, RunnableLambda(lambda x: x), path="/small", max_request_bytes=200)
    with BackgroundServer(app) as running:
        yield running


def post(server: BackgroundServer, path: str, body: Any, **options: Any) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=30, **options)


def events(text: str) -> list[tuple[str, Any]]:
    """(event, data) pairs of an event-stream body, data parsed as JSON when present."""
    found = []
    for block in text.replace("\r\n", "\n").strip().split("\n\n"):
        lines = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "")
                     for line in block.split("\n"))  # fmt: skip
        data = lines.get("data")
        found.append((lines["event"], json.loads(data) if data else None))
    return found


# ---------------------------------------------------------------- invoke and batch


def test_invoke_answers_with_langserves_json(server: BackgroundServer) -> None:
    response = post(server, "/docs/invoke", {"input": "etna"})
    assert response.status_code == 200
    body = response.json()
    assert body["output"] == [
        {
            "id": "d1",
            "metadata": {"source": "a.txt", "start_index": 7},
            "page_content": "about etna",
            "type": "Document",
        },
        {
            "content": "",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "ai",
            "name": None,
            "id": None,
            "tool_calls": [
                {"name": "search", "args": {"q": "etna"}, "id": "c1", "type": "tool_call"}
            ],
            "invalid_tool_calls": [],
            "usage_metadata": None,
        },
    ]
    assert body["metadata"]["feedback_tokens"] == []
    uuid.UUID(body["metadata"]["run_id"])


def test_remote_runnable_gives_back_ragline_objects(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/docs")
    assert remote.invoke("etna") == _documents("etna")
    assert asyncio.run(remote.ainvoke("etna")) == _documents("etna")


def test_batch_keeps_the_input_order(server: BackgroundServer) -> None:
    response = post(server, "/docs/batch", {"inputs": ["a", "b", "c"]})
    assert response.status_code == 200
    body = response.json()
    assert [item[0]["page_content"] for item in body["output"]] == ["about a", "about b", "about c"]
    assert len(set(body["metadata"]["run_ids"])) == 3
    assert [r["run_id"] for r in body["metadata"]["responses"]] == body["metadata"]["run_ids"]
    remote = RemoteRunnable(server.url + "/docs")
    assert remote.batch(["a", "b"]) == [_documents("a"), _documents("b")]
    assert asyncio.run(remote.abatch(["c"])) == [_documents("c")]
    assert remote.batch([]) == []


def test_batch_with_return_exceptions_puts_each_failure_in_its_place(
    server: BackgroundServer,
) -> None:
    remote = RemoteRunnable(server.url + "/typed")
    results = remote.batch([{"topic": "etna"}, {"n": 2}], return_exceptions=True)
    assert results[0] == "about etna x1"
    assert isinstance(results[1], ServerError) and results[1].status_code == 422


# ---------------------------------------------------------------- streaming


def test_stream_sends_metadata_data_and_end_events(server: BackgroundServer) -> None:
    response = post(server, "/model/stream", {"input": "tides?"})
    assert response.headers["content-type"].startswith("text/event-stream")
    found = events(response.text)
    assert found[0][0] == "metadata"
    uuid.UUID(found[0][1]["run_id"])
    assert found[-1] == ("end", None)
    chunks = [data for event, data in found[1:-1]]
    assert {event for event, _ in found[1:-1]} == {"data"}
    assert all(chunk["type"] == "AIMessageChunk" for chunk in chunks)
    assert "".join(chunk["content"] for chunk in chunks) == "The Moon causes the tides."


def test_the_first_chunk_arrives_before_the_run_finishes(server: BackgroundServer) -> None:
    """The gated stream yields one chunk, then waits until this client has it: if the
    server buffered the stream, the client would only get both after the 20 s wait,
    with the second saying so."""
    GATE.clear()
    stream = RemoteRunnable(server.url + "/gated").stream(None)
    assert next(stream) == "first"
    GATE.set()
    assert list(stream) == ["second"]


def test_model_tokens_arrive_while_the_model_still_writes(server: BackgroundServer) -> None:
    """The model holds after its first token until this client has it (not a race of
    the client against the model's 1.3 s of writing, which a loaded machine can lose):
    had the server buffered the answer, the client would get it only after the hold's
    30 s, whole."""
    STREAMED.tokens.clear()
    STREAMED.ended.clear()
    answer = "The Moon causes the tides."
    HOLD.clear()
    try:
        stream = RemoteRunnable(server.url + "/model").stream("tides?")
        first = next(stream)
        produced = len(STREAMED.tokens)
    finally:
        HOLD.set()
    assert first.id is not None and STREAMED_RUN_ID.fullmatch(first.id)  # the run's id
    assert first == AIMessageChunk("T", id=first.id)
    assert produced < len(answer) and not STREAMED.ended.is_set()
    rest = list(stream)
    assert "".join(chunk.content for chunk in [first, *rest]) == answer


def test_astream_and_composition(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/model")

    async def collect() -> list[Any]:
        return [chunk async for chunk in remote.astream("q")]

    chunks = asyncio.run(collect())
    assert "".join(c.content for c in chunks) == "The Moon causes the tides."
    upper = remote | RunnableLambda(lambda message: message.content.upper())
    assert upper.invoke("q") == "THE MOON CAUSES THE TIDES."
    piped = RunnableLambda(lambda x: x["q"]) | RemoteRunnable(server.url + "/docs")
    assert piped.invoke({"q": "etna"}) == _documents("etna")


@pytest.mark.parametrize("endpoint", ["stream", "stream_events", "stream_log"])
def test_a_client_that_disconnects_leaves_no_running_work(
    server: BackgroundServer, endpoint: str
) -> None:
    """The slow model writes 104 characters, one per 0.3 s (31 s in all). The client
    reads the first data event and hangs up: the server cancels the run (the model's
    run ends with an error, not an answer; fewer than 100 tokens bounds only a hang,
    not how fast a loaded machine notices) and no token is produced after that, on
    every streaming endpoint."""
    SLOW.tokens.clear()
    SLOW.failed.clear()
    SLOW.ended.clear()
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", f"{server.url}/slow/{endpoint}", json={"input": "x"}) as response,
    ):
        for line in response.iter_lines():
            if line.startswith("data: {"):
                break
    assert SLOW.failed.wait(60), "the model kept running after the client left"
    count = len(SLOW.tokens)
    time.sleep(1.0)  # three more tokens' time
    assert len(SLOW.tokens) == count < 100
    assert not SLOW.ended.is_set()


# ---------------------------------------------------------------- errors


def test_bad_input_is_refused_with_422_before_the_run(server: BackgroundServer) -> None:
    response = post(server, "/typed/invoke", {"input": {"n": 3}})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [{"type": "value_error", "loc": ["input", "topic"], "msg": "missing (required)"}]
    }
    response = post(server, "/typed/invoke", {"input": {"topic": "etna", "n": "many"}})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["input", "n"]
    with pytest.raises(ServerError, match=r"422: input.topic: missing \(required\)") as caught:
        RemoteRunnable(server.url + "/typed").invoke({"n": 3})
    assert caught.value.status_code == 422
    # lax conversions as pydantic's: "2" is an integer
    assert RemoteRunnable(server.url + "/typed").invoke({"topic": "etna", "n": "2"}) == (
        "about etna x2"
    )


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({}, [{"type": "missing", "loc": ["input"], "msg": "field required"}]),
        ({"input": 1, "kwargs": {"stop": ["x"]}},
         "kwargs are not accepted; pass options in the input or config"),
        ({"input": 1, "config": ["not", "an", "object"]},
         [{"type": "value_error", "loc": ["config"], "msg": "expected an object, got list"}]),
    ],
)  # fmt: skip
def test_malformed_requests_are_422(server: BackgroundServer, body: Any, detail: Any) -> None:
    response = post(server, "/echo/invoke", body)
    assert (response.status_code, response.json()) == (422, {"detail": detail})


def test_invalid_json_is_422(server: BackgroundServer) -> None:
    response = httpx.post(server.url + "/echo/invoke", content=b"{not json", timeout=30,
                          headers={"Content-Type": "application/json"})  # fmt: skip
    assert response.status_code == 422
    assert response.json()["detail"].startswith("request body is not valid JSON")


def test_a_runnable_that_raises_is_a_500_with_its_message(server: BackgroundServer) -> None:
    response = post(server, "/boom/invoke", {"input": 1})
    assert response.status_code == 500
    assert response.json() == {"detail": "the volcano is asleep", "error_type": "ValueError"}
    with pytest.raises(ServerError, match="answered 500: the volcano is asleep") as caught:
        RemoteRunnable(server.url + "/boom").invoke(1)
    assert caught.value.status_code == 500
    assert caught.value.url == server.url + "/boom/invoke"


def test_a_stream_that_fails_ends_with_an_error_event(server: BackgroundServer) -> None:
    found = events(post(server, "/boom/stream", {"input": 1}).text)
    assert [event for event, _ in found] == ["metadata", "error"]
    assert found[1][1] == {"status_code": 500, "message": "the volcano is asleep"}
    with pytest.raises(ServerError, match=r"failed while streaming \(500\): the volcano"):
        list(RemoteRunnable(server.url + "/boom").stream(1))


def test_timeouts_and_unreachable_servers_name_the_url(server: BackgroundServer) -> None:
    with pytest.raises(ServerTimeoutError, match=r"/sleepy/invoke did not answer within 0.3 s"):
        RemoteRunnable(server.url + "/sleepy", timeout=0.3).invoke(1)
    with BackgroundServer(create_app()) as gone:
        url = gone.url
    with pytest.raises(StoreConnectionError, match=f"cannot reach {url}/x/invoke"):
        RemoteRunnable(url + "/x", timeout=5).invoke(1)


# ---------------------------------------------------------------- config


def test_only_the_allowed_config_reaches_the_runnable(server: BackgroundServer) -> None:
    """tags, configurable and recursion_limit are allowed on /config; metadata,
    callbacks, run_name and run_id are not, and are dropped."""
    config = {
        "tags": ["web"],
        "metadata": {"client": "sneaky"},
        "callbacks": ["not", "handlers"],
        "run_name": "renamed",
        "run_id": str(uuid.uuid4()),
        "recursion_limit": 7,
        "configurable": {"anything": 1},
    }
    seen = post(server, "/config/invoke", {"input": 1, "config": config}).json()["output"]
    # no configurable ids are declared by a lambda: none get through
    assert seen == {
        "tags": ["web"],
        "metadata": {},
        "stray_metadata": False,
        "configurable": {},
        "recursion_limit": 7,
    }
    bad = post(server, "/config/invoke", {"input": 1, "config": {"recursion_limit": 0}})
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["config", "recursion_limit"]


def test_declared_configurable_fields_are_the_only_ones_taken(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/greeting")
    assert remote.invoke({"name": "Ann"}) == StringPromptValue("Hello Ann")
    configured = remote.with_config(configurable={"greeting": "Bye {name}", "other": 1})
    assert configured.invoke({"name": "Ann"}) == StringPromptValue("Bye Ann")


def test_a_route_without_configurable_refuses_it(server: BackgroundServer) -> None:
    config = {"configurable": {"greeting": "{name}"}}
    response = post(server, "/noconfig/invoke", {"input": {"name": "Ann"}, "config": config})
    assert response.status_code == 422
    assert "does not take configurable values" in response.json()["detail"][0]["msg"]
    ok = post(server, "/noconfig/invoke", {"input": {"name": "Ann"}, "config": {"tags": ["x"]}})
    assert ok.json()["output"] == {"text": "Hello Ann", "type": "StringPromptValue"}


def test_the_per_request_modifier_has_the_last_word(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/peruser", headers={"X-User": "ann"})
    sneaky = remote.with_config(configurable={"greeting": "Admin {name}"})
    assert sneaky.invoke({"name": "Ann"}) == StringPromptValue("Hi ann, Ann")


# ---------------------------------------------------------------- auth and limits


def test_auth_is_off_unless_a_key_is_set(server: BackgroundServer) -> None:
    assert post(server, "/echo/invoke", {"input": 1}).status_code == 200


def test_an_api_key_is_required_when_set(server: BackgroundServer) -> None:
    assert post(server, "/secure/invoke", {"input": 1}).status_code == 401
    wrong = post(server, "/secure/invoke", {"input": 1}, headers={"X-API-Key": "s3cret-kez"})
    assert wrong.status_code == 401
    assert "missing or wrong API key" in wrong.json()["detail"]
    assert httpx.get(server.url + "/secure/input_schema").status_code == 401
    right = post(server, "/secure/invoke", {"input": 1}, headers={"X-API-Key": "s3cret-key"})
    assert right.json()["output"] == 1
    assert RemoteRunnable(server.url + "/secure", api_key="s3cret-key").invoke(2) == 2
    with pytest.raises(ServerError) as caught:
        list(RemoteRunnable(server.url + "/secure").stream(2))
    assert caught.value.status_code == 401


def test_large_requests_are_refused_with_413(server: BackgroundServer) -> None:
    assert post(server, "/small/invoke", {"input": "x" * 100}).json()["output"] == "x" * 100
    response = post(server, "/small/invoke", {"input": "x" * 300})
    assert response.status_code == 413
    assert response.json() == {"detail": "request body of 312 bytes is over the limit of 200"}
    # a chunked body (no Content-Length) is cut off as it arrives
    chunked = httpx.post(server.url + "/small/invoke",
                         content=iter([b'{"input": "', b"x" * 300, b'"}']), timeout=30,
                         headers={"Content-Type": "application/json"})  # fmt: skip
    assert (chunked.status_code, chunked.json()) == (
        413,
        {"detail": "request body is over the limit of 200 bytes"},
    )


# ---------------------------------------------------------------- schemas and playground


def test_a_declared_input_schema_is_published(server: BackgroundServer) -> None:
    assert httpx.get(server.url + "/typed/input_schema").json() == TOPIC_SCHEMA
    assert RemoteRunnable(server.url + "/typed").get_input_jsonschema() == TOPIC_SCHEMA


def test_the_playground_page_is_served(server: BackgroundServer) -> None:
    page = httpx.get(server.url + "/typed/playground/")
    assert page.status_code == 200
    assert 'const base = "/typed";' in page.text
    assert "<title>RunnableLambda · playground</title>" in page.text


def test_add_routes_refuses_what_clients_must_never_set() -> None:
    app = create_app()
    with pytest.raises(ConfigurationError, match=r"config_keys \['callbacks'\] cannot come"):
        add_routes(app, RunnableLambda(lambda x: x), config_keys=("configurable", "callbacks"))
    with pytest.raises(ConfigurationError, match="path must start with '/'"):
        add_routes(app, RunnableLambda(lambda x: x), path="chain/")
    with pytest.raises(ConfigurationError, match="unknown endpoints"):
        add_routes(app, RunnableLambda(lambda x: x), enabled_endpoints=["invoke", "feedback"])


# ---------------------------------------------------------------- the runnables' schemas and events


def test_the_runnables_own_schemas_are_published_and_enforced(server: BackgroundServer) -> None:
    assert httpx.get(server.url + "/greeting/input_schema").json() == {
        "title": "PromptInput",
        "type": "object",
        "properties": {"name": {"title": "Name", "type": "string"}},
        "required": ["name"],
    }
    config = httpx.get(server.url + "/greeting/config_schema").json()
    assert config["$defs"]["Configurable"]["properties"]["greeting"]["type"] == "string"
    refused = post(server, "/greeting/invoke", {"input": {"nam": "Ann"}})
    assert refused.json()["detail"][0] == {
        "type": "value_error",
        "loc": ["input", "name"],
        "msg": "missing (required)",
    }
    config_body = {"configurable": {"greeting": 3}}
    wrong = post(server, "/greeting/invoke", {"input": {"name": "Ann"}, "config": config_body})
    assert wrong.status_code == 422
    assert wrong.json()["detail"][0]["loc"] == ["config", "configurable", "greeting"]


def test_stream_events_and_stream_log_stream_the_run(server: BackgroundServer) -> None:
    remote = RemoteRunnable(server.url + "/model")

    async def collect() -> tuple[list[Any], list[Any]]:
        events = [event async for event in remote.astream_events("tides?")]
        patches = [patch async for patch in remote.astream_log("tides?")]
        return events, patches

    events, patches = asyncio.run(collect())
    kinds = [event["event"] for event in events]
    assert kinds[0] == "on_chat_model_start" and kinds[-1] == "on_chat_model_end"
    streamed = [e["data"]["chunk"] for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(chunk.content for chunk in streamed) == "The Moon causes the tides."
    assert all(isinstance(chunk, AIMessageChunk) for chunk in streamed)
    assert patches and all("ops" in patch for patch in patches)


# ---------------------------------------------------------------- CORS

PREFLIGHT = {
    "Origin": "http://app.example",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type",
}


def test_cors_is_off_by_default() -> None:
    """No CORS headers at all, and a request from another origin's page is refused
    (403) before it runs: it can neither read the answers nor cause anything."""
    app = create_app()
    add_routes(app, RunnableLambda(lambda x: x), path="/echo")
    with BackgroundServer(app) as running:
        preflight = httpx.options(running.url + "/echo/invoke", headers=PREFLIGHT)
        assert preflight.status_code == 403
        assert "access-control-allow-origin" not in preflight.headers
        posted = post(running, "/echo/invoke", {"input": 1},
                      headers={"Origin": "http://app.example"})  # fmt: skip
        assert posted.status_code == 403
        assert "access-control-allow-origin" not in posted.headers
        own = post(running, "/echo/invoke", {"input": 1}, headers={"Origin": running.url})
        assert own.json()["output"] == 1


def test_cors_allows_only_the_origins_given() -> None:
    app = create_app(cors_origins=["http://app.example"])
    add_routes(app, RunnableLambda(lambda x: x), path="/echo")
    with BackgroundServer(app) as running:
        preflight = httpx.options(running.url + "/echo/invoke", headers=PREFLIGHT)
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "http://app.example"
        other = {**PREFLIGHT, "Origin": "http://elsewhere.example"}
        refused = httpx.options(running.url + "/echo/invoke", headers=other)
        assert refused.status_code == 403  # the guard refuses it before CORS
        assert "access-control-allow-origin" not in refused.headers
        posted = post(running, "/echo/invoke", {"input": 1},
                      headers={"Origin": "http://app.example"})  # fmt: skip
        assert posted.headers["access-control-allow-origin"] == "http://app.example"
    with pytest.raises(ConfigurationError, match="cors_origins must be non-empty strings"):
        create_app(cors_origins=[""])

"""Edges of what a route accepts, on a real server on loopback: an empty ``configurable``
on a route that takes none (as LangServe does: accepted), allowed config keys sent as
``null`` or with the wrong type, and the request-size limit at its boundary (a body of
exactly ``max_request_bytes`` is accepted, one byte more is refused with 413), with and
without a Content-Length header."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ragline.core import ConfigurableField, PromptTemplate, RunnableLambda
from ragline.serve import BackgroundServer, add_routes, create_app

pytestmark = pytest.mark.network

LIMIT = 200
JSON = {"Content-Type": "application/json"}
NAME = {"name": "Ann"}
SAID = {"text": "Hello Ann", "type": "StringPromptValue"}


def _greeting() -> Any:
    return PromptTemplate.from_template("Hello {name}").configurable_fields(
        template=ConfigurableField(id="greeting", description="the greeting template")
    )


def _seen_config(_: Any, config: Any) -> dict[str, Any]:
    return {key: config.get(key) for key in ("tags", "recursion_limit", "configurable")}


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    app = create_app()
    add_routes(app, _greeting(), path="/noconfig", config_keys=())
    add_routes(app, RunnableLambda(lambda x: x), path="/small", max_request_bytes=LIMIT)
    add_routes(app, RunnableLambda(_seen_config), path="/config",
               config_keys=("configurable", "tags", "metadata", "recursion_limit"))  # fmt: skip
    with BackgroundServer(app) as running:
        yield running


# ---------------------------------------------------------------- empty configurable


@pytest.mark.parametrize(
    ("config", "status"),
    [
        ({}, 200),
        ({"configurable": {}}, 200),
        ({"configurable": {}, "tags": ["x"]}, 200),
        ({"configurable": {"greeting": "Bye {name}"}}, 422),
    ],
    ids=["no-keys", "empty-configurable", "empty-configurable-and-tags", "a-value"],
)
def test_an_empty_configurable_is_accepted_where_configurable_is_not_allowed(
    server: BackgroundServer, config: dict[str, Any], status: int
) -> None:
    """A client's config is its whole config (LangServe's RemoteRunnable sends
    ``{"configurable": {}}`` when it has nothing to configure), so an empty one asks for
    nothing and runs as if absent; a value in it is refused (422), never silently
    dropped."""
    response = httpx.post(server.url + "/noconfig/invoke",
                          json={"input": NAME, "config": config}, timeout=30)  # fmt: skip
    assert response.status_code == status
    if status == 200:
        assert response.json()["output"] == SAID
    else:
        assert response.json()["detail"][0]["loc"] == ["config", "configurable"]


def test_langserves_client_and_server_agree_on_an_empty_configurable(
    server: BackgroundServer,
) -> None:
    """The oracle. LangServe's RemoteRunnable sends its whole config, with an empty
    ``configurable``, on every call: it reads ragline's route. LangServe's own server
    refuses only a non-empty ``configurable`` where it is not allowed (its
    ``config["configurable"]`` truthiness check), so on a runnable without configurable
    fields it accepts an empty one as ragline does. (On a runnable *with* them LangServe
    0.3 refuses even its own client: its config model fills in every field's default
    before that check. ragline keeps the check's intent instead.)"""
    langserve = pytest.importorskip("langserve")
    lc_prompt_values = pytest.importorskip("langchain_core.prompt_values")
    lc_runnables = pytest.importorskip("langchain_core.runnables")
    from fastapi import FastAPI

    remote = langserve.RemoteRunnable(server.url + "/noconfig")
    assert remote.invoke(NAME) == lc_prompt_values.StringPromptValue(text="Hello Ann")

    ours = create_app()
    add_routes(ours, RunnableLambda(lambda x: x), path="/plain", config_keys=())
    theirs = FastAPI()
    langserve.add_routes(theirs, lc_runnables.RunnableLambda(lambda x: x), path="/plain",
                         config_keys=())  # fmt: skip
    configs = [{}, {"configurable": {}}, {"configurable": {}, "tags": ["x"]}]
    with BackgroundServer(ours) as ragline_app, BackgroundServer(theirs) as reference:
        for config in configs:
            body = {"input": 1, "config": config}
            answers = [
                httpx.post(running.url + "/plain/invoke", json=body, timeout=30)
                for running in (ragline_app, reference)
            ]
            assert [(a.status_code, a.json()["output"]) for a in answers] == [(200, 1)] * 2


# ---------------------------------------------------------------- allowed config keys


def test_an_allowed_config_key_sent_as_null_is_taken_as_absent(server: BackgroundServer) -> None:
    """A client that sends ``null`` for a key (a config built with optional fields) gets
    the runnable's defaults, not a 422."""
    nulls = {"tags": None, "metadata": None, "recursion_limit": None, "configurable": None}
    response = httpx.post(server.url + "/config/invoke", json={"input": 1, "config": nulls},
                          timeout=30)  # fmt: skip
    assert response.status_code == 200
    assert response.json()["output"] == {"tags": [], "recursion_limit": 25, "configurable": {}}


def test_tags_must_all_be_strings(server: BackgroundServer) -> None:
    for tags in (["web", 1], "web"):
        response = httpx.post(server.url + "/config/invoke",
                              json={"input": 1, "config": {"tags": tags}}, timeout=30)  # fmt: skip
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == ["config", "tags"]
        assert response.json()["detail"][0]["msg"] == "expected a list of strings"
    ok = httpx.post(server.url + "/config/invoke",
                    json={"input": 1, "config": {"tags": ["web"]}}, timeout=30)  # fmt: skip
    assert ok.json()["output"]["tags"] == ["web"]


# ---------------------------------------------------------------- size limit boundary


def _body_of(size: int) -> bytes:
    """A JSON body of exactly ``size`` bytes: ``{"input": "xxx..."}``."""
    frame = len(b'{"input": ""}')
    body = b'{"input": "' + b"x" * (size - frame) + b'"}'
    assert len(body) == size
    return body


def test_a_body_exactly_at_the_limit_is_accepted_and_one_byte_more_is_refused(
    server: BackgroundServer,
) -> None:
    """With a Content-Length header the size is judged before reading; ``max_request_bytes``
    is the largest body taken."""
    url = server.url + "/small/invoke"
    at_limit = httpx.post(url, content=_body_of(LIMIT), headers=JSON, timeout=30)
    assert at_limit.status_code == 200
    assert at_limit.json()["output"] == "x" * (LIMIT - 13)
    over = httpx.post(url, content=_body_of(LIMIT + 1), headers=JSON, timeout=30)
    assert (over.status_code, over.json()) == (
        413,
        {"detail": f"request body of {LIMIT + 1} bytes is over the limit of {LIMIT}"},
    )


def test_a_chunked_body_exactly_at_the_limit_is_accepted_and_one_byte_more_is_refused(
    server: BackgroundServer,
) -> None:
    """Without Content-Length (chunked), the size is counted as the body arrives."""
    url = server.url + "/small/invoke"

    def chunked(size: int) -> httpx.Response:
        body = _body_of(size)
        parts = iter([body[:50], body[50:150], body[150:]])
        return httpx.post(url, content=parts, headers=JSON, timeout=30)

    at_limit = chunked(LIMIT)
    assert (at_limit.status_code, at_limit.json()["output"]) == (200, "x" * (LIMIT - 13))
    over = chunked(LIMIT + 1)
    assert (over.status_code, over.json()) == (
        413,
        {"detail": f"request body is over the limit of {LIMIT} bytes"},
    )

"""``add_routes``: serve a runnable over HTTP with LangServe's endpoints and wire format.

For a runnable added at ``path``::

    POST {path}/invoke          {"input", "config"}   -> {"output", "metadata"}
    POST {path}/batch           {"inputs", "config"}  -> {"output": [...], "metadata"}
    POST {path}/stream          server-sent events: metadata, data..., end (or error)
    POST {path}/stream_log      the same, each data a {"ops": [...]} JSON patch
    POST {path}/stream_events   the same, each data an astream_events event
    GET  {path}/input_schema, /output_schema, /config_schema    JSON Schemas
    GET  {path}/playground/     a page to try the runnable

The runnable runs on the server's event loop through its async methods (``ainvoke``,
``abatch``, ``astream`` ...), so sync code runs in worker threads. A streaming response
watches the connection: when the client goes away the run is cancelled at once (its
model stops, its callbacks see the error) instead of streaming into a closed socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import inspect
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from ragline.core import InvalidInputError, Runnable
from ragline.core._checks import check_choice, check_positive_int
from ragline.core._optional import require
from ragline.core.exceptions import ConfigurationError
from ragline.core.runnables.base import adopt_runnable
from ragline.serve._protocol import sse
from ragline.serve._serialization import dumps, loadd
from ragline.serve._validation import (
    ALLOWED_CONFIG_KEYS,
    DEFAULT_MAX_JSON_DEPTH,
    Refused,
    SchemaCheck,
    check_content_type,
    client_config,
    parse_body,
)

__all__ = [
    "DEFAULT_MAX_BATCH_SIZE",
    "DEFAULT_MAX_REQUEST_BYTES",
    "ENDPOINTS",
    "add_routes",
    "error_status",
]

logger = logging.getLogger("ragline.serve")

ENDPOINTS = (
    "invoke",
    "batch",
    "stream",
    "stream_log",
    "stream_events",
    "input_schema",
    "output_schema",
    "config_schema",
    "playground",
)
DEFAULT_MAX_REQUEST_BYTES = 1_000_000
DEFAULT_MAX_BATCH_SIZE = 100
_EVENT_FILTERS = (
    "include_names",
    "include_types",
    "include_tags",
    "exclude_names",
    "exclude_types",
    "exclude_tags",
)

ConfigModifier = Callable[[dict[str, Any], Any], "dict[str, Any] | Awaitable[dict[str, Any]]"]


def error_status(error: BaseException) -> int:
    """The HTTP status for an error a runnable raised: 422 for input it refused
    (``InvalidInputError``), else 500."""
    return 422 if isinstance(error, InvalidInputError) else 500


def _json_response(status: int, payload: Any) -> Any:
    from starlette.responses import Response

    return Response(dumps(payload), status_code=status, media_type="application/json")


class _EventStream:
    """An ASGI response streaming server-sent events that stops its producer when the
    client disconnects (Starlette's own response only notices at the next write)."""

    def __init__(self, events: AsyncIterator[bytes]) -> None:
        self.events = events
        self.headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-store"),
            (b"x-accel-buffering", b"no"),
        ]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def pump() -> None:
            await send({"type": "http.response.start", "status": 200, "headers": self.headers})
            async for chunk in self.events:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        producer = asyncio.ensure_future(pump())
        watcher = asyncio.ensure_future(disconnected())
        try:
            await asyncio.wait({producer, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            if not producer.done():
                producer.cancel()  # the client went away: stop the run now
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await producer
            aclose = getattr(self.events, "aclose", None)
            if aclose is not None:
                await aclose()


class _Route:
    """The endpoints of one runnable at one path."""

    def __init__(
        self,
        runnable: Runnable[Any, Any],
        *,
        config_keys: Sequence[str],
        per_req_config_modifier: ConfigModifier | None,
        api_key: str | None,
        api_key_header: str,
        max_request_bytes: int,
        max_batch_size: int,
        max_json_depth: int,
        path: str,
        input_schema: Mapping[str, Any] | None,
    ) -> None:
        self.runnable = runnable
        self.declared_input = dict(input_schema) if input_schema is not None else None
        self.config_keys = tuple(config_keys)
        self.modifier = per_req_config_modifier
        self.api_key = api_key.encode() if api_key is not None else None
        self.api_key_header = api_key_header
        self.max_request_bytes = max_request_bytes
        self.max_batch_size = max_batch_size
        self.max_json_depth = max_json_depth
        self.path = path
        self._input_check: SchemaCheck | None = None
        self._configurable: dict[str, SchemaCheck | None] | None = None

    # ------------------------------------------------------------ what a request carries
    def _authorize(self, request: Any) -> None:
        if self.api_key is None:
            return
        given = request.headers.get(self.api_key_header, "").encode()
        if not hmac.compare_digest(given, self.api_key):
            raise Refused(401, f"missing or wrong API key (send it in the {self.api_key_header} "
                               "header)")  # fmt: skip

    async def _body(self, request: Any) -> dict[str, Any]:
        self._authorize(request)
        check_content_type(request.headers.get("content-type", ""))
        limit = self.max_request_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise Refused(413, f"request body of {declared} bytes is over the limit of {limit}")
        from starlette.requests import ClientDisconnect

        parts, size = [], 0
        try:
            async for part in request.stream():
                size += len(part)
                if size > limit:
                    raise Refused(413, f"request body is over the limit of {limit} bytes")
                parts.append(part)
        except ClientDisconnect:  # gone, or cut off for sending too slowly: nobody to tell
            raise Refused(400, "the client went away before sending the whole body") from None
        body = parse_body(b"".join(parts), max_depth=self.max_json_depth)
        if not isinstance(body, dict):
            raise Refused(422, f"request body must be a JSON object, got {type(body).__name__}")
        if body.get("kwargs"):
            raise Refused(422, "kwargs are not accepted; pass options in the input or config")
        return body

    def _check_input(self, value: Any, where: str) -> Any:
        if self._input_check is None:
            self._input_check = SchemaCheck(self._input_schema())
        return loadd(self._input_check.check(value, where))

    def _input_schema(self) -> dict[str, Any] | None:
        if self.declared_input is not None:
            return self.declared_input
        return dict(self.runnable.get_input_jsonschema())

    def _configurable_checks(self) -> dict[str, SchemaCheck | None]:
        if self._configurable is None:
            checks: dict[str, SchemaCheck | None] = {
                spec.id: None for spec in self.runnable.config_specs
            }
            schema = self.runnable.get_config_jsonschema()
            defined = schema.get("$defs", {}).get("Configurable", {}).get("properties", {})
            for name, entry in defined.items():
                if name in checks:
                    checks[name] = SchemaCheck(entry)
            self._configurable = checks
        return self._configurable

    async def _config(self, sent: Any, request: Any) -> dict[str, Any]:
        config = client_config(
            sent, config_keys=self.config_keys, configurable_ids=self._configurable_checks()
        )
        if self.modifier is not None:
            modified = self.modifier(config, request)
            config = dict(await modified if inspect.isawaitable(modified) else modified)
        config["run_id"] = uuid.uuid4()
        return config

    async def _item_config(self, sent: Any, request: Any, index: int) -> dict[str, Any]:
        """The config of one batch item; a refusal names the item (``config[2]...``)."""
        try:
            return await self._config(sent, request)
        except Refused as refused:
            detail = refused.detail
            if isinstance(detail, list):
                detail = [{**p, "loc": ["config", index, *p.get("loc", [])[1:]]}
                          if isinstance(p, dict) else p for p in detail]  # fmt: skip
            else:
                detail = f"config[{index}]: {detail}"
            raise Refused(refused.status_code, detail) from None

    async def _one(self, request: Any) -> tuple[dict[str, Any], Any, dict[str, Any]]:
        body = await self._body(request)
        if "input" not in body:
            raise Refused(422, [{"type": "missing", "loc": ["input"], "msg": "field required"}])
        value = self._check_input(body["input"], "input")
        return body, value, await self._config(body.get("config"), request)

    # ------------------------------------------------------------ the endpoints
    async def invoke(self, request: Any) -> Any:
        _, value, config = await self._one(request)
        try:
            output = await self.runnable.ainvoke(value, config)
        except Exception as err:
            return _failure(err, self.path)
        metadata = {"run_id": str(config["run_id"]), "feedback_tokens": []}
        return _json_response(200, {"output": output, "metadata": metadata})

    async def batch(self, request: Any) -> Any:
        body = await self._body(request)
        inputs = body.get("inputs")
        if not isinstance(inputs, list):
            raise Refused(422, [{"type": "value_error", "loc": ["inputs"],
                                 "msg": "expected a list of inputs"}])  # fmt: skip
        if len(inputs) > self.max_batch_size:
            raise Refused(422, [{"type": "value_error", "loc": ["inputs"],
                                 "msg": f"a batch of {len(inputs)} inputs is over this server's "
                                        f"limit of {self.max_batch_size} (max_batch_size); "
                                        "send smaller batches"}])  # fmt: skip
        values = [self._check_input(item, f"inputs[{i}]") for i, item in enumerate(inputs)]
        sent = body.get("config")
        if isinstance(sent, list):
            if len(sent) != len(inputs):
                raise Refused(422, f"got {len(sent)} configs for {len(inputs)} inputs")
            configs = [await self._item_config(one, request, i) for i, one in enumerate(sent)]
        else:
            configs = [await self._config(sent, request) for _ in inputs]
        try:
            outputs = await self.runnable.abatch(values, configs) if values else []
        except Exception as err:
            return _failure(err, self.path)
        run_ids = [str(config["run_id"]) for config in configs]
        metadata = {
            "run_ids": run_ids,
            "responses": [{"run_id": run_id, "feedback_tokens": []} for run_id in run_ids],
        }
        return _json_response(200, {"output": outputs, "metadata": metadata})

    async def stream(self, request: Any) -> Any:
        _, value, config = await self._one(request)
        return _EventStream(_events(self.runnable.astream(value, config), config, self.path))

    async def stream_log(self, request: Any) -> Any:
        body, value, config = await self._one(request)
        filters = {key: body[key] for key in _EVENT_FILTERS if body.get(key) is not None}
        patches = self.runnable.astream_log(value, config, diff=True, **filters)
        return _EventStream(_events(patches, None, self.path, lambda p: {"ops": p.ops}))

    async def stream_events(self, request: Any) -> Any:
        body, value, config = await self._one(request)
        filters = {key: body[key] for key in _EVENT_FILTERS if body.get(key) is not None}
        events = self.runnable.astream_events(value, config, version="v2", **filters)
        return _EventStream(_events(events, None, self.path, _public_event))

    async def input_schema(self, request: Any) -> Any:
        self._authorize(request)
        if self.declared_input is not None:
            return _json_response(200, self.declared_input)
        return _json_response(200, self.runnable.get_input_jsonschema())

    async def output_schema(self, request: Any) -> Any:
        self._authorize(request)
        return _json_response(200, self.runnable.get_output_jsonschema())

    async def config_schema(self, request: Any) -> Any:
        self._authorize(request)
        schema = self.runnable.get_config_jsonschema(include=list(self.config_keys))
        return _json_response(200, schema)

    async def playground(self, request: Any) -> Any:
        from starlette.responses import HTMLResponse

        page = resources.files("ragline.serve").joinpath("static/playground.html").read_text()
        title = self.runnable.get_name()
        page = page.replace("{{BASE}}", json.dumps(self.path)).replace("{{TITLE}}", title)
        return HTMLResponse(page)


async def _events(
    source: AsyncIterator[Any],
    config: Mapping[str, Any] | None,
    path: str,
    shape: Callable[[Any], Any] = lambda chunk: chunk,
) -> AsyncIterator[bytes]:
    """The event stream of a run: metadata (the run id in ``config``; LangServe sends it
    on /stream only, and its client warns about it elsewhere), one data event per item,
    then end (or error). Closing it (the client went away) closes ``source``, ending
    the run."""
    if config is not None:
        yield sse("metadata", json.dumps({"run_id": str(config["run_id"])}))
    try:
        async for item in source:
            yield sse("data", dumps(shape(item)))
    except Exception as err:
        status = error_status(err)
        if status == 500:
            logger.exception("%s/stream failed", path or "/")
        yield sse("error", json.dumps({"status_code": status, "message": str(err)}))
        return
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            await aclose()
    yield sse("end")


def _public_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """An ``astream_events`` event without the metadata keys ragline uses internally."""
    shown = dict(event)
    metadata = shown.get("metadata")
    if isinstance(metadata, Mapping):
        shown["metadata"] = {k: v for k, v in metadata.items() if not str(k).startswith("__")}
    return shown


def _failure(error: Exception, path: str) -> Any:
    status = error_status(error)
    if status == 500:
        logger.exception("%s failed", path or "/")
    return _json_response(status, {"detail": str(error), "error_type": type(error).__name__})


def _refusals(handler: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
    async def endpoint(request: Any) -> Any:
        try:
            return await handler(request)
        except Refused as refused:
            return _json_response(refused.status_code, {"detail": refused.detail})

    endpoint.__name__ = handler.__name__
    return endpoint


PLAYGROUND_TYPES = ("default", "chat")


def add_routes(
    app: Any,
    runnable: Runnable[Any, Any],
    *,
    path: str = "",
    config_keys: Sequence[str] = ("configurable",),
    per_req_config_modifier: ConfigModifier | None = None,
    api_key: str | None = None,
    api_key_header: str = "X-API-Key",
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    max_batch_size: int = DEFAULT_MAX_BATCH_SIZE,
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
    enabled_endpoints: Sequence[str] | None = None,
    input_schema: Mapping[str, Any] | None = None,
    playground_type: str = "default",
) -> None:
    """Serve ``runnable`` on a FastAPI (or Starlette) ``app`` under ``path``, as LangServe.

    Args:
        app: the FastAPI or Starlette application.
        runnable: what to serve.
        path: the URL prefix (``"/chain"``); ``""`` serves at the root.
        config_keys: the config keys a client may set (default: only ``configurable``,
            and of it only the ids the runnable declares); also ``tags``, ``metadata``,
            ``recursion_limit``, ``max_concurrency``. Callbacks, ``run_name`` and
            ``run_id`` can never come from a client.
        per_req_config_modifier: ``f(config, request) -> config`` (or a coroutine
            function) applied last, to set per-user values (a session id, a filter)
            from the request (its headers, its user).
        api_key: when set, every request except the playground page must carry it in
            the ``api_key_header`` header (compared in constant time), else 401.
        api_key_header: the header that carries the key.
        max_request_bytes: larger request bodies are refused with 413.
        max_batch_size: a ``/batch`` request with more inputs is refused with 422.
        max_json_depth: a request body nesting objects and lists deeper is refused
            with 422 (as is one holding text that is not valid Unicode). POST bodies
            must be sent as ``Content-Type: application/json`` (else 415).
        enabled_endpoints: serve only these of :data:`ENDPOINTS` (default: all).
        input_schema: the JSON Schema requests' inputs are checked against and
            ``/input_schema`` publishes (default: the runnable's own).
        playground_type: LangServe's ``"default"`` or ``"chat"``; both serve ragline's
            one playground page (it takes any input, chat messages included).

    Raises:
        ConfigurationError: an unknown endpoint or config key, a path that does not
            start with ``/`` or ends with one, an empty API key.

    Example:
        >>> from fastapi import FastAPI  # doctest: +SKIP
        >>> from ragline.core import RunnableLambda  # doctest: +SKIP
        >>> app = FastAPI()  # doctest: +SKIP
        >>> add_routes(app, RunnableLambda(lambda x: x * 2), path="/double")  # doctest: +SKIP
    """
    require("starlette", "serve")
    adopted = adopt_runnable(runnable)  # another library's too (interop registers)
    if adopted is None:
        raise ConfigurationError(f"add_routes serves a Runnable, got {type(runnable).__name__}")
    runnable = adopted
    if path and (not path.startswith("/") or path.endswith("/")):
        raise ConfigurationError(f"path must start with '/' and not end with it, got {path!r}")
    unknown = [key for key in config_keys if key not in ALLOWED_CONFIG_KEYS]
    if unknown:
        raise ConfigurationError(
            f"config_keys {unknown} cannot come from clients; allowed: "
            f"{', '.join(ALLOWED_CONFIG_KEYS)}"
        )
    check_choice("playground_type", playground_type, PLAYGROUND_TYPES)
    endpoints = list(ENDPOINTS if enabled_endpoints is None else enabled_endpoints)
    bad = [name for name in endpoints if name not in ENDPOINTS]
    if bad:
        raise ConfigurationError(f"unknown endpoints {bad}; known: {', '.join(ENDPOINTS)}")
    if api_key is not None and (not isinstance(api_key, str) or not api_key):
        raise ConfigurationError("api_key must be a non-empty string (or None for no key)")
    route = _Route(
        runnable,
        config_keys=config_keys,
        per_req_config_modifier=per_req_config_modifier,
        api_key=api_key,
        api_key_header=api_key_header,
        max_request_bytes=check_positive_int("max_request_bytes", max_request_bytes),
        max_batch_size=check_positive_int("max_batch_size", max_batch_size),
        max_json_depth=check_positive_int("max_json_depth", max_json_depth),
        path=path,
        input_schema=input_schema,
    )
    for name in endpoints:
        handler = _refusals(getattr(route, name))
        if name == "playground":
            for suffix in ("/playground", "/playground/"):
                app.router.add_route(f"{path}{suffix}", handler, methods=["GET"])
            continue
        method = "GET" if name.endswith("_schema") else "POST"
        app.router.add_route(f"{path}/{name}", handler, methods=[method])

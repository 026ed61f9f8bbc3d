"""``RemoteRunnable``: a runnable served elsewhere (``add_routes``, LangServe), called
like a local one.

``invoke`` / ``batch`` / ``stream`` and their async twins post to the server's
endpoints and decode the output back into ragline objects (Documents, messages, agent
steps ...); ``astream_events`` and ``astream_log`` stream the server run's events. It
composes with ``|`` and ``with_config`` like any runnable, and reports one chain run to
local callbacks. The config sent is the JSON-ready part of tags, metadata, configurable
values and limits: callbacks stay local.

The logic of each call is written once as an operation (``core/_drive.py``) whose
effect is a post, sent with httpx by the sync or the async driver. Errors:
:class:`~ragline.core.exceptions.ServerError` with the server's message and status,
:class:`~ragline.core.exceptions.ServerTimeoutError` and
:class:`~ragline.core.exceptions.StoreConnectionError` naming the URL.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragline.core import Runnable, RunnableConfig
from ragline.core._checks import check_optional_number, check_positive_int
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core._optional import require
from ragline.core.config import ensure_config, get_config_list
from ragline.core.exceptions import (
    ConfigurationError,
    ServerTimeoutError,
    StoreConnectionError,
)
from ragline.serve._protocol import (
    MAX_RESPONSE_BYTES,
    MAX_RESPONSE_HEADERS,
    check_answer_head,
    check_event_stream,
    config_for_server,
    json_answer,
    raise_for_error_event,
    server_error,
    too_large,
)
from ragline.serve._serialization import dumpd

__all__ = ["RemoteRunnable"]


@dataclass(frozen=True)
class _Post:
    endpoint: str
    payload: dict[str, Any]


class _EventReader:
    """Server-sent events from lines fed one at a time (the sync and async streams)."""

    def __init__(self) -> None:
        self.event, self.data = "", []  # type: tuple[str, list[str]]

    def feed(self, line: str) -> tuple[str, str] | None:
        line = line.rstrip("\r\n")
        if not line:
            done = (self.event or "message", "\n".join(self.data))
            had = bool(self.event or self.data)
            self.event, self.data = "", []
            return done if had else None
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            self.event = value
        elif field == "data":
            self.data.append(value)
        return None


class RemoteRunnable(Runnable[Any, Any]):
    """A runnable on a server made with ``add_routes`` (ragline's or LangServe's).

    Args:
        url: the runnable's URL, the ``path`` it was added at
            (``"http://127.0.0.1:8000/ask"``).
        timeout: seconds to wait for the server (to connect, and between streamed
            chunks); ``None`` waits for ever. Default 60.
        headers: extra HTTP headers sent with every request.
        api_key: sent in ``api_key_header`` when the server asks for a key.
        api_key_header: the header for ``api_key`` (``add_routes``' default).
        name: the name reported to callbacks (default: ``RemoteRunnable``).
        max_response_headers: more header lines than this in an answer is a
            ``ServerError`` (default 100).
        max_response_bytes: an answer (a stream: the whole stream) longer than this is
            a ``ServerError`` instead of filling memory (default 64 MiB).

    Raises:
        ConfigurationError: a URL that is not http(s).
        InvalidInputError: a limit that is not a positive int.

    A wrong or hostile server gives a one-line ``ServerError`` naming the URL: a
    redirect (not followed), too many headers, too long a body, or a body that is not
    JSON (an HTML page).

    Example:
        >>> remote = RemoteRunnable("http://127.0.0.1:8000/ask")  # doctest: +SKIP
        >>> remote.invoke({"input": "What is Etna?"})["answer"]  # doctest: +SKIP
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float | None = 60.0,
        headers: Mapping[str, str] | None = None,
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
        name: str | None = None,
        max_response_headers: int = MAX_RESPONSE_HEADERS,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigurationError(f"RemoteRunnable needs an http(s) URL, got {url!r}")
        self.url = url.rstrip("/")
        self.timeout = check_optional_number("timeout", timeout, low=0, low_open=True)
        self.headers = dict(headers or {})
        if api_key is not None:
            self.headers[api_key_header] = api_key
        self.name = name
        self.max_response_headers = check_positive_int("max_response_headers", max_response_headers)
        self.max_response_bytes = check_positive_int("max_response_bytes", max_response_bytes)
        self._client: Any = None
        self._async_clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"RemoteRunnable({self.url!r})"

    # ------------------------------------------------------------ transport
    def _httpx(self) -> Any:
        return require("httpx", "serve")

    def _sync_client(self) -> Any:
        if self._client is None:
            httpx = self._httpx()
            self._client = httpx.Client(timeout=self.timeout, headers=self.headers)
        return self._client

    def _async_client(self) -> Any:
        loop = asyncio.get_running_loop()  # an AsyncClient belongs to one event loop
        client = self._async_clients.get(loop)
        if client is None:
            httpx = self._httpx()
            client = httpx.AsyncClient(timeout=self.timeout, headers=self.headers)
            self._async_clients[loop] = client
        return client

    def _mapped(self, err: Exception, endpoint: str) -> Exception:
        httpx = self._httpx()
        url = f"{self.url}/{endpoint}"
        if isinstance(err, httpx.TimeoutException):
            return ServerTimeoutError(f"{url} did not answer within {self.timeout} s")
        if isinstance(err, httpx.RemoteProtocolError):  # an answer httpx cannot parse
            return StoreConnectionError(
                f"{url} broke the HTTP protocol ({err}); is it a ragline server?"
            )
        if isinstance(err, httpx.TransportError):
            return StoreConnectionError(f"cannot reach {url}: {err}")
        return err

    def _check_head(self, url: str, response: Any) -> None:
        check_answer_head(
            url, response.status_code, response.headers,
            header_count=len(response.headers.raw),
            max_headers=self.max_response_headers, max_bytes=self.max_response_bytes,
        )  # fmt: skip

    def _add(self, url: str, body: bytearray, piece: bytes) -> None:
        body += piece
        if len(body) > self.max_response_bytes:
            raise too_large(url, self.max_response_bytes)

    def _answer(self, url: str, response: Any, body: bytearray) -> Any:
        if response.status_code >= 400:
            raise server_error(url, response.status_code, body.decode(errors="replace"))
        content_type = response.headers.get("content-type", "")
        return json_answer(url, response.status_code, content_type, bytes(body))

    def _request(self, method: str, endpoint: str, payload: Any = None) -> Any:
        """One request, its body read up to ``max_response_bytes``; the decoded answer."""
        url, body = f"{self.url}/{endpoint}", bytearray()
        options = {} if payload is None else {"json": payload}
        try:
            with self._sync_client().stream(method, url, **options) as response:
                self._check_head(url, response)
                for piece in response.iter_bytes():
                    self._add(url, body, piece)
        except self._httpx().HTTPError as err:
            raise self._mapped(err, endpoint) from err
        return self._answer(url, response, body)

    async def _arequest(self, method: str, endpoint: str, payload: Any = None) -> Any:
        url, body = f"{self.url}/{endpoint}", bytearray()
        options = {} if payload is None else {"json": payload}
        try:
            async with self._async_client().stream(method, url, **options) as response:
                self._check_head(url, response)
                async for piece in response.aiter_bytes():
                    self._add(url, body, piece)
        except self._httpx().HTTPError as err:
            raise self._mapped(err, endpoint) from err
        return self._answer(url, response, body)

    def _send(self, post: _Post) -> Any:
        return self._request("POST", post.endpoint, post.payload)

    async def _asend(self, post: _Post) -> Any:
        return await self._arequest("POST", post.endpoint, post.payload)

    def _events(self, post: _Post) -> Iterator[tuple[str, str]]:
        url, reader = f"{self.url}/{post.endpoint}", _EventReader()
        try:
            with self._sync_client().stream("POST", url, json=post.payload) as response:
                self._check_head(url, response)
                if response.status_code >= 400:
                    body = bytearray()
                    for piece in response.iter_bytes():
                        self._add(url, body, piece)
                    self._answer(url, response, body)
                content_type = response.headers.get("content-type", "")
                check_event_stream(url, response.status_code, content_type)
                read = 0
                for line in response.iter_lines():
                    read += len(line) + 1
                    if read > self.max_response_bytes:
                        raise too_large(url, self.max_response_bytes)
                    if (event := reader.feed(line)) is not None:
                        yield event
        except self._httpx().HTTPError as err:
            raise self._mapped(err, post.endpoint) from err

    async def _aevents(self, post: _Post) -> AsyncIterator[tuple[str, str]]:
        url, reader = f"{self.url}/{post.endpoint}", _EventReader()
        try:
            async with self._async_client().stream("POST", url, json=post.payload) as response:
                self._check_head(url, response)
                if response.status_code >= 400:
                    body = bytearray()
                    async for piece in response.aiter_bytes():
                        self._add(url, body, piece)
                    self._answer(url, response, body)
                content_type = response.headers.get("content-type", "")
                check_event_stream(url, response.status_code, content_type)
                read = 0
                async for line in response.aiter_lines():
                    read += len(line) + 1
                    if read > self.max_response_bytes:
                        raise too_large(url, self.max_response_bytes)
                    if (event := reader.feed(line)) is not None:
                        yield event
        except self._httpx().HTTPError as err:
            raise self._mapped(err, post.endpoint) from err

    def _data(self, endpoint: str, event: tuple[str, str]) -> tuple[bool, Any]:
        """``(True, item)`` for a data event; ``(False, None)`` for the others; raises
        the server's error for an error event."""
        kind, data = event
        raise_for_error_event(f"{self.url}/{endpoint}", kind, data)
        if kind != "data":
            return False, None
        return True, json_answer(f"{self.url}/{endpoint}", 200, "an event", data.encode())

    # ------------------------------------------------------------ the operations
    def _payload(self, input: Any, config: RunnableConfig | None) -> dict[str, Any]:
        return {"input": dumpd(input), "config": config_for_server(ensure_config(config))}

    def _post(self, endpoint: str, payload: dict[str, Any]) -> Effect:
        return Effect(self._send, self._asend, _Post(endpoint, payload))

    def _invoke_operation(self, payload: dict[str, Any]) -> Operation[Any]:
        answer = yield self._post("invoke", payload)
        return answer["output"]

    def _batch_operation(self, payload: dict[str, Any]) -> Operation[list[Any]]:
        answer = yield self._post("batch", payload)
        return list(answer["output"])

    # ------------------------------------------------------------ the Runnable methods
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run on the server and return its output, decoded into ragline objects.

        Raises:
            ServerError: the server refused the input (422) or the runnable failed
                (500), with the server's message.
            ServerTimeoutError, StoreConnectionError: no answer, naming the URL.
        """
        self._reject_kwargs(kwargs)
        payload = self._payload(input, config)
        return self._call_with_config(
            lambda _: drive(self._invoke_operation(payload)), input, config
        )

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async :meth:`invoke`."""
        self._reject_kwargs(kwargs)
        payload = self._payload(input, config)

        async def run(_: Any) -> Any:
            return await adrive(self._invoke_operation(payload))

        return await self._acall_with_config(run, input, config)

    def _batch_payload(self, inputs: list[Any], config: Any) -> dict[str, Any]:
        configs = [
            config_for_server(ensure_config(c)) for c in get_config_list(config, len(inputs))
        ]
        same = all(c == configs[0] for c in configs)
        return {"inputs": dumpd(inputs), "config": configs[0] if same else configs}

    def batch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """One ``/batch`` request for all inputs (with ``return_exceptions``: one
        ``/invoke`` per input, so each failure stands in its place)."""
        inputs = list(inputs)
        if return_exceptions or not inputs:
            return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)
        self._reject_kwargs(kwargs)
        payload = self._batch_payload(inputs, config)

        def body(_: list[Any], __: list[RunnableConfig]) -> list[Any]:
            return drive(self._batch_operation(payload))

        return self._batch_with_config(inputs, config, body, return_exceptions=False)

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Async :meth:`batch`."""
        inputs = list(inputs)
        if return_exceptions or not inputs:
            return await super().abatch(
                inputs, config, return_exceptions=return_exceptions, **kwargs
            )
        self._reject_kwargs(kwargs)
        payload = self._batch_payload(inputs, config)

        async def body(_: list[Any], __: list[RunnableConfig]) -> list[Any]:
            return await adrive(self._batch_operation(payload))

        return await self._abatch_with_config(inputs, config, body, return_exceptions=False)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Yield the output's chunks as the server streams them."""
        self._reject_kwargs(kwargs)
        post = _Post("stream", self._payload(input, config))

        def chunks(_: Iterator[Any]) -> Iterator[Any]:
            for event in self._events(post):
                is_data, chunk = self._data(post.endpoint, event)
                if is_data:
                    yield chunk

        yield from self._transform_stream_with_config(iter([input]), chunks, config)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async :meth:`stream`."""
        self._reject_kwargs(kwargs)
        post = _Post("stream", self._payload(input, config))

        async def chunks(_: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async for event in self._aevents(post):
                is_data, chunk = self._data(post.endpoint, event)
                if is_data:
                    yield chunk

        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._atransform_stream_with_config(one(), chunks, config):
            yield chunk

    async def _stream_items(
        self, endpoint: str, input: Any, config: RunnableConfig | None, **options: Any
    ) -> AsyncIterator[Any]:
        payload = {**self._payload(input, config), **options}
        async for event in self._aevents(_Post(endpoint, payload)):
            is_data, item = self._data(endpoint, event)
            if is_data:
                yield item

    async def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """The server run's ``astream_events`` events (``version`` is the server's)."""
        self._reject_kwargs(kwargs)
        filters = _filters(include_names, include_types, include_tags,
                           exclude_names, exclude_types, exclude_tags)  # fmt: skip
        async for event in self._stream_items("stream_events", input, config, **filters):
            yield event

    async def astream_log(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """The server run's log as JSON patches: each item ``{"ops": [...]}``."""
        self._reject_kwargs(kwargs)
        filters = _filters(include_names, include_types, include_tags,
                           exclude_names, exclude_types, exclude_tags)  # fmt: skip
        async for patch in self._stream_items("stream_log", input, config, diff=True, **filters):
            yield patch

    # ------------------------------------------------------------ schemas
    def _get(self, endpoint: str) -> Any:
        return self._request("GET", endpoint)

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The server's input schema (``GET {url}/input_schema``)."""
        return dict(self._get("input_schema"))

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The server's output schema (``GET {url}/output_schema``)."""
        return dict(self._get("output_schema"))

    def get_config_jsonschema(self, *, include: list[str] | None = None) -> dict[str, Any]:
        """The config the server lets clients set (``GET {url}/config_schema``)."""
        return dict(self._get("config_schema"))

    # ------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the sync connection pool (async pools close with their event loop)."""
        if self._client is not None:
            self._client.close()
            self._client = None


def _filters(*values: Sequence[str] | None) -> dict[str, Any]:
    names = ("include_names", "include_types", "include_tags",
             "exclude_names", "exclude_types", "exclude_tags")  # fmt: skip
    return {
        name: list(value) for name, value in zip(names, values, strict=True) if value is not None
    }

"""A small standard-library client for the command line's ``--server`` mode.

``ragline query --server URL`` should cost milliseconds, and most of a cold command's
time is imports: this client speaks the same protocol as ``RemoteRunnable`` (JSON
posts, server-sent events, the same error mapping in ``_protocol``) over
``http.client``, without importing httpx or the model classes.
"""

from __future__ import annotations

import http.client
import urllib.parse
from collections.abc import Iterator, Mapping
from typing import Any

from ragline.core.exceptions import ServerTimeoutError, StoreConnectionError
from ragline.serve._protocol import iter_sse, raise_for_error_event, server_error
from ragline.serve._serialization import dumps, loads

__all__ = ["get", "post", "stream"]


def _open(url: str, payload: Any, timeout: float, headers: Mapping[str, str]) -> Any:
    """Send the request (a GET when ``payload`` is None) and return the response."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise StoreConnectionError(f"not an http(s) server URL: {url!r}")
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname, parts.port, timeout=timeout)
    body = None if payload is None else dumps(payload).encode()
    try:
        connection.request(
            "GET" if body is None else "POST",
            parts.path or "/",
            body=body,
            headers={"Content-Type": "application/json", **headers},
        )
        response = connection.getresponse()
    except TimeoutError as err:
        raise ServerTimeoutError(f"{url} did not answer within {timeout} s") from err
    except OSError as err:
        raise StoreConnectionError(f"cannot reach {url}: {err}") from err
    if response.status >= 400:
        raise server_error(url, response.status, response.read().decode(errors="replace"))
    return response


def get(url: str, *, timeout: float = 60.0, headers: Mapping[str, str] | None = None) -> Any:
    """GET ``url`` and return the decoded JSON answer."""
    return post(url, None, timeout=timeout, headers=headers)


def post(
    url: str, payload: Any, *, timeout: float = 60.0, headers: Mapping[str, str] | None = None
) -> Any:
    """POST ``payload`` as JSON (None: a GET) and return the decoded JSON answer."""
    response = _open(url, payload, timeout, headers or {})
    try:
        return loads(response.read())
    except TimeoutError as err:
        raise ServerTimeoutError(f"{url} did not answer within {timeout} s") from err


def stream(
    url: str, payload: Any, *, timeout: float = 60.0, headers: Mapping[str, str] | None = None
) -> Iterator[Any]:
    """POST ``payload`` to a streaming endpoint and yield each data event's item as it
    arrives; an error event raises the server's error."""
    response = _open(url, payload, timeout, headers or {})
    lines = (raw.decode("utf-8", errors="replace") for raw in response)
    try:
        for event, data in iter_sse(lines):
            raise_for_error_event(url, event, data)
            if event == "data":
                yield loads(data)
            elif event == "end":
                return
    except TimeoutError as err:
        raise ServerTimeoutError(f"{url} stopped answering for {timeout} s") from err
    finally:
        response.close()

"""LangServe's wire protocol, written once for the server and both clients.

Requests are JSON: ``POST {path}/invoke`` takes ``{"input", "config", "kwargs"}`` and
answers ``{"output", "metadata": {"run_id", "feedback_tokens"}}``; ``/batch`` takes
``{"inputs", "config"}`` (one config or one per input) and answers ``{"output": [...],
"metadata": {"run_ids", "responses"}}``. The streaming endpoints answer with
server-sent events::

    event: metadata
    data: {"run_id": "..."}

    event: data
    data: <one chunk, as JSON>

    event: end

A failure after the stream began is an ``error`` event whose data is
``{"status_code": 500, "message": "..."}``, and ends the stream. Errors before it are
HTTP statuses with a JSON body ``{"detail": ...}`` (422: the input or config does not
fit; 401: the API key; 413: the request is too large; 500: the runnable raised).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ragline.core.exceptions import ServerError
from ragline.serve._serialization import loads

__all__ = [
    "MAX_RESPONSE_BYTES",
    "MAX_RESPONSE_HEADERS",
    "SENDABLE_CONFIG_KEYS",
    "check_answer_head",
    "check_event_stream",
    "config_for_server",
    "error_message",
    "iter_sse",
    "json_answer",
    "raise_for_error_event",
    "server_error",
    "sse",
    "too_large",
    "too_many_headers",
]

# what a client sends of its config (callbacks, run ids and anything else stay local)
SENDABLE_CONFIG_KEYS = ("tags", "metadata", "configurable", "recursion_limit", "max_concurrency")


MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""The most bytes a client reads of one answer (a stream: of the whole stream) unless
told otherwise (``max_response_bytes=``): an endless or huge body from a wrong or hostile
server is an error, not a MemoryError."""

MAX_RESPONSE_HEADERS = 100
"""The most header lines a client accepts in one answer (``max_response_headers=``)."""


def too_large(url: str, max_bytes: int) -> ServerError:
    """The error for an answer longer than ``max_bytes``."""
    return ServerError(
        f"{url} sent an answer over {max_bytes} bytes (the client's max_response_bytes); "
        "is it a ragline server?",
        status_code=200,
        url=url,
    )


def too_many_headers(url: str, status: int, max_headers: int) -> ServerError:
    """The error for an answer with more than ``max_headers`` header lines."""
    return ServerError(
        f"{url} sent more than {max_headers} headers (the client's max_response_headers); "
        "is it a ragline server?",
        status_code=status,
        url=url,
    )


def check_answer_head(
    url: str,
    status: int,
    headers: Mapping[str, str],
    *,
    header_count: int,
    max_headers: int,
    max_bytes: int,
) -> None:
    """Refuse an answer by its status line and headers, before its body is read: too many
    headers, a redirect (clients do not follow them: a redirected POST is a different
    request), or a ``Content-Length`` over ``max_bytes``. ``headers`` has lower-case
    names.

    Raises:
        ServerError: names the URL and what was wrong.
    """
    if header_count > max_headers:
        raise too_many_headers(url, status, max_headers)
    if 300 <= status < 400:
        where = headers.get("location", "")[:200] or "nowhere"
        raise ServerError(
            f"{url} answered {status}, a redirect to {where}; ragline clients do not follow "
            "redirects: give the final URL",
            status_code=status,
            url=url,
        )
    length = headers.get("content-length", "").strip()
    if length.isdigit() and int(length) > max_bytes:
        raise too_large(url, max_bytes)


def check_event_stream(url: str, status: int, content_type: str) -> None:
    """Refuse a streaming answer that says it is something else than
    ``text/event-stream`` (an HTML page from a proxy would otherwise read as a stream
    with no events); an answer without a Content-Type is read as events.

    Raises:
        ServerError: names the URL and the Content-Type.
    """
    if content_type and not content_type.lower().startswith("text/event-stream"):
        raise ServerError(
            f"{url} answered {status} with {content_type}, not a text/event-stream; is it a "
            "ragline server URL?",
            status_code=status,
            url=url,
        )


def json_answer(url: str, status: int, content_type: str, body: bytes) -> Any:
    """Decode a JSON answer with ragline's serialization.

    Raises:
        ServerError: the body is not JSON (an HTML page from a proxy or another server);
            names the URL, the Content-Type and how the body starts.
    """
    try:
        return loads(body)
    except (ValueError, RecursionError) as err:
        raise ServerError(
            f"{url} answered {status} with {content_type or 'no Content-Type'}, not JSON "
            f"(it starts {body[:40]!r}); is it a ragline server URL?",
            status_code=status,
            url=url,
        ) from err


def sse(event: str, data: str | None = None) -> bytes:
    """One server-sent event; multi-line data is split over ``data:`` lines."""
    lines = [f"event: {event}"]
    if data is not None:
        lines.extend(f"data: {line}" for line in data.split("\n"))
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def iter_sse(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(event, data)`` pairs from the lines of an event stream, as each event ends.

    Comment lines (``:``) and ``id`` / ``retry`` fields are skipped; an event without an
    ``event`` field is a ``message`` event, as browsers name it.
    """
    event, data = "", []  # type: tuple[str, list[str]]
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if event or data:
                yield event or "message", "\n".join(data)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
    if event or data:
        yield event or "message", "\n".join(data)


def error_message(body: str) -> str:
    """The message of an error body: FastAPI's ``detail`` (a text, or a list of
    validation problems), else the body itself."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return body.strip() or "(empty response)"
    detail = parsed.get("detail", parsed) if isinstance(parsed, Mapping) else parsed
    if isinstance(detail, list):
        parts = []
        for problem in detail:
            if isinstance(problem, Mapping):
                where = ".".join(str(part) for part in problem.get("loc", ()))
                message = str(problem.get("msg", problem))
                parts.append(f"{where}: {message}" if where else message)
            else:
                parts.append(str(problem))
        return "; ".join(parts)
    return detail if isinstance(detail, str) else json.dumps(detail)


def server_error(url: str, status_code: int, body: str) -> ServerError:
    """The :class:`ServerError` for an HTTP error answer."""
    return ServerError(
        f"{url} answered {status_code}: {error_message(body)}", status_code=status_code, url=url
    )


def raise_for_error_event(url: str, event: str, data: str) -> None:
    """Raise the :class:`ServerError` an ``error`` event carries (others pass)."""
    if event != "error":
        return
    try:
        payload = json.loads(data)
        status, message = int(payload["status_code"]), str(payload["message"])
    except (ValueError, KeyError, TypeError):
        status, message = 500, data or "(no message)"
    raise ServerError(f"{url} failed while streaming ({status}): {message}",
                      status_code=status, url=url)  # fmt: skip


def config_for_server(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a client sends of a config: tags, metadata, configurable values and limits,
    keeping only the JSON-ready values of ``metadata`` and ``configurable`` (callbacks,
    run ids and objects a local runnable put there stay on the client)."""
    sent: dict[str, Any] = {}
    for key in SENDABLE_CONFIG_KEYS:
        value = (config or {}).get(key)
        if value is None:
            continue
        if key in ("metadata", "configurable"):
            value = {k: v for k, v in value.items() if _json_ready(v) and not k.startswith("__")}
            if not value:
                continue
        sent[key] = value
    return sent


def _json_ready(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True

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

__all__ = [
    "SENDABLE_CONFIG_KEYS",
    "config_for_server",
    "error_message",
    "iter_sse",
    "raise_for_error_event",
    "server_error",
    "sse",
]

# what a client sends of its config (callbacks, run ids and anything else stay local)
SENDABLE_CONFIG_KEYS = ("tags", "metadata", "configurable", "recursion_limit", "max_concurrency")


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

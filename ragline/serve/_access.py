"""``RequestLog``: the outermost ASGI middleware of ``create_app``.

For every HTTP request it writes one access-log line, ``GET /ask 200 12.3ms`` (method,
path, status, milliseconds until the response's last byte), to the
``ragline.serve.access`` logger at INFO (``ragline serve`` prints it on stderr unless
``--quiet``), and, when :func:`ragline.tracing.configure` turned tracing on, wraps the
request in a server span that continues the caller's ``traceparent``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ragline.tracing import current_tracer

__all__ = ["ACCESS_LOGGER", "RequestLog"]

ACCESS_LOGGER = "ragline.serve.access"
_log = logging.getLogger(ACCESS_LOGGER)


class RequestLog:
    """Log (and trace, when tracing is on) every HTTP request of ``app``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client sees if the app fails before it answers

        async def send_noting_status(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        tracer = current_tracer()
        span = None
        if tracer is not None:
            from ragline.tracing import ServerSpan

            span = ServerSpan(tracer, scope)
        error: BaseException | None = None
        try:
            await self.app(scope, receive, send_noting_status)
        except BaseException as err:
            error = err
            raise
        finally:
            if span is not None:
                span.end(status, error)
            if _log.isEnabledFor(logging.INFO):
                elapsed = (time.perf_counter() - started) * 1000
                _log.info("%s %s %d %.1fms", scope.get("method"), scope.get("path"), status,
                          elapsed)  # fmt: skip

"""Deadlines for slow connections, which uvicorn does not have: a connection must send
a request's headers within ``header_timeout`` seconds of opening (or of its last
answer, on keep-alive), and the body within ``body_timeout`` seconds of the headers;
otherwise it is closed (a late body gets a 408 first). With uvicorn's
``limit_concurrency`` (``max_connections``), a client that opens connections and
drips bytes into them holds each for seconds, not forever.

The deadlines live in a subclass of uvicorn's HTTP protocol (httptools when installed,
else h11), the one place that sees a connection before a request exists.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_BODY_TIMEOUT", "DEFAULT_HEADER_TIMEOUT", "DEFAULT_MAX_CONNECTIONS",
           "deadline_protocol"]  # fmt: skip

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 512
_LATE = b'{"detail": "the request body did not arrive in time; the connection is closed"}'
_LATE_BODY = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: " + str(len(_LATE)).encode() + b"\r\n\r\n" + _LATE
)


def _base_protocol() -> Any:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol


def deadline_protocol(*, header_timeout: float, body_timeout: float) -> type:
    """uvicorn's HTTP protocol class with these deadlines (pass it as ``http=``)."""
    base = _base_protocol()

    class DeadlineProtocol(base):  # type: ignore[misc,valid-type]
        _timer: Any = None
        _requests_seen = 0

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm(header_timeout, self._headers_late)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(header_timeout, self._headers_late)

        # httptools calls this when a request's headers are complete
        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._headers_done()

        # h11: the request cycle starts inside handle_events
        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:
                self._headers_done()

        def _headers_done(self) -> None:
            self._arm(body_timeout, self._body_late)

        def _arm(self, seconds: float, then: Any) -> None:
            self._disarm()
            self._timer = self.loop.call_later(seconds, then)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _headers_late(self) -> None:
            self._timer = None
            cycle = self.cycle
            if cycle is None or cycle.response_complete:  # no request began since
                self.transport.close()

        def _body_late(self) -> None:
            self._timer = None
            cycle = self.cycle
            if cycle is not None and cycle.more_body and not cycle.response_complete:
                if not cycle.response_started:
                    self.transport.write(_LATE_BODY)
                self.transport.close()

    return DeadlineProtocol

"""A small standard-library client for the command line's ``--server`` mode.

``ragline query --server URL`` should cost milliseconds, and most of a short command's
time is Python importing modules: ``http.client`` alone brings in the ``email``
package and ``ssl`` (about 20 ms here, several times the request itself). This client
speaks the same protocol as ``RemoteRunnable`` (JSON posts, server-sent events, the
same error mapping in ``_protocol``) with one HTTP/1.1 request per connection over a
plain socket: the answer's body is delimited by ``Content-Length``, by chunked
transfer coding (what a streaming server sends) or by the server closing the
connection. ``ssl`` is imported only for an ``https`` URL.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from ragline.core.exceptions import RaglineError, ServerTimeoutError, StoreConnectionError
from ragline.serve._protocol import (
    MAX_RESPONSE_BYTES,
    MAX_RESPONSE_HEADERS,
    check_answer_head,
    check_event_stream,
    iter_sse,
    json_answer,
    raise_for_error_event,
    server_error,
    too_large,
    too_many_headers,
)
from ragline.serve._serialization import dumps

__all__ = ["get", "post", "stream"]

_MAX_LINE = 65_536  # a status, header or chunk-size line longer than this is refused
_PIECE = 65_536  # a body without a length is read in pieces this big, counted


def _split_url(url: str) -> tuple[str, str, int, str, str]:
    """``(scheme, host, port, target, Host header)`` of an ``http(s)://`` URL."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise StoreConnectionError(f"not an http(s) server URL: {url!r}")
    end = min((rest.find(mark) for mark in "/?#" if mark in rest), default=len(rest))
    authority, target = rest[:end], rest[end:].partition("#")[0]
    authority = authority.rpartition("@")[2]  # no credentials in URLs: ignore them
    target = target if target.startswith("/") else "/" + target  # "" or "?a=b"
    host, port_text = authority, ""
    if authority.startswith("["):  # an IPv6 literal, "[::1]:8000"
        host, _, after = authority[1:].partition("]")
        port_text = after.removeprefix(":")
    elif ":" in authority:
        host, _, port_text = authority.rpartition(":")
    if not host or (port_text and not port_text.isdigit()):
        raise StoreConnectionError(f"not an http(s) server URL: {url!r}")
    port = int(port_text) if port_text else (443 if scheme == "https" else 80)
    if not 0 < port < 65536:
        raise StoreConnectionError(f"not an http(s) server URL (port {port}): {url!r}")
    return scheme, host, port, target, authority


class _Response:
    """The status, headers and body of one HTTP/1.1 answer, read from ``connection``."""

    def __init__(
        self, connection: socket.socket, url: str, *, max_headers: int, max_bytes: int
    ) -> None:
        self.connection = connection
        self.file: BinaryIO = connection.makefile("rb")
        self.url = url
        self.max_headers, self.max_bytes = max_headers, max_bytes
        while True:  # informational (1xx) answers precede the real one
            self.status, self.headers = self._head()
            if not 100 <= self.status < 200:
                break

    def _line(self) -> bytes:
        line = self.file.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            raise StoreConnectionError(f"{self.url} sent a line over {_MAX_LINE} bytes")
        return line

    def _head(self) -> tuple[int, dict[str, str]]:
        status_line = self._line()
        version, _, rest = status_line.decode("latin-1").partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/") or not code.isdigit():
            got = status_line[:80] or b"nothing"
            raise StoreConnectionError(f"{self.url} did not answer in HTTP (got {got!r})")
        headers: dict[str, str] = {}
        for count in range(self.max_headers + 1):
            line = self._line()
            if line in (b"\r\n", b"\n"):
                check_answer_head(
                    self.url, int(code), headers, header_count=count,
                    max_headers=self.max_headers, max_bytes=self.max_bytes,
                )  # fmt: skip
                return int(code), headers
            if not line:
                raise StoreConnectionError(f"{self.url} closed the connection mid-answer")
            name, _, value = line.decode("latin-1").partition(":")
            key = name.strip().lower()
            value = value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        raise too_many_headers(self.url, int(code), self.max_headers)

    def _exactly(self, size: int) -> bytes:
        data = self.file.read(size)
        if len(data) != size:
            raise StoreConnectionError(f"{self.url} closed the connection mid-answer")
        return data

    def chunks(self) -> Iterator[bytes]:
        """The body, in the pieces the server sent it; over ``max_bytes`` in all is a
        ServerError (an endless body is refused, not gathered)."""
        total = 0
        for piece in self._pieces():
            total += len(piece)
            if total > self.max_bytes:
                raise too_large(self.url, self.max_bytes)
            yield piece

    def _pieces(self) -> Iterator[bytes]:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size_line = self._line().split(b";", 1)[0].strip()
                try:
                    size = int(size_line, 16)
                except ValueError:
                    raise StoreConnectionError(
                        f"{self.url} sent a bad chunk size {size_line[:20]!r}"
                    ) from None
                if size == 0:
                    while self._line() not in (b"\r\n", b"\n", b""):  # trailers
                        pass
                    return
                if size > self.max_bytes:
                    raise too_large(self.url, self.max_bytes)
                yield self._exactly(size)
                self._exactly(2)  # the CRLF after the chunk
        elif "content-length" in self.headers:
            length = self.headers["content-length"]
            if not length.isdigit():
                raise StoreConnectionError(f"{self.url} sent Content-Length {length!r}")
            yield self._exactly(int(length))
        else:  # delimited by the server closing the connection
            while piece := self.file.read1(_PIECE):  # type: ignore[attr-defined]
                yield piece

    def read(self) -> bytes:
        """The whole body."""
        return b"".join(self.chunks())

    def close(self) -> None:
        self.file.close()
        self.connection.close()

    def lines(self) -> Iterator[str]:
        """The body's lines (``\\n`` kept), each as soon as it has arrived."""
        pending = b""
        for chunk in self.chunks():
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield (line + b"\n").decode("utf-8", errors="replace")
        if pending:
            yield pending.decode("utf-8", errors="replace")


@contextlib.contextmanager
def _ragline_errors(broken: str, timed_out: str) -> Iterator[None]:
    """Raise a socket's ``OSError`` as :class:`StoreConnectionError` (``"{broken}:
    {error}"``), a timeout as :class:`ServerTimeoutError` (``timed_out``); ragline's own
    errors (a ``StoreConnectionError`` is an ``OSError`` too) and the rest pass as they are."""
    try:
        yield
    except RaglineError:
        raise
    except TimeoutError as err:
        raise ServerTimeoutError(timed_out) from err
    except OSError as err:
        raise StoreConnectionError(f"{broken}: {err}") from err


def _request(
    url: str, payload: Any, timeout: float, headers: Mapping[str, str], limits: tuple[int, int]
) -> _Response:
    """Send one request (a GET when ``payload`` is None); the answer, its status and
    headers read, its body not yet (an error status, a redirect, too many headers or a
    Content-Length over the limit raise; close the answer after). ``limits``:
    ``(max_response_headers, max_response_bytes)``."""
    scheme, host, port, target, authority = _split_url(url)
    body = None if payload is None else dumps(payload).encode()
    fields = {
        "Host": authority,
        "Accept": "application/json, text/event-stream",
        "Connection": "close",
        **({} if body is None else {"Content-Type": "application/json"}),
        **headers,
    }
    if body is not None:
        fields["Content-Length"] = str(len(body))
    for name, value in fields.items():
        if any(bad in f"{name}{value}" for bad in "\r\n\0"):
            raise StoreConnectionError(f"header {name!r} holds a line break or NUL byte")
    head = f"{'GET' if body is None else 'POST'} {target} HTTP/1.1\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in fields.items()
    )
    connection: socket.socket | None = None
    try:
        with _ragline_errors(f"cannot reach {url}", f"{url} did not answer within {timeout} s"):
            connection = socket.create_connection((host, port), timeout=timeout)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if scheme == "https":
                import ssl

                context = ssl.create_default_context()
                connection = context.wrap_socket(connection, server_hostname=host)
            connection.sendall((head + "\r\n").encode("latin-1") + (body or b""))
            response = _Response(connection, url, max_headers=limits[0], max_bytes=limits[1])
    except BaseException:
        if connection is not None:
            connection.close()
        raise
    if response.status >= 400:
        try:
            text = response.read().decode(errors="replace")
        except OSError:  # StoreConnectionError and timeouts too: the status says enough
            text = ""
        finally:
            response.close()
        raise server_error(url, response.status, text)
    return response


def get(
    url: str,
    *,
    timeout: float = 60.0,
    headers: Mapping[str, str] | None = None,
    max_response_headers: int = MAX_RESPONSE_HEADERS,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
) -> Any:
    """GET ``url`` and return the decoded JSON answer (see :func:`post`)."""
    return post(
        url, None, timeout=timeout, headers=headers,
        max_response_headers=max_response_headers, max_response_bytes=max_response_bytes,
    )  # fmt: skip


def post(
    url: str,
    payload: Any,
    *,
    timeout: float = 60.0,
    headers: Mapping[str, str] | None = None,
    max_response_headers: int = MAX_RESPONSE_HEADERS,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
) -> Any:
    """POST ``payload`` as JSON (None: a GET) and return the decoded JSON answer.

    Raises:
        StoreConnectionError: the server cannot be reached or broke the protocol.
        ServerTimeoutError: no answer within ``timeout`` seconds.
        ServerError: an error status; or a wrong server: a redirect, more than
            ``max_response_headers`` headers, more than ``max_response_bytes`` of body,
            or a body that is not JSON (each named, with the URL).
    """
    limits = (max_response_headers, max_response_bytes)
    response = _request(url, payload, timeout, headers or {}, limits)
    broken, timed_out = f"{url} broke off its answer", f"{url} did not answer within {timeout} s"
    with contextlib.closing(response), _ragline_errors(broken, timed_out):
        body = response.read()
    return json_answer(url, response.status, response.headers.get("content-type", ""), body)


def stream(
    url: str,
    payload: Any,
    *,
    timeout: float = 60.0,
    headers: Mapping[str, str] | None = None,
    max_response_headers: int = MAX_RESPONSE_HEADERS,
    max_response_bytes: int = MAX_RESPONSE_BYTES,
) -> Iterator[Any]:
    """POST ``payload`` to a streaming endpoint and yield each data event's item as it
    arrives; an error event raises the server's error. The limits and errors are
    :func:`post`'s (``max_response_bytes`` counts the whole stream)."""
    limits = (max_response_headers, max_response_bytes)
    response = _request(url, payload, timeout, headers or {}, limits)
    broken, timed_out = f"{url} broke off its stream", f"{url} stopped answering for {timeout} s"
    with contextlib.closing(response), _ragline_errors(broken, timed_out):
        check_event_stream(url, response.status, response.headers.get("content-type", ""))
        for event, data in iter_sse(response.lines()):
            raise_for_error_event(url, event, data)
            if event == "data":
                yield json_answer(url, response.status, "an event", data.encode())
            elif event == "end":
                return

"""``Guard``: the ASGI middleware ``create_app`` puts in front of every request.

It refuses what a browser can be tricked into sending, before any route runs:

- a ``Host`` that is not one of the server's names (400): a page whose domain
  re-resolves to 127.0.0.1 (DNS rebinding) sends its own domain there;
- an ``Origin`` that is neither one of those names nor an allowed CORS origin (403): a
  cross-site form or ``fetch`` always says where it comes from;
- ``/docs``, ``/redoc`` and ``/openapi.json`` without the API key, when one is set (401).

and it adds the security headers to every response: a Content-Security-Policy that
lets pages load only the server's own files and never be framed, ``nosniff``,
``no-referrer`` and ``X-Frame-Options: DENY``. (``application/json`` on POST bodies is
checked by the routes themselves, so it holds on any app ``add_routes`` serves.)
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from ragline.core.exceptions import ConfigurationError

__all__ = ["LOOPBACK_HOSTS", "Guard", "host_port", "is_loopback"]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
_PROTECTED_DOCS = ("/docs", "/redoc", "/openapi.json")
_CSP = (
    "default-src 'self'; script-src 'self'{inline}; style-src 'self'{inline}; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# the playground page (another owner's, with inline script and style) keeps working
_PAGE_CSP = _CSP.format(inline="").encode()
_PLAYGROUND_CSP = _CSP.format(inline=" 'unsafe-inline'").encode()
_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


def host_port(value: str) -> tuple[str, int | None]:
    """``(host, port)`` of a ``Host`` header or an allowed-host entry: lower case, an
    IPv6 address without its brackets, the port None when not given.

    Raises:
        ValueError: a port that is not a number, or an unclosed ``[``.
    """
    value = value.strip().lower()
    if value.startswith("["):
        host, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"not a host name: {value!r}")
        port = rest[1:]
    elif value.count(":") == 1:
        host, _, port = value.partition(":")
    else:  # a name, an IPv4 address, or an IPv6 address without brackets
        host, port = value, ""
    if port and not port.isdigit():
        raise ValueError(f"not a port number: {port!r} in {value!r}")
    return host.rstrip("."), int(port) if port else None


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` answers this machine only."""
    name = host_port(host)[0] if host else ""
    return name in LOOPBACK_HOSTS or name.startswith("127.")


class Guard:
    """ASGI middleware: the checks and headers described in the module docstring.

    Args:
        app: the application it guards.
        allowed_hosts: host names (``name`` or ``name:port``) the server answers to,
            besides localhost, 127.0.0.1 and ::1; ``"*"`` answers any (no rebinding
            protection: only behind a proxy that checks ``Host`` itself).
        cors_origins: origins (``https://app.example``) whose pages may call the API;
            ``"*"`` any.
        api_key: when set, ``/docs``, ``/redoc`` and ``/openapi.json`` need it too.
        api_key_header: the header that carries it.

    Raises:
        ConfigurationError: an allowed host that is not a host name.
    """

    def __init__(
        self,
        app: Any,
        *,
        allowed_hosts: Iterable[str] = (),
        cors_origins: Sequence[str] = (),
        api_key: str | None = None,
        api_key_header: str = "X-API-Key",
    ) -> None:
        self.app = app
        hosts = [*LOOPBACK_HOSTS, *allowed_hosts]
        self.any_host = "*" in hosts
        try:
            self.hosts = {host_port(host) for host in hosts if host != "*"}
        except ValueError as err:
            raise ConfigurationError(f"allowed_hosts: {err}") from None
        self.origins = {origin.rstrip("/").lower() for origin in cors_origins}
        self.api_key = api_key.encode() if api_key else None
        self.api_key_header = api_key_header.lower().encode()

    def allows_host(self, value: str) -> bool:
        """Whether ``value`` (a ``Host`` header, or an origin's ``host[:port]``) names
        this server."""
        if self.any_host:
            return True
        try:
            host, port = host_port(value)
        except ValueError:
            return False
        return (host, None) in self.hosts or (port is not None and (host, port) in self.hosts)

    def allows_origin(self, origin: str) -> bool:
        if "*" in self.origins or origin.rstrip("/").lower() in self.origins:
            return True
        parts = urlsplit(origin)
        return (
            parts.scheme in ("http", "https")
            and bool(parts.netloc)
            and (self.allows_host(parts.netloc))
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name: value for name, value in scope["headers"]}
        path = scope.get("path", "")
        csp = _PLAYGROUND_CSP if path.rstrip("/").endswith("/playground") else _PAGE_CSP

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                added = [(b"content-security-policy", csp), *_HEADERS]
                message = {**message, "headers": [*message.get("headers", []),
                           *(h for h in added if h[0] not in present)]}  # fmt: skip
            await send(message)

        refusal = self._refusal(headers, path)
        if refusal is not None:
            status, detail = refusal
            body = json.dumps({"detail": detail}).encode()
            await send_with_headers({
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())],
            })  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, headers: dict[bytes, bytes], path: str) -> tuple[int, str] | None:
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.allows_host(host):
            return 400, (
                f"this server does not answer to the host name {host[:100]!r} (start it with "
                "--allowed-host NAME, or allowed_hosts=[...], to add a name)"
            )
        origin = headers.get(b"origin")
        if origin is not None and not self.allows_origin(origin.decode("latin-1")):
            return 403, (
                f"requests from pages on {origin.decode('latin-1')[:100]!r} are not allowed "
                "(add the origin with --cors-origin, or cors_origins=[...])"
            )
        if self.api_key is not None and path in _PROTECTED_DOCS:
            given = headers.get(self.api_key_header, b"")
            if not hmac.compare_digest(given, self.api_key):
                return 401, "missing or wrong API key (send it in the " + (
                    f"{self.api_key_header.decode()} header)"
                )
        return None

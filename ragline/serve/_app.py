"""The application around the routes: ``create_app`` (only its own host names, no CORS
unless asked, security headers, offline docs) and ``run_server`` (uvicorn on 127.0.0.1
unless told otherwise)."""

from __future__ import annotations

import html
import socket
import threading
import time
from collections.abc import Sequence
from typing import Any

from ragline.core._checks import check_int
from ragline.core._optional import require
from ragline.core.exceptions import ConfigurationError
from ragline.serve._connections import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
)

__all__ = ["DEFAULT_HOST", "BackgroundServer", "connection_options", "create_app", "run_server"]

DEFAULT_HOST = "127.0.0.1"


def create_app(
    *,
    title: str = "ragline",
    cors_origins: Sequence[str] | None = None,
    allowed_hosts: Sequence[str] = (),
    api_key: str | None = None,
    api_key_header: str = "X-API-Key",
) -> Any:
    """A FastAPI application to ``add_routes`` to, behind :class:`~ragline.serve._guard.Guard`.

    It answers only requests whose ``Host`` is localhost, 127.0.0.1, ::1 or one of
    ``allowed_hosts`` (else 400: a page whose domain re-resolves to this machine cannot
    reach it), refuses requests from other sites' pages (an ``Origin`` that is none of
    those and no CORS origin: 403), and sends security headers (CSP, ``nosniff``,
    ``no-referrer``, no framing) on every response. ``/docs`` and ``/redoc`` are a
    plain page listing the routes, with nothing loaded from other hosts. Every request
    gets a line on the ``ragline.serve.access`` logger (INFO) and, when
    ``ragline.tracing`` is configured, a server span that continues the caller's
    ``traceparent``.

    Args:
        title: shown on the docs page and in ``/openapi.json``.
        cors_origins: origins whose pages may call the API from a browser
            (``["https://app.example"]``; ``["*"]`` for any). Default: none, so only
            pages served by the server itself can call it.
        allowed_hosts: more host names (``name`` or ``name:port``) the server answers
            to, such as the address it binds or its DNS name; ``["*"]``: any.
        api_key: when set, ``/docs``, ``/redoc`` and ``/openapi.json`` need it (the
            routes of ``add_routes`` check their own ``api_key``).
        api_key_header: the header that carries it.

    Raises:
        ConfigurationError: a CORS origin or an allowed host that is not a string of
            the right form.

    Example:
        >>> app = create_app(cors_origins=["http://localhost:3000"])  # doctest: +SKIP
    """
    fastapi = require("fastapi", "serve")
    from ragline.serve._guard import Guard

    app = fastapi.FastAPI(title=title, docs_url=None, redoc_url=None)
    origins = list(cors_origins or ())
    if not all(isinstance(origin, str) and origin for origin in origins):
        raise ConfigurationError(f"cors_origins must be non-empty strings, got {origins!r}")
    hosts = list(allowed_hosts)
    if not all(isinstance(host, str) and host for host in hosts):
        raise ConfigurationError(f"allowed_hosts must be non-empty strings, got {hosts!r}")
    if origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    # added last, so it runs first: a refused host never reaches CORS or a route
    app.add_middleware(Guard, allowed_hosts=hosts, cors_origins=origins, api_key=api_key,
                       api_key_header=api_key_header)  # fmt: skip
    # outermost: refused requests get their access-log line and server span too
    from ragline.serve._access import RequestLog

    app.add_middleware(RequestLog)
    _docs_routes(app, title)
    return app


def _docs_routes(app: Any, title: str) -> None:
    """``/docs`` and ``/redoc``: the routes as a plain page (no script, no CDN)."""
    from starlette.responses import HTMLResponse

    async def docs(request: Any) -> Any:
        rows = []
        for route in app.routes:
            path, methods = getattr(route, "path", None), getattr(route, "methods", None)
            if path and methods and path not in ("/docs", "/redoc"):
                shown = ", ".join(sorted(set(methods) - {"HEAD"}))
                rows.append(f"<tr><td>{html.escape(shown)}</td><td><code>"
                            f"{html.escape(path)}</code></td></tr>")  # fmt: skip
        page = (
            f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(title)}"
            f"</title><h1>{html.escape(title)}</h1><p>The JSON Schemas of a runnable's input, "
            "output and config are at <code>{path}/input_schema</code>, "
            "<code>/output_schema</code> and <code>/config_schema</code>; the OpenAPI "
            'document is at <a href="/openapi.json">/openapi.json</a>.</p>'
            f"<table><tr><th>method</th><th>path</th></tr>{''.join(rows)}</table></html>"
        )
        return HTMLResponse(page)

    for path in ("/docs", "/redoc"):
        app.router.add_route(path, docs, methods=["GET"])


def connection_options(
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_connections: int | None = DEFAULT_MAX_CONNECTIONS,
) -> dict[str, Any]:
    """uvicorn settings that close stalled connections and cap how many are served:
    ``header_timeout`` s to send a request's headers (also idle keep-alive),
    ``body_timeout`` s to send its body (then 408), at most ``max_connections``
    connections and requests at once (more: 503; None: no cap)."""
    from ragline.serve._connections import deadline_protocol

    for name, value in (("header_timeout", header_timeout), ("body_timeout", body_timeout)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigurationError(f"{name} must be a positive number of seconds, got {value!r}")
    return {
        "http": deadline_protocol(header_timeout=header_timeout, body_timeout=body_timeout),
        "timeout_keep_alive": min(5.0, header_timeout),
        "limit_concurrency": None if max_connections is None else check_int(
            "max_connections", max_connections, minimum=1),
    }  # fmt: skip


def run_server(
    app: Any,
    *,
    host: str = DEFAULT_HOST,
    port: int = 8000,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_connections: int | None = DEFAULT_MAX_CONNECTIONS,
    **options: Any,
) -> None:
    """Serve ``app`` with uvicorn until interrupted (``options`` go to ``uvicorn.run``).

    Binds to 127.0.0.1 unless ``host`` says otherwise: a server that answers other
    machines is a decision, not a default. Stalled connections are closed and their
    number capped (see :func:`connection_options`).
    """
    uvicorn = require("uvicorn", "serve")
    port = check_int("port", port, minimum=0)
    if port > 65535:
        raise ConfigurationError(f"port must be at most 65535, got {port}")
    limits = connection_options(header_timeout=header_timeout, body_timeout=body_timeout,
                                max_connections=max_connections)  # fmt: skip
    uvicorn.run(app, host=host, port=port, **{**limits, **options})


class BackgroundServer:
    """Serve an app with uvicorn in a background thread, on a free loopback port: for
    tests, notebooks and benchmarks. A context manager; ``url`` is its base URL.

    Args:
        app: the ASGI application.
        host: the address to bind (default 127.0.0.1).
        port: the port (0: a free one).
        timeout: seconds to wait for the server to start.
        connections: ``header_timeout``, ``body_timeout``, ``max_connections`` (see
            :func:`connection_options`).

    Raises:
        RuntimeError: the server did not start in time.

    Example:
        >>> with BackgroundServer(app) as server:  # doctest: +SKIP
        ...     RemoteRunnable(server.url + "/chain").invoke("hi")
    """

    def __init__(
        self,
        app: Any,
        *,
        host: str = DEFAULT_HOST,
        port: int = 0,
        timeout: float = 30.0,
        **connections: Any,
    ) -> None:
        uvicorn = require("uvicorn", "serve")
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        limits = connection_options(**connections)
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2, **limits
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="ragline-serve", daemon=True)
        self._timeout = timeout

    @property
    def url(self) -> str:
        """``http://host:port`` (no trailing slash)."""
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        self._server.run(sockets=[self._socket])

    def start(self) -> BackgroundServer:
        """Start serving; returns when the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=self._timeout)
        self._socket.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

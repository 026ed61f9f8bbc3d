"""The application around the routes: ``create_app`` (CORS off unless asked) and
``run_server`` (uvicorn on 127.0.0.1 unless told otherwise)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Sequence
from typing import Any

from ragline.core._checks import check_int
from ragline.core._optional import require
from ragline.core.exceptions import ConfigurationError

__all__ = ["DEFAULT_HOST", "BackgroundServer", "create_app", "run_server"]

DEFAULT_HOST = "127.0.0.1"


def create_app(*, title: str = "ragline", cors_origins: Sequence[str] | None = None) -> Any:
    """A FastAPI application to ``add_routes`` to.

    Args:
        title: shown on the OpenAPI page (``/docs``).
        cors_origins: origins whose pages may call the API from a browser
            (``["https://app.example"]``; ``["*"]`` for any). Default: none, so only
            pages served by the server itself can call it.

    Example:
        >>> app = create_app(cors_origins=["http://localhost:3000"])  # doctest: +SKIP
    """
    fastapi = require("fastapi", "serve")
    app = fastapi.FastAPI(title=title)
    if cors_origins:
        origins = list(cors_origins)
        if not all(isinstance(origin, str) and origin for origin in origins):
            raise ConfigurationError(f"cors_origins must be non-empty strings, got {origins!r}")
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    return app


def run_server(app: Any, *, host: str = DEFAULT_HOST, port: int = 8000, **options: Any) -> None:
    """Serve ``app`` with uvicorn until interrupted (``options`` go to ``uvicorn.run``).

    Binds to 127.0.0.1 unless ``host`` says otherwise: a server that answers other
    machines is a decision, not a default.
    """
    uvicorn = require("uvicorn", "serve")
    port = check_int("port", port, minimum=0)
    if port > 65535:
        raise ConfigurationError(f"port must be at most 65535, got {port}")
    uvicorn.run(app, host=host, port=port, **options)


class BackgroundServer:
    """Serve an app with uvicorn in a background thread, on a free loopback port: for
    tests, notebooks and benchmarks. A context manager; ``url`` is its base URL.

    Args:
        app: the ASGI application.
        host: the address to bind (default 127.0.0.1).
        port: the port (0: a free one).
        timeout: seconds to wait for the server to start.

    Raises:
        RuntimeError: the server did not start in time.

    Example:
        >>> with BackgroundServer(app) as server:  # doctest: +SKIP
        ...     RemoteRunnable(server.url + "/chain").invoke("hi")
    """

    def __init__(
        self, app: Any, *, host: str = DEFAULT_HOST, port: int = 0, timeout: float = 30.0
    ) -> None:
        uvicorn = require("uvicorn", "serve")
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        config = uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=2
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

"""The openai SDK's clients for ragline's OpenAI-compatible models, created on first use.

Shared by ``ChatOpenAI`` and ``OpenAIEmbeddings`` (packages that may not import each
other). The SDK is imported only when a client is first needed.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any

from ragline.core._optional import require
from ragline.core.exceptions import ConfigurationError

__all__ = ["OpenAIClients", "client_options", "credentials"]


def credentials(
    owner: str, base_url: str | None, api_key: str | None, *, no_key: str
) -> tuple[str | None, str]:
    """The server and key a model talks to: ``base_url`` and ``api_key`` as given, else
    ``$OPENAI_BASE_URL`` and ``$OPENAI_API_KEY``. A server named by URL may need no key
    (a local one): ``no_key`` is sent then.

    Raises:
        ConfigurationError: neither a key nor a server URL (the message names ``owner``).
    """
    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
    if api_key is None:
        if base_url is None:
            raise ConfigurationError(
                f"{owner} has no API key: pass api_key=... or set OPENAI_API_KEY (or pass "
                "base_url=... for a local OpenAI-compatible server that needs none)"
            )
        api_key = no_key
    return base_url, api_key


def client_options(model: Any, **extra: Any) -> dict[str, Any]:
    """The keyword arguments both client classes are built with, from a model's
    ``api_key``, ``base_url``, ``max_retries``, ``default_headers`` and ``timeout``
    (left to the SDK when None), plus ``extra``."""
    options: dict[str, Any] = {
        "api_key": model.api_key,
        "base_url": model.base_url,
        "max_retries": model.max_retries,
        "default_headers": model.default_headers or None,
        **extra,
    }
    if model.timeout is not None:
        options["timeout"] = model.timeout
    return options


class OpenAIClients:
    """One ``openai.OpenAI`` client, and one ``openai.AsyncOpenAI`` client per event loop.

    An async connection pool belongs to the loop that opened it, so each running loop
    gets its own client; clients whose loop has closed are dropped.

    Args:
        options: returns the keyword arguments both client classes are built with; called
            when a client is created, so it sees the model's current settings.
        shared: the holder of the model this one is a copy of (``configurable_fields``
            works on shallow copies). Its clients are used while both give the same
            options, so a copy keeps the connection pool unless it changes a client
            setting (``base_url``, ``api_key``, ``timeout`` ...).
    """

    def __init__(
        self, options: Callable[[], dict[str, Any]], *, shared: OpenAIClients | None = None
    ) -> None:
        self._options = options
        self._shared = shared
        self._sync: Any = None
        self._by_loop: dict[asyncio.AbstractEventLoop, Any] = {}
        self._lock = threading.Lock()

    def _same_as_shared(self) -> OpenAIClients | None:
        shared = self._shared
        return shared if shared is not None and shared._options() == self._options() else None

    @property
    def created(self) -> bool:
        """Whether the sync client exists yet (constructors stay cheap: it does not)."""
        return self._sync is not None

    def sync(self) -> Any:
        """The ``openai.OpenAI`` client."""
        if (shared := self._same_as_shared()) is not None:
            return shared.sync()
        with self._lock:
            if self._sync is None:
                self._sync = require("openai", "openai").OpenAI(**self._options())
            return self._sync

    def for_running_loop(self) -> Any:
        """The ``openai.AsyncOpenAI`` client of the running event loop."""
        if (shared := self._same_as_shared()) is not None:
            return shared.for_running_loop()
        loop = asyncio.get_running_loop()
        with self._lock:
            for stale in [other for other in self._by_loop if other.is_closed()]:
                del self._by_loop[stale]
            if loop not in self._by_loop:
                self._by_loop[loop] = require("openai", "openai").AsyncOpenAI(**self._options())
            return self._by_loop[loop]

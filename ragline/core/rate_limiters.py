"""Rate limiters: how often a chat model may be called (``rate_limiter=`` of a chat model).

``InMemoryRateLimiter`` is a token bucket in this process, as LangChain's: tokens
accrue at ``requests_per_second`` up to ``max_bucket_size`` (the largest burst), each
call takes one, and a blocked caller checks again every ``check_every_n_seconds``. The
bucket starts empty, so the very first call waits for its token, as in LangChain; tokens
are added once a whole one has accrued since the last addition. It limits the number of
calls, not their size (tokens of text are not counted).

Example:
    >>> limiter = InMemoryRateLimiter(requests_per_second=100, check_every_n_seconds=0.001)
    >>> limiter.acquire()
    True
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod

from ragline.core.exceptions import InvalidInputError

__all__ = ["BaseRateLimiter", "InMemoryRateLimiter"]


class BaseRateLimiter(ABC):
    """A limiter a chat model asks before each call: implement ``acquire`` and
    ``aacquire``."""

    @abstractmethod
    def acquire(self, *, blocking: bool = True) -> bool:
        """Take one token: wait until there is one (``blocking=True``, then True), or
        say at once whether one was taken (``blocking=False``)."""

    @abstractmethod
    async def aacquire(self, *, blocking: bool = True) -> bool:
        """Async ``acquire``: waits without blocking the event loop."""


class InMemoryRateLimiter(BaseRateLimiter):
    """A token bucket shared by every model (and thread) given this limiter.

    Args:
        requests_per_second: tokens added per second.
        check_every_n_seconds: how long a blocked caller sleeps between checks.
        max_bucket_size: the most tokens the bucket holds (the largest burst).

    Raises:
        InvalidInputError: a value that is not a positive number.
    """

    def __init__(
        self,
        *,
        requests_per_second: float = 1,
        check_every_n_seconds: float = 0.1,
        max_bucket_size: float = 1,
    ) -> None:
        for name, value in (
            ("requests_per_second", requests_per_second),
            ("check_every_n_seconds", check_every_n_seconds),
            ("max_bucket_size", max_bucket_size),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InvalidInputError(
                    f"InMemoryRateLimiter({name}=) must be a positive number, got {value!r}"
                )
        self.requests_per_second = requests_per_second
        self.check_every_n_seconds = check_every_n_seconds
        self.max_bucket_size = max_bucket_size
        self.available_tokens: float = 0.0
        self.last: float | None = None  # when tokens were last added (monotonic clock)
        self._lock = threading.Lock()

    def _take(self) -> bool:
        # Tokens are added only once at least one whole token has accrued since the last
        # addition (then all that accrued, fractions included), as LangChain's bucket.
        with self._lock:
            now = time.monotonic()
            if self.last is None:
                self.last = now
            accrued = (now - self.last) * self.requests_per_second
            if accrued >= 1:
                self.available_tokens += accrued
                self.last = now
            self.available_tokens = min(self.available_tokens, self.max_bucket_size)
            if self.available_tokens < 1:
                return False
            self.available_tokens -= 1
            return True

    def acquire(self, *, blocking: bool = True) -> bool:
        if not blocking:
            return self._take()
        while not self._take():
            time.sleep(self.check_every_n_seconds)
        return True

    async def aacquire(self, *, blocking: bool = True) -> bool:
        if not blocking:
            return self._take()
        while not self._take():
            await asyncio.sleep(self.check_every_n_seconds)
        return True

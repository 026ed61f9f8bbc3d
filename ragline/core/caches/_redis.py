"""RedisCache: LLM answers cached in Redis, shared by every process that uses the server.

Each entry is one string key, ``prefix + sha256(prompt, model string)`` (each part
length-prefixed), holding as JSON the prompt and model string it answers (a lookup
checks them, so a key collision is a miss, never another prompt's answer) and the
generations, written with ``SET ... PX`` when a ``ttl`` is given. Operations are
written once (``ragline.core._redis``) and driven by the sync or the asyncio client; a
server that cannot be reached raises ``StoreConnectionError`` naming the URL.
"""

from __future__ import annotations

from typing import Any

from ragline.core import _redis as conn
from ragline.core.caches._base import (
    RETURN_VAL_TYPE,
    BaseCache,
    cache_key,
    check_generations,
    entry_from_json,
    entry_to_json,
    generations_to_json,
)
from ragline.core.exceptions import ConfigurationError
from ragline.core.language_models._outputs import Generation

__all__ = ["RedisCache"]


class RedisCache(BaseCache):
    """LLM answers in Redis, optionally expiring.

    Args:
        redis_: an existing ``redis.Redis`` client (LangChain's name), else ``redis_url``.
        redis_url: the server, ``redis://[user:password@]host:port[/db]``.
        ttl: seconds an entry lives (None: until cleared).
        prefix: put before every key; ``clear`` deletes the keys under it only.
        connect_timeout, timeout: socket timeouts in seconds.

    Raises:
        ConfigurationError: a bad ``ttl`` or an empty ``prefix``.

    Example:
        >>> cache = RedisCache(redis_url="redis://localhost:6379", ttl=3600)  # doctest: +SKIP
    """

    def __init__(
        self,
        redis_: Any = None,
        *,
        redis_url: str = "redis://localhost:6379",
        ttl: float | None = None,
        prefix: str = "ragline:llm_cache:",
        connect_timeout: float = 5.0,
        timeout: float | None = 30.0,
    ) -> None:
        if not isinstance(prefix, str) or not prefix:
            raise ConfigurationError(f"prefix must be a non-empty str, got {prefix!r}")
        try:
            prefix.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ConfigurationError(
                f"prefix {prefix!r:.80} holds {prefix[err.start : err.end]!r}, a lone surrogate "
                "no Redis key can hold; pass a prefix of valid text"
            ) from None
        self.ttl = ttl
        self.prefix = prefix
        self._ttl_ms = conn.ttl_milliseconds(ttl)
        self._redis = conn.RedisConnection(
            redis_url, redis_, connect_timeout=connect_timeout, timeout=timeout
        )

    def __repr__(self) -> str:
        return f"RedisCache({self._redis.where!r}, prefix={self.prefix!r})"

    # ------------------------------------------------------------------ operations

    def _lookup_op(self, prompt: str, llm_string: str) -> conn.Operation[list[Generation] | None]:
        key = self.prefix + cache_key(prompt, llm_string)
        [reply] = yield [("GET", key)]
        if conn.checked(reply, "GET") is None:
            return None
        return entry_from_json(reply, prompt, llm_string, f"Redis key {key!r}")

    def _update_op(self, key: str, entry: str) -> conn.Operation[None]:
        expiry = () if self._ttl_ms is None else ("PX", self._ttl_ms)
        [reply] = yield [("SET", key, entry, *expiry)]
        conn.checked(reply, "SET")

    def _entry(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> tuple[str, str]:
        """The key and the value to SET, both built before anything is written."""
        key = self.prefix + cache_key(prompt, llm_string)
        text = generations_to_json(check_generations(return_val))
        return key, entry_to_json(prompt, llm_string, text)

    def _clear_op(self) -> conn.Operation[None]:
        pattern = conn.glob_escape(self.prefix) + "*"
        cursor = 0
        while True:
            [reply] = yield [("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)]
            cursor, keys = conn.checked(reply, "SCAN")
            if keys:
                [deleted] = yield [("DEL", *keys)]
                conn.checked(deleted, "DEL")
            if int(cursor) == 0:
                return

    # ------------------------------------------------------------------ sync and async

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        return self._redis.run(self._lookup_op(prompt, llm_string))

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        self._redis.run(self._update_op(*self._entry(prompt, llm_string, return_val)))

    def clear(self, **kwargs: Any) -> None:
        self._redis.run(self._clear_op())

    async def alookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        return await self._redis.arun(self._lookup_op(prompt, llm_string))

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        await self._redis.arun(self._update_op(*self._entry(prompt, llm_string, return_val)))

    async def aclear(self, **kwargs: Any) -> None:
        await self._redis.arun(self._clear_op())

    def close(self) -> None:
        """Close the connections this cache opened (a client passed in stays open)."""
        self._redis.close()

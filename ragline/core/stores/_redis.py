"""RedisStore: a byte store on Redis, e.g. one embedding cache shared by many processes.

It implements ragline.core's ``BaseStore[str, bytes]`` (``mget / mset / mdelete /
yield_keys`` and async twins on ``redis.asyncio``), so it plugs into
``CacheBackedEmbeddings.from_bytes_store``. Any Redis server works (no module needed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from ragline.core import _redis as conn
from ragline.core.exceptions import ConfigurationError
from ragline.core.stores._local import BaseStore, check_keys, check_pairs

__all__ = ["RedisStore"]


class RedisStore(BaseStore[str, bytes]):
    """Bytes under string keys in Redis; keys live under ``{namespace}/`` when given.

    Args:
        redis_url: where the server is (``redis://[user:password@]host:port[/db]``).
        client: an existing ``redis.Redis`` client instead of a URL.
        namespace: prefix every key with ``{namespace}/`` (recommended: without it,
            ``yield_keys`` lists every key of the database).
        ttl: seconds each written value lives, or None for no expiry.
        batch_size: keys per command / pipeline.
        connect_timeout, timeout: socket timeouts in seconds.

    Raises:
        ConfigurationError: a bad option.

    Example:
        >>> from ragline.embeddings import CacheBackedEmbeddings
        >>> url = "redis://localhost:6379"
        >>> cache = RedisStore(redis_url=url, namespace="emb")  # doctest: +SKIP
        >>> cached = CacheBackedEmbeddings.from_bytes_store(model, cache)  # doctest: +SKIP
    """

    def __init__(
        self,
        *,
        redis_url: str = "redis://localhost:6379",
        client: Any = None,
        namespace: str | None = None,
        ttl: float | None = None,
        batch_size: int = 1000,
        connect_timeout: float = 5.0,
        timeout: float | None = 30.0,
    ) -> None:
        if namespace is not None and (not isinstance(namespace, str) or not namespace):
            raise ConfigurationError(
                f"namespace must be a non-empty str or None, got {namespace!r}"
            )
        self._ttl_ms = conn.ttl_milliseconds(ttl)
        self._batch_size = conn.check_batch_size(batch_size)
        self._prefix = "" if namespace is None else f"{namespace}/"
        self._redis = conn.RedisConnection(
            redis_url, client, connect_timeout=connect_timeout, timeout=timeout
        )

    @property
    def namespace(self) -> str | None:
        """The namespace keys are stored under (``{namespace}/{key}``), or None."""
        return self._prefix[:-1] or None

    def __repr__(self) -> str:
        return f"RedisStore({self._redis.where!r}, namespace={self._prefix[:-1] or None!r})"

    # ------------------------------------------------------------------ sync

    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        """Return each key's bytes, ``None`` where the key is absent."""
        return self._redis.run(self._mget_op(check_keys(keys)))

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        """Store the pairs (all checked before any is written), with the store's ttl."""
        self._redis.run(self._mset_op(check_pairs(key_value_pairs)))

    def mdelete(self, keys: Sequence[str]) -> None:
        """Delete the keys; absent keys are ignored."""
        self._redis.run(self._mdelete_op(check_keys(keys)))

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        """Yield the keys (without the namespace), only those starting with ``prefix``."""
        pattern = conn.glob_escape(self._prefix + (prefix or "")) + "*"
        cursor = 0
        while True:
            cursor, keys = self._redis.run(self._scan_op(cursor, pattern))
            yield from keys
            if cursor == 0:
                return

    # ------------------------------------------------------------------ async

    async def amget(self, keys: Sequence[str]) -> list[bytes | None]:
        """Async :meth:`mget`."""
        return await self._redis.arun(self._mget_op(check_keys(keys)))

    async def amset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        """Async :meth:`mset`."""
        await self._redis.arun(self._mset_op(check_pairs(key_value_pairs)))

    async def amdelete(self, keys: Sequence[str]) -> None:
        """Async :meth:`mdelete`."""
        await self._redis.arun(self._mdelete_op(check_keys(keys)))

    async def ayield_keys(self, *, prefix: str | None = None) -> AsyncIterator[str]:
        """Async :meth:`yield_keys`."""
        pattern = conn.glob_escape(self._prefix + (prefix or "")) + "*"
        cursor = 0
        while True:
            cursor, keys = await self._redis.arun(self._scan_op(cursor, pattern))
            for key in keys:
                yield key
            if cursor == 0:
                return

    # ------------------------------------------------------------------ operations

    def _mget_op(self, keys: list[str]) -> conn.Operation[list[bytes | None]]:
        values: list[bytes | None] = []
        for start in range(0, len(keys), self._batch_size):
            chunk = keys[start : start + self._batch_size]
            [reply] = yield [("MGET", *(self._prefix + key for key in chunk))]
            values.extend(conn.checked(reply, "MGET"))
        return values

    def _mset_op(self, pairs: list[tuple[str, bytes]]) -> conn.Operation[None]:
        expiry = () if self._ttl_ms is None else ("PX", self._ttl_ms)
        for start in range(0, len(pairs), self._batch_size):
            chunk = pairs[start : start + self._batch_size]
            replies = yield [("SET", self._prefix + key, value, *expiry) for key, value in chunk]
            for reply in replies:
                conn.checked(reply, "SET")

    def _mdelete_op(self, keys: list[str]) -> conn.Operation[None]:
        for start in range(0, len(keys), self._batch_size):
            chunk = keys[start : start + self._batch_size]
            [reply] = yield [("DEL", *(self._prefix + key for key in chunk))]
            conn.checked(reply, "DEL")

    def _scan_op(self, cursor: int, pattern: str) -> conn.Operation[tuple[int, list[str]]]:
        [reply] = yield [("SCAN", cursor, "MATCH", pattern, "COUNT", self._batch_size)]
        next_cursor, raw_keys = conn.checked(reply, "SCAN")
        cut = len(self._prefix)
        return int(next_cursor), [key.decode("utf-8", "replace")[cut:] for key in raw_keys]

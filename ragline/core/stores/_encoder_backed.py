"""EncoderBackedStore: a store of any keys and values over a store of strings or bytes.

Keys go through ``key_encoder`` and values through ``value_serializer`` on the way in,
values through ``value_deserializer`` on the way out (a missing key stays ``None``);
``yield_keys`` gives the underlying store's keys as they are, encoded, as LangChain's
class of the same name does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, TypeVar

from ragline.core.stores._local import BaseStore

__all__ = ["EncoderBackedStore"]

K = TypeVar("K")
V = TypeVar("V")


class EncoderBackedStore(BaseStore[K, V]):
    """Wrap ``store`` so that it keeps keys of type ``K`` and values of type ``V``.

    Args:
        store: the underlying store (its keys are strings).
        key_encoder: turns a key into the underlying store's string key.
        value_serializer: turns a value into what the underlying store keeps.
        value_deserializer: turns a kept value back into a value.

    Example:
        >>> import json
        >>> from ragline.core.stores import InMemoryStore
        >>> store = EncoderBackedStore(InMemoryStore(), json.dumps, json.dumps, json.loads)
        >>> store.mset([(1, [1.5]), (2, {"a": 1})])
        >>> store.mget([2, 1, 3])
        [{'a': 1}, [1.5], None]
        >>> sorted(store.yield_keys())
        ['1', '2']
    """

    def __init__(
        self,
        store: BaseStore[str, Any],
        key_encoder: Callable[[K], str],
        value_serializer: Callable[[V], Any],
        value_deserializer: Callable[[Any], V],
    ) -> None:
        self.store = store
        self.key_encoder = key_encoder
        self.value_serializer = value_serializer
        self.value_deserializer = value_deserializer

    def _keys(self, keys: Sequence[K]) -> list[str]:
        return [self.key_encoder(key) for key in keys]

    def _pairs(self, key_value_pairs: Sequence[tuple[K, V]]) -> list[tuple[str, Any]]:
        return [(self.key_encoder(k), self.value_serializer(v)) for k, v in key_value_pairs]

    def _values(self, kept: list[Any]) -> list[V | None]:
        return [None if value is None else self.value_deserializer(value) for value in kept]

    def mget(self, keys: Sequence[K]) -> list[V | None]:
        return self._values(self.store.mget(self._keys(keys)))

    async def amget(self, keys: Sequence[K]) -> list[V | None]:
        return self._values(await self.store.amget(self._keys(keys)))

    def mset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        self.store.mset(self._pairs(key_value_pairs))

    async def amset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        await self.store.amset(self._pairs(key_value_pairs))

    def mdelete(self, keys: Sequence[K]) -> None:
        self.store.mdelete(self._keys(keys))

    async def amdelete(self, keys: Sequence[K]) -> None:
        await self.store.amdelete(self._keys(keys))

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[Any]:
        """The underlying store's (encoded) keys that start with ``prefix``."""
        yield from self.store.yield_keys(prefix=prefix)

    async def ayield_keys(self, *, prefix: str | None = None) -> AsyncIterator[Any]:
        """Async :meth:`yield_keys`."""
        async for key in self.store.ayield_keys(prefix=prefix):
            yield key

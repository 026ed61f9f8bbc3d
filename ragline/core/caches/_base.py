"""``BaseCache``, the global cache, and generations as JSON for the persistent caches.

A cache maps ``(prompt, llm_string)`` to the list of generations the model returned:
``prompt`` is the prompt text (a chat model's messages as JSON), ``llm_string``
describes the model and every option of the call (class, settings, ``stop``, bound
tools ...), so different parameters never share an entry. A backend implements
``lookup``, ``update`` and ``clear``; the async twins run them in a worker thread unless
the backend has a native async path.

Example:
    >>> from ragline.core.caches import InMemoryCache
    >>> cache = InMemoryCache()
    >>> cache.update("2 + 2 =", "model-a", [Generation("4")])
    >>> cache.lookup("2 + 2 =", "model-a"), cache.lookup("2 + 2 =", "model-b")
    ([Generation(text='4', generation_info=None)], None)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from ragline.core._message_dicts import message_from_dict, message_to_dict
from ragline.core.exceptions import ConfigurationError, InvalidInputError, PersistenceError
from ragline.core.language_models._outputs import ChatGeneration, Generation

__all__ = [
    "RETURN_VAL_TYPE",
    "BaseCache",
    "cache_key",
    "check_generations",
    "generations_from_json",
    "generations_to_json",
    "get_llm_cache",
    "set_llm_cache",
]

RETURN_VAL_TYPE = Sequence[Generation]


class BaseCache(ABC):
    """Base of LLM caches: ``lookup``, ``update``, ``clear`` and their async twins."""

    @abstractmethod
    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        """The generations stored for this prompt and model, or None."""

    @abstractmethod
    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Store the generations for this prompt and model (replacing any)."""

    @abstractmethod
    def clear(self, **kwargs: Any) -> None:
        """Remove every entry."""

    async def alookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        """Async :meth:`lookup` (a worker thread by default)."""
        return await asyncio.to_thread(self.lookup, prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Async :meth:`update` (a worker thread by default)."""
        await asyncio.to_thread(self.update, prompt, llm_string, return_val)

    async def aclear(self, **kwargs: Any) -> None:
        """Async :meth:`clear` (a worker thread by default)."""
        await asyncio.to_thread(self.clear, **kwargs)


_global_cache: BaseCache | None = None


def set_llm_cache(value: BaseCache | None) -> None:
    """Use ``value`` for every model whose ``cache`` option is None or True (None: off).

    Raises:
        ConfigurationError: ``value`` is not a cache.

    Example:
        >>> from ragline.core.caches import InMemoryCache
        >>> set_llm_cache(InMemoryCache()); type(get_llm_cache()).__name__
        'InMemoryCache'
        >>> set_llm_cache(None)
    """
    global _global_cache
    if value is not None and not isinstance(value, BaseCache):
        raise ConfigurationError(
            f"set_llm_cache takes a BaseCache (InMemoryCache, SQLiteCache, RedisCache ...) or "
            f"None, got {type(value).__name__}"
        )
    _global_cache = value


def get_llm_cache() -> BaseCache | None:
    """The cache set with :func:`set_llm_cache`, or None."""
    return _global_cache


def check_generations(return_val: Any) -> list[Generation]:
    """``return_val`` as a list of generations, or InvalidInputError before any write."""
    if isinstance(return_val, (str, Generation)) or not isinstance(return_val, Sequence):
        raise InvalidInputError(
            f"a cache stores a list of Generations, got {type(return_val).__name__}"
        )
    values = list(return_val)
    for position, item in enumerate(values):
        if not isinstance(item, Generation):
            raise InvalidInputError(
                f"return_val[{position}] must be a Generation, got {type(item).__name__}"
            )
    return values


def cache_key(prompt: str, llm_string: str) -> str:
    """The fixed-length key the persistent caches store an entry under (sha256 hex)."""
    return hashlib.sha256(f"{prompt}\x00{llm_string}".encode()).hexdigest()


def generations_to_json(generations: Sequence[Generation]) -> str:
    """Generations as JSON text (chat generations keep their whole message).

    Raises:
        InvalidInputError: a generation holds a value JSON cannot encode.
    """
    items = []
    for generation in generations:
        item: dict[str, Any] = {"text": generation.text, "info": generation.generation_info}
        if isinstance(generation, ChatGeneration):
            item["message"] = message_to_dict(generation.message)
        items.append(item)
    try:
        return json.dumps(items, ensure_ascii=False)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"generations cannot be cached as JSON: {err}") from err


def generations_from_json(text: str | bytes, where: str) -> list[Generation]:
    """Generations from :func:`generations_to_json` text.

    Raises:
        PersistenceError: the text is not what the cache writes; names ``where``.
    """
    try:
        items = json.loads(text)
        generations: list[Generation] = []
        for item in items:
            if "message" in item:
                message = message_from_dict(item["message"])
                generations.append(ChatGeneration(message=message, generation_info=item["info"]))
            else:
                generations.append(Generation(item["text"], item["info"]))
    except (ValueError, TypeError, KeyError, UnicodeDecodeError) as err:
        raise PersistenceError(f"{where} holds a cache entry that cannot be read: {err}") from err
    return generations

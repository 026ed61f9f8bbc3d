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
    ([Generation(text='4')], None)
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
    "check_key",
    "entry_from_json",
    "entry_to_json",
    "generations_from_items",
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


def _utf8(name: str, value: object) -> bytes:
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a str, got {type(value).__name__}")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidInputError(
            f"{name} holds {value[err.start : err.end]!r} at position {err.start}, a lone "
            "surrogate that is not valid Unicode text and cannot be cached; decode the "
            "text with errors='replace' (or drop the character) before calling the model"
        ) from None


def check_key(prompt: object, llm_string: object) -> tuple[str, str]:
    """``(prompt, llm_string)`` if both are text a cache can store.

    Raises:
        InvalidInputError: either is not a str or holds a lone surrogate (it names which).
    """
    _utf8("prompt", prompt)
    _utf8("llm_string", llm_string)
    return prompt, llm_string  # type: ignore[return-value]


def cache_key(prompt: str, llm_string: str) -> str:
    """The fixed-length key the persistent caches store an entry under (sha256 hex).

    Each part is length-prefixed, so no two different pairs hash the same input (with a
    separator, ``("a\\0b", "c")`` and ``("a", "b\\0c")`` would). The caches also keep the
    pair itself and compare it on lookup, so even a hash collision is a miss.

    Raises:
        InvalidInputError: either part is not a str or holds a lone surrogate.
    """
    data = _utf8("prompt", prompt)
    model = _utf8("llm_string", llm_string)
    framed = b"ragline-llm-cache-2\n%d:%b%d:%b" % (len(data), data, len(model), model)
    return hashlib.sha256(framed).hexdigest()


def legacy_cache_key(prompt: str, llm_string: str) -> str:
    """The key of the first scheme (sha256 of prompt, NUL, llm_string), for reading old
    SQLite caches; only used together with a check of the stored pair."""
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
        text = json.dumps(items, ensure_ascii=False)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"generations cannot be cached as JSON: {err}") from err
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:  # a lone surrogate no database or server can hold
        raise InvalidInputError(
            f"generations cannot be cached: {text[err.start : err.end]!r} is a lone surrogate, "
            "not valid Unicode text; nothing was stored"
        ) from None
    return text


def generations_from_json(text: str | bytes, where: str) -> list[Generation]:
    """Generations from :func:`generations_to_json` text.

    Raises:
        PersistenceError: the text is not what the cache writes; names ``where``.
    """
    try:
        items = json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise PersistenceError(f"{where} holds a cache entry that cannot be read: {err}") from err
    return generations_from_items(items, where)


def generations_from_items(items: Any, where: str) -> list[Generation]:
    """Generations from the parsed JSON of :func:`generations_to_json`.

    Raises:
        PersistenceError: the items are not what the cache writes; names ``where``.
    """
    try:
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


def entry_to_json(prompt: str, llm_string: str, generations_json: str) -> str:
    """One self-describing entry: the pair it answers and its generations, as JSON.

    A cache that stores values under a hash keeps the pair beside them, so a lookup can
    check that an entry answers exactly the prompt and model asked about.
    """
    pair = json.dumps({"prompt": prompt, "llm_string": llm_string})
    return f'{pair[:-1]}, "generations": {generations_json}}}'


def entry_from_json(
    text: str | bytes, prompt: str, llm_string: str, where: str
) -> list[Generation] | None:
    """The generations of an :func:`entry_to_json` entry, or None when it answers
    another pair (or was written by an older version that did not record its pair).

    Raises:
        PersistenceError: the text is not JSON or its generations cannot be read.
    """
    try:
        entry = json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise PersistenceError(f"{where} holds a cache entry that cannot be read: {err}") from err
    if not isinstance(entry, dict) or "generations" not in entry:
        return None  # the first format: a bare list whose pair cannot be checked
    if entry.get("prompt") != prompt or entry.get("llm_string") != llm_string:
        return None
    return generations_from_items(entry["generations"], where)

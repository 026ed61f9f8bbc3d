"""InMemoryCache: a bounded cache in the process, least recently used first out."""

from __future__ import annotations

import threading
from typing import Any

from ragline.core._checks import check_optional_positive_int
from ragline.core.caches._base import RETURN_VAL_TYPE, BaseCache, check_generations, check_key
from ragline.core.language_models._outputs import Generation

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache):
    """Generations kept in a dict in this process; at most ``maxsize`` entries.

    When full, storing a new entry drops the entry used least recently (a lookup hit
    counts as a use). Thread-safe.

    Args:
        maxsize: the most entries kept (``None``: no limit).

    Raises:
        InvalidInputError: ``maxsize`` is not an int >= 1 or None.

    Example:
        >>> cache = InMemoryCache(maxsize=2)
        >>> for prompt in ("a", "b"):
        ...     cache.update(prompt, "m", [Generation(prompt.upper())])
        >>> _ = cache.lookup("a", "m")          # "a" is now the most recently used
        >>> cache.update("c", "m", [Generation("C")])
        >>> cache.lookup("b", "m") is None, cache.lookup("a", "m")[0].text
        (True, 'A')
    """

    def __init__(self, *, maxsize: int | None = 10_000) -> None:
        self.maxsize = check_optional_positive_int("maxsize", maxsize)
        # a plain dict in use order (oldest first), as LangChain's ``_cache`` is a dict
        self._entries: dict[tuple[str, str], list[Generation]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def _cache(self) -> dict[tuple[str, str], list[Generation]]:
        """The entries by ``(prompt, llm_string)``: LangChain's attribute, which programs
        read (``len(cache._cache)``)."""
        return self._entries

    @property
    def _maxsize(self) -> int | None:
        """``maxsize`` under LangChain's attribute name, which its tests read."""
        return self.maxsize

    def __repr__(self) -> str:
        return f"InMemoryCache({len(self._entries)} entries, maxsize={self.maxsize})"

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        # The same text rules as the persistent caches, so code moved between them
        # meets the same errors.
        key = check_key(prompt, llm_string)
        with self._lock:
            found = self._entries.pop(key, None)
            if found is not None:
                self._entries[key] = found  # now the most recently used
            return found

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        key = check_key(prompt, llm_string)
        generations = check_generations(return_val)
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = generations
            if self.maxsize is not None and len(self._entries) > self.maxsize:
                del self._entries[next(iter(self._entries))]  # the least recently used

    def clear(self, **kwargs: Any) -> None:
        with self._lock:
            self._entries.clear()

    async def alookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        return self.lookup(prompt, llm_string)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        self.update(prompt, llm_string, return_val)

    async def aclear(self, **kwargs: Any) -> None:
        self.clear()

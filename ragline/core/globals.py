"""Process-wide switches, under LangChain's names: ``verbose``, ``debug`` and the model cache.

- :func:`set_verbose` gives the default of ``verbose`` to the legacy chains built after
  it (``LLMChain``, ``RetrievalQA``, ``AgentExecutor`` ...), which then print their runs
  (``> Entering new ... chain``). A chain given ``verbose=`` keeps its own.
- :func:`set_debug` prints every run of every runnable as it starts and ends, with its
  inputs and outputs (a :class:`~ragline.core.callbacks.ConsoleCallbackHandler` joins
  each run that has none).
- :func:`set_llm_cache` is :func:`ragline.core.caches.set_llm_cache`.

Example:
    >>> set_verbose(True); get_verbose()
    True
    >>> set_verbose(False)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragline.core.exceptions import ConfigurationError

if TYPE_CHECKING:
    from ragline.core.caches._base import get_llm_cache, set_llm_cache

__all__ = [
    "get_debug",
    "get_llm_cache",
    "get_verbose",
    "set_debug",
    "set_llm_cache",
    "set_verbose",
]

# Read through the functions below; the callback manager reads _debug once per run.
_verbose = False
_debug = False


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ConfigurationError(f"{name} takes True or False, got {value!r}")
    return value


def set_verbose(value: bool) -> None:
    """Make ``verbose`` the default of the legacy chains built from now on.

    Raises:
        ConfigurationError: ``value`` is not a bool.
    """
    global _verbose
    _verbose = _flag("set_verbose", value)


def get_verbose() -> bool:
    """The value given to :func:`set_verbose` (False until then)."""
    return _verbose


def set_debug(value: bool) -> None:
    """Print every run's start and end, inputs and outputs, from now on (True) or not.

    Raises:
        ConfigurationError: ``value`` is not a bool.
    """
    global _debug
    _debug = _flag("set_debug", value)


def get_debug() -> bool:
    """The value given to :func:`set_debug` (False until then)."""
    return _debug


def __getattr__(name: str) -> Any:
    # the cache's two functions load on first use: the callback manager imports this
    # module, and the caches import the models, which import the callback manager
    if name in ("get_llm_cache", "set_llm_cache"):
        return getattr(importlib.import_module("ragline.core.caches._base"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

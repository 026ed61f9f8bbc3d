"""Every exception ragline raises on purpose.

Each specific error also subclasses the built-in a user would already catch, so
``except ValueError`` keeps working when code is ported from elsewhere::

    RaglineError
    ├── InvalidInputError (ValueError)       bad argument or input; nothing was changed
    │   ├── MissingVariableError (KeyError)  a prompt or chain input lacks a required key
    │   ├── FilterError                      unknown operator or field in a metadata filter
    │   └── DimensionError                   a vector of the wrong dimension, or NaN / inf
    ├── ConfigurationError (ValueError)      unknown configurable id, search_type, chain_type ...
    ├── MissingDependencyError (ImportError) an optional package is not installed; names the extra
    ├── StoreConnectionError (ConnectionError)  a backend server cannot be reached; names the URL
    ├── PersistenceError (OSError)           a saved store is missing, truncated or newer
    ├── LoaderError (OSError)                a file or URL could not be read; names it
    ├── ChainStepError (RuntimeError)        one step of a chain failed on one item; names it
    └── RecursionLimitError (RecursionError) a run nested deeper than config["recursion_limit"]

Messages name the thing, the bad value and the valid options. Errors from backend
libraries (faiss, redis, httpx ...) are mapped at the boundary with the original
chained (``raise ... from err``).
"""

from __future__ import annotations

__all__ = [
    "ChainStepError",
    "ConfigurationError",
    "DimensionError",
    "FilterError",
    "InvalidInputError",
    "LoaderError",
    "MissingDependencyError",
    "MissingVariableError",
    "PersistenceError",
    "RaglineError",
    "RecursionLimitError",
    "StoreConnectionError",
]


class RaglineError(Exception):
    """Base class of every error ragline raises on purpose."""


class InvalidInputError(RaglineError, ValueError):
    """An argument or input is invalid; the call changed nothing."""


class MissingVariableError(InvalidInputError, KeyError):
    """A prompt or chain was invoked without a required input key."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class FilterError(InvalidInputError):
    """A metadata filter uses an unknown operator, a bad operand or an unknown field."""


class DimensionError(InvalidInputError):
    """A vector has the wrong dimension or holds NaN / infinite values."""


class ConfigurationError(RaglineError, ValueError):
    """An unknown option: configurable id, search_type, chain_type, metric ..."""


class MissingDependencyError(RaglineError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class StoreConnectionError(RaglineError, ConnectionError):
    """A backend server (Redis, an HTTP endpoint) cannot be reached."""


class PersistenceError(RaglineError, OSError):
    """A saved store is missing, truncated, corrupt or written by a newer format version."""


class LoaderError(RaglineError, OSError):
    """A file or URL could not be read or decoded; the message names it."""


class ChainStepError(RaglineError, RuntimeError):
    """One step of a chain failed on one item (a map step on a document, say).

    The message names the item; the original error is chained as ``__cause__``.

    Attributes:
        index: the 0-based position of the item that failed.
        item: the item itself (a Document, for document chains).
    """

    def __init__(self, message: str, *, index: int, item: object = None) -> None:
        super().__init__(message)
        self.index = index
        self.item = item


class RecursionLimitError(RaglineError, RecursionError):
    """Runs nested deeper than ``config["recursion_limit"]``."""

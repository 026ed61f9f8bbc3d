"""Argument checks shared by every package: one implementation, one message format.

Each check returns the value it accepted (so ``self.k = check_positive_int("k", k)``
reads as an assignment) and raises :class:`~ragline.core.exceptions.InvalidInputError`
(a ``ValueError``) naming the argument, what it must be and what it got; a value of
the wrong type for a number check (``None``, ``"3"``, ``2.0`` for an int) raises its
subclass :class:`~ragline.core.exceptions.ArgumentTypeError`, also a ``TypeError``::

    k must be an int >= 1, got 0
    max_concurrency must be an int >= 1 or None, got True
    timeout must be a finite number > 0, got 0
    lambda_mult must be a number between 0 and 1, got 1.5
    strip_headers must be a bool, got 'no'
    search_type 'simlarity' is not one of 'similarity', 'mmr'

A ``bool`` is never accepted as a number (``True`` is an ``int`` to Python, never to a
caller); numpy scalars are, and come back as plain ``int`` / ``float``. A caller that
reports a bad option as a :class:`~ragline.core.exceptions.ConfigurationError` passes
``error=ConfigurationError``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

from ragline.core.exceptions import ArgumentTypeError, ConfigurationError, InvalidInputError

__all__ = [
    "check_choice",
    "check_flag",
    "check_int",
    "check_non_negative_int",
    "check_number",
    "check_optional_int",
    "check_optional_number",
    "check_optional_positive_int",
    "check_positive_int",
    "check_positive_number",
    "check_str_list",
    "check_unicode",
    "check_unit_interval",
    "not_a_document",
]

T = TypeVar("T")
ErrorType = type[Exception]


def _as_int(value: object) -> int | None:
    """``value`` as a plain int if it is an integer (not a bool), else None."""
    if type(value) is int:  # the common case, without the ABC check below
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    return int(value)


def _as_number(value: object) -> float | None:
    """``value`` as a plain int or float if it is a real number (not a bool), else None."""
    if type(value) is float or type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _or_none(wanted: str, optional: bool) -> str:
    return f"{wanted} or None" if optional else wanted


def _error_for(value: object, error: ErrorType, is_number: bool) -> ErrorType:
    """The class to raise: the default error becomes :class:`ArgumentTypeError` (also a
    ``TypeError``) when the value is no number at all (a bool counts as a number here)."""
    if error is InvalidInputError and not is_number and not isinstance(value, bool):
        return ArgumentTypeError
    return error


def _int(
    name: str, value: object, minimum: int | None, optional: bool, error: ErrorType
) -> int | None:
    if optional and value is None:
        return None
    number = _as_int(value)
    if number is None or (minimum is not None and number < minimum):
        wanted = "an int" if minimum is None else f"an int >= {minimum}"
        raise _error_for(value, error, number is not None)(
            f"{name} must be {_or_none(wanted, optional)}, got {value!r}"
        )
    return number


def check_int(
    name: str, value: object, *, minimum: int | None = 1, error: ErrorType = InvalidInputError
) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum`` (never a bool).

    ``minimum=None`` accepts any int (``seed must be an int, got 1.5``).

    Raises:
        InvalidInputError: (or ``error``) ``name must be an int >= minimum, got value``.

    Example:
        >>> check_int("chunk_overlap", 0, minimum=0)
        0
    """
    return _int(name, value, minimum, False, error)  # type: ignore[return-value]


def check_optional_int(
    name: str, value: object, *, minimum: int | None = 1, error: ErrorType = InvalidInputError
) -> int | None:
    """:func:`check_int` that also accepts None (``... must be an int >= 1 or None``)."""
    return _int(name, value, minimum, True, error)


def check_positive_int(name: str, value: object, *, error: ErrorType = InvalidInputError) -> int:
    """Return ``value`` as an int if it is an integer >= 1 (a numpy integer too; no bool).

    Example:
        >>> import numpy as np
        >>> check_positive_int("k", np.int64(3))
        3
        >>> check_positive_int("k", True)
        Traceback (most recent call last):
        ...
        ragline.core.exceptions.InvalidInputError: k must be an int >= 1, got True
    """
    return _int(name, value, 1, False, error)  # type: ignore[return-value]


def check_optional_positive_int(
    name: str, value: object, *, error: ErrorType = InvalidInputError
) -> int | None:
    """:func:`check_positive_int` that also accepts None (and returns it)."""
    return _int(name, value, 1, True, error)


def check_non_negative_int(
    name: str, value: object, *, error: ErrorType = InvalidInputError
) -> int:
    """Return ``value`` as an int if it is an integer >= 0 (no bool)."""
    return _int(name, value, 0, False, error)  # type: ignore[return-value]


def _wanted_number(low: float | None, high: float | None, low_open: bool) -> str:
    if low is not None and high is not None and not low_open:
        return f"a number between {low:g} and {high:g}"
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        bounds.append(f"<= {high:g}")
    return f"a finite number {' and '.join(bounds)}" if bounds else "a finite number"


def _number(
    name: str,
    value: object,
    low: float | None,
    high: float | None,
    low_open: bool,
    optional: bool,
    error: ErrorType,
) -> float | None:
    if optional and value is None:
        return None
    number = _as_number(value)
    if (
        number is None
        or not math.isfinite(number)
        or (low is not None and (number <= low if low_open else number < low))
        or (high is not None and number > high)
    ):
        wanted = _or_none(_wanted_number(low, high, low_open), optional)
        raise _error_for(value, error, number is not None)(
            f"{name} must be {wanted}, got {value!r}"
        )
    return number


def check_number(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    error: ErrorType = InvalidInputError,
) -> float:
    """Return ``value`` if it is a finite real number within the bounds (never a bool).

    Args:
        name: the argument's name in the message.
        value: what the caller gave.
        low: the smallest allowed value (``low_open``: values must be greater).
        high: the largest allowed value.
        error: the exception type to raise.

    Returns:
        The value as a plain ``int`` or ``float`` (numpy scalars converted).

    Raises:
        InvalidInputError: (or ``error``) e.g. ``top_p must be a number between 0 and 1,
            got 1.5`` or ``c must be a finite number >= 0, got -1``.

    Example:
        >>> check_number("temperature", 0.7, low=0, high=2)
        0.7
    """
    return _number(name, value, low, high, low_open, False, error)  # type: ignore[return-value]


def check_optional_number(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    error: ErrorType = InvalidInputError,
) -> float | None:
    """:func:`check_number` that also accepts None (``... or None, got ...``)."""
    return _number(name, value, low, high, low_open, True, error)


def check_positive_number(
    name: str, value: object, *, error: ErrorType = InvalidInputError
) -> float:
    """Return ``value`` if it is a finite number > 0 (``timeout must be a finite number > 0``)."""
    return _number(name, value, 0, None, True, False, error)  # type: ignore[return-value]


def check_unit_interval(name: str, value: object, *, error: ErrorType = InvalidInputError) -> float:
    """Return ``value`` if it is a number in [0, 1] (``score_threshold``, ``lambda_mult``).

    Example:
        >>> check_unit_interval("lambda_mult", 1)
        1
    """
    return _number(name, value, 0, 1, False, False, error)  # type: ignore[return-value]


def check_flag(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool (``1`` or ``"yes"`` is refused, not guessed at).

    Example:
        >>> check_flag("strip_headers", "no")
        Traceback (most recent call last):
        ...
        ragline.core.exceptions.InvalidInputError: strip_headers must be a bool, got 'no'
    """
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be a bool, got {value!r}")
    return value


def _same_choice(value: object, choice: object) -> bool:
    # a bool matches only itself: 1 == True to Python, but a flag's choices must not take 1
    if value is choice:
        return True
    if isinstance(value, bool) or isinstance(choice, bool):
        return False
    try:
        return bool(value == choice)
    except (TypeError, ValueError):  # e.g. an array, whose == is not a truth value
        return False


def check_choice(
    name: str,
    value: T,
    choices: Iterable[Any],
    *,
    optional: bool = False,
    error: ErrorType = ConfigurationError,
) -> T:
    """Return ``value`` if it is one of ``choices`` (or None, when ``optional``).

    Raises:
        ConfigurationError: (or ``error``) ``name 'value' is not one of 'a', 'b'``, the
            choices in their given order, `` or None`` added when ``optional``.

    Example:
        >>> check_choice("search_type", "mmr", ("similarity", "mmr"))
        'mmr'
        >>> check_choice("search_type", "simlarity", ("similarity", "mmr"))
        Traceback (most recent call last):
        ...
        ragline.core.exceptions.ConfigurationError: search_type 'simlarity' is not one of \
'similarity', 'mmr'
    """
    if optional and value is None:
        return value
    options = list(choices)
    if not any(_same_choice(value, choice) for choice in options):
        listed = _or_none(", ".join(map(repr, options)), optional)
        raise error(f"{name} {value!r} is not one of {listed}")
    return value


def check_str_list(items: Sequence[str], *, what: str) -> list[str]:
    """Return ``items`` as a new list after checking that every item is a ``str``.

    Args:
        items: the strings (texts, keys ...).
        what: how the argument is named in error messages.

    Raises:
        InvalidInputError: a single string (or bytes) instead of a list, something that
            is not iterable, or an item that is not a str (named by its position).

    Example:
        >>> check_str_list(("a", "b"), what="keys")
        ['a', 'b']
    """
    if isinstance(items, (str, bytes)):
        raise InvalidInputError(
            f"{what} must be a list of strings, got a single {type(items).__name__}; "
            f"wrap it in a list: [{items!r:.40}]"
        )
    try:
        checked: list[Any] = list(items)
    except TypeError:
        raise InvalidInputError(
            f"{what} must be a list of strings, got {type(items).__name__}"
        ) from None
    for position, item in enumerate(checked):
        if not isinstance(item, str):
            raise InvalidInputError(
                f"{what}[{position}] must be a str, got {type(item).__name__}: {item!r:.60}"
            )
    return checked


def check_unicode(text: str, *, what: str) -> str:
    """Return ``text`` after checking that it is valid Unicode (encodable as UTF-8).

    A Python ``str`` may hold a lone surrogate (``"\\ud800"``, from JSON escapes or
    ``bytes.decode(errors="surrogateescape")``); no tokenizer, HTTP body or database
    takes one, and each fails in its own words. This check refuses it once, up front.
    ASCII text (the common case) is accepted without encoding it.

    Args:
        text: the text (a ``str``; callers check the type first).
        what: how the argument is named in the error message (``query``, ``texts[3]``).

    Returns:
        ``text`` itself.

    Raises:
        InvalidInputError: ``text`` holds a lone surrogate; the message names ``what``,
            the character and its position.

    Example:
        >>> check_unicode("naïve café", what="query")
        'naïve café'
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:  # for UTF-8 this only ever means a lone surrogate
        raise InvalidInputError(
            f"{what} holds a lone surrogate {text[err.start]!r} at position {err.start}; "
            "text must be valid Unicode: remove it, or decode the source bytes with "
            "errors='replace'"
        ) from None
    return text


def not_a_document(value: object) -> str:
    """How an error names ``value`` that should have been a ragline Document.

    The type's name, or, for another library's class of the same name (LangChain's
    ``Document``, kept by an import ``ragline port`` did not rewrite), its full path and
    what to do, since "must be a Document, got Document" would say nothing.

    Example:
        >>> not_a_document("text")
        'str'
    """
    kind = type(value)
    if kind.__name__ != "Document":
        return kind.__name__
    return (
        f"{kind.__module__}.{kind.__qualname__} (another library's Document: build it with "
        "ragline.core.Document, or run `ragline port` on the program)"
    )

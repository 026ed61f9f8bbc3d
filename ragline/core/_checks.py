"""Input checks shared by several packages (they all import core)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core.exceptions import InvalidInputError

__all__ = ["check_str_list"]


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

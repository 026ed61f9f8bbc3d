"""Option checks shared by the retrievers: each error names the owner, option and value."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ragline.core import ConfigurationError, Document, InvalidInputError

__all__ = [
    "check_documents",
    "check_keys",
    "check_number",
    "check_positive_int",
    "copy_document",
]


def check_positive_int(owner: str, name: str, value: Any, *, allow_none: bool = False) -> Any:
    """Return ``value`` if it is an int >= 1 (or None when allowed), else raise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(
            f"{owner} {name} must be an int >= 1{' or None' if allow_none else ''}, got {value!r}"
        )
    return value


def check_number(
    owner: str,
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
) -> float:
    """Return ``value`` as a float if it is a finite number in the given range, else raise."""
    bounds = []
    if low is not None:
        bounds.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        bounds.append(f"<= {high:g}")
    wanted = f"a finite number{' ' + ' and '.join(bounds) if bounds else ''}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{owner} {name} must be {wanted}, got {value!r}")
    too_low = low is not None and (value <= low if low_open else value < low)
    if too_low or (high is not None and value > high):
        raise InvalidInputError(f"{owner} {name} must be {wanted}, got {value!r}")
    return float(value)


def check_keys(
    owner: str, name: str, options: Mapping[str, Any] | None, allowed: tuple[str, ...]
) -> dict[str, Any]:
    """Return a copy of the dict option ``name``, raising on keys outside ``allowed``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidInputError(f"{owner} {name} must be a dict, got {type(options).__name__}")
    unknown = [key for key in options if key not in allowed]
    if unknown:
        raise ConfigurationError(
            f"{owner} {name} has unknown key(s) {', '.join(map(repr, unknown))}; "
            f"valid keys are {', '.join(map(repr, allowed))}"
        )
    return dict(options)


def check_documents(owner: str, documents: Any) -> list[Document]:
    """Return ``documents`` as a list after checking every item is a Document."""
    if isinstance(documents, (str, Document)) or not hasattr(documents, "__iter__"):
        raise InvalidInputError(f"{owner} needs a list of Document, got {type(documents).__name__}")
    items = list(documents)
    for position, item in enumerate(items):
        if not isinstance(item, Document):
            raise InvalidInputError(
                f"{owner} documents[{position}] must be a Document, got {type(item).__name__}"
            )
    return items


def copy_document(document: Document) -> Document:
    """A copy the caller may mutate without touching what a retriever holds."""
    return Document(document.page_content, dict(document.metadata), document.id)

"""What a store keeps must come back the same: texts and metadata are checked when added.

Every backend keeps metadata as JSON somewhere (the FAISS and in-memory files, the Redis
hash), so a value JSON would change is refused before anything is stored, on every
backend alike: a tuple (it comes back a list), a key that is not a str (``1`` comes
back ``"1"``), NaN or an infinity (not standard JSON; the in-memory store's file refuses
them), a type JSON has no place for (a set, a numpy integer, a datetime ...), and a lone
surrogate in a text or a string (UTF-8 cannot hold it, so the save would fail later).

The usual flat metadata (``{"source": "a.txt", "page": 3}``) is checked in a few C-level
passes over all documents at once; only when one of them fails does a per-document walk
run, to name the culprit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ragline.core import InvalidInputError

__all__ = ["MAX_DEPTH", "check_round_trip", "encodable"]

# Nesting deeper than this in one metadata value is refused (JSON encoders recurse).
MAX_DEPTH = 100

_SCALARS = frozenset({str, int, float, bool, type(None)})
_HELP = "use str, int, float, bool, None, lists and dicts with str keys"


def check_round_trip(
    texts: Sequence[str],
    metadatas: Sequence[Mapping[str, Any]],
    flat_values: tuple[Any, ...] | None = None,
) -> None:
    """Raise InvalidInputError (naming the text or metadata value) for anything a store
    could not give back unchanged.

    Args:
        texts: the texts (already known to be str).
        metadatas: one dict per text.
        flat_values: every metadata value of every document, when the caller already
            knows they are all hashable (scalars, no container): the fast path.

    Example:
        >>> check_round_trip(["a"], [{"when": (1, 2)}])
        Traceback (most recent call last):
        ...
        ragline.core.exceptions.InvalidInputError: metadatas[0]['when'] is a tuple, which \
comes back as a list; pass a list; nothing was written
    """
    if not encodable("".join(texts)):
        for position, text in enumerate(texts):
            if not encodable(text):
                raise InvalidInputError(
                    f"texts[{position}] holds a lone surrogate ({_surrogate(text)}), which "
                    "UTF-8 cannot store; fix the text's decoding (e.g. errors='replace'); "
                    "nothing was written"
                )
    if flat_values is not None and _flat_ok(metadatas, flat_values):
        return
    for position, metadata in enumerate(metadatas):
        _check(metadata, f"metadatas[{position}]", 0)


def _flat_ok(metadatas: Sequence[Mapping[str, Any]], values: tuple[Any, ...]) -> bool:
    """Whether flat metadata passes, in C-level passes (False: look closer)."""
    kinds = set(map(type, values))
    if not kinds <= _SCALARS:
        return False
    if float in kinds and not math.isfinite(sum(v for v in values if type(v) is float)):
        return False  # a NaN or an infinity (or an overflowing sum: the walk tells)
    if str in kinds and not encodable("".join(filter(_is_str, values))):
        return False
    try:
        keys = "".join(itertools.chain.from_iterable(metadatas))  # a dict iterates its keys
    except TypeError:  # a key that is not a str
        return False
    return encodable(keys)


def _is_str(value: Any) -> bool:
    return type(value) is str


def _check(value: Any, where: str, depth: int) -> None:
    if isinstance(value, str):
        if not encodable(value):
            raise InvalidInputError(
                f"{where} holds a lone surrogate ({_surrogate(value)}), which UTF-8 cannot "
                "store; nothing was written"
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(
                f"{where} is {value!r}, which JSON cannot hold (stores keep metadata as "
                "JSON); use None or a string; nothing was written"
            )
    elif value is None or isinstance(value, int):  # bool is an int
        return
    elif depth >= MAX_DEPTH:
        raise InvalidInputError(f"{where} is nested deeper than {MAX_DEPTH} levels")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInputError(
                    f"{where} has the key {key!r} ({type(key).__name__}); metadata keys must "
                    f"be str (JSON would give it back as {str(key)!r}); nothing was written"
                )
            if not encodable(key):
                raise InvalidInputError(f"{where} has a key with a lone surrogate: {key!r}")
            _check(item, f"{where}[{key!r}]", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]", depth + 1)
    elif isinstance(value, tuple):
        raise InvalidInputError(
            f"{where} is a tuple, which comes back as a list; pass a list; nothing was written"
        )
    else:
        raise InvalidInputError(
            f"{where} = {value!r:.40} is of type {type(value).__name__}, which stores cannot "
            f"keep (metadata is kept as JSON); {_HELP}; nothing was written"
        )


def encodable(text: str) -> bool:
    """Whether UTF-8 can hold ``text`` (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(text: str) -> str:
    position = next(i for i, char in enumerate(text) if "\ud800" <= char <= "\udfff")
    return f"{text[position]!r} at position {position}"

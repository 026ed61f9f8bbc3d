"""File paths checked before the operating system sees them.

A path holding a NUL, a lone surrogate (text the file system cannot encode) or a name
longer than the file system allows makes ``open()`` raise a bare ValueError,
UnicodeEncodeError or OSError, the last echoing the whole name (a megabyte, perhaps).
:func:`check_file_path` refuses such a path first, with an ``InvalidInputError`` that
names the argument and shows the path cut short.

Example:
    >>> check_file_path("chats/a.json", what="file_path")
    'chats/a.json'
"""

from __future__ import annotations

import os

from ragline.core.exceptions import InvalidInputError

__all__ = ["check_file_path", "shown_path"]


def shown_path(path: str) -> str:
    """A path for an error message: long ones cut short, odd characters escaped."""
    return repr(path if len(path) <= 120 else f"{path[:60]}...{path[-40:]}")


def check_file_path(file_path: str | os.PathLike[str], *, what: str, reserve: int = 0) -> str:
    """``file_path`` as a str the operating system can open, checked before any use.

    ``what`` names the argument in messages (``"file_path"``, ``"connection"`` ...).
    ``reserve`` is how many bytes longer than the file's own name the caller's sibling
    files are (a ``.<name>.XXXXXXXX.tmp`` beside it, a ``<name>.lock``): the last name
    must leave that room, or writing the sibling fails later with a raw OSError.

    Raises:
        InvalidInputError: not a path, a NUL character, a name the file system cannot
            encode (a lone surrogate), or a file or folder name longer than it allows.
    """
    if not isinstance(file_path, (str, os.PathLike)):
        raise InvalidInputError(f"{what} must be a str or a path, got {type(file_path).__name__}")
    text = os.fspath(file_path)
    if not isinstance(text, str):
        text = os.fsdecode(text)
    if "\x00" in text:
        raise InvalidInputError(
            f"{what} {shown_path(text)} contains a NUL character (position {text.index(chr(0))}), "
            f"which no file name can hold; pass another {what}"
        )
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError as err:
        raise InvalidInputError(
            f"{what} {shown_path(text)} holds {text[err.start : err.end]!r}, which the file "
            f"system cannot encode (a lone surrogate); pass another {what}"
        ) from None
    # Checked here, not left to the first open(), so the error names the argument
    # instead of printing the whole (possibly megabyte-long) name in an OSError.
    parts = encoded.split(os.fsencode(os.sep))
    longest = max(len(part) for part in parts)
    last_max = _NAME_MAX - reserve
    if longest > _NAME_MAX or len(parts[-1]) > last_max or len(encoded) + reserve > _PATH_MAX:
        raise InvalidInputError(
            f"{what} {shown_path(text)} is too long for the file system ({len(encoded)} bytes, "
            f"longest name {longest} bytes; at most {_NAME_MAX} per name, {last_max} for the "
            f"file's own name, and {_PATH_MAX - reserve} in all); pass a shorter {what}"
        )
    return text


def _limit(name: str, default: int) -> int:
    try:
        return int(os.pathconf("/", name))  # type: ignore[attr-defined, unused-ignore]
    except (AttributeError, OSError, ValueError):  # Windows has no pathconf
        return default


_NAME_MAX = _limit("PC_NAME_MAX", 255)
_PATH_MAX = _limit("PC_PATH_MAX", 4096)

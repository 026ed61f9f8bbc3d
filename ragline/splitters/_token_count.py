"""Exact tiktoken token counts, faster than encoding every piece from scratch.

A token splitter measures thousands of overlapping pieces of the same text. tiktoken
encodes a text in two steps: a regular expression cuts it into *pre-tokens* (words with
their leading space, runs of digits, punctuation, whitespace), then byte-pair encoding
turns each pre-token into tokens on its own. So a text's count is the sum of its
pre-tokens' counts, and a pre-token ("␣the", "␣return") recurs across a corpus: we cut
with Python's ``re`` and look each pre-token's count up in a cache.

This is only done where the cut provably matches tiktoken's: for encodings whose
pattern uses just the Unicode classes ``\\p{L}`` and ``\\p{N}`` (gpt2, r50k, p50k,
cl100k), on ASCII text, where those classes are ``[A-Za-z]`` and ``[0-9]``, on Python
3.11+ (possessive quantifiers). Anything else is counted by tiktoken itself, without
building the Python list of tokens. The splitter tests compare both against tiktoken.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["ordinary_counter"]

_ASCII_CLASSES = {"L": "A-Za-z", "N": "0-9"}
_CACHE_LIMIT = 500_000  # pre-tokens kept per encoding (a few tens of MB at most)


def ascii_pattern(pattern: str) -> re.Pattern[str] | None:
    """Translate a tiktoken pattern to a Python regex that cuts ASCII text the same way.

    Returns None when the pattern uses a construct this translation does not cover.
    """
    if sys.version_info < (3, 11):  # possessive quantifiers arrived in 3.11
        return None
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escape = pattern[index : index + 5]
            if escape[1:2] == "p":
                name = escape[3:4]
                if escape[2:3] != "{" or escape[4:5] != "}" or name not in _ASCII_CLASSES:
                    return None
                ranges = _ASCII_CLASSES[name]
                out.append(ranges if in_class else f"[{ranges}]")
                index += 5
                continue
            if escape[1:2] in ("P", "X", "G", "z", "Z", "A"):
                return None
            out.append(pattern[index : index + 2])
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        elif char == "$" and not in_class:
            char = r"\Z"  # tiktoken's "$" is the end of the text, not of a line
        out.append(char)
        index += 1
    try:
        return re.compile("".join(out), re.ASCII)
    except re.error:
        return None


def _buffer_counter(encoding: Any) -> Callable[[str], int]:
    """Count with tiktoken, reading the size of its token buffer (no Python list)."""
    to_buffer = getattr(getattr(encoding, "_core_bpe", None), "encode_to_tiktoken_buffer", None)
    encode = encoding.encode_ordinary
    if to_buffer is None:  # another tiktoken version: the public API
        return lambda piece: len(encode(piece))
    no_special: frozenset[str] = frozenset()

    def count(piece: str) -> int:
        try:
            return memoryview(to_buffer(piece, no_special)).nbytes // 4  # 4-byte ids
        except UnicodeEncodeError:  # lone surrogates: tiktoken's own repair path
            return len(encode(piece))

    return count


_COUNTERS: dict[int, tuple[Any, Callable[[str], int]]] = {}


def ordinary_counter(encoding: Any) -> Callable[[str], int]:
    """A function counting ``encoding``'s tokens in a text without special tokens.

    It equals ``len(encoding.encode_ordinary(text))`` on every text; one counter (and
    its pre-token cache) is shared by all splitters on the same encoding.
    """
    cached = _COUNTERS.get(id(encoding))
    if cached is not None and cached[0] is encoding:
        return cached[1]
    exact = _buffer_counter(encoding)
    single_piece = getattr(getattr(encoding, "_core_bpe", None), "encode_single_piece", None)
    splitter = ascii_pattern(getattr(encoding, "_pat_str", ""))
    if splitter is None or single_piece is None:
        counter = exact
    else:
        counter = _pretoken_counter(splitter.findall, single_piece, exact)
    _COUNTERS[id(encoding)] = (encoding, counter)
    return counter


class _PretokenCounts(dict[str, int]):
    """Pre-token -> token count; a missing pre-token is byte-pair encoded on first use."""

    def __init__(self, single_piece: Callable[[bytes], list[int]]) -> None:
        super().__init__()
        self._single_piece = single_piece

    def __missing__(self, pretoken: str) -> int:
        if len(self) > _CACHE_LIMIT:
            self.clear()
        count = self[pretoken] = len(self._single_piece(pretoken.encode("ascii")))
        return count


def _pretoken_counter(
    cut: Callable[[str], list[str]],
    single_piece: Callable[[bytes], list[int]],
    exact: Callable[[str], int],
) -> Callable[[str], int]:
    known = _PretokenCounts(single_piece).__getitem__

    def count(piece: str) -> int:
        if not piece.isascii():
            return exact(piece)
        return sum(map(known, cut(piece)))

    return count

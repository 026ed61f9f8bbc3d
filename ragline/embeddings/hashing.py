"""Deterministic feature-hashing embeddings: no model, no download, same vector everywhere.

Each text becomes a bag of features, lower-cased word tokens (``w:cat``) and character
n-grams of each word padded with ``<`` and ``>`` (``c:<ca``, ``c:cat``, ``c:at>``), the
way fastText builds sub-word features. Every feature is hashed with BLAKE2b (never
Python's per-process salted ``hash()``) to a 64-bit integer: the integer modulo the
dimension picks the column, its top bit picks the sign (+1 / -1), so collisions
cancel out on average instead of piling up. Rows are then L2-normalised.

Texts that share words or word pieces get a positive cosine similarity; unrelated texts
get about zero. It is a baseline and a test double, not a semantic model.

``DeterministicFakeEmbedding`` (LangChain's test double) lives here too: seeded normal
draws per text, LangChain's numbers, no word overlap; and ``FakeEmbeddings``, fresh
random draws on every call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from hashlib import blake2b, sha256
from typing import ClassVar

import numpy as np

from ragline.core import InvalidInputError
from ragline.core._checks import check_positive_int
from ragline.core.fields import Fields, declared_fields
from ragline.embeddings.base import (
    Embeddings,
    _rounds_lists,
    _sync_inline,
    check_text,
    check_texts,
)

__all__ = ["DeterministicFakeEmbedding", "FakeEmbeddings", "HashingEmbeddings"]

_WORD = re.compile(r"\w+")
_ROWS_PER_BLOCK = 2048  # bounds the dense scratch matrix to 2048 x dimension floats


def _feature_hash(feature: str) -> int:
    return int.from_bytes(blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")


def _word_features(word: str, char_ngrams: tuple[int, int] | None) -> list[str]:
    features = [f"w:{word}"]
    if char_ngrams is not None:
        padded = f"<{word}>"
        for n in range(char_ngrams[0], min(char_ngrams[1], len(padded)) + 1):
            features.extend(f"c:{padded[i : i + n]}" for i in range(len(padded) - n + 1))
    return features


@lru_cache(maxsize=1 << 15)
def _word_hashes(word: str, char_ngrams: tuple[int, int] | None) -> np.ndarray:
    # Words repeat a lot in any corpus (Zipf), so hashing each distinct word's features
    # once and reusing the array makes the per-token cost a dictionary lookup.
    hashes = np.array([_feature_hash(f) for f in _word_features(word, char_ngrams)], np.uint64)
    hashes.flags.writeable = False
    return hashes


class HashingEmbeddings(Embeddings):
    """Signed feature hashing of words and character n-grams into ``dimension`` floats.

    Stable across processes, machines and Python versions; unit L2 norm for every text
    (an empty text, or one whose features cancel exactly, gets a one-hot vector chosen by
    hashing the whole text, so no vector is ever zero).

    Args:
        dimension: length of every vector (> 0).
        char_ngrams: ``(min_n, max_n)`` character n-gram sizes, or ``None`` for words only.
        lowercase: fold case before tokenising.

    Raises:
        InvalidInputError: ``dimension`` is not a positive int, or ``char_ngrams`` is bad.

    Example:
        >>> embeddings = HashingEmbeddings(dimension=64)
        >>> vectors = embeddings.embed_documents_array(["a red cat", "a red cat"])
        >>> bool((vectors[0] == vectors[1]).all()), vectors.shape
        (True, (2, 64))
    """

    # the array method each list method calls, its own class's, never self's (a
    # subclass overriding one gets list methods calling its own; see embeddings.base)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {
        "embed_documents": "embed_documents_array",
        "embed_query": "embed_documents_array",
    }

    def __init__(
        self,
        dimension: int = 384,
        *,
        char_ngrams: tuple[int, int] | None = (3, 4),
        lowercase: bool = True,
    ) -> None:
        dimension = check_positive_int("dimension", dimension)
        if char_ngrams is not None and (
            not isinstance(char_ngrams, tuple)
            or len(char_ngrams) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in char_ngrams)
            or not 1 <= char_ngrams[0] <= char_ngrams[1]
        ):
            raise InvalidInputError(
                f"char_ngrams must be None or a (min_n, max_n) tuple of ints with "
                f"1 <= min_n <= max_n, got {char_ngrams!r}"
            )
        self.dimension = dimension
        self.char_ngrams = char_ngrams
        self.lowercase = lowercase

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dimension={self.dimension}, char_ngrams={self.char_ngrams})"

    # -- features ---------------------------------------------------------------------------

    def features(self, text: str) -> list[str]:
        """Return the hashed features of ``text`` (words, then character n-grams).

        Example:
            >>> HashingEmbeddings(8, char_ngrams=(3, 3)).features("Cat")
            ['w:cat', 'c:<ca', 'c:cat', 'c:at>']
        """
        words = self._words(text)
        features = [f"w:{word}" for word in words]
        for word in words:
            features.extend(_word_features(word, self.char_ngrams)[1:])
        return features

    def _words(self, text: str) -> list[str]:
        return _WORD.findall(text.lower() if self.lowercase else text)

    # -- the array paths ----------------------------------------------------------------------

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into a float32 ``(len(texts), dimension)`` matrix of unit rows.

        Raises:
            InvalidInputError: a text is not a string.
        """
        items = check_texts(texts)
        result = np.empty((len(items), self.dimension), dtype=np.float32)
        for start in range(0, len(items), _ROWS_PER_BLOCK):
            block = items[start : start + _ROWS_PER_BLOCK]
            result[start : start + len(block)] = self._embed_block(block)
        return result

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Queries and documents share one space here: same as ``embed_documents_array``."""
        check_texts(texts, what="queries")
        return self.embed_documents_array(texts)

    def _embed_block(self, texts: list[str]) -> np.ndarray:
        char_ngrams = self.char_ngrams
        parts: list[np.ndarray] = []  # one array of feature hashes per word, in text order
        words_per_text = np.zeros(len(texts), dtype=np.int64)
        for row, text in enumerate(texts):
            words = self._words(text)
            words_per_text[row] = len(words)
            parts.extend([_word_hashes(word, char_ngrams) for word in words])
        hash_array = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
        features_per_word = np.fromiter((part.size for part in parts), np.int64, len(parts))
        word_rows = np.repeat(np.arange(len(texts), dtype=np.int64), words_per_text)
        rows = np.repeat(word_rows, features_per_word)
        columns = (hash_array % np.uint64(self.dimension)).astype(np.int64)
        signs = np.where(hash_array >> np.uint64(63), -1.0, 1.0)
        # bincount over flat (row, column) cells sums the signed hits in one vectorised pass
        dense = np.bincount(
            rows * self.dimension + columns, weights=signs, minlength=len(texts) * self.dimension
        ).reshape(len(texts), self.dimension)
        norms = np.linalg.norm(dense, axis=1)
        for row in np.flatnonzero(norms == 0).tolist():
            # empty text or exact cancellation: fall back to a one-hot chosen by the text
            whole = _feature_hash("t:" + texts[row])
            dense[row, whole % self.dimension] = -1.0 if whole >> 63 else 1.0
            norms[row] = 1.0
        return (dense / norms[:, None]).astype(np.float32)

    # -- the LangChain-compatible surface -------------------------------------------------

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts; see ``embed_documents_array``.

        Example:
            >>> len(HashingEmbeddings(dimension=16).embed_documents(["hello"])[0])
            16
        """
        return HashingEmbeddings.embed_documents_array(self, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (the same vector ``embed_documents`` gives that text)."""
        return HashingEmbeddings.embed_documents_array(self, [check_text(text)])[0].tolist()

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async ``embed_documents`` (pure CPU, computed inline)."""
        return self.embed_documents(texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Async ``embed_query`` (pure CPU, computed inline)."""
        return self.embed_query(text)

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_documents_array`` (pure CPU, computed inline)."""
        return self.embed_documents_array(texts)

    async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_queries_array`` (pure CPU, computed inline)."""
        return self.embed_queries_array(texts)


class _ComparedByFields:
    """Equality and printed forms of LangChain's fake embeddings, which are pydantic
    models: two of one class with equal fields are equal, ``str`` lists the fields
    (``size=8``) and ``repr`` wraps them in the class name (a subclass's own fields
    too). Like a pydantic model that is not frozen, the object is unhashable: its
    fields can change, so no hash would stay true to its equality."""

    def _field_values(self) -> tuple[tuple[str, object], ...]:
        return tuple((name, getattr(self, name)) for name in declared_fields(type(self)))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._field_values() == other._field_values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def _fields_shown(self) -> list[str]:
        return [f"{name}={value!r}" for name, value in self._field_values()]

    def __str__(self) -> str:
        return " ".join(self._fields_shown())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._fields_shown())})"


class DeterministicFakeEmbedding(_ComparedByFields, Fields, Embeddings):
    """LangChain's deterministic test embedding: seeded normal draws, LangChain's numbers.

    A text's vector is ``size`` standard-normal draws from numpy's ``default_rng`` seeded
    with the text's UTF-8 SHA-256 digest (read as an integer) modulo 10**8, so the numbers
    are LangChain's ``DeterministicFakeEmbedding``'s, in every call and process. They are
    neither unit length nor alike for texts that share words; for a test double with
    word overlap use :class:`HashingEmbeddings`.

    ``embed_documents`` / ``embed_query`` give the draws as numpy float64 numbers (a
    ``float`` subclass) in a list, as LangChain's do, so a printed vector reads
    ``[np.float64(...), ...]`` in both; the array methods give the same draws as float32,
    as every ragline embedding's arrays are.

    Args:
        size: length of every vector (> 0).

    Raises:
        InvalidInputError: ``size`` is not a positive int.

    Example:
        >>> fake = DeterministicFakeEmbedding(size=3)
        >>> fake.embed_query("hi") == fake.embed_documents(["hi"])[0]
        True
    """

    # its list methods call no array method (see embeddings.base)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {}
    # LangChain's is a pydantic model: a subclass declares fields (``model: str = ...``)
    # or re-defaults ``size``, and unknown keywords are dropped
    __ragline_extra__: ClassVar[str] = "ignore"

    size: int

    def __post_init__(self) -> None:
        self.size = check_positive_int("size", self.size)

    def _draws(self, text: str) -> np.ndarray:
        seed = int.from_bytes(sha256(text.encode("utf-8")).digest(), "big") % 10**8
        return np.random.default_rng(seed).normal(size=self.size)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts: one list of ``size`` floats per text, in order.

        Raises:
            InvalidInputError: a text is not a string.
        """
        return [list(self._draws(text)) for text in check_texts(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (the same vector ``embed_documents`` gives that text)."""
        return list(self._draws(check_text(text)))

    @_sync_inline
    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async ``embed_documents`` (pure CPU, computed inline)."""
        return self.embed_documents(texts)

    @_sync_inline
    async def aembed_query(self, text: str) -> list[float]:
        """Async ``embed_query`` (pure CPU, computed inline)."""
        return self.embed_query(text)

    @_rounds_lists
    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``embed_documents`` as a float32 ``(len(texts), size)`` matrix."""
        items = check_texts(texts)
        result = np.empty((len(items), self.size), dtype=np.float32)
        for row, text in enumerate(items):
            result[row] = self._draws(text)
        return result

    @_rounds_lists
    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Queries and documents share one space here: same as ``embed_documents_array``."""
        check_texts(texts, what="queries")
        return self.embed_documents_array(texts)


class FakeEmbeddings(_ComparedByFields, Fields, Embeddings):
    """LangChain's random test embedding: fresh standard-normal draws on every call.

    Each vector is ``size`` draws from a new ``numpy.random.default_rng()`` (OS entropy),
    so the same text gets a different vector each time, as with LangChain's
    ``FakeEmbeddings``. For vectors that repeat, use :class:`DeterministicFakeEmbedding`.

    Args:
        size: length of every vector (> 0).

    Raises:
        InvalidInputError: ``size`` is not a positive int.

    Example:
        >>> fake = FakeEmbeddings(size=3)
        >>> len(fake.embed_query("hi")), len(fake.embed_documents(["a", "b"]))
        (3, 2)
    """

    # a pydantic model in LangChain, as DeterministicFakeEmbedding
    __ragline_extra__: ClassVar[str] = "ignore"

    size: int

    def __post_init__(self) -> None:
        self.size = check_positive_int("size", self.size)

    def _draws(self) -> list[float]:
        return list(np.random.default_rng().normal(size=self.size))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One fresh vector per text.

        Raises:
            InvalidInputError: a text is not a string.
        """
        return [self._draws() for _ in check_texts(texts)]

    def embed_query(self, text: str) -> list[float]:
        """A fresh vector."""
        check_text(text)
        return self._draws()

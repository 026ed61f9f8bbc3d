"""The VectorStore interface: a few backend primitives, everything else written once.

A backend (in-memory, FAISS, Redis ...) implements only these primitives::

    dimension            property: vector dimension, None while nothing fixes it yet
    score_kind           property: which native score _search returns (see below)
    embeddings           property: the Embeddings used to embed texts and queries
    count()              how many documents are stored
    _upsert(ids, vectors, documents)    add, replacing documents whose id is stored
    _delete(ids)                        remove; unknown ids are ignored
    _get_by_ids(ids)                    stored documents, in the order asked, missing skipped
    _search(queries, k, filter, *, with_vectors)   top-k per query vector, best first

and, optionally, the async twins ``_aupsert _adelete _aget_by_ids _asearch`` (they
default to running the sync primitive in a thread). Every public method below (adding
texts, searching by text or vector, relevance scores, score thresholds, MMR,
``as_retriever``) is written once here on top of the primitives, and validates its
input BEFORE any primitive runs, so a bad call never changes a store.

``score_kind`` names the native score ``_search`` returns and decides how it maps to a
relevance in [0, 1] (see :data:`ragline.vectorstores.utils.RELEVANCE_FUNCTIONS`):
``"cosine_similarity"``, ``"cosine_distance"``, ``"inner_product"``,
``"inner_product_distance"``, ``"l2"`` or ``"squared_l2"``. A backend with another
native score overrides :meth:`VectorStore._relevance_scores` instead.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np

from ragline.core.documents import Document
from ragline.vectorstores.filters import FilterNode
from ragline.vectorstores.utils import (
    relevance_function,
)

if TYPE_CHECKING:
    from ragline.embeddings import Embeddings

__all__ = ["SearchHit", "VectorStore"]

VST = TypeVar("VST", bound="VectorStore")

FilterArg = Mapping[str, Any] | None
"""A filter in the filter language (see :mod:`ragline.vectorstores.filters`), or None."""


class SearchHit(NamedTuple):
    """One result of :meth:`VectorStore._search`.

    Attributes:
        document: a fresh Document (callers may mutate it) with its ``id`` set.
        score: the backend's native score (see ``score_kind``).
        vector: the stored vector, shape (d,), float32, when ``with_vectors`` was asked;
            else ``None``. For a cosine store it may be the unit-length copy.
    """

    document: Document
    score: float
    vector: np.ndarray | None


class VectorStore(ABC):
    """A store of documents with vectors, searchable by similarity.

    Subclasses implement the primitives listed in this module's docstring; users call
    the public methods (``add_texts``, ``similarity_search``, ``as_retriever`` ...).

    Example:
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore.from_texts(["cats", "dogs"], embeddings)  # doctest: +SKIP
        >>> store.similarity_search("kitten", k=1)[0].page_content               # doctest: +SKIP
        'cats'
    """

    # ------------------------------------------------------------------ primitives

    @property
    @abstractmethod
    def embeddings(self) -> Embeddings:
        """The Embeddings this store embeds texts and queries with."""

    @property
    @abstractmethod
    def dimension(self) -> int | None:
        """The vector dimension, or ``None`` while the store is empty and not fixed yet."""

    @property
    @abstractmethod
    def score_kind(self) -> str:
        """Which native score ``_search`` returns (a key of ``RELEVANCE_FUNCTIONS``)."""

    @abstractmethod
    def count(self) -> int:
        """Return how many documents the store holds."""

    @abstractmethod
    def _upsert(self, ids: list[str], vectors: np.ndarray, documents: list[Document]) -> None:
        """Store documents with their vectors; an id already stored is replaced.

        Called only with checked input: ``ids`` unique non-empty strings, ``vectors`` a
        finite C-contiguous float32 array of shape (len(ids), d) whose d matches
        ``dimension`` when that is set, ``documents[i].id == ids[i]`` and metadata a
        fresh dict the backend may keep. Either everything is stored or nothing.
        """

    @abstractmethod
    def _delete(self, ids: list[str]) -> None:
        """Remove the documents with these ids; ids not stored are ignored."""

    @abstractmethod
    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        """Return fresh copies of the stored documents with these ids, in the order of
        ``ids``, skipping ids that are not stored."""

    @abstractmethod
    def _search(
        self,
        queries: np.ndarray,
        k: int,
        filter: FilterNode | None,
        *,
        with_vectors: bool,
    ) -> list[list[SearchHit]]:
        """Find the ``k`` nearest stored documents for every query vector.

        Args:
            queries: finite float32 array of shape (q, d), d == ``dimension``.
            k: at least 1. Fewer hits come back only when fewer documents pass ``filter``.
            filter: a parsed filter (see :mod:`ragline.vectorstores.filters`) or None.
                The backend must return k hits whenever k documents match, and must
                agree with :func:`ragline.vectorstores.filters.matches`.
            with_vectors: also return each hit's stored vector (needed by MMR).

        Returns:
            One list per query, best first, each hit with the native score.
        """

    # Async twins: default to the sync primitive in a worker thread. A backend with a
    # native async client (Redis) overrides them.

    async def _aupsert(self, ids: list[str], vectors: np.ndarray, documents: list[Document]) -> None:
        await asyncio.to_thread(self._upsert, ids, vectors, documents)

    async def _adelete(self, ids: list[str]) -> None:
        await asyncio.to_thread(self._delete, ids)

    async def _aget_by_ids(self, ids: list[str]) -> list[Document]:
        return await asyncio.to_thread(self._get_by_ids, ids)

    async def _asearch(
        self,
        queries: np.ndarray,
        k: int,
        filter: FilterNode | None,
        *,
        with_vectors: bool,
    ) -> list[list[SearchHit]]:
        return await asyncio.to_thread(
            self._search, queries, k, filter, with_vectors=with_vectors
        )

    def _relevance_scores(self, native: np.ndarray) -> np.ndarray:
        """Map native scores to relevance in [0, 1], higher more relevant (per score_kind)."""
        return relevance_function(self.score_kind)(np.asarray(native, dtype=np.float64))

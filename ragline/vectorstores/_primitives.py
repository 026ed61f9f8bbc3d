"""The backend contract of a VectorStore, and the one search path built on it.

:class:`StorePrimitives` declares what a backend writes (the primitives listed in
:mod:`ragline.vectorstores.base`) with the defaults it may override (async twins in a
worker thread, relevance from ``score_kind``, MMR picked from the stored vectors, query
checks), and runs every search through ONE path: embed the queries at once, check them,
one ``_search`` call, MMR if asked, then the first k, relevance scores and the threshold
(``_finish``). The public methods that use this path live in
:mod:`ragline.vectorstores._search_api` (searching) and :mod:`ragline.vectorstores.base`
(adding, deleting, constructors); users subclass :class:`~ragline.vectorstores.VectorStore`.
"""

from __future__ import annotations

import asyncio
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from ragline.core import Document, FilterError, InvalidInputError
from ragline.core._checks import check_unicode
from ragline.embeddings import Embeddings
from ragline.vectorstores._validation import SearchPlan
from ragline.vectorstores.filters import FilterNode, Predicate
from ragline.vectorstores.utils import (
    RELEVANCE_SCALAR_FUNCTIONS,
    as_vector_matrix,
    mmr_picks,
    relevance_function,
)

__all__ = ["SearchHit", "StorePrimitives"]

_NO_VECTORS = np.empty((0, 0), dtype=np.float32)  # a query with no candidate: MMR picks none
# the native scores where higher is more similar (the others are distances)
_SIMILARITY_KINDS = frozenset({"cosine_similarity", "inner_product"})
_first = itemgetter(0)  # a SearchHit's document


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


class StorePrimitives(ABC):
    """The primitives a backend implements and the search path every search runs on.

    Not used directly: subclass :class:`~ragline.vectorstores.VectorStore`.
    """

    # True for a subclass written the LangChain way (only add_texts, similarity_search,
    # from_texts): see ragline.vectorstores._langchain_style
    _langchain_style: bool = False
    # True for a backend that evaluates a callable filter (a filters.Predicate) itself
    _callable_filters: bool = False

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
    def _upsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        """Store documents with their vectors; an id already stored is replaced.

        Called only with checked input: ``ids`` unique non-empty strings, ``vectors`` a
        finite C-contiguous float32 array of shape (len(ids), d) whose d matches
        ``dimension`` when that is set, ``texts[i]`` a str and ``metadatas[i]`` a fresh
        dict (parallel lists, no Document per item on the bulk path). ``vectors`` and
        the dicts are the store's own: the backend may keep them or change them in
        place (normalize the vectors). Either everything is stored or nothing.
        """

    @abstractmethod
    def _delete(self, ids: list[str]) -> None:
        """Remove the documents with these ids; ids not stored are ignored."""

    @abstractmethod
    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        """Return fresh copies of the stored documents with these ids, in the order of
        ``ids``, skipping ids that are not stored."""

    def _held_ids(self, ids: list[str]) -> set[str]:
        """Which of ``ids`` the store holds. This default reads the documents
        (``_get_by_ids``); a backend that can test membership without building them
        overrides it."""
        return {document.id for document in self._get_by_ids(ids) if document.id is not None}

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

    async def _aupsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        await asyncio.to_thread(self._upsert, ids, vectors, texts, metadatas)

    async def _adelete(self, ids: list[str]) -> None:
        await asyncio.to_thread(self._delete, ids)

    async def _aget_by_ids(self, ids: list[str]) -> list[Document]:
        return await asyncio.to_thread(self._get_by_ids, ids)

    async def _aheld_ids(self, ids: list[str]) -> set[str]:
        return await asyncio.to_thread(self._held_ids, ids)

    async def _asearch(
        self,
        queries: np.ndarray,
        k: int,
        filter: FilterNode | None,
        *,
        with_vectors: bool,
    ) -> list[list[SearchHit]]:
        return await asyncio.to_thread(self._search, queries, k, filter, with_vectors=with_vectors)

    async def _adimension(self) -> int | None:
        """Async :attr:`dimension`; a backend that must ask a server for it overrides this
        so the async paths never make a blocking call."""
        return self.dimension

    def _relevance_scores(self, native: np.ndarray) -> np.ndarray:
        """Map native scores to relevance in [0, 1], higher more relevant (per score_kind)."""
        return relevance_function(self.score_kind)(np.asarray(native, dtype=np.float64))

    # A native score as search methods return it: a Python float (FAISS built with
    # LangChain's ``distance_strategy`` sets numpy's float32, as LangChain's returns).
    # A type, not a method: converting a search's scores runs no Python function.
    _score_out: Callable[[Any], Any] = float

    def _scalar_relevance(self) -> Callable[[float], float] | None:
        """The one-float twin of :meth:`_relevance_scores`, or None when a subclass
        overrides ``_relevance_scores`` (then only the array hook applies)."""
        if type(self)._relevance_scores is not StorePrimitives._relevance_scores:
            return None
        return RELEVANCE_SCALAR_FUNCTIONS.get(self.score_kind)

    # ------------------------------------------------------------------ adding

    # ------------------------------------------------------------------ the one search path

    def _search_texts(
        self, queries: list[str], plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        """Embed all queries at once and answer them with ONE ``_search`` call: per query,
        ``(document, score)`` pairs, or the documents alone with ``scores=False``."""
        if not queries:
            return []
        if len(queries) != 1 or type(queries[0]) is not str or not queries[0].isascii():
            _check_query_texts(queries)  # one ASCII query (the usual) has nothing to check
        return self._search_vectors(self._embed_queries(queries), plan, scores=scores)

    async def _asearch_texts(
        self, queries: list[str], plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        if not queries:
            return []
        _check_query_texts(queries)
        vectors = await self._aembed_queries(queries)
        return await self._asearch_vectors(vectors, plan, scores=scores)

    def _search_vectors(
        self, vectors: Any, plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        dimension = self.dimension
        queries = self._check_queries(vectors, dimension)
        if isinstance(plan.filter, Predicate) and not self._callable_filters:
            raise _no_callable_filter(self)
        if dimension is None:
            return [[] for _ in range(len(queries))]
        if plan.is_mmr:
            hits = self._mmr_hits(queries, plan)
        else:
            hits = self._search(queries, plan.fetch_k, plan.filter, with_vectors=False)
            if plan.window is not None:
                window = self._search(queries, plan.window, None, with_vectors=False)
                _warn_past_window(hits, window, plan)
        return self._finish(queries, hits, plan, scores)

    async def _asearch_vectors(
        self, vectors: Any, plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        dimension = await self._adimension()
        queries = self._check_queries(vectors, dimension)
        if isinstance(plan.filter, Predicate) and not self._callable_filters:
            raise _no_callable_filter(self)
        if dimension is None:
            return [[] for _ in range(len(queries))]
        hits = await self._asearch(queries, plan.fetch_k, plan.filter, with_vectors=plan.is_mmr)
        if plan.is_mmr:
            hits = self._pick_mmr(queries, hits, plan)
        elif plan.window is not None:
            window = await self._asearch(queries, plan.window, None, with_vectors=False)
            _warn_past_window(hits, window, plan)
        return self._finish(queries, hits, plan, scores)

    def _mmr_hits(self, queries: np.ndarray, plan: SearchPlan) -> list[list[SearchHit]]:
        """The hits MMR picks per query (``plan.k`` of ``plan.fetch_k`` candidates), in pick
        order. A backend may override it to build Documents only for the picked hits."""
        hits = self._search(queries, plan.fetch_k, plan.filter, with_vectors=True)
        return self._pick_mmr(queries, hits, plan)

    def _pick_mmr(
        self, queries: np.ndarray, hits: list[list[SearchHit]], plan: SearchPlan
    ) -> list[list[SearchHit]]:
        self._check_hit_lists(queries, hits)
        candidates = [
            np.stack([_stored_vector(self, hit) for hit in row]) if row else _NO_VECTORS
            for row in hits
        ]
        picks = mmr_picks(queries, candidates, k=plan.k, lambda_mult=plan.lambda_mult)
        return [[row[i] for i in chosen] for row, chosen in zip(hits, picks, strict=True)]

    def _check_hit_lists(self, queries: np.ndarray, hits: list[list[SearchHit]]) -> None:
        if len(hits) != len(queries):
            raise RuntimeError(
                f"{type(self).__name__}._search returned {len(hits)} result lists for "
                f"{len(queries)} queries"
            )

    def _finish(
        self, queries: np.ndarray, hits: list[list[SearchHit]], plan: SearchPlan, scores: bool
    ) -> list[list[Any]]:
        """Turn raw (or MMR-picked) hits into results: the first k, relevance scores, the
        threshold; ``(document, score)`` pairs, or with ``scores=False`` the documents."""
        if len(hits) != len(queries):
            self._check_hit_lists(queries, hits)  # raises, naming the backend
        k, out = plan.k, self._score_out
        if plan.native_threshold is not None:
            return self._finish_below_threshold(hits, plan, scores)
        if not plan.to_relevance:  # the plain path: no array round trip, one list per query
            if scores:  # loops, not comprehensions: a traced search takes this branch
                # once per call, after a model's forward pass evicted the caches, where
                # each Python code object run costs its own cache misses
                with_scores: list[list[Any]] = []
                for found in hits:
                    pairs = []
                    for doc, score, _ in found[:k]:
                        pairs.append((doc, out(score)))
                    with_scores.append(pairs)
                return with_scores
            return [list(map(_first, found[:k])) for found in hits]  # no per-hit Python code
        threshold = plan.score_threshold
        scalar = self._scalar_relevance()
        results: list[list[Any]] = []
        for found in hits:
            found = found[:k]
            if scalar is not None:  # a few scores: plain Python beats numpy calls
                pairs = [(doc, scalar(out(score))) for doc, score, _ in found]
            else:
                native = np.array([float(hit.score) for hit in found], dtype=np.float64)
                relevance = self._relevance_scores(native).tolist()
                pairs = [(hit.document, score) for hit, score in zip(found, relevance, strict=True)]
            if threshold is not None:
                pairs = [pair for pair in pairs if pair[1] >= threshold]
            results.append(pairs if scores else [doc for doc, _ in pairs])
        return results

    def _finish_below_threshold(
        self, hits: list[list[SearchHit]], plan: SearchPlan, scores: bool
    ) -> list[list[Any]]:
        """The first k hits whose native score passes ``plan.native_threshold`` (LangChain
        FAISS's ``score_threshold`` of a similarity search): at least it for a
        similarity, at most it for a distance."""
        threshold = plan.native_threshold
        assert threshold is not None
        higher_is_better = self.score_kind in _SIMILARITY_KINDS
        out = self._score_out
        results: list[list[Any]] = []
        for found in hits:
            kept = [
                (hit.document, out(hit.score))
                for hit in found[: plan.k]
                if (
                    float(hit.score) >= threshold
                    if higher_is_better
                    else float(hit.score) <= threshold
                )
            ]
            results.append(kept if scores else [doc for doc, _ in kept])
        return results

    # ------------------------------------------------------------------ embedding helpers

    def _embed_documents(self, texts: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if hasattr(embeddings, "embed_documents_array"):
            return embeddings.embed_documents_array(texts)
        return np.asarray(embeddings.embed_documents(texts), dtype=np.float32)

    async def _aembed_documents(self, texts: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if hasattr(embeddings, "aembed_documents_array"):
            return await embeddings.aembed_documents_array(texts)
        return await asyncio.to_thread(self._embed_documents, texts)

    def _embed_queries(self, queries: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if (
            len(queries) == 1
            and type(queries[0]) is str
            and type(embeddings).embed_queries_array is _DEFAULT_QUERIES_ARRAY
        ):
            # One query through the Embeddings default: its vector is checked once, by
            # _check_queries, instead of also by the Embeddings layer (the single-query
            # hot path). Anything np.array cannot take goes the checked way for its message.
            vector = embeddings.embed_query(queries[0])
            try:  # fromiter: a third cheaper than np.array on a list of Python floats
                return np.fromiter(vector, dtype=np.float32, count=len(vector)).reshape(1, -1)
            except (TypeError, ValueError):
                pass
        if hasattr(embeddings, "embed_queries_array"):
            return embeddings.embed_queries_array(queries)
        return np.asarray([embeddings.embed_query(query) for query in queries], dtype=np.float32)

    async def _aembed_queries(self, queries: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if hasattr(embeddings, "aembed_queries_array"):
            return await embeddings.aembed_queries_array(queries)
        return await asyncio.to_thread(self._embed_queries, queries)

    def _check_embeddings(self, vectors: Any, rows: int, dimension: int | None) -> np.ndarray:
        # private: the backend may keep or change it (normalize in place)
        matrix = as_vector_matrix(vectors, dimension=dimension, what="embedding", private=True)
        if len(matrix) != rows:
            raise InvalidInputError(
                f"got {len(matrix)} embeddings for {rows} texts; expected one per text"
            )
        return matrix

    def _check_queries(self, vectors: Any, dimension: int | None) -> np.ndarray:
        """Query vectors as a finite float32 matrix of ``dimension`` columns, or
        DimensionError. A backend with a cheaper exact check for some inputs may
        override it and defer the rest to this one (FAISS does for one query)."""
        return as_vector_matrix(vectors, dimension=dimension, what="query vector")


def _no_callable_filter(store: Any) -> FilterError:
    return FilterError(
        f"{type(store).__name__} cannot filter with a function: give a filter dict (see "
        "ragline.vectorstores.filters); InMemoryVectorStore and FAISS take a function, as "
        "LangChain's do"
    )


def _warn_past_window(
    hits: list[list[SearchHit]], window: list[list[SearchHit]], plan: SearchPlan
) -> None:
    """Warn when a filtered search returns documents that are not among the ``fetch_k``
    nearest: LangChain's FAISS, which filters only those, would not have returned them."""
    extra = 0
    for found, nearest in zip(hits, window, strict=True):
        seen = {hit.document.id for hit in nearest}
        extra += sum(1 for hit in found[: plan.k] if hit.document.id not in seen)
    if extra:
        warnings.warn(
            f"the filtered search returned {extra} document(s) beyond the fetch_k="
            f"{plan.window} nearest: ragline filters inside the search and returns k "
            "whenever k documents match; LangChain's FAISS filters only the fetch_k nearest "
            "and would have returned fewer (raise fetch_k there to get the same)",
            UserWarning,
            stacklevel=4,
        )


def _check_query_texts(queries: list[str]) -> None:
    """Refuse a query with a lone surrogate here, whatever the embeddings (a LangChain
    class included) would make of it: InvalidInputError naming the query and position."""
    for position, query in enumerate(queries):
        if type(query) is str and not query.isascii():
            check_unicode(query, what="query" if len(queries) == 1 else f"queries[{position}]")


# an Embeddings class whose embed_queries_array is this one embeds queries one
# embed_query call each (the base class's default)
_DEFAULT_QUERIES_ARRAY = Embeddings.embed_queries_array


def _stored_vector(store: StorePrimitives, hit: SearchHit) -> np.ndarray:
    if hit.vector is None:
        raise RuntimeError(
            f"{type(store).__name__}._search returned no vector although with_vectors=True"
        )
    return hit.vector

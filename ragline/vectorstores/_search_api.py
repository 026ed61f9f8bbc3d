"""The public searches of a VectorStore, each derived from the one search path.

:class:`SearchMethods` holds LangChain's search names (``similarity_search`` and its
``_with_score`` / ``_by_vector`` / ``_with_relevance_scores`` forms, MMR, ``search`` by
type). Each checks its options into a
:class:`~ragline.vectorstores._validation.SearchPlan` before anything runs, then calls
the search path of :class:`~ragline.vectorstores._primitives.StorePrimitives`; a backend
never overrides them. The method examples run on the store described in
:class:`~ragline.vectorstores.VectorStore`'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ragline.core import Document, InvalidInputError
from ragline.core._checks import check_choice
from ragline.vectorstores._primitives import StorePrimitives
from ragline.vectorstores._validation import SearchPlan

__all__ = ["SearchMethods"]


class SearchMethods(StorePrimitives):
    """Searching a store by text or vector, with native or relevance scores, or MMR."""

    def similarity_search(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[Document]:
        """Return the ``k`` documents most similar to ``query``, best first.

        Args:
            query: the text to search for.
            k: how many documents (at least 1).
            filter: a metadata filter (see :mod:`ragline.vectorstores.filters`); k
                documents come back whenever k documents match it.
            fetch_k: LangChain's FAISS option (it filters only the ``fetch_k`` nearest
                documents, so it may return fewer than k). Accepted so such code runs;
                ragline filters inside the search and still returns k whenever k
                match, with a ``UserWarning`` when that includes documents outside the
                ``fetch_k`` nearest (where LangChain would have returned fewer).
            score_threshold: LangChain's FAISS option: keep only documents whose native
                score (see :meth:`similarity_search_with_score`) is at least it for a
                similarity (cosine similarity, inner product) or at most it for a
                distance (L2, cosine distance). Not a relevance: for that, use
                :meth:`similarity_search_with_relevance_scores`.

        Raises:
            InvalidInputError: k < 1 or a score_threshold that is no finite number;
                FilterError: a bad filter.

        Example:
            >>> found = store.similarity_search("purring cats", k=2, filter={"topic": "pets"})
            >>> [doc.id for doc in found]
            ['cats', 'dogs']
        """
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return self._search_texts([query], plan, scores=False)[0]

    async def asimilarity_search(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[Document]:
        """Async :meth:`similarity_search`."""
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return (await self._asearch_texts([query], plan, scores=False))[0]

    def similarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[tuple[Document, float]]:
        """Like :meth:`similarity_search`, with each document's native score.

        The native score depends on the backend and metric (``score_kind``: a distance is
        lower-is-better, a similarity higher-is-better); use
        :meth:`similarity_search_with_relevance_scores` for a portable [0, 1] score.

        Example:
            >>> doc, score = store.similarity_search_with_score("cats", k=1)[0]
            >>> doc.id, round(score, 2)  # InMemoryVectorStore: cosine similarity
            ('cats', 0.71)
        """
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return self._search_texts([query], plan)[0]

    async def asimilarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score`."""
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return (await self._asearch_texts([query], plan))[0]

    def similarity_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[Document]:
        """Return the ``k`` documents nearest to a query vector, best first.

        Raises:
            DimensionError: the vector has the wrong dimension or is not finite.

        Example:
            >>> store.similarity_search_by_vector(embeddings.embed_query("stocks"), k=1)[0].id
            'stocks'
        """
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return self._search_vectors(_one_vector(embedding), plan, scores=False)[0]

    async def asimilarity_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[Document]:
        """Async :meth:`similarity_search_by_vector`."""
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return (await self._asearch_vectors(_one_vector(embedding), plan, scores=False))[0]

    def similarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[tuple[Document, float]]:
        """Like :meth:`similarity_search_by_vector`, with each document's native score."""
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return self._search_vectors(_one_vector(embedding), plan)[0]

    async def asimilarity_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score_by_vector`."""
        plan = SearchPlan.similarity(k, filter, fetch_k, score_threshold)
        return (await self._asearch_vectors(_one_vector(embedding), plan))[0]

    def similarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        score_threshold: float | None = None,
        fetch_k: int | None = None,
    ) -> list[tuple[Document, float]]:
        """Return up to ``k`` documents with a relevance in [0, 1] (1 = identical direction).

        The relevance is ``(1 + cosine) / 2`` for unit vectors on every backend and metric
        (see :data:`ragline.vectorstores.utils.RELEVANCE_FUNCTIONS`), so one threshold
        means the same everywhere.

        Args:
            query: the text to search for.
            k: how many documents at most.
            filter: a metadata filter.
            score_threshold: drop results whose relevance is below it (in [0, 1]).

        Raises:
            InvalidInputError: k < 1 or score_threshold outside [0, 1].

        Example:
            >>> search = store.similarity_search_with_relevance_scores
            >>> found = search("cats purr", score_threshold=0.5)
            >>> [(doc.id, round(relevance, 2)) for doc, relevance in found]
            [('cats', 1.0), ('stocks', 0.53), ('dogs', 0.5)]
        """
        plan = SearchPlan.relevance(k, filter, score_threshold, fetch_k)
        return self._search_texts([query], plan)[0]

    async def asimilarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        score_threshold: float | None = None,
        fetch_k: int | None = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_relevance_scores`."""
        plan = SearchPlan.relevance(k, filter, score_threshold, fetch_k)
        return (await self._asearch_texts([query], plan))[0]

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Mapping[str, Any] | None = None,
    ) -> list[Document]:
        """Return ``k`` documents relevant to ``query`` yet diverse among themselves (MMR).

        Fetches the ``fetch_k`` nearest documents, then picks ``k`` of them greedily (see
        :func:`ragline.vectorstores.utils.maximal_marginal_relevance`).

        Args:
            query: the text to search for.
            k: how many documents to return (at least 1).
            fetch_k: how many candidates to consider; below k, a UserWarning and at most
                fetch_k documents (LangChain's result).
            lambda_mult: 1 = pure relevance, 0 = pure diversity; in [0, 1].
            filter: a metadata filter applied to the candidates.

        Raises:
            InvalidInputError: k or fetch_k < 1, or lambda_mult outside [0, 1].

        Example:
            >>> [doc.id for doc in store.max_marginal_relevance_search("cats", k=2, fetch_k=3)]
            ['cats', 'stocks']
        """
        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        return self._search_texts([query], plan, scores=False)[0]

    async def amax_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Mapping[str, Any] | None = None,
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search`."""
        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        return (await self._asearch_texts([query], plan, scores=False))[0]

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Mapping[str, Any] | None = None,
    ) -> list[Document]:
        """:meth:`max_marginal_relevance_search` from a query vector."""
        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        return self._search_vectors(_one_vector(embedding), plan, scores=False)[0]

    async def amax_marginal_relevance_search_by_vector(
        self,
        embedding: Sequence[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Mapping[str, Any] | None = None,
    ) -> list[Document]:
        """Async :meth:`max_marginal_relevance_search_by_vector`."""
        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        return (await self._asearch_vectors(_one_vector(embedding), plan, scores=False))[0]

    def search(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Search by ``search_type``, as ``as_retriever`` does (LangChain's ``search``).

        ``"similarity"`` calls :meth:`similarity_search`, ``"similarity_score_threshold"``
        :meth:`similarity_search_with_relevance_scores` (documents only), ``"mmr"``
        :meth:`max_marginal_relevance_search`, each with ``kwargs``.

        Raises:
            ConfigurationError: an unknown search_type (the message lists the valid ones).
            InvalidInputError: an option that search type does not take (named).

        Example:
            >>> [d.id for d in store.search("cats", "mmr", k=2, fetch_k=3)]
            ['cats', 'stocks']
        """
        method = self._search_method(search_type, kwargs)
        if search_type == "similarity_score_threshold":
            return [document for document, _ in method(query, **kwargs)]
        return method(query, **kwargs)  # type: ignore[no-any-return]

    async def asearch(self, query: str, search_type: str, **kwargs: Any) -> list[Document]:
        """Async :meth:`search`."""
        method = self._search_method(search_type, kwargs, prefix="a")
        if search_type == "similarity_score_threshold":
            return [document for document, _ in await method(query, **kwargs)]
        return await method(query, **kwargs)  # type: ignore[no-any-return]

    def _search_method(
        self, search_type: str, kwargs: dict[str, Any], prefix: str = ""
    ) -> Callable[..., Any]:
        from ragline.vectorstores.retriever import SEARCH_KWARGS, SEARCH_TYPES

        names = {
            "similarity": "similarity_search",
            "similarity_score_threshold": "similarity_search_with_relevance_scores",
            "mmr": "max_marginal_relevance_search",
        }
        check_choice("search_type", search_type, SEARCH_TYPES)
        unknown = [key for key in kwargs if key not in SEARCH_KWARGS[search_type]]
        if unknown and not self._langchain_style:  # a LangChain-style store takes its own
            raise InvalidInputError(
                f"search {', '.join(map(repr, unknown))} not accepted by search_type "
                f"{search_type!r}; it takes {', '.join(map(repr, SEARCH_KWARGS[search_type]))}"
            )
        return getattr(self, prefix + names[search_type])  # type: ignore[no-any-return]


def _one_vector(embedding: Sequence[float]) -> Any:
    """One query vector as a one-row matrix for ``_search_vectors``: a 1-D array as a
    view of it, a list of numbers as a new float32 row (one C pass: a third cheaper than
    ``np.array`` on Python floats). Then a float32 vector meets the store's one-query
    check as it is, not the general conversion. Anything else (or a list fromiter
    cannot convert) goes in a list to the full check, which names what is wrong."""
    if isinstance(embedding, np.ndarray):
        if embedding.ndim != 1:
            raise InvalidInputError(
                f"expected one query vector (1-D), got an array of shape {embedding.shape}"
            )
        return embedding.reshape(1, -1)
    if type(embedding) is list:
        try:
            row = np.fromiter(embedding, dtype=np.float32, count=len(embedding))
        except (TypeError, ValueError):
            return [embedding]
        return row.reshape(1, -1)
    return [embedding]

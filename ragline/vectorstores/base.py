"""The VectorStore interface: a few backend primitives, everything else written once.

A backend (in-memory, FAISS, Redis ...) implements only these primitives::

    dimension            property: vector dimension, None while nothing fixes it yet
    score_kind           property: which native score _search returns (see below)
    embeddings           property: the Embeddings used to embed texts and queries
    count()              how many documents are stored
    _upsert(ids, vectors, texts, metadatas)   add, replacing documents whose id is stored
    _delete(ids)                        remove; unknown ids are ignored
    _get_by_ids(ids)                    stored documents, in the order asked, missing skipped
    _search(queries, k, filter, *, with_vectors)   top-k per query vector, best first

and, optionally, the async twins ``_aupsert _adelete _aget_by_ids _asearch`` (they
default to running the sync primitive in a thread) and ``_mmr_hits`` / ``_check_queries``
for a faster way to pick MMR hits or check query vectors. Every public method below (adding
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
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np

from ragline.core import Document, InvalidInputError
from ragline.core._checks import check_choice
from ragline.embeddings import Embeddings
from ragline.vectorstores._validation import (
    Batch,
    SearchPlan,
    check_batch,
    check_id_list,
    split_documents,
)
from ragline.vectorstores.filters import FilterNode
from ragline.vectorstores.utils import (
    RELEVANCE_SCALAR_FUNCTIONS,
    as_vector_matrix,
    mmr_picks,
    relevance_function,
)

if TYPE_CHECKING:
    from ragline.vectorstores.retriever import VectorStoreRetriever

__all__ = ["SearchHit", "VectorStore"]

VST = TypeVar("VST", bound="VectorStore")
_NO_VECTORS = np.empty((0, 0), dtype=np.float32)  # a query with no candidate: MMR picks none


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
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore.from_texts(
        ...     ["cats purr", "dogs bark", "stocks fell"], HashingEmbeddings(dimension=256)
        ... )
        >>> store.similarity_search("a cat purrs", k=1)[0].page_content
        'cats purr'

    The method examples below run on such a store, built with
    ``ids=["cats", "dogs", "stocks"]`` and metadata ``{"topic": "pets"}`` for the first
    two and ``{"topic": "finance"}`` for the third.
    """

    # True for a subclass written the LangChain way (only add_texts, similarity_search,
    # from_texts): see ragline.vectorstores._langchain_style
    _langchain_style: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from ragline.vectorstores._langchain_style import install_defaults, is_langchain_style

        if is_langchain_style(cls) and not cls._langchain_style:
            install_defaults(cls)

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

    def _scalar_relevance(self) -> Callable[[float], float] | None:
        """The one-float twin of :meth:`_relevance_scores`, or None when a subclass
        overrides ``_relevance_scores`` (then only the array hook applies)."""
        if type(self)._relevance_scores is not VectorStore._relevance_scores:
            return None
        return RELEVANCE_SCALAR_FUNCTIONS.get(self.score_kind)

    # ------------------------------------------------------------------ adding

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Embed texts and store them; a text whose id is already stored replaces it.

        Args:
            texts: the texts to store.
            metadatas: one metadata dict per text (or None for all empty).
            ids: one unique id per text; uuid4 strings are generated when omitted.

        Returns:
            The ids of the stored texts, in order.

        Raises:
            InvalidInputError: texts / metadatas / ids of different lengths, the same id
                twice, an id that is not a non-empty string.
            DimensionError: the embeddings have the wrong dimension or are not finite.

        Example:
            >>> store.add_texts(["a kitten"], metadatas=[{"topic": "pets"}], ids=["kitten"])
            ['kitten']
        """
        return self._add_batch(check_batch(texts, metadatas, ids))

    def _add_batch(self, batch: Batch) -> list[str]:
        """Embed and store a batch that ``check_batch`` already checked (checks run once)."""
        if not batch.texts:
            return []
        vectors = self._embed_documents(batch.texts)
        vectors = self._check_embeddings(vectors, len(batch.texts), self.dimension)
        self._upsert(batch.ids, vectors, batch.texts, batch.metadatas)
        return batch.ids

    def _add_vectors(self, batch: Batch, vectors: Any) -> list[str]:
        """Store a checked batch with vectors computed elsewhere."""
        if not batch.texts:
            return []
        matrix = self._check_embeddings(vectors, len(batch.texts), self.dimension)
        self._upsert(batch.ids, matrix, batch.texts, batch.metadatas)
        return batch.ids

    async def aadd_texts(
        self,
        texts: Iterable[str],
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Async :meth:`add_texts`."""
        return await self._aadd_batch(check_batch(texts, metadatas, ids))

    async def _aadd_batch(self, batch: Batch) -> list[str]:
        if not batch.texts:
            return []
        vectors = await self._aembed_documents(batch.texts)
        vectors = self._check_embeddings(vectors, len(batch.texts), await self._adimension())
        await self._aupsert(batch.ids, vectors, batch.texts, batch.metadatas)
        return batch.ids

    def add_documents(
        self, documents: Iterable[Document], *, ids: Sequence[str] | None = None
    ) -> list[str]:
        """Embed and store Documents, keyed by ``ids``, else each document's ``id``, else a uuid4.

        Args:
            documents: the documents; their metadata is copied.
            ids: overrides the documents' own ids (one per document).

        Returns:
            The ids of the stored documents, in order.

        Raises:
            InvalidInputError, DimensionError: as :meth:`add_texts`.

        Example:
            >>> store.add_documents([Document("birds sing", id="birds")])
            ['birds']
        """
        texts, metadatas, doc_ids = split_documents(documents, ids)
        return self.add_texts(texts, metadatas, doc_ids)

    async def aadd_documents(
        self, documents: Iterable[Document], *, ids: Sequence[str] | None = None
    ) -> list[str]:
        """Async :meth:`add_documents`."""
        texts, metadatas, doc_ids = split_documents(documents, ids)
        return await self.aadd_texts(texts, metadatas, doc_ids)

    def add_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Store texts with vectors computed elsewhere (no embedding call).

        Args:
            text_embeddings: ``(text, vector)`` pairs.
            metadatas: one metadata dict per pair, or None.
            ids: one unique id per pair; uuid4 strings when omitted.

        Returns:
            The ids of the stored texts.

        Raises:
            InvalidInputError, DimensionError: as :meth:`add_texts`.

        Example:
            >>> store.add_embeddings([("computed elsewhere", [1.0] + [0.0] * 255)], ids=["e"])
            ['e']
        """
        pairs = list(text_embeddings)
        batch = check_batch([text for text, _ in pairs], metadatas, ids)
        return self._add_vectors(batch, [vector for _, vector in pairs])

    @classmethod
    def from_texts(
        cls: type[VST],
        texts: Iterable[str],
        embedding: Embeddings,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **store_options: Any,
    ) -> VST:
        """Build a store with ``cls(embedding, **store_options)`` and add the texts.

        Args:
            texts: the texts to store.
            embedding: the Embeddings to use.
            metadatas: one metadata dict per text, or None.
            ids: one unique id per text; uuid4 strings when omitted.
            **store_options: keyword options of the store's constructor (each backend
                documents its own; an unknown one raises TypeError there).

        Returns:
            The new store.

        Example:
            >>> InMemoryVectorStore.from_texts(["a", "b"], embeddings, metric="l2").count()
            2
        """
        batch = check_batch(texts, metadatas, ids)  # check before building anything
        store = cls(embedding, **store_options)  # type: ignore[call-arg]
        store._add_batch(batch)
        return store

    @classmethod
    async def afrom_texts(
        cls: type[VST],
        texts: Iterable[str],
        embedding: Embeddings,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **store_options: Any,
    ) -> VST:
        """Async :meth:`from_texts`."""
        batch = check_batch(texts, metadatas, ids)
        store = cls(embedding, **store_options)  # type: ignore[call-arg]
        await store._aadd_batch(batch)
        return store

    @classmethod
    def from_documents(
        cls: type[VST], documents: Iterable[Document], embedding: Embeddings, **store_options: Any
    ) -> VST:
        """Build a store and add Documents (keyed by their ids, else uuid4 strings).

        Args:
            documents: the documents to store.
            embedding: the Embeddings to use.
            **store_options: as :meth:`from_texts`; ``ids=[...]`` overrides document ids.

        Example:
            >>> store = InMemoryVectorStore.from_documents([Document("a", id="x")], embeddings)
            >>> store.get_by_ids(["x"])
            [Document(page_content='a', id='x')]
        """
        ids = store_options.pop("ids", None)
        texts, metadatas, doc_ids = split_documents(documents, ids)
        return cls.from_texts(texts, embedding, metadatas, ids=doc_ids, **store_options)

    @classmethod
    async def afrom_documents(
        cls: type[VST], documents: Iterable[Document], embedding: Embeddings, **store_options: Any
    ) -> VST:
        """Async :meth:`from_documents`."""
        ids = store_options.pop("ids", None)
        texts, metadatas, doc_ids = split_documents(documents, ids)
        return await cls.afrom_texts(texts, embedding, metadatas, ids=doc_ids, **store_options)

    @classmethod
    def from_embeddings(
        cls: type[VST],
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        embedding: Embeddings,
        metadatas: Sequence[Mapping[str, Any] | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **store_options: Any,
    ) -> VST:
        """Build a store from ``(text, vector)`` pairs computed elsewhere.

        ``embedding`` is still needed to embed queries later.

        Example:
            >>> InMemoryVectorStore.from_embeddings([("a", [0.0, 1.0])], embeddings).dimension
            2
        """
        pairs = list(text_embeddings)
        batch = check_batch([text for text, _ in pairs], metadatas, ids)
        store = cls(embedding, **store_options)  # type: ignore[call-arg]
        store._add_vectors(batch, [vector for _, vector in pairs])
        return store

    # ------------------------------------------------------------------ delete / get

    def delete(self, ids: Sequence[str]) -> None:
        """Delete the documents with these ids; ids that are not stored are ignored.

        Raises:
            InvalidInputError: ``ids`` is not a list of non-empty strings.

        Example:
            >>> store.delete(["dogs", "not-stored"])
            >>> store.count()
            2
        """
        checked = check_id_list(ids)
        if checked:
            self._delete(checked)

    async def adelete(self, ids: Sequence[str]) -> None:
        """Async :meth:`delete`."""
        checked = check_id_list(ids)
        if checked:
            await self._adelete(checked)

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        """Return the stored documents with these ids, in that order, skipping unknown ids.

        Raises:
            InvalidInputError: ``ids`` is not a list of non-empty strings.

        Example:
            >>> [doc.id for doc in store.get_by_ids(["stocks", "nope", "cats"])]
            ['stocks', 'cats']
        """
        checked = check_id_list(ids)
        return self._get_by_ids(checked) if checked else []

    async def aget_by_ids(self, ids: Sequence[str]) -> list[Document]:
        """Async :meth:`get_by_ids`."""
        checked = check_id_list(ids)
        return await self._aget_by_ids(checked) if checked else []

    # ------------------------------------------------------------------ search

    def similarity_search(
        self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[Document]:
        """Return the ``k`` documents most similar to ``query``, best first.

        Args:
            query: the text to search for.
            k: how many documents (at least 1).
            filter: a metadata filter (see :mod:`ragline.vectorstores.filters`); k
                documents come back whenever k documents match it.

        Raises:
            InvalidInputError: k < 1; FilterError: a bad filter.

        Example:
            >>> found = store.similarity_search("purring cats", k=2, filter={"topic": "pets"})
            >>> [doc.id for doc in found]
            ['cats', 'dogs']
        """
        plan = SearchPlan.similarity(k, filter)
        return self._search_texts([query], plan, scores=False)[0]

    async def asimilarity_search(
        self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[Document]:
        """Async :meth:`similarity_search`."""
        plan = SearchPlan.similarity(k, filter)
        return (await self._asearch_texts([query], plan, scores=False))[0]

    def similarity_search_with_score(
        self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None
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
        plan = SearchPlan.similarity(k, filter)
        return self._search_texts([query], plan)[0]

    async def asimilarity_search_with_score(
        self, query: str, k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score`."""
        plan = SearchPlan.similarity(k, filter)
        return (await self._asearch_texts([query], plan))[0]

    def similarity_search_by_vector(
        self, embedding: Sequence[float], k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[Document]:
        """Return the ``k`` documents nearest to a query vector, best first.

        Raises:
            DimensionError: the vector has the wrong dimension or is not finite.

        Example:
            >>> store.similarity_search_by_vector(embeddings.embed_query("stocks"), k=1)[0].id
            'stocks'
        """
        plan = SearchPlan.similarity(k, filter)
        return self._search_vectors(_one_vector(embedding), plan, scores=False)[0]

    async def asimilarity_search_by_vector(
        self, embedding: Sequence[float], k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[Document]:
        """Async :meth:`similarity_search_by_vector`."""
        plan = SearchPlan.similarity(k, filter)
        return (await self._asearch_vectors(_one_vector(embedding), plan, scores=False))[0]

    def similarity_search_with_score_by_vector(
        self, embedding: Sequence[float], k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[tuple[Document, float]]:
        """Like :meth:`similarity_search_by_vector`, with each document's native score."""
        plan = SearchPlan.similarity(k, filter)
        return self._search_vectors(_one_vector(embedding), plan)[0]

    async def asimilarity_search_with_score_by_vector(
        self, embedding: Sequence[float], k: int = 4, filter: Mapping[str, Any] | None = None
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score_by_vector`."""
        plan = SearchPlan.similarity(k, filter)
        return (await self._asearch_vectors(_one_vector(embedding), plan))[0]

    def similarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        score_threshold: float | None = None,
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
        plan = SearchPlan.relevance(k, filter, score_threshold)
        return self._search_texts([query], plan)[0]

    async def asimilarity_search_with_relevance_scores(
        self,
        query: str,
        k: int = 4,
        filter: Mapping[str, Any] | None = None,
        *,
        score_threshold: float | None = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_relevance_scores`."""
        plan = SearchPlan.relevance(k, filter, score_threshold)
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
            fetch_k: how many candidates to consider (at least k).
            lambda_mult: 1 = pure relevance, 0 = pure diversity; in [0, 1].
            filter: a metadata filter applied to the candidates.

        Raises:
            InvalidInputError: k < 1, fetch_k < k or lambda_mult outside [0, 1].

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

    # ------------------------------------------------------------------ retriever

    def as_retriever(
        self,
        *,
        search_type: str = "similarity",
        search_kwargs: Mapping[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        score_key: str | None = None,
    ) -> VectorStoreRetriever:
        """Return a retriever (a Runnable) that searches this store.

        Args:
            search_type: ``"similarity"``, ``"similarity_score_threshold"`` or ``"mmr"``.
            search_kwargs: that search type's options (``k``, ``filter``,
                ``score_threshold``, ``fetch_k``, ``lambda_mult``); see
                :class:`~ragline.vectorstores.VectorStoreRetriever`.
            tags: extra tags for the retriever's runs (the store and embeddings class
                names are always added).
            metadata: extra metadata for the retriever's runs.
            score_key: put each document's relevance in ``metadata[score_key]``.

        Raises:
            ConfigurationError: an unknown search_type.
            InvalidInputError: an unknown search_kwargs key (named) or a bad value.

        Example:
            >>> retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 2})
            >>> [[doc.id for doc in docs] for docs in retriever.batch(["cats", "stocks"])]
            [['cats', 'stocks'], ['stocks', 'dogs']]
        """
        from ragline.vectorstores.retriever import VectorStoreRetriever  # imports core's retriever

        return VectorStoreRetriever(
            self,
            search_type=search_type,
            search_kwargs=search_kwargs,
            tags=tags,
            metadata=metadata,
            score_key=score_key,
        )

    # ------------------------------------------------------------------ the one search path

    def _search_texts(
        self, queries: list[str], plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        """Embed all queries at once and answer them with ONE ``_search`` call: per query,
        ``(document, score)`` pairs, or the documents alone with ``scores=False``."""
        if not queries:
            return []
        return self._search_vectors(self._embed_queries(queries), plan, scores=scores)

    async def _asearch_texts(
        self, queries: list[str], plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        if not queries:
            return []
        vectors = await self._aembed_queries(queries)
        return await self._asearch_vectors(vectors, plan, scores=scores)

    def _search_vectors(
        self, vectors: Any, plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        dimension = self.dimension
        queries = self._check_queries(vectors, dimension)
        if dimension is None:
            return [[] for _ in range(len(queries))]
        if plan.is_mmr:
            hits = self._mmr_hits(queries, plan)
        else:
            hits = self._search(queries, plan.fetch_k, plan.filter, with_vectors=False)
        return self._finish(queries, hits, plan, scores)

    async def _asearch_vectors(
        self, vectors: Any, plan: SearchPlan, *, scores: bool = True
    ) -> list[list[Any]]:
        dimension = await self._adimension()
        queries = self._check_queries(vectors, dimension)
        if dimension is None:
            return [[] for _ in range(len(queries))]
        hits = await self._asearch(queries, plan.fetch_k, plan.filter, with_vectors=plan.is_mmr)
        if plan.is_mmr:
            hits = self._pick_mmr(queries, hits, plan)
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
        self._check_hit_lists(queries, hits)
        k = plan.k
        if not plan.to_relevance:  # the plain path: no array round trip, one list per query
            if scores:
                return [[(doc, float(score)) for doc, score, _ in found[:k]] for found in hits]
            return [[doc for doc, _, _ in found[:k]] for found in hits]
        threshold = plan.score_threshold
        scalar = self._scalar_relevance()
        results: list[list[Any]] = []
        for found in hits:
            found = found[:k]
            if scalar is not None:  # a few scores: plain Python beats numpy calls
                pairs = [(doc, scalar(float(score))) for doc, score, _ in found]
            else:
                native = np.array([float(hit.score) for hit in found], dtype=np.float64)
                relevance = self._relevance_scores(native).tolist()
                pairs = [(hit.document, score) for hit, score in zip(found, relevance, strict=True)]
            if threshold is not None:
                pairs = [pair for pair in pairs if pair[1] >= threshold]
            results.append(pairs if scores else [doc for doc, _ in pairs])
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
        if len(queries) == 1 and type(queries[0]) is str and _plain_queries(embeddings):
            # One query through the Embeddings default: its vector is checked once, by
            # _check_queries, instead of also by the Embeddings layer (the single-query
            # hot path). Anything np.array cannot take goes the checked way for its message.
            try:
                return np.array([embeddings.embed_query(queries[0])], dtype=np.float32)
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


def _plain_queries(embeddings: Any) -> bool:
    """Whether ``embeddings`` embeds queries through the Embeddings base class's default
    ``embed_queries_array`` (one ``embed_query`` call per query)."""
    return type(embeddings).embed_queries_array is Embeddings.embed_queries_array


def _one_vector(embedding: Sequence[float]) -> list[Sequence[float]]:
    if isinstance(embedding, np.ndarray) and embedding.ndim != 1:
        raise InvalidInputError(
            f"expected one query vector (1-D), got an array of shape {embedding.shape}"
        )
    return [embedding]


def _stored_vector(store: VectorStore, hit: SearchHit) -> np.ndarray:
    if hit.vector is None:
        raise RuntimeError(
            f"{type(store).__name__}._search returned no vector although with_vectors=True"
        )
    return hit.vector

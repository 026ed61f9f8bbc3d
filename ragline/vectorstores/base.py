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
default to running the sync primitive in a thread), ``_held_ids`` (which ids are stored,
without building documents: ``index()`` asks it of every chunk it would skip) and
``_mmr_hits`` / ``_check_queries`` for a faster way to pick MMR hits or check query
vectors. Every public method below (adding texts, searching by text or vector, relevance
scores, score thresholds, MMR, ``as_retriever``) is written once on top of the
primitives, and validates its input BEFORE any primitive runs, so a bad call never
changes a store.

The class is written in three layers, one module each: the primitives and the one
search path every search runs on (:mod:`ragline.vectorstores._primitives`), the public
searches derived from that path (:mod:`ragline.vectorstores._search_api`), and here
:class:`VectorStore` itself with adding, deleting, getting, the ``from_*`` constructors
and ``as_retriever``.

``score_kind`` names the native score ``_search`` returns and decides how it maps to a
relevance in [0, 1] (see :data:`ragline.vectorstores.utils.RELEVANCE_FUNCTIONS`):
``"cosine_similarity"``, ``"cosine_distance"``, ``"inner_product"``,
``"inner_product_distance"``, ``"l2"`` or ``"squared_l2"``. A backend with another
native score overrides :meth:`VectorStore._relevance_scores` instead.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ragline.core import Document
from ragline.embeddings import Embeddings
from ragline.vectorstores._primitives import SearchHit
from ragline.vectorstores._search_api import SearchMethods
from ragline.vectorstores._validation import Batch, check_batch, check_id_list, split_documents

if TYPE_CHECKING:
    from ragline.vectorstores.retriever import VectorStoreRetriever

__all__ = ["SearchHit", "VectorStore"]

VST = TypeVar("VST", bound="VectorStore")


class VectorStore(SearchMethods):
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

    shared_across_processes: ClassVar[bool] = False
    """True when a copy of the store unpickled in another process reads and writes the
    same documents (a store on a server, like Redis), so the workers of a distributed
    index run (:class:`~ragline.indexing.RayEngine`) write to it directly; any other
    store is written by the process that runs ``index()``."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        from ragline.vectorstores._langchain_style import install_defaults, is_langchain_style

        if is_langchain_style(cls) and not cls._langchain_style:
            install_defaults(cls)

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
            [Document(id='x', metadata={}, page_content='a')]
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

    def held_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids the store holds: what :meth:`get_by_ids` would find, without
        reading the documents (``index()`` asks this of every chunk it would skip).

        Raises:
            InvalidInputError: ``ids`` is not a list of non-empty strings.

        Example:
            >>> sorted(store.held_ids(["stocks", "nope", "cats"]))
            ['cats', 'stocks']
        """
        checked = check_id_list(ids)
        return self._held_ids(checked) if checked else set()

    async def aheld_ids(self, ids: Sequence[str]) -> set[str]:
        """Async :meth:`held_ids`."""
        checked = check_id_list(ids)
        return await self._aheld_ids(checked) if checked else set()

    # ------------------------------------------------------------------ search

    # ------------------------------------------------------------------ retriever

    # The run name of the retriever as_retriever builds (LangChain's class name for it).
    _retriever_name: ClassVar[str] = "VectorStoreRetriever"

    def _retriever_tags(self, tags: list[str] | None) -> list[str]:
        """The retriever's tags: the given ones, or else the store's and embeddings' class
        names (as LangChain's ``as_retriever``)."""
        return list(tags) if tags else self._class_tags()

    def _class_tags(self) -> list[str]:
        """The store's class name, then its embeddings' class name when it has embeddings."""
        tags = [type(self).__name__]
        embeddings = getattr(self, "embeddings", None)
        if embeddings is not None:
            tags.append(type(embeddings).__name__)
        return tags

    def as_retriever(
        self,
        *,
        search_type: str = "similarity",
        search_kwargs: Mapping[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        score_key: str | None = None,
        **unknown: Any,
    ) -> VectorStoreRetriever:
        """Return a retriever (a Runnable) that searches this store.

        Args:
            search_type: ``"similarity"``, ``"similarity_score_threshold"`` or ``"mmr"``.
            search_kwargs: that search type's options (``k``, ``filter``,
                ``score_threshold``, ``fetch_k``, ``lambda_mult``); see
                :class:`~ragline.vectorstores.VectorStoreRetriever`.
            tags: the tags of the retriever's runs (default: the store's and the
                embeddings' class names).
            metadata: extra metadata for the retriever's runs.
            score_key: put each document's relevance in ``metadata[score_key]``.
            unknown: other keyword arguments are ignored with a ``UserWarning`` naming
                them (LangChain ignores them silently): ``as_retriever(score_threshold=0.7)``
                sets no threshold; search options go in ``search_kwargs``.

        Raises:
            ConfigurationError: an unknown search_type.
            InvalidInputError: an unknown search_kwargs key (named) or a bad value.

        Example:
            >>> retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 2})
            >>> [[doc.id for doc in docs] for docs in retriever.batch(["cats", "stocks"])]
            [['cats', 'stocks'], ['stocks', 'dogs']]
        """
        from ragline.vectorstores.retriever import VectorStoreRetriever  # imports core's retriever

        if unknown:
            named = ", ".join(f"{key}={value!r}" for key, value in sorted(unknown.items()))
            warnings.warn(
                f"as_retriever ignores {named}, as LangChain's does: search options go in "
                f"search_kwargs (e.g. search_kwargs={dict(sorted(unknown.items()))!r})",
                UserWarning,
                stacklevel=2,
            )
        return VectorStoreRetriever(
            self,
            search_type=search_type,
            search_kwargs=search_kwargs,
            tags=self._retriever_tags(tags),
            metadata=metadata,
            score_key=score_key,
        )

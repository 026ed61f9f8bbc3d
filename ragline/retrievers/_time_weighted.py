"""TimeWeightedVectorStoreRetriever: similarity plus recency (LangChain's class of the
same name, the memory of "generative agents").

The retriever keeps every document it added in ``memory_stream`` (its position there
is the document's ``buffer_idx`` metadata) and stamps ``created_at`` and
``last_accessed_at``. A query scores the last ``k`` documents added and the ones the
store finds (``similarity_search_with_relevance_scores`` with ``search_kwargs``)::

    score = (1 - decay_rate) ** hours_since_last_access
            + sum(metadata[key] for key in other_score_keys)
            + relevance        (default_salience for a recent document the store did not find)

and returns the ``k`` best memory-stream documents (ties keep the order they were
scored in), stamping them accessed now, so what is used stays fresh.

One difference: ragline's stores keep JSON metadata, so the store's copy of a document
has its datetimes as float timestamps; the memory stream, which queries return from,
keeps them as given (as LangChain's does).
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

from ragline.core import BaseRetriever, Document, Field

__all__ = ["TimeWeightedVectorStoreRetriever"]


class TimeWeightedVectorStoreRetriever(BaseRetriever):
    """Retrieve by similarity and by how recently a document was last used.

    Args:
        vectorstore: the store searched (its documents are added through this
            retriever's ``add_documents``).
        search_kwargs: passed to ``similarity_search_with_relevance_scores``
            (default ``{"k": 100}``).
        memory_stream: every document added, in order.
        decay_rate: how much of the recency score an hour takes away (0.01: 1%).
        k: how many documents a query returns.
        other_score_keys: metadata keys whose numbers are added to the score.
        default_salience: the relevance given to a recent document the store did not
            find (``None``: nothing added).

    Example:
        >>> from ragline.embeddings import DeterministicFakeEmbedding
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
        >>> retriever = TimeWeightedVectorStoreRetriever(vectorstore=store, k=1)
        >>> _ = retriever.add_documents([Document("old"), Document("new")])
        >>> retriever.invoke("new")[0].page_content
        'new'
    """

    vectorstore: Any
    search_kwargs: dict[str, Any] = Field(default_factory=lambda: {"k": 100})
    memory_stream: list[Document] = Field(default_factory=list)
    decay_rate: float = 0.01
    k: int = 4
    other_score_keys: list[str] = Field(default_factory=list)
    default_salience: float | None = None

    def _get_relevant_documents(self, query: str) -> list[Document]:
        candidates = self._recent()
        candidates.update(self.get_salient_docs(query))
        return self._best(candidates)

    async def _aget_relevant_documents(self, query: str, **_: Any) -> list[Document]:
        candidates = self._recent()
        candidates.update(await self.aget_salient_docs(query))
        return self._best(candidates)

    def get_salient_docs(self, query: str) -> dict[int, tuple[Document, float]]:
        """The memory-stream documents the store finds for ``query``, by position, with
        their relevance."""
        found = self.vectorstore.similarity_search_with_relevance_scores(
            query, **self.search_kwargs
        )
        return self._salient(found)

    async def aget_salient_docs(self, query: str) -> dict[int, tuple[Document, float]]:
        """Async :meth:`get_salient_docs`."""
        found = await self.vectorstore.asimilarity_search_with_relevance_scores(
            query, **self.search_kwargs
        )
        return self._salient(found)

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Add copies of ``documents`` to the memory stream and the store, stamped
        ``created_at`` / ``last_accessed_at`` (``current_time=``, default now) where they
        have no such metadata, and ``buffer_idx``. Other keywords go to the store."""
        copies, options = self._stamped(documents, kwargs)
        return self.vectorstore.add_documents(_storable(copies), **options)  # type: ignore[no-any-return]

    async def aadd_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Async :meth:`add_documents`."""
        copies, options = self._stamped(documents, kwargs)
        return await self.vectorstore.aadd_documents(_storable(copies), **options)  # type: ignore[no-any-return]

    def _stamped(
        self, documents: list[Document], kwargs: dict[str, Any]
    ) -> tuple[list[Document], dict[str, Any]]:
        options = dict(kwargs)
        now = options.pop("current_time", None)
        if now is None:
            now = datetime.datetime.now()
        copies = [copy.deepcopy(document) for document in documents]
        for position, document in enumerate(copies, start=len(self.memory_stream)):
            document.metadata.setdefault("last_accessed_at", now)
            document.metadata.setdefault("created_at", now)
            document.metadata["buffer_idx"] = position
        self.memory_stream.extend(copies)
        return copies, options

    def _recent(self) -> dict[int, tuple[Document, float | None]]:
        recent = self.memory_stream[-self.k :]
        return {doc.metadata["buffer_idx"]: (doc, self.default_salience) for doc in recent}

    def _salient(self, found: list[tuple[Document, float]]) -> dict[int, tuple[Document, float]]:
        salient = {}
        for document, relevance in found:
            if "buffer_idx" in document.metadata:
                position = document.metadata["buffer_idx"]
                salient[position] = (self.memory_stream[position], relevance)
        return salient

    def _best(self, candidates: dict[int, tuple[Document, float | None]]) -> list[Document]:
        now = datetime.datetime.now()
        scored = [(doc, self._score(doc, relevance, now)) for doc, relevance in candidates.values()]
        scored.sort(key=lambda pair: pair[1], reverse=True)
        chosen = []
        for document, _ in scored[: self.k]:
            kept = self.memory_stream[document.metadata["buffer_idx"]]
            kept.metadata["last_accessed_at"] = now
            chosen.append(kept)
        return chosen

    def _score(self, document: Document, relevance: float | None, now: datetime.datetime) -> float:
        hours = (now - _accessed_at(document)).total_seconds() / 3600
        score: float = (1.0 - self.decay_rate) ** hours
        for key in self.other_score_keys:  # added one by one: the same float sums
            if key in document.metadata:
                score += document.metadata[key]
        if relevance is not None:
            score += relevance
        return score


# The real datetime class: inside a ``mock_now`` block (ragline's or LangChain's, which
# programs use to hold the clock) ``datetime.datetime`` is a subclass that a datetime made
# outside it is not an instance of, while ``datetime.datetime.now()`` must stay the mocked
# one. ``min`` is an instance of the real class even then, so this holds when this module
# is first imported inside such a block (ragline.retrievers loads it on first use).
_DATETIME = type(datetime.datetime.min)


def _storable(documents: list[Document]) -> list[Document]:
    """The store's copies: datetimes in the metadata as float timestamps, since ragline's
    stores keep JSON metadata (the retriever reads only ``buffer_idx`` back from them)."""
    return [
        Document(
            document.page_content,
            metadata={
                key: value.timestamp() if isinstance(value, _DATETIME) else value
                for key, value in document.metadata.items()
            },
            id=document.id,
        )
        for document in documents
    ]


def _accessed_at(document: Document) -> datetime.datetime:
    """When ``document`` was last used: its metadata's datetime, or a float timestamp
    (local time), or now when it has none."""
    if "last_accessed_at" not in document.metadata:
        return datetime.datetime.now()
    value = document.metadata["last_accessed_at"]
    if isinstance(value, float):
        return datetime.datetime.fromtimestamp(value)
    return value  # type: ignore[no-any-return]

"""A VectorStore written the LangChain way: only ``add_texts``, ``similarity_search`` and
``from_texts`` (seed 003, LangChain's custom vector store guide).

ragline's own backends implement the primitives (``_upsert``, ``_search`` ...) and get
every public method from the base class. A subclass that overrides ``similarity_search``
but not ``_search`` is read as LangChain-style instead (when the class is created): the
methods below fill in what it did not write. What can be derived from its three methods
is (``add_documents`` from ``add_texts``, ``from_documents`` from ``from_texts``, the
async twins from the sync ones in a worker thread, ``as_retriever`` for similarity
search, ``search`` dispatching by type); everything else raises ``NotImplementedError``
naming the method to write (LangChain raises ``NotImplementedError`` there too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core import Document

if TYPE_CHECKING:
    from ragline.vectorstores.base import VectorStore

__all__ = ["LangChainStyleDefaults", "install_defaults", "is_langchain_style"]


def is_langchain_style(cls: type) -> bool:
    """Whether a VectorStore subclass overrides ``similarity_search`` but not ``_search``."""
    from ragline.vectorstores.base import VectorStore

    return (
        cls.similarity_search is not VectorStore.similarity_search  # type: ignore[attr-defined]
        and cls._search is VectorStore._search  # type: ignore[attr-defined]
    )


def _refuse(store: Any, method: str, needs: str) -> NotImplementedError:
    return NotImplementedError(
        f"{type(store).__name__}.{method} is not available: this store implements "
        f"add_texts / similarity_search / from_texts only (LangChain style); {needs}"
    )


def _ids_option(documents: list[Document], ids: Sequence[str] | None) -> dict[str, Any]:
    if ids is not None:
        return {"ids": list(ids)}
    found = [document.id for document in documents]
    return {"ids": found} if any(found) else {}


class LangChainStyleDefaults:
    """The methods a LangChain-style store gets where it wrote none (see the module)."""

    # ---- what the base class's machinery would need: refused ------------------------
    @property
    def embeddings(self) -> Any:
        """The store's ``embedding`` attribute, if it has one (LangChain's default: None)."""
        return vars(self).get("embedding", vars(self).get("_embedding"))

    @property
    def dimension(self) -> int | None:
        return None

    @property
    def score_kind(self) -> str:
        raise _refuse(
            self,
            "score_kind",
            "relevance scores need similarity_search_with_score and _select_relevance_score_fn",
        )

    def count(self) -> int:
        raise _refuse(self, "count", "write count() to count documents")

    def _upsert(self, *args: Any, **kwargs: Any) -> None:
        raise _refuse(self, "_upsert", "documents are added through add_texts")

    def _delete(self, ids: list[str]) -> None:
        raise _refuse(self, "delete", "write delete(ids) to delete documents")

    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        raise _refuse(self, "get_by_ids", "write get_by_ids(ids) to look documents up")

    def _search(self, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "_search", "searches go through similarity_search")

    def _search_texts(self, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "_search_texts", "searches go through similarity_search")

    async def _asearch_texts(self, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "_asearch_texts", "searches go through similarity_search")

    # ---- derived from add_texts / from_texts ------------------------------------------
    def add_documents(
        self: Any, documents: Iterable[Document], *, ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        """``add_texts`` of the documents' texts and metadata (ids passed when known)."""
        documents = list(documents)
        texts = [document.page_content for document in documents]
        metadatas = [dict(document.metadata) for document in documents]
        return self.add_texts(texts, metadatas, **_ids_option(documents, ids), **kwargs)  # type: ignore[no-any-return]

    async def aadd_texts(self: Any, texts: Iterable[str], *args: Any, **kwargs: Any) -> list[str]:
        """``add_texts`` in a worker thread."""
        return await asyncio.to_thread(self.add_texts, list(texts), *args, **kwargs)  # type: ignore[no-any-return]

    async def aadd_documents(self: Any, documents: Iterable[Document], **kwargs: Any) -> list[str]:
        """``add_documents`` in a worker thread."""
        return await asyncio.to_thread(self.add_documents, list(documents), **kwargs)  # type: ignore[no-any-return]

    @classmethod
    def from_documents(
        cls: Any, documents: Iterable[Document], embedding: Any, **kwargs: Any
    ) -> VectorStore:
        """``from_texts`` of the documents' texts and metadata (ids passed when known)."""
        documents = list(documents)
        ids = kwargs.pop("ids", None)
        texts = [document.page_content for document in documents]
        metadatas = [dict(document.metadata) for document in documents]
        return cls.from_texts(texts, embedding, metadatas, **_ids_option(documents, ids), **kwargs)  # type: ignore[no-any-return]

    @classmethod
    async def afrom_texts(
        cls: Any, texts: Iterable[str], embedding: Any, *args: Any, **kwargs: Any
    ) -> VectorStore:
        """``from_texts`` in a worker thread."""
        return await asyncio.to_thread(cls.from_texts, list(texts), embedding, *args, **kwargs)  # type: ignore[no-any-return]

    @classmethod
    async def afrom_documents(
        cls: Any, documents: Iterable[Document], embedding: Any, **kwargs: Any
    ) -> VectorStore:
        """``from_documents`` in a worker thread."""
        return await asyncio.to_thread(cls.from_documents, list(documents), embedding, **kwargs)  # type: ignore[no-any-return]

    # ---- searches: the sync ones refused unless written, async ones derived ------------
    def similarity_search_with_score(self, query: str, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "similarity_search_with_score", "write it to return scores")

    def similarity_search_by_vector(self, embedding: Any, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "similarity_search_by_vector", "write it to search by vector")

    def similarity_search_with_score_by_vector(
        self, embedding: Any, *args: Any, **kwargs: Any
    ) -> Any:
        raise _refuse(
            self, "similarity_search_with_score_by_vector", "write it to search by vector"
        )

    def similarity_search_with_relevance_scores(self, query: str, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(
            self,
            "similarity_search_with_relevance_scores",
            "write it to return relevance scores (search_type='similarity_score_threshold' "
            "needs it)",
        )

    def max_marginal_relevance_search(self, query: str, *args: Any, **kwargs: Any) -> Any:
        raise _refuse(self, "max_marginal_relevance_search", "write it for search_type='mmr'")

    def max_marginal_relevance_search_by_vector(
        self, embedding: Any, *args: Any, **kwargs: Any
    ) -> Any:
        raise _refuse(self, "max_marginal_relevance_search_by_vector", "write it for MMR by vector")

    async def asimilarity_search(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.similarity_search, query, *args, **kwargs)

    async def asimilarity_search_with_score(
        self: Any, query: str, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(self.similarity_search_with_score, query, *args, **kwargs)

    async def asimilarity_search_by_vector(
        self: Any, embedding: Any, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(self.similarity_search_by_vector, embedding, *args, **kwargs)

    async def asimilarity_search_with_score_by_vector(
        self: Any, embedding: Any, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(
            self.similarity_search_with_score_by_vector, embedding, *args, **kwargs
        )

    async def asimilarity_search_with_relevance_scores(
        self: Any, query: str, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(
            self.similarity_search_with_relevance_scores, query, *args, **kwargs
        )

    async def amax_marginal_relevance_search(
        self: Any, query: str, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(self.max_marginal_relevance_search, query, *args, **kwargs)

    async def amax_marginal_relevance_search_by_vector(
        self: Any, embedding: Any, *args: Any, **kwargs: Any
    ) -> Any:
        return await asyncio.to_thread(
            self.max_marginal_relevance_search_by_vector, embedding, *args, **kwargs
        )

    def delete(self, ids: Any = None, **kwargs: Any) -> Any:
        raise _refuse(self, "delete", "write delete(ids) to delete documents")

    async def adelete(self: Any, ids: Any = None, **kwargs: Any) -> Any:
        return await asyncio.to_thread(self.delete, ids, **kwargs)

    def get_by_ids(self, ids: Any) -> Any:
        raise _refuse(self, "get_by_ids", "write get_by_ids(ids) to look documents up")

    async def aget_by_ids(self: Any, ids: Any) -> Any:
        return await asyncio.to_thread(self.get_by_ids, ids)

    def held_ids(self: Any, ids: Any) -> set[str]:
        """The ids ``get_by_ids`` finds (it reads the documents: all this store offers)."""
        return {document.id for document in self.get_by_ids(list(ids)) if document.id is not None}

    async def aheld_ids(self: Any, ids: Any) -> set[str]:
        return await asyncio.to_thread(self.held_ids, ids)


def install_defaults(cls: type) -> None:
    """Give a LangChain-style subclass every default it did not write itself."""
    from ragline.vectorstores.base import VectorStore

    # VectorStore's own layers (its search methods, its primitives) count as not written
    ours = (*VectorStore.__mro__, None)
    for name, value in vars(LangChainStyleDefaults).items():
        if not name.startswith("__") and _defined_by(cls, name) in ours:
            setattr(cls, name, value)
    cls._langchain_style = True  # type: ignore[attr-defined]


def _defined_by(cls: type, name: str) -> type | None:
    """The class in ``cls``'s MRO that defines ``name`` (None: nobody)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass
    return None

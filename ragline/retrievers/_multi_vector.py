"""MultiVectorRetriever: search stand-ins (summaries, chunks, questions), return the
documents they stand for.

Each stand-in in the vector store carries ``metadata[id_key]``, the key of its document
in the docstore. A query searches the stand-ins (``search_type``, read at query time so
it may be changed on the retriever) and returns the documents they name, each once, in
the order of their best stand-in; a key missing from the docstore is skipped. The
program fills both stores itself (``retriever.vectorstore.add_documents(...)``,
``retriever.docstore.mset(...)``), as with LangChain's class.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from ragline.core import BaseRetriever, BaseStore, Document, InvalidInputError
from ragline.retrievers._docstore import create_kv_docstore
from ragline.vectorstores import VectorStore

__all__ = ["MultiVectorRetriever", "SearchType"]


class SearchType(str, Enum):
    """How a ``MultiVectorRetriever`` searches its vector store."""

    similarity = "similarity"
    similarity_score_threshold = "similarity_score_threshold"
    mmr = "mmr"


class MultiVectorRetriever(BaseRetriever):
    """Retrieve documents through the stand-ins indexed for them.

    Args:
        vectorstore: where the stand-ins are embedded and searched.
        byte_store: a byte store (``InMemoryByteStore``, ``LocalFileStore`` ...) that then
            holds the documents as JSON; used when ``docstore`` is None.
        docstore: a store of Documents (``InMemoryStore``), used as it is.
        id_key: the stand-in metadata key holding its document's docstore key.
        search_kwargs: options of the search (``k``, default 4; ``filter``,
            ``score_threshold``, ``fetch_k`` ...).
        search_type: a :class:`SearchType` (or its value).

    Raises:
        InvalidInputError: no docstore and no byte_store, a vectorstore that is not a
            VectorStore, or an unknown search_type.

    Example:
        >>> from ragline.core.stores import InMemoryStore
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> retriever = MultiVectorRetriever(
        ...     vectorstore=InMemoryVectorStore(HashingEmbeddings(dimension=64)),
        ...     docstore=InMemoryStore())
        >>> _ = retriever.vectorstore.add_documents([Document("cats", {"doc_id": "p"})])
        >>> retriever.docstore.mset([("p", Document("A long text about cats."))])
        >>> retriever.invoke("cats")
        [Document(metadata={}, page_content='A long text about cats.')]
    """

    def __init__(
        self,
        *,
        vectorstore: VectorStore,
        byte_store: BaseStore[str, bytes] | None = None,
        docstore: BaseStore[str, Document] | None = None,
        id_key: str = "doc_id",
        search_kwargs: Mapping[str, Any] | None = None,
        search_type: SearchType | str = SearchType.similarity,
        **fields: Any,
    ) -> None:
        super().__init__(**fields)
        if not isinstance(vectorstore, VectorStore):
            raise InvalidInputError(
                "MultiVectorRetriever vectorstore must be a VectorStore, got "
                f"{type(vectorstore).__name__}"
            )
        if docstore is None:
            if byte_store is None:
                raise InvalidInputError(
                    "MultiVectorRetriever needs a docstore (a store of Documents) or a "
                    "byte_store (then the documents are kept in it as JSON)"
                )
            docstore = create_kv_docstore(byte_store)
        if not isinstance(id_key, str) or not id_key:
            raise InvalidInputError(
                f"MultiVectorRetriever id_key must be a non-empty str, got {id_key!r}"
            )
        self.vectorstore = vectorstore
        self.byte_store = byte_store
        self.docstore = docstore
        self.id_key = id_key
        self.search_kwargs = dict(search_kwargs or {})
        self.search_type = _search_type(search_type)

    def __repr__(self) -> str:
        shown = [f"vectorstore={self.vectorstore!r}"]
        if self.byte_store is not None:
            shown.append(f"byte_store={self.byte_store!r}")
        shown.append(f"docstore={self.docstore!r}")
        if self.id_key != "doc_id":
            shown.append(f"id_key={self.id_key!r}")
        shown.append(f"search_kwargs={self.search_kwargs!r}")
        if self.search_type != SearchType.similarity:
            shown.append(f"search_type={self.search_type!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def _keys(self, found: list[Document]) -> list[str]:
        keys = (doc.metadata[self.id_key] for doc in found if self.id_key in doc.metadata)
        return list(dict.fromkeys(keys))

    def _get_relevant_documents(self, query: str) -> list[Document]:
        kind = _search_type(self.search_type).value
        found = self.vectorstore.search(query, kind, **self.search_kwargs)
        return [doc for doc in self.docstore.mget(self._keys(found)) if doc is not None]

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        kind = _search_type(self.search_type).value
        found = await self.vectorstore.asearch(query, kind, **self.search_kwargs)
        return [doc for doc in await self.docstore.amget(self._keys(found)) if doc is not None]


def _search_type(value: Any) -> SearchType:
    try:
        return SearchType(value)
    except ValueError:
        raise InvalidInputError(
            f"MultiVectorRetriever search_type must be one of "
            f"{', '.join(t.value for t in SearchType)}, got {value!r}"
        ) from None

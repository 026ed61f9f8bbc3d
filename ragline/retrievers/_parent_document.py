"""ParentDocumentRetriever: search small chunks, return the larger documents they came from.

Small chunks embed precisely; large ones give the model context. ``add_documents``
splits each parent into children with ``child_splitter``, stores the children in the
vector store (``metadata[id_key]`` = the parent's key; child ids ``"<parent key>-<n>"``)
and the parents in the docstore under their keys: the ``ids`` given, else a new uuid4
each (as LangChain's; ``ids=[d.id for d in docs]`` keys them by ``Document.id``, so adding
a parent again under the same key replaces it and its children; when the new version
has fewer children, the extra old ones stay and still lead to the new parent). A query
searches the children and returns their parents, each once, in the order of their best
child.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ragline.core import BaseStore, Document, InvalidInputError, RunnableConfig
from ragline.retrievers._batching import ChildBatchRetriever
from ragline.retrievers._checks import check_documents
from ragline.retrievers._docstore import as_document_store, document_to_json
from ragline.retrievers._multi_vector import SearchType
from ragline.vectorstores import VectorStore

__all__ = ["ParentDocumentRetriever"]


class ParentDocumentRetriever(ChildBatchRetriever):
    """Retrieve the parent documents of the best-matching small chunks.

    Args:
        vectorstore: where the child chunks are embedded and searched.
        docstore: where the parents are kept: an ``InMemoryDocumentStore``, or any byte
            store (``InMemoryByteStore``, ``LocalFileStore``, ``RedisStore``), which then
            holds each parent as JSON.
        child_splitter: anything with ``split_documents(documents)`` (a ragline text
            splitter, for instance) cutting parents into the chunks that are searched.
        parent_splitter: optional; first cuts the added documents into the parents.
        id_key: the child metadata key holding its parent's id.
        byte_store: LangChain's other spelling: a byte store, used when ``docstore`` is None.
        search_type: how the children are searched (``"similarity"``, ``"mmr"``,
            ``"similarity_score_threshold"``).
        search_kwargs: options of that search (``k`` children, default 4; ``filter`` ...).
        child_metadata_fields: keep only these parent metadata keys on the children
            (None: all).

    Raises:
        InvalidInputError: a missing or unusable store or splitter, an empty id_key, or
            bad search options (unknown keys are named).
        ConfigurationError: an unknown search_type.

    Example:
        >>> from ragline.core import InMemoryByteStore
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.splitters import RecursiveCharacterTextSplitter
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> retriever = ParentDocumentRetriever(
        ...     vectorstore=InMemoryVectorStore(HashingEmbeddings(dimension=256)),
        ...     docstore=InMemoryByteStore(),
        ...     child_splitter=RecursiveCharacterTextSplitter(chunk_size=20, chunk_overlap=0),
        ...     search_kwargs={"k": 1})
        >>> parents = [Document("Cats purr. Dogs bark loudly.", id="pets"),
        ...            Document("Stocks fell. Bonds rose today.", id="money")]
        >>> retriever.add_documents(parents, ids=[d.id for d in parents])
        >>> retriever.invoke("dogs bark")
        [Document(id='pets', metadata={}, page_content='Cats purr. Dogs bark loudly.')]
    """

    def __init__(
        self,
        vectorstore: VectorStore,
        docstore: BaseStore[str, Any] | None = None,
        child_splitter: Any = None,
        parent_splitter: Any = None,
        id_key: str = "doc_id",
        *,
        byte_store: BaseStore[str, bytes] | None = None,
        search_type: SearchType | str = SearchType.similarity,
        search_kwargs: Mapping[str, Any] | None = None,
        child_metadata_fields: Sequence[str] | None = None,
    ) -> None:
        if not isinstance(vectorstore, VectorStore):
            raise InvalidInputError(
                "ParentDocumentRetriever vectorstore must be a VectorStore, got "
                f"{type(vectorstore).__name__}"
            )
        if (docstore is None) == (byte_store is None):
            raise InvalidInputError(
                "ParentDocumentRetriever needs exactly one of docstore and byte_store"
            )
        for name, splitter, required in (
            ("child_splitter", child_splitter, True),
            ("parent_splitter", parent_splitter, False),
        ):
            if (splitter is not None or required) and not callable(
                getattr(splitter, "split_documents", None)
            ):
                raise InvalidInputError(
                    f"ParentDocumentRetriever {name} needs a split_documents method "
                    f"(a text splitter), got {type(splitter).__name__}"
                )
        if not isinstance(id_key, str) or not id_key:
            raise InvalidInputError(
                f"ParentDocumentRetriever id_key must be a non-empty str, got {id_key!r}"
            )
        if child_metadata_fields is not None and (
            isinstance(child_metadata_fields, str)
            or not all(isinstance(f, str) for f in child_metadata_fields)
        ):
            raise InvalidInputError(
                "ParentDocumentRetriever child_metadata_fields must be a list of str, "
                f"got {child_metadata_fields!r}"
            )
        self.vectorstore = vectorstore
        self.docstore = as_document_store(docstore if docstore is not None else byte_store)
        self.child_splitter = child_splitter
        self.parent_splitter = parent_splitter
        self.id_key = id_key
        self.child_metadata_fields = (
            None if child_metadata_fields is None else list(child_metadata_fields)
        )
        self.search_kwargs = dict(search_kwargs or {})
        kind = getattr(search_type, "value", search_type)
        # the child search is a retriever run of its own, nested under ours
        self._children_retriever = vectorstore.as_retriever(
            search_type=kind, search_kwargs=self.search_kwargs
        )
        # a SearchType member, as LangChain's field holds it (printed SearchType.mmr)
        known = kind in SearchType._value2member_map_
        self.search_type: SearchType | str = SearchType(kind) if known else search_type

    def __repr__(self) -> str:
        return (
            f"ParentDocumentRetriever(vectorstore={type(self.vectorstore).__name__}, "
            f"docstore={self.docstore!r}, id_key={self.id_key!r})"
        )

    # ---- adding -----------------------------------------------------------------------
    def _prepare(
        self, documents: Any, ids: Sequence[str] | None, add_to_docstore: bool
    ) -> tuple[list[tuple[str, Document]], list[Document]]:
        """Check and split everything before anything is written: (parents, children)."""
        parents = check_documents("ParentDocumentRetriever.add_documents", documents)
        if self.parent_splitter is not None:
            if ids is not None:
                raise InvalidInputError(
                    "ParentDocumentRetriever.add_documents cannot take ids with a parent_splitter: "
                    "the parents are the split chunks, which get new ids"
                )
            parents = check_documents(
                "parent_splitter output", self.parent_splitter.split_documents(parents)
            )
        if ids is None:  # new keys, whatever Document.id says (as LangChain's)
            if not add_to_docstore:
                raise InvalidInputError(
                    "ParentDocumentRetriever.add_documents with add_to_docstore=False needs the "
                    "parents' ids= (the keys they are stored under)"
                )
            parent_ids = [str(uuid.uuid4()) for _ in parents]
        else:
            if isinstance(ids, str) or len(ids) != len(parents):
                size = "a str" if isinstance(ids, str) else f"{len(ids)} ids"
                raise InvalidInputError(
                    f"ParentDocumentRetriever.add_documents got {size} for {len(parents)} documents"
                )
            parent_ids = list(ids)
        bad = [i for i in parent_ids if not isinstance(i, str) or not i]
        repeated = [i for i, n in Counter(parent_ids).items() if n > 1]
        if bad or repeated:
            raise InvalidInputError(
                "ParentDocumentRetriever.add_documents needs unique non-empty str ids, got "
                f"{'empty or non-str ' + repr(bad[0]) if bad else 'repeated ' + repr(repeated[0])}"
            )
        stored = [
            (pid, Document(doc.page_content, dict(doc.metadata), doc.id))
            for pid, doc in zip(parent_ids, parents, strict=True)
        ]
        if add_to_docstore and getattr(self.docstore, "value_serializer", None) is document_to_json:
            for _, doc in stored:
                document_to_json(doc)  # metadata JSON cannot hold fails now, before any write
        children = []
        for parent_id, parent in stored:
            pieces = check_documents(
                "child_splitter output", self.child_splitter.split_documents([parent])
            )
            for number, child in enumerate(pieces):
                metadata = dict(child.metadata)
                if self.child_metadata_fields is not None:
                    metadata = {
                        k: v for k, v in metadata.items() if k in self.child_metadata_fields
                    }
                metadata[self.id_key] = parent_id
                children.append(Document(child.page_content, metadata, f"{parent_id}-{number}"))
        return stored, children

    def add_documents(
        self,
        documents: Sequence[Document],
        ids: Sequence[str] | None = None,
        add_to_docstore: bool = True,
    ) -> None:
        """Split documents into children, index the children and store the parents.

        Args:
            documents: the documents (the parents, or what ``parent_splitter`` cuts into them).
            ids: the docstore key of each parent (default: a new uuid4 each, as
                LangChain's; ``[d.id for d in documents]`` keys them by ``Document.id``,
                so adding them again replaces them). Not allowed with a
                ``parent_splitter``. The stored parents keep their own ``Document.id`` (as
                LangChain's do), whatever their key.
            add_to_docstore: False when the parents are already in the docstore (then
                ``ids`` must be given).

        Raises:
            InvalidInputError: bad documents or ids (wrong count, repeated, empty), ids
                with a parent_splitter, or parent metadata the docstore cannot hold as
                JSON. Nothing is written then.

        Example:
            >>> # retriever.add_documents(loader.load())
        """
        stored, children = self._prepare(documents, ids, add_to_docstore)
        if children:
            self.vectorstore.add_documents(children)
        if add_to_docstore and stored:
            self.docstore.mset(stored)

    async def aadd_documents(
        self,
        documents: Sequence[Document],
        ids: Sequence[str] | None = None,
        add_to_docstore: bool = True,
    ) -> None:
        """Async :meth:`add_documents`."""
        stored, children = self._prepare(documents, ids, add_to_docstore)
        if children:
            await self.vectorstore.aadd_documents(children)
        if add_to_docstore and stored:
            await self.docstore.amset(stored)

    # ---- search -----------------------------------------------------------------------
    def _parent_ids(self, children: list[Document]) -> list[str]:
        ids = (child.metadata.get(self.id_key) for child in children)
        return list(dict.fromkeys(i for i in ids if i is not None))

    def _get_relevant_documents(self, query: str) -> list[Document]:
        parent_ids = self._parent_ids(self._children_retriever.invoke(query))
        return [doc for doc in self.docstore.mget(parent_ids) if doc is not None]

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        parent_ids = self._parent_ids(await self._children_retriever.ainvoke(query))
        return [doc for doc in await self.docstore.amget(parent_ids) if doc is not None]

    # batch / abatch (ChildBatchRetriever): one child search and one docstore read in all
    def _parents_of(self, per_query: list[Any], found: dict[str, Document | None]) -> list[Any]:
        results: list[Any] = []
        for children in per_query:
            if isinstance(children, BaseException):
                results.append(children)
            else:
                parents = (found[i] for i in self._parent_ids(children))
                results.append(
                    [
                        Document(p.page_content, dict(p.metadata), p.id)
                        for p in parents
                        if p is not None
                    ]
                )
        return results

    def _ids_to_read(self, per_query: list[Any]) -> list[str]:
        ids = (self._parent_ids(c) for c in per_query if not isinstance(c, BaseException))
        return list(dict.fromkeys(i for group in ids for i in group))

    def _search_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        per_query = self._children_retriever.batch(queries, configs, return_exceptions=True)
        ids = self._ids_to_read(per_query)
        return self._parents_of(per_query, dict(zip(ids, self.docstore.mget(ids), strict=True)))

    async def _asearch_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        per_query = await self._children_retriever.abatch(queries, configs, return_exceptions=True)
        ids = self._ids_to_read(per_query)
        return self._parents_of(
            per_query, dict(zip(ids, await self.docstore.amget(ids), strict=True))
        )

"""LangChain's FAISS parts: ``InMemoryDocstore``, the store's ``docstore`` and
``index_to_docstore_id`` views, and taking over a faiss index built by the caller.

LangChain's ``FAISS`` keeps its documents in a docstore (a dict under ``_dict``, looked
up with ``search(id)``) and maps faiss positions to docstore ids. ragline's FAISS keeps
them itself (see :mod:`ragline.vectorstores.faiss._store`); these classes show them in
LangChain's shape, read-only, so a program that reads ``store.docstore._dict`` or
``store.index_to_docstore_id`` runs unchanged. Writes go through the store
(``add_documents``, ``delete``), which keeps faiss and the documents in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ragline.core import ConfigurationError, Document, InvalidInputError

if TYPE_CHECKING:
    from ragline.vectorstores.faiss._store import FAISS

__all__ = ["InMemoryDocstore", "StoreDocstore", "take_over"]


class InMemoryDocstore:
    """Documents by id in a dict (LangChain's ``InMemoryDocstore``).

    Args:
        _dict: the starting ``{id: Document}`` (copied); empty when omitted.

    Example:
        >>> docstore = InMemoryDocstore({"a": Document("x")})
        >>> docstore.search("a").page_content, docstore.search("b")
        ('x', 'ID b not found.')
    """

    def __init__(self, _dict: Mapping[str, Document] | None = None) -> None:
        self._dict: dict[str, Document] = dict(_dict or {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._dict)} documents)"

    def __len__(self) -> int:
        return len(self._dict)

    def add(self, texts: Mapping[str, Document]) -> None:
        """Add documents by id.

        Raises:
            InvalidInputError: an id is already held (named); nothing is added.
        """
        clash = sorted(set(texts) & set(self._dict))
        if clash:
            raise InvalidInputError(f"docstore already holds id(s) {clash[:5]}; delete them first")
        self._dict.update(texts)

    def delete(self, ids: list[str]) -> None:
        """Remove documents by id.

        Raises:
            InvalidInputError: an id is not held (named); nothing is removed.
        """
        missing = [doc_id for doc_id in ids if doc_id not in self._dict]
        if missing:
            raise InvalidInputError(f"docstore does not hold id(s) {missing[:5]}")
        for doc_id in ids:
            del self._dict[doc_id]

    def search(self, search: str) -> Document | str:
        """The document with this id, or LangChain's ``"ID <id> not found."`` string."""
        found = self._dict.get(search)
        return f"ID {search} not found." if found is None else found


class StoreDocstore(InMemoryDocstore):
    """A FAISS store's documents as LangChain's docstore: a live, read-only view.

    ``_dict`` is built on each access (fresh Documents, in the store's order), so it is
    for reading; ``add`` and ``delete`` refuse and name the store method to call.
    """

    def __init__(self, store: FAISS) -> None:  # no super(): _dict is a property here
        self._store = store

    @property
    def _dict(self) -> dict[str, Document]:  # type: ignore[override]
        return {document.id: document for document in self._store._all_documents()}  # type: ignore[misc]

    def __len__(self) -> int:
        return self._store.count()

    def search(self, search: str) -> Document | str:
        found = self._store.get_by_ids([search])
        return found[0] if found else f"ID {search} not found."

    def add(self, texts: Mapping[str, Document]) -> None:
        raise InvalidInputError(
            "a FAISS store's docstore is a view: add documents with store.add_documents "
            "(which also stores their vectors)"
        )

    def delete(self, ids: list[str]) -> None:
        raise InvalidInputError(
            "a FAISS store's docstore is a view: delete with store.delete(ids) (which also "
            "removes their vectors)"
        )


def take_over(store: FAISS, index: Any, docstore: Any, positions: Mapping[int, str]) -> None:
    """Fill a new store from LangChain's constructor arguments.

    The faiss ``index`` fixes the dimension (and, for a store built without
    ``distance_strategy`` / ``metric``, nothing else: LangChain's default strategy
    stays); the vectors it holds are read back (``reconstruct_n``) and added under the
    ids ``positions`` gives, with the documents ``docstore.search`` returns.

    Raises:
        ConfigurationError: the index is not a faiss index, or its metric disagrees with
            the store's, or a position has no id or its id no document.
    """
    if index is None:
        if positions:
            raise ConfigurationError("index_to_docstore_id given without an index")
        return
    dimension = getattr(index, "d", None)
    total = getattr(index, "ntotal", None)
    if not isinstance(dimension, int) or not isinstance(total, int):
        raise ConfigurationError(
            f"index must be a faiss index (faiss.IndexFlatL2(dimension) ...), got "
            f"{type(index).__name__}"
        )
    from ragline.vectorstores.faiss._index import LabeledIndex, faiss_module

    faiss = faiss_module()
    inner_product = getattr(index, "metric_type", faiss.METRIC_L2) == faiss.METRIC_INNER_PRODUCT
    if inner_product != (store.metric != "l2"):
        wanted = "MAX_INNER_PRODUCT" if inner_product else "EUCLIDEAN_DISTANCE or COSINE"
        raise ConfigurationError(
            f"the index scores by {'inner product' if inner_product else 'L2 distance'} but "
            f"the store was built for {store.distance_strategy or store.metric!r}; pass "
            f"distance_strategy={wanted}"
        )
    store._index = LabeledIndex(dimension, store._options)
    if total == 0:
        return
    if docstore is None:
        raise ConfigurationError("an index holding vectors needs the docstore of their documents")
    ids, documents = [], []
    for position in range(total):
        doc_id = positions.get(position)
        if doc_id is None:
            raise ConfigurationError(f"index_to_docstore_id has no id for position {position}")
        found = docstore.search(doc_id)
        if not isinstance(found, Document) and not hasattr(found, "page_content"):
            raise ConfigurationError(f"docstore has no document for id {doc_id!r}: {found!r}")
        ids.append(str(doc_id))
        documents.append(found)
    vectors = np.ascontiguousarray(index.reconstruct_n(0, total), dtype=np.float32)
    store._upsert(
        ids,
        vectors,
        [document.page_content for document in documents],
        [dict(document.metadata) for document in documents],
    )

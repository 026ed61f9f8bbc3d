"""Document stores for the parent-document retriever: in memory, or JSON over a byte store.

``InMemoryDocumentStore`` keeps copies of Documents in a dict. ``create_kv_docstore``
wraps any byte store (``InMemoryByteStore``, ``LocalFileStore``, ``RedisStore`` ...) in an
``EncoderBackedStore`` (as LangChain's does) so it holds Documents as JSON (never
pickle), written as LangChain's ``create_kv_docstore`` writes them (its ``dumps`` form,
``{"lc": 1, "type": "constructor", ...}``), so either library reads a store the other
wrote; the plain ``{"page_content": ..., "metadata": ..., "id": ...}`` that earlier
ragline versions wrote is still read. Every document of an ``mset`` is encoded before
anything is written, so one document whose metadata is not JSON leaves the store
untouched.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ragline.core import BaseStore, Document, InvalidInputError
from ragline.core.stores import EncoderBackedStore, InMemoryStore

__all__ = [
    "InMemoryDocumentStore",
    "create_kv_docstore",
    "document_from_json",
    "document_to_json",
]


def document_to_json(document: Document) -> bytes:
    """Encode a Document as UTF-8 JSON.

    Raises:
        InvalidInputError: the metadata holds a value JSON cannot represent.

    Example:
        >>> document_to_json(Document("hi", id="d1"))  # doctest: +NORMALIZE_WHITESPACE
        b'{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
          "kwargs": {"id": "d1", "page_content": "hi", "type": "Document"}}'
    """
    from ragline.core.load import dumps

    if not isinstance(document, Document):
        raise InvalidInputError(
            f"a document store holds Document values, got {type(document).__name__}"
        )
    try:  # strict JSON: LangChain's dumps would write such values as not_implemented
        json.dumps(document.metadata, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(
            f"cannot store {document!r}: its metadata is not JSON-serializable ({err})"
        ) from err
    return dumps(document).encode("utf-8")


def document_from_json(data: bytes) -> Document:
    """Decode what :func:`document_to_json` (or LangChain's ``create_kv_docstore``) wrote,
    or the plain form earlier ragline versions wrote.

    Raises:
        InvalidInputError: the bytes are not such a JSON document.
    """
    from ragline.core.load import load

    try:
        value = json.loads(data)
        if isinstance(value, dict) and value.get("lc") == 1:
            document = load(value)
            if not isinstance(document, Document):
                raise TypeError(type(document).__name__)
            return document
        return Document(value["page_content"], dict(value["metadata"]), value["id"])
    except (ValueError, KeyError, TypeError) as err:
        raise InvalidInputError(f"stored value is not a JSON Document: {data[:60]!r}") from err


class InMemoryDocumentStore(BaseStore[str, Document]):
    """Documents in a dict (copies go in and come out, so callers cannot alter the store).

    Example:
        >>> store = InMemoryDocumentStore()
        >>> store.mset([("p1", Document("parent text"))])
        >>> store.mget(["p1", "nope"])
        [Document(metadata={}, page_content='parent text'), None]
    """

    def __init__(self) -> None:
        self._data: dict[str, Document] = {}
        self._lock = threading.Lock()

    def mget(self, keys: Sequence[str]) -> list[Document | None]:
        with self._lock:
            found = [self._data.get(key) for key in keys]
        return [
            None if d is None else Document(d.page_content, dict(d.metadata), d.id) for d in found
        ]

    def mset(self, key_value_pairs: Sequence[tuple[str, Document]]) -> None:
        checked = []
        for key, value in key_value_pairs:
            if not isinstance(key, str) or not isinstance(value, Document):
                raise InvalidInputError(
                    f"InMemoryDocumentStore takes (str, Document) pairs, got "
                    f"({type(key).__name__}, {type(value).__name__})"
                )
            checked.append((key, Document(value.page_content, dict(value.metadata), value.id)))
        with self._lock:
            self._data.update(checked)

    def mdelete(self, keys: Sequence[str]) -> None:
        with self._lock:
            for key in keys:
                self._data.pop(key, None)

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        with self._lock:
            keys = list(self._data)
        return iter([key for key in keys if prefix is None or key.startswith(prefix)])


def _same_key(key: str) -> str:
    return key


def create_kv_docstore(store: BaseStore[str, bytes]) -> EncoderBackedStore[str, Document]:
    """Wrap a byte store so it stores Documents as JSON, as LangChain's does.

    Args:
        store: any ``BaseStore`` of bytes.

    Returns:
        An ``EncoderBackedStore`` of Documents writing through to ``store`` (keys as they
        are), as LangChain's function returns.

    Raises:
        InvalidInputError: ``store`` is not a BaseStore.

    Example:
        >>> from ragline.core import InMemoryByteStore
        >>> raw = InMemoryByteStore()
        >>> docs = create_kv_docstore(raw)
        >>> docs.mset([("p1", Document("text", {"n": 1}))])
        >>> raw.mget(["p1"])  # doctest: +NORMALIZE_WHITESPACE
        [b'{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
           "kwargs": {"metadata": {"n": 1}, "page_content": "text", "type": "Document"}}']
        >>> docs.mget(["p1"])
        [Document(metadata={'n': 1}, page_content='text')]
    """
    if not isinstance(store, BaseStore):
        raise InvalidInputError(
            f"create_kv_docstore needs a BaseStore of bytes, got {type(store).__name__}"
        )
    return EncoderBackedStore(store, _same_key, document_to_json, document_from_json)


def as_document_store(docstore: Any) -> BaseStore[str, Document]:
    """A document store as is; any other BaseStore is taken to hold bytes and wrapped."""
    if isinstance(docstore, (InMemoryDocumentStore, EncoderBackedStore, InMemoryStore)):
        # InMemoryStore holds any value: the documents themselves, as in LangChain; an
        # EncoderBackedStore (create_kv_docstore's) encodes them itself
        return docstore  # type: ignore[return-value]
    if isinstance(docstore, BaseStore):
        return create_kv_docstore(docstore)
    raise InvalidInputError(
        "docstore must be an InMemoryDocumentStore or a BaseStore of bytes (InMemoryByteStore, "
        f"LocalFileStore ...), got {type(docstore).__name__}"
    )

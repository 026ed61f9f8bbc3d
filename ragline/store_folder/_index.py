"""index_paths: what ``ragline index`` does, as a function."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from ragline.core import InvalidInputError
from ragline.indexing import IndexingResult
from ragline.store_folder._corpus import SkippedFile, load_paths, split_documents
from ragline.store_folder._folder import FolderWriter, StoreFolder
from ragline.store_folder._manifest import JSONValue
from ragline.store_folder._progress import IndexProgress

__all__ = ["FolderIndexingResult", "index_paths"]


class FolderIndexingResult(IndexingResult):
    """What :func:`index_paths` did: ``index()``'s counts, plus what it read and skipped."""

    documents: int
    """Documents loaded in this run (a PDF page or a CSV row is one document)."""
    chunks: int
    """Chunks those documents were split into."""
    skipped_files: list[SkippedFile]
    """Files not indexed (binary, undecodable, unparsable), with the reason."""
    stored_chunks: int
    """Chunks the store holds after the run."""


def index_paths(
    paths: Sequence[str | os.PathLike[str]],
    folder: str | os.PathLike[str] | StoreFolder,
    *,
    glob: str = "**/*",
    embedding: str | None = None,
    embedding_options: dict[str, JSONValue] | None = None,
    chunk_size: int | None = None,
    chunk_overlap: int | None = None,
    cleanup: Literal["incremental", "full"] = "incremental",
    encoding: str | None = None,
    autodetect_encoding: bool = False,
    strict: bool = False,
    show_progress: bool = False,
    note: Callable[[str], None] | None = None,
) -> FolderIndexingResult:
    """Load, split, embed and store files into a store folder, re-embedding only what changed.

    Chunk ids are content hashes kept with their source file in the folder's records,
    so a re-run embeds only new or changed chunks and deletes the stale chunks of the
    files it was given (``cleanup="full"``: also of files no longer given).

    Args:
        paths: files and folders to index (folders through ``glob``).
        folder: the store folder (created on the first run).
        glob: the pattern for files inside folders.
        embedding: the embedding name; default: the store's, else ``"minilm"``.
        embedding_options: options for a new store's embedding.
        chunk_size, chunk_overlap: the splitter's settings; default: the store's, else
            1000 and 150.
        cleanup: ``"incremental"`` or ``"full"``.
        encoding, autodetect_encoding: how text files are decoded (see
            :class:`~ragline.loaders.TextLoader`).
        strict: fail on a file that cannot be read instead of skipping it.
        show_progress: one progress bar for the run (files loaded, then chunks embedded,
            with rate and time left); without it, ``note`` gets a summary line instead.
        note: called with one-line progress notes ("loaded 4 documents ...").

    Returns:
        ``index()``'s counts plus the run's documents, chunks and skipped files.

    Raises:
        InvalidInputError: a missing path, bad chunk settings, or no documents found.
        ConfigurationError: another embedding than the store was built with.
        MissingDependencyError: a needed extra is missing (before anything is written).
        LoaderError: with ``strict``, a file that cannot be read.
        PersistenceError: the store cannot be read or written.

    Example:
        >>> result = index_paths(["docs/"], "my-store", embedding="hashing")  # doctest: +SKIP
        >>> result["num_added"]  # doctest: +SKIP
        12
    """
    store_folder = folder if isinstance(folder, StoreFolder) else StoreFolder(folder)
    writer = store_folder.writer(
        embedding=embedding,
        embedding_options=embedding_options,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
    )
    size, overlap = writer.manifest.chunk_size, writer.manifest.chunk_overlap
    if size <= 0 or not 0 <= overlap < size:
        raise InvalidInputError(f"need 0 <= chunk_overlap < chunk_size, got {overlap} and {size}")
    # absolute paths: the chunks' source must not depend on the directory we run from
    absolute = [Path(path).absolute() for path in paths]
    progress = IndexProgress(bar=show_progress, note=note)
    try:
        return _index(
            absolute,
            paths,
            glob,
            writer,
            cleanup,
            progress,
            encoding=encoding,
            autodetect_encoding=autodetect_encoding,
            strict=strict,
        )
    finally:
        progress.close()


def _index(
    absolute: list[Path],
    paths: Sequence[str | os.PathLike[str]],
    glob: str,
    writer: FolderWriter,
    cleanup: Literal["incremental", "full"],
    progress: IndexProgress,
    **loading: Any,
) -> FolderIndexingResult:
    size, overlap = writer.manifest.chunk_size, writer.manifest.chunk_overlap
    corpus = load_paths(absolute, glob=glob, progress=progress, **loading)
    if not corpus.documents:
        given = ", ".join(os.fspath(path) for path in paths)
        unread = ""
        if corpus.skipped:
            first = corpus.skipped[0]
            unread = (
                f" ({len(corpus.skipped)} could not be read, e.g. {first.path}: {first.reason})"
            )
        raise InvalidInputError(f"no documents found under {given} matching {glob!r}{unread}")
    chunks = split_documents(corpus.documents, chunk_size=size, chunk_overlap=overlap)
    progress.split(len(corpus.documents), len(chunks))
    writer.embeddings = progress.watch(writer.embeddings)
    with writer:
        result = writer.index(chunks, cleanup=cleanup)
        stored = writer.store.count() if writer.store is not None else 0
    progress.finish(skipped=result["num_skipped"])
    return FolderIndexingResult(
        **result,
        documents=len(corpus.documents),
        chunks=len(chunks),
        skipped_files=corpus.skipped,
        stored_chunks=stored,
    )

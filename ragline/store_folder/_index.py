"""index_paths: what ``ragline index`` does, as a function."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from ragline.core import InvalidInputError
from ragline.indexing import IndexingResult
from ragline.store_folder._corpus import SkippedFile, load_paths, split_documents
from ragline.store_folder._folder import DEFAULT_CHECKPOINT_SECONDS, FolderWriter, StoreFolder
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
    rebuild: bool = False,
    artifacts: Sequence[str] = (),
    wait: float = 0.0,
    checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
    stop: threading.Event | None = None,
    show_progress: bool = False,
    note: Callable[[str], None] | None = None,
) -> FolderIndexingResult:
    """Load, split, embed and store files into a store folder, re-embedding only what changed.

    Chunk ids are content hashes kept with their source file in the folder's records,
    so a re-run embeds only new or changed chunks and deletes the stale chunks of the
    files it was given (``cleanup="full"``: also of files no longer given). The run
    holds the folder's writer lock, commits checkpoints as it goes and its result at the
    end (see :class:`~ragline.store_folder.StoreFolder`): killed at any point, the folder
    keeps its last commit, and running the same call again finishes the job.

    Args:
        paths: files and folders to index (folders through ``glob``).
        folder: the store folder (created on the first run).
        glob: the pattern for files inside folders.
        embedding: the embedding name; default: the store's, else ``"minilm"``.
        embedding_options: options for a new store's embedding.
        chunk_size, chunk_overlap: the splitter's settings; default: the store's, else
            1000 and 150. A change is reported through ``note``.
        cleanup: ``"incremental"`` or ``"full"``.
        encoding, autodetect_encoding: how text files are decoded (see
            :class:`~ragline.loaders.TextLoader`).
        strict: fail on a file that cannot be read instead of skipping it.
        rebuild: start from an empty store (replaces a corrupted one at the end).
        artifacts: artifact names the store keeps from now on.
        wait: seconds to wait for another writer of the folder (0: fail at once).
        checkpoint_seconds: commit what is done every this many seconds of indexing.
        stop: when set (e.g. from a signal handler), the run stops at the next file or
            batch boundary, commits what it did and raises ``IndexingInterrupted``.
        show_progress: one progress bar for the run (files loaded, then chunks embedded,
            with rate and time left); without it, ``note`` gets a summary line instead.
        note: called with one-line notes (what was loaded, settings that change).

    Returns:
        ``index()``'s counts plus the run's documents, chunks and skipped files.

    Raises:
        InvalidInputError: a missing path, a store path that is a file, bad chunk
            settings, or no documents found.
        ConfigurationError: another embedding than the store was built with.
        MissingDependencyError: a needed extra is missing (before anything is written).
        StoreLockedError: another process writes the folder (names it).
        IndexingInterrupted: ``stop`` was set; what was done is committed.
        LoaderError: with ``strict``, a file that cannot be read.
        PersistenceError: the store cannot be read (says how to rebuild) or written.

    Example:
        >>> result = index_paths(["docs/"], "my-store", embedding="hashing")  # doctest: +SKIP
        >>> result["num_added"]  # doctest: +SKIP
        12
    """
    store_folder = folder if isinstance(folder, StoreFolder) else StoreFolder(folder)
    # absolute paths: the chunks' source must not depend on the directory we run from
    absolute = [Path(path).absolute() for path in paths]
    for given, path in zip(paths, absolute, strict=True):
        if not path.exists():  # before the folder is created or locked
            raise InvalidInputError(f"{os.fspath(given)}: no such file or directory")
    writer = store_folder.writer(
        embedding=embedding,
        embedding_options=embedding_options,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        artifacts=artifacts,
        rebuild=rebuild,
        wait=wait,
        checkpoint_seconds=checkpoint_seconds,
        stop=stop,
    )
    progress = IndexProgress(bar=show_progress, note=note)
    writer.embeddings = progress.watch(writer.embeddings)
    try:
        with writer:
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
                stop=stop,
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
    """The run, inside the writer (locked, the store loaded)."""
    size, overlap = writer.manifest.chunk_size, writer.manifest.chunk_overlap
    if size <= 0 or not 0 <= overlap < size:
        raise InvalidInputError(f"need 0 <= chunk_overlap < chunk_size, got {overlap} and {size}")
    for change in writer.changes:
        progress.note(change)
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
    result = writer.index(chunks, cleanup=cleanup)
    progress.finish(skipped=result["num_skipped"])
    return FolderIndexingResult(
        **result,
        documents=len(corpus.documents),
        chunks=len(chunks),
        skipped_files=corpus.skipped,
        stored_chunks=writer.store.count() if writer.store is not None else 0,
    )

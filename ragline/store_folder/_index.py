"""index_paths: what ``ragline index`` does, as a function."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ragline.core import Document, InvalidInputError
from ragline.indexing import IndexingResult
from ragline.indexing.api import hash_document
from ragline.retrievers import BM25Tokenizer
from ragline.store_folder import _text_index
from ragline.store_folder._ahead import EmbedAhead
from ragline.store_folder._corpus import (
    Corpus,
    FileLoader,
    SkippedFile,
    file_items,
    read_files,
    skip_reason,
    split_documents,
)
from ragline.store_folder._embeddings import make_embeddings
from ragline.store_folder._folder import DEFAULT_CHECKPOINT_SECONDS, StoreFolder
from ragline.store_folder._manifest import JSONValue
from ragline.store_folder._progress import IndexProgress
from ragline.store_folder._search import tokenizer_options
from ragline.store_folder._writer import FolderWriter

if TYPE_CHECKING:
    from ragline.indexing import RayEngine

__all__ = ["FolderIndexingResult", "index_paths"]

# texts of the embedding thread's first call, where its blocks are larger (a GPU's 4,096):
# a full first block waited for about a quarter of a standard-library corpus to be read
# and split (0.12-0.25 s) while the GPU sat idle
FIRST_BLOCK = 512
# chunks per embedding call on a GPU
GPU_BLOCK = 4_096
# Beside a GPU, on a machine with at least this many cores, files are split, hashed and
# their keyword rows tokenized by worker processes while the main thread reads files and
# writes what the model embedded (issue 25: a GPU embeds ~14,000 chunks/s, and on the main
# thread that work was about 60 of 130 us per chunk, which threads would not overlap
# under the GIL). Not on a CPU (the model uses every core) nor on a few cores.
WORKER_CPUS = 8
MAX_WORKERS = 8
# how often a worker checks that the run's process is still there (see _worker_started)
PARENT_CHECK_SECONDS = 0.5


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
    keyword_tokenizer: BM25Tokenizer | None = None,
    wait: float = 0.0,
    checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
    stop: threading.Event | None = None,
    show_progress: bool = False,
    progress_lines: bool = False,
    note: Callable[[str], None] | None = None,
    engine: RayEngine | None = None,
    index: str | None = None,
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
        keyword_tokenizer: the keyword index's tokenizer (default: the store's, else
            plain word tokens); a change is reported through ``note``.
        wait: seconds to wait for another writer of the folder (0: fail at once).
        checkpoint_seconds: commit what is done every this many seconds of indexing.
        stop: when set (e.g. from a signal handler), the run stops at the next file or
            batch boundary, commits what it did and raises ``IndexingInterrupted``.
        show_progress: one progress bar for the run (files loaded, then chunks embedded,
            with rate and time left); without it, ``note`` gets a summary line instead.
        progress_lines: without a bar, also a line through ``note`` every few seconds
            (files loaded; chunks embedded of the total, rate, time left).
        note: called with one-line notes (what was loaded, settings that change).
        engine: a :class:`~ragline.indexing.RayEngine` to read, split and embed on a Ray
            cluster (the store, records and commits stay in this process); ``None``:
            everything in this process. Its ``embeddings`` and ``progress`` are the
            folder's. It stays connected (``with RayEngine() as engine:`` disconnects).
        index: the faiss index kind (``auto``, ``flat``, ``hnsw``, ``ivf-pq``,
            ``ivf-sq8``; see :meth:`StoreFolder.writer`); default: the store's, else
            auto. A rebuild into another kind is reported through ``note``, with progress.

    Returns:
        ``index()``'s counts plus the run's documents, chunks and skipped files.

    Raises:
        InvalidInputError: a missing path, a store path that is a file, bad chunk
            settings, or no documents found.
        ConfigurationError: another embedding than the store was built with.
        MissingDependencyError: a needed extra is missing (before anything is written).
        StoreConnectionError: the engine's Ray cluster cannot be reached.
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
    if engine is not None:
        engine.connect()  # a cluster that cannot be reached fails before the folder is touched
    writer = store_folder.writer(
        embedding=embedding,
        embedding_options=embedding_options,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        artifacts=artifacts,
        keyword_tokenizer=keyword_tokenizer,
        rebuild=rebuild,
        wait=wait,
        checkpoint_seconds=checkpoint_seconds,
        stop=stop,
        index=index,
    )
    progress = IndexProgress(bar=show_progress, note=note, lines=progress_lines)
    writer.note = progress.note  # index rebuilds (a store outgrowing its flat index)
    if engine is None:
        progress.started(writer.embeddings)
    writer.embeddings = progress.watch(writer.embeddings)
    ahead = None
    if engine is None:  # the model embeds on a thread while index() does the rest
        ahead = writer.embeddings = EmbedAhead(
            writer.embeddings, block=_batch_size(writer), first_block=FIRST_BLOCK
        )
        writer.embedding_left = ahead.time_left
        writer.embedding_waited = ahead.caller_waited
    try:
        with writer:
            if engine is not None:
                return _index_on_ray(
                    absolute, paths, glob, writer, cleanup, progress, engine,
                    loader=FileLoader(encoding=encoding, autodetect_encoding=autodetect_encoding),
                    strict=strict,
                )  # fmt: skip
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
        if ahead is not None:
            ahead.close()
        progress.close()


def _chunk_settings(writer: FolderWriter, progress: IndexProgress) -> tuple[int, int]:
    size, overlap = writer.manifest.chunk_size, writer.manifest.chunk_overlap
    if size <= 0 or not 0 <= overlap < size:
        raise InvalidInputError(f"need 0 <= chunk_overlap < chunk_size, got {overlap} and {size}")
    for change in writer.changes:
        progress.note(change)
    return size, overlap


def _nothing_found(
    paths: Sequence[str | os.PathLike[str]], glob: str, skipped: list[SkippedFile]
) -> InvalidInputError:
    given = ", ".join(os.fspath(path) for path in paths)
    unread = ""
    if skipped:
        first = skipped[0]
        unread = f" ({len(skipped)} could not be read, e.g. {first.path}: {first.reason})"
    return InvalidInputError(f"no documents found under {given} matching {glob!r}{unread}")


def _index(
    absolute: list[Path],
    paths: Sequence[str | os.PathLike[str]],
    glob: str,
    writer: FolderWriter,
    cleanup: Literal["incremental", "full"],
    progress: IndexProgress,
    **loading: Any,
) -> FolderIndexingResult:
    """The run, inside the writer (locked, the store loaded).

    Files are read, split and hashed a group at a time, and each group's new chunks are
    handed to the embedding thread at once (``EmbedAhead.plan``), so the model embeds the
    first files while the rest are read; ``index()`` runs once every file is read.
    """
    size, overlap = _chunk_settings(writer, progress)
    ahead = writer.embeddings if isinstance(writer.embeddings, EmbedAhead) else None
    batch = _batch_size(writer)
    corpus = Corpus()
    keys = _Keys()
    group: list[Document] = []  # documents read since the last group was planned
    characters = 0
    # about the thread's first block of chunks per group: its blocks grow from that, and
    # each is taken as soon as enough is planned (groups of a full block, 4,096 chunks on a
    # GPU, left it idle while the second group was read, split and hashed)
    block = min(batch, FIRST_BLOCK)
    planner = _Planner(writer, ahead, keys, size, overlap, _worker_count(batch, ahead))
    try:
        for loaded in read_files(absolute, corpus, glob=glob, progress=progress, **loading):
            corpus.documents.extend(loaded)
            group.extend(loaded)
            characters += sum(len(document.page_content) for document in loaded)
            if characters >= block * size:
                planner.plan(group, last=False)
                group, characters = [], 0
        planner.plan(group, last=True)
    finally:
        planner.close()
    if not corpus.documents:
        raise _nothing_found(paths, glob, corpus.skipped)
    chunks = keys.chunks
    progress.split(len(corpus.documents), len(chunks))
    result = writer.index(chunks, cleanup=cleanup, batch_size=batch, keys=keys)
    progress.finish(skipped=result["num_skipped"])
    return FolderIndexingResult(
        **result,
        documents=len(corpus.documents),
        chunks=len(chunks),
        skipped_files=corpus.skipped,
        stored_chunks=writer.store.count() if writer.store is not None else 0,
    )


def _plan(
    writer: FolderWriter,
    ahead: EmbedAhead | None,
    keys: _Keys,
    documents: list[Document],
    size: int,
    overlap: int,
    *,
    last: bool,
) -> None:
    """Split and hash ``documents``; hand the chunks whose keys are not recorded to the
    embedding thread (``last``: the final group), then have the writer compute their
    keyword-index rows while the thread embeds (``FolderWriter.expect``)."""
    chunks = split_documents(documents, chunk_size=size, chunk_overlap=overlap)
    _planned(writer, ahead, chunks, keys.add(chunks), None, last=last)


def _planned(
    writer: FolderWriter,
    ahead: EmbedAhead | None,
    chunks: list[Document],
    keys: list[str],
    rows: _text_index.LocalRows | None,
    *,
    last: bool,
) -> None:
    """:func:`_plan` once ``chunks`` are split and hashed (``keys``); ``rows``: the keyword
    rows of every chunk, when a worker computed them."""
    if ahead is not None:
        new_keys, texts = _to_embed(writer, chunks, keys)
        ahead.plan(texts, last=last)
        if rows is not None and len(new_keys) == len(chunks):
            writer.expect(new_keys, texts, rows)
        else:  # rows of every chunk, some not added: they would not be these texts'
            writer.expect(new_keys, texts)


def _worker_count(batch: int, ahead: EmbedAhead | None) -> int:
    """Worker processes for :class:`_Planner`: none unless the model embeds a GPU's blocks
    ahead, the machine has :data:`WORKER_CPUS` cores or more and can fork."""
    cpus = _cpu_count()
    if ahead is None or batch < GPU_BLOCK or cpus < WORKER_CPUS:
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():  # Windows: none
        return 0
    return max(1, min(MAX_WORKERS, cpus // 2))


def _cpu_count() -> int:
    """The CPUs this process may run on (a container's or a job's cpuset, not the
    host's: 8 workers on 2 pinned cores of a large host would compete with the run).
    A CFS quota (``docker --cpus``) is not seen."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counted is not None:
        return int(counted() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _split_group(
    documents: list[Document], size: int, overlap: int, tokenizer: dict[str, Any]
) -> tuple[list[Document], list[str], _text_index.LocalRows]:
    """A worker process's part of :func:`_plan`: the chunks of ``documents``, their keys
    and their keyword rows (numbered from an empty vocabulary)."""
    chunks = split_documents(documents, chunk_size=size, chunk_overlap=overlap)
    keys = [hash_document(chunk, "sha256") for chunk in chunks]
    texts = [chunk.page_content for chunk in chunks]
    return chunks, keys, _text_index.local_rows(texts, BM25Tokenizer.from_dict(tokenizer))


def _worker_started(parent: int) -> None:
    """A worker ignores Ctrl-C (the run stops it: the main process handles the signal),
    and ends once the run's process ``parent`` is gone: killed (``kill -9``, the OOM
    killer), it could not stop its workers, and one waiting on the pool's queue (whose
    write end it inherited) would wait forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the run's own SIGTERM handler (ragline index stops after the current batch) is not
    # the worker's: told to terminate, it ends (the pool breaks, the run splits the rest)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watch = threading.Thread(
        target=_exit_with, args=(parent,), name="ragline-split-worker-watch", daemon=True
    )
    watch.start()


def _exit_with(parent: int) -> None:
    """End this process when its parent is no longer ``parent`` (it died)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def _ready() -> None:
    """The task that tells a worker has started."""


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Shut down a pool whose start failed part way (a fork refused after others were
    made): its workers never get the pool's stop, and the interpreter would wait for
    them at exit, forever; they are killed here (no task was sent to them). Not
    SIGTERM: a worker that has not run its initializer yet still has the run's handler
    (ragline index's stop), would carry on, and the join would wait forever."""
    forked = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in forked:
        process.kill()
        process.join()


class _Planner:
    """Plans the groups of files of a run, in order (see :func:`_plan`): on this thread,
    or, with ``workers``, split, hashed and tokenized by that many worker processes.

    The workers are forked before the embedding thread starts. The first group is
    planned here, so the model starts on it at once (a worker's answer came 0.4 s later
    on a loaded machine), and so is every group until a worker has answered; after that
    each group goes to them, and their results are handed on in order as they come,
    between the files this thread reads. A group a worker failed on (or a pool that
    broke) is planned here, so its error is the one this thread would raise. What is
    planned, stored and written is the same either way: only where the work runs differs.
    """

    def __init__(
        self,
        writer: FolderWriter,
        ahead: EmbedAhead | None,
        keys: _Keys,
        size: int,
        overlap: int,
        workers: int,
    ) -> None:
        self.writer, self.ahead, self.keys = writer, ahead, keys
        self.size, self.overlap = size, overlap
        self.pool: ProcessPoolExecutor | None = None
        self.warm: Future[None] | None = None
        # groups sent to the workers, in order: (their result, the documents, last)
        self.pending: deque[tuple[Future[Any], list[Document], bool]] = deque()
        self.tokenizer = tokenizer_options(writer.manifest.extras)
        self.first = True  # no group planned yet
        if workers:
            context = multiprocessing.get_context("fork")
            pool = ProcessPoolExecutor(
                workers, mp_context=context, initializer=_worker_started,
                initargs=(os.getpid(),),
            )  # fmt: skip
            try:
                self.warm = pool.submit(_ready)  # forks the workers now
            except (OSError, RuntimeError):  # cannot fork here: this thread plans every group
                _abandon(pool)
            else:
                self.pool = pool

    def plan(self, documents: list[Document], *, last: bool) -> None:
        """Plan ``documents`` after every group before them (``last``: the run's last)."""
        pool = self.pool
        ready = self.warm is not None and self.warm.done() and not self.first
        if pool is not None and ready and documents:
            try:
                future = pool.submit(
                    _split_group, documents, self.size, self.overlap, self.tokenizer
                )
            except RuntimeError:  # the pool broke (a worker was killed): plan here from now
                self.close()
                self.pool = None
            else:
                self.pending.append((future, documents, last))
                self._hand_on(wait=last)
                return
        self._hand_on(wait=True)
        _plan(self.writer, self.ahead, self.keys, documents, self.size, self.overlap, last=last)
        self.first = self.first and not documents

    def _hand_on(self, *, wait: bool) -> None:
        """Plan the workers' results that are ready, in order (``wait``: all of them)."""
        while self.pending and (wait or self.pending[0][0].done()):
            future, documents, last = self.pending.popleft()
            try:
                chunks, keys, rows = future.result()
            except Exception:  # the worker's error (or a broken pool): this thread's own
                _plan(self.writer, self.ahead, self.keys, documents, self.size, self.overlap,
                      last=last)  # fmt: skip
                continue
            _planned(self.writer, self.ahead, chunks, self.keys.add(chunks, keys), rows,
                     last=last)  # fmt: skip

    def close(self) -> None:
        """Stop the workers (at the end of the run, or on its error)."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


class _Keys:
    """The chunks' keys (``index()``'s: a sha256 of content and metadata), each computed
    once for the embed-ahead plan and ``index()`` both; a document that is not one of
    the chunks is hashed on the spot."""

    def __init__(self) -> None:
        self.chunks: list[Document] = []  # kept alive, so the ids below stay theirs
        self._by_id: dict[int, str] = {}

    def add(self, chunks: Sequence[Document], keys: list[str] | None = None) -> list[str]:
        """Hash ``chunks`` (appended to :attr:`chunks`); their keys (``keys``: computed
        already, by a worker process)."""
        if keys is None:
            keys = [hash_document(chunk, "sha256") for chunk in chunks]
        self.chunks.extend(chunks)
        self._by_id.update(zip(map(id, chunks), keys, strict=True))
        return keys

    def __call__(self, document: Document) -> str:
        key = self._by_id.get(id(document))
        return key if key is not None else hash_document(document, "sha256")


def _to_embed(
    writer: FolderWriter, chunks: list[Document], keys: list[str]
) -> tuple[list[str], list[str]]:
    """The keys and texts of the chunks ``writer.index`` will embed: those whose keys are
    not recorded."""
    if writer.records is None or not chunks:
        return [], []
    recorded = writer.records.exists(keys)
    new = [
        (key, chunk.page_content)
        for chunk, key, known in zip(chunks, keys, recorded, strict=True)
        if not known
    ]
    return [key for key, _ in new], [text for _, text in new]


def _batch_size(writer: FolderWriter) -> int:
    """Chunks embedded per call: a GPU needs thousands at once to be busy; elsewhere 100
    keeps checkpoints and Ctrl-C prompt."""
    where = getattr(writer.embeddings, "describe_device", None)
    return GPU_BLOCK if callable(where) and "cuda" in where() else 100


class _RayReport:
    """The engine's progress: the run's own, plus the files the workers skipped."""

    def __init__(self, progress: IndexProgress) -> None:
        self.progress = progress
        self.skipped: list[SkippedFile] = []
        self.chunks = 0

    def loaded(self, item: Any, documents: int, error: str | None) -> None:
        if error:
            self.skipped.append(SkippedFile(item[0], skip_reason(error, item[0])))
        self.progress.loaded(item, documents, error)

    def add_embedded(self, count: int, seconds: float) -> None:
        self.progress.add_embedded(count, seconds)

    def add_written(self, count: int) -> None:
        self.progress.add_written(count)

    def counted(
        self, chunks: Iterable[Document], nothing: Callable[[], Exception]
    ) -> Iterator[Document]:
        """The chunks, counted; none at all raises ``nothing()`` before index() cleans up
        (a full cleanup after an empty read would empty the store)."""
        for chunk in chunks:
            self.chunks += 1
            yield chunk
        if not self.chunks and not self.progress.documents:
            raise nothing()


def _index_on_ray(
    absolute: list[Path],
    paths: Sequence[str | os.PathLike[str]],
    glob: str,
    writer: FolderWriter,
    cleanup: Literal["incremental", "full"],
    progress: IndexProgress,
    engine: RayEngine,
    *,
    loader: FileLoader,
    strict: bool,
) -> FolderIndexingResult:
    """The run with files read, split and embedded by Ray workers (the writer is here)."""
    size, overlap = _chunk_settings(writer, progress)
    report = _RayReport(progress)
    manifest = writer.manifest
    engine = engine.replace(
        embeddings=functools.partial(
            make_embeddings, manifest.embedding, dict(manifest.embedding_options)
        ),
        progress=report,
    )
    items = file_items(absolute, glob)
    progress.distributed(len(items), engine.worker_count())
    dataset = engine.chunks(
        items, load=loader, strict=strict,
        split=functools.partial(split_documents, chunk_size=size, chunk_overlap=overlap),
    )  # fmt: skip
    chunks = report.counted(
        engine.documents(dataset), lambda: _nothing_found(paths, glob, report.skipped)
    )
    result = writer.index(chunks, cleanup=cleanup, engine=engine)
    progress.chunks = report.chunks
    progress.finish(skipped=result["num_skipped"])
    return FolderIndexingResult(
        **result,
        documents=progress.documents,
        chunks=report.chunks,
        skipped_files=report.skipped,
        stored_chunks=writer.store.count() if writer.store is not None else 0,
    )

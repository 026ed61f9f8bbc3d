"""StoreFolder: open a store folder for reading, or for one run of writes.

Layout (names relative to the folder)::

    ragline.json          the manifest; "generation" names the committed generation
    gen-<16 hex>/         the committed generation:
        faiss/            the FAISS store (FAISS.save_local)
        records.sqlite    each chunk's key, source and time (SQLRecordManager; one file)
        bm25.json, bm25.npz   the keyword index over the stored chunks (_text_index.py)
        <artifact>        each artifact the manifest lists
    ragline.lock          the writer lock (see _lock.py)
    chat.sqlite           conversations of ``ragline chat`` (SQLChatMessageHistory): a
                          file of the folder's own, outside generations, never touched by
                          index runs

A writer takes the lock, reads the committed generation into memory (the store, and the
records into an in-memory SQLite database), and commits by writing a NEW generation
folder under a fresh random name and then replacing ``ragline.json`` (a rename: the
commit point), after which the previous generation is removed. So the folder always
holds exactly one complete, consistent generation: a writer killed at any moment leaves
the last committed one, and its unfinished folder is removed by the next writer. No two
runs share a file name, and no SQLite ``-wal`` / ``-shm`` file ever sits beside a
committed database. Long runs commit checkpoints (at batch boundaries, every
``checkpoint_seconds``), so a killed first index keeps what it had embedded.

Folders written before format 2 (``faiss/`` and ``records.sqlite`` beside the manifest)
are read as they are and moved into a generation by their next write.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from ragline.core import (
    BaseRetriever,
    ConfigurationError,
    Document,
    IndexingInterrupted,
    InvalidInputError,
    PersistenceError,
)
from ragline.core._optional import require
from ragline.embeddings import Embeddings
from ragline.indexing import IndexEngine, IndexingResult, SQLRecordManager, index
from ragline.retrievers import BM25Tokenizer
from ragline.store_folder._artifacts import FolderArtifact, make_artifact
from ragline.store_folder._embeddings import (
    make_embeddings,
    require_embedding,
    same_vectors_names,
)
from ragline.store_folder._lock import FolderLock
from ragline.store_folder._manifest import (
    MANIFEST_FILE,
    RECOVERY_HINT,
    JSONValue,
    Manifest,
    fsync_directory,
    read_manifest,
    write_manifest,
)
from ragline.store_folder._search import folder_retriever, set_tokenizer, tokenizer_options
from ragline.store_folder._text_index import ARRAYS_FILE as KEYWORD_ARRAYS
from ragline.store_folder._text_index import JSON_FILE as KEYWORD_JSON
from ragline.store_folder._text_index import (
    load_text_index,
    save_text_index,
    store_records,
    sync_text_index,
)
from ragline.vectorstores import FAISS, VectorStore

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "FolderWriter",
    "StoreFolder",
    "open_store",
]

FAISS_FOLDER = "faiss"
RECORDS_FILE = "records.sqlite"
RECORDS_NAMESPACE = "ragline-faiss"
CHAT_FILE = "chat.sqlite"
GENERATION_PREFIX = "gen-"
DEFAULT_EMBEDDING = "minilm"
IDENTITY_KEY = "embedding_identity"  # the manifest entry: what decides the vectors
DEFAULT_CHUNK_SIZE = 1000
DEFAULT_CHUNK_OVERLAP = 150
DEFAULT_CHECKPOINT_SECONDS = 30.0
_READ_ATTEMPTS = 5


class StoreFolder:
    """A folder holding a vector store, its manifest, its records and its artifacts.

    Creating a ``StoreFolder`` reads nothing; :meth:`read_manifest`, :meth:`open_store`
    and :meth:`writer` do the work.

    Args:
        path: the folder (need not exist yet).

    Example:
        >>> folder = StoreFolder("my-store")  # doctest: +SKIP
        >>> store = folder.open_store()  # doctest: +SKIP
        >>> store.similarity_search("volcano", k=2)  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"StoreFolder({os.fspath(self.path)!r})"

    def exists(self) -> bool:
        """Whether the folder holds a store (a ``ragline.json``)."""
        return (self.path / MANIFEST_FILE).is_file()

    def read_manifest(self) -> Manifest:
        """The folder's manifest.

        Raises:
            PersistenceError: the folder holds no store (says to run ``ragline index``),
                or ``ragline.json`` is not valid (says how to recover).
        """
        manifest = read_manifest(self.path)
        if manifest is None:
            raise PersistenceError(
                f"{self.path}: not a ragline store (no {MANIFEST_FILE}); run 'ragline index' first"
            )
        return manifest

    @property
    def chat_history_path(self) -> Path:
        """The SQLite file that keeps the folder's conversations (``ragline chat``)."""
        return self.path / CHAT_FILE

    def embeddings(
        self, manifest: Manifest | None = None, *, show_progress: bool = False
    ) -> Embeddings:
        """The Embeddings the store was built with (queries must embed with the same)."""
        manifest = manifest or self.read_manifest()
        return make_embeddings(
            manifest.embedding, manifest.embedding_options, show_progress=show_progress
        )

    def data_path(self, manifest: Manifest) -> Path:
        """The folder holding the committed store, records and artifacts of ``manifest``."""
        return self.path / manifest.generation if manifest.generation else self.path

    def artifact_path(self, name: str) -> Path | None:
        """Where the committed copy of artifact ``name`` is, or None if the store has none."""
        manifest = self.read_manifest()
        if name not in manifest.artifacts:
            return None
        path = self.data_path(manifest) / name
        return path if path.exists() else None

    def open_store(
        self, *, embeddings: Embeddings | None = None, embedding: str | None = None
    ) -> VectorStore:
        """Load the folder's vector store, ready to search.

        A writer committing meanwhile is harmless: the manifest is read again and the
        store loaded from the generation it names now.

        Args:
            embeddings: the Embeddings for queries; default: those the manifest names.
            embedding: or the name of those Embeddings (``"minilm-torch"``), made with
                the manifest's options.

        Raises:
            PersistenceError: no store here, or its files are missing or corrupt (the
                message says how to rebuild it).
            ConfigurationError: the embeddings give other vectors than the store's
                (another model, weights, precision ...; fp32 ONNX and torch are the same).
        """
        return self._load_store(embeddings, embedding)[0]

    def _load_store(
        self, embeddings: Embeddings | None, embedding: str | None
    ) -> tuple[FAISS, Manifest]:
        """The store and the manifest of the generation it was loaded from."""
        for attempt in range(_READ_ATTEMPTS):
            manifest = self.read_manifest()
            query_embeddings = self._query_embeddings(manifest, embeddings, embedding)
            try:
                path = self.data_path(manifest) / FAISS_FOLDER
                return FAISS.load_local(path, query_embeddings), manifest
            except PersistenceError as err:
                if attempt + 1 < _READ_ATTEMPTS and self._moved_on(manifest):
                    continue
                raise PersistenceError(f"{err}; {RECOVERY_HINT}") from err
        raise AssertionError("unreachable")  # pragma: no cover

    def _query_embeddings(
        self, manifest: Manifest, embeddings: Embeddings | None, embedding: str | None
    ) -> Embeddings:
        if embeddings is None and embedding is not None:
            if not same_vectors_names(embedding, manifest.embedding):
                raise ConfigurationError(
                    f"{self.path} was built with the {manifest.embedding!r} embedding, "
                    f"not {embedding!r}; query it with --embedding {manifest.embedding}"
                )
            require_embedding(embedding)
            embeddings = make_embeddings(embedding, manifest.embedding_options)
        embeddings = embeddings or self.embeddings(manifest)
        check_identity(manifest, embeddings, self.path)
        return embeddings

    def as_retriever(
        self,
        *,
        search_type: str = "similarity",
        search_kwargs: Mapping[str, Any] | None = None,
        embeddings: Embeddings | None = None,
        embedding: str | None = None,
        store: VectorStore | None = None,
    ) -> BaseRetriever:
        """A retriever over the folder: the store's search types, ``"bm25"`` or ``"hybrid"``.

        Args:
            search_type: ``"similarity"``, ``"mmr"``, ``"similarity_score_threshold"``
                (the vector store's), ``"bm25"`` (the folder's keyword index) or
                ``"hybrid"`` (both fused by score, :class:`~ragline.retrievers.
                HybridRetriever`'s defaults).
            search_kwargs: that search type's options; ``bm25``: ``k``, ``filter``;
                ``hybrid``: ``k``, ``filter``, ``fetch_k``.
            embeddings, embedding: the Embeddings for queries, or an embedding name; as
                :meth:`open_store`.
            store: the folder's store, already opened (:meth:`open_store`).

        Every document it returns carries its score in ``metadata["relevance_score"]``.

        Raises:
            PersistenceError: no store here, or its files are missing or corrupt.
            ConfigurationError: an unknown search type, or embeddings other than the
                store's.

        Example:
            >>> folder = StoreFolder("my-store")  # doctest: +SKIP
            >>> retriever = folder.as_retriever(search_type="hybrid")  # doctest: +SKIP
            >>> retriever.invoke("volcano eruptions")  # doctest: +SKIP
        """
        if store is None:
            store, manifest = self._load_store(embeddings, embedding)
        else:
            manifest = self.read_manifest()
        tokenizer = BM25Tokenizer.from_dict(tokenizer_options(manifest.extras))
        # the keyword index of the store's generation (if a writer removed it meanwhile,
        # the index is rebuilt from the store in memory: reading never writes)
        return folder_retriever(
            self.data_path(manifest),
            store,
            tokenizer,
            search_type=search_type,
            search_kwargs=search_kwargs,
        )

    def _moved_on(self, manifest: Manifest) -> bool:
        """Whether a writer has committed another generation since ``manifest`` was read."""
        current = read_manifest(self.path)
        return current is not None and current.generation != manifest.generation

    def writer(
        self,
        *,
        embedding: str | None = None,
        embedding_options: dict[str, JSONValue] | None = None,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        artifacts: Sequence[str] = (),
        keyword_tokenizer: BM25Tokenizer | None = None,
        rebuild: bool = False,
        wait: float = 0.0,
        checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
        durable: bool = True,
        stop: threading.Event | None = None,
        show_progress: bool = False,
    ) -> FolderWriter:
        """Open the folder for one run of writes: a context manager that commits on success.

        Nothing is written before the ``with`` block starts; the checks below run first,
        so a missing extra or a bad path leaves no folder behind.

        Args:
            embedding: the embedding name; default: the store's, else ``"minilm"``. A
                store built with another embedding is refused (unless ``rebuild``).
            embedding_options: options for a new store's embedding.
            chunk_size: recorded in the manifest (default: the store's, else 1000).
            chunk_overlap: recorded in the manifest (default: the store's, else 150).
            artifacts: artifact names to keep from now on, besides those the store keeps.
            keyword_tokenizer: how the keyword (BM25) index tokenizes, e.g.
                ``BM25Tokenizer(language="french", stem=True, stopwords=True)``; default:
                the store's, else plain word tokens. A change rebuilds the keyword index.
            rebuild: start from an empty store (the old one stays until the first
                commit replaces it): the way out of a corrupted store.
            wait: seconds to wait for another writer (0: fail at once, naming it).
            checkpoint_seconds: during :meth:`FolderWriter.index`, commit what is done
                at the first batch boundary after this many seconds since the last commit.
            durable: flush each commit to disk (fsync) before it counts, so it also
                survives a power cut; without, it survives a killed process.
            stop: an event that, once set, stops :meth:`FolderWriter.index` at its next
                batch boundary (as :meth:`FolderWriter.request_stop` does).
            show_progress: let the embedding model show a progress bar.

        Raises:
            InvalidInputError: the path is a file, not a folder.
            ConfigurationError: an unknown embedding or artifact, or another embedding
                than the store was built with.
            MissingDependencyError: faiss or the embedding's package is missing.
        """
        return FolderWriter(
            self,
            embedding=embedding,
            embedding_options=embedding_options,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            artifacts=artifacts,
            keyword_tokenizer=keyword_tokenizer,
            rebuild=rebuild,
            wait=wait,
            checkpoint_seconds=checkpoint_seconds,
            durable=durable,
            stop=stop,
            show_progress=show_progress,
        )


class FolderWriter:
    """One run of writes to a store folder: the store, records and artifacts, committed together.

    Use it through :meth:`StoreFolder.writer`. Entering the ``with`` block takes the
    folder's writer lock and loads the committed store; :meth:`index` writes chunks (with
    checkpoints); leaving the block without an error commits, leaving it with one keeps
    the last commit (the previous run's, or this run's last checkpoint).

    Attributes:
        manifest: the manifest this run will commit (its settings are final on entry).
        changes: what this run changes in the store's settings, one line each (e.g. a
            new chunk size), for the caller to report.
        store: the FAISS store (inside the ``with`` block). Writes made to it directly,
            not through :meth:`index`, are committed by calling :meth:`commit`.
        records: the record manager (in memory inside the block; committed with the store).
    """

    def __init__(
        self,
        folder: StoreFolder,
        *,
        embedding: str | None,
        embedding_options: dict[str, JSONValue] | None,
        chunk_size: int | None,
        chunk_overlap: int | None,
        artifacts: Sequence[str],
        keyword_tokenizer: BM25Tokenizer | None,
        rebuild: bool,
        wait: float,
        checkpoint_seconds: float,
        durable: bool,
        stop: threading.Event | None,
        show_progress: bool,
    ) -> None:
        path = folder.path
        if path.exists() and not path.is_dir():
            raise InvalidInputError(f"store {path} is a file, not a folder; give a folder path")
        self.folder = folder
        self.rebuild = rebuild
        self.wait = wait
        self.checkpoint_seconds = checkpoint_seconds
        self.durable = durable
        self._options = (embedding, embedding_options, chunk_size, chunk_overlap, tuple(artifacts))
        self._keyword_tokenizer = keyword_tokenizer
        self.manifest, self.changes = self._plan(self._previous_manifest())
        require("faiss", "faiss")
        require_embedding(self.embedding_name)
        for name in self.manifest.artifacts:
            make_artifact(name)  # an unknown name fails here, before anything is written
        self.embeddings = make_embeddings(
            self.embedding_name, self.manifest.embedding_options, show_progress=show_progress
        )
        self.store: FAISS | None = None
        self.records: SQLRecordManager | None = None
        self.artifacts: dict[str, FolderArtifact] = {}
        self._lock: FolderLock | None = None
        self._created_folder = False
        self._committed_once = False
        self._changed = False
        self._stop = stop if stop is not None else threading.Event()
        self._committed: Manifest | None = None  # what ragline.json says now
        self._last_commit = time.monotonic()

    # ------------------------------------------------------------------ settings

    def _previous_manifest(self) -> Manifest | None:
        try:
            return read_manifest(self.folder.path)
        except PersistenceError:
            if self.rebuild:
                return None  # a corrupt manifest is what --rebuild is for
            raise

    def _plan(self, previous: Manifest | None) -> tuple[Manifest, list[str]]:
        """The manifest this run commits, and the setting changes to report."""
        embedding, options, size, overlap, artifacts = self._options
        built_with = previous.embedding if previous else None
        if embedding is None:
            embedding = built_with or DEFAULT_EMBEDDING
        elif (
            built_with is not None
            and not same_vectors_names(embedding, built_with)
            and not self.rebuild
        ):
            raise ConfigurationError(
                f"{self.folder.path} was built with the {built_with!r} embedding, not "
                f"{embedding!r}; re-run with --embedding {built_with}, index into a new "
                f"--store folder, or re-embed everything with --rebuild"
            )
        self.embedding_name = embedding  # what embeds: a MiniLM may run on another MiniLM's store
        changes: list[str] = []
        settings = {}
        for name, given, default in (
            ("chunk_size", size, DEFAULT_CHUNK_SIZE),
            ("chunk_overlap", overlap, DEFAULT_CHUNK_OVERLAP),
        ):
            stored = getattr(previous, name) if previous else None
            settings[name] = (
                given if given is not None else stored if stored is not None else default
            )
            if stored is not None and settings[name] != stored:
                changes.append(
                    f"{name.replace('_', ' ')} changes from {stored} to {settings[name]} "
                    f"(recorded in {MANIFEST_FILE}): the files given are split again, and "
                    f"the chunks that change are re-embedded"
                )
        kept = list(previous.artifacts) if previous else []
        keep = previous is not None and same_vectors_names(embedding, previous.embedding)
        manifest = Manifest(
            embedding=previous.embedding if keep and previous else embedding,
            embedding_options=(
                dict(previous.embedding_options)
                if keep and previous and not options
                else dict(options or {})
            ),
            chunk_size=settings["chunk_size"],
            chunk_overlap=settings["chunk_overlap"],
            documents=previous.documents if previous else 0,
            chunks=previous.chunks if previous else 0,
            generation=previous.generation if previous else None,
            artifacts=[*kept, *(name for name in artifacts if name not in kept)],
            extras=dict(previous.extras) if previous else {},
        )
        if not keep or self.rebuild:
            manifest.extras.pop(IDENTITY_KEY, None)  # recorded again from what embeds now
        # the keyword index's tokenizer is fixed when the store is created, changed on request
        change = set_tokenizer(manifest.extras, self._keyword_tokenizer, report=bool(previous))
        changes.extend([change] if change else [])
        return manifest, changes

    # ------------------------------------------------------------------ entering

    def __enter__(self) -> FolderWriter:
        path = self.folder.path
        if not path.is_dir():
            try:
                path.mkdir(parents=True)
            except FileExistsError:  # another first run made it meanwhile: share it, keep it
                if not path.is_dir():
                    raise InvalidInputError(f"store {path} is a file, not a folder") from None
            else:
                self._created_folder = True
        lock = FolderLock(path, wait=self.wait)
        lock.acquire()
        self._lock = lock
        try:
            previous = self._previous_manifest()  # again, now that no one else writes
            self._committed = previous
            self.manifest, self.changes = self._plan(previous)
            if previous is not None and not self.rebuild:
                check_identity(previous, self.embeddings, path)
            self._remove_leftovers(previous)
            self._load(None if self.rebuild else previous)
        except BaseException:
            self._release()
            raise
        self._last_commit = time.monotonic()
        return self

    def _load(self, previous: Manifest | None) -> None:
        """Read the committed store, records and artifacts into memory (empty if none)."""
        records = SQLRecordManager(RECORDS_NAMESPACE, db_url=":memory:")
        data = self.folder.data_path(previous) if previous else None
        # A folder from before format 2 with a store but no records, or records but no
        # store, starts over: its chunks could not be matched to records.
        if data is not None and (data / RECORDS_FILE).is_file() and (data / FAISS_FOLDER).is_dir():
            try:
                store = FAISS.load_local(data / FAISS_FOLDER, self.embeddings)
                records.copy_from(data / RECORDS_FILE)
            except PersistenceError as err:
                raise PersistenceError(f"{err}; {RECOVERY_HINT}") from err
        else:
            store = FAISS(self.embeddings)
        self.store, self.records = store, records
        committed = previous.artifacts if previous is not None and data is not None else []
        for name in self.manifest.artifacts:
            artifact = make_artifact(name)
            saved = data / name if data is not None and name in committed else None
            artifact.load(saved if saved is not None and saved.exists() else None, self.documents)
            self.artifacts[name] = artifact

    def _remove_leftovers(self, previous: Manifest | None) -> None:
        """Remove what killed writers left: unfinished generations and temporary files."""
        keep = previous.generation if previous else None
        for entry in self.folder.path.iterdir():
            name = entry.name
            if name.startswith(GENERATION_PREFIX) and name != keep:
                shutil.rmtree(entry, ignore_errors=True)
            elif name.startswith(f".{MANIFEST_FILE}.") and name.endswith(".tmp"):
                entry.unlink(missing_ok=True)
            elif name.startswith(f"{RECORDS_FILE}.tmp") or (
                keep is not None and name.startswith(RECORDS_FILE)
            ):
                entry.unlink(missing_ok=True)  # old versions' work copies, and their -wal
            elif keep is not None and name == FAISS_FOLDER:
                shutil.rmtree(entry, ignore_errors=True)  # moved into a generation
            elif keep is not None and name in (KEYWORD_JSON, KEYWORD_ARRAYS):
                entry.unlink(missing_ok=True)  # likewise

    def documents(self) -> Iterator[Document]:
        """Every chunk the store holds now, with its id."""
        if self.store is None:
            return iter(())
        snapshot = self.store.snapshot()
        return (
            Document(text, metadata, id=doc_id)
            for doc_id, text, metadata in zip(
                snapshot.ids, snapshot.texts, snapshot.metadatas, strict=True
            )
        )

    # ------------------------------------------------------------------ writing

    def request_stop(self) -> None:
        """Ask a running :meth:`index` to stop at its next batch boundary (thread-safe).

        It commits what it has done and raises :class:`~ragline.core.IndexingInterrupted`.
        """
        self._stop.set()

    def index(
        self,
        documents: Iterable[Document],
        *,
        cleanup: Literal["incremental", "full"] = "incremental",
        force_update: bool = False,
        batch_size: int = 100,
        engine: IndexEngine | None = None,
    ) -> IndexingResult:
        """Index chunks into the store, keyed by content, with their ``source`` as group.

        At batch boundaries it commits a checkpoint every ``checkpoint_seconds``, and
        stops (committing first) when :meth:`request_stop` was called.

        Args:
            documents: the chunks, those of one source together (as loaders yield them),
                each with ``metadata["source"]``.
            cleanup: ``"incremental"`` (delete the stale chunks of the sources given) or
                ``"full"`` (also those of sources not given).
            force_update: re-embed and rewrite chunks already stored.
            batch_size: chunks embedded and written together.
            engine: where the chunks are embedded (``RayEngine``: on a Ray cluster, its
                ``documents()`` giving ``documents``); ``None``: here.

        Raises:
            IndexingInterrupted: stopped on request; what was done is committed.
            InvalidInputError, ConfigurationError: as :func:`ragline.indexing.index`.
        """
        if self.store is None or self.records is None:
            raise InvalidInputError("FolderWriter.index() runs inside 'with folder.writer():'")
        if cleanup not in ("incremental", "full"):
            raise ConfigurationError(f"cleanup {cleanup!r} is not one of 'incremental', 'full'")
        return index(
            self._at_boundaries(documents, batch_size),
            self.records,
            _ObservedStore(self),
            batch_size=batch_size,
            cleanup="full" if cleanup == "full" else "incremental",
            source_id_key="source",
            force_update=force_update,
            engine=engine,
        )

    def _at_boundaries(self, documents: Iterable[Document], batch_size: int) -> Iterator[Document]:
        """The documents, with a checkpoint or a stop between batches.

        index() takes the first document of a batch only once every earlier batch is
        stored and recorded, so the state is consistent here.
        """
        for position, document in enumerate(documents):
            if position and position % batch_size == 0:
                if self._stop.is_set():
                    self.commit()
                    raise IndexingInterrupted(
                        f"stopped on request; {self.folder.path} keeps the "
                        f"{self.manifest.chunks} chunks stored so far, so the next run "
                        f"embeds only what is left"
                    )
                if time.monotonic() - self._last_commit >= self.checkpoint_seconds:
                    self.commit()
            yield document

    # ------------------------------------------------------------------ committing

    def commit(self) -> None:
        """Write a new generation (store, records, artifacts), then point the manifest at it.

        Raises:
            PersistenceError: a file cannot be written; the previous commit stays.
        """
        if self.store is None or self.records is None:
            return
        path = self.folder.path
        generation = f"{GENERATION_PREFIX}{os.urandom(8).hex()}"
        data = path / generation
        previous = self.manifest.generation
        try:
            data.mkdir()
            self.store.save_local(data / FAISS_FOLDER)
            self.records.copy_to(data / RECORDS_FILE)
            self._save_keyword_index(data, self._committed_data())
            for name, artifact in self.artifacts.items():
                artifact.save(data / name)
            if self.durable:
                _fsync_tree(data)
            manifest = self.manifest
            manifest.chunks = self.store.count()
            manifest.documents = self.records.count_groups()
            identity = getattr(self.embeddings, "embedding_identity", None)
            if identity is not None and IDENTITY_KEY not in manifest.extras:
                manifest.extras[IDENTITY_KEY] = dict(identity)
            manifest.generation = generation
            write_manifest(path, manifest, durable=self.durable)  # the commit point
            self._committed = Manifest.from_json(manifest.to_json(), path / MANIFEST_FILE)
        except BaseException:
            self.manifest.generation = previous
            shutil.rmtree(data, ignore_errors=True)
            raise
        self._committed_once = True
        self._changed = False
        self._last_commit = time.monotonic()
        if previous is not None:
            shutil.rmtree(path / previous, ignore_errors=True)
        else:  # a folder from before format 2: its files now live in the generation
            self._remove_leftovers(manifest)

    def _committed_data(self) -> Path | None:
        """The folder of the committed generation (the folder itself before format 2)."""
        committed = self._committed
        return None if committed is None else self.folder.data_path(committed)

    def _save_keyword_index(self, data: Path, committed: Path | None) -> None:
        """Write the keyword index of the new generation: the committed one brought in step
        with the store (only chunks it lacks are tokenized)."""
        assert self.store is not None
        tokenizer = BM25Tokenizer.from_dict(tokenizer_options(self.manifest.extras))
        saved = None if committed is None or self.rebuild else load_text_index(committed)[0]
        ids, texts, _ = store_records(self.store)
        text_index, _, _ = sync_text_index(saved, ids, texts, tokenizer)
        save_text_index(data, text_index)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if error is None and (
                self._changed or self._settings_changed() or self._keyword_index_behind()
            ):
                self.commit()
        finally:
            self._release()

    def _settings_changed(self) -> bool:
        committed = self._committed
        return committed is None or committed.to_json() != self.manifest.to_json()

    def _keyword_index_behind(self) -> bool:
        """Whether the committed keyword index is not the store's (damaged, missing, made
        with another tokenizer, or from a folder written before it was committed with
        the store): then a run with nothing else to do commits it repaired."""
        committed = self._committed_data()
        if committed is None or self.store is None:
            return False
        saved = load_text_index(committed)[0]
        tokenizer = BM25Tokenizer.from_dict(tokenizer_options(self.manifest.extras))
        if saved is None or saved.tokenizer != tokenizer:
            return True
        return set(saved.ids) != set(self.store.snapshot().ids)

    def _release(self) -> None:
        if self.records is not None:
            self.records.close()
        lock, self._lock = self._lock, None
        if self._created_folder and not self._committed_once:
            # a first run that wrote nothing leaves nothing (not even an empty folder)
            shutil.rmtree(self.folder.path, ignore_errors=True)
        if lock is not None:
            lock.release()


class _ObservedStore:
    """The writer's store as index() sees it: writes mark the run changed and reach artifacts."""

    def __init__(self, writer: FolderWriter) -> None:
        assert writer.store is not None
        self._writer = writer
        self._store = writer.store

    def add_documents(self, documents: Sequence[Document], *, ids: list[str]) -> list[str]:
        self._writer._changed = True
        written = self._store.add_documents(documents, ids=ids)
        for artifact in self._writer.artifacts.values():
            artifact.added(documents)
        return written

    @property
    def embeddings(self) -> Embeddings:
        return self._writer.embeddings

    def add_embeddings(
        self,
        text_embeddings: Iterable[tuple[str, Sequence[float]]],
        metadatas: Sequence[dict[str, Any]],
        *,
        ids: list[str],
    ) -> list[str]:
        """Vectors made elsewhere (a distributed run's workers)."""
        pairs = list(text_embeddings)
        self._writer._changed = True
        written = self._store.add_embeddings(pairs, metadatas, ids=ids)
        documents = [
            Document(text, metadata, id=doc_id)
            for (text, _), metadata, doc_id in zip(pairs, metadatas, ids, strict=True)
        ]
        for artifact in self._writer.artifacts.values():
            artifact.added(documents)
        return written

    def delete(self, ids: Sequence[str]) -> None:
        self._writer._changed = True
        self._store.delete(ids)
        for artifact in self._writer.artifacts.values():
            artifact.deleted(ids)

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:
        return self._store.get_by_ids(ids)


def check_identity(manifest: Manifest, embeddings: Embeddings, path: Path) -> None:
    """Refuse embeddings whose vectors differ from those the store was built with.

    The manifest's ``embedding_identity`` (model, weights digest, precision,
    normalisation, dimension, backend) is compared with the embeddings' own; the backend
    may differ (fp32 ONNX and torch give the same vectors). Stores written before
    identities were recorded, and embeddings without one, are not checked.

    Raises:
        ConfigurationError: the identities differ; the message names both.
    """
    from ragline.embeddings import check_same_vectors

    stored = manifest.extras.get(IDENTITY_KEY)
    current = getattr(embeddings, "embedding_identity", None)
    if isinstance(stored, dict) and current is not None:
        check_same_vectors(stored, current, where=os.fspath(path))


def _fsync_tree(folder: Path) -> None:
    """Flush every file and folder under ``folder`` (the new generation) to disk."""
    for root, _, files in os.walk(folder):
        for name in files:
            descriptor = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        fsync_directory(Path(root))
    fsync_directory(folder.parent)


def open_store(
    folder: str | os.PathLike[str] | StoreFolder, *, embeddings: Embeddings | None = None
) -> VectorStore:
    """Load the vector store of a store folder written by ``ragline index`` / :func:`index_paths`.

    Args:
        folder: the store folder.
        embeddings: the Embeddings for queries; default: those the manifest names.

    Raises:
        PersistenceError: no store there, or its files are missing or corrupt.

    Example:
        >>> store = open_store("my-store")  # doctest: +SKIP
        >>> store.similarity_search("volcano", k=2)  # doctest: +SKIP
    """
    store_folder = folder if isinstance(folder, StoreFolder) else StoreFolder(folder)
    return store_folder.open_store(embeddings=embeddings)

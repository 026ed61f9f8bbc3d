"""FolderWriter: one run of writes to a store folder, committed as a new generation.

``StoreFolder.writer`` opens one; ``_folder.py`` describes the layout and why a writer
killed at any moment leaves the last committed generation whole.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from ragline.core import (
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
from ragline.store_folder._embeddings import make_embeddings, require_embedding, same_vectors_names
from ragline.store_folder._folder import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    DEFAULT_EMBEDDING,
    FAISS_FOLDER,
    GENERATION_PREFIX,
    IDENTITY_KEY,
    INDEX_KEY,
    RECORDS_FILE,
    RECORDS_NAMESPACE,
    StoreFolder,
    check_identity,
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
from ragline.store_folder._search import set_tokenizer, tokenizer_options
from ragline.store_folder._text_index import ARRAYS_FILE as KEYWORD_ARRAYS
from ragline.store_folder._text_index import JSON_FILE as KEYWORD_JSON
from ragline.store_folder._text_index import (
    LocalRows,
    RowsAhead,
    TextRows,
    load_text_rows,
    save_text_rows,
    store_records,
    sync_text_rows,
    update_text_rows,
)
from ragline.vectorstores import FAISS
from ragline.vectorstores.faiss._choice import choose_index, index_kind_of, resolve_kind

__all__ = ["FolderWriter"]

# about the seconds a commit takes per stored chunk when it writes them all (a new
# store's first commit: documents file, keyword index, faiss index, records): ~16 us on
# a 2-core machine at load ~1, with some margin. A run that computed keyword rows ahead
# (expect()) uses what those took per chunk instead (~17 us there): it is the same kind
# of work, and slows down as much on a loaded machine
COMMIT_SECONDS_PER_CHUNK = 20e-6


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
        index: str | None = None,
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
        # the keyword index this run's last commit wrote (names its generation): the
        # next commit of the run (a checkpoint) starts from it instead of reading it back
        self._keyword_rows: TextRows | None = None
        # the committed generation's keyword index as read from it (its files never change)
        self._loaded_rows: tuple[str, TextRows | None] | None = None
        # commit() writes the keyword index's files on a thread (see _save_keyword_index)
        self._keyword_pool: ThreadPoolExecutor | None = None
        self._keyword_saving: Future[TextRows] | None = None
        # keyword rows of the chunks the run said it will add (see expect())
        self._rows_ahead: RowsAhead | None = None
        self._expected: set[str] = set()
        # the faiss index kind: given, else the store's, else auto (see _choice.py)
        saved_kind = self.manifest.extras.get(INDEX_KEY)
        self.index_kind = index or (saved_kind if isinstance(saved_kind, str) else "auto")
        resolve_kind(self.index_kind, 0)  # an unknown kind fails before anything is written
        self.note: Callable[[str], None] | None = None  # where index rebuilds are reported
        # how long the model still embeds what the run planned, and takes per text
        # (EmbedAhead.time_left; None: not known), for one commit while it does (see
        # _commit_ahead)
        self.embedding_left: Callable[[], tuple[float, float] | None] | None = None
        # whether the run's last embedding call waited for the model (EmbedAhead.
        # caller_waited; None: not known): a commit runs while the model embeds only then
        self.embedding_waited: Callable[[], bool] | None = None
        self._committed_ahead = False
        # what expect() took (wall) for the chunks it tokenized, and how many, for
        # _commit_ahead (rows a worker process computed say nothing of a commit's pace)
        self._expected_seconds = 0.0
        self._tokenized_ahead = 0

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
        records = _FolderRecords(RECORDS_NAMESPACE, db_url=":memory:")
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
            store = FAISS(self.embeddings, metric="cosine")  # the folder's own metric
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
        keys: Callable[[Document], str] | None = None,
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
            keys: the chunks' keys when the caller has them already; it must give what
                ``hash_document(chunk, "sha256")`` gives (the folder's keys). ``None``:
                computed here.

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
            key_encoder=keys if keys is not None else "sha256",
        )

    def expect(
        self, ids: Sequence[str], texts: Sequence[str], rows: LocalRows | None = None
    ) -> None:
        """Say which chunks :meth:`index` is going to add (their ids and texts, in the order
        it will add them, after those of earlier calls): their keyword-index rows are
        computed now, while the model embeds, so the commit that writes them only appends
        them (:class:`~ragline.store_folder._text_index.RowsAhead`). An id given again is
        ignored (index() adds it once). A wrong guess costs time, never correctness: the
        commit then tokenizes what it adds as it would without this call. ``rows``: the
        texts' rows computed elsewhere (:func:`~ragline.store_folder._text_index.local_rows`,
        in a worker process), numbered here instead of tokenized.
        """
        if self.store is None:
            return
        started = time.perf_counter()
        if self._rows_ahead is None:
            tokenizer = self._keyword_tokenizer_now()
            base = self._keyword_base()
            vocabulary = base.terms if base is not None and base.tokenizer == tokenizer else []
            self._rows_ahead = RowsAhead(vocabulary, tokenizer)
        expected = self._expected
        new_ids, new_texts = [], []
        for chunk_id, text in zip(ids, texts, strict=True):
            if chunk_id not in expected:
                expected.add(chunk_id)
                new_ids.append(chunk_id)
                new_texts.append(text)
        if len(new_ids) != len(ids):
            rows = None  # computed for every text given, not for those left
        self._rows_ahead.add(new_ids, new_texts, rows)
        if rows is None:
            self._expected_seconds += time.perf_counter() - started
            self._tokenized_ahead += len(new_ids)

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
                if (
                    # a timed checkpoint once the store changed: a re-run's skipped
                    # batches wrote a whole generation (the documents file copied) for
                    # nothing every checkpoint_seconds; the run's end commits none either
                    self._changed
                    and time.monotonic() - self._last_commit >= self.checkpoint_seconds
                ) or self._commit_ahead(batch_size):
                    self.commit()
            yield document

    def _commit_ahead(self, batch_size: int) -> bool:
        """Whether to commit now, while the model embeds its last blocks (once a run).

        The commit after the last block writes every chunk of the run (documents file,
        keyword index, ...) while nothing else is left to do: on a GPU it was most of
        the time after the model was done (issue 25). This commits at the last batch
        boundary where what the model has left takes at least as long as committing
        the chunks stored so far: the commit runs while the main thread would wait for
        the model, and the last commit copies that generation's documents file and
        adds only the chunks after it, and updates the keyword index by them (as after
        any checkpoint). From one boundary to the next the model embeds about a batch
        while the main thread waits for it, and the commit grows by a batch: the last
        boundary where the commit fits is the first where the next one would not. The
        commit's time is judged from how long this run took to compute as
        many chunks' keyword rows ahead (the same kind of work, as slow on a loaded
        machine; rows tokenized on this thread, not by worker processes), or
        COMMIT_SECONDS_PER_CHUNK (fewer than 1,000 tokenized here). A model that
        finishes first only makes this a checkpoint like a timed one.

        Only while the run waits for the model (its last batch's embedding call waited:
        EmbedAhead.caller_waited). A run behind the model (on 2 cores against a GPU's
        14,000 chunks/s, it indexes every batch after the model embedded it) would not
        fill a wait with the commit but put it in front of its remaining batches, all
        of which then end later; it made its one early commit there all the same.
        """
        if (
            self._committed_ahead
            or not self._changed  # nothing to commit yet (a re-run's skipped batches)
            or self.embedding_left is None
            or self.store is None
            # the run is behind the model (its last batch's vectors were ready): a commit
            # here would not fill a wait for the model but delay everything after it
            or self.embedding_waited is None
            or not self.embedding_waited()
        ):
            return False
        progress = self.embedding_left()
        if progress is None:
            return False
        left, per_text = progress
        tokenized = self._tokenized_ahead
        pace = self._expected_seconds / tokenized if tokenized >= 1000 else COMMIT_SECONDS_PER_CHUNK
        cost = pace * self.store.count()
        # at the next boundary the model has about a batch less to do, and the commit
        # a batch more: commit here when it fits here but would not fit there
        if cost <= left < cost + batch_size * (pace + per_text):
            self._committed_ahead = True
            return True
        return False

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
            self._fit_index()
            data.mkdir()
            # the keyword index first: it reads the new chunks' texts from memory while
            # they are there (save_local moves them into its file); its files are written
            # by a thread while the store is saved (at the end of an index run this
            # commit follows the last embedding: ~0.05 s of 0.2 s; writing the files is
            # mostly fsync and hashing, which release the GIL). The order inside the
            # generation does not matter, the manifest below is the commit point;
            # leaving the block (also on an error) joins the thread first.
            with ThreadPoolExecutor(1, thread_name_prefix="ragline-keyword-save") as pool:
                self._keyword_pool = pool
                try:
                    self._save_keyword_index(data, self._committed_data())
                    self.store.save_local(
                        data / FAISS_FOLDER, documents="sqlite", durable=self.durable
                    )
                    self.records.copy_to(data / RECORDS_FILE)
                    for name, artifact in self.artifacts.items():
                        artifact.save(data / name)
                    saving, self._keyword_saving = self._keyword_saving, None
                    if saving is not None:
                        self._keyword_rows = saving.result()  # its error, if any, here
                finally:
                    self._keyword_pool, self._keyword_saving = None, None
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

    def _fit_index(self) -> None:
        """Rebuild the store's index when its kind is not the one wanted for its size
        (``auto``: flat up to FLAT_LIMIT vectors, compressed above; never back)."""
        store = self.store
        assert store is not None
        dimension, count = store.dimension, store.count()
        if dimension is None:
            return
        current = index_kind_of(store.index_factory)
        wanted = resolve_kind(self.index_kind, count)
        if self.index_kind == "auto" and current != "flat":
            wanted = current  # grown once: stays compressed
        if current == wanted:
            return
        plan = choose_index(wanted, count, dimension)
        note = self.note or (lambda line: None)
        note(f"rebuilding the index as {plan.factory} ({wanted}, {count:,} vectors)")
        reported = [0]

        def progress(done: int, total: int) -> None:
            if done * 10 // total > reported[0] or done == total:
                reported[0] = done * 10 // total
                note(f"  {done:,} / {total:,} vectors ({100 * done // total}%)")

        store.change_index(**plan.options(), progress=progress)  # type: ignore[arg-type]
        self.manifest.extras[INDEX_KEY] = self.index_kind

    def _committed_data(self) -> Path | None:
        """The folder of the committed generation (the folder itself before format 2)."""
        committed = self._committed
        return None if committed is None else self.folder.data_path(committed)

    def _save_keyword_index(self, data: Path, committed: Path | None) -> None:
        """Write the keyword index of the new generation: the committed one brought in step
        with the store.

        When the committed index is the one its own commit wrote (it names that
        generation) and the store reads that generation's documents file, only what
        changed since is applied: the chunks added are tokenized, the deleted dropped, no
        stored text is read back (see :meth:`_keyword_update`). Otherwise (a folder written
        before the index was committed with the store, a damaged or copied index,
        ``--rebuild``) every stored chunk is read and the index brought in step from them.

        The rows are computed here and the files written by :meth:`commit`'s thread
        (``_keyword_saving``, waited for before the manifest).
        """
        assert self.store is not None
        tokenizer = self._keyword_tokenizer_now()
        saved = self._keyword_base()
        rows = self._keyword_update(saved, committed, tokenizer)
        if rows is None:
            ids, texts, _ = store_records(self.store)
            rows, _, _ = sync_text_rows(saved, ids, texts, tokenizer, self._rows_ahead)
        assert self._keyword_pool is not None  # only commit() calls this
        # commit() waits for it, then keeps the rows as _keyword_rows (used only while
        # its generation is the committed one)
        self._keyword_saving = self._keyword_pool.submit(_saved_rows, data, rows)

    def _keyword_tokenizer_now(self) -> BM25Tokenizer:
        return BM25Tokenizer.from_dict(tokenizer_options(self.manifest.extras))

    def _keyword_base(self) -> TextRows | None:
        """The keyword index the next commit starts from: this run's last commit's (while
        its generation is the committed one), else the committed generation's as saved
        (read once), else none (a new store, ``--rebuild``)."""
        committed = self._committed_data()
        mine = self._keyword_rows
        if mine is not None and committed is not None and mine.saved_in == committed.name:
            return mine  # this run's last commit wrote it
        if committed is None or self.rebuild:
            return None
        return self._committed_rows(committed)

    def _committed_rows(self, committed: Path) -> TextRows | None:
        """The committed generation's keyword index as saved (None: missing or damaged),
        read once: its files never change."""
        if self._loaded_rows is None or self._loaded_rows[0] != committed.name:
            self._loaded_rows = (committed.name, load_text_rows(committed)[0])
        return self._loaded_rows[1]

    def _changes_since_commit(
        self, saved: TextRows | None, committed: Path | None, tokenizer: BM25Tokenizer
    ) -> tuple[list[str], list[tuple[str, str, Any]]] | None:
        """What the store changed since the commit of ``committed`` (removed ids, added
        records), when the saved keyword index is known to be that commit's own, with
        this tokenizer, and the store reads that generation's documents file; else None.
        """
        if saved is None or committed is None or self.store is None:
            return None
        if saved.saved_in != committed.name or saved.tokenizer != tokenizer:
            return None  # not written by that generation's commit: not known to be in step
        changes = self.store._changes_since_save()
        if changes is None:
            return None
        documents_file, removed, added = changes
        if documents_file.resolve().parent != (committed / FAISS_FOLDER).resolve():
            return None
        return removed, added

    def _keyword_update(
        self, saved: TextRows | None, committed: Path | None, tokenizer: BM25Tokenizer
    ) -> TextRows | None:
        """The saved index updated by what changed since its commit (None when it cannot
        be: see :meth:`_changes_since_commit`; or when the result does not count the
        store's chunks, which a consistent pair always does)."""
        changes = self._changes_since_commit(saved, committed, tokenizer)
        if saved is None or changes is None:
            return None
        removed, added = changes
        ids = [record[0] for record in added]
        texts = [record[1] for record in added]
        rows = update_text_rows(saved, removed, ids, texts, self._rows_ahead)
        assert self.store is not None
        return rows if len(rows.ids) == self.store.count() else None

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
        the store): then a run with nothing else to do commits it repaired.

        An index its own generation's commit wrote, beside the documents file the store
        still reads unchanged, is the store's when it counts as many chunks: nothing is
        read back. Any other is compared id by id with the store.
        """
        committed = self._committed_data()
        if committed is None or self.store is None:
            return False
        saved = self._committed_rows(committed)
        tokenizer = self._keyword_tokenizer_now()
        if saved is None or saved.tokenizer != tokenizer:
            return True
        if self._changes_since_commit(saved, committed, tokenizer) == ([], []):
            return len(saved.ids) != self.store.count()
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


class _FolderRecords(SQLRecordManager):
    """The run's records (in memory, committed with the store): no intent log.

    index() logs each batch's keys as pending before writing them to the store, and
    clears them with their records, so that a run killed in between is finished by the
    next one. Here the store and the records are committed together, only at batch
    boundaries (where nothing is pending), and a killed run leaves the last commit, so
    the log could never be read; it cost ~4 us of CPU per chunk (two statements per
    batch and a look-up of the pending keys), about 5% of the run's own CPU. index()
    writes in the same order without it.
    """

    @property
    def keeps_intents(self) -> bool:
        return False


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


def _saved_rows(data: Path, rows: TextRows) -> TextRows:
    """Write ``rows`` as ``data``'s keyword index; the rows (a commit thread's job)."""
    save_text_rows(data, rows)
    return rows


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

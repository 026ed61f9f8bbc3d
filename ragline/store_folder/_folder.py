"""StoreFolder: open a store folder for reading, or for one run of writes.

Layout (all names relative to the folder)::

    ragline.json      the manifest (see _manifest.py)
    faiss/            the FAISS store (FAISS.save_local)
    records.sqlite    the record manager: each chunk's key and source (SQLRecordManager)
    bm25.json, bm25.npz   the keyword index over the stored chunks (see _text_index.py):
                      derived from the store, saved after it, repaired from it on open
    chat.sqlite       conversations of ``ragline chat`` (SQLChatMessageHistory); a file of
                      its own, since an index run replaces records.sqlite whole
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from ragline.core import (
    BaseRetriever,
    ConfigurationError,
    Document,
    InvalidInputError,
    PersistenceError,
)
from ragline.core._optional import require
from ragline.embeddings import Embeddings
from ragline.indexing import IndexingResult, SQLRecordManager, index
from ragline.retrievers import BM25Tokenizer
from ragline.store_folder._embeddings import (
    make_embeddings,
    require_embedding,
    same_vectors_names,
)
from ragline.store_folder._manifest import (
    MANIFEST_FILE,
    JSONValue,
    Manifest,
    read_manifest,
    write_manifest,
)
from ragline.store_folder._search import folder_retriever, tokenizer_options
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
DEFAULT_EMBEDDING = "minilm"
IDENTITY_KEY = "embedding_identity"  # the manifest entry: what decides the vectors
DEFAULT_CHUNK_SIZE = 1000
DEFAULT_CHUNK_OVERLAP = 150


class StoreFolder:
    """A folder holding a vector store, its manifest and its records.

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

    def exists(self) -> bool:
        """Whether the folder holds a store (a ``ragline.json``)."""
        return (self.path / MANIFEST_FILE).is_file()

    def embeddings(
        self, manifest: Manifest | None = None, *, show_progress: bool = False
    ) -> Embeddings:
        """The Embeddings the store was built with (queries must embed with the same)."""
        manifest = manifest or self.read_manifest()
        return make_embeddings(
            manifest.embedding, manifest.embedding_options, show_progress=show_progress
        )

    def open_store(
        self, *, embeddings: Embeddings | None = None, embedding: str | None = None
    ) -> VectorStore:
        """Load the folder's vector store, ready to search.

        Args:
            embeddings: the Embeddings for queries; default: those the manifest names.
            embedding: or the name of those Embeddings (``"minilm-torch"``), made with
                the manifest's options.

        Raises:
            PersistenceError: no store here, or its files are missing or corrupt.
            ConfigurationError: the embeddings give other vectors than the store's
                (another model, weights, precision ...; fp32 ONNX and torch are the same).
        """
        manifest = self.read_manifest()
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
        return FAISS.load_local(self.path / FAISS_FOLDER, embeddings)

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
        manifest = self.read_manifest()
        if store is None:
            store = self.open_store(embeddings=embeddings, embedding=embedding)
        tokenizer = BM25Tokenizer.from_dict(tokenizer_options(manifest.extras))
        return folder_retriever(
            self.path,
            store,
            tokenizer,
            search_type=search_type,
            search_kwargs=search_kwargs,
        )

    def writer(
        self,
        *,
        embedding: str | None = None,
        embedding_options: dict[str, JSONValue] | None = None,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        show_progress: bool = False,
    ) -> FolderWriter:
        """Open the folder for one run of writes (a context manager; commits on success).

        Args:
            embedding: the embedding name; default: the store's, else ``"minilm"``. A
                store built with another embedding is refused.
            embedding_options: options for a new store's embedding.
            chunk_size: recorded in the manifest (default: the store's, else 1000).
            chunk_overlap: recorded in the manifest (default: the store's, else 150).
            show_progress: let the embedding model show a progress bar.

        Raises:
            ConfigurationError: another embedding than the store was built with.
            MissingDependencyError: faiss or the embedding's package is missing (raised
                before anything is written).
        """
        return FolderWriter(
            self,
            embedding=embedding,
            embedding_options=embedding_options,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            show_progress=show_progress,
        )


class FolderWriter:
    """One run of writes to a store folder: the store and records, committed together.

    Use it through :meth:`StoreFolder.writer`. Inside the ``with`` block, :meth:`index`
    writes documents; leaving the block without an error commits (the store is saved
    and the records replaced), leaving it with one changes nothing on disk.
    """

    def __init__(
        self,
        folder: StoreFolder,
        *,
        embedding: str | None,
        embedding_options: dict[str, JSONValue] | None,
        chunk_size: int | None,
        chunk_overlap: int | None,
        show_progress: bool,
    ) -> None:
        self.folder = folder
        previous = read_manifest(folder.path)
        self.previous = previous
        built_with = previous.embedding if previous else None
        if embedding is None:
            embedding = built_with or DEFAULT_EMBEDDING
        elif built_with is not None and not same_vectors_names(embedding, built_with):
            raise ConfigurationError(
                f"{folder.path} was built with the {built_with!r} embedding, not "
                f"{embedding!r}; re-run with --embedding {built_with} or index into a new "
                f"--store folder"
            )
        require("faiss", "faiss")
        require_embedding(embedding)
        options = previous.embedding_options if previous else dict(embedding_options or {})
        self.manifest = Manifest(
            embedding=built_with or embedding,  # a MiniLM run on a store of another MiniLM
            embedding_options=options,
            chunk_size=_pick(
                chunk_size, previous.chunk_size if previous else None, DEFAULT_CHUNK_SIZE
            ),
            chunk_overlap=_pick(
                chunk_overlap, previous.chunk_overlap if previous else None, DEFAULT_CHUNK_OVERLAP
            ),
            documents=previous.documents if previous else 0,
            chunks=previous.chunks if previous else 0,
            extras=dict(previous.extras) if previous else {},
        )
        # the keyword index's tokenizer is fixed when the store is created
        self.manifest.extras.setdefault(
            "bm25", {"tokenizer": tokenizer_options(self.manifest.extras)}
        )
        self.embeddings = make_embeddings(embedding, options, show_progress=show_progress)
        if previous is not None:
            check_identity(previous, self.embeddings, folder.path)
        self.store: FAISS | None = None
        self.records: SQLRecordManager | None = None
        self._work_path = folder.path / f"{RECORDS_FILE}.{os.getpid()}-{os.urandom(4).hex()}.tmp"

    def __enter__(self) -> FolderWriter:
        path = self.folder.path
        if path.exists() and not path.is_dir():
            raise InvalidInputError(f"--store {path} is a file, not a folder")
        path.mkdir(parents=True, exist_ok=True)
        records_path = path / RECORDS_FILE
        # A store without records (or records without a store) starts over: its chunks
        # could not be matched to records, so they would never be cleaned up.
        resume = (
            self.previous is not None and records_path.is_file() and (path / FAISS_FOLDER).is_dir()
        )
        if resume:
            self.store = FAISS.load_local(path / FAISS_FOLDER, self.embeddings)
            shutil.copyfile(records_path, self._work_path)
        else:
            self.store = FAISS(self.embeddings)
        self.records = SQLRecordManager(
            RECORDS_NAMESPACE, db_url=f"sqlite:///{self._work_path.absolute()}"
        )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if error is None:
                self.commit()
        finally:
            if self.records is not None:
                self.records.close()
            for leftover in (self._work_path, *_sqlite_sidecars(self._work_path)):
                leftover.unlink(missing_ok=True)

    def index(
        self,
        documents: Iterable[Document],
        *,
        cleanup: str = "incremental",
        force_update: bool = False,
    ) -> IndexingResult:
        """Index chunks into the store, keyed by content, with their ``source`` as group.

        Args:
            documents: the chunks, those of one source together (as loaders yield them).
            cleanup: ``"incremental"`` (delete the stale chunks of the sources given) or
                ``"full"`` (also those of sources not given).
            force_update: re-embed and rewrite chunks already stored.
        """
        if self.store is None or self.records is None:
            raise InvalidInputError("FolderWriter.index() runs inside 'with folder.writer():'")
        if cleanup not in ("incremental", "full"):
            raise ConfigurationError(f"cleanup {cleanup!r} is not 'incremental' or 'full'")
        return index(
            documents,
            self.records,
            self.store,
            cleanup="full" if cleanup == "full" else "incremental",
            source_id_key="source",
            force_update=force_update,
        )

    def commit(self) -> None:
        """Save the store, then replace the records and the manifest."""
        if self.store is None or self.records is None:
            return
        path = self.folder.path
        self.manifest.chunks = self.store.count()
        self.manifest.documents = self.records.count_groups()
        identity = getattr(self.embeddings, "embedding_identity", None)
        if identity is not None and IDENTITY_KEY not in self.manifest.extras:
            self.manifest.extras[IDENTITY_KEY] = dict(identity)
        self.records.close()
        self.store.save_local(path / FAISS_FOLDER)
        self._save_keyword_index()
        os.replace(self._work_path, path / RECORDS_FILE)
        write_manifest(path, self.manifest)

    def _save_keyword_index(self) -> None:
        """Bring the saved keyword index in step with the saved store (only changed chunks
        are tokenized) and write it."""
        assert self.store is not None
        tokenizer = BM25Tokenizer.from_dict(tokenizer_options(self.manifest.extras))
        saved, _ = load_text_index(self.folder.path)
        ids, texts, _ = store_records(self.store)
        text_index, _, _ = sync_text_index(saved, ids, texts, tokenizer)
        save_text_index(self.folder.path, text_index)


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


def _pick(given: int | None, stored: int | None, default: int) -> int:
    if given is not None:
        return given
    return stored if stored is not None else default


def _sqlite_sidecars(path: Path) -> Sequence[Path]:
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


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

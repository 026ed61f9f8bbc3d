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
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragline.core import (
    BaseRetriever,
    ConfigurationError,
    PersistenceError,
)
from ragline.embeddings import Embeddings
from ragline.retrievers import BM25Tokenizer
from ragline.store_folder._embeddings import (
    make_embeddings,
    require_embedding,
    same_vectors_names,
)
from ragline.store_folder._manifest import (
    MANIFEST_FILE,
    RECOVERY_HINT,
    JSONValue,
    Manifest,
    read_manifest,
)
from ragline.store_folder._search import folder_retriever, tokenizer_options
from ragline.vectorstores import FAISS, VectorStore

if TYPE_CHECKING:
    from ragline.store_folder._writer import FolderWriter

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
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
INDEX_KEY = "index"  # the manifest entry: the faiss index kind asked for (auto, flat ...)
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
                ``hybrid``: ``k``, ``filter``, ``fetch_k`` and HybridRetriever's
                ``fusion``, ``dense_weight``, ``adaptivity``, ``coverage``,
                ``keyword_feedback``
                (``{"fusion": "relative_score", "dense_weight": 0.5, "fetch_k": 50}``:
                the hybrid default before issue 30).
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
        index: str | None = None,
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
            index: the faiss index kind: ``"auto"`` (flat up to 100,000 chunks, then
                rebuilt once as IVF-SQ8 with exact re-ranking), ``"flat"``, ``"hnsw"``,
                ``"ivf-pq"`` or ``"ivf-sq8"`` (see docs/scale.md); default: the store's,
                else auto. Applied when the run commits.

        Raises:
            InvalidInputError: the path is a file, not a folder.
            ConfigurationError: an unknown embedding or artifact, or another embedding
                than the store was built with.
            MissingDependencyError: faiss or the embedding's package is missing.
        """
        from ragline.store_folder._writer import FolderWriter  # it builds on this module

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
            index=index,
        )


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

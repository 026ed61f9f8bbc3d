"""FAISS: a vector store on a faiss index (faiss-cpu), saved as faiss file plus JSON.

The store keeps documents in Python and vectors in faiss, tied by int64 *labels*: each
stored document gets a fresh label, faiss holds its vector under that label
(``add_with_ids``), and two dicts map ``id -> label`` and ``label -> (id, text,
metadata)``. Replacing a document gives it a new label and removes the old vector, so
an index that cannot remove (HNSW) only ever masks stale labels.

Built as LangChain's (``FAISS.from_texts(texts, embeddings)``, or with
``distance_strategy=`` / ``normalize_L2=`` / ``relevance_score_fn=``), the store gives
LangChain's scores: Euclidean by default, faiss's raw score from
``similarity_search_with_score`` (squared L2, lower is closer) and LangChain's relevance
per strategy, except where LangChain's numbers are wrong (see
:mod:`ragline.vectorstores.faiss._scores`). ragline's own choice, cosine with relevance
``(1 + cos) / 2`` in [0, 1], is ``metric="cosine"``; the store folder and the CLI use it.

Metrics (``metric=``) and the native score of ``similarity_search_with_score``:

=================  ==========================  =======================================
metric             faiss                       native score
=================  ==========================  =======================================
``"cosine"``       inner product on unit       cosine similarity, higher is closer
                   vectors (normalized here)
``"inner_product"`` inner product              dot product, higher is closer
``"l2"``           L2                          squared Euclidean distance, lower closer
=================  ==========================  =======================================

Relevance scores are in [0, 1] for every metric (see the base class).

Filtered search runs inside faiss: the filter is turned into the set of matching labels
(:mod:`ragline.vectorstores._faiss_filters`) and handed to faiss as an ID selector; when
few documents match, their vectors are scored exactly instead (faster than a selector
scan, and an HNSW graph walk could miss them). Either way k documents come back
whenever k match.

Saved format (``save_local(folder, index_name="index")``), format version 3::

    folder/index.manifest.json      {"format": "ragline.faiss", "format_version": 3,
                                     "dimension", "metric", "index_factory", "trained",
                                     "count", "options", "index_file", "index_bytes",
                                     "documents_file", "documents_bytes",
                                     "checksum_algorithm" ("xxh3_128" or "sha256"),
                                     "index_checksum", "documents_checksum",
                                     "manifest_checksum" (of every other field)}
    folder/index.<token>.faiss      faiss.write_index of the index (labels included)
    folder/index.<token>.json       {"ids": [...], "texts": [...], "metadatas": [...]}
                                    parallel lists, in the order of the index's labels
                                    (increasing); a trained IVF index, which cannot
                                    list its labels, adds them: "labels": [...]

Format version 4 (``save_local(..., documents="sqlite")``, what the store folder
writes) keeps the documents in ``folder/index.<token>.sqlite`` instead of the JSON file
(the manifest adds ``"documents_format": "sqlite"`` and ``"next_label"``). Loading it
reads no document: the store reads each one when a search returns it, and keeps what
changed since in memory (see :mod:`ragline.vectorstores.faiss._records`); such a store
saves in SQLite again unless told otherwise.

Versions 1 (which wrote "labels" always) and 2 had no checksums; both still load, and
``save_local`` re-saves them as version 3 (or 4). Loading checks the checksums and the
faiss index against the manifest (see :mod:`ragline.vectorstores.faiss._files`).

Data files get a fresh random token on every save and are complete before the manifest
is replaced (``os.replace``, atomic), so a crash of the process at any point leaves a
folder whose manifest names a complete copy (``durable=True`` adds fsync calls so that
holds after a power cut too). No pickle is involved, so loading is safe.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragline.core import ConfigurationError, Document, InvalidInputError, PersistenceError
from ragline.core._checks import check_choice, check_optional_positive_int
from ragline.core.documents import stored_document
from ragline.embeddings import Embeddings
from ragline.vectorstores._validation import SearchPlan, copy_metadata, is_flat
from ragline.vectorstores.base import SearchHit, VectorStore
from ragline.vectorstores.faiss import _files as _faiss_files
from ragline.vectorstores.faiss._docstore import StoreDocstore, take_over
from ragline.vectorstores.faiss._filters import FilterIndex
from ragline.vectorstores.faiss._index import (
    IndexOptions,
    LabeledIndex,
    Snapshot,
    faiss_module,
    native,
    swig_ptr,
)
from ragline.vectorstores.faiss._records import DiskDocuments, DocumentTable
from ragline.vectorstores.faiss._scores import relevance_for, strategy_metric
from ragline.vectorstores.filters import FilterNode
from ragline.vectorstores.utils import METRICS, DistanceStrategy, mmr_picks

__all__ = ["FAISS"]

_Record = tuple[str, str, dict[str, Any]]  # (id, text, metadata)


# the squared lengths between which faiss's float32 normalisation neither overflows
# (float32 tops out at 3.4e38) nor loses a row's components to underflow (1.2e-38)
_SHORTEST, _LONGEST = 1e-20, 1e20
_SCORE_KINDS = {"cosine": "cosine_similarity", "inner_product": "inner_product", "l2": "squared_l2"}

# Score the matching vectors exactly when at most 1/16 of the index matches: gathering
# and scoring one vector costs about as much as 16 selector checks in a flat scan.
_EXACT_FRACTION = 16
# With vectors on disk (rerank), score at most this many matching vectors exactly (3 MB
# read at dimension 384: a millisecond); more
# go through the index with an ID selector (and a wider IVF probe, see _index.py).
_EXACT_ROWS = 2_000


class _FunctionEmbeddings(Embeddings):
    """A plain function of one text (``embeddings.embed_query``, as older LangChain code
    passes it) used as Embeddings: called once per text, for documents and queries."""

    def __init__(self, function: Callable[[str], list[float]]) -> None:
        self.function = function

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.function(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.function(text)


class FAISS(VectorStore):
    """A vector store on a faiss index: exact (Flat) or approximate (HNSW, IVF ...).

    Args:
        embedding_function: the Embeddings used for texts and queries (LangChain's name;
            ``embedding=`` also works); a plain function of one text (such as
            ``embeddings.embed_query``) is taken as LangChain takes it: called per text.
        index, docstore, index_to_docstore_id: LangChain's constructor: a faiss index
            (its dimension and metric are used; vectors it holds are taken over), a
            docstore with ``search(id)`` and the position -> id map for those vectors.
        relevance_score_fn: maps a native score to a relevance, as in LangChain (a value
            outside [0, 1] is clipped, with a warning).
        normalize_L2: scale vectors to unit length before storing and searching.
        distance_strategy: LangChain's ``DistanceStrategy`` (default
            ``EUCLIDEAN_DISTANCE`` unless ``metric`` is given): ``EUCLIDEAN_DISTANCE``,
            ``MAX_INNER_PRODUCT`` or ``COSINE``, scored as LangChain scores them.
        metric: ragline's metric instead of a strategy: ``"cosine"`` (ragline's choice,
            relevance ``(1 + cos) / 2``), ``"inner_product"`` or ``"l2"`` (see the module
            docstring for the native scores).
        index_factory: a faiss index-factory string: ``"Flat"`` (default, exact),
            ``"HNSW32"``, ``"IVF256,Flat"``, ``"IVF256,PQ16"`` ... without ``IDMap``.
        ef_search: HNSW only: search breadth (always at least k); default faiss's 16.
        ef_construction: HNSW only: build breadth; default faiss's 40.
        nprobe: IVF only: inverted lists visited per query; default faiss's 1.
        train_size: indexes that need training (IVF, PQ) are trained once this many
            vectors are stored, exact flat search until then; default 39 x nlist for
            IVF, 9,984 otherwise.
        rerank: for a compressed index (``"IVF4096,PQ48"``, ``"IVF1024,SQ8"``,
            ``"HNSW32,SQ8"`` ...): keep every vector at full precision on disk,
            memory-mapped, and return the exact best k of the index's ``rerank x k``
            candidates (ragline's option; see docs/scale.md). None: scores are the index's.
        dimension: the vector dimension, to build the index now (and check
            ``index_factory`` early); otherwise it is built on the first add.

    Raises:
        ConfigurationError: an unknown metric or strategy, both ``metric`` and
            ``distance_strategy``, a factory string faiss rejects, or an option that does
            not apply to the index type.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> store = FAISS.from_texts(
        ...     ["the cat sat", "stock prices fell"], HashingEmbeddings(dimension=64),
        ...     metric="cosine",
        ... )
        >>> store.similarity_search("a cat", k=1)[0].page_content
        'the cat sat'
    """

    _callable_filters = True  # filter=function(metadata) -> bool, as in LangChain

    def __init__(
        self,
        embedding_function: Embeddings | None = None,
        index: Any = None,
        docstore: Any = None,
        index_to_docstore_id: dict[int, str] | None = None,
        relevance_score_fn: Callable[[float], float] | None = None,
        normalize_L2: bool = False,
        distance_strategy: DistanceStrategy | str | None = None,
        *,
        embedding: Embeddings | None = None,
        metric: str | None = None,
        index_factory: str = "Flat",
        ef_search: int | None = None,
        ef_construction: int | None = None,
        nprobe: int | None = None,
        train_size: int | None = None,
        rerank: int | None = None,
        dimension: int | None = None,
    ) -> None:
        if embedding is not None and embedding_function is not None:
            raise ConfigurationError(
                "give the Embeddings once: embedding_function (LangChain's name) or embedding"
            )
        embedding = embedding if embedding is not None else embedding_function
        if embedding is None:
            raise ConfigurationError("FAISS needs an Embeddings (embedding_function=...)")
        if not isinstance(embedding, Embeddings) and callable(embedding):
            embedding = _FunctionEmbeddings(embedding)
        strategy: DistanceStrategy | None = None
        if metric is not None and distance_strategy is not None:
            raise ConfigurationError(
                f"give metric ({metric!r}, ragline's scores) or distance_strategy "
                f"({distance_strategy!r}, LangChain's scores), not both"
            )
        if metric is None:
            strategy, metric = strategy_metric(
                DistanceStrategy.EUCLIDEAN_DISTANCE
                if distance_strategy is None
                else distance_strategy
            )
        check_choice("metric", metric, METRICS)
        if relevance_score_fn is not None and not callable(relevance_score_fn):
            raise ConfigurationError(
                f"relevance_score_fn must be a function of one score, got {relevance_score_fn!r}"
            )
        if normalize_L2 and strategy not in (None, DistanceStrategy.EUCLIDEAN_DISTANCE):
            # LangChain warns the same and normalizes anyway
            warnings.warn(
                f"normalize_L2 does not fit distance_strategy {strategy.value}: vectors are "
                "normalized anyway (as LangChain does)",
                UserWarning,
                stacklevel=2,
            )
        if not isinstance(index_factory, str) or not index_factory.strip():
            raise ConfigurationError(
                f"index_factory must be a faiss index-factory string such as 'Flat', "
                f"'HNSW32' or 'IVF256,Flat', got {index_factory!r}"
            )
        for name, value in (
            ("ef_search", ef_search),
            ("ef_construction", ef_construction),
            ("nprobe", nprobe),
            ("train_size", train_size),
            ("rerank", rerank),
            ("dimension", dimension),
        ):
            check_optional_positive_int(name, value, error=ConfigurationError)
        self.embedding = embedding
        self.metric = metric
        self.distance_strategy = strategy
        # LangChain's strategies: faiss's float32, as LangChain's FAISS returns it
        self._score_out = float if strategy is None else np.float32
        self.override_relevance_score_fn = relevance_score_fn
        self._normalize_L2 = bool(normalize_L2)
        # stored and query vectors are scaled to unit length: checked on every search
        self._cosine = metric == "cosine" or self._normalize_L2
        self._relevance = relevance_for(strategy, _SCORE_KINDS[metric], relevance_score_fn)
        self._options = IndexOptions(
            factory=index_factory.strip(),
            inner_product=metric != "l2",
            ef_search=ef_search,
            ef_construction=ef_construction,
            nprobe=nprobe,
            train_size=train_size,
            rerank=rerank,
        )
        self._lock = threading.RLock()
        self._index: LabeledIndex | None = None
        self._use_table(DocumentTable())
        self._next_label = 0
        if dimension is not None:
            self._index = LabeledIndex(dimension, self._options)
        if index is not None or docstore is not None or index_to_docstore_id:
            take_over(self, index, docstore, index_to_docstore_id or {})

    def _use_table(self, table: DocumentTable) -> None:
        """Hold the documents in ``table`` (in memory, or a saved file plus changes)."""
        self._table = table
        # label -> (id, text, metadata) in label order (labels only grow), and id -> label
        self._records: MutableMapping[int, _Record] = table.records
        self._label_of: MutableMapping[str, int] = table.label_of
        self._flat: dict[int, bool] = {}  # label -> metadata holds only scalars (lazy cache)
        self._filters = FilterIndex(self._records)

    def __repr__(self) -> str:
        how = (
            f"metric={self.metric!r}"
            if self.distance_strategy is None
            else f"distance_strategy={self.distance_strategy.value!r}"
        )
        return f"FAISS({how}, index_factory={self._options.factory!r}, count={self.count()})"

    # relevance: LangChain's per strategy, or ragline's per metric (see _scores.py)
    def _scalar_relevance(self) -> Callable[[float], float]:
        return self._relevance

    def _relevance_scores(self, native: np.ndarray) -> np.ndarray:
        relevance = self._relevance
        return np.array([relevance(float(score)) for score in native], dtype=np.float64)

    # ------------------------------------------------------------------ primitives

    @property
    def embeddings(self) -> Embeddings:
        return self.embedding

    @property
    def embedding_function(self) -> Any:
        """LangChain's name for :attr:`embedding` (the function itself when one was given)."""
        if isinstance(self.embedding, _FunctionEmbeddings):
            return self.embedding.function
        return self.embedding

    @property
    def docstore(self) -> StoreDocstore:
        """The documents as LangChain's docstore: ``docstore._dict`` (id -> Document,
        built on each access) and ``docstore.search(id)``; read-only (write through
        ``add_documents`` / ``delete``)."""
        return StoreDocstore(self)

    @property
    def index_to_docstore_id(self) -> dict[int, str]:
        """faiss position -> document id, in the index's order (LangChain's map; built on
        each access)."""
        with self._lock:
            return {position: record[0] for position, record in enumerate(self._records.values())}

    def _all_documents(self) -> list[Document]:
        with self._lock:
            return [self._document(label) for label in self._records]

    @property
    def dimension(self) -> int | None:
        index = self._index
        return None if index is None else index.dimension

    @property
    def index_factory(self) -> str:
        """The faiss index-factory string of the index (see :meth:`change_index`)."""
        return self._options.factory

    @property
    def score_kind(self) -> str:
        return _SCORE_KINDS[self.metric]

    @property
    def index(self) -> Any:
        """The live faiss index (``None`` before the first add); read it, don't write it."""
        index = self._index
        return None if index is None else index.index

    def count(self) -> int:
        return len(self._records)

    def _changes_since_save(self) -> tuple[Path, list[str], list[_Record]] | None:
        """``(documents file, removed ids, added (id, text, metadata))`` since the store
        was loaded from, or last saved to, a SQLite documents file; None for a store
        whose documents are all in memory. For derived indexes kept beside a saved store
        (the store folder's keyword index): they update by what changed, not by reading
        every document back."""
        with self._lock:
            return self._table.changes()

    def _upsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        if self._cosine:  # then cosine is faiss's inner product
            _normalize_in_place(vectors)  # the store's own copy (see VectorStore._upsert)
        with self._lock:
            self._add(ids, vectors, texts, metadatas)

    def _add(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        """Add under the lock; all or nothing: on any failure faiss and the dicts are as before."""
        index = self._index
        created = index is None
        if index is None:
            index = LabeledIndex(vectors.shape[1], self._options)
        first = self._next_label
        labels = np.arange(first, first + len(ids), dtype=np.int64)
        label_of = self._label_of
        previous = self._table.existing(ids)
        index.add(vectors, labels)  # adds every vector or none
        new_labels = range(first, first + len(ids))
        try:
            self._store(ids, new_labels, texts, metadatas)
        except BaseException:
            for label in new_labels:
                self._records.pop(label, None)
                self._flat.pop(label, None)
            for doc_id in ids:
                label_of.pop(doc_id, None)
            label_of.update(previous)
            index.remove(labels)
            raise
        self._next_label = first + len(ids)
        if created:
            self._index = index
        if previous:  # replaced documents: their old vectors go
            for label in previous.values():
                del self._records[label]
                self._flat.pop(label, None)
            index.remove(list(previous.values()))
        self._filters.clear()

    def _store(
        self, ids: list[str], labels: range, texts: list[str], metadatas: list[dict[str, Any]]
    ) -> None:
        self._records.update(zip(labels, zip(ids, texts, metadatas, strict=True), strict=True))
        self._label_of.update(zip(ids, labels, strict=True))

    def delete(self, ids: Sequence[str]) -> bool:  # type: ignore[override]
        """Delete the documents with these ids (ids not stored are ignored); returns
        ``True``, as LangChain's ``FAISS.delete`` does.

        Example:
            >>> from ragline.embeddings import HashingEmbeddings
            >>> store = FAISS.from_texts(["a", "b"], HashingEmbeddings(dimension=8), ids=["x", "y"])
            >>> store.delete(["x"]), store.get_by_ids(["x", "y"])[0].id
            (True, 'y')
        """
        super().delete(ids)
        return True

    async def adelete(self, ids: Sequence[str]) -> bool:  # type: ignore[override]
        """Async :meth:`delete`; returns ``True``."""
        await super().adelete(ids)
        return True

    def _delete(self, ids: list[str]) -> None:
        with self._lock:
            labels = [self._label_of[doc_id] for doc_id in ids if doc_id in self._label_of]
            if not labels or self._index is None:
                return
            self._index.remove(labels)
            for label in labels:
                doc_id = self._records.pop(label)[0]
                del self._label_of[doc_id]
                self._flat.pop(label, None)
            self._filters.clear()

    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        with self._lock:
            found = [self._label_of.get(doc_id) for doc_id in ids]
            return [self._document(label) for label in found if label is not None]

    def _held_ids(self, ids: list[str]) -> set[str]:
        with self._lock:
            return {doc_id for doc_id in ids if doc_id in self._label_of}

    def _document(self, label: int) -> Document:
        doc_id, text, metadata = self._records[label]
        return stored_document(text, copy_metadata(metadata), doc_id)

    def _check_queries(self, vectors: Any, dimension: int | None) -> np.ndarray:
        # One query, already a float32 row of the right shape: faiss's C norm tells it is
        # finite. numpy's reductions cost several microseconds here, where their code is
        # cold after every faiss scan. Anything else (or a non-finite norm, which may also
        # be an overflow) goes through the base class's full check.
        # (A dimension means an index, so faiss is imported and ``native`` is set.) A
        # squared length outside (_SHORTEST, _LONGEST), NaN included, takes the full check.
        if (
            type(vectors) is np.ndarray
            and vectors.dtype == np.float32
            and vectors.shape == (1, dimension)
            and vectors.flags.c_contiguous
            and _SHORTEST < native.norm_squared(native.pointer(vectors), dimension) < _LONGEST
        ):
            return vectors
        checked = super()._check_queries(vectors, dimension)
        return _safe_lengths(checked, copy=True) if self._cosine else checked

    def _search(
        self,
        queries: np.ndarray,
        k: int,
        filter: FilterNode | None,
        *,
        with_vectors: bool,
    ) -> list[list[SearchHit]]:
        if self._cosine:
            queries = _unit_rows(queries)
        with self._lock:
            found = self._nearest(queries, k, filter)
            if found is None:
                return [[] for _ in range(len(queries))]
            return self._hits(*found, with_vectors)

    def _mmr_hits(self, queries: np.ndarray, plan: SearchPlan) -> list[list[SearchHit]]:
        """MMR on faiss's labels and vectors; Documents only for the ``plan.k`` picked."""
        unit = _unit_rows(queries) if self._cosine else queries
        with self._lock:
            found = self._nearest(unit, plan.fetch_k, plan.filter)
            if found is None:
                return [[] for _ in range(len(queries))]
            assert self._index is not None
            rows = [(s[labels >= 0], labels[labels >= 0]) for s, labels in zip(*found, strict=True)]
            vectors = [self._index.vectors(labels) for _, labels in rows]
        # the picking (seconds for a large k and fetch_k) works on the copied vectors,
        # outside the lock, so other searches of the store (a server's small ones) go on
        picks = mmr_picks(queries, vectors, k=plan.k, lambda_mult=plan.lambda_mult)
        with self._lock:  # a record deleted meanwhile is left out, never half-read
            document, records = self._hit_document, self._records
            return [
                [SearchHit(document(int(labels[i])), float(scores[i]), row[i])
                 for i in chosen if int(labels[i]) in records]
                for (scores, labels), row, chosen in zip(rows, vectors, picks, strict=True)
            ]  # fmt: skip

    def _nearest(
        self, queries: np.ndarray, k: int, filter: FilterNode | None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """faiss's (scores, labels) of the k nearest per query, label -1 for none; None
        when nothing can match. Call under the lock; cosine queries already unit length."""
        index, table = self._index, self._table
        # len(self._records) forwards to len(table), which counts table.added in memory
        stored = len(table.added) if table.base is None else len(table)
        if index is None or not stored:
            return None
        allowed = None if filter is None else self._filters.labels(filter)
        available = stored if allowed is None else len(allowed)
        if available == 0:
            return None
        take = min(k, available)
        if allowed is not None and (
            len(allowed) <= _EXACT_ROWS
            if index.reranks  # rows come from disk: exact only while that is cheap
            else len(allowed) * _EXACT_FRACTION <= index.ntotal
        ):
            return index.exact(queries, take, allowed)
        scores, labels = index.search(queries, take, allowed, label_bound=self._next_label)
        if index.kind != "flat" or index.masked:  # approximate: may come back short
            self._fill_short_rows(queries, take, allowed, scores, labels)
        return scores, labels

    def _fill_short_rows(
        self,
        queries: np.ndarray,
        take: int,
        allowed: np.ndarray | None,
        scores: np.ndarray,
        labels: np.ndarray,
    ) -> None:
        """Redo exactly the queries an approximate index answered with fewer than ``take``."""
        last = labels[:, take - 1]
        if last.min() >= 0:
            return
        short = np.flatnonzero(last < 0)
        assert self._index is not None
        if allowed is None:
            allowed = self._table.labels()
        scores[short], labels[short] = self._index.exact(queries[short], take, allowed)

    def _hits(
        self, scores: np.ndarray, labels: np.ndarray, with_vectors: bool
    ) -> list[list[SearchHit]]:
        """SearchHits from faiss's arrays (label -1 = no result). The hot path of every
        search: one tolist() per array, then plain Python objects."""
        document = self._hit_document
        if with_vectors:
            assert self._index is not None
            rows = iter(self._index.vectors(labels[labels >= 0]))
            return [
                [
                    SearchHit(document(label), score, next(rows))
                    for score, label in zip(row_scores, row_labels, strict=True)
                    if label >= 0
                ]
                for row_scores, row_labels in zip(scores.tolist(), labels.tolist(), strict=True)
            ]
        # the one-query hot path: _hit_document inlined for a record seen before with
        # flat metadata (``in`` and ``[]`` rather than .get(): no call, which pays for
        # stored_document's), and tuple.__new__ since SearchHit's own constructor adds
        # a Python-level call
        table = self._table  # in memory: the plain dict, the fastest look-up
        records = table.added if table.base is None else self._records
        flat_of, new_hit = self._flat, tuple.__new__
        results = []
        for row_scores, row_labels in zip(scores.tolist(), labels.tolist(), strict=True):
            hits = []
            for score, label in zip(row_scores, row_labels, strict=True):
                if label < 0:
                    continue
                if label in flat_of and flat_of[label]:  # noqa: RUF019 (no call: see above)
                    doc_id, text, metadata = records[label]
                    found = stored_document(text, dict(metadata), doc_id)
                else:
                    found = document(label)  # first sight of the record, or nested metadata
                hits.append(new_hit(SearchHit, (found, score, None)))
            results.append(hits)
        return results

    def _hit_document(self, label: int) -> Document:
        """A fresh Document of a stored record: a flat metadata copy unless the metadata
        holds containers (checked once per record, then cached)."""
        doc_id, text, metadata = self._records[label]
        flat = self._flat.get(label)
        if flat is None:
            flat = self._flat[label] = is_flat(metadata)
        return stored_document(text, dict(metadata) if flat else copy_metadata(metadata), doc_id)

    # ------------------------------------------------------------------ changing the index

    def change_index(
        self,
        index_factory: str = "Flat",
        *,
        nprobe: int | None = None,
        ef_search: int | None = None,
        ef_construction: int | None = None,
        rerank: int | None = None,
        train_size: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch_size: int = 65_536,
    ) -> None:
        """Build the faiss index again in another form from the stored vectors (ragline's
        own method): a store that outgrew its flat index becomes ``"IVF4096,SQ8"`` with
        ``rerank=4``, say. Documents, ids and labels stay; searches wait meanwhile.

        An index that needs training is trained on a seeded random sample of
        ``train_size`` stored vectors (default as in the constructor).

        Args:
            index_factory, nprobe, ef_search, ef_construction, rerank, train_size: as in
                the constructor.
            progress: called with (vectors added, total) after each batch.
            batch_size: vectors moved per batch.

        Raises:
            ConfigurationError: as the constructor; the store is unchanged.

        Example:
            >>> store.change_index("IVF1024,SQ8", nprobe=16, rerank=4)  # doctest: +SKIP
        """
        for name, value in (
            ("nprobe", nprobe), ("ef_search", ef_search), ("ef_construction", ef_construction),
            ("rerank", rerank), ("train_size", train_size), ("batch_size", batch_size),
        ):  # fmt: skip
            check_optional_positive_int(name, value, error=ConfigurationError)
        options = IndexOptions(
            factory=index_factory.strip(),
            inner_product=self._options.inner_product,
            ef_search=ef_search,
            ef_construction=ef_construction,
            nprobe=nprobe,
            train_size=train_size,
            rerank=rerank,
        )
        with self._lock:
            old = self._index
            if old is None:
                self._options = options
                return
            new = LabeledIndex(old.dimension, options)  # a bad option raises here
            labels = self._table.labels()
            total = len(labels)
            if not new.trained and total >= new.train_size:
                rng = np.random.default_rng(0)
                sample = np.sort(rng.choice(labels, size=new.train_size, replace=False))
                new.train(old.vectors(sample))
            for start in range(0, total, batch_size):
                part = labels[start : start + batch_size]
                new.add(old.vectors(part), part)
                if progress is not None:
                    progress(min(start + batch_size, total), total)
            self._index, self._options = new, options

    # ------------------------------------------------------------------ MMR with scores

    def max_marginal_relevance_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        *,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
    ) -> list[tuple[Document, float]]:
        """MMR from a query vector, each pick with its native score (LangChain's FAISS name).

        The picks are :meth:`max_marginal_relevance_search_by_vector`'s; each comes with
        the score :meth:`similarity_search_with_score` gives it for the same query (a
        distance for L2 and cosine distance, a similarity for inner product).

        Raises:
            InvalidInputError: k or fetch_k < 1, or lambda_mult outside [0, 1].
        """
        from ragline.vectorstores._search_api import _one_vector

        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        return self._search_vectors(_one_vector(embedding), plan, scores=True)[0]  # type: ignore[no-any-return]

    async def amax_marginal_relevance_search_with_score_by_vector(
        self,
        embedding: Sequence[float],
        *,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
    ) -> list[tuple[Document, float]]:
        """Async :meth:`max_marginal_relevance_search_with_score_by_vector`."""
        from ragline.vectorstores._search_api import _one_vector

        plan = SearchPlan.mmr(k, fetch_k, lambda_mult, filter)
        found = await self._asearch_vectors(_one_vector(embedding), plan, scores=True)
        return found[0]  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ merging

    def merge_from(self, other: FAISS) -> None:
        """Add every document (and its stored vector) of another FAISS store to this one.

        Args:
            other: a FAISS store with the same metric and dimension; it is not changed.

        Raises:
            InvalidInputError: ``other`` is not a FAISS store, is this store, has another
                metric or dimension, or holds an id this store already has (the message
                names them); nothing is changed.

        Example:
            >>> first.merge_from(second)  # doctest: +SKIP
        """
        if not isinstance(other, FAISS):
            raise InvalidInputError(f"merge_from takes a FAISS store, got {type(other).__name__}")
        if other is self:
            raise InvalidInputError("a FAISS store cannot be merged into itself")
        if other.metric != self.metric:
            raise InvalidInputError(
                f"cannot merge a store with metric {other.metric!r} into one with metric "
                f"{self.metric!r}"
            )
        with other._lock:
            if other._index is None or not other._records:
                return
            labels = other._table.labels()
            vectors = other._index.vectors(labels)
            records = list(other._records.values())
        with self._lock:
            if self.dimension is not None and self.dimension != vectors.shape[1]:
                raise InvalidInputError(
                    f"cannot merge a store of dimension {vectors.shape[1]} into one of "
                    f"dimension {self.dimension}"
                )
            clashes = [doc_id for doc_id, _, _ in records if doc_id in self._label_of]
            if clashes:
                raise InvalidInputError(
                    f"cannot merge: {len(clashes)} id(s) are in both stores, e.g. "
                    f"{', '.join(map(repr, clashes[:5]))}; delete them from one store first"
                )
            ids, texts, metadatas = zip(*records, strict=True)
            self._add(list(ids), vectors, list(texts), list(map(copy_metadata, metadatas)))

    # ------------------------------------------------------------------ persistence

    def save_local(
        self,
        folder_path: str | Path,
        index_name: str = "index",
        *,
        durable: bool = False,
        documents: str | None = None,
    ) -> None:
        """Save the store to a folder: the faiss index file plus the documents (see module
        docstring), as JSON or as SQLite.

        The save is atomic: until the new manifest replaces the old one, the folder
        still holds the previous copy, complete. Deleted vectors that an HNSW index
        could only mask are dropped first (the index is rebuilt).

        Args:
            folder_path: the folder (created when missing).
            index_name: the file-name prefix, so one folder can hold several stores.
            durable: also fsync the files and the folder, so the new copy survives a
                power cut, not only a crash of the process (slower: the data is
                flushed to disk before returning).
            documents: ``"json"`` (one JSON file, read whole on load; format 3) or
                ``"sqlite"`` (a SQLite file that a load opens without reading: the store
                then reads a document only when a search returns it; format 4). Default:
                ``"sqlite"`` for a store loaded from SQLite, else ``"json"``.

        Raises:
            InvalidInputError: a metadata value JSON cannot hold (names the document).
            PersistenceError: the files cannot be written.

        Example:
            >>> store.save_local("my_index")  # doctest: +SKIP
        """
        if documents is None:
            documents = "sqlite" if self._table.base is not None else "json"
        check_choice("documents", documents, ("json", "sqlite"))
        with self._lock:
            snapshot = self.snapshot() if documents == "json" else self._table_snapshot()
            written = _faiss_files.save(snapshot, Path(folder_path), index_name, durable=durable)
            if documents == "sqlite":  # the saved file now holds every document: read it
                self._use_table(DocumentTable(DiskDocuments(written)))

    def _table_snapshot(self) -> Snapshot:
        """A snapshot that hands over the document table instead of lists (a save in SQLite)."""
        index = self._index
        if index is not None and index.masked:
            index.rebuild()
        return Snapshot(
            metric=self.metric,
            options=self._options,
            index=index,
            ids=[],
            texts=[],
            metadatas=[],
            labels=[],
            normalize_L2=self._normalize_L2,
            distance_strategy=(
                None if self.distance_strategy is None else self.distance_strategy.value
            ),
            table=self._table,
            next_label=self._next_label,
        )

    @classmethod
    def load_local(
        cls,
        folder_path: str | Path,
        embeddings: Embeddings,
        index_name: str = "index",
        *,
        allow_dangerous_deserialization: bool = False,
    ) -> FAISS:
        """Load a store written by :meth:`save_local`.

        Args:
            folder_path: the folder given to ``save_local``.
            embeddings: the Embeddings for queries (the same model as when saved).
            index_name: the file-name prefix given to ``save_local``.
            allow_dangerous_deserialization: accepted so LangChain code ports unchanged;
                ignored, since the format holds no pickle.

        Raises:
            PersistenceError: the folder or a file is missing, truncated or corrupt, or
                was written by a newer format version.

        Example:
            >>> store = FAISS.load_local("my_index", embeddings)  # doctest: +SKIP
        """
        snapshot = _faiss_files.load(Path(folder_path), index_name)
        try:
            return cls.restore(snapshot, embeddings)
        except InvalidInputError as err:  # caught here, not by a loop in the load path
            raise PersistenceError(
                f"the documents file of {index_name!r} in {str(folder_path)!r} is corrupt: {err}"
            ) from err

    def snapshot(self) -> Snapshot:
        """The store's whole state, for persistence (see :class:`Snapshot`).

        Deleted vectors that an HNSW index could only mask are dropped first (the index
        is rebuilt). The snapshot shares the live faiss index: read it while holding
        the store's lock (``save_local`` does), or copy what you need.
        """
        with self._lock:
            index = self._index
            if index is not None and index.masked:
                index.rebuild()
            records = self._records
            return Snapshot(
                metric=self.metric,
                options=self._options,
                index=index,
                ids=[record[0] for record in records.values()],
                texts=[record[1] for record in records.values()],
                metadatas=[record[2] for record in records.values()],
                labels=list(records),
                normalize_L2=self._normalize_L2,
                distance_strategy=(
                    None if self.distance_strategy is None else self.distance_strategy.value
                ),
            )

    @classmethod
    def restore(cls, snapshot: Snapshot, embeddings: Embeddings) -> FAISS:
        """A new store holding a snapshot's state (the store takes the snapshot's index
        and metadata dicts as its own).

        Raises:
            InvalidInputError: the snapshot's lists differ in length, its ids repeat, or
                its labels do not increase.
        """
        options = snapshot.options
        how: dict[str, Any] = (
            {"metric": snapshot.metric}
            if snapshot.distance_strategy is None
            else {"distance_strategy": snapshot.distance_strategy}
        )
        with warnings.catch_warnings():  # the normalize_L2 warning was given when built
            warnings.simplefilter("ignore", UserWarning)
            store = cls(
                embeddings,
                normalize_L2=snapshot.normalize_L2,
                **how,
                index_factory=options.factory,
                ef_search=options.ef_search,
                ef_construction=options.ef_construction,
                nprobe=options.nprobe,
                train_size=options.train_size,
                rerank=options.rerank,
            )
        if snapshot.table is not None:  # documents on disk: nothing to read now
            if snapshot.next_label is None:
                raise InvalidInputError("a snapshot with a document table needs next_label")
            store._use_table(snapshot.table)
            store._index = snapshot.index
            store._next_label = snapshot.next_label
            return store
        ids, labels = snapshot.ids, snapshot.labels
        if not len(ids) == len(snapshot.texts) == len(snapshot.metadatas) == len(labels):
            raise InvalidInputError(
                "a snapshot's ids, texts, metadatas and labels differ in length"
            )
        if ids and snapshot.index is None:
            raise InvalidInputError("a snapshot with documents needs an index")
        if labels != sorted(labels):  # C-level passes: a load of 100k documents feels loops
            raise InvalidInputError("a snapshot's labels must be increasing")
        store._records.update(
            zip(labels, zip(ids, snapshot.texts, snapshot.metadatas, strict=True), strict=True)
        )
        store._label_of.update(zip(ids, labels, strict=True))
        if len(store._table.added_ids) != len(ids):
            raise InvalidInputError("a snapshot's ids must be unique")
        if len(store._table.added) != len(labels):
            raise InvalidInputError("a snapshot's labels must be unique")
        store._index = snapshot.index
        store._next_label = labels[-1] + 1 if labels else 0
        return store


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    """A unit-length copy of every row (zero rows stay zero), normalized by faiss in C++.

    Several times cheaper than numpy's norm-and-divide for one query, which matters on
    the single-query hot path; faiss's C function is called directly (see ``native``).
    """
    if vectors.dtype == np.float32 and vectors.flags.c_contiguous:
        unit = vectors.copy()  # the checked usual case: no conversion call
    else:
        unit = np.array(vectors, dtype=np.float32, order="C", copy=True)
    if native.normalize is None:
        faiss_module()
    native.normalize(unit.shape[1], unit.shape[0], native.pointer(unit))
    return unit


def _safe_lengths(vectors: np.ndarray, *, copy: bool) -> np.ndarray:
    """``vectors`` with every row whose squared length is not in ``(_SHORTEST, _LONGEST)``
    divided by its largest absolute value: the same direction (all cosine sees), a
    length faiss's float32 normalisation can compute. Beyond it that sum of squares
    overflows to inf or underflows to 0, and the row came out zero or NaN: a query that
    found nothing in order, a stored vector never found again. Zero rows stay zero.
    The rows changed are a copy's when ``copy`` (the matrix may be the caller's)."""
    squared = np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)  # exact range
    unsafe = (squared > 0) & ((squared <= _SHORTEST) | (squared >= _LONGEST))
    if not unsafe.any():
        return vectors
    if copy:
        vectors = vectors.copy()
    rows = vectors[unsafe]
    vectors[unsafe] = rows / np.abs(rows).max(axis=1, keepdims=True)
    return vectors


def _normalize_in_place(vectors: np.ndarray) -> None:
    """Scale every row of a C-contiguous float32 matrix to unit length (zero rows stay
    zero), rows of extreme length too (see ``_safe_lengths``)."""
    faiss = faiss_module()
    _safe_lengths(vectors, copy=False)
    faiss.fvec_renorm_L2(vectors.shape[1], vectors.shape[0], swig_ptr(vectors))

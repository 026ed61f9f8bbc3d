"""The faiss side of the FAISS store: one faiss index addressed by int64 labels.

:class:`LabeledIndex` hides the differences between faiss index types behind five
operations the store needs (add, remove, search, exact search over given labels,
vectors of given labels) and keeps three promises:

* **Labels are ours.** Every vector is added with ``add_with_ids`` under an int64 label
  the store chose (the store maps its string ids to labels). Flat, HNSW and other
  non-IVF indexes are wrapped in ``IndexIDMap2`` (which can also reconstruct by label);
  IVF indexes take labels natively. Without ``rerank`` they get a hash-table direct map
  so they can reconstruct and remove by label; with ``rerank`` the vectors come from
  the :class:`VectorFile` and a removal scans the lists (20 to 30 ms per call at 1M
  vectors), so neither a build nor an open pays for the table (see ``docs/scale.md``).
* **Opening maps, the first change copies.** A trained IVF index read from a file has
  its inverted lists memory-mapped, read-only (:func:`read_flags`): opening reads only
  the coarse quantizer. Before its first change (add, remove, write) the lists are
  copied into memory (:meth:`LabeledIndex._writable`).
* **Deleting really deletes.** Where faiss can remove (Flat, IVF ...) the vectors are
  removed. Where it cannot (HNSW), the labels are *masked*: an ID selector excludes
  them from every search, and :meth:`LabeledIndex.rebuild` drops them for good.
* **Training waits for data.** An index that must be trained (IVF, PQ ...) is trained
  once ``train_size`` vectors exist; until then vectors live in an exact flat index, so
  a young store already answers exactly.

Not thread-safe by itself: the store holds a lock around every call.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragline.core import ConfigurationError
from ragline.core._optional import require
from ragline.vectorstores.faiss._vectors import VectorFile

__all__ = ["IndexOptions", "LabeledIndex", "Snapshot", "faiss_module", "read_flags"]

# faiss's own advice for k-means: at least 39 training points per centroid.
_POINTS_PER_CENTROID = 39
# PQ and other codebooks train 256 centroids per sub-quantizer.
_DEFAULT_TRAIN_SIZE = _POINTS_PER_CENTROID * 256

_faiss: Any = None
_swig_ptr: Any = None


class _Native:
    """faiss's C functions that the single-query path calls, set when faiss is imported
    (:func:`faiss_module`; every :class:`LabeledIndex` has imported it). faiss's
    ``fvec_norm_L2sqr`` and the like are Python wrappers around these: calling the C
    functions saves a Python frame each, which a query pays after every scan has
    evicted the interpreter's caches."""

    pointer: Any = None  # swig_ptr(array): the array's data for a C call
    norm_squared: Any = None  # fvec_norm_L2sqr(pointer, d) -> float
    normalize: Any = None  # fvec_renorm_L2(d, n, pointer): rows to unit length in place


native = _Native()


def faiss_module() -> Any:
    """Import faiss once (or raise MissingDependencyError naming the ``faiss`` extra)."""
    global _faiss, _swig_ptr
    if _faiss is None:
        faiss = require("faiss", "faiss", package="faiss-cpu")
        # faiss.swig_ptr is a Python wrapper around the C function: calling the C function
        # itself saves a call layer on each of the pointers a single query needs
        c_module = getattr(faiss, "_swigfaiss", None)
        _swig_ptr = getattr(c_module, "swig_ptr", None) or faiss.swig_ptr
        native.pointer = _swig_ptr
        native.norm_squared = getattr(c_module, "fvec_norm_L2sqr", None) or faiss.fvec_norm_L2sqr
        native.normalize = getattr(c_module, "fvec_renorm_L2", None) or faiss.fvec_renorm_L2
        _faiss = faiss
    return _faiss


def _pointer_function() -> Any:
    if _swig_ptr is None:
        faiss_module()
    return _swig_ptr


def swig_ptr(array: Any) -> Any:
    """faiss's pointer to a numpy array's data (for the C++ calls)."""
    if _swig_ptr is None:
        faiss_module()
    return _swig_ptr(array)  # type: ignore[misc]


@dataclass(frozen=True)
class IndexOptions:
    """How to build the index; checked by the store before anything is built.

    Attributes:
        factory: a faiss index-factory string ("Flat", "HNSW32", "IVF256,Flat" ...).
        inner_product: True for the inner-product metric, False for (squared) L2.
        ef_search: HNSW search breadth (raised to k when k is larger); None = faiss's 16.
        ef_construction: HNSW build breadth; None = faiss's 40.
        nprobe: IVF lists visited per query; None = faiss's 1.
        train_size: how many vectors to collect before training; None = 39 x nlist for
            IVF, 9,984 for other trained indexes.
        rerank: keep full-precision vectors on disk (memory-mapped) and re-rank
            ``rerank x k`` candidates of the index by their exact scores; None = off.
    """

    factory: str = "Flat"
    inner_product: bool = True
    ef_search: int | None = None
    ef_construction: int | None = None
    nprobe: int | None = None
    train_size: int | None = None
    rerank: int | None = None


@dataclass(frozen=True)
class Snapshot:
    """A FAISS store's whole state, as persistence writes and reads it.

    ``FAISS.snapshot()`` gives one (the ``index`` is the store's live index: use the
    snapshot while holding the store's lock, as ``save_local`` does);
    ``FAISS.restore(snapshot, embeddings)`` builds a store from one. The four lists are
    parallel, in increasing label order (the order faiss lists its vectors in).

    Attributes:
        metric: ``"cosine"``, ``"inner_product"`` or ``"l2"``.
        options: the index settings (factory string, HNSW / IVF options).
        index: the faiss index, or None for a store that never held a vector.
        ids, texts, metadatas: the documents.
        labels: each document's faiss label (increasing).
        normalize_L2: vectors are scaled to unit length before they are stored or
            searched (LangChain's ``normalize_L2``; implied by the cosine metric).
        distance_strategy: the LangChain strategy name the store was built with (its
            scores follow LangChain's), or None for a store built with ``metric=``.
        table: the documents as a :class:`~ragline.vectorstores.faiss._records.DocumentTable`
            instead of the four lists (which are then empty): a save in SQLite, or a
            store loaded from one.
        next_label: the next fresh label, with ``table``.
    """

    metric: str
    options: IndexOptions
    index: LabeledIndex | None
    ids: list[str]
    texts: list[str]
    metadatas: list[dict[str, Any]]
    labels: list[int]
    normalize_L2: bool = False
    distance_strategy: str | None = None
    table: Any = None
    next_label: int | None = None


class LabeledIndex:
    """A faiss index whose vectors are addressed by caller-chosen int64 labels.

    Args:
        dimension: the vector dimension.
        options: what to build (see :class:`IndexOptions`).

    Raises:
        ConfigurationError: faiss rejects the factory string for this dimension, or an
            option does not apply to the index type (``ef_search`` on a Flat index ...).

    Example:
        >>> index = LabeledIndex(2, IndexOptions("Flat"))
        >>> index.add(np.eye(2, dtype=np.float32), np.array([7, 9]))
        >>> query = np.array([[0.0, 1.0]], dtype=np.float32)
        >>> index.search(query, 1, None, label_bound=10)[1].tolist()
        [[9]]
    """

    def __init__(self, dimension: int, options: IndexOptions) -> None:
        self.dimension = dimension
        self.options = options
        faiss = faiss_module()
        self._metric = faiss.METRIC_INNER_PRODUCT if options.inner_product else faiss.METRIC_L2
        target, self.kind = self._build_target()
        flat = (
            self.kind == "flat"
        )  # known answers: skip the probes (a 1k-document build feels them)
        # IVF removes (scanning its lists without a direct map); probing would start
        # faiss's thread pool, tens of milliseconds on a busy machine
        self.removable = flat or self.kind == "ivf" or _can_remove(target)
        self.train_size = 0 if flat else self._train_size(target)
        # until the target is trained, vectors wait in an exact flat index
        self._target: Any = None if target.is_trained else target
        self.index: Any = target if target.is_trained else self._flat()
        self.masked: set[int] = set()  # labels deleted from an index that cannot remove
        self._mask_selector: Any = None
        self._params_cache: dict[tuple[int, int], Any] = {}
        self._hnsw_cache: tuple[Any, Any] | None = None
        self._bitmap_cache: tuple[np.ndarray, int, Any] | None = None
        self._mapped = False  # inverted lists memory-mapped from a file (read-only)
        # the background checksum of the file this index was read from, until it matched
        # (see _files.LateChecksum): called with wait=, True once checked, raises if not
        self.pending_check: Any = None
        # full-precision vectors for exact re-ranking (compressed indexes)
        self.full: VectorFile | None = None if options.rerank is None else VectorFile(dimension)

    # ------------------------------------------------------------------ building

    def _flat(self) -> Any:
        faiss = faiss_module()
        return faiss.IndexIDMap2(faiss.IndexFlat(self.dimension, self._metric))

    def _build_target(self) -> tuple[Any, str]:
        faiss = faiss_module()
        options = self.options
        if "idmap" in options.factory.lower():
            raise ConfigurationError(
                f"index_factory {options.factory!r}: leave out 'IDMap', the store maps ids itself"
            )
        try:
            if options.factory == "Flat":  # the default, built directly: parsing costs more
                base = faiss.IndexFlat(self.dimension, self._metric)
            else:
                base = faiss.index_factory(self.dimension, options.factory, self._metric)
        except RuntimeError as err:
            raise ConfigurationError(
                f"faiss cannot build index_factory {options.factory!r} for dimension "
                f"{self.dimension}: {_first_line(err)}"
            ) from err
        ivf = faiss.try_extract_index_ivf(base)
        if ivf is not None:
            kind = "ivf"
        elif isinstance(base, faiss.IndexHNSW):
            kind = "hnsw"
        elif isinstance(base, faiss.IndexFlat):
            kind = "flat"
        else:
            kind = "other"
        self._check_options_apply(kind)
        if kind == "hnsw":
            if options.ef_construction is not None:
                base.hnsw.efConstruction = options.ef_construction
            if options.ef_search is not None:
                base.hnsw.efSearch = options.ef_search
        if ivf is not None:
            if options.rerank is None:
                # a hash-table direct map lets IVF reconstruct and remove by label; with
                # rerank the vectors are read from the VectorFile and removal scans
                # the lists, so the table (built on every add and every open) is skipped
                ivf.set_direct_map_type(faiss.DirectMap.Hashtable)
            if options.nprobe is not None:
                ivf.nprobe = options.nprobe
            return base, kind
        return faiss.IndexIDMap2(base), kind

    def _check_options_apply(self, kind: str) -> None:
        options = self.options
        if options.rerank is not None and kind == "flat":
            raise ConfigurationError(
                f"rerank applies to compressed indexes ('IVF1024,PQ48', 'HNSW32,SQ8' ...); "
                f"index_factory {options.factory!r} is exact already"
            )
        for name, wanted in (("ef_search", "hnsw"), ("ef_construction", "hnsw"), ("nprobe", "ivf")):
            if getattr(options, name) is not None and kind != wanted:
                raise ConfigurationError(
                    f"{name} applies to {wanted.upper()} indexes only; index_factory "
                    f"{options.factory!r} builds a {kind} index"
                )

    def _train_size(self, target: Any) -> int:
        if self.options.train_size is not None:
            return self.options.train_size
        ivf = faiss_module().try_extract_index_ivf(target)
        if ivf is not None:
            return _POINTS_PER_CENTROID * int(ivf.nlist)
        return _DEFAULT_TRAIN_SIZE

    # ------------------------------------------------------------------ state

    @property
    def trained(self) -> bool:
        """Whether vectors are in the configured index (else in the flat waiting index)."""
        return self._target is None

    @property
    def ntotal(self) -> int:
        """Vectors held by faiss, masked ones included."""
        return int(self.index.ntotal)

    @property
    def lists_labels(self) -> bool:
        """Whether :meth:`labels` works: every index but a trained IVF one."""
        return isinstance(self.index, faiss_module().IndexIDMap2)

    def labels(self) -> np.ndarray:
        """Every label held by faiss (masked ones included) in the order of its vectors,
        when faiss can list them (see :attr:`lists_labels`)."""
        if self.lists_labels:
            return faiss_module().vector_to_array(self.index.id_map).astype(np.int64, copy=False)
        raise NotImplementedError("an IVF index does not list its labels cheaply")

    # ------------------------------------------------------------------ writing

    def add(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        """Add vectors under labels; trains the index first when it now has enough data.

        On failure the index holds no vector of this call, so the caller can simply
        re-raise.
        """
        labels = np.ascontiguousarray(labels, dtype=np.int64)
        if not self.trained and self.index.ntotal + len(vectors) >= self.train_size:
            self._train_and_move(vectors, labels)
        else:
            self._writable()
            before = self.index.ntotal
            try:
                self.index.add_with_ids(vectors, labels)
            except BaseException:
                if self.index.ntotal != before:
                    self.remove(labels)
                raise
            self._params_cache.clear()
        if self.full is not None and len(labels):
            first, last = int(labels[0]), int(labels[-1])
            if last - first + 1 != len(labels):  # increasing with gaps (a rebuild's)
                dense = np.zeros((last - first + 1, self.dimension), dtype=np.float32)
                dense[labels - first] = vectors
                vectors = dense
            self.full.put(first, vectors)

    def train(self, sample: np.ndarray) -> None:
        """Train an empty index on ``sample`` now (instead of on the first vectors added)."""
        if self.trained or self.index.ntotal:
            raise ValueError("train() is for an empty, untrained index")
        target = self._target
        target.train(np.ascontiguousarray(sample, dtype=np.float32))
        self.index, self._target = target, None
        self._params_cache.clear()

    def _train_and_move(self, vectors: np.ndarray, labels: np.ndarray) -> None:
        waiting = self.index
        if waiting.ntotal:
            old_vectors = waiting.index.reconstruct_n(0, waiting.ntotal)
            all_vectors = np.ascontiguousarray(np.concatenate([old_vectors, vectors]))
            all_labels = np.concatenate([self.labels(), labels])
        else:  # a first add large enough to train on: no copy of its rows
            all_vectors, all_labels = np.ascontiguousarray(vectors, dtype=np.float32), labels
        target = self._target
        sample = all_vectors
        if len(all_vectors) > self.train_size:  # train on train_size vectors, seeded
            rows = np.random.default_rng(0).choice(len(all_vectors), self.train_size, replace=False)
            sample = all_vectors[np.sort(rows)]
        try:
            target.train(sample)
            target.add_with_ids(all_vectors, all_labels)
        except BaseException:
            self._target, _ = self._build_target()  # a fresh, untrained one
            raise
        self.index, self._target = target, None
        self._params_cache.clear()

    def remove(self, labels: np.ndarray | list[int]) -> None:
        """Remove vectors by label (unknown labels are ignored), or mask them."""
        labels = np.asarray(labels, dtype=np.int64)
        if not len(labels):
            return
        self._writable()
        if self.removable or not self.trained:
            self.index.remove_ids(labels)
        else:
            self.masked.update(labels.tolist())
            self._mask_selector = None
        self._params_cache.clear()

    def rebuild(self) -> None:
        """Build the index again from its live vectors, dropping masked ones for good."""
        if not self.masked:
            return
        live = np.setdiff1d(self.labels(), np.fromiter(self.masked, np.int64))
        vectors = self.vectors(live)
        target, _ = self._build_target()
        if not target.is_trained:
            target.train(vectors)
        target.add_with_ids(vectors, live)
        self.index = target
        self.masked = set()
        self._mask_selector = None
        self._params_cache.clear()

    # ------------------------------------------------------------------ reading

    def vectors(self, labels: np.ndarray) -> np.ndarray:
        """Stored vectors of these labels, shape (len(labels), d)."""
        labels = np.ascontiguousarray(labels, dtype=np.int64)
        if self.full is not None:
            return self.full.get(labels)
        vectors = np.empty((len(labels), self.dimension), dtype=np.float32)
        if len(labels):  # faiss's C call: its Python wrapper would repeat these checks
            pointer = _pointer_function()
            self.index.reconstruct_batch_c(len(labels), pointer(labels), pointer(vectors))
        return vectors

    @property
    def reranks(self) -> bool:
        """Whether searches re-rank the index's candidates exactly (see ``rerank``)."""
        return self.full is not None and self.trained

    def search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, *, label_bound: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest: faiss's, or with ``rerank`` the exact best of its ``rerank x k``
        candidates (see :meth:`_search`)."""
        # The usual query (no filter, an exact index: Flat, or vectors still waiting for
        # training) takes the direct search the general path below ends in, without
        # the calls that find that out.
        exact = self.kind == "flat" or self._target is not None
        if allowed is None and exact and self.pending_check is None:
            return self._search_direct(queries, k)
        if self.pending_check is not None and self.pending_check(wait=False):
            self.pending_check = None
        if not self.reranks:
            return self._search(queries, k, allowed, label_bound=label_bound)
        assert self.options.rerank is not None
        fetch = k * self.options.rerank
        _, candidates = self._search(queries, fetch, allowed, label_bound=label_bound)
        return self.rerank(queries, candidates, k)

    def rerank(
        self, queries: np.ndarray, candidates: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k best of each row's candidate labels (-1 = none) by exact score."""
        assert self.full is not None
        count = len(queries)
        scores = np.full((count, k), -np.inf if self.options.inner_product else np.inf, np.float32)
        labels = np.full((count, k), -1, dtype=np.int64)
        valid = candidates >= 0
        rows = self.full.get(candidates[valid])  # one read for every query's candidates
        offset = 0
        for row in range(count):
            found = candidates[row][valid[row]]
            vectors = rows[offset : offset + len(found)]
            offset += len(found)
            if not len(found):
                continue
            if self.options.inner_product:
                exact = vectors @ queries[row]
                order = np.argsort(-exact, kind="stable")[:k]
            else:
                difference = vectors - queries[row]
                exact = np.einsum("ij,ij->i", difference, difference)
                order = np.argsort(exact, kind="stable")[:k]
            scores[row, : len(order)] = exact[order]
            labels[row, : len(order)] = found[order]
        return scores, labels

    def _search(
        self, queries: np.ndarray, k: int, allowed: np.ndarray | None, *, label_bound: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """faiss search for k neighbours, restricted to ``allowed`` labels when given.

        Returns faiss's (scores, labels) arrays of shape (q, k), label -1 where faiss
        found fewer. ``label_bound`` (one past the highest label) sizes the bitmap
        selector. Approximate indexes may return fewer than k even when k are allowed:
        the caller checks and falls back to :meth:`exact`.
        """
        if allowed is None:
            params = self._unfiltered_params(k)
            if params is None:
                return self._search_direct(queries, k)
            return self.index.search(queries, k, params=params)
        faiss = faiss_module()
        if self.trained and self.kind == "other":
            return self.exact(queries, k, allowed)  # these indexes take no selector
        # a bitmap costs one bit per label and answers is_member in O(1); the filter
        # index hands back the same array for a repeated filter, so its bitmap is kept
        cached = self._bitmap_cache
        if cached is not None and cached[0] is allowed and cached[1] == label_bound:
            selector = cached[2]
        else:
            bits = np.zeros(label_bound, dtype=bool)
            bits[allowed] = True
            bitmap = np.packbits(bits, bitorder="little")
            selector = faiss.IDSelectorBitmap(bitmap)
            selector._bitmap = bitmap  # the selector reads the array: keep it alive
            self._bitmap_cache = (allowed, label_bound, selector)
        params = self._params(k, selector, matching=len(allowed))
        return self.index.search(queries, k, params=params)

    def _search_direct(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        # faiss's Python wrapper re-checks what the store already checked (float32,
        # C-contiguous, dimension d): calling the C++ search directly saves microseconds
        # on every single query
        if (
            queries.dtype != np.float32
            or not queries.flags.c_contiguous
            or queries.shape[1] != self.dimension
        ):
            return self.index.search(queries, k)  # let faiss's wrapper convert or complain
        count = len(queries)
        scores = np.empty((count, k), dtype=np.float32)
        labels = np.empty((count, k), dtype=np.int64)
        pointer = _swig_ptr  # set: building this index imported faiss
        self.index.search_c(count, pointer(queries), k, pointer(scores), pointer(labels), None)
        return scores, labels

    def exact(
        self, queries: np.ndarray, k: int, allowed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact k nearest among the ``allowed`` labels (faiss brute force on their vectors).

        ``queries`` is C-contiguous float32 of this dimension. Rows are padded with label
        -1 (and the worst score) when fewer than k labels are allowed.
        """
        faiss = faiss_module()
        count, take = len(queries), min(k, len(allowed))
        scores = np.empty((count, take), dtype=np.float32)
        positions = np.empty((count, take), dtype=np.int64)
        if take:
            # faiss's C routine, not its Python knn wrapper, whose checks and conversions
            # repeat what the store already ensured (a filtered single query feels them)
            knn = faiss.knn_inner_product if self.options.inner_product else faiss.knn_L2sqr
            vectors, pointer = self.vectors(allowed), _pointer_function()
            knn(
                pointer(queries),
                pointer(vectors),
                self.dimension,
                count,
                len(allowed),
                take,
                pointer(scores),
                pointer(positions),
            )
        labels = allowed[positions]  # take <= len(allowed): faiss fills every position
        if take == k:
            return scores, labels
        worst = -np.inf if self.options.inner_product else np.inf
        padded_scores = np.full((count, k), worst, dtype=np.float32)
        padded_labels = np.full((count, k), -1, dtype=np.int64)
        padded_scores[:, :take], padded_labels[:, :take] = scores, labels
        return padded_scores, padded_labels

    def _unfiltered_params(self, k: int) -> Any:
        if not self.trained or self.kind == "flat":
            return None
        ef_search = self._hnsw().efSearch if self.kind == "hnsw" else 0
        if not self.masked and (self.kind != "hnsw" or k <= ef_search):
            return None  # the index's own settings (efSearch, nprobe) apply
        key = (k, ef_search)  # efSearch may be tuned on the live index between calls
        params = self._params_cache.get(key)
        if params is None:
            params = self._params(k, self._mask())
            self._params_cache[key] = params
        return params

    def _hnsw(self) -> Any:
        # the swig wrapper costs microseconds to build: keep it while the index is the same
        cached = self._hnsw_cache
        if cached is None or cached[0] is not self.index:
            cached = self._hnsw_cache = (
                self.index,
                faiss_module().downcast_index(self.index.index).hnsw,
            )
        return cached[1]

    def _mask(self) -> Any:
        if not self.masked:
            return None
        if self._mask_selector is None:
            faiss = faiss_module()
            inner = faiss.IDSelectorBatch(np.fromiter(self.masked, np.int64, len(self.masked)))
            outer = faiss.IDSelectorNot(inner)
            outer._inner = inner  # keep the wrapped selector alive as long as the outer one
            self._mask_selector = outer
        return self._mask_selector

    def _params(self, k: int, selector: Any, *, matching: int | None = None) -> Any:
        faiss = faiss_module()
        if not self.trained or self.kind in ("flat", "other"):
            return faiss.SearchParameters(sel=selector)
        if self.kind == "hnsw":
            return faiss.SearchParametersHNSW(sel=selector, efSearch=max(self._hnsw().efSearch, k))
        ivf = faiss.extract_index_ivf(self.index)
        nprobe = int(ivf.nprobe)
        if matching is not None and matching < ivf.ntotal:
            # a filter leaves ``matching / ntotal`` of each list: probe enough lists that
            # about 4k matching vectors are seen (or every list); 2k gave recall@10 0.95
            # at 1% of 1M clustered vectors, 4k gives 0.976 (benchmarks/scale.py)
            per_list = max(1.0, matching / int(ivf.nlist))
            nprobe = min(int(ivf.nlist), max(nprobe, int(np.ceil(4 * k / per_list))))
        return faiss.SearchParametersIVF(sel=selector, nprobe=nprobe)

    # ------------------------------------------------------------------ files

    def write(self, path: str) -> None:
        """Write the live faiss index (drop masked labels first with :meth:`rebuild`)."""
        if self.pending_check is not None:  # never save a damaged file under a new checksum
            self.pending_check(wait=True)
            self.pending_check = None
        self._writable()  # mapped lists would be written as a reference to their file
        faiss_module().write_index(self.index, path)

    def _writable(self) -> None:
        """Copy memory-mapped inverted lists into memory (once, before the first change:
        faiss's mapped lists are read-only, and a write to them aborts the process)."""
        if not self._mapped:
            return
        faiss = faiss_module()
        ivf = faiss.extract_index_ivf(self.index)
        mapped = ivf.invlists
        advise_lists(ivf, "MADV_SEQUENTIAL")  # one pass over every list: read ahead
        lists = faiss.ArrayInvertedLists(mapped.nlist, mapped.code_size)
        for number in range(mapped.nlist):
            size = mapped.list_size(number)
            if size:  # pointers into the map: copied by faiss, never read from Python
                lists.add_entries(number, size, mapped.get_ids(number), mapped.get_codes(number))
        ivf.replace_invlists(lists, True)  # the index owns the copy and frees the map
        lists.this.disown()
        self._mapped = False
        self._params_cache.clear()

    @classmethod
    def from_faiss(
        cls, loaded: Any, dimension: int, options: IndexOptions, *, trained: bool
    ) -> LabeledIndex:
        """Wrap an index read from a file :meth:`write` wrote.

        Raises:
            ValueError: the index does not fit ``dimension`` and ``options`` (another
                dimension, metric, or index type than ``options.factory`` builds).
        """
        index = cls(dimension, options)
        faiss = faiss_module()
        if int(loaded.d) != dimension:
            raise ValueError(f"the faiss index has dimension {loaded.d}, expected {dimension}")
        if trained and not index.trained:
            index._target, expected = None, index._target
        elif not trained and index.trained:
            raise ValueError("the store was saved before training but its index needs none")
        else:
            expected = index.index
        if int(loaded.metric_type) != index._metric:
            found = "L2" if int(loaded.metric_type) == faiss.METRIC_L2 else "inner product"
            wanted = "inner product" if options.inner_product else "L2"
            raise ValueError(f"the faiss index compares by {found}, but the metric needs {wanted}")
        if structure(loaded) != structure(expected):
            raise ValueError(
                f"the faiss index is {describe(loaded)}, but index_factory "
                f"{options.factory!r} builds {describe(expected)}"
            )
        index.index = loaded
        ivf = faiss.try_extract_index_ivf(loaded)
        if ivf is not None:  # read with read_flags(): its lists may be mapped
            kind = type(faiss.downcast_InvertedLists(ivf.invlists)).__name__
            index._mapped = kind == "OnDiskInvertedLists"
            if index._mapped:  # a search reads a few lists: no read-ahead around each
                advise_lists(ivf, "MADV_RANDOM")
        if index.kind == "hnsw" and trained and options.ef_search is not None:
            faiss_module().downcast_index(loaded.index).hnsw.efSearch = options.ef_search
        return index


def advise_lists(ivf: Any, name: str) -> bool:
    """Give the kernel advice ``name`` (``"MADV_RANDOM"`` ...) on the memory map faiss holds
    of an IVF index's inverted lists (read with ``IO_FLAG_MMAP``: faiss's
    ``OnDiskInvertedLists``, whose ``ptr`` and ``totsize`` give the map). faiss has no call
    for this; it goes through the C library's ``madvise``. A hint: False where the
    platform lacks it or it fails, and nothing changes.

    Why: one search reads ``nprobe`` lists, and the read-ahead of each first touch (8 MiB
    on some disks) read ~110 MB more per cold 10M-vector query (docs/scale.md).
    """
    advice = getattr(mmap, name, None)
    lists = faiss_module().downcast_InvertedLists(ivf.invlists)
    if advice is None or type(lists).__name__ != "OnDiskInvertedLists":
        return False
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return False
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    address, size = int(lists.ptr), int(lists.totsize)
    start = address // mmap.PAGESIZE * mmap.PAGESIZE  # the map's start: already aligned
    return bool(size) and madvise(start, size + address - start, advice) == 0


def read_flags(options: IndexOptions, *, trained: bool) -> int:
    """faiss ``read_index`` flags for a saved index: a trained IVF index's inverted lists
    are memory-mapped (on POSIX systems), so opening a large store reads none of them."""
    if trained and os.name == "posix" and _IVF_FACTORY.fullmatch(options.factory.replace(" ", "")):
        return int(faiss_module().IO_FLAG_MMAP)
    return 0


# factory strings whose index is a bare IVF (not wrapped in a transform or refinement)
_IVF_FACTORY = re.compile(r"IVF[0-9]+,(SQ8|SQ4|SQfp16|PQ[0-9]+(x[0-9]+)?|Flat)")

# faiss writes an IndexFlat as the subclass its metric names; the metric is compared anyway
_SAME_CLASS = {"IndexFlatIP": "IndexFlat", "IndexFlatL2": "IndexFlat"}
# where an index keeps the index it wraps (IDMap, HNSW storage, IVF quantizer)
_WRAPPED = ("index", "storage", "quantizer")


def structure(index: Any) -> list[tuple[Any, ...]]:
    """What kind of faiss index this is, down its wrapped indexes: per level the class,
    dimension, metric and the shape parameters (IVF lists, HNSW links, PQ and scalar
    quantizer codes). Two indexes built from one factory string agree."""
    faiss = faiss_module()
    levels: list[tuple[Any, ...]] = []
    node = index
    while node is not None:
        node = faiss.downcast_index(node)
        name = type(node).__name__
        name = _SAME_CLASS.get(name, name)
        level: list[Any] = [name, int(node.d), int(node.metric_type)]
        if hasattr(node, "nlist"):
            level.append(("nlist", int(node.nlist)))
        if hasattr(node, "hnsw"):
            level.append(("M", int(node.hnsw.nb_neighbors(1))))
        if hasattr(node, "pq"):
            level.append(("pq", int(node.pq.M), int(node.pq.nbits)))
        if hasattr(node, "sq"):
            level.append(("sq", int(node.sq.qtype)))
        levels.append(tuple(level))
        inner = [getattr(node, name) for name in _WRAPPED if hasattr(node, name)]
        node = inner[0] if inner else None
    return levels


def describe(index: Any) -> str:
    """A faiss index's class chain, for messages (``IndexIDMap2(IndexHNSWFlat(...))``)."""
    names = [level[0] for level in structure(index)]
    return "(".join(names) + ")" * (len(names) - 1)


def _can_remove(index: Any) -> bool:
    try:
        index.remove_ids(np.empty(0, dtype=np.int64))
    except RuntimeError:  # faiss: "remove_ids not implemented for this type of index"
        return False
    return True


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[-1] if text else type(err).__name__

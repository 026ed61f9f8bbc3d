"""InMemoryVectorStore: exact search over a numpy matrix, no dependency beyond numpy.

Good for tests, notebooks and up to a few hundred thousand vectors: a query is one
matrix product over every stored vector (exact, never approximate).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ragline.core import (
    DimensionError,
    Document,
    InvalidInputError,
    PersistenceError,
)
from ragline.core._checks import check_choice
from ragline.core.documents import stored_document
from ragline.embeddings import Embeddings
from ragline.embeddings.base import _async_lists, _calls_async_lists, _only_rounds_lists
from ragline.vectorstores._validation import copy_metadata
from ragline.vectorstores.base import SearchHit, VectorStore
from ragline.vectorstores.filters import FilterNode, Predicate, matches
from ragline.vectorstores.utils import METRICS, as_vector_matrix, normalize_rows

__all__ = ["InMemoryVectorStore"]

_FORMAT = "ragline.InMemoryVectorStore"
_FORMAT_VERSION = 1

# metric -> the native score similarity_search_with_score returns
_SCORE_KINDS = {"cosine": "cosine_similarity", "inner_product": "inner_product", "l2": "l2"}


class InMemoryVectorStore(VectorStore):
    """A vector store held in process memory; exact nearest neighbours with numpy.

    Native scores (``similarity_search_with_score``): ``metric="cosine"`` gives the
    cosine similarity (higher is closer, in [-1, 1]); ``"inner_product"`` the dot
    product (higher is closer); ``"l2"`` the Euclidean distance (lower is closer).
    Relevance scores are in [0, 1] for all three.

    Under ``"cosine"`` the store ranks as LangChain's does: the float64 cosine
    (``dot / (|q| |v|)``) of the query and every vector as the Embeddings gave them (it
    keeps a float64 copy of each), numpy's default ``argsort`` of those, reversed. So the
    scores are LangChain's numbers (``1.0000000000000002`` where float32 would give
    ``1.0000001192092896``) and documents with equal scores come out in LangChain's order
    (that sort's, which is not the order they were added in).

    Args:
        embedding: the Embeddings used for texts and queries.
        metric: ``"cosine"`` (default), ``"inner_product"`` or ``"l2"``.

    Raises:
        ConfigurationError: an unknown metric.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> store = InMemoryVectorStore.from_texts(
        ...     ["the cat sat", "stock prices fell"], HashingEmbeddings(dimension=64)
        ... )
        >>> store.similarity_search("a cat", k=1)[0].page_content
        'the cat sat'
    """

    def __init__(self, embedding: Embeddings, *, metric: str = "cosine") -> None:
        check_choice("metric", metric, METRICS)
        self.embedding = embedding
        self.metric = metric
        self._lock = threading.RLock()
        self._vectors = np.zeros((0, 0), dtype=np.float32)  # rows [0, len(ids)) are live
        # cosine: the vectors as given, in float64, and their norms (LangChain's scores)
        self._exact = np.zeros((0, 0), dtype=np.float64)
        self._norms = np.zeros(0, dtype=np.float64)
        self._ids: list[str] = []
        self._texts: list[str] = []
        self._metadatas: list[dict[str, Any]] = []
        self._row_of: dict[str, int] = {}
        self._dimension: int | None = None

    _callable_filters = True  # filter=function(Document) -> bool, as in LangChain

    def __repr__(self) -> str:
        return f"{type(self).__name__}(metric={self.metric!r}, count={self.count()})"

    @property
    def store(self) -> dict[str, dict[str, Any]]:
        """LangChain's view of the contents: ``{id: {"id", "vector", "text", "metadata"}}``,
        built on each access (fresh copies: changing it changes nothing). ``vector`` is
        the embedding as given (float64, as LangChain keeps it; the store searches a
        float32 unit-length copy under the cosine metric)."""
        with self._lock:
            return self._records(copy_metadata)

    def _records(
        self, metadata_of: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """LangChain's layout of the live rows, in row order (the caller holds the lock);
        ``vector`` as given under cosine (float64)."""
        vectors = self._exact if self.metric == "cosine" else self._vectors
        return {
            doc_id: {
                "id": doc_id,
                "vector": vectors[row].tolist(),
                "text": self._texts[row],
                "metadata": metadata_of(self._metadatas[row]),
            }
            for row, doc_id in enumerate(self._ids)
        }

    # ------------------------------------------------------------------ primitives

    @property
    def embeddings(self) -> Embeddings:
        return self.embedding

    @property
    def dimension(self) -> int | None:
        return self._dimension

    @property
    def score_kind(self) -> str:
        return _SCORE_KINDS[self.metric]

    def count(self) -> int:
        return len(self._ids)

    # ---- cosine: float64 vectors as given, for LangChain's score numbers ----------------
    def _embed_documents(self, texts: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if self.metric == "cosine" and _only_rounds_lists(embeddings, "embed_documents_array"):
            return np.asarray(embeddings.embed_documents(texts), dtype=np.float64)
        return super()._embed_documents(texts)

    def _embed_queries(self, queries: list[str]) -> np.ndarray:
        embeddings: Any = self.embeddings
        if self.metric == "cosine" and _only_rounds_lists(embeddings, "embed_queries_array"):
            return np.asarray([embeddings.embed_query(q) for q in queries], dtype=np.float64)
        return super()._embed_queries(queries)

    # async: where the async array method is the default (the sync one in a thread), the
    # store's own sync embedding runs in the thread, so async adds and queries keep the
    # same float64 numbers as sync ones; where it awaits a subclass's own async list
    # methods, the store awaits them and keeps their float64 numbers
    async def _aembed_documents(self, texts: list[str]) -> np.ndarray:
        if self.metric == "cosine":
            embeddings = self.embeddings
            if _threads_sync(embeddings, "aembed_documents_array"):
                return await asyncio.to_thread(self._embed_documents, texts)
            if _calls_async_lists(embeddings, "aembed_documents_array") and texts:
                rows = await _async_lists(embeddings, texts, queries=False)
                return np.asarray(rows, dtype=np.float64)
        return await super()._aembed_documents(texts)

    async def _aembed_queries(self, queries: list[str]) -> np.ndarray:
        if self.metric == "cosine":
            embeddings = self.embeddings
            if _threads_sync(embeddings, "aembed_queries_array"):
                return await asyncio.to_thread(self._embed_queries, queries)
            if _calls_async_lists(embeddings, "aembed_queries_array") and queries:
                rows = await _async_lists(embeddings, queries, queries=True)
                return np.asarray(rows, dtype=np.float64)
        return await super()._aembed_queries(queries)

    def _check_embeddings(self, vectors: Any, rows: int, dimension: int | None) -> np.ndarray:
        checked = super()._check_embeddings(vectors, rows, dimension)
        if self.metric == "cosine":
            return np.array(vectors, dtype=np.float64)  # checked above; a private copy
        return checked

    def _check_queries(self, vectors: Any, dimension: int | None) -> np.ndarray:
        checked = super()._check_queries(vectors, dimension)
        if self.metric == "cosine":
            return np.asarray(vectors, dtype=np.float64)
        return checked

    def _upsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        exact = None
        if self.metric == "cosine":
            exact = np.asarray(vectors, dtype=np.float64)
            vectors = normalize_rows(vectors)  # then cosine is a dot product
        with self._lock:
            if self._dimension is None:
                self._dimension = vectors.shape[1]
                self._vectors = np.zeros((max(16, len(ids)), self._dimension), dtype=np.float32)
                if exact is not None:
                    self._exact = np.zeros(self._vectors.shape, dtype=np.float64)
                    self._norms = np.zeros(len(self._vectors), dtype=np.float64)
            elif vectors.shape[1] != self._dimension:  # a racing first add fixed another one
                raise DimensionError(
                    f"embedding has dimension {vectors.shape[1]} but this store holds vectors "
                    f"of dimension {self._dimension}"
                )
            new = [i for i, doc_id in enumerate(ids) if doc_id not in self._row_of]
            self._reserve(len(self._ids) + len(new))
            for i, doc_id in enumerate(ids):
                row = self._row_of.get(doc_id)
                if row is None:
                    row = len(self._ids)
                    self._row_of[doc_id] = row
                    self._ids.append(doc_id)
                    self._texts.append(texts[i])
                    self._metadatas.append(metadatas[i])
                else:
                    self._texts[row] = texts[i]
                    self._metadatas[row] = metadatas[i]
                self._vectors[row] = vectors[i]
            if exact is not None:
                rows = [self._row_of[doc_id] for doc_id in ids]
                self._exact[rows] = exact
                self._norms[rows] = np.linalg.norm(exact, axis=1)

    def _reserve(self, rows: int) -> None:
        if rows > len(self._vectors):  # grow geometrically: amortised O(1) appends
            size, live = max(rows, 2 * len(self._vectors)), len(self._ids)
            self._vectors = _grown(self._vectors, size, live)
            if self.metric == "cosine":
                self._exact = _grown(self._exact, size, live)
                self._norms = _grown(self._norms, size, live)

    def _delete(self, ids: list[str]) -> None:
        with self._lock:
            for doc_id in ids:
                row = self._row_of.pop(doc_id, None)
                if row is None:
                    continue
                # move the last row into the hole so live rows stay contiguous
                last = len(self._ids) - 1
                if row != last:
                    moved = self._ids[last]
                    self._ids[row] = moved
                    self._texts[row] = self._texts[last]
                    self._metadatas[row] = self._metadatas[last]
                    self._vectors[row] = self._vectors[last]
                    if self.metric == "cosine":
                        self._exact[row] = self._exact[last]
                        self._norms[row] = self._norms[last]
                    self._row_of[moved] = row
                self._ids.pop()
                self._texts.pop()
                self._metadatas.pop()

    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        with self._lock:
            rows = [self._row_of[doc_id] for doc_id in ids if doc_id in self._row_of]
            return [self._document(row) for row in rows]

    def _held_ids(self, ids: list[str]) -> set[str]:
        with self._lock:
            return {doc_id for doc_id in ids if doc_id in self._row_of}

    def _document(self, row: int) -> Document:
        return stored_document(
            self._texts[row], copy_metadata(self._metadatas[row]), self._ids[row]
        )

    def _search(
        self,
        queries: np.ndarray,
        k: int,
        filter: FilterNode | None,
        *,
        with_vectors: bool,
    ) -> list[list[SearchHit]]:
        with self._lock:
            live = len(self._ids)
            if filter is None:
                rows = np.arange(live)
                candidates = self._vectors[:live]  # a view: no copy of the matrix per query
            elif isinstance(filter, Predicate):  # LangChain's callable: given the Document
                rows = np.flatnonzero(
                    [bool(filter.function(self._document(i))) for i in range(live)]
                )
                candidates = self._vectors[rows]
            else:
                rows = np.flatnonzero([matches(filter, meta) for meta in self._metadatas])
                candidates = self._vectors[rows]
            if len(rows) == 0:
                return [[] for _ in queries]
            if self.metric == "cosine":
                return [self._cosine_hits(q, rows, k, with_vectors=with_vectors) for q in queries]
            queries = queries.astype(np.float32, copy=False)
            scores, higher_is_better = self._scores(queries, candidates)
            take = min(k, len(rows))
            # top-k of every query at once: partition, then sort only the k kept
            keys = -scores if higher_is_better else scores
            if take < len(rows):
                best = np.argpartition(keys, take - 1, axis=1)[:, :take]
            else:
                best = np.broadcast_to(np.arange(len(rows)), keys.shape)
            order = np.argsort(np.take_along_axis(keys, best, axis=1), axis=1, kind="stable")
            best = np.take_along_axis(best, order, axis=1)
            returned = np.take_along_axis(scores, best, axis=1)
            return [
                [
                    SearchHit(
                        self._document(int(rows[i])),
                        float(query_scores[at]),
                        candidates[i].copy() if with_vectors else None,
                    )
                    for at, i in enumerate(query_best)
                ]
                for query_scores, query_best in zip(returned, best, strict=True)
            ]

    def _cosine_hits(
        self, query: np.ndarray, rows: np.ndarray, k: int, *, with_vectors: bool
    ) -> list[SearchHit]:
        """LangChain's ranking: every candidate's float64 cosine, numpy's default argsort,
        reversed, the first ``k``; equal scores come out as that sort leaves them."""
        live = len(self._ids)
        every = len(rows) == live  # no filter: the live rows as a view, no copy
        exact = self._exact[:live] if every else self._exact[rows]
        norms = self._norms[:live] if every else self._norms[rows]
        query = query[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            cosines = np.dot(query, exact.T) / np.outer(np.linalg.norm(query, axis=1), norms)
        cosines[np.isnan(cosines) | np.isinf(cosines)] = 0.0  # a zero vector, as LangChain
        scores = cosines[0]
        best = _langchain_top(scores, k)
        return [
            SearchHit(
                self._document(int(rows[i])),
                float(scores[i]),
                self._vectors[rows[i]].copy() if with_vectors else None,
            )
            for i in best
        ]

    def _scores(self, queries: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, bool]:
        """Native scores of every query against every candidate, and their direction."""
        if self.metric == "cosine":
            return normalize_rows(queries) @ candidates.T, True
        if self.metric == "inner_product":
            return queries @ candidates.T, True
        # |q - v|^2 = |q|^2 + |v|^2 - 2 q.v, clipped at 0 against rounding
        squared = (
            (queries * queries).sum(axis=1)[:, None]
            + (candidates * candidates).sum(axis=1)[None, :]
            - 2.0 * (queries @ candidates.T)
        )
        return np.sqrt(np.maximum(squared, 0.0)), False

    # ------------------------------------------------------------------ persistence

    def dump(self, path: str | os.PathLike[str]) -> None:
        """Save the store to one JSON file (never pickle), atomically.

        A cosine store (the default, LangChain's only metric) is written in LangChain's
        layout, ``{id: {"id", "vector", "text", "metadata"}}`` (``{}`` when empty), which
        LangChain's ``InMemoryVectorStore.load`` reads too; another metric in ragline's
        versioned format, which also keeps the metric and the dimension. The file is
        written under a temporary name and renamed over ``path``, so a crash mid-save
        leaves any previous copy intact. Missing parent folders are made, as LangChain's
        ``dump`` makes them.

        Args:
            path: the file to write.

        Raises:
            InvalidInputError: a metadata value JSON cannot hold (names the document);
                nothing is written.
            PersistenceError: the file cannot be written.

        Example:
            >>> import tempfile, os
            >>> path = os.path.join(tempfile.mkdtemp(), "store.json")
            >>> store.dump(path)
            >>> InMemoryVectorStore.load(path, embeddings).get_by_ids(["cats"])[0].page_content
            'cats purr'
        """
        with self._lock:
            if self.metric == "cosine":  # LangChain's layout, indented as LangChain's
                payload: dict[str, Any] = self._records(lambda metadata: metadata)
                indent: int | None = 2
            else:
                payload = {
                    "format": _FORMAT,
                    "version": _FORMAT_VERSION,
                    "metric": self.metric,
                    "dimension": self._dimension,
                    "ids": self._ids,
                    "texts": self._texts,
                    "metadatas": self._metadatas,
                    "vectors": self._vectors[: len(self._ids)].tolist(),
                }
                indent = None
            try:  # encoded here, before any file exists (a lone surrogate fails here)
                data = json.dumps(
                    payload, ensure_ascii=False, allow_nan=False, indent=indent
                ).encode("utf-8")
            except (TypeError, ValueError) as err:
                raise InvalidInputError(
                    f"cannot save: {_unserializable(self._ids, self._metadatas)}; metadata "
                    f"values must be JSON types ({err})"
                ) from err
        target = Path(path)
        temporary = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)  # as LangChain's dump does
            handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            with os.fdopen(handle, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
        except BaseException as err:
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)  # no leftover beside the saved copy
            if isinstance(err, OSError):
                raise PersistenceError(
                    f"could not save the store to {str(target)!r}: {err}"
                ) from err
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str], embedding: Embeddings) -> InMemoryVectorStore:
        """Load a store saved with :meth:`dump`.

        A file LangChain's ``InMemoryVectorStore.dump`` wrote (one ``{"id", "vector",
        "text", "metadata"}`` record per id) loads too, as a cosine store holding those
        records in the file's order, as LangChain's ``load`` reads it.

        Args:
            path: the file :meth:`dump` (or LangChain's) wrote.
            embedding: the Embeddings for new texts and queries (the same model as before).

        Raises:
            PersistenceError: the file is missing, not a saved store, truncated or corrupt,
                or written by a newer format version.

        Example: see :meth:`dump`.
        """
        target = Path(path)
        try:
            payload = json.loads(target.read_text(encoding="utf-8"))
        except FileNotFoundError as err:
            raise PersistenceError(f"no saved store at {str(target)!r}") from err
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise PersistenceError(
                f"{str(target)!r} is not a readable saved store (truncated or corrupt?): {err}"
            ) from err
        if _is_langchain_dump(payload):
            return cls._from_langchain_records(payload, embedding, target)
        if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
            raise PersistenceError(f"{str(target)!r} is not a saved {_FORMAT}")
        version = payload.get("version")
        if not isinstance(version, int) or version > _FORMAT_VERSION:
            raise PersistenceError(
                f"{str(target)!r} has format version {version!r}; this ragline reads up to "
                f"version {_FORMAT_VERSION} (upgrade ragline to load it)"
            )
        try:
            return cls._restored(
                embedding,
                payload["metric"],
                payload["ids"],
                payload["texts"],
                payload["metadatas"],
                payload["vectors"],
                payload["dimension"],
            )
        except (KeyError, TypeError, ValueError) as err:
            raise PersistenceError(f"{str(target)!r} is a corrupt saved store: {err}") from err

    @classmethod
    def _restored(
        cls,
        embedding: Embeddings,
        metric: str,
        ids: list[str],
        texts: list[str],
        metadatas: list[dict[str, Any]],
        vectors: list[list[float]],
        dimension: int | None,
    ) -> InMemoryVectorStore:
        """A store holding saved records, checked (one length, unique non-empty string ids,
        finite vectors of one width); a bad record is a KeyError, TypeError or ValueError."""
        store = cls(embedding, metric=metric)
        if not len(ids) == len(texts) == len(metadatas) == len(vectors):
            raise ValueError("ids, texts, metadatas and vectors differ in length")
        if len(set(ids)) != len(ids) or not all(isinstance(i, str) and i for i in ids):
            raise ValueError("ids must be unique non-empty strings")
        if ids:
            matrix = as_vector_matrix(vectors, dimension=dimension)
            if store.metric == "cosine":  # the float64 values as saved (checked above)
                matrix = np.asarray(vectors, dtype=np.float64)
            store._upsert(list(ids), matrix, list(texts), list(metadatas))
        store._dimension = dimension
        return store

    @classmethod
    def _from_langchain_records(
        cls, records: dict[str, Any], embedding: Embeddings, target: Path
    ) -> InMemoryVectorStore:
        try:
            rows = list(records.values())
            texts = [row["text"] for row in rows]
            if not all(isinstance(t, str) for t in texts):
                raise ValueError("texts must be strings")
            vectors = [row["vector"] for row in rows]
            return cls._restored(
                embedding,
                "cosine",
                [row["id"] for row in rows],
                texts,
                [dict(row["metadata"] or {}) for row in rows],
                vectors,
                len(vectors[0]) if vectors else None,
            )
        except (KeyError, TypeError, ValueError) as err:
            raise PersistenceError(
                f"{str(target)!r} is a corrupt saved store (LangChain's layout): {err}"
            ) from err


_RECORD_KEYS = frozenset({"id", "vector", "text", "metadata"})


def _is_langchain_dump(payload: Any) -> bool:
    """Whether ``payload`` is LangChain's saved layout: ``{id: {"id", "vector", "text",
    "metadata"}}`` (``{}`` for an empty store)."""
    return (
        isinstance(payload, dict)
        and payload.get("format") != _FORMAT
        and all(isinstance(r, dict) and set(r) >= _RECORD_KEYS for r in payload.values())
    )


def _langchain_top(scores: np.ndarray, k: int) -> np.ndarray:
    """``scores.argsort()[::-1][:k]``, LangChain's top k. Where the k best scores are all
    different and above the next one, that is their descending order whatever the sort
    does, found with a partition (no sort of every score); equal scores there need the
    full argsort, whose order of ties depends on the whole array."""
    if k < len(scores):
        parted = np.argpartition(-scores, k)
        top = parted[:k]
        kept = scores[top]
        order = np.argsort(-kept)
        ranked = kept[order]
        if np.all(ranked[:-1] > ranked[1:]) and ranked[-1] > scores[parted[k]]:
            return top[order]
    return scores.argsort()[::-1][:k]


def _grown(array: np.ndarray, size: int, live: int) -> np.ndarray:
    """``array`` with ``size`` rows (zeros past ``live``), its first ``live`` rows kept."""
    grown = np.zeros((size, *array.shape[1:]), dtype=array.dtype)
    grown[:live] = array[:live]
    return grown


def _threads_sync(embeddings: Any, async_name: str) -> bool:
    """Whether ``embeddings``' async array method ``async_name`` is the Embeddings
    default, which runs the sync one in a worker thread (or it has none)."""
    method = getattr(type(embeddings), async_name, None)
    return method is None or method is getattr(Embeddings, async_name)


def _unserializable(ids: list[str], metadatas: list[dict[str, Any]]) -> str:
    for doc_id, metadata in zip(ids, metadatas, strict=True):
        try:
            json.dumps(metadata, allow_nan=False)
        except (TypeError, ValueError):
            return f"the metadata of document {doc_id!r} is not JSON-serializable"
    return "a value is not JSON-serializable"

"""Cache embeddings in a byte store so an unchanged corpus is never embedded twice.

Storage format: LangChain's, so a cache either library wrote is read by the other.

* key: ``key_encoder(text)``. The named encoders give ``namespace + digest``, the digest
  of the text as UTF-8: ``"sha1"`` (the default, LangChain's) the UUID-5 string of the
  SHA-1 hex digest under the namespace UUID ``UUID(int=1985)``; ``"blake2b"``,
  ``"sha256"``, ``"sha512"`` the hex digest. A callable encoder makes the whole key.
* query keys: the same, in a query store of its own. In a store shared with documents
  (``query_embedding_store=True``) a query's key gets ``"query-"`` after the namespace
  (before the digest): a model may embed a query differently from a document, so the
  two never share an entry (LangChain shares them: a deliberate difference).
* value: the vector as a JSON list of numbers (UTF-8). Values ragline wrote before
  (little-endian float32 bytes) are still read.

Use a namespace per model (e.g. its name) so two models never read each other's vectors.
Every vector returned, whether just computed or read back, is the float32 value, so the
first and the second call give identical results.
"""

from __future__ import annotations

import hashlib
import json
import uuid
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar

import numpy as np

from ragline.core import BaseStore, DimensionError, InvalidInputError, LocalFileStore
from ragline.core._checks import check_optional_positive_int
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.embeddings.base import Embeddings, check_text, check_texts, validate_embeddings

__all__ = ["CacheBackedEmbeddings"]

_FLOAT32 = np.dtype("<f4")
# A distinct cache miss: its text, its key, and every position of the text in the call.
_Miss = tuple[str, str, list[int]]


# LangChain's namespace UUID for its default (SHA-1) keys: part of the key format
_SHA1_NAMESPACE = uuid.UUID(int=1985)
KEY_ENCODERS = ("sha1", "blake2b", "sha256", "sha512")
_sha1_warned = False


def _digest(algorithm: str, text: str) -> str:
    data = text.encode("utf-8")
    if algorithm == "sha1":
        hex_digest = hashlib.sha1(data, usedforsecurity=False).hexdigest()
        return str(uuid.uuid5(_SHA1_NAMESPACE, hex_digest))
    return hashlib.new(algorithm, data).hexdigest()


def _warn_sha1() -> None:
    # LangChain warns once per process too: a cache shared with LangChain needs SHA-1,
    # which a deliberate collision can defeat (two texts, one cached vector).
    global _sha1_warned
    if not _sha1_warned:
        _sha1_warned = True
        warnings.warn(
            "CacheBackedEmbeddings keys default to SHA-1 (LangChain's, so its caches are "
            "shared), which is not collision-resistant: someone who controls the texts can "
            "make two of them share one cached vector. Pass key_encoder='sha256' (or "
            "'blake2b', 'sha512') for a new cache where that matters.",
            UserWarning,
            stacklevel=4,
        )


def _encode(vector: np.ndarray) -> bytes:
    # LangChain's value format: a JSON list of numbers (float32 values, exactly)
    return json.dumps(vector.astype(_FLOAT32, copy=False).tolist()).encode("utf-8")


def _dimensions(vectors: list[np.ndarray | None]) -> set[int]:
    return {len(vector) for vector in vectors if vector is not None}


def _decode(value: bytes | None) -> np.ndarray | None:
    # A value that is neither a JSON list of numbers nor (ragline's earlier format) a
    # whole number of float32s, or is not finite, is treated as a miss and overwritten:
    # a damaged cache entry costs one re-embedding, not a crash.
    if not value:
        return None
    if value[:1] == b"[" and value[-1:] == b"]":
        try:
            numbers = np.array(json.loads(value))
        except (ValueError, TypeError):
            return None
        # numbers only (no bools, strings or nested lists), in one flat non-empty list
        if numbers.ndim != 1 or not len(numbers) or numbers.dtype.kind not in "fi":
            return None
        vector = numbers.astype(_FLOAT32)
    elif len(value) % _FLOAT32.itemsize:
        return None
    else:
        vector = np.frombuffer(value, dtype=_FLOAT32)
    return vector if np.isfinite(vector).all() else None


# a model's sync and async embedding method (embed_documents_array and its a-twin ...)
_Embed = tuple[Callable[[list[str]], np.ndarray], Callable[[list[str]], Awaitable[np.ndarray]]]


class CacheBackedEmbeddings(Embeddings):
    """Embeddings that look vectors up in a byte store before calling the underlying model.

    Only cache misses reach the underlying embeddings (each distinct text once per call),
    in batches of ``batch_size``; each batch is written to the store as soon as it is
    embedded, so an interrupted run keeps its progress. Order is always preserved.

    Args:
        underlying_embeddings: the model that computes vectors on a miss.
        document_embedding_store: byte store for document vectors.
        namespace: prefix of every key; use one per model.
        query_embedding_store: byte store for query vectors, or ``None`` to embed queries
            without caching.
        batch_size: at most this many misses per underlying call (``None``: all at once).
        key_encoder: ``"sha1"`` (LangChain's default; warns once that SHA-1 is not
            collision-resistant), ``"blake2b"``, ``"sha256"``, ``"sha512"`` (see the
            module docstring), or a callable from text to the whole key (then no
            ``namespace``: put any prefix in the callable, as LangChain asks).

    Raises:
        InvalidInputError: a bad option (non-str namespace, batch_size < 1, an unknown
            key_encoder, a namespace with a callable key_encoder ...).

    Example:
        >>> from ragline.core import InMemoryByteStore
        >>> from ragline.embeddings import HashingEmbeddings
        >>> cached = CacheBackedEmbeddings.from_bytes_store(
        ...     HashingEmbeddings(dimension=8), InMemoryByteStore(), namespace="hash8:")
        >>> cached.embed_documents(["a"]) == cached.embed_documents(["a"])
        True
    """

    # the array method each list method calls, its own class's, never self's (a
    # subclass overriding one gets list methods calling its own; see embeddings.base)
    _LISTS_CALL_OWN_ARRAYS: ClassVar[dict[str, str]] = {
        "embed_documents": "embed_documents_array",
        "embed_query": "embed_queries_array",
        "aembed_documents": "aembed_documents_array",
        "aembed_query": "aembed_queries_array",
    }

    def __init__(
        self,
        underlying_embeddings: Embeddings,
        document_embedding_store: BaseStore[str, bytes],
        *,
        namespace: str = "",
        query_embedding_store: BaseStore[str, bytes] | None = None,
        batch_size: int | None = None,
        key_encoder: str | Callable[[str], str] = "sha1",
    ) -> None:
        if not isinstance(underlying_embeddings, Embeddings):
            raise InvalidInputError(
                "underlying_embeddings must be an Embeddings, got "
                f"{type(underlying_embeddings).__name__}"
            )
        for name, store in (
            ("document_embedding_store", document_embedding_store),
            ("query_embedding_store", query_embedding_store),
        ):
            if store is not None and not isinstance(store, BaseStore):
                raise InvalidInputError(f"{name} must be a BaseStore, got {type(store).__name__}")
        if document_embedding_store is None:
            raise InvalidInputError("document_embedding_store must be a BaseStore, got None")
        if not isinstance(namespace, str):
            raise InvalidInputError(f"namespace must be a str, got {type(namespace).__name__}")
        batch_size = check_optional_positive_int("batch_size", batch_size)
        if isinstance(key_encoder, str):
            if key_encoder not in KEY_ENCODERS:
                raise InvalidInputError(
                    f"key_encoder must be one of {', '.join(map(repr, KEY_ENCODERS))} or a "
                    f"callable from text to key, got {key_encoder!r}"
                )
            if key_encoder == "sha1":
                _warn_sha1()
        elif not callable(key_encoder):
            raise InvalidInputError(
                f"key_encoder must be one of {', '.join(map(repr, KEY_ENCODERS))} or a "
                f"callable from text to key, got {type(key_encoder).__name__}"
            )
        elif namespace:
            raise InvalidInputError(
                f"namespace {namespace!r} given with a callable key_encoder: put the prefix "
                "in the key_encoder itself (it makes the whole key)"
            )
        self.key_encoder = key_encoder
        self.underlying_embeddings = underlying_embeddings
        self.document_embedding_store = document_embedding_store
        self.query_embedding_store = query_embedding_store
        self.namespace = namespace
        self.batch_size = batch_size
        self._check_namespace_fits_file_stores()

    def _check_namespace_fits_file_stores(self) -> None:
        # A file store limits key characters; say so now, not at the first embedding.
        for store in (self.document_embedding_store, self.query_embedding_store):
            if isinstance(store, LocalFileStore):
                try:
                    store.mget([self.query_key("")])
                except InvalidInputError as err:
                    raise InvalidInputError(
                        f"namespace {self.namespace!r} cannot be used with a LocalFileStore: "
                        "use letters, digits and '_ . - /' (e.g. 'all-MiniLM-L6-v2/')"
                    ) from err

    @classmethod
    def from_bytes_store(
        cls,
        underlying_embeddings: Embeddings,
        document_embedding_cache: BaseStore[str, bytes],
        *,
        namespace: str = "",
        query_embedding_store: BaseStore[str, bytes] | bool | None = None,
        batch_size: int | None = None,
        query_embedding_cache: BaseStore[str, bytes] | bool | None = None,
        key_encoder: str | Callable[[str], str] = "sha1",
    ) -> CacheBackedEmbeddings:
        """Build a cache over a byte store (LangChain's constructor name).

        Args:
            underlying_embeddings: the model that computes vectors on a miss.
            document_embedding_cache: byte store for document vectors.
            namespace: prefix of every key; use one per model.
            query_embedding_store: a byte store for query vectors, ``True`` to keep them
                in the document store (under distinct keys), ``None``/``False`` for none.
            batch_size: at most this many misses per underlying call.
            query_embedding_cache: LangChain's name for ``query_embedding_store`` (give
                one or the other).
            key_encoder: how texts become keys (see the class): ``"sha1"`` (default,
                LangChain's), ``"blake2b"``, ``"sha256"``, ``"sha512"`` or a callable.

        Returns:
            The cache-backed embeddings.

        Raises:
            InvalidInputError: both query options given, or a bad option.

        Example:
            >>> from ragline.core import InMemoryByteStore
            >>> from ragline.embeddings import HashingEmbeddings
            >>> store = InMemoryByteStore()
            >>> cached = CacheBackedEmbeddings.from_bytes_store(
            ...     HashingEmbeddings(dimension=8), store, namespace="h:", key_encoder="sha256")
            >>> _ = cached.embed_documents(["x"])
            >>> [key[:6] for key in store.yield_keys()]
            ['h:2d71']
        """
        if query_embedding_cache is not None:
            if query_embedding_store is not None:
                raise InvalidInputError(
                    "give query_embedding_store or its LangChain name query_embedding_cache, "
                    "not both"
                )
            query_embedding_store = query_embedding_cache
        if query_embedding_store is True:
            query_store: BaseStore[str, bytes] | None = document_embedding_cache
        elif query_embedding_store is False or query_embedding_store is None:
            query_store = None
        else:
            query_store = query_embedding_store
        return cls(
            underlying_embeddings,
            document_embedding_cache,
            namespace=namespace,
            query_embedding_store=query_store,
            batch_size=batch_size,
            key_encoder=key_encoder,
        )

    def __repr__(self) -> str:
        return (
            f"CacheBackedEmbeddings({self.underlying_embeddings!r}, namespace={self.namespace!r})"
        )

    # -- keys --------------------------------------------------------------------------------

    def document_key(self, text: str) -> str:
        """The store key of a document text (LangChain's: see the module docstring)."""
        encoder = self.key_encoder
        if callable(encoder):
            return encoder(text)
        return self.namespace + _digest(encoder, text)

    def query_key(self, text: str) -> str:
        """The store key of a query text: the document key in a query store of its own;
        ``"query-"`` after the namespace in a store shared with documents."""
        if self.query_embedding_store is not self.document_embedding_store:
            return self.document_key(text)
        encoder = self.key_encoder
        if callable(encoder):
            return "query-" + encoder(text)
        return self.namespace + "query-" + _digest(encoder, text)

    # -- sync ----------------------------------------------------------------------------------

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents, calling the underlying model only for texts not in the store.

        Raises:
            InvalidInputError: a text is not a string.
            DimensionError: cached and new vectors disagree on the dimension (a namespace
                shared by two models).
        """
        return drive(self._documents_operation(texts))

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries, through the query store when one is configured."""
        return drive(self._queries_operation(texts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents through the cache; see ``embed_documents_array``."""
        return CacheBackedEmbeddings.embed_documents_array(self, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one query through the query store when one is configured."""
        return CacheBackedEmbeddings.embed_queries_array(self, [check_text(text)])[0].tolist()

    # -- async -----------------------------------------------------------------------------------

    async def aembed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_documents_array`` using the store's and the model's async methods."""
        return await adrive(self._documents_operation(texts))

    async def aembed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        """Async ``embed_queries_array``."""
        return await adrive(self._queries_operation(texts))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Async ``embed_documents``."""
        return (await CacheBackedEmbeddings.aembed_documents_array(self, texts)).tolist()

    async def aembed_query(self, text: str) -> list[float]:
        """Async ``embed_query``."""
        rows = await CacheBackedEmbeddings.aembed_queries_array(self, [check_text(text)])
        return rows[0].tolist()  # type: ignore[no-any-return]

    # -- the logic of both drivers (sync: mget/embed/mset; async: amget/aembed/amset) ----------

    def _documents_operation(self, texts: Sequence[str]) -> Operation[np.ndarray]:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [self.document_key(text) for text in items]
        store = self.document_embedding_store
        model = self.underlying_embeddings
        embed = (model.embed_documents_array, model.aembed_documents_array)
        return (yield from self._through_store(items, keys, store, embed))

    def _queries_operation(self, texts: Sequence[str]) -> Operation[np.ndarray]:
        items = check_texts(texts, what="queries")
        store = self.query_embedding_store
        if store is None or not items:
            model = self.underlying_embeddings
            return (yield Effect(model.embed_queries_array, model.aembed_queries_array, items))
        keys = [self.query_key(text) for text in items]
        model = self.underlying_embeddings
        embed = (model.embed_queries_array, model.aembed_queries_array)
        return (yield from self._through_store(items, keys, store, embed))

    def _through_store(
        self, items: list[str], keys: list[str], store: BaseStore, embed: _Embed
    ) -> Operation[np.ndarray]:
        """Vectors from ``store``; the misses embedded (``embed``: the model's sync and
        async embedding method) and stored."""
        cached = [_decode(value) for value in (yield Effect(store.mget, store.amget, keys))]
        dimensions = _dimensions(cached)
        for misses in self._miss_batches(items, keys, cached):
            texts = [text for text, _, _ in misses]
            computed = yield Effect(*embed, texts)
            entries = self._fill(misses, computed, cached, dimensions)
            yield Effect(store.mset, store.amset, entries)
        return self._assemble(cached)

    # -- helpers -----------------------------------------------------------------------------

    def _miss_batches(
        self, items: list[str], keys: list[str], cached: list[np.ndarray | None]
    ) -> list[list[_Miss]]:
        """Distinct misses (text, key, positions) in first-seen order, cut into batches."""
        distinct: dict[str, _Miss] = {}
        for position, (text, key, vector) in enumerate(zip(items, keys, cached, strict=True)):
            if vector is None:
                distinct.setdefault(key, (text, key, []))[2].append(position)
        misses = list(distinct.values())
        size = self.batch_size or max(len(misses), 1)
        return [misses[start : start + size] for start in range(0, len(misses), size)]

    def _fill(
        self,
        misses: list[_Miss],
        computed: np.ndarray,
        cached: list[np.ndarray | None],
        dimensions: set[int],
    ) -> list[tuple[str, bytes]]:
        """Check one batch's vectors, put them in ``cached``, return the store entries.

        Each batch touches only its own positions (known from ``_miss_batches``), so
        small batches over many texts stay linear.
        """
        matrix = validate_embeddings(
            computed,
            expected_rows=len(misses),
            source=type(self.underlying_embeddings).__name__,
        )
        # checked before the new vectors are stored, so a mismatch writes nothing
        self._check_one_dimension(dimensions | {matrix.shape[1]})
        dimensions.add(matrix.shape[1])
        for row, (_, _, positions) in enumerate(misses):
            for position in positions:
                cached[position] = matrix[row]
        return [(key, _encode(matrix[row])) for row, (_, key, _) in enumerate(misses)]

    def _check_one_dimension(self, dimensions: set[int]) -> None:
        if len(dimensions) > 1:
            raise DimensionError(
                f"cached vectors under namespace {self.namespace!r} have dimensions "
                f"{sorted(dimensions)}; a namespace must hold one model's vectors "
                "(give each model its own namespace)"
            )

    def _assemble(self, vectors: list[np.ndarray | None]) -> np.ndarray:
        self._check_one_dimension(_dimensions(vectors))
        return np.ascontiguousarray(np.stack(vectors), dtype=np.float32)  # type: ignore[arg-type]

"""Redis vector store: documents as hashes, searched with RediSearch vector fields.

Needs Redis Stack (Redis with the RediSearch module; ``scripts/redis-stack.sh start 6379``
runs one locally) and ``pip install 'ragline[redis]'``.

Layout (see :mod:`ragline.vectorstores.redis._schema`): each document is the hash
``{key_prefix}|{id}`` holding the text, the vector as FLOAT32 bytes, the whole metadata
as JSON and one field per indexed metadata field (tag values encoded so filters are
exact); the index covers every key under ``{key_prefix}|``, and no two stores' prefixes
can nest. Indexes of older ragline versions open with :meth:`Redis.from_existing_index`
(their own layout) and move over with :meth:`Redis.migrate_index`.

The store owns its index: every write checks it first (it exists with this dimension)
and after (every document written is indexed), with commands whose cost does not grow
with the index (FT.INFO only when a check fails, or before a store's first write); a
search or count that finds it gone (dropped by another client, a server restarted
empty) creates it again with the store's schema. An index re-created by someone else
with other settings is an error: a ConfigurationError before a write when its dimension
or vector field changed, a RaglineError after one when a document failed to index; a
change of metric or algorithm alone is seen when the store next reads the index (a new
store object, or after a failed check).

Indexed metadata fields are declared (``index_schema``) or inferred from the first
documents written (str and bool -> tag, int and float -> numeric, an int beyond
+/-2**53 -> tag); a field first seen later is added to the index. Filters use the shared
filter language and run inside the KNN query, so a filtered search returns k results
whenever k documents match.

Writes check and encode every document first (nothing is written when one is bad), then
go out in pipelined batches of ``batch_size``: per document DEL + HSET (+ PEXPIRE with a
ttl), so re-adding an id replaces it whole. Replies are switched off inside a batch and an
EXISTS count proves each batch landed; a server that refuses CLIENT REPLY gets plain
pipelines. A batch is not a transaction: if the server dies midway, add the same
documents again (same ids) and each ends up stored once.

The store keeps its options and runs operations on the sync or async client; the index it
owns is :mod:`._index` (``ManagedIndex``), encoding and decoding documents :mod:`._codec`,
the layout and the filter translation :mod:`._schema`.

Native scores are RediSearch's distances, lower is closer: COSINE gives ``1 - cosine``
in [0, 2], IP gives ``1 - inner product``, L2 gives the SQUARED Euclidean distance.
"""

from __future__ import annotations

import copy
import os
import re
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ragline.core import Document
from ragline.core import _redis as conn
from ragline.core.exceptions import ConfigurationError, DimensionError, RaglineError
from ragline.vectorstores.base import SearchHit, VectorStore
from ragline.vectorstores.filters import FilterNode
from ragline.vectorstores.redis._codec import (
    SCORE,
    Row,
    encode_rows,
    new_fields,
    packed_batches,
    search_hits,
    text,
    to_document,
    to_documents,
)
from ragline.vectorstores.redis._index import ManagedIndex, missing_index, response_error
from ragline.vectorstores.redis._schema import (
    SEPARATOR,
    IndexSchema,
    check_fields,
    check_index_name,
    check_key_prefix,
    field_args,
    filter_to_query,
    parse_index_schema,
    parse_vector_schema,
)

if TYPE_CHECKING:
    from ragline.embeddings import Embeddings

__all__ = ["Redis"]

DEFAULT_URL = "redis://localhost:6379"


class _ClassOrInstance:
    """A method that is an instance method on a store and another method on the class
    (``drop_index``: a store drops its own index; LangChain calls it on the class with a
    name)."""

    def __init__(self, method: Any, class_method_name: str) -> None:
        self._method = method
        self._class_method_name = class_method_name
        self.__doc__ = method.__doc__

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return getattr(owner, self._class_method_name)
        return self._method.__get__(instance, owner)


class Redis(VectorStore):
    """A vector store on Redis Stack (RediSearch FLAT or HNSW vector index).

    Args:
        embedding: the Embeddings for texts and queries.
        redis_url: where the server is (``redis://[user:password@]host:port[/db]``,
            ``rediss://`` for TLS). Ignored when ``client`` is given.
        client: an existing ``redis.Redis`` client (created with ``decode_responses=False``)
            instead of a URL. Async methods then run in threads unless ``async_client``
            is given too.
        async_client: a ``redis.asyncio.Redis`` (RESP2, bytes replies) for the async
            methods, reused across calls; without it each async call opens and closes
            its own connection to ``redis_url``.
        index_name: the RediSearch index; a random name when omitted.
        key_prefix: document keys are ``{key_prefix}|{id}``; default ``doc:{index_name}``
            (no ``|``: so no store's prefix is a prefix of another's).
        index_schema: indexed metadata fields, ``{"source": "tag", "page": "numeric",
            "title": "text"}`` (LangChain's ``{"tag": [{"name": "source"}], ...}`` works too).
        infer_schema: index metadata fields not declared, from the values written
            (default: True when ``index_schema`` is omitted).
        vector_schema: ``{"algorithm": "FLAT" | "HNSW", "distance_metric": "COSINE" |
            "IP" | "L2", "m": 16, "ef_construction": 200, "ef_runtime": 10}``.
        content_key, vector_key: hash field names of the text and the vector.
        ttl: seconds each written document lives (its own expiry, renewed on re-add);
            None keeps documents forever.
        batch_size: documents per pipelined write.
        connect_timeout, timeout: socket timeouts in seconds (connect, then each reply).

    Raises:
        ConfigurationError: a bad option (the message names it and the valid values).

    Example:
        >>> store = Redis.from_texts(["cats purr", "dogs bark"], embeddings,  # doctest: +SKIP
        ...     redis_url="redis://localhost:6379", index_name="pets")
        >>> store.similarity_search("kitten", k=1, filter={"lang": "en"})  # doctest: +SKIP
    """

    shared_across_processes = True  # a pickled copy opens its own connection (see below)
    _retriever_name = "RedisVectorStoreRetriever"  # LangChain's Redis retriever class

    def _retriever_tags(self, tags: list[str] | None) -> list[str]:
        # LangChain's Redis.as_retriever puts the store's tags after the given ones
        return [*(tags or []), *self._class_tags()]

    def __init__(
        self,
        embedding: Embeddings,
        *,
        redis_url: str = DEFAULT_URL,
        client: Any = None,
        async_client: Any = None,
        index_name: str | None = None,
        key_prefix: str | None = None,
        index_schema: Mapping[str, Any] | None = None,
        infer_schema: bool | None = None,
        vector_schema: Mapping[str, Any] | None = None,
        content_key: str = "content",
        vector_key: str = "content_vector",
        ttl: float | None = None,
        batch_size: int = 1000,
        connect_timeout: float = 5.0,
        timeout: float | None = 30.0,
    ) -> None:
        if index_name is None:
            index_name = f"ragline-{uuid.uuid4().hex[:12]}"
        index_name = check_index_name(index_name)
        schema = IndexSchema(
            index_name=index_name,
            key_prefix=check_key_prefix(f"doc:{index_name}" if key_prefix is None else key_prefix),
            content_key=content_key,
            vector_key=vector_key,
            **parse_vector_schema(vector_schema),
        )
        if len(set(schema.reserved)) != 3 or not all(schema.reserved):
            raise ConfigurationError(
                f"content_key {content_key!r}, vector_key {vector_key!r} and the metadata "
                f"field {schema.metadata_key!r} must be distinct non-empty names"
            )
        schema.fields = check_fields(parse_index_schema(index_schema), (*schema.reserved, SCORE))
        self._ttl_ms = conn.ttl_milliseconds(ttl)
        self._batch_size = conn.check_batch_size(batch_size)
        self._embedding = embedding
        self._infer = index_schema is None if infer_schema is None else bool(infer_schema)
        self._timeouts = {"connect_timeout": connect_timeout, "timeout": timeout}
        self._url = None if client is not None else redis_url
        self._client = None if client is None else conn.check_client(client)
        self._owns_client = client is None or self._client is not client  # close() closes it
        self._async_client = async_client
        self._where = conn.safe_url(redis_url) if client is None else conn.describe_client(client)
        self._index = ManagedIndex(schema, where=self._where)
        self._quiet_writes: bool | None = None  # may bulk writes use CLIENT REPLY OFF?

    # ------------------------------------------------------------------ other processes

    def __getstate__(self) -> dict[str, Any]:
        """A copy for another process (a Ray worker): the same server, index and settings,
        without this process's connections (the copy opens its own on first use).

        Raises:
            ConfigurationError: the store was made from ``client=``, whose connection
                settings cannot be sent; make it with ``redis_url=``.
        """
        if self._url is None:
            raise ConfigurationError(
                f"a Redis store made from client= ({self._where}) cannot be copied to "
                "another process; make it with redis_url= so each copy opens its own connection"
            )
        index = copy.copy(self._index)
        index.ready = False  # the copy checks the index on the server before it writes
        state = dict(self.__dict__)
        state.update(_client=None, _async_client=None, _owns_client=True, _index=index)
        state["_quiet_writes"] = None  # the other process asks the server again
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_existing_index(
        cls,
        embedding: Embeddings,
        index_name: str,
        *,
        redis_url: str = DEFAULT_URL,
        client: Any = None,
        **options: Any,
    ) -> Redis:
        """Open an index that already exists, reading its schema from the server.

        Args:
            embedding: the Embeddings the index was built with.
            index_name: the existing index.
            redis_url, client: where the server is (as the constructor).
            **options: other constructor options (ttl, batch_size, timeouts ...); the
                schema options come from the index itself.

        Raises:
            ConfigurationError: no such index, or an index this store cannot read.
            StoreConnectionError: the server cannot be reached.

        Example:
            >>> store = Redis.from_existing_index(embeddings, "pets")  # doctest: +SKIP
        """
        taken = sorted({"key_prefix", "index_schema", "vector_schema", "content_key",
                        "vector_key"} & set(options))  # fmt: skip
        if taken:
            raise ConfigurationError(
                f"from_existing_index reads {', '.join(taken)} from the index itself; "
                "do not pass them"
            )
        store = cls(embedding, redis_url=redis_url, client=client, index_name=index_name, **options)
        found = store._run(store._index.info_op())
        if found is None:
            raise ConfigurationError(f"index {index_name!r} does not exist at {store._where}")
        store._index.adopt(found)
        return store

    @classmethod
    def migrate_index(
        cls,
        embedding: Embeddings,
        index_name: str,
        *,
        redis_url: str = DEFAULT_URL,
        client: Any = None,
        **options: Any,
    ) -> Redis:
        """Move an index written by an older ragline to the exact layout, in place.

        The older layout kept documents under ``{key_prefix}:{id}`` (so stores named
        ``kb`` and ``kb:v2`` shared keys) with raw tag values. This writes every document
        again under ``{key_prefix}|{id}`` with encoded tags, replaces the index (same
        name, settings and fields), then deletes the old keys. A key under the old prefix
        that also falls under a longer prefix of another index (``doc:kb:v2:`` inside
        ``doc:kb:``) belongs to that index and is left alone. Each step can be repeated:
        if it is interrupted before the old index is dropped, run it again.

        Args:
            embedding, index_name, redis_url, client, **options: as
                :meth:`from_existing_index`.

        Returns:
            The store on the migrated index (returned as is when already exact).

        Example:
            >>> store = Redis.migrate_index(embeddings, "kb")  # doctest: +SKIP
        """
        store = cls.from_existing_index(
            embedding, index_name, redis_url=redis_url, client=client, **options
        )
        if not store._index.schema.exact:
            store._run(store._migrate_op())
        return store

    # ------------------------------------------------------------------ primitives

    @property
    def _schema(self) -> IndexSchema:
        """The index's schema as last seen (kept by the ``ManagedIndex``)."""
        return self._index.schema

    @property
    def embeddings(self) -> Embeddings:
        return self._embedding

    @property
    def index_name(self) -> str:
        """The RediSearch index name."""
        return self._schema.index_name

    @property
    def key_prefix(self) -> str:
        """Documents are stored under ``{key_prefix}|{id}``."""
        return self._schema.key_prefix

    @property
    def dimension(self) -> int | None:
        if self._schema.dimension is None:
            self._run(self._index.sync_op())  # another process may have created the index
        return self._schema.dimension

    async def _adimension(self) -> int | None:
        if self._schema.dimension is None:
            await self._arun(self._index.sync_op())
        return self._schema.dimension

    @property
    def score_kind(self) -> str:
        return self._schema.score_kind

    @property
    def index_schema(self) -> dict[str, str]:
        """The indexed metadata fields, ``{name: "tag" | "numeric" | "text"}``."""
        return dict(self._schema.fields)

    def count(self) -> int:
        return self._run(self._count_op())

    def _upsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        self._run(self._upsert_op(ids, vectors, to_documents(ids, texts, metadatas)))

    def _delete(self, ids: list[str]) -> None:
        self._run(self._delete_op(ids))

    def _get_by_ids(self, ids: list[str]) -> list[Document]:
        return self._run(self._get_op(ids))

    def _held_ids(self, ids: list[str]) -> set[str]:
        return self._run(self._held_op(ids))

    def _search(
        self, queries: np.ndarray, k: int, filter: FilterNode | None, *, with_vectors: bool
    ) -> list[list[SearchHit]]:
        return self._run(self._search_op(queries, k, filter, with_vectors))

    async def _aupsert(
        self,
        ids: list[str],
        vectors: np.ndarray,
        texts: list[str],
        metadatas: list[dict[str, Any]],
    ) -> None:
        await self._arun(self._upsert_op(ids, vectors, to_documents(ids, texts, metadatas)))

    async def _adelete(self, ids: list[str]) -> None:
        await self._arun(self._delete_op(ids))

    async def _aget_by_ids(self, ids: list[str]) -> list[Document]:
        return await self._arun(self._get_op(ids))

    async def _aheld_ids(self, ids: list[str]) -> set[str]:
        return await self._arun(self._held_op(ids))

    async def _asearch(
        self, queries: np.ndarray, k: int, filter: FilterNode | None, *, with_vectors: bool
    ) -> list[list[SearchHit]]:
        return await self._arun(self._search_op(queries, k, filter, with_vectors))

    async def acount(self) -> int:
        """Async :meth:`count`."""
        return await self._arun(self._count_op())

    # ------------------------------------------------------------------ index management

    def _drop_own_index(self, *, delete_documents: bool = False) -> bool:
        """Drop the index, and with ``delete_documents=True`` every document it covers.

        Called as ``store.drop_index(delete_documents=True)``; also as LangChain calls it,
        on the class: ``Redis.drop_index(index_name, delete_documents, redis_url=...)``
        (``client=`` works too; the URL defaults to ``$REDIS_URL``, then the local server).

        Returns:
            True if an index was dropped, False if it did not exist.

        Example:
            >>> store.drop_index(delete_documents=True)  # doctest: +SKIP
            True
            >>> Redis.drop_index("kb", True, redis_url="redis://localhost:6379")  # doctest: +SKIP
            False
        """
        return self._run(self._index.drop_op(delete_documents))

    drop_index = _ClassOrInstance(_drop_own_index, "_drop_named_index")

    @classmethod
    def _drop_named_index(
        cls,
        index_name: str,
        delete_documents: bool = False,
        *,
        redis_url: str | None = None,
        client: Any = None,
        **connection: Any,
    ) -> bool:
        """LangChain's ``Redis.drop_index(index_name, delete_documents, **kwargs)``."""
        if redis_url is None and client is None:
            redis_url = os.environ.get("REDIS_URL", DEFAULT_URL)
        unknown = sorted(set(connection) - {"connect_timeout", "timeout"})
        if unknown:
            raise ConfigurationError(
                f"Redis.drop_index takes index_name, delete_documents, redis_url, client, "
                f"connect_timeout and timeout; got {', '.join(map(repr, unknown))}"
            )
        store = cls(
            None,  # type: ignore[arg-type]  # no embedding: the store only drops
            redis_url=redis_url or DEFAULT_URL,
            client=client,
            index_name=index_name,
            **connection,
        )
        try:
            return store._drop_own_index(delete_documents=delete_documents)
        finally:
            store.close()

    async def adrop_index(self, *, delete_documents: bool = False) -> bool:
        """Async :meth:`drop_index`."""
        return await self._arun(self._index.drop_op(delete_documents))

    def close(self) -> None:
        """Close the connections this store opened (a client passed in stays open)."""
        if self._client is not None and self._owns_client:
            self._client.close()
            if self._url is not None:
                self._client = None  # reconnects on next use

    # ------------------------------------------------------------------ drivers

    def _sync_client(self) -> Any:
        if self._client is None:
            assert self._url is not None
            self._client = conn.make_client(self._url, **self._timeouts)
        return self._client

    def _run(self, operation: conn.Operation[Any]) -> Any:
        try:
            return conn.run(self._sync_client(), operation, self._where)
        except ConnectionError:
            self._index.ready = False  # the server may come back empty: check again
            raise

    async def _arun(self, operation: conn.Operation[Any]) -> Any:
        import asyncio

        if self._async_client is not None:
            client, owned = self._async_client, False
        elif self._url is not None:
            # asyncio connections belong to one event loop, so each call opens its own and
            # closes it (pass async_client= to reuse a pool across many calls)
            client, owned = conn.make_async_client(self._url, **self._timeouts), True
        else:  # only a sync client was given: run it in a worker thread
            return await asyncio.to_thread(self._run, operation)
        try:
            return await conn.arun(client, operation, self._where)
        except ConnectionError:
            self._index.ready = False
            raise
        finally:
            if owned:
                await client.aclose()

    # ------------------------------------------------------------------ operations

    def _migrate_op(self) -> conn.Operation[None]:
        index = self._index
        old = index.schema
        others = yield from index.other_prefixes_op()
        claimed = [
            prefix
            for prefixes in others.values()
            for prefix in prefixes
            if prefix.startswith(old.prefix) and prefix != old.prefix
        ]
        keys: list[bytes] = []
        cursor: Any = 0
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", old.prefix) + "*"
        while True:
            [(cursor, found)] = yield [("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)]
            keys += [key for key in found if not any(map(text(key).startswith, claimed))]
            if int(cursor) == 0:
                break
        new = IndexSchema(**{**vars(old), "separator": SEPARATOR})
        names_wanted = [old.content_key, old.vector_key, old.metadata_key, *old.fields]
        for start in range(0, len(keys), self._batch_size):
            batch = sorted(set(keys[start : start + self._batch_size]))
            replies = yield [("HMGET", key, *names_wanted) for key in batch]
            ids, documents, vectors = [], [], []
            for key, reply in zip(batch, replies, strict=True):
                if isinstance(reply, Exception) or reply[0] is None or reply[1] is None:
                    continue  # not a document of this store (no text or no vector)
                values = dict(zip(names_wanted, reply, strict=True))
                doc_id = old.doc_id(text(key))
                ids.append(doc_id)
                documents.append(to_document(old, doc_id, values))
                vectors.append(np.frombuffer(values[old.vector_key], dtype=np.float32))
            if ids:
                rows = encode_rows(new, ids, documents, dict(new.fields))
                yield from self._write_rows_op(rows, np.stack(vectors))
        [reply] = yield [("FT.DROPINDEX", old.index_name)]
        if isinstance(reply, Exception) and not missing_index(reply):
            raise response_error(reply, "FT.DROPINDEX")
        index.schema = new
        yield from index.create_op()
        for start in range(0, len(keys), self._batch_size):
            [reply] = yield [("DEL", *keys[start : start + self._batch_size])]
            if isinstance(reply, Exception):
                raise response_error(reply, "DEL")

    def _upsert_op(
        self, ids: list[str], vectors: np.ndarray, documents: list[Document]
    ) -> conn.Operation[None]:
        """Check the index, write, then check that every document written is indexed: a
        write never reports success for documents the index does not hold.

        A store that knows its index checks it with two commands whose cost does not grow
        with the index (FT.INFO's does: ~15 ms at 60k HNSW documents, 0.64 s at 1M):
        before the write, KNN queries asking for no results (the server checks the query
        vector against the index's vector field: see ``_dimension_probe_op``); after it,
        a count of the written keys the index holds (FT.SEARCH * INKEYS). Only when one
        of them does not confirm the index does FT.INFO say why. A store that does not
        know its index yet reads it whole (FT.INFO), as before.
        """
        index = self._index
        schema = index.schema
        if schema.dimension is not None:
            if not (index.ready and (yield from self._dimension_probe_op())):
                yield from index.sync_op()  # dropped, re-created, restarted empty ...
        elif (yield from index.info_op()) is not None:
            yield from index.sync_op()  # created by another store object: adopt it
        if schema.dimension is not None and vectors.shape[1] != schema.dimension:
            raise DimensionError(
                f"vectors have dimension {vectors.shape[1]} but index {schema.index_name!r} "
                f"holds vectors of dimension {schema.dimension}; nothing was written"
            )
        # declared fields an existing index lacks, and (inferring) fields first seen now
        added = {name: kind for name, kind in index.declared.items() if name not in schema.fields}
        if self._infer:
            added.update(new_fields(schema, documents))
        rows = encode_rows(schema, ids, documents, {**schema.fields, **added})  # checks all
        if not index.ready:  # no index yet: create it now that the input is checked
            schema.dimension = int(vectors.shape[1])
            schema.fields = {**schema.fields, **added}
            try:
                yield from index.create_op()
            except BaseException:
                if not index.ready:
                    schema.dimension = None
                raise
            added = {n: k for n, k in added.items() if n not in schema.fields}
        for name, kind in added.items():
            if name in schema.fields:
                continue
            [reply] = yield [
                ("FT.ALTER", schema.index_name, "SCHEMA", "ADD", *field_args(name, kind))
            ]
            if isinstance(reply, Exception) and "duplicate" not in str(reply).lower():
                raise response_error(reply, "FT.ALTER")
            schema.fields[name] = kind
        keys = list(dict.fromkeys(schema.key(doc_id) for doc_id in ids))
        yield from self._write_rows_op(rows, vectors)
        indexed = yield from self._indexed_count_op(keys)
        if indexed is None:  # dropped while writing: create it again, write again (upsert)
            yield from index.sync_op()
            yield from self._write_rows_op(rows, vectors)
            indexed = yield from self._indexed_count_op(keys)
        if indexed == len(keys):
            return
        # Some are not indexed: say why (FT.INFO only now, when something is wrong).
        found = None if indexed is None else (yield from index.info_op())
        if (
            indexed is None
            or found is None
            or any(
                getattr(found, name) != getattr(schema, name)
                for name in ("dimension", "prefix", "vector_key", "distance_metric", "algorithm")
            )
        ):
            index.ready = False  # the next call reads the index again
            raise RaglineError(
                f"index {schema.index_name!r} at {self._where} was dropped or re-created by "
                f"another client while {len(rows)} documents were written; they are not "
                "indexed. Check who manages this index, then add them again"
            )
        size = self._batch_size
        replies = yield [("EXISTS", *keys[i : i + size]) for i in range(0, len(keys), size)]
        for reply in replies:
            if isinstance(reply, Exception):
                raise response_error(reply, "EXISTS")
        held = sum(int(reply) for reply in replies)
        if held > indexed:  # (a key gone meanwhile, by its ttl or a delete, is no failure)
            raise RaglineError(
                f"Redis at {self._where} could not index {held - indexed} of the "
                f"{len(rows)} documents just written (was the index re-created with other "
                "settings?); add them again"
            )

    def _dimension_probe_op(self) -> conn.Operation[bool]:
        """Whether the index surely exists with this store's vector field and dimension,
        asked without FT.INFO: two queries for the 0 nearest neighbours of a zero vector,
        one of this dimension and one a float longer. The server checks a query vector
        against the field's dimension before answering (without searching: ~0.05 ms each
        at 60k documents, FLAT or HNSW; KNN 1 would scan a FLAT index, 25 ms there), so
        the first passes and the second fails only when the field exists with this
        dimension. A missing index fails both; an empty index, or a field of another
        name, passes both (the server checks nothing then): False, and FT.INFO decides."""
        schema = self._schema
        dimension = int(schema.dimension or 0)
        query = f"*=>[KNN 0 @{schema.vector_key} $vector]"
        replies = yield [
            ("FT.SEARCH", schema.index_name, query, "PARAMS", 2,
             "vector", np.zeros(size, dtype=np.float32).tobytes(), "LIMIT", 0, 0, "DIALECT", 2)
            for size in (dimension, dimension + 1)
        ]  # fmt: skip
        return not isinstance(replies[0], Exception) and isinstance(replies[1], Exception)

    def _indexed_count_op(self, keys: list[str]) -> conn.Operation[int | None]:
        """How many of ``keys`` the index holds (FT.SEARCH * INKEYS, LIMIT 0 0; costs the
        number of keys); None when there is no index."""
        index_name = self._schema.index_name
        commands = [
            ("FT.SEARCH", index_name, "*", "INKEYS", len(chunk), *chunk,
             "LIMIT", 0, 0, "DIALECT", 2)
            for chunk in (keys[i : i + self._batch_size]
                          for i in range(0, len(keys), self._batch_size))
        ]  # fmt: skip
        replies = yield commands
        total = 0
        for reply in replies:
            if isinstance(reply, Exception):
                if missing_index(reply):
                    return None
                raise response_error(reply, "FT.SEARCH")
            total += int(reply[0])
        return total

    def _write_rows_op(self, rows: list[Row], vectors: np.ndarray) -> conn.Operation[None]:
        if self._quiet_writes is None:  # a proxy or an ACL may refuse CLIENT REPLY
            [reply] = yield [("CLIENT", "REPLY", "ON")]
            self._quiet_writes = not isinstance(reply, Exception)
        quiet = self._quiet_writes
        batches = packed_batches(
            rows, vectors, batch_size=self._batch_size, ttl_ms=self._ttl_ms, quiet=quiet
        )
        replies = yield conn.Packed(batches)
        for reply in replies:
            if isinstance(reply, Exception):
                raise response_error(reply, "a document write")
        stored = sum(int(count) for count in replies[1::2]) if quiet else len(rows)
        if stored != len(rows):  # replies were off: EXISTS counted what landed
            raise RaglineError(
                f"Redis at {self._where} stored {stored} of {len(rows)} documents; the "
                "others were refused (out of memory? see maxmemory); add them again"
            )

    def _delete_op(self, ids: list[str]) -> conn.Operation[None]:
        keys = [self._schema.key(doc_id) for doc_id in ids]
        for start in range(0, len(keys), self._batch_size):
            [reply] = yield [("DEL", *keys[start : start + self._batch_size])]
            if isinstance(reply, Exception):
                raise response_error(reply, "DEL")

    def _get_op(self, ids: list[str]) -> conn.Operation[list[Document]]:
        schema = self._schema
        names = [schema.content_key, schema.metadata_key, *schema.fields]
        documents: list[Document] = []
        for start in range(0, len(ids), self._batch_size):
            chunk = ids[start : start + self._batch_size]
            replies = yield [("HMGET", schema.key(doc_id), *names) for doc_id in chunk]
            for doc_id, reply in zip(chunk, replies, strict=True):
                if isinstance(reply, Exception):
                    raise response_error(reply, "HMGET")
                if reply[0] is not None:
                    values = dict(zip(names, reply, strict=True))
                    documents.append(to_document(schema, doc_id, values))
        return documents

    def _held_op(self, ids: list[str]) -> conn.Operation[set[str]]:
        """The ids whose hash holds a text (what ``_get_op`` finds), one HEXISTS each."""
        content = self._schema.content_key
        held: set[str] = set()
        for start in range(0, len(ids), self._batch_size):
            chunk = ids[start : start + self._batch_size]
            replies = yield [("HEXISTS", self._schema.key(doc_id), content) for doc_id in chunk]
            for doc_id, reply in zip(chunk, replies, strict=True):
                if isinstance(reply, Exception):
                    raise response_error(reply, "HEXISTS")
                if reply:
                    held.add(doc_id)
        return held

    def _count_op(self) -> conn.Operation[int]:
        command = ("FT.SEARCH", self._schema.index_name, "*", "LIMIT", 0, 0, "DIALECT", 2)
        [reply] = yield [command]
        if isinstance(reply, Exception) and missing_index(reply):
            if (yield from self._index.sync_op()) is None:  # re-created when known
                return 0
            [reply] = yield [command]
        if isinstance(reply, Exception):
            raise response_error(reply, "FT.SEARCH")
        return int(reply[0])

    def _search_op(
        self, queries: np.ndarray, k: int, filter: FilterNode | None, with_vectors: bool
    ) -> conn.Operation[list[list[SearchHit]]]:
        schema = self._schema
        if not self._index.ready:
            found = yield from self._index.sync_op()
            if found is None:
                return [[] for _ in range(len(queries))]
        # FilterError before any search
        where, params = filter_to_query(filter, schema.fields, exact=schema.exact)
        if queries.shape[1] != schema.dimension:
            raise DimensionError(
                f"query vectors have dimension {queries.shape[1]} but index "
                f"{schema.index_name!r} holds vectors of dimension {schema.dimension}"
            )
        prefix = "*" if where == "*" else f"({where})"
        query = f"{prefix}=>[KNN {int(k)} @{schema.vector_key} $vector AS {SCORE}]"
        flat_params: list[Any] = []
        for name, value in params.items():
            flat_params += (name, value)
        returned = [schema.content_key, schema.metadata_key, SCORE, *schema.fields]
        if with_vectors:
            returned.append(schema.vector_key)
        commands = [
            ("FT.SEARCH", schema.index_name, query, "PARAMS", len(flat_params) + 2,
             "vector", vector.tobytes(), *flat_params, "SORTBY", SCORE, "ASC",
             "RETURN", len(returned), *returned, "LIMIT", 0, int(k), "DIALECT", 2)
            for vector in queries
        ]  # fmt: skip
        replies = yield commands
        if any(isinstance(reply, Exception) and missing_index(reply) for reply in replies):
            # dropped by another client, or a server restarted empty: re-created if known
            if (yield from self._index.sync_op()) is None:
                return [[] for _ in range(len(queries))]
            replies = yield commands
        if any(isinstance(reply, Exception) for reply in replies):
            # An index re-created by another client with other settings (another
            # dimension) rejects this store's query; say so instead of passing on
            # RediSearch's message about blob sizes.
            yield from self._index.sync_op()  # raises ConfigurationError naming the change
        results = []
        for reply in replies:
            if isinstance(reply, Exception):
                raise response_error(reply, "FT.SEARCH")
            results.append(search_hits(schema, reply, with_vectors))
        return results

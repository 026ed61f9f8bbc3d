"""A Redis store's RediSearch index: read, checked, created, re-created and dropped.

The store owns its index. :class:`ManagedIndex` keeps what the store knows of it (the
schema, the declared fields, whether it is known to exist) and the operations that keep
that true, written once as :data:`~ragline.core._redis.Operation` generators for the sync
and async clients: every write and every search that finds the index gone (dropped by
another client, a server restarted empty) creates it again with the known schema, and an
index someone re-created with other settings is a ConfigurationError.
"""

from __future__ import annotations

import time
from typing import Any

from ragline.core import _redis as conn
from ragline.core.exceptions import ConfigurationError, RaglineError
from ragline.vectorstores.redis._codec import text
from ragline.vectorstores.redis._schema import IndexSchema, info_to_dict, schema_from_info

__all__ = ["ManagedIndex", "missing_index", "response_error"]

# how long a re-created index may take to index the documents it finds (seconds)
_BACKFILL_SECONDS = 30.0


class ManagedIndex:
    """What a store knows of its index, and the operations on it.

    Attributes:
        schema: the index's schema as last seen (or as configured, before it exists).
        declared: the fields ``index_schema`` declared (an index re-created after a drop
            starts from them; inferred fields are inferred again).
        ready: the index is known to exist with this schema (cleared when a connection
            fails: the server may come back empty).
        where: the server, for messages (no password).
    """

    def __init__(self, schema: IndexSchema, *, where: str) -> None:
        self.schema = schema
        self.declared = dict(schema.fields)
        self.ready = False
        self.where = where

    def adopt(self, found: IndexSchema) -> None:
        """Take an existing index's schema as this store's (``from_existing_index``)."""
        found.hnsw_ef_runtime = self.schema.hnsw_ef_runtime
        self.schema = found
        self.declared = dict(found.fields)
        self.ready = True

    def info_op(self) -> conn.Operation[IndexSchema | None]:
        """Read the index's schema from FT.INFO (None when there is no such index)."""
        [reply] = yield [("FT.INFO", self.schema.index_name)]
        if isinstance(reply, Exception):
            if missing_index(reply):
                return None
            raise response_error(reply, "FT.INFO")
        return schema_from_info(reply, self.schema.index_name)

    def sync_op(self) -> conn.Operation[IndexSchema | None]:
        """Check the server's index against this store's settings and adopt its fields.

        A missing index (dropped by another client, or a server restarted empty) is
        created again with the schema this store knows, when it knows one (it has seen
        the dimension): the store owns its index. Returns None when it stays missing.
        """
        found = yield from self.info_op()
        if found is None:
            self.ready = False
            if self.schema.dimension is None:
                self.schema.fields = dict(self.declared)  # inferred fields are re-inferred
                return None
            yield from self.create_op()
            return self.schema
        mine = self.schema
        if found.exact != mine.exact and found.key_prefix == mine.key_prefix:
            raise ConfigurationError(
                f"index {mine.index_name!r} was written by an older ragline, with keys "
                f"'{found.prefix}<id>' (where stores named 'kb' and 'kb:v2' share keys) and "
                "raw tag values; open it as it is with Redis.from_existing_index(embedding, "
                f"{mine.index_name!r}, ...), or move it to the exact layout with "
                f"Redis.migrate_index(embedding, {mine.index_name!r}, ...)"
            )
        for what, expected, actual in (
            ("key prefix", mine.prefix, found.prefix),
            ("distance metric", mine.distance_metric, found.distance_metric),
            ("algorithm", mine.algorithm, found.algorithm),
            ("dimension", mine.dimension or found.dimension, found.dimension),
            ("vector field", mine.vector_key, found.vector_key),
            ("content field", mine.content_key, found.content_key),
        ):
            if expected != actual:
                raise ConfigurationError(
                    f"index {mine.index_name!r} exists with {what} {actual!r}, but this store "
                    f"was configured with (or last saw) {expected!r}; another client created "
                    "it so, or re-created it. Use Redis.from_existing_index to open it as it "
                    "is, or another index_name"
                )
        for name, kind in self.declared.items():
            if found.fields.get(name, kind) != kind:
                raise ConfigurationError(
                    f"index {mine.index_name!r} already has field {name!r} as a "
                    f"{found.fields[name]} field, but index_schema declares it {kind}"
                )
        mine.dimension = found.dimension
        mine.fields = {**found.fields}
        mine.indexing_failures, mine.backfilling = found.indexing_failures, found.backfilling
        self.ready = True
        return found

    def other_prefixes_op(self) -> conn.Operation[dict[str, list[str]]]:
        """The key prefixes of every other index on the server, by index name."""
        [names] = yield [("FT._LIST",)]
        if isinstance(names, Exception):
            raise response_error(names, "FT._LIST")
        others = [text(name) for name in names if text(name) != self.schema.index_name]
        infos = (yield [("FT.INFO", name) for name in others]) if others else []
        return {
            name: _prefixes(info)
            for name, info in zip(others, infos, strict=True)
            if not isinstance(info, Exception)  # dropped meanwhile
        }

    def create_op(self) -> conn.Operation[None]:
        """FT.CREATE this store's index (``dimension`` known), then wait until the hashes
        already under the prefix are indexed. Refuses a prefix that nests with another
        index's (an index written by an older ragline or another tool)."""
        schema = self.schema
        for name, prefixes in (yield from self.other_prefixes_op()).items():
            clash = [p for p in prefixes if p.startswith(schema.prefix) or
                     schema.prefix.startswith(p)]  # fmt: skip
            if clash:
                raise ConfigurationError(
                    f"index {name!r} covers keys under {clash[0]!r}, which overlaps this "
                    f"store's {schema.prefix!r}: each would count, search and delete the "
                    "other's documents. Choose another key_prefix (or index_name)"
                )
        [reply] = yield [tuple(schema.create_args())]
        if isinstance(reply, Exception):
            if "already exists" not in str(reply):
                raise response_error(reply, "FT.CREATE")
            yield from self.sync_op()  # created meanwhile by another process
            return
        self.ready = True
        yield from self._wait_indexed_op()

    def _wait_indexed_op(self) -> conn.Operation[None]:
        """Poll FT.INFO until the index has scanned the keys that existed when it was
        created (new writes are indexed as they happen; this is for re-created indexes)."""
        deadline = time.monotonic() + _BACKFILL_SECONDS
        while True:
            found = yield from self.info_op()
            if found is None:
                return
            if not found.backfilling:
                # Hashes already under the prefix that the index cannot hold (written
                # for another dimension) fail during the backfill; they are counted
                # here so the next write's check sees only its own failures.
                self.schema.indexing_failures = found.indexing_failures
                return
            if time.monotonic() > deadline:
                raise RaglineError(
                    f"index {self.schema.index_name!r} at {self.where} is still indexing "
                    f"its documents after {_BACKFILL_SECONDS} s; try again later"
                )
            # pause ~10 ms between polls without a client-side sleep (which would block an
            # event loop): WAIT for a replica that does not exist returns at its timeout
            yield [("WAIT", 1, 10)]

    def drop_op(self, delete_documents: bool) -> conn.Operation[bool]:
        """FT.DROPINDEX (with DD: the documents too); False when there was no index.

        DD deletes only the hashes the index holds; a hash under the prefix it could not
        index (written for another dimension before the index was re-created) would
        stay behind, so with ``delete_documents`` the prefix is swept too. Only an index
        of this module's layout is swept: its prefix ends with the key separator, so no
        other index's keys can lie under it.
        """
        found = (yield from self.info_op()) if delete_documents else None
        command: tuple[Any, ...] = ("FT.DROPINDEX", self.schema.index_name)
        [reply] = yield [(*command, "DD") if delete_documents else command]
        self.ready = False
        self.schema.fields = dict(self.declared)
        self.schema.dimension = None
        if isinstance(reply, Exception):
            if missing_index(reply):
                return False
            raise response_error(reply, "FT.DROPINDEX")
        if found is not None and found.exact:
            yield from _delete_under_op(found.prefix)
        return True


def _delete_under_op(prefix: str) -> conn.Operation[None]:
    """DEL every key under ``prefix`` (SCAN in steps of 1,000 keys)."""
    pattern = conn.glob_escape(prefix) + "*"
    cursor: Any = 0
    while True:
        [reply] = yield [("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)]
        if isinstance(reply, Exception):
            raise response_error(reply, "SCAN")
        cursor, keys = reply
        if keys:
            [deleted] = yield [("DEL", *keys)]
            if isinstance(deleted, Exception):
                raise response_error(deleted, "DEL")
        if int(cursor) == 0:
            return


def missing_index(reply: Exception) -> bool:
    """Whether an error reply says the index does not exist."""
    lowered = str(reply).lower()
    return "no such index" in lowered or "unknown index" in lowered


def response_error(err: Exception, command: str) -> RaglineError:
    """An error reply of the server as ragline's error, naming the command."""
    return RaglineError(f"Redis rejected {command}: {err}")


def _prefixes(info: Any) -> list[str]:
    definition = info_to_dict(info_to_dict(info)[b"index_definition"])
    return [text(prefix) for prefix in definition.get(b"prefixes", [])]

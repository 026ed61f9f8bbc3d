"""SQLRecordManager: records in a SQLite database, through the standard library's sqlite3.

One table, ``upsertion_record``, with the columns LangChain's SQLRecordManager uses
(``uuid, key, namespace, group_id, updated_at``; ``key`` unique per ``namespace``). Every
write runs in one ``BEGIN IMMEDIATE`` transaction: it lands whole or not at all, and two
processes writing the same file take turns instead of failing half-way. A file database runs in
WAL mode with ``synchronous=NORMAL`` (see ``_connect``).

Indexes: ``(namespace, updated_at)`` for full cleanup and the clock, and
``(namespace, group_id, updated_at)`` so incremental cleanup seeks each source's stale
keys instead of scanning every key stamped before the run.

A second table, ``ragline_pending``, is the intent log (see ``ragline.indexing.base``):
``mark_pending`` inserts keys, and ``update`` / ``delete_keys`` remove them in the same
transaction as the records they write.

A manager on ``":memory:"`` can be filled from a database file and copied into a new one
(:meth:`SQLRecordManager.copy_from`, :meth:`SQLRecordManager.copy_to`): the store folder
works on records in memory and writes them out with the store it describes.

Lists of keys and group ids travel to SQLite as one JSON array (``json_each``), so a
call with 100,000 keys is one statement, below every SQLite variable limit.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ragline.core import ConfigurationError, PersistenceError
from ragline.core._checks import check_optional_positive_int
from ragline.core._sqlite import MEMORY, SQLiteDatabase, database_path
from ragline.indexing.base import (
    PendingOperation,
    PendingWrite,
    RecordManager,
    check_group_ids,
    check_keys,
    check_operation,
    next_time,
)

__all__ = ["SQLRecordManager"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS upsertion_record (
    uuid TEXT NOT NULL PRIMARY KEY,
    key TEXT,
    namespace TEXT NOT NULL,
    group_id TEXT,
    updated_at FLOAT,
    CONSTRAINT uix_key_namespace UNIQUE (key, namespace)
);
CREATE INDEX IF NOT EXISTS ix_upsertion_record_namespace_updated_at
    ON upsertion_record (namespace, updated_at);
CREATE INDEX IF NOT EXISTS ix_upsertion_record_namespace_group_id_updated_at
    ON upsertion_record (namespace, group_id, updated_at);
CREATE TABLE IF NOT EXISTS ragline_pending (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    group_id TEXT,
    operation TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
);
"""

_CLEAR_PENDING = (
    "DELETE FROM ragline_pending WHERE namespace = ? AND key IN (SELECT value FROM json_each(?))"
)

_UPSERT = """
INSERT INTO upsertion_record (uuid, key, namespace, group_id, updated_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (key, namespace) DO UPDATE
SET group_id = excluded.group_id, updated_at = excluded.updated_at
"""

_URL_PREFIXES = ("sqlite://", "sqlite+pysqlite://", "sqlite+aiosqlite://")
_MEMORY = MEMORY


def sqlite_path(db_url: str) -> str:
    """The sqlite3 database path a ``db_url`` names (``":memory:"`` for an in-memory one).

    Accepts SQLAlchemy-style SQLite URLs: ``sqlite:///relative.db``,
    ``sqlite:////absolute/path.db``, ``sqlite://`` or ``sqlite:///:memory:`` (memory),
    the same with ``+pysqlite`` or ``+aiosqlite``, and plain ``":memory:"``.

    Raises:
        ConfigurationError: any other URL (another database, query options).

    Example:
        >>> sqlite_path("sqlite:////var/lib/records.db")
        '/var/lib/records.db'
    """
    if not isinstance(db_url, str):
        raise ConfigurationError(f"db_url must be a string, got {type(db_url).__name__}")
    if db_url != _MEMORY and not db_url.startswith(_URL_PREFIXES):
        raise ConfigurationError(
            f"db_url {db_url!r} is not supported: SQLRecordManager stores records with the "
            f"standard library's sqlite3; give 'sqlite:///path/to/records.db' or ':memory:'"
        )
    return database_path(db_url, what="db_url")


def _engine_db_url(url: Any) -> str:
    """The ``db_url`` of a SQLAlchemy engine's URL.

    A SQLite URL is rebuilt from its parts: ``str(url)`` percent-encodes the database
    (``sqlite:///:memory:`` prints as ``sqlite:///%3Amemory%3A``, ``é`` as ``%C3%A9``),
    which would name another file. Any other URL is printed (``str`` masks a password),
    so the refusal names it; so is one with query options, which ``sqlite_path`` refuses.
    """
    if getattr(url, "get_backend_name", lambda: None)() != "sqlite" or url.query:
        return str(url)
    database = url.database
    if not database:
        return f"{url.drivername}://"
    return f"{url.drivername}:///{database}"


class SQLRecordManager(RecordManager):
    """A record manager backed by a SQLite file (or an in-memory SQLite database).

    The connection opens on first use and creates the table when missing, so calling
    :meth:`create_schema` first (as LangChain requires) is allowed but not needed.

    Args:
        namespace: the name of this set of records; several namespaces can share a file.
        db_url: ``"sqlite:///path/to/records.db"`` or ``":memory:"`` (see
            :func:`sqlite_path` for every accepted form).
        engine: instead of ``db_url``, a SQLAlchemy engine over SQLite (LangChain's
            other way to name the database); its URL is used, the engine itself is not.
        engine_kwargs: accepted so LangChain code ports unchanged; ignored (they are
            ``create_engine`` options, and no engine is created).
        async_mode: accepted so LangChain code ports unchanged; ignored (the async
            methods always work, running sqlite3 in a worker thread).

    Raises:
        ConfigurationError: a db_url (or an engine's URL) that is not a SQLite URL, or
            both or neither of ``db_url`` and ``engine``.
        InvalidInputError: an empty namespace.

    Example:
        >>> manager = SQLRecordManager("docs", db_url="sqlite:///:memory:")
        >>> manager.update(["k1", "k2"], group_ids=["a.txt", "a.txt"])
        >>> manager.exists(["k2", "k9"])
        [True, False]
        >>> manager.delete_keys(["k1"])
        >>> manager.list_keys(group_ids=["a.txt"])
        ['k2']
    """

    def __init__(
        self,
        namespace: str,
        *,
        engine: object | None = None,
        db_url: str | None = None,
        engine_kwargs: dict[str, object] | None = None,
        async_mode: bool = False,
    ) -> None:
        if (engine is None) == (db_url is None):
            given = "neither" if engine is None else "both"
            raise ConfigurationError(f"SQLRecordManager takes db_url or engine, got {given}")
        if db_url is None:
            url = getattr(engine, "url", None)
            if url is None:
                raise ConfigurationError(
                    f"engine must be a SQLAlchemy engine, got {type(engine).__name__}"
                )
            db_url = _engine_db_url(url)
        super().__init__(namespace)
        self.db_url = db_url
        self._path = sqlite_path(db_url)
        self._last_stamp: float | None = None
        # one connection per manager (WAL, schema on first use, errors naming the file),
        # used from worker threads by the async twins
        self._db = SQLiteDatabase(
            self._path, schema=_SCHEMA, what="record database", create_folder=False
        )
        self._lock = self._db.lock

    def __repr__(self) -> str:
        return f"SQLRecordManager(namespace={self.namespace!r}, db_url={self.db_url!r})"

    # ------------------------------------------------------------------ connection

    def _connect(self) -> sqlite3.Connection:
        return self._db.connect()

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction: committed when the block ends, rolled back on error."""
        return self._db.transaction()

    def _query(self, sql: str, parameters: Sequence[object]) -> list[tuple[object, ...]]:
        return self._db.query(sql, parameters)

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        self._db.close()

    # ------------------------------------------------------------------ interface

    def create_schema(self) -> None:
        """Create the table and its indexes when missing (idempotent)."""
        with self._lock:
            self._connect()

    def get_time(self) -> float:
        with self._lock:
            return self._tick()

    def _tick(self) -> float:
        # Later than every stamp in this namespace, also those written by other
        # processes or earlier managers on the same file (one indexed lookup).
        ((latest,),) = self._query(
            "SELECT MAX(updated_at) FROM upsertion_record WHERE namespace = ?", (self.namespace,)
        )
        stamps = [float(s) for s in (self._last_stamp, latest) if isinstance(s, (int, float))]
        now = next_time(max(stamps) if stamps else None)
        self._last_stamp = now
        return now

    def update(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        time_at_least: float | None = None,
    ) -> None:
        keys = check_keys(keys)
        groups = check_group_ids(group_ids, len(keys))
        if not keys:
            return
        with self._transaction() as connection:
            # through get_time (inside the transaction: later than every stamp, also
            # another process's), so a clock a program puts in its place (a test
            # patching get_time to fixed stamps, as LangChain's tests do) stamps too
            now = self.get_time()
            if time_at_least is not None and now < time_at_least:
                now = self._last_stamp = float(time_at_least)
            namespace = self.namespace
            connection.executemany(
                _UPSERT,
                (
                    (row_id, key, namespace, group, now)
                    for row_id, key, group in zip(
                        _random_uuids(len(keys)), keys, groups, strict=True
                    )
                ),
            )
            if self._has_pending(connection):
                connection.execute(_CLEAR_PENDING, (namespace, json.dumps(keys)))

    def exists(self, keys: Sequence[str]) -> list[bool]:
        keys = check_keys(keys)
        if not keys:
            return []
        rows = self._query(
            "SELECT key FROM upsertion_record WHERE namespace = ? "
            "AND key IN (SELECT value FROM json_each(?))",
            (self.namespace, json.dumps(keys)),
        )
        found = {row[0] for row in rows}
        return [key in found for key in keys]

    def list_keys(
        self,
        *,
        before: float | None = None,
        after: float | None = None,
        group_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[str]:
        limit = check_optional_positive_int("limit", limit)
        sql = ["SELECT key FROM upsertion_record WHERE namespace = ?"]
        parameters: list[object] = [self.namespace]
        if before is not None:
            sql.append("AND updated_at < ?")
            parameters.append(float(before))
        if after is not None:
            sql.append("AND updated_at > ?")
            parameters.append(float(after))
        if group_ids is not None:
            sql.append("AND group_id IN (SELECT value FROM json_each(?))")
            parameters.append(json.dumps(check_keys(group_ids, what="group_ids")))
        sql.append("ORDER BY rowid")
        if limit is not None:
            sql.append("LIMIT ?")
            parameters.append(limit)
        return [str(row[0]) for row in self._query(" ".join(sql), parameters)]

    def count_groups(self) -> int:
        ((count,),) = self._query(
            "SELECT COUNT(DISTINCT group_id) FROM upsertion_record WHERE namespace = ?",
            (self.namespace,),
        )
        return int(count)  # type: ignore[call-overload]

    def delete_keys(self, keys: Sequence[str]) -> None:
        keys = check_keys(keys)
        if not keys:
            return
        encoded = json.dumps(keys)
        with self._transaction() as connection:
            connection.execute(
                "DELETE FROM upsertion_record WHERE namespace = ? "
                "AND key IN (SELECT value FROM json_each(?))",
                (self.namespace, encoded),
            )
            if self._has_pending(connection):
                connection.execute(_CLEAR_PENDING, (self.namespace, encoded))

    # ------------------------------------------------------------------ intent log

    def _has_pending(self, connection: sqlite3.Connection) -> bool:
        """Whether the namespace has pending writes (one indexed probe; most calls: none)."""
        row = connection.execute(
            "SELECT 1 FROM ragline_pending WHERE namespace = ? LIMIT 1", (self.namespace,)
        ).fetchone()
        return row is not None

    def mark_pending(
        self,
        keys: Sequence[str],
        *,
        group_ids: Sequence[str | None] | None = None,
        operation: PendingOperation,
    ) -> None:
        keys = check_keys(keys)
        groups = check_group_ids(group_ids, len(keys))
        operation = check_operation(operation)
        if not keys:
            return
        with self._transaction() as connection:
            connection.executemany(
                "INSERT OR REPLACE INTO ragline_pending (namespace, key, group_id, operation) "
                "VALUES (?, ?, ?, ?)",
                (
                    (self.namespace, key, group, operation)
                    for key, group in zip(keys, groups, strict=True)
                ),
            )

    def list_pending(self, *, limit: int | None = None) -> list[PendingWrite]:
        limit = check_optional_positive_int("limit", limit)
        rows = self._query(
            "SELECT key, group_id, operation FROM ragline_pending WHERE namespace = ? "
            "ORDER BY rowid LIMIT ?",
            (self.namespace, -1 if limit is None else limit),
        )
        return [
            PendingWrite(str(key), None if group is None else str(group), check_operation(str(op)))
            for key, group, op in rows
        ]

    # ------------------------------------------------------------------ copies

    def copy_from(self, path: str | os.PathLike[str]) -> None:
        """Replace this manager's whole database with a copy of the database file ``path``.

        Every namespace in the file comes along. The file is only read.

        Raises:
            PersistenceError: ``path`` is missing or not a SQLite database (names it).
        """
        source_path = os.fspath(path)
        if not Path(source_path).is_file():
            raise PersistenceError(f"cannot read record database {source_path!r}: no such file")
        with self._lock:
            try:
                source = sqlite3.connect(source_path)
                try:
                    source.backup(self._connect())
                finally:
                    source.close()
                self._connect().executescript(_SCHEMA)  # an older file may lack the log
            except sqlite3.Error as err:
                raise PersistenceError(
                    f"cannot read record database {source_path!r}: {err}"
                ) from err
            self._last_stamp = None

    def copy_to(self, path: str | os.PathLike[str]) -> None:
        """Write a copy of the whole database to a new file ``path`` (one self-contained file).

        The copy uses SQLite's rollback journal, not WAL, so it is complete without
        ``-wal`` / ``-shm`` files beside it. It is not flushed to disk (fsync): it
        survives a crash of this process at once, a power cut once the caller flushes
        it. ``path`` must not exist.

        Raises:
            PersistenceError: ``path`` exists, or the copy cannot be written.
        """
        target_path = os.fspath(path)
        if os.path.lexists(target_path):
            raise PersistenceError(f"cannot copy the records to {target_path!r}: it exists")
        with self._lock:
            try:
                target = sqlite3.connect(target_path)
                try:
                    # no fsync here: a caller that needs the copy on disk flushes it
                    # (the store folder does, with everything else it commits)
                    target.execute("PRAGMA synchronous=OFF")
                    self._connect().backup(target)
                    target.execute("PRAGMA journal_mode=DELETE")
                finally:
                    target.close()
            except sqlite3.Error as err:
                raise PersistenceError(
                    f"cannot copy the records to {target_path!r}: {err}"
                ) from err


def _random_uuids(count: int) -> list[str]:
    """``count`` random version-4 UUID strings (the row ids LangChain's schema has).

    Formatted from one ``os.urandom`` call: ~4x faster than ``str(uuid.uuid4())`` each,
    which matters when re-indexing refreshes every record. A conflicting row keeps its
    old id (the new one is dropped).
    """
    digits = os.urandom(16 * count).hex()
    return [
        f"{digits[i : i + 8]}-{digits[i + 8 : i + 12]}-4{digits[i + 13 : i + 16]}-"
        f"{'89ab'[int(digits[i + 16], 16) & 3]}{digits[i + 17 : i + 20]}-{digits[i + 20 : i + 32]}"
        for i in range(0, 32 * count, 32)
    ]

"""One SQLite database file, through the standard library's sqlite3, for the stores that
keep small records on disk (chat histories, the LLM cache).

:class:`SQLiteDatabase` opens its connection on first use, creates the schema, runs file
databases in WAL mode (a reader never waits for a writer; a commit is an append to the
log), and maps every sqlite3 error to ``PersistenceError`` naming the file: a file that
is not a SQLite database is reported and never overwritten. One connection per object,
guarded by a lock, so the async twins can use it from worker threads.

Example:
    >>> db = SQLiteDatabase(":memory:", schema="CREATE TABLE t (x)", what="demo database")
    >>> with db.transaction() as connection:
    ...     _ = connection.execute("INSERT INTO t VALUES (1)")
    >>> db.query("SELECT x FROM t")
    [(1,)]
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragline.core._paths import check_file_path
from ragline.core.exceptions import ConfigurationError, PersistenceError

__all__ = ["MEMORY", "SQLiteDatabase", "check_identifier", "database_path"]

MEMORY = ":memory:"
_URL_PREFIXES = ("sqlite://", "sqlite+pysqlite://", "sqlite+aiosqlite://")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def database_path(location: str | os.PathLike[str], *, what: str = "database") -> str:
    """The sqlite3 path for a file path or a SQLAlchemy-style SQLite URL.

    ``sqlite:///relative.db``, ``sqlite:////absolute.db``, ``sqlite://`` and
    ``":memory:"`` (an in-memory database) are accepted, as are plain paths.

    Raises:
        ConfigurationError: another kind of URL, or query options.
        InvalidInputError: a path no file system can hold (a NUL, a lone surrogate, a
            name too long).

    Example:
        >>> database_path("sqlite:////tmp/chat.db"), database_path("chat.db")
        ('/tmp/chat.db', 'chat.db')
    """
    if isinstance(location, os.PathLike):
        return check_file_path(location, what=what)
    if not isinstance(location, str) or not location:
        raise ConfigurationError(f"{what} must be a path or a sqlite:/// URL, got {location!r}")
    if location == MEMORY:
        return MEMORY
    for prefix in _URL_PREFIXES:
        if location.startswith(prefix):
            rest = location[len(prefix) :]
            if "?" in rest:
                raise ConfigurationError(
                    f"{what} {location!r}: query options are not supported; give a plain "
                    "'sqlite:///path/to/file.db'"
                )
            if rest in ("", "/", "/" + MEMORY):
                return MEMORY
            if rest.startswith("/"):
                # sqlite:///a.db -> a.db, sqlite:////abs -> /abs
                return check_file_path(rest[1:], what=what)
    if "://" in location:
        raise ConfigurationError(
            f"{what} {location!r} is not supported: ragline stores this with the standard "
            "library's sqlite3; give a file path or 'sqlite:///path/to/file.db'"
        )
    return check_file_path(location, what=what)


def check_identifier(name: str, what: str) -> str:
    """``name`` if it is a plain SQL identifier (it is put into SQL text, not bound)."""
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise ConfigurationError(
            f"{what} must be a plain SQL name (letters, digits, underscores), got {name!r}"
        )
    return name


class SQLiteDatabase:
    """A lazily opened SQLite connection with a schema, transactions and error mapping.

    Args:
        path: a file path or ``":memory:"`` (see :func:`database_path`).
        schema: SQL run when the connection opens (``CREATE TABLE IF NOT EXISTS ...``).
        what: how errors name it (``"chat history database"``).
        create_folder: create a missing parent folder on first use (else that is a
            PersistenceError naming the folder).

    ``lock`` (re-entrant) is held by every method; hold it to run several statements
    without another thread's in between.
    """

    def __init__(self, path: str, *, schema: str, what: str, create_folder: bool = True) -> None:
        self.path = path
        self.schema = schema
        self.what = what
        self.create_folder = create_folder
        self._connection: sqlite3.Connection | None = None
        self.lock = threading.RLock()

    def _error(self, doing: str, err: BaseException) -> PersistenceError:
        hint = ""
        if isinstance(err, sqlite3.DatabaseError) and "not a database" in str(err):
            hint = "; the file was left as it is: move it away or use another path"
        return PersistenceError(f"cannot {doing} {self.what} {self.path!r}: {err}{hint}")

    def connect(self) -> sqlite3.Connection:
        """The connection (opened, set up and schema-checked on first use)."""
        if self._connection is not None:
            return self._connection
        folder = Path(self.path).parent
        if self.path != MEMORY and not folder.is_dir():
            if not self.create_folder:
                raise PersistenceError(
                    f"cannot open {self.what} {self.path!r}: folder {str(folder)!r} does not exist"
                )
            folder.mkdir(parents=True, exist_ok=True)
        try:
            # isolation_level=None: transactions are begun and committed explicitly
            connection = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
        except (sqlite3.Error, OSError) as err:
            raise self._error("open", err) from err
        try:
            if self.path != MEMORY:
                # WAL + synchronous=NORMAL: a crash of the process loses nothing committed
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(self.schema)
        except sqlite3.Error as err:
            connection.close()
            raise self._error("open", err) from err
        self._connection = connection
        return connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): committed at the end of the block,
        rolled back if it raises."""
        with self.lock:
            connection = self.connect()
            try:
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise self._error("write", err) from err
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as err:
                connection.execute("ROLLBACK")
                if isinstance(err, sqlite3.Error):
                    raise self._error("write", err) from err
                raise

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a read statement and return every row."""
        with self.lock:
            connection = self.connect()
            try:
                return connection.execute(sql, parameters).fetchall()
            except sqlite3.Error as err:
                raise self._error("read", err) from err

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self.lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

"""SQLiteCache: LLM answers cached in a SQLite file (standard-library sqlite3, WAL mode).

The file has LangChain's layout, so either library hits the answers the other stored for
the same prompt and model string: table ``full_llm_cache`` (``prompt``, ``llm``, ``idx``,
``response``; one row per generation, in order), each ``response`` the generation in
LangChain's serialization format (``_serialized``: a row that is not a plain serialized
generation is a miss with a warning; nothing else is ever built from it), and LangChain's
``full_md5_llm_cache`` beside it, which neither library's ``SQLiteCache`` writes. Files
written by earlier ragline versions keep their table, ``llm_cache``: its entries are still
found, and replaced in LangChain's table when written again. The default file is
LangChain's, ``.langchain.db``. Several processes may share the file; a file that is not a
SQLite database is reported (``PersistenceError``) and never overwritten.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ragline.core._sqlite import SQLiteDatabase, database_path
from ragline.core.caches._base import (
    RETURN_VAL_TYPE,
    BaseCache,
    cache_key,
    check_generations,
    check_key,
    generations_from_json,
    legacy_cache_key,
)
from ragline.core.caches._serialized import (
    UnreadableEntry,
    generation_from_text,
    generation_to_text,
)
from ragline.core.language_models._outputs import Generation

__all__ = ["SQLiteCache"]


def _table(name: str, *columns: str) -> str:
    # SQLAlchemy's text for a table, so the file's schema reads as LangChain's does
    return f"CREATE TABLE IF NOT EXISTS {name} (\n\t" + ", \n\t".join(columns) + "\n);\n"


# LangChain's tables and indexes, as its SQLAlchemy models create them
_SCHEMA = (
    _table(
        "full_llm_cache",
        "prompt VARCHAR NOT NULL",
        "llm VARCHAR NOT NULL",
        "idx INTEGER NOT NULL",
        "response VARCHAR",
        "PRIMARY KEY (prompt, llm, idx)",
    )
    + _table(
        "full_md5_llm_cache",
        "id VARCHAR NOT NULL",
        "prompt_md5 VARCHAR",
        "llm VARCHAR",
        "idx INTEGER",
        "prompt VARCHAR",
        "response VARCHAR",
        "PRIMARY KEY (id)",
    )
    + "".join(
        f"CREATE INDEX IF NOT EXISTS ix_full_md5_llm_cache_{column} "
        f"ON full_md5_llm_cache ({column});\n"
        for column in ("prompt_md5", "idx", "llm")
    )
)
# the table of earlier ragline versions (read, never created)
_OLD_TABLE = "llm_cache"


class SQLiteCache(BaseCache):
    """LLM answers in a SQLite file that outlives the process, in LangChain's layout.

    Args:
        database_path: the file (created with its folder here), a ``sqlite:///`` URL, or
            ``":memory:"``. The default, ``.langchain.db`` in the working folder, is the
            file LangChain's ``SQLiteCache()`` writes; both libraries keep their answers
            in its ``full_llm_cache`` table, each hitting the other's for the same
            prompt and model string.

    Raises:
        ConfigurationError: a URL that is not a SQLite URL.
        PersistenceError: the file cannot be opened or is not a SQLite database (left
            as it is).

    Example:
        >>> cache = SQLiteCache(":memory:")
        >>> cache.update("2 + 2 =", "m", [Generation("4")])
        >>> cache.lookup("2 + 2 =", "m")[0].text
        '4'
    """

    def __init__(self, database_path: str | os.PathLike[str] = ".langchain.db") -> None:
        path = _path(database_path)
        self.database_path = path
        self._db = SQLiteDatabase(path, schema=_SCHEMA, what="LLM cache database")
        self._db.connect()  # the file is there once the cache is made, as LangChain's
        self._old_table = bool(
            self._db.query(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_OLD_TABLE,)
            )
        )

    def __repr__(self) -> str:
        return f"SQLiteCache({self.database_path!r})"

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        check_key(prompt, llm_string)
        rows = self._db.query(
            "SELECT response FROM full_llm_cache WHERE prompt = ? AND llm = ? ORDER BY idx",
            (prompt, llm_string),
        )
        if rows:
            try:
                return [generation_from_text(response) for (response,) in rows]
            except UnreadableEntry as err:
                warnings.warn(
                    f"LLM cache database {self.database_path!r} holds an entry for this "
                    f"prompt that ragline does not read ({err}); it is a miss, and the "
                    "model's answer will replace it",
                    UserWarning,
                    stacklevel=2,
                )
                return None
        return self._old_lookup(prompt, llm_string) if self._old_table else None

    def _old_lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        # The stored pair must equal the asked one: a key collision is a miss. Rows
        # written under the first key scheme are still found (the same pair check).
        keys = (cache_key(prompt, llm_string), legacy_cache_key(prompt, llm_string))
        rows = self._db.query(
            f"SELECT generations FROM {_OLD_TABLE} WHERE key IN (?, ?) AND prompt = ? "
            "AND llm = ? ORDER BY key = ? DESC LIMIT 1",
            (*keys, prompt, llm_string, keys[0]),
        )
        if not rows:
            return None
        return generations_from_json(rows[0][0], f"LLM cache database {self.database_path!r}")

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        check_key(prompt, llm_string)
        responses = [generation_to_text(item) for item in check_generations(return_val)]
        with self._db.transaction() as connection:
            # the generations replace the pair's rows (LangChain's update leaves rows
            # past the new count in place) and any entry of the earlier table
            connection.execute(
                "DELETE FROM full_llm_cache WHERE prompt = ? AND llm = ?", (prompt, llm_string)
            )
            connection.executemany(
                "INSERT INTO full_llm_cache (prompt, llm, idx, response) VALUES (?, ?, ?, ?)",
                [(prompt, llm_string, idx, text) for idx, text in enumerate(responses)],
            )
            if self._old_table:
                connection.execute(
                    f"DELETE FROM {_OLD_TABLE} WHERE prompt = ? AND llm = ?", (prompt, llm_string)
                )

    def clear(self, **kwargs: Any) -> None:
        with self._db.transaction() as connection:
            connection.execute("DELETE FROM full_llm_cache")
            if self._old_table:
                connection.execute(f"DELETE FROM {_OLD_TABLE}")

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        self._db.close()


def _path(location: str | os.PathLike[str]) -> str:
    return database_path(location, what="database_path")

"""SQLiteCache: LLM answers cached in a SQLite file (standard-library sqlite3, WAL mode).

One table, ``llm_cache``: the sha256 of prompt and model string (each length-prefixed) as
the key, the prompt and model string themselves (a lookup checks them, so a key collision
is a miss; they also let you inspect or delete entries by hand), and the generations as
JSON. Files written with the first key scheme (prompt, NUL, model string) are still read.
The default file is LangChain's, ``.langchain.db``; LangChain's own table there
(``full_llm_cache``) is left alone. Several processes may share the file; a file that is
not a SQLite database is reported (``PersistenceError``) and never overwritten.
"""

from __future__ import annotations

import os
from typing import Any

from ragline.core._sqlite import SQLiteDatabase, database_path
from ragline.core.caches._base import (
    RETURN_VAL_TYPE,
    BaseCache,
    cache_key,
    check_generations,
    generations_from_json,
    generations_to_json,
    legacy_cache_key,
)
from ragline.core.language_models._outputs import Generation

__all__ = ["SQLiteCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT NOT NULL PRIMARY KEY,
    prompt TEXT NOT NULL,
    llm TEXT NOT NULL,
    generations TEXT NOT NULL
);
"""


class SQLiteCache(BaseCache):
    """LLM answers in a SQLite file that outlives the process.

    Args:
        database_path: the file (created with its folder here), a ``sqlite:///`` URL, or
            ``":memory:"``. The default, ``.langchain.db`` in the working folder, is the
            file LangChain's ``SQLiteCache()`` writes: a ported program finds the file it
            names. ragline keeps its answers in its own table there (``llm_cache``) and
            never reads or changes LangChain's (``full_llm_cache``).

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

    def __repr__(self) -> str:
        return f"SQLiteCache({self.database_path!r})"

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        # The stored pair must equal the asked one: a key collision is a miss. Rows
        # written under the first key scheme are still found (the same pair check).
        keys = (cache_key(prompt, llm_string), legacy_cache_key(prompt, llm_string))
        rows = self._db.query(
            "SELECT generations FROM llm_cache WHERE key IN (?, ?) AND prompt = ? AND llm = ? "
            "ORDER BY key = ? DESC LIMIT 1",
            (*keys, prompt, llm_string, keys[0]),
        )
        if not rows:
            return None
        return generations_from_json(rows[0][0], f"LLM cache database {self.database_path!r}")

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        key = cache_key(prompt, llm_string)
        text = generations_to_json(check_generations(return_val))
        with self._db.transaction() as connection:
            # A row of the first key scheme for this pair would otherwise outlive it.
            connection.execute(
                "DELETE FROM llm_cache WHERE key = ? AND prompt = ? AND llm = ?",
                (legacy_cache_key(prompt, llm_string), prompt, llm_string),
            )
            connection.execute(
                "INSERT OR REPLACE INTO llm_cache (key, prompt, llm, generations) "
                "VALUES (?, ?, ?, ?)",
                (key, prompt, llm_string, text),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._db.transaction() as connection:
            connection.execute("DELETE FROM llm_cache")

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        self._db.close()


def _path(location: str | os.PathLike[str]) -> str:
    return database_path(location, what="database_path")

"""SQLChatMessageHistory: conversations in one SQLite table, keyed by session id.

The table has LangChain's layout (``message_store``: ``id INTEGER PRIMARY KEY``,
``session_id TEXT``, ``message TEXT`` holding the message dict as JSON), so a database
written by LangChain's ``SQLChatMessageHistory`` on SQLite loads here and the reverse.
Messages come back in insertion order (by ``id``). The standard library's sqlite3 does
the work (no SQLAlchemy); the file runs in WAL mode, every ``add_messages`` is one
transaction, and several processes may share the file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ragline.core import BaseMessage, ConfigurationError, InvalidInputError
from ragline.core._sqlite import SQLiteDatabase, check_identifier, database_path
from ragline.core.chat_history import BaseChatMessageHistory, check_messages
from ragline.memory._codec import check_session_id, decode_items, encode_messages

__all__ = ["SQLChatMessageHistory"]


class SQLChatMessageHistory(BaseChatMessageHistory):
    """One conversation (``session_id``) in a SQLite table shared by many conversations.

    Args:
        session_id: the conversation's key.
        connection: the database: a file path, ``"sqlite:///path.db"``,
            ``"sqlite:///:memory:"`` or a SQLAlchemy ``Engine`` on SQLite (its URL is
            opened with sqlite3).
        connection_string: LangChain's older name for ``connection``.
        table_name: the table (created, with the database file, on construction when
            missing, as LangChain's history does). Second positionally, as in
            LangChain; a database URL there (``"sqlite:///chat.db"``, older LangChain's
            positional ``connection_string``) is read as the database when no
            ``connection`` is given.
        session_id_field_name: the column holding the session id.

    Raises:
        InvalidInputError: an empty or non-string ``session_id``, or one holding a lone
            surrogate.
        PersistenceError: the database cannot be opened (a file that is not a SQLite
            database is left as it is).
        ConfigurationError: no database, a non-SQLite URL, or a table or column name
            that is not a plain SQL name; a database URL as the second argument with a
            ``session_id_field_name`` (older LangChain's third argument was the table).

    Example:
        >>> history = SQLChatMessageHistory("user-1", connection="sqlite:///:memory:")
        >>> history.add_user_message("hi")
        >>> history.messages
        [HumanMessage(content='hi', additional_kwargs={}, response_metadata={})]
    """

    def __init__(
        self,
        session_id: str,
        table_name: str = "message_store",
        session_id_field_name: str = "session_id",
        *,
        connection: str | os.PathLike[str] | Any | None = None,
        connection_string: str | None = None,
    ) -> None:
        if connection is None and connection_string is None and _is_database_url(table_name):
            # SQLChatMessageHistory(session_id, "sqlite:///chat.db"), older LangChain's form
            if session_id_field_name != "session_id":
                # older LangChain's third argument was the table, this one's is the session
                # column: (session_id, url, "chats") would write table message_store
                raise ConfigurationError(
                    f"a database URL as the second argument (older LangChain's "
                    f"connection_string) with session_id_field_name="
                    f"{session_id_field_name!r} is ambiguous (the third argument was the "
                    f"table there); give connection=, table_name= and "
                    f"session_id_field_name= by keyword"
                )
            connection_string, table_name = table_name, "message_store"
        location = connection if connection is not None else connection_string
        url = getattr(location, "url", None)  # a SQLAlchemy Engine, as LangChain takes
        if url is not None and callable(getattr(url, "render_as_string", None)):
            # password hidden: a SQLite URL has none, and another database's URL only
            # reaches the ConfigurationError's message
            location = url.render_as_string()
        if location is None:
            raise InvalidInputError(
                "SQLChatMessageHistory needs a database: connection='sqlite:///chat.db' "
                "(or a file path)"
            )
        self.session_id = check_session_id(session_id)
        self.table_name = check_identifier(table_name, "table_name")
        self.session_id_field_name = check_identifier(
            session_id_field_name, "session_id_field_name"
        )
        table, column = self.table_name, self.session_id_field_name
        schema = (
            f"CREATE TABLE IF NOT EXISTS {table} "
            f"(id INTEGER NOT NULL PRIMARY KEY, {column} TEXT, message TEXT);"
            f"CREATE INDEX IF NOT EXISTS ix_{table}_{column} ON {table} ({column});"
        )
        path = database_path(location, what="connection")
        self._db = SQLiteDatabase(path, schema=schema, what="chat history database")
        # opened now, as LangChain's history creates its table on construction: the
        # database file and the table exist once the history does
        with self._db.lock:
            self._db.connect()
        self._select = f"SELECT message FROM {table} WHERE {column} = ? ORDER BY id"
        self._insert = f"INSERT INTO {table} ({column}, message) VALUES (?, ?)"
        self._delete = f"DELETE FROM {table} WHERE {column} = ?"

    def __repr__(self) -> str:
        return f"SQLChatMessageHistory({self.session_id!r}, connection={self._db.path!r})"

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """This session's messages, oldest first.

        Raises:
            PersistenceError: the file is not a SQLite database, or a stored message
                cannot be read.
        """
        rows = self._db.query(self._select, (self.session_id,))
        where = f"session {self.session_id!r} of {self._db.path!r}"
        return decode_items([message for (message,) in rows], where)

    def get_messages(self) -> list[BaseMessage]:
        """This session's messages, oldest first (the same as :attr:`messages`)."""
        return self.messages

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages in one transaction (all encoded before anything is written)."""
        encoded = encode_messages(check_messages(messages))
        if not encoded:
            return
        with self._db.transaction() as connection:
            connection.executemany(self._insert, [(self.session_id, text) for text in encoded])

    def clear(self) -> None:
        """Delete this session's messages (other sessions stay)."""
        with self._db.transaction() as connection:
            connection.execute(self._delete, (self.session_id,))

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        self._db.close()


def _is_database_url(value: object) -> bool:
    """Whether a positional ``table_name`` is a database URL (no SQL name has ``://``)."""
    return isinstance(value, str) and "://" in value

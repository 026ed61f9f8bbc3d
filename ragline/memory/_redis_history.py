"""RedisChatMessageHistory: one conversation in one Redis list.

The layout is LangChain's (``langchain_community``'s ``RedisChatMessageHistory``): the
key is ``key_prefix + session_id`` (prefix ``"message_store:"``), each message is
``LPUSH``-ed as the JSON of its message dict, so the list holds the newest message
first and ``messages`` reads it with ``LRANGE`` and reverses it. Histories written by
LangChain load here and the reverse. With ``ttl``, every write sets the key to expire
``ttl`` seconds later (an idle conversation disappears).

Each operation is written once, as a generator of Redis commands
(``ragline.core._redis``), and driven by the sync client or by ``redis.asyncio``; a
server that cannot be reached raises ``StoreConnectionError`` naming the URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core import BaseMessage, InvalidInputError
from ragline.core import _redis as conn
from ragline.core.chat_history import BaseChatMessageHistory, check_messages
from ragline.memory._codec import check_session_id, decode_items, encode_messages

__all__ = ["RedisChatMessageHistory"]


class RedisChatMessageHistory(BaseChatMessageHistory):
    """A conversation stored as a Redis list under ``key_prefix + session_id``.

    Args:
        session_id: the conversation's key.
        url: the server (``redis://[user:password@]host:port[/db]``).
        key_prefix: put before the session id to form the key.
        ttl: seconds the conversation lives after its last write (None: forever).
        client: an existing ``redis.Redis`` client instead of ``url``.
        connect_timeout, timeout: socket timeouts in seconds.

    Raises:
        InvalidInputError: an empty or non-string ``session_id``, or one holding a lone
            surrogate.
        ConfigurationError: a bad ``ttl``, ``key_prefix`` or URL.

    Example:
        >>> history = RedisChatMessageHistory("foobar", url="redis://localhost:6379/0",
        ...                                   ttl=600)  # doctest: +SKIP
        >>> history.add_user_message("What does cosine mean?")  # doctest: +SKIP
    """

    def __init__(
        self,
        session_id: str,
        url: str = "redis://localhost:6379/0",
        key_prefix: str = "message_store:",
        ttl: float | None = None,
        *,
        client: Any = None,
        connect_timeout: float = 5.0,
        timeout: float | None = 30.0,
    ) -> None:
        if not isinstance(key_prefix, str):
            raise InvalidInputError(f"key_prefix must be a str, got {type(key_prefix).__name__}")
        if not key_prefix.isascii():  # the common case skips the encoding check
            try:
                key_prefix.encode("utf-8")
            except UnicodeEncodeError as err:
                raise InvalidInputError(
                    f"key_prefix {key_prefix!r:.80} holds {key_prefix[err.start : err.end]!r}, "
                    "a lone surrogate no Redis key can hold; pass a key_prefix of valid text"
                ) from None
        self.session_id = check_session_id(session_id)
        self.key_prefix = key_prefix
        self.ttl = ttl
        self._ttl_ms = conn.ttl_milliseconds(ttl)
        self._redis = conn.RedisConnection(
            url, client, connect_timeout=connect_timeout, timeout=timeout
        )

    @property
    def key(self) -> str:
        """The Redis key of this conversation."""
        return self.key_prefix + self.session_id

    def __repr__(self) -> str:
        return f"RedisChatMessageHistory({self.session_id!r}, url={self._redis.where!r})"

    # ------------------------------------------------------------------ operations

    def _read_op(self) -> conn.Operation[list[BaseMessage]]:
        [items] = yield [("LRANGE", self.key, 0, -1)]
        return decode_items(conn.checked(items, "LRANGE")[::-1], f"Redis key {self.key!r}")

    def _add_op(self, encoded: list[str]) -> conn.Operation[None]:
        commands: list[tuple[Any, ...]] = [("LPUSH", self.key, *encoded)]
        if self._ttl_ms is not None:
            commands.append(("PEXPIRE", self.key, self._ttl_ms))
        for reply, command in zip((yield commands), ("LPUSH", "PEXPIRE"), strict=False):
            conn.checked(reply, command)

    def _clear_op(self) -> conn.Operation[None]:
        [reply] = yield [("DEL", self.key)]
        conn.checked(reply, "DEL")

    # ------------------------------------------------------------------ sync and async

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation, oldest first (one LRANGE).

        Raises:
            StoreConnectionError: the server cannot be reached.
            PersistenceError: a stored item is not a message dict.
        """
        return self._redis.run(self._read_op())

    def add_message(self, message: BaseMessage) -> None:
        """Append one message with one LPUSH (and refresh the ttl)."""
        self._push(encode_messages(check_messages([message]), ensure_ascii=True))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages with one LPUSH (and refresh the ttl).

        A subclass that overrides :meth:`add_message` has it called once per message, in
        order, as LangChain's history does (its ``add_messages`` is a loop over
        ``add_message``); every message is checked and encoded before the first call.
        """
        checked = check_messages(messages)
        encoded = encode_messages(checked, ensure_ascii=True)
        if type(self).add_message is not RedisChatMessageHistory.add_message:
            super().add_messages(checked)  # the base's loop over add_message
            return
        self._push(encoded)

    def _push(self, encoded: list[str]) -> None:
        if encoded:
            self._redis.run(self._add_op(encoded))

    def clear(self) -> None:
        """Delete the conversation's key."""
        self._redis.run(self._clear_op())

    async def aget_messages(self) -> list[BaseMessage]:
        return await self._redis.arun(self._read_op())

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if type(self).add_message is not RedisChatMessageHistory.add_message:
            # add_messages in a worker thread, as LangChain's: it calls the override
            await super().aadd_messages(messages)
            return
        encoded = encode_messages(check_messages(messages), ensure_ascii=True)
        if encoded:
            await self._redis.arun(self._add_op(encoded))

    async def aclear(self) -> None:
        await self._redis.arun(self._clear_op())

    def close(self) -> None:
        """Close the connections this history opened (a client passed in stays open)."""
        self._redis.close()

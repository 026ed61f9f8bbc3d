"""Chat message histories: where a conversation's messages are kept between turns.

A history implements three things: the ``messages`` it holds (an attribute or a
property), ``add_messages(messages)`` and ``clear()``. Everything else is written once
here: ``add_message``, ``add_user_message``, ``add_ai_message``, ``__str__`` (the
transcript) and the async twins ``aget_messages``, ``aadd_messages``, ``aclear``, which
run the sync methods in a worker thread unless a history has a native async path
(the Redis history does).

A subclass written for LangChain that implements ``add_message`` instead of
``add_messages`` works too: the base then adds messages one by one.

:class:`InMemoryChatMessageHistory` (alias ``ChatMessageHistory``) keeps them in a list.
Persistent histories (a JSON file, a SQLite table, a Redis list) are in
``ragline.memory``; all of them pass the same contract suite.

Example:
    >>> history = InMemoryChatMessageHistory()
    >>> history.add_user_message("What is RAG?")
    >>> history.add_ai_message("Retrieval-augmented generation.")
    >>> print(history)
    Human: What is RAG?
    AI: Retrieval-augmented generation.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.fields import Fields
from ragline.core.messages import AIMessage, BaseMessage, HumanMessage, get_buffer_string

__all__ = [
    "BaseChatMessageHistory",
    "ChatMessageHistory",
    "InMemoryChatMessageHistory",
    "check_messages",
]


def is_role_tuple(item: Any) -> bool:
    """Whether ``item`` is a ``(role, content)`` pair such as ``("human", "hi")``."""
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)


def check_messages(
    messages: Any, *, what: str = "messages", role_tuples: bool = False
) -> list[BaseMessage]:
    """``messages`` as a new list after checking every item is a message.

    Histories call this before storing anything, so a bad item leaves the history as it
    was. With ``role_tuples``, ``(role, content)`` pairs pass too, kept as they are (the
    in-memory history stores them so, as LangChain's does).

    Raises:
        InvalidInputError: a single message or string instead of a list, or an item that
            is not a message (named by its position).
    """
    if isinstance(messages, (BaseMessage, str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidInputError(
            f"{what} must be a list of messages, got {type(messages).__name__}; use "
            "add_message() for one message"
        )
    checked = list(messages)
    for position, message in enumerate(checked):
        if not isinstance(message, BaseMessage) and not (role_tuples and is_role_tuple(message)):
            raise InvalidInputError(
                f"{what}[{position}] must be a message (HumanMessage, AIMessage ...), got "
                f"{type(message).__name__}: {message!r:.60}"
            )
    return checked


class BaseChatMessageHistory(ABC):
    """Base of chat message histories (see the module docstring).

    Attributes:
        messages: the stored messages, oldest first (a property on persistent
            histories: reading it reads the storage).
    """

    messages: list[BaseMessage]

    def add_message(self, message: BaseMessage) -> None:
        """Store one message after the others."""
        if type(self).add_messages is BaseChatMessageHistory.add_messages:
            raise NotImplementedError(
                f"{type(self).__name__} must implement add_messages (or add_message)"
            )
        self.add_messages([message])

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store messages after the others, in order (override for one write per call)."""
        for message in check_messages(messages):
            self.add_message(message)

    def add_user_message(self, message: HumanMessage | str) -> None:
        """Store a human message (a string becomes a ``HumanMessage``)."""
        self.add_message(message if isinstance(message, HumanMessage) else HumanMessage(message))

    def add_ai_message(self, message: AIMessage | str) -> None:
        """Store an AI message (a string becomes an ``AIMessage``)."""
        self.add_message(message if isinstance(message, AIMessage) else AIMessage(message))

    @abstractmethod
    def clear(self) -> None:
        """Remove every message of this history."""

    async def aget_messages(self) -> list[BaseMessage]:
        """Async read of ``messages`` (a worker thread by default)."""
        return await asyncio.to_thread(lambda: list(self.messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async :meth:`add_messages` (a worker thread by default)."""
        await asyncio.to_thread(self.add_messages, check_messages(messages))

    async def aadd_message(self, message: BaseMessage) -> None:
        """Async :meth:`add_message`."""
        await self.aadd_messages([message])

    async def aclear(self) -> None:
        """Async :meth:`clear` (a worker thread by default)."""
        await asyncio.to_thread(self.clear)

    def __str__(self) -> str:
        """The conversation as a ``Human: ... / AI: ...`` transcript."""
        return get_buffer_string(self.messages)


class InMemoryChatMessageHistory(Fields, BaseChatMessageHistory):
    """A history kept in a Python list (lost when the process ends).

    Args:
        messages: messages to start with.

    Example:
        >>> from ragline.core import HumanMessage
        >>> history = InMemoryChatMessageHistory(messages=[HumanMessage("hi")])
        >>> history.add_ai_message("hello")
        >>> [m.type for m in history.messages]
        ['human', 'ai']
    """

    __ragline_extra__ = "ignore"  # a stray keyword is dropped with a warning: LangChain's drops it

    messages: list[BaseMessage] = []  # noqa: RUF012 - a field: copied per instance

    def __post_init__(self) -> None:
        self.messages = check_messages(self.messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append the messages (all checked first). ``(role, content)`` pairs are kept
        as given, as LangChain's in-memory history keeps them (``str()`` of the history
        then raises ``InvalidInputError``, a ``ValueError``, as LangChain's does). A
        subclass that overrides :meth:`add_message` has it called once per message, as
        LangChain's in-memory history has no ``add_messages`` of its own."""
        checked = check_messages(messages, role_tuples=True)
        if type(self).add_message is not InMemoryChatMessageHistory.add_message:
            for message in checked:
                self.add_message(message)
            return
        self.messages.extend(checked)

    def add_message(self, message: BaseMessage) -> None:
        """Append one message (a ``(role, content)`` pair as given, see ``add_messages``)."""
        self.messages.extend(check_messages([message], what="message", role_tuples=True))

    def clear(self) -> None:
        """Forget every message."""
        self.messages = []

    async def aget_messages(self) -> list[BaseMessage]:
        return list(self.messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.add_messages(messages)

    async def aclear(self) -> None:
        self.clear()

    def __repr__(self) -> str:
        """``InMemoryChatMessageHistory(messages=[...])``, each message's repr, as
        LangChain's prints it (``str()`` stays the transcript)."""
        return f"{type(self).__name__}(messages={self.messages!r})"


ChatMessageHistory = InMemoryChatMessageHistory

"""``BaseMemory`` and ``BaseChatMemory``: the state a legacy ``Chain`` loads and saves.

A chain with ``memory=`` calls ``load_memory_variables(inputs)`` before it runs (the
returned variables join its inputs) and ``save_context(inputs, outputs)`` after. A chat
memory keeps the conversation in a chat message history (``chat_memory``: in memory by
default, or any persistent history of ``ragline.memory``), so the conversation outlives
the process when the history does.

The async twins (``aload_memory_variables``, ``asave_context``, ``aclear``) use the
history's async methods; the rest of each memory is written once.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from ragline.core import (
    AIMessage,
    BaseChatMessageHistory,
    BaseMessage,
    Field,
    Fields,
    HumanMessage,
    InMemoryChatMessageHistory,
    InvalidInputError,
    MissingVariableError,
)
from ragline.core.exceptions import MemoryKeyError
from ragline.core.fields import changed_fields

__all__ = ["BaseChatMemory", "BaseMemory", "input_key_of"]


def input_key_of(inputs: dict[str, Any], memory_variables: Sequence[str]) -> str:
    """The one input key that is neither a memory variable nor ``"stop"``.

    Raises:
        MemoryKeyError: there is no such key or more than one (set ``input_key``); an
            InvalidInputError printed as LangChain's ``ValueError``.
    """
    keys = [key for key in inputs if key not in memory_variables and key != "stop"]
    if len(keys) != 1:
        raise MemoryKeyError(
            f"memory needs one input key to save, got {keys} (memory variables "
            f"{list(memory_variables)} left out); set input_key=... on the memory"
        )
    return keys[0]


def output_key_of(outputs: dict[str, Any]) -> str:
    """The one output key, or ``"output"`` among several.

    Raises:
        MemoryKeyError: several keys and none is ``"output"`` (set ``output_key``); an
            InvalidInputError printed as LangChain's ``ValueError``.
    """
    if len(outputs) == 1:
        return next(iter(outputs))
    if "output" in outputs:
        return "output"
    raise MemoryKeyError(
        f"memory got several output keys {sorted(outputs)} and cannot tell which to save; "
        "set output_key=... on the memory"
    )


class BaseMemory(Fields, ABC):
    """Base of the memories legacy chains use (see the module docstring).

    A keyword that names no field of the memory is dropped with a ``UserWarning``, not
    refused: LangChain's memories drop them silently, and programs pass some by mistake
    (``ConversationBufferMemory(k=2)``, ``k`` being the window memory's).

    A memory prints as LangChain's (a pydantic model) does: ``repr`` is
    ``ConversationBufferMemory(chat_memory=..., memory_key='chat_history')`` and ``str``
    the same fields space-separated, each field whose value differs from its default (a
    field with a default factory, such as ``chat_memory``, counts as defaulting to
    ``None``, so it is always shown), in declaration order.
    """

    __ragline_extra__ = "ignore"

    def _shown_fields(self) -> list[str]:
        """``name=repr(value)`` of the fields LangChain's memories print (see the class)."""
        return changed_fields(self, factory_means_none=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._shown_fields())})"

    def __str__(self) -> str:
        return " ".join(self._shown_fields())

    @property
    @abstractmethod
    def memory_variables(self) -> list[str]:
        """The input keys this memory adds to a chain's inputs."""

    @abstractmethod
    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The memory variables for a run with these inputs."""

    @abstractmethod
    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Remember a finished run."""

    @abstractmethod
    def clear(self) -> None:
        """Forget everything."""

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Async :meth:`load_memory_variables` (a worker thread by default)."""
        return await asyncio.to_thread(self.load_memory_variables, inputs)

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Async :meth:`save_context` (a worker thread by default)."""
        await asyncio.to_thread(self.save_context, inputs, outputs)

    async def aclear(self) -> None:
        """Async :meth:`clear` (a worker thread by default)."""
        await asyncio.to_thread(self.clear)


class BaseChatMemory(BaseMemory):
    """A memory over a chat message history.

    Args:
        chat_memory: where the conversation is kept (default: in memory).
        input_key: the input saved as the human message (default: the only input that
            is not a memory variable).
        output_key: the output saved as the AI message (default: the only output, or
            ``"output"``).
        return_messages: load the conversation as messages instead of a transcript.
    """

    chat_memory: BaseChatMessageHistory = Field(default_factory=InMemoryChatMessageHistory)
    output_key: str | None = None  # (LangChain's order: the printed form follows it)
    input_key: str | None = None
    return_messages: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.chat_memory, BaseChatMessageHistory):
            raise InvalidInputError(
                f"{type(self).__name__}.chat_memory must be a chat message history, got "
                f"{type(self.chat_memory).__name__}"
            )

    def _turn_messages(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> list[BaseMessage]:
        """The human and AI messages of one run (checked before anything is saved)."""
        input_key = self.input_key or input_key_of(inputs, self.memory_variables)
        output_key = self.output_key or output_key_of(outputs)
        for key, values, what in ((input_key, inputs, "input"), (output_key, outputs, "output")):
            if key not in values:  # a KeyError too, as LangChain's memories raise
                raise MissingVariableError(
                    f"{type(self).__name__} saves {what} {key!r}, which the run lacks; it has "
                    f"{sorted(values)}"
                )
        return [_message(HumanMessage, inputs[input_key]), _message(AIMessage, outputs[output_key])]

    def _variables(self, messages: list[BaseMessage]) -> dict[str, Any]:
        """The memory variables for the stored conversation (what subclasses write)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _variables")

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The memory variables, from the stored conversation (one read)."""
        return self._variables(list(self.chat_memory.messages))

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self._variables(await self.chat_memory.aget_messages())

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Add the run's input and output to the history (one write)."""
        self.chat_memory.add_messages(self._turn_messages(inputs, outputs))

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await self.chat_memory.aadd_messages(self._turn_messages(inputs, outputs))

    def clear(self) -> None:
        """Clear the history."""
        self.chat_memory.clear()

    async def aclear(self) -> None:
        await self.chat_memory.aclear()


def _message(cls: type[BaseMessage], value: Any) -> BaseMessage:
    if isinstance(value, BaseMessage):
        return value
    return cls(value if isinstance(value, str) else str(value))

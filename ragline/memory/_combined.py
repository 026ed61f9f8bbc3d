"""Memories made of memories: several at once, a read-only view, fixed values."""

from __future__ import annotations

import asyncio
from typing import Any

from ragline.core import InvalidInputError
from ragline.core.exceptions import as_validation_error
from ragline.memory._base import BaseMemory

__all__ = ["CombinedMemory", "ReadOnlySharedMemory", "SimpleMemory"]


class CombinedMemory(BaseMemory):
    """Several memories used together: their variables are merged, each saves the run.

    Args:
        memories: the memories; their memory variables must not overlap.

    Raises:
        InvalidInputError: an item is not a memory, or two memories share a variable
            (also pydantic's ``ValidationError`` where pydantic is installed, the class
            LangChain's memory raises).

    Example:
        >>> from ragline.memory import ConversationBufferMemory
        >>> both = CombinedMemory(memories=[
        ...     ConversationBufferMemory(memory_key="chat", input_key="input"),
        ...     SimpleMemory(memories={"user": "Ada"})])
        >>> both.save_context({"input": "hi"}, {"output": "hello"})
        >>> both.load_memory_variables({"input": "x"})
        {'chat': 'Human: hi\\nAI: hello', 'user': 'Ada'}
    """

    memories: list[BaseMemory]

    def __post_init__(self) -> None:
        seen: dict[str, int] = {}
        for position, memory in enumerate(self.memories):
            if not isinstance(memory, BaseMemory):
                raise self._refused(
                    f"memories[{position}] must be a memory, got {type(memory).__name__}"
                )
            for variable in memory.memory_variables:
                if variable in seen:
                    raise self._refused(
                        f"memories[{seen[variable]}] and memories[{position}] both provide "
                        f"{variable!r}; give them different memory_key values"
                    )
                seen[variable] = position

    def _refused(self, text: str) -> Exception:
        """Refused memories as LangChain's pydantic memory refuses them: an
        ``InvalidInputError`` that is also pydantic's ``ValidationError``."""
        given = {"memories": self.memories}
        return as_validation_error(InvalidInputError(text), type(self).__name__, given)

    @property
    def memory_variables(self) -> list[str]:
        return [v for memory in self.memories for v in memory.memory_variables]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for memory in self.memories:
            merged.update(memory.load_memory_variables(inputs))
        return merged

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for part in await asyncio.gather(
            *(memory.aload_memory_variables(inputs) for memory in self.memories)
        ):
            merged.update(part)
        return merged

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        for memory in self.memories:
            memory.save_context(inputs, outputs)

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        for memory in self.memories:
            await memory.asave_context(inputs, outputs)

    def clear(self) -> None:
        for memory in self.memories:
            memory.clear()

    async def aclear(self) -> None:
        for memory in self.memories:
            await memory.aclear()


class ReadOnlySharedMemory(BaseMemory):
    """Another memory, readable but never written (for chains that only consult it)."""

    memory: BaseMemory

    @property
    def memory_variables(self) -> list[str]:
        return self.memory.memory_variables

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self.memory.load_memory_variables(inputs)

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return await self.memory.aload_memory_variables(inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Nothing: the memory is read-only here."""

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Nothing: the memory is read-only here."""

    def clear(self) -> None:
        """Nothing: the memory is read-only here."""

    async def aclear(self) -> None:
        """Nothing: the memory is read-only here."""


class SimpleMemory(BaseMemory):
    """Fixed values given to every run (never changed by a run)."""

    memories: dict[str, Any] = {}  # noqa: RUF012 - a field: copied per instance

    @property
    def memory_variables(self) -> list[str]:
        return list(self.memories)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return dict(self.memories)

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return dict(self.memories)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Nothing: the values are fixed."""

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Nothing: the values are fixed."""

    def clear(self) -> None:
        """Nothing: the values are fixed."""

    async def aclear(self) -> None:
        """Nothing: the values are fixed."""

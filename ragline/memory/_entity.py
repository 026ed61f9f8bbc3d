"""Entity memory: a model notes who and what the conversation is about, and keeps a
running summary of each (LangChain's ``ConversationEntityMemory``).

Loading the variables asks the model which entities the new input mentions (a
comma-separated list, or ``NONE``), given the last ``k`` exchanges; it returns those
exchanges under ``chat_history_key`` and ``{entity: summary so far}`` under
``"entities"``. Saving the exchange then asks the model, entity by entity, for an
updated summary, kept in ``entity_store`` (``InMemoryEntityStore`` by default).

The three prompts are ragline's own wording with LangChain's variables: extraction
takes ``{history}`` and ``{input}``, summarization ``{summary}``, ``{entity}``,
``{history}`` and ``{input}``, and ``ENTITY_MEMORY_CONVERSATION_TEMPLATE`` (for a
``ConversationChain`` over this memory) ``{entities}``, ``{history}`` and ``{input}``.

Example:
    >>> from ragline.core import FakeListLLM
    >>> llm = FakeListLLM(responses=["Ada", "Ada writes programs."])
    >>> memory = ConversationEntityMemory(llm=llm)
    >>> memory.load_memory_variables({"input": "Ada writes programs"})
    {'history': '', 'entities': {'Ada': ''}}
    >>> memory.save_context({"input": "Ada writes programs"}, {"output": "Nice!"})
    >>> memory.entity_store.get("Ada")
    'Ada writes programs.'
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any

from ragline.core import (
    BaseMessage,
    BasePromptTemplate,
    Field,
    Fields,
    PromptTemplate,
    StrOutputParser,
    get_buffer_string,
)
from ragline.memory._base import BaseChatMemory, input_key_of

__all__ = [
    "ENTITY_EXTRACTION_PROMPT",
    "ENTITY_MEMORY_CONVERSATION_TEMPLATE",
    "ENTITY_SUMMARIZATION_PROMPT",
    "BaseEntityStore",
    "ConversationEntityMemory",
    "InMemoryEntityStore",
]

ENTITY_EXTRACTION_PROMPT = PromptTemplate.from_template(
    "List the named entities (people, places, organisations, products, projects) that "
    "the last line of this conversation mentions, as a comma-separated list of names. "
    "Use the earlier lines only to resolve who or what a pronoun means. If it mentions "
    "none, reply NONE.\n\n"
    "Conversation so far:\n{history}\n\n"
    "Last line: {input}\n"
    "Entities:"
)

ENTITY_SUMMARIZATION_PROMPT = PromptTemplate.from_template(
    "You keep a short profile of one entity from a conversation. Add to the profile "
    "what the last line says about the entity; keep what is still true and say nothing "
    "that was not said. If the last line adds nothing, repeat the profile unchanged.\n\n"
    "Entity: {entity}\n"
    "Profile so far: {summary}\n\n"
    "Conversation so far:\n{history}\n\n"
    "Last line: {input}\n"
    "Updated profile:"
)

ENTITY_MEMORY_CONVERSATION_TEMPLATE = PromptTemplate.from_template(
    "You are an assistant in a long conversation. Below are notes on the people and "
    "things it has mentioned, and its most recent lines; use them to answer in context, "
    "and say so when you do not know.\n\n"
    "Notes:\n{entities}\n\n"
    "Recent lines:\n{history}\n\n"
    "Human: {input}\n"
    "AI:"
)


class BaseEntityStore(Fields, ABC):
    """Where entity summaries are kept: ``get``, ``set``, ``delete``, ``exists``,
    ``clear``. A subclass declares its options as annotated class attributes (keyword
    constructor), as LangChain's pydantic entity stores do."""

    @abstractmethod
    def get(self, key: str, default: str | None = None) -> str | None:
        """The summary of ``key``, or ``default``."""

    @abstractmethod
    def set(self, key: str, value: str | None) -> None:
        """Keep ``value`` as the summary of ``key``."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Forget ``key``."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Whether ``key`` has a summary."""

    @abstractmethod
    def clear(self) -> None:
        """Forget every entity."""


class InMemoryEntityStore(BaseEntityStore):
    """Entity summaries in a dict (``store``).

    Raises:
        KeyError: ``delete`` of an entity not kept.
    """

    store: dict[str, str | None] = Field(default_factory=dict)

    def __repr__(self) -> str:
        return f"InMemoryEntityStore(store={self.store!r})"

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.store.get(key, default)

    def set(self, key: str, value: str | None) -> None:
        self.store[key] = value

    def delete(self, key: str) -> None:
        del self.store[key]

    def exists(self, key: str) -> bool:
        return key in self.store

    def clear(self) -> None:
        self.store.clear()


class ConversationEntityMemory(BaseChatMemory):
    """The recent conversation plus a model-kept summary of each entity it mentions.

    Args:
        llm: the model that finds the entities and summarises them.
        entity_extraction_prompt: variables ``history``, ``input``.
        entity_summarization_prompt: variables ``summary``, ``entity``, ``history``,
            ``input``.
        k: how many recent exchanges (human and AI message pairs) the model and the
            loaded history see.
        chat_history_key: the name of the loaded history.
        entity_store: where summaries are kept (default: a new ``InMemoryEntityStore``).
        human_prefix, ai_prefix, chat_memory, return_messages, input_key, output_key: as
            for ``ConversationBufferMemory``.
    """

    llm: Any
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    entity_extraction_prompt: BasePromptTemplate = ENTITY_EXTRACTION_PROMPT
    entity_summarization_prompt: BasePromptTemplate = ENTITY_SUMMARIZATION_PROMPT
    entity_cache: list[str] = Field(default_factory=list)
    k: int = 3
    chat_history_key: str = "history"
    entity_store: BaseEntityStore = Field(default_factory=InMemoryEntityStore)

    @property
    def buffer(self) -> list[BaseMessage]:
        """Every message of the conversation."""
        return list(self.chat_memory.messages)

    @property
    def memory_variables(self) -> list[str]:
        return ["entities", self.chat_history_key]

    def _recent(self) -> tuple[list[BaseMessage], str]:
        messages = self.buffer[-self.k * 2 :]
        text = get_buffer_string(messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)
        return messages, text

    def _input(self, inputs: dict[str, Any]) -> Any:
        return inputs[self.input_key or input_key_of(inputs, self.memory_variables)]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Find the entities of the new input; return the recent history and their
        summaries so far (``""`` for a new entity)."""
        messages, history = self._recent()
        chain = self.entity_extraction_prompt | self.llm | StrOutputParser()
        found = str(chain.invoke({"history": history, "input": self._input(inputs)}))
        entities = [] if found.strip() == "NONE" else [name.strip() for name in found.split(",")]
        self.entity_cache = entities
        return {
            self.chat_history_key: messages if self.return_messages else history,
            "entities": {name: self.entity_store.get(name, "") for name in entities},
        }

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(self.load_memory_variables, inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Store the exchange, then update the summary of each entity just found."""
        super().save_context(inputs, outputs)
        _, history = self._recent()
        chain = self.entity_summarization_prompt | self.llm | StrOutputParser()
        said = self._input(inputs)
        for entity in self.entity_cache:
            variables = {
                "summary": self.entity_store.get(entity, ""),
                "entity": entity,
                "history": history,
                "input": said,
            }
            self.entity_store.set(entity, str(chain.invoke(variables)).strip())

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await asyncio.to_thread(self.save_context, inputs, outputs)

    def clear(self) -> None:
        """Forget the conversation, the entities just found and every summary."""
        self.chat_memory.clear()
        self.entity_cache.clear()
        self.entity_store.clear()

    async def aclear(self) -> None:
        self.clear()

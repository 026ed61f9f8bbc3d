"""Buffer memories: the conversation itself, all of it or its most recent part.

``ConversationBufferMemory`` gives the whole conversation, ``...WindowMemory`` the last
``k`` exchanges, ``...TokenBufferMemory`` the most recent messages that fit in
``max_token_limit`` tokens (counted with the model's own counter). The window and the
token limit choose what is *loaded*; the stored history keeps every message (LangChain
deletes the oldest from the history instead, which a persistent history cannot undo).
``ConversationStringBufferMemory`` keeps the transcript as one string, no history.

Example:
    >>> memory = ConversationBufferWindowMemory(k=1)
    >>> memory.save_context({"input": "hi"}, {"output": "hello"})
    >>> memory.save_context({"input": "how are you?"}, {"output": "fine"})
    >>> memory.load_memory_variables({})
    {'history': 'Human: how are you?\\nAI: fine'}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core import BaseMessage, InvalidInputError, get_buffer_string
from ragline.core._checks import check_non_negative_int, check_positive_int
from ragline.memory._base import BaseChatMemory, BaseMemory, input_key_of

__all__ = [
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
    "ConversationStringBufferMemory",
    "ConversationTokenBufferMemory",
    "fitting_tail",
]


def fitting_tail(llm: Any, messages: Sequence[BaseMessage], max_tokens: int) -> int:
    """The index where the longest tail of ``messages`` within ``max_tokens`` starts.

    Tokens are counted with ``llm.get_num_tokens_from_messages``, one message at a time
    from the newest (its cost is the count with it minus the count without it).
    """
    base = llm.get_num_tokens_from_messages([])
    total = base
    start = len(messages)
    while start > 0:
        cost = llm.get_num_tokens_from_messages([messages[start - 1]]) - base
        if total + cost > max_tokens:
            break
        total += cost
        start -= 1
    return start


class ConversationBufferMemory(BaseChatMemory):
    """The whole conversation, as a transcript or as messages.

    Args:
        memory_key: the chain input that receives the conversation.
        human_prefix, ai_prefix: the speaker labels of the transcript.
        return_messages: give the messages themselves (for a ``MessagesPlaceholder``).
        chat_memory, input_key, output_key: see ``BaseChatMemory``.

    Example:
        >>> memory = ConversationBufferMemory(memory_key="chat_history", return_messages=True)
        >>> memory.save_context({"question": "hi"}, {"answer": "hello"})
        >>> memory.load_memory_variables({})["chat_history"]  # doctest: +NORMALIZE_WHITESPACE
        [HumanMessage(content='hi', additional_kwargs={}, response_metadata={}),
         AIMessage(content='hello', additional_kwargs={}, response_metadata={}, tool_calls=[],
         invalid_tool_calls=[])]
    """

    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    memory_key: str = "history"

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _window(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The part of the conversation that is loaded (all of it here)."""
        return messages

    def _render(self, messages: list[BaseMessage]) -> Any:
        if self.return_messages:
            return messages
        return get_buffer_string(messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    def _variables(self, messages: list[BaseMessage]) -> dict[str, Any]:
        return {self.memory_key: self._render(self._window(messages))}

    def _stored(self) -> list[BaseMessage]:
        """The history's messages; an in-memory history's own list, not a copy.

        LangChain's buffer memory hands out that list, so a chain's printed result shows
        the turn it just saved in ``history`` (with ``return_messages=True``); ragline
        does the same. The windowed memories slice it, which copies.
        """
        messages = self.chat_memory.messages
        return messages if isinstance(messages, list) else list(messages)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """``{memory_key: self.buffer}`` (one read of the history).

        Through ``buffer``, as LangChain's: a subclass that overrides ``buffer`` (to
        render the conversation its own way) changes what a chain loads.
        """
        return {self.memory_key: self.buffer}

    @property
    def buffer(self) -> Any:
        """What is loaded: messages with ``return_messages``, else the transcript."""
        return self._render(self._window(self._stored()))

    @property
    def buffer_as_str(self) -> str:
        """What is loaded, as a transcript."""
        return get_buffer_string(
            self._window(self._stored()),
            human_prefix=self.human_prefix,
            ai_prefix=self.ai_prefix,
        )

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        """What is loaded, as messages."""
        return self._window(self._stored())


class ConversationBufferWindowMemory(ConversationBufferMemory):
    """The last ``k`` exchanges (``2 * k`` messages) of the conversation.

    Args:
        k: how many exchanges to load (0: none).
    """

    k: int = 5

    def __post_init__(self) -> None:
        super().__post_init__()
        self.k = check_non_negative_int("k", self.k)

    def _window(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return messages[-2 * self.k :] if self.k > 0 else []


class ConversationTokenBufferMemory(ConversationBufferMemory):
    """The most recent messages that fit in ``max_token_limit`` tokens.

    Args:
        llm: the model whose ``get_num_tokens_from_messages`` counts the tokens.
        max_token_limit: the most tokens loaded.
    """

    llm: Any
    max_token_limit: int = 2000

    def __post_init__(self) -> None:
        super().__post_init__()
        self.max_token_limit = check_positive_int("max_token_limit", self.max_token_limit)

    def _window(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return messages[fitting_tail(self.llm, messages, self.max_token_limit) :]


class ConversationStringBufferMemory(BaseMemory):
    """The whole conversation as one transcript string, kept in ``buffer``.

    Each saved exchange appends ``"\\n{human_prefix}: {input}\\n{ai_prefix}: {output}"``;
    loading gives ``{memory_key: buffer}``. There is no message history behind it (use
    ``ConversationBufferMemory`` for one).

    Args:
        human_prefix, ai_prefix: the speakers' labels.
        buffer: the transcript so far.
        input_key: the input saved (default: the only input that is not a memory variable).
        output_key: the output saved (default: the only output).
        memory_key: the name of the loaded transcript.

    Raises:
        InvalidInputError: ``return_messages=True`` (this memory has text only), or an
            exchange whose input or output to save is ambiguous.

    Example:
        >>> memory = ConversationStringBufferMemory()
        >>> memory.save_context({"input": "hi"}, {"output": "hello"})
        >>> memory.load_memory_variables({})
        {'history': '\\nHuman: hi\\nAI: hello'}
    """

    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    buffer: str = ""
    output_key: str | None = None
    input_key: str | None = None
    memory_key: str = "history"
    return_messages: bool = False

    def __post_init__(self) -> None:
        if self.return_messages:
            raise InvalidInputError(
                "return_messages must be False for ConversationStringBufferMemory"
            )

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return {self.memory_key: self.buffer}

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self.load_memory_variables(inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Append the exchange to the transcript."""
        input_key = self.input_key or input_key_of(inputs, self.memory_variables)
        if self.output_key is not None:
            output_key = self.output_key
        elif len(outputs) == 1:
            output_key = next(iter(outputs))
        else:
            raise InvalidInputError(f"One output key expected, got {outputs.keys()}")
        human = f"{self.human_prefix}: " + inputs[input_key]
        ai = f"{self.ai_prefix}: " + outputs[output_key]
        self.buffer += f"\n{human}\n{ai}"

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        self.save_context(inputs, outputs)

    def clear(self) -> None:
        self.buffer = ""

    async def aclear(self) -> None:
        self.clear()

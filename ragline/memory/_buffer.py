"""Buffer memories: the conversation itself, all of it or its most recent part.

``ConversationBufferMemory`` gives the whole conversation, ``...WindowMemory`` the last
``k`` exchanges, ``...TokenBufferMemory`` the most recent messages that fit in
``max_token_limit`` tokens (counted with the model's own counter). The window and the
token limit choose what is *loaded*; the stored history keeps every message (LangChain
deletes the oldest from the history instead, which a persistent history cannot undo).

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

from ragline.core import BaseMessage, get_buffer_string
from ragline.core._checks import check_non_negative_int, check_positive_int
from ragline.memory._base import BaseChatMemory

__all__ = [
    "ConversationBufferMemory",
    "ConversationBufferWindowMemory",
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
        """The memory variables, from the stored conversation (one read)."""
        return self._variables(self._stored())

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

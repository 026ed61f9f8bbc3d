"""Summary memories: a model keeps a running summary of the conversation.

``ConversationSummaryMemory`` loads only the summary, updated after every exchange.
``ConversationSummaryBufferMemory`` loads the most recent messages that fit in
``max_token_limit`` tokens, preceded by a summary of the older ones. Both keep every
message in their history (``chat_memory``); the summary is folded forward with
``prompt`` (variables ``summary`` and ``new_lines``), which may be replaced.

Example:
    >>> from ragline.core import FakeListLLM
    >>> llm = FakeListLLM(responses=["The human greeted the AI."])
    >>> memory = ConversationSummaryMemory(llm=llm)
    >>> memory.save_context({"input": "hi"}, {"output": "hello"})
    >>> memory.load_memory_variables({})
    {'history': 'The human greeted the AI.'}
"""

from __future__ import annotations

from typing import Any

from ragline.core import (
    BaseMessage,
    BasePromptTemplate,
    InvalidInputError,
    PromptTemplate,
    StrOutputParser,
    SystemMessage,
    get_buffer_string,
)
from ragline.core._checks import check_positive_int
from ragline.memory._base import BaseChatMemory
from ragline.memory._buffer import fitting_tail

__all__ = ["SUMMARY_PROMPT", "ConversationSummaryBufferMemory", "ConversationSummaryMemory"]

SUMMARY_PROMPT = PromptTemplate.from_template(
    "Update the running summary of a conversation with its newest lines. Keep every "
    "fact, name and decision that may matter later; drop greetings and repetition. "
    "Reply with the new summary only.\n\n"
    "Summary so far:\n{summary}\n\n"
    "Newest lines:\n{new_lines}\n\n"
    "New summary:"
)


class _Summarizer(BaseChatMemory):
    """What both summary memories share: the model, the prompt and the folding step."""

    llm: Any
    prompt: BasePromptTemplate = SUMMARY_PROMPT
    summary_message_cls: type[BaseMessage] = SystemMessage
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    memory_key: str = "history"

    def __post_init__(self) -> None:
        super().__post_init__()
        missing = {"summary", "new_lines"} - set(self.prompt.input_variables)
        if missing:
            raise InvalidInputError(
                f"{type(self).__name__}.prompt needs the variables 'summary' and "
                f"'new_lines'; it lacks {sorted(missing)} (it has {self.prompt.input_variables})"
            )

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _summary_input(self, messages: list[BaseMessage], existing: str) -> dict[str, str]:
        new_lines = get_buffer_string(
            messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix
        )
        return {"summary": existing, "new_lines": new_lines}

    def predict_new_summary(self, messages: list[BaseMessage], existing_summary: str) -> str:
        """The summary ``existing_summary`` becomes once ``messages`` are folded in."""
        chain = (self.prompt | self.llm | StrOutputParser()).with_config(run_name="summarize")
        # the model's text as it is (LangChain's keeps a completion's leading newline too)
        return str(chain.invoke(self._summary_input(messages, existing_summary)))

    async def apredict_new_summary(self, messages: list[BaseMessage], existing_summary: str) -> str:
        """Async :meth:`predict_new_summary`."""
        chain = (self.prompt | self.llm | StrOutputParser()).with_config(run_name="summarize")
        return str(await chain.ainvoke(self._summary_input(messages, existing_summary)))

    def _with_summary(self, summary: str, messages: list[BaseMessage]) -> Any:
        loaded = ([self.summary_message_cls(summary)] if summary else []) + messages
        if self.return_messages:
            return loaded
        return get_buffer_string(loaded, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)


class ConversationSummaryMemory(_Summarizer):
    """The conversation as a summary a model keeps up to date after every exchange.

    Args:
        llm: the model that writes the summary.
        prompt: folds new lines into the summary (variables ``summary``, ``new_lines``).
        buffer: the summary so far (start from an earlier one).
        summary_message_cls: the message class of the summary with ``return_messages``.
        memory_key, human_prefix, ai_prefix, chat_memory, return_messages, input_key,
            output_key: as for ``ConversationBufferMemory``.
    """

    buffer: str = ""

    @classmethod
    def from_messages(
        cls, llm: Any, chat_memory: Any, *, summarize_step: int = 2, **options: Any
    ) -> ConversationSummaryMemory:
        """A summary memory over an existing history, its summary built ``summarize_step``
        messages at a time."""
        memory = cls(llm=llm, chat_memory=chat_memory, **options)
        step = check_positive_int("summarize_step", summarize_step)
        messages = list(chat_memory.messages)
        for start in range(0, len(messages), step):
            memory.buffer = memory.predict_new_summary(
                messages[start : start + step], memory.buffer
            )
        return memory

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The summary (no read of the history: the summary is kept here)."""
        if self.return_messages:
            return {self.memory_key: [self.summary_message_cls(self.buffer)]}
        return {self.memory_key: self.buffer}

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return self.load_memory_variables(inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Store the exchange, then fold it into the summary."""
        turn = self._turn_messages(inputs, outputs)
        self.chat_memory.add_messages(turn)
        self.buffer = self.predict_new_summary(turn, self.buffer)

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        turn = self._turn_messages(inputs, outputs)
        await self.chat_memory.aadd_messages(turn)
        self.buffer = await self.apredict_new_summary(turn, self.buffer)

    def clear(self) -> None:
        """Clear the history and the summary."""
        super().clear()
        self.buffer = ""

    async def aclear(self) -> None:
        await super().aclear()
        self.buffer = ""


class ConversationSummaryBufferMemory(_Summarizer):
    """Recent messages within ``max_token_limit`` tokens, after a summary of older ones.

    When an exchange pushes the loaded messages over the limit, the oldest of them are
    folded into ``moving_summary_buffer`` (one model call) and no longer loaded;
    ``summarized_messages`` counts how many of the stored messages the summary covers.

    Args:
        llm: writes the summary and counts tokens (``get_num_tokens_from_messages``).
        max_token_limit: the most tokens of recent messages loaded.
        (others as :class:`ConversationSummaryMemory`)
    """

    max_token_limit: int = 2000
    moving_summary_buffer: str = ""
    summarized_messages: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.max_token_limit = check_positive_int("max_token_limit", self.max_token_limit)

    @property
    def buffer(self) -> Any:
        """What is loaded (``load_memory_variables({})[memory_key]``): the summary and
        the recent messages, as a transcript or, with ``return_messages``, as messages."""
        return self.load_memory_variables({})[self.memory_key]

    def _variables(self, messages: list[BaseMessage]) -> dict[str, Any]:
        recent = messages[self.summarized_messages :]
        return {self.memory_key: self._with_summary(self.moving_summary_buffer, recent)}

    def _overflow(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The recent messages that no longer fit and must join the summary."""
        recent = messages[self.summarized_messages :]
        return recent[: fitting_tail(self.llm, recent, self.max_token_limit)]

    def prune(self) -> None:
        """Fold the messages over the token limit into the summary."""
        overflow = self._overflow(list(self.chat_memory.messages))
        if overflow:
            self.moving_summary_buffer = self.predict_new_summary(
                overflow, self.moving_summary_buffer
            )
            self.summarized_messages += len(overflow)

    async def aprune(self) -> None:
        """Async :meth:`prune`."""
        overflow = self._overflow(await self.chat_memory.aget_messages())
        if overflow:
            self.moving_summary_buffer = await self.apredict_new_summary(
                overflow, self.moving_summary_buffer
            )
            self.summarized_messages += len(overflow)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Store the exchange, then fold what no longer fits into the summary."""
        super().save_context(inputs, outputs)
        self.prune()

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await super().asave_context(inputs, outputs)
        await self.aprune()

    def clear(self) -> None:
        """Clear the history and the summary."""
        super().clear()
        self.moving_summary_buffer, self.summarized_messages = "", 0

    async def aclear(self) -> None:
        await super().aclear()
        self.moving_summary_buffer, self.summarized_messages = "", 0

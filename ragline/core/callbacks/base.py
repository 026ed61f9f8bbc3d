"""Callback handlers: override the events you care about; every other event is a no-op.

The method names and arguments are LangChain's, so a handler written for LangChain ports
by changing its import. Every event gets the keyword arguments ``run_id``,
``parent_run_id``, ``tags`` and ``metadata`` (and ``name`` on ``*_start``), which is
enough to rebuild the run tree. Accept ``**kwargs``: new keyword arguments may be added.

Example:
    >>> from ragline.core import BaseCallbackHandler, RunnableLambda
    >>> class Names(BaseCallbackHandler):
    ...     def __init__(self):
    ...         self.names = []
    ...     def on_chain_start(self, serialized, inputs, *, name=None, **kwargs):
    ...         self.names.append(name)
    >>> handler = Names()
    >>> RunnableLambda(lambda x: x, name="echo").invoke(1, {"callbacks": [handler]})
    1
    >>> handler.names
    ['echo']

A handler that implements ``on_llm_start`` but not ``on_chat_model_start`` still sees
chat-model runs, as LangChain reports them: its ``on_llm_start`` receives each message
list as one ``"Human: ...\nAI: ..."`` transcript string (``get_buffer_string``), and its
``on_llm_end`` the chat model's ``LLMResult``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

__all__ = [
    "AsyncCallbackHandler",
    "BaseCallbackHandler",
    "RetryState",
    "StreamingCallbackHandler",
    "stream_taps",
]


class RetryState:
    """What ``on_retry`` receives: which attempt failed and with what error.

    Attributes:
        attempt_number: the attempt that just failed (1 for the first call).
        exception: the error it raised.
        next_wait: seconds the retry waits before the next attempt.
    """

    __slots__ = ("attempt_number", "exception", "next_wait")

    def __init__(self, attempt_number: int, exception: BaseException, next_wait: float) -> None:
        self.attempt_number = attempt_number
        self.exception = exception
        self.next_wait = next_wait

    @property
    def outcome(self) -> _FailedAttempt:
        """The failed attempt as tenacity's retry state gives it (LangChain passes that
        state): ``outcome.exception()`` is the error, ``outcome.failed`` is True and
        ``outcome.result()`` raises the error."""
        return _FailedAttempt(self.exception)

    def __repr__(self) -> str:
        return (
            f"RetryState(attempt_number={self.attempt_number}, "
            f"exception={self.exception!r}, next_wait={self.next_wait:.3f})"
        )


class _FailedAttempt:
    """A failed attempt's outcome, read as a done future is (tenacity's ``outcome``)."""

    __slots__ = ("_error",)
    failed = True

    def __init__(self, error: BaseException) -> None:
        self._error = error

    def exception(self, timeout: float | None = None) -> BaseException:
        return self._error

    def result(self, timeout: float | None = None) -> Any:
        raise self._error

    def done(self) -> bool:
        return True


class BaseCallbackHandler:
    """Receives run events synchronously; subclass and override what you need.

    Attributes:
        raise_error: if True, an exception raised by this handler propagates to the
            caller; otherwise it is logged (logger ``ragline.callbacks``) and ignored.
        run_inline: in an async run, handlers marked so get each event first, as
            LangChain's; every handler runs in the caller's thread here (LangChain's
            async runs call a sync handler that is not inline in a worker thread).
        ignore_chain / ignore_llm / ignore_chat_model / ignore_retriever / ignore_retry /
            ignore_agent / ignore_custom_event: skip those events.
    """

    raise_error: bool = False
    run_inline: bool = False
    ignore_chain: bool = False
    ignore_llm: bool = False
    ignore_chat_model: bool = False
    ignore_retriever: bool = False
    ignore_retry: bool = False
    ignore_agent: bool = False
    ignore_custom_event: bool = False

    # chains ---------------------------------------------------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A chain run started (``kwargs`` holds ``name`` and ``run_type``)."""

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """A chain run ended with ``outputs`` (streamed runs also pass ``inputs``)."""

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        """A chain run raised ``error``."""

    # language models ------------------------------------------------------------------
    def on_llm_start(
        self, serialized: dict[str, Any] | None, prompts: list[str], *, run_id: UUID, **kwargs: Any
    ) -> Any:
        """A text-completion model run started with ``prompts``."""

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> Any:
        """A chat model run started with ``messages`` (one list of messages per prompt).

        Not overridden: the run is reported to :meth:`on_llm_start` instead, each message
        list as one transcript string (what LangChain does).
        """
        raise NotImplementedError

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> Any:
        """A streaming model produced ``token`` (``kwargs["chunk"]`` holds the chunk)."""

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """A model run ended with ``response`` (an ``LLMResult``)."""

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        """A model run raised ``error``."""

    # retrievers -----------------------------------------------------------------------
    def on_retriever_start(
        self, serialized: dict[str, Any] | None, query: str, *, run_id: UUID, **kwargs: Any
    ) -> Any:
        """A retriever run started with ``query``."""

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """A retriever run ended with ``documents``."""

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        """A retriever run raised ``error``."""

    # tools and agents -----------------------------------------------------------------
    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A tool run started with ``input_str`` (``inputs``: the arguments as a dict)."""

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """A tool run ended with ``output`` (a ToolMessage when called with a tool call)."""

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> Any:
        """A tool run raised ``error``."""

    def on_agent_action(self, action: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """An agent chose ``action`` (an AgentAction); reported on the executor's run."""

    def on_agent_finish(self, finish: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """An agent finished with ``finish`` (an AgentFinish); on the executor's run."""

    # anything -------------------------------------------------------------------------
    def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> Any:
        """A run reported some text (a formatted prompt, a verbose message)."""

    def on_retry(self, retry_state: RetryState, *, run_id: UUID, **kwargs: Any) -> Any:
        """A ``with_retry`` run is about to try again after ``retry_state.exception``."""

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A run dispatched a custom event (``dispatch_custom_event(name, data)``);
        ``run_id`` is that run's id."""


class AsyncCallbackHandler(BaseCallbackHandler):
    """A handler whose methods are coroutines (same names and arguments).

    In async code they are awaited in order; in sync code each is run to completion
    on a private event loop before the run continues.

    Example:
        >>> class Tokens(AsyncCallbackHandler):
        ...     async def on_llm_new_token(self, token, **kwargs):
        ...         print(token, end="")
    """

    async def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:  # type: ignore[override]
        """A chain run started."""

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A chain run ended."""

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A chain run raised."""

    async def on_llm_start(
        self, serialized: Any, prompts: list[str], *, run_id: UUID, **kwargs: Any
    ) -> None:
        """A text-completion model run started."""

    async def on_chat_model_start(
        self, serialized: Any, messages: list[list[Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        """A chat model run started (not overridden: reported to ``on_llm_start``)."""
        raise NotImplementedError

    async def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        """A streaming model produced a token."""

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A model run ended."""

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A model run raised."""

    async def on_retriever_start(
        self, serialized: Any, query: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """A retriever run started."""

    async def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A retriever run ended."""

    async def on_retriever_error(
        self, error: BaseException, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """A retriever run raised."""

    async def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """A tool run started."""

    async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A tool run ended."""

    async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """A tool run raised."""

    async def on_agent_action(self, action: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """An agent chose an action."""

    async def on_agent_finish(self, finish: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """An agent finished."""

    async def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> None:
        """A run reported text."""

    async def on_retry(self, retry_state: RetryState, *, run_id: UUID, **kwargs: Any) -> None:
        """A retry is about to happen."""

    async def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """A run dispatched a custom event."""


class StreamingCallbackHandler(BaseCallbackHandler):
    """A handler that also sees every chunk a run streams (what ``astream_events`` and
    ``astream_log`` are built on).

    Runs that stream chunk by chunk (sequences, parsers, generators, passthroughs and
    parallels in ``stream`` / ``astream``) call ``on_stream_chunk`` once per output chunk;
    a chat model or LLM invoked while such a handler listens streams its answer, so its
    tokens arrive through ``on_llm_new_token`` as LangChain's do.
    """

    def on_stream_chunk(self, chunk: Any, *, run_id: UUID) -> None:
        """The run ``run_id`` streamed ``chunk``."""


def stream_taps(handlers: Sequence[Any]) -> tuple[StreamingCallbackHandler, ...]:
    """The handlers among ``handlers`` that want every streamed chunk."""
    return tuple(h for h in handlers if isinstance(h, StreamingCallbackHandler))

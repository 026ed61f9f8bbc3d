"""Runnable: one abstract ``invoke``, and everything else derived from it.

A subclass writes ``invoke``. It gets for free: ``ainvoke`` (runs ``invoke`` in a worker
thread with the caller's contextvars), ``batch`` / ``abatch`` (concurrent, honouring
``max_concurrency``, optionally returning exceptions in place), ``stream`` / ``astream``
(yield the result once) and ``transform`` / ``atransform`` (buffer the input stream,
then stream). Override the async or streaming methods where the runnable can do better.

Composition lives in small sibling modules (sequence, parallel, binding, retry,
fallbacks, branch, configurable); the methods here only build those objects.

Implementers report their run with ``self._call_with_config(func, input, config)`` (or
its async, streaming and batch twins, in ``runs.py``): it emits ``on_chain_start`` /
``end`` / ``error`` and makes the run's child config current, so whatever ``func``
invokes becomes a child run.

Example:
    >>> from ragline.core import Runnable
    >>> class AddOne(Runnable[int, int]):
    ...     def invoke(self, input, config=None, **kwargs):
    ...         return self._call_with_config(lambda x: x + 1, input, config)
    >>> (AddOne() | AddOne()).batch([1, 2])
    [3, 4]
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import warnings
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ragline.core._model_methods import SerializableMethods
from ragline.core.config import RunnableConfig, ensure_config, get_config_list
from ragline.core.runnables.runs import _NOTHING, RunReporting, add_chunks, combine_chunks
from ragline.core.runnables.schema import SchemaMethods

if TYPE_CHECKING:
    from ragline.core.runnables.binding import RunnableBinding
    from ragline.core.runnables.configurable import AnyConfigurableField, ConfigurableField
    from ragline.core.runnables.fallbacks import RunnableWithFallbacks
    from ragline.core.runnables.graph import Graph
    from ragline.core.runnables.retry import RunnableRetry
    from ragline.core.runnables.sequence import RunnableSequence

__all__ = ["Input", "Output", "Runnable", "add_chunks", "coerce_to_runnable", "combine_chunks"]

Input = TypeVar("Input")
Output = TypeVar("Output")

_DEFAULT_WORKERS = 16


_FOREIGN_ADAPTERS: list[Callable[[Any], Runnable[Any, Any] | None]] = []


def register_foreign_runnables(adapter: Callable[[Any], Runnable[Any, Any] | None]) -> None:
    """Let chains take another library's runnables: ``adapter(thing)`` returns a ragline
    Runnable standing for ``thing``, or ``None`` when ``thing`` is not its kind.

    :func:`coerce_to_runnable` (every ``|``, dict step and fallback) asks the adapters
    before it treats ``thing`` as a plain callable. ``ragline.interop.langchain.compose``
    registers one for LangChain's runnables; registering the same adapter again does
    nothing.
    """
    if adapter not in _FOREIGN_ADAPTERS:
        _FOREIGN_ADAPTERS.append(adapter)


def adopt_runnable(thing: Any) -> Runnable[Any, Any] | None:
    """``thing`` if it is a Runnable; another library's runnable as one, through the
    adapters :func:`register_foreign_runnables` holds (a LangChain retriever of an
    integration ``ragline port`` left, once ``ragline.interop.langchain.compose`` is
    imported); else ``None``. For a constructor that takes a runnable part."""
    if isinstance(thing, Runnable):
        return thing
    for adapter in _FOREIGN_ADAPTERS:  # another library's runnables (interop registers)
        adapted = adapter(thing)
        if adapted is not None:
            return adapted
    return None


def _specs_by_id(specs: dict[str, Any]) -> list[Any]:
    """Config specs (by id) in id order, as LangChain lists them."""
    return [specs[key] for key in sorted(specs)]


def _run_in_threads(call: Callable[[int], Any], count: int, config: RunnableConfig) -> list[Any]:
    """``call(0)`` ... ``call(count - 1)`` in a new pool of threads, each in a copy of the
    caller's context (the current config and parent run carry over), at most the config's
    ``max_concurrency`` at once: the results in order. The first error (in order) is
    raised once the calls already started have ended; the others are not started."""
    limit = ensure_config(config).get("max_concurrency") or _DEFAULT_WORKERS
    with ThreadPoolExecutor(max_workers=min(limit, count)) as pool:
        futures = [pool.submit(contextvars.copy_context().run, call, i) for i in range(count)]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


async def _gather_limited(
    call: Callable[[int], Awaitable[Any]], count: int, config: RunnableConfig
) -> list[Any]:
    """``await call(0)`` ... ``call(count - 1)`` as tasks, at most the config's
    ``max_concurrency`` at once: the results in order (the first error raised)."""
    limit = ensure_config(config).get("max_concurrency")
    semaphore = asyncio.Semaphore(limit) if limit else contextlib.nullcontext()

    async def limited(index: int) -> Any:
        async with semaphore:
            return await call(index)

    return list(await asyncio.gather(*(limited(i) for i in range(count))))


def coerce_to_runnable(thing: Any) -> Runnable[Any, Any]:
    """Return ``thing`` as a Runnable: callables become lambdas, dicts parallels.

    Generator functions (sync or async) become ``RunnableGenerator``: they receive the
    input *stream* and yield output chunks, so they stream.

    Raises:
        TypeError: ``thing`` is none of Runnable, callable or dict.
    """
    from ragline.core.runnables.lambdas import RunnableGenerator, RunnableLambda
    from ragline.core.runnables.parallel import RunnableParallel

    adopted = adopt_runnable(thing)
    if adopted is not None:
        return adopted
    if inspect.isgeneratorfunction(thing) or inspect.isasyncgenfunction(thing):
        return RunnableGenerator(thing)
    if callable(thing):
        return RunnableLambda(thing)
    if isinstance(thing, Mapping):
        return RunnableParallel(dict(thing))
    raise TypeError(
        f"cannot compose a {type(thing).__name__} into a chain; expected a Runnable, a "
        "callable or a dict of them"
    )


def _first_ragline_class(cls: type) -> type | None:
    """The first of ``cls``'s classes (``cls`` included) that is ragline's."""
    return next((c for c in cls.__mro__ if c.__module__.split(".")[0] == "ragline"), None)


class Runnable(RunReporting, SchemaMethods, SerializableMethods, ABC, Generic[Input, Output]):
    """A unit of work with a uniform calling convention; subclasses write ``invoke``.

    Attributes:
        name: the name reported to callbacks (default: the class name).
    """

    name: str | None = None

    def get_name(self) -> str:
        """Return the name reported to callbacks and shown in graphs."""
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        if _first_ragline_class(type(self)) is Runnable:
            # a user's class written on Runnable itself prints as Python's default
            # (LangChain's Runnable has no repr): <__main__.MyChain object at 0x...>
            return object.__repr__(self)
        return (
            f"{type(self).__name__}()"
            if not self.name
            else f"{type(self).__name__}(name={self.name!r})"
        )

    # ---- the one abstract method and its derived forms ------------------------------
    @abstractmethod
    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Run on one input and return the output.

        Args:
            input: the input.
            config: tags, metadata, callbacks, run_name ... (see ``RunnableConfig``).
            kwargs: call options, usually fixed with ``bind()`` (a model's ``stop``).
                Runnables that take none raise TypeError naming the ones given.
        """

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async ``invoke``; by default runs ``invoke`` in a worker thread.

        The thread runs in a copy of the caller's context, so the current config (and
        with it the parent run) carries over.
        """
        context = contextvars.copy_context()
        call = functools.partial(context.run, self.invoke, input, config, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(None, call)

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Invoke on many inputs concurrently (threads), keeping the input order.

        Args:
            inputs: the inputs.
            config: one config for all, or one per input. ``max_concurrency`` caps how
                many calls run at once.
            return_exceptions: put an input's exception in its place instead of raising.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> RunnableLambda(lambda x: 10 // x).batch([5, 0], return_exceptions=True)
            [2, ZeroDivisionError('integer division or modulo by zero')]
        """
        inputs = list(inputs)
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))

        def call(index: int) -> Any:
            try:
                return self.invoke(inputs[index], configs[index], **kwargs)
            except Exception as err:
                if return_exceptions:
                    return err
                raise

        if len(inputs) == 1:
            return [call(0)]
        return _run_in_threads(call, len(inputs), configs[0])

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async ``batch``: one task per input, at most ``max_concurrency`` at once."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))

        async def call(index: int) -> Any:
            try:
                return await self.ainvoke(inputs[index], configs[index], **kwargs)
            except Exception as err:
                if return_exceptions:
                    return err
                raise

        return await _gather_limited(call, len(inputs), configs[0])

    def batch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> Iterator[tuple[int, Output | Exception]]:
        """Invoke on many inputs concurrently; yield ``(index, output)`` as each finishes.

        Args: as for :meth:`batch`.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> sorted(RunnableLambda(lambda x: x * 2).batch_as_completed([1, 2]))
            [(0, 2), (1, 4)]
        """
        inputs = list(inputs)
        if not inputs:
            return
        configs = get_config_list(config, len(inputs))

        def call(index: int) -> tuple[int, Any]:
            try:
                return index, self.invoke(inputs[index], configs[index], **kwargs)
            except Exception as err:
                if return_exceptions:
                    return index, err
                raise

        if len(inputs) == 1:
            yield call(0)
            return
        limit = ensure_config(configs[0]).get("max_concurrency") or _DEFAULT_WORKERS
        with ThreadPoolExecutor(max_workers=min(limit, len(inputs))) as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, call, i) for i in range(len(inputs))
            ]
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:
                for future in futures:
                    future.cancel()

    async def abatch_as_completed(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[int, Output | Exception]]:
        """Async :meth:`batch_as_completed`: ``(index, output)`` in the order they finish."""
        inputs = list(inputs)
        if not inputs:
            return
        configs = get_config_list(config, len(inputs))
        limit = ensure_config(configs[0]).get("max_concurrency")
        semaphore = asyncio.Semaphore(limit) if limit else None

        async def call(index: int) -> tuple[int, Any]:
            try:
                if semaphore is None:
                    return index, await self.ainvoke(inputs[index], configs[index], **kwargs)
                async with semaphore:
                    return index, await self.ainvoke(inputs[index], configs[index], **kwargs)
            except Exception as err:
                if return_exceptions:
                    return index, err
                raise

        tasks = [asyncio.ensure_future(call(i)) for i in range(len(inputs))]
        try:
            for finished in asyncio.as_completed(tasks):
                yield await finished
        finally:
            for task in tasks:
                task.cancel()

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Yield the output in chunks; by default the whole ``invoke`` result once."""
        yield self.invoke(input, config, **kwargs)

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``; by default the whole ``ainvoke`` result once."""
        yield await self.ainvoke(input, config, **kwargs)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream output from a stream of input chunks.

        By default the input chunks are combined (``+``) first, then streamed; runnables
        that can work chunk by chunk (parsers, passthrough) override this.
        """
        total = _NOTHING
        for chunk in input:
            total = add_chunks(total, chunk)
        if total is not _NOTHING:
            yield from self.stream(total, config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``transform``: combine the input chunks, then ``astream``."""
        total = _NOTHING
        async for chunk in input:
            total = add_chunks(total, chunk)
        if total is _NOTHING:
            return
        stream = self.astream(total, config, **kwargs)
        try:
            async for out in stream:
                yield out
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:  # closed early: end the inner stream (and its run) now
                await aclose()

    def astream_events(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Stream the run's events as they happen, in LangChain's v2 (or v1) shape.

        Each event is a dict with ``event`` (``on_chain_start``, ``on_chat_model_stream``,
        ``on_retriever_end``, ``on_custom_event`` ...), ``name``, ``run_id``,
        ``parent_ids``, ``tags``, ``metadata`` and ``data`` (see
        :mod:`ragline.core.runnables.events` for the shapes).

        Args:
            input: the input, as for ``astream``.
            config: the config, as for ``astream``.
            version: ``"v2"``; or ``"v1"``, deprecated (a ``DeprecationWarning``), which
                LangChain still gives: events read off ``astream_log``, with
                ``parent_ids`` always empty and no custom events (see
                :mod:`ragline.core.runnables.events_v1`).
            include_names, include_types, include_tags: show only runs with one of these
                names, kinds (``chain``, ``prompt``, ``parser``, ``chat_model``, ``llm``,
                ``retriever``, ``tool``) or tags.
            exclude_names, exclude_types, exclude_tags: then drop runs matching these.
            kwargs: call options passed to ``astream``.

        Raises:
            InvalidInputError: another version, or a filter given as a single string.

        Example:
            >>> import asyncio
            >>> from ragline.core import RunnableLambda
            >>> async def names():
            ...     chain = RunnableLambda(lambda x: x + 1, name="add")
            ...     return [e["name"] async for e in chain.astream_events(1)]
            >>> asyncio.run(names())
            ['add', 'add', 'add']
        """
        from ragline.core.runnables.events import astream_events, event_filter_for

        event_filter = event_filter_for(version, include_names, include_types, include_tags,
                                        exclude_names, exclude_types, exclude_tags)  # fmt: skip
        if version == "v1":
            from ragline.core.runnables.events_v1 import astream_events_v1

            warnings.warn(
                "astream_events(version='v1') is deprecated and kept for programs written "
                "for it; version='v2' gives parent_ids and custom events too",
                DeprecationWarning,
                stacklevel=2,
            )
            return astream_events_v1(self, input, config, event_filter, kwargs)
        return astream_events(self, input, config, event_filter, kwargs)

    def astream_log(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        diff: bool = True,
        with_streamed_output_list: bool = True,
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Stream the run's log as JSON Patch operations (LangChain's ``RunLogPatch``).

        The patches, applied in order, build ``{"id", "name", "type", "streamed_output",
        "final_output", "logs"}``: the root's chunks and their sum, and one entry per run
        below it (see :mod:`ragline.core.runnables.log`).

        Args:
            diff: yield each ``RunLogPatch`` (True) or the ``RunLog`` so far (False).
            with_streamed_output_list: include the root's chunks under
                ``streamed_output`` (``final_output`` is always there).
            include_names, include_types, include_tags, exclude_names, exclude_types,
                exclude_tags: which runs get an entry under ``logs`` (types are
                LangChain's run types: a chat model's runs are ``"llm"``).
            kwargs: call options passed to ``astream``.

        Example:
            >>> import asyncio
            >>> from ragline.core import RunnableLambda
            >>> async def ops():
            ...     return [p.ops[-1]["path"] async for p in RunnableLambda(str).astream_log(1)]
            >>> asyncio.run(ops())
            ['', '/final_output']
        """
        from ragline.core.runnables.events import event_filter_for
        from ragline.core.runnables.log import astream_log

        log_filter = event_filter_for("v2", include_names, include_types, include_tags,
                                      exclude_names, exclude_types, exclude_tags)  # fmt: skip
        return astream_log(
            self,
            input,
            config,
            log_filter,
            diff=diff,
            with_streamed_output_list=with_streamed_output_list,
            kwargs=kwargs,
        )

    # ---- composition ----------------------------------------------------------------
    def __or__(self, other: Any) -> RunnableSequence[Input, Any]:
        from ragline.core.runnables.sequence import RunnableSequence

        return RunnableSequence(self, coerce_to_runnable(other))

    def __ror__(self, other: Any) -> RunnableSequence[Any, Output]:
        from ragline.core.runnables.sequence import RunnableSequence

        return RunnableSequence(coerce_to_runnable(other), self)

    def pipe(self, *others: Any, name: str | None = None) -> RunnableSequence[Input, Any]:
        """Return ``self | others[0] | others[1] ...`` as one sequence."""
        from ragline.core.runnables.sequence import RunnableSequence

        return RunnableSequence(self, *(coerce_to_runnable(o) for o in others), name=name)

    def assign(self, **steps: Any) -> RunnableSequence[Input, dict[str, Any]]:
        """Return ``self | RunnablePassthrough.assign(**steps)`` (output must be a dict)."""
        from ragline.core.runnables.passthrough import RunnablePassthrough

        return self | RunnablePassthrough.assign(**steps)

    def pick(self, keys: str | list[str]) -> RunnableSequence[Input, Any]:
        """Return ``self | RunnablePick(keys)``: one key's value, or a dict of some keys."""
        from ragline.core.runnables.passthrough import RunnablePick

        return self | RunnablePick(keys)

    def map(self) -> Runnable[list[Input], list[Output]]:
        """Return a runnable that applies this one to every element of a list input."""
        from ragline.core.runnables.each import RunnableEach

        return RunnableEach(self)

    def bind(self, **kwargs: Any) -> RunnableBinding[Input, Output]:
        """Return this runnable with keyword arguments fixed for every call.

        Example:
            >>> # model.bind(stop=["\\n"]).invoke("hi") calls model.invoke("hi", stop=["\\n"])
        """
        from ragline.core.runnables.binding import RunnableBinding

        return RunnableBinding(self, kwargs=kwargs)

    def with_config(
        self, config: RunnableConfig | None = None, **options: Any
    ) -> RunnableBinding[Input, Output]:
        """Return this runnable with ``config`` merged into every call's config."""
        from ragline.core.runnables.binding import RunnableBinding

        merged: Any = {**(config or {}), **options}
        return RunnableBinding(self, config=merged)

    def with_listeners(
        self,
        *,
        on_start: Callable[[Any], Any] | None = None,
        on_end: Callable[[Any], Any] | None = None,
        on_error: Callable[[Any], Any] | None = None,
    ) -> RunnableBinding[Input, Output]:
        """Return this runnable calling ``on_start(run)`` / ``on_end(run)`` / ``on_error(run)``.

        Each listener gets the :class:`~ragline.core.callbacks.Run` of this runnable's
        own run, once per call, in LangChain's shapes: ``inputs`` and ``outputs`` are
        dicts (``{"input": 4}`` / ``{"output": 8}`` for values that are not), ``error``
        the exception's text, ``child_runs`` the runs inside it (a chat model's with its
        messages, ``run_type="chat_model"``), and times, tags and metadata. A listener
        with a ``config`` parameter also gets the call's config (without callbacks), as
        in LangChain.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> ends = []
            >>> RunnableLambda(lambda x: x * 2).with_listeners(on_end=ends.append).invoke(4)
            8
            >>> ends[0].inputs, ends[0].outputs
            ({'input': 4}, {'output': 8})
        """
        from ragline.core.runnables.binding import RunnableBinding, listeners_config_factory

        factory = listeners_config_factory(
            on_start, on_end, on_error, qualname="Runnable.with_listeners.<locals>.<lambda>"
        )
        return RunnableBinding(self, config_factories=[factory])

    def with_alisteners(
        self,
        *,
        on_start: Callable[..., Any] | None = None,
        on_end: Callable[..., Any] | None = None,
        on_error: Callable[..., Any] | None = None,
    ) -> RunnableBinding[Input, Output]:
        """:meth:`with_listeners` for coroutine functions: each listener is awaited
        with the :class:`~ragline.core.callbacks.Run` (and the call's config, when it
        has a ``config`` parameter) before the run goes on, in ``ainvoke``, ``astream``
        and the other async calls (a sync call runs it to completion).

        Example:
            >>> import asyncio
            >>> from ragline.core import RunnableLambda
            >>> async def ended(run):
            ...     print("ended", run.outputs)
            >>> doubled = RunnableLambda(lambda x: x * 2).with_alisteners(on_end=ended)
            >>> asyncio.run(doubled.ainvoke(4))
            ended {'output': 8}
            8
        """
        from ragline.core.runnables.binding import RunnableBinding, listeners_config_factory

        factory = listeners_config_factory(
            on_start,
            on_end,
            on_error,
            qualname="Runnable.with_alisteners.<locals>.<lambda>",
            awaited=True,
        )
        return RunnableBinding(self, config_factories=[factory])

    def with_retry(
        self,
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
        wait_exponential_jitter: bool = True,
        stop_after_attempt: int = 3,
        exponential_jitter_params: dict[str, float] | None = None,
    ) -> RunnableRetry[Input, Output]:
        """Return this runnable retried on the given exception types (see RunnableRetry)."""
        from ragline.core.runnables.retry import RunnableRetry

        return RunnableRetry(
            self,
            retry_if_exception_type=retry_if_exception_type,
            wait_exponential_jitter=wait_exponential_jitter,
            stop_after_attempt=stop_after_attempt,
            exponential_jitter_params=exponential_jitter_params,
        )

    def with_fallbacks(
        self,
        fallbacks: Sequence[Runnable[Input, Output]],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> RunnableWithFallbacks[Input, Output]:
        """Return this runnable, falling back to ``fallbacks`` in order when it raises."""
        from ragline.core.runnables.fallbacks import RunnableWithFallbacks

        return RunnableWithFallbacks(
            self, fallbacks, exceptions_to_handle=exceptions_to_handle, exception_key=exception_key
        )

    def configurable_fields(self, **fields: AnyConfigurableField) -> Runnable[Input, Output]:
        """Let ``config["configurable"][field.id]`` replace attributes at invoke time (a
        ConfigurableFieldSingleOption / MultiOption: with the named option's value)."""
        from ragline.core.runnables.configurable import RunnableConfigurableFields

        return RunnableConfigurableFields(self, fields)

    def configurable_alternatives(
        self,
        which: ConfigurableField,
        *,
        default_key: str = "default",
        prefix_keys: bool = False,
        **alternatives: Runnable[Input, Output],
    ) -> Runnable[Input, Output]:
        """Let ``config["configurable"][which.id]`` pick another runnable at invoke time.

        With ``prefix_keys=True`` each option's own configurable fields are set under
        ``"<which.id>==<key>/<field id>"`` (``"llm==gpt/temperature"``), so options with
        fields of the same id are configured apart.
        """
        from ragline.core.runnables.configurable import RunnableConfigurableAlternatives

        return RunnableConfigurableAlternatives(
            which, self, alternatives, default_key=default_key, prefix_keys=prefix_keys
        )

    # ---- introspection --------------------------------------------------------------
    def _children(self) -> list[Runnable[Any, Any]]:
        """The runnables this one is made of (composites override)."""
        return []

    @property
    def config_specs(self) -> list[ConfigurableField]:
        """Every ConfigurableField reachable from this runnable, one per id, in id order."""
        seen: dict[str, Any] = {}
        for child in self._children():
            for spec in child.config_specs:
                seen.setdefault(spec.id, spec)
        return _specs_by_id(seen)

    def as_tool(
        self,
        args_schema: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_types: dict[str, Any] | None = None,
    ) -> Any:
        """Return this runnable as a tool that agents and models can call.

        A runnable whose input is a dict of named values (a TypedDict input annotation,
        ``arg_types`` or ``args_schema``) gets those arguments and is invoked with them
        as a dict (a ``StructuredTool``); any other runnable gets one string argument,
        ``tool_input`` (a ``Tool``).

        Args:
            args_schema: the arguments (a pydantic model class or a JSON Schema dict).
            name: the tool's name (default: this runnable's name).
            description: what the tool does (the model reads it).
            arg_types: ``{argument: type}``, instead of ``args_schema``.

        Raises:
            InvalidInputError: both ``args_schema`` and ``arg_types`` given.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> RunnableLambda(str.upper, name="shout").as_tool().invoke("hi")
            'HI'
        """
        from ragline.core.tools._runnable import runnable_as_tool

        return runnable_as_tool(
            self, args_schema=args_schema, name=name, description=description, arg_types=arg_types
        )

    def get_prompts(self, config: RunnableConfig | None = None) -> list[Any]:
        """Return the prompt templates in this runnable's graph, in graph order.

        Args:
            config: the graph's config (a configurable runnable draws what it selects).
        """
        from ragline.core.prompts import BasePromptTemplate

        return [
            node.data
            for node in self.get_graph(config).nodes.values()
            if isinstance(node.data, BasePromptTemplate)
        ]

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """Return the graph of this runnable: input schema -> this node -> output schema.

        Args:
            config: its ``metadata`` becomes the node's (drawn in Mermaid labels).
        """
        from ragline.core.runnables.graph import Graph

        return Graph.single(self, metadata=config.get("metadata") if config else None)

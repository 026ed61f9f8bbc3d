"""Runnable: one abstract ``invoke``, and everything else derived from it.

A subclass writes ``invoke``. It gets for free: ``ainvoke`` (runs ``invoke`` in a worker
thread with the caller's contextvars), ``batch`` / ``abatch`` (concurrent, honouring
``max_concurrency``, optionally returning exceptions in place), ``stream`` / ``astream``
(yield the result once) and ``transform`` / ``atransform`` (buffer the input stream,
then stream). Override the async or streaming methods where the runnable can do better.

Composition lives in small sibling modules (sequence, parallel, binding, retry,
fallbacks, branch, configurable); the methods here only build those objects.

Implementers report their run with :meth:`Runnable._call_with_config` (or its async
and streaming twins): it emits ``on_chain_start`` / ``end`` / ``error`` and makes the
run's child config current, so whatever ``func`` invokes becomes a child run.

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
import contextvars
import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ragline.core.callbacks.manager import BaseRunManager, CallbackManager
from ragline.core.config import (
    RunnableConfig,
    _current_config,
    ensure_config,
    get_config_list,
)
from ragline.core.exceptions import ConfigurationError

if TYPE_CHECKING:
    from ragline.core.runnables.binding import RunnableBinding
    from ragline.core.runnables.configurable import ConfigurableField
    from ragline.core.runnables.fallbacks import RunnableWithFallbacks
    from ragline.core.runnables.graph import Graph
    from ragline.core.runnables.retry import RunnableRetry
    from ragline.core.runnables.sequence import RunnableSequence

__all__ = ["Input", "Output", "Runnable", "add_chunks", "coerce_to_runnable", "combine_chunks"]

Input = TypeVar("Input")
Output = TypeVar("Output")

_DEFAULT_WORKERS = 16
_NOTHING: Any = object()

# Set while a configurable runnable at the root has already checked config["configurable"].
_configurable_checked: ContextVar[bool] = ContextVar("ragline_configurable_checked", default=False)


def add_chunks(total: Any, chunk: Any) -> Any:
    """Combine streamed chunks: ``+`` where defined, dicts key by key, else the latest.

    Example:
        >>> add_chunks({"a": "x"}, {"a": "y", "b": 1})
        {'a': 'xy', 'b': 1}
    """
    if total is _NOTHING:
        return chunk
    if isinstance(total, dict) and isinstance(chunk, dict):
        merged = dict(total)
        for key, value in chunk.items():
            merged[key] = add_chunks(merged[key], value) if key in merged else value
        return merged
    try:
        return total + chunk
    except TypeError:
        return chunk


def combine_chunks(chunks: list[Any]) -> Any:
    """Combine a list of streamed chunks (``None`` for none), joining strings in one go.

    Example:
        >>> combine_chunks(["a", "b"]), combine_chunks([[1], [2]]), combine_chunks([])
        ('ab', [1, 2], None)
    """
    if not chunks:
        return None
    if all(isinstance(chunk, str) for chunk in chunks):
        return "".join(chunks)
    total = _NOTHING
    for chunk in chunks:
        total = add_chunks(total, chunk)
    return total


def coerce_to_runnable(thing: Any) -> Runnable[Any, Any]:
    """Return ``thing`` as a Runnable: callables become lambdas, dicts parallels.

    Generator functions (sync or async) become ``RunnableGenerator``: they receive the
    input *stream* and yield output chunks, so they stream.

    Raises:
        TypeError: ``thing`` is none of Runnable, callable or dict.
    """
    from ragline.core.runnables.lambdas import RunnableGenerator, RunnableLambda
    from ragline.core.runnables.parallel import RunnableParallel

    if isinstance(thing, Runnable):
        return thing
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


class Runnable(ABC, Generic[Input, Output]):
    """A unit of work with a uniform calling convention; subclasses write ``invoke``.

    Attributes:
        name: the name reported to callbacks (default: the class name).
    """

    name: str | None = None

    def get_name(self) -> str:
        """Return the name reported to callbacks and shown in graphs."""
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}()" if not self.name else f"{type(self).__name__}(name={self.name!r})"

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

    async def ainvoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Async ``invoke``; by default runs ``invoke`` in a worker thread.

        The thread runs in a copy of the caller's context, so the current config (and
        with it the parent run) carries over.
        """
        context = contextvars.copy_context()
        call = functools.partial(context.run, self.invoke, input, config, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(None, call)

    def batch(self, inputs: Sequence[Input], config: RunnableConfig | Sequence[RunnableConfig] | None = None,
              *, return_exceptions: bool = False, **kwargs: Any) -> list[Output]:
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
        limit = ensure_config(configs[0])["max_concurrency"] or _DEFAULT_WORKERS
        with ThreadPoolExecutor(max_workers=min(limit, len(inputs))) as pool:
            futures = [pool.submit(contextvars.copy_context().run, call, i) for i in range(len(inputs))]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    async def abatch(self, inputs: Sequence[Input], config: RunnableConfig | Sequence[RunnableConfig] | None = None,
                     *, return_exceptions: bool = False, **kwargs: Any) -> list[Output]:
        """Async ``batch``: one task per input, at most ``max_concurrency`` at once."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = get_config_list(config, len(inputs))
        limit = ensure_config(configs[0])["max_concurrency"]
        semaphore = asyncio.Semaphore(limit) if limit else None

        async def call(index: int) -> Any:
            try:
                if semaphore is None:
                    return await self.ainvoke(inputs[index], configs[index], **kwargs)
                async with semaphore:
                    return await self.ainvoke(inputs[index], configs[index], **kwargs)
            except Exception as err:
                if return_exceptions:
                    return err
                raise

        return list(await asyncio.gather(*(call(i) for i in range(len(inputs)))))

    def stream(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Output]:
        """Yield the output in chunks; by default the whole ``invoke`` result once."""
        yield self.invoke(input, config, **kwargs)

    async def astream(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Output]:
        """Async ``stream``; by default the whole ``ainvoke`` result once."""
        yield await self.ainvoke(input, config, **kwargs)

    def transform(self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Output]:
        """Stream output from a stream of input chunks.

        By default the input chunks are combined (``+``) first, then streamed; runnables
        that can work chunk by chunk (parsers, passthrough) override this.
        """
        total = _NOTHING
        for chunk in input:
            total = add_chunks(total, chunk)
        if total is not _NOTHING:
            yield from self.stream(total, config, **kwargs)

    async def atransform(self, input: AsyncIterator[Input], config: RunnableConfig | None = None,
                         **kwargs: Any) -> AsyncIterator[Output]:
        """Async ``transform``: combine the input chunks, then ``astream``."""
        total = _NOTHING
        async for chunk in input:
            total = add_chunks(total, chunk)
        if total is not _NOTHING:
            async for out in self.astream(total, config, **kwargs):
                yield out

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

    def with_config(self, config: RunnableConfig | None = None, **options: Any) -> RunnableBinding[Input, Output]:
        """Return this runnable with ``config`` merged into every call's config."""
        from ragline.core.runnables.binding import RunnableBinding

        merged: Any = {**(config or {}), **options}
        return RunnableBinding(self, config=merged)

    def with_listeners(self, *, on_start: Callable[[Any], Any] | None = None,
                       on_end: Callable[[Any], Any] | None = None,
                       on_error: Callable[[Any], Any] | None = None) -> RunnableBinding[Input, Output]:
        """Return this runnable calling ``on_start(run)`` / ``on_end(run)`` / ``on_error(run)``.

        Each listener gets the :class:`~ragline.core.callbacks.Run` of this runnable's
        own run (inputs, outputs or error, times, tags, metadata), once per call.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> ends = []
            >>> RunnableLambda(lambda x: x * 2).with_listeners(on_end=ends.append).invoke(4)
            8
            >>> ends[0].outputs
            8
        """
        from ragline.core.callbacks.tracers import RootListenersHandler
        from ragline.core.runnables.binding import RunnableBinding

        handler = RootListenersHandler(on_start, on_end, on_error)
        return RunnableBinding(self, config={"callbacks": [handler]})

    def with_retry(self, *, retry_if_exception_type: tuple[type[BaseException], ...] = (Exception,),
                   wait_exponential_jitter: bool = True, stop_after_attempt: int = 3,
                   exponential_jitter_params: dict[str, float] | None = None) -> RunnableRetry[Input, Output]:
        """Return this runnable retried on the given exception types (see RunnableRetry)."""
        from ragline.core.runnables.retry import RunnableRetry

        return RunnableRetry(self, retry_if_exception_type=retry_if_exception_type,
                             wait_exponential_jitter=wait_exponential_jitter,
                             stop_after_attempt=stop_after_attempt,
                             exponential_jitter_params=exponential_jitter_params)

    def with_fallbacks(self, fallbacks: Sequence[Runnable[Input, Output]], *,
                       exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
                       exception_key: str | None = None) -> RunnableWithFallbacks[Input, Output]:
        """Return this runnable, falling back to ``fallbacks`` in order when it raises."""
        from ragline.core.runnables.fallbacks import RunnableWithFallbacks

        return RunnableWithFallbacks(self, fallbacks, exceptions_to_handle=exceptions_to_handle,
                                     exception_key=exception_key)

    def configurable_fields(self, **fields: ConfigurableField) -> Runnable[Input, Output]:
        """Let ``config["configurable"][field.id]`` replace attributes at invoke time."""
        from ragline.core.runnables.configurable import RunnableConfigurableFields

        return RunnableConfigurableFields(self, fields)

    def configurable_alternatives(self, which: ConfigurableField, *, default_key: str = "default",
                                  **alternatives: Runnable[Input, Output]) -> Runnable[Input, Output]:
        """Let ``config["configurable"][which.id]`` pick another runnable at invoke time."""
        from ragline.core.runnables.configurable import RunnableConfigurableAlternatives

        return RunnableConfigurableAlternatives(which, self, alternatives, default_key=default_key)

    # ---- introspection --------------------------------------------------------------
    def _children(self) -> list[Runnable[Any, Any]]:
        """The runnables this one is made of (composites override)."""
        return []

    @property
    def config_specs(self) -> list[ConfigurableField]:
        """Every ConfigurableField reachable from this runnable, one per id."""
        seen: dict[str, Any] = {}
        for child in self._children():
            for spec in child.config_specs:
                seen.setdefault(spec.id, spec)
        return list(seen.values())

    def get_graph(self) -> Graph:
        """Return the graph of this runnable: input node -> this node -> output node."""
        from ragline.core.runnables.graph import Graph

        return Graph.single(self)

    # ---- helpers for implementers ---------------------------------------------------
    def _reject_kwargs(self, kwargs: dict[str, Any]) -> None:
        # Composites take no call options: a bound option would silently vanish.
        if kwargs:
            raise TypeError(
                f"{self.get_name()} takes no keyword options, got {', '.join(sorted(kwargs))}; "
                "bind them to the step that uses them"
            )

    def _check_configurable(self, config: RunnableConfig, manager: CallbackManager) -> None:
        # Only a root run checks: below it the ids belong to the whole tree. A tree with
        # no configurable fields lets unknown ids through (user lambdas may read them).
        configurable = config.get("configurable")
        if not configurable or manager.parent_run_id is not None or _configurable_checked.get():
            return
        known = sorted(spec.id for spec in self.config_specs)
        unknown = sorted(set(configurable) - set(known))
        if known and unknown:
            raise ConfigurationError(
                f"unknown configurable id(s) {', '.join(map(repr, unknown))} for "
                f"{self.get_name()}; known ids are {', '.join(map(repr, known))}"
            )

    def _start_run(self, input: Any, config: RunnableConfig, run_type: str) -> BaseRunManager:
        manager = CallbackManager.configure(config)
        self._check_configurable(config, manager)
        name = config.get("run_name") or self.get_name()
        if run_type == "retriever":
            return manager.on_retriever_start(None, input, name=name, run_id=config.get("run_id"))
        return manager.on_chain_start(None, input, name=name, run_id=config.get("run_id"),
                                      run_type=run_type)

    async def _astart_run(self, input: Any, config: RunnableConfig, run_type: str) -> BaseRunManager:
        manager = CallbackManager.configure(config)
        self._check_configurable(config, manager)
        name = config.get("run_name") or self.get_name()
        if run_type == "retriever":
            return await manager.aon_retriever_start(None, input, name=name, run_id=config.get("run_id"))
        return await manager.aon_chain_start(None, input, name=name, run_id=config.get("run_id"),
                                             run_type=run_type)

    def _call_with_config(self, func: Callable[..., Any], input: Any, config: RunnableConfig | None,
                          run_type: str = "chain", *, with_run_manager: bool = False) -> Any:
        """Run ``func(input)`` as this runnable's run: callbacks, child config, errors.

        Args:
            func: does the work; anything it invokes becomes a child run.
            input: passed to ``func`` and reported on the start event.
            config: the caller's config (merged with the current one).
            run_type: ``"retriever"`` emits retriever events; anything else chain events
                with ``run_type`` passed along (``"chain"``, ``"prompt"``, ``"parser"``).
            with_run_manager: call ``func(input, run_manager)`` instead, for runs that
                report more events (``run_manager.on_text``, ``on_retry``).

        Raises:
            Whatever ``func`` raises, after reporting it; RecursionLimitError when runs
            nest deeper than ``config["recursion_limit"]``.
        """
        config = ensure_config(config)
        run = self._start_run(input, config, run_type)
        token = _current_config.set(run.child_config(config))
        try:
            output = func(input, run) if with_run_manager else func(input)
        except BaseException as err:
            _current_config.reset(token)
            _end_run(run, error=err)
            raise
        _current_config.reset(token)
        _end_run(run, output)
        return output

    async def _acall_with_config(self, func: Callable[..., Awaitable[Any]], input: Any,
                                 config: RunnableConfig | None, run_type: str = "chain", *,
                                 with_run_manager: bool = False) -> Any:
        """Async twin of :meth:`_call_with_config`: awaits ``func(input)``."""
        config = ensure_config(config)
        run = await self._astart_run(input, config, run_type)
        token = _current_config.set(run.child_config(config))
        try:
            output = await (func(input, run) if with_run_manager else func(input))
        except BaseException as err:
            _current_config.reset(token)
            await _aend_run(run, error=err)
            raise
        _current_config.reset(token)
        await _aend_run(run, output)
        return output

    def _batch_with_config(self, inputs: Sequence[Any], config: Any,
                           body: Callable[[list[Any], list[RunnableConfig]], list[Any]], *,
                           return_exceptions: bool, run_type: str = "chain") -> list[Any]:
        """Batch as one run per input, with ``body`` doing the work for all inputs at once.

        ``body(inputs, child_configs)`` returns one output or Exception per input, in
        order (composites call their parts' ``batch`` there, which keeps batch fast paths
        such as a retriever's one-call search). Each run ends with its own output or
        error; without ``return_exceptions`` the first error (in input order) is raised.
        """
        inputs = list(inputs)
        if not inputs:
            return []
        configs = [ensure_config(c) for c in get_config_list(config, len(inputs))]
        runs = [self._start_run(x, c, run_type) for x, c in zip(inputs, configs, strict=True)]
        children = [run.child_config(c) for run, c in zip(runs, configs, strict=True)]
        try:
            outputs = body(inputs, children)
        except BaseException as err:
            for run in runs:
                _end_run(run, error=err)
            raise
        for run, output in zip(runs, outputs, strict=True):
            failed = isinstance(output, Exception)
            _end_run(run, None if failed else output, error=output if failed else None)
        return _raise_first_error(outputs, return_exceptions)

    async def _abatch_with_config(self, inputs: Sequence[Any], config: Any,
                                  body: Callable[[list[Any], list[RunnableConfig]], Awaitable[list[Any]]],
                                  *, return_exceptions: bool, run_type: str = "chain") -> list[Any]:
        """Async twin of :meth:`_batch_with_config` (``body`` is awaited)."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = [ensure_config(c) for c in get_config_list(config, len(inputs))]
        runs = [await self._astart_run(x, c, run_type) for x, c in zip(inputs, configs, strict=True)]
        children = [run.child_config(c) for run, c in zip(runs, configs, strict=True)]
        try:
            outputs = await body(inputs, children)
        except BaseException as err:
            for run in runs:
                await _aend_run(run, error=err)
            raise
        for run, output in zip(runs, outputs, strict=True):
            failed = isinstance(output, Exception)
            await _aend_run(run, None if failed else output, error=output if failed else None)
        return _raise_first_error(outputs, return_exceptions)

    def _transform_stream_with_config(self, input: Iterator[Any],
                                      transformer: Callable[[Iterator[Any]], Iterator[Any]],
                                      config: RunnableConfig | None, run_type: str = "chain",
                                      start_input: Any = None) -> Iterator[Any]:
        """Stream ``transformer(input)`` as this runnable's run.

        The run starts once the first input chunk has arrived (so upstream runs start
        first) and reports ``start_input`` if given, else that first chunk. It ends when
        the stream is exhausted (or closed early); the end event carries the combined
        input and output chunks. The child config is current while each output chunk is
        produced; the caller's config is current while input chunks are pulled, so
        upstream steps stay siblings of this run.
        """
        outer = _current_config.get()
        upstream = iter(input)
        first = next(upstream, _NOTHING)  # pulled in the caller's context
        config = ensure_config(config)
        run = self._start_run(start_input if start_input is not None else _none_if_nothing(first),
                              config, run_type)
        child = run.child_config(config)
        listening = bool(run.handlers)  # nobody to report combined chunks to: skip the work
        seen: list[Any] = [first] if listening and first is not _NOTHING else []

        def tap() -> Iterator[Any]:
            if first is _NOTHING:
                return
            yield first
            while True:
                token = _current_config.set(outer)
                try:
                    chunk = next(upstream)
                except StopIteration:
                    return
                finally:
                    _current_config.reset(token)
                if listening:
                    seen.append(chunk)
                yield chunk

        output: list[Any] = []
        token = _current_config.set(child)
        try:
            iterator = iter(transformer(tap()))
        finally:
            _current_config.reset(token)
        try:
            while True:
                token = _current_config.set(child)
                try:
                    chunk = next(iterator)
                except StopIteration:
                    break
                finally:
                    _current_config.reset(token)
                if listening:
                    output.append(chunk)
                yield chunk
        except GeneratorExit:
            _end_run(run, combine_chunks(output), inputs=combine_chunks(seen))
            raise
        except BaseException as err:
            _end_run(run, error=err, inputs=combine_chunks(seen))
            raise
        _end_run(run, combine_chunks(output), inputs=combine_chunks(seen))

    async def _atransform_stream_with_config(
        self, input: AsyncIterator[Any], transformer: Callable[[AsyncIterator[Any]], AsyncIterator[Any]],
        config: RunnableConfig | None, run_type: str = "chain", start_input: Any = None,
    ) -> AsyncIterator[Any]:
        """Async twin of :meth:`_transform_stream_with_config`."""
        outer = _current_config.get()
        upstream = input.__aiter__()
        try:
            first = await upstream.__anext__()
        except StopAsyncIteration:
            first = _NOTHING
        config = ensure_config(config)
        run = await self._astart_run(start_input if start_input is not None else _none_if_nothing(first),
                                     config, run_type)
        child = run.child_config(config)
        listening = bool(run.handlers)
        seen: list[Any] = [first] if listening and first is not _NOTHING else []

        async def tap() -> AsyncIterator[Any]:
            if first is _NOTHING:
                return
            yield first
            while True:
                token = _current_config.set(outer)
                try:
                    chunk = await upstream.__anext__()
                except StopAsyncIteration:
                    return
                finally:
                    _current_config.reset(token)
                if listening:
                    seen.append(chunk)
                yield chunk

        output: list[Any] = []
        token = _current_config.set(child)
        try:
            iterator = transformer(tap()).__aiter__()
        finally:
            _current_config.reset(token)
        try:
            while True:
                token = _current_config.set(child)
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    break
                finally:
                    _current_config.reset(token)
                if listening:
                    output.append(chunk)
                yield chunk
        except GeneratorExit:
            await _aend_run(run, combine_chunks(output), inputs=combine_chunks(seen))
            raise
        except BaseException as err:
            await _aend_run(run, error=err, inputs=combine_chunks(seen))
            raise
        await _aend_run(run, combine_chunks(output), inputs=combine_chunks(seen))


def _raise_first_error(outputs: list[Any], return_exceptions: bool) -> list[Any]:
    if not return_exceptions:
        for output in outputs:
            if isinstance(output, Exception):
                raise output
    return outputs


def _none_if_nothing(value: Any) -> Any:
    return None if value is _NOTHING else value


def _end_run(run: BaseRunManager, output: Any = None, *, error: BaseException | None = None,
             **extra: Any) -> None:
    retriever = hasattr(run, "on_retriever_end")
    if error is not None:
        (run.on_retriever_error if retriever else run.on_chain_error)(error, **extra)  # type: ignore[attr-defined]
    else:
        (run.on_retriever_end if retriever else run.on_chain_end)(output, **extra)  # type: ignore[attr-defined]


async def _aend_run(run: BaseRunManager, output: Any = None, *, error: BaseException | None = None,
                    **extra: Any) -> None:
    retriever = hasattr(run, "aon_retriever_end")
    if error is not None:
        await (run.aon_retriever_error if retriever else run.aon_chain_error)(error, **extra)  # type: ignore[attr-defined]
    else:
        await (run.aon_retriever_end if retriever else run.aon_chain_end)(output, **extra)  # type: ignore[attr-defined]

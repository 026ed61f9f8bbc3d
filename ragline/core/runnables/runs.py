"""How a runnable reports its runs: the helpers behind every ``invoke`` and ``stream``.

:class:`RunReporting` is a base of :class:`~ragline.core.runnables.base.Runnable`. An
implementer wraps its work in one of these:

- ``_call_with_config(func, input, config, run_type="chain")`` (and
  ``_acall_with_config``): start the run, make its child config current, call
  ``func(input)``, report the output or the error;
- ``_transform_stream_with_config(input_chunks, transformer, config)`` (and the async
  twin): the same for a stream, chunk by chunk;
- ``_batch_with_config(inputs, config, body, return_exceptions=...)`` (and the async
  twin): one run per input, with ``body`` working on all inputs at once.

``run_type="retriever"`` reports retriever events; any other run type reports chain
events carrying that ``run_type`` ("chain", "prompt", "parser" ...).

Streamed chunks are combined with :func:`add_chunks` (``+`` where the type defines it,
else the latest chunk wins, as in LangChain). Plain dicts do not add: a JSON parser's
partial objects are each a whole state, so the latest wins. The dict chunks meant to be
merged key by key (a parallel's ``{branch: chunk}``) are :class:`AddableDict`.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, overload

from ragline.core.callbacks.base import stream_taps
from ragline.core.callbacks.manager import (
    _OWN_CHAIN_RUN,
    BaseRunManager,
    CallbackManager,
    _with_tag,
)
from ragline.core.config import (
    _KNOWN_KEYS,
    RunnableConfig,
    _CheckedConfig,
    _current_config,
    ensure_config,
    ensure_config_list,
    use_config,
)
from ragline.core.exceptions import ConfigurationError
from ragline.core.fields import user_stacklevel

__all__ = [
    "AddableDict",
    "RunReporting",
    "add_chunks",
    "ainvoke_steps",
    "combine_chunks",
    "invoke_steps",
    "part_config",
]

_NOTHING: Any = object()

# Set while a configurable runnable at the root has already checked config["configurable"].
_configurable_checked: ContextVar[bool] = ContextVar("ragline_configurable_checked", default=False)


class AddableDict(dict[str, Any]):
    """A dict chunk that adds key by key: ``+`` adds the values of shared keys.

    Parallel, assign and pick steps stream these, so their chunks combine into the
    whole output; a plain dict chunk replaces the previous one instead.

    Example:
        >>> AddableDict(a="x") + {"a": "y", "b": 1}
        {'a': 'xy', 'b': 1}
    """

    def __add__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        merged = AddableDict(self)
        for key, value in other.items():
            merged[key] = add_chunks(merged[key], value) if key in merged else value
        return merged

    def __radd__(self, other: Any) -> AddableDict:
        if not isinstance(other, dict):
            return NotImplemented
        return AddableDict(other) + self


def add_chunks(total: Any, chunk: Any) -> Any:
    """Combine streamed chunks: ``+`` where defined, else the latest chunk wins.

    Example:
        >>> add_chunks("a", "b"), add_chunks({"a": 1}, {"a": 2})
        ('ab', {'a': 2})
    """
    if total is _NOTHING or total is None:
        return chunk
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
    if len(chunks) > 1 and type(chunks[0]).__name__ == "AIMessageChunk":
        # a streamed reply: summed in one step (imported here: a plain runnable's
        # import stays free of the messages module)
        from ragline.core.messages import AIMessageChunk, add_ai_message_chunks

        # (a stream mixing whole messages in is added up piece by piece below)
        if set(map(type, chunks)) == {AIMessageChunk}:  # one pass in C, not a generator
            return add_ai_message_chunks(chunks)
    total = _NOTHING
    for chunk in chunks:
        total = add_chunks(total, chunk)
    return total


# the methods a runnable's config is handed to as an argument
_CONFIG_METHODS = frozenset(
    {"invoke", "ainvoke", "batch", "abatch", "stream", "astream", "transform", "atransform"}
)


def _takes_config_argument(method: Any) -> bool:
    """Whether ``method(self, input, config, ...)`` takes the config second (by position)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    if len(parameters) < 3 or parameters[2].name != "config":
        return False
    return parameters[2].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


def _handed_current_config(method: Any) -> Any:
    """``method`` (a user class's invoke or ainvoke) given the current run's config when
    called without one: inside a composite the part's config, at the top level None."""
    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def ainvoke(self: Any, input: Any, config: Any = None, **kwargs: Any) -> Any:
            if config is None:
                config = _current_config.get()
            return await method(self, input, config, **kwargs)

        return ainvoke

    @functools.wraps(method)
    def invoke(self: Any, input: Any, config: Any = None, **kwargs: Any) -> Any:
        if config is None:
            config = _current_config.get()
        return method(self, input, config, **kwargs)

    return invoke


def _reads_run_config(root: RunReporting) -> bool:
    """Whether a runnable in the tree under ``root`` hands the run's config to user code
    (a function with a ``config`` parameter), walking each runnable's parts and the
    runnables a function uses, each once."""
    pending, seen = [root], set()
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node._takes_run_config:
            return True
        pending.extend(node._runnables_below())
    return False


class RunReporting:
    """The run plumbing every Runnable inherits (see the module docstring)."""

    if TYPE_CHECKING:

        def get_name(self) -> str: ...

        @property
        def config_specs(self) -> list[Any]: ...

        def _children(self) -> list[Any]: ...

    # whether this runnable calls user code with the run's config (RunnableLambda's
    # ``f(input, config)``, a tool function's config parameter, a user's own Runnable
    # class), which may read configurable ids no field declares
    _takes_run_config: bool = False

    # whether this runnable's stream hands over its output only after its run has ended
    # (LangChain's legacy Chain streams invoke's result): astream_events then shows no
    # stream event for it as the outermost run, as LangChain's shows none
    _streams_after_its_run: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A class written outside ragline that defines a method the config is passed to
        # (every user Runnable defines invoke) is user code that receives the config.
        if cls.__module__.partition(".")[0] == "ragline":
            return
        if "_takes_run_config" not in vars(cls) and not _CONFIG_METHODS.isdisjoint(vars(cls)):
            cls._takes_run_config = True
        # A composite calls its parts' invoke/ainvoke without a config (the run's config
        # is current): a user's own method is handed it, as LangChain hands it each part.
        for name in ("invoke", "ainvoke"):
            method = vars(cls).get(name)
            if method is not None and _takes_config_argument(method):
                setattr(cls, name, _handed_current_config(method))

    def _runnables_below(self) -> list[Any]:
        """The runnables a run of this one may start (its parts; a function's deps)."""
        return self._children()

    def _drop_config_keywords(self, kwargs: dict[str, Any], method: str) -> dict[str, Any]:
        """``kwargs`` less the config keys given as keywords (``chain.invoke(x,
        callbacks=[h])``), dropped with a warning at the user's calling line.

        LangChain's sequences and legacy chains run such a call without the option; ragline
        runs it the same way and says how to apply it.
        """
        if not kwargs:  # every plain call
            return kwargs
        keys = sorted(key for key in kwargs if key in _KNOWN_KEYS)
        if not keys:
            return kwargs
        warnings.warn(
            f"{self.get_name()}.{method} ignores {', '.join(keys)} given as a keyword "
            f"argument; pass config={{{keys[0]!r}: ...}} to apply it",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return {key: value for key, value in kwargs.items() if key not in keys}

    def _reject_kwargs(self, kwargs: dict[str, Any]) -> None:
        # Composites take no call options: a bound option would silently vanish.
        if kwargs:
            raise TypeError(
                f"{self.get_name()} takes no keyword options, got {', '.join(sorted(kwargs))}; "
                "bind them to the step that uses them"
            )

    def _check_configurable(self, config: RunnableConfig, manager: CallbackManager) -> None:
        # Only a root run checks: below it the ids belong to the whole tree. A tree with
        # no configurable fields lets unknown ids through, and so does one holding a
        # function that takes the run's config (it may read ids of its own).
        configurable = config.get("configurable")
        if not configurable or manager.has_parent or _configurable_checked.get():
            return
        known = sorted(spec.id for spec in self.config_specs)
        unknown = sorted(set(configurable) - set(known))
        if known and unknown and not _reads_run_config(self):
            raise ConfigurationError(
                f"unknown configurable id(s) {', '.join(map(repr, unknown))} for "
                f"{self.get_name()}; known ids are {', '.join(map(repr, known))}"
            )

    # the ``defers_inputs`` keyword of a streamed run's start event (LangChain's)
    _defers_inputs: bool = False
    # whether a streamed run's end event carries ``inputs=`` (the input chunks added up);
    # LangChain's branch and fallbacks, which start with the whole input, leave it out
    _stream_end_inputs: bool = True

    def _taps_stream(self, run: BaseRunManager) -> bool:
        # the outermost run's chunks are always shown (LangChain's astream_events reads
        # them from the stream it returns)
        return self._reports_stream_chunks or run.parent_run_id is None

    def _end_inputs(self, seen: list[Any]) -> dict[str, Any]:
        return {"inputs": combine_chunks(seen)} if self._stream_end_inputs else {}

    def _default_run_name(self) -> str:
        """The name of this runnable's runs when the config sets no ``run_name``: its
        ``get_name()``, unless it stands for a LangChain chain built with
        ``with_config(run_name=...)``, whose ``get_name()`` is what it wraps."""
        return self.get_name()

    def _local_run_info(self) -> tuple[Any, Any]:
        """Tags and metadata of this runnable's own runs, not inherited by their children
        (retrievers and models override it with their ``tags`` / ``metadata``)."""
        return None, None

    # Whether a run that is not streamed starts with no ``run_type`` keyword at all, as
    # LangChain's sequence, parallel, branch, fallbacks and legacy chains start theirs;
    # the others pass ``run_type`` (``None`` for a chain, ``"prompt"``, ``"parser"`` ...).
    _starts_without_run_type: bool = False
    # Whether a streamed run reports its chunks to the handlers that follow streams
    # (astream_events, astream_log); LangChain's branch and fallbacks do not.
    _reports_stream_chunks: bool = True

    def _run_serialized(self) -> Any:
        """The ``serialized`` argument of this runnable's start events (by default handlers
        get ``None``, as LangChain's runnables pass); prompts and agents say what they
        are here."""
        return _OWN_CHAIN_RUN

    def _run_start_config(self, config: RunnableConfig) -> RunnableConfig:
        """The config a run of this runnable starts with (``config`` is an ensured one,
        its own dict): as given by default; retrievers add their ``ls_*`` metadata."""
        return config

    def _start_run(
        self, input: Any, config: RunnableConfig, run_type: str, streamed_input: bool = False
    ) -> BaseRunManager:
        config = self._run_start_config(config)
        manager = CallbackManager.from_config(config)
        self._check_configurable(config, manager)
        return self._open_run(manager, input, config, run_type, streamed_input)

    def _start_runs(
        self, inputs: list[Any], configs: list[RunnableConfig], run_type: str
    ) -> list[BaseRunManager]:
        """``_start_run`` for every input of a batch. Neighbouring configs that would build
        the same callback manager share one: a batch from one config builds it once."""
        runs = []
        previous: RunnableConfig | None = None
        manager = None
        for input, given in zip(inputs, configs, strict=True):
            config = self._run_start_config(given)
            if manager is None or previous is None or not _same_manager(previous, config):
                manager = CallbackManager.from_config(config)
                self._check_configurable(config, manager)
                previous = config
            runs.append(self._open_run(manager, input, config, run_type))
        return runs

    def _run_options(
        self, config: RunnableConfig, run_type: str, streamed_input: bool
    ) -> dict[str, Any]:
        """The keyword arguments of the start event (``streamed_input``: the input is a
        stream, known only when it ends: the end event has the whole of it)."""
        tags, metadata = self._local_run_info()
        options = {
            "name": config.get("run_name") or self._default_run_name(),
            "local_tags": tags,
            "local_metadata": metadata,
        }
        if run_type != "retriever" and (streamed_input or not self._starts_without_run_type):
            options["run_type"] = None if run_type == "chain" else run_type
        if streamed_input:  # LangChain's keyword (True only for a RunnableGenerator)
            options["defers_inputs"] = self._defers_inputs
        return options

    def _open_run(
        self,
        manager: CallbackManager,
        input: Any,
        config: RunnableConfig,
        run_type: str,
        streamed_input: bool = False,
    ) -> BaseRunManager:
        start = manager.on_retriever_start if run_type == "retriever" else manager.on_chain_start
        return start(  # type: ignore[no-any-return]
            self._run_serialized(),
            input,
            config.get("run_id"),
            **self._run_options(config, run_type, streamed_input),
        )

    async def _astart_run(
        self, input: Any, config: RunnableConfig, run_type: str, streamed_input: bool = False
    ) -> BaseRunManager:
        config = self._run_start_config(config)
        manager = CallbackManager.from_config(config)
        self._check_configurable(config, manager)
        start = manager.aon_retriever_start if run_type == "retriever" else manager.aon_chain_start
        return await start(  # type: ignore[no-any-return]
            self._run_serialized(),
            input,
            config.get("run_id"),
            **self._run_options(config, run_type, streamed_input),
        )

    def _call_with_config(
        self,
        func: Callable[..., Any],
        input: Any,
        config: RunnableConfig | None,
        run_type: str = "chain",
        *,
        with_run_manager: bool = False,
    ) -> Any:
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

    def _call_steps_with_config(
        self, steps: Sequence[Any], tags: Sequence[str], input: Any, config: RunnableConfig | None
    ) -> Any:
        """:meth:`_call_with_config` of :func:`invoke_steps` (a sequence's invoke), in
        one: the run's child config, private to this call, serves every step, its
        manager's tags changed from step to step (no second config and manager)."""
        config = ensure_config(config)
        run = self._start_run(input, config, "chain")
        child = run.child_config(config)
        manager: Any = child["callbacks"]
        inherited = manager.tags
        token = _current_config.set(child)
        try:
            for step, tag in zip(steps, tags, strict=False):  # tags: at least as many
                manager.tags = (
                    [*inherited, tag] if tag not in inherited else _with_tag(inherited, tag)
                )
                input = step.invoke(input)
        except BaseException as err:
            _current_config.reset(token)
            _end_run(run, error=err)
            raise
        _current_config.reset(token)
        _end_run(run, input)
        return input

    async def _acall_steps_with_config(
        self, steps: Sequence[Any], tags: Sequence[str], input: Any, config: RunnableConfig | None
    ) -> Any:
        """Async twin of :meth:`_call_steps_with_config`."""
        config = ensure_config(config)
        run = await self._astart_run(input, config, "chain")
        child = run.child_config(config)
        manager: Any = child["callbacks"]
        inherited = manager.tags
        token = _current_config.set(child)
        try:
            for step, tag in zip(steps, tags, strict=False):  # tags: at least as many
                manager.tags = (
                    [*inherited, tag] if tag not in inherited else _with_tag(inherited, tag)
                )
                input = await step.ainvoke(input)
        except BaseException as err:
            _current_config.reset(token)
            await _aend_run(run, error=err)
            raise
        _current_config.reset(token)
        await _aend_run(run, input)
        return input

    async def _acall_with_config(
        self,
        func: Callable[..., Awaitable[Any]],
        input: Any,
        config: RunnableConfig | None,
        run_type: str = "chain",
        *,
        with_run_manager: bool = False,
    ) -> Any:
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

    def _batch_with_config(
        self,
        inputs: Sequence[Any],
        config: Any,
        body: Callable[[list[Any], list[RunnableConfig]], list[Any]],
        *,
        return_exceptions: bool,
        run_type: str = "chain",
    ) -> list[Any]:
        """Batch as one run per input, with ``body`` doing the work for all inputs at once.

        ``body(inputs, child_configs)`` returns one output or Exception per input, in
        order (composites call their parts' ``batch`` there, which keeps batch fast paths
        such as a retriever's one-call search). Each run ends with its own output or
        error; without ``return_exceptions`` the first error (in input order) is raised.
        """
        inputs = list(inputs)
        if not inputs:
            return []
        configs = ensure_config_list(config, len(inputs))
        runs = self._start_runs(inputs, configs, run_type)
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

    async def _abatch_with_config(
        self,
        inputs: Sequence[Any],
        config: Any,
        body: Callable[[list[Any], list[RunnableConfig]], Awaitable[list[Any]]],
        *,
        return_exceptions: bool,
        run_type: str = "chain",
    ) -> list[Any]:
        """Async twin of :meth:`_batch_with_config` (``body`` is awaited)."""
        inputs = list(inputs)
        if not inputs:
            return []
        configs = ensure_config_list(config, len(inputs))
        runs = [
            await self._astart_run(x, c, run_type) for x, c in zip(inputs, configs, strict=True)
        ]
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

    def _transform_stream_with_config(
        self,
        input: Iterator[Any],
        transformer: Callable[..., Iterator[Any]],
        config: RunnableConfig | None,
        run_type: str = "chain",
        start_input: Any = None,
        *,
        with_run_manager: bool = False,
    ) -> Iterator[Any]:
        """Stream ``transformer(input)`` as this runnable's run.

        The run starts once the first input chunk has arrived (so upstream runs start
        first) and reports ``start_input`` if given, else ``{"input": ""}`` (as LangChain:
        the input is whole only when the stream ends). It ends when
        the stream is exhausted (or closed early); the end event carries the combined
        input and output chunks. The child config is current while each output chunk is
        produced; the caller's config is current while input chunks are pulled, so
        upstream steps stay siblings of this run. ``with_run_manager``: call
        ``transformer(chunks, run_manager)``, for runs that report more events.
        """
        outer = _current_config.get()
        upstream = iter(input)
        first = next(upstream, _NOTHING)  # pulled in the caller's context
        config = ensure_config(config)
        run = self._start_run(
            start_input if start_input is not None else {"input": ""},
            config,
            run_type,
            streamed_input=start_input is None,
        )
        child = run.child_config(config)
        listening = bool(run.handlers)  # nobody to report combined chunks to: skip the work
        seen: list[Any] = [first] if listening and first is not _NOTHING else []
        taps = stream_taps(run.handlers) if listening and self._taps_stream(run) else ()

        def tap() -> Iterator[Any]:
            if first is _NOTHING:
                return
            yield first
            while (chunk := _next_under(outer, upstream)) is not _NOTHING:
                if listening:
                    seen.append(chunk)
                yield chunk

        output: list[Any] = []
        try:
            with use_config(child):  # inside the try: a transformer that fails here ends the run
                iterator = iter(transformer(tap(), run) if with_run_manager else transformer(tap()))
            while (chunk := _next_under(child, iterator)) is not _NOTHING:
                if listening:
                    output.append(chunk)
                    for listener in taps:
                        listener.on_stream_chunk(chunk, run_id=run.run_id)
                yield chunk
        except GeneratorExit:
            # Closed early: close what we pull from now, so the runs below end first.
            for source in (iterator, upstream):
                close = getattr(source, "close", None)
                if close is not None:
                    close()
            _end_run(run, combine_chunks(output), **self._end_inputs(seen))
            raise
        except BaseException as err:
            _end_run(run, error=err, **self._end_inputs(seen))
            raise
        _end_run(run, combine_chunks(output), **self._end_inputs(seen))

    async def _atransform_stream_with_config(
        self,
        input: AsyncIterator[Any],
        transformer: Callable[..., AsyncIterator[Any]],
        config: RunnableConfig | None,
        run_type: str = "chain",
        start_input: Any = None,
        *,
        with_run_manager: bool = False,
    ) -> AsyncIterator[Any]:
        """Async twin of :meth:`_transform_stream_with_config`."""
        outer = _current_config.get()
        upstream = input.__aiter__()
        first = await anext(upstream, _NOTHING)
        config = ensure_config(config)
        run = await self._astart_run(
            start_input if start_input is not None else {"input": ""},
            config,
            run_type,
            streamed_input=start_input is None,
        )
        child = run.child_config(config)
        listening = bool(run.handlers)
        seen: list[Any] = [first] if listening and first is not _NOTHING else []
        taps = stream_taps(run.handlers) if listening and self._taps_stream(run) else ()

        async def tap() -> AsyncIterator[Any]:
            if first is _NOTHING:
                return
            yield first
            while (chunk := await _anext_under(outer, upstream)) is not _NOTHING:
                if listening:
                    seen.append(chunk)
                yield chunk

        output: list[Any] = []
        try:
            with use_config(child):
                iterator = (
                    transformer(tap(), run) if with_run_manager else transformer(tap())
                ).__aiter__()
            while (chunk := await _anext_under(child, iterator)) is not _NOTHING:
                if listening:
                    output.append(chunk)
                    for listener in taps:
                        listener.on_stream_chunk(chunk, run_id=run.run_id)
                yield chunk
        except GeneratorExit:
            # Async generators are not closed by reference counting: close them here.
            for asource in (iterator, upstream):
                aclose = getattr(asource, "aclose", None)
                if aclose is not None:
                    await aclose()
            await _aend_run(run, combine_chunks(output), **self._end_inputs(seen))
            raise
        except BaseException as err:
            await _aend_run(run, error=err, **self._end_inputs(seen))
            raise
        await _aend_run(run, combine_chunks(output), **self._end_inputs(seen))


@overload
def part_config(config: RunnableConfig, tag: str) -> RunnableConfig: ...
@overload
def part_config(config: None, tag: str) -> None: ...
@overload
def part_config(config: RunnableConfig | None, tag: str) -> RunnableConfig | None: ...
def part_config(config: RunnableConfig | None, tag: str) -> RunnableConfig | None:
    """``config``, a run's child config, for one part of that run: the part's own run is
    tagged ``tag``, its children are not (LangChain's ``seq:step:N``, ``map:key:K``,
    ``condition:N`` / ``branch:N``, ``retry:attempt:N``, its run manager's
    ``get_child(tag)``). A config without a callback manager is returned as it is.

    Example:
        >>> part_config(None, "seq:step:1") is None
        True
    """
    callbacks = config.get("callbacks") if config else None
    if not isinstance(callbacks, CallbackManager):
        return config
    part = _CheckedConfig(config)  # type: ignore[arg-type]
    part["callbacks"] = callbacks._tagged_copy(tag)
    return part  # type: ignore[return-value]


def invoke_steps(steps: Sequence[Any], input: Any, tags: Sequence[str]) -> Any:
    """Invoke ``steps`` one after another, each step's output the next one's input, with
    the current config (a run's child config), each step's own run tagged with its tag
    (as :func:`part_config`; ``tags``: at least one per step, the N-th step's N-th). One
    config serves every step: its manager's tags change from step to step, and a step
    reads them when its run starts (cheaper than a config per step, on every sequence
    invoke)."""
    config = _current_config.get()
    callbacks = config.get("callbacks") if config else None
    if config is None or not isinstance(callbacks, CallbackManager):
        for step in steps:
            input = step.invoke(input)
        return input
    steps_config = part_config(config, tags[0])
    manager: Any = steps_config["callbacks"]
    token = _current_config.set(steps_config)
    try:
        for index, step in enumerate(steps):
            if index:
                manager.tags = _with_tag(callbacks.tags, tags[index])
            input = step.invoke(input)
    finally:
        _current_config.reset(token)
    return input


async def ainvoke_steps(steps: Sequence[Any], input: Any, tags: Sequence[str]) -> Any:
    """Async twin of :func:`invoke_steps`."""
    config = _current_config.get()
    callbacks = config.get("callbacks") if config else None
    if config is None or not isinstance(callbacks, CallbackManager):
        for step in steps:
            input = await step.ainvoke(input)
        return input
    steps_config = part_config(config, tags[0])
    manager: Any = steps_config["callbacks"]
    token = _current_config.set(steps_config)
    try:
        for index, step in enumerate(steps):
            if index:
                manager.tags = _with_tag(callbacks.tags, tags[index])
            input = await step.ainvoke(input)
    finally:
        _current_config.reset(token)
    return input


def invoke_part(runnable: Any, input: Any, config: RunnableConfig | None) -> Any:
    """``runnable.invoke(input)`` with ``config`` (a :func:`part_config`) current: no
    second check of a config that was checked where it entered."""
    token = _current_config.set(config)
    try:
        return runnable.invoke(input)
    finally:
        _current_config.reset(token)


async def ainvoke_part(runnable: Any, input: Any, config: RunnableConfig | None) -> Any:
    """Async twin of :func:`invoke_part`."""
    token = _current_config.set(config)
    try:
        return await runnable.ainvoke(input)
    finally:
        _current_config.reset(token)


def _raise_first_error(outputs: list[Any], return_exceptions: bool) -> list[Any]:
    if not return_exceptions:
        for output in outputs:
            if isinstance(output, Exception):
                raise output
    return outputs


def _next_under(config: RunnableConfig | None, iterator: Iterator[Any]) -> Any:
    """The next item of ``iterator`` pulled with ``config`` current (``_NOTHING`` at the end)."""
    token = _current_config.set(config)
    try:
        return next(iterator, _NOTHING)
    finally:
        _current_config.reset(token)


async def _anext_under(config: RunnableConfig | None, iterator: AsyncIterator[Any]) -> Any:
    """Async twin of :func:`_next_under`."""
    token = _current_config.set(config)
    try:
        return await anext(iterator, _NOTHING)
    finally:
        _current_config.reset(token)


async def _aclose(iterator: Any) -> None:
    """Close an async iterator now if it can be closed.

    A dropped async generator is closed only later, by the event loop's finalizer, so a
    consumer that stops early would leave the runs below open (and their HTTP responses).
    """
    aclose = getattr(iterator, "aclose", None)
    if aclose is not None:
        await aclose()


def _end_run(
    run: BaseRunManager, output: Any = None, *, error: BaseException | None = None, **extra: Any
) -> None:
    retriever = hasattr(run, "on_retriever_end")
    if error is not None:
        (run.on_retriever_error if retriever else run.on_chain_error)(error, **extra)  # type: ignore[attr-defined]
    else:
        (run.on_retriever_end if retriever else run.on_chain_end)(output, **extra)  # type: ignore[attr-defined]


async def _aend_run(
    run: BaseRunManager, output: Any = None, *, error: BaseException | None = None, **extra: Any
) -> None:
    retriever = hasattr(run, "aon_retriever_end")
    if error is not None:
        await (run.aon_retriever_error if retriever else run.aon_chain_error)(error, **extra)  # type: ignore[attr-defined]
    else:
        await (run.aon_retriever_end if retriever else run.aon_chain_end)(output, **extra)  # type: ignore[attr-defined]


def _same_manager(first: RunnableConfig, second: RunnableConfig) -> bool:
    """Whether two configs build the same callback manager (and configurable check)."""
    return (
        first.get("callbacks") is second.get("callbacks")
        and first.get("tags") == second.get("tags")
        and first.get("metadata") == second.get("metadata")
        and first.get("recursion_limit") == second.get("recursion_limit")
        and first.get("configurable") == second.get("configurable")
    )

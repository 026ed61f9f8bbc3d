"""RunnableLambda and RunnableGenerator: plain functions as runnables, and ``@chain``."""

from __future__ import annotations

import ast
import asyncio
import contextvars
import functools
import inspect
import operator
import textwrap
import typing
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ragline.core._json_schema import field_title
from ragline.core.config import RunnableConfig, get_current_config
from ragline.core.runnables.base import Input, Output, Runnable, _specs_by_id
from ragline.core.runnables.runs import _NOTHING, add_chunks

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableGenerator", "RunnableLambda", "chain"]


def _takes(func: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):  # some builtins have no signature
        return False


def _takes_config(func: Callable[..., Any]) -> bool:
    return _takes(func, "config")


def _annotations(func: Any) -> tuple[Any, Any]:
    """(first parameter's annotation, return annotation) of ``func``, ``Any`` where missing."""
    try:
        hints = typing.get_type_hints(func)
        parameters = list(inspect.signature(func).parameters)
    except (NameError, TypeError, ValueError):
        return Any, Any
    first = hints.get(parameters[0], Any) if parameters else Any
    return first, hints.get("return", Any)


_ITERATOR_NAMES = {
    "Iterator",
    "AsyncIterator",
    "Iterable",
    "AsyncIterable",
    "Generator",
    "AsyncGenerator",
}


def _function_name(func: Callable[..., Any], fallback: str) -> str:
    name = getattr(func, "__name__", None)
    return fallback if not name or name == "<lambda>" else name


def _source_tree(func: Any) -> ast.Module | None:
    """The parsed source lines ``inspect`` finds for ``func`` (None when they are not at
    hand or do not parse on their own)."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError, SystemError):
        return None


def _source_or_name(func: Any) -> str | None:
    """A lambda's own source text when it is the only lambda in the source lines
    ``inspect`` finds for it, else the function's name (None for a lambda)."""
    name = getattr(func, "__name__", None)
    name = None if name == "<lambda>" else name
    tree = _source_tree(func)
    if tree is None:
        return name
    lambdas = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    return ast.unparse(lambdas[0]) if len(lambdas) == 1 else name


def _names_read(tree: ast.AST) -> set[str]:
    """Names a function's source reads: ``a`` or the whole chain ``a.b.c``."""
    found: set[str] = set()

    class Reader(ast.NodeVisitor):
        def visit_Attribute(self, node: ast.Attribute) -> None:
            parts = [node.attr]
            base: ast.expr = node.value
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and isinstance(node.ctx, ast.Load):
                found.add(".".join([base.id, *reversed(parts)]))
            else:
                self.generic_visit(node)

        def visit_Name(self, node: ast.Name) -> None:
            if isinstance(node.ctx, ast.Load):
                found.add(node.id)

    Reader().visit(tree)
    return found


def _dict_keys_read(func: Any) -> list[str] | None:
    """The string keys the function reads from its first argument (``x["key"]``,
    ``x.get("key")``), sorted; ``None`` when it reads none or its source is not at hand."""
    tree = _source_tree(func)
    if tree is None:
        return None
    function = next(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        ),
        None,
    )
    if function is None or not function.args.args:
        return None
    argument = function.args.args[0].arg
    keys: set[str] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == argument
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            keys.add(node.slice.value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == argument
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            keys.add(node.args[0].value)
    return sorted(keys) or None


def _keys_schema(keys: tuple[str, ...]) -> dict[str, Any]:
    """The JSON schema of a dict that must have ``keys``."""
    properties = {key: {"title": field_title(key)} for key in keys}
    return {"properties": properties, "required": list(keys), "type": "object"}


# the lambdas whose config_specs are being gathered on this thread or task (a function
# that uses its own enclosing chain would otherwise lead the walk back into itself)
_specs_visiting: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "ragline_lambda_specs_visiting", default=frozenset()
)


def _runnables_used(func: Any) -> list[Runnable[Any, Any]]:
    """The runnables ``func`` reads through its globals or closure (methods of a
    runnable count as the runnable), in the order Python lists those names."""
    tree = _source_tree(func)
    if tree is None:
        return []
    try:
        scope = inspect.getclosurevars(func)
    except TypeError:
        return []
    read = _names_read(tree)
    found: list[Any] = []
    for name, value in {**scope.globals, **scope.nonlocals}.items():
        if name in read:
            found.append(value)
        for chain in sorted(c for c in read if c.split(".")[0] == name and "." in c):
            target = value
            for part in chain.split(".")[1:]:
                target = getattr(target, part, _NOTHING)
                if target is _NOTHING:
                    break
            else:
                found.append(target)
    deps: list[Runnable[Any, Any]] = []
    for item in found:
        owner = getattr(item, "__self__", None)
        if isinstance(item, Runnable):
            deps.append(item)
        elif isinstance(owner, Runnable):
            deps.append(owner)
    return deps


class RunnableLambda(Runnable[Input, Output]):
    """Wrap a function (sync or async) as a runnable.

    The function takes the input, and optionally a ``config`` parameter that receives
    the run's child config and a ``run_manager`` parameter that receives the run's
    :class:`~ragline.core.callbacks.CallbackManagerForChainRun` (the async one for an
    ``async def``), as in LangChain. If it returns a runnable, that runnable is invoked
    on the same input as a child run (which is how recursive chains work, bounded by
    ``recursion_limit``).

    Args:
        func: ``f(input)``, ``f(input, config)``, ``f(input, run_manager)`` or
            ``f(input, run_manager, config)``; may be ``async def``.
        afunc: an async version used by ``ainvoke`` (optional).
        name: the run name (default: the function's name, ``RunnableLambda`` for lambdas).

    Raises:
        TypeError: ``invoke`` on a lambda that only has an async function.

    Example:
        >>> RunnableLambda(lambda x: x.upper()).invoke("hi")
        'HI'
    """

    def __init__(
        self,
        func: Callable[..., Any],
        afunc: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
    ) -> None:
        if not callable(func):
            raise TypeError(f"RunnableLambda needs a callable, got {type(func).__name__}")
        if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
            func, afunc = None, func  # type: ignore[assignment]
        self.func: Callable[..., Any] | None = func
        self.afunc = afunc
        named: Any = func if func is not None else afunc
        self.name = name or _function_name(named, "RunnableLambda")
        # Looked up once: whether the function wants the run's config as ``config=`` and
        # its run manager as ``run_manager=``.
        self._func_takes_config = func is not None and _takes_config(func)
        self._afunc_takes_config = afunc is not None and _takes_config(afunc)
        self._func_takes_run_manager = func is not None and _takes(func, "run_manager")
        self._afunc_takes_run_manager = afunc is not None and _takes(afunc, "run_manager")

    def __repr__(self) -> str:
        return self._printed

    @functools.cached_property
    def _printed(self) -> str:
        # LangChain's form: the function's name, a lambda's source when it is the only
        # lambda on its lines, else "..." (an async-only function as afunc=...); read
        # from the source once, as the function does not change
        if isinstance(self.func, operator.itemgetter):
            return f"RunnableLambda({str(self.func).removeprefix('operator.')})"
        if self.func is not None:
            return f"RunnableLambda({_source_or_name(self.func) or '...'})"
        return f"RunnableLambda(afunc={_source_or_name(self.afunc) or '...'})"

    def _function(self) -> Any:
        return self.func if self.func is not None else self.afunc

    @property
    def InputType(self) -> Any:
        """The annotation of the function's first parameter (``Any`` without one)."""
        return _annotations(self._function())[0]

    @property
    def OutputType(self) -> Any:
        """The function's return annotation (``Any`` without one)."""
        return _annotations(self._function())[1]

    @functools.cached_property
    def deps(self) -> list[Runnable[Any, Any]]:
        """The runnables the function uses by a global or closure name (``model`` in
        ``model.invoke(x)``), as LangChain finds them for the graph."""
        return [dep for dep in _runnables_used(self._function()) if dep is not self]

    @property
    def _takes_run_config(self) -> bool:  # type: ignore[override]
        return self._func_takes_config or self._afunc_takes_config

    def _runnables_below(self) -> list[Any]:
        return list(self.deps)

    @property
    def config_specs(self) -> list[Any]:
        """The configurable fields of the runnables the function uses (:attr:`deps`), as
        LangChain's lists them: a ``{"llm": ...}`` choice of the model it calls is known.

        A function that uses the chain it is part of (a recursive chain) lists that
        chain's fields once: the walk does not enter this lambda again (LangChain's
        recurses without end there)."""
        visiting = _specs_visiting.get()
        if id(self) in visiting:
            return []
        token = _specs_visiting.set(visiting | {id(self)})
        try:
            seen: dict[str, Any] = {}
            for dep in self.deps:
                for spec in dep.config_specs:
                    seen.setdefault(spec.id, spec)
        finally:
            _specs_visiting.reset(token)
        return _specs_by_id(seen)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """Input and output nodes with the runnables the function uses between them
        (one node for the function when it uses none), as LangChain draws a lambda."""
        from ragline.core.runnables.graph import Graph

        if not self.deps:
            return super().get_graph(config)
        return Graph.fan(self, [dep.get_graph() for dep in self.deps])

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        # an unannotated function reading x["key"] takes a dict with those keys (and
        # itemgetter("key") too), as LangChain infers them
        func = self._function()
        if isinstance(func, operator.itemgetter):  # itemgetter("a", "b"): those keys
            try:
                items = ast.literal_eval(repr(func).removeprefix("operator.itemgetter"))
            except (ValueError, SyntaxError):  # itemgetter(slice(...)) and the like
                return super()._input_json(defs)
            items = items if isinstance(items, tuple) else (items,)
            if all(isinstance(item, str) for item in items):
                return _keys_schema(items)
            return {"items": {}, "type": "array"}
        if self.InputType is Any and self._keys_read:
            return _keys_schema(self._keys_read)
        return super()._input_json(defs)

    @functools.cached_property
    def _keys_read(self) -> tuple[str, ...]:
        """The keys the function reads from its input dict (read from its source once)."""
        return tuple(_dict_keys_read(self._function()) or ())

    def _input_title(self) -> str:  # a given name first, as LangChain's
        name = self.name
        return "RunnableLambdaInput" if name == "RunnableLambda" else f"{name}_input"

    def _output_title(self) -> str:
        name = self.name
        return "RunnableLambdaOutput" if name == "RunnableLambda" else f"{name}_output"

    def _options(self, run: Any, kwargs: dict[str, Any], *, is_async: bool) -> dict[str, Any]:
        """Keyword arguments for the function: bound kwargs, then config / run_manager."""
        options = dict(kwargs)
        if self._afunc_takes_config if is_async else self._func_takes_config:
            options["config"] = get_current_config()
        if self._afunc_takes_run_manager if is_async else self._func_takes_run_manager:
            options["run_manager"] = run
        return options

    def _call(self, input: Any, run: Any = None, kwargs: dict[str, Any] | None = None) -> Any:
        output = self._call_whole(input, run, kwargs or {})
        if isinstance(output, Runnable):
            output = output.invoke(input)
        return output

    async def _acall(
        self, input: Any, run: Any = None, kwargs: dict[str, Any] | None = None
    ) -> Any:
        assert self.afunc is not None
        options = self._options(run, kwargs or {}, is_async=True)
        output = self.afunc(input, **options) if options else self.afunc(input)
        if inspect.isasyncgen(output):  # an async generator function: its items, added up
            total = _NOTHING
            async for chunk in output:
                total = add_chunks(total, chunk)
            output = None if total is _NOTHING else total
        else:
            output = await output
        if isinstance(output, Runnable):
            output = await output.ainvoke(input)
        return output

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Call the function as a chain run; ``kwargs`` (from ``bind``) go to the function."""
        if self.func is None:
            raise TypeError(
                f"{self.get_name()} wraps an async function; use ainvoke/abatch/astream, "
                "or pass a sync function too"
            )
        call = functools.partial(self._call, kwargs=kwargs) if kwargs else self._call
        return self._call_with_config(
            call, input, config, with_run_manager=self._func_takes_run_manager
        )

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Await the async function, or run the sync one in a worker thread; a runnable
        it returns is awaited with ``ainvoke``, as LangChain's."""
        if self.afunc is None:
            if self.func is None:
                return await super().ainvoke(input, config, **kwargs)
            return await self._acall_with_config(
                functools.partial(self._acall_sync, kwargs=kwargs),
                input,
                config,
                with_run_manager=True,
            )
        call = functools.partial(self._acall, kwargs=kwargs) if kwargs else self._acall
        return await self._acall_with_config(
            call, input, config, with_run_manager=self._afunc_takes_run_manager
        )

    async def _acall_sync(self, input: Any, run: Any, kwargs: dict[str, Any]) -> Any:
        # the sync function in a worker thread, in this run's context (what it invokes
        # are child runs); a runnable it returns runs here, async
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._call_whole, input, run.get_sync(), kwargs)
        output = await asyncio.get_running_loop().run_in_executor(None, call)
        if isinstance(output, Runnable):
            output = await output.ainvoke(input)
        return output

    def _stream_output(
        self, chunks: Iterator[Any], run: Any = None, kwargs: dict[str, Any] | None = None
    ) -> Iterator[Any]:
        # As LangChain: the whole input first (chunks added where they add, else the
        # latest), then one call; a generator function streams its items.
        total = _NOTHING
        for chunk in chunks:
            total = add_chunks(total, chunk)
        assert self.func is not None
        options = self._options(run, kwargs or {}, is_async=False)
        output = self.func(total, **options)
        if inspect.isgenerator(output):
            for item in output:
                if isinstance(item, Runnable):  # LangChain streams a yielded runnable too
                    yield from item.stream(total)
                else:
                    yield item
        elif isinstance(output, Runnable):
            yield from output.stream(total)  # a returned runnable streams as a child run
        else:
            yield output

    async def _astream_output(
        self, chunks: AsyncIterator[Any], run: Any = None, kwargs: dict[str, Any] | None = None
    ) -> AsyncIterator[Any]:
        total = _NOTHING
        async for chunk in chunks:
            total = add_chunks(total, chunk)
        assert self.afunc is not None
        options = self._options(run, kwargs or {}, is_async=True)
        output = self.afunc(total, **options)
        if inspect.isasyncgen(output):
            async for item in output:
                yield item
            return
        output = await output
        if isinstance(output, Runnable):
            async for item in output.astream(total):  # a returned runnable streams
                yield item
        else:
            yield output

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Yield the result (a generator function's items, a returned runnable's chunks)."""
        return self.transform(iter([input]), config, **kwargs)

    def transform(
        self,
        input: Iterator[Input],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Output]:
        """Collect the input stream, call the function once, stream what it gives."""
        if self.func is None:
            raise TypeError(f"{self.get_name()} wraps an async function; use astream")
        body = (
            functools.partial(self._stream_output, kwargs=kwargs) if kwargs else self._stream_output
        )
        return self._transform_stream_with_config(
            input, body, config, with_run_manager=self._func_takes_run_manager
        )

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async :meth:`stream` (an async generator function streams its items)."""

        async def one() -> AsyncIterator[Any]:
            yield input

        return self.atransform(one(), config, **kwargs)

    def atransform(
        self,
        input: AsyncIterator[Input],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Output]:
        """Async :meth:`transform`; a sync-only function runs in a worker thread."""
        if self.afunc is None:  # a streamed run too, as LangChain's: the result once
            return self._atransform_stream_with_config(
                input,
                functools.partial(self._astream_sync_output, kwargs=kwargs),
                config,
                with_run_manager=True,
            )
        body = (
            functools.partial(self._astream_output, kwargs=kwargs)
            if kwargs
            else self._astream_output
        )
        return self._atransform_stream_with_config(
            input, body, config, with_run_manager=self._afunc_takes_run_manager
        )

    async def _astream_sync_output(
        self, chunks: AsyncIterator[Any], run: Any, kwargs: dict[str, Any]
    ) -> AsyncIterator[Any]:
        # The whole input first, then the sync function once in a worker thread (in this
        # run's context: what it invokes are child runs); a generator function's items
        # come added up, and a returned runnable streams as a child run.
        total = _NOTHING
        async for chunk in chunks:
            total = add_chunks(total, chunk)
        if total is _NOTHING:
            return
        if inspect.isgeneratorfunction(self.func):
            # as LangChain's: a sync generator is not streamed from async code (ainvoke
            # still adds its items up in a worker thread)
            raise TypeError(
                f"{self.get_name()} is a sync generator function: it cannot be streamed "
                "asynchronously; use .stream(), or make it an async generator"
            )
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._call_whole, total, run.get_sync(), kwargs)
        output = await asyncio.get_running_loop().run_in_executor(None, call)
        if isinstance(output, Runnable):
            async for item in output.astream(total):
                yield item
        else:
            yield output

    def _call_whole(self, input: Any, run: Any, kwargs: dict[str, Any]) -> Any:
        # the sync function's result (a returned runnable is not run here)
        assert self.func is not None
        options = self._options(run, kwargs, is_async=False)
        output = self.func(input, **options) if options else self.func(input)
        if inspect.isgenerator(output):  # a generator function: its items, added up
            total = _NOTHING
            for chunk in output:
                total = add_chunks(total, chunk)
            output = None if total is _NOTHING else total
        return output


class RunnableGenerator(Runnable[Input, Output]):
    """Wrap a generator function that turns an input stream into an output stream.

    ``def f(chunks: Iterator[In]) -> Iterator[Out]`` (or an async generator over an
    async iterator). In a sequence it receives upstream chunks as they are produced,
    so it streams. Generator functions in ``|`` become one of these.

    Example:
        >>> def shout(chunks):
        ...     for chunk in chunks:
        ...         yield chunk.upper()
        >>> list(RunnableGenerator(shout).stream("ab"))
        ['AB']
        >>> RunnableGenerator(shout).invoke("ab")
        'AB'
    """

    _defers_inputs = True  # its streamed run's start says so, as LangChain's

    def __init__(
        self,
        transform: Callable[..., Any],
        atransform: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
    ) -> None:
        if inspect.isasyncgenfunction(transform):
            transform, atransform = None, transform  # type: ignore[assignment]
        self._transform_fn: Callable[..., Iterator[Any]] | None = transform
        self._atransform_fn = atransform
        # what the runs call: a function with a ``config`` parameter gets the run's config
        # (as LangChain's), decided once here so a plain generator costs nothing per call
        self._transform_call: Callable[..., Iterator[Any]] | None
        self._atransform_call: Callable[..., AsyncIterator[Any]] | None
        self._transform_call, self._transform_manager = _generator_call(transform)
        self._atransform_call, self._atransform_manager = _generator_call(atransform)
        self._gives_config = any(
            function is not None and _takes_config(function) for function in (transform, atransform)
        )
        named: Any = transform if transform is not None else atransform
        self.name = name or _function_name(named, "RunnableGenerator")

    def __repr__(self) -> str:
        return f"RunnableGenerator({self.get_name()})"

    @property
    def _takes_run_config(self) -> bool:  # type: ignore[override]
        return self._gives_config

    # LangChain's schemas: <name>_input / <name>_output, typed by what the iterators the
    # function takes and returns are annotated to hold (Iterator[int] -> integer)
    def _element_type(self, index: int) -> Any:
        function: Any = self._transform_fn or self._atransform_fn
        # the annotations as written: a postponed one (a string) is not resolved, as
        # LangChain reads them
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            return Any
        parameters = list(signature.parameters.values())
        if index == 0:
            annotation = parameters[0].annotation if parameters else Any
        else:
            annotation = signature.return_annotation
        args = typing.get_args(annotation)
        origin = getattr(typing.get_origin(annotation), "__name__", "")
        if args and origin in _ITERATOR_NAMES:
            return args[0]
        return Any

    @property
    def InputType(self) -> Any:
        """What the input iterator holds (``Any`` unless annotated)."""
        return self._element_type(0)

    @property
    def OutputType(self) -> Any:
        """What the output iterator holds (``Any`` unless annotated)."""
        return self._element_type(1)

    def _input_title(self) -> str:
        return f"{self.get_name()}_input"

    def _output_title(self) -> str:
        return f"{self.get_name()}_output"

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Feed the input chunks to the generator function as they come."""
        self._reject_kwargs(kwargs)
        if self._transform_call is None:
            raise self._async_only()
        return self._transform_stream_with_config(
            input, self._transform_call, config, with_run_manager=self._transform_manager
        )

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the generator's output for one input."""
        self._reject_kwargs(kwargs)
        if self._transform_call is None:
            raise self._async_only()
        return self._transform_stream_with_config(
            iter([input]), self._transform_call, config, with_run_manager=self._transform_manager
        )

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Return all output chunks combined (``+``)."""
        total = _NOTHING
        for chunk in self.stream(input, config, **kwargs):
            total = add_chunks(total, chunk)
        return None if total is _NOTHING else total  # type: ignore[return-value]

    def _async_only(self) -> NotImplementedError:
        # as LangChain's: an async generator function has no sync path
        return NotImplementedError(
            f"{self!r} wraps an async generator function: use ainvoke/astream/abatch, or "
            "pass a sync generator function (transform=...) for the sync methods"
        )

    def _sync_only(self) -> NotImplementedError:
        # as LangChain's: a generator over a sync iterator has no async path (running it
        # on the whole input at once would not be the stream the sync path gives)
        return NotImplementedError(
            f"{self!r} wraps a sync generator function: use invoke/stream/batch, or pass "
            "an async generator function (atransform=...) for the async methods"
        )

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Feed async input chunks to the async generator function."""
        self._reject_kwargs(kwargs)
        if self._atransform_call is None:
            return self._araise(self._sync_only())
        return self._atransform_stream_with_config(
            input, self._atransform_call, config, with_run_manager=self._atransform_manager
        )

    @staticmethod
    async def _araise(error: Exception) -> AsyncIterator[Any]:
        raise error
        yield  # pragma: no cover - makes this an async generator that raises when iterated

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``."""
        self._reject_kwargs(kwargs)
        atransform = self._atransform_call
        if atransform is None:
            return self._araise(self._sync_only())

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(
            one(), atransform, config, with_run_manager=self._atransform_manager
        )

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Return all async output chunks combined."""
        if self._atransform_fn is None:
            raise self._sync_only()
        total = _NOTHING
        async for chunk in self.astream(input, config, **kwargs):
            total = add_chunks(total, chunk)
        return None if total is _NOTHING else total  # type: ignore[return-value]


def _generator_call(function: Callable[..., Any] | None) -> tuple[Any, bool]:
    """How a run calls ``function`` (a generator over chunks), decided once: a function
    with a ``config`` parameter also gets the config current when it is called (the
    generator run's own), one with ``run_manager`` the run's manager, as LangChain passes
    them. Returns the callable and whether it takes the run manager after the chunks."""
    if function is None:
        return None, False
    takes_config = _takes_config(function)
    if _takes(function, "run_manager"):

        def with_manager(chunks: Any, run: Any) -> Any:
            if takes_config:
                return function(chunks, run_manager=run, config=get_current_config())
            return function(chunks, run_manager=run)

        return with_manager, True
    if takes_config:

        def with_config(chunks: Any) -> Any:
            return function(chunks, config=get_current_config())

        return with_config, False
    return function, False


def chain(func: Callable[..., Any]) -> Runnable[Any, Any]:
    """Decorator: make a function a runnable named after it.

    Example:
        >>> @chain
        ... def shout(text):
        ...     return text.upper()
        >>> shout.invoke("hi"), shout.get_name()
        ('HI', 'shout')
    """
    # a generator function too, as LangChain's: a RunnableLambda that streams its items
    return RunnableLambda(func)

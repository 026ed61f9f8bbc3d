"""Tools that call a Python function: ``StructuredTool`` (keyword arguments, checked
against the function's schema) and ``Tool`` (one string input), sharing how the function
is called.

They live in ``ragline.core`` so that ``Runnable.as_tool`` can return them, as LangChain's
returns its ``StructuredTool`` / ``Tool``; :mod:`ragline.tools` exports them.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Awaitable, Callable
from typing import Any

from ragline.core.config import get_current_config
from ragline.core.exceptions import InvalidInputError, ToolValidationError
from ragline.core.tools._base import BaseTool, config_parameter, sync_run_manager
from ragline.core.tools._schema import ArgsSchema, parse_google_docstring, tool_validation_error

__all__ = ["StructuredTool", "Tool"]


def _wanted_extras(function: Callable[..., Any] | None) -> tuple[bool, bool, str | None]:
    """Whether ``function`` takes ``callbacks``, ``run_manager``, and the name of a
    parameter annotated ``RunnableConfig`` (read once, when the tool is made)."""
    if function is None:
        return False, False, None
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False, False, None
    return "callbacks" in parameters, "run_manager" in parameters, config_parameter(function)


class _FunctionTool(BaseTool):
    """What both function tools share: ``func`` / ``coroutine`` and how they are called.

    A function that declares ``callbacks`` receives a manager whose runs are children of
    the tool run, one that declares ``run_manager`` the tool run's manager, and a
    parameter annotated ``RunnableConfig`` the config of the call.
    """

    func: Callable[..., Any] | None = None
    coroutine: Callable[..., Awaitable[Any]] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.func is None and self.coroutine is None:
            raise InvalidInputError(f"tool {self.name!r} needs a func or a coroutine")
        for label, function in (("func", self.func), ("coroutine", self.coroutine)):
            if function is not None and not callable(function):
                raise InvalidInputError(f"tool {self.name!r}: {label} must be callable")
        self._extras = _wanted_extras(self.func)
        self._async_extras = _wanted_extras(self.coroutine)

    def _extra_arguments(
        self, wanted: tuple[bool, bool, str | None], run_manager: Any
    ) -> dict[str, Any]:
        takes_callbacks, takes_run_manager, config_name = wanted
        extra: dict[str, Any] = {}
        if takes_callbacks:
            extra["callbacks"] = run_manager.get_child() if run_manager is not None else None
        if takes_run_manager:
            extra["run_manager"] = run_manager
        if config_name is not None:
            extra[config_name] = get_current_config()
        return extra

    def _run(self, *args: Any, run_manager: Any = None, **kwargs: Any) -> Any:
        if self.func is None:
            raise NotImplementedError(
                f"tool {self.name!r} has only an async function (coroutine=); call it with "
                "ainvoke() or arun()"
            )
        return self.func(*args, **kwargs, **self._extra_arguments(self._extras, run_manager))

    async def _arun(self, *args: Any, run_manager: Any = None, **kwargs: Any) -> Any:
        if self.coroutine is None:  # the sync function in a worker thread
            sync = sync_run_manager(run_manager)
            return await super()._arun(*args, run_manager=sync, **kwargs)
        extra = self._extra_arguments(self._async_extras, run_manager)
        return await self.coroutine(*args, **kwargs, **extra)

    @property
    def _takes_run_config(self) -> bool:  # type: ignore[override]
        # the function reads the call's config: it may read configurable ids of its own
        return self._extras[2] is not None or self._async_extras[2] is not None

    def _skipped(self) -> tuple[str, ...]:
        config_name = (self._extras if self.func is not None else self._async_extras)[2]
        return (config_name,) if config_name else ()

    def _string_positional(self, tool_input: str) -> tuple[Any, ...]:
        # the wrapped function's signature, not _run's (which takes *args for every
        # function): a function without arguments gets nothing from a string input, as
        # LangChain's tool, so tool.run("") calls it; one taking only **kwargs refuses
        # the string, as LangChain's does (its kwargs argument must be a dict)
        function = self.func if self.func is not None else self.coroutine
        try:
            kinds = {p.kind for p in inspect.signature(function).parameters.values()}  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return (tool_input,)  # unknown: the string goes to it, as before
        if inspect.Parameter.VAR_POSITIONAL in kinds:
            return (tool_input,)
        if inspect.Parameter.VAR_KEYWORD in kinds:
            raise tool_validation_error(
                f"tool {self.name!r} takes keyword arguments, not a str: pass a dict "
                f"(got {tool_input!r:.60})",
                tool=self.name,
                errors=[("", "expected a dict of arguments, got a str")],
                args=tool_input,
            )
        return ()


class StructuredTool(_FunctionTool):
    """A tool that calls a function with keyword arguments, checked against its schema.

    Make one with :meth:`from_function` (or the ``@tool`` decorator); the schema is read
    from the function's signature, type hints and docstring unless ``args_schema`` is
    given.

    Example:
        >>> def multiply(a: int, b: int) -> int:
        ...     '''Multiply two integers.'''
        ...     return a * b
        >>> calculator = StructuredTool.from_function(multiply)
        >>> calculator.invoke({"a": 6, "b": "7"}), calculator.description
        (42, 'Multiply two integers.')
    """

    parse_docstring: bool = False
    error_on_invalid_docstring: bool = False
    _not_shown = ("parse_docstring", "error_on_invalid_docstring")  # from_function's options

    def _schema_from_hook(self) -> ArgsSchema:
        function = self.func if self.func is not None else self.coroutine
        return ArgsSchema.from_function(
            function,  # type: ignore[arg-type]
            name=self.name,
            parse_docstring=self.parse_docstring,
            error_on_invalid_docstring=self.error_on_invalid_docstring,
            skip=self._skipped(),
        )

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any] | None = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        args_schema: Any = None,
        infer_schema: bool = True,
        *,
        response_format: str = "content",
        parse_docstring: bool = False,
        error_on_invalid_docstring: bool = False,
        **kwargs: Any,
    ) -> StructuredTool:
        """Make a tool from a sync function, an async one, or both.

        Args:
            func: the function (sync); ``coroutine``: an ``async def`` for ``ainvoke``.
            name: default: the function's name.
            description: default: the docstring (its summary with ``parse_docstring``),
                else the ``args_schema``'s docstring.
            return_direct: an agent returns this tool's output as its answer.
            args_schema: a pydantic model class, a JSON Schema dict or an ArgsSchema
                (default: read from the function).
            infer_schema: ``False``: take any keyword arguments unchecked.
            response_format: ``"content"`` or ``"content_and_artifact"``.
            parse_docstring: describe the arguments from a Google-style ``Args:`` section.
            error_on_invalid_docstring: with ``parse_docstring``, refuse a docstring that
                does not describe the arguments.
            **kwargs: other tool fields (``handle_tool_error``, ``callbacks`` ...).

        Raises:
            InvalidInputError: no function, or no description anywhere.
        """
        source = func if func is not None else coroutine
        if source is None:
            raise InvalidInputError("StructuredTool.from_function needs a func or a coroutine")
        tool_name = name or getattr(source, "__name__", None)
        if not tool_name or tool_name == "<lambda>":
            raise InvalidInputError(
                f"cannot name a tool after {source!r}; pass name=... (lambdas have no name)"
            )
        if args_schema is None and not infer_schema:
            args_schema = ArgsSchema(name=tool_name, properties={}, additional_properties=True)
        elif args_schema is None:  # read now, as LangChain does: tool.args_schema is there
            config_name = _wanted_extras(source)[2]
            args_schema = ArgsSchema.from_function(
                source,
                name=tool_name,
                parse_docstring=parse_docstring,
                error_on_invalid_docstring=error_on_invalid_docstring,
                skip=(config_name,) if config_name else (),
            )
        text = description
        if text is None and parse_docstring:  # the summary of the function's docstring
            text = parse_google_docstring(inspect.getdoc(source), [], strict=False)[0]
        if text is None:
            text = docstring_description(source)
        if text is None and args_schema is not None:
            text = ArgsSchema.coerce(args_schema, name=tool_name).description or None
        if text is None:
            raise InvalidInputError(
                f"tool {tool_name!r} has no description: give the function a docstring or "
                "pass description=..."
            )
        return cls(
            name=tool_name,
            description=text.strip(),  # whichever source gave it, as LangChain's
            func=func,
            coroutine=coroutine,
            return_direct=return_direct,
            args_schema=args_schema,
            response_format=response_format,
            parse_docstring=parse_docstring,
            error_on_invalid_docstring=error_on_invalid_docstring,
            **kwargs,
        )


_SINGLE_INPUT = {"__arg1": {"type": "string"}}


class Tool(_FunctionTool):
    """A tool with one string input (what ReAct agents call): ``func(text)``.

    Args:
        name: the tool's name.
        func: the function, called with the input string.
        description: what the tool does.
        coroutine: an async function for ``ainvoke``.
        **kwargs: other tool fields (``return_direct``, ``handle_tool_error`` ...).

    Example:
        >>> shout = Tool("shout", lambda text: text.upper(), "Shout the text.")
        >>> shout.run("hi"), shout.invoke({"__arg1": "hey"})
        ('HI', 'HEY')
    """

    def __init__(
        self,
        name: str,
        func: Callable[..., Any] | None = None,
        description: str = "",
        *,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, func=func, description=description, coroutine=coroutine,
                         **kwargs)  # fmt: skip

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any] | None,
        name: str,
        description: str,
        return_direct: bool = False,
        args_schema: Any = None,
        coroutine: Callable[..., Awaitable[Any]] | None = None,
        **kwargs: Any,
    ) -> Tool:
        """Make a single-input tool (LangChain's argument order)."""
        return cls(name, func, description, return_direct=return_direct, args_schema=args_schema,
                   coroutine=coroutine, **kwargs)  # fmt: skip

    def _schema_from_hook(self) -> ArgsSchema:
        return ArgsSchema(name=self.name, properties=dict(_SINGLE_INPUT), required=["__arg1"])

    @property
    def args(self) -> dict[str, dict[str, Any]]:
        """``{"tool_input": {"type": "string"}}`` (one string), unless ``args_schema`` says."""
        if self.args_schema is not None:
            return super().args
        return {"tool_input": {"type": "string"}}

    def _to_args_and_kwargs(self, tool_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if isinstance(tool_input, str):
            return (tool_input,), {}
        if isinstance(tool_input, dict):
            if self.args_schema is not None:
                tool_input = self.get_input_schema().validate(tool_input, tool=self.name)
            if len(tool_input) == 1:
                return (next(iter(tool_input.values())),), {}
            raise ToolValidationError(
                f"tool {self.name!r} takes one input, got {len(tool_input)} arguments "
                f"({', '.join(map(str, tool_input))}); use a StructuredTool for several",
                tool=self.name,
                errors=[("", f"expected one argument, got {len(tool_input)}")],
            )
        return super()._to_args_and_kwargs(tool_input)


def docstring_description(function: Any) -> str | None:
    """A tool's description from its function's docstring, as LangChain writes it: the
    docstring dedented as a whole, then stripped (a summary on the line of the quotes
    keeps the indentation of the lines below it). ``None`` without a docstring."""
    raw = getattr(function, "__doc__", None)
    if not isinstance(raw, str):
        return inspect.getdoc(function)
    return textwrap.dedent(raw).strip() or None

"""``@tool``: make a tool from a function, the way LangChain's decorator does."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ragline.core import BaseTool, InvalidInputError
from ragline.core.tools._function import StructuredTool, Tool, docstring_description

__all__ = ["tool"]


def tool(
    name_or_callable: str | Callable[..., Any] | None = None,
    runnable: Callable[..., Any] | None = None,
    /,
    *,
    description: str | None = None,
    return_direct: bool = False,
    args_schema: Any = None,
    infer_schema: bool = True,
    response_format: str = "content",
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = True,
) -> Any:
    """Make a tool from a function: ``@tool``, ``@tool("name")``, ``@tool(return_direct=True)``
    or ``tool("name", function)``.

    The schema comes from the function's signature and type hints (``Annotated[int,
    "text"]`` describes an argument), the description from its docstring. An ``async
    def`` becomes the tool's coroutine (call it with ``ainvoke``).

    Args:
        name_or_callable: the function, or the tool's name (default: the function's).
        runnable: with a name first, the function (``tool("name", function)``).
        description: default: the docstring (its summary with ``parse_docstring``).
        return_direct: an agent returns this tool's output as its answer.
        args_schema: a pydantic model class, a JSON Schema dict or an ArgsSchema.
        infer_schema: ``False`` makes a single-input :class:`Tool` (``func(text)``).
        response_format: ``"content"`` or ``"content_and_artifact"``.
        parse_docstring: describe the arguments from a Google-style ``Args:`` section.
        error_on_invalid_docstring: with ``parse_docstring``, refuse a docstring that
            does not describe the arguments.

    Returns:
        A :class:`StructuredTool` (a :class:`Tool` with ``infer_schema=False``), or a
        decorator that makes one.

    Raises:
        InvalidInputError: no description anywhere, or something that is not a function.

    Example:
        >>> @tool
        ... def add(a: int, b: int) -> int:
        ...     '''Adds a and b.'''
        ...     return a + b
        >>> add.invoke({"a": 2, "b": 3}), add.name, add.description
        (5, 'add', 'Adds a and b.')
        >>> @tool("lookup", return_direct=True)
        ... def find(query: str) -> str:
        ...     '''Find a thing.'''
        ...     return query
        >>> find.name, find.return_direct, find.invoke("x")
        ('lookup', True, 'x')
    """
    options = {
        "description": description,
        "return_direct": return_direct,
        "args_schema": args_schema,
        "infer_schema": infer_schema,
        "response_format": response_format,
        "parse_docstring": parse_docstring,
        "error_on_invalid_docstring": error_on_invalid_docstring,
    }
    if isinstance(name_or_callable, str):
        if runnable is not None:
            return _make(runnable, name_or_callable, options)
        name = name_or_callable
        return lambda function: _make(function, name, options)
    if name_or_callable is None:
        return lambda function: _make(function, None, options)
    return _make(name_or_callable, None, options)


def _make(function: Any, name: str | None, options: dict[str, Any]) -> BaseTool:
    if isinstance(function, BaseTool) or not callable(function) or isinstance(function, type):
        raise InvalidInputError(f"@tool decorates a function, got {function!r:.80}")
    is_async = inspect.iscoroutinefunction(function)
    if not options["infer_schema"]:
        text = options["description"] or docstring_description(function)
        if not text:
            raise InvalidInputError(
                f"tool {name or function.__name__!r} has no description: give the function a "
                "docstring or pass description=..."
            )
        return Tool(
            name or function.__name__,
            None if is_async else function,
            text,
            coroutine=function if is_async else None,
            return_direct=options["return_direct"],
            args_schema=options["args_schema"],
            response_format=options["response_format"],
        )
    return StructuredTool.from_function(
        func=None if is_async else function,
        coroutine=function if is_async else None,
        name=name,
        description=options["description"],
        return_direct=options["return_direct"],
        args_schema=options["args_schema"],
        response_format=options["response_format"],
        parse_docstring=options["parse_docstring"],
        error_on_invalid_docstring=options["error_on_invalid_docstring"],
    )

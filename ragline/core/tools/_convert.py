"""``convert_to_openai_function`` / ``convert_to_openai_tool``: describe a tool to a model.

Accepted: a :class:`BaseTool`, a Python function (name, docstring and typed parameters;
a Google-style ``Args:`` section describes the parameters), a pydantic model class (its
``Field`` descriptions kept), a TypedDict, or a dict (an OpenAI tool, a bare function
spec ``{"name", "description", "parameters"}``, or a JSON Schema with a ``title``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.tools._base import BaseTool
from ragline.core.tools._schema import ArgsSchema
from ragline.core.tools._validate import is_pydantic_model, is_typeddict

__all__ = ["convert_to_openai_function", "convert_to_openai_tool"]


def convert_to_openai_function(
    function: Mapping[str, Any] | type | Callable[..., Any] | BaseTool,
    *,
    strict: bool | None = None,
) -> dict[str, Any]:
    """Describe ``function`` as OpenAI's ``{"name", "description", "parameters"}``.

    Args:
        function: a tool, a function, a pydantic model class, a TypedDict or a dict.
        strict: add ``"strict"`` (OpenAI's structured-outputs switch); when True, every
            object schema also gets ``"additionalProperties": false``.

    Raises:
        InvalidInputError: ``function`` is none of the accepted kinds.

    Example:
        >>> def multiply(a: int, b: int) -> int:
        ...     '''Multiply two integers.'''
        ...     return a * b
        >>> convert_to_openai_function(multiply)["parameters"]
        {'properties': {'a': {'type': 'integer'}, 'b': {'type': 'integer'}}, 'required': ['a', 'b'], 'type': 'object'}
    """  # noqa: E501
    spec = _function_spec(function)
    if strict is not None:
        spec["strict"] = strict
        if strict:
            spec["parameters"] = _closed(spec["parameters"])
    return spec


def convert_to_openai_tool(
    tool: Mapping[str, Any] | type | Callable[..., Any] | BaseTool,
    *,
    strict: bool | None = None,
) -> dict[str, Any]:
    """Describe ``tool`` as an OpenAI tool: ``{"type": "function", "function": {...}}``.

    A dict that already is an OpenAI tool (or any tool with a ``"type"`` other than
    ``"function"``, such as a provider's built-in tool) is returned unchanged.

    Raises:
        InvalidInputError: ``tool`` is none of the accepted kinds.

    Example:
        >>> convert_to_openai_tool({"name": "noop", "parameters": {"type": "object",
        ...                         "properties": {}}})["type"]
        'function'
    """
    # {"type": "object", ...} is a JSON Schema to describe, not a provider's built-in tool
    if isinstance(tool, Mapping) and tool.get("type") not in (None, "function", "object"):
        return dict(tool)
    if isinstance(tool, Mapping) and tool.get("type") == "function" and "function" in tool:
        return dict(tool)
    return {"type": "function", "function": convert_to_openai_function(tool, strict=strict)}


def _function_spec(function: Any) -> dict[str, Any]:
    if isinstance(function, BaseTool):
        schema = function.tool_call_schema
        return _spec(function.name, function.description, schema.json_schema())
    if isinstance(function, Mapping):
        return _spec_from_dict(function)
    if is_pydantic_model(function) or (isinstance(function, type) and is_typeddict(function)):
        schema = (
            ArgsSchema.from_model(function)
            if is_pydantic_model(function)
            else _typeddict_schema(function)
        )
        return _spec(schema.name, schema.description, schema.json_schema())
    if callable(function) and not isinstance(function, type):
        name = getattr(function, "__name__", None)
        if not name or name == "<lambda>":
            raise InvalidInputError(
                f"cannot describe {function!r} as a tool: it has no name; use a def function "
                "or @tool(name=...)"
            )
        schema = ArgsSchema.from_function(function, parse_docstring=True,
                                          error_on_invalid_docstring=False)  # fmt: skip
        return _spec(name, schema.description, schema.json_schema())
    raise InvalidInputError(
        f"cannot describe {function!r:.80} as a tool; pass a tool, a function, a pydantic "
        "model class, a TypedDict or a dict"
    )


def _spec(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": parameters}


def _spec_from_dict(function: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(function.get("name"), str) and "input_schema" in function:  # Anthropic's
        return _spec(function["name"], function.get("description", ""), function["input_schema"])
    if isinstance(function.get("name"), str):
        spec = dict(function)
        spec.setdefault("parameters", {"properties": {}, "type": "object"})
        return spec
    if isinstance(function.get("title"), str):  # a JSON Schema
        schema = ArgsSchema.from_json_schema(function)
        return _spec(schema.name, schema.description, schema.json_schema())
    raise InvalidInputError(
        f"a tool dict needs a 'name' (or is a JSON Schema with a 'title'), got "
        f"{dict(function)!r:.100}"
    )


def _typeddict_schema(cls: type) -> ArgsSchema:
    from ragline.core.tools._schema import _class_schema

    schema = _class_schema(cls)
    return ArgsSchema(
        name=cls.__name__,
        properties=schema["properties"],
        required=schema["required"],
        description=schema.get("description", ""),
    )


def _closed(schema: Any) -> Any:
    """Strict mode: every object schema lists all its properties as ``required`` (OpenAI's
    structured outputs accept no optional field; an optional one is a union with null)
    and gets ``additionalProperties: false``, as LangChain writes it."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    properties = closed.get("properties")
    if closed.get("type", "object") == "object" and isinstance(properties, dict):
        if properties:
            closed["required"] = list(properties)
        closed["additionalProperties"] = False
    return closed

"""``convert_to_openai_function`` / ``convert_to_openai_tool``: describe a tool to a model.

Accepted: a :class:`BaseTool`, a Python function (name, docstring and typed parameters;
a Google-style ``Args:`` section describes the parameters), a pydantic model class (its
``Field`` descriptions kept), a TypedDict, or a dict (an OpenAI tool, a bare function
spec ``{"name", "description", "parameters"}``, or a JSON Schema with a ``title``).
"""

from __future__ import annotations

import inspect
import types
import typing
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from ragline.core.tools._base import BaseTool
from ragline.core.tools._schema import ArgsSchema, _plain_schema, parse_google_docstring
from ragline.core.tools._validate import is_pydantic_model, is_typeddict

__all__ = [
    "convert_pydantic_to_openai_function",
    "convert_pydantic_to_openai_tool",
    "convert_to_openai_function",
    "convert_to_openai_tool",
    "tool_example_to_messages",
]


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
        if strict and "parameters" in spec:
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


# LangChain's older names (``langchain.utils.openai_functions``,
# ``langchain_community.utils.openai_functions``): the same two functions under them
convert_pydantic_to_openai_function = convert_to_openai_function
convert_pydantic_to_openai_tool = convert_to_openai_tool


def _function_spec(function: Any) -> dict[str, Any]:
    if isinstance(function, BaseTool):
        schema = function.tool_call_schema
        return _spec(function.name, function.description, schema.json_schema())
    if isinstance(function, Mapping):
        return _spec_from_dict(function)
    if isinstance(function, type) and is_typeddict(function):
        description, parameters = _typeddict_object(function)
        return _spec(function.__name__, description, parameters)
    if is_pydantic_model(function):
        schema = ArgsSchema.from_model(function)
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
    if isinstance(function.get("title"), str):
        # a JSON Schema, sent as LangChain sends it: as written, its title the name, its
        # description (if any) the description, the rest the parameters (if it has
        # properties)
        rest = dict(function)
        spec = {"name": rest.pop("title")}
        if "description" in rest:
            spec["description"] = rest.pop("description")
        if rest and "properties" in rest:
            spec["parameters"] = rest
        return spec
    raise InvalidInputError(
        f"a tool dict needs a 'name' (or is a JSON Schema with a 'title'), got "
        f"{dict(function)!r:.100}"
    )


# A TypedDict is described as LangChain describes one: through a pydantic-v1 model built
# from it. So its keys come in v1's order (``type``, ``properties``, ``required``; a
# field's ``description`` and ``default`` before its type), ``Annotated[T, default,
# "text"]`` gives a default (the field then not required) and a description, an ``Args:``
# block of the docstring describes the fields, and ``Optional[T]`` is described as ``T``.
# Unlike LangChain, a TypedDict without a docstring of its own is not described by dict's.
_V1_SIMPLE_TYPES = {int: "integer", str: "string", float: "number", bool: "boolean"}
_V1_BARE_TYPES: dict[Any, dict[str, Any]] = {
    list: {"type": "array", "items": {}},
    tuple: {"type": "array", "items": {}},
    set: {"type": "array", "items": {}, "uniqueItems": True},
    dict: {"type": "object"},
}


def _typeddict_object(cls: type) -> tuple[str, dict[str, Any]]:
    """``(description, JSON Schema)`` of a TypedDict, in pydantic v1's shape."""
    hints = typing.get_type_hints(cls, include_extras=True)
    doc = inspect.getdoc(cls) if cls.__doc__ else None
    description, documented = parse_google_docstring(doc, list(hints), strict=False)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, hint in hints.items():
        default: Any = ...
        text = None
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            if extras:
                default = extras[0]
            if len(extras) > 1 and isinstance(extras[1], str):
                text = extras[1]
        text = documented.get(name) or text
        prop: dict[str, Any] = {"description": text} if text else {}
        if default is not ... and default is not None:  # v1 leaves a None default out
            prop["default"] = default
        prop.update(_v1_type_schema(hint))
        properties[name] = prop
        if default is ...:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return description, schema


def _v1_type_schema(hint: Any) -> dict[str, Any]:
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if hint in _V1_SIMPLE_TYPES:
        return {"type": _V1_SIMPLE_TYPES[hint]}
    if hint in _V1_BARE_TYPES:  # v1's key order; a bare dict has no additionalProperties
        return {key: dict(value) if isinstance(value, dict) else value
                for key, value in _V1_BARE_TYPES[hint].items()}  # fmt: skip
    if origin is typing.Union or origin is types.UnionType:
        members = [member for member in arguments if member is not type(None)]
        if len(members) == 1:
            return _v1_type_schema(members[0])
        return {"anyOf": [_v1_type_schema(member) for member in members]}
    if origin in (list, Sequence):
        return {"type": "array", "items": _v1_type_schema(arguments[0]) if arguments else {}}
    if origin is dict and len(arguments) == 2:
        return {"type": "object", "additionalProperties": _v1_type_schema(arguments[1])}
    if isinstance(hint, type) and is_typeddict(hint):
        description, schema = _typeddict_object(hint)
        return {"description": description, **schema} if description else schema
    return _plain_schema(hint)


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


# ragline's own words for the tool results of an example (pass tool_outputs to choose)
_EXAMPLE_TOOL_OUTPUT = "Tool call recorded."


def tool_example_to_messages(
    input: str,
    tool_calls: list[Any],
    tool_outputs: list[str] | None = None,
    *,
    ai_response: str | None = None,
) -> list[BaseMessage]:
    """One few-shot extraction example as the messages a tool-calling model would see:
    the input, the model's tool calls (one per pydantic object, named after its class),
    a tool result for each, and an optional closing reply.

    The AI message carries the calls twice, as LangChain's does: as ``tool_calls`` and
    in OpenAI's form under ``additional_kwargs["tool_calls"]`` (arguments as the model's
    compact JSON). Each call gets a new id.

    Args:
        input: the example's user text.
        tool_calls: pydantic objects, the values the model should extract.
        tool_outputs: one result text per call (default: ragline's short note for each;
            LangChain's default wording differs).
        ai_response: a final AI message's text, if any.

    Raises:
        InvalidInputError: ``tool_outputs`` and ``tool_calls`` differ in length, or a
            call is not a pydantic object.

    Example:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     name: str
        >>> messages = tool_example_to_messages("Ann is here", [Person(name="Ann")])
        >>> [type(m).__name__ for m in messages], messages[1].tool_calls[0]["args"]
        (['HumanMessage', 'AIMessage', 'ToolMessage'], {'name': 'Ann'})
    """
    if not all(is_pydantic_model(type(call)) for call in tool_calls):
        raise InvalidInputError("tool_calls must be pydantic objects (model instances)")
    outputs = [_EXAMPLE_TOOL_OUTPUT] * len(tool_calls) if tool_outputs is None else tool_outputs
    if len(outputs) != len(tool_calls):
        raise InvalidInputError(
            f"{len(outputs)} tool_outputs for {len(tool_calls)} tool_calls: give one per call"
        )
    ids = [str(uuid.uuid4()) for _ in tool_calls]
    openai_calls = [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": type(call).__name__, "arguments": call.model_dump_json()},
        }
        for call_id, call in zip(ids, tool_calls, strict=True)
    ]
    calls = [
        {"name": type(call).__name__, "args": call.model_dump(), "id": call_id}
        for call_id, call in zip(ids, tool_calls, strict=True)
    ]
    messages: list[BaseMessage] = [
        HumanMessage(input),
        AIMessage("", additional_kwargs={"tool_calls": openai_calls}, tool_calls=calls),  # type: ignore[arg-type]
    ]
    messages += [
        ToolMessage(output, tool_call_id=call_id)
        for output, call_id in zip(outputs, ids, strict=True)
    ]
    if ai_response:
        messages.append(AIMessage(ai_response))
    return messages

"""Python types as JSON Schema, without pydantic (pydantic models are asked for theirs).

Used for runnables' ``input_schema`` / ``output_schema`` / ``config_schema`` and for
structured output (a TypedDict or a dataclass as the schema a model must fill).

Supported: ``Any``, ``None``, ``str``, ``int``, ``float``, ``bool``, ``bytes``, lists /
tuples / sets and ``Sequence[X]``, dicts and ``Mapping[str, X]``, ``Optional`` / unions,
``Literal``, ``Enum``, ``TypedDict`` (``Annotated[type, default or ..., "description"]``
fields as LangChain reads them), dataclasses, pydantic models (``model_json_schema()``,
or ``schema()`` for pydantic v1) and ragline's ``Document``, messages and prompt values
(as ``$defs`` entries). Anything else is ``{}`` (no constraint).

Example:
    >>> from typing import TypedDict
    >>> class Joke(TypedDict):
    ...     '''A joke to tell.'''
    ...     setup: str
    ...     rating: int | None
    >>> json_schema_of(Joke)["properties"]["rating"]
    {'anyOf': [{'type': 'integer'}, {'type': 'null'}], 'title': 'Rating'}
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import types
import typing
from typing import Any

__all__ = [
    "any_message_schema",
    "field_title",
    "is_model_def",
    "is_typed_dict",
    "json_schema_of",
    "language_model_input_schema",
    "messages_schema",
    "typed_dict_schema",
]

_SCALARS: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    bytes: "string",
    type(None): "null",
}
_ARRAYS = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Iterable)
_OBJECTS = (dict, collections.abc.Mapping)


def field_title(name: str) -> str:
    """LangChain's (pydantic's) title for a field: ``"session_id"`` -> ``"Session Id"``."""
    return " ".join(part.capitalize() for part in name.split("_") if part) or name


def is_typed_dict(value: Any) -> bool:
    """Whether ``value`` is a TypedDict class."""
    return isinstance(value, type) and issubclass(value, dict) and hasattr(value, "__total__")


def _is_pydantic(value: Any) -> bool:
    return (
        isinstance(value, type)
        and (hasattr(value, "model_json_schema") or hasattr(value, "__fields__"))
        and hasattr(value, "__mro__")
        and any(c.__name__ == "BaseModel" for c in value.__mro__)
    )


def _is_schema_class(value: Any) -> bool:
    """Whether ``value`` is a runnable's schema class (``chain.input_schema``), which
    answers ``model_json_schema()`` as a pydantic model does."""
    from ragline.core.runnables.schema import Schema

    return isinstance(value, type) and issubclass(value, Schema)


def json_schema_of(annotation: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """JSON Schema of a Python type (see the module docstring).

    Args:
        annotation: the type.
        defs: where named definitions (``Document``, messages) are collected; when
            given, those types become ``{"$ref": "#/$defs/Name"}``, else they are inlined.
    """
    own: dict[str, Any] = {} if defs is None else defs
    schema = _schema(annotation, own)
    if defs is None and own:
        schema = {**schema, "$defs": own}
    return schema


def _schema(annotation: Any, defs: dict[str, Any]) -> dict[str, Any]:
    if annotation is Any or annotation is inspect.Parameter.empty or annotation is None:
        return {} if annotation is not None else {"type": "null"}
    if isinstance(annotation, (typing.ForwardRef, str)):
        return {}
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = _schema(arguments[0], defs)
        descriptions = [a for a in arguments[1:] if isinstance(a, str)]
        return {**schema, "description": descriptions[-1]} if descriptions else schema
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_schema(member, defs) for member in arguments]}
    if origin is typing.Literal:
        values = list(arguments)
        kinds = {_SCALARS.get(type(v)) for v in values}
        schema = {"enum": values}
        return {**schema, "type": kinds.pop()} if len(kinds) == 1 and None not in kinds else schema
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if origin in _ARRAYS or annotation in _ARRAYS:
        schema = {"type": "array"}
        if origin is tuple and arguments and arguments[-1] is not Ellipsis:
            schema["prefixItems"] = [_schema(a, defs) for a in arguments]
        else:  # a bare list or list[Any]: any items, as pydantic says ("items": {})
            schema["items"] = _schema(arguments[0], defs) if arguments else {}
        if (origin or annotation) in (set, frozenset):
            schema["uniqueItems"] = True
        return schema
    if origin in _OBJECTS or annotation in _OBJECTS:
        schema = {"type": "object"}
        if len(arguments) == 2 and arguments[1] is not Any:
            schema["additionalProperties"] = _schema(arguments[1], defs)
        else:  # a bare dict or dict[str, Any]: any keys, as pydantic says
            schema["additionalProperties"] = True
        return schema
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [member.value for member in annotation]
        return {"title": annotation.__name__, "enum": values}
    if is_typed_dict(annotation):
        return typed_dict_schema(annotation, defs)
    if _is_pydantic(annotation) or _is_schema_class(annotation):
        return _pydantic_schema(annotation)
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        named = _named(annotation, defs)
        if named is not None:
            return named
        return _dataclass_schema(annotation, defs)
    named = _named(annotation, defs)
    return named if named is not None else {}


def _pydantic_schema(model: Any) -> dict[str, Any]:
    if hasattr(model, "model_json_schema"):
        return dict(model.model_json_schema())
    return dict(model.schema())  # pydantic v1


def typed_dict_schema(typed: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """A TypedDict as an object schema: its docstring the description, ``Annotated``
    extras read as LangChain does (``Annotated[int, 3, "desc"]``: default 3;
    ``Annotated[str, ..., "desc"]``: required)."""
    defs = {} if defs is None else defs
    hints = typing.get_type_hints(typed, include_extras=True)
    required_keys = getattr(typed, "__required_keys__", frozenset(hints))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, hint in hints.items():
        schema = {**_schema(hint, defs), "title": field_title(name)}
        is_required = name in required_keys
        if typing.get_origin(hint) is typing.Annotated:
            extras = typing.get_args(hint)[1:]
            if len(extras) >= 2 or (extras and not isinstance(extras[0], str)):
                default = extras[0]
                if default is not Ellipsis:
                    schema["default"] = default
                    is_required = False
        properties[name] = schema
        if is_required:
            required.append(name)
    schema = {"title": typed.__name__, "type": "object", "properties": properties}
    if required:
        schema["required"] = required
    doc = inspect.getdoc(typed)
    if doc and doc != inspect.getdoc(dict):
        schema["description"] = doc
    return schema


def _dataclass_schema(cls: Any, defs: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for spec in dataclasses.fields(cls):
        if not spec.init:
            continue
        schema = {**_schema(hints.get(spec.name, Any), defs), "title": field_title(spec.name)}
        if spec.default is not dataclasses.MISSING:
            schema["default"] = spec.default
        elif spec.default_factory is dataclasses.MISSING:
            required.append(spec.name)
        properties[spec.name] = schema
    schema = {"title": cls.__name__, "type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _named(annotation: Any, defs: dict[str, Any]) -> dict[str, Any] | None:
    """ragline's own data types, as ``$defs`` references."""
    from ragline.core.documents import Document
    from ragline.core.messages import BaseMessage
    from ragline.core.prompts import PromptValue

    if not isinstance(annotation, type):
        return None
    if issubclass(annotation, Document):
        defs.setdefault("Document", _DOCUMENT)
        return {"$ref": "#/$defs/Document"}
    if issubclass(annotation, BaseMessage):
        if annotation is BaseMessage:
            return any_message_schema(defs)
        return _message_ref(annotation.__name__, defs)
    if issubclass(annotation, PromptValue):
        return {"anyOf": [_prompt_value_ref(name, defs) for name in _PROMPT_VALUES]}
    return None


_OPEN_OBJECT = {"type": "object", "additionalProperties": True}
_OPTIONAL_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}]}

_DOCUMENT = {
    "title": "Document",
    "type": "object",
    "properties": {
        "id": {**_OPTIONAL_STRING, "default": None, "title": "Id"},
        "metadata": {**_OPEN_OBJECT, "title": "Metadata"},
        "page_content": {"type": "string", "title": "Page Content"},
        "type": {"const": "Document", "default": "Document", "title": "Type", "type": "string"},
    },
    "required": ["page_content"],
}

_MESSAGE_TYPES = {
    "AIMessage": "ai",
    "HumanMessage": "human",
    "ChatMessage": "chat",
    "SystemMessage": "system",
    "FunctionMessage": "function",
    "ToolMessage": "tool",
    "AIMessageChunk": "AIMessageChunk",
    "HumanMessageChunk": "HumanMessageChunk",
    "ChatMessageChunk": "ChatMessageChunk",
    "SystemMessageChunk": "SystemMessageChunk",
    "FunctionMessageChunk": "FunctionMessageChunk",
    "ToolMessageChunk": "ToolMessageChunk",
}
_MESSAGE_KINDS = list(_MESSAGE_TYPES)
_CONTENT = {
    "anyOf": [
        {"type": "string"},
        {"type": "array", "items": {"anyOf": [{"type": "string"}, _OPEN_OBJECT]}},
    ],
    "title": "Content",
}


def is_model_def(name: str) -> bool:
    """Whether the ``$defs`` entry ``name`` is one of ragline's model types (a
    ``Document``, a message), which LangChain declares as pydantic models."""
    return name == "Document" or name in _MESSAGE_TYPES


def _optional(title: str) -> dict[str, Any]:
    """An optional string field that defaults to ``None``."""
    return {**_OPTIONAL_STRING, "default": None, "title": title}


def _array_of(name: str, title: str, defs: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": _part_ref(name, defs), "title": title}


def _message_ref(name: str, defs: dict[str, Any]) -> dict[str, Any]:
    """A message class as a ``$defs`` entry: its fields, as LangChain's pydantic message
    models declare them (extra keys allowed; no description)."""
    if name not in defs:
        kind = _MESSAGE_TYPES.get(name, name)
        properties: dict[str, Any] = {
            "content": _CONTENT,
            "additional_kwargs": {**_OPEN_OBJECT, "title": "Additional Kwargs"},
            "response_metadata": {**_OPEN_OBJECT, "title": "Response Metadata"},
            "type": _type_tag(kind),
            "name": _optional("Name"),
            "id": _optional("Id"),
        }
        required = ["content"]
        if name.startswith("AIMessage"):
            properties["tool_calls"] = _array_of("ToolCall", "Tool Calls", defs)
            properties["invalid_tool_calls"] = _array_of(
                "InvalidToolCall", "Invalid Tool Calls", defs
            )
            properties["usage_metadata"] = {
                "anyOf": [_part_ref("UsageMetadata", defs), {"type": "null"}],
                "default": None,
            }
        if name == "AIMessageChunk":
            properties["tool_call_chunks"] = _array_of("ToolCallChunk", "Tool Call Chunks", defs)
            properties["chunk_position"] = {
                "anyOf": [{"const": "last", "type": "string"}, {"type": "null"}],
                "default": None,
                "title": "Chunk Position",
            }
        if name.startswith("FunctionMessage"):
            properties["name"] = {"type": "string", "title": "Name"}
            required.append("name")
        if name.startswith("ToolMessage"):
            properties["tool_call_id"] = {"type": "string", "title": "Tool Call Id"}
            properties["artifact"] = {"default": None, "title": "Artifact"}
            properties["status"] = {
                "type": "string",
                "enum": ["success", "error"],
                "default": "success",
                "title": "Status",
            }
            required.append("tool_call_id")
        if name.startswith("ChatMessage"):
            properties["role"] = {"type": "string", "title": "Role"}
            required.append("role")
        defs[name] = {**_object(name, properties, required), "additionalProperties": True}
    return {"$ref": f"#/$defs/{name}"}


def _tool_call_type(kind: str) -> dict[str, Any]:
    return {"const": kind, "title": "Type", "type": "string"}


def _count(title: str) -> dict[str, Any]:
    return {"type": "integer", "title": title}


# The typed dicts an AI message holds (tool calls, usage), as ``$defs`` entries: their
# keys, which of them are required, and extra keys allowed, as LangChain declares them.
_PARTS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "ToolCall": (
        {
            "name": {"type": "string", "title": "Name"},
            "args": {**_OPEN_OBJECT, "title": "Args"},
            "id": {**_OPTIONAL_STRING, "title": "Id"},
            "type": _tool_call_type("tool_call"),
        },
        ["name", "args", "id"],
    ),
    "InvalidToolCall": (
        {
            "type": _tool_call_type("invalid_tool_call"),
            "id": {**_OPTIONAL_STRING, "title": "Id"},
            "name": {**_OPTIONAL_STRING, "title": "Name"},
            "args": {**_OPTIONAL_STRING, "title": "Args"},
            "error": {**_OPTIONAL_STRING, "title": "Error"},
            "index": {"anyOf": [{"type": "integer"}, {"type": "string"}], "title": "Index"},
            "extras": {**_OPEN_OBJECT, "title": "Extras"},
        },
        ["type", "id", "name", "args", "error"],
    ),
    "ToolCallChunk": (
        {
            "name": {**_OPTIONAL_STRING, "title": "Name"},
            "args": {**_OPTIONAL_STRING, "title": "Args"},
            "id": {**_OPTIONAL_STRING, "title": "Id"},
            "index": {"anyOf": [{"type": "integer"}, {"type": "null"}], "title": "Index"},
            "type": _tool_call_type("tool_call_chunk"),
        },
        ["name", "args", "id", "index"],
    ),
    "UsageMetadata": (
        {
            "input_tokens": _count("Input Tokens"),
            "output_tokens": _count("Output Tokens"),
            "total_tokens": _count("Total Tokens"),
            "input_token_details": {"$ref": "#/$defs/InputTokenDetails"},
            "output_token_details": {"$ref": "#/$defs/OutputTokenDetails"},
        },
        ["input_tokens", "output_tokens", "total_tokens"],
    ),
    "InputTokenDetails": (
        {
            "audio": _count("Audio"),
            "cache_creation": _count("Cache Creation"),
            "cache_read": _count("Cache Read"),
        },
        [],
    ),
    "OutputTokenDetails": ({"audio": _count("Audio"), "reasoning": _count("Reasoning")}, []),
}


def _part_ref(name: str, defs: dict[str, Any]) -> dict[str, Any]:
    if name not in defs:
        properties, required = _PARTS[name]
        entry = {**_object(name, properties, required), "additionalProperties": True}
        if not required:
            del entry["required"]
        defs[name] = entry
        for value in properties.values():
            reference = value.get("$ref", "")
            if reference:
                _part_ref(reference.rsplit("/", 1)[-1], defs)
    return {"$ref": f"#/$defs/{name}"}


def _object(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A ``$defs`` entry for a ragline object type (a message, a prompt value)."""
    return {"title": name, "type": "object", "properties": properties, "required": required}


def _type_tag(kind: str) -> dict[str, Any]:
    """The ``type`` property that tells serialized ragline objects apart."""
    return {"const": kind, "default": kind, "title": "Type", "type": "string"}


_PROMPT_VALUES = ["StringPromptValue", "ChatPromptValueConcrete"]


def _prompt_value_ref(name: str, defs: dict[str, Any]) -> dict[str, Any]:
    if name not in defs:
        if name == "StringPromptValue":
            properties: dict[str, Any] = {
                "text": {"type": "string", "title": "Text"},
                "type": _type_tag("StringPromptValue"),
            }
            required = ["text"]
        else:
            properties = {
                "messages": {**messages_schema(defs), "title": "Messages"},
                "type": _type_tag("ChatPromptValueConcrete"),
            }
            required = ["messages"]
        defs[name] = _object(name, properties, required)
    return {"$ref": f"#/$defs/{name}"}


def any_message_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """One message of any kind (LangChain's discriminated ``oneOf`` of the message types)."""
    return {"oneOf": [_message_ref(kind, defs) for kind in _MESSAGE_KINDS]}


def messages_schema(defs: dict[str, Any]) -> dict[str, Any]:
    """A list of messages (what a MessagesPlaceholder takes)."""
    return {"type": "array", "items": any_message_schema(defs)}


def language_model_input_schema(defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The alternatives of a language model's input: a string, a prompt value, messages."""
    return [
        {"type": "string"},
        _prompt_value_ref("StringPromptValue", defs),
        _prompt_value_ref("ChatPromptValueConcrete", defs),
        messages_schema(defs),
    ]

"""Messages as plain dicts in LangChain's JSON shape, so stored histories move both ways.

``message_to_dict(message)`` gives ``{"type": <type>, "data": {<fields>}}`` where the
data holds ``content``, ``additional_kwargs``, ``response_metadata``, ``type``,
``name``, ``id`` and the fields of the message class (``tool_calls``,
``invalid_tool_calls``, ``usage_metadata`` on AI messages; ``tool_call_id``,
``artifact``, ``status`` on tool messages; ``role`` on chat messages). This is the shape
``langchain_core.messages.messages_to_dict`` writes, so a history LangChain stored (in a
file, a SQL table or a Redis list) loads here, and ours loads there.

Example:
    >>> from ragline.core import AIMessage, HumanMessage
    >>> data = messages_to_dict([HumanMessage("hi"), AIMessage("hello")])
    >>> data[0]["type"], data[0]["data"]["content"]
    ('human', 'hi')
    >>> messages_from_dict(data)  # doctest: +NORMALIZE_WHITESPACE
    [HumanMessage(content='hi', additional_kwargs={}, response_metadata={}),
     AIMessage(content='hello', additional_kwargs={}, response_metadata={}, tool_calls=[],
     invalid_tool_calls=[])]
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessage,
    HumanMessageChunk,
    RemoveMessage,
    SystemMessage,
    SystemMessageChunk,
    ToolMessage,
    ToolMessageChunk,
)

__all__ = [
    "message_fields",
    "message_from_dict",
    "message_to_dict",
    "messages_from_dict",
    "messages_to_dict",
]

_CLASSES: dict[str, type[BaseMessage]] = {
    cls.type: cls
    for cls in (
        HumanMessage,
        AIMessage,
        SystemMessage,
        ChatMessage,
        ToolMessage,
        FunctionMessage,
        RemoveMessage,
        HumanMessageChunk,
        AIMessageChunk,
        SystemMessageChunk,
        ChatMessageChunk,
        ToolMessageChunk,
        FunctionMessageChunk,
    )
}


def _field_order(cls: type[BaseMessage]) -> tuple[str, ...]:
    """The constructor fields of ``cls`` in LangChain's dump order (content,
    additional_kwargs, response_metadata first), any other after them."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    ordered = [key for key in cls._dump_order() if key in names]
    return (*ordered, *(name for name in names if name not in ordered))


# Field names per class, in LangChain's order (content, additional_kwargs, ... first).
_FIELDS: dict[type[BaseMessage], tuple[str, ...]] = {
    cls: _field_order(cls) for cls in _CLASSES.values()
}
_BASE_FIELD_COUNT = 3  # content, additional_kwargs, response_metadata come before "type"


def _copy(value: Any) -> Any:
    # Containers are copied so that editing the dict cannot edit the message.
    return copy.deepcopy(value) if isinstance(value, (list, dict)) and value else value


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """One message as ``{"type": ..., "data": {...}}`` (LangChain's shape).

    Raises:
        InvalidInputError: ``message`` is not a message of a known type.

    Example:
        >>> from ragline.core import ToolMessage
        >>> message_to_dict(ToolMessage("42", tool_call_id="c1"))["data"]["tool_call_id"]
        'c1'
    """
    return message_fields(message, copy_values=True)


def message_fields(message: BaseMessage, *, copy_values: bool = False) -> dict[str, Any]:
    """:func:`message_to_dict`, its values shared with the message unless ``copy_values``
    (for callers that only read the dict, such as the LLM cache's key)."""
    names = _FIELDS.get(type(message))
    if names is None:
        raise InvalidInputError(
            f"cannot turn {type(message).__name__} into a dict; known message types are "
            f"{', '.join(sorted(_CLASSES))}"
        )
    data: dict[str, Any] = {}
    for position, name in enumerate(names):
        if position == _BASE_FIELD_COUNT:
            data["type"] = message.type
        value = getattr(message, name)
        data[name] = _copy(value) if copy_values else value
    for name in message._extra_names:  # extra fields, after the fields, as LangChain's
        value = getattr(message, name)
        data[name] = _copy(value) if copy_values else value
    return {"type": message.type, "data": data}


def messages_to_dict(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Every message as :func:`message_to_dict` does it, in order.

    Example:
        >>> from ragline.core import HumanMessage
        >>> messages_to_dict([HumanMessage("hi", id="m1")])[0]["data"]["id"]
        'm1'
    """
    return [message_to_dict(message) for message in messages]


def message_from_dict(item: Mapping[str, Any], *, position: int | None = None) -> BaseMessage:
    """The message a :func:`message_to_dict` dict (ours or LangChain's) describes.

    Keys of ``data`` that the message class does not have (LangChain's ``example`` of
    old versions, say) become the message's extra fields, as LangChain's messages take
    them; a key that cannot be one (private, or a method's name) is ignored.

    Args:
        item: ``{"type": ..., "data": {...}}``.
        position: the item's index, named in error messages.

    Raises:
        InvalidInputError: not a dict of that shape, an unknown type, or a required
            field (``tool_call_id``, ``role``, ``name`` of a function message) missing.
    """
    where = "" if position is None else f" at position {position}"
    if not isinstance(item, Mapping) or not isinstance(item.get("data"), Mapping):
        raise InvalidInputError(
            f"message dict{where} must look like {{'type': ..., 'data': {{...}}}}, got {item!r:.80}"
        )
    cls = _CLASSES.get(item.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise InvalidInputError(
            f"unknown message type {item.get('type')!r}{where}; known types are "
            f"{', '.join(sorted(_CLASSES))}"
        )
    data = item["data"]
    names = _FIELDS[cls]
    values = {name: _copy(data[name]) for name in names if name in data and data[name] is not None}
    if len(data) > len(values):  # keys other than the fields set: "type", None values, extras
        values.update(
            (key, _copy(value))
            for key, value in data.items()
            if key not in names and key != "type" and _extra_field_name(cls, key)
        )
    if "content" not in values:
        values["content"] = ""
    try:
        return cls(**values)
    except TypeError as err:
        missing = [name for name in names if name not in values]
        raise InvalidInputError(
            f"{item.get('type')!r} message dict{where} cannot be loaded ({err}); fields "
            f"present: {sorted(values)}, absent: {missing}"
        ) from err


def _extra_field_name(cls: type, key: Any) -> bool:
    return isinstance(key, str) and not key.startswith("_") and not hasattr(cls, key)


def messages_from_dict(items: Sequence[Mapping[str, Any]]) -> list[BaseMessage]:
    """Messages from :func:`messages_to_dict` dicts (ours or LangChain's), in order.

    Raises:
        InvalidInputError: ``items`` is not a list, or an item is malformed (named by
            its position).

    Example:
        >>> [message] = messages_from_dict([{"type": "ai", "data": {"content": "hello"}}])
        >>> type(message).__name__, message.content
        ('AIMessage', 'hello')
    """
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise InvalidInputError(
            f"messages_from_dict takes a list of message dicts, got {type(items).__name__}"
        )
    return [message_from_dict(item, position=index) for index, item in enumerate(items)]

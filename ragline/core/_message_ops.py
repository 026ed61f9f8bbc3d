"""Operations on lists of messages: ``filter_messages``, ``merge_message_runs``,
``trim_messages`` (LangChain's names, for chat histories that must fit a prompt).

Each takes the messages first and returns a new list (the messages given are not
changed); called without messages, each returns a Runnable that applies it with the
given options, so it can sit in a chain (``trim_messages(max_tokens=...) | model``).

Example:
    >>> from ragline.core import AIMessage, HumanMessage, SystemMessage
    >>> history = [SystemMessage("be brief"), HumanMessage("hi"), AIMessage("hello"),
    ...            HumanMessage("how are you?")]
    >>> [m.content for m in trim_messages(history, max_tokens=2, token_counter=len,
    ...                                   include_system=True)]
    ['be brief', 'how are you?']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import (
    AIMessage,
    BaseMessage,
    SystemMessage,
    ToolMessage,
    _merge_content,
    _merge_dicts,
    convert_to_messages,
)

__all__ = ["filter_messages", "merge_message_runs", "trim_messages"]

MessageTypes = str | type | Sequence[str | type]


def _is_type(message: BaseMessage, types: MessageTypes) -> bool:
    wanted = [types] if isinstance(types, (str, type)) else list(types)
    for kind in wanted:
        if isinstance(kind, str) and message.type == kind:
            return True
        if isinstance(kind, type) and isinstance(message, kind):
            return True
    return False


def _deferred(function: Callable[..., list[BaseMessage]], options: dict[str, Any]) -> Any:
    from ragline.core.runnables import RunnableLambda

    return RunnableLambda(lambda messages: function(messages, **options), name=function.__name__)


def filter_messages(
    messages: Sequence[Any] | None = None,
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: MessageTypes | None = None,
    exclude_types: MessageTypes | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
) -> Any:
    """The messages that no ``exclude_*`` option removes and that some ``include_*``
    option keeps (all of them when no ``include_*`` is given).

    Args:
        messages: messages (or anything ``convert_to_messages`` takes); without them, a
            Runnable that filters its input.
        include_names / exclude_names: by ``name``.
        include_types / exclude_types: by type: ``"human"``, ``"ai"``, ``"system"``,
            ``"tool"`` ... or message classes.
        include_ids / exclude_ids: by ``id``.
    """
    options = {k: v for k, v in locals().items() if k != "messages"}
    if messages is None:
        return _deferred(filter_messages, options)
    kept = []
    includes = include_names or include_types or include_ids
    for message in convert_to_messages(messages):
        if exclude_names and message.name in exclude_names:
            continue
        if exclude_types and _is_type(message, exclude_types):
            continue
        if exclude_ids and message.id in exclude_ids:
            continue
        if (
            not includes
            or (include_names and message.name in include_names)
            or (include_types and _is_type(message, include_types))
            or (include_ids and message.id in include_ids)
        ):
            kept.append(message)
    return kept


def _merged(first: BaseMessage, second: BaseMessage, separator: str) -> BaseMessage:
    left, right = first.content, second.content
    if isinstance(left, str) and isinstance(right, str) and left and right:
        left += separator
    changes: dict[str, Any] = {
        "content": _merge_content(left, right),
        "additional_kwargs": _merge_dicts(first.additional_kwargs, second.additional_kwargs),
        "name": first.name,
        "id": first.id,
    }
    if isinstance(first, AIMessage) and isinstance(second, AIMessage):
        changes["tool_calls"] = [*first.tool_calls, *second.tool_calls]
        changes["invalid_tool_calls"] = [*first.invalid_tool_calls, *second.invalid_tool_calls]
    return replace(first, **changes)


def merge_message_runs(
    messages: Sequence[Any] | None = None, *, chunk_separator: str = "\n"
) -> Any:
    """Consecutive messages of the same type joined into one (tool messages are never
    joined): texts with ``chunk_separator`` between them, content lists concatenated,
    tool calls kept in order; the first message's name, id and response metadata stay.

    Args:
        messages: messages (or anything ``convert_to_messages`` takes); without them, a
            Runnable that merges its input.
        chunk_separator: put between two non-empty texts.
    """
    if messages is None:
        return _deferred(merge_message_runs, {"chunk_separator": chunk_separator})
    merged: list[BaseMessage] = []
    for message in convert_to_messages(messages):
        last = merged[-1] if merged else None
        if last is None or isinstance(message, ToolMessage) or type(message) is not type(last):
            merged.append(message)
        else:
            merged[-1] = _merged(last, message, chunk_separator)
    return merged


def _counter(token_counter: Any) -> Callable[[list[BaseMessage]], int]:
    if callable(getattr(token_counter, "get_num_tokens_from_messages", None)):
        return token_counter.get_num_tokens_from_messages  # type: ignore[no-any-return]
    if callable(token_counter):
        return token_counter  # type: ignore[no-any-return]
    raise InvalidInputError(
        "token_counter must be a function of a list of messages (len counts messages) or "
        f"a model with get_num_tokens_from_messages, got {token_counter!r}"
    )


def _leading(
    messages: list[BaseMessage],
    max_tokens: int,
    count: Callable[[list[BaseMessage]], int],
    end_on: MessageTypes | None,
) -> list[BaseMessage]:
    # the longest head of ``messages`` within max_tokens, then cut back to end on end_on
    size = len(messages)
    while size and count(messages[:size]) > max_tokens:
        size -= 1
    if end_on is not None:
        while size and not _is_type(messages[size - 1], end_on):
            size -= 1
    return messages[:size]


def trim_messages(
    messages: Sequence[Any] | None = None,
    *,
    max_tokens: int,
    token_counter: Any,
    strategy: str = "last",
    allow_partial: bool = False,
    end_on: MessageTypes | None = None,
    start_on: MessageTypes | None = None,
    include_system: bool = False,
) -> Any:
    """The messages cut down to at most ``max_tokens``, whole messages only.

    Args:
        messages: messages (or anything ``convert_to_messages`` takes); without them, a
            Runnable that trims its input.
        max_tokens: the budget.
        token_counter: counts a list of messages: a function (``len`` counts messages)
            or a chat model (its ``get_num_tokens_from_messages``).
        strategy: ``"last"`` keeps the most recent messages, ``"first"`` the earliest.
        allow_partial: cutting inside a message is not supported (a clear error).
        end_on: the kept messages end on this type (later ones are dropped first).
        start_on: with ``"last"``, the kept messages start on this type.
        include_system: with ``"last"``, a leading system message is always kept.

    Raises:
        InvalidInputError: an unknown strategy, ``allow_partial=True``, or options that
            only apply to the other strategy.
    """
    options = {k: v for k, v in locals().items() if k != "messages"}
    if strategy not in ("first", "last"):
        raise InvalidInputError(f"strategy {strategy!r} is not one of 'first', 'last'")
    if allow_partial:
        raise InvalidInputError("trim_messages(allow_partial=True) is not supported")
    if strategy == "first" and (start_on is not None or include_system):
        raise InvalidInputError("start_on and include_system apply to strategy='last' only")
    if messages is None:
        return _deferred(trim_messages, options)
    count = _counter(token_counter)
    listed = list(convert_to_messages(messages))
    if strategy == "first":
        return _leading(listed, max_tokens, count, end_on)
    if end_on is not None:
        while listed and not _is_type(listed[-1], end_on):
            listed.pop()
    system = bool(include_system and listed and isinstance(listed[0], SystemMessage))
    # the most recent first (after the kept system message), counted as one list
    reordered = listed[:1] + listed[1:][::-1] if system else listed[::-1]
    kept = _leading(reordered, max_tokens, lambda part: count(_restored(part, system)), start_on)
    return _restored(kept, system)


def _restored(reordered: list[BaseMessage], system: bool) -> list[BaseMessage]:
    return reordered[:1] + reordered[1:][::-1] if system else reordered[::-1]

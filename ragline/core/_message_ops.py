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

import copy
import functools
import inspect
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    _add_usage,
    _merge_content,
    _merge_dicts,
    _preferred_id,
    convert_to_messages,
    message_chunk_to_message,
)

__all__ = [
    "count_tokens_approximately",
    "filter_messages",
    "merge_message_runs",
    "trim_messages",
]

MessageTypes = str | type | Sequence[str | type]


def _message_list(messages: Any) -> list[BaseMessage]:
    """``messages`` as a list of messages; a prompt value (what a prompt hands on in a
    chain, ``prompt | merge_message_runs()``) gives its messages, as LangChain's."""
    to_messages = getattr(messages, "to_messages", None)
    if callable(to_messages) and not isinstance(messages, BaseMessage):
        messages = to_messages()
    return convert_to_messages(messages)


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

    # a partial, as LangChain's: printing the runnable shows RunnableLambda(...)
    return RunnableLambda(functools.partial(function, **options), name=function.__name__)


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
    for message in _message_list(messages):
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
    if isinstance(first, FunctionMessage) and first.name != second.name:
        raise InvalidInputError(
            f"cannot merge function messages of different functions ({first.name!r}, "
            f"{second.name!r})"
        )
    if isinstance(first, ChatMessage) and first.role != getattr(second, "role", None):
        raise InvalidInputError(
            f"cannot merge chat messages of different roles ({first.role!r}, "
            f"{getattr(second, 'role', None)!r})"
        )
    left, right = first.content, second.content
    if isinstance(left, str) and isinstance(right, str) and left and right:
        left += separator
    changes: dict[str, Any] = {
        "content": _merge_content(left, right),
        "additional_kwargs": _merge_dicts(first.additional_kwargs, second.additional_kwargs),
        # as LangChain's sum of the two as chunks: the name is dropped (a function
        # message keeps its function's), the id is the first's (an AI message's is
        # chosen as a streamed reply's: a provider's id first)
        "name": first.name if isinstance(first, FunctionMessage) else None,
        "id": _preferred_id(first.id, second.id) if isinstance(first, AIMessage) else first.id,
    }
    if isinstance(first, AIMessage) and isinstance(second, AIMessage):
        changes["tool_calls"] = [*first.tool_calls, *second.tool_calls]
        changes["invalid_tool_calls"] = [*first.invalid_tool_calls, *second.invalid_tool_calls]
        # the pieces' usage adds up, as LangChain adds the pieces (a streamed reply's
        # usage comes on its last pieces); the response metadata stays the first's
        changes["usage_metadata"] = _add_usage(first.usage_metadata, second.usage_metadata)
    return replace(first, **changes)


def merge_message_runs(
    messages: Sequence[Any] | None = None, *, chunk_separator: str = "\n"
) -> Any:
    """Consecutive messages of the same type joined into one (tool messages are never
    joined): texts with ``chunk_separator`` between them, content lists concatenated,
    tool calls kept in order, AI messages' usage added up; the first message's id and
    response metadata stay (an AI message's id is chosen as a streamed reply's: a
    provider's id first), and a joined message has no name (a function message keeps
    its function's), as LangChain's. Function messages of different functions, or chat
    messages of different roles, raise ``InvalidInputError``.
    A joined run is a finished message (streamed ``AIMessageChunk`` s give an
    ``AIMessage``); a message standing alone is returned as it was.

    Args:
        messages: messages (or anything ``convert_to_messages`` takes); without them, a
            Runnable that merges its input.
        chunk_separator: put between two non-empty texts.
    """
    if messages is None:
        return _deferred(merge_message_runs, {"chunk_separator": chunk_separator})
    merged: list[BaseMessage] = []
    for message in _message_list(messages):
        last = merged[-1] if merged else None
        # a run is a message of the last one's class or a subclass of it (a chunk
        # continues a run of its message kind), as LangChain's isinstance test
        if last is None or isinstance(message, ToolMessage) or not isinstance(message, type(last)):
            merged.append(message)
        else:
            # what two or more messages make is a finished message, not a chunk (streamed
            # chunks merged give an AIMessage); a chunk left alone stays a chunk
            merged[-1] = message_chunk_to_message(_merged(last, message, chunk_separator))
    return merged


def _counter(token_counter: Any) -> Callable[[list[BaseMessage]], int]:
    """A function counting a list of messages, from what ``trim_messages`` was given."""
    if isinstance(token_counter, str):
        if token_counter == "approximate":
            return count_tokens_approximately
        raise InvalidInputError(
            f"token_counter {token_counter!r} is not a known shortcut; the only one is "
            "'approximate'"
        )
    if callable(getattr(token_counter, "get_num_tokens_from_messages", None)):
        return token_counter.get_num_tokens_from_messages  # type: ignore[no-any-return]
    if callable(token_counter):
        if _counts_one_message(token_counter):
            return lambda messages: sum(token_counter(m) for m in messages)
        return token_counter  # type: ignore[no-any-return]
    raise InvalidInputError(
        "token_counter must be a function of a list of messages (len counts messages), a "
        "function of one message (annotated BaseMessage), 'approximate', or a model with "
        f"get_num_tokens_from_messages, got {token_counter!r}"
    )


def _counts_one_message(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s first parameter is annotated ``BaseMessage`` (the class
    itself, as LangChain checks): it then counts one message and the list is summed."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # builtins such as len
        return False
    return bool(parameters) and parameters[0].annotation is BaseMessage


def _splitter(text_splitter: Any) -> Callable[[str], list[str]]:
    if text_splitter is None:
        return _lines_kept
    if callable(text_splitter):
        return text_splitter  # type: ignore[no-any-return]

    def refused(text: str) -> list[str]:
        # only when a text is to be cut, as LangChain fails (a splitter object is refused
        # there too: pass its split_text)
        raise InvalidInputError(
            f"text_splitter must be a function of a string (for a text splitter, pass its "
            f"split_text), got {text_splitter!r}"
        )

    return refused


def _lines_kept(text: str) -> list[str]:
    """``text`` cut after each newline (the newline stays with its line; a text ending
    in one gives a last empty piece)."""
    return _AFTER_NEWLINE.split(text)


_AFTER_NEWLINE = re.compile(r"(?<=\n)")  # the empty place just after each newline


def _most(count: int, fits: Callable[[int], bool]) -> int:
    """The largest n in 0..count with fits(n), by halving (as LangChain searches, so a
    counter that is not monotonic gives the same answer too)."""
    low, high = 0, count
    while low < high:  # at most count.bit_length() rounds: each halves high - low
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _first_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            return block
        if isinstance(block, dict) and block.get("type") == "text":
            return block.get("text")  # type: ignore[no-any-return]
    return None


def _part_of(
    message: BaseMessage,
    kept: list[BaseMessage],
    max_tokens: int,
    count: Callable[[list[BaseMessage]], int],
    split: Callable[[str], list[str]],
    from_end: bool,
) -> BaseMessage | None:
    """As much of ``message`` as fits after ``kept``: whole content blocks first (the
    leading ones, or the trailing ones when ``from_end``), else pieces of its text."""
    content = message.content
    if isinstance(content, list):
        blocks = copy.deepcopy(content)
        if from_end:
            blocks.reverse()
        for size in range(len(blocks) - 1, 0, -1):
            part = blocks[:size]
            candidate = replace(message, content=part[::-1] if from_end else part)
            if count([*kept, candidate]) <= max_tokens:
                return candidate
        # LangChain then reads the text of the one block left by that search: the first
        # block (the last one when from_end), not the first text block of the message
        content = blocks[:1]
    text = _first_text(content)
    if not text:
        return None
    pieces = split(text)
    if from_end:
        pieces = pieces[::-1]
    before = count(kept)

    def joined(n: int) -> str:
        return "".join(pieces[:n][::-1] if from_end else pieces[:n])

    taken = _most(
        len(pieces),
        lambda n: before + count([replace(message, content=joined(n))]) <= max_tokens,
    )
    return replace(message, content=joined(taken)) if taken else None


def _leading(
    messages: list[BaseMessage],
    max_tokens: int,
    count: Callable[[list[BaseMessage]], int],
    end_on: MessageTypes | None,
    split: Callable[[str], list[str]],
    partial: bool = False,
    from_end: bool = False,
) -> list[BaseMessage]:
    """The longest head of ``messages`` within max_tokens (with ``partial``, then as much
    of the next message as fits), cut back to end on ``end_on``."""
    if not messages:
        return []
    if count(messages) <= max_tokens:
        size = len(messages)
    else:
        size = _most(len(messages), lambda n: count(messages[:n]) <= max_tokens)
        if partial and size < len(messages):
            part = _part_of(messages[size], messages[:size], max_tokens, count, split, from_end)
            if part is not None:
                messages = [*messages[:size], part]
                size += 1
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
    text_splitter: Any = None,
) -> Any:
    """The messages cut down to at most ``max_tokens``.

    Args:
        messages: messages (or anything ``convert_to_messages`` takes); without them, a
            Runnable that trims its input.
        max_tokens: the budget.
        token_counter: counts a list of messages: a function (``len`` counts messages),
            a function of one message whose first parameter is annotated ``BaseMessage``
            (summed), ``"approximate"`` (:func:`count_tokens_approximately`) or a chat
            model (its ``get_num_tokens_from_messages``).
        strategy: ``"last"`` keeps the most recent messages, ``"first"`` the earliest.
        allow_partial: also keep part of the first message that does not fit whole: its
            leading content blocks (trailing with ``"last"``), else leading (trailing)
            pieces of its text.
        end_on: the kept messages end on this type (later ones are dropped first).
        start_on: with ``"last"``, the kept messages start on this type.
        include_system: with ``"last"``, a leading system message is always kept; the
            others share what its own count leaves of the budget.
        text_splitter: cuts a text into pieces for ``allow_partial``: a function of a
            string (a splitter's ``split_text``); default: after each newline.

    Raises:
        InvalidInputError: an unknown strategy or token counter shortcut, or options that
            only apply to the other strategy.
    """
    options = {k: v for k, v in locals().items() if k != "messages"}
    if strategy not in ("first", "last"):
        raise InvalidInputError(f"strategy {strategy!r} is not one of 'first', 'last'")
    if strategy == "first" and (start_on is not None or include_system):
        raise InvalidInputError("start_on and include_system apply to strategy='last' only")
    if messages is None:
        return _deferred(trim_messages, options)
    count = _counter(token_counter)
    split = _splitter(text_splitter)
    listed = list(_message_list(messages))
    if strategy == "first":
        return _leading(listed, max_tokens, count, end_on, split, allow_partial)
    if end_on is not None:
        while listed and not _is_type(listed[-1], end_on):
            listed.pop()
    system = listed[0] if include_system and listed else None
    if not isinstance(system, SystemMessage):
        system = None
    rest = listed[1:] if system is not None else listed
    budget = max(0, max_tokens - count([system])) if system is not None else max_tokens
    kept = _leading(rest[::-1], budget, count, start_on, split, allow_partial, from_end=True)
    return ([system] if system is not None else []) + kept[::-1]


def _openai_role(message: BaseMessage) -> str:
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
        if not isinstance(role, str):
            raise InvalidInputError(f"'__openai_role__' must be a str, got {role!r}")
        return role
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, ChatMessage):
        return message.role
    raise InvalidInputError(f"no chat role for a {type(message).__name__}")


def _content_size(message: BaseMessage) -> tuple[int, int]:
    """(characters, image count) of a message's content."""
    content = message.content
    if isinstance(content, str):
        return len(content), 0
    if not isinstance(content, list):
        return len(repr(content)), 0
    chars = images = 0
    for block in content:
        kind = block.get("type", "") if isinstance(block, dict) else None
        if isinstance(block, str):
            chars += len(block)
        elif kind in ("image", "image_url"):
            images += 1
        elif kind == "text":
            chars += len(block.get("text", ""))
        else:
            chars += len(repr(block))
    return chars, images


def _tool_size(tool: Any) -> int:
    if isinstance(tool, dict):
        return len(json.dumps(tool))
    schema = tool.tool_call_schema
    parameters = dict(schema if isinstance(schema, dict) else schema.model_json_schema())
    parameters.pop("title", None)
    parameters.pop("description", None)
    described = {"name": tool.name, "description": tool.description, "parameters": parameters}
    return len(json.dumps(described))


def count_tokens_approximately(
    messages: Iterable[Any],
    *,
    chars_per_token: float = 4.0,
    extra_tokens_per_message: float = 3.0,
    count_name: bool = True,
    tokens_per_image: int = 85,
    use_usage_metadata_scaling: bool = False,
    tools: Sequence[Any] | None = None,
) -> int:
    """An estimate of the tokens in ``messages``, from character counts (LangChain's
    estimate, the same number).

    Each message counts ``ceil(characters / chars_per_token)`` plus
    ``extra_tokens_per_message``; its characters are its text (an image block costs
    ``tokens_per_image`` instead, another block its ``repr``), its chat role, its name
    (with ``count_name``), an AI message's tool calls (``repr``, when its content is a
    string) and a tool message's call id. Each tool in ``tools`` adds its JSON
    description. With ``use_usage_metadata_scaling``, when every AI message comes from
    one provider, the total is scaled by the last reported ``total_tokens`` over the
    estimate up to that message (between 1 and 1.25).
    """
    listed = _message_list(messages)
    total = 0.0
    if tools:
        total += math.ceil(sum(_tool_size(tool) for tool in tools) / chars_per_token)
    provider: Any = None  # the first AI message's provider that is not None
    mixed = False
    reported: int | None = None
    estimate_then = 0.0
    for message in listed:
        chars, images = _content_size(message)
        total += images * tokens_per_image
        if isinstance(message, AIMessage) and isinstance(message.content, str):
            chars += len(repr(message.tool_calls)) if message.tool_calls else 0
        if isinstance(message, ToolMessage):
            chars += len(message.tool_call_id)
        chars += len(_openai_role(message))
        if message.name and count_name:
            chars += len(message.name)
        total += math.ceil(chars / chars_per_token) + extra_tokens_per_message
        if use_usage_metadata_scaling and isinstance(message, AIMessage):
            given = message.response_metadata.get("model_provider")
            if provider is None:
                provider = given
            elif given != provider:
                mixed = True
            usage: dict[str, Any] = dict(message.usage_metadata or {})
            used = usage.get("total_tokens")
            if isinstance(used, int):
                reported, estimate_then = used, total
    scale = (
        use_usage_metadata_scaling
        and len(listed) > 1
        and not mixed
        and provider is not None
        and reported is not None
        and estimate_then > 0
    )
    if scale and reported is not None:
        total *= min(1.25, max(1.0, reported / estimate_then))
    return math.ceil(total)

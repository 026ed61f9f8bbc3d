"""Chat messages: what goes into a chat model and what comes out of it.

Messages are plain dataclasses. ``content`` is positional, everything else is keyword-only,
so ``HumanMessage("hi")`` and ``HumanMessage(content="hi")`` both work. Streaming models
yield ``AIMessageChunk`` pieces that add up (``chunk + chunk``) to the whole reply: text is
concatenated, tool-call fragments are joined by their ``index`` and usage counts are summed.

Example:
    >>> reply = AIMessageChunk("Hel") + AIMessageChunk("lo")
    >>> reply.content
    'Hello'
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, MISSING, dataclass, field, fields
from typing import Any, ClassVar, Literal, TypedDict, cast

from ragline.core._model_methods import ModelMethods
from ragline.core._partial_json import parse_partial_json
from ragline.core.exceptions import ArgumentTypeError, InvalidInputError, NotAMessageError

__all__ = [
    "AIMessage",
    "AIMessageChunk",
    "AnyMessage",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "InvalidToolCall",
    "MessageLike",
    "RemoveMessage",
    "SystemMessage",
    "SystemMessageChunk",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "UsageMetadata",
    "add_usage",
    "convert_to_messages",
    "convert_to_openai_messages",
    "get_buffer_string",
    "invalid_tool_call",
    "message_chunk_to_message",
    "tool_call",
    "tool_call_chunk",
]


# What a message's content may be: text, or a list of content blocks (text or dicts such
# as {"type": "text", "text": ...} / {"type": "image_url", ...}) for multimodal models.
Content = str | list[str | dict[str, Any]]


# The TypedDicts below are split in two so that their optional keys work on Python 3.10
# (typing.NotRequired arrived in 3.11).
class _ToolCallKeys(TypedDict):
    name: str
    args: dict[str, Any]
    id: str | None


class ToolCall(_ToolCallKeys, total=False):
    """A request from the model to call a tool: ``{"name", "args", "id", "type"}``."""

    type: Literal["tool_call"]


class _ToolCallChunkKeys(TypedDict):
    name: str | None
    args: str | None
    id: str | None
    index: int | None


class ToolCallChunk(_ToolCallChunkKeys, total=False):
    """A streamed fragment of a tool call; fragments with the same ``index`` are joined."""

    type: Literal["tool_call_chunk"]


class _InvalidToolCallKeys(TypedDict):
    name: str | None
    args: str | None
    id: str | None
    error: str | None


class InvalidToolCall(_InvalidToolCallKeys, total=False):
    """A tool call whose arguments are not valid JSON; ``args`` keeps the raw text."""

    type: Literal["invalid_tool_call"]


class _UsageKeys(TypedDict):
    input_tokens: int
    output_tokens: int
    total_tokens: int


class UsageMetadata(_UsageKeys, total=False):
    """Token counts of one model call; summed when chunks are added."""

    input_token_details: dict[str, int]
    output_token_details: dict[str, int]


_HEAD_KEYS = ("content", "additional_kwargs", "response_metadata", "type", "name", "id")


class TextAccessor(str):
    """A message's ``.text``: a str that older code may also call (``message.text()``).

    LangChain's ``.text`` is a str of this type name (so what a chain's
    ``StrOutputParser`` returns for a message prints ``TextAccessor`` as its type there
    too); calling it gives the same text, with a DeprecationWarning.
    """

    __slots__ = ()

    def __call__(self) -> str:
        warnings.warn(
            "calling message.text() is deprecated: read message.text, a property",
            DeprecationWarning,
            stacklevel=2,
        )
        return str(self)


# The instance-dict descriptor messages inherit (BaseMessage's ``__dict__`` wraps it)
_INSTANCE_DICT = next(vars(k)["__dict__"] for k in ModelMethods.__mro__ if "__dict__" in vars(k))


def _utf8_text(message: Any, data: bytes | bytearray, where: str) -> str:
    """Bytes given as a message's content (or a block of it), as text: LangChain's
    messages (pydantic) decode them as UTF-8 too."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidInputError(
            f"{type(message).__name__}.{where} must be text; got bytes that are not UTF-8: "
            f"{bytes(data)!r:.60}"
        ) from err


def _dict_with_type(message: Any) -> dict[str, Any]:
    """A message's ``__dict__`` as LangChain's (a pydantic model's) lists it: ``type``
    among the fields (after ``response_metadata``), the fields in LangChain's order.

    The key is put into the instance's own dict the first time ``__dict__`` is read
    (printing ``message.__dict__``, ``vars``): never on construction, attribute access,
    copying or pickling (these read the instance dict directly; a copy gets ``type`` on
    its own first read). An empty dict (an object being restored by copy or pickle) is
    left as it is, for the state to be put in."""
    own: dict[str, Any] = _INSTANCE_DICT.__get__(message)
    if own and "type" not in own:
        # a new dict, the keys in LangChain's field order (its dump order) and anything
        # else after, put in place in one step: another thread reading the message
        # meanwhile sees the old dict or the new one, never one half filled
        values = {**own, "type": message.type}  # a property of a subclass too
        ordered = {key: values.pop(key) for key in type(message)._dump_order() if key in values}
        ordered.update(values)
        _INSTANCE_DICT.__set__(message, ordered)
        own = ordered
    if "_extra_names" in own:  # extra fields are not in a pydantic model's __dict__
        hidden = {"_extra_names", *own["_extra_names"]}
        return {key: value for key, value in own.items() if key not in hidden}
    return own


@dataclass(repr=False, match_args=False)
class BaseMessage(ModelMethods):
    """Base of every message: ``content`` plus optional metadata.

    Args:
        content: the text, or a list of content blocks for multimodal input.
        additional_kwargs: provider-specific extras carried along unchanged.
        response_metadata: what the provider said about the response (model name,
            finish reason ...); empty on messages written by users.
        name: an optional speaker name.
        id: an optional message id.

    Any other keyword is kept as an extra field, as LangChain's messages keep it
    (``HumanMessage("2 + 2?", example=True).example``): printed, dumped and compared
    after the fields.
    """

    type: ClassVar[str] = "base"
    __dict__ = property(_dict_with_type)  # type: ignore[assignment]

    content: Content
    _: KW_ONLY
    additional_kwargs: dict[str, Any] = field(default_factory=dict)
    response_metadata: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        content: Any = self.content
        if type(content) is str:
            return
        if isinstance(content, (bytes, bytearray)):  # UTF-8 text, as pydantic's lax mode
            self.content = _utf8_text(self, content, "content")
            return
        if (
            type(content) is not list
            and isinstance(content, Iterable)
            and not isinstance(content, (str, Mapping, ModelMethods))
        ):
            # a tuple, set, generator ... of blocks is a list, as in LangChain (pydantic);
            # a Document or message (which iterate as (field, value) pairs) is refused
            # below by its own name
            content = self.content = list(content)
        if isinstance(content, list):
            blocks = content
            for position, block in enumerate(content):
                if isinstance(block, (str, dict)):
                    continue
                if not isinstance(block, (bytes, bytearray)):
                    raise InvalidInputError(
                        f"{type(self).__name__}.content[{position}] must be a str or a "
                        f"content block dict, got {type(block).__name__}: {block!r:.60}"
                    )
                if blocks is content:  # the caller's list is left as it was given
                    blocks = self.content = list(content)
                blocks[position] = _utf8_text(self, block, f"content[{position}]")
        elif not isinstance(content, str):
            raise InvalidInputError(
                f"{type(self).__name__}.content must be a str or a list of content blocks, "
                f"got {type(content).__name__}"
            )

    @property
    def text(self) -> str:
        """The text of the message: ``content`` itself, or its text blocks joined."""
        if isinstance(self.content, str):
            return TextAccessor(self.content)
        parts = []
        for block in self.content:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return TextAccessor("".join(parts))

    @property
    def content_blocks(self) -> list[dict[str, Any]]:
        """The content as LangChain's standard blocks: a string as a text block (none for
        ""), standard blocks (text, image, reasoning, tool_call ...) as they are, an
        ``image_url`` block as an ``image`` block (a data URL as base64 and mime type;
        other keys under ``extras``; a new ``lc_`` id), anything else wrapped as
        ``{"type": "non_standard", "value": block}``."""
        return _standard_blocks(self.content)

    def __add__(self, other: Any) -> Any:
        """``message + message_or_template_or_str`` builds a ChatPromptTemplate (as in
        LangChain: ``SystemMessage(...) + HumanMessage(...) + "{input}"``)."""
        from ragline.core.prompts import ChatPromptTemplate

        return ChatPromptTemplate([self]) + other

    @classmethod
    def _dump_order(cls) -> tuple[str, ...]:
        # LangChain's order: the common keys (with ``type``), then the class's own
        if cls._dump_keys:
            return cls._dump_keys
        return _HEAD_KEYS + tuple(f.name for f in fields(cls) if f.name not in _HEAD_KEYS)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """How a message field of a user's pydantic model validates and dumps (called by
        pydantic only, so pydantic is installed). Dumped as LangChain's pydantic message
        of the declared class: its keys in LangChain's order, ``type`` included (an
        ``AIMessage`` in a ``list[BaseMessage]`` field dumps the base keys, as pydantic
        dumps a subclass by the declared model)."""
        from pydantic_core import core_schema

        try:
            schema = handler(source)
        except Exception:  # a field pydantic cannot build (a typing.TypedDict on 3.11)
            schema = core_schema.is_instance_schema(cls)
        keys = cls._dump_order()

        def dump(message: Any) -> dict[str, Any]:
            whole = message.model_dump()
            return {key: whole[key] for key in keys if key in whole}

        schema["serialization"] = core_schema.plain_serializer_function_ser_schema(dump)
        return schema

    def _printed_fields(self) -> list[tuple[str, Any]]:
        # LangChain's printed form (pydantic's): every field in its order, except those
        # with a plain default that they still have; ``type`` is never shown.
        shown: list[tuple[str, Any]] = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            has_plain_default = spec.default is not MISSING
            if has_plain_default and spec.default_factory is MISSING and value == spec.default:
                continue
            shown.append((spec.name, value))
        shown.extend((name, getattr(self, name)) for name in self._extra_names)
        return shown

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self._printed_fields())
        return f"{type(self).__name__}({inner})"

    def __str__(self) -> str:
        return " ".join(f"{name}={value!r}" for name, value in self._printed_fields())

    def __rich_repr__(self) -> Iterator[tuple[str, Any]]:
        """The printed fields for ``rich.print`` / ``rich.pretty``, which lay them out one
        a line when they do not fit (LangChain's messages are pydantic models, which
        give rich their fields this way)."""
        yield from self._printed_fields()

    def pretty_repr(self, html: bool = False) -> str:
        """A banner with the message's kind (``==== Human Message ====``), its name
        if any, then its content: LangChain's layout, 80 columns wide.

        Args:
            html: the title in bold (terminal escape codes), as LangChain does for it.
        """
        title = _banner(self.type.title() + " Message", bold=html)
        if self.name is not None:
            title += f"\nName: {self.name}"
        return f"{title}\n\n{self.content}"

    def pretty_print(self) -> None:
        """Print ``pretty_repr()``."""
        print(self.pretty_repr())


def _ordered_tool_call(call: Any) -> ToolCall:
    # LangChain rebuilds each call: name, args, id first, whatever order it came in
    first = {k: call[k] for k in ("name", "args", "id") if k in call}
    return cast(ToolCall, {**first, **call, "type": "tool_call"})


def _ordered_invalid_tool_call(call: Any) -> InvalidToolCall:
    # LangChain validates a given invalid call into its declared order (type, id, name,
    # args, error; a missing one None); ragline keeps any other key after them
    ordered = {"type": "invalid_tool_call"} | {
        key: call.get(key) for key in ("id", "name", "args", "error")
    }
    return cast(InvalidToolCall, ordered | {k: v for k, v in call.items() if k not in ordered})


def _raw_function_calls(raw_calls: Any) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """OpenAI's raw tool calls (``{"id", "function": {"name", "arguments"}}``, as older
    models put them in ``additional_kwargs``) as tool calls, those whose arguments are not
    JSON as invalid ones; an entry without ``function`` is skipped. Raises on a malformed
    entry (the caller then keeps none, as LangChain does)."""
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for raw in raw_calls:
        if "function" not in raw:
            continue
        name, arguments = raw["function"]["name"], raw["function"]["arguments"]
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError:
            invalid.append(
                {"name": name, "args": arguments, "id": raw.get("id"), "error": None}  # type: ignore[typeddict-item]
            )
            continue
        calls.append({"name": name or "", "args": args or {}, "id": raw.get("id")})  # type: ignore[typeddict-item]
    return calls, invalid


def _raw_function_chunks(raw_calls: Any) -> list[ToolCallChunk]:
    """OpenAI's raw tool calls as tool-call chunks (arguments left as text; an entry
    without ``function`` gives a chunk with no name and no arguments)."""
    chunks: list[ToolCallChunk] = []
    for raw in raw_calls:
        function = raw.get("function", {"name": None, "arguments": None})
        chunks.append(
            {  # type: ignore[typeddict-item]
                "name": function["name"],
                "args": function["arguments"],
                "id": raw.get("id"),
                "index": raw.get("index"),
            }
        )
    return chunks


# LangChain's standard content block types (kept as they are by content_blocks)
_STANDARD_BLOCK_TYPES = frozenset(
    {
        "text",
        "reasoning",
        "image",
        "video",
        "audio",
        "file",
        "text-plain",
        "tool_call",
        "tool_call_chunk",
        "invalid_tool_call",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "non_standard",
    }
)
# a data URL LangChain reads as base64: a mime type up to the ';', data on one line (a
# final newline allowed, not kept)
_DATA_URL = re.compile(r"data:(?P<mime>[^;]+);base64,(?P<data>.+)$")


def _standard_block(block: Any) -> dict[str, Any]:
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if not isinstance(block, dict):
        return {"type": "non_standard", "value": block}
    if block.get("type") in _STANDARD_BLOCK_TYPES:
        return block
    if block.get("type") == "image_url":
        return _image_block(block) or {"type": "non_standard", "value": block}
    return {"type": "non_standard", "value": block}


def _image_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """An OpenAI ``image_url`` block as an ``image`` block, where LangChain converts it:
    no keys but type, image_url and detail, and a string url. Extras: a top-level detail,
    then the url dict's other keys (its detail as it is, the rest as ``image_url_<key>``),
    None values left out."""
    image = block.get("image_url")
    if not set(block) <= {"type", "image_url", "detail"} or not isinstance(image, dict):
        return None
    url = image.get("url")
    if not isinstance(url, str):
        return None
    found = _DATA_URL.match(url)
    values = {"base64": found["data"], "mime_type": found["mime"]} if found else {"url": url}
    extras = {k: v for k, v in block.items() if k == "detail"}
    for key, value in image.items():
        if key != "url":
            extras[key if key == "detail" else f"image_url_{key}"] = value
    return _data_block("image", extras, **values)


def _data_block(kind: str, extras: dict[str, Any], **values: Any) -> dict[str, Any]:
    """A v1 data block as LangChain builds one from another form: ``type``, a new
    ``lc_`` id, ``values``, then ``extras`` (None values left out) where any are left."""
    block: dict[str, Any] = {"type": kind, "id": f"lc_{uuid.uuid4()}", **values}
    kept = {key: value for key, value in extras.items() if value is not None}
    if kept:
        block["extras"] = kept
    return block


def _standard_blocks(content: Content) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [_standard_block(block) for block in content]


def _banner(title: str, *, bold: bool = False) -> str:
    padded = f" {title} "
    side = "=" * ((80 - len(padded)) // 2)
    if bold:
        padded = f"\033[1m{padded}\033[0m"
    return f"{side}{padded}{side}{'=' if len(f' {title} ') % 2 else ''}"


class BaseMessageChunk(BaseMessage):
    """A streamed piece of a message; chunks of the same class add up with ``+``."""

    def __add__(self, other: Any) -> Any:
        if type(other) is type(self):
            return type(self)(**self._merged_fields(other))
        if isinstance(other, list):  # as LangChain's: plus a list is the sum (a reply
            # chunk takes a tuple too: AIMessageChunk)
            total = self
            for chunk in other:
                if type(chunk) is not type(self):
                    return NotImplemented
                total = total + chunk
            return total
        return NotImplemented

    def _merged_fields(self, other: Any) -> dict[str, Any]:
        # no "name": LangChain's sum of two chunks has none, even when both had the same
        # (a function message's chunk keeps its function's name: FunctionMessageChunk);
        # the left one's id, even when it has none (AIMessageChunk chooses between two)
        return {
            "content": _merge_content(self.content, other.content),
            "additional_kwargs": _merge_dicts(self.additional_kwargs, other.additional_kwargs),
            "response_metadata": {
                **self.response_metadata,
                **{k: v for k, v in other.response_metadata.items() if v is not None},
            },
            "id": self.id,
        }


@dataclass(repr=False, kw_only=True, match_args=False)
class SystemMessage(BaseMessage):
    """Instructions for the model, usually the first message.

    Example:
        >>> SystemMessage("Answer briefly.").type
        'system'
    """

    type: ClassVar[str] = "system"


@dataclass(repr=False, kw_only=True, match_args=False)
class HumanMessage(BaseMessage):
    """A message from the user.

    Example:
        >>> HumanMessage("What is RAG?").text
        'What is RAG?'
    """

    type: ClassVar[str] = "human"


@dataclass(repr=False, kw_only=True, match_args=False)
class ChatMessage(BaseMessage):
    """A message with any role name (for providers with roles beyond the usual four).

    Example:
        >>> ChatMessage("hi", role="critic").role
        'critic'
    """

    type: ClassVar[str] = "chat"
    role: str


@dataclass(repr=False, kw_only=True, match_args=False)
class AIMessage(BaseMessage):
    """A reply from the model, with any tool calls and token usage.

    Args:
        content: the reply text.
        tool_calls: tools the model asked to call (``{"name", "args", "id"}`` dicts).
        invalid_tool_calls: tool calls whose arguments could not be parsed.
        usage_metadata: token counts (``input_tokens``, ``output_tokens``, ``total_tokens``).

    Example:
        >>> AIMessage("Paris.", usage_metadata={"input_tokens": 9, "output_tokens": 2,
        ...     "total_tokens": 11}).usage_metadata["total_tokens"]
        11
    """

    type: ClassVar[str] = "ai"
    tool_calls: list[ToolCall] = field(default_factory=list)
    invalid_tool_calls: list[InvalidToolCall] = field(default_factory=list)
    usage_metadata: UsageMetadata | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tool_calls is None or self.invalid_tool_calls is None:
            # LangChain: pydantic's ValidationError, a ValueError (two plain attribute
            # reads: every streamed chunk is built through here)
            name = "tool_calls" if self.tool_calls is None else "invalid_tool_calls"
            raise InvalidInputError(
                f"{type(self).__name__}'s {name} must be a list of tool-call dicts "
                "(leave it out for none), got None"
            )
        raw_calls = (
            self.additional_kwargs.get("tool_calls")
            if isinstance(self.additional_kwargs, dict)
            else None
        )
        if raw_calls and not (
            self.tool_calls or self.invalid_tool_calls or getattr(self, "tool_call_chunks", None)
        ):
            # as LangChain: a reply carrying only OpenAI's raw tool calls (older models put
            # them in additional_kwargs) gets them parsed; one it cannot read keeps none
            with contextlib.suppress(Exception):  # LangChain logs it at debug level
                self._adopt_raw_tool_calls(raw_calls)
        # LangChain rebuilds each call: name, args, id first, whatever order it came in
        self.tool_calls = [_ordered_tool_call(call) for call in self.tool_calls]
        if self.usage_metadata is not None:
            self.usage_metadata = _ordered_usage(self.usage_metadata)
        self.invalid_tool_calls = [
            _ordered_invalid_tool_call(call) for call in self.invalid_tool_calls
        ]

    def _adopt_raw_tool_calls(self, raw_calls: Any) -> None:
        self.tool_calls, self.invalid_tool_calls = _raw_function_calls(raw_calls)

    @property
    def content_blocks(self) -> list[dict[str, Any]]:
        """The content's standard blocks, then a ``tool_call`` block for each tool call
        with an id the content does not already hold (a call without an id adds none, as
        in LangChain)."""
        blocks = _standard_blocks(self.content)
        present = {b.get("id") for b in blocks if b.get("type") == "tool_call"}
        for call in self.tool_calls:
            if call.get("id") and call.get("id") not in present:
                blocks.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": call["name"],
                        "args": call["args"],
                    }
                )
        return blocks

    def pretty_repr(self, html: bool = False) -> str:
        """The banner and content, then the tool calls (name, id, arguments)."""
        lines: list[str] = []
        for heading, calls in (
            ("Tool Calls:", self.tool_calls),
            ("Invalid Tool Calls:", self.invalid_tool_calls),
        ):
            if calls:
                lines.append(heading)
            for call in calls:
                lines += [f"  {call.get('name', 'Tool')} ({call.get('id')})"]
                lines += [f" Call ID: {call.get('id')}"]
                if call.get("error"):
                    lines.append(f"  Error: {call.get('error')}")
                lines.append("  Args:")
                args = call.get("args")
                if isinstance(args, str):
                    lines.append(f"    {args}")
                elif isinstance(args, dict):
                    lines += [f"    {key}: {value}" for key, value in args.items()]
        base = super().pretty_repr(html=html)
        return (base.strip() + "\n" + "\n".join(lines)).strip()


@dataclass(repr=False, kw_only=True, match_args=False)
class ToolMessage(BaseMessage):
    """The result of a tool call, sent back to the model.

    Args:
        content: the tool's output as text (other values are turned into text, as
            LangChain does: ``ToolMessage(36, ...)`` has content ``"36"``; in a list,
            items other than strings and dicts become text).
        tool_call_id: the ``id`` of the tool call this answers (a number or a UUID
            becomes its text).
        status: ``"success"`` or ``"error"``.
        artifact: the tool's full output, kept for the program and not sent to the model.

    Example:
        >>> ToolMessage("42", tool_call_id="call_1").tool_call_id
        'call_1'
        >>> ToolMessage(42, tool_call_id="call_1").content
        '42'
    """

    type: ClassVar[str] = "tool"
    tool_call_id: str
    status: Literal["success", "error"] = "success"
    artifact: Any = None
    _dump_keys = (*_HEAD_KEYS, "tool_call_id", "artifact", "status")  # LangChain's order

    def _printed_fields(self) -> list[tuple[str, Any]]:
        shown = [
            (name, value)
            for name, value in super()._printed_fields()
            if name not in ("additional_kwargs", "response_metadata")
        ]
        order = ("content", "name", "id", "tool_call_id", "artifact", "status")
        return sorted(shown, key=lambda item: order.index(item[0]) if item[0] in order else 99)

    def __post_init__(self) -> None:
        content: Any = self.content
        if isinstance(content, tuple):
            content = list(content)
        if isinstance(content, list):
            content = [block if isinstance(block, (str, dict)) else str(block) for block in content]
        elif not isinstance(content, str):
            content = str(content)
        self.content = content
        # as LangChain: ids that are numbers or UUIDs become their text
        if isinstance(self.tool_call_id, (int, float, uuid.UUID)):
            self.tool_call_id = str(self.tool_call_id)
        elif not isinstance(self.tool_call_id, str):
            raise InvalidInputError(
                f"tool_call_id must be a str (or a number or UUID), got "
                f"{type(self.tool_call_id).__name__}: {self.tool_call_id!r:.60}"
            )
        super().__post_init__()


@dataclass(repr=False, kw_only=True, match_args=False)
class FunctionMessage(BaseMessage):
    """The result of an OpenAI-style function call (the older form of ``ToolMessage``).

    Args:
        content: the function's output as text.
        name: the name of the function that was called (required).

    Example:
        >>> FunctionMessage("42", name="multiply").name
        'multiply'
    """

    type: ClassVar[str] = "function"
    name: str  # type: ignore[assignment]  # required here, optional on other messages

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInputError(
                f"FunctionMessage needs the function's name, got name={self.name!r}"
            )


@dataclass(repr=False, kw_only=True, match_args=False, init=False)
class RemoveMessage(BaseMessage):
    """Asks a message list's owner to drop the message with this id (LangGraph's
    ``add_messages`` reads it); it holds no text.

    Args:
        id: the id of the message to remove (the one positional argument).

    Raises:
        InvalidInputError: (a ValueError) given non-empty ``content``.

    Example:
        >>> RemoveMessage(id="msg-1")
        RemoveMessage(content='', additional_kwargs={}, response_metadata={}, id='msg-1')
    """

    type: ClassVar[str] = "remove"
    content: Content = field(default_factory=str)  # a factory: printed, as LangChain's
    id: str = field()  # type: ignore[assignment]  # required here, optional elsewhere

    def __init__(self, id: str, **fields: Any) -> None:  # id first, positional, as LangChain
        super().__init__(fields.pop("content", ""), id=id, **fields)

    def __post_init__(self) -> None:
        if self.content not in ("", []):
            raise InvalidInputError(
                f"RemoveMessage carries no content, only the id of the message to remove; "
                f"got content={self.content!r:.60}"
            )
        super().__post_init__()


@dataclass(repr=False, kw_only=True, match_args=False)
class SystemMessageChunk(SystemMessage, BaseMessageChunk):
    """A streamed piece of a system message."""

    type: ClassVar[str] = "SystemMessageChunk"


@dataclass(repr=False, kw_only=True, match_args=False)
class HumanMessageChunk(HumanMessage, BaseMessageChunk):
    """A streamed piece of a human message."""

    type: ClassVar[str] = "HumanMessageChunk"


@dataclass(repr=False, kw_only=True, match_args=False)
class ChatMessageChunk(ChatMessage, BaseMessageChunk):
    """A streamed piece of a message with a custom role; only chunks of one role add up."""

    type: ClassVar[str] = "ChatMessageChunk"

    def _merged_fields(self, other: Any) -> dict[str, Any]:
        if other.role != self.role:
            raise InvalidInputError(
                f"cannot add ChatMessageChunks of different roles: {self.role!r} and {other.role!r}"
            )
        return {**super()._merged_fields(other), "role": self.role}


@dataclass(repr=False, kw_only=True, match_args=False)
class FunctionMessageChunk(FunctionMessage, BaseMessageChunk):
    """A streamed piece of a function message; only chunks of one function add up."""

    type: ClassVar[str] = "FunctionMessageChunk"

    def _merged_fields(self, other: Any) -> dict[str, Any]:
        if other.name != self.name:
            raise InvalidInputError(
                f"cannot add FunctionMessageChunks of different functions: {self.name!r} "
                f"and {other.name!r}"
            )
        return {**super()._merged_fields(other), "name": self.name}


@dataclass(repr=False, kw_only=True, match_args=False)
class ToolMessageChunk(ToolMessage, BaseMessageChunk):
    """A streamed piece of a tool message; only chunks for the same tool call add up."""

    type: ClassVar[str] = "ToolMessageChunk"

    def _merged_fields(self, other: Any) -> dict[str, Any]:
        if other.tool_call_id != self.tool_call_id:
            raise InvalidInputError(
                f"cannot add ToolMessageChunks of different tool calls: "
                f"{self.tool_call_id!r} and {other.tool_call_id!r}"
            )
        return {
            **super()._merged_fields(other),
            "tool_call_id": self.tool_call_id,
            "status": "error" if "error" in (self.status, other.status) else "success",
            "artifact": _merge_artifacts(self.artifact, other.artifact),
        }


@dataclass(repr=False, kw_only=True, match_args=False)
class AIMessageChunk(AIMessage, BaseMessageChunk):
    """A streamed piece of a model reply; ``chunk + chunk`` builds up the whole reply.

    Tool calls arrive as ``tool_call_chunks`` whose ``args`` are JSON text split across
    chunks. ``tool_calls`` is always derived from them: fragments with the same ``index``
    are joined and their arguments parsed (a still-incomplete JSON object parses to what
    has arrived so far).

    Example:
        >>> a = AIMessageChunk("", tool_call_chunks=[
        ...     {"name": "search", "args": '{"q": "ra', "id": "c1", "index": 0}])
        >>> b = AIMessageChunk("", tool_call_chunks=[
        ...     {"name": None, "args": 'g"}', "id": None, "index": 0}])
        >>> (a + b).tool_calls[0]["args"]
        {'q': 'rag'}
    """

    type: ClassVar[str] = "AIMessageChunk"
    tool_call_chunks: list[ToolCallChunk] = field(default_factory=list)
    chunk_position: Literal["last"] | None = None
    """``"last"`` on the closing piece of a streamed reply (and on any sum that includes
    it), as LangChain 1.x marks it; ``None`` otherwise."""

    def _adopt_raw_tool_calls(self, raw_calls: Any) -> None:
        self.tool_call_chunks = _raw_function_chunks(raw_calls)

    def __post_init__(self) -> None:
        super().__post_init__()
        # LangChain rebuilds each piece with its keys in this order, missing ones None
        self.tool_call_chunks = [
            cast(
                ToolCallChunk,
                {
                    **{key: chunk.get(key) for key in _CHUNK_KEYS},
                    **chunk,
                    "type": "tool_call_chunk",
                },
            )
            for chunk in self.tool_call_chunks
        ]
        if self.tool_call_chunks:
            self.tool_calls, self.invalid_tool_calls = _parse_tool_call_chunks(
                self.tool_call_chunks
            )
        elif self.tool_calls or self.invalid_tool_calls:
            # calls given whole: each is also a piece (index None), as LangChain's chunk has
            self.tool_call_chunks = _whole_call_chunks(self.tool_calls, self.invalid_tool_calls)

    def __add__(self, other: Any) -> Any:
        if type(other) is type(self):
            return type(self)(**self._merged_fields(other))
        if isinstance(other, (list, tuple)) and all(
            isinstance(chunk, AIMessageChunk) for chunk in other
        ):  # as LangChain's: a chunk plus a list of chunks is their sum
            return add_ai_message_chunks([self, *other])
        return NotImplemented

    def _merged_fields(self, other: Any) -> dict[str, Any]:
        merged = super()._merged_fields(other)
        if other.id and other.id != self.id:  # two ids: LangChain's choice between them
            merged["id"] = _preferred_id(self.id, other.id)
        merged["usage_metadata"] = _add_usage(self.usage_metadata, other.usage_metadata)
        chunks = _merge_tool_call_chunks(self.tool_call_chunks, other.tool_call_chunks)
        merged["tool_call_chunks"] = chunks
        if "last" in (self.chunk_position, other.chunk_position):
            merged["chunk_position"] = "last"
        # tool calls given whole are pieces too (__post_init__), so the merged pieces
        # hold every call and the sum parses them
        return merged

    def to_message(self) -> AIMessage:
        """The finished reply as an ``AIMessage`` (what ``invoke`` would have returned).

        Example:
            >>> message = (AIMessageChunk("a") + AIMessageChunk("b")).to_message()
            >>> type(message).__name__, message.content
            ('AIMessage', 'ab')
        """
        return AIMessage(
            self.content,
            additional_kwargs=self.additional_kwargs,
            response_metadata=self.response_metadata,
            name=self.name,
            id=self.id,
            tool_calls=list(self.tool_calls),
            invalid_tool_calls=list(self.invalid_tool_calls),
            usage_metadata=self.usage_metadata,
        )


def _accept_langchain_keywords(cls: type[BaseMessage]) -> None:
    """Let ``cls(...)`` take what LangChain's messages take besides their fields:
    ``type=`` when it names the class's own type (``HumanMessage(**message.dict())``
    rebuilds a dumped message), and any other keyword as an extra field (LangChain's
    messages allow extra fields: ``HumanMessage("hi", example=True)``), kept as an
    attribute, printed and dumped after the fields."""
    init = cls.__init__
    known = frozenset(spec.name for spec in fields(cls))

    def __init__(self: BaseMessage, *args: Any, **kwargs: Any) -> None:
        if "type" in kwargs:
            given = kwargs.pop("type")
            if given != self.type:
                raise InvalidInputError(
                    f"{type(self).__name__} has type {self.type!r}, got type={given!r}"
                )
        if known.issuperset(kwargs):
            init(self, *args, **kwargs)
            return
        extra = {name: kwargs.pop(name) for name in list(kwargs) if name not in known}
        taken = [name for name in extra if name.startswith("_") or hasattr(type(self), name)]
        if taken:
            raise InvalidInputError(
                f"{type(self).__name__} cannot take {', '.join(map(repr, taken))} as an extra "
                f"field: {'it is' if len(taken) == 1 else 'they are'} private or the name of "
                "a method or property"
            )
        init(self, *args, **kwargs)
        for name, value in extra.items():
            setattr(self, name, value)
        self._extra_names = tuple(extra)

    equal = cls.__eq__

    def __eq__(self: BaseMessage, other: Any) -> Any:
        same = equal(self, other)
        if same is True and (self._extra_names or other._extra_names):
            return _extras(self) == _extras(other)  # extra fields count, as in pydantic
        return same

    __init__.__wrapped__ = init  # type: ignore[attr-defined]  # the real signature
    __init__.__doc__ = init.__doc__
    cls.__init__ = __init__  # type: ignore[method-assign]
    cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]


def _extras(message: BaseMessage) -> dict[str, Any]:
    """The extra fields a message was given (name -> value)."""
    return {name: getattr(message, name) for name in message._extra_names}


for _message_class in (
    SystemMessage,
    HumanMessage,
    ChatMessage,
    AIMessage,
    ToolMessage,
    FunctionMessage,
    RemoveMessage,
    SystemMessageChunk,
    HumanMessageChunk,
    ChatMessageChunk,
    FunctionMessageChunk,
    ToolMessageChunk,
    AIMessageChunk,
):
    _accept_langchain_keywords(_message_class)


AnyMessage = SystemMessage | HumanMessage | AIMessage | ToolMessage | ChatMessage | FunctionMessage
# Anything convert_to_messages accepts for one message.
MessageLike = BaseMessage | str | tuple[str, Any] | dict[str, Any]


def add_ai_message_chunks(chunks: Sequence[AIMessageChunk]) -> AIMessageChunk:
    """The sum of streamed reply chunks: ``chunks[0] + chunks[1] + ...``, in one step.

    A streamed reply is mostly text chunks; summing them one ``+`` at a time builds a
    message per chunk (a run reports its added-up input, so this is on every streamed
    parser run). Text-only chunks are joined in one go; anything else (tool-call
    fragments, provider extras, other content) is added one by one.

    Example:
        >>> total = add_ai_message_chunks([AIMessageChunk("a", id="r"), AIMessageChunk("b")])
        >>> total.content, total.id
        ('ab', 'r')
    """
    plain = all(
        type(chunk) is AIMessageChunk
        and isinstance(chunk.content, str)
        and not chunk.additional_kwargs
        and not chunk.tool_call_chunks
        and not chunk.tool_calls
        and not chunk.invalid_tool_calls
        for chunk in chunks
    )
    if not plain:
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        return total
    metadata: dict[str, Any] = dict(chunks[0].response_metadata)  # the first keeps Nones
    usage: UsageMetadata | None = None
    id = position = None
    for index, chunk in enumerate(chunks):
        if chunk.response_metadata and index:
            metadata.update((k, v) for k, v in chunk.response_metadata.items() if v is not None)
        if chunk.usage_metadata is not None:
            usage = _add_usage(usage, chunk.usage_metadata)
        if chunk.id and chunk.id != id:
            id = _preferred_id(id, chunk.id)
        position = chunk.chunk_position or position
    text = "".join(cast(str, chunk.content) for chunk in chunks)
    return AIMessageChunk(
        text,
        response_metadata=metadata,
        id=id,
        usage_metadata=usage,
        chunk_position=position,
    )


def _merge_artifacts(left: Any, right: Any) -> Any:
    """Two tool message chunks' artifacts added up as LangChain's: one if the other is
    None, else text joined, dicts and lists merged as streamed parts, equal values kept."""
    if left is None or right is None:
        return left if right is None else right
    if type(left) is not type(right):
        raise ArgumentTypeError(
            f"cannot add artifacts of different types: {type(left).__name__} and "
            f"{type(right).__name__}"
        )
    if isinstance(left, str):
        return left + right
    if isinstance(left, dict):
        return _merge_dicts(left, right)
    if isinstance(left, list):
        return _merge_content(left, right)
    if left == right:
        return left
    raise InvalidInputError(
        f"cannot add artifacts {left!r:.60} and {right!r:.60}: only str, dict and list "
        "artifacts add up, or two equal ones"
    )


def _preferred_id(left: str | None, right: str | None) -> str | None:
    """The id of two reply chunks' sum, as LangChain picks it: a provider's id (one not
    starting ``lc_``) over a run's ``lc_run-`` id over another ``lc_`` id; the first of
    equals."""
    if not right or left == right:
        return left
    if not left:
        return right
    if not left.startswith("lc_"):
        return left
    if not right.startswith("lc_"):
        return right
    return right if right.startswith("lc_run-") and not left.startswith("lc_run-") else left


def _merge_content(left: Content, right: Content) -> Content:
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    left_list = ([left] if left else []) if isinstance(left, str) else list(left)
    right_list = ([right] if right else []) if isinstance(right, str) else list(right)
    merged: list[str | dict[str, Any]] = list(left_list)
    for block in right_list:
        # Providers stream a content block in pieces that share an "index"; join them.
        if isinstance(block, dict) and "index" in block:
            for position, earlier in enumerate(merged):
                if isinstance(earlier, dict) and earlier.get("index") == block["index"]:
                    merged[position] = _merge_dicts(earlier, block)
                    break
            else:
                merged.append(block)
        else:
            merged.append(block)
    return merged


def _merge_dicts(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Merge streamed dicts: strings concatenate, dicts merge, equal values stay once."""
    merged = dict(left)
    for key, value in right.items():
        if key not in merged or merged[key] is None:
            merged[key] = value
        elif value is None or value == merged[key] or key in ("type", "index"):
            continue
        elif isinstance(value, str) and isinstance(merged[key], str):
            merged[key] += value
        elif isinstance(value, dict) and isinstance(merged[key], dict):
            merged[key] = _merge_dicts(merged[key], value)
        elif isinstance(value, list) and isinstance(merged[key], list):
            merged[key] = merged[key] + value
        else:
            merged[key] = value
    return merged


_USAGE_ORDER = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_token_details",
    "output_token_details",
)
_DETAILS_ORDER = {
    "input_token_details": ("audio", "cache_creation", "cache_read"),
    "output_token_details": ("audio", "reasoning"),
}


def _ordered_usage(usage: Any) -> Any:
    """``usage`` with LangChain's key order (its ``UsageMetadata`` TypedDict's, as its
    validation leaves them): the known keys in declared order, details too, then any
    other keys as given. A new dict; a non-dict is returned as it is."""
    if not isinstance(usage, dict):
        return usage
    ordered = {key: usage[key] for key in _USAGE_ORDER if key in usage}
    for key, order in _DETAILS_ORDER.items():
        details = ordered.get(key)
        if isinstance(details, dict):
            known = {name: details[name] for name in order if name in details}
            ordered[key] = {**known, **details}
    for key, value in usage.items():
        ordered.setdefault(key, value)
    return ordered


def add_usage(left: UsageMetadata | None, right: UsageMetadata | None) -> UsageMetadata:
    """The sum of two usage records, count by count (nested details too).

    A missing or empty record (``None``, ``{}``) adds nothing: the other one is returned
    as it is, and two of them give zero counts. The sum lists its keys in the order of a set
    of both records' keys, as LangChain's ``add_usage`` does, so a program printing it
    prints the same in both libraries (that order depends on ``PYTHONHASHSEED``).

    Example:
        >>> add_usage({"input_tokens": 2, "output_tokens": 1, "total_tokens": 3}, None)
        {'input_tokens': 2, 'output_tokens': 1, 'total_tokens': 3}
        >>> add_usage(None, None)
        {'input_tokens': 0, 'output_tokens': 0, 'total_tokens': 0}
    """
    if not (left or right):
        return UsageMetadata(input_tokens=0, output_tokens=0, total_tokens=0)
    if not (left and right):
        return cast(UsageMetadata, left or right)
    return cast(UsageMetadata, _sum_counts(dict(left), dict(right), set_order=True))


def _add_usage(left: UsageMetadata | None, right: UsageMetadata | None) -> UsageMetadata | None:
    if left is None or right is None:
        return left if right is None else right
    return cast(UsageMetadata, _sum_counts(dict(left), dict(right)))


def _sum_counts(
    left: dict[str, Any], right: dict[str, Any], *, set_order: bool = False
) -> dict[str, Any]:
    """The two records summed count by count (nested details too), their keys in order of
    appearance (``left``'s, then ``right``'s new ones), or with ``set_order`` in the
    order of a set of both (:func:`add_usage`'s, as LangChain's)."""
    # a set built from left's keys, then right's added in right's order: the very order
    # LangChain's set(left).union(right) gives (set(left) | set(right) can differ)
    keys = set(left).union(right) if set_order else dict.fromkeys([*left, *right])
    total: dict[str, Any] = {}
    for key in keys:
        mine, theirs = left.get(key), right.get(key)
        if isinstance(mine, dict) or isinstance(theirs, dict):
            total[key] = _sum_counts(mine or {}, theirs or {}, set_order=set_order)
        else:
            total[key] = (mine or 0) + (theirs or 0)
    return total


_CHUNK_KEYS = ("name", "args", "id", "index")


def _merge_tool_call_chunks(
    left: list[ToolCallChunk], right: list[ToolCallChunk]
) -> list[ToolCallChunk]:
    merged: list[dict[str, Any]] = [dict(chunk) for chunk in left]
    for chunk in right:
        target: dict[str, Any] | None = None
        if chunk.get("index") is not None:
            target = next((c for c in merged if c.get("index") == chunk["index"]), None)
        if target is None:
            merged.append(dict(chunk))
            continue
        for key in ("name", "args"):
            piece: str | None = chunk.get(key)  # type: ignore[assignment]
            if piece:
                target[key] = (target.get(key) or "") + piece
        if target.get("id") is None:
            target["id"] = chunk.get("id")
    return cast(list[ToolCallChunk], merged)


def _whole_call_chunks(
    tool_calls: Sequence[ToolCall], invalid_tool_calls: Sequence[InvalidToolCall]
) -> list[ToolCallChunk]:
    """Whole tool calls as pieces: arguments as JSON text (invalid ones as given), no index."""
    pieces: list[ToolCallChunk] = []
    for call in tool_calls:
        try:
            args = json.dumps(call["args"])
        except TypeError as err:
            raise InvalidInputError(
                f"tool call {call.get('name')!r} has arguments that are not JSON: {err}"
            ) from err
        pieces.append(_whole_piece(call.get("name"), args, call.get("id")))
    for invalid in invalid_tool_calls:
        pieces.append(_whole_piece(invalid.get("name"), invalid.get("args"), invalid.get("id")))
    return pieces


def _whole_piece(name: Any, args: Any, call_id: Any) -> ToolCallChunk:
    piece = {"name": name, "args": args, "id": call_id, "index": None, "type": "tool_call_chunk"}
    return cast(ToolCallChunk, piece)


def _parse_tool_call_chunks(
    chunks: list[ToolCallChunk],
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for chunk in chunks:
        raw: str = chunk.get("args") or ""
        args: Any
        try:
            args = parse_partial_json(raw) if raw.strip() else {}
        except ValueError:
            args = None
        if isinstance(args, dict):
            calls.append(
                {
                    "name": chunk.get("name") or "",
                    "args": args,
                    "id": chunk.get("id"),
                    "type": "tool_call",
                }
            )
        else:  # no error text, as LangChain's chunks give none
            invalid.append(
                {
                    "name": chunk.get("name"),
                    "args": raw,
                    "id": chunk.get("id"),
                    "error": None,
                    "type": "invalid_tool_call",
                }
            )
    return calls, invalid


_ROLE_CLASSES: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "tool": ToolMessage,
    "function": FunctionMessage,
}
VALID_ROLES = tuple(_ROLE_CLASSES)


def _unknown_role(role: Any, item: Any, valid: Sequence[str] = VALID_ROLES) -> InvalidInputError:
    # NotAMessageError: printed as ValueError, the class LangChain raises there
    options = ", ".join(repr(name) for name in valid)
    return NotAMessageError(f"unknown message role {role!r} in {item!r}; valid roles are {options}")


def _message_from_role(role: Any, content: Any, item: Any, **extra: Any) -> BaseMessage:
    if role == "developer":  # OpenAI's newer name for system: LangChain marks it so
        kwargs = {**extra.pop("additional_kwargs", {}), "__openai_role__": "developer"}
        return SystemMessage(content, additional_kwargs=kwargs, **extra)
    if role == "remove":  # LangChain reads it too; its id comes as a keyword
        return RemoveMessage(content=content, **extra)
    message_class = _ROLE_CLASSES.get(role) if isinstance(role, str) else None
    if message_class is None:
        raise _unknown_role(role, item)
    if message_class is ToolMessage and "tool_call_id" not in extra:
        raise InvalidInputError(f"a tool message needs a 'tool_call_id': {item!r}")
    if message_class is FunctionMessage and "name" not in extra:
        raise InvalidInputError(f"a function message needs a 'name': {item!r}")
    return message_class(content, **extra)


# Keys of a message dict read as fields; the rest go to additional_kwargs, as in LangChain.
_DICT_FIELD_KEYS = frozenset(
    {
        "content",
        "name",
        "id",
        "tool_call_id",
        "tool_calls",
        "additional_kwargs",
        "response_metadata",
    }
)


def _tool_call_from_dict(call: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-format tool call (``{"id", "function": {"name", "arguments"}}``, the
    arguments a JSON string) as a ToolCall; a ToolCall-shaped dict as it is."""
    if "function" not in call:
        return call
    arguments = call["function"]["arguments"]
    if isinstance(arguments, str):
        arguments = json.loads(arguments, strict=False)
    return {
        "name": call["function"]["name"],
        "args": arguments,
        "id": call["id"],
        "type": "tool_call",
    }


def _dict_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The message fields a ``{"role": ..., "content": ...}`` dict gives: name, id,
    tool_call_id, an assistant's tool_calls (OpenAI's form too), response_metadata, and
    every other key in additional_kwargs (its own ``additional_kwargs`` merged last)."""
    role_key = "role" if "role" in item else "type"
    role = item[role_key]
    message_class = _ROLE_CLASSES.get(role) if isinstance(role, str) else None
    fields_: dict[str, Any] = {
        k: item[k] for k in ("name", "id", "tool_call_id") if item.get(k) is not None
    }
    additional = {k: v for k, v in item.items() if k != role_key and k not in _DICT_FIELD_KEYS}
    additional.update(item.get("additional_kwargs") or {})
    if message_class is ToolMessage:
        for key in ("artifact", "status"):
            if key in additional:
                fields_[key] = additional.pop(key)
    if message_class is AIMessage and item.get("tool_calls") is not None:
        fields_["tool_calls"] = [_tool_call_from_dict(call) for call in item["tool_calls"]]
    if item.get("response_metadata"):
        fields_["response_metadata"] = item["response_metadata"]
    if additional:
        fields_["additional_kwargs"] = additional
    return fields_


def convert_to_messages(messages: Iterable[MessageLike]) -> list[BaseMessage]:
    """Turn message-like values into messages.

    Accepts messages, plain strings (human messages), ``(role, content)`` tuples (or
    two-item lists) and
    OpenAI-style dicts ``{"role": ..., "content": ...}``. Roles: ``system``
    (``developer`` too: a system message whose ``additional_kwargs`` say
    ``"__openai_role__": "developer"``, as LangChain marks it), ``human``/``user``,
    ``ai``/``assistant``, ``tool`` (with a ``tool_call_id``) and ``function`` (with a
    ``name``).

    Args:
        messages: the values to convert.

    Returns:
        A new list of messages.

    Raises:
        InvalidInputError: an unknown role or a value that is not message-like; the
            message names the valid roles.

    Example:
        >>> convert_to_messages([("system", "Be brief."), "Hi"])  # doctest: +NORMALIZE_WHITESPACE
        [SystemMessage(content='Be brief.', additional_kwargs={}, response_metadata={}),
         HumanMessage(content='Hi', additional_kwargs={}, response_metadata={})]
    """
    if isinstance(messages, (str, BaseMessage)):
        messages = [messages]
    elif callable(to_messages := getattr(messages, "to_messages", None)):
        messages = to_messages()  # a prompt value: its messages, as LangChain's
    converted: list[BaseMessage] = []
    for item in messages:
        if isinstance(item, BaseMessage):
            converted.append(item)
        elif isinstance(item, str):
            converted.append(HumanMessage(item))
        elif isinstance(item, (tuple, list)) and len(item) == 2:  # a 2-list too, as LangChain
            converted.append(_message_from_role(item[0], item[1], item))
        elif isinstance(item, dict) and "content" in item and ("role" in item or "type" in item):
            role = item["role"] if "role" in item else item["type"]
            content = item["content"] or ""  # None (OpenAI's tool-call reply) or empty: ""
            converted.append(_message_from_role(role, content, item, **_dict_fields(item)))
        else:
            raise InvalidInputError(
                f"cannot turn {item!r} into a message; expected a message, a string, a "
                f"(role, content) tuple or a {{'role': ..., 'content': ...}} dict"
            )
    return converted


# a message's OpenAI role by its class, so chunks take their message's role
_OPENAI_ROLES: tuple[tuple[type[BaseMessage], str], ...] = (
    (HumanMessage, "user"),
    (AIMessage, "assistant"),
    (SystemMessage, "system"),
    (ToolMessage, "tool"),
    (FunctionMessage, "function"),
)


def _openai_content(content: Content, text_format: str) -> str | list[Any]:
    """Content as OpenAI's API takes it: ``"string"`` keeps text as a string (all-text
    block lists joined by newlines), ``"block"`` makes every text a text block."""
    if isinstance(content, str):
        if text_format == "string":
            return content
        return [{"type": "text", "text": content}] if content else []
    texts = [b if isinstance(b, str) else _block_text(b) for b in content]
    if text_format == "string" and all(t is not None for t in texts):
        return "\n".join(cast(list[str], texts))
    # text blocks go out as type and text only (their other keys left behind)
    return [
        b if t is None else {"type": "text", "text": t} for b, t in zip(content, texts, strict=True)
    ]


def _block_text(block: Any) -> str | None:
    """A text block's text; None for any other block."""
    is_text = isinstance(block, dict) and block.get("type") == "text"
    return block["text"] if is_text and isinstance(block.get("text"), str) else None


def _openai_message(message: BaseMessage, text_format: str) -> dict[str, Any]:
    if isinstance(message, RemoveMessage):  # printed ValueError, as LangChain's
        raise NotAMessageError(
            f"a RemoveMessage (id={message.id!r}) has no OpenAI form: drop removals first"
        )
    if isinstance(message, ChatMessage):
        role = message.role
    elif isinstance(message, SystemMessage) and (
        message.additional_kwargs.get("__openai_role__") == "developer"
    ):
        role = "developer"
    else:
        role = next((r for c, r in _OPENAI_ROLES if isinstance(message, c)), message.type)
    entry: dict[str, Any] = {"role": role}
    if message.name is not None:
        entry["name"] = message.name
    if isinstance(message, AIMessage) and message.tool_calls:
        entry["tool_calls"] = [
            {
                "type": "function",
                "id": call.get("id"),
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call["args"], ensure_ascii=False),
                },
            }
            for call in message.tool_calls
        ]
    if isinstance(message, ToolMessage):
        entry["tool_call_id"] = message.tool_call_id
    entry["content"] = _openai_content(message.content, text_format)
    return entry


def convert_to_openai_messages(
    messages: MessageLike | Iterable[MessageLike], *, text_format: str = "string"
) -> dict[str, Any] | list[dict[str, Any]]:
    """Messages as OpenAI chat-completions dicts (``{"role": ..., "content": ...}``).

    Roles: ``user``, ``assistant``, ``system`` (``developer`` for a system message marked
    so), ``tool`` (with ``tool_call_id``), ``function``, or a ``ChatMessage``'s own role;
    ``name`` when set; an AI message's tool calls as OpenAI's ``tool_calls`` (arguments as
    a JSON string).

    Args:
        messages: one message-like value (a dict comes back) or several (a list).
        text_format: ``"string"`` (text content as a string; a list of only text blocks
            joined by newlines) or ``"block"`` (text as ``{"type": "text"}`` blocks).

    Raises:
        InvalidInputError: an unknown ``text_format`` or a value that is not message-like.

    Example:
        >>> convert_to_openai_messages([("system", "Be brief."), "Hi"])
        [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]
    """
    if text_format not in ("string", "block"):
        raise InvalidInputError(f"text_format must be 'string' or 'block', got {text_format!r}")
    single = isinstance(messages, (BaseMessage, dict, str))
    converted = convert_to_messages([messages] if single else messages)  # type: ignore[list-item, arg-type]
    entries = [_openai_message(m, text_format) for m in converted]
    return entries[0] if single else entries


_BUFFER_PREFIXES = {"system": "System", "tool": "Tool", "function": "Function"}


def get_buffer_string(
    messages: Sequence[BaseMessage], human_prefix: str = "Human", ai_prefix: str = "AI"
) -> str:
    """Render messages as a transcript, one ``"Role: text"`` line per message.

    Args:
        messages: the conversation.
        human_prefix: label for human messages.
        ai_prefix: label for AI messages.

    Returns:
        The lines joined with newlines.

    Example:
        >>> get_buffer_string([HumanMessage("hi"), AIMessage("hello")])
        'Human: hi\\nAI: hello'
    """
    lines = []
    for message in messages:
        if isinstance(message, HumanMessage):
            role = human_prefix
        elif isinstance(message, AIMessage):
            role = ai_prefix
        elif isinstance(message, ChatMessage):
            role = message.role
        elif not isinstance(message, BaseMessage):  # printed ValueError, LangChain's
            raise NotAMessageError(
                f"get_buffer_string takes messages, got {type(message).__name__}: {message!r:.60}"
            )
        elif isinstance(message, RemoveMessage):  # the same error, as in LangChain
            raise NotAMessageError(
                f"get_buffer_string cannot write a RemoveMessage (id={message.id!r}) as a "
                "transcript line: drop removals from the list first"
            )
        else:
            role = _BUFFER_PREFIXES.get(message.type.replace("MessageChunk", "").lower(), "")
            role = role or type(message).__name__
        line = f"{role}: {message.text}"
        if isinstance(message, AIMessage):
            # a model's request to call tools is part of the transcript, as in LangChain
            if message.tool_calls:
                line += str(message.tool_calls)
            elif "function_call" in message.additional_kwargs:
                line += str(message.additional_kwargs["function_call"])
        lines.append(line)
    return "\n".join(lines)


def tool_call(*, name: str, args: dict[str, Any], id: str | None) -> ToolCall:
    """A tool call dict with its ``type`` key, as a model reply carries it.

    Example:
        >>> tool_call(name="search", args={"q": "cats"}, id="c1")
        {'name': 'search', 'args': {'q': 'cats'}, 'id': 'c1', 'type': 'tool_call'}
    """
    return ToolCall(name=name, args=args, id=id, type="tool_call")


def tool_call_chunk(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    index: int | None = None,
) -> ToolCallChunk:
    """A streamed tool-call fragment; fragments with the same ``index`` join when their
    chunks are added.

    Example:
        >>> tool_call_chunk(name="search", args='{"q": ', index=0)
        {'name': 'search', 'args': '{"q": ', 'id': None, 'index': 0, 'type': 'tool_call_chunk'}
    """
    return ToolCallChunk(name=name, args=args, id=id, index=index, type="tool_call_chunk")


def invalid_tool_call(
    *,
    name: str | None = None,
    args: str | None = None,
    id: str | None = None,
    error: str | None = None,
) -> InvalidToolCall:
    """A tool call whose arguments could not be parsed (``args`` is the raw text).

    Example:
        >>> invalid_tool_call(name="f", args="{oops", error="bad JSON")
        {'name': 'f', 'args': '{oops', 'id': None, 'error': 'bad JSON', 'type': 'invalid_tool_call'}
    """
    return InvalidToolCall(name=name, args=args, id=id, error=error, type="invalid_tool_call")


def message_chunk_to_message(chunk: Any) -> Any:
    """A streamed chunk as the finished message of its kind (``AIMessageChunk`` to
    ``AIMessage``, its ``tool_call_chunks`` left out, its ``tool_calls`` kept); anything
    that is not a chunk is returned as it is.

    Example:
        >>> message = message_chunk_to_message(AIMessageChunk("a") + AIMessageChunk("b"))
        >>> type(message).__name__, message.content
        ('AIMessage', 'ab')
    """
    if not isinstance(chunk, BaseMessageChunk):
        return chunk
    if isinstance(chunk, AIMessageChunk):
        return chunk.to_message()
    target = next(
        kind
        for kind in type(chunk).__mro__
        if issubclass(kind, BaseMessage) and not issubclass(kind, BaseMessageChunk)
    )
    return target(**{f.name: getattr(chunk, f.name) for f in fields(target) if f.init})

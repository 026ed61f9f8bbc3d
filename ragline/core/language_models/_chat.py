"""``BaseChatModel``: messages in, an ``AIMessage`` out; and LangChain's ``SimpleChatModel``."""

from __future__ import annotations

import asyncio
import copy
import inspect
import uuid
from abc import abstractmethod
from typing import Any, ClassVar, cast

from ragline.core._json_schema import any_message_schema
from ragline.core.callbacks.manager import CallbackManager, _own_run_of
from ragline.core.language_models._base import BaseLanguageModel
from ragline.core.language_models._outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    ChatResult,
    LLMResult,
)
from ragline.core.messages import (
    _DATA_URL,
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    UsageMetadata,
    _data_block,
)
from ragline.core.prompts import PromptValue
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.binding import RunnableBinding

__all__ = ["BaseChatModel", "SimpleChatModel", "llm_output_of"]

_RUN_ID_PREFIX = "lc_run-"  # LangChain's: a reply's id is "lc_run--<run id>[-<index>]"

# Every streamed chunk of a run carries the same id; making its text (str of a UUID)
# for each chunk cost ~4% of a streamed run's astream_events. The last run's text is
# kept; the pair is swapped whole, so a concurrent run at worst makes its own again.
_last_stream_id: tuple[Any, str] = (None, "")


_DATA_BLOCK_TYPES = frozenset({"image", "audio", "file"})
# each v0 source: the key holding its value, and the keys it keeps as named keys (the
# rest of a block goes under "extras")
_V0_SOURCES = {
    "url": ("url", {"type", "source_type", "url", "mime_type"}),
    "base64": ("data", {"type", "source_type", "data", "mime_type"}),
    "id": ("id", {"type", "source_type", "id"}),
    "text": ("url", {"type", "source_type", "url", "mime_type"}),
}


def _v1_data_block(block: dict[str, Any]) -> dict[str, Any]:
    """A LangChain v0 data block (``source_type`` url / base64 / id / text) as the v1
    standard block LangChain's chat models hand their hook: ``url`` / ``base64`` (from
    ``data``) / ``file_id`` (a file also gets a new ``lc_`` id) / a ``text-plain`` block
    for a text file; ``mime_type`` kept where the source has one (not for an id); other
    keys, None left out, under ``extras``. A block LangChain would not convert (or would
    fail on: an ``id`` key beside a url, a missing value) is returned as it is."""
    kind, source = block["type"], block["source_type"]
    value_key, known = _V0_SOURCES[source]
    if (source == "text" and kind != "file") or ("id" in block and source != "id"):
        return block
    if value_key not in block:
        return block
    value = block[value_key]
    converted: dict[str, Any]
    if source == "text":
        converted = {"type": "text-plain", "text": value}
        converted["mime_type"] = block.get("mime_type") or "text/plain"
    elif source == "id":
        converted = {"type": kind}
        if kind == "file":
            converted["id"] = f"lc_{uuid.uuid4()}"
        converted["file_id"] = value
    else:
        converted = {"type": kind, "url" if source == "url" else "base64": value}
        if block.get("mime_type"):
            converted["mime_type"] = block["mime_type"]
    extras = {k: v for k, v in block.items() if k not in known and v is not None}
    if extras:
        converted["extras"] = extras
    return converted


def _v1_openai_block(block: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Chat Completions ``input_audio`` / ``file`` block as LangChain's chat
    models hand it on: an ``audio`` block (``base64``, ``mime_type`` ``audio/<format>``)
    or a ``file`` block (``file_id``; or ``base64`` of a data URL, with LangChain's
    ``mime_type`` ``application/pdf`` whatever the URL says, the filename in extras),
    each with a new ``lc_`` id; the block's other keys, then the inner dict's (prefixed
    ``audio_`` / ``file_``), non-None, under ``extras``. Anything else as it is."""
    top = {key: value for key, value in block.items() if key not in ("type", "input_audio", "file")}
    if block.get("type") == "input_audio":
        audio = block.get("input_audio")
        if not isinstance(audio, dict):
            return block
        data, audio_format = audio.get("data"), audio.get("format")
        if not (isinstance(data, str) and isinstance(audio_format, str)):
            return block
        inner = {f"audio_{k}": v for k, v in audio.items() if k not in ("data", "format")}
        return _data_block(
            "audio", {**top, **inner}, base64=data, mime_type=f"audio/{audio_format}"
        )
    file = block.get("file")
    if not isinstance(file, dict):
        return block
    if not (isinstance(file.get("file_data"), str) or isinstance(file.get("file_id"), str)):
        return block
    if "file_id" in file:
        inner = {f"file_{k}": v for k, v in file.items() if k != "file_id"}
        return _data_block("file", {**top, **inner}, file_id=file["file_id"])
    found = _DATA_URL.match(file["file_data"])
    if found is None:
        return block
    inner = {f"file_{k}": v for k, v in file.items() if k not in ("file_data", "filename")}
    extras = {"filename": file.get("filename"), **top, **inner}
    return _data_block("file", extras, base64=found["data"], mime_type="application/pdf")


def _v1_input_block(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "input_audio" or (kind == "file" and "file" in block):
        return _v1_openai_block(block)
    if kind in _DATA_BLOCK_TYPES and block.get("source_type") in _V0_SOURCES:
        return _v1_data_block(block)
    return block


def _with_v1_data_blocks(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The messages a chat model's hook sees: LangChain v0 data blocks and OpenAI audio /
    file blocks as v1 standard blocks, in copies (the caller's messages are left as they
    are), as LangChain's models do."""
    converted = messages
    for index, message in enumerate(messages):
        content = message.content
        if type(content) is not list:  # the usual case: nothing to look at
            continue
        blocks = [_v1_input_block(block) for block in content]
        if any(new is not old for new, old in zip(blocks, content, strict=True)):
            if converted is messages:
                converted = list(messages)
            converted[index] = message.model_copy(update={"content": blocks})
    return converted


def _stream_id(run_id: Any) -> str:
    """``lc_run--<run id>``, the id LangChain gives each chunk a run streams."""
    global _last_stream_id
    last = _last_stream_id
    if last[0] is run_id:
        return last[1]
    text = f"{_RUN_ID_PREFIX}-{run_id}"
    _last_stream_id = (run_id, text)
    return text


def llm_output_of(message: AIMessage) -> dict[str, Any] | None:
    """The ``llm_output`` an ``on_llm_end`` gets for ``message``: ``token_usage`` in OpenAI's
    keys (``prompt_tokens``, ``completion_tokens``, ``total_tokens``), the model name and
    system fingerprint when known; ``None`` when the model reported no usage.

    Example:
        >>> llm_output_of(AIMessage("x", usage_metadata={
        ...     "input_tokens": 3, "output_tokens": 1, "total_tokens": 4}))
        {'token_usage': {'prompt_tokens': 3, 'completion_tokens': 1, 'total_tokens': 4}}
    """
    metadata = message.response_metadata
    usage = metadata.get("token_usage")
    counted = message.usage_metadata
    if usage is None and counted:
        usage = {
            "prompt_tokens": counted["input_tokens"],
            "completion_tokens": counted["output_tokens"],
            "total_tokens": counted["total_tokens"],
        }
    if usage is None:
        return None
    output: dict[str, Any] = {"token_usage": usage}
    for key in ("model_name", "system_fingerprint"):
        if metadata.get(key) is not None:
            output[key] = metadata[key]
    return output


class _ChatModelBinding(RunnableBinding[Any, AIMessage]):
    """What a chat model's ``bind`` returns: a ``RunnableBinding`` under the name of the
    subclass LangChain's chat models return there, so a program printing its class (or
    its ``repr``) reads as under LangChain. It behaves and serializes as a
    ``RunnableBinding``."""

    _lc_written_as: ClassVar[type] = RunnableBinding


class BaseChatModel(BaseLanguageModel[AIMessage]):
    """Base of chat models: messages in, an ``AIMessage`` out.

    Implement ``_generate(self, messages, stop=None, **bound)`` returning an
    ``AIMessage``, or LangChain's ``_generate(self, messages, stop=None,
    run_manager=None, **kwargs)`` returning a ``ChatResult``; optionally ``_stream``
    yielding ``AIMessageChunk`` (or ``ChatGenerationChunk``) pieces, ``_agenerate`` and
    ``_astream``. Set ``self.streaming = True`` to make ``invoke`` stream internally
    (callbacks then receive every token). Tokens are reported by the base class, as in
    LangChain 1.x (``_stream`` is called without a ``run_manager``).

    A reply keeps the id the provider gave it, else it gets one from the run id, as in
    LangChain: ``"lc_run--<run id>-0"`` for a generated reply, ``"lc_run--<run id>"``
    on every streamed piece (and so on the reply they add up to).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> model = FakeListChatModel(responses=["Hi!"])
        >>> [chunk.content for chunk in model.stream("hello")]
        ['H', 'i', '!']
    """

    structured_output_methods: ClassVar[tuple[str, ...]] = ("function_calling",)
    """The ``with_structured_output`` methods this class supports, the default first
    (``function_calling`` also needs ``bind_tools``)."""
    _structured_tool_choice_by_name: ClassVar[bool] = False
    """``function_calling`` calls ``bind_tools([schema], tool_choice="any", ...)``, as
    LangChain's base chat model; True: ``tool_choice=<the schema's name>`` and
    ``strict=``, as LangChain's ChatOpenAI."""
    _kind_fields: ClassVar[tuple[str, ...]] = ("rate_limiter", "disable_streaming")
    rate_limiter: Any = None
    """A ``BaseRateLimiter`` (``ragline.core.rate_limiters``): each call that reaches the
    model (invoke, stream, batch; not a cache hit) first takes a token from it, waiting
    until one is free."""
    disable_streaming: bool | str = False
    """LangChain's switch: ``True`` makes ``stream`` / ``astream`` yield the whole reply
    once (from ``invoke``, so even a model that could stream does not; ``streaming=True``
    and streaming handlers are ignored too); ``"tool_calling"`` does so only for calls
    with tools bound (``bind_tools``)."""

    def bind(self, **kwargs: Any) -> RunnableBinding[Any, AIMessage]:
        """This model with ``kwargs`` passed to every call, as a ``_ChatModelBinding``: the
        class LangChain's chat models return there (a ``RunnableBinding``; its ``bind``,
        ``with_config`` and ``with_retry`` keep the class)."""
        return _ChatModelBinding(self, kwargs=kwargs)

    def _streaming_disabled(self, bound: dict[str, Any]) -> bool:
        if self.disable_streaming == "tool_calling":
            return bool(bound.get("tools"))
        return bool(self.disable_streaming)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return any_message_schema(defs)

    def with_structured_output(
        self,
        schema: Any = None,
        *,
        method: str | None = None,
        include_raw: bool = False,
        strict: bool | None = None,
    ) -> Runnable[Any, Any]:
        """This model answering with data of the shape ``schema`` describes.

        Args:
            schema: a pydantic model class (answers are instances of it), a TypedDict, a
                JSON Schema dict with a ``title``, an OpenAI function dict or an OpenAI tool
                dict (answers are dicts); ``None`` only with ``method="json_mode"``.
            method: ``"function_calling"`` (the schema as the one tool to call),
                ``"json_schema"`` (OpenAI's structured outputs) or ``"json_mode"``
                (``response_format={"type": "json_object"}``); default: the first of the
                class's ``structured_output_methods``.
            include_raw: return ``{"raw", "parsed", "parsing_error"}``; a reply that
                does not parse is then reported in ``parsing_error`` instead of raised.
            strict: ask the provider for strict schema adherence (``None``: not asked).

        Returns:
            A Runnable from the model's input to the answer (``model | parser``).

        Raises:
            ConfigurationError: ``method`` is unknown or this model does not support it.
            InvalidInputError: the schema cannot be described.

        Example:
            >>> from ragline.core import AIMessage, FakeMessagesListChatModel
            >>> from typing import TypedDict
            >>> class City(TypedDict):
            ...     name: str
            >>> model = FakeMessagesListChatModel(responses=[AIMessage("", tool_calls=[
            ...     {"name": "City", "args": {"name": "Paris"}, "id": "1"}])])
            >>> model.with_structured_output(City).invoke("Capital of France?")
            {'name': 'Paris'}
        """
        from ragline.core.language_models._structured import structured_output

        return structured_output(
            self, schema, method=method, include_raw=bool(include_raw), strict=strict
        )

    def _combine_llm_outputs(self, llm_outputs: list[dict[str, Any] | None]) -> Any:
        """``generate``'s ``llm_output``: ``{}`` (LangChain's base chat model); a model
        that reports usage (ChatOpenAI) overrides it."""
        return {}

    def _model_input(self, prompt: PromptValue) -> list[BaseMessage]:
        return _with_v1_data_blocks(prompt.to_messages())

    _ls_model_type = "chat"
    _ls_extra: ClassVar[dict[str, str]] = {"ls_integration": "langchain_chat_model"}

    def _ls_provider(self) -> str:
        name = type(self).__name__
        if name.startswith("Chat"):
            name = name[4:]
        elif name.endswith("Chat"):
            name = name[:-4]
        return name.lower()

    def _start(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return manager.on_chat_model_start(_own_run_of(self), [model_input], **options)[0]

    async def _astart(self, manager: CallbackManager, model_input: Any, **options: Any) -> Any:
        return await manager.aon_chat_model_start(_own_run_of(self), [model_input], **options)

    def _hook_options(self, hook: str, stop: Any, run: Any, bound: dict[str, Any]) -> Any:
        if hook in ("_stream", "_astream"):  # the base reports the tokens (LangChain 1.x)
            return {"stop": self._users_stop(hook, stop), **bound}
        return super()._hook_options(hook, stop, run, bound)

    def _result_of(self, raw: Any, hook: str) -> tuple[AIMessage, ChatGeneration, Any]:
        llm_output = None
        if isinstance(raw, ChatResult):
            if not raw.generations:
                raise TypeError(
                    f"{type(self).__name__}.{hook} returned a ChatResult without generations"
                )
            generation, llm_output = raw.generations[0], raw.llm_output
            message = generation.message
        elif isinstance(raw, ChatGeneration):
            generation, message = raw, raw.message
        elif isinstance(raw, AIMessage):
            generation, message = None, raw
        else:
            raise TypeError(
                f"{type(self).__name__}.{hook} must return an AIMessage or a ChatResult, "
                f"got {type(raw).__name__}"
            )
        if isinstance(message, AIMessageChunk):
            message = message.to_message()
        if not isinstance(message, AIMessage):
            raise TypeError(
                f"{type(self).__name__}.{hook} must return an AI message, "
                f"got {type(message).__name__}"
            )
        info = generation.generation_info if generation is not None else None
        if info:  # LangChain shows the generation info in the message's response_metadata
            message.response_metadata = {**info, **message.response_metadata}
        if isinstance(raw, ChatResult) and len(raw.generations) == 1 and llm_output is not None:
            # and a one-answer result's llm_output too, under the message's own keys
            message.response_metadata = {**llm_output, **message.response_metadata}
        if generation is None or generation.message is not message:
            generation = ChatGeneration(message=message, generation_info=info)
        if isinstance(raw, ChatResult):
            # LangChain's shape: the hook's llm_output as it is (None when it gave none)
            return message, generation, llm_output
        return message, generation, llm_output_of(message)

    def _from_cache(self, generation: Any) -> tuple[AIMessage, ChatGeneration]:
        # a copy: the caller may change the reply without changing the cached one
        message = getattr(generation, "message", None)
        if isinstance(message, AIMessage):
            message = (
                message.to_message() if isinstance(message, AIMessageChunk) else copy.copy(message)
            )
            # a hit costs nothing: LangChain marks it with usage_metadata["total_cost"] = 0
            marked: dict[str, Any] = {**(message.usage_metadata or {}), "total_cost": 0}
            message.usage_metadata = cast(UsageMetadata, marked)
        else:
            message = AIMessage(generation.text)  # a text-only generation cached by an LLM
        return message, ChatGeneration(message=message, generation_info=generation.generation_info)

    def _check_chunk(self, chunk: Any) -> AIMessageChunk:
        if isinstance(chunk, AIMessageChunk):
            return chunk
        if isinstance(chunk, ChatGenerationChunk) and isinstance(chunk.message, AIMessageChunk):
            message = chunk.message
            if chunk.generation_info:
                message.response_metadata = {**chunk.generation_info, **message.response_metadata}
            return message
        raise TypeError(
            f"{type(self).__name__}._stream must yield AIMessageChunk (or ChatGenerationChunk) "
            f"pieces, got {type(chunk).__name__}"
        )

    def _closing_chunk(self, last: Any) -> AIMessageChunk | None:
        # LangChain 1.x ends a streamed reply with an empty chunk marked "last", unless
        # the model marked its own last chunk (or streamed nothing)
        if last is None or last.chunk_position is not None:
            return None
        return AIMessageChunk("" if isinstance(last.content, str) else [], chunk_position="last")

    def _stream_result(self, aggregate: Any, run: Any, *, invoked: bool = False) -> tuple[Any, Any]:
        # a streamed run ends with the pieces added up: a ChatGenerationChunk, as LangChain's
        # (an invoke that streamed ends with a ChatGeneration, as _generate's would)
        output, result = super()._stream_result(aggregate, run)
        if invoked:
            return output, result
        info = result.generations[0][0].generation_info
        message = self._as_chunk(output)
        if aggregate is not None:
            message.chunk_position = aggregate.chunk_position
        whole = ChatGenerationChunk(message=message, generation_info=info)
        result.generations[0][0] = whole
        return output, result

    def _error_result(self, aggregate: Any) -> LLMResult:
        # LangChain's chat models report an error with one empty row (the error's own
        # generations, none but for an HTTP error's response), after the pieces a stream
        # yielded, added up, when there were any
        if aggregate is None:
            return LLMResult([[]], None, None)
        return LLMResult([[ChatGenerationChunk(message=aggregate)], []], None, None)

    def _stamp(self, chunk: AIMessageChunk, run: Any) -> AIMessageChunk:
        if chunk.id is None:
            chunk.id = _stream_id(run.run_id)
        return chunk

    def _end_result(self, generation: Any, llm_output: Any, run: Any) -> Any:
        message = getattr(generation, "message", None)
        if message is not None and message.id is None:
            message.id = f"{_RUN_ID_PREFIX}-{run.run_id}-0"
        return super()._end_result(generation, llm_output, run)

    def _generation_chunk(self, chunk: Any) -> ChatGenerationChunk:
        return ChatGenerationChunk(message=chunk)

    def _finish(self, aggregate: Any) -> AIMessage:
        return (aggregate or AIMessageChunk("")).to_message()

    def _as_chunk(self, output: AIMessage) -> AIMessageChunk:
        return AIMessageChunk(
            output.content,
            additional_kwargs=output.additional_kwargs,
            response_metadata=output.response_metadata,
            name=output.name,
            id=output.id,
            tool_calls=output.tool_calls,
            invalid_tool_calls=output.invalid_tool_calls,
            usage_metadata=output.usage_metadata,
        )


class SimpleChatModel(BaseChatModel):
    """LangChain's ``SimpleChatModel``: implement ``_call(messages, stop=None,
    run_manager=None, **kwargs) -> str``; the reply becomes an ``AIMessage``.

    Example:
        >>> class Last(SimpleChatModel):
        ...     def _call(self, messages, stop=None, run_manager=None, **kwargs):
        ...         return messages[-1].text[::-1]
        >>> Last().invoke("abc").content
        'cba'
    """

    _call_takes_run_manager: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._call_takes_run_manager = "run_manager" in inspect.signature(cls._call).parameters

    @abstractmethod
    def _call(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> str:
        """The reply's text for ``messages``."""

    def _generate(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._call_takes_run_manager:
            kwargs["run_manager"] = run_manager
        text = self._call(messages, stop=self._users_stop("_call", stop), **kwargs)
        return ChatResult([ChatGeneration(message=AIMessage(text))])

    async def _agenerate(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        sync = run_manager.get_sync() if run_manager is not None else None
        return await asyncio.to_thread(self._generate, messages, stop, sync, **kwargs)

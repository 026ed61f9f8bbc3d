"""Fake models for tests (yours too): fixed answers, real streaming, recorded calls.

``FakeListLLM`` and ``FakeListChatModel`` answer with their ``responses`` in turn and
start over after the last one. They record ``stop`` sequences but answer whole, as
LangChain's fakes do (a real API cuts the answer before the first one), and record
every call, so a test can assert exactly what a chain sent to the model. They stream
as LangChain's fakes do:
``FakeListChatModel`` character by character (the last marked ``chunk_position="last"``),
``FakeListLLM`` its whole answer once, ``FakeStreamingListLLM`` character by character.
``FakeMessagesListChatModel`` answers with scripted ``AIMessage`` s (streamed whole),
tool calls included, and accepts ``bind_tools``: agents can be tested offline.

Example:
    >>> model = FakeListChatModel(responses=["Paris.", "Rome."])
    >>> model.invoke("Capital of France?").content, model.invoke("Of Italy?").content
    ('Paris.', 'Rome.')
    >>> model.calls[1]
    [HumanMessage(content='Of Italy?', additional_kwargs={}, response_metadata={})]
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, ClassVar

from ragline.core._checks import check_optional_number
from ragline.core.config import get_config_list
from ragline.core.exceptions import InvalidInputError
from ragline.core.language_models import (
    BaseChatModel,
    BaseLLM,
    ChatGeneration,
    ChatResult,
    Generation,
    LLMResult,
    SimpleChatModel,
)
from ragline.core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCallChunk
from ragline.core.runnables.base import Runnable

__all__ = [
    "FakeChatModel",
    "FakeListChatModel",
    "FakeListChatModelError",
    "FakeListLLM",
    "FakeListLLMError",
    "FakeMessagesListChatModel",
    "FakeStreamingListLLM",
    "GenericFakeChatModel",
    "ParrotFakeChatModel",
]


class FakeListLLMError(RuntimeError):
    """``FakeStreamingListLLM``'s configured failure (``error_on_chunk_number``)."""


class FakeListChatModelError(RuntimeError):
    """``FakeListChatModel``'s configured failure (``error_on_chunk_number``)."""


class _ResponseList:
    """The shared part: validated responses, a thread-safe cursor, recorded calls."""

    def __init__(
        self,
        owner: str,
        responses: Sequence[Any],
        sleep: float | None,
        kind: type = str,
        kind_name: str = "strings",
    ) -> None:
        if isinstance(responses, str) or not responses:
            raise InvalidInputError(
                f"{owner} needs a non-empty list of responses, got {responses!r}"
            )
        bad = [r for r in responses if not isinstance(r, kind)]
        if bad:
            raise InvalidInputError(f"{owner} responses must be {kind_name}, got {bad[0]!r}")
        check_optional_number(f"{owner} sleep (seconds)", sleep, low=0)
        self.owner = owner
        self.responses = list(responses)
        self.sleep = sleep
        self.kind, self.kind_name = kind, kind_name
        self.i = 0
        self._lock = threading.Lock()

    def clone(self) -> _ResponseList:
        """An independent list at the same cursor (a configured copy's own script)."""
        twin = copy.copy(self)
        twin.responses = list(self.responses)
        twin._lock = threading.Lock()
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> _ResponseList:
        # a deep copy (``llm.model_copy(deep=True)``): its own cursor and lock (a lock
        # cannot be copied), its own copies of the responses
        twin = self.clone()
        twin.responses = copy.deepcopy(self.responses, memo)
        return twin

    def next(self) -> Any:
        """The next response (``stop`` is recorded by the model, not applied here:
        LangChain's fakes answer whole)."""
        with self._lock:
            if self.i >= len(self.responses):
                # LangChain raises IndexError here too (a shorter script set mid-run)
                raise IndexError(
                    f"{self.owner} has {len(self.responses)} responses but its cursor i is "
                    f"{self.i}; set i=0 to replay the script from the start"
                )
            response = self.responses[self.i]
            self.i = (self.i + 1) % len(self.responses)
        return response


# the default of the fakes' ``responses``: "take the subclass's declared default" (typed
# Any so the signature keeps the field's own annotation, which config specs print)
_DECLARED: Any = None


def _scripted(instance: Any, responses: Any) -> Any:
    """``responses`` as given, else the default a subclass declared for the field.

    A pydantic-style subclass gives the field a default (``class Model(FakeListChatModel):
    responses: list = ["..."]``), as LangChain's fakes allow: its field constructor
    stores the value before ours runs, or the class keeps it (``_declared_responses``).

    Raises:
        TypeError: no responses given and none declared.
    """
    if responses is not None:
        return responses
    declared = instance.__dict__.pop("responses", None)
    if declared is None:
        declared = getattr(type(instance), "_declared_responses", None)
    if declared is None:
        name = type(instance).__name__
        raise TypeError(f"{name}() missing required keyword argument 'responses'")
    return declared


class _CyclingResponses:
    """What both fakes share: the response list, its cursor, recorded calls, paced streams."""

    _list: _ResponseList
    calls: list[Any]
    stops: list[list[str] | None]

    # a subclass's declared default for responses (see __init_subclass__ and _scripted)
    _declared_responses: ClassVar[Any] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = cls.__dict__.get("responses")
        if declared is not None and not isinstance(declared, property):
            # ``responses: list = [...]`` would hide the property (reads the default,
            # assignments lost): keep the value as the default, the property as the field
            cls._declared_responses = declared
            cls.responses = _CyclingResponses.responses  # type: ignore[assignment]

    @property
    def responses(self) -> list[str]:
        return self._list.responses

    @responses.setter
    def responses(self, value: Sequence[Any]) -> None:
        old = self.__dict__.get("_list")
        if old is None:  # a subclass's field constructor, before __init__ builds the list
            self.__dict__["responses"] = value
            return
        # a new script that keeps the cursor, as LangChain's field assignment does: a
        # configured copy (configurable_fields(responses=...)) goes on from the default's i
        self._list = _ResponseList(
            type(self).__name__, value, old.sleep, kind=old.kind, kind_name=old.kind_name
        )
        self._list.i = old.i

    @property
    def sleep(self) -> float | None:
        """Seconds to wait (per answer or per streamed piece); ``None``: no wait."""
        return self._list.sleep

    @sleep.setter
    def sleep(self, value: float | None) -> None:
        check_optional_number(f"{type(self).__name__} sleep (seconds)", value, low=0)
        self._list.sleep = value

    def __copy__(self) -> Any:
        # LangChain's configured copy is a new model built from the default's field values:
        # it starts at the default's cursor, and its own calls do not move the default's
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._list = self._list.clone()
        return twin

    def _printed_fields(self) -> list[str]:
        """``name=value`` for each field LangChain's printed form shows: those set away
        from their defaults (its ``lc_versions`` metadata aside)."""
        fields = [
            ("name", getattr(self, "name", None)),
            ("tags", getattr(self, "tags", None)),
            ("responses", self._list.responses),
            ("sleep", self._list.sleep),
            ("i", self._list.i or None),
            ("error_on_chunk_number", getattr(self, "error_on_chunk_number", None)),
        ]
        return [f"{name}={value!r}" for name, value in fields if value is not None]

    def __repr__(self) -> str:  # FakeMessagesListChatModel prints its own
        return f"{type(self).__name__}({', '.join(self._printed_fields())})"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # fakes with other answers must not share LLM-cache entries
        return {"responses": self._list.responses}

    @property
    def i(self) -> int:
        """Index of the response the next call returns; programs set it (``model.i =
        0``) to replay the script from the start, as LangChain's field allows."""
        return self._list.i

    @i.setter
    def i(self, value: int) -> None:
        count = len(self._list.responses)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
            raise InvalidInputError(
                f"{type(self).__name__}.i must be an index into its {count} responses, "
                f"got {value!r}"
            )
        with self._list._lock:
            self._list.i = value

    def _take(self, call: object, stop: list[str] | None) -> Any:
        self.calls.append(call)
        self.stops.append(stop)
        return self._list.next()

    def _paced(self, response: str) -> Iterator[str]:
        for char in response:
            if self._list.sleep:
                time.sleep(self._list.sleep)
            yield char

    async def _apaced(self, response: str) -> AsyncIterator[str]:
        for char in response:
            if self._list.sleep:
                await asyncio.sleep(self._list.sleep)
            yield char


class FakeListLLM(_CyclingResponses, BaseLLM):
    """A text model that answers with ``responses`` in turn (then starts over).

    ``stream`` yields each answer whole, as LangChain's ``FakeListLLM`` (see
    ``FakeStreamingListLLM`` for one character at a time).

    Args:
        responses: the answers, used in order and cycled.
        sleep: seconds to wait before each answer (``None``: no wait).
        cache: the LLM cache option (see ``ragline.core.caches``).

    Attributes:
        calls: the prompt string of every call, in order.
        stops: the ``stop`` argument of every call, in order.

    Raises:
        InvalidInputError: ``responses`` is empty or holds a non-string.

    Example:
        >>> llm = FakeListLLM(responses=["one", "two"])
        >>> [llm.invoke("q") for _ in range(3)]
        ['one', 'two', 'one']
    """

    def __init__(
        self, *, responses: list[str] = _DECLARED, sleep: float | None = None, cache: Any = None
    ) -> None:
        self._list = _ResponseList(type(self).__name__, _scripted(self, responses), sleep)
        self.calls: list[str] = []
        self.stops: list[list[str] | None] = []
        self.cache = cache

    @property
    def _llm_type(self) -> str:
        return "fake-list"

    def _generate(  # type: ignore[override]
        self, prompt: Any, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> Any:
        if isinstance(prompt, list):  # LangChain's form, from a subclass's super()._generate
            return LLMResult([[Generation(self._call(each, stop))] for each in prompt])
        return self._call(prompt, stop)

    def _call(self, prompt: str, stop: list[str] | None = None, **kwargs: Any) -> str:
        """The next response. An answer goes through here, as through LangChain's
        ``LLM._call``: a subclass that overrides it (to fail, say) changes ``invoke``."""
        if self._list.sleep and type(self) is FakeListLLM:  # the streaming fake paces pieces
            time.sleep(self._list.sleep)
        return self._take(prompt, stop)


class FakeStreamingListLLM(FakeListLLM):
    """``FakeListLLM`` whose ``stream`` yields each answer one character at a time, as
    LangChain's: the answer comes from ``invoke`` (one run, no token callbacks), then its
    characters are yielded.

    Args:
        responses: the answers, used in order and cycled.
        sleep: seconds to wait before each character (``None``: no wait).
        error_on_chunk_number: raise ``FakeListLLMError`` (a ``RuntimeError``) instead of
            yielding that character (0-based), to test a stream that fails part way.

    Example:
        >>> list(FakeStreamingListLLM(responses=["hey"]).stream("q"))
        ['h', 'e', 'y']
    """

    def __init__(
        self,
        *,
        responses: list[str] = _DECLARED,
        sleep: float | None = None,
        error_on_chunk_number: int | None = None,
        cache: Any = None,
    ) -> None:
        super().__init__(responses=_scripted(self, responses), sleep=sleep, cache=cache)
        self.error_on_chunk_number = error_on_chunk_number

    def _piece(self, number: int, char: str) -> str:
        if number == self.error_on_chunk_number:
            raise FakeListLLMError(f"FakeStreamingListLLM: error on chunk {number} as configured")
        return char

    def stream(  # type: ignore[override]
        self, input: Any, config: Any = None, *, stop: Any = None, **bound: Any
    ) -> Iterator[str]:
        answer = self.invoke(input, config, stop=stop, **bound)
        for number, char in enumerate(self._paced(answer)):
            yield self._piece(number, char)

    async def astream(  # type: ignore[override]
        self, input: Any, config: Any = None, *, stop: Any = None, **bound: Any
    ) -> AsyncIterator[str]:
        answer = await self.ainvoke(input, config, stop=stop, **bound)
        number = 0
        async for char in self._apaced(answer):
            yield self._piece(number, char)
            number += 1


class FakeListChatModel(_CyclingResponses, BaseChatModel):
    """A chat model that answers with ``responses`` in turn (then starts over) and
    streams each answer one character per ``AIMessageChunk``.

    Args:
        responses: the answers, used in order and cycled.
        sleep: seconds to wait before each streamed character (``None``: no wait).
        error_on_chunk_number: raise ``FakeListChatModelError`` (a ``RuntimeError``)
            instead of yielding the chunk with this 0-based number (to test error
            handling mid-stream).
        cache: the LLM cache option (see ``ragline.core.caches``).

    Attributes:
        calls: the messages of every call, in order (one list per call).
        stops: the ``stop`` argument of every call, in order.
        response_formats: the ``response_format`` of every call (``None`` unless bound,
            e.g. by ``with_structured_output(..., method="json_schema")``), in order.

    Raises:
        InvalidInputError: ``responses`` is empty or holds a non-string.

    Example:
        >>> model = FakeListChatModel(responses=["ok"])
        >>> [c.content for c in model.stream([("system", "s"), ("human", "h")])]
        ['o', 'k']
        >>> [m.type for m in model.calls[0]]
        ['system', 'human']
    """

    structured_output_methods = ("json_schema", "json_mode")

    def __init__(
        self,
        *,
        responses: list[str] = _DECLARED,
        sleep: float | None = None,
        error_on_chunk_number: int | None = None,
        cache: Any = None,
    ) -> None:
        self._list = _ResponseList(type(self).__name__, _scripted(self, responses), sleep)
        self.error_on_chunk_number = error_on_chunk_number
        self.cache = cache
        self.calls: list[list[BaseMessage]] = []
        self.stops: list[list[str] | None] = []
        self.response_formats: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "fake-list-chat-model"

    def _chunk(self, number: int, char: str, count: int) -> AIMessageChunk:
        if number == self.error_on_chunk_number:
            raise FakeListChatModelError(
                f"FakeListChatModel: error on chunk {number} as configured"
            )
        # the last character is marked as the reply's last piece, as LangChain's fake does
        return AIMessageChunk(char, chunk_position="last" if number == count - 1 else None)

    # response_format (with_structured_output's JSON methods) is accepted and recorded: the
    # replies are scripted, so they are whatever JSON the test wrote.
    def _generate(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        response_format: Any = None,
        **options: Any,  # other bound options (tools=, ...) are accepted and unused, as LangChain's
    ) -> ChatResult:
        # LangChain's shape (a ChatResult), so that a subclass overriding _generate can
        # call super()._generate(...) and read .generations or set .llm_output
        self.response_formats.append(response_format)
        return ChatResult([ChatGeneration(message=AIMessage(self._call(list(messages), stop)))])

    def _call(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> str:
        """The next response's text. A (non-streamed) answer goes through here, as through
        LangChain's ``SimpleChatModel._call``: a subclass that overrides it changes
        ``invoke``; streaming does not use it (LangChain's streams its own way too)."""
        return str(self._take(messages, stop))

    def _stream(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        response_format: Any = None,
        **options: Any,
    ) -> Iterator[AIMessageChunk]:
        self.response_formats.append(response_format)
        response = self._take(list(messages), stop)
        for number, char in enumerate(self._paced(response)):
            yield self._chunk(number, char, len(response))

    async def _astream(  # type: ignore[override]
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        response_format: Any = None,
        **options: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        self.response_formats.append(response_format)
        response = self._take(list(messages), stop)
        number = 0
        async for char in self._apaced(response):
            yield self._chunk(number, char, len(response))
            number += 1

    def __str__(self) -> str:  # LangChain's: the fields, space-separated
        return " ".join(self._printed_fields())

    # One input after another, on the calling thread, as LangChain's fake: the scripted
    # answers go to the inputs in input order (threads would hand them out in whatever
    # order the threads reach the model, e.g. behind a rate limiter).
    def batch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Answer the inputs one after another, in order (the script's order)."""
        inputs = list(inputs)
        outputs: list[Any] = []
        for item, one in zip(inputs, get_config_list(config, len(inputs)), strict=True):
            try:
                outputs.append(self.invoke(item, one, **kwargs))
            except Exception as err:
                if not return_exceptions:
                    raise
                outputs.append(err)
        return outputs

    async def abatch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Async :meth:`batch`: one input after another, in order."""
        inputs = list(inputs)
        outputs: list[Any] = []
        for item, one in zip(inputs, get_config_list(config, len(inputs)), strict=True):
            try:
                outputs.append(await self.ainvoke(item, one, **kwargs))
            except Exception as err:
                if not return_exceptions:
                    raise
                outputs.append(err)
        return outputs


class FakeMessagesListChatModel(_CyclingResponses, BaseChatModel):
    """A chat model that answers with scripted messages in turn (then starts over).

    Script tool calls as ``AIMessage("", tool_calls=[{"name": ..., "args": {...},
    "id": ...}])``; ``bind_tools`` is accepted (the tools are converted as a real model
    would send them and recorded), so tool-calling agents run offline.

    Args:
        responses: the replies, ``AIMessage`` s (or strings, for text replies), used in
            order and cycled; ``stream`` yields each reply whole, as LangChain's fake.
        sleep: seconds to wait before each reply (``None``: no wait).

    Attributes:
        calls: the messages of every call, in order (one list per call).
        stops: the ``stop`` argument of every call, in order.
        call_options: the other per-call options of every call (``tools`` as OpenAI
            tool dicts, ``tool_choice`` ...), in order.

    Raises:
        InvalidInputError: ``responses`` is empty or holds something else.

    Example:
        >>> model = FakeMessagesListChatModel(responses=[
        ...     AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}]),
        ...     AIMessage("done")])
        >>> def add(a: int) -> int:
        ...     "Add."
        >>> bound = model.bind_tools([add])
        >>> bound.invoke("hi").tool_calls[0]["args"], bound.invoke("again").content
        ({'a': 1}, 'done')
        >>> model.call_options[0]["tools"][0]["function"]["name"]
        'add'
    """

    structured_output_methods = ("function_calling", "json_schema", "json_mode")

    def __init__(
        self, *, responses: Sequence[BaseMessage | str] = _DECLARED, sleep: float | None = None
    ) -> None:
        scripted = [AIMessage(r) if isinstance(r, str) else r for r in _scripted(self, responses)]
        self._list = _ResponseList(
            type(self).__name__, scripted, sleep, kind=AIMessage, kind_name="AIMessages or strings"
        )
        self.calls: list[list[BaseMessage]] = []
        self.stops: list[list[str] | None] = []
        self.call_options: list[dict[str, Any]] = []

    @property
    def _llm_type(self) -> str:
        return "fake-messages-list-chat-model"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:  # a Runnable, so with_fallbacks hands it to each model
        """Return this model bound to ``tools`` (converted to OpenAI tool dicts).

        Raises:
            InvalidInputError: a tool cannot be described.
        """
        from ragline.core.tools import convert_to_openai_tool

        bound: dict[str, Any] = {"tools": [convert_to_openai_tool(tool) for tool in tools]}
        if tool_choice is not None:
            bound["tool_choice"] = tool_choice
        return self.bind(**bound, **kwargs)

    def _next(self, messages: list[BaseMessage], stop: list[str] | None, options: Any) -> AIMessage:
        # a subclass's _generate passes LangChain's run_manager on: not a call option
        self.call_options.append({k: v for k, v in options.items() if k != "run_manager"})
        reply: AIMessage = self._take(list(messages), stop)
        return dataclasses.replace(reply)

    # No _stream, as LangChain's: stream() yields the whole reply once, the AIMessage
    # itself (scripted tool calls arrive whole, never as fragments).
    def _generate(  # type: ignore[override]  # per-call options are recorded
        self, messages: list[BaseMessage], stop: list[str] | None = None, **options: Any
    ) -> ChatResult:
        if self._list.sleep:
            time.sleep(self._list.sleep)
        # LangChain's shape, for a subclass that calls super()._generate(...)
        return ChatResult([ChatGeneration(message=self._next(messages, stop, options))])

    def __repr__(self) -> str:
        return f"FakeMessagesListChatModel(responses={len(self.responses)} messages)"


class GenericFakeChatModel(BaseChatModel):
    """A chat model that answers with the next item of an iterator (LangChain's fake).

    Each call takes the next item: an ``AIMessage`` as it is, a string as an
    ``AIMessage`` of that text. Streaming splits the text at each whitespace character,
    keeping the whitespace as chunks of its own (``"a b"`` streams ``"a"``, ``" "``,
    ``"b"``), every chunk carrying the message's id, as LangChain's does, without the
    usage; additional kwargs come one key per chunk (a ``function_call`` one field per
    chunk, its text cut at each comma), as LangChain's, and tool calls in a last chunk
    (where LangChain's fails on a message without text).

    Args:
        messages: an iterator (or iterable) of ``AIMessage`` s and strings.

    Raises:
        RuntimeError: on a call after the last message, saying the script ran out (the
            type LangChain's raises when it streams or is awaited; its ``invoke`` lets
            ``StopIteration`` escape, which a surrounding loop would take for its own end).
        InvalidInputError: an item is neither an ``AIMessage`` nor a string.

    Example:
        >>> model = GenericFakeChatModel(messages=iter(["hello world"]))
        >>> [chunk.content for chunk in model.stream("hi")]
        ['hello', ' ', 'world']
    """

    def __init__(self, *, messages: Iterable[AIMessage | str]) -> None:
        self.messages = iter(messages)
        self._lock = threading.Lock()

    @property
    def _llm_type(self) -> str:
        return "generic-fake-chat-model"

    def _next(self) -> AIMessage:
        with self._lock:
            item = next(self.messages, None)
        if item is None:
            # RuntimeError, LangChain's type here except in its invoke (StopIteration)
            raise RuntimeError(
                "GenericFakeChatModel has no more messages; give it as many as the "
                "program calls it (messages=iter([...]))"
            )
        if isinstance(item, str):
            return AIMessage(item)
        if not isinstance(item, AIMessage):
            raise InvalidInputError(
                f"GenericFakeChatModel messages must be AIMessages or strings, got {item!r:.80}"
            )
        return dataclasses.replace(item)

    # bound options (bind(tools=...), a call's keyword arguments) are accepted and unused,
    # as LangChain's fake takes and ignores them
    def _generate(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **options: Any
    ) -> ChatResult:
        # LangChain's shape, for a subclass that calls super()._generate(...)
        return ChatResult([ChatGeneration(message=self._next())])

    def _stream(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **options: Any
    ) -> Iterator[AIMessageChunk]:
        yield from _word_chunks(self._next())

    def __repr__(self) -> str:
        return "GenericFakeChatModel()"


def _word_chunks(message: AIMessage) -> list[AIMessageChunk]:
    shared: dict[str, Any] = {"id": message.id, "name": message.name}
    if not isinstance(message.content, str):
        return [AIMessageChunk(message.content, **shared)]
    if not (message.tool_calls or message.invalid_tool_calls or message.additional_kwargs):
        pieces = re.split(r"(\s)", message.content)
        chunks = [AIMessageChunk(piece, **shared) for piece in pieces]
        chunks[-1].chunk_position = "last"  # LangChain's fake marks its last word so
        return chunks
    # an empty text streams no word (LangChain's fake streams its text only when it has
    # one); the additional kwargs come one key per chunk, a function call one field per
    # chunk with its string values cut at each comma (kept as a piece of its own), as
    # LangChain's fake streams them
    pieces = re.split(r"(\s)", message.content) if message.content else []
    chunks = [AIMessageChunk(piece, **shared) for piece in pieces]
    chunks += _additional_kwargs_chunks(message.additional_kwargs, shared)
    if (message.tool_calls or message.invalid_tool_calls) and (
        "tool_calls" not in message.additional_kwargs
    ):
        # (calls in OpenAI's form in additional_kwargs came with that key's chunk, which
        # reads them as tool call chunks: a second chunk would add each call twice)
        # the tool calls ride on a chunk of their own, built as the list fake builds it;
        # usage is not streamed (LangChain's fake streams none either); the base then
        # adds the closing empty chunk, as LangChain's does after its last piece
        bare = dataclasses.replace(message, content="", usage_metadata=None, additional_kwargs={})
        chunks.append(_message_chunks(bare)[-1])
    return chunks


def _additional_kwargs_chunks(
    additional_kwargs: dict[str, Any], shared: dict[str, Any]
) -> list[AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    for key, value in additional_kwargs.items():
        if key != "function_call" or not isinstance(value, dict):
            chunks.append(AIMessageChunk("", additional_kwargs={key: value}, **shared))
            continue
        for field, field_value in value.items():
            parts = re.split(r"(,)", field_value) if isinstance(field_value, str) else [field_value]
            chunks += [
                AIMessageChunk("", additional_kwargs={key: {field: part}}, **shared)
                for part in parts
            ]
    return chunks


def _message_chunks(message: AIMessage) -> list[AIMessageChunk]:
    """A reply as a stream: its text one character per chunk, then its tool calls (their
    arguments as JSON text), then the usage; added up they give the reply back."""
    shared: dict[str, Any] = {"id": message.id, "name": message.name}
    text = message.content if isinstance(message.content, str) else ""
    chunks = [AIMessageChunk(char, **shared) for char in text]
    if not isinstance(message.content, str):
        chunks.append(AIMessageChunk(message.content, **shared))
    calls: list[ToolCallChunk] = [
        {"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": i}
        for i, call in enumerate(message.tool_calls)
    ]
    offset = len(calls)
    calls += [
        {"name": bad["name"], "args": bad["args"], "id": bad["id"], "index": offset + i}
        for i, bad in enumerate(message.invalid_tool_calls)
    ]
    last = AIMessageChunk(
        "",
        tool_call_chunks=calls,
        usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
        additional_kwargs=message.additional_kwargs,
        **shared,
    )
    return [*chunks, last]


class FakeChatModel(SimpleChatModel):
    """A chat model that always answers ``"fake response"`` (LangChain's fake).

    Example:
        >>> FakeChatModel().invoke("anything").content
        'fake response'
    """

    @property
    def _llm_type(self) -> str:
        return "fake-chat-model"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"key": "fake"}

    def _call(
        self, messages: list[BaseMessage], stop: list[str] | None = None, **kwargs: Any
    ) -> str:
        return "fake response"


class ParrotFakeChatModel(BaseChatModel):
    """A chat model that answers with the last message it was given, of whatever kind
    (LangChain's fake: a ``HumanMessage`` comes back as a ``HumanMessage``, its id the
    run's when it had none). The caller's message is copied, never changed.

    Raises:
        InvalidInputError: an empty list of messages (a ``ValueError``, as LangChain's).

    Example:
        >>> reply = ParrotFakeChatModel().invoke("say it again")
        >>> type(reply).__name__, reply.content
        ('HumanMessage', 'say it again')
    """

    @property
    def _llm_type(self) -> str:
        return "parrot-fake-chat-model"

    def _generate(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **options: Any
    ) -> ChatResult:  # bound options are accepted and unused, as LangChain's
        if not messages:
            raise InvalidInputError("ParrotFakeChatModel needs at least one message to repeat")
        return ChatResult([ChatGeneration(message=copy.copy(messages[-1]))])

    def _result_of(self, raw: Any, hook: str) -> tuple[Any, ChatGeneration, Any]:
        generation = raw.generations[0]  # the repeated message as it is, not an AI message
        return generation.message, generation, None

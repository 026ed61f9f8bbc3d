"""RunnableWithMessageHistory: a runnable that remembers the conversation it is in.

Each call names its conversation in ``config["configurable"]`` (by default
``{"session_id": ...}``); the wrapper asks ``get_session_history`` for that history,
gives the wrapped runnable the stored messages together with the new input, and once
the call has finished stores the new input and output messages, in one write.

Where the stored messages go:

- ``history_messages_key="history"``: the input dict gets ``"history"`` (for a
  ``MessagesPlaceholder("history")`` in the prompt);
- no ``history_messages_key`` and ``input_messages_key="question"``: the stored messages
  and the new input messages replace ``input["question"]``;
- no key at all: the runnable gets the list of stored + new messages (a chat model).

Inputs may be a string (a human message), a message, a list of messages (or of
``(role, text)`` pairs, passed on and stored as given, as LangChain does) or a dict
(``input_messages_key``, else its only key, else ``"input"``); outputs likewise
(``output_messages_key``, else the only key, else ``"output"``; a string becomes an AI
message; a streamed reply is stored as the chunks added up, an ``AIMessageChunk``, as
LangChain stores it).

One call is one turn, written once as a generator of three steps (read the history,
call the runnable, write the history) and run by core's drivers (``core._drive``:
``drive`` / ``adrive`` for ``invoke`` / ``ainvoke``, ``drive_stream`` / ``adrive_stream``
for ``stream`` / ``astream``, the runnable's chunks passed on by ``stream_from``). A
stream writes the history after its last chunk; a stream closed early, or a call that
fails, writes nothing.

Example:
    >>> from ragline.core import (ChatPromptTemplate, FakeListChatModel,
    ...     InMemoryChatMessageHistory, MessagesPlaceholder)
    >>> prompt = ChatPromptTemplate.from_messages(
    ...     [MessagesPlaceholder("history"), ("human", "{question}")])
    >>> model = FakeListChatModel(responses=["Hi Ada!", "You are Ada."])
    >>> sessions = {}
    >>> chat = RunnableWithMessageHistory(
    ...     prompt | model,
    ...     lambda session_id: sessions.setdefault(session_id, InMemoryChatMessageHistory()),
    ...     input_messages_key="question", history_messages_key="history")
    >>> config = {"configurable": {"session_id": "s1"}}
    >>> chat.invoke({"question": "I am Ada."}, config).content
    'Hi Ada!'
    >>> chat.invoke({"question": "Who am I?"}, config).content
    'You are Ada.'
    >>> [m.type for m in model.calls[1]]
    ['human', 'ai', 'human']
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from ragline.core._drive import (
    Effect,
    Operation,
    adrive,
    adrive_stream,
    drive,
    drive_stream,
    stream_from,
)
from ragline.core._json_schema import field_title
from ragline.core.chat_history import is_role_tuple
from ragline.core.config import RunnableConfig, get_current_config
from ragline.core.exceptions import ConfigurationError, InvalidInputError
from ragline.core.messages import AIMessage, BaseMessage, HumanMessage
from ragline.core.runnables.base import Runnable, _specs_by_id, coerce_to_runnable
from ragline.core.runnables.configurable import ConfigurableFieldSpec
from ragline.core.runnables.runs import _NOTHING, add_chunks
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["GetSessionHistoryCallable", "RunnableWithMessageHistory"]

GetSessionHistoryCallable = Callable[..., Any]

_READ, _CALL, _WRITE = "read", "call", "write"
# A turn yields (step, value) and receives the step's result: the stored messages for
# _READ, the runnable's output for _CALL, nothing for _WRITE. It returns the output.
Turn = Generator[tuple[str, Any], Any, Any]

_OPTIONAL_STRING = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
_FREE_OBJECT = {"type": "object", "additionalProperties": True}
# the message fields LangChain's input schema lists (a BaseMessage model, open to more)
_BASE_MESSAGE_DEF: dict[str, Any] = {
    "title": "BaseMessage",
    "type": "object",
    "additionalProperties": True,
    "properties": {
        "content": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"anyOf": [{"type": "string"}, _FREE_OBJECT]}},
            ],
            "title": "Content",
        },
        "additional_kwargs": {**_FREE_OBJECT, "title": "Additional Kwargs"},
        "response_metadata": {**_FREE_OBJECT, "title": "Response Metadata"},
        "type": {"type": "string", "title": "Type"},
        "name": {**_OPTIONAL_STRING, "title": "Name"},
        "id": {**_OPTIONAL_STRING, "title": "Id"},
    },
    "required": ["content", "type"],
}

_SESSION_ID = ConfigurableFieldSpec(
    id="session_id",
    annotation=str,
    name="Session ID",
    description="Unique identifier for a session.",
    default="",
    is_shared=True,
)


def _parameter_names(function: Callable[..., Any]) -> list[str] | None:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # a builtin without a signature
        return None


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableWithMessageHistory(Runnable[Any, Any]):
    """Wrap ``runnable`` so each call reads and extends a stored conversation.

    Args:
        runnable: the chain or model to wrap (a callable is wrapped in a lambda).
        get_session_history: returns the ``BaseChatMessageHistory`` of a conversation;
            called with the one configurable value positionally, or with several by
            keyword (their ids must be its parameter names).
        input_messages_key: the input key holding the new message(s).
        output_messages_key: the output key holding the reply.
        history_messages_key: the input key that receives the stored messages.
        history_factory_config: the ``ConfigurableFieldSpec`` s naming the conversation
            (default: one ``session_id``).
        verbose: accepted and kept, with no effect on what runs or prints (LangChain's
            constructor takes and drops it; programs pass it, ``None`` when left unset).

    Raises:
        ConfigurationError: ``get_session_history`` is not callable, the specs' ids are
            empty or repeated, or (with several specs) they do not match the
            parameter names of ``get_session_history``.

    Warns:
        UserWarning: ``history_messages_key`` is ``input_messages_key``. The stored
            messages then take the new messages' place in the runnable's input (in
            LangChain too: the runnable never sees the new input); ragline stores the
            new input messages and the reply, where LangChain stores the old messages
            over again as the turn's input.
    """

    def __init__(
        self,
        runnable: Any,
        get_session_history: GetSessionHistoryCallable,
        *,
        input_messages_key: str | None = None,
        output_messages_key: str | None = None,
        history_messages_key: str | None = None,
        history_factory_config: Sequence[ConfigurableFieldSpec] | None = None,
        name: str | None = None,
        verbose: bool | None = False,
    ) -> None:
        if verbose is not None and not isinstance(verbose, bool):
            raise ConfigurationError(f"verbose must be True, False or None, got {verbose!r}")
        if not callable(get_session_history):
            raise ConfigurationError(
                "get_session_history must be a function returning a chat message history, "
                f"got {type(get_session_history).__name__}"
            )
        specs = list(history_factory_config or [_SESSION_ID])
        ids: list[str] = [getattr(spec, "id", None) for spec in specs]  # type: ignore[misc]
        if not all(isinstance(i, str) and i for i in ids) or len(set(ids)) != len(ids):
            raise ConfigurationError(
                f"history_factory_config needs ConfigurableFieldSpecs with distinct, "
                f"non-empty ids, got {ids}"
            )
        parameters = _parameter_names(get_session_history)
        if len(ids) > 1 and parameters is not None and set(ids) != set(parameters):
            raise ConfigurationError(
                f"history_factory_config ids {sorted(ids)} do not match the parameter names "
                f"{sorted(parameters)} of get_session_history; they are passed by keyword"
            )
        if history_messages_key is not None and history_messages_key == input_messages_key:
            warnings.warn(
                f"RunnableWithMessageHistory: history_messages_key and input_messages_key "
                f"are both {history_messages_key!r}, so the stored messages replace the new "
                "input messages in the runnable's input and it never sees them; give the "
                "history its own key (or leave history_messages_key out to have the history "
                "put before the new messages)",
                UserWarning,
                stacklevel=2,
            )
        self.runnable: Runnable[Any, Any] = coerce_to_runnable(runnable)
        self.get_session_history = get_session_history
        self.input_messages_key = input_messages_key
        self.output_messages_key = output_messages_key
        self.history_messages_key = history_messages_key
        self.history_factory_config = specs
        self._ids = ids
        # a factory without parameters (``lambda: memory``) needs no conversation key: it
        # is called with none, whatever the config holds, as LangChain's is
        self._takes_no_key = parameters == []
        self.name = name
        self.verbose = verbose

    def __repr__(self) -> str:
        return f"RunnableWithMessageHistory({self.runnable!r}, keys={self._ids})"

    def get_name(self) -> str:
        # LangChain's is a binding of a sequence (history loading, then the runnable)
        # configured with run_name="RunnableWithMessageHistory": get_name() answers what
        # it binds, its runs have the run name (see _default_run_name)
        return self.name or "RunnableSequence"

    def _default_run_name(self) -> str:
        return self.name or "RunnableWithMessageHistory"

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.runnable]

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        """What a call takes, as LangChain's ``RunnableWithChatHistoryInput`` describes it:
        with ``input_messages_key`` an object with that key required (a string, a
        message or a list of messages when ``history_messages_key`` is set too, else a
        list of messages); without it a list of messages. Messages are a ``BaseMessage``
        def of the same fields (LangChain's also carries its class docstring as the
        description, left out here)."""
        defs.setdefault("BaseMessage", _BASE_MESSAGE_DEF)
        message = {"$ref": "#/$defs/BaseMessage"}
        messages = {"type": "array", "items": message}
        schema: dict[str, Any] = {"title": "RunnableWithChatHistoryInput"}
        key = self.input_messages_key
        if key is None:
            return {**schema, **messages}
        if self.history_messages_key is not None:
            value: dict[str, Any] = {"anyOf": [{"type": "string"}, message, messages]}
        else:
            value = dict(messages)
        properties = {key: {**value, "title": field_title(key)}}
        return {**schema, "type": "object", "properties": properties, "required": [key]}

    @property
    def OutputType(self) -> Any:
        """What a call returns: the wrapped runnable's output type."""
        return self.runnable.OutputType

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        """What a call returns, under LangChain's title: the wrapped runnable's output.
        LangChain's describes its history-loading step instead (a list of messages, or
        an open object when a messages key is set), which is not what the call returns;
        see docs/differences-from-langchain.md."""
        return {**self.runnable._output_json(defs), "title": "RunnableWithChatHistoryOutput"}

    @property
    def config_specs(self) -> list[Any]:
        """The conversation keys and the wrapped runnable's configurable fields, by id."""
        specs: dict[str, Any] = {spec.id: spec for spec in self.history_factory_config}
        for spec in self.runnable.config_specs:
            specs.setdefault(spec.id, spec)
        return _specs_by_id(specs)

    # ---------------------------------------------------------------- the conversation

    def _check_configurable(self, config: RunnableConfig, manager: Any) -> None:
        # Called as each run of this wrapper starts, before the root's unknown-id check:
        # a missing conversation key is the likelier mistake, so it is named first.
        self._check_keys(config.get("configurable") or {})
        super()._check_configurable(config, manager)

    def _check_keys(self, configurable: dict[str, Any]) -> None:
        if self._takes_no_key:
            return
        missing = [key for key in self._ids if key not in configurable]
        if missing:
            example = {key: "<your-value>" for key in self._ids}
            unknown = sorted(set(configurable) - set(self._ids))
            got = f" (it has {unknown})" if unknown else ""
            raise ConfigurationError(
                f"missing key(s) {missing} in config['configurable']{got}; "
                f"{self._default_run_name()} expects {self._ids}: pass them with every call, e.g. "
                f"chain.invoke(..., {{'configurable': {example}}})"
            )

    def _session_history(self, configurable: dict[str, Any]) -> Any:
        self._check_keys(configurable)
        if self._takes_no_key:
            history = self.get_session_history()
        elif len(self._ids) == 1:
            history = self.get_session_history(configurable[self._ids[0]])
        else:
            history = self.get_session_history(**{key: configurable[key] for key in self._ids})
        if not (hasattr(history, "messages") and hasattr(history, "add_messages")):
            raise ConfigurationError(
                f"get_session_history returned {type(history).__name__}, not a chat message "
                "history (BaseChatMessageHistory)"
            )
        return history

    def _input_messages(self, value: Any) -> list[BaseMessage]:
        if isinstance(value, Mapping):
            key = self._key_of(value, self.input_messages_key, "input", "input_messages_key")
            value = value[key]
        if isinstance(value, str):
            return [HumanMessage(value)]
        if isinstance(value, (list, tuple)) and any(is_role_tuple(item) for item in value):
            # (role, text) pairs: given to the runnable and stored as they are, as
            # LangChain does (a prompt's MessagesPlaceholder turns them into messages)
            for item in value:
                if not (isinstance(item, BaseMessage) or is_role_tuple(item)):
                    raise InvalidInputError(
                        f"{self._default_run_name()}: the input list holds messages and "
                        f"(role, text) pairs, got {type(item).__name__}: {item!r:.60}"
                    )
            return list(value)
        return self._messages(value, "input")

    def _output_messages(self, value: Any, sent: Any) -> list[BaseMessage]:
        if isinstance(value, Mapping) and self.output_messages_key is None:
            value = self._chain_outputs(value, sent)
        if isinstance(value, Mapping):
            key = self._key_of(value, self.output_messages_key, "output", "output_messages_key")
            value = value[key]
        if isinstance(value, str):
            return [AIMessage(value)]
        return self._messages(value, "output")

    def _chain_outputs(self, value: Mapping[str, Any], sent: Any) -> Mapping[str, Any]:
        """A legacy chain (a runnable with ``output_keys``) returns the inputs it was sent
        with its outputs; LangChain reads the reply from the chain's run, which reports
        what the chain computed only, so an ``LLMChain``'s single ``text`` is the reply
        without naming it (and an ``AgentExecutor``'s ``output`` beside its steps)."""
        declared = getattr(self.runnable, "output_keys", None)
        if not isinstance(declared, list) or not isinstance(sent, Mapping):
            return value
        return {key: item for key, item in value.items() if key in declared or key not in sent}

    def _key_of(self, value: Mapping[str, Any], key: str | None, default: str, option: str) -> str:
        if key is None:
            key = next(iter(value)) if len(value) == 1 else default
        if key not in value:
            raise InvalidInputError(
                f"{self._default_run_name()}: the {default} dict has no key {key!r} (it has "
                f"{sorted(value)}); set {option}=... to the key holding the messages"
            )
        return key

    def _messages(self, value: Any, what: str) -> list[BaseMessage]:
        if isinstance(value, BaseMessage):
            items: list[Any] = [value]
        elif isinstance(value, (list, tuple)) and all(isinstance(m, BaseMessage) for m in value):
            items = list(value)
        else:
            raise InvalidInputError(
                f"{self._default_run_name()}: the {what} must be a str, a message, a list of "
                f"messages or a dict holding one, got {type(value).__name__}: {value!r:.60}"
            )
        return items

    def _runnable_input(self, input: Any, stored: list[BaseMessage], new: list[BaseMessage]) -> Any:
        if self.history_messages_key is not None:
            if not isinstance(input, Mapping):
                raise InvalidInputError(
                    f"{self._default_run_name()} has history_messages_key="
                    f"{self.history_messages_key!r}, so its input must be a dict, got "
                    f"{type(input).__name__}"
                )
            return {**input, self.history_messages_key: stored}
        if self.input_messages_key is not None and isinstance(input, Mapping):
            return {**input, self.input_messages_key: [*stored, *new]}
        return [*stored, *new]

    def _turn(self, input: Any) -> Turn:
        """One turn: read the history, call the runnable, write the history."""
        new = self._input_messages(input)  # checked before anything is read or called
        stored = yield _READ, None
        sent = self._runnable_input(input, stored, new)
        output = yield _CALL, sent
        yield _WRITE, [*new, *self._output_messages(output, sent)]
        return output

    # ---------------------------------------------------------------- drivers

    def _current_history(self) -> Any:
        # Inside the run: the current config holds the caller's and the parents' keys.
        return self._session_history((get_current_config() or {}).get("configurable") or {})

    def _perform(self, history: Any, kwargs: dict[str, Any], request: tuple[str, Any]) -> Any:
        step, value = request
        if step == _READ:
            return list(history.messages)
        if step == _CALL:
            return self.runnable.invoke(value, **kwargs)
        history.add_messages(value)
        return None

    async def _aperform(
        self, history: Any, kwargs: dict[str, Any], request: tuple[str, Any]
    ) -> Any:
        step, value = request
        if step == _READ:
            return await history.aget_messages()
        if step == _CALL:
            return await self.runnable.ainvoke(value, **kwargs)
        await history.aadd_messages(value)
        return None

    def _operation(self, input: Any, kwargs: dict[str, Any], *, streaming: bool) -> Operation[Any]:
        """The turn with each step an Effect (``_perform`` or ``_aperform``); streaming,
        the runnable's chunks are emitted as they come and added up into the stored reply.
        """
        history = self._current_history()
        sync = partial(self._perform, history, kwargs)
        asynchronous = partial(self._aperform, history, kwargs)
        turn, reply = self._turn(input), None
        while True:
            try:
                step, value = turn.send(reply)
            except StopIteration as done:
                return done.value
            if step == _CALL and streaming:
                total = [_NOTHING]
                yield from stream_from(self.runnable, value, partial(_add_up, total), **kwargs)
                reply = None if total[0] is _NOTHING else total[0]
            else:
                reply = yield Effect(sync, asynchronous, (step, value))

    def _drive(self, kwargs: dict[str, Any], input: Any) -> Any:
        return drive(self._operation(input, kwargs, streaming=False))

    async def _adrive(self, kwargs: dict[str, Any], input: Any) -> Any:
        return await adrive(self._operation(input, kwargs, streaming=False))

    def _drive_stream(self, kwargs: dict[str, Any], inputs: Iterator[Any]) -> Iterator[Any]:
        yield from drive_stream(self._operation(_single(inputs), kwargs, streaming=True))

    async def _adrive_stream(
        self, kwargs: dict[str, Any], inputs: AsyncIterator[Any]
    ) -> AsyncIterator[Any]:
        input = _single([item async for item in inputs])
        chunks = adrive_stream(self._operation(input, kwargs, streaming=True))
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            await chunks.aclose()  # a consumer that stopped early: end the runnable's run

    # ---------------------------------------------------------------- Runnable

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run one turn of the conversation named in ``config["configurable"]``.

        Raises:
            ConfigurationError: a conversation key is missing from the config (the
                message names the expected and the given keys).
            InvalidInputError: the input or output holds no messages where expected.
        """
        return self._call_with_config(partial(self._drive, kwargs), input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async :meth:`invoke` (the history's and the runnable's async methods)."""
        return await self._acall_with_config(partial(self._adrive, kwargs), input, config)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Stream the wrapped runnable's chunks; the history is written after the last."""
        yield from self._transform_stream_with_config(
            iter([input]), partial(self._drive_stream, kwargs), config, start_input=input
        )

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async :meth:`stream`."""

        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._atransform_stream_with_config(
            one(), partial(self._adrive_stream, kwargs), config, start_input=input
        ):
            yield chunk


def _add_up(total: list[Any], chunk: Any) -> tuple[Any]:
    total[0] = add_chunks(total[0], chunk)
    return (chunk,)


def _single(inputs: Iterator[Any] | list[Any]) -> Any:
    items = list(inputs)
    if len(items) != 1:
        raise InvalidInputError(f"RunnableWithMessageHistory streams one input, got {len(items)}")
    return items[0]

"""Parsers of a chat model's tool calls: ``JsonOutputToolsParser``,
``JsonOutputKeyToolsParser`` and ``PydanticToolsParser`` (LangChain's names and outputs).

They read the ``tool_calls`` of an ``AIMessage``, not its text. Streamed, they yield the
calls parsed so far each time the arguments grow (``AIMessageChunk`` parses unfinished
argument JSON), so ``with_structured_output(...).stream()`` fills a dict in as the model
writes it.

Example:
    >>> from ragline.core import AIMessage
    >>> reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])
    >>> JsonOutputToolsParser().invoke(reply)
    [{'args': {'a': 1}, 'type': 'add'}]
    >>> JsonOutputKeyToolsParser(key_name="add", first_tool_only=True).invoke(reply)
    {'a': 1}
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any, ClassVar

from ragline.core.exceptions import InvalidInputError, OutputParserException
from ragline.core.messages import AIMessage, AIMessageChunk
from ragline.core.output_parsers._base import NOT_YET, StreamProgress
from ragline.core.output_parsers._cumulative import (
    BaseCumulativeTransformOutputParser,
    StreamsByProgress,
)
from ragline.core.output_parsers._json import validate_model
from ragline.core.tools._validate import is_pydantic_model

__all__ = ["JsonOutputKeyToolsParser", "JsonOutputToolsParser", "PydanticToolsParser"]


class JsonOutputToolsParser(StreamsByProgress, BaseCumulativeTransformOutputParser[Any]):
    """The tool calls of a model's reply as ``{"type": <tool name>, "args": {...}}`` dicts
    (``"id"`` too with ``return_id=True``), in the order the model made them.

    Args:
        first_tool_only: return the first call alone (``None`` when there is none)
            instead of a list.
        return_id: keep each call's ``id``.

    Raises:
        OutputParserException: (when parsing) the input is not an AI message, or a
            call's arguments are not a JSON object; ``llm_output`` holds the arguments.

    Example:
        >>> from ragline.core import AIMessage
        >>> JsonOutputToolsParser(first_tool_only=True).invoke(AIMessage("no tools"))
    """

    # LangChain's json.loads(strict=...) switch, shown by asdict(): ragline reads arguments
    # leniently (control characters inside strings are kept), as LangChain's default does.
    strict = False
    return_id = False  # the defaults (the constructor sets both)
    first_tool_only = False
    _asdict_attrs: ClassVar[tuple[str, ...]] = ("strict", "return_id", "first_tool_only")

    def __init__(self, *, first_tool_only: bool = False, return_id: bool = False) -> None:
        self.first_tool_only = bool(first_tool_only)
        self.return_id = bool(return_id)

    def parse(self, text: str) -> Any:
        raise OutputParserException(
            f"{type(self).__name__} reads a chat model's tool calls; it was given text "
            f"({text[:40]!r}); give it the AIMessage",
            llm_output=text,
        )

    def _parse_output(self, value: Any) -> Any:
        return self._from_message(value, partial=False)

    def _parse_partial(self, value: Any) -> Any:
        return self._from_message(value, partial=True)

    def _from_message(self, message: Any, *, partial: bool) -> Any:
        if isinstance(message, str):
            return self.parse(message)
        if not isinstance(message, AIMessage):
            raise OutputParserException(
                f"{type(self).__name__} reads an AI message's tool calls, got "
                f"{type(message).__name__}"
            )
        if not partial:
            self._check_invalid(message)
        calls = [
            {"args": call["args"], "id": call["id"], "type": call["name"]}
            if self.return_id
            else {"args": call["args"], "type": call["name"]}
            for call in message.tool_calls
        ]
        return self._select(self._convert(calls, partial=partial))

    def _check_invalid(self, message: AIMessage) -> None:
        for bad in message.invalid_tool_calls:
            if self._wanted(bad.get("name")):
                raise OutputParserException(
                    f"the arguments of the model's call to {bad.get('name')!r} are not a JSON "
                    f"object ({bad.get('error')}): {bad.get('args')!r:.200}",
                    llm_output=bad.get("args") or "",
                )

    def _wanted(self, name: Any) -> bool:
        return True

    def _convert(self, calls: list[dict[str, Any]], *, partial: bool) -> list[Any]:
        return calls

    def _select(self, results: list[Any]) -> Any:
        if self.first_tool_only:
            return results[0] if results else None
        return results

    def _progress(self) -> StreamProgress:
        return _ToolsProgress(self)

    def _combine(self, total: Any, piece: Any) -> Any:
        return piece  # each result replaces the previous one

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {}


class JsonOutputKeyToolsParser(JsonOutputToolsParser):
    """The arguments of the calls to one tool (or, with ``return_id=True``, the whole
    ``{"type", "args", "id"}`` calls).

    Args:
        key_name: the tool whose calls are kept; calls to other tools are ignored.
        first_tool_only: the first such call alone (``None`` when there is none).
        return_id: return the calls with their ids instead of only their arguments.

    Example:
        >>> from ragline.core import AIMessage
        >>> reply = AIMessage("", tool_calls=[
        ...     {"name": "a", "args": {"x": 1}, "id": "1"},
        ...     {"name": "b", "args": {"y": 2}, "id": "2"}])
        >>> JsonOutputKeyToolsParser(key_name="b").invoke(reply)
        [{'y': 2}]
    """

    _asdict_attrs = (*JsonOutputToolsParser._asdict_attrs, "key_name")

    def __init__(
        self, *, key_name: str, first_tool_only: bool = False, return_id: bool = False
    ) -> None:
        if not isinstance(key_name, str) or not key_name:
            raise InvalidInputError(f"key_name must be a tool's name, got {key_name!r}")
        super().__init__(first_tool_only=first_tool_only, return_id=return_id)
        self.key_name = key_name

    def _wanted(self, name: Any) -> bool:
        return name == self.key_name

    def _convert(self, calls: list[dict[str, Any]], *, partial: bool) -> list[Any]:
        kept = [call for call in calls if call["type"] == self.key_name]
        return kept if self.return_id else [call["args"] for call in kept]


class PydanticToolsParser(JsonOutputToolsParser):
    """The tool calls as instances of the pydantic models offered as tools (matched by
    the model class's name); calls to other tools are an error.

    Args:
        tools: the pydantic model classes.
        first_tool_only: the first call alone (``None`` when there is none).

    Raises:
        InvalidInputError: a tool is not a pydantic model class.
        OutputParserException: (when parsing) a call names no offered model, or its
            arguments do not validate (then it is also pydantic's ``ValidationError``,
            with pydantic's text, as LangChain raises); ``llm_output`` holds the
            arguments as JSON.

    Example:
        >>> from pydantic import BaseModel
        >>> from ragline.core import AIMessage
        >>> class Add(BaseModel):
        ...     a: int
        >>> reply = AIMessage("", tool_calls=[{"name": "Add", "args": {"a": "2"}, "id": "1"}])
        >>> PydanticToolsParser(tools=[Add], first_tool_only=True).invoke(reply)
        Add(a=2)
    """

    _asdict_attrs = (*JsonOutputToolsParser._asdict_attrs, "tools")

    def __init__(self, *, tools: Sequence[type], first_tool_only: bool = False) -> None:
        models = list(tools)
        for model in models:
            if not is_pydantic_model(model):
                raise InvalidInputError(
                    f"PydanticToolsParser takes pydantic model classes, got {model!r:.80}"
                )
        super().__init__(first_tool_only=first_tool_only)
        self.tools = models
        self._by_name = {_tool_name(model): model for model in models}

    def _convert(self, calls: list[dict[str, Any]], *, partial: bool) -> list[Any]:
        instances = []
        for call in calls:
            model = self._by_name.get(call["type"])
            if model is None:
                if partial:
                    continue
                raise OutputParserException(
                    f"the model called {call['type']!r}, which is none of the tools offered "
                    f"({', '.join(self._by_name) or 'none'})",
                    llm_output=json.dumps(call["args"]),
                )
            try:
                instances.append(validate_model(model, call["args"]))
            except ValueError as err:
                if partial:
                    continue  # e.g. a required field has not arrived yet
                raise _arguments_error(err, model, call["args"]) from err
        return instances


@functools.cache  # the class is built once, on first use
def _arguments_error_class() -> Any:
    """The class of tool-call arguments that do not validate: pydantic's
    ``ValidationError`` (named so; what LangChain's parser raises) and ragline's
    ``OutputParserException``."""
    import pydantic_core

    class ValidationError(pydantic_core.ValidationError, OutputParserException):  # type: ignore[misc]
        """Tool-call arguments that do not fit the pydantic model: pydantic's
        ``ValidationError`` (its text and ``errors()``) and an
        ``OutputParserException`` (``llm_output``: the arguments as JSON)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass  # built by pydantic's from_exception_data

    return ValidationError


def _arguments_error(err: ValueError, model: type, args: Any) -> Exception:
    """``err`` (pydantic's, from validating ``args``) as the error the parser raises:
    pydantic's ``ValidationError`` that is also an ``OutputParserException``, as LangChain
    raises pydantic's own; an ``OutputParserException`` for anything else."""
    title, errors = getattr(err, "title", None), getattr(err, "errors", None)
    if isinstance(title, str) and callable(errors):
        try:
            details = [
                {key: e[key] for key in ("type", "loc", "input", "ctx") if key in e}
                for e in errors()
            ]
            error = _arguments_error_class().from_exception_data(title, details)
        except Exception:  # a detail pydantic cannot rebuild: ragline's error below
            error = None
        if error is not None:
            error.observation, error.send_to_llm = None, False
            error.llm_output = json.dumps(args)
            return error  # type: ignore[no-any-return]
    return OutputParserException(
        f"the model's arguments do not fit {model.__name__}: {err}", llm_output=json.dumps(args)
    )


def _tool_name(model: type) -> str:
    config = getattr(model, "model_config", None)
    title = config.get("title") if isinstance(config, dict) else None
    return title or model.__name__


class _ToolsProgress(StreamProgress):
    """The reply streamed so far (chunks added up) and what its tool calls parse to."""

    def __init__(self, parser: JsonOutputToolsParser) -> None:
        super().__init__()
        self.parser = parser
        self.reply: Any = None

    def add(self, chunk: Any) -> Any:
        if not isinstance(chunk, AIMessageChunk):
            self.reply = chunk
            return NOT_YET  # a whole message (or text): parsed once, at the end
        self.reply = chunk if self.reply is None else self.reply + chunk
        parsed = self.parser._from_message(self.reply, partial=True)
        # as LangChain's: an empty list is news once (a reply whose calls have not begun
        # or do not validate yet streams [] first); None (first_tool_only) never is
        return NOT_YET if parsed is None else parsed

    def finish(self) -> Any:
        if self.reply is None:
            return NOT_YET
        final = self.parser._from_message(self.reply, partial=False)
        return NOT_YET if final is None else final  # as LangChain: no call, nothing yielded

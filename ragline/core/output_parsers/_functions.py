"""Parsers of the older OpenAI function-calling replies: the call sits in the message's
``additional_kwargs["function_call"]`` as ``{"name": ..., "arguments": "<JSON text>"}``
(LangChain's ``langchain_core.output_parsers.openai_functions`` names and outputs).

``OutputFunctionsParser`` returns the arguments text (or the whole call),
``JsonOutputFunctionsParser`` the arguments parsed (streamed: each more complete object
as the arguments grow), ``JsonKeyOutputFunctionsParser`` one key of them,
``PydanticOutputFunctionsParser`` an instance of a pydantic model and
``PydanticAttrOutputFunctionsParser`` one attribute of that instance. Newer replies carry
``tool_calls``; their parsers are in ``_tools.py``.

Example:
    >>> from ragline.core import AIMessage
    >>> reply = AIMessage("", additional_kwargs={
    ...     "function_call": {"name": "joke", "arguments": '{"setup": "Why?"}'}})
    >>> JsonOutputFunctionsParser().invoke(reply)
    {'setup': 'Why?'}
    >>> JsonOutputFunctionsParser(args_only=False).invoke(reply)
    {'name': 'joke', 'arguments': {'setup': 'Why?'}}
"""

from __future__ import annotations

import copy
import json
from typing import Any

from ragline.core._partial_json import parse_partial_json
from ragline.core.exceptions import InvalidInputError, OutputParserException
from ragline.core.messages import AIMessageChunk, BaseMessage
from ragline.core.output_parsers._base import (
    NOT_YET,
    BaseOutputParser,
    StreamProgress,
)
from ragline.core.output_parsers._cumulative import (
    BaseCumulativeTransformOutputParser,
    StreamsByProgress,
)
from ragline.core.output_parsers._json import json_patch
from ragline.core.output_parsers._text import fields_repr
from ragline.core.tools._validate import is_pydantic_model

__all__ = [
    "JsonKeyOutputFunctionsParser",
    "JsonOutputFunctionsParser",
    "OutputFunctionsParser",
    "PydanticAttrOutputFunctionsParser",
    "PydanticOutputFunctionsParser",
]


def _function_call(parser: Any, message: Any) -> Any:
    """The message's ``function_call`` dict; None when it has none."""
    if not isinstance(message, BaseMessage):
        raise OutputParserException(
            f"{type(parser).__name__} reads a chat model's function call; it was given "
            f"{type(message).__name__}, give it the AI message"
        )
    return message.additional_kwargs.get("function_call")


def _no_call(parser: Any, message: BaseMessage) -> OutputParserException:
    return OutputParserException(
        f"{type(parser).__name__}: the reply has no function call "
        "(additional_kwargs['function_call'])",
        llm_output=message.text,
    )


class _FunctionCallParser:
    """What the parsers share: LangChain's repr, and text refused (they read a message)."""

    def __repr__(self) -> str:
        return fields_repr(self)

    def parse(self, text: str) -> Any:
        raise OutputParserException(
            f"{type(self).__name__} reads a chat model's function call; it was given text "
            f"({text[:40]!r}); give it the AI message",
            llm_output=text,
        )


class OutputFunctionsParser(_FunctionCallParser, BaseOutputParser[Any]):
    """The function call of a model's reply: its ``arguments`` text, or with
    ``args_only=False`` the whole ``{"name", "arguments"}`` dict (a copy).

    Raises:
        OutputParserException: (when parsing) the input is not a message, or the reply
            has no function call.
    """

    args_only: bool = True

    def _parse_output(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(value)
        call = _function_call(self, value)
        if call is None:
            raise _no_call(self, value)
        call = copy.deepcopy(call)
        return call["arguments"] if self.args_only else call


class JsonOutputFunctionsParser(
    _FunctionCallParser, StreamsByProgress, BaseCumulativeTransformOutputParser[Any]
):
    """The function call's arguments parsed from JSON (``args_only=False``: the call with
    its ``arguments`` parsed). Streamed, each more complete object is yielded as the
    arguments arrive.

    Args:
        diff: when streaming, yield JSON Patch operations (RFC 6902) from the previous
            result instead of each result (a run's output is then all the operations).
        strict: refuse control characters (a raw newline) inside JSON strings.
        args_only: return the arguments alone.

    Raises:
        OutputParserException: (when parsing) the input is not a message, the reply has
            no function call, or its arguments are not JSON.
    """

    diff: bool = False
    strict: bool = False
    args_only: bool = True

    @property
    def _type(self) -> str:
        return "json_functions"

    def _parse_output(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(value)
        return self._from_message(value, partial=False)

    def _parse_partial(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(value)
        return self._from_message(value, partial=True)

    def _from_message(self, message: Any, *, partial: bool) -> Any:
        call = _function_call(self, message)
        if call is None:
            if partial:
                return None
            raise _no_call(self, message)
        if "arguments" not in call:
            return None
        text = call["arguments"]
        if partial:
            try:
                parsed = parse_partial_json(text)
            except (ValueError, TypeError):
                return None
        else:
            try:
                parsed = json.loads(text, strict=self.strict)
            except (ValueError, TypeError) as err:
                raise OutputParserException(
                    f"the function call's arguments are not JSON ({err}): {text!r:.200}",
                    llm_output=text if isinstance(text, str) else "",
                ) from err
        return parsed if self.args_only else {**call, "arguments": parsed}

    def _progress(self) -> StreamProgress:
        return _FunctionDiffProgress(self) if self.diff else _FunctionProgress(self)

    def _combine(self, total: Any, piece: Any) -> Any:
        if self.diff:
            return [*total, *piece]  # patches add up: the run's output is all of them
        return piece  # each result replaces the previous one


class JsonKeyOutputFunctionsParser(JsonOutputFunctionsParser):
    """One key of the function call's parsed arguments.

    Raises:
        KeyError: (when parsing a whole reply) the arguments lack ``key_name``.
    """

    key_name: str

    def _from_message(self, message: Any, *, partial: bool) -> Any:
        parsed = super()._from_message(message, partial=partial)
        if partial:
            return None if parsed is None else parsed.get(self.key_name)
        return parsed[self.key_name]


class PydanticOutputFunctionsParser(OutputFunctionsParser):
    """The function call as an instance of a pydantic model: ``pydantic_schema`` is one
    model class, or ``{function name: model class}`` (then ``args_only`` must be False
    and the call's name picks the model). ``args_only`` defaults to True for one class.

    Raises:
        InvalidInputError: a schema that is not a pydantic model class (or a dict of
            them), or ``args_only=True`` with a dict.
        pydantic.ValidationError: (when parsing) the arguments do not fit the model.
    """

    pydantic_schema: Any
    args_only: bool = True

    def __init__(self, *, pydantic_schema: Any, args_only: bool | None = None) -> None:
        many = isinstance(pydantic_schema, dict)
        models = list(pydantic_schema.values()) if many else [pydantic_schema]
        if not models or not all(is_pydantic_model(m) for m in models):
            raise InvalidInputError(
                "pydantic_schema must be a pydantic model class or a dict of them, got "
                f"{pydantic_schema!r:.80}"
            )
        if args_only is None:
            args_only = not many
        elif args_only and many:
            raise InvalidInputError(
                "PydanticOutputFunctionsParser with several pydantic schemas needs "
                "args_only=False (the call's name picks the schema)"
            )
        super().__init__(args_only=args_only)
        self.pydantic_schema = pydantic_schema

    def _parse_output(self, value: Any) -> Any:
        call = super()._parse_output(value)
        if self.args_only:
            return _validate_json(self.pydantic_schema, call)
        schema = self.pydantic_schema
        if isinstance(schema, dict):
            try:
                schema = schema[call["name"]]
            except KeyError as err:
                raise OutputParserException(
                    f"the model called {call.get('name')!r}, which is none of the schemas "
                    f"({', '.join(self.pydantic_schema)})",
                    llm_output=str(call.get("arguments", "")),
                ) from err
        return _validate_json(schema, call["arguments"])


class PydanticAttrOutputFunctionsParser(PydanticOutputFunctionsParser):
    """One attribute of the instance ``PydanticOutputFunctionsParser`` builds."""

    attr_name: str

    def __init__(
        self, *, pydantic_schema: Any, attr_name: str, args_only: bool | None = None
    ) -> None:
        super().__init__(pydantic_schema=pydantic_schema, args_only=args_only)
        self.attr_name = attr_name

    def _parse_output(self, value: Any) -> Any:
        return getattr(super()._parse_output(value), self.attr_name)


def _validate_json(model: type, text: Any) -> Any:
    validate = getattr(model, "model_validate_json", None)
    if validate is None:  # a pydantic v1 model
        return model.parse_raw(text)  # type: ignore[attr-defined]
    return validate(text)


class _FunctionProgress(StreamProgress):
    """The reply streamed so far (chunks added up) and what its call's arguments parse
    to; as LangChain's, no final strict parse: a stream yields only what parsed."""

    def __init__(self, parser: JsonOutputFunctionsParser) -> None:
        super().__init__()
        self.parser = parser
        self.reply: Any = None

    def add(self, chunk: Any) -> Any:
        if isinstance(chunk, AIMessageChunk) and isinstance(self.reply, AIMessageChunk):
            self.reply = self.reply + chunk
        else:
            self.reply = chunk
        parsed = self.parser._from_message(self.reply, partial=True)
        return NOT_YET if parsed is None else parsed

    def finish(self) -> Any:
        return NOT_YET


class _FunctionDiffProgress(_FunctionProgress):
    """The same stream, reported as JSON Patch operations from the previous result."""

    def __init__(self, parser: JsonOutputFunctionsParser) -> None:
        super().__init__(parser)
        self._result: Any = None  # what the last patch led to (None at first)

    def changed(self, parsed: Any) -> bool:
        if parsed is NOT_YET or parsed == self._result:
            return False
        self.last = json_patch(self._result, parsed)
        self._result = copy.deepcopy(parsed)
        return True

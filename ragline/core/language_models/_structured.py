"""``with_structured_output``: a chat model that answers with data of a given shape.

Three ways to get it, LangChain's ``method`` names:

- ``"function_calling"``: the schema is offered as the one tool the model must call
  (``bind_tools([schema], tool_choice="any")``, ChatOpenAI's ``tool_choice=<its name>``);
  the call's arguments are the answer.
- ``"json_schema"``: the schema goes in OpenAI's ``response_format`` (``{"type":
  "json_schema", ...}``, structured outputs); the reply's text is the JSON answer.
- ``"json_mode"``: ``response_format={"type": "json_object"}``; the prompt must describe
  the shape (``PydanticOutputParser(...).get_format_instructions()`` does).

A pydantic model class gives instances of it; a TypedDict, a JSON Schema dict (with a
``title``), an OpenAI function dict or an OpenAI tool dict give dicts (``json_mode`` also
takes no schema). Which methods a model supports is its class's
``structured_output_methods`` (the first is the default): ``function_calling`` needs
``bind_tools``, the JSON methods a model that sends ``response_format`` (``ChatOpenAI``).

Example:
    >>> from ragline.core import AIMessage, FakeMessagesListChatModel
    >>> model = FakeMessagesListChatModel(responses=[AIMessage("", tool_calls=[
    ...     {"name": "Answer", "args": {"city": "Paris"}, "id": "c1"}])])
    >>> schema = {"title": "Answer", "type": "object",
    ...           "properties": {"city": {"type": "string"}}, "required": ["city"]}
    >>> model.with_structured_output(schema).invoke("Capital of France?")
    {'city': 'Paris'}
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from ragline.core._checks import check_choice
from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.exceptions import ConfigurationError, InvalidInputError, UnsupportedMethodError
from ragline.core.output_parsers import (
    BaseOutputParser,
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
)
from ragline.core.runnables.base import Runnable
from ragline.core.tools import convert_to_openai_function
from ragline.core.tools._validate import is_pydantic_model

__all__ = ["METHODS", "StructuredOutputWithRaw", "structured_output"]

METHODS = ("function_calling", "json_schema", "json_mode")


def structured_output(
    model: Any,
    schema: Any,
    *,
    method: str | None,
    include_raw: bool,
    strict: bool | None,
) -> Runnable[Any, Any]:
    """The runnable ``with_structured_output`` returns (see the module docstring).

    Raises:
        ConfigurationError: ``method`` is unknown.
        UnsupportedMethodError: ``method`` is not supported by this model (a
            ConfigurationError, printed as LangChain's NotImplementedError).
        InvalidInputError: the schema cannot be described (or is missing).
    """
    supported = tuple(type(model).structured_output_methods)
    if supported[:1] != ("function_calling",) and _tools_of_its_own(type(model)):
        # a subclass of a fake (or of the base) that writes bind_tools is a tool-calling
        # model: LangChain's base method always binds the schema as a tool for it
        supported = ("function_calling", *(m for m in supported if m != "function_calling"))
    if method is None:
        method = supported[0] if supported else "function_calling"
    check_choice("method", method, METHODS, error=ConfigurationError)
    if method == "function_calling" and not hasattr(model, "bind_tools"):
        supported = tuple(m for m in supported if m != method)
    if method not in supported:
        why = " (it has no bind_tools)" if not hasattr(model, "bind_tools") else ""
        raise UnsupportedMethodError(
            f"{type(model).__name__} does not support method={method!r}{why}; it supports "
            f"{', '.join(map(repr, supported)) or 'no structured output'}"
        )
    if schema is None and method != "json_mode":
        raise InvalidInputError(f"with_structured_output(method={method!r}) needs a schema")
    pydantic = is_pydantic_model(schema)
    parser: BaseOutputParser[Any]
    if method == "function_calling":
        name = _function(schema, strict)["name"]  # checked here: a bad schema fails now
        # as LangChain's: bind_tools gets the schema itself (a custom bind_tools sees what
        # it would there), and the structured-output format, which callbacks are shown
        options: dict[str, Any] = {"method": method}
        if type(model)._structured_tool_choice_by_name:  # LangChain's ChatOpenAI
            options["strict"] = strict
            fmt = {"kwargs": options, "schema": schema}
            bound = model.bind_tools(
                [schema], tool_choice=name, strict=strict, ls_structured_output_format=fmt
            )
        else:  # LangChain's base chat model: no strict
            fmt = {"kwargs": options, "schema": schema}
            bound = model.bind_tools([schema], tool_choice="any", ls_structured_output_format=fmt)
        parser = (
            PydanticToolsParser(tools=[schema], first_tool_only=True)
            if pydantic
            else JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
        )
    else:
        bound = model.bind(response_format=_response_format(schema, method, strict))
        parser = PydanticOutputParser(pydantic_object=schema) if pydantic else JsonOutputParser()
    if include_raw:
        return StructuredOutputWithRaw(bound, parser)
    return bound | parser


def _tools_of_its_own(cls: type) -> bool:
    """Whether ``cls`` is a user's subclass of one of ragline's core chat models (a fake,
    the base) that defines ``bind_tools`` itself (a scripted tool-calling model)."""
    writes_it = False
    for klass in cls.__mro__:
        if klass.__module__.partition(".")[0] == "ragline":  # the first of ragline's classes
            # ChatOpenAI's with_structured_output is its own in LangChain too
            return writes_it and klass.__module__.startswith("ragline.core.")
        writes_it = writes_it or "bind_tools" in vars(klass)
    return False


def _function(schema: Any, strict: bool | None) -> dict[str, Any]:
    if (
        isinstance(schema, Mapping)
        and schema.get("type") == "function"
        and isinstance(schema.get("function"), Mapping)
    ):  # an OpenAI tool dict (convert_to_openai_tool's output) describes its function
        schema = schema["function"]
    try:
        return convert_to_openai_function(schema, strict=strict)
    except InvalidInputError as err:
        raise InvalidInputError(
            f"with_structured_output cannot use {schema!r:.80} as a schema: {err}; pass a "
            "pydantic model class, a TypedDict, a JSON Schema dict with a 'title' or an "
            "OpenAI function or tool dict"
        ) from err


def _response_format(schema: Any, method: str, strict: bool | None) -> dict[str, Any]:
    if method == "json_mode":
        return {"type": "json_object"}
    function = _function(schema, bool(strict))
    spec = {"name": function["name"]}
    if function.get("description"):
        spec["description"] = function["description"]
    return {
        "type": "json_schema",
        "json_schema": {**spec, "schema": function["parameters"], "strict": bool(strict)},
    }


class StructuredOutputWithRaw(Runnable[Any, dict[str, Any]]):
    """``with_structured_output(..., include_raw=True)``: ``{"raw": <the AIMessage>,
    "parsed": <the answer, or None>, "parsing_error": <the exception, or None>}``; a reply
    that does not parse is returned with its error, not raised.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> runnable = FakeListChatModel(responses=["not JSON"]).with_structured_output(
        ...     None, method="json_mode", include_raw=True)
        >>> result = runnable.invoke("hi")
        >>> result["raw"].content, result["parsed"], type(result["parsing_error"]).__name__
        ('not JSON', None, 'OutputParserException')
    """

    def __init__(self, model: Runnable[Any, Any], parser: BaseOutputParser[Any]) -> None:
        self.model = model
        self.parser = parser

    def _run(self, input: Any) -> Operation[dict[str, Any]]:
        raw = yield Effect(self.model.invoke, self.model.ainvoke, input)
        try:
            parsed = yield Effect(self.parser.invoke, self.parser.ainvoke, raw)
        except Exception as err:  # as LangChain: any parsing failure is reported, not raised
            # in LangChain's key order there (its fallback adds the error, then parsed)
            return {"raw": raw, "parsing_error": err, "parsed": None}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
        self._reject_kwargs(kwargs)
        return self._call_with_config(lambda value: drive(self._run(value)), input, config)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict[str, Any]:
        self._reject_kwargs(kwargs)

        async def run(value: Any) -> dict[str, Any]:
            return await adrive(self._run(value))

        return await self._acall_with_config(run, input, config)

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[dict[str, Any]]:
        """``{"raw": <the reply, its chunks added>}``, then ``{"parsed": ...}``, then
        ``{"parsing_error": ...}``: LangChain's three pieces (added up, the dict invoke
        gives). A reply that does not parse gives the error, then ``parsed`` None."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._pieces, config)

    async def astream(
        self, input: Any, config: Any = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async twin of :meth:`stream` (``parsing_error`` before ``parsed``, as
        LangChain's)."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        async for piece in self._atransform_stream_with_config(one(), self._apieces, config):
            yield piece

    def _pieces(self, inputs: Iterator[Any]) -> Iterator[dict[str, Any]]:
        raw = None
        for value in inputs:
            for chunk in self.model.stream(value):
                raw = chunk if raw is None else raw + chunk
        yield {"raw": raw}
        try:
            parsed = self.parser.invoke(raw)
        except Exception as err:  # reported, as invoke reports it (and in its key order)
            yield {"parsing_error": err}
            yield {"parsed": None}
            return
        yield {"parsed": parsed}
        yield {"parsing_error": None}

    async def _apieces(self, inputs: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
        raw = None
        async for value in inputs:
            async for chunk in self.model.astream(value):
                raw = chunk if raw is None else raw + chunk
        yield {"raw": raw}
        # LangChain's async pieces come in this order: its parsing_error branch is done
        # before the parser's
        try:
            parsed = await self.parser.ainvoke(raw)
        except Exception as err:  # reported, as ainvoke reports it
            yield {"parsing_error": err}
            yield {"parsed": None}
            return
        yield {"parsing_error": None}
        yield {"parsed": parsed}

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.model, self.parser]

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.model._input_json(defs)

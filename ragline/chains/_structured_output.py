"""``create_structured_output_runnable``: a model bound to answer in a schema's shape.

LangChain's older helper (``langchain.chains``), kept for programs that call it: the
model is bound to OpenAI-protocol request options (a function to call, a tool to call,
or JSON mode) and followed by the parser that reads that answer back. New code can use
``model.with_structured_output(schema)``.
"""

from __future__ import annotations

import json
from typing import Any

from ragline.core import (
    BaseMessage,
    BaseOutputParser,
    BasePromptTemplate,
    InvalidInputError,
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    OutputParserException,
    PydanticOutputParser,
    PydanticToolsParser,
    Runnable,
    convert_to_openai_function,
    convert_to_openai_tool,
)
from ragline.core._checks import check_choice
from ragline.core.tools._validate import is_pydantic_model

__all__ = ["create_structured_output_runnable"]

MODES = ("openai-functions", "openai-tools", "openai-json")
# The function a model is asked to call in "openai-functions" mode: LangChain's names,
# so a scripted or recorded reply that calls it parses the same.
_FORMATTER = "output_formatter"
_WRAPPER = "_OutputFormatter"
_FORMATTER_HELP = "Formats the answer to the user: always answer by calling it."


def create_structured_output_runnable(
    output_schema: dict[str, Any] | type,
    llm: Runnable[Any, Any],
    prompt: BasePromptTemplate | None = None,
    *,
    output_parser: BaseOutputParser[Any] | None = None,
    enforce_function_usage: bool = True,
    return_single: bool = True,
    mode: str = "openai-functions",
    enforce_single_function_usage: bool | None = None,
) -> Runnable[Any, Any]:
    """A runnable (``[prompt |] model | parser``) whose output has ``output_schema``'s shape.

    Args:
        output_schema: a pydantic model class (the output is an instance) or a JSON
            Schema dict (the output is a dict).
        llm: a chat model that speaks the OpenAI protocol (``ChatOpenAI``), or a fake.
        prompt: put in front of the model when given. In ``"openai-json"`` mode a
            ``{output_schema}`` variable in it is filled with the schema as JSON.
        output_parser: replaces the mode's parser.
        enforce_function_usage: make the model call the function or tool (modes
            ``"openai-functions"`` and ``"openai-tools"``; ``"openai-json"`` refuses it,
            so pass ``False`` there, as LangChain requires).
        return_single: ``"openai-tools"`` only: the first call's value (``None`` when
            the model called nothing) rather than a list of all calls.
        mode: ``"openai-functions"`` (a function call, the default),
            ``"openai-tools"`` (a tool call) or ``"openai-json"`` (JSON mode).
        enforce_single_function_usage: LangChain's older name of
            ``enforce_function_usage`` (wins when given).

    Returns:
        The runnable; its input is the prompt's variables, or the model's input
        without a prompt.

    Raises:
        ConfigurationError: an unknown ``mode``.
        InvalidInputError: ``enforce_function_usage`` with ``"openai-json"``, or a schema
            that is neither a pydantic model class nor a dict.

    Example:
        >>> from ragline.core import AIMessage, FakeMessagesListChatModel
        >>> reply = AIMessage("", tool_calls=[{"name": "dog", "args": {"name": "Rex"},
        ...                                    "id": "1"}])
        >>> schema = {"title": "dog", "type": "object",
        ...           "properties": {"name": {"type": "string"}}}
        >>> dogs = create_structured_output_runnable(
        ...     schema, FakeMessagesListChatModel(responses=[reply]), mode="openai-tools")
        >>> dogs.invoke("Rex is a dog")
        {'name': 'Rex'}
    """
    check_choice("mode", mode, MODES)
    if not (isinstance(output_schema, dict) or is_pydantic_model(output_schema)):
        raise InvalidInputError(
            "output_schema must be a pydantic model class or a JSON Schema dict, got "
            f"{output_schema!r:.80}"
        )
    enforce = enforce_function_usage
    if enforce_single_function_usage is not None:
        enforce = enforce_single_function_usage
    if mode == "openai-tools":
        tool = convert_to_openai_tool(output_schema)
        name = tool["function"]["name"]
        options: dict[str, Any] = {"tools": [tool]}
        if enforce:
            options["tool_choice"] = {"type": "function", "function": {"name": name}}
        parser = output_parser or (
            PydanticToolsParser(tools=[output_schema], first_tool_only=return_single)  # type: ignore[list-item]
            if is_pydantic_model(output_schema)
            else JsonOutputKeyToolsParser(key_name=name, first_tool_only=return_single)
        )
    elif mode == "openai-functions":
        function, parser_default = _formatter_function(output_schema)
        options = {"functions": [function]}
        if enforce:
            options["function_call"] = {"name": function["name"]}
        parser = output_parser or parser_default
    else:
        if enforce:
            raise InvalidInputError(
                "mode='openai-json' does not take enforce_function_usage=True (JSON mode "
                "calls no function); pass enforce_function_usage=False"
            )
        options = {"response_format": {"type": "json_object"}}
        if is_pydantic_model(output_schema):
            parser = output_parser or PydanticOutputParser(pydantic_object=output_schema)  # type: ignore[arg-type]
            schema = convert_to_openai_function(output_schema)["parameters"]
        else:
            parser = output_parser or JsonOutputParser()
            schema = output_schema  # type: ignore[assignment]
        if prompt is not None and "output_schema" in prompt.input_variables:
            prompt = prompt.partial(output_schema=json.dumps(schema, indent=2))
    model = llm.bind(**options)
    return model | parser if prompt is None else prompt | model | parser


def _formatter_function(schema: dict[str, Any] | type) -> tuple[dict[str, Any], Any]:
    """The function the model calls in "openai-functions" mode, and its parser."""
    if isinstance(schema, dict):
        function = {"name": _FORMATTER, "description": _FORMATTER_HELP, "parameters": schema}
        return function, _FunctionArguments()
    described = convert_to_openai_function(schema)
    inner = dict(described["parameters"])
    if described.get("description"):  # the model's docstring describes the output
        inner = {"description": described["description"], **inner}
    parameters = {
        "type": "object",
        "properties": {"output": inner},
        "required": ["output"],
    }
    function = {"name": _WRAPPER, "description": _FORMATTER_HELP, "parameters": parameters}
    return function, _FunctionArguments(model=schema, key="output")


class _FunctionArguments(BaseOutputParser[Any]):
    """The arguments of the model's function call (``additional_kwargs["function_call"]``),
    as a dict, or the value under ``key`` validated into ``model``."""

    def __init__(self, *, model: Any = None, key: str | None = None) -> None:
        self.model = model
        self.key = key

    def parse(self, text: str) -> Any:
        raise OutputParserException(
            f"the structured output of mode 'openai-functions' is a function call; got "
            f"text ({text[:40]!r}) instead of the model's message",
            llm_output=text,
        )

    def _parse_output(self, value: Any) -> Any:
        if not isinstance(value, BaseMessage):
            return self.parse(str(value))
        call = value.additional_kwargs.get("function_call")
        if not isinstance(call, dict) or "arguments" not in call:
            raise OutputParserException(
                f"the model called no function (its reply: {value.content!r:.80})",
                llm_output=str(value.content),
            )
        try:
            arguments = json.loads(call["arguments"], strict=False)
        except (TypeError, ValueError) as err:
            raise OutputParserException(
                f"the function call's arguments are not JSON: {call['arguments']!r:.80}",
                llm_output=str(call["arguments"]),
            ) from err
        if self.model is None:
            return arguments
        if not isinstance(arguments, dict) or self.key not in arguments:
            raise OutputParserException(
                f"the function call's arguments have no {self.key!r}: {arguments!r:.80}",
                llm_output=call["arguments"],
            )
        return PydanticOutputParser(pydantic_object=self.model).parse(
            json.dumps(arguments[self.key])
        )

"""Parity: differences found by the fifth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print.
"""

from __future__ import annotations

from typing import Any

from langchain_classic.agents.output_parsers.tools import ToolAgentAction as LCToolAgentAction
from langchain_core.agents import AgentAction as LCAgentAction
from langchain_core.agents import AgentActionMessageLog as LCAgentActionMessageLog
from langchain_core.agents import AgentFinish as LCAgentFinish
from langchain_core.agents import AgentStep as LCAgentStep
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.tools import StructuredTool as LCStructuredTool
from langchain_core.tools import tool as lc_tool
from pydantic import BaseModel, Field

from ragline.core.agents import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    ToolAgentAction,
)
from ragline.core.messages import AIMessage
from ragline.tools import StructuredTool, tool


class WeatherInput(BaseModel):
    city: str = Field(description="city name")
    unit: str = Field(default="C", description="C or F")


def get_weather(city: str, unit: str = "C") -> str:
    return f"22{unit} in {city}"


def multiply(a: int, b: int) -> int:
    """Multiply two integers.

    Args:
        a: the first.
        b: the second.
    """
    return a * b


def _tool_call_schemas(structured: Any, decorator: Any) -> list[Any]:
    weather = structured.from_function(
        func=get_weather,
        name="get_weather",
        description="Get the weather for a city",
        args_schema=WeatherInput,
    )
    mult = decorator(multiply)
    return [
        weather.tool_call_schema.model_json_schema(),
        weather.get_input_schema().model_json_schema(),
        mult.tool_call_schema.model_json_schema(),
    ]


def test_tool_call_schema_is_titled_with_the_tool_name_and_description() -> None:
    # structured_tool_args_schema_toolcall: print(tool.tool_call_schema.model_json_schema())
    assert _tool_call_schemas(StructuredTool, tool) == _tool_call_schemas(LCStructuredTool, lc_tool)


def _agent_type_strings(lib: dict[str, Any]) -> list[str]:
    action = lib["AgentAction"](tool="search", tool_input="etna", log="Action: search")
    message = lib["AIMessage"](
        content="",
        tool_calls=[{"name": "multiply", "args": {"a": 5, "b": 3}, "id": "t2"}],
        id="m1",
    )
    return [
        str(action),
        str(lib["AgentActionMessageLog"](tool="m", tool_input={}, log="", message_log=[])),
        str(
            lib["ToolAgentAction"](
                tool="multiply",
                tool_input={"a": 5, "b": 3},
                log="\nInvoking: `multiply`\n",
                message_log=[message],
                tool_call_id="t2",
            )
        ),
        str(lib["AgentFinish"](return_values={"output": "15"}, log="done")),
        str(lib["AgentStep"](action=action, observation=15)),
    ]


def test_str_of_agent_actions_steps_and_finishes() -> None:
    # tool_agent_intermediate_steps_print: for action, observation in steps: print(action)
    ragline = {
        "AgentAction": AgentAction,
        "AgentActionMessageLog": AgentActionMessageLog,
        "ToolAgentAction": ToolAgentAction,
        "AgentFinish": AgentFinish,
        "AgentStep": AgentStep,
        "AIMessage": AIMessage,
    }
    langchain = {
        "AgentAction": LCAgentAction,
        "AgentActionMessageLog": LCAgentActionMessageLog,
        "ToolAgentAction": LCToolAgentAction,
        "AgentFinish": LCAgentFinish,
        "AgentStep": LCAgentStep,
        "AIMessage": LCAIMessage,
    }
    assert _agent_type_strings(ragline) == _agent_type_strings(langchain)


class GradeDocuments(BaseModel):
    """Binary score for relevance check on retrieved documents."""

    binary_score: str = Field(description="'yes' or 'no'")


def test_json_parser_output_schema_ignores_pydantic_object() -> None:
    # self_rag_graders_chain: print(parser.get_output_schema().model_json_schema())
    from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
    from langchain_core.output_parsers import PydanticOutputParser as LCPydanticOutputParser

    from ragline.core.output_parsers import JsonOutputParser, PydanticOutputParser

    def schemas(json_parser: Any, pydantic_parser: Any) -> list[Any]:
        return [
            json_parser().get_output_schema().model_json_schema(),
            json_parser(pydantic_object=GradeDocuments).get_output_schema().model_json_schema(),
            pydantic_parser(pydantic_object=GradeDocuments).get_output_schema().model_json_schema(),
        ]

    assert schemas(JsonOutputParser, PydanticOutputParser) == schemas(
        LCJsonOutputParser, LCPydanticOutputParser
    )


def test_message_text_type_and_call_form() -> None:
    # run_tree_callback_handler: print(type(outputs).__name__) at StrOutputParser's end;
    # older programs call message.text() as a method
    import warnings

    from langchain_core.messages import AIMessage as LCAI
    from langchain_core.output_parsers import StrOutputParser as LCStr

    from ragline.core.output_parsers import StrOutputParser

    def forms(ai: Any, parser: Any) -> list[Any]:
        plain = ai(content="hi")
        blocks = ai(content=[{"type": "text", "text": "a"}, "b"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            called = [plain.text(), blocks.text()]
        return [
            type(plain.text).__name__,
            type(parser().invoke(plain)).__name__,
            type(parser().invoke("x")).__name__,
            plain.text,
            blocks.text,
            called,
        ]

    assert forms(AIMessage, StrOutputParser) == forms(LCAI, LCStr)

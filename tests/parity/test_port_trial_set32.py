"""Parity: differences found by the thirty-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# mdcrawler_tools_prompting_json_invoke_tool: a tool whose arguments are annotated float,
# invoked with integers (a model's JSON often writes 4 for 4.0). LangChain's tools check
# the arguments with pydantic, whose lax mode makes them floats (multiply printed 20.0);
# ragline passed the integers on (20). A float | int argument keeps its integer in both.
_FLOAT_ARGUMENTS = """
from typing import Optional
from langchain_core.tools import tool


@tool
def multiply(x: float, y: float) -> float:
    \"\"\"Multiply two numbers together.\"\"\"
    return x * y


@tool
def describe(
    a: float | int, b: list[float], c: Optional[dict[str, float]] = None, n: int = 1
) -> str:
    \"\"\"Show what the tool was given.\"\"\"
    return repr((a, b, c, n))


print(repr(multiply.invoke({"x": 4, "y": 5})))
print(repr(multiply.invoke({"x": "3", "y": 2.5})))
call = {"name": "multiply", "args": {"x": 2, "y": 3}, "id": "c1", "type": "tool_call"}
print(multiply.invoke(call).content)
print(describe.invoke({"a": 3, "b": [1, 2.5], "c": {"k": 2}, "n": 2}))
print(describe.invoke({"a": 3.0, "b": []}))
"""


def test_an_integer_for_a_float_argument_reaches_the_tool_as_a_float() -> None:
    langchain_printed = _printed(_FLOAT_ARGUMENTS)
    assert langchain_printed == (
        "20.0\n7.5\n6.0\n(3, [1.0, 2.5], {'k': 2.0}, 2)\n(3.0, [], None, 1)\n"
    )
    assert _printed(_ported(_FLOAT_ARGUMENTS)) == langchain_printed


# jaredlang_structured_tool_pydantic_v1: a StructuredTool whose args_schema is a
# pydantic.v1 model. LangChain's tool.args are the v1 model's own properties, whose keys
# v1 does not sort ('title' first, a nested model as a $ref); ragline sorted them as
# pydantic v2 writes its schemas.
_PYDANTIC_V1_ARGS = """
from typing import List, Optional

from pydantic.v1 import BaseModel, Field

from langchain_core.tools import StructuredTool


class Point(BaseModel):
    x: int = Field(description="across")


class CalculatorInput(BaseModel):
    a: int = Field(description="first number")
    b_value: Optional[float] = Field(None, description="second number")
    points: List[Point] = []


def multiply(a: int, b_value: float = 1.0, points=()) -> float:
    \"\"\"Multiply two numbers.\"\"\"
    return a * b_value + len(points)


calculator = StructuredTool.from_function(
    func=multiply,
    name="Calculator",
    description="multiply numbers",
    args_schema=CalculatorInput,
    return_direct=True,
)
print(calculator.args)
print(calculator.tool_call_schema.schema())
print(calculator.invoke({"a": 6, "b_value": 7, "points": [{"x": 1}]}))
"""


def test_a_pydantic_v1_args_schema_shows_its_arguments_as_v1_writes_them() -> None:
    langchain_printed = _printed(_PYDANTIC_V1_ARGS)
    assert langchain_printed.splitlines()[0] == (
        "{'a': {'title': 'A', 'description': 'first number', 'type': 'integer'}, "
        "'b_value': {'title': 'B Value', 'description': 'second number', 'type': 'number'}, "
        "'points': {'title': 'Points', 'default': [], 'type': 'array', "
        "'items': {'$ref': '#/definitions/Point'}}}"
    )
    assert _printed(_ported(_PYDANTIC_V1_ARGS)) == langchain_printed

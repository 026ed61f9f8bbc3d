"""Parity: differences found by the seventy-first port trial (issue 24), one scenario each.

The set's theme: chat models with tool calling and streaming (tool schemas, ToolCalls
sent to tools, ToolMessages sent back, summed AIMessageChunks). Each scenario runs the
same program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# A probe beside the set (a tool-calling loop as in p02/p25 of set 71, whose tool builds
# its own ToolMessage, as LangGraph-style tools do): LangChain's tool hands a ToolMessage
# the function returns back as it is when invoked with a ToolCall; ragline wrapped it in a
# second ToolMessage whose content was the first one's text.
_TOOL_RETURNS_ITS_OWN_MESSAGE = """
import asyncio
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, tool


@tool
def lookup(city: str):
    \"\"\"Look a city up.\"\"\"
    return ToolMessage(content=f"{city}: 21C", tool_call_id="own-id", artifact={"c": 21})


@tool(response_format="content_and_artifact")
def paired(city: str):
    \"\"\"Look a city up, with an artifact.\"\"\"
    return ToolMessage(content=city, tool_call_id="pair-id"), {"raw": city}


async def alookup(city: str):
    return ToolMessage(content=city.upper(), tool_call_id="async-id")


async_tool = StructuredTool.from_function(coroutine=alookup, name="alookup", description="d")
call = {"name": "lookup", "args": {"city": "Oslo"}, "id": "call_1", "type": "tool_call"}
for result in [
    lookup.invoke(call),
    lookup.invoke({"city": "Rome"}),
    asyncio.run(lookup.ainvoke(call)),
    asyncio.run(async_tool.ainvoke({**call, "name": "alookup"})),
    paired.invoke({**call, "name": "paired"}),
]:
    print(repr(result))
"""


def test_a_tool_returning_a_tool_message_hands_it_back_as_it_is() -> None:
    langchain_printed = _printed(_TOOL_RETURNS_ITS_OWN_MESSAGE)
    assert langchain_printed.splitlines()[0] == (
        "ToolMessage(content='Oslo: 21C', tool_call_id='own-id', artifact={'c': 21})"
    )
    assert _printed(_ported(_TOOL_RETURNS_ITS_OWN_MESSAGE)) == langchain_printed


# A probe beside the set (convert_to_openai_tool, as p21 of set 71 prints for its tools,
# given a TypedDict): LangChain describes a TypedDict through a pydantic-v1 model, so the
# schema's keys come in v1's order, ``Annotated[T, default, "text"]`` gives a default and
# a description, the docstring's ``Args:`` describe fields and ``Optional[T]`` reads as
# ``T``; ragline wrote its own (v2-like) schema, every field required.
_TYPED_DICT_TOOLS = """
from typing import Annotated, Dict, List, Literal, Optional
from typing_extensions import TypedDict
from langchain_core.utils.function_calling import convert_to_openai_function, convert_to_openai_tool


class Address(TypedDict):
    \"\"\"Where someone lives.\"\"\"

    city: str


class Person(TypedDict):
    \"\"\"Information about a person,
    as the model should extract it.

    Args:
        nickname: what friends call them
    \"\"\"

    name: Annotated[str, ..., "the person's name"]
    age: Annotated[int, 30, "age in years"]
    email: Annotated[Optional[str], None, "an email address"]
    nickname: Optional[str]
    tags: List[str]
    role: Literal["admin", "user"]
    home: Address
    past: Optional[List[Address]]
    scores: Dict[str, float]
    active: bool


print(convert_to_openai_tool(Person))
print(convert_to_openai_function(Address))
print(convert_to_openai_tool(Address, strict=True))
"""


def test_a_typed_dict_is_described_in_langchains_shape() -> None:
    langchain_printed = _printed(_TYPED_DICT_TOOLS)
    assert "'age': {'description': 'age in years', 'default': 30, 'type': 'integer'}" in (
        langchain_printed
    )
    assert _printed(_ported(_TYPED_DICT_TOOLS)) == langchain_printed


# A probe beside the set (@tool(parse_docstring=True), as p11/p14 of set 71 use, on a
# docstring whose description runs over two lines and two paragraphs): LangChain keeps
# the line break inside a paragraph and joins paragraphs with a space; ragline joined
# every line with a space.
_MULTI_LINE_DESCRIPTION = """
from langchain_core.tools import tool


@tool(parse_docstring=True)
def lookup(city: str, days: int = 1) -> str:
    \"\"\"Look up the weather
    for a city.

    Uses the cached forecast.

    Args:
        city: the city
            to look up.
        days: how many days.
    \"\"\"
    return city


print(repr(lookup.description))
print(lookup.args)
"""


def test_a_parsed_docstring_keeps_a_paragraphs_line_breaks() -> None:
    langchain_printed = _printed(_MULTI_LINE_DESCRIPTION)
    assert langchain_printed.splitlines()[0] == (
        "'Look up the weather\\nfor a city. Uses the cached forecast.'"
    )
    assert _printed(_ported(_MULTI_LINE_DESCRIPTION)) == langchain_printed


# A probe beside the set (Runnable.as_tool without a description, the runnable-as-tool
# form of the theme's tool definitions): LangChain's tool is described by the
# placeholder "Takes {the input JSON Schema}." (args_schema's when given); ragline's
# description was empty, so print(tool.description) and the schema a model sees differed.
_AS_TOOL_PLACEHOLDER = """
from typing import List
from pydantic import BaseModel
from langchain_core.runnables import RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool


class Order(BaseModel):
    item: str
    quantity: List[int]


def shout(text: str) -> str:
    return text.upper() + "!"


tools = [
    RunnableLambda(lambda d: d["item"]).as_tool(Order, name="order"),
    RunnableLambda(lambda d: d["a"], name="pick").as_tool(arg_types={"a": int}),
    RunnableLambda(shout).as_tool(),
    RunnableLambda(shout).as_tool(description="Shouts."),
]
for t in tools:
    print(t.name, repr(t.description))
print(convert_to_openai_tool(tools[0])["function"]["description"])
print(tools[2].invoke("hi"))
"""


def test_a_runnable_made_a_tool_without_a_description_gets_langchains_placeholder() -> None:
    langchain_printed = _printed(_AS_TOOL_PLACEHOLDER)
    assert "shout \"Takes {'title': 'shout_input', 'type': 'string'}.\"" in langchain_printed
    assert _printed(_ported(_AS_TOOL_PLACEHOLDER)) == langchain_printed


# save_assessment (p13 of set 71, a Russian tools guide): a tool argument named
# ``config`` that is not a RunnableConfig (there an injected dict) never reaches
# LangChain's function, so the guide's call raises TypeError (or the function silently
# gets its default); ragline passes the value given. A difference ragline keeps
# (docs/differences-from-langchain.md): both sides are pinned here.
_ARGUMENT_NAMED_CONFIG = """
from typing import Annotated
from langchain_core.tools import InjectedToolArg, tool


@tool
def save(student_id: str, config: Annotated[dict, InjectedToolArg]) -> str:
    \"\"\"Save.\"\"\"
    return f"{student_id} {config}"


@tool
def label(text: str, config: str = "plain") -> str:
    \"\"\"Label.\"\"\"
    return f"{text}/{config}"


print(list(save.tool_call_schema.model_json_schema()["properties"]), list(label.args))
for call in [
    lambda: save.invoke({"student_id": "s1", "config": {"k": 1}}),
    lambda: label.invoke({"text": "t", "config": "bold"}),
]:
    try:
        print(call())
    except TypeError as e:
        print("TypeError", e)
"""


def test_a_tool_argument_named_config_reaches_the_function() -> None:
    assert _printed(_ARGUMENT_NAMED_CONFIG).splitlines()[1:] == [
        "TypeError save() missing 1 required positional argument: 'config'",
        "t/plain",
    ]
    assert _printed(_ported(_ARGUMENT_NAMED_CONFIG)).splitlines() == [
        "['student_id'] ['text', 'config']",
        "s1 {'k': 1}",
        "t/bold",
    ]


# A probe beside the set (a tool whose args_schema is a JSON Schema dict, as MCP-style
# tool wrappers write them, and a titled JSON Schema given to convert_to_openai_function):
# LangChain shows the dict's properties as written (tool.args) and sends the dict as
# written, less its title, description, $defs and inner titles; ragline added titles to
# tool.args and wrote the keys in its own order.
_JSON_SCHEMA_ARGS = """
from langchain_core.tools import StructuredTool, tool
from langchain_core.utils.function_calling import convert_to_openai_function, convert_to_openai_tool

schema = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "the city"},
        "days": {"type": "integer", "default": 1, "title": "Days"},
    },
    "required": ["city"],
}


@tool("weather", args_schema=schema, description="Weather for a city.")
def weather(city: str, days: int = 1) -> str:
    return f"{city}:{days}"


fetch = StructuredTool.from_function(
    func=lambda url: url, name="fetch", description="Fetch.", args_schema={
        "properties": {"url": {"type": "string"}}, "required": ["url"], "type": "object"})
print(weather.args)
print(convert_to_openai_tool(weather))
print(fetch.args, convert_to_openai_tool(fetch)["function"]["parameters"])
print(weather.invoke({"city": "Oslo"}))
print(repr(weather.invoke({"name": "weather", "args": {"city": "Rome", "days": 2}, "id": "w1",
                           "type": "tool_call"})))
print(convert_to_openai_function({
    "title": "Lookup", "description": "Look something up.", "type": "object",
    "properties": {"item": {"$ref": "#/$defs/Item"}},
    "required": ["item"],
    "$defs": {"Item": {"title": "Item", "type": "object",
                       "properties": {"name": {"title": "Name", "type": "string"}}}},
}))
"""


def test_a_json_schema_args_schema_is_shown_and_sent_as_written() -> None:
    langchain_printed = _printed(_JSON_SCHEMA_ARGS)
    assert langchain_printed.splitlines()[0] == (
        "{'city': {'type': 'string', 'description': 'the city'}, "
        "'days': {'type': 'integer', 'default': 1, 'title': 'Days'}}"
    )
    assert _printed(_ported(_JSON_SCHEMA_ARGS)) == langchain_printed

"""Parity: differences found by the seventy-ninth port trial (issue 24), one scenario each.

The set's theme was output parsers and structured output. Each scenario runs the same
program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# the names that became classes and functions of their own here (they were aliases)
COVERS = {
    "agents.OpenAIToolsAgentOutputParser",
    "agents.create_openai_tools_agent",
    "core.output_parsers.NAIVE_FIX_PROMPT",
    "core.output_parsers.NAIVE_RETRY_PROMPT",
    "core.output_parsers.NAIVE_RETRY_WITH_ERROR_PROMPT",
    "core.output_parsers.PYDANTIC_FORMAT_INSTRUCTIONS",
    "core.output_parsers.STRUCTURED_FORMAT_INSTRUCTIONS",
    "core.output_parsers.STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS",
    "core.output_parsers.YAML_FORMAT_INSTRUCTIONS",
}

# parser_dict: a tutorial printed its DatetimeOutputParser's dict() after changing its
# format; ragline's parsers had neither dict() nor asdict(), so the program stopped with
# AttributeError. LangChain's dump is the parser's name and fields, then its _type where
# the class names one (its enum and tool-call parsers do not).
_PARSER_DICT = """
from enum import Enum

from langchain_classic.output_parsers import (
    BooleanOutputParser,
    DatetimeOutputParser,
    EnumOutputParser,
    ResponseSchema,
    StructuredOutputParser,
)
from langchain_core.output_parsers import (
    CommaSeparatedListOutputParser,
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    NumberedListOutputParser,
    PydanticOutputParser,
    PydanticToolsParser,
    StrOutputParser,
)
from pydantic import BaseModel


class Shade(Enum):
    DARK = "dark"
    LIGHT = "light"


class Point(BaseModel):
    x: int


when = DatetimeOutputParser()
when.format = "%d/%m/%Y"
parsers = [
    when,
    DatetimeOutputParser(),
    EnumOutputParser(enum=Shade),
    StructuredOutputParser.from_response_schemas(
        [ResponseSchema(name="city", description="a city", type="string")]
    ),
    BooleanOutputParser(true_val="SI", false_val="NO"),
    CommaSeparatedListOutputParser(),
    NumberedListOutputParser(),
    JsonOutputParser(),
    PydanticOutputParser(pydantic_object=Point),
    JsonOutputKeyToolsParser(key_name="Point", first_tool_only=True),
    PydanticToolsParser(tools=[Point]),
    StrOutputParser(),
]
for parser in parsers:
    print(type(parser).__name__, parser.dict())
    print(parser.asdict() == parser.dict(), sorted(parser.asdict(exclude={"name"})))
"""


def test_a_parser_describes_itself_as_a_dict() -> None:
    langchain_printed = _printed(_PARSER_DICT)
    assert "DatetimeOutputParser {'name': None, 'format': '%d/%m/%Y', '_type': 'datetime'}" in (
        langchain_printed
    )
    assert "EnumOutputParser {'name': None, 'enum': <enum 'Shade'>}" in langchain_printed
    assert (
        "StructuredOutputParser {'name': None, 'response_schemas': [{'name': 'city', "
        "'description': 'a city', 'type': 'string'}], '_type': 'structured'}"
    ) in langchain_printed
    assert _printed(_ported(_PARSER_DICT)) == langchain_printed


# parser_names: a probe beside the set (its tool-parser programs print their parsers)
# built parsers with name=, which every LangChain parser takes (a Runnable field): ragline's
# dropped it with a warning or, where the parser has its own constructor, raised
# TypeError. The tool-call and YAML parsers also printed without their settings.
_PARSER_NAMES = """
from langchain_classic.output_parsers import DatetimeOutputParser, YamlOutputParser
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
    StrOutputParser,
)
from pydantic import BaseModel


class Point(BaseModel):
    x: int


parsers = [
    StrOutputParser(name="text"),
    JsonOutputParser(name="json"),
    DatetimeOutputParser(name="when", format="%Y"),
    JsonOutputToolsParser(return_id=True),
    JsonOutputKeyToolsParser(key_name="Point", first_tool_only=True, name="key"),
    PydanticToolsParser(tools=[Point]),
    YamlOutputParser(pydantic_object=Point),
]
for parser in parsers:
    print(repr(parser), "|", parser, "|", parser.get_name())


class Starts(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("start", kwargs.get("name"))


chain = FakeListChatModel(responses=["hi"]) | StrOutputParser(name="final")
print(chain.invoke("q", config={"callbacks": [Starts()]}))
"""


def test_a_parser_takes_a_name_and_prints_its_settings() -> None:
    langchain_printed = _printed(_PARSER_NAMES)
    assert "JsonOutputParser(name='json') | name='json' | json" in langchain_printed
    assert (
        "JsonOutputKeyToolsParser(name='key', first_tool_only=True, key_name='Point') | "
        "name='key' first_tool_only=True key_name='Point' | key"
    ) in langchain_printed
    assert "start final" in langchain_printed
    assert _printed(_ported(_PARSER_NAMES)) == langchain_printed


# scripted_tool_fake: the set's theme includes with_structured_output on a scripted
# tool-calling fake; a probe beside it wrote that fake on FakeListChatModel (bind_tools
# binding the converted tools, _generate answering with a call to the first one).
# LangChain's base method binds the schema as a tool; ragline took FakeListChatModel's
# default method (json_schema), bound no tools, and the fake's _generate failed
# (KeyError 'tools'). A fake whose bind_tools returns itself gets None, as LangChain's.
_SCRIPTED_TOOL_FAKE = """
from typing import Any

from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel
from typing_extensions import TypedDict


class Point(BaseModel):
    x: int


class Pair(TypedDict):
    left: str
    right: str


class ToolFake(FakeListChatModel):
    def bind_tools(self, tools, **kwargs: Any):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        tool = kwargs["tools"][0]["function"]
        args = {"x": 5} if tool["name"] == "Point" else {"left": "a", "right": "b"}
        print("tool_choice", kwargs.get("tool_choice"), "tool", tool["name"])
        call = {"name": tool["name"], "args": args, "id": "call_1"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])


class SelfBinding(FakeListChatModel):
    def bind_tools(self, tools, **kwargs: Any):
        return self


fake = ToolFake(responses=["unused"])
print(repr(fake.with_structured_output(Point).invoke("hi")))
print(fake.with_structured_output(Pair).invoke("hi"))
raw = fake.with_structured_output(Point, include_raw=True).invoke("hi")
print(raw["parsed"], raw["parsing_error"], raw["raw"].tool_calls)
print(list(fake.with_structured_output(Pair).stream("hi")))
print(SelfBinding(responses=['{"x": 1}']).with_structured_output(Point).invoke("hi"))
"""


def test_a_tool_calling_fake_of_ones_own_answers_structured_output_by_tool() -> None:
    langchain_printed = _printed(_SCRIPTED_TOOL_FAKE)
    assert "Point(x=5)" in langchain_printed
    assert "tool_choice any tool Point" in langchain_printed
    assert langchain_printed.rstrip().endswith("None")
    assert _printed(_ported(_SCRIPTED_TOOL_FAKE)) == langchain_printed


# json_helpers_paths: programs import LangChain's JSON helpers from the parser modules
# that use them (langchain_core.output_parsers.json, the tool-call parsers' module, the
# classic structured parser's); ragline port left those imports unmapped.
_JSON_HELPER_PATHS = """
from langchain_classic.output_parsers.structured import parse_and_check_json_markdown
from langchain_core.output_parsers.json import parse_json_markdown
from langchain_core.output_parsers.openai_functions import parse_partial_json as partial_a
from langchain_core.output_parsers.openai_tools import parse_partial_json as partial_b

print(parse_json_markdown('Here: ```json\\n{"a": [1, 2]}\\n```'))
print(parse_json_markdown('{"a": "cut'))
print(partial_a('{"b": [1, {"c": "d'), partial_b("[1, 2,"))
print(parse_and_check_json_markdown('```json\\n{"a": 1, "b": 2}\\n```', ["a", "b"]))
"""


def test_the_json_helpers_import_from_the_parser_modules() -> None:
    langchain_printed = _printed(_JSON_HELPER_PATHS)
    assert "{'a': [1, 2]}\n{'a': 'cut'}\n" in langchain_printed
    assert _printed(_ported(_JSON_HELPER_PATHS)) == langchain_printed


# raw_stream: streaming with_structured_output(..., include_raw=True) (the set's
# structured-output how-to streams its runnables): LangChain's yields three pieces, the
# reply (its chunks added), then parsed, then parsing_error (async: parsing_error first);
# ragline's yielded one dict. A reply that does not parse is returned by invoke with the
# keys raw, parsing_error, parsed (LangChain's fallback adds the error first).
_RAW_STREAM = """
import asyncio
import json
from typing import Optional

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

ANSWERS = [{"title": "Dune", "year": 1965}, {"title": "Dune", "year": "soon"}]


class Scripted(BaseChatModel):
    @property
    def _llm_type(self):
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _args(self, messages):
        return ANSWERS[0] if "good" in messages[-1].content else ANSWERS[1]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        call = {"name": "Book", "args": self._args(messages), "id": "c1"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        text = json.dumps(self._args(messages))
        for i in range(0, len(text), 6):
            piece = {"name": "Book" if i == 0 else None, "args": text[i : i + 6],
                     "id": "c1" if i == 0 else None, "index": 0}
            yield ChatGenerationChunk(message=AIMessageChunk("", tool_call_chunks=[piece]))


class Book(BaseModel):
    title: str
    year: Optional[int] = None


runnable = Scripted().with_structured_output(Book, include_raw=True)
for piece in runnable.stream("good"):
    raw = piece.get("raw")
    print(sorted(piece), type(raw).__name__, raw.tool_calls if raw else None, piece.get("parsed"))
result = runnable.invoke("bad")
print(list(result), result["parsed"], type(result["parsing_error"]).__name__)
print(list(runnable.invoke("good")))


async def main():
    async for piece in runnable.astream("good"):
        print("async", sorted(piece), piece.get("parsed"))


asyncio.run(main())
"""


def test_structured_output_with_raw_streams_its_three_pieces() -> None:
    langchain_printed = _printed(_RAW_STREAM)
    assert "['parsed'] NoneType None title='Dune' year=1965" in langchain_printed
    assert "['raw', 'parsing_error', 'parsed'] None ValidationError" in langchain_printed
    assert "async ['parsing_error'] None\nasync ['parsed']" in langchain_printed
    assert _printed(_ported(_RAW_STREAM)) == langchain_printed


# tools_agent_parsers: a probe beside the set printed the tool-calling agents' parsers.
# LangChain's OpenAIToolsAgentOutputParser and ToolsAgentOutputParser are two classes
# (neither a subclass of the other) that print as pydantic models without fields set;
# ragline's were one class under two names, printed by repr, and create_openai_tools_agent
# ended in ToolsAgentOutputParser (its run's name) where LangChain's ends in
# OpenAIToolsAgentOutputParser.
_TOOLS_AGENT_PARSERS = """
from langchain_classic.agents import create_openai_tools_agent
from langchain_classic.agents.output_parsers import ToolsAgentOutputParser
from langchain_classic.agents.output_parsers.openai_tools import OpenAIToolsAgentOutputParser
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool


@tool
def double(x: int) -> int:
    \"\"\"Double x.\"\"\"
    return 2 * x


for parser in (OpenAIToolsAgentOutputParser(), ToolsAgentOutputParser()):
    print(type(parser).__name__, repr(parser), repr(str(parser)), parser.get_name())
print(isinstance(OpenAIToolsAgentOutputParser(), ToolsAgentOutputParser))
reply = AIMessage("", tool_calls=[{"name": "double", "args": {"x": 4}, "id": "c1"}])
actions = OpenAIToolsAgentOutputParser().invoke(reply)
print([(a.tool, a.tool_input, a.tool_call_id) for a in actions])
prompt = ChatPromptTemplate.from_messages(
    [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
)
agent = create_openai_tools_agent(FakeMessagesListChatModel(responses=[reply]), [double], prompt)
print(type(agent.last).__name__)
steps = agent.invoke({"input": "double 4", "intermediate_steps": []})
print([(a.tool, a.tool_input) for a in steps])
"""


def test_the_tools_agents_parsers_are_two_classes() -> None:
    langchain_printed = _printed(_TOOLS_AGENT_PARSERS)
    assert "OpenAIToolsAgentOutputParser OpenAIToolsAgentOutputParser() '' " in langchain_printed
    assert "\nFalse\n" in langchain_printed
    assert _printed(_ported(_TOOLS_AGENT_PARSERS)) == langchain_printed


# titles_in_anyof: the set's tool-calling programs print the tool specs their scripted
# fakes receive (model.kwargs["tools"]). LangChain strips pydantic's "title" keys down
# through objects but not into lists, so the member schemas of an anyOf (an
# Optional[Model] field, a union parameter) keep theirs; ragline stripped them all. An
# Enum class of one member is an "enum" of one value (a Literal's is a "const").
_TITLES_IN_ANYOF = """
import dataclasses
from enum import Enum
from typing import List, Optional, Union

from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class Only(Enum):
    ONE = "one"


class Item(BaseModel):
    \"\"\"An item.\"\"\"

    item_name: str = Field(description="its name")
    qty: int = 1


class Box(TypedDict):
    width: int


@dataclasses.dataclass
class Spot:
    x_pos: int
    y_pos: int = 0


class Order(BaseModel):
    \"\"\"An order.\"\"\"

    best: Optional[Item] = None
    items: Optional[List[Item]] = None
    pick: Union[Item, int] = 0
    only: Only = Only.ONE
    items_plain: List[Item] = []


@tool
def place(
    item: Optional[Item] = None,
    shade: Union[Only, int] = 1,
    box: Optional[Box] = None,
    spot: Optional[Spot] = None,
) -> str:
    \"\"\"Place an item.\"\"\"
    return "ok"


print(convert_to_openai_tool(Order))
print(convert_to_openai_tool(place))
"""


def test_schemas_inside_an_anyof_keep_their_titles() -> None:
    langchain_printed = _printed(_TITLES_IN_ANYOF)
    assert "'title': 'Item Name'" in langchain_printed
    assert "'only': {'enum': ['one'], 'type': 'string', 'default': 'one'}" in langchain_printed
    assert _printed(_ported(_TITLES_IN_ANYOF)) == langchain_printed


# naive_prompts: programs pass LangChain's default fixing and retry prompts on by name
# (OutputFixingParser.from_llm(..., prompt=NAIVE_FIX_PROMPT), a chain of their own over
# NAIVE_RETRY_PROMPT); ragline port left those imports unmapped. ragline's prompts take
# the same variables; their wording is ragline's, so only the variables are compared.
_NAIVE_PROMPTS = """
from langchain_classic.output_parsers import OutputFixingParser, RetryWithErrorOutputParser
from langchain_classic.output_parsers.fix import NAIVE_FIX_PROMPT as FROM_FIX
from langchain_classic.output_parsers.prompts import NAIVE_FIX_PROMPT
from langchain_classic.output_parsers.retry import (
    NAIVE_RETRY_PROMPT,
    NAIVE_RETRY_WITH_ERROR_PROMPT,
)
from langchain_core.language_models import FakeListLLM
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.prompts import PromptTemplate

for prompt in (NAIVE_FIX_PROMPT, NAIVE_RETRY_PROMPT, NAIVE_RETRY_WITH_ERROR_PROMPT, FROM_FIX):
    print(type(prompt).__name__, prompt.input_variables)
fixer = OutputFixingParser.from_llm(
    llm=FakeListLLM(responses=['{"ok": true}']), parser=JsonOutputParser(), prompt=NAIVE_FIX_PROMPT
)
print(fixer.parse("{'ok': True}"))
retry = RetryWithErrorOutputParser.from_llm(
    llm=FakeListLLM(responses=['{"n": 2}']),
    parser=JsonOutputParser(),
    prompt=NAIVE_RETRY_WITH_ERROR_PROMPT,
)
asked = PromptTemplate.from_template("Give n as JSON for {x}").format_prompt(x="two")
print(retry.parse_with_prompt("n=2", asked))
"""


def test_the_default_fix_and_retry_prompts_import_by_langchains_names() -> None:
    langchain_printed = _printed(_NAIVE_PROMPTS)
    assert "PromptTemplate ['completion', 'error', 'instructions']" in langchain_printed
    assert langchain_printed.endswith("{'ok': True}\n{'n': 2}\n")
    assert _printed(_ported(_NAIVE_PROMPTS)) == langchain_printed


# format_templates: programs build their own instructions from LangChain's templates
# (PYDANTIC_FORMAT_INSTRUCTIONS.format(schema=...)); ragline port left the classic
# format_instructions module unmapped. ragline's templates take the same variables and
# are the ones its parsers fill; the wording is ragline's, so only facts are printed.
_FORMAT_TEMPLATES = """
import json
import string

from langchain_classic.output_parsers import ResponseSchema, StructuredOutputParser
from langchain_classic.output_parsers.format_instructions import (
    PYDANTIC_FORMAT_INSTRUCTIONS,
    STRUCTURED_FORMAT_INSTRUCTIONS,
    STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS,
    YAML_FORMAT_INSTRUCTIONS,
)

templates = {
    "pydantic": PYDANTIC_FORMAT_INSTRUCTIONS,
    "structured": STRUCTURED_FORMAT_INSTRUCTIONS,
    "simple": STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS,
    "yaml": YAML_FORMAT_INSTRUCTIONS,
}
for name, template in templates.items():
    fields = sorted({f[1] for f in string.Formatter().parse(template) if f[1]})
    print(name, type(template).__name__, fields)
schema = json.dumps({"properties": {"city": {"type": "string"}}, "required": ["city"]})
print(schema in PYDANTIC_FORMAT_INSTRUCTIONS.format(schema=schema))
print(schema in YAML_FORMAT_INSTRUCTIONS.format(schema=schema))
parser = StructuredOutputParser.from_response_schemas(
    [ResponseSchema(name="city", description="a city")]
)
line = '\\t"city": string  // a city'
print(parser.get_format_instructions() == STRUCTURED_FORMAT_INSTRUCTIONS.format(format=line))
simple = STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS.format(format=line)
print(parser.get_format_instructions(only_json=True) == simple)
"""


def test_the_format_instruction_templates_import_by_langchains_names() -> None:
    langchain_printed = _printed(_FORMAT_TEMPLATES)
    assert "pydantic str ['schema']\nstructured str ['format']\n" in langchain_printed
    assert langchain_printed.endswith("True\nTrue\nTrue\nTrue\n")
    assert _printed(_ported(_FORMAT_TEMPLATES)) == langchain_printed

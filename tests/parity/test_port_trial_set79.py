"""Parity: differences found by the seventy-ninth port trial (issue 24), one scenario each.

The set's theme was output parsers and structured output. Each scenario runs the same
program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

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

"""Parity: the XML, enum, datetime, yes/no, regex and list parsers, against LangChain's.

Each scenario runs through LangChain's class (langchain_core.output_parsers,
langchain_classic.output_parsers) and ragline's of the same name: parsed values,
streamed chunks (sync and async, through ``model | parser``), printed forms and
exception types and messages are compared. Format instructions are ragline's own
wording (docs/differences-from-langchain.md, "Wording"), so only their content is
checked.
"""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Any

import pytest
from langchain_classic.output_parsers import BooleanOutputParser as LCBooleanOutputParser
from langchain_classic.output_parsers import DatetimeOutputParser as LCDatetimeOutputParser
from langchain_classic.output_parsers import RegexDictParser as LCRegexDictParser
from langchain_classic.output_parsers import RegexParser as LCRegexParser
from langchain_classic.output_parsers.enum import EnumOutputParser as LCEnumOutputParser
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.language_models import GenericFakeChatModel as LCGenericFakeChatModel
from langchain_core.output_parsers import MarkdownListOutputParser as LCMarkdownListOutputParser
from langchain_core.output_parsers import NumberedListOutputParser as LCNumberedListOutputParser
from langchain_core.output_parsers import XMLOutputParser as LCXMLOutputParser
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.core import FakeListLLM, GenericFakeChatModel, PromptTemplate
from ragline.core.output_parsers import (
    BooleanOutputParser,
    DatetimeOutputParser,
    EnumOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
    RegexDictParser,
    RegexParser,
    XMLOutputParser,
)

COVERS = {
    "core.output_parsers.YamlOutputParser",
    "core.output_parsers.XMLOutputParser",
    "core.output_parsers.EnumOutputParser",
    "core.output_parsers.DatetimeOutputParser",
    "core.output_parsers.BooleanOutputParser",
    "core.output_parsers.RegexParser",
    "core.output_parsers.RegexDictParser",
    "core.output_parsers.MarkdownListOutputParser",
    "core.output_parsers.NumberedListOutputParser",
}


class Color(Enum):
    RED = "red"
    GREEN = "green"


def outcome(call: Any, *args: Any) -> Any:
    """What a program observes: the value, or the exception's type name and first line."""
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", type(err).__name__, str(err).splitlines()[0])


def both(make_lc: Any, make_rl: Any, texts: list[str]) -> None:
    lc, rl = make_lc(), make_rl()
    assert repr(rl) == repr(lc)
    for text in texts:
        assert outcome(rl.parse, text) == outcome(lc.parse, text), text
        assert outcome(rl.invoke, text) == outcome(lc.invoke, text), text


def streamed(parser: Any, model_class: Any, text: str) -> tuple[Any, Any]:
    def run() -> Any:
        return list((model_class(messages=iter([text])) | parser).stream("q"))

    async def arun() -> Any:
        chain = model_class(messages=iter([text])) | parser
        return [chunk async for chunk in chain.astream("q")]

    return outcome(run), outcome(lambda: asyncio.run(arun()))


XML_REPLIES = [
    "<a><b>x</b><b>y</b></a>",
    "<c/>",
    "<r><a></a><b>1</b></r>",
    "  <r>1</r>  ",
    "```xml\n<root><a>1</a></root>\n```",
    "ok ```\n<r>1</r>\n``` done",
    "<r>1</r><s>2</s>",
    "<r><c>x<d>2</d></c><e> <f/></e></r>",
    "<r><a>  </a></r>",
    "<r a='1'>t<c/></r>",
    "<?xml version='1.0'?>\n<r><a>1 &amp; 2</a></r>",
    "<a>",
    "no xml",
]


def test_xml_parse_and_printed_form():
    both(
        lambda: LCXMLOutputParser(parser="xml"), lambda: XMLOutputParser(parser="xml"), XML_REPLIES
    )
    both(
        lambda: LCXMLOutputParser(parser="xml", tags=["movies", "actor"]),
        lambda: XMLOutputParser(parser="xml", tags=["movies", "actor"]),
        [],
    )
    assert repr(XMLOutputParser()) == repr(LCXMLOutputParser()) == "XMLOutputParser()"


@pytest.mark.parametrize(
    "reply",
    [
        "<movies>\n  <actor>Tom Hanks</actor>\n  <film><name>Forrest Gump</name>"
        "<genre>Drama</genre></film>\n</movies>",
        "<r><a>1</a> <b/> <c>x<d>2</d></c></r> tail <z>9</z>",
        "Sure:\n```xml\n<r>\n <a>1</a>\n</r>\n```",
        "<?xml version='1.0'?><r><a>1 &amp; 2</a></r>",
        "no xml at all",
        "<r><a>1</a",
        "<r><a>1</b></r>",
    ],
)
def test_xml_streams_each_closed_leaf_in_its_ancestors(reply):
    lc = streamed(LCXMLOutputParser(parser="xml"), LCGenericFakeChatModel, reply)
    rl = streamed(XMLOutputParser(parser="xml"), GenericFakeChatModel, reply)
    assert rl == lc


def test_xml_default_parser_needs_defusedxml_as_langchain_does():
    try:
        import defusedxml  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        assert outcome(lambda: XMLOutputParser().parse("<a>1</a>"))[:2] == (
            "raised",
            "ImportError",
        )
        assert outcome(lambda: LCXMLOutputParser().parse("<a>1</a>"))[:2] == (
            "raised",
            "ImportError",
        )
    else:
        assert XMLOutputParser().parse("<a>1</a>") == LCXMLOutputParser().parse("<a>1</a>")


def test_xml_format_instructions_name_the_tags():
    text = XMLOutputParser(parser="xml", tags=["movies", "actor"]).get_format_instructions()
    assert "movies, actor" in text and "XML" in text


def test_enum_parser():
    both(
        lambda: LCEnumOutputParser(enum=Color),
        lambda: EnumOutputParser(enum=Color),
        ["red", " green\n", "yellow", "RED", ""],
    )
    assert "red, green" in EnumOutputParser(enum=Color).get_format_instructions()


def test_datetime_parser():
    texts = ["2009-01-03T18:15:05.000000Z", " 2009-01-03T18:15:05.120000Z\n", "2009-01-03", "bad"]
    both(LCDatetimeOutputParser, DatetimeOutputParser, texts)
    both(
        lambda: LCDatetimeOutputParser(format="%Y-%m-%d"),
        lambda: DatetimeOutputParser(format="%Y-%m-%d"),
        ["2024-02-29", "2023-02-29"],
    )
    assert "%Y-%m-%d" in DatetimeOutputParser(format="%Y-%m-%d").get_format_instructions()


def test_boolean_parser():
    texts = ["YES", "no", "yes no", "Yes, definitely", "maybe", "NO YES", "", "yesterday"]
    texts += ["Noted: yes", "YES.", " no ", "N0"]
    both(LCBooleanOutputParser, BooleanOutputParser, texts)
    both(
        lambda: LCBooleanOutputParser(true_val="Y", false_val="N"),
        lambda: BooleanOutputParser(true_val="Y", false_val="N"),
        ["y", "n.", "Y N", "yes"],
    )


def test_regex_parsers():
    regex = r"Score: (\d+)\nReason: (.*)"
    both(
        lambda: LCRegexParser(regex=regex, output_keys=["score", "reason"]),
        lambda: RegexParser(regex=regex, output_keys=["score", "reason"]),
        ["Score: 7\nReason: tasty", "x Score: 10\nReason: a. b\nmore", "nothing"],
    )
    both(
        lambda: LCRegexParser(regex=r"S: (\d+)", output_keys=["s", "t"], default_output_key="t"),
        lambda: RegexParser(regex=r"S: (\d+)", output_keys=["s", "t"], default_output_key="t"),
        ["S: 4", "zz"],
    )
    formats = {"a": "A", "b": "B"}
    lc = LCRegexDictParser(output_key_to_format=formats)
    rl = RegexDictParser(output_key_to_format=formats)
    assert repr(rl) == repr(lc)
    for text in ["A: 1\nB: two words", "A: 1.5 x\nB: it's", "A:x.\nB:", "A: 1", "A: 1\nA: 2\nB: 3"]:
        assert outcome(rl.parse, text)[:2] == outcome(lc.parse, text)[:2], text
    both(
        lambda: LCRegexDictParser(output_key_to_format={"a": "A"}, no_update_value="N/A"),
        lambda: RegexDictParser(output_key_to_format={"a": "A"}, no_update_value="N/A"),
        ["A: N/A", "A: yes"],
    )


def test_list_parsers_parse_and_stream():
    for lc_class, rl_class, replies in [
        (
            LCMarkdownListOutputParser,
            MarkdownListOutputParser,
            ["- a\n- bb\n* c", "intro\n- a\n  - nested\n* b\n+ c\n-d", "none"],
        ),
        (
            LCNumberedListOutputParser,
            NumberedListOutputParser,
            ["1. a\n2. bb\n10. c", "Here:\n1. a\n 2) b\n3.c\n4. d e", "none"],
        ),
    ]:
        both(lc_class, rl_class, replies)
        for reply in replies:
            lc = streamed(lc_class(), LCGenericFakeChatModel, reply)
            rl = streamed(rl_class(), GenericFakeChatModel, reply)
            assert rl == lc, reply


def test_classic_parsers_at_the_end_of_a_chain_stream_one_piece():
    replies = ["blue", "2009-01-03T18:15:05.000000Z", "YES", "Score: 7\nReason: tasty"]

    class Colors(Enum):
        BLUE = "blue"

    def run(llm_class: Any, prompt_class: Any, parsers: list[Any]) -> list[Any]:
        llm = llm_class(responses=replies)
        prompt = prompt_class.from_template("Q {x}")
        out = []
        for parser in parsers:
            chain = prompt | llm | parser
            out.append(list(chain.stream({"x": 1})))
        return out

    rx = r"Score: (\d+)\nReason: (.*)"
    lc = run(
        LCFakeListLLM,
        LCPromptTemplate,
        [
            LCEnumOutputParser(enum=Colors),
            LCDatetimeOutputParser(),
            LCBooleanOutputParser(),
            LCRegexParser(regex=rx, output_keys=["s", "r"]),
        ],
    )
    rl = run(
        FakeListLLM,
        PromptTemplate,
        [
            EnumOutputParser(enum=Colors),
            DatetimeOutputParser(),
            BooleanOutputParser(),
            RegexParser(regex=rx, output_keys=["s", "r"]),
        ],
    )
    assert rl == lc


def test_yaml_parser():
    from langchain_classic.output_parsers import YamlOutputParser as LCYamlOutputParser
    from pydantic import BaseModel, Field

    from ragline.core.output_parsers import YamlOutputParser

    class Joke(BaseModel):
        setup: str = Field(description="the question")
        punchline: str

    replies = [
        "setup: a\npunchline: b",
        "```yaml\nsetup: a\npunchline: b\n```",
        "Sure!\n```\nsetup: a\npunchline: b\n```\nbye",
        "```yml\nsetup: 'x: y'\npunchline: b\n```",
        "setup: a",
        ": : :",
    ]
    lc, rl = LCYamlOutputParser(pydantic_object=Joke), YamlOutputParser(pydantic_object=Joke)
    assert repr(rl) == repr(lc) and rl.OutputType is lc.OutputType is Joke
    for text in replies:
        assert outcome(rl.parse, text) == outcome(lc.parse, text), text
    for text in ["- x\n- y", ""]:  # pydantic's reason differs, the type and start do not
        ours, theirs = outcome(rl.parse, text), outcome(lc.parse, text)
        assert ours[:2] == theirs[:2] == ("raised", "OutputParserException")
        assert ours[2].startswith(f"Failed to parse Joke from completion {text}".splitlines()[0])
    lc_stream = streamed(lc, LCGenericFakeChatModel, replies[0])
    assert streamed(rl, GenericFakeChatModel, replies[0]) == lc_stream
    assert '"punchline"' in rl.get_format_instructions()


def test_output_types_and_schemas():
    pairs = [
        (LCEnumOutputParser(enum=Color), EnumOutputParser(enum=Color)),
        (LCDatetimeOutputParser(), DatetimeOutputParser()),
        (LCBooleanOutputParser(), BooleanOutputParser()),
        (
            LCRegexParser(regex="(a)", output_keys=["x"]),
            RegexParser(regex="(a)", output_keys=["x"]),
        ),
        (
            LCRegexDictParser(output_key_to_format={"a": "A"}),
            RegexDictParser(output_key_to_format={"a": "A"}),
        ),
        (LCMarkdownListOutputParser(), MarkdownListOutputParser()),
        (LCNumberedListOutputParser(), NumberedListOutputParser()),
        (LCXMLOutputParser(parser="xml"), XMLOutputParser(parser="xml")),
    ]
    for lc, rl in pairs:
        assert rl.OutputType == lc.OutputType, type(rl).__name__
        assert rl.get_output_jsonschema() == lc.get_output_jsonschema(), type(rl).__name__

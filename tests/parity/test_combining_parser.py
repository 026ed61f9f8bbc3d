"""Parity: CombiningOutputParser against LangChain's.

The same sub-parsers (regex, JSON, structured) combined in both libraries: parsed dicts
(blocks split on blank lines, stripped, merged in order; missing and extra blocks),
errors of a sub-parser and of the constructor, ``invoke`` / ``stream`` / ``batch``
behind a fake model, the printed form, output type and schema. The format instructions
are ragline's own wording, so only their content is checked: every sub-parser's
instructions, in order.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.output_parsers import CombiningOutputParser as LCCombiningOutputParser
from langchain_classic.output_parsers import RegexParser as LCRegexParser
from langchain_classic.output_parsers import ResponseSchema as LCResponseSchema
from langchain_classic.output_parsers import StructuredOutputParser as LCStructuredOutputParser
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.output_parsers import CommaSeparatedListOutputParser as LCComma
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.output_parsers import ListOutputParser as LCListOutputParser
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser

from ragline.core import FakeListLLM
from ragline.core.output_parsers import (
    CombiningOutputParser,
    CommaSeparatedListOutputParser,
    JsonOutputParser,
    ListOutputParser,
    RegexParser,
    ResponseSchema,
    StrOutputParser,
    StructuredOutputParser,
)

COVERS = {"core.output_parsers.CombiningOutputParser"}


def parsers(regex: Any, json: Any, structured: Any, schema: Any) -> list[list[Any]]:
    answer = regex(regex=r"Answer: (.*)", output_keys=["answer"])
    score = regex(regex=r"Score: (\d+) of (\d+)", output_keys=["score", "out_of"])
    fields = structured.from_response_schemas(
        [schema(name="city", description="the city"), schema(name="answer", description="x")]
    )
    return [[answer, score], [answer, json()], [score, fields, answer]]


LC_SETS = parsers(LCRegexParser, LCJsonOutputParser, LCStructuredOutputParser, LCResponseSchema)
RL_SETS = parsers(RegexParser, JsonOutputParser, StructuredOutputParser, ResponseSchema)

TEXTS = [
    "Answer: blue\n\nScore: 7 of 10",
    "  Answer: red  \n\n\n\nScore: 1 of 2\n\nleft over",
    "Answer: green",
    'Answer: x\n\n{"a": 1, "answer": "replaced"}',
    'Score: 3 of 4\n\n```json\n{"city": "Oslo", "answer": "y"}\n```\n\nAnswer: last',
    "Score: 3 of 4\n\nno json here",
    "nothing",
    "",
]


def outcome(call: Any, *args: Any) -> Any:
    """The value, or the exception's type (a sub-parser's message is its own wording:
    ragline's JSON parser words its errors differently, tests/parity/test_parsers_*)."""
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", type(err).__name__)


def message(call: Any, *args: Any) -> str:
    try:
        call(*args)
    except ValueError as err:
        return str(err)
    return ""


@pytest.mark.parametrize("which", range(len(LC_SETS)))
def test_parse_invoke_stream_batch(which):
    lc = LCCombiningOutputParser(parsers=LC_SETS[which])
    rl = CombiningOutputParser(parsers=RL_SETS[which])
    assert repr(rl) == repr(lc)
    for text in TEXTS:
        assert outcome(rl.parse, text) == outcome(lc.parse, text), text
        assert outcome(rl.invoke, text) == outcome(lc.invoke, text), text
        assert outcome(lambda t: list(rl.stream(t)), text) == outcome(
            lambda t: list(lc.stream(t)), text
        )
    good = [t for t in TEXTS if outcome(lc.parse, t)[0] == "ok"]
    assert rl.batch(good) == lc.batch(good)
    lc_chain = LCFakeListLLM(responses=good) | lc
    rl_chain = FakeListLLM(responses=good) | rl
    assert [rl_chain.invoke("q") for _ in good] == [lc_chain.invoke("q") for _ in good]

    async def collect(chain: Any) -> list[Any]:
        runs = []
        for _ in good:
            runs.append([chunk async for chunk in chain.astream("q")])
        return runs

    lc_chain = LCFakeListLLM(responses=good) | lc
    rl_chain = FakeListLLM(responses=good) | rl
    assert asyncio.run(collect(rl_chain)) == asyncio.run(collect(lc_chain))


def test_types_schema_and_format_instructions():
    lc = LCCombiningOutputParser(parsers=LC_SETS[2])
    rl = CombiningOutputParser(parsers=RL_SETS[2])
    assert rl.OutputType == lc.OutputType
    assert rl.get_output_jsonschema() == lc.get_output_jsonschema()
    assert rl.get_name() == lc.get_name()
    # instructions of sub-parsers that have some (a RegexParser has none), in order
    subs = [JsonOutputParser(), RL_SETS[2][1], JsonOutputParser()]
    text = CombiningOutputParser(parsers=subs).get_format_instructions()
    places = []
    for parser in subs:
        places.append(text.index(parser.get_format_instructions(), places[-1] if places else 0))
    assert places == sorted(places) and len(set(places)) == 3
    assert text.count("\n") >= LCCombiningOutputParser(
        parsers=[LCJsonOutputParser(), LC_SETS[2][1], LCJsonOutputParser()]
    ).get_format_instructions().count("\n") - 2 * LC_SETS[2][1].get_format_instructions().count(
        "\n"
    )


def test_constructor_refuses_what_langchain_refuses():
    class LCPipes(LCListOutputParser):
        def parse(self, text: str) -> list[str]:
            return text.split("|")

    class Pipes(ListOutputParser):
        def parse(self, text: str) -> list[str]:
            return text.split("|")

    lc_ok, rl_ok = (
        LCCombiningOutputParser(parsers=LC_SETS[0]),
        CombiningOutputParser(parsers=RL_SETS[0]),
    )
    cases = [
        ([], []),
        (LC_SETS[0][:1], RL_SETS[0][:1]),
        ([lc_ok, LCStrOutputParser()], [rl_ok, StrOutputParser()]),
        ([LCPipes(), LCStrOutputParser()], [Pipes(), StrOutputParser()]),
        ([LCComma(), LCStrOutputParser()], [CommaSeparatedListOutputParser(), StrOutputParser()]),
    ]
    for lc_parsers, rl_parsers in cases:
        theirs = outcome(lambda ps: repr(LCCombiningOutputParser(parsers=ps)), lc_parsers)
        ours = outcome(lambda ps: repr(CombiningOutputParser(parsers=ps)), rl_parsers)
        if theirs[0] == "ok":
            assert ours == theirs
        else:  # pydantic wraps LangChain's ValueError; ragline raises a ValueError
            assert ours[0] == "raised"
            ours_says = message(lambda ps: CombiningOutputParser(parsers=ps), rl_parsers)
            assert ours_says
            assert ours_says in message(lambda ps: LCCombiningOutputParser(parsers=ps), lc_parsers)

"""Parity: ``ListOutputParser``, the public base of the list parsers, against LangChain's.

A program subclasses it with its own ``parse`` (and perhaps ``parse_iter``); the same
subclass body is written on each library's base and run through both: parsed values,
chunks streamed sync and async (by hand and behind a fake chat model), the printed form,
the output type and schema, and what an unfinished subclass raises.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models import GenericFakeChatModel as LCGenericFakeChatModel
from langchain_core.output_parsers import CommaSeparatedListOutputParser as LCComma
from langchain_core.output_parsers import ListOutputParser as LCListOutputParser
from langchain_core.output_parsers import MarkdownListOutputParser as LCMarkdown
from langchain_core.output_parsers import NumberedListOutputParser as LCNumbered

from ragline.core import GenericFakeChatModel
from ragline.core.output_parsers import (
    CommaSeparatedListOutputParser,
    ListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
)

COVERS = {"core.output_parsers.ListOutputParser"}


def subclasses(base: Any) -> tuple[Any, Any]:
    """A parser with ``parse`` only (items split on ``;``) and one with a regex
    ``parse_iter`` too (items written ``<item>``), on ``base``."""

    class Semicolons(base):
        def parse(self, text: str) -> list[str]:
            return [part.strip() for part in text.split(";") if part.strip()]

    class Bracketed(base):
        def parse(self, text: str) -> list[str]:
            return [match.group(1) for match in self.parse_iter(text)]

        def parse_iter(self, text: str) -> Iterator[re.Match[str]]:
            return re.finditer(r"<([^<>]*)>", text)

    return Semicolons, Bracketed


LC_SEMI, LC_BRACKET = subclasses(LCListOutputParser)
RL_SEMI, RL_BRACKET = subclasses(ListOutputParser)

CHUNKINGS = [
    ["a; b; c"],
    ["a;", " b", "; c;", " d"],
    ["<x>", "<y", "><z>"],
    ["<x><y>", "", "<z> tail"],
    ["", "a", ";", ";", "b"],
    ["no items"],
]


def outcome(call: Any) -> Any:
    try:
        return ("ok", call())
    except Exception as err:
        return ("raised", type(err).__name__, str(err))


def run_all(parser: Any, model_class: Any, chunks: list[str]) -> dict[str, Any]:
    text = "".join(chunks)

    async def atransform() -> list[Any]:
        async def source() -> Any:
            for chunk in chunks:
                yield chunk

        return [item async for item in parser.atransform(source())]

    async def astream_model() -> list[Any]:
        chain = model_class(messages=iter([text])) | parser
        return [item async for item in chain.astream("q")]

    return {
        "parse": outcome(lambda: parser.parse(text)),
        "invoke": outcome(lambda: parser.invoke(text)),
        "stream": outcome(lambda: list(parser.stream(text))),
        "transform": outcome(lambda: list(parser.transform(iter(chunks)))),
        "atransform": outcome(lambda: asyncio.run(atransform())),
        "model_stream": outcome(
            lambda: list((model_class(messages=iter([text])) | parser).stream("q"))
        ),
        "model_astream": outcome(lambda: asyncio.run(astream_model())),
    }


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("which", [0, 1])
def test_a_subclass_parses_and_streams_as_langchains(which, chunks):
    lc_parser = (LC_SEMI, LC_BRACKET)[which]()
    rl_parser = (RL_SEMI, RL_BRACKET)[which]()
    assert run_all(rl_parser, GenericFakeChatModel, chunks) == run_all(
        lc_parser, LCGenericFakeChatModel, chunks
    )


def test_printed_form_types_and_schema():
    for lc, rl in [(LC_SEMI(), RL_SEMI()), (LC_BRACKET(), RL_BRACKET())]:
        assert repr(rl) == repr(lc)
        assert rl.OutputType == lc.OutputType == list[str]
        assert rl.get_name() == lc.get_name()
        assert rl.get_output_jsonschema() == lc.get_output_jsonschema()


def test_unfinished_subclasses_fail_as_langchains():
    class LCBare(LCListOutputParser):
        pass

    class RLBare(ListOutputParser):
        pass

    lc_error = outcome(LCBare)
    assert lc_error[:2] == ("raised", "TypeError")
    assert outcome(RLBare)[:2] == lc_error[:2]
    assert outcome(lambda: list(RL_SEMI().parse_iter("a"))) == outcome(
        lambda: list(LC_SEMI().parse_iter("a"))
    )


def test_the_list_parsers_are_list_output_parsers():
    for lc, rl in [
        (LCComma, CommaSeparatedListOutputParser),
        (LCNumbered, NumberedListOutputParser),
        (LCMarkdown, MarkdownListOutputParser),
    ]:
        assert issubclass(lc, LCListOutputParser)
        assert issubclass(rl, ListOutputParser)

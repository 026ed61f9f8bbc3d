"""Parity: an output parser's ``InputType`` is a model's text or its message
(``str | AnyMessage``), as LangChain's, for a generation parser and a sequence starting
with a parser too (review1 found ``Any``)."""

from __future__ import annotations

import typing
from typing import Any

from langchain_core.output_parsers import (
    BaseGenerationOutputParser as LCBaseGenerationOutputParser,
)
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.runnables import RunnableLambda as LCRunnableLambda

from ragline.core import RunnableLambda, StrOutputParser
from ragline.core.output_parsers import BaseGenerationOutputParser


def _classes(annotation: Any) -> set[str]:
    """The names of the classes a (nested, annotated) union is made of."""
    if isinstance(annotation, type):
        return {annotation.__name__}
    return set().union(*(_classes(arg) for arg in typing.get_args(annotation)))


class Ours(BaseGenerationOutputParser[int]):
    def parse_result(self, result: Any, *, partial: bool = False) -> int:
        return len(result)


class Theirs(LCBaseGenerationOutputParser[int]):
    def parse_result(self, result: Any, *, partial: bool = False) -> int:
        return len(result)


def test_a_parser_takes_a_string_or_a_message() -> None:
    ours = [Ours(), StrOutputParser(), StrOutputParser() | RunnableLambda(str)]
    theirs = [Theirs(), LCStrOutputParser(), LCStrOutputParser() | LCRunnableLambda(str)]
    for mine, lc in zip(ours, theirs, strict=True):
        assert typing.get_args(mine.InputType)[0] is typing.get_args(lc.InputType)[0] is str
        # LangChain's union also lists the chunk classes (ragline's chunks subclass them)
        lc_names = {name for name in _classes(lc.InputType) if not name.endswith("Chunk")}
        assert (
            _classes(mine.InputType)
            == lc_names
            == {
                "str",
                "AIMessage",
                "HumanMessage",
                "SystemMessage",
                "ChatMessage",
                "ToolMessage",
                "FunctionMessage",
            }
        )

"""Parity: the async path of a parser written on ``BaseGenerationOutputParser``.

LangChain's ``ainvoke`` (and so ``astream`` and ``abatch``) hands the generation to
``aparse_result``, whose default runs ``parse_result``; a parser that overrides
``aparse_result`` (async work: a lookup, another model) gets its answer used. The same
parser classes run through both libraries.
"""

from __future__ import annotations

import asyncio
from typing import Any

import langchain_core.messages as lc_messages
import langchain_core.output_parsers as lc_parsers
import langchain_core.outputs as lc_outputs

import ragline.core as rl
import ragline.core.language_models as rl_models
import ragline.core.output_parsers as rl_parsers

LIBS = {
    "langchain": (lc_parsers.BaseGenerationOutputParser, lc_messages.AIMessage, lc_outputs),
    "ragline": (rl_parsers.BaseGenerationOutputParser, rl.AIMessage, rl_models),
}


def _parsers(lib: str) -> tuple[Any, Any]:
    base, _, _ = LIBS[lib]

    class Kind(base):  # type: ignore[misc,valid-type]
        def parse_result(self, result: Any, *, partial: bool = False) -> str:
            return f"sync {type(result[0]).__name__} {result[0].text}"

    class Awaiting(Kind):
        async def aparse_result(self, result: Any, *, partial: bool = False) -> str:
            await asyncio.sleep(0)
            return f"async {type(result[0]).__name__} {result[0].text}"

    return Kind(), Awaiting()


def _observe(lib: str) -> list[Any]:
    _, message, outputs = LIBS[lib]
    kind, awaiting = _parsers(lib)

    async def run() -> list[Any]:
        seen: list[Any] = []
        for parser in (kind, awaiting):
            seen.append(await parser.ainvoke(message("Hi")))
            seen.append(await parser.ainvoke("text"))
            seen.append([chunk async for chunk in parser.astream(message("Hi"))])
            seen.append(await parser.abatch(["a", message("b")]))
            generation = outputs.ChatGeneration(message=message("g"))
            seen.append(await parser.aparse_result([generation]))
            seen.append(parser.invoke(message("Hi")))
        return seen

    return asyncio.run(run())


def test_a_generation_parser_s_async_path_goes_through_aparse_result() -> None:
    assert (
        _observe("ragline")
        == _observe("langchain")
        == [
            "sync ChatGeneration Hi",
            "sync Generation text",
            ["sync ChatGeneration Hi"],
            ["sync Generation a", "sync ChatGeneration b"],
            "sync ChatGeneration g",
            "sync ChatGeneration Hi",
            "async ChatGeneration Hi",
            "async Generation text",
            ["async ChatGeneration Hi"],
            ["async Generation a", "async ChatGeneration b"],
            "async ChatGeneration g",
            "sync ChatGeneration Hi",
        ]
    )

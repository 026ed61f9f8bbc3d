"""Parity: the router chains (MultiPromptChain, LLMRouterChain, RouterOutputParser,
MultiRouteChain, RouterChain) against LangChain's.

The same fake model replies go through both libraries: a routing reply (fenced JSON or
bare, a rewritten input, ``DEFAULT`` in any case, an unknown name, broken JSON), then
the chosen chain's answer. Compared: the outputs of ``invoke`` (sync and async), the
keys, ``silent_errors``, a custom default chain, the parser on its own, and the errors
(an unknown destination is a ``ValueError``, a broken reply an
``OutputParserException``). The router prompt is ragline's own wording; its variable
(``{input}`` once the destinations are filled in) is LangChain's.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains import LLMChain as LCLLMChain
from langchain_classic.chains.router import LLMRouterChain as LCLLMRouterChain
from langchain_classic.chains.router import MultiPromptChain as LCMultiPromptChain
from langchain_classic.chains.router import MultiRouteChain as LCMultiRouteChain
from langchain_classic.chains.router import RouterChain as LCRouterChain
from langchain_classic.chains.router.llm_router import RouterOutputParser as LCRouterOutputParser
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.chains import (
    LLMChain,
    LLMRouterChain,
    MultiPromptChain,
    MultiRouteChain,
    RouterChain,
    RouterOutputParser,
)
from ragline.core import FakeListLLM, PromptTemplate

COVERS = {
    "chains.MultiPromptChain",
    "chains.LLMRouterChain",
    "chains.MultiRouteChain",
    "chains.RouterOutputParser",
    "chains.RouterChain",
}

INFOS = [
    {
        "name": "physics",
        "description": "questions about physics",
        "prompt_template": "Physicist: {input}",
    },
    {"name": "math", "description": "questions about numbers", "prompt_template": "Maths: {input}"},
]

ROUTES = [
    '```json\n{"destination": "physics", "next_inputs": "Why is the sky blue?"}\n```',
    '{"destination": " math ", "next_inputs": "2 + 2"}',
    '```json\n{"destination": "default", "next_inputs": "hello there"}\n```',
    '{"destination": "DEFAULT", "next_inputs": "hi"}',
    '{"destination": "chemistry", "next_inputs": "water?"}',
    '{"destination": "math"}',
    '{"destination": 3, "next_inputs": "x"}',
    '{"destination": "math", "next_inputs": ["x"]}',
    "no json at all",
]


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return (
            "raised",
            type(err).__name__
            if type(err).__name__ == "OutputParserException"
            else isinstance(err, ValueError),
        )


def pair(route: str, **kw: Any) -> tuple[Any, Any]:
    replies = [route, "The answer."]
    lc = LCMultiPromptChain.from_prompts(LCFakeListLLM(responses=replies), INFOS, **kw)
    rl = MultiPromptChain.from_prompts(FakeListLLM(responses=replies), INFOS, **kw)
    return lc, rl


@pytest.mark.parametrize("route", ROUTES)
def test_multi_prompt_chain_routes_as_langchains(route):
    lc, rl = pair(route)
    assert (rl.input_keys, rl.output_keys) == (lc.input_keys, lc.output_keys)
    assert outcome(rl.invoke, {"input": "question"}) == outcome(lc.invoke, {"input": "question"})
    lc, rl = pair(route)
    assert outcome(lambda: asyncio.run(rl.ainvoke("question"))) == outcome(
        lambda: asyncio.run(lc.ainvoke("question"))
    )


def test_silent_errors_and_a_custom_default_chain():
    lc, rl = pair(ROUTES[4], silent_errors=True)
    assert rl.invoke({"input": "q"}) == lc.invoke({"input": "q"})
    lc_default = LCLLMChain(
        llm=LCFakeListLLM(responses=["fallback"]), prompt=LCPromptTemplate.from_template("{input}")
    )
    rl_default = LLMChain(
        llm=FakeListLLM(responses=["fallback"]), prompt=PromptTemplate.from_template("{input}")
    )
    replies = [ROUTES[3], "unused"]
    lc = LCMultiPromptChain.from_prompts(
        LCFakeListLLM(responses=replies), INFOS, default_chain=lc_default
    )
    rl = MultiPromptChain.from_prompts(
        FakeListLLM(responses=replies), INFOS, default_chain=rl_default
    )
    assert rl.invoke({"input": "q"}) == lc.invoke({"input": "q"})


def test_router_output_parser_alone():
    lc, rl = LCRouterOutputParser(), RouterOutputParser()
    for text in ROUTES:
        assert outcome(rl.parse, text) == outcome(lc.parse, text), text
    lc2 = LCRouterOutputParser(default_destination="NONE", next_inputs_inner_key="query")
    rl2 = RouterOutputParser(default_destination="NONE", next_inputs_inner_key="query")
    for text in ['{"destination": "none", "next_inputs": "q"}', ROUTES[1]]:
        assert rl2.parse(text) == lc2.parse(text)


def test_llm_router_and_multi_route_chain_built_by_hand():
    template = "Pick for: {input}"
    lc_router = LCLLMRouterChain.from_llm(
        LCFakeListLLM(responses=[ROUTES[1]]),
        LCPromptTemplate(
            template=template, input_variables=["input"], output_parser=LCRouterOutputParser()
        ),
    )
    rl_router = LLMRouterChain.from_llm(
        FakeListLLM(responses=[ROUTES[1]]),
        PromptTemplate(
            template=template, input_variables=["input"], output_parser=RouterOutputParser()
        ),
    )
    assert (rl_router.input_keys, rl_router.output_keys) == (
        lc_router.input_keys,
        lc_router.output_keys,
    )
    assert rl_router.invoke({"input": "q"}) == lc_router.invoke({"input": "q"})
    assert tuple(rl_router.route({"input": "q"})) == tuple(lc_router.route({"input": "q"}))
    lc_math = LCLLMChain(
        llm=LCFakeListLLM(responses=["4"]), prompt=LCPromptTemplate.from_template("{input}")
    )
    rl_math = LLMChain(
        llm=FakeListLLM(responses=["4"]), prompt=PromptTemplate.from_template("{input}")
    )
    lc = LCMultiRouteChain(
        router_chain=lc_router, destination_chains={"math": lc_math}, default_chain=lc_math
    )
    rl = MultiRouteChain(
        router_chain=rl_router, destination_chains={"math": rl_math}, default_chain=rl_math
    )
    assert (rl.input_keys, rl.output_keys) == (lc.input_keys, lc.output_keys)
    assert rl.invoke({"input": "q"}) == lc.invoke({"input": "q"})
    no_parser = PromptTemplate(template=template, input_variables=["input"])
    assert outcome(LLMRouterChain.from_llm, FakeListLLM(responses=["x"]), no_parser)[:2] == (
        "raised",
        True,
    )
    assert outcome(
        LCLLMRouterChain.from_llm,
        LCFakeListLLM(responses=["x"]),
        LCPromptTemplate(template=template, input_variables=["input"]),
    )[:2] == ("raised", True)


def keyword_router(base: Any) -> Any:
    """A program's own router: inputs with a digit go to "math", others to the default."""

    class KeywordRouter(base):
        @property
        def input_keys(self) -> list[str]:
            return ["input"]

        def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
            has_digit = any(ch.isdigit() for ch in inputs["input"])
            return {"destination": "math" if has_digit else None, "next_inputs": inputs}

    return KeywordRouter()


def test_a_programs_own_router_chain():
    def chains(llm: Any, chain: Any, prompt: Any, answer: str) -> Any:
        return chain(llm=llm(responses=[answer]), prompt=prompt.from_template("{input}"))

    lc = LCMultiRouteChain(
        router_chain=keyword_router(LCRouterChain),
        destination_chains={"math": chains(LCFakeListLLM, LCLLMChain, LCPromptTemplate, "4")},
        default_chain=chains(LCFakeListLLM, LCLLMChain, LCPromptTemplate, "words"),
    )
    rl = MultiRouteChain(
        router_chain=keyword_router(RouterChain),
        destination_chains={"math": chains(FakeListLLM, LLMChain, PromptTemplate, "4")},
        default_chain=chains(FakeListLLM, LLMChain, PromptTemplate, "words"),
    )
    for said in ["2+2", "hello"]:
        assert rl.invoke({"input": said}) == lc.invoke({"input": said})
        assert tuple(rl.router_chain.route({"input": said})) == tuple(
            lc.router_chain.route({"input": said})
        )

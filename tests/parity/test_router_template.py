"""Parity: MULTI_PROMPT_ROUTER_TEMPLATE against LangChain's
(``langchain_classic.chains.router.multi_prompt_prompt``).

The text is ragline's own wording, so the texts differ; what a program relies on is the
same: the template takes ``{destinations}`` through ``str.format``, then ``{input}`` as a
prompt, and asks for a fenced JSON object with ``destination`` and ``next_inputs``
(``DEFAULT`` for none). Compared: the variables at each stage, that the JSON example's
braces come out single, and a router built by hand from each library's template (as
programs write it) routing the same scripted replies to the same answers.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from langchain_classic.chains import LLMChain as LCLLMChain
from langchain_classic.chains.router import MultiPromptChain as LCMultiPromptChain
from langchain_classic.chains.router.llm_router import LLMRouterChain as LCLLMRouterChain
from langchain_classic.chains.router.llm_router import RouterOutputParser as LCRouterOutputParser
from langchain_classic.chains.router.multi_prompt_prompt import (
    MULTI_PROMPT_ROUTER_TEMPLATE as LC_TEMPLATE,
)
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.chains import (
    MULTI_PROMPT_ROUTER_TEMPLATE,
    LLMChain,
    LLMRouterChain,
    MultiPromptChain,
    RouterOutputParser,
)
from ragline.core import FakeListLLM, PromptTemplate

DESTINATIONS = "physics: questions about physics\nmath: questions about numbers"


def fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def test_the_variables_at_each_stage_are_langchains() -> None:
    assert fields(MULTI_PROMPT_ROUTER_TEMPLATE) == fields(LC_TEMPLATE) == ["destinations"]
    ours = MULTI_PROMPT_ROUTER_TEMPLATE.format(destinations=DESTINATIONS)
    theirs = LC_TEMPLATE.format(destinations=DESTINATIONS)
    assert fields(ours) == fields(theirs) == ["input"]
    assert PromptTemplate.from_template(ours).input_variables == ["input"]
    assert LCPromptTemplate.from_template(theirs).input_variables == ["input"]


def test_the_filled_prompt_asks_for_the_same_reply_format() -> None:
    ours = PromptTemplate.from_template(
        MULTI_PROMPT_ROUTER_TEMPLATE.format(destinations=DESTINATIONS)
    ).format(input="Why is the sky blue?")
    theirs = LCPromptTemplate.from_template(LC_TEMPLATE.format(destinations=DESTINATIONS)).format(
        input="Why is the sky blue?"
    )
    for text in (ours, theirs):
        assert DESTINATIONS in text and "Why is the sky blue?" in text
        assert "```json\n{\n" in text and "\n}\n```" in text  # single braces, fenced
        assert '"destination"' in text and '"next_inputs"' in text and '"DEFAULT"' in text
        assert "{{" not in text and "}}" not in text
    assert ours != theirs  # ragline's own words


REPLIES = [
    '```json\n{\n    "destination": "physics",\n    "next_inputs": "What is light?"\n}\n```',
    '```json\n{\n    "destination": "DEFAULT",\n    "next_inputs": "Hello"\n}\n```',
    '```json\n{\n    "destination": "math",\n    "next_inputs": "1 + 1"\n}\n```',
]


def build(lib: Any, reply: str) -> Any:
    """A MultiPromptChain built by hand from the template, as the tutorials write it."""
    llm_cls, prompt_cls, chain_cls, router_cls, parser_cls, multi_cls, template = lib
    llm = llm_cls(responses=[reply, "the answer"])
    prompt = prompt_cls(
        template=template.format(destinations=DESTINATIONS),
        input_variables=["input"],
        output_parser=parser_cls(),
    )
    destinations = {
        name: chain_cls(llm=llm, prompt=prompt_cls.from_template(name + ": {input}"))
        for name in ("physics", "math")
    }
    return multi_cls(
        router_chain=router_cls.from_llm(llm, prompt),
        destination_chains=destinations,
        default_chain=chain_cls(llm=llm, prompt=prompt_cls.from_template("{input}")),
    )


OURS = (
    FakeListLLM,
    PromptTemplate,
    LLMChain,
    LLMRouterChain,
    RouterOutputParser,
    MultiPromptChain,
    MULTI_PROMPT_ROUTER_TEMPLATE,
)
THEIRS = (
    LCFakeListLLM,
    LCPromptTemplate,
    LCLLMChain,
    LCLLMRouterChain,
    LCRouterOutputParser,
    LCMultiPromptChain,
    LC_TEMPLATE,
)


@pytest.mark.parametrize("reply", REPLIES)
def test_a_router_built_from_each_template_routes_alike(reply: str) -> None:
    ours = build(OURS, reply).invoke({"input": "question"})
    theirs = build(THEIRS, reply).invoke({"input": "question"})
    assert ours == theirs
    assert ours["text"] == "the answer"

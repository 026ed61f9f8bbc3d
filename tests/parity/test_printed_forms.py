"""Parity: what a program prints, against LangChain's printed forms.

Found by the port trial (``benchmarks/port_trial.py``): programs print lists of
documents, search results and parsed values, so ``repr`` is observable output. Each
test builds the same value with LangChain's class and ragline's and compares the text.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.core import Document
from ragline.core.prompts import PromptTemplate

COVERS = {"core.Document", "core.PromptTemplate", "core.StringPromptValue"}


@pytest.mark.parametrize(
    "fields",
    [
        {"page_content": "hello"},
        {"page_content": "hello", "metadata": {"source": "a.txt", "page": 2}},
        {"page_content": 'it\'s "quoted"\nsecond line', "metadata": {"k": None}, "id": "d1"},
        {"page_content": "x" * 300, "id": "long"},
        {"page_content": "", "metadata": {"nested": {"a": [1, 2]}}},
    ],
)
def test_repr_of_a_document_and_of_a_list_of_them(fields: dict[str, Any]):
    lc, ours = LCDocument(**fields), Document(**fields)
    assert repr(ours) == repr(lc)
    assert repr([ours, ours]) == repr([lc, lc])
    assert f"{[(ours, 0.5)]}" == f"{[(lc, 0.5)]}"


# ---- prompts and prompt values ----------------------------------------------------------------
def _prompts(cls: Any) -> list[Any]:
    return [
        cls.from_template("Tell me a joke about {topic}") + ", funny" + " in {language}",
        cls.from_template("{foo}{bar}").partial(foo="foo"),
        cls.from_template("a {{ x }}", template_format="jinja2", tags=["t"]),
        cls(template="{q}", input_variables=["q"], metadata={"m": 1}),
    ]


def test_str_and_repr_of_a_prompt_template():
    ours, theirs = _prompts(PromptTemplate), _prompts(LCPromptTemplate)
    assert [str(p) for p in ours] == [str(p) for p in theirs]
    assert [repr(p) for p in ours] == [repr(p) for p in theirs]


def test_str_and_repr_of_a_string_prompt_value():
    ours = PromptTemplate.from_template("Tell me a joke about {topic}").invoke({"topic": "cats"})
    theirs = LCPromptTemplate.from_template("Tell me a joke about {topic}").invoke(
        {"topic": "cats"}
    )
    assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))

"""Parity: ``langchain.debug = True`` / ``langchain.verbose = True`` /
``langchain.llm_cache = ...`` (the root package's old settings) after ``ragline port``.

In LangChain 1.x nothing reads these module attributes any more (``set_debug`` and
``set_verbose`` are the switches): setting one changes nothing a program prints. The
port maps the root imported for them (``import langchain``, ``import langchain_classic
as langchain``) to ``import ragline as langchain``, where setting them changes nothing
either. Compared: what the same program prints under LangChain and, ported, under
ragline (the program reads the settings back, too); that the port leaves no LangChain
import and reports nothing; and that ragline's global switches stay off.
"""

from __future__ import annotations

import langchain_classic
import pytest

import ragline
from ragline.cli._port_rewrite import port_source
from ragline.core import get_debug, get_llm_cache, get_verbose
from tests.parity._port_trial import printed

PROGRAM = """\
{root_import}
from langchain_classic.chains import LLMChain
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

langchain.debug = True
langchain.verbose = True
langchain.llm_cache = None
chain = LLMChain(
    llm=FakeListLLM(responses=["Rome"]),
    prompt=PromptTemplate.from_template("Capital of {{country}}?"),
)
print(chain.run(country="Italy"))
print(chain.verbose, langchain.debug, langchain.verbose, langchain.llm_cache)
"""
LANGCHAIN_FORM = PROGRAM.format(root_import="import langchain_classic as langchain")


@pytest.fixture(autouse=True)
def _settings_taken_back():
    yield
    for module in (langchain_classic, ragline):
        for name in ("debug", "verbose", "llm_cache"):
            if name in vars(module):
                delattr(module, name)


@pytest.mark.parametrize(
    "root_import", ["import langchain_classic as langchain", "import langchain"]
)
def test_the_old_settings_change_nothing_in_either_library(root_import: str) -> None:
    expected = printed(LANGCHAIN_FORM)
    assert expected == "Rome\nFalse True True None\n"
    result = port_source(PROGRAM.format(root_import=root_import))
    assert result.unmapped == []
    assert result.source.startswith("import ragline as langchain\n")
    assert "langchain_" not in result.source
    assert printed(result.source) == expected
    assert (get_debug(), get_verbose(), get_llm_cache()) == (False, False, None)


def test_a_root_used_for_a_name_too_maps_to_that_names_package() -> None:
    source = (
        "import langchain_classic as lc\nlc.debug = True\nprint(lc.LLMChain.__name__, lc.debug)\n"
    )
    expected = printed(source)
    result = port_source(source)
    assert (result.unmapped, result.source.splitlines()[0]) == ([], "import ragline.chains as lc")
    assert printed(result.source) == expected == "LLMChain True\n"
    del vars(ragline.chains)["debug"]


def test_a_root_read_for_anything_else_stays_reported() -> None:
    result = port_source("import langchain\nprint(langchain.chains.LLMChain)\n")
    assert [entry.module for entry in result.unmapped] == ["langchain"]

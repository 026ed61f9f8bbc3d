"""Parity: the whitespace around a mustache section or comment alone on its line.

LangChain's renderer drops such a line's indentation only where it is spaces (a tab
stays), and a tag on the template's last line, with no newline after it, keeps the blanks
that follow it. ragline rendered both as the mustache specification has them (the tab
dropped, the trailing blanks dropped), so a tab-indented prompt or one ending in
``{{/items}}  `` printed differently (review of 0fb6df5).
"""

from __future__ import annotations

import pytest
from langchain_core.prompts import PromptTemplate as LangChainPromptTemplate

from ragline.core.prompts import PromptTemplate

_CASES = [
    # (template, items, LangChain's render)
    (
        "Tools:\n\t{{#items}}\n\t- {{.}}\n\t{{/items}}\nEnd",
        ["a", "b"],
        "Tools:\n\t\t- a\n\t\t- b\n\tEnd",
    ),
    ("Tools:\n\t{{#items}}\n- {{.}}\n{{/items}}\nEnd", [], "Tools:\n\tEnd"),
    ("x\n \t {{^items}}\nnone\n{{/items}}\n", [], "x\n \tnone\n"),
    ("List:\n{{#items}}\n* {{.}}\n{{/items}}  ", ["a"], "List:\n* a\n  "),
    ("List:\n{{#items}}  \n* {{.}}\n{{/items}} \t", [], "List:\n \t"),
    ("{{! note }}\t\nz", [], "z"),
    ("  {{#items}}\n{{.}}\n  {{/items}}\nz", [1, 2], "1\n2\nz"),
]


@pytest.mark.parametrize(("template", "items", "expected"), _CASES)
def test_standalone_lines_keep_what_langchains_renderer_keeps(template, items, expected):
    langchain = LangChainPromptTemplate.from_template(template, template_format="mustache")
    assert langchain.format(items=items) == expected
    ours = PromptTemplate.from_template(template, template_format="mustache")
    assert ours.format(items=items) == expected

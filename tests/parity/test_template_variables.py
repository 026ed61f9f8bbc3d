"""Parity: get_template_variables against LangChain's.

f-string and jinja2 templates give the same sorted variables in both libraries; what
LangChain refuses (attribute access, indexing, positional fields, a malformed template,
an unknown format) ragline refuses too, with a ValueError. Mustache templates give the
same top-level names (sections' inner names are not variables).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.prompts import get_template_variables as lc_get_template_variables

from ragline.core.prompts import get_template_variables

COVERS = {"core.prompts.get_template_variables"}


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except ValueError:
        return ("raised", "ValueError")


@pytest.mark.parametrize(
    ("template", "template_format"),
    [
        ("{b} {a} {b}", "f-string"),
        ("{{x}} {y!r} {z:>3} {{", "f-string"),
        ("", "f-string"),
        ("no variables", "f-string"),
        ("{question}\n\nContext:\n{context}", "f-string"),
        ("{{ b }} {{ a }} {% for i in xs %}{{ i }}{% endfor %}", "jinja2"),
        ("{% if flag %}{{ yes }}{% else %}{{ no }}{% endif %}", "jinja2"),
        ("{a.b}", "f-string"),
        ("{a[0]}", "f-string"),
        ("{0}", "f-string"),
        ("{a", "f-string"),
        ("x", "nope"),
    ],
)
def test_variables_as_langchains(template, template_format):
    assert outcome(get_template_variables, template, template_format) == outcome(
        lc_get_template_variables, template, template_format
    )


@pytest.mark.parametrize(
    "template",
    ["{{a}} {{#b}}{{c}}{{/b}}", "{{{raw}}} {{& amp}} {{^none}}{{x}}{{/none}} {{o.p.q}} {{.}}"],
)
def test_mustache_variables_as_langchains(template):
    assert get_template_variables(template, "mustache") == lc_get_template_variables(
        template, "mustache"
    )

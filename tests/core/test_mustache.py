"""The mustache template format: what LangChain's parity tests do not reach (the
bounds, refusals and ragline's stricter choices), pinned on ragline alone."""

from __future__ import annotations

import dataclasses

import pytest

from ragline.core.exceptions import InvalidInputError, PromptKeyError
from ragline.core.prompts import (
    PromptTemplate,
    TemplateLimits,
    get_template_variables,
    set_template_limits,
)


def _render(template: str, **values: object) -> str:
    return PromptTemplate.from_template(template, template_format="mustache").format(**values)


def test_standalone_tags_on_consecutive_lines_take_their_lines():
    template = "a\n{{#s}}\n  {{! note }}\nin\n{{/s}}\n{{^s}}\nout\n{{/s}}\nz"
    assert _render(template, s=True) == "a\nin\nz"
    assert _render(template, s=[]) == "a\nout\nz"
    # a tag beside text is not standalone: its line stays
    assert _render("a {{#s}}x{{/s}}\nb", s=True) == "a x\nb"


def test_sections_push_each_item_and_names_fall_back_outwards():
    template = "{{#rows}}{{id}}:{{label}} {{/rows}}|{{#one}}{{id}}{{/one}}"
    assert (
        _render(template, rows=[{"id": 1}, {"id": 2, "label": "b"}], label="L", one={"id": 9})
        == "1:L 2:b |9"
    )
    assert get_template_variables("{{#rows}}{{id}}{{/rows}} {{user.name}}", "mustache") == [
        "rows",
        "user",
    ]


def test_an_objects_attributes_are_never_read():
    class Secret:
        password = "hunter2"

        def __str__(self) -> str:
            return "Secret()"

    assert _render("[{{s.password}}] [{{#s}}{{password}}{{/s}}] {{s}}", s=Secret()) == (
        "[] [] Secret()"
    )


def test_a_missing_variable_renders_as_nothing_in_format_and_is_refused_by_invoke():
    prompt = PromptTemplate.from_template("{{a}} {{b}}", template_format="mustache")
    assert prompt.format(a=1) == "1 "
    with pytest.raises(PromptKeyError, match=r"missing variable\(s\) \['b'\]"):
        prompt.invoke({"a": 1})


def test_partials_render_nothing_and_delimiter_changes_are_refused():
    assert _render("{{> header}}body") == "body"
    with pytest.raises(InvalidInputError, match="delimiter changes"):
        PromptTemplate.from_template("{{=<% %>=}}<%x%>", template_format="mustache")
    with pytest.raises(InvalidInputError, match="empty mustache tag"):
        PromptTemplate.from_template("{{ }}", template_format="mustache")


def test_nesting_and_output_are_bounded():
    deep = "{{#a}}" * 101 + "{{/a}}" * 101
    with pytest.raises(InvalidInputError, match="nested deeper than 100"):
        PromptTemplate.from_template(deep, template_format="mustache")
    set_template_limits(dataclasses.replace(TemplateLimits(), max_output_chars=50))
    try:
        prompt = PromptTemplate.from_template(
            "{{#rows}}0123456789{{/rows}}", template_format="mustache"
        )
        assert prompt.format(rows=[1] * 5) == "0123456789" * 5
        with pytest.raises(InvalidInputError, match="exceed 50 characters"):
            prompt.format(rows=[1] * 6)
    finally:
        set_template_limits(None)


def test_an_unclosed_tag_is_named_by_its_place_without_the_whole_template():
    # a long template with {{ but no }}: the error shows its start and the tag's place
    # (it repeated the whole template), and the scan stays one pass (was quadratic: ~9 s
    # for 16,000 characters of "{{")
    template = "intro " + "{{" * 5_000
    with pytest.raises(InvalidInputError) as caught:
        PromptTemplate.from_template(template, template_format="mustache")
    assert str(caught.value) == (
        f"unclosed mustache tag in {template[:60]!r}: {{{{ without }}}} at character 6"
    )
    # tags after a long run of text are still found
    assert get_template_variables(
        "x" * 10_000 + "{{{raw}}} {{#s}}{{i}}{{/s}} {{a}}", "mustache"
    ) == [
        "a",
        "raw",
        "s",
    ]

"""Formatting a prompt is bounded (TemplateLimits): f-string widths and precisions, and a
jinja2 render's loop steps, time, output, ranges and value sizes. Every refusal is an
InvalidInputError that names the field or the limit; templates within the limits render
exactly as before."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest

from ragline.core import (
    ChatPromptTemplate,
    ConfigurationError,
    FewShotPromptTemplate,
    HumanMessage,
    InvalidInputError,
    PromptTemplate,
    SystemMessage,
)
from ragline.core.prompts import TemplateLimits, get_template_limits, set_template_limits


@pytest.fixture(autouse=True)
def default_limits() -> Iterator[None]:
    set_template_limits(None)
    yield
    set_template_limits(None)


def limits(**changes: object) -> None:
    set_template_limits(dataclasses.replace(TemplateLimits(), **changes))


def jinja(template: str) -> PromptTemplate:
    return PromptTemplate.from_template(template, template_format="jinja2")


# ---------------------------------------------------------------- f-string format specs


@pytest.mark.parametrize(
    ("template", "field", "number"),
    [
        ("Hi {x:>1000000000000}", "{x:>1000000000000}", "1000000000000"),
        ("Hi {x:>1000000000}", "{x:>1000000000}", "1000000000"),
        ("{x:.20000f}", "{x:.20000f}", "20000"),
        ("{x:*^10001}", "{x:*^10001}", "10001"),
        ("{x:0>10001}", "{x:0>10001}", "10001"),
    ],
)
def test_an_f_string_width_over_the_limit_is_refused_naming_the_field(
    template: str, field: str, number: str
) -> None:
    message = rf"^prompt template field {re.escape(field)} asks for a width or precision of "
    message += rf"{number}, more than the limit 10000 \(TemplateLimits\.max_format_width"
    with pytest.raises(InvalidInputError, match=message):
        PromptTemplate.from_template(template)


def test_a_width_of_a_million_digits_is_refused_at_once() -> None:
    with pytest.raises(InvalidInputError, match=r"of a 1000000-digit number, more than the limit"):
        PromptTemplate.from_template("{x:>1" + "0" * 999_999 + "}")


def test_every_prompt_that_formats_f_strings_checks_the_widths() -> None:
    bad = "{x:>1000000000}"
    match = r"field \{x:>1000000000\} asks for a width"
    with pytest.raises(InvalidInputError, match=match):
        ChatPromptTemplate.from_messages([("system", "ok"), ("human", f"Say {bad}")])
    with pytest.raises(InvalidInputError, match=match):
        ChatPromptTemplate.from_template(bad)
    example = PromptTemplate.from_template("{q}")
    for prefix, suffix in ((bad, "{q}"), ("ok", bad)):
        with pytest.raises(InvalidInputError, match=match):
            FewShotPromptTemplate(examples=[], example_prompt=example, prefix=prefix, suffix=suffix)


def test_widths_within_the_limit_format_exactly_and_the_limit_is_settable() -> None:
    assert PromptTemplate.from_template("[{x:>5}|{y:.2f}|{x:*^7}]").format(x="ab", y=3.14159) == (
        "[   ab|3.14|**ab***]"
    )
    assert PromptTemplate.from_template("{x:>10000}").format(x="a") == " " * 9999 + "a"
    limits(max_format_width=5)
    assert PromptTemplate.from_template("{x:>5}").format(x=1) == "    1"
    with pytest.raises(InvalidInputError, match=r"\{x:>6\} asks for a width or precision of 6, "):
        PromptTemplate.from_template("{x:>6}")
    with pytest.raises(InvalidInputError, match=r"limit 5 "):
        jinja("{{ '{:>6}'.format(x) }}").format(x=1)


def test_template_limits_are_checked() -> None:
    with pytest.raises(ConfigurationError, match=r"TemplateLimits\.max_range must be an int >= 1"):
        TemplateLimits(max_range=0)
    with pytest.raises(ConfigurationError, match=r"TemplateLimits\.timeout must be a number > 0"):
        TemplateLimits(timeout=float("nan"))
    with pytest.raises(ConfigurationError, match="takes a TemplateLimits or None, got dict"):
        set_template_limits({"max_range": 5})  # type: ignore[arg-type]
    assert get_template_limits() == TemplateLimits()


# ---------------------------------------------------------------- jinja2


@pytest.mark.parametrize(
    "template",
    [
        "{% import 'macros.html' as m %}{{ q }}",
        "{% from 'macros.html' import m %}{{ q }}",
        "{% include 'header.html' %}{{ q }}",
        "{% extends 'base.html' %}",
    ],
)
def test_jinja2_templates_cannot_load_other_templates(template: str) -> None:
    with pytest.raises(InvalidInputError, match="imports, includes or extends another template"):
        jinja(template)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (
            "{{ range(10**12) | length }}",
            r"range\(1000000000000,\) has 1000000000000 items, "
            r"more than 100000 \(TemplateLimits\.max_range",
        ),
        ("{{ 'a' * 10**12 }}", "builds a str of 1000000000000 characters, more than 1000000"),
        ("{{ 'a' * 10**9 }}", "builds a str of 1000000000 characters"),
        ("{{ [1, 2] * 10**9 }}", "builds a list of 2000000000 items"),
        ("{{ 9 ** 99999999 }}", r"computes 9 \*\* 99999999, a number of about 95424249 digits"),
        ("{{ 10.0 ** 400 }}", r"a value too large to hold \(OverflowError"),
        ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "recursed too deeply"),
        ("{{ q | center(10**9) }}", "a filter for a width of 1000000000, more than 10000"),
        ("{{ q | indent(10**9) }}", "a filter for a width of 1000000000"),
        ("{{ '{:>1000000000}'.format(q) }}", r"field \{:>1000000000\} asks for a width"),
        ("{{ '{:{w}}'.format(q, w=9) }}", "takes its spec from an argument"),
        ("{{ '%1000000000d' % 1 }}", "format '%1000000000' asks for a width or precision above"),
        ("{{ '%*d' % (10**9, 1) }}", "takes its width from the arguments"),
        ("{{ '%1000000000d' | format(1) }}", "format '%1000000000' asks for a width"),
        ("{{ ('a' * 1000000) | replace('a', 'bb') }}", "builds a str of 2000000 characters"),
        ("{% set s = 'a' * 600000 %}{{ s ~ s }}", "builds a str of 1200000 characters"),
        (
            "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
            "{% endfor %}",
            "builds a str of 1048576 characters",
        ),
        ("{% set s = 'a' * 600000 %}{{ s + s }}", "builds a str of 1200000 characters"),
        ("{{ 1 + 'a' }}", "cannot render the jinja2 template: unsupported operand"),
    ],
)
def test_jinja2_refusals_are_invalid_input_errors(template: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        jinja(template).format(q="x")


def test_nested_loops_stop_at_the_step_limit() -> None:
    nested = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    limits(max_iterations=1000)
    with pytest.raises(InvalidInputError, match=r"more than 1000 loop steps, calls and operations"):
        jinja(nested).format()
    # Loops over strings or given lists need no call to count: each step still does.
    over_text = "{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}"
    with pytest.raises(InvalidInputError, match=r"more than 1000 loop steps"):
        jinja(over_text).format(s="x" * 100)
    assert jinja(over_text + "done").format(s="x" * 31) == "done"  # 31 + 31*31 = 992 steps


def test_a_render_stops_at_the_time_limit() -> None:
    nested = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    limits(max_iterations=10**12, timeout=0.2)
    with pytest.raises(
        InvalidInputError, match=r"ran longer than 0\.2 s \(TemplateLimits\.timeout"
    ):
        jinja(nested).format()


def test_a_render_stops_at_the_output_limit() -> None:
    limits(max_output_chars=50)
    loop = jinja("{% for i in range(100000) %}{{ q }}{% endfor %}")
    with pytest.raises(InvalidInputError, match=r"output passed 50 characters"):
        loop.format(q="ten chars!")
    assert jinja("{% for i in range(5) %}{{ q }}{% endfor %}").format(q="ten chars!") == (
        "ten chars!" * 5
    )
    limits(max_range=3)
    with pytest.raises(InvalidInputError, match=r"range\(4,\) has 4 items, more than 3"):
        jinja("{% for i in range(4) %}{% endfor %}").format()


def test_jinja2_templates_within_the_limits_render_exactly() -> None:
    template = (
        "{% macro item(n) %}<{{ n }}>{% endmacro %}"
        "{% for d in docs %}{{ loop.index }}. {{ d | upper }}{{ item(loop.index) }}\n{% endfor %}"
        "{{ '{:>4}'.format(n) }}|{{ '%03d' % n }}|{{ 'ab' * 2 }}|{{ 2 ** 10 }}|{{ a ~ b }}"
        "|{{ [1] + [2] }}|{{ 'x' | center(5) }}|{{ 'aXa' | replace('X', '-') }}"
    )
    assert jinja(template).format(docs=["a", "b"], n=7, a="A", b="B") == (
        "1. A<1>\n2. B<2>\n   7|007|abab|1024|AB|[1, 2]|  x  |a-a"
    )
    chat = ChatPromptTemplate.from_messages(
        [("system", "{% for r in rules %}- {{ r }}\n{% endfor %}"), ("human", "{{ q }}")],
        template_format="jinja2",
    )
    assert chat.format_messages(rules=["be brief"], q="hi") == [
        SystemMessage("- be brief\n"),
        HumanMessage("hi"),
    ]

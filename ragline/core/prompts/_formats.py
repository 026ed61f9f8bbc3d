"""Template formats: ``"f-string"`` (Python's ``str.format`` with plain names only),
``"jinja2"`` (rendered in jinja2's immutable sandbox; the ``jinja2`` extra) and
``"mustache"`` (``{{name}}``, sections; see ``_mustache.py``).

A :class:`Template` is parsed once, when a prompt is built: its variables are known then
and a jinja2 template is compiled then, so formatting does no parsing.

Example:
    >>> Template("Hi {name}, {name}!", "f-string").variables
    ['name']
    >>> Template("Hi {name}", "f-string").render({"name": "Ada"})
    'Hi Ada'
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Any

from ragline.core.exceptions import ConfigurationError, InvalidInputError
from ragline.core.prompts import _jinja
from ragline.core.prompts._limits import check_format_spec
from ragline.core.prompts._mustache import compile_mustache

__all__ = ["TEMPLATE_FORMATS", "Template", "check_template_format", "get_template_variables"]

TEMPLATE_FORMATS = ("f-string", "jinja2", "mustache")


def check_template_format(
    template_format: str, formats: tuple[str, ...] = TEMPLATE_FORMATS
) -> None:
    """Raise a ConfigurationError naming the valid formats unless ``template_format`` is
    one of ``formats`` (few-shot prompts take ``"f-string"`` and ``"jinja2"`` only, as
    LangChain's)."""
    if template_format not in formats:
        options = ", ".join(repr(name) for name in formats)
        raise ConfigurationError(
            f"template_format {template_format!r} is not supported; valid formats are {options}"
        )


def get_template_variables(template: str, template_format: str) -> list[str]:
    """The variables of ``template``, sorted (LangChain's function of the same name).

    Raises:
        ValueError: an unsupported format (``"f-string"``, ``"jinja2"`` and
            ``"mustache"`` are), or a malformed template or a variable that is not a
            plain name (an ``InvalidInputError``).

    Example:
        >>> get_template_variables("{b} and {a}, {b}", "f-string")
        ['a', 'b']
    """
    if template_format not in TEMPLATE_FORMATS:
        raise ConfigurationError(f"Unsupported template format: {template_format}")
    return sorted(Template(template, template_format).variables)


class Template:
    """A template parsed once: its ``variables`` (f-strings and mustache: in order of
    first appearance, mustache's top-level names only; jinja2: sorted, as LangChain lists
    them) and ``render(values)``.

    Raises:
        ConfigurationError: an unknown ``template_format``.
        InvalidInputError: a malformed template (or, for f-strings, attribute access,
            indexing, positional fields or unknown conversions).
        MissingDependencyError: ``"jinja2"`` without the jinja2 package.
    """

    __slots__ = ("_render", "template", "template_format", "variables")

    def __init__(self, template: str, template_format: str = "f-string") -> None:
        check_template_format(template_format)
        if not isinstance(template, str):
            raise InvalidInputError(f"a template must be a str, got {type(template).__name__}")
        self.template = template
        self.template_format = template_format
        self.variables: list[str]
        self._render: Callable[[dict[str, Any]], str]
        if template_format == "jinja2":
            self.variables, self._render = _jinja2(template)
        elif template_format == "mustache":
            self.variables, self._render = compile_mustache(template)
        else:
            self.variables = _f_string_variables(template)
            self._render = self._fill

    def render(self, values: dict[str, Any]) -> str:
        """The template filled in with ``values``.

        Raises:
            InvalidInputError: a value its format spec cannot format, or (jinja2) the
                template tried what the sandbox forbids.
        """
        return self._render(values)

    def _fill(self, values: dict[str, Any]) -> str:
        """``template.format(**values)``; a value its format spec cannot format (``{x:%}``
        given a str) is an InvalidInputError naming the variable, not a bare ValueError."""
        try:
            return self.template.format(**values)
        except (ValueError, TypeError) as err:
            for _, field, spec, _ in string.Formatter().parse(self.template):
                name = (field or "").split(".")[0].split("[")[0]
                if name in values and spec:
                    try:
                        format(values[name], spec)
                    except (ValueError, TypeError):
                        raise InvalidInputError(
                            f"prompt variable {name!r} = {values[name]!r:.40} cannot be "
                            f"formatted as {{{field}:{spec}}} ({err}); pass a value of the type "
                            "the format spec expects, or change the spec in the template"
                        ) from err
            raise InvalidInputError(f"cannot format the prompt template: {err}") from err


def _f_string_variables(template: str) -> list[str]:
    """The variables of an f-string template, in order of first appearance."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as err:
        raise InvalidInputError(f"invalid f-string template {template!r}: {err}") from err
    names: list[str] = []
    for _literal, field_name, format_spec, conversion in parsed:
        if field_name is None:
            continue
        # Plain names only: attribute access or indexing ({user.password}, {x[0]}) would
        # let a template reach into the objects it is given.
        if not field_name or field_name.isdigit() or any(c in field_name for c in ".[]"):
            raise InvalidInputError(
                f"template variable {{{field_name}}} in {template!r} is not a plain name; "
                f"use named variables such as {{question}} (and {{{{ }}}} for literal braces)"
            )
        if conversion not in (None, "r", "s", "a"):  # else format() fails at invoke time
            raise InvalidInputError(
                f"unknown conversion !{conversion} in {{{field_name}!{conversion}}} of "
                f"{template!r}; valid conversions are !r, !s and !a"
            )
        if format_spec and "{" in format_spec:
            raise InvalidInputError(
                f"nested variables in the format spec of {{{field_name}}} are not supported"
            )
        check_format_spec(field_name, format_spec or "")
        if field_name not in names:
            names.append(field_name)
    return names


def _environment() -> Any:
    """The bounded jinja2 sandbox (see ``_jinja.py``)."""
    return _jinja.environment()


_environment.cache_clear = _jinja.environment.cache_clear  # type: ignore[attr-defined]


def _jinja2(template: str) -> tuple[list[str], Callable[[dict[str, Any]], str]]:
    return _jinja.compile_jinja2(template)

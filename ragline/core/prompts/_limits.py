"""How much work formatting one prompt may do: ``TemplateLimits`` and the format-spec check.

A template may come from a user, a file or a model, so formatting it is bounded: an
f-string field asks for at most ``max_format_width`` characters of width or precision
(``{x:>1000000000}`` would allocate a gigabyte), and a jinja2 render stops after
``max_iterations`` loop steps, calls and operators, ``timeout`` seconds or
``max_output_chars`` characters of output. Going over a limit raises
``InvalidInputError`` naming the field or the limit; the limits are process-wide and set
with :func:`set_template_limits`.

Example:
    >>> import dataclasses
    >>> previous = get_template_limits()
    >>> set_template_limits(dataclasses.replace(previous, max_format_width=100))
    >>> get_template_limits().max_format_width
    100
    >>> set_template_limits(None)  # back to the defaults
    >>> get_template_limits().max_format_width
    10000
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass

from ragline.core.exceptions import ConfigurationError, InvalidInputError

__all__ = [
    "TemplateLimits",
    "check_format_spec",
    "check_format_string",
    "check_printf_string",
    "get_template_limits",
    "set_template_limits",
]


@dataclass(frozen=True)
class TemplateLimits:
    """The most work formatting one prompt may do.

    Args:
        max_format_width: the largest width or precision a format spec may ask for
            (f-string fields, and ``str.format`` / ``%`` / ``format`` inside jinja2).
        max_output_chars: the longest text one jinja2 render may produce (also the
            longest string or list its ``*`` and ``+`` may build).
        max_iterations: the most loop steps, calls and intercepted operators one jinja2
            render may run.
        max_range: the longest ``range()`` a jinja2 template may build.
        timeout: seconds one jinja2 render may run (checked at every loop step, call and
            piece of output).

    Raises:
        ConfigurationError: a limit that is not a positive number.
    """

    max_format_width: int = 10_000
    max_output_chars: int = 1_000_000
    max_iterations: int = 1_000_000
    max_range: int = 100_000
    timeout: float = 10.0

    def __post_init__(self) -> None:
        for name in ("max_format_width", "max_output_chars", "max_iterations", "max_range"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ConfigurationError(
                    f"TemplateLimits.{name} must be an int >= 1, got {value!r}"
                )
        timeout = self.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise ConfigurationError(
                f"TemplateLimits.timeout must be a number > 0, got {timeout!r}"
            )
        if not (math.isfinite(timeout) and timeout > 0):
            raise ConfigurationError(
                f"TemplateLimits.timeout must be a number > 0, got {timeout!r}"
            )


_limits = TemplateLimits()


def set_template_limits(limits: TemplateLimits | None) -> None:
    """Use ``limits`` for every prompt formatted from now on (None: the defaults).

    F-string widths are checked when a template is built, jinja2 limits at each render.

    Raises:
        ConfigurationError: ``limits`` is not a TemplateLimits.
    """
    global _limits
    if limits is not None and not isinstance(limits, TemplateLimits):
        raise ConfigurationError(
            f"set_template_limits takes a TemplateLimits or None, got {type(limits).__name__}"
        )
    _limits = limits if limits is not None else TemplateLimits()


def get_template_limits() -> TemplateLimits:
    """The limits set with :func:`set_template_limits` (the defaults unless changed)."""
    return _limits


_DIGITS = re.compile(r"\d+")


def _largest_number(spec: str, cap: int) -> str | None:
    """The first number in ``spec`` above ``cap``, as shown in a message (None if none);
    never parses a number longer than the cap's own digits (a million-digit spec stays
    cheap and within Python's int-from-text limit)."""
    for run in _DIGITS.findall(spec):
        digits = run.lstrip("0") or "0"
        if len(digits) > len(str(cap)) or int(digits) > cap:
            return digits if len(digits) <= 30 else f"a {len(digits)}-digit number"
    return None


def check_format_spec(field: str, spec: str) -> None:
    """Refuse a format spec asking for a width or precision above the limit.

    Raises:
        InvalidInputError: names the field, the number and the limit.
    """
    if not spec:
        return
    cap = _limits.max_format_width
    # The first character may be a fill (a digit is a valid fill); numbers after it are
    # the width and the precision. Digits in other specs (a date's "%Y") are small.
    found = _largest_number(spec[1:] if len(spec) > 1 and spec[1] in "<>=^" else spec, cap)
    if found is not None:
        shown = spec if len(spec) <= 40 else spec[:40] + "..."
        raise InvalidInputError(
            f"prompt template field {{{field}:{shown}}} asks for a width or precision of "
            f"{found}, more than the limit "
            f"{cap} (TemplateLimits.max_format_width; see set_template_limits); use a "
            "smaller number in the template"
        )


def check_format_string(text: str) -> None:
    """Check every field of a ``str.format`` string (used inside jinja2).

    Raises:
        InvalidInputError: a width or precision above the limit, a spec taken from an
            argument (``{:{w}}``, which cannot be checked here), or a malformed string.
    """
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as err:
        raise InvalidInputError(f"invalid format string {text!r:.80}: {err}") from err
    for _literal, field, spec, _conversion in fields:
        if spec and "{" in spec:
            raise InvalidInputError(
                f"format field {{{field}:{spec}}} takes its spec from an argument, which a "
                "template may not do (its width could not be bounded); write the spec out"
            )
        check_format_spec(field or "", spec or "")


_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def check_printf_string(text: str) -> None:
    """Check the widths of a ``%`` format string (used inside jinja2).

    Raises:
        InvalidInputError: a width or precision above the limit, or one taken from the
            arguments (``%*d``).
    """
    for match in _PRINTF.finditer(text.replace("%%", "")):
        for number in match.groups():
            if number == "*":
                raise InvalidInputError(
                    f"format {match.group(0)!r} takes its width from the arguments, which a "
                    "template may not do (it could not be bounded); write the width out"
                )
            cap = _limits.max_format_width
            if number and _largest_number(number, cap) is not None:
                raise InvalidInputError(
                    f"format {match.group(0)[:40]!r} asks for a width or precision above "
                    f"the limit {cap} (TemplateLimits.max_format_width; see "
                    "set_template_limits); use a smaller number"
                )

"""jinja2 templates, rendered in a bounded immutable sandbox.

jinja2's ``ImmutableSandboxedEnvironment`` stops a template from reaching unsafe
attributes or changing the objects it is given, but not from working without end
(``{% for i in range(100000) %}{% for j in range(100000) %}...``) or building huge
strings. ``BoundedSandbox`` adds a budget per render (see ``TemplateLimits``): every
loop step (loops are wrapped when the template is compiled), call and ``*`` / ``**`` /
``+`` / ``%`` operator counts against ``max_iterations`` and checks the deadline;
``range()`` is capped at ``max_range``; ``*`` and ``+`` may not build a string or list
longer than ``max_output_chars``, nor ``**`` a number of more than 10,000 digits; format
widths are capped at ``max_format_width``; and the output is collected piece by piece
(``generate()``) and cut off past ``max_output_chars``. Every refusal, and every error
the template causes, is an ``InvalidInputError`` saying what to change.
"""

from __future__ import annotations

import contextvars
import math
import operator
import time
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError
from ragline.core.prompts._limits import (
    TemplateLimits,
    check_format_string,
    check_printf_string,
    get_template_limits,
)

__all__ = ["compile_jinja2", "environment"]

_MAX_POWER_DIGITS = 10_000


class _Budget:
    """What one render may still do."""

    __slots__ = ("deadline", "limits", "steps")

    def __init__(self, limits: TemplateLimits) -> None:
        self.limits = limits
        self.steps = 0
        self.deadline = time.monotonic() + limits.timeout

    def spend(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_iterations:
            raise InvalidInputError(
                f"the jinja2 template ran more than {self.limits.max_iterations} loop steps, "
                "calls and operations (TemplateLimits.max_iterations; see "
                "set_template_limits); simplify its loops"
            )
        if time.monotonic() > self.deadline:
            raise InvalidInputError(
                f"the jinja2 template ran longer than {self.limits.timeout} s "
                "(TemplateLimits.timeout; see set_template_limits); simplify its loops"
            )


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar(
    "ragline_jinja2_budget", default=None
)


def _spend() -> TemplateLimits:
    budget = _budget.get()
    if budget is None:  # compiled templates rendered outside render(): the limits still hold
        return get_template_limits()
    budget.spend()
    return budget.limits


def _bounded_iter(iterable: Iterable[Any]) -> Iterator[Any]:
    """Every loop of a template iterates through this, one budget step per item."""
    for item in iterable:
        _spend()
        yield item


def _too_long(what: str, size: int, limits: TemplateLimits) -> InvalidInputError:
    unit = "characters" if what == "a str" else "items"
    return InvalidInputError(
        f"the jinja2 template builds {what} of {size} {unit}, more than "
        f"{limits.max_output_chars} (TemplateLimits.max_output_chars; see "
        "set_template_limits)"
    )


def _times(left: Any, right: Any) -> Any:
    limits = _spend()
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (str, list, tuple)) and isinstance(count, int):
            size = len(sequence) * max(count, 0)
            if size > limits.max_output_chars:
                raise _too_long(f"a {type(sequence).__name__}", size, limits)
    return operator.mul(left, right)


def _plus(left: Any, right: Any) -> Any:
    limits = _spend()
    if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
        size = len(left) + len(right)
        if size > limits.max_output_chars:
            raise _too_long(f"a {type(left).__name__}", size, limits)
    return operator.add(left, right)


def _power(left: Any, right: Any) -> Any:
    _spend()
    if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
        digits = right * math.log10(abs(left))
        if digits > _MAX_POWER_DIGITS:
            raise InvalidInputError(
                f"the jinja2 template computes {left} ** {right}, a number of about "
                f"{int(digits)} digits (at most {_MAX_POWER_DIGITS})"
            )
    return operator.pow(left, right)


def _modulo(left: Any, right: Any) -> Any:
    _spend()
    if isinstance(left, str):
        check_printf_string(left)
    return operator.mod(left, right)


def _bounded_range(*args: int) -> range:
    limits = _spend()
    numbers = range(*args)
    if len(numbers) > limits.max_range:
        raise InvalidInputError(
            f"range{args} has {len(numbers)} items, more than {limits.max_range} "
            "(TemplateLimits.max_range; see set_template_limits)"
        )
    return numbers


def _checked_filter(check: Callable[..., None], original: Callable[..., Any]) -> Callable[..., Any]:
    """``original`` (a built-in filter) with ``check`` run on its arguments first."""
    passes_arg = hasattr(original, "jinja_pass_arg")  # the context or environment first

    def checked(*args: Any, **kwargs: Any) -> Any:
        _spend()
        check(*(args[1:] if passes_arg else args), **kwargs)
        return original(*args, **kwargs)

    if passes_arg:
        checked.jinja_pass_arg = original.jinja_pass_arg  # type: ignore[attr-defined]
    return checked


def _check_width(_value: Any, width: Any = 80, *_args: Any, **_kwargs: Any) -> None:
    limits = get_template_limits()
    if isinstance(width, int) and width > limits.max_format_width:
        raise InvalidInputError(
            f"the jinja2 template asks a filter for a width of {width}, more than "
            f"{limits.max_format_width} (TemplateLimits.max_format_width)"
        )


def _check_printf(value: Any, *_args: Any, **_kwargs: Any) -> None:
    if isinstance(value, str):
        check_printf_string(value)


def _check_replace(value: Any, old: Any = "", new: Any = "", count: Any = None) -> None:
    if not (isinstance(value, str) and isinstance(old, str) and isinstance(new, str)):
        return
    limits = get_template_limits()
    found = value.count(old) if old else len(value) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    size = len(value) + found * (len(new) - len(old))
    if size > limits.max_output_chars:
        raise _too_long("a str", size, limits)


def _concat(parts: list[Any]) -> str:
    """``a ~ b``: the joined text, refused when it would pass the output limit."""
    limits = _spend()
    texts = [str(part) for part in parts]
    size = sum(map(len, texts))
    if size > limits.max_output_chars:
        raise _too_long("a str", size, limits)
    return "".join(texts)


@lru_cache(maxsize=1)
def environment() -> Any:
    """The one bounded sandbox every jinja2 template compiles in."""
    sandbox = require("jinja2.sandbox", "jinja2", package="jinja2")

    class BoundedSandbox(sandbox.ImmutableSandboxedEnvironment):  # type: ignore[misc, name-defined]
        # The operators that can build huge values; each goes through call_binop.
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def __init__(self) -> None:
            super().__init__()
            self.globals["range"] = _bounded_range
            self.binop_table.update({"*": _times, "**": _power, "+": _plus, "%": _modulo})
            self.filters["_ragline_bounded"] = _bounded_iter
            self.filters["_ragline_concat"] = _concat
            for name in ("center", "indent"):
                self.filters[name] = _checked_filter(_check_width, self.filters[name])
            self.filters["format"] = _checked_filter(_check_printf, self.filters["format"])
            self.filters["replace"] = _checked_filter(_check_replace, self.filters["replace"])

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
            _spend()
            return super().call(__context, __obj, *args, **kwargs)

        def wrap_str_format(self, value: Any) -> Any:
            wrapper = super().wrap_str_format(value)
            if wrapper is None:
                return None
            text = value.__self__

            def checked(*args: Any, **kwargs: Any) -> Any:
                _spend()
                check_format_string(text)
                return wrapper(*args, **kwargs)

            return checked

    return BoundedSandbox()


def _bound_loops(tree: Any) -> Any:
    """Make every ``{% for %}`` of a parsed template iterate through the budget, and
    every ``~`` join through a length check (jinja2 offers no hook for either)."""
    nodes = require("jinja2.nodes", "jinja2", package="jinja2")
    visitor = require("jinja2.visitor", "jinja2", package="jinja2")

    class Bound(visitor.NodeTransformer):  # type: ignore[misc, name-defined]
        def visit_For(self, node: Any) -> Any:
            node = self.generic_visit(node)
            node.iter = nodes.Filter(node.iter, "_ragline_bounded", [], [], None, None)
            return node

        def visit_Concat(self, node: Any) -> Any:
            node = self.generic_visit(node)
            joined = nodes.List(node.nodes, lineno=node.lineno)
            return nodes.Filter(joined, "_ragline_concat", [], [], None, None, lineno=node.lineno)

    return Bound().visit(tree)


def compile_jinja2(template: str) -> tuple[list[str], Callable[[dict[str, Any]], str]]:
    """A template's variables (sorted) and a function rendering it within the limits.

    Raises:
        InvalidInputError: a template jinja2 cannot parse.
        MissingDependencyError: jinja2 is not installed.
    """
    jinja2 = require("jinja2", "jinja2")
    meta = require("jinja2.meta", "jinja2", package="jinja2")
    sandbox = environment()
    try:
        tree = sandbox.parse(template)
        nodes = jinja2.nodes
        loads = (nodes.Import, nodes.FromImport, nodes.Include, nodes.Extends)
        if next(tree.find_all(loads), None) is not None:
            raise InvalidInputError(
                f"the jinja2 template {template!r:.80} imports, includes or extends another "
                "template; a prompt's template cannot load others: put everything in one"
            )
        variables = sorted(meta.find_undeclared_variables(tree))
        compiled = sandbox.from_string(_bound_loops(tree))
    except jinja2.TemplateSyntaxError as err:
        raise InvalidInputError(
            f"invalid jinja2 template {template!r:.80}: {err} (line {err.lineno})"
        ) from err

    def render(values: dict[str, Any]) -> str:
        budget = _Budget(get_template_limits())
        token = _budget.set(budget)
        try:
            return _collect(compiled.generate(**values), budget)
        except InvalidInputError:
            raise
        except jinja2.exceptions.SecurityError as err:
            raise InvalidInputError(
                f"the jinja2 template tried something its sandbox forbids: {err}"
            ) from err
        except jinja2.TemplateError as err:
            raise InvalidInputError(f"cannot render the jinja2 template: {err}") from err
        except TypeError as err:
            if "no loader" in str(err):
                raise InvalidInputError(
                    "a prompt's jinja2 template cannot import, include or extend other "
                    "templates (there are none to load); put everything in one template"
                ) from None
            raise InvalidInputError(f"cannot render the jinja2 template: {err}") from err
        except RecursionError:
            raise InvalidInputError(
                "the jinja2 template recursed too deeply (a macro or loop that calls itself "
                "without end); make the recursion stop"
            ) from None
        except (OverflowError, MemoryError) as err:
            raise InvalidInputError(
                f"the jinja2 template builds a value too large to hold ({type(err).__name__}"
                f"{': ' + str(err) if str(err) else ''}); use smaller numbers in it"
            ) from None
        except (ValueError, ArithmeticError, LookupError, AttributeError) as err:
            raise InvalidInputError(f"cannot render the jinja2 template: {err!r}") from err
        finally:
            _budget.reset(token)

    return variables, render


def _collect(pieces: Iterator[str], budget: _Budget) -> str:
    """Join the output as it is produced, stopping once it is too long."""
    parts: list[str] = []
    size = 0
    limit = budget.limits.max_output_chars
    for piece in pieces:
        size += len(piece)
        if size > limit:
            raise InvalidInputError(
                f"the jinja2 template's output passed {limit} characters "
                "(TemplateLimits.max_output_chars; see set_template_limits); shorten it "
                "or raise the limit"
            )
        budget.spend()
        parts.append(piece)
    return "".join(parts)

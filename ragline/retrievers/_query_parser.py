"""The filter expressions a self-querying model writes, parsed into a filter tree.

The language (LangChain's, so prompts and models written for it work unchanged)::

    and(eq("genre", "drama"), gt("year", 2000))
    or(lt("rating", 8.5), in("director", ["Nolan", 'Villeneuve']))
    not(eq("watched", true))
    gte("released", "2020-01-31")        # a date:      {"date": "2020-01-31", "type": "date"}
    lt("seen", 2024-05-01T10:30:00Z)     # a datetime:  {"datetime": ..., "type": "datetime"}

A filter is one function call; a call's arguments are calls or values. Values are
integers, floats (``1.5``, ``2e3``), strings in double quotes (backslash escapes the
quote) or single quotes, dates and datetimes (quoted or not), ``true`` / ``false``
(also ``True`` / ``TRUE`` ...) and lists in brackets. Quote characters at both ends of a
string are taken off, escapes are kept as written. Whitespace between tokens is
ignored. ``and`` / ``or`` of one argument is that argument.

:class:`FilterParser` is a small recursive-descent parser (no grammar library); every
mistake raises ValueError naming what it found and where.
"""

from __future__ import annotations

import datetime
import re
import warnings
from collections.abc import Sequence
from typing import Any

from ragline.core.structured_query import (
    Comparator,
    Comparison,
    FilterDirective,
    Operation,
    Operator,
)

__all__ = ["FilterParser", "get_parser"]

_WHITESPACE = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Dates and datetimes are read before strings and numbers, quoted or not.
_DATETIME = re.compile(r"[\"']?(\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d[Zz]?)[\"']?")
_DATE = re.compile(r"[\"']?(\d{4}-[01]\d-[0-3]\d)[\"']?")
_FLOAT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?[eE][+-]?\d+|\d+\.\d*|\.\d+(?:[eE][+-]?\d+)?)")
_INT = re.compile(r"[+-]?\d+")
_DOUBLE_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SINGLE_QUOTED = re.compile(r"'[^']*'")
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_FUNCTIONS = {item.value: item for item in (*Operator, *Comparator)}


class FilterParser:
    """Parses one filter expression into a :class:`Comparison` / :class:`Operation`.

    Args:
        allowed_comparators: the comparators a filter may use (None: all).
        allowed_operators: the logical operators a filter may use (None: all).
        allowed_attributes: the attributes a comparison may name (None or empty: any).

    Example:
        >>> FilterParser().parse('eq("genre", "drama")')
        Comparison(comparator=<Comparator.EQ: 'eq'>, attribute='genre', value='drama')
    """

    def __init__(
        self,
        allowed_comparators: Sequence[Comparator] | None = None,
        allowed_operators: Sequence[Operator] | None = None,
        allowed_attributes: Sequence[str] | None = None,
    ) -> None:
        self.allowed_comparators = allowed_comparators
        self.allowed_operators = allowed_operators
        self.allowed_attributes = allowed_attributes

    def parse(self, text: str) -> FilterDirective:
        """Parse ``text``, which must be exactly one function call.

        Raises:
            ValueError: a syntax error, an unknown or disallowed function, or an
                attribute not allowed; the message says what and where.
        """
        if not isinstance(text, str):
            raise ValueError(f"a filter expression is a str, got {type(text).__name__}")
        reader = _Reader(text)
        reader.skip_space()
        result = self._call(reader)
        reader.skip_space()
        if not reader.at_end():
            raise reader.error("nothing more after the filter's closing ')'")
        return result

    def _call(self, reader: _Reader) -> FilterDirective:
        start = reader.position
        name = reader.match(_NAME)
        if name is None or name in _TRUE or name in _FALSE:
            raise reader.error('a function call such as eq("attribute", value)', start)
        reader.skip_space()
        if not reader.take("("):
            raise reader.error(f"'(' after the function name {name!r}")
        args = self._items(reader, ")")
        return self._build(name, args)

    def _items(self, reader: _Reader, closing: str) -> list[Any]:
        items: list[Any] = []
        reader.skip_space()
        if reader.take(closing):
            return items
        while True:
            items.append(self._expression(reader))
            reader.skip_space()
            if reader.take(closing):
                return items
            if not reader.take(","):
                raise reader.error(f"',' or {closing!r}")
            reader.skip_space()

    def _expression(self, reader: _Reader) -> Any:
        for pattern, convert in ((_DATETIME, _datetime), (_DATE, _date)):
            found = reader.match(pattern, group=1)
            if found is not None:
                return convert(found)
        if reader.peek() == "[":
            reader.take("[")
            return self._items(reader, "]")
        for pattern in (_DOUBLE_QUOTED, _SINGLE_QUOTED):
            token = reader.match(pattern)
            if token is not None:
                return token.strip("\"'")
        token = reader.match(_FLOAT)
        if token is not None:
            return float(token)
        token = reader.match(_INT)
        if token is not None:
            return int(token)
        start = reader.position
        name = reader.match(_NAME)
        if name in _TRUE:
            return True
        if name in _FALSE:
            return False
        reader.position = start
        if name is not None:
            return self._call(reader)
        raise reader.error("a value (number, string, date, true/false, list) or a function call")

    def _build(self, name: str, args: list[Any]) -> FilterDirective:
        function = self._function(name)
        if isinstance(function, Comparator):
            if len(args) != 2:
                raise ValueError(
                    f"{name}() takes 2 arguments (an attribute and a value), got {len(args)}"
                )
            attribute, value = args
            if not isinstance(attribute, str):
                raise ValueError(
                    f"{name}()'s first argument is an attribute name, got {attribute!r}"
                )
            if self.allowed_attributes and attribute not in self.allowed_attributes:
                raise ValueError(
                    f"{name}() names the attribute {attribute!r}, which is not one of "
                    f"{', '.join(map(repr, self.allowed_attributes))}"
                )
            return Comparison(comparator=function, attribute=attribute, value=value)
        if not args:
            raise ValueError(f"{name}() needs at least one filter argument")
        for arg in args:
            if not isinstance(arg, (Comparison, Operation)):
                raise ValueError(f"{name}() joins filters (function calls), got {arg!r}")
        if len(args) == 1 and function in (Operator.AND, Operator.OR):
            return args[0]  # type: ignore[no-any-return]
        return Operation(operator=function, arguments=args)

    def _function(self, name: str) -> Operator | Comparator:
        function = _FUNCTIONS.get(name)
        if function is None:
            raise ValueError(
                f"unknown function {name!r}; the filter functions are {', '.join(_FUNCTIONS)}"
            )
        allowed: Sequence[Any] | None = (
            self.allowed_operators if isinstance(function, Operator) else self.allowed_comparators
        )
        if allowed is not None and function not in allowed:
            kind = "operator" if isinstance(function, Operator) else "comparator"
            raise ValueError(
                f"the {kind} {name!r} is not allowed here; allowed: "
                f"{', '.join(str(item) for item in allowed)}"
            )
        return function


def get_parser(
    allowed_comparators: Sequence[Comparator] | None = None,
    allowed_operators: Sequence[Operator] | None = None,
    allowed_attributes: Sequence[str] | None = None,
) -> FilterParser:
    """A :class:`FilterParser` (LangChain's ``get_parser``; its ``.parse(text)`` gives
    the filter tree)."""
    return FilterParser(allowed_comparators, allowed_operators, allowed_attributes)


def _date(text: str) -> dict[str, str]:
    try:
        datetime.datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        warnings.warn(
            f"the date {text!r} is not a calendar date in ISO 8601 form (YYYY-MM-DD)",
            stacklevel=4,
        )
    return {"date": text, "type": "date"}


def _datetime(text: str) -> dict[str, str]:
    for form in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S"):
        try:
            datetime.datetime.strptime(text, form)
        except ValueError:
            continue
        return {"datetime": text, "type": "datetime"}
    raise ValueError(f"the datetime {text!r} is not in ISO 8601 form (YYYY-MM-DDTHH:MM:SS)")


class _Reader:
    """The text and a position in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def skip_space(self) -> None:
        self.position = _WHITESPACE.match(self.text, self.position).end()  # type: ignore[union-attr]

    def at_end(self) -> bool:
        return self.position >= len(self.text)

    def peek(self) -> str:
        return self.text[self.position : self.position + 1]

    def take(self, char: str) -> bool:
        if self.text.startswith(char, self.position):
            self.position += len(char)
            return True
        return False

    def match(self, pattern: re.Pattern[str], group: int = 0) -> str | None:
        """The matched text (or one group of it) at the position, moving past the
        match; None when the pattern does not match there."""
        found = pattern.match(self.text, self.position)
        if found is None:
            return None
        self.position = found.end()
        return found.group(group)

    def error(self, expected: str, position: int | None = None) -> ValueError:
        at = self.position if position is None else position
        found = self.text[at : at + 20]
        shown = repr(found) if found else "the end of the text"
        return ValueError(
            f"bad filter expression at character {at}: expected {expected}, found {shown}"
        )

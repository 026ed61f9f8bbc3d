"""LangChain's Redis filter expressions, written in ragline's filter language.

``RedisTag("color") == "red"``, ``RedisNum("year") > 2020``, ``RedisText("job") ==
"engineer"`` and their ``&`` / ``|`` combinations are what LangChain programs pass as
``filter=`` to its Redis store. Here each expression *is* a filter dict of
:mod:`ragline.vectorstores.filters` (a read-only Mapping: ``{"color": {"$eq": "red"}}``,
``{"$and": [...]}``), so it works on every ragline store, and prints as LangChain's
RediSearch query text (``str(RedisTag("color") == "red")`` is ``"@color:{red}"``; tag
values with spaces or punctuation print escaped as LangChain escapes them). ragline's Redis
store does not run that text: it sends each value as a query parameter.

What the filter language cannot say raises FilterError when the expression is built:
``RedisText(...) % "pattern"`` (wildcard and fuzzy matching).

An empty value means "no condition", as in LangChain, so optional filters can be built
(``RedisTag("color") == user_choice`` with ``user_choice = None``): ``None`` for every
field and operator, ``""`` for tags and text, and for tags an empty list / tuple / set or
one whose items are all ``None`` or ``""`` (such items are dropped from a list). No
condition prints as ``*`` and drops out of ``&`` and ``|``, leaving the other side.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ragline.core import FilterError

__all__ = ["RedisFilter", "RedisFilterExpression", "RedisNum", "RedisTag", "RedisText"]


class RedisFilterExpression(Mapping[str, Any]):
    """A filter: a ragline filter dict that prints as LangChain's RediSearch query.

    Combine with ``&`` (both) and ``|`` (either). Built by the field classes, not by hand.
    """

    def __init__(self, condition: Mapping[str, Any], query: str) -> None:
        self._condition = dict(condition)
        self._query = query

    # the filter dict: what ragline's stores read
    def __getitem__(self, key: str) -> Any:
        return self._condition[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._condition)

    def __len__(self) -> int:
        return len(self._condition)

    def __str__(self) -> str:
        return self._query

    def __repr__(self) -> str:
        return f"RedisFilterExpression({self._query!r})"

    def __and__(self, other: RedisFilterExpression) -> RedisFilterExpression:
        return _combine(self, other, "$and", " ")

    def __or__(self, other: RedisFilterExpression) -> RedisFilterExpression:
        return _combine(self, other, "$or", " | ")


_EVERYTHING = RedisFilterExpression({}, "*")


def _is_empty(value: Any) -> bool:
    """Whether a compared value means no condition: None or the empty string."""
    return value is None or (isinstance(value, str) and not value)


def _combine(
    left: RedisFilterExpression, right: Any, operator: str, joiner: str
) -> RedisFilterExpression:
    if not isinstance(right, RedisFilterExpression):
        raise FilterError(
            f"a Redis filter combines with another (RedisTag / RedisNum / RedisText ...), "
            f"got {type(right).__name__}"
        )
    if not left:  # "no condition" drops out, as in LangChain
        return right
    if not right:
        return left
    return RedisFilterExpression({operator: [dict(left), dict(right)]}, f"({left}{joiner}{right})")


class _Field:
    """A metadata field, compared with Python operators to make an expression."""

    _kind = "field"

    def __init__(self, field: str) -> None:
        if not isinstance(field, str) or not field:
            raise FilterError(f"a Redis filter field needs a non-empty name, got {field!r}")
        self._field = field

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._field!r})"

    def _make(self, operator: str, value: Any, query: str) -> RedisFilterExpression:
        return RedisFilterExpression({self._field: {operator: value}}, query)

    def _refuse(self, operator: str) -> FilterError:
        return FilterError(f"{type(self).__name__} does not support {operator}")

    __hash__ = None  # type: ignore[assignment]  # == makes an expression, not a bool


# The characters LangChain's query text escapes (with a backslash) in a tag value: RediSearch
# punctuation and the space. Only the printed text uses this; ragline's Redis store sends
# each tag value as a query parameter, so no value can change the query.
_TAG_PUNCTUATION = ",.<>{}[]\"':;!@#$%^&*()-+=~/\\ "
_ESCAPE_TAG = str.maketrans({char: "\\" + char for char in _TAG_PUNCTUATION})


def _tag_text(values: list[str]) -> str:
    return "|".join(value.translate(_ESCAPE_TAG) for value in values)


class RedisTag(_Field):
    """A tag field: ``== "x"`` / ``== ["x", "y"]`` (any of) and ``!=``.

    Example:
        >>> dict(RedisTag("color") == ["red", "blue"])
        {'color': {'$in': ['red', 'blue']}}
    """

    def _values(self, value: Any) -> list[str] | None:
        """The tags compared with, empty ones dropped; None when none is left."""
        if _is_empty(value):
            return None
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (Sequence, set)):
            raise self._not_tags(value)
        values = [item for item in items if not _is_empty(item)]
        if not all(isinstance(item, str) for item in values):
            raise self._not_tags(value)
        return values or None

    def _not_tags(self, value: Any) -> FilterError:
        return FilterError(
            f"RedisTag({self._field!r}) compares with a str or a list of str, got {value!r}"
        )

    def __eq__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        values = self._values(value)
        if values is None:
            return _EVERYTHING
        query = f"@{self._field}:{{{_tag_text(values)}}}"
        if len(values) == 1:
            return self._make("$eq", values[0], query)
        return self._make("$in", values, query)

    def __ne__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        values = self._values(value)
        if values is None:
            return _EVERYTHING
        query = f"(-@{self._field}:{{{_tag_text(values)}}})"
        if len(values) == 1:
            return self._make("$ne", values[0], query)
        return self._make("$nin", values, query)


def _number_text(value: float) -> str:
    return str(value)


class RedisNum(_Field):
    """A numeric field: ``==``, ``!=``, ``>``, ``>=``, ``<``, ``<=``.

    Example:
        >>> dict((RedisNum("year") >= 2020) & (RedisNum("year") < 2024))
        {'$and': [{'year': {'$gte': 2020}}, {'year': {'$lt': 2024}}]}
    """

    def _checked(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise FilterError(f"RedisNum({self._field!r}) compares with a number, got {value!r}")
        return value

    def _compare(self, operator: str, value: Any, query: str) -> RedisFilterExpression:
        if value is None:
            return _EVERYTHING
        return self._make(operator, self._checked(value), query.format(n=_number_text(value)))

    def __eq__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        return self._compare("$eq", value, f"@{self._field}:[{{n}} {{n}}]")

    def __ne__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        return self._compare("$ne", value, f"(-@{self._field}:[{{n}} {{n}}])")

    def __gt__(self, value: Any) -> RedisFilterExpression:
        return self._compare("$gt", value, f"@{self._field}:[({{n}} +inf]")

    def __ge__(self, value: Any) -> RedisFilterExpression:
        return self._compare("$gte", value, f"@{self._field}:[{{n}} +inf]")

    def __lt__(self, value: Any) -> RedisFilterExpression:
        return self._compare("$lt", value, f"@{self._field}:[-inf ({{n}}]")

    def __le__(self, value: Any) -> RedisFilterExpression:
        return self._compare("$lte", value, f"@{self._field}:[-inf {{n}}]")


class RedisText(_Field):
    """A full-text field: ``== "words"`` (the phrase) and ``!=``. ``%`` (wildcard /
    fuzzy matching) is not in ragline's filter language and raises FilterError, but for
    an empty pattern (no condition).

    Example:
        >>> str(RedisText("job") == "engineer")
        '@job:("engineer")'
    """

    def _checked(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise FilterError(f"RedisText({self._field!r}) compares with a str, got {value!r}")
        return value

    def __eq__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        if _is_empty(value):
            return _EVERYTHING
        return self._make("$eq", self._checked(value), f'@{self._field}:("{value}")')

    def __ne__(self, value: Any) -> RedisFilterExpression:  # type: ignore[override]
        if _is_empty(value):
            return _EVERYTHING
        return self._make("$ne", self._checked(value), f'(-@{self._field}:"{value}")')

    def __mod__(self, pattern: Any) -> RedisFilterExpression:
        if _is_empty(pattern):
            return _EVERYTHING
        raise FilterError(
            f"RedisText({self._field!r}) % {pattern!r}: wildcard and fuzzy text matching is "
            "not in ragline's filter language; match the words with == or filter on a tag"
        )


class RedisFilter:
    """LangChain's shortcuts: ``RedisFilter.tag("f")``, ``.num("f")``, ``.text("f")``."""

    @staticmethod
    def tag(field: str) -> RedisTag:
        return RedisTag(field)

    @staticmethod
    def num(field: str) -> RedisNum:
        return RedisNum(field)

    @staticmethod
    def text(field: str) -> RedisText:
        return RedisText(field)

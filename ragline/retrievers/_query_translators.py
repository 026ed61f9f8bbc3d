"""Structured queries to a ragline store's filters.

:class:`FilterTranslator` writes a filter tree in ragline's one filter language
(:mod:`ragline.vectorstores.filters`), which ``InMemoryVectorStore``, ``FAISS`` and every
ragline store read: ``and(eq("genre", "drama"), gt("year", 2000))`` becomes
``{"$and": [{"genre": {"$eq": "drama"}}, {"year": {"$gt": 2000}}]}``.

:class:`RedisTranslator` is LangChain's translator for its Redis store: each attribute
is compared as the kind of field the index declares (tag, numeric or text) and the
result is a ``RedisFilterExpression`` (which prints as the RediSearch query).

A comparator or operator the target cannot express raises ValueError naming it (the
self-querying retriever tells the model only the allowed ones).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ragline.core.structured_query import (
    Comparator,
    Comparison,
    Operation,
    Operator,
    StructuredQuery,
    Visitor,
)
from ragline.vectorstores.filters import COMPARISON_OPERATORS, LOGICAL_OPERATORS

__all__ = ["FilterTranslator", "RedisTranslator", "builtin_translator"]

_RANGES = (Comparator.GT, Comparator.GTE, Comparator.LT, Comparator.LTE)


def _iso_text(value: Any) -> Any:
    """A date or datetime the parser read ({"date": "2024-01-31", "type": "date"}) as
    its ISO text; any other value as it is."""
    if isinstance(value, dict) and value.get("type") in ("date", "datetime"):
        return value.get(value["type"])
    return value


def _plain_value(comparison: Comparison) -> Any:
    """The comparison's value with its dates and datetimes (a list's too) as ISO text;
    the filter language compares them for equality only."""
    value = comparison.value
    if isinstance(value, list):
        return [_iso_text(item) for item in value]
    text = _iso_text(value)
    if text is not value and comparison.comparator in _RANGES:
        raise ValueError(
            f"{comparison.comparator}({comparison.attribute!r}, {text!r}): ragline's "
            "filter language orders numbers only; store the date as a number (such "
            "as 20240131 or a timestamp) to compare it, or use eq / ne / in"
        )
    return text


class _FilterArgument(Visitor):
    """A translator whose filter goes to the store's search as ``filter=``."""

    def visit_structured_query(
        self, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        if structured_query.filter is None:
            return structured_query.query, {}
        return structured_query.query, {"filter": structured_query.filter.accept(self)}


class FilterTranslator(_FilterArgument):
    """A structured query as ``(query, {"filter": filter dict})`` in ragline's filter
    language (no filter: ``(query, {})``).

    Example:
        >>> year = Comparison(comparator="gt", attribute="year", value=2000)
        >>> FilterTranslator().visit_comparison(year)
        {'year': {'$gt': 2000}}
    """

    # what the filter language has: eq is $eq, and is $and ... The filter language also
    # has $not (LangChain's FAISS filters take it), but a query constructor is offered
    # and / or only, as LangChain's translators for such stores offer them: the model's
    # prompt and the replies refused stay LangChain's
    allowed_comparators = tuple(c for c in Comparator if f"${c.value}" in COMPARISON_OPERATORS)
    allowed_operators = tuple(
        o for o in Operator if f"${o.value}" in LOGICAL_OPERATORS and o is not Operator.NOT
    )

    def visit_operation(self, operation: Operation) -> dict[str, Any]:
        self._validate_func(operation.operator)
        return {f"${operation.operator.value}": [arg.accept(self) for arg in operation.arguments]}

    def visit_comparison(self, comparison: Comparison) -> dict[str, Any]:
        self._validate_func(comparison.comparator)
        value = _plain_value(comparison)
        if comparison.comparator in (Comparator.IN, Comparator.NIN) and not isinstance(
            value, (list, tuple)
        ):
            value = [value]
        return {comparison.attribute: {f"${comparison.comparator.value}": value}}


_REDIS_METHODS = {
    Comparator.EQ: "__eq__",
    Comparator.NE: "__ne__",
    Comparator.LT: "__lt__",
    Comparator.GT: "__gt__",
    Comparator.LTE: "__le__",
    Comparator.GTE: "__ge__",
    Comparator.CONTAIN: "__eq__",
}
_REDIS_KINDS = {
    "tag": ("__eq__", "__ne__"),
    "text": ("__eq__", "__ne__"),
    "numeric": ("__eq__", "__ne__", "__lt__", "__gt__", "__le__", "__ge__"),
}


class RedisTranslator(_FilterArgument):
    """A structured query as a ``RedisFilterExpression`` for a Redis store's index.

    Args:
        schema: the indexed fields, ``{name: "tag" | "numeric" | "text"}`` (a Redis
            store's ``index_schema``), or a function returning them when asked (what
            :meth:`from_vectorstore` gives: fields inferred later are seen too).

    Comparators: eq, ne, lt, lte, gt, gte and contain (eq) as LangChain's translator;
    ``like`` (wildcard text matching) is not in ragline's filter language and is not
    offered. A numeric comparison on a tag or text field raises ValueError.
    """

    allowed_comparators = (
        Comparator.EQ,
        Comparator.NE,
        Comparator.LT,
        Comparator.LTE,
        Comparator.GT,
        Comparator.GTE,
        Comparator.CONTAIN,
    )
    allowed_operators = (Operator.AND, Operator.OR)

    def __init__(self, schema: Mapping[str, str] | Callable[[], Mapping[str, str]]) -> None:
        self._schema = schema

    @classmethod
    def from_vectorstore(cls, vectorstore: Any) -> RedisTranslator:
        """The translator of a ragline ``Redis`` store (its current ``index_schema``)."""
        return cls(lambda: vectorstore.index_schema)

    def _fields(self) -> Mapping[str, str]:
        return self._schema() if callable(self._schema) else self._schema

    def visit_comparison(self, comparison: Comparison) -> Any:
        from ragline.vectorstores import RedisNum, RedisTag, RedisText

        self._validate_func(comparison.comparator)
        fields = self._fields()
        kind = fields.get(comparison.attribute)
        if kind is None:
            raise ValueError(
                f"the attribute {comparison.attribute!r} is not an indexed field of the "
                f"Redis store; its fields are {dict(fields)!r}"
            )
        method = _REDIS_METHODS[comparison.comparator]
        if method not in _REDIS_KINDS[kind]:
            raise ValueError(
                f"{comparison.comparator}({comparison.attribute!r}, ...): the {kind} field "
                f"{comparison.attribute!r} compares with eq / ne only"
            )
        field = {"tag": RedisTag, "numeric": RedisNum, "text": RedisText}[kind](
            comparison.attribute
        )
        return getattr(field, method)(_plain_value(comparison))

    def visit_operation(self, operation: Operation) -> Any:
        self._validate_func(operation.operator)
        parts = [arg.accept(self) for arg in operation.arguments]
        # joined from the right, a & (b & c), so the query text is LangChain's
        combined = parts[-1]
        for part in reversed(parts[:-1]):
            combined = part | combined if operation.operator == Operator.OR else part & combined
        return combined


def builtin_translator(vectorstore: Any) -> Visitor:
    """The translator for a ragline store: :class:`RedisTranslator` for ``Redis``,
    :class:`FilterTranslator` for the others (every ragline store reads the filter
    language).

    Raises:
        ValueError: a store written LangChain's way (its own filters), or not a ragline
            store: pass ``structured_query_translator=``.
    """
    from ragline.vectorstores import Redis, VectorStore

    if isinstance(vectorstore, Redis):
        return RedisTranslator.from_vectorstore(vectorstore)
    if isinstance(vectorstore, VectorStore) and not getattr(vectorstore, "_langchain_style", False):
        return FilterTranslator()
    raise ValueError(
        f"SelfQueryRetriever has no built-in translator for {type(vectorstore).__name__} "
        "(it reads ragline's filter language only from ragline's own stores); pass "
        "structured_query_translator= (a Visitor)"
    )

"""Structured queries: a search text plus a metadata filter tree (LangChain's
``langchain_core.structured_query`` names).

A :class:`StructuredQuery` is what a self-querying retriever gets back from its model:
the text to search for, an optional filter (:class:`Comparison` leaves joined by
:class:`Operation` nodes) and an optional result count. A :class:`Visitor` turns that
tree into a store's own filter; each node's :meth:`Expr.accept` calls the visitor's
``visit_<node>`` method (``visit_comparison``, ``visit_operation``,
``visit_structured_query``).

Example:
    >>> query = StructuredQuery(
    ...     query="space",
    ...     filter=Operation(
    ...         operator=Operator.AND,
    ...         arguments=[
    ...             Comparison(comparator=Comparator.EQ, attribute="genre", value="sci-fi"),
    ...             Comparison(comparator=Comparator.GT, attribute="year", value=2000),
    ...         ],
    ...     ),
    ... )
    >>> query.filter.arguments[1]
    Comparison(comparator=<Comparator.GT: 'gt'>, attribute='year', value=2000)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

__all__ = [
    "Comparator",
    "Comparison",
    "Expr",
    "FilterDirective",
    "Operation",
    "Operator",
    "StructuredQuery",
    "Visitor",
]


class Operator(str, Enum):
    """A logical operator joining filters."""

    AND = "and"
    OR = "or"
    NOT = "not"

    def __str__(self) -> str:
        return self.value


class Comparator(str, Enum):
    """A comparison of a metadata attribute with a value."""

    EQ = "eq"
    NE = "ne"
    GT = "gt"
    GTE = "gte"
    LT = "lt"
    LTE = "lte"
    CONTAIN = "contain"
    LIKE = "like"
    IN = "in"
    NIN = "nin"

    def __str__(self) -> str:
        return self.value


class Visitor(ABC):
    """Turns a structured query into something a store understands.

    Subclasses write ``visit_comparison``, ``visit_operation`` and
    ``visit_structured_query``; ``allowed_comparators`` / ``allowed_operators`` (None:
    all) say what the target can express, and ``_validate_func`` raises on the rest.
    """

    allowed_comparators: Sequence[Comparator] | None = None
    allowed_operators: Sequence[Operator] | None = None

    def _validate_func(self, func: Operator | Comparator) -> None:
        """Raise ValueError when ``func`` is not among the allowed ones."""
        if isinstance(func, Operator):
            allowed: Sequence[Any] | None = self.allowed_operators
            kind = "operator"
        else:
            allowed = self.allowed_comparators
            kind = "comparator"
        if allowed is not None and func not in allowed:
            names = ", ".join(str(item) for item in allowed)
            raise ValueError(
                f"{type(self).__name__} cannot translate the {kind} {func}: it takes {names}"
            )

    @abstractmethod
    def visit_operation(self, operation: Operation) -> Any:
        """Translate an :class:`Operation`."""

    @abstractmethod
    def visit_comparison(self, comparison: Comparison) -> Any:
        """Translate a :class:`Comparison`."""

    @abstractmethod
    def visit_structured_query(self, structured_query: StructuredQuery) -> Any:
        """Translate a :class:`StructuredQuery`."""


def _snake_case(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


class Expr:
    """Base of every node: :meth:`accept` hands the node to a visitor."""

    def accept(self, visitor: Visitor) -> Any:
        """Call ``visitor.visit_<node kind>(self)`` (``visit_comparison`` ...)."""
        return getattr(visitor, f"visit_{_snake_case(type(self).__name__)}")(self)

    def __str__(self) -> str:
        """The fields as pydantic prints a model: ``query='x' filter=None limit=None``."""
        return " ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))  # type: ignore[arg-type]


class FilterDirective(Expr):
    """A filter: a :class:`Comparison` or an :class:`Operation`."""


@dataclass
class Comparison(FilterDirective):
    """``attribute <comparator> value``: a comparator's name is taken for the member."""

    comparator: Comparator
    attribute: str
    value: Any

    def __post_init__(self) -> None:
        self.comparator = Comparator(self.comparator)


@dataclass
class Operation(FilterDirective):
    """``operator(arguments...)``: filters joined by a logical operator."""

    operator: Operator
    arguments: list[FilterDirective]

    def __post_init__(self) -> None:
        self.operator = Operator(self.operator)
        self.arguments = list(self.arguments)


@dataclass
class StructuredQuery(Expr):
    """The search text, an optional filter and an optional number of results."""

    query: str
    filter: FilterDirective | None = None
    limit: int | None = field(default=None)

"""The metadata filter language shared by every vector store.

One language for all backends (the forms users write)::

    {"source": "a.txt"}                                   # equality
    {"page": {"$gte": 2, "$lt": 10}}                      # operators (several = AND)
    {"lang": {"$in": ["en", "fr"]}}                       # membership
    {"$or": [{"lang": "en"}, {"page": {"$gt": 100}}]}     # logic, nests freely
    {"source": "a.txt", "page": 3}                        # several keys = AND

LangChain's FAISS forms are read too: ``$neq`` is ``$ne``, a list value
(``{"lang": ["en", "fr"]}``) is ``$in``, and ``{"$not": {...}}`` matches the documents
its filter does not (:class:`Not`).

Operators: ``$eq $ne $gt $gte $lt $lte $in $nin $and $or``. :func:`parse_filter` checks a
filter once and turns it into a small tree (:class:`Comparison`, :class:`And`, :class:`Or`)
that backends translate (FAISS into an id selector, Redis into its query syntax);
:func:`matches` is the ONE reference evaluator (the in-memory store uses it, and every
backend must agree with it). An unknown operator or a bad operand raises
:class:`~ragline.core.FilterError`; nothing is ever silently ignored.

Semantics (the reference every backend follows):

- Values are scalars: ``str``, ``int``, ``float`` or ``bool``. ``bool`` is its own kind:
  ``True`` never equals ``1``. Ints and floats compare as numbers (``1 == 1.0``).
- Range operators (``$gt $gte $lt $lte``) take a number and match only numeric metadata.
- ``$in`` / ``$nin`` take a non-empty list of scalars.
- A document whose metadata lacks the field matches ``$ne`` and ``$nin`` (it is not equal
  to the value) and fails every other operator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ragline.core.exceptions import FilterError

__all__ = [
    "COMPARISON_OPERATORS",
    "LOGICAL_OPERATORS",
    "And",
    "Comparison",
    "FilterNode",
    "Not",
    "Or",
    "Predicate",
    "matches",
    "parse_filter",
]

Scalar = str | int | float | bool

COMPARISON_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin")
LOGICAL_OPERATORS = ("$and", "$or", "$not")
_RANGE_OPERATORS = ("$gt", "$gte", "$lt", "$lte")
_LIST_OPERATORS = ("$in", "$nin")
# another spelling LangChain's FAISS takes, read as the operator it means
_OPERATOR_SPELLINGS = {"$neq": "$ne"}


@dataclass(frozen=True)
class Comparison:
    """``metadata[field] <operator> value``; ``value`` is a tuple for ``$in`` / ``$nin``."""

    field: str
    operator: str
    value: Any


@dataclass(frozen=True)
class And:
    """True when every operand is true."""

    operands: tuple[FilterNode, ...]


@dataclass(frozen=True)
class Or:
    """True when at least one operand is true."""

    operands: tuple[FilterNode, ...]


@dataclass(frozen=True)
class Not:
    """True when the operand is false (a document without the field included)."""

    operand: FilterNode


@dataclass(frozen=True)
class Predicate:
    """A filter given as a function (LangChain's callable ``filter``), not in the filter
    language: only the stores that can call Python per document take it
    (``InMemoryVectorStore`` calls it with the Document, ``FAISS`` with the metadata,
    as LangChain's do); the others raise FilterError."""

    function: Callable[[Any], Any]


FilterNode = Comparison | And | Or | Not | Predicate


def parse_filter(filter: Mapping[str, Any] | FilterNode | None) -> FilterNode | None:
    """Check a filter written in the filter language and return its tree.

    Args:
        filter: a filter dict (see the module docstring), an already parsed tree, or
            ``None``. An empty dict means "no filter".

    Returns:
        The parsed tree, or ``None`` when there is nothing to filter on.

    Raises:
        FilterError: an unknown operator, a bad operand or a malformed filter; the message
            names the offending part and the valid operators.

    Example:
        >>> parse_filter({"page": {"$gt": 2}})
        Comparison(field='page', operator='$gt', value=2)
    """
    if filter is None or isinstance(filter, (Comparison, And, Or, Not, Predicate)):
        return filter
    if callable(filter) and not isinstance(filter, Mapping):
        return Predicate(filter)
    if not isinstance(filter, Mapping):
        raise FilterError(f"a filter must be a dict, got {type(filter).__name__}: {filter!r}")
    if not filter:
        return None
    key = _flat_key(filter)
    if key is None:
        return _parse_mapping(filter)
    node = _FLAT_FILTERS.get(key)
    if node is None:
        node = _parse_mapping(filter)
        if len(_FLAT_FILTERS) >= _FLAT_FILTERS_SIZE:
            _FLAT_FILTERS.clear()
        _FLAT_FILTERS[key] = node
    return node


# Trees of flat equality filters ({"source": "a.txt", "page": 3}), the common kind,
# parsed once: parsing costs microseconds on every filtered query, and a tree is
# immutable, so it can be shared. The key holds each value's type, since True and 1
# are the same dict key but not the same filter.
_FLAT_FILTERS: dict[tuple[Any, ...], FilterNode] = {}
_FLAT_FILTERS_SIZE = 256
_SCALAR_TYPES = frozenset({str, int, float, bool})


def _flat_key(filter: Mapping[str, Any]) -> tuple[Any, ...] | None:
    key: list[Any] = []
    for name, value in filter.items():
        kind = type(value)
        if kind not in _SCALAR_TYPES:
            return None
        key += (name, kind, value)
    return tuple(key)


# Deeper filters are refused: every backend walks the tree recursively.
MAX_DEPTH = 100


def _parse_mapping(filter: Mapping[str, Any], depth: int = 0) -> FilterNode:
    if depth > MAX_DEPTH:
        raise FilterError(
            f"the filter is nested more than {MAX_DEPTH} levels deep ($and / $or); "
            "flatten it (an $or of many operands, or $in, says the same)"
        )
    if not filter:
        raise FilterError("an empty dict is not a valid filter inside $and / $or")
    nodes: list[FilterNode] = []
    for key, value in filter.items():
        if not isinstance(key, str):
            raise FilterError(f"filter keys must be strings, got {key!r}")
        if key in LOGICAL_OPERATORS:
            nodes.append(_parse_logical(key, value, depth))
        elif key.startswith("$"):
            raise FilterError(
                f"unknown filter operator {key!r} at the top level; valid logical "
                f"operators are {', '.join(LOGICAL_OPERATORS)} (field names may not start with '$')"
            )
        else:
            nodes.extend(_parse_field(key, value))
    return nodes[0] if len(nodes) == 1 else And(tuple(nodes))


def _parse_logical(operator: str, operands: Any, depth: int) -> FilterNode:
    if operator == "$not":
        if not isinstance(operands, Mapping):
            raise FilterError(f"$not takes one filter (a dict), got {operands!r}")
        return Not(_parse_mapping(operands, depth + 1))
    if not isinstance(operands, (list, tuple)) or not operands:
        raise FilterError(f"{operator} takes a non-empty list of filters, got {operands!r}")
    parsed = []
    for operand in operands:
        if not isinstance(operand, Mapping):
            raise FilterError(f"every operand of {operator} must be a dict, got {operand!r}")
        parsed.append(_parse_mapping(operand, depth + 1))
    return And(tuple(parsed)) if operator == "$and" else Or(tuple(parsed))


def _parse_field(field: str, condition: Any) -> list[FilterNode]:
    if not field:
        raise FilterError("a filter field name must not be empty")
    if isinstance(condition, list):  # LangChain's FAISS: any of these values
        return [_comparison(field, "$in", condition)]
    if not isinstance(condition, Mapping):
        return [_comparison(field, "$eq", condition)]
    if not condition:
        raise FilterError(f"the condition on field {field!r} is an empty dict; give an operator")
    return [_comparison(field, operator, value) for operator, value in condition.items()]


def _comparison(field: str, operator: Any, value: Any) -> Comparison:
    operator = _OPERATOR_SPELLINGS.get(operator, operator)
    if operator not in COMPARISON_OPERATORS:
        raise FilterError(
            f"unknown filter operator {operator!r} on field {field!r}; valid operators are "
            f"{', '.join(COMPARISON_OPERATORS)}"
        )
    if operator in _LIST_OPERATORS:
        if not isinstance(value, (list, tuple, set, frozenset)) or not value:
            raise FilterError(
                f"{operator} on field {field!r} takes a non-empty list of values, got {value!r}"
            )
        for item in value:
            _check_scalar(field, operator, item)
        return Comparison(field, operator, tuple(value))
    if operator in _RANGE_OPERATORS:
        if not _is_number(value):
            raise FilterError(
                f"{operator} on field {field!r} takes a number (int or float), got {value!r}"
            )
        return Comparison(field, operator, value)
    _check_scalar(field, operator, value)
    return Comparison(field, operator, value)


def _check_scalar(field: str, operator: str, value: Any) -> None:
    if not isinstance(value, (str, int, float)):  # bool is an int subclass: allowed
        raise FilterError(
            f"{operator} on field {field!r} takes a str, int, float or bool, got "
            f"{type(value).__name__} {value!r}"
        )
    if isinstance(value, float) and value != value:  # NaN equals nothing
        raise FilterError(f"{operator} on field {field!r} got NaN, which equals nothing")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _equal(stored: Any, value: Any) -> bool:
    # bool is its own kind (True != 1); ints and floats compare as numbers.
    if isinstance(stored, bool) or isinstance(value, bool):
        return isinstance(stored, bool) and isinstance(value, bool) and stored == value
    if isinstance(value, str):
        return isinstance(stored, str) and stored == value
    return _is_number(stored) and stored == value


_MISSING = object()


def matches(node: FilterNode | None, metadata: Mapping[str, Any]) -> bool:
    """Evaluate a parsed filter against one document's metadata (the reference evaluator).

    Args:
        node: a tree from :func:`parse_filter` (``None`` matches everything).
        metadata: the document's metadata.

    Returns:
        Whether the document passes the filter.

    Example:
        >>> matches(parse_filter({"page": {"$in": [1, 2]}}), {"page": 2})
        True
    """
    if node is None:
        return True
    if isinstance(node, And):
        return all(matches(operand, metadata) for operand in node.operands)
    if isinstance(node, Or):
        return any(matches(operand, metadata) for operand in node.operands)
    if isinstance(node, Not):
        return not matches(node.operand, metadata)
    if isinstance(node, Predicate):  # LangChain FAISS's callable: called with the metadata
        return bool(node.function(dict(metadata)))
    stored = metadata.get(node.field, _MISSING)
    operator, value = node.operator, node.value
    if operator == "$eq":
        return stored is not _MISSING and _equal(stored, value)
    if operator == "$ne":
        return stored is _MISSING or not _equal(stored, value)
    if operator == "$in":
        return stored is not _MISSING and any(_equal(stored, item) for item in value)
    if operator == "$nin":
        return stored is _MISSING or not any(_equal(stored, item) for item in value)
    if not _is_number(stored):
        return False
    if operator == "$gt":
        return bool(stored > value)
    if operator == "$gte":
        return bool(stored >= value)
    if operator == "$lt":
        return bool(stored < value)
    return bool(stored <= value)  # "$lte": the parser admits no other operator

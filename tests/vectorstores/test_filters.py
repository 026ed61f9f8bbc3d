"""The filter language: the parser's errors and the reference evaluator's semantics."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragline.core import FilterError
from ragline.vectorstores.filters import (
    COMPARISON_OPERATORS,
    And,
    Comparison,
    Not,
    Or,
    matches,
    parse_filter,
)


def test_parse_builds_the_tree() -> None:
    assert parse_filter({"a": 1}) == Comparison("a", "$eq", 1)
    assert parse_filter({"a": 1, "b": {"$in": ["x", "y"]}}) == And(
        (Comparison("a", "$eq", 1), Comparison("b", "$in", ("x", "y")))
    )
    assert parse_filter({"n": {"$gt": 1, "$lte": 3}}) == And(
        (Comparison("n", "$gt", 1), Comparison("n", "$lte", 3))
    )
    assert parse_filter({"$or": [{"a": 1}, {"$and": [{"b": True}, {"c": {"$ne": "z"}}]}]}) == Or(
        (
            Comparison("a", "$eq", 1),
            And((Comparison("b", "$eq", True), Comparison("c", "$ne", "z"))),
        )
    )


def test_nothing_to_filter_is_none_and_a_tree_passes_through() -> None:
    assert parse_filter(None) is None
    assert parse_filter({}) is None
    tree = Comparison("a", "$eq", 1)
    assert parse_filter(tree) is tree


@pytest.mark.parametrize(
    ("filter", "fragment"),
    [
        ({"a": {"$regex": "x"}}, "unknown filter operator '$regex' on field 'a'; valid operators"),
        ({"a": {"$exists": True}}, "'$exists'"),
        ({"$nor": [{"a": 1}]}, "unknown filter operator '$nor' at the top level"),
        ({"$not": [{"a": 1}]}, "$not takes one filter (a dict), got [{'a': 1}]"),
        ({"$not": {}}, "empty dict is not a valid filter"),
        ({"$and": {"a": 1}}, "$and takes a non-empty list"),
        ({"$or": []}, "$or takes a non-empty list"),
        ({"$or": [1]}, "every operand of $or must be a dict"),
        ({"$and": [{}]}, "empty dict is not a valid filter"),
        ({"a": {}}, "the condition on field 'a' is an empty dict"),
        ({"a": {"$in": "abc"}}, "$in on field 'a' takes a non-empty list"),
        ({"a": {"$nin": []}}, "$nin on field 'a' takes a non-empty list"),
        ({"a": {"$in": [1, {"b": 2}]}}, "$in on field 'a' takes a str, int, float or bool"),
        ({"a": {"$gt": "2024"}}, "$gt on field 'a' takes a number"),
        ({"a": {"$lte": True}}, "$lte on field 'a' takes a number"),
        ({"a": {"$lt": None}}, "$lt on field 'a' takes a number"),
        ({"a": (1, 2)}, "$eq on field 'a' takes a str, int, float or bool, got tuple"),
        ({"a": []}, "$in on field 'a' takes a non-empty list"),
        ({"a": [1, [2]]}, "$in on field 'a' takes a str, int, float or bool, got list"),
        ({"a": None}, "got NoneType None"),
        ({"a": {"$ne": float("nan")}}, "NaN"),
        ({"": 1}, "field name must not be empty"),
        ({1: 1}, "filter keys must be strings"),
        ([{"a": 1}], "a filter must be a dict, got list"),
        ("a == 1", "a filter must be a dict, got str"),
    ],
)
def test_malformed_filters_raise_naming_the_problem(filter: Any, fragment: str) -> None:
    with pytest.raises(FilterError) as info:
        parse_filter(filter)
    assert fragment in str(info.value)


def test_flat_filters_are_parsed_once_and_keep_their_value_types() -> None:
    first = parse_filter({"n": True, "src": "a"})
    assert parse_filter({"n": True, "src": "a"}) is first  # cached
    assert parse_filter({"n": 1, "src": "a"}) == And(
        (Comparison("n", "$eq", 1), Comparison("src", "$eq", "a"))
    )
    assert not matches(parse_filter({"n": 1}), {"n": True})  # True is not 1, cached or not
    assert matches(parse_filter({"n": True}), {"n": True})
    assert not matches(parse_filter({"n": 1.0}), {"n": True})
    assert matches(parse_filter({"n": 1}), {"n": 1.0})
    with pytest.raises(FilterError, match="NaN"):  # refused every time, never cached
        parse_filter({"n": float("nan")})
    with pytest.raises(FilterError, match="NaN"):
        parse_filter({"n": float("nan")})


def test_langchain_faiss_spellings_parse_as_the_operators_they_mean() -> None:
    # LangChain's FAISS writes "not equal" as $neq and "any of" as a bare list
    assert parse_filter({"a": {"$neq": 1}}) == Comparison("a", "$ne", 1)
    assert parse_filter({"a": ["x", 2]}) == Comparison("a", "$in", ("x", 2))
    assert parse_filter({"$or": [{"a": [1]}, {"b": {"$neq": "y", "$lt": 3}}]}) == Or(
        (
            Comparison("a", "$in", (1,)),
            And((Comparison("b", "$ne", "y"), Comparison("b", "$lt", 3))),
        )
    )
    assert parse_filter({"$not": {"a": 1, "b": [2]}}) == Not(
        And((Comparison("a", "$eq", 1), Comparison("b", "$in", (2,))))
    )
    assert matches(parse_filter({"$not": {"a": {"$gt": 1}}}), {"a": "x"})
    assert not matches(parse_filter({"$not": {"a": {"$gt": 1}}}), {"a": 2})
    assert matches(parse_filter({"a": {"$neq": 1}}), {})  # a missing field is not equal
    assert not matches(parse_filter({"a": [1, 2]}), {})


def test_unknown_operator_message_lists_the_valid_ones() -> None:
    with pytest.raises(FilterError, match=r"\$eq, \$ne, \$gt, \$gte, \$lt, \$lte, \$in, \$nin"):
        parse_filter({"a": {"$contains": 1}})


def test_filter_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_filter({"a": {"$bad": 1}})


META = {"s": "red", "n": 3, "f": 2.5, "t": True, "z": 0, "none": None}


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ({"s": "red"}, True),
        ({"s": "Red"}, False),
        ({"s": {"$ne": "red"}}, False),
        ({"n": 3}, True),
        ({"n": 3.0}, True),  # ints and floats compare as numbers
        ({"n": "3"}, False),  # a string is not a number
        ({"t": True}, True),
        ({"t": 1}, False),  # bool is its own kind: True != 1
        ({"z": False}, False),  # and 0 != False
        ({"n": True}, False),
        ({"n": {"$gt": 2}}, True),
        ({"n": {"$gt": 3}}, False),
        ({"n": {"$gte": 3}}, True),
        ({"n": {"$lt": 3}}, False),
        ({"n": {"$lte": 3}}, True),
        ({"f": {"$gt": 2, "$lt": 3}}, True),
        ({"s": {"$gt": 0}}, False),  # range on a string value never matches
        ({"t": {"$gt": 0}}, False),  # nor on a bool
        ({"s": {"$in": ["blue", "red"]}}, True),
        ({"s": {"$in": ["blue"]}}, False),
        ({"n": {"$in": [1.0, 3.0]}}, True),
        ({"s": {"$nin": ["blue", "red"]}}, False),
        ({"s": {"$nin": ["blue"]}}, True),
        ({"missing": "x"}, False),  # a missing field fails everything ...
        ({"missing": {"$gt": 0}}, False),
        ({"missing": {"$in": ["x"]}}, False),
        ({"missing": {"$ne": "x"}}, True),  # ... except $ne and $nin
        ({"missing": {"$nin": ["x"]}}, True),
        ({"none": {"$ne": "x"}}, True),
        ({"none": "x"}, False),
        ({"s": "red", "n": 3}, True),
        ({"s": "red", "n": 4}, False),
        ({"$or": [{"s": "blue"}, {"n": 3}]}, True),
        ({"$or": [{"s": "blue"}, {"n": 4}]}, False),
        ({"$and": [{"s": "red"}, {"$or": [{"n": 4}, {"t": True}]}]}, True),
    ],
)
def test_reference_evaluator(filter: dict[str, Any], expected: bool) -> None:
    assert matches(parse_filter(filter), META) is expected


def test_no_filter_matches_everything() -> None:
    assert matches(None, {}) is True


scalars = st.one_of(
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.sampled_from(["a", "b", ""]),
)
metadatas = st.dictionaries(st.sampled_from(["x", "y"]), scalars, max_size=2)


@given(metadata=metadatas, value=scalars, values=st.lists(scalars, min_size=1, max_size=3))
def test_negations_are_exact_complements(
    metadata: dict[str, Any], value: Any, values: list[Any]
) -> None:
    eq, ne = parse_filter({"x": {"$eq": value}}), parse_filter({"x": {"$ne": value}})
    assert matches(eq, metadata) is not matches(ne, metadata)
    in_, nin = parse_filter({"x": {"$in": values}}), parse_filter({"x": {"$nin": values}})
    assert matches(in_, metadata) is not matches(nin, metadata)
    assert matches(in_, metadata) is any(
        matches(parse_filter({"x": item}), metadata) for item in values
    )


@given(metadata=metadatas, a=scalars, b=scalars)
def test_and_or_follow_their_operands(metadata: dict[str, Any], a: Any, b: Any) -> None:
    left, right = {"x": a}, {"y": b}
    both = matches(parse_filter(left), metadata), matches(parse_filter(right), metadata)
    assert matches(parse_filter({"$and": [left, right]}), metadata) is all(both)
    assert matches(parse_filter({"$or": [left, right]}), metadata) is any(both)
    assert matches(parse_filter({**left, **right}), metadata) is all(both)


def test_every_operator_is_covered() -> None:
    assert set(COMPARISON_OPERATORS) == {"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"}

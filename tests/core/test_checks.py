"""ragline.core._checks: the argument checks every package uses, and their one message format."""

from __future__ import annotations

import doctest
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from ragline.core import ConfigurationError, InvalidInputError, _checks
from ragline.core._checks import (
    check_choice,
    check_flag,
    check_int,
    check_non_negative_int,
    check_number,
    check_optional_int,
    check_optional_number,
    check_optional_positive_int,
    check_positive_int,
    check_positive_number,
    check_unit_interval,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, 1), (10**20, 10**20), (np.int64(3), 3), (np.uint8(7), 7), (np.int32(1), 1)],
)
def test_positive_int_accepts_integers_and_returns_a_plain_int(value: Any, expected: int) -> None:
    result = check_positive_int("k", value)
    assert result == expected and type(result) is int


@pytest.mark.parametrize(
    "value", [0, -1, True, False, 1.0, 2.5, "3", None, np.float64(2.0), np.bool_(True), [1]]
)
def test_positive_int_refuses_everything_else(value: Any) -> None:
    with pytest.raises(InvalidInputError) as raised:
        check_positive_int("k", value)
    assert str(raised.value) == f"k must be an int >= 1, got {value!r}"


def test_int_checks_name_their_minimum_and_none() -> None:
    assert check_non_negative_int("max_retries", 0) == 0
    assert check_int("n", 5, minimum=5) == 5
    with pytest.raises(InvalidInputError, match=r"^max_retries must be an int >= 0, got -1$"):
        check_non_negative_int("max_retries", -1)
    with pytest.raises(InvalidInputError, match=r"^n must be an int >= 5, got 4$"):
        check_int("n", 4, minimum=5)
    assert check_optional_positive_int("limit", None) is None
    assert check_optional_int("offset", None, minimum=0) is None
    assert check_int("seed", -7, minimum=None) == -7
    with pytest.raises(InvalidInputError, match=r"^seed must be an int or None, got 1.5$"):
        check_optional_int("seed", 1.5, minimum=None)
    assert check_optional_positive_int("limit", np.int16(2)) == 2
    with pytest.raises(InvalidInputError, match=r"^limit must be an int >= 1 or None, got 0$"):
        check_optional_positive_int("limit", 0)
    with pytest.raises(InvalidInputError, match=r"^limit must be an int >= 1 or None, got True$"):
        check_optional_positive_int("limit", True)


def test_a_caller_picks_the_error_type() -> None:
    with pytest.raises(ConfigurationError, match=r"^nprobe must be an int >= 1, got 0$"):
        check_positive_int("nprobe", 0, error=ConfigurationError)
    with pytest.raises(ConfigurationError, match=r"^ttl must be a finite number > 0, got 0$"):
        check_positive_number("ttl", 0, error=ConfigurationError)


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({}, "1", "x must be a finite number, got '1'"),
        ({}, float("nan"), "x must be a finite number, got nan"),
        ({}, float("inf"), "x must be a finite number, got inf"),
        ({"low": 0}, -1, "x must be a finite number >= 0, got -1"),
        ({"low": 0}, math.inf, "x must be a finite number >= 0, got inf"),
        ({"low": 0, "low_open": True}, 0, "x must be a finite number > 0, got 0"),
        ({"high": 2}, 3, "x must be a finite number <= 2, got 3"),
        ({"low": 0, "high": 1}, 1.5, "x must be a number between 0 and 1, got 1.5"),
        ({"low": -1, "high": 1}, -1.01, "x must be a number between -1 and 1, got -1.01"),
        ({"low": 0.001}, 0, "x must be a finite number >= 0.001, got 0"),
        (
            {"low": 0, "high": 1, "low_open": True},
            0,
            "x must be a finite number > 0 and <= 1, got 0",
        ),
        ({"low": 0}, True, "x must be a finite number >= 0, got True"),
    ],
)
def test_number_messages(kwargs: dict[str, Any], value: Any, message: str) -> None:
    with pytest.raises(InvalidInputError) as raised:
        check_number("x", value, **kwargs)
    assert str(raised.value) == message


def test_numbers_come_back_as_plain_python_numbers_with_their_kind() -> None:
    assert check_number("x", 2) == 2 and type(check_number("x", 2)) is int
    assert type(check_number("x", np.float32(0.5))) is float
    assert type(check_number("x", np.int8(2))) is int
    assert check_number("x", Fraction(1, 4)) == 0.25
    assert check_number("x", -2, low=-2, high=2) == -2
    assert check_positive_number("timeout", 0.5) == 0.5
    assert check_unit_interval("lambda_mult", 0) == 0
    assert check_unit_interval("lambda_mult", np.float64(1.0)) == 1.0
    with pytest.raises(InvalidInputError, match=r"^lambda_mult must be a number between 0 and 1"):
        check_unit_interval("lambda_mult", 1.0000001)


def test_optional_numbers() -> None:
    assert check_optional_number("timeout", None, low=0, low_open=True) is None
    assert check_optional_number("timeout", 3, low=0, low_open=True) == 3
    with pytest.raises(
        InvalidInputError, match=r"^timeout must be a finite number > 0 or None, got 0$"
    ):
        check_optional_number("timeout", 0, low=0, low_open=True)


def test_flag() -> None:
    assert check_flag("strip", True) is True and check_flag("strip", False) is False
    for value in (1, 0, "yes", None, np.bool_(True)):
        with pytest.raises(InvalidInputError, match=rf"^strip must be a bool, got {value!r}$"):
            check_flag("strip", value)


def test_choice_message_lists_the_choices_in_order() -> None:
    types = ("similarity", "similarity_score_threshold", "mmr")
    assert check_choice("search_type", "mmr", types) == "mmr"
    with pytest.raises(ConfigurationError) as raised:
        check_choice("search_type", "simlarity", types)
    assert str(raised.value) == (
        "search_type 'simlarity' is not one of 'similarity', 'similarity_score_threshold', 'mmr'"
    )
    with pytest.raises(ConfigurationError, match=r"^cleanup 'x' is not one of 'full' or None$"):
        check_choice("cleanup", "x", ["full"], optional=True)
    assert check_choice("cleanup", None, ["full"], optional=True) is None
    with pytest.raises(ConfigurationError, match=r"^cleanup None is not one of 'full'$"):
        check_choice("cleanup", None, ["full"])
    with pytest.raises(InvalidInputError, match="mode 'x'"):
        check_choice("mode", "x", {"a": 1}, error=InvalidInputError)  # a dict's keys


def test_a_bool_choice_matches_only_a_bool() -> None:
    """1 == True in Python; a choice of (False, True, 'start') must still refuse 1 and 0."""
    options = (False, True, "start", "end")
    assert check_choice("keep_separator", True, options) is True
    assert check_choice("keep_separator", "start", options) == "start"
    for value in (1, 0, 1.0):
        with pytest.raises(ConfigurationError, match="is not one of False, True, 'start', 'end'"):
            check_choice("keep_separator", value, options)
    with pytest.raises(ConfigurationError, match="is not one of 1, 2"):
        check_choice("n", True, (1, 2))
    with pytest.raises(ConfigurationError):  # an array's == is no truth value: not a choice
        check_choice("v", np.array([1, 2]), (1, 2))


def test_the_module_examples_run() -> None:
    result = doctest.testmod(_checks, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 6 and result.failed == 0

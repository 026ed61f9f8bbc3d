"""ragline.core._operations: one generator of requests, driven sync or async."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

import pytest

from ragline.core._operations import adrive, drive


def lookup(keys: list[str]) -> Generator[str, Any, dict[str, Any]]:
    """Asks for each key in turn; a failed request is caught and recorded."""
    found: dict[str, Any] = {}
    for key in keys:
        try:
            found[key] = yield key
        except KeyError as err:
            found[key] = f"missing {err}"
    return found


TABLE = {"a": 1, "b": 2}


def perform(key: str) -> Any:
    return TABLE[key]


async def aperform(key: str) -> Any:
    await asyncio.sleep(0)
    return TABLE[key]


async def test_both_drivers_send_results_back_and_return_the_operations_value() -> None:
    assert drive(lookup(["a", "b"]), perform) == {"a": 1, "b": 2}
    assert await adrive(lookup(["a", "b"]), aperform) == {"a": 1, "b": 2}
    assert drive(lookup([]), perform) == {}  # no request at all


async def test_a_failed_request_raises_inside_the_operation_at_its_yield() -> None:
    expected = {"a": 1, "x": "missing 'x'", "b": 2}
    assert drive(lookup(["a", "x", "b"]), perform) == expected
    assert await adrive(lookup(["a", "x", "b"]), aperform) == expected


async def test_an_error_the_operation_does_not_catch_reaches_the_caller() -> None:
    def strict() -> Generator[str, Any, int]:
        yield "a"
        yield "nope"
        return 0

    with pytest.raises(KeyError, match="nope"):
        drive(strict(), perform)
    with pytest.raises(KeyError, match="nope"):
        await adrive(strict(), aperform)


def test_an_error_in_the_operation_itself_propagates() -> None:
    def broken() -> Generator[str, Any, None]:
        yield "a"
        raise ValueError("logic failed")

    with pytest.raises(ValueError, match="logic failed"):
        drive(broken(), perform)


def test_the_module_example_runs() -> None:
    import doctest

    from ragline.core import _operations

    assert doctest.testmod(_operations).attempted >= 1
    assert doctest.testmod(_operations).failed == 0

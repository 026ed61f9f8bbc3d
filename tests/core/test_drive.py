"""Operations written once, run by sync and async drivers (ragline.core._drive)."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import time
from typing import Any

import pytest

from ragline.core import _drive
from ragline.core._drive import (
    DeadlineExceeded,
    Effect,
    Emit,
    StreamClosed,
    adrive,
    adrive_stream,
    drive,
    drive_stream,
)


async def _aecho(value: Any) -> Any:
    await asyncio.sleep(0)
    return ("async", value)


def _counting(log: list[str]):
    """Two effects, an emit between them, an error caught and one that escapes."""
    first = yield Effect(lambda v: ("sync", v), _aecho, 1)
    log.append(f"got {first}")
    yield Emit(first)
    try:
        yield Effect(lambda: 1 / 0, None)
    except ZeroDivisionError:
        log.append("caught")
    try:
        yield Emit("late")
    except StreamClosed:
        log.append("closed")
        yield Effect(log.append, None, "cleanup")
        return "stopped"
    return "done"


def test_sync_drivers_send_results_and_throw_errors_into_the_operation():
    log: list[str] = []
    assert drive(_counting(log)) == "done"
    assert log == ["got ('sync', 1)", "caught"]
    log.clear()
    stream = drive_stream(_counting(log))
    assert list(stream) == [("sync", 1), "late"]


async def test_async_drivers_await_the_async_forms():
    log: list[str] = []
    assert await adrive(_counting(log)) == "done"
    assert log == ["got ('async', 1)", "caught"]
    assert [v async for v in adrive_stream(_counting([]))] == [("async", 1), "late"]


def test_closing_a_stream_early_lets_the_operation_clean_up():
    log: list[str] = []
    stream = drive_stream(_counting(log))
    assert next(stream) == ("sync", 1)
    assert next(stream) == "late"
    stream.close()
    assert log == ["got ('sync', 1)", "caught", "closed", "cleanup"]


async def test_closing_an_async_stream_early_lets_the_operation_clean_up():
    log: list[str] = []
    stream = adrive_stream(_counting(log))
    assert await anext(stream) == ("async", 1)
    assert await anext(stream) == "late"
    await stream.aclose()
    assert log == ["got ('async', 1)", "caught", "closed", "cleanup"]


def test_errors_the_operation_does_not_catch_propagate():
    def failing():
        yield Effect(lambda: [][1], None)

    with pytest.raises(IndexError):
        drive(failing())


async def test_a_deadline_cancels_the_awaited_effect_and_tells_the_operation():
    def slow():
        try:
            yield Effect(time.sleep, asyncio.sleep, 120)
        except DeadlineExceeded:
            return "gave up"
        return "slept"

    started = time.monotonic()
    assert await adrive(slow(), deadline=time.monotonic() + 0.05) == "gave up"
    assert time.monotonic() - started < 60  # bounds a hang (the effect sleeps 120 s)


async def test_an_effects_own_timeout_is_not_mistaken_for_the_deadline():
    async def times_out() -> None:
        raise TimeoutError("its own")

    def operation():
        try:
            yield Effect(lambda: None, times_out)
        except DeadlineExceeded:
            return "deadline"
        except TimeoutError as err:
            return str(err)

    assert await adrive(operation(), deadline=time.monotonic() + 30) == "its own"


def test_docstring_examples_run():
    result = doctest.testmod(_drive)
    assert result.attempted > 0 and result.failed == 0


async def test_the_deadline_is_said_once_and_the_wrap_up_runs():
    def operation():
        with contextlib.suppress(DeadlineExceeded):
            yield Effect(time.sleep, asyncio.sleep, 5)
        return (yield Effect(lambda: "wrapped up", None))

    assert await adrive(operation(), deadline=time.monotonic() + 0.02) == "wrapped up"


async def test_an_operation_that_needs_no_effect_still_returns_its_result():
    """A generator that returns before its first yield (an empty input, a cached answer)
    is finished at the first next(): every driver returns its value and emits nothing."""

    def at_once():
        if True:
            return "done"
        yield Emit("never")  # pragma: no cover - makes this a generator

    assert _drive.drive(at_once()) == "done"
    assert await _drive.adrive(at_once()) == "done"
    assert list(_drive.drive_stream(at_once())) == []
    assert [value async for value in _drive.adrive_stream(at_once())] == []

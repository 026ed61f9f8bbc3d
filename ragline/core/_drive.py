"""Logic written once, run by a sync or an async driver (the Redis stores' ``Operation``
pattern, for work whose steps are Python calls rather than Redis commands).

An *operation* is a generator. It yields an :class:`Effect` for each piece of work whose
sync and async forms differ (calling a model, running a tool, reporting a callback) and
receives its result, or the exception it raised, back at the ``yield``. It may also yield
:class:`Emit` to hand a value to whoever streams the operation. Its return value is the
result. Four thin drivers run it: :func:`drive` / :func:`adrive` return the result,
:func:`drive_stream` / :func:`adrive_stream` yield what the operation emits as it goes.
An operation passes a runnable's stream on with ``yield from`` :func:`stream_from`
(``stream`` in sync drivers, ``astream`` in async ones).

Example:
    >>> def double_then_add(x):
    ...     doubled = yield Effect(lambda: x * 2, None)
    ...     yield Emit(doubled)
    ...     return doubled + 1
    >>> drive(double_then_add(4)), list(drive_stream(double_then_add(4)))
    (9, [8])
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
)
from typing import Any, TypeVar

__all__ = [
    "DeadlineExceeded",
    "Effect",
    "Emit",
    "Operation",
    "StreamClosed",
    "adrive",
    "adrive_stream",
    "drive",
    "drive_stream",
    "stream_from",
]

T = TypeVar("T")


class Effect:
    """One piece of work: ``sync(*args, **kwargs)`` in sync drivers,
    ``await asynchronous(*args, **kwargs)`` in async ones (``asynchronous=None``: the sync
    form is quick and runs inline)."""

    __slots__ = ("args", "asynchronous", "kwargs", "sync")

    def __init__(
        self,
        sync: Callable[..., Any],
        asynchronous: Callable[..., Awaitable[Any]] | None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        self.sync = sync
        self.asynchronous = asynchronous
        self.args = args
        self.kwargs = kwargs

    def run(self) -> Any:
        return self.sync(*self.args, **self.kwargs)

    async def arun(self) -> Any:
        if self.asynchronous is None:
            return self.sync(*self.args, **self.kwargs)
        return await self.asynchronous(*self.args, **self.kwargs)


class Emit:
    """A value for whoever streams the operation (the non-streaming drivers drop it)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class StreamClosed(Exception):
    """Thrown into an operation whose stream consumer stopped early: finish up and return
    (effects are still run; emitted values are dropped)."""


class DeadlineExceeded(Exception):
    """Thrown into an operation by :func:`adrive` / :func:`adrive_stream` when a
    ``deadline`` passes while an effect is awaited (the effect is cancelled)."""


Operation = Generator[Effect | Emit, Any, T]


def drive_stream(operation: Operation[T]) -> Generator[Any, None, T]:
    """Run ``operation`` synchronously, yielding what it emits; returns its result."""
    try:
        step = next(operation)
    except StopIteration as done:  # finished without a single effect
        return done.value  # type: ignore[no-any-return]
    closing = False
    while True:
        try:
            if isinstance(step, Emit):
                if not closing:
                    try:
                        yield step.value
                    except GeneratorExit:
                        closing = True
                        step = operation.throw(StreamClosed())
                        continue
                step = operation.send(None)
                continue
            try:
                result = step.run()
            except BaseException as err:
                step = operation.throw(err)
            else:
                step = operation.send(result)
        except StopIteration as done:
            if closing:
                raise GeneratorExit from None
            return done.value  # type: ignore[no-any-return]
        except StreamClosed:
            raise GeneratorExit from None


def drive(operation: Operation[T]) -> T:
    """Run ``operation`` synchronously and return its result (emitted values dropped)."""
    stream = drive_stream(operation)
    try:
        while True:
            next(stream)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def adrive_stream(
    operation: Operation[T], *, deadline: float | None = None, result: list[Any] | None = None
) -> AsyncGenerator[Any, None]:
    """Run ``operation`` on the event loop, yielding what it emits.

    Args:
        deadline: a ``time.monotonic()`` value; an effect still awaited then is cancelled
            and :class:`DeadlineExceeded` is thrown into the operation (once: the effects
            after it run without a limit).
        result: when given, the operation's return value is appended to it.
    """
    closing = False
    try:
        step = next(operation)
        while True:
            if isinstance(step, Emit):
                if not closing:
                    try:
                        yield step.value
                    except GeneratorExit:
                        closing = True
                        step = operation.throw(StreamClosed())
                        continue
                step = operation.send(None)
                continue
            try:
                value = await _await_effect(step, deadline)
            except DeadlineExceeded as err:
                deadline = None  # said once: the operation's wrap-up runs without a limit
                step = operation.throw(err)
            except BaseException as err:
                step = operation.throw(err)
            else:
                step = operation.send(value)
    except StopIteration as done:
        if closing:
            raise GeneratorExit from None
        if result is not None:
            result.append(done.value)
    except StreamClosed:
        raise GeneratorExit from None


async def adrive(operation: Operation[T], *, deadline: float | None = None) -> T:
    """Run ``operation`` on the event loop and return its result (see :func:`adrive_stream`)."""
    result: list[Any] = []
    async for _ in adrive_stream(operation, deadline=deadline, result=result):
        pass
    return result[0]  # type: ignore[no-any-return]


async def _await_effect(effect: Effect, deadline: float | None) -> Any:
    if deadline is None:
        return await effect.arun()
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise DeadlineExceeded()
    try:
        return await asyncio.wait_for(effect.arun(), remaining)
    except asyncio.TimeoutError:
        if time.monotonic() < deadline:
            raise  # the effect's own timeout, not ours
        raise DeadlineExceeded() from None


_END: Any = object()  # what the "next chunk" effect returns once a stream is exhausted


def stream_from(
    runnable: Any, input: Any, transform: Callable[[Any], Iterable[Any]], **kwargs: Any
) -> Operation[None]:
    """Emit ``runnable.stream(input, **kwargs)``'s chunks as they come (``astream`` in async
    drivers), each as the values ``transform`` makes of it (none, one or several).

    If the consumer stops reading, the runnable's stream is closed at once (its run ends
    there) and :class:`StreamClosed` goes on up the operation.
    """
    chunks = yield Effect(_open, _aopen, runnable, input, kwargs)
    try:
        while (chunk := (yield Effect(_next, _anext, chunks))) is not _END:
            for out in transform(chunk):
                yield Emit(out)
    except StreamClosed:
        yield Effect(_close, _aclose, chunks)
        raise


def _open(runnable: Any, input: Any, kwargs: dict[str, Any]) -> Iterator[Any]:
    return iter(runnable.stream(input, **kwargs))


async def _aopen(runnable: Any, input: Any, kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    return aiter(runnable.astream(input, **kwargs))


def _next(chunks: Iterator[Any]) -> Any:
    return next(chunks, _END)


async def _anext(chunks: AsyncIterator[Any]) -> Any:
    return await anext(chunks, _END)


def _close(chunks: Iterator[Any]) -> None:
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


async def _aclose(chunks: AsyncIterator[Any]) -> None:
    close = getattr(chunks, "aclose", None)
    if close is not None:
        await close()

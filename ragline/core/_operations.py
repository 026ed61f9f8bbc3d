"""Sync and async twins written once: the logic is a generator, two thin drivers run it.

An *operation* is a generator that yields requests (a model call, a database command
...) and receives each request's result; what it returns is the operation's result.
:func:`drive` performs the requests with a plain function, :func:`adrive` with a
coroutine function, so the logic between the requests exists once::

    def answer(question):                      # the logic, once
        documents = yield ("retrieve", question)
        return (yield ("generate", question, documents))

    drive(answer(q), perform)                  # invoke
    await adrive(answer(q), aperform)          # ainvoke

A request that fails raises its exception inside the operation, at its ``yield``, so
the logic may catch it (``try: x = yield request``) as it would a direct call.

The common request is a method call whose async twin is named with an ``a`` in front
(LangChain's naming: ``mget`` / ``amget``, ``embed_documents`` / ``aembed_documents``):
yield :class:`Call` and drive with :func:`call` / :func:`acall`.
``core/_redis.py`` drives its operations the same way, with Redis-specific drivers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = ["Call", "Operation", "acall", "adrive", "call", "drive"]

R = TypeVar("R")
T = TypeVar("T")

# yields requests of type R, receives each one's result, returns T
Operation = Generator[R, Any, T]


def drive(operation: Operation[R, T], perform: Callable[[R], Any]) -> T:
    """Run ``operation`` to its end, performing each request with ``perform``.

    Example:
        >>> def double_both():
        ...     a = yield 1
        ...     b = yield 2
        ...     return [a, b]
        >>> drive(double_both(), lambda n: n * 2)
        [2, 4]
    """
    try:
        request = next(operation)
        while True:
            try:
                result = perform(request)
            except Exception as err:
                request = operation.throw(err)
            else:
                request = operation.send(result)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def adrive(operation: Operation[R, T], perform: Callable[[R], Awaitable[Any]]) -> T:
    """Async twin of :func:`drive`: ``perform`` returns an awaitable."""
    try:
        request = next(operation)
        while True:
            try:
                result = await perform(request)
            except Exception as err:
                request = operation.throw(err)
            else:
                request = operation.send(result)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Call:
    """A request to call ``target.<method>(*args)``; driven async, ``target.a<method>``."""

    target: Any
    method: str
    args: tuple[Any, ...] = ()


def call(request: Call) -> Any:
    """Perform a :class:`Call` with the sync method (use with :func:`drive`)."""
    return getattr(request.target, request.method)(*request.args)


async def acall(request: Call) -> Any:
    """Perform a :class:`Call` with the async twin (use with :func:`adrive`).

    Example:
        >>> import asyncio
        >>> class Box:
        ...     def get(self, key): return f"sync {key}"
        ...     async def aget(self, key): return f"async {key}"
        >>> def read():
        ...     return (yield Call(Box(), "get", ("k",)))
        >>> drive(read(), call), asyncio.run(adrive(read(), acall))
        ('sync k', 'async k')
    """
    return await getattr(request.target, "a" + request.method)(*request.args)

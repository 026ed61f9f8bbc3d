"""Chains written once for sync and async: a chain's logic is a generator of steps.

The logic yields what it needs: :class:`Invoke` (one call, its result sent back),
:class:`Batch` (several calls, failures sent back as exceptions in their place) and,
when streaming, :class:`Emit` (a chunk for the caller) and :class:`StreamFrom` (stream a
runnable's chunks out to the caller). :class:`StepsChain` runs that logic for
``invoke`` / ``ainvoke`` / ``stream`` / ``astream`` with thin drivers, so no chain writes
a ``def`` / ``async def`` pair (the ``Operation`` pattern of ``ragline.core._operations``).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ragline.core import InvalidInputError, Runnable, RunnableConfig
from ragline.core._operations import adrive, drive

__all__ = ["Batch", "Emit", "Invoke", "Steps", "StepsChain", "StreamFrom", "acall", "call"]


@dataclass(frozen=True)
class Invoke:
    """Call ``runnable`` on ``input``; the result (or the error) comes back at the yield."""

    runnable: Runnable[Any, Any]
    input: Any


@dataclass(frozen=True)
class Batch:
    """Call ``runnable`` on every input; the results come back as a list, with an
    exception in place of each failed call (so the logic can name the item)."""

    runnable: Runnable[Any, Any]
    inputs: list[Any]
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Emit:
    """Streaming only: hand ``chunk`` to the caller."""

    chunk: Any


@dataclass(frozen=True)
class StreamFrom:
    """Streaming only: stream ``runnable`` on ``input``; each chunk goes to the caller as
    the chunks ``transform`` makes of it (none, one or several)."""

    runnable: Runnable[Any, Any]
    input: Any
    transform: Callable[[Any], Iterable[Any]]


Step = Invoke | Batch | Emit | StreamFrom
Steps = Generator[Step, Any, Any]


def call(step: Step) -> Any:
    """Perform an :class:`Invoke` or :class:`Batch` step (sync)."""
    if isinstance(step, Invoke):
        return step.runnable.invoke(step.input)
    if isinstance(step, Batch):
        return step.runnable.batch(step.inputs, step.config, return_exceptions=True)
    raise TypeError(f"{type(step).__name__} is a streaming step; only stream() can run it")


async def acall(step: Step) -> Any:
    """Perform an :class:`Invoke` or :class:`Batch` step (async)."""
    if isinstance(step, Invoke):
        return await step.runnable.ainvoke(step.input)
    if isinstance(step, Batch):
        return await step.runnable.abatch(step.inputs, step.config, return_exceptions=True)
    raise TypeError(f"{type(step).__name__} is a streaming step; only astream() can run it")


def _streamed(steps: Steps) -> Iterator[Any]:
    """Run ``steps``, yielding what they emit and stream out."""
    result: Any = None
    error: Exception | None = None
    while True:
        try:
            step = steps.send(result) if error is None else steps.throw(error)
        except StopIteration:
            return
        result, error = None, None
        if isinstance(step, Emit):
            yield step.chunk
        elif isinstance(step, StreamFrom):
            for chunk in step.runnable.stream(step.input):
                yield from step.transform(chunk)
        else:
            try:
                result = call(step)
            except Exception as err:
                error = err


async def _astreamed(steps: Steps) -> AsyncIterator[Any]:
    """Async twin of :func:`_streamed`."""
    result: Any = None
    error: Exception | None = None
    while True:
        try:
            step = steps.send(result) if error is None else steps.throw(error)
        except StopIteration:
            return
        result, error = None, None
        if isinstance(step, Emit):
            yield step.chunk
        elif isinstance(step, StreamFrom):
            async for chunk in step.runnable.astream(step.input):
                for out in step.transform(chunk):
                    yield out
        else:
            try:
                result = await acall(step)
            except Exception as err:
                error = err


def _one_input(items: list[Any]) -> Any:
    if len(items) != 1:
        raise InvalidInputError(f"a chain streams from one input dict, got {len(items)} chunks")
    return items[0]


class StepsChain(Runnable[dict[str, Any], Any]):
    """A chain whose logic is written once, as steps: implement :meth:`_answer_steps`
    (for invoke) and :meth:`_stream_steps` (for stream); the four public methods are here.
    Each call is one run of this chain, and every step's call is a child run."""

    @abstractmethod
    def _answer_steps(self, input: Any) -> Steps:
        """Yield :class:`Invoke` / :class:`Batch` steps; return the chain's output."""

    @abstractmethod
    def _stream_steps(self, input: Any) -> Steps:
        """Yield steps, :class:`Emit` and :class:`StreamFrom` included; return nothing."""

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._run_steps, input, config)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        self._reject_kwargs(kwargs)
        return await self._acall_with_config(self._arun_steps, input, config)

    def _run_steps(self, input: Any) -> Any:
        return drive(self._answer_steps(input), call)

    async def _arun_steps(self, input: Any) -> Any:
        return await adrive(self._answer_steps(input), acall)

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        self._reject_kwargs(kwargs)
        yield from self._transform_stream_with_config(
            iter([input]),
            lambda inputs: _streamed(self._stream_steps(_one_input(list(inputs)))),
            config,
            start_input=input,
        )

    async def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        async def run(inputs: AsyncIterator[Any]) -> AsyncIterator[Any]:
            steps = self._stream_steps(_one_input([item async for item in inputs]))
            async for chunk in _astreamed(steps):
                yield chunk

        async for chunk in self._atransform_stream_with_config(
            one(), run, config, start_input=input
        ):
            yield chunk

"""Chains written once for sync and async: a chain's logic is an operation of effects.

The logic (a generator, see :mod:`ragline.core._drive`) yields an ``Effect`` for each
call: :func:`invoke` (one call, its result or error back at the ``yield``) and
:func:`batch` (several calls, an exception in place of each failed one, so the logic can
name the item); when streaming it also yields ``Emit`` (a chunk for the caller) and
``yield from`` :func:`stream_from` (a runnable's chunks out to the caller as they come).
:class:`StepsChain` runs that logic for ``invoke`` / ``ainvoke`` / ``stream`` /
``astream`` with core's drivers, so no chain writes a ``def`` / ``async def`` pair.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

from ragline.core import InvalidInputError, Runnable, RunnableConfig
from ragline.core._drive import (
    Effect,
    Operation,
    adrive,
    adrive_stream,
    drive,
    drive_stream,
    stream_from,
)

__all__ = ["Steps", "StepsChain", "batch", "invoke", "stream_from"]

Steps = Operation[Any]


def invoke(runnable: Runnable[Any, Any], input: Any) -> Effect:
    """Call ``runnable`` on ``input`` (``invoke`` or ``ainvoke``)."""
    return Effect(runnable.invoke, runnable.ainvoke, input)


def batch(runnable: Runnable[Any, Any], inputs: list[Any], config: dict[str, Any]) -> Effect:
    """Call ``runnable`` on every input; failures come back as exceptions in their place."""
    return Effect(runnable.batch, runnable.abatch, inputs, config, return_exceptions=True)


def _one_input(items: list[Any]) -> Any:
    if len(items) != 1:
        raise InvalidInputError(f"a chain streams from one input dict, got {len(items)} chunks")
    return items[0]


class StepsChain(Runnable[dict[str, Any], Any]):
    """A chain whose logic is written once, as operations: implement
    :meth:`_answer_steps` (for invoke) and :meth:`_stream_steps` (for stream); the four
    public methods are here. Each call is one run of this chain, and every effect's call
    is a child run."""

    # True in a chain whose steps need their run's manager (to hand a LangChain-style
    # hook its ``run_manager``): ``_run_steps`` / ``_arun_steps`` then get (input, run)
    _steps_take_run: ClassVar[bool] = False

    @abstractmethod
    def _answer_steps(self, input: Any) -> Steps:
        """Yield :func:`invoke` / :func:`batch` effects; return the chain's output."""

    @abstractmethod
    def _stream_steps(self, input: Any) -> Steps:
        """Yield effects and ``Emit`` (or ``yield from`` :func:`stream_from`)."""

    def _returned(self, input: Any, output: Any) -> Any:
        """What ``invoke`` returns, from the input and the output its run ended with:
        the output itself here; a legacy chain adds its inputs, which LangChain returns
        too but does not report as the run's output."""
        return output

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        self._reject_kwargs(kwargs)
        output = self._call_with_config(
            self._run_steps, input, config, with_run_manager=self._steps_take_run
        )
        return self._returned(input, output)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        self._reject_kwargs(kwargs)
        output = await self._acall_with_config(
            self._arun_steps, input, config, with_run_manager=self._steps_take_run
        )
        return self._returned(input, output)

    def _run_steps(self, input: Any) -> Any:
        return drive(self._answer_steps(input))

    async def _arun_steps(self, input: Any) -> Any:
        return await adrive(self._answer_steps(input))

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        self._reject_kwargs(kwargs)
        yield from self._transform_stream_with_config(
            iter([input]),
            lambda inputs: drive_stream(self._stream_steps(_one_input(list(inputs)))),
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
            chunks = adrive_stream(steps)
            try:
                async for chunk in chunks:
                    yield chunk
            finally:
                await chunks.aclose()  # a consumer that stopped early: end the runs now

        stream = self._atransform_stream_with_config(one(), run, config, start_input=input)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()  # type: ignore[attr-defined]

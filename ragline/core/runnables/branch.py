"""RunnableBranch: run the first runnable whose condition holds, else the default."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from ragline.core.config import RunnableConfig, get_current_config
from ragline.core.exceptions import ArgumentTypeError, ConfigurationError
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import Input, Output, Runnable, coerce_to_runnable
from ragline.core.runnables.runs import _aclose, ainvoke_part, invoke_part, part_config
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["RunnableBranch"]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableBranch(Runnable[Input, Output]):
    """Route an input: ``RunnableBranch((cond1, r1), (cond2, r2), default)``.

    Conditions (runnables or callables returning a truthy value) are checked in order
    on the input; the first that holds picks its runnable. The branch is a chain run,
    with the conditions and the chosen runnable as child runs.

    Raises:
        ConfigurationError: fewer than one (condition, runnable) pair plus a default, or a
            branch that is not a pair.

    Example:
        >>> branch = RunnableBranch(
        ...     (lambda x: x < 0, lambda x: "negative"), lambda x: "non-negative"
        ... )
        >>> branch.invoke(-3), branch.invoke(4)
        ('negative', 'non-negative')
    """

    _stream_end_inputs = False  # a streamed run's end has no inputs= (LangChain's)

    _starts_without_run_type = True  # as LangChain's, streamed or not
    _reports_stream_chunks = False  # astream_events shows none of its own, as LangChain's

    def __init__(self, *branches: Any, name: str | None = None) -> None:
        if len(branches) < 2:
            raise ConfigurationError(
                "RunnableBranch needs at least one (condition, runnable) pair and a default, "
                f"got {len(branches)} argument(s)"
            )
        *pairs, default = branches
        self.branches: list[tuple[Runnable[Input, Any], Runnable[Input, Output]]] = []
        for index, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                # a TypeError when it is no pair at all, a ValueError when it is one of the
                # wrong length: the classes LangChain's RunnableBranch raises
                error = ConfigurationError if isinstance(pair, (tuple, list)) else ArgumentTypeError
                raise error(
                    f"RunnableBranch argument {index} must be a (condition, runnable) pair, got "
                    f"{pair!r:.80}"
                )
            self.branches.append((coerce_to_runnable(pair[0]), coerce_to_runnable(pair[1])))
        if isinstance(default, (tuple, list)):
            raise ConfigurationError(
                "RunnableBranch's last argument is the default runnable, not a pair"
            )
        self.default: Runnable[Input, Output] = coerce_to_runnable(default)
        self.name = name

    def __repr__(self) -> str:
        fields = printed_fields(self.name, ", ", branches=self.branches, default=self.default)
        return f"RunnableBranch({fields})"

    def __str__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return printed_fields(self.name, branches=self.branches, default=self.default)

    def _children(self) -> list[Runnable[Any, Any]]:
        return [r for pair in self.branches for r in pair] + [self.default]

    def _choose(self, input: Any) -> tuple[Runnable[Input, Output], RunnableConfig | None]:
        """The runnable to run and its config: the condition and branch runs are tagged
        ``condition:N`` and ``branch:N`` (``branch:default``), as LangChain's."""
        config = get_current_config()  # this run's child config
        for index, (condition, runnable) in enumerate(self.branches, 1):
            if invoke_part(condition, input, part_config(config, f"condition:{index}")):
                return runnable, part_config(config, f"branch:{index}")
        return self.default, part_config(config, "branch:default")

    async def _achoose(self, input: Any) -> tuple[Runnable[Input, Output], RunnableConfig | None]:
        config = get_current_config()
        for index, (condition, runnable) in enumerate(self.branches, 1):
            if await ainvoke_part(condition, input, part_config(config, f"condition:{index}")):
                return runnable, part_config(config, f"branch:{index}")
        return self.default, part_config(config, "branch:default")

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke the chosen runnable."""
        self._reject_kwargs(kwargs)

        def run(x: Any) -> Any:
            runnable, part = self._choose(x)
            return invoke_part(runnable, x, part)

        return self._call_with_config(run, input, config)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async ``invoke``."""
        self._reject_kwargs(kwargs)

        async def run(x: Any) -> Any:
            runnable, part = await self._achoose(x)
            return await ainvoke_part(runnable, x, part)

        return await self._acall_with_config(run, input, config)

    def _stream_chosen(self, chunks: Iterator[Any]) -> Iterator[Any]:
        input = next(chunks)
        runnable, part = self._choose(input)
        yield from runnable.stream(input, part)

    async def _astream_chosen(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        input = await chunks.__anext__()
        runnable, part = await self._achoose(input)
        stream = runnable.astream(input, part)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await _aclose(stream)  # a consumer that stopped early: end its run now

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the chosen runnable."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(
            iter([input]), self._stream_chosen, config, start_input=input
        )

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(
            one(), self._astream_chosen, config, start_input=input
        )

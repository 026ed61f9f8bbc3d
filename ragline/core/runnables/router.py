"""RouterRunnable: send each input to the runnable its key names (LangChain's).

The input is ``{"key": name, "input": value}``; the runnable registered under ``name``
runs on ``value`` with the caller's config (the router reports no run of its own, as in
LangChain). An unknown key is a ``ValueError``; ``batch`` checks every key before
running any, then runs the inputs at once (threads, or tasks for ``abatch``), at most
``max_concurrency`` at a time, as LangChain's does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, TypedDict

from ragline.core.config import RunnableConfig, get_config_list
from ragline.core.runnables.base import (
    Runnable,
    _gather_limited,
    _run_in_threads,
    coerce_to_runnable,
)

__all__ = ["RouterInput", "RouterRunnable"]


class RouterInput(TypedDict):
    """A router's input: which runnable (``key``) and what it gets (``input``)."""

    key: str
    input: Any


class RouterRunnable(Runnable[RouterInput, Any]):
    """Run the runnable that ``input["key"]`` names on ``input["input"]``.

    Args:
        runnables: the runnables by key (callables become ``RunnableLambda``).

    Raises (from the calls):
        ValueError: a key no runnable is registered under.

    Example:
        >>> router = RouterRunnable({"add": lambda x: x + 1, "square": lambda x: x * x})
        >>> router.invoke({"key": "square", "input": 3})
        9
    """

    def __init__(self, runnables: Mapping[str, Runnable[Any, Any] | Callable[[Any], Any]]) -> None:
        self.runnables = {key: coerce_to_runnable(r) for key, r in runnables.items()}

    def __repr__(self) -> str:
        return f"RouterRunnable(runnables={self.runnables!r})"

    def _children(self) -> list[Runnable[Any, Any]]:
        return list(self.runnables.values())

    def _route(self, input: RouterInput) -> tuple[Runnable[Any, Any], Any]:
        key = input["key"]
        if key not in self.runnables:
            raise ValueError(f"No runnable associated with key '{key}'")
        return self.runnables[key], input["input"]

    def _routes(self, inputs: Sequence[RouterInput]) -> list[tuple[Runnable[Any, Any], Any]]:
        if any(item["key"] not in self.runnables for item in inputs):
            raise ValueError("One or more keys do not have a corresponding runnable")
        return [(self.runnables[item["key"]], item["input"]) for item in inputs]

    def invoke(
        self, input: RouterInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        runnable, value = self._route(input)
        return runnable.invoke(value, config)

    async def ainvoke(
        self, input: RouterInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        runnable, value = self._route(input)
        return await runnable.ainvoke(value, config)

    def batch(
        self,
        inputs: Sequence[RouterInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Run each input's runnable at once in threads (at most ``max_concurrency``).

        Every key is checked before anything runs; the results keep the input order.
        Without ``return_exceptions`` the first failing input's error (in input order) is
        raised once the runs already started have ended.
        """
        if not inputs:
            return []
        routes = self._routes(inputs)
        configs = get_config_list(config, len(inputs))

        def call(index: int) -> Any:
            runnable, value = routes[index]
            try:
                return runnable.invoke(value, configs[index], **kwargs)
            except Exception as err:
                if not return_exceptions:
                    raise
                return err

        return _run_in_threads(call, len(inputs), configs[0])

    async def abatch(
        self,
        inputs: Sequence[RouterInput],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """Async :meth:`batch`: one task per input, at most ``max_concurrency`` at once."""
        if not inputs:
            return []
        routes = self._routes(inputs)
        configs = get_config_list(config, len(inputs))

        async def call(index: int) -> Any:
            runnable, value = routes[index]
            try:
                return await runnable.ainvoke(value, configs[index], **kwargs)
            except Exception as err:
                if not return_exceptions:
                    raise
                return err

        return await _gather_limited(call, len(inputs), configs[0])

    def stream(
        self, input: RouterInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        runnable, value = self._route(input)
        yield from runnable.stream(value, config)

    async def astream(
        self, input: RouterInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        runnable, value = self._route(input)
        async for chunk in runnable.astream(value, config):
            yield chunk

"""RunnableRetry: call a runnable again when it raises one of the given exception types."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, cast

from ragline.core._checks import check_number, check_positive_int
from ragline.core.config import RunnableConfig, get_current_config, graph_config
from ragline.core.exceptions import ConfigurationError
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import Input, Output, Runnable
from ragline.core.runnables.runs import _aclose, part_config
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.callbacks.manager import BaseRunManager
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableRetry"]


def _one_of(name: str, value: Any, other_name: str, other: Any, default: Any) -> Any:
    """The value given under either of two names for one option (default if neither)."""
    if value is not None and other is not None and value != other:
        raise ConfigurationError(f"{name} and {other_name} name one option: give one of them")
    if value is not None:
        return value
    return other if other is not None else default


_JITTER_DEFAULTS = {"initial": 1.0, "max": 10.0, "exp_base": 2.0, "jitter": 1.0}


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableRetry(Runnable[Input, Output]):
    """Retry ``bound`` up to ``stop_after_attempt`` times on matching exceptions.

    The retry is a chain run; each attempt is a child run (the later ones tagged
    ``retry:attempt:N``). No ``on_retry`` is reported, as LangChain's retry reports none
    (its handlers hear of a retry only through the failed attempt's run). A stream is the
    bound runnable's, with no run of the retry's own, as LangChain's; it is retried only
    while no chunk has been yielded (a half-delivered stream cannot be taken back).

    Args:
        bound: the runnable to call.
        retry_if_exception_type: exception types that trigger a retry; others propagate.
        wait_exponential_jitter: wait ``min(max, initial * exp_base ** (n - 1))`` plus up
            to ``jitter`` random seconds before attempt ``n + 1``; False: no wait.
        stop_after_attempt: total attempts (>= 1).
        exponential_jitter_params: overrides for ``initial``, ``max``, ``exp_base``, ``jitter``.
        retry_exception_types, max_attempt_number: LangChain's constructor names for
            ``retry_if_exception_type`` and ``stop_after_attempt`` (also readable attributes).

    Raises:
        ConfigurationError: bad attempt count, exception types or jitter parameters.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> calls = []
        >>> def flaky(x):
        ...     calls.append(x)
        ...     if len(calls) < 3:
        ...         raise ConnectionError("try again")
        ...     return x
        >>> RunnableLambda(flaky).with_retry(wait_exponential_jitter=False).invoke(7), len(calls)
        (7, 3)
    """

    def __init__(
        self,
        bound: Runnable[Input, Output],
        *,
        retry_if_exception_type: tuple[type[BaseException], ...] | None = None,
        wait_exponential_jitter: bool = True,
        stop_after_attempt: int | None = None,
        exponential_jitter_params: dict[str, float] | None = None,
        retry_exception_types: tuple[type[BaseException], ...] | None = None,
        max_attempt_number: int | None = None,
    ) -> None:
        # LangChain's constructor names (retry_exception_types, max_attempt_number) and
        # with_retry's (retry_if_exception_type, stop_after_attempt) are both accepted
        retry_if_exception_type = _one_of(
            "retry_if_exception_type",
            retry_if_exception_type,
            "retry_exception_types",
            retry_exception_types,
            (Exception,),
        )
        stop_after_attempt = _one_of(
            "stop_after_attempt", stop_after_attempt, "max_attempt_number", max_attempt_number, 3
        )
        check_positive_int("stop_after_attempt", stop_after_attempt, error=ConfigurationError)
        # a bare class is not iterable: refuse it here rather than with tuple()'s TypeError
        given = retry_if_exception_type
        types = tuple(given) if isinstance(given, Iterable) else ()
        if not types or not all(
            isinstance(t, type) and issubclass(t, BaseException) for t in types
        ):
            raise ConfigurationError(
                f"retry_if_exception_type must be a non-empty tuple of exception classes, got "
                f"{retry_if_exception_type!r}"
            )
        params = dict(exponential_jitter_params or {})
        unknown = sorted(set(params) - set(_JITTER_DEFAULTS))
        if unknown:
            raise ConfigurationError(
                f"unknown exponential_jitter_params key(s) {unknown}; valid keys are "
                f"{sorted(_JITTER_DEFAULTS)}"
            )
        for key, value in params.items():  # checked now, not after the first failure
            name = f"exponential_jitter_params[{key!r}]"
            check_number(name, value, low=0, error=ConfigurationError)
        self.bound = bound
        self.retry_if_exception_type = types
        self.wait_exponential_jitter = wait_exponential_jitter
        self.stop_after_attempt = stop_after_attempt
        # what was given, as LangChain keeps it (None when nothing was); the wait reads
        # the given values over the defaults
        self.exponential_jitter_params: dict[str, float] | None = (
            None
            if exponential_jitter_params is None
            else {key: float(value) for key, value in params.items()}
        )

    @property
    def retry_exception_types(self) -> tuple[type[BaseException], ...]:
        """The exception types that trigger a retry (LangChain's attribute name)."""
        return self.retry_if_exception_type

    @retry_exception_types.setter
    def retry_exception_types(self, value: tuple[type[BaseException], ...]) -> None:
        self.retry_if_exception_type = value

    @property
    def max_attempt_number(self) -> int:
        """The total number of attempts (LangChain's attribute name)."""
        return self.stop_after_attempt

    @max_attempt_number.setter
    def max_attempt_number(self, value: int) -> None:
        self.stop_after_attempt = value

    def get_name(self) -> str:
        """The retried runnable's name unless a name was set (LangChain's: its runs are
        named after what they retry)."""
        return self.name or self.bound.get_name()

    def __repr__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return f"RunnableRetry({self._printed(', ')})"

    def __str__(self) -> str:
        return self._printed(" ")

    def _printed(self, separator: str) -> str:
        # LangChain's retry is a binding: bound, kwargs, config and config_factories show
        # always (a retry holds none of the last three here), its own fields when they are
        # not their defaults
        shown: dict[str, Any] = {"bound": self.bound, "kwargs": {}, "config": {}}
        shown["config_factories"] = []
        if self.retry_if_exception_type != (Exception,):
            shown["retry_exception_types"] = self.retry_if_exception_type
        if self.wait_exponential_jitter is not True:
            shown["wait_exponential_jitter"] = self.wait_exponential_jitter
        if self.exponential_jitter_params is not None:
            shown["exponential_jitter_params"] = self.exponential_jitter_params
        if self.stop_after_attempt != 3:
            shown["max_attempt_number"] = self.stop_after_attempt
        return printed_fields(self.name, separator, **shown)

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.bound._input_json(defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.bound._output_json(defs)

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.bound]

    def _wait_seconds(self, attempt: int) -> float:
        if not self.wait_exponential_jitter:
            return 0.0
        p = {**_JITTER_DEFAULTS, **(self.exponential_jitter_params or {})}
        base = min(p["max"], p["initial"] * p["exp_base"] ** (attempt - 1))
        return base + random.uniform(0, p["jitter"])

    def _should_retry(self, err: BaseException, attempt: int) -> bool:
        return isinstance(err, self.retry_if_exception_type) and attempt < self.stop_after_attempt

    def _attempts(self, input: Any, run: BaseRunManager, kwargs: dict[str, Any]) -> Any:
        attempt = 1
        while True:
            try:
                return self.bound.invoke(input, _attempt_config(attempt), **kwargs)
            except BaseException as err:
                if not self._should_retry(err, attempt):
                    raise
                wait = self._wait_seconds(attempt)
                time.sleep(wait)
                attempt += 1

    async def _aattempts(self, input: Any, run: BaseRunManager, kwargs: dict[str, Any]) -> Any:
        attempt = 1
        while True:
            try:
                return await self.bound.ainvoke(input, _attempt_config(attempt), **kwargs)
            except BaseException as err:
                if not self._should_retry(err, attempt):
                    raise
                wait = self._wait_seconds(attempt)
                await asyncio.sleep(wait)
                attempt += 1

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke ``bound``, retrying on matching exceptions."""
        return self._call_with_config(
            lambda x, run: self._attempts(x, run, kwargs), input, config, with_run_manager=True
        )

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async ``invoke`` (waits with ``asyncio.sleep``)."""
        return await self._acall_with_config(
            lambda x, run: self._aattempts(x, run, kwargs), input, config, with_run_manager=True
        )

    def _stream_attempts(
        self, input: Any, config: RunnableConfig | None, kwargs: dict[str, Any]
    ) -> Iterator[Any]:
        attempt = 1
        while True:
            started = False
            try:
                for chunk in self.bound.stream(input, _stream_config(config, attempt), **kwargs):
                    started = True
                    yield chunk
                return
            except Exception as err:
                if started or not self._should_retry(err, attempt):
                    raise
                time.sleep(self._wait_seconds(attempt))
                attempt += 1

    async def _astream_attempts(
        self, input: Any, config: RunnableConfig | None, kwargs: dict[str, Any]
    ) -> AsyncIterator[Any]:
        attempt = 1
        while True:
            started = False
            stream = self.bound.astream(input, _stream_config(config, attempt), **kwargs)
            try:
                async for chunk in stream:
                    started = True
                    yield chunk
                return
            except Exception as err:
                if started or not self._should_retry(err, attempt):
                    raise
                await asyncio.sleep(self._wait_seconds(attempt))
                attempt += 1
            finally:
                await _aclose(stream)  # a consumer that stopped early: end the attempt now

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream ``bound`` with ``config``, as LangChain's retry streams what it wraps
        (no run of its own: callbacks and ``astream_events`` see the bound runnable's run);
        an attempt that fails before its first chunk is retried."""
        return self._stream_attempts(input, config, kwargs)

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream`` with the same rule."""
        return self._astream_attempts(input, config, kwargs)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The bound runnable's graph (with the metadata of ``config``, ``{}`` without)."""
        return self.bound.get_graph(graph_config(config))


def _attempt_config(attempt: int) -> RunnableConfig | None:
    # a retried attempt's own run is tagged with its number, as LangChain's (not the
    # first, and not the runs inside the attempt)
    if attempt == 1:
        return None
    return part_config(get_current_config(), f"retry:attempt:{attempt}")


def _stream_config(config: RunnableConfig | None, attempt: int) -> RunnableConfig | None:
    # a retried stream's attempt: the caller's config, without a run_id of the first
    # attempt's, its run tagged with its number where the config is a run's child config
    if attempt == 1 or config is None:
        return config
    again = cast(RunnableConfig, {k: v for k, v in config.items() if k != "run_id"})
    return part_config(again, f"retry:attempt:{attempt}")

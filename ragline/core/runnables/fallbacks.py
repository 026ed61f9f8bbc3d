"""RunnableWithFallbacks: try a runnable, then each fallback in turn when it raises."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from ragline.core.config import RunnableConfig
from ragline.core.exceptions import ConfigurationError
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import Input, Output, Runnable, coerce_to_runnable
from ragline.core.runnables.runs import _aclose
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["RunnableWithFallbacks"]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableWithFallbacks(Runnable[Input, Output]):
    """Run ``runnable``; on a handled exception run the next fallback, and so on.

    The fallbacks run is a chain run with each attempt as a child run. If every
    runnable fails, the *first* error is raised (it is usually the one to fix). A stream
    falls back only while nothing has been yielded.

    Args:
        runnable: tried first.
        fallbacks: tried in order.
        exceptions_to_handle: exception types that trigger a fallback; others propagate.
        exception_key: if set, the input must be a dict and later attempts get the
            previous error under this key.

    Raises:
        ConfigurationError: no fallbacks, or bad exception types.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> def broken(x):
        ...     raise TimeoutError("primary is down")
        >>> backup = RunnableLambda(lambda x: f"backup:{x}")
        >>> RunnableLambda(broken).with_fallbacks([backup]).invoke("q")
        'backup:q'
    """

    _stream_end_inputs = False  # a streamed run's end has no inputs= (LangChain's)
    _starts_without_run_type = True  # as LangChain's, streamed or not
    _reports_stream_chunks = False  # astream_events shows none of its own, as LangChain's

    def __init__(
        self,
        runnable: Runnable[Input, Output],
        fallbacks: Sequence[Runnable[Input, Output]],
        *,
        exceptions_to_handle: tuple[type[BaseException], ...] = (Exception,),
        exception_key: str | None = None,
    ) -> None:
        if not isinstance(fallbacks, Iterable):  # a single runnable, say
            raise ConfigurationError(
                "with_fallbacks takes a list of fallback runnables, got "
                f"{type(fallbacks).__name__}; "
                "pass [fallback] for one"
            )
        if not fallbacks:
            raise ConfigurationError("with_fallbacks needs at least one fallback runnable")
        given = exceptions_to_handle
        types = tuple(given) if isinstance(given, Iterable) else ()
        if not types or not all(
            isinstance(t, type) and issubclass(t, BaseException) for t in types
        ):
            raise ConfigurationError(
                f"exceptions_to_handle must be a non-empty tuple of exception classes, got "
                f"{exceptions_to_handle!r}"
            )
        self.runnable = runnable
        self.fallbacks = [coerce_to_runnable(f) for f in fallbacks]
        self.exceptions_to_handle = types
        self.exception_key = exception_key

    @property
    def runnables(self) -> list[Runnable[Input, Output]]:
        """The primary runnable followed by the fallbacks."""
        return [self.runnable, *self.fallbacks]

    def __getattr__(self, name: str) -> Any:
        """What this lacks comes from ``runnable``, as in LangChain (``.model_name``); a
        method annotated to return a runnable (``bind_tools``, ``with_structured_output``)
        is called on ``runnable`` and on each fallback, and gives their fallbacks. Private
        names (``_x``) are not handed on, and calls through this cost nothing more."""
        runnable = self.__dict__.get("runnable")
        if runnable is None or name.startswith("_"):  # also mid-construction, copy, pickle
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        attr = getattr(runnable, name)
        if not _returns_runnable(attr):
            return attr

        @functools.wraps(attr)
        def on_each(*args: Any, **kwargs: Any) -> Any:
            made = type(self)(
                attr(*args, **kwargs),
                [getattr(fallback, name)(*args, **kwargs) for fallback in self.fallbacks],
                exceptions_to_handle=self.exceptions_to_handle,
                exception_key=self.exception_key,
            )
            made.name = self.name
            return made

        return on_each

    def get_name(self) -> str:
        """``RunnableWithFallbacks`` unless a name was set."""
        return self.name or "RunnableWithFallbacks"

    def __repr__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return f"RunnableWithFallbacks({self._printed(', ')})"

    def __str__(self) -> str:
        return self._printed(" ")

    def _printed(self, separator: str) -> str:
        # exceptions_to_handle and exception_key show when they are not their defaults
        shown: dict[str, Any] = {"runnable": self.runnable, "fallbacks": self.fallbacks}
        if self.exceptions_to_handle != (Exception,):
            shown["exceptions_to_handle"] = self.exceptions_to_handle
        if self.exception_key is not None:
            shown["exception_key"] = self.exception_key
        return printed_fields(self.name, separator, **shown)

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.runnable._input_json(defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.runnable._output_json(defs)

    def _input_title(self) -> str:  # the schemas are the first runnable's, names too
        return self.runnable._input_title()

    def _output_title(self) -> str:
        return self.runnable._output_title()

    def _children(self) -> list[Runnable[Any, Any]]:
        return list(self.runnables)

    def _input_for(self, input: Any, last_error: BaseException | None) -> Any:
        if self.exception_key is None:
            return input
        if not isinstance(input, dict):
            # a plain ValueError, the class LangChain raises here (parity)
            raise ValueError(
                f"with_fallbacks(exception_key={self.exception_key!r}) needs a dict input, got "
                f"{type(input).__name__}"
            )
        return {**input, self.exception_key: last_error} if last_error is not None else input

    def _try_all(self, input: Any) -> Any:
        first_error: BaseException | None = None
        last_error: BaseException | None = None
        for runnable in self.runnables:
            try:
                return runnable.invoke(self._input_for(input, last_error))
            except self.exceptions_to_handle as err:
                first_error = first_error or err
                last_error = err
        assert first_error is not None
        raise first_error

    async def _atry_all(self, input: Any) -> Any:
        first_error: BaseException | None = None
        last_error: BaseException | None = None
        for runnable in self.runnables:
            try:
                return await runnable.ainvoke(self._input_for(input, last_error))
            except self.exceptions_to_handle as err:
                first_error = first_error or err
                last_error = err
        assert first_error is not None
        raise first_error

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Return the first successful runnable's output."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._try_all, input, config)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async ``invoke``."""
        self._reject_kwargs(kwargs)
        return await self._acall_with_config(self._atry_all, input, config)

    def _stream_first_working(self, chunks: Iterator[Any]) -> Iterator[Any]:
        input = next(chunks)
        first_error: BaseException | None = None
        last_error: BaseException | None = None
        for runnable in self.runnables:
            iterator = runnable.stream(self._input_for(input, last_error))
            try:
                first = next(iterator)
            except StopIteration:
                return
            except self.exceptions_to_handle as err:
                first_error = first_error or err
                last_error = err
                continue
            yield first
            yield from iterator
            return
        assert first_error is not None
        raise first_error

    async def _astream_first_working(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        input = await chunks.__anext__()
        first_error: BaseException | None = None
        last_error: BaseException | None = None
        for runnable in self.runnables:
            iterator = runnable.astream(self._input_for(input, last_error)).__aiter__()
            try:
                first = await iterator.__anext__()
            except StopAsyncIteration:
                return
            except self.exceptions_to_handle as err:
                first_error = first_error or err
                last_error = err
                continue
            try:
                yield first
                async for chunk in iterator:
                    yield chunk
            finally:
                await _aclose(iterator)  # a consumer that stopped early: end its run now
            return
        assert first_error is not None
        raise first_error

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the first runnable that yields a chunk without error."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(
            iter([input]), self._stream_first_working, config, start_input=input
        )

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(
            one(), self._astream_first_working, config, start_input=input
        )


def _returns_runnable(attr: Any) -> bool:
    """Whether ``attr`` is a callable whose return annotation is a runnable type (or a
    union of them), LangChain's test; an annotation that cannot be resolved counts as not."""
    if not callable(attr):
        return False
    try:
        returned = typing.get_type_hints(attr).get("return")
    except Exception:  # a name imported for type checking only, a broken annotation
        return False
    return returned is not None and _is_runnable_type(returned)


def _is_runnable_type(hint: Any) -> bool:
    if inspect.isclass(hint):
        return issubclass(hint, Runnable)
    origin = typing.get_origin(hint)
    if inspect.isclass(origin):
        return issubclass(origin, Runnable)
    if origin is typing.Union:
        return all(_is_runnable_type(arg) for arg in typing.get_args(hint))
    return False

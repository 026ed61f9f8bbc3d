"""RunnablePassthrough, RunnableAssign and RunnablePick: pass input on, add keys, pick keys."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core.config import RunnableConfig
from ragline.core.exceptions import InvalidInputError, MissingVariableError
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import Input, Runnable
from ragline.core.runnables.parallel import RunnableParallel
from ragline.core.runnables.runs import _NOTHING, AddableDict, _aclose, add_chunks
from ragline.core.runnables.schema import merged_model, model_fields
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableAssign", "RunnablePassthrough", "RunnablePick"]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnablePassthrough(Runnable[Input, Input]):
    """Return the input unchanged (chunks stream straight through).

    Args:
        func: optional side effect called with the (whole) input, e.g. logging.

    Example:
        >>> from ragline.core import RunnableParallel
        >>> RunnableParallel(original=RunnablePassthrough(), n=lambda x: len(x)).invoke("abc")
        {'original': 'abc', 'n': 3}
    """

    def __init__(
        self, func: Callable[[Any], Any] | None = None, *, name: str | None = None
    ) -> None:
        if func is not None and not callable(func):  # LangChain's validation refuses it too
            raise InvalidInputError(
                f"RunnablePassthrough's func must be callable, got {type(func).__name__}"
            )
        self.func = func
        self.name = name

    def __repr__(self) -> str:  # LangChain's shows no field, not even a name
        return f"{type(self).__name__}()"

    def __str__(self) -> str:  # LangChain's prints as a pydantic model with none shown
        return ""

    @classmethod
    def assign(cls, **steps: Any) -> RunnableAssign:  # type: ignore[override]
        """Return a runnable that adds ``{key: step(input)}`` to its dict input.

        Example:
            >>> RunnablePassthrough.assign(total=lambda d: d["a"] + d["b"]).invoke({"a": 1, "b": 2})
            {'a': 1, 'b': 2, 'total': 3}
        """
        return RunnableAssign(RunnableParallel(steps))

    def _identity(self, input: Any) -> Any:
        if self.func is not None:
            self.func(input)
        return input

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Input:
        """Return ``input``."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._identity, input, config)

    def _pass(self, chunks: Iterator[Any]) -> Iterator[Any]:
        total = _NOTHING
        for chunk in chunks:
            total = add_chunks(total, chunk) if self.func else total
            yield chunk
        if self.func is not None and total is not _NOTHING:
            self.func(total)

    async def _apass(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        total = _NOTHING
        async for chunk in chunks:
            total = add_chunks(total, chunk) if self.func else total
            yield chunk
        if self.func is not None and total is not _NOTHING:
            self.func(total)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Input]:
        """Yield each input chunk as soon as it arrives."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(input, self._pass, config)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Input]:
        """Yield ``input``."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._pass, config)

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Input]:
        """Async ``transform``."""
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(input, self._apass, config)


def _require_dict(runnable: Runnable[Any, Any], value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInputError(
            f"{runnable.get_name()} needs a dict input, got {type(value).__name__}: {value!r:.80}"
        )
    return value


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableAssign(Runnable[dict[str, Any], dict[str, Any]]):
    """Add the outputs of a RunnableParallel to the dict input.

    Streaming yields the input's own keys first, then the new keys' chunks as they
    come, so ``RunnablePassthrough.assign(answer=prompt | model)`` streams the answer.

    Args:
        mapper: the RunnableParallel whose outputs are added.

    Raises:
        InvalidInputError: the input is not a dict.
    """

    def __init__(
        self, mapper: RunnableParallel[dict[str, Any]], *, name: str | None = None
    ) -> None:
        if isinstance(mapper, dict):
            # a dict of steps, as LangChain's accepts (it makes them a RunnableParallel)
            mapper = RunnableParallel(mapper)
        self.mapper = mapper
        self.name = name

    def get_name(self) -> str:
        """``RunnableAssign<key1,key2>`` unless a name was set."""
        return self.name or f"RunnableAssign<{','.join(self.mapper.steps)}>"

    def __repr__(self) -> str:
        return f"RunnableAssign({printed_fields(self.name, ', ', mapper=self.mapper)})"

    def __str__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return printed_fields(self.name, mapper=self.mapper)

    # Schemas as LangChain's: when the mapper's input is a model (an object with fields),
    # the input is that model and the output adds the mapper's output fields to it;
    # otherwise the input is any dict and the output the mapper's output.
    def _added_keys(self) -> list[str]:
        return list(self.mapper.steps)

    def _mapper_input(self, defs: dict[str, Any]) -> dict[str, Any] | None:
        schema = self.mapper._input_json(defs)
        return schema if "properties" in schema else None

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        schema = self._mapper_input(defs)
        if schema is None:
            return {"type": "object", "additionalProperties": True}
        return {"title": self.mapper._input_title(), **schema}

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        schema = self._mapper_input(defs)
        if schema is None:
            return {"title": self.mapper._output_title(), **self.mapper._output_json(defs)}
        return self._added_to(schema, defs, "RunnableAssignOutput")

    def _output_json_after(
        self, before: dict[str, Any], defs: dict[str, Any], title: str = "RunnableSequenceOutput"
    ) -> dict[str, Any] | None:
        """The output after a step whose output schema is ``before`` (a sequence asks):
        ``before``'s fields then the added ones; ``None`` when ``before`` is no model."""
        if "properties" not in before:
            return None
        return self._added_to(before, defs, title)

    def _added_to(self, before: dict[str, Any], defs: dict[str, Any], title: str) -> dict[str, Any]:
        added = model_fields(self.mapper._output_json(defs), defs)
        return merged_model([model_fields(before, defs), added], title)

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.mapper]

    def _assign(self, input: Any) -> dict[str, Any]:
        return {**_require_dict(self, input), **self.mapper.invoke(input)}

    async def _aassign(self, input: Any) -> dict[str, Any]:
        return {**_require_dict(self, input), **(await self.mapper.ainvoke(input))}

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Return ``{**input, **mapper.invoke(input)}``."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._assign, input, config)

    async def ainvoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async ``invoke`` (the mapper's branches run as tasks)."""
        self._reject_kwargs(kwargs)
        return await self._acall_with_config(self._aassign, input, config)

    def _split(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        outputs: list[Any] = [None] * len(values)
        valid = []
        for i, value in enumerate(values):
            try:
                _require_dict(self, value)
                valid.append(i)
            except InvalidInputError as err:
                outputs[i] = err
        return outputs, valid

    @staticmethod
    def _merge_rows(
        values: list[Any], outputs: list[Any], valid: list[int], mapped: list[Any]
    ) -> list[Any]:
        for i, extra in zip(valid, mapped, strict=True):
            outputs[i] = extra if isinstance(extra, Exception) else {**values[i], **extra}
        return outputs

    def _batch_assign(self, values: list[Any], children: list[RunnableConfig]) -> list[Any]:
        outputs, valid = self._split(values)
        mapped = (
            self.mapper.batch(
                [values[i] for i in valid], [children[i] for i in valid], return_exceptions=True
            )
            if valid
            else []
        )
        return self._merge_rows(values, outputs, valid, mapped)

    async def _abatch_assign(self, values: list[Any], children: list[RunnableConfig]) -> list[Any]:
        outputs, valid = self._split(values)
        mapped = (
            await self.mapper.abatch(
                [values[i] for i in valid], [children[i] for i in valid], return_exceptions=True
            )
            if valid
            else []
        )
        return self._merge_rows(values, outputs, valid, mapped)

    def batch(
        self,
        inputs: Sequence[dict[str, Any]],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """Batch through the mapper's ``batch`` (one call per branch for all inputs)."""
        self._reject_kwargs(kwargs)
        return self._batch_with_config(
            inputs, config, self._batch_assign, return_exceptions=return_exceptions
        )

    async def abatch(
        self,
        inputs: Sequence[dict[str, Any]],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """Async twin of :meth:`batch`."""
        self._reject_kwargs(kwargs)
        return await self._abatch_with_config(
            inputs, config, self._abatch_assign, return_exceptions=return_exceptions
        )

    def _passed_on(self, chunk: Any) -> AddableDict:
        # an input chunk's keys the mapper does not set, yielded as the chunk arrives (as
        # LangChain's: a streamed parallel's {"a": ...} and {"b": ...} stay two chunks)
        return AddableDict((k, v) for k, v in chunk.items() if k not in self.mapper.steps)

    def _stream_assign(self, chunks: Iterator[Any]) -> Iterator[dict[str, Any]]:
        total = _NOTHING
        for chunk in chunks:
            total = add_chunks(total, chunk)
            if isinstance(chunk, dict) and (kept := self._passed_on(chunk)):
                yield kept
        data = _require_dict(self, None if total is _NOTHING else total)
        yield from self.mapper.stream(data)

    async def _astream_assign(self, chunks: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
        total = _NOTHING
        async for chunk in chunks:
            total = add_chunks(total, chunk)
            if isinstance(chunk, dict) and (kept := self._passed_on(chunk)):
                yield kept
        data = _require_dict(self, None if total is _NOTHING else total)
        stream = self.mapper.astream(data)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            await _aclose(stream)  # a consumer that stopped early: end the mapper's run now

    def transform(
        self, input: Iterator[dict[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Yield each input chunk's keys (less the new ones) as it arrives, then the new
        keys' chunks."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(input, self._stream_assign, config)

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Stream for one input (see :meth:`transform`)."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._stream_assign, config)

    def atransform(
        self,
        input: AsyncIterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Async ``transform``."""
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(input, self._astream_assign, config)

    def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async ``stream``."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(one(), self._astream_assign, config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The mapper's graph (its schemas' nodes, a branch per key) with a passthrough
        branch added last, as LangChain draws an assign."""
        graph = self.mapper.get_graph(config)
        first, last = graph.first_node(), graph.last_node()
        if first is not None and last is not None:
            passthrough = graph.add_node(RunnablePassthrough())
            graph.add_edge(first, passthrough)
            graph.add_edge(passthrough, last)
        return graph


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnablePick(Runnable[dict[str, Any], Any]):
    """Pick one key's value (``keys="answer"``) or a sub-dict (``keys=["a", "b"]``).

    Streaming picks from each chunk as it arrives, so ``chain.pick("answer")`` streams
    the answer. A list of keys keeps the keys present (None when none is).

    Raises:
        InvalidInputError: the input is not a dict.
        MissingVariableError: a single key that the input lacks (names the keys it has).

    Example:
        >>> RunnablePick("b").invoke({"a": 1, "b": 2}), RunnablePick(["a"]).invoke({"a": 1, "b": 2})
        (2, {'a': 1})
    """

    def __init__(self, keys: str | list[str], *, name: str | None = None) -> None:
        if not isinstance(keys, (str, list)) or (
            isinstance(keys, list) and not all(isinstance(k, str) for k in keys)
        ):
            raise InvalidInputError(
                f"RunnablePick keys must be a str or a list of str, got {keys!r}"
            )
        self.keys = keys
        self.name = name

    def __repr__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return f"RunnablePick({printed_fields(self.name, ', ', keys=self.keys)})"

    def __str__(self) -> str:
        return printed_fields(self.name, keys=self.keys)

    def _output_json_after(
        self, before: dict[str, Any], defs: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The output after a step whose output schema is ``before`` (a sequence asks), as
        LangChain computes it: a list of keys keeps ``before``'s fields among them, one
        key is that field's schema; ``None`` (this pick's own schema) when ``before`` is no
        model or lacks the one key."""
        if "properties" not in before:
            return None
        fields = model_fields(before, defs)
        title = "RunnableSequenceOutput"
        if isinstance(self.keys, list):
            return merged_model([[f for f in fields if f[0] in self.keys]], title)
        picked = [prop for name, prop, _ in fields if name == self.keys]
        if not picked:
            return None
        return {**{k: v for k, v in picked[0].items() if k != "title"}, "title": title}

    def get_name(self) -> str:
        """``RunnablePick<keys>`` unless a name was set."""
        keys = self.keys if isinstance(self.keys, str) else ",".join(self.keys)
        return self.name or f"RunnablePick<{keys}>"

    def _pick(self, input: Any, strict: bool = True) -> Any:
        data = _require_dict(self, input)
        if isinstance(self.keys, str):
            if self.keys not in data:
                if not strict:
                    return _NOTHING
                raise MissingVariableError(
                    f"{self.get_name()}: input has no key {self.keys!r}; its keys are "
                    f"{sorted(data)}"
                )
            value = data[self.keys]
            # a stream skips a None value as a missing key, as LangChain's (its pick
            # gives None for both, and its stream skips None)
            return _NOTHING if value is None and not strict else value
        picked = AddableDict((k, data[k]) for k in self.keys if k in data)
        if picked:
            return picked
        # none of the keys: LangChain's pick gives None (and a stream skips the chunk)
        return None if strict else _NOTHING

    def invoke(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Return the picked value(s)."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._pick, input, config)

    def _pick_chunks(self, chunks: Iterator[Any]) -> Iterator[Any]:
        for chunk in chunks:
            picked = self._pick(chunk, strict=False)
            if picked is not _NOTHING:
                yield picked

    async def _apick_chunks(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for chunk in chunks:
            picked = self._pick(chunk, strict=False)
            if picked is not _NOTHING:
                yield picked

    def transform(
        self, input: Iterator[dict[str, Any]], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Pick from each input chunk as it arrives (chunks without the keys, or whose one
        key holds None, are skipped)."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(input, self._pick_chunks, config)

    def stream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Stream for one input, as :meth:`transform` (nothing when it lacks the keys, or
        its one key holds None)."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._pick_chunks, config)

    def atransform(
        self,
        input: AsyncIterator[dict[str, Any]],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Async ``transform``."""
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(input, self._apick_chunks, config)

    def astream(
        self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async ``stream``."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(one(), self._apick_chunks, config)

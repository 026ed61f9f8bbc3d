"""RunnableSequence: ``a | b | c``, each step's output is the next step's input."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core._drive import Effect, Operation, adrive, drive
from ragline.core.config import RunnableConfig, get_current_config
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables._printing import indent_after_first, printed_fields
from ragline.core.runnables.base import Input, Output, Runnable, coerce_to_runnable
from ragline.core.runnables.runs import ainvoke_steps, invoke_steps, part_config
from ragline.core.runnables.schema import merged_model, model_fields
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableSequence"]


def _tags_for(count: int) -> Sequence[str]:
    """At least ``count`` step tags, ``seq:step:1`` on (made once for the usual lengths;
    no slice: the steps are zipped or indexed with them)."""
    return _STEP_TAGS if count <= _MADE else _more_tags(count)


def _more_tags(count: int) -> list[str]:
    return [f"seq:step:{index}" for index in range(1, count + 1)]


_MADE = 32
_STEP_TAGS = tuple(_more_tags(_MADE))


async def _aiter_one(value: Any) -> AsyncIterator[Any]:
    yield value


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableSequence(Runnable[Input, Output]):
    """Run steps one after another; made by ``a | b``.

    Nested sequences are flattened. Streaming is real: ``stream`` chains the steps'
    ``transform`` methods, so a step that streams (a model, a parser, a generator)
    passes chunks on as they come, and a step that cannot transform buffers its input.
    ``batch`` calls each step's ``batch`` once for all inputs (so a retriever with a
    batch search runs it once) while still reporting one sequence run per input.

    Args:
        steps: two or more runnables (callables and dicts are coerced).
        name: the run name (default ``"RunnableSequence"``).
        first, middle, last: the steps given LangChain's way (``RunnableSequence(first=a,
            middle=[b], last=c)``), instead of ``steps``.

    Raises:
        InvalidInputError: fewer than two steps.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> seq = RunnableLambda(lambda x: x + 1) | (lambda x: x * 2)
        >>> seq.invoke(3), len(seq.steps)
        (8, 2)
    """

    _starts_without_run_type = True  # as LangChain's (a streamed run passes one)

    def __init__(
        self,
        *steps: Any,
        name: str | None = None,
        first: Any = None,
        middle: Sequence[Any] | None = None,
        last: Any = None,
    ) -> None:
        if first is not None or middle or last is not None:
            if steps or first is None or last is None:
                raise InvalidInputError(
                    "RunnableSequence takes its steps positionally, or as first= and last= "
                    "(with middle=[...] between them), not both"
                )
            steps = (first, *(middle or ()), last)
        flat: list[Runnable[Any, Any]] = []
        for step in steps:
            runnable = coerce_to_runnable(step)
            if isinstance(runnable, RunnableSequence) and runnable.name is None:
                flat.extend(runnable.steps)
            else:
                flat.append(runnable)
        if len(flat) < 2:
            raise InvalidInputError(f"RunnableSequence needs at least 2 steps, got {len(flat)}")
        self.first: Runnable[Input, Any] = flat[0]
        self.middle: list[Runnable[Any, Any]] = flat[1:-1]
        self.last: Runnable[Any, Output] = flat[-1]
        self.name = name

    @property
    def steps(self) -> list[Runnable[Any, Any]]:
        """All steps, first to last."""
        return [self.first, *self.middle, self.last]

    def __repr__(self) -> str:
        # LangChain's form: a step's further lines indented under its "| "
        return "\n| ".join(
            repr(step) if index == 0 else indent_after_first(repr(step), 2)
            for index, step in enumerate(self.steps)
        )

    def __str__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return printed_fields(self.name, first=self.first, middle=self.middle, last=self.last)

    def _children(self) -> list[Runnable[Any, Any]]:
        return self.steps

    @property
    def InputType(self) -> Any:
        """The first step's input type."""
        return self.first.InputType

    @property
    def OutputType(self) -> Any:
        """The last step's output type."""
        return self.last.OutputType

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return _steps_input_json(self.steps, defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return _steps_output_json(self.steps, defs)

    def _input_title(self) -> str:
        return self.first._input_title()

    def _output_title(self) -> str:
        return self.last._output_title()

    def _check_keywords(self, kwargs: dict[str, Any], method: str) -> None:
        """Refuse keyword options, but drop with a warning a config key given as one
        (``chain.abatch(inputs, max_concurrency=10)``).

        LangChain's sequence hands keywords to its first step, and a parallel step, a
        prompt or a model ignores them: the call runs without the option. ragline runs
        the same and says so. A first step that is a function still refuses it (LangChain
        calls the function with it, a ``TypeError``), as does any other keyword.
        """
        if not kwargs:  # every plain call: nothing to look at (invoke's hot path)
            return
        from ragline.core.runnables.lambdas import RunnableLambda

        if not isinstance(self.first, RunnableLambda):
            kwargs = self._drop_config_keywords(kwargs, method)
        self._reject_kwargs(kwargs)

    # ---- single input ---------------------------------------------------------------
    def _invoke_steps(self, input: Any) -> Any:
        steps = self.steps  # each step's run is tagged seq:step:N, as LangChain's
        return invoke_steps(steps, input, _tags_for(len(steps)))

    async def _ainvoke_steps(self, input: Any) -> Any:
        steps = self.steps
        return await ainvoke_steps(steps, input, _tags_for(len(steps)))

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Run the steps in order, as one chain run with a child run per step."""
        self._check_keywords(kwargs, "invoke")
        steps = self.steps  # each step's run is tagged seq:step:N, as LangChain's
        return self._call_steps_with_config(steps, _tags_for(len(steps)), input, config)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Await each step's ``ainvoke`` in order."""
        self._check_keywords(kwargs, "ainvoke")
        steps = self.steps
        return await self._acall_steps_with_config(steps, _tags_for(len(steps)), input, config)

    # ---- streaming ------------------------------------------------------------------
    def _transform_steps(self, chunks: Iterator[Any]) -> Iterator[Any]:
        config = get_current_config()
        steps = self.steps
        for step, tag in zip(steps, _tags_for(len(steps)), strict=False):
            chunks = step.transform(chunks, part_config(config, tag))
        return chunks

    def _atransform_steps(self, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        config = get_current_config()
        steps = self.steps
        for step, tag in zip(steps, _tags_for(len(steps)), strict=False):
            chunks = step.atransform(chunks, part_config(config, tag))
        return chunks

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the last step's chunks as they are produced."""
        self._check_keywords(kwargs, "stream")
        return self._transform_stream_with_config(iter([input]), self._transform_steps, config)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream from a stream of input chunks through every step."""
        self._check_keywords(kwargs, "transform")
        return self._transform_stream_with_config(input, self._transform_steps, config)

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``."""
        self._check_keywords(kwargs, "astream")
        return self._atransform_stream_with_config(
            _aiter_one(input), self._atransform_steps, config
        )

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``transform``."""
        self._check_keywords(kwargs, "atransform")
        return self._atransform_stream_with_config(input, self._atransform_steps, config)

    # ---- many inputs ----------------------------------------------------------------
    def _batch_operation(
        self, values: list[Any], children: list[RunnableConfig]
    ) -> Operation[list[Any]]:
        """Each step on the inputs still alive, failures kept in place (once for both
        drivers: it yields each step's batch and receives its outputs)."""
        failed: dict[int, Exception] = {}
        for index, step in enumerate(self.steps, 1):
            alive = [i for i in range(len(values)) if i not in failed]
            if not alive:
                break
            tag = f"seq:step:{index}"
            inputs = [values[i] for i in alive]
            configs = [part_config(children[i], tag) for i in alive]
            outputs = yield Effect(step.batch, step.abatch, inputs, configs, return_exceptions=True)
            for i, output in zip(alive, outputs, strict=True):
                if isinstance(output, Exception):
                    failed[i] = output
                else:
                    values[i] = output
        return [failed.get(i, value) for i, value in enumerate(values)]

    def _batch_steps(self, values: list[Any], children: list[RunnableConfig]) -> list[Any]:
        return drive(self._batch_operation(values, children))

    async def _abatch_steps(self, values: list[Any], children: list[RunnableConfig]) -> list[Any]:
        return await adrive(self._batch_operation(values, children))

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Batch step by step: each step's ``batch`` runs once over the surviving inputs.

        An input whose step fails drops out; the others finish. Without
        ``return_exceptions`` the first failure (in input order) is raised afterwards.
        """
        self._check_keywords(kwargs, "batch")
        return self._batch_with_config(
            inputs, config, self._batch_steps, return_exceptions=return_exceptions
        )

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Async twin of :meth:`batch`."""
        self._check_keywords(kwargs, "abatch")
        return await self._abatch_with_config(
            inputs, config, self._abatch_steps, return_exceptions=return_exceptions
        )

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """Chain the steps' graphs: the last node of each joins the first of the next."""
        from ragline.core.runnables.graph import Graph

        return Graph.sequence(self.steps, config)


def _steps_input_json(steps: Sequence[Runnable[Any, Any]], defs: dict[str, Any]) -> dict[str, Any]:
    """The input schema of ``steps`` run in turn, as LangChain computes it: a first step
    that adds keys (RunnablePassthrough.assign) takes what the rest takes, less the keys
    it adds, when the rest takes a model (an object with fields)."""
    first = steps[0]
    adds = getattr(first, "_added_keys", None)
    if adds is not None and len(steps) > 1:
        rest = _steps_input_json(steps[1:], defs)
        if "properties" in rest:
            added = set(adds())
            fields = [field for field in model_fields(rest, defs) if field[0] not in added]
            return merged_model([fields], "RunnableSequenceInput")
    return first._input_json(defs)


def _steps_output_json(steps: Sequence[Runnable[Any, Any]], defs: dict[str, Any]) -> dict[str, Any]:
    """The output schema of ``steps`` run in turn, as LangChain computes it: a last step
    that adds keys (RunnablePassthrough.assign) extends the schema before it, which for a
    single step before it is that step's *input* schema (LangChain's rule, kept for parity).
    """
    last = steps[-1]
    extend = getattr(last, "_output_json_after", None)
    if extend is not None and len(steps) > 1:
        if len(steps) == 2:
            before = steps[0]._input_json(defs)
        else:
            before = _steps_output_json(steps[:-1], defs)
        schema = extend(before, defs)
        if schema is not None:
            return schema
    return last._output_json(defs)

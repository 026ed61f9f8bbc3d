"""RunnableParallel: the same input to several runnables at once, outputs as a dict."""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ragline.core._json_schema import field_title
from ragline.core.config import RunnableConfig, get_current_config
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables._printing import indent_after_first, printed_fields
from ragline.core.runnables.base import Input, Runnable, coerce_to_runnable
from ragline.core.runnables.runs import (
    AddableDict,
    _aclose,
    ainvoke_part,
    invoke_part,
    part_config,
)
from ragline.core.runnables.schema import field_defs, merged_model, model_fields
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableMap", "RunnableParallel"]

_DONE: Any = object()


def _limit(count: int) -> int:
    config = get_current_config() or {}
    return max(1, min(count, config.get("max_concurrency") or count))


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableParallel(Runnable[Input, dict[str, Any]]):
    """Run branches concurrently on one input; return ``{key: branch output}``.

    Sync calls run the branches in threads (at most ``max_concurrency`` at once), async
    calls as tasks. Each branch is a child run of the parallel run. A dict inside a
    chain (``{"context": retriever, "question": RunnablePassthrough()} | prompt``)
    becomes one of these.

    Args:
        steps: ``{key: runnable-or-callable}``; may also be given as keyword arguments.

    Example:
        >>> RunnableParallel(double=lambda x: x * 2, square=lambda x: x * x).invoke(3)
        {'double': 6, 'square': 9}
    """

    _starts_without_run_type = True  # as LangChain's (a streamed run passes one)

    def __init__(self, steps: Mapping[str, Any] | None = None, /, **kwargs: Any) -> None:
        merged = {**(steps or {}), **kwargs}
        bad = [key for key in merged if not isinstance(key, str)]
        if bad:  # they name the output keys (and the run): refused here, not at invoke
            raise InvalidInputError(f"RunnableParallel keys must be str, got {bad[0]!r}")
        self.steps: dict[str, Runnable[Input, Any]] = {
            key: coerce_to_runnable(value) for key, value in merged.items()
        }

    @property
    def steps__(self) -> dict[str, Runnable[Input, Any]]:
        """``steps`` under LangChain's field name (programs read ``parallel.steps__``)."""
        return self.steps

    def get_name(self) -> str:
        """``RunnableParallel<key1,key2>`` unless a name was set."""
        return self.name or f"RunnableParallel<{','.join(self.steps)}>"

    def __repr__(self) -> str:
        # LangChain's form: one step a line, a step's further lines under its first
        lines = ",\n  ".join(
            f"{key}: {indent_after_first(repr(step), len(key) + 4)}"
            for key, step in self.steps.items()
        )
        return "{\n  " + lines + "\n}"

    def __str__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return printed_fields(self.name, steps__=self.steps)

    def _children(self) -> list[Runnable[Any, Any]]:
        return list(self.steps.values())

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        # LangChain writes each branch's input type here (a field, or the root from one
        # branch), not the branch's own schema model: a map's items inline (FieldDefs)
        fields_defs = field_defs(defs)
        schemas = [step._input_json(fields_defs) for step in self.steps.values()]
        defs.update(fields_defs)
        if all(schema.get("type", "object") == "object" for schema in schemas):
            # as LangChain's: every branch takes an object (or anything): one object with
            # the fields of every branch's input model (``root`` for a branch taking Any);
            # a branch taking a typed root (a bare dict) leaves it the parallel's own
            sources = [model_fields(schema, defs) for schema in schemas]
            for fields in sources:
                for name, prop, _ in fields:
                    if name == "root" and any(key != "title" for key in prop):
                        return super()._input_json(defs)
            return merged_model(sources)
        for schema in schemas:  # the first branch that says what it takes
            if schema:
                return schema
        return {}

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        fields_defs = field_defs(defs)  # each branch's output type, as a field
        properties = {
            key: {**step._output_json(fields_defs), "title": field_title(key)}
            for key, step in self.steps.items()
        }
        defs.update(fields_defs)
        return {"type": "object", "properties": properties, "required": list(self.steps)}

    # ---- single input ---------------------------------------------------------------
    def _invoke_branches(self, input: Any) -> dict[str, Any]:
        config = get_current_config()  # this run's child config
        if len(self.steps) <= 1:
            return {
                key: invoke_part(step, input, part_config(config, f"map:key:{key}"))
                for key, step in self.steps.items()
            }
        with ThreadPoolExecutor(max_workers=_limit(len(self.steps))) as pool:
            futures = {
                key: pool.submit(
                    contextvars.copy_context().run,
                    invoke_part,
                    step,
                    input,
                    part_config(config, f"map:key:{key}"),
                )
                for key, step in self.steps.items()
            }
            return {key: future.result() for key, future in futures.items()}

    async def _ainvoke_branches(self, input: Any) -> dict[str, Any]:
        semaphore = asyncio.Semaphore(_limit(len(self.steps)))
        config = get_current_config()

        async def run(key: str, step: Runnable[Any, Any]) -> Any:
            async with semaphore:
                return await ainvoke_part(step, input, part_config(config, f"map:key:{key}"))

        results = await asyncio.gather(*(run(key, step) for key, step in self.steps.items()))
        return dict(zip(self.steps, results, strict=True))

    def invoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run every branch on ``input`` (threads) and collect their outputs."""
        self._reject_kwargs(kwargs)
        return self._call_with_config(self._invoke_branches, input, config)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run every branch on ``input`` as asyncio tasks."""
        self._reject_kwargs(kwargs)
        return await self._acall_with_config(self._ainvoke_branches, input, config)

    # ---- many inputs ----------------------------------------------------------------
    def _rows(self, columns: dict[str, list[Any]], count: int) -> list[Any]:
        rows: list[Any] = []
        for i in range(count):
            error = next(
                (col[i] for col in columns.values() if isinstance(col[i], Exception)), None
            )
            rows.append(
                error if error is not None else {key: col[i] for key, col in columns.items()}
            )
        return rows

    def _batch_branches(self, values: list[Any], children: list[RunnableConfig]) -> list[Any]:
        def column(key: str, step: Runnable[Any, Any]) -> list[Any]:
            configs = [part_config(child, f"map:key:{key}") for child in children]
            return step.batch(values, configs, return_exceptions=True)

        if children[0].get("max_concurrency") or len(self.steps) <= 1:
            # one branch at a time, so max_concurrency bounds the whole batch
            columns = {key: column(key, step) for key, step in self.steps.items()}
        else:
            with ThreadPoolExecutor(max_workers=len(self.steps)) as pool:
                futures = {
                    key: pool.submit(contextvars.copy_context().run, column, key, step)
                    for key, step in self.steps.items()
                }
                columns = {key: future.result() for key, future in futures.items()}
        return self._rows(columns, len(values))

    async def _abatch_branches(
        self, values: list[Any], children: list[RunnableConfig]
    ) -> list[Any]:
        def configs(key: str) -> list[Any]:
            return [part_config(child, f"map:key:{key}") for child in children]

        if children[0].get("max_concurrency"):
            columns = {
                key: await step.abatch(values, configs(key), return_exceptions=True)
                for key, step in self.steps.items()
            }
        else:
            results = await asyncio.gather(
                *(
                    step.abatch(values, configs(key), return_exceptions=True)
                    for key, step in self.steps.items()
                )
            )
            columns = dict(zip(self.steps, results, strict=True))
        return self._rows(columns, len(values))

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """Batch branch by branch: each branch's ``batch`` runs once over all inputs.

        So a retriever branch with a batch search searches once for the whole batch. An
        input fails with its first failing branch (in key order).
        """
        self._reject_kwargs(kwargs)
        return self._batch_with_config(
            inputs, config, self._batch_branches, return_exceptions=return_exceptions
        )

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[dict[str, Any]]:
        """Async twin of :meth:`batch` (branches run as tasks)."""
        self._reject_kwargs(kwargs)
        return await self._abatch_with_config(
            inputs, config, self._abatch_branches, return_exceptions=return_exceptions
        )

    # ---- streaming ----------------------------------------------------------------
    # As in LangChain, every branch receives the input *stream* (each chunk is copied to
    # every branch as it arrives) and its output chunks are yielded as ``{key: chunk}``
    # in arrival order, so a slow branch does not hold back a fast one and a chunk-wise
    # branch (a parser, a passthrough) streams the upstream model's chunks.
    def _stream_branches(self, chunks: Iterator[Any]) -> Iterator[dict[str, Any]]:
        config = get_current_config()
        if len(self.steps) == 1:  # one branch (an assign of one key): no thread to wait on
            ((key, step),) = self.steps.items()
            for part in step.transform(chunks, part_config(config, f"map:key:{key}")):
                yield AddableDict({key: part})
            return
        inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        feeds: dict[str, queue.Queue[Any]] = {key: queue.Queue() for key in self.steps}
        stop = threading.Event()

        def feed() -> None:  # copies each upstream chunk to every branch
            try:
                for chunk in chunks:
                    for box in feeds.values():
                        box.put(chunk)
                    if stop.is_set():
                        break
            except BaseException as err:
                inbox.put(("", err))
            finally:
                for box in feeds.values():
                    box.put(_DONE)

        def branch_input(box: queue.Queue[Any]) -> Iterator[Any]:
            while (chunk := box.get()) is not _DONE:
                yield chunk

        def pump(key: str, step: Runnable[Any, Any]) -> None:
            try:
                tagged = part_config(config, f"map:key:{key}")
                for part in step.transform(branch_input(feeds[key]), tagged):
                    if stop.is_set():
                        break
                    inbox.put((key, part))
                inbox.put((key, _DONE))
            except BaseException as err:
                inbox.put((key, err))

        # the feeder runs in its own thread (the caller's thread reads the inbox); its
        # queues are unbounded, so a max_concurrency below the branch count cannot jam it
        feeder = threading.Thread(target=contextvars.copy_context().run, args=(feed,))
        feeder.daemon = True
        feeder.start()
        pool = ThreadPoolExecutor(max_workers=_limit(len(self.steps)))
        try:
            for key, step in self.steps.items():
                pool.submit(contextvars.copy_context().run, pump, key, step)
            running = len(self.steps)
            while running:
                key, item = inbox.get()
                if item is _DONE:
                    running -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield AddableDict({key: item})
        finally:
            stop.set()
            for box in feeds.values():  # branches still reading get an end
                box.put(_DONE)
            # branches still queued (max_concurrency) are not started: nobody reads them
            pool.shutdown(wait=True, cancel_futures=True)
            feeder.join()

    async def _astream_branches(self, chunks: AsyncIterator[Any]) -> AsyncIterator[dict[str, Any]]:
        config = get_current_config()
        if len(self.steps) == 1:  # one branch (an assign of one key): no task to wait on
            ((key, step),) = self.steps.items()
            parts = step.atransform(chunks, part_config(config, f"map:key:{key}"))
            try:
                async for part in parts:
                    yield AddableDict({key: part})
            finally:
                await _aclose(parts)  # a consumer that stopped early: end the branch now
            return
        inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        feeds: dict[str, asyncio.Queue[Any]] = {key: asyncio.Queue() for key in self.steps}
        semaphore = asyncio.Semaphore(_limit(len(self.steps)))

        async def feed() -> None:
            try:
                async for chunk in chunks:
                    for box in feeds.values():
                        box.put_nowait(chunk)
            except BaseException as err:
                inbox.put_nowait(("", err))
            finally:
                for box in feeds.values():
                    box.put_nowait(_DONE)

        async def branch_input(box: asyncio.Queue[Any]) -> AsyncIterator[Any]:
            while (chunk := await box.get()) is not _DONE:
                yield chunk

        async def pump(key: str, step: Runnable[Any, Any]) -> None:
            try:
                async with semaphore:
                    tagged = part_config(config, f"map:key:{key}")
                    async for part in step.atransform(branch_input(feeds[key]), tagged):
                        taken = asyncio.Event()  # the next part once this one is taken
                        await inbox.put((key, (part, taken)))
                        await taken.wait()
                await inbox.put((key, _DONE))
            except BaseException as err:
                await inbox.put((key, err))

        tasks = [asyncio.ensure_future(feed())]
        tasks += [asyncio.ensure_future(pump(k, s)) for k, s in self.steps.items()]
        try:
            running = len(self.steps)
            while running:
                key, item = await inbox.get()
                if item is _DONE:
                    running -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    part, taken = item
                    yield AddableDict({key: part})
                    taken.set()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Yield ``{key: chunk}`` from every branch as chunks arrive."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(iter([input]), self._stream_branches, config)

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Copy each input chunk to every branch as it arrives; yield their chunks."""
        self._reject_kwargs(kwargs)
        return self._transform_stream_with_config(input, self._stream_branches, config)

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async ``stream``: branches stream as tasks."""
        self._reject_kwargs(kwargs)

        async def one() -> AsyncIterator[Any]:
            yield input

        return self._atransform_stream_with_config(one(), self._astream_branches, config)

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[dict[str, Any]]:
        """Async ``transform``."""
        self._reject_kwargs(kwargs)
        return self._atransform_stream_with_config(input, self._astream_branches, config)

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """Input node fanning out to every branch's graph, fanning in to an output node."""
        from ragline.core.runnables.graph import Graph

        return Graph.fan(self, [step.get_graph() for step in self.steps.values()])


# LangChain's older name for the same class (``langchain_core.runnables.RunnableMap``).
RunnableMap = RunnableParallel

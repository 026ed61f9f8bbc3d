"""``astream_log``: a run's progress as JSON Patch operations (LangChain's ``RunLogPatch``).

Applied in order to an empty document, the patches build the run's state, a dict::

    {"id": <root run id>, "name": ..., "type": "chain", "streamed_output": [chunk, ...],
     "final_output": <the chunks added up>, "logs": {<run key>: <run entry>, ...}}

where each run below the root (as the ``include_*`` / ``exclude_*`` filters allow) has
an entry under its name (``name:2``, ``name:3`` ... when names repeat)::

    {"id", "name", "type", "tags", "metadata", "start_time", "streamed_output",
     "streamed_output_str", "final_output", "end_time"}

Types are LangChain's run types (a chat model's runs are ``"llm"``); times are ISO 8601
strings in UTC. ``RunLogPatch + RunLogPatch`` gives a :class:`RunLog`, whose ``state``
is the document so far.

Example:
    >>> import asyncio
    >>> from ragline.core import RunnableLambda
    >>> async def final():
    ...     log = None
    ...     async for patch in RunnableLambda(lambda x: x * 2).astream_log(21):
    ...         log = patch if log is None else log + patch
    ...     return log.state["final_output"]
    >>> asyncio.run(final())
    42
"""

from __future__ import annotations

import pprint
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ragline.core.callbacks._run_shapes import empty_model_result
from ragline.core.config import RunnableConfig
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables.events import (
    ROOT_CHUNK,
    EventFilter,
    RunInfo,
    RunWatcher,
    watch_run,
)

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable

__all__ = ["LogStreamHandler", "RunLog", "RunLogPatch", "apply_patch", "astream_log"]

_NOTHING: Any = object()
_LOG_TYPE = {"chat_model": "llm"}  # LangChain logs a chat model's run as an "llm" run


def _pointer(key: str) -> str:
    """``key`` as one JSON Pointer segment (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def _segments(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise InvalidInputError(f"JSON Patch path {path!r} must be empty or start with '/'")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _fresh(value: Any) -> Any:
    """A copy of ``value``'s dicts and lists (the objects inside them are shared), so a
    document built from patches never changes the patches' values."""
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    return value


def apply_patch(document: Any, ops: Sequence[dict[str, Any]]) -> Any:
    """Apply JSON Patch ``add`` / ``replace`` / ``remove`` operations to ``document``
    (changed in place where it can be; the new document is returned).

    Raises:
        InvalidInputError: another operation, or a path that does not exist.

    Example:
        >>> apply_patch({"a": [1]}, [{"op": "add", "path": "/a/-", "value": 2}])
        {'a': [1, 2]}
    """
    for op in ops:
        kind, parts = op.get("op"), _segments(op.get("path", ""))
        if kind not in ("add", "replace", "remove"):
            raise InvalidInputError(f"JSON Patch op {kind!r} is not one of add, replace, remove")
        if not parts:
            if kind == "remove":
                raise InvalidInputError("JSON Patch cannot remove the whole document")
            document = _fresh(op["value"])
            continue
        parent = document
        try:
            for part in parts[:-1]:
                parent = parent[int(part)] if isinstance(parent, list) else parent[part]
            last = parts[-1]
            if isinstance(parent, list):
                index = len(parent) if last == "-" else int(last)
                if kind == "add":
                    parent.insert(index, _fresh(op["value"]))
                elif kind == "replace":
                    parent[index] = _fresh(op["value"])
                else:
                    del parent[index]
            elif kind == "remove":
                del parent[last]
            else:
                parent[last] = _fresh(op["value"])
        except (KeyError, IndexError, ValueError, TypeError) as err:
            raise InvalidInputError(f"JSON Patch path {op['path']!r} does not apply") from err
    return document


class RunLogPatch:
    """Some JSON Patch operations of a run's log.

    Attributes:
        ops: the operations, each ``{"op": "add" | "replace", "path": ..., "value": ...}``.
    """

    def __init__(self, *ops: dict[str, Any]) -> None:
        self.ops = list(ops)

    def __add__(self, other: Any) -> RunLog:
        if not isinstance(other, RunLogPatch):
            return NotImplemented
        ops = [*self.ops, *other.ops]
        return RunLog(*ops, state=apply_patch(None, ops))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.ops == other.ops  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunLogPatch({pprint.pformat(self.ops)[1:-1]})"


class RunLog(RunLogPatch):
    """The operations so far and the document they build (``state``)."""

    def __init__(self, *ops: dict[str, Any], state: Any) -> None:
        super().__init__(*ops)
        self.state = state

    def __add__(self, other: Any) -> RunLog:
        if not isinstance(other, RunLogPatch):
            return NotImplemented
        state = apply_patch(_fresh(self.state), other.ops)
        return RunLog(*self.ops, *other.ops, state=state)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunLog) and self.state == other.state

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunLog({pprint.pformat(self.state)})"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class LogStreamHandler(RunWatcher):
    """A run watcher that hands :class:`RunLogPatch` objects to ``send``.

    Args:
        send: called with each patch (from whatever thread the run is in).
        log_filter: which runs below the root get an entry under ``logs``.
        root_input: the input of the outermost run.
        for_events: write the log that ``astream_events(version="v1")`` reads
            (LangChain's "streaming_events" log): a chat model's runs keep the type
            ``"chat_model"``, each entry has ``inputs`` (``None`` while a streamed input is
            not known yet; replaced by the whole input when the run ends), a chain's,
            parser's or tool's ``final_output`` is its output as it is, an LLM's streamed
            chunks are its token texts, and a run that raises ends with ``final_output``
            ``None``.
    """

    def __init__(self, send: Callable[[Any], None], log_filter: EventFilter,
                 root_input: Any, *, for_events: bool = False) -> None:  # fmt: skip
        super().__init__(root_input)
        self._send = send
        self._filter = log_filter
        self._keys: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        self._for_events = for_events
        self._text_tools: set[str] = set()  # tool runs given a string, not arguments

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: UUID,
                      inputs: dict[str, Any] | None = None, **kwargs: Any) -> None:  # fmt: skip
        if self._for_events and inputs is None:
            # LangChain's events log keeps only a tool's arguments: none for a string
            self._text_tools.add(str(run_id))
        super().on_tool_start(serialized, input_str, run_id=run_id, inputs=inputs, **kwargs)

    def _started(self, info: RunInfo, data: dict[str, Any]) -> None:
        kind = info.kind if self._for_events else _LOG_TYPE.get(info.kind, info.kind)
        if info.root:
            state: dict[str, Any] = {
                "id": info.id,
                "streamed_output": [],
                "final_output": None,
                "logs": {},
                "name": info.name,
                "type": kind,
            }
            self._send(RunLogPatch({"op": "replace", "path": "", "value": state}))
            return
        info.shown = self._filter(info.name, kind, info.tags)
        if not info.shown:
            return
        count = self._counts[info.name] = self._counts.get(info.name, 0) + 1
        key = self._keys[info.id] = info.name if count == 1 else f"{info.name}:{count}"
        entry = {
            "id": info.id,
            "name": info.name,
            "type": kind,
            "tags": info.tags,
            "metadata": info.metadata,
            "start_time": _now(),
            "streamed_output": [],
            "streamed_output_str": [],
            "final_output": None,
            "end_time": None,
        }
        if self._for_events:
            if info.id in self._text_tools:
                self._text_tools.discard(info.id)
                info.input = None
            entry["inputs"] = info.input
        self._send(RunLogPatch({"op": "add", "path": f"/logs/{_pointer(key)}", "value": entry}))

    def _streamed(self, info: RunInfo, chunk: Any) -> None:
        if info.root or not info.shown:
            return  # the root's chunks come from its stream (see astream_log)
        path = f"/logs/{_pointer(self._keys[info.id])}"
        if info.kind in ("chat_model", "llm"):
            text = chunk.content if info.kind == "chat_model" else chunk.text
            # LangChain's events log streams an LLM's token texts, not its chunks
            value = text if info.kind == "llm" and self._for_events else chunk
            self._send(
                RunLogPatch(
                    {"op": "add", "path": f"{path}/streamed_output_str/-", "value": text},
                    {"op": "add", "path": f"{path}/streamed_output/-", "value": value},
                )
            )
        else:
            self._send(RunLogPatch({"op": "add", "path": f"{path}/streamed_output/-",
                                    "value": chunk}))  # fmt: skip

    def _ended(self, info: RunInfo, output: Any, raw: Any) -> None:
        if info.root or not info.shown:
            return
        path = f"/logs/{_pointer(self._keys.pop(info.id))}"
        if not self._for_events or info.kind in ("chat_model", "llm", "retriever"):
            final = _final_output(info, raw)
        else:  # the events log keeps a chain's, parser's or tool's output as it is
            final = output
        ops = [
            {"op": "add", "path": f"{path}/final_output", "value": final},
            {"op": "add", "path": f"{path}/end_time", "value": _now()},
        ]
        if self._for_events:
            ops.insert(0, {"op": "replace", "path": f"{path}/inputs", "value": info.input})
        self._send(RunLogPatch(*ops))

    def _errored(self, info: RunInfo, error: BaseException, kwargs: dict[str, Any]) -> None:
        if info.root or not info.shown:
            return
        path = f"/logs/{_pointer(self._keys.pop(info.id))}"
        # LangChain's entry of a run that raised holds its outputs: a model's is the
        # LLMResult it reported the error with (what it streamed), a chain's none ({} in
        # the log, None in the events log)
        final: Any = None if self._for_events else {}
        if info.kind in ("chat_model", "llm"):
            response = kwargs.get("response")
            final = (
                empty_model_result(info.kind == "chat_model")
                if response is None
                else _final_output(info, response)
            )
        ops = [
            {"op": "add", "path": f"{path}/final_output", "value": final},
            {"op": "add", "path": f"{path}/end_time", "value": _now()},
        ]
        if self._for_events:
            if "inputs" in kwargs:  # a streamed input, as far as it got
                info.input = kwargs["inputs"]
            ops.insert(0, {"op": "replace", "path": f"{path}/inputs", "value": info.input})
        self._send(RunLogPatch(*ops))

    def _custom(self, info: RunInfo | None, name: str, data: Any, kwargs: dict[str, Any]) -> None:
        """Custom events have no place in the log (LangChain's log leaves them out too)."""


def _final_output(info: RunInfo, raw: Any) -> Any:
    """A finished run's ``final_output`` in LangChain's log shapes."""
    if info.kind in ("chat_model", "llm"):
        return {
            "generations": [[_generation_dict(g) for g in batch] for batch in raw.generations],
            "llm_output": raw.llm_output,
            "run": None,
            "type": "LLMResult",
        }
    if info.kind == "retriever":
        return {"documents": raw}
    if info.kind == "prompt" or isinstance(raw, dict):
        return raw
    return {"output": raw}


def _generation_dict(generation: Any) -> dict[str, Any]:
    # LangChain's GenerationChunk dumps as "Generation"; the chat kinds say their own
    kind = "Generation" if generation.type == "GenerationChunk" else generation.type
    shown = {"text": generation.text, "generation_info": generation.generation_info,
             "type": kind}  # fmt: skip
    message = getattr(generation, "message", None)
    if message is not None:
        shown["message"] = message
    return shown


def _final_output_ops(final: Any, chunk: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The log's ``final_output`` after ``chunk`` is added to ``final`` (``_NOTHING``
    before the first chunk), and the patch that reports it as LangChain's log does: the
    first value (or one ``+`` cannot join, which then replaces the total) whole, later
    ones as the JSON Patch between the totals (a dict output grows key by key: ``add
    /final_output/answer``, then ``replace /final_output/answer``)."""
    if final is not _NOTHING and final is not None:
        try:
            total = final + chunk
        except TypeError:
            pass
        else:
            from ragline.core.output_parsers._json import json_patch

            ops = json_patch(final, total)
            return total, [{**op, "path": f"/final_output{op['path']}"} for op in ops]
    return chunk, [{"op": "replace", "path": "/final_output", "value": chunk}]


async def astream_log(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig | None,
    log_filter: EventFilter,
    *,
    diff: bool,
    with_streamed_output_list: bool,
    kwargs: dict[str, Any],
    for_events: bool = False,
) -> AsyncIterator[RunLogPatch]:
    """What ``Runnable.astream_log`` yields (see the module docstring); ``for_events``:
    the log that ``astream_events(version="v1")`` reads (see :class:`LogStreamHandler`)."""

    def make_handler(send: Callable[[Any], None]) -> RunWatcher:
        return LogStreamHandler(send, log_filter, input, for_events=for_events)

    final: Any = _NOTHING
    log: RunLog | None = None
    async for item in watch_run(runnable, input, config, make_handler, kwargs, root_chunks=True):
        if isinstance(item, tuple) and item[0] is ROOT_CHUNK:
            # the root's own output, as the caller's astream sees it
            chunk = item[1]
            final, ops = _final_output_ops(final, chunk)
            if with_streamed_output_list:
                ops.insert(0, {"op": "add", "path": "/streamed_output/-", "value": chunk})
            patch = RunLogPatch(*ops)
        else:
            patch = item
        if diff:
            yield patch
        else:
            log = (
                RunLog(*patch.ops, state=apply_patch(None, patch.ops))
                if log is None
                else log + patch
            )
            yield log

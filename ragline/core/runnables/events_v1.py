"""``astream_events(version="v1")``: LangChain's first event format, read off the run's log.

v1 predates the callback-driven v2 (:mod:`ragline.core.runnables.events`): LangChain
builds it by replaying ``astream_log``'s patches, and so does this module, from ragline's
own log (:func:`ragline.core.runnables.log.astream_log` with ``for_events=True``). What a
program sees, as in LangChain:

- The outermost run gives a start event first (``data={"input": <the input given>}``),
  a stream event for each chunk its stream yields, and an end event last
  (``data={"output": <the chunks added up>}``); its name is the config's ``run_name`` or
  the runnable's name, its tags and metadata are the config's (a binding's
  ``with_config`` included), not its own run's.
- Each run below it gives, for each patch that touches its log entry, one event: start
  (``data={"input": ...}`` when its input is known, else ``{}``), stream
  (``{"chunk": ...}``) or end (``{"input": ..., "output": ...}``). A model's end output is
  the ``LLMResult``-like dict, a retriever's ``{"documents": [...]}``, an LLM's stream
  chunks are its token texts; a run that raises ends with ``"output": None`` and the
  error ends the stream after it (no end event for the outermost run).
- ``parent_ids`` is always ``[]`` and custom events are not given at all (both as
  LangChain's v1).

Example:
    >>> import asyncio, warnings
    >>> from ragline.core import RunnableLambda
    >>> async def kinds():
    ...     chain = RunnableLambda(lambda x: x + 1, name="add")
    ...     return [e["event"] async for e in chain.astream_events(1, version="v1")]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     asyncio.run(kinds())
    ['on_chain_start', 'on_chain_stream', 'on_chain_end']
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any, cast

from ragline.core.config import RunnableConfig, ensure_config
from ragline.core.runnables.events import EventFilter
from ragline.core.runnables.log import RunLogPatch, apply_patch, astream_log

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable

__all__ = ["astream_events_v1"]


def _entry_key(path: str) -> str | None:
    """The ``logs`` key a patch path points into (unescaped), or None for the root's."""
    if not path.startswith("/logs/"):
        return None
    segment = path.split("/", 3)[2]
    return segment.replace("~1", "/").replace("~0", "~")


def _entry_event(entry: dict[str, Any]) -> dict[str, Any]:
    """The event for the latest change of a run's log entry (its stream chunk is taken)."""
    data: dict[str, Any] = {}
    if entry["end_time"] is not None:
        suffix = "end"
        if entry.get("inputs") is not None:
            data["input"] = entry["inputs"]
        data["output"] = entry["final_output"]  # None is an output too
    elif entry["streamed_output"]:
        suffix = "stream"
        (chunk,) = entry["streamed_output"]  # one patch adds one chunk
        data["chunk"] = chunk
        entry["streamed_output"] = []
    else:
        suffix = "start"
        if entry.get("inputs") is not None:
            data["input"] = entry["inputs"]
    return {
        "event": f"on_{entry['type']}_{suffix}",
        "name": entry["name"],
        "run_id": entry["id"],
        "tags": entry["tags"],
        "metadata": entry["metadata"],
        "data": data,
        "parent_ids": [],
    }


async def astream_events_v1(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig | None,
    event_filter: EventFilter,
    kwargs: dict[str, Any],
) -> AsyncIterator[dict[str, Any]]:
    """What ``Runnable.astream_events(version="v1")`` yields (see the module docstring)."""
    from ragline.core.runnables.binding import RunnableBindingBase

    while isinstance(runnable, RunnableBindingBase):
        # as LangChain's binding, it hands the call to what it binds, its config and
        # options merged in: so the outermost run's name, tags and metadata include them
        config = runnable._merge(config)
        kwargs = {**runnable.kwargs, **kwargs}
        runnable = runnable.bound
    config = ensure_config(config)
    root_name = config.get("run_name") or runnable.get_name()
    root_tags = config.get("tags") or []
    root_metadata = config.get("metadata") or {}
    state: Any = None
    root_kind = "chain"
    root_shown = True

    def root_event(suffix: str, data: dict[str, Any]) -> dict[str, Any]:
        # the keys in LangChain's order for the outermost run's events
        if suffix == "stream":
            return {"event": f"on_{root_kind}_stream", "run_id": state["id"], "tags": root_tags,
                    "metadata": root_metadata, "name": root_name, "data": data,
                    "parent_ids": []}  # fmt: skip
        if suffix == "start":
            return {"event": f"on_{root_kind}_start", "run_id": state["id"], "name": root_name,
                    "tags": root_tags, "metadata": root_metadata, "data": data,
                    "parent_ids": []}  # fmt: skip
        return {"event": f"on_{root_kind}_end", "name": root_name, "run_id": state["id"],
                "tags": root_tags, "metadata": root_metadata, "data": data,
                "parent_ids": []}  # fmt: skip

    log = cast(
        "AsyncGenerator[RunLogPatch, None]",
        astream_log(
            runnable,
            input,
            config,
            event_filter,
            diff=True,
            with_streamed_output_list=True,
            kwargs=kwargs,
            for_events=True,
        ),
    )
    # aclosing: a consumer that stops early ends the log's run now, not when collected
    async with contextlib.aclosing(log):
        async for patch in log:
            first = state is None
            state = apply_patch(state, patch.ops)
            if first:
                root_kind = state["type"]
                root_shown = event_filter(root_name, root_kind, root_tags)
                if root_shown:
                    yield root_event("start", {"input": input})
            touched = dict.fromkeys(
                key for key in (_entry_key(op["path"]) for op in patch.ops) if key is not None
            )
            for key in touched:
                yield _entry_event(state["logs"][key])
            if state["streamed_output"]:
                (chunk,) = state["streamed_output"]
                state["streamed_output"] = []
                if root_shown:
                    yield root_event("stream", {"chunk": chunk})
    if state is not None and root_shown:
        yield root_event("end", {"output": state["final_output"]})

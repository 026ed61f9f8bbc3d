"""``astream_events``: a run's callback events as LangChain's v2 event dicts, as they happen.

The events come from a callback handler that joins the run's config: every run below
reports to it, and it turns each report into an event dict, pushed onto a queue that
``astream_events`` yields from while the run goes on in a task. Nothing is buffered
until the end: a token is yielded while the model is still writing.

Every event is ``{"event", "name", "run_id", "parent_ids", "tags", "metadata", "data"}``
(in LangChain's key order, which differs by kind of event):

- ``event``: ``on_<kind>_start`` / ``_stream`` / ``_end``, where kind is ``chain``,
  ``prompt``, ``parser``, ``chat_model``, ``llm``, ``retriever`` or ``tool``; also
  ``on_tool_error`` and ``on_custom_event`` (``dispatch_custom_event``);
- ``run_id``: the run's id as a string; ``parent_ids``: the ids of the runs enclosing it,
  outermost first (only runs inside this stream);
- ``data``: ``{"input": ...}`` on start (``{}`` when the input is itself a stream, not
  known yet), ``{"chunk": ...}`` on stream, ``{"output": ..., "input": ...}`` on end. As
  LangChain's, the first event the filters let through (the outermost run's start when
  nothing is filtered out) carries the input given to ``astream_events`` as its
  ``"input"``, whatever that run's own input was, and that run's end carries only the
  output. A chat model's chunks and output are messages; a retriever's input is
  ``{"query": ...}``. A custom event is filtered by its own name, as its name and its
  type (as LangChain's).

A chat model or LLM invoked inside the run streams its answer, so its tokens arrive as
``on_chat_model_stream`` / ``on_llm_stream`` events (as LangChain's do).

Example:
    >>> import asyncio
    >>> from ragline.core import RunnableLambda
    >>> async def kinds():
    ...     chain = RunnableLambda(lambda x: x + 1, name="add")
    ...     return [e["event"] async for e in chain.astream_events(1, version="v2")]
    >>> asyncio.run(kinds())
    ['on_chain_start', 'on_chain_stream', 'on_chain_end']
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ragline.core._checks import check_str_list
from ragline.core.callbacks.base import StreamingCallbackHandler
from ragline.core.callbacks.manager import CallbackManager, _given_name
from ragline.core.config import RunnableConfig, ensure_config
from ragline.core.exceptions import InvalidInputError

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable

__all__ = [
    "ROOT_CHUNK",
    "EventFilter",
    "EventStreamHandler",
    "RunInfo",
    "RunWatcher",
    "astream_events",
    "event_filter_for",
    "watch_run",
]

_CHAIN_KINDS = frozenset({"prompt", "parser"})  # other chain run types are "chain"


def _not_yet(inputs: Any) -> bool:
    """Whether a chain run's start input is ``{"input": ""}``: its input is a stream, known
    only when the run ends (LangChain's test, so a run given that input itself starts
    the same way there)."""
    if type(inputs) is not dict or len(inputs) != 1:
        return False
    value = inputs.get("input")
    return type(value) is str and not value


class EventFilter:
    """Which runs' events to show (LangChain's ``include_*`` / ``exclude_*`` rules).

    A run is included when no ``include_*`` is given, or when its name, kind or one of
    its tags is listed; an included run is then dropped when its name, kind or one of
    its tags is excluded.

    Raises:
        InvalidInputError: a filter that is a single string rather than a list.

    Example:
        >>> shows = EventFilter(include_types=["retriever"], exclude_tags=["hidden"])
        >>> shows("docs", "retriever", []), shows("docs", "retriever", ["hidden"])
        (True, False)
    """

    __slots__ = ("_exclude", "_include", "everything")

    def __init__(
        self,
        *,
        include_names: Sequence[str] | None = None,
        include_types: Sequence[str] | None = None,
        include_tags: Sequence[str] | None = None,
        exclude_names: Sequence[str] | None = None,
        exclude_types: Sequence[str] | None = None,
        exclude_tags: Sequence[str] | None = None,
    ) -> None:
        def checked(name: str, value: Sequence[str] | None) -> frozenset[str] | None:
            return None if value is None else frozenset(check_str_list(value, what=name))

        self._include = tuple(
            checked(n, v)
            for n, v in (
                ("include_names", include_names),
                ("include_types", include_types),
                ("include_tags", include_tags),
            )
        )
        self._exclude = tuple(
            checked(n, v)
            for n, v in (
                ("exclude_names", exclude_names),
                ("exclude_types", exclude_types),
                ("exclude_tags", exclude_tags),
            )
        )
        self.everything = all(part is None for part in (*self._include, *self._exclude))

    def __call__(self, name: str, kind: str, tags: Sequence[str]) -> bool:
        """Whether a run named ``name`` of ``kind`` with ``tags`` is shown."""
        if self.everything:
            return True
        names, kinds, tag_set = self._include
        if not (names is None and kinds is None and tag_set is None) and not (
            (names is not None and name in names)
            or (kinds is not None and kind in kinds)
            or (tag_set is not None and any(tag in tag_set for tag in tags))
        ):
            return False
        names, kinds, tag_set = self._exclude
        return not (
            (names is not None and name in names)
            or (kinds is not None and kind in kinds)
            or (tag_set is not None and any(tag in tag_set for tag in tags))
        )


class RunInfo:
    """What a watcher keeps of a run between its start and its end."""

    __slots__ = (
        "id",
        "input",
        "kind",
        "metadata",
        "name",
        "parent_ids",
        "root",
        "shown",
        "streamed",
        "streamed_input",
        "tags",
    )

    def __init__(self, run_id: str, name: str, kind: str, tags: list[str], metadata: Any) -> None:
        self.id = run_id
        self.name = name
        self.kind = kind
        self.tags = tags
        self.metadata = metadata
        self.parent_ids: tuple[str, ...] = ()
        self.input: Any = None
        self.root = False
        self.shown = True
        self.streamed = False
        self.streamed_input = False


class RunWatcher(StreamingCallbackHandler):
    """Turns the callbacks of a run tree into start / stream / end reports of one
    :class:`RunInfo` each; subclasses say what a report becomes (``_started``,
    ``_streamed``, ``_ended``, ``_custom``).

    The first run it sees whose parent it has not seen is the root.
    """

    raise_error = True  # a broken event stream must fail, not go quiet

    def __init__(self, root_input: Any) -> None:
        self._runs: dict[UUID, RunInfo] = {}
        self._root_input = root_input
        self._has_root = False

    # ---- what subclasses write -------------------------------------------------------
    def _started(self, info: RunInfo, data: dict[str, Any]) -> None:
        raise NotImplementedError

    def _streamed(self, info: RunInfo, chunk: Any) -> None:
        raise NotImplementedError

    def _ended(self, info: RunInfo, output: Any, raw: Any) -> None:
        raise NotImplementedError

    def _errored(self, info: RunInfo, error: BaseException, kwargs: dict[str, Any]) -> None:
        """A run raised (most kinds report nothing: the error ends the stream)."""

    def _custom(self, info: RunInfo | None, name: str, data: Any, kwargs: dict[str, Any]) -> None:
        raise NotImplementedError

    # ---- bookkeeping -----------------------------------------------------------------
    def _start(
        self,
        kind: str,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        name: str | None,
        input: Any,
        streamed_input: bool = False,
        *,
        serialized: Any = None,
    ) -> None:
        # a run started without a name takes the one ``serialized`` gives, else its kind
        name = name or _given_name(serialized) or kind
        info = RunInfo(str(run_id), name, kind, tags or [], metadata or {})
        parent = self._runs.get(parent_run_id) if parent_run_id is not None else None
        if parent is not None:
            info.parent_ids = (*parent.parent_ids, parent.id)
        elif not self._has_root:
            self._has_root = info.root = True
        self._runs[run_id] = info
        if info.root:
            data = {"input": self._root_input}
        elif streamed_input:
            info.streamed_input = True
            data = {}
        else:
            data = {"input": input}
        info.input = data.get("input")
        self._started(info, data)

    def _end(self, run_id: UUID, output: Any, raw: Any, kwargs: dict[str, Any]) -> None:
        info = self._runs.pop(run_id, None)
        if info is None:
            return
        if "inputs" in kwargs:  # a streamed input, whole now
            info.input = kwargs["inputs"]
        self._ended(info, output, raw)

    def _error(self, run_id: UUID, error: BaseException, kwargs: dict[str, Any]) -> None:
        info = self._runs.pop(run_id, None)
        if info is not None:
            self._errored(info, error, kwargs)

    # ---- callbacks -------------------------------------------------------------------
    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        run_type: str | None = None,
        **kwargs: Any,
    ) -> None:
        kind = run_type if run_type in _CHAIN_KINDS else "chain"
        self._start(
            kind,
            run_id,
            parent_run_id,
            tags,
            metadata,
            name,
            inputs,
            # a streamed input, known only at its end, starts as {"input": ""} (LangChain's
            # test, so a run given that input itself starts the same way there)
            _not_yet(inputs),
            serialized=serialized,
        )

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, outputs, outputs, kwargs)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._error(run_id, error, kwargs)

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(
            "chat_model",
            run_id,
            parent_run_id,
            tags,
            metadata,
            name,
            {"messages": messages},
            serialized=serialized,
        )

    def on_llm_start(
        self,
        serialized: Any,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(
            "llm",
            run_id,
            parent_run_id,
            tags,
            metadata,
            name,
            {"prompts": prompts},
            serialized=serialized,
        )

    def on_llm_new_token(
        self, token: str, *, chunk: Any = None, run_id: UUID, **kwargs: Any
    ) -> None:
        info = self._runs.get(run_id)
        if info is None:
            return
        # the imports only where a chunk is built: ragline.core.language_models resolves
        # names lazily, so importing from it costs ~250 calls, on every token
        if info.kind == "chat_model":
            if chunk is not None:
                piece = chunk.message
            else:
                from ragline.core.messages import AIMessageChunk

                piece = AIMessageChunk(content=token)
        elif info.root:  # LangChain reports the outermost LLM's output chunks: the texts
            piece = chunk.text if chunk is not None else token
        elif chunk is not None:
            piece = chunk
        else:
            from ragline.core.language_models import GenerationChunk

            piece = GenerationChunk(text=token)
        info.streamed = True
        self._streamed(info, piece)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        info = self._runs.get(run_id)
        if info is None:
            return
        if info.kind == "chat_model":
            generations = response.generations
            output = generations[0][0].message if generations and generations[0] else None
        else:
            output = {
                "generations": [
                    [
                        {"text": g.text, "generation_info": g.generation_info, "type": g.type}
                        for g in batch
                    ]
                    for batch in response.generations
                ],
                "llm_output": response.llm_output,
            }
        self._end(run_id, output, response, kwargs)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._error(run_id, error, kwargs)

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(
            "retriever",
            run_id,
            parent_run_id,
            tags,
            metadata,
            name,
            {"query": query},
            serialized=serialized,
        )

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, documents, documents, kwargs)

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._error(run_id, error, kwargs)

    def on_tool_start(
        self,
        serialized: Any,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self._start(
            "tool",
            run_id,
            parent_run_id,
            tags,
            metadata,
            name,
            {} if inputs is None else inputs,
            serialized=serialized,
        )
        # a tool given text (no dict of arguments): LangChain's events show its input as
        # {} at the start and None at the end or error, not the text
        if inputs is None:
            info = self._runs.get(run_id)
            if info is not None and not info.root:
                info.input = None

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, output, output, kwargs)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._error(run_id, error, kwargs)

    def on_stream_chunk(self, chunk: Any, *, run_id: UUID) -> None:
        info = self._runs.get(run_id)
        if info is not None:
            info.streamed = True
            self._streamed(info, chunk)

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._custom(self._runs.get(run_id), name, data, {"run_id": run_id, **kwargs})


class EventStreamHandler(RunWatcher):
    """A :class:`RunWatcher` that hands LangChain's v2 event dicts to ``send``.

    Args:
        send: called with each event dict (from whatever thread the run is in).
        event_filter: which runs to report.
        root_input: the input the outermost run was given.
    """

    def __init__(self, send: Callable[[dict[str, Any]], None], event_filter: EventFilter,
                 root_input: Any, root_chunk: bool = True) -> None:  # fmt: skip
        super().__init__(root_input)
        self._send = send
        # whether the outermost run's output is shown as a chunk when it did not stream
        self._root_chunk = root_chunk
        self._filter = event_filter
        self._first_lock = threading.Lock()
        self._first_id: str | None = None  # the run of the first event let through

    def _take_first(self, run_id: str) -> bool:
        """Whether this is the first event let through (then ``run_id`` is its run)."""
        if self._first_id is not None:  # set once: every later event skips the lock
            return False
        with self._first_lock:
            if self._first_id is not None:
                return False
            self._first_id = run_id
            return True

    def _event(self, info: RunInfo, suffix: str, data: dict[str, Any]) -> dict[str, Any]:
        # the keys come in LangChain's order for each kind of event (a printed event shows it)
        event = f"on_{info.kind}_{suffix}"
        if suffix == "start":
            return {
                "event": event,
                "data": data,
                "name": info.name,
                "tags": info.tags,
                "run_id": info.id,
                "metadata": info.metadata,
                "parent_ids": list(info.parent_ids),
            }
        if suffix == "stream" and (info.root or info.kind not in ("chat_model", "llm")):
            # a chunk of the outermost run's stream or of a streamed step (not a model token)
            return {
                "event": event,
                "run_id": info.id,
                "name": info.name,
                "tags": info.tags,
                "metadata": info.metadata,
                "data": data,
                "parent_ids": list(info.parent_ids),
            }
        return {  # end, error, and a nested model's tokens
            "event": event,
            "data": data,
            "run_id": info.id,
            "name": info.name,
            "tags": info.tags,
            "metadata": info.metadata,
            "parent_ids": list(info.parent_ids),
        }

    def _started(self, info: RunInfo, data: dict[str, Any]) -> None:
        info.shown = self._filter(info.name, info.kind, info.tags)
        if info.shown:
            if self._take_first(info.id):
                data = {**data, "input": self._root_input}
            self._send(self._event(info, "start", data))

    def _streamed(self, info: RunInfo, chunk: Any) -> None:
        if info.shown:
            self._send(self._event(info, "stream", {"chunk": chunk}))

    def _ended(self, info: RunInfo, output: Any, raw: Any) -> None:
        if not info.shown:
            return
        if info.root:
            # LangChain's outermost chain streams even when it could not stream: its
            # output arrives as one chunk before the end
            if not info.streamed and info.kind in ("chain", "parser") and self._root_chunk:
                self._send(self._event(info, "stream", {"chunk": output}))
            self._send(self._event(info, "end", {"output": output}))
        elif info.id == self._first_id or (info.streamed_input and info.input is None):
            self._send(self._event(info, "end", {"output": output}))
        else:
            self._send(self._event(info, "end", {"output": output, "input": info.input}))

    def _errored(self, info: RunInfo, error: BaseException, kwargs: dict[str, Any]) -> None:
        if info.kind == "tool" and info.shown:
            data = {"error": error, "input": info.input, "tool_call_id": kwargs.get("tool_call_id")}
            self._send(self._event(info, "error", data))

    def _custom(self, info: RunInfo | None, name: str, data: Any, kwargs: dict[str, Any]) -> None:
        tags = kwargs.get("tags") or []
        if not self._filter(name, name, tags):  # its type is its name, as LangChain's
            return
        if self._take_first(str(kwargs["run_id"])) and isinstance(data, dict):
            data = {**data, "input": self._root_input}
        self._send(
            {
                "event": "on_custom_event",
                "run_id": str(kwargs["run_id"]),
                "name": name,
                "tags": tags,
                "metadata": kwargs.get("metadata") or {},
                "data": data,
                "parent_ids": list(info.parent_ids) if info is not None else [],
            }
        )


def _with_handler(config: RunnableConfig | None, handler: Any) -> RunnableConfig:
    config = ensure_config(config)
    callbacks = config.get("callbacks")
    if isinstance(callbacks, CallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler)
        config["callbacks"] = manager
    else:
        config["callbacks"] = [*(callbacks or ()), handler]
    return config


async def watch_run(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig | None,
    make_handler: Callable[[Callable[[Any], None]], RunWatcher],
    kwargs: dict[str, Any],
    *,
    root_chunks: bool = False,
) -> AsyncIterator[Any]:
    """Run ``runnable.astream(input)`` in a task and yield what its watcher sends, as it
    sends it.

    Args:
        make_handler: builds the watcher from the ``send`` function it must call.
        root_chunks: also yield ``(_ROOT_CHUNK, chunk)`` for each chunk of the stream.

    The run's error is raised after what was sent before it; closing this generator
    early cancels the run (its runs end as cancelled).
    """
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    queue: deque[Any] = deque()
    waiting: list[asyncio.Future[None] | None] = [None]

    def wake() -> None:
        waiter = waiting[0]
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def push(item: Any) -> None:
        queue.append(item)
        if waiting[0] is not None:
            wake()

    def send(item: Any) -> None:
        if threading.get_ident() == loop_thread:
            push(item)
        else:  # a sync step in a worker thread: hand it to the loop, in order
            loop.call_soon_threadsafe(push, item)

    handler = make_handler(send)
    config = _with_handler(config, handler)

    async def run() -> None:
        stream = runnable.astream(input, config, **kwargs)
        try:
            async for chunk in stream:
                if root_chunks:
                    push((ROOT_CHUNK, chunk))
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()

    task = loop.create_task(run())
    task.add_done_callback(lambda _: wake())
    try:
        while True:
            while queue:
                yield queue.popleft()
            if task.done():
                break
            waiter = waiting[0] = loop.create_future()
            try:
                await waiter
            finally:
                waiting[0] = None
        task.result()  # the run's error, after every event sent before it
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


ROOT_CHUNK: Any = object()


def event_filter_for(
    version: str,
    include_names: Sequence[str] | None = None,
    include_types: Sequence[str] | None = None,
    include_tags: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    exclude_types: Sequence[str] | None = None,
    exclude_tags: Sequence[str] | None = None,
) -> EventFilter:
    """The filter of an ``astream_events`` call, its arguments checked before it runs.

    Raises:
        InvalidInputError: a version other than ``"v1"`` or ``"v2"``, or a filter that is
            a string.
    """
    if version not in ("v1", "v2"):
        raise InvalidInputError(
            f"astream_events version {version!r} is not supported; use 'v2' (or the "
            "deprecated 'v1')"
        )
    return EventFilter(
        include_names=include_names,
        include_types=include_types,
        include_tags=include_tags,
        exclude_names=exclude_names,
        exclude_types=exclude_types,
        exclude_tags=exclude_tags,
    )


async def astream_events(
    runnable: Runnable[Any, Any],
    input: Any,
    config: RunnableConfig | None,
    event_filter: EventFilter,
    kwargs: dict[str, Any],
) -> AsyncIterator[dict[str, Any]]:
    """What ``Runnable.astream_events`` yields (see the module docstring)."""

    def make_handler(send: Callable[[Any], None]) -> RunWatcher:
        return EventStreamHandler(
            send, event_filter, input, root_chunk=not runnable._streams_after_its_run
        )

    async for event in watch_run(runnable, input, config, make_handler, kwargs):
        yield event

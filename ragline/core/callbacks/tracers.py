"""RunCollectorCallbackHandler: records every run as a :class:`Run` tree.

Useful in tests (assert which runs happened, in what order, with which inputs) and as
the starting point of your own tracing: walk ``collector.traced_runs`` after a call.

Example:
    >>> from ragline.core import RunnableLambda
    >>> collector = RunCollectorCallbackHandler()
    >>> add = RunnableLambda(lambda x: x + 1, name="add")
    >>> chain = add | RunnableLambda(lambda x: x * 2, name="double")
    >>> chain.invoke(1, {"callbacks": [collector]})
    4
    >>> collector.traced_runs[0].tree()
    ('RunnableSequence', [('add', []), ('double', [])])
"""

from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any
from uuid import UUID

from ragline.core.callbacks.base import BaseCallbackHandler

__all__ = ["RootListenersHandler", "Run", "RunCollectorCallbackHandler"]


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Run:
    """One recorded run.

    Attributes:
        id: the run id (a UUID).
        parent_run_id: the enclosing run's id, or ``None`` for a root run.
        name: the run name (``run_name`` from the config, or the runnable's name).
        run_type: ``"chain"``, ``"llm"``, ``"chat_model"``, ``"retriever"`` or ``"tool"``.
        inputs: what the run started with (the query for retrievers, the prompts or
            messages for models).
        outputs: what it ended with (``None`` until it ends, or if it failed).
        error: the exception it raised, or ``None``.
        tags, metadata: as reported on the start event.
        children: child runs, in the order they started (``child_runs`` in LangChain).
        events: ``{"name": ..., "time": ..., **details}`` for start, new_token, text,
            retry, agent_action, agent_finish, end and error, in order.
    """

    id: UUID
    parent_run_id: UUID | None
    name: str
    run_type: str
    inputs: Any
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    outputs: Any = None
    error: BaseException | None = None
    children: list[Run] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    start_time: datetime = field(default_factory=_now)
    end_time: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def child_runs(self) -> list[Run]:
        """LangChain's name for :attr:`children`."""
        return self.children

    def tree(self) -> tuple[str, list[Any]]:
        """Return ``(name, [child trees])``, handy in assertions."""
        return (self.name, [child.tree() for child in self.children])

    def find(self, name: str) -> Run | None:
        """Return the first run named ``name`` in this tree (depth-first), or ``None``."""
        if self.name == name:
            return self
        for child in self.children:
            found = child.find(name)
            if found is not None:
                return found
        return None

    def __repr__(self) -> str:
        return (
            f"Run(name={self.name!r}, run_type={self.run_type!r}, "
            f"children={len(self.children)}, error={self.error!r})"
        )


class RunCollectorCallbackHandler(BaseCallbackHandler):
    """Collect every run into trees of :class:`Run` (thread-safe).

    Attributes:
        traced_runs: root runs (runs whose parent this handler did not see), in order.
        runs_by_id: every run, by id.
        event_log: ``(event, run)`` pairs in the order events arrived, where ``event``
            is the callback name without ``on_`` (``"chain_start"``, ``"llm_new_token"``).
    """

    raise_error = True  # a broken collector should fail the test that relies on it

    def __init__(self) -> None:
        self.traced_runs: list[Run] = []
        self.runs_by_id: dict[UUID, Run] = {}
        self.event_log: list[tuple[str, Run]] = []
        self._lock = threading.Lock()

    def timeline(self) -> list[tuple[str, str, str | None]]:
        """Return ``(event, run name, parent run name or None)`` for every event, in order."""
        with self._lock:
            rows = []
            for event, run in self.event_log:
                parent = self.runs_by_id.get(run.parent_run_id) if run.parent_run_id else None
                rows.append((event, run.name, parent.name if parent else None))
            return rows

    def _start(
        self,
        event: str,
        run_type: str,
        inputs: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        run = Run(
            id=run_id,
            parent_run_id=parent_run_id,
            name=kwargs.get("name") or run_type,
            run_type=run_type,
            inputs=inputs,
            tags=list(tags or []),
            metadata=dict(metadata or {}),
            extra={k: v for k, v in kwargs.items() if k != "name"},
        )
        run.events.append({"name": "start", "time": run.start_time})
        with self._lock:
            self.runs_by_id[run_id] = run
            parent = self.runs_by_id.get(parent_run_id) if parent_run_id else None
            if parent is None:
                self.traced_runs.append(run)
            else:
                parent.children.append(run)
            self.event_log.append((event, run))

    def _event(self, event: str, short: str, run_id: UUID, details: dict[str, Any]) -> Run | None:
        with self._lock:
            run = self.runs_by_id.get(run_id)
            if run is None:
                return None
            run.events.append({"name": short, "time": _now(), **details})
            self.event_log.append((event, run))
            return run

    def _end(
        self,
        event: str,
        run_id: UUID,
        outputs: Any,
        error: BaseException | None,
        kwargs: dict[str, Any],
    ) -> None:
        with self._lock:
            run = self.runs_by_id.get(run_id)
            if run is None:
                return
            run.end_time = _now()
            run.outputs, run.error = outputs, error
            if "inputs" in kwargs:  # streamed runs learn their input only at the end
                run.inputs = kwargs["inputs"]
            run.events.append({"name": "error" if error else "end", "time": run.end_time})
            self.event_log.append((event, run))

    # starts ---------------------------------------------------------------------------
    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chain run."""
        self._start("chain_start", "chain", inputs, run_id, parent_run_id, tags, metadata, kwargs)

    def on_llm_start(
        self,
        serialized: Any,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record an LLM run."""
        self._start("llm_start", "llm", prompts, run_id, parent_run_id, tags, metadata, kwargs)

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chat model run."""
        self._start(
            "chat_model_start",
            "chat_model",
            messages,
            run_id,
            parent_run_id,
            tags,
            metadata,
            kwargs,
        )

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a retriever run."""
        self._start(
            "retriever_start", "retriever", query, run_id, parent_run_id, tags, metadata, kwargs
        )

    def on_tool_start(
        self,
        serialized: Any,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a tool run (its input is the input string; ``extra["inputs"]`` the dict)."""
        self._start("tool_start", "tool", input_str, run_id, parent_run_id, tags, metadata, kwargs)

    # middles --------------------------------------------------------------------------
    def on_agent_action(self, action: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record an agent's action on the executor run's events."""
        self._event("agent_action", "agent_action", run_id, {"action": action})

    def on_agent_finish(self, finish: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record an agent's finish on the executor run's events."""
        self._event("agent_finish", "agent_finish", run_id, {"finish": finish})

    def on_llm_new_token(self, token: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a streamed token on its run's events."""
        self._event(
            "llm_new_token", "new_token", run_id, {"token": token, "chunk": kwargs.get("chunk")}
        )

    def on_text(self, text: str, *, run_id: UUID, **kwargs: Any) -> None:
        """Record reported text on its run's events."""
        self._event("text", "text", run_id, {"text": text})

    def on_retry(self, retry_state: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a retry on its run's events."""
        self._event("retry", "retry", run_id, {"retry_state": retry_state})

    # ends -----------------------------------------------------------------------------
    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a chain's output."""
        self._end("chain_end", run_id, outputs, None, kwargs)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a chain's error."""
        self._end("chain_error", run_id, None, error, kwargs)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a model's result."""
        self._end("llm_end", run_id, response, None, kwargs)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a model's error."""
        self._end("llm_error", run_id, None, error, kwargs)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a retriever's documents."""
        self._end("retriever_end", run_id, documents, None, kwargs)

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a retriever's error."""
        self._end("retriever_error", run_id, None, error, kwargs)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a tool's output."""
        self._end("tool_end", run_id, output, None, kwargs)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Record a tool's error."""
        self._end("tool_error", run_id, None, error, kwargs)


def listener_takes_config(listener: Any) -> bool:
    """Whether ``listener`` has a parameter named ``config`` (LangChain then passes it)."""
    try:
        return "config" in inspect.signature(listener).parameters
    except (TypeError, ValueError):  # no signature to read: call it with the run only
        return False


class RootListenersHandler(BaseCallbackHandler):
    """Calls ``on_start(run)`` / ``on_end(run)`` / ``on_error(run)`` for root runs only.

    Behind ``Runnable.with_listeners``: the handler joins the config of the bound
    runnable, so the "root" runs it sees are the bound runnable's own runs. Runs below
    them are tracked only by id and forgotten when they end, so memory stays flat.
    """

    raise_error = True  # a listener's exception is the user's to see

    def __init__(
        self,
        on_start: Any = None,
        on_end: Any = None,
        on_error: Any = None,
        *,
        config: dict[str, Any] | None = None,
    ) -> None:
        self._listeners = {"start": on_start, "end": on_end, "error": on_error}
        # LangChain calls a listener with a ``config`` parameter as (run, config): the
        # config of the call the handler was made for.
        self._config = config
        self._with_config = {
            key: listener is not None and listener_takes_config(listener)
            for key, listener in self._listeners.items()
        }
        self._roots: dict[UUID, Run] = {}
        self._open: set[UUID] = set()
        self._lock = threading.Lock()

    def _started(
        self,
        run_type: str,
        inputs: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        with self._lock:
            is_root = parent_run_id is None or parent_run_id not in self._open
            self._open.add(run_id)
            if not is_root:
                return
            run = Run(
                id=run_id,
                parent_run_id=parent_run_id,
                name=kwargs.get("name") or run_type,
                run_type=run_type,
                inputs=inputs,
                tags=list(tags or []),
                metadata=dict(metadata or {}),
            )
            self._roots[run_id] = run
        self._notify("start", run)

    def _ended(
        self, run_id: UUID, outputs: Any, error: BaseException | None, kwargs: dict[str, Any]
    ) -> None:
        with self._lock:
            self._open.discard(run_id)
            run = self._roots.pop(run_id, None)
        if run is None:
            return
        run.end_time, run.outputs, run.error = _now(), outputs, error
        if "inputs" in kwargs:
            run.inputs = kwargs["inputs"]
        self._notify("error" if error is not None else "end", run)

    def _notify(self, which: str, run: Run) -> None:
        listener = self._listeners[which]
        if listener is None:
            return
        if self._with_config[which]:
            listener(run, config=dict(self._config or {}))
        else:
            listener(run)

    def on_chain_start(
        self,
        serialized: Any,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a chain run."""
        self._started("chain", inputs, run_id, parent_run_id, tags, metadata, kwargs)

    def on_llm_start(
        self,
        serialized: Any,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note an LLM run."""
        self._started("llm", prompts, run_id, parent_run_id, tags, metadata, kwargs)

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a chat model run."""
        self._started("chat_model", messages, run_id, parent_run_id, tags, metadata, kwargs)

    def on_retriever_start(
        self,
        serialized: Any,
        query: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a retriever run."""
        self._started("retriever", query, run_id, parent_run_id, tags, metadata, kwargs)

    def on_tool_start(
        self,
        serialized: Any,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Note a tool run."""
        self._started("tool", input_str, run_id, parent_run_id, tags, metadata, kwargs)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """End a tool run."""
        self._ended(run_id, output, None, kwargs)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """End a tool run with an error."""
        self._ended(run_id, None, error, kwargs)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """End a chain run."""
        self._ended(run_id, outputs, None, kwargs)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """End a chain run with an error."""
        self._ended(run_id, None, error, kwargs)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """End a model run."""
        self._ended(run_id, response, None, kwargs)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """End a model run with an error."""
        self._ended(run_id, None, error, kwargs)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """End a retriever run."""
        self._ended(run_id, documents, None, kwargs)

    def on_retriever_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """End a retriever run with an error."""
        self._ended(run_id, None, error, kwargs)

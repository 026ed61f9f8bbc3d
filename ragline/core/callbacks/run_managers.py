"""Run managers: what ``CallbackManager.on_*_start`` returns, to report the rest of a run.

Every run manager reports its run's later events (``on_chain_end``, ``on_llm_new_token``,
``on_retriever_end``, ``on_text`` ...) with the run's ids, tags and metadata, and hands
out the manager of the run's children (``get_child()``, ``child_config(config)``).

The sync classes also have ``a``-prefixed coroutine twins (``await run.aon_chain_end(x)``),
which await async handlers in order. The ``Async...`` classes are what async hooks receive
(``_acall``, ``_aget_relevant_documents``): their ``on_*`` methods are the coroutines, so
code written for LangChain (``await run_manager.on_llm_new_token(token)``) runs as is.

A run with handlers gets its id when it starts; any other run's id is made when something
first asks for it: a run nobody listens to (no handler anywhere in the tree) never pays
for a uuid.
"""

from __future__ import annotations

import inspect
import os
import random
import threading
import uuid
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ragline.core.callbacks._dispatch import (
    _IGNORE_FLAG,
    _recover,
    _run_coroutine_sync,
    adispatch,
)
from ragline.core.config import DEFAULT_RECURSION_LIMIT

if TYPE_CHECKING:
    from ragline.core.callbacks.base import BaseCallbackHandler, RetryState
    from ragline.core.callbacks.manager import CallbackManager
    from ragline.core.config import RunnableConfig

__all__ = [
    "AsyncCallbackManagerForChainRun",
    "AsyncCallbackManagerForLLMRun",
    "AsyncCallbackManagerForRetrieverRun",
    "AsyncCallbackManagerForToolRun",
    "BaseRunManager",
    "CallbackManagerForChainRun",
    "CallbackManagerForLLMRun",
    "CallbackManagerForRetrieverRun",
    "CallbackManagerForToolRun",
]

_ID_LOCK = threading.Lock()
# a version-4 UUID built as uuid.uuid4() builds it, without UUID.__init__'s argument
# checks (half its cost; a traced run makes one per run). The 122 random bits come from
# a getrandbits call, not os.urandom: a run id names a run, it guards nothing, and one
# builtin call (no system call, no int.from_bytes) is what a traced call pays for it.
# The generator is ragline's own, seeded from the system at import and again in every
# forked child: a program's random.seed() neither repeats run ids nor has its own
# sequence of numbers moved by the runs it starts.
_VERSION_4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_VERSION_4_SET = (0x8000 << 48) | (0x4000 << 64)
_RUN_ID_BITS = random.Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_RUN_ID_BITS.seed)
_getrandbits = _RUN_ID_BITS.getrandbits
_UNKNOWN_SAFETY = uuid.SafeUUID.unknown
_new_uuid = object.__new__
_set = object.__setattr__


_ONE_RUN_KEYS = ("run_name", "run_id")


class BaseRunManager:
    """Reports the events of one started run; made by ``CallbackManager.on_*_start``.

    Attributes:
        run_id: this run's UUID.
        parent_run_id: the enclosing run's UUID, or ``None`` for a root run.
        handlers: the handlers this run reports to.
        inheritable_handlers: the handlers its child runs report to.
        tags, metadata: this run's tags and metadata (what handlers receive).
        inheritable_tags, inheritable_metadata: what its child runs inherit.
        name: the run name.
        depth: how many runs enclose this one.
    """

    __slots__ = (
        "_parent",
        "_recursion_limit",
        "_run_id",
        "depth",
        "handlers",
        "inheritable_handlers",
        "inheritable_metadata",
        "inheritable_tags",
        "metadata",
        "name",
        "tags",
    )

    def __init__(
        self,
        *,
        run_id: UUID | None,
        parent_run_id: Any,
        handlers: list[BaseCallbackHandler],
        tags: list[str],
        metadata: dict[str, Any],
        name: str = "",
        depth: int = 0,
        inheritable_handlers: list[BaseCallbackHandler] | None = None,
        inheritable_tags: list[str] | None = None,
        inheritable_metadata: dict[str, Any] | None = None,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    ) -> None:
        if handlers and run_id is None:  # (handlers first: an unheard run tests one)
            # a run with handlers: its id now (the run_id property's steps, no lock: no
            # other thread sees this run yet), so that its events read ``_run_id`` and
            # call no property; a run nobody listens to still makes none
            run_id = _new_uuid(UUID)
            _set(run_id, "int", _getrandbits(128) & _VERSION_4_CLEAR | _VERSION_4_SET)
            _set(run_id, "is_safe", _UNKNOWN_SAFETY)
        self._run_id = run_id
        # a UUID, None, or the enclosing run's manager (its id is read when asked for)
        self._parent = parent_run_id
        self.handlers = handlers
        self.inheritable_handlers = (
            handlers if inheritable_handlers is None else inheritable_handlers
        )
        self.tags = tags
        self.inheritable_tags = tags if inheritable_tags is None else inheritable_tags
        self.metadata = metadata
        self.inheritable_metadata = (
            metadata if inheritable_metadata is None else inheritable_metadata
        )
        self.name = name
        self.depth = depth
        self._recursion_limit = recursion_limit

    @property
    def run_id(self) -> UUID:
        """This run's id (a uuid4, made on first use unless the caller gave one)."""
        run_id = self._run_id
        if run_id is None:
            with _ID_LOCK:  # two threads asking at once must see one id
                if self._run_id is None:  # a version-4 UUID (see _VERSION_4_SET)
                    fresh = _new_uuid(UUID)
                    _set(fresh, "int", _getrandbits(128) & _VERSION_4_CLEAR | _VERSION_4_SET)
                    _set(fresh, "is_safe", _UNKNOWN_SAFETY)
                    self._run_id = fresh
                run_id = self._run_id
        return run_id

    @property
    def parent_run_id(self) -> UUID | None:
        """The enclosing run's id, or ``None`` for a root run."""
        parent = self._parent
        if parent is None or isinstance(parent, UUID):
            return parent
        return parent.run_id  # type: ignore[no-any-return]

    # The ids as keywords. The run's metadata goes with its start event only (the
    # manager passes it), as LangChain's run managers do.
    def _emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        if not self.handlers:  # (as before: an unheard run's event tests only this)
            return
        handlers = self.handlers
        # The run_id and parent_run_id properties' steps and dispatch's loop written out
        # (its error path shared, _recover): a traced call runs this code after a model's
        # forward pass has evicted the CPU caches, where each further Python function
        # costs its own cache misses.
        run_id = self._run_id
        if run_id is None:  # a handler added to the list after the run began
            run_id = self.run_id
        parent = self._parent
        if parent is not None and not isinstance(parent, UUID):
            parent = parent.run_id
        # dict(), as dispatch's keywords were: a keyword given twice raises TypeError here
        kwargs = dict(run_id=run_id, parent_run_id=parent, tags=list(self.tags), **kwargs)
        flag = _IGNORE_FLAG.get(event)
        for handler in handlers:
            if flag is not None and getattr(handler, flag, False):
                continue
            try:
                result = getattr(handler, event)(*args, **kwargs)
                if result is not None and inspect.isawaitable(result):
                    _run_coroutine_sync(result)
            except Exception as err:
                _recover(handler, event, err, args, kwargs)

    async def _aemit(self, event: str, *args: Any, **kwargs: Any) -> None:
        if self.handlers:
            await adispatch(self.handlers, event, *args, run_id=self.run_id,
                            parent_run_id=self.parent_run_id, tags=list(self.tags),
                            **kwargs)  # fmt: skip

    def get_child(self, tag: str | None = None) -> CallbackManager:
        """Return a CallbackManager whose runs are children of this run.

        Args:
            tag: a tag for the child runs only (not inherited further).
        """
        from ragline.core.callbacks.manager import CallbackManager

        child = CallbackManager._child_of(self)
        if tag is not None:
            child.add_tags([tag], inherit=False)
        return child

    def child_config(self, config: RunnableConfig) -> RunnableConfig:
        """Return ``config`` for children of this run (run_name and run_id removed)."""
        from ragline.core.callbacks.manager import CallbackManager

        child: dict[str, Any] = config.copy()  # type: ignore[assignment]
        child.pop("run_name", None)
        child.pop("run_id", None)
        child["callbacks"] = CallbackManager._child_of(self)
        return child  # type: ignore[return-value]

    def on_text(self, text: str, **kwargs: Any) -> None:
        """Report ``text`` (for example a formatted prompt) to the handlers."""
        self._emit("on_text", text, **kwargs)

    def on_retry(self, retry_state: RetryState, **kwargs: Any) -> None:
        """Report that this run will try again."""
        self._emit("on_retry", retry_state, **kwargs)

    async def aon_text(self, text: str, **kwargs: Any) -> None:
        """Async twin of :meth:`on_text`."""
        await self._aemit("on_text", text, **kwargs)

    async def aon_retry(self, retry_state: RetryState, **kwargs: Any) -> None:
        """Async twin of :meth:`on_retry`."""
        await self._aemit("on_retry", retry_state, **kwargs)

    def get_sync(self) -> Any:
        """This run's manager with plain (not coroutine) ``on_*`` methods: itself here;
        the async run managers return their sync twin (LangChain's ``get_sync``)."""
        return self

    @classmethod
    def get_noop_manager(cls) -> Any:
        """A run manager that reports to nobody (for calling a hook by hand)."""
        return cls(run_id=None, parent_run_id=None, handlers=[], tags=[], metadata={})


class CallbackManagerForChainRun(BaseRunManager):
    """Run manager of a chain run."""

    __slots__ = ()

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Report the run's output (streamed runs also pass ``inputs=``)."""
        self._emit("on_chain_end", outputs, **kwargs)

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report the error the run raised."""
        self._emit("on_chain_error", error, **kwargs)

    def on_agent_action(self, action: Any, **kwargs: Any) -> None:
        """Report an agent's chosen action."""
        self._emit("on_agent_action", action, **kwargs)

    def on_agent_finish(self, finish: Any, **kwargs: Any) -> None:
        """Report an agent's final answer."""
        self._emit("on_agent_finish", finish, **kwargs)

    async def aon_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_chain_end`."""
        await self._aemit("on_chain_end", outputs, **kwargs)

    async def aon_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of :meth:`on_chain_error`."""
        await self._aemit("on_chain_error", error, **kwargs)

    async def aon_agent_action(self, action: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_agent_action`."""
        await self._aemit("on_agent_action", action, **kwargs)

    async def aon_agent_finish(self, finish: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_agent_finish`."""
        await self._aemit("on_agent_finish", finish, **kwargs)


class CallbackManagerForLLMRun(BaseRunManager):
    """Run manager of an LLM or chat-model run."""

    __slots__ = ()

    def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        """Report one streamed token (``chunk`` is the generation chunk)."""
        self._emit("on_llm_new_token", token, chunk=chunk, **kwargs)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Report the model's result (an ``LLMResult``)."""
        self._emit("on_llm_end", response, **kwargs)

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report the error the model raised."""
        self._emit("on_llm_error", error, **kwargs)

    async def aon_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        """Async twin of :meth:`on_llm_new_token`."""
        await self._aemit("on_llm_new_token", token, chunk=chunk, **kwargs)

    async def aon_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_llm_end`."""
        await self._aemit("on_llm_end", response, **kwargs)

    async def aon_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of :meth:`on_llm_error`."""
        await self._aemit("on_llm_error", error, **kwargs)


class CallbackManagerForRetrieverRun(BaseRunManager):
    """Run manager of a retriever run."""

    __slots__ = ()

    def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        """Report the documents found."""
        self._emit("on_retriever_end", documents, **kwargs)

    def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report the error the retriever raised."""
        self._emit("on_retriever_error", error, **kwargs)

    async def aon_retriever_end(self, documents: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_retriever_end`."""
        await self._aemit("on_retriever_end", documents, **kwargs)

    async def aon_retriever_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of :meth:`on_retriever_error`."""
        await self._aemit("on_retriever_error", error, **kwargs)


class CallbackManagerForToolRun(BaseRunManager):
    """Run manager of a tool run."""

    __slots__ = ()

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        """Report the tool's output."""
        self._emit("on_tool_end", output, **kwargs)

    def on_tool_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report the error the tool raised."""
        self._emit("on_tool_error", error, **kwargs)

    async def aon_tool_end(self, output: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_tool_end`."""
        await self._aemit("on_tool_end", output, **kwargs)

    async def aon_tool_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of :meth:`on_tool_error`."""
        await self._aemit("on_tool_error", error, **kwargs)


# ----------------------------------------------------------------------------- async hooks
# What async hooks receive: the same run managers whose on_* methods are coroutines.


class _AsyncRunMixin:
    __slots__ = ()

    async def on_text(self, text: str, **kwargs: Any) -> None:  # type: ignore[override]
        """Report ``text`` to the handlers."""
        await self.aon_text(text, **kwargs)  # type: ignore[attr-defined]

    async def on_retry(self, retry_state: RetryState, **kwargs: Any) -> None:  # type: ignore[override]
        """Report that this run will try again."""
        await self.aon_retry(retry_state, **kwargs)  # type: ignore[attr-defined]

    def get_child(self, tag: str | None = None) -> Any:
        """Return an AsyncCallbackManager whose runs are children of this run (its
        ``on_*_start`` methods are coroutines, as LangChain's async run managers give).

        Args:
            tag: a tag for the child runs only (not inherited further).
        """
        from ragline.core.callbacks._async_manager import AsyncCallbackManager

        child = AsyncCallbackManager._child_of(self)  # type: ignore[arg-type]
        if tag is not None:
            child.add_tags([tag], inherit=False)
        return child

    def get_sync(self) -> BaseRunManager:
        """The sync run manager of the same run, for sync code run from async code (a
        tool's ``_run`` in a worker thread)."""
        twin = object.__new__(SYNC_TWIN[type(self)])  # type: ignore[index]
        for slot in BaseRunManager.__slots__:
            setattr(twin, slot, getattr(self, slot))
        twin._run_id = self.run_id  # type: ignore[attr-defined]  # fixed now: one id for both
        return twin


class AsyncCallbackManagerForChainRun(_AsyncRunMixin, CallbackManagerForChainRun):  # type: ignore[misc]
    """Run manager of a chain run, for async code (``await run_manager.on_chain_end(x)``)."""

    __slots__ = ()

    async def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the run's output."""
        await self.aon_chain_end(outputs, **kwargs)

    async def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the error the run raised."""
        await self.aon_chain_error(error, **kwargs)

    async def on_agent_action(self, action: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report an agent's chosen action."""
        await self.aon_agent_action(action, **kwargs)

    async def on_agent_finish(self, finish: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report an agent's final answer."""
        await self.aon_agent_finish(finish, **kwargs)


class AsyncCallbackManagerForLLMRun(_AsyncRunMixin, CallbackManagerForLLMRun):  # type: ignore[misc]
    """Run manager of a model run, for async code (``await run_manager.on_llm_new_token(t)``)."""

    __slots__ = ()

    async def on_llm_new_token(  # type: ignore[override]
        self, token: str, *, chunk: Any = None, **kwargs: Any
    ) -> None:
        """Report one streamed token."""
        await self.aon_llm_new_token(token, chunk=chunk, **kwargs)

    async def on_llm_end(self, response: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the model's result."""
        await self.aon_llm_end(response, **kwargs)

    async def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the error the model raised."""
        await self.aon_llm_error(error, **kwargs)


class AsyncCallbackManagerForRetrieverRun(_AsyncRunMixin, CallbackManagerForRetrieverRun):  # type: ignore[misc]
    """Run manager of a retriever run, for async code."""

    __slots__ = ()

    async def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the documents found."""
        await self.aon_retriever_end(documents, **kwargs)

    async def on_retriever_error(self, error: BaseException, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the error the retriever raised."""
        await self.aon_retriever_error(error, **kwargs)


class AsyncCallbackManagerForToolRun(_AsyncRunMixin, CallbackManagerForToolRun):  # type: ignore[misc]
    """Run manager of a tool run, for async code."""

    __slots__ = ()

    async def on_tool_end(self, output: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the tool's output."""
        await self.aon_tool_end(output, **kwargs)

    async def on_tool_error(self, error: BaseException, **kwargs: Any) -> None:  # type: ignore[override]
        """Report the error the tool raised."""
        await self.aon_tool_error(error, **kwargs)


ASYNC_TWIN: dict[type[BaseRunManager], type[BaseRunManager]] = {
    CallbackManagerForChainRun: AsyncCallbackManagerForChainRun,
    CallbackManagerForLLMRun: AsyncCallbackManagerForLLMRun,
    CallbackManagerForRetrieverRun: AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForToolRun: AsyncCallbackManagerForToolRun,
}
SYNC_TWIN = {asynchronous: sync for sync, asynchronous in ASYNC_TWIN.items()}

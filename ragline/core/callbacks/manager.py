"""CallbackManager: starts runs and hands back a run manager that reports the rest.

How to use it (for anyone writing a runnable that does not use ``_call_with_config``,
for example a language model)::

    from ragline.core.callbacks import CallbackManager
    from ragline.core.config import ensure_config, use_config

    config = ensure_config(config)                  # inherit the current run's config
    manager = CallbackManager.configure(config)     # handlers, parent run, tags, metadata;
                                                    # raises RecursionLimitError when too deep
    run = manager.on_chat_model_start(              # or on_llm_start(serialized, prompts, ...)
        None, [messages],                           # one list of messages per prompt
        name=config["run_name"] or "FakeListChatModel",
        run_id=config["run_id"],                    # None -> a new uuid4
        invocation_params={"stop": stop},           # optional, passed to handlers as kwargs
    )
    try:
        for chunk in stream_tokens():
            run.on_llm_new_token(chunk.content, chunk=chunk)
    except BaseException as err:
        run.on_llm_error(err)
        raise
    run.on_llm_end(llm_result)

    # anything the run invokes should become its child:
    with use_config(run.child_config(config)):      # or pass run.child_config(config) on
        other_runnable.invoke(x)

The same for the other run types: ``on_chain_start(serialized, inputs, name=...)``
returns a :class:`CallbackManagerForChainRun` (``on_chain_end(outputs)``,
``on_chain_error(err)``); ``on_retriever_start(serialized, query, name=...)`` returns a
:class:`CallbackManagerForRetrieverRun` (``on_retriever_end(documents)``,
``on_retriever_error(err)``). Every run manager also has ``on_text(text)``,
``on_retry(retry_state)``, ``get_child()`` (a CallbackManager whose runs are children
of this run) and ``child_config(config)``. In async code use the ``a``-prefixed twins
(``await manager.aon_chat_model_start(...)``, ``await run.aon_llm_new_token(...)``),
which await :class:`AsyncCallbackHandler` methods in order.

Handlers that raise are logged and ignored unless ``handler.raise_error`` is True.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ragline.core.callbacks.base import BaseCallbackHandler, RetryState
from ragline.core.config import DEFAULT_RECURSION_LIMIT, child_config
from ragline.core.exceptions import RecursionLimitError

if TYPE_CHECKING:
    from ragline.core.config import RunnableConfig

__all__ = [
    "BaseRunManager",
    "CallbackManager",
    "CallbackManagerForChainRun",
    "CallbackManagerForLLMRun",
    "CallbackManagerForRetrieverRun",
]

logger = logging.getLogger("ragline.callbacks")

_IGNORE_FLAG = {
    "chain": "ignore_chain",
    "llm": "ignore_llm",
    "chat": "ignore_llm",
    "retriever": "ignore_retriever",
    "retry": "ignore_retry",
}


def _ignored(handler: BaseCallbackHandler, event: str) -> bool:
    flag = _IGNORE_FLAG.get(event.split("_")[1])
    return bool(flag and getattr(handler, flag, False))


def _run_coroutine_sync(coroutine: Any) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coroutine)
        return
    # A loop already runs in this thread (sync code called from async code): finish the
    # handler on a private loop in a helper thread rather than blocking this loop's future.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, coroutine).result()


def _handle_error(handler: BaseCallbackHandler, event: str, err: Exception) -> None:
    if getattr(handler, "raise_error", False):
        raise err
    logger.warning("callback %s.%s raised %r", type(handler).__name__, event, err)


def _dispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, *args: Any, **kwargs: Any
) -> None:
    for handler in handlers:
        if _ignored(handler, event):
            continue
        try:
            result = getattr(handler, event)(*args, **kwargs)
            if inspect.isawaitable(result):
                _run_coroutine_sync(result)
        except Exception as err:
            _handle_error(handler, event, err)


async def _adispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, *args: Any, **kwargs: Any
) -> None:
    for handler in handlers:
        if _ignored(handler, event):
            continue
        try:
            result = getattr(handler, event)(*args, **kwargs)
            if inspect.isawaitable(result):
                await result
        except Exception as err:
            _handle_error(handler, event, err)


class BaseRunManager:
    """Reports the events of one started run; made by ``CallbackManager.on_*_start``."""

    def __init__(
        self,
        *,
        run_id: UUID,
        parent_run_id: UUID | None,
        handlers: list[BaseCallbackHandler],
        tags: list[str],
        metadata: dict[str, Any],
        name: str,
        depth: int,
        inheritable_tags: list[str],
        inheritable_metadata: dict[str, Any],
        recursion_limit: int,
    ) -> None:
        self.run_id = run_id
        self.parent_run_id = parent_run_id
        self.handlers = handlers
        self.tags = tags
        self.metadata = metadata
        self.name = name
        self.depth = depth
        self._inheritable_tags = inheritable_tags
        self._inheritable_metadata = inheritable_metadata
        self._recursion_limit = recursion_limit

    def _ids(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "parent_run_id": self.parent_run_id,
            "tags": list(self.tags),
            "metadata": dict(self.metadata),
        }

    def _emit(self, event: str, *args: Any, **kwargs: Any) -> None:
        if self.handlers:
            _dispatch(self.handlers, event, *args, **self._ids(), **kwargs)

    async def _aemit(self, event: str, *args: Any, **kwargs: Any) -> None:
        if self.handlers:
            await _adispatch(self.handlers, event, *args, **self._ids(), **kwargs)

    def get_child(self) -> CallbackManager:
        """Return a CallbackManager whose runs are children of this run."""
        return CallbackManager(
            list(self.handlers),
            parent_run_id=self.run_id,
            tags=self._inheritable_tags,
            metadata=self._inheritable_metadata,
            depth=self.depth + 1,
            recursion_limit=self._recursion_limit,
        )

    def child_config(self, config: RunnableConfig) -> RunnableConfig:
        """Return ``config`` for children of this run (run_name and run_id removed)."""
        return child_config(config, self.get_child())

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


class CallbackManagerForChainRun(BaseRunManager):
    """Run manager of a chain run."""

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Report the run's output (streamed runs also pass ``inputs=``)."""
        self._emit("on_chain_end", outputs, **kwargs)

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """Report the error the run raised."""
        self._emit("on_chain_error", error, **kwargs)

    async def aon_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Async twin of :meth:`on_chain_end`."""
        await self._aemit("on_chain_end", outputs, **kwargs)

    async def aon_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """Async twin of :meth:`on_chain_error`."""
        await self._aemit("on_chain_error", error, **kwargs)


class CallbackManagerForLLMRun(BaseRunManager):
    """Run manager of an LLM or chat-model run."""

    def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        """Report one streamed token (``chunk`` is the message/generation chunk)."""
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


class CallbackManager:
    """Holds handlers and the parent run; starts runs.

    Args:
        handlers: the callback handlers to call.
        parent_run_id: the run that runs started here belong to (``None``: root runs).
        tags, metadata: added to every run started here and below.
        depth: how many runs enclose runs started here (used for ``recursion_limit``).
        recursion_limit: starting a run at this depth raises ``RecursionLimitError``.

    Example:
        >>> from ragline.core.callbacks import RunCollectorCallbackHandler
        >>> collector = RunCollectorCallbackHandler()
        >>> run = CallbackManager([collector]).on_chain_start(None, {"q": 1}, name="step")
        >>> run.on_chain_end({"a": 2})
        >>> collector.traced_runs[0].outputs
        {'a': 2}
    """

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler] | None = None,
        *,
        parent_run_id: UUID | None = None,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        depth: int = 0,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    ) -> None:
        self.handlers: list[BaseCallbackHandler] = list(handlers or [])
        self.parent_run_id = parent_run_id
        self.tags: list[str] = list(tags or [])
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.depth = depth
        self.recursion_limit = recursion_limit

    @classmethod
    def configure(
        cls, config: RunnableConfig | None = None, *, verbose: bool = False
    ) -> CallbackManager:
        """Build the manager for a run from its (ensured) config.

        Args:
            config: the run's config; ``callbacks`` may be a handler list or a manager.
            verbose: add a :class:`StdOutCallbackHandler` if there is none.
        """
        config = config or {}
        callbacks = config.get("callbacks")
        if isinstance(callbacks, CallbackManager):
            manager = callbacks.copy()
        else:
            manager = cls(list(callbacks or []))
        for tag in config.get("tags") or []:
            if tag not in manager.tags:
                manager.tags.append(tag)
        manager.metadata.update(config.get("metadata") or {})
        manager.recursion_limit = config.get("recursion_limit") or DEFAULT_RECURSION_LIMIT
        if verbose:
            from ragline.core.callbacks.stdout import StdOutCallbackHandler

            if not any(isinstance(h, StdOutCallbackHandler) for h in manager.handlers):
                manager.add_handler(StdOutCallbackHandler())
        return manager

    def copy(self) -> CallbackManager:
        """Return an independent copy (same handlers, parent, tags, metadata, depth)."""
        return CallbackManager(
            self.handlers,
            parent_run_id=self.parent_run_id,
            tags=self.tags,
            metadata=self.metadata,
            depth=self.depth,
            recursion_limit=self.recursion_limit,
        )

    def add_handler(self, handler: BaseCallbackHandler) -> None:
        """Add ``handler`` unless it is already here."""
        if handler not in self.handlers:
            self.handlers.append(handler)

    def remove_handler(self, handler: BaseCallbackHandler) -> None:
        """Remove ``handler``."""
        self.handlers.remove(handler)

    def _new_run(self, kind: type[BaseRunManager], name: str, run_id: UUID | None) -> Any:
        if self.depth >= self.recursion_limit:
            raise RecursionLimitError(
                f"recursion limit of {self.recursion_limit} reached: run {name!r} would be "
                f"nested {self.depth + 1} runs deep. A chain probably invokes itself without "
                "end; if the depth is intended, raise config['recursion_limit']"
            )
        return kind(
            run_id=run_id or uuid.uuid4(),
            parent_run_id=self.parent_run_id,
            handlers=self.handlers,
            tags=list(self.tags),
            metadata=dict(self.metadata),
            name=name,
            depth=self.depth,
            inheritable_tags=self.tags,
            inheritable_metadata=self.metadata,
            recursion_limit=self.recursion_limit,
        )

    def _start(
        self,
        kind: type[BaseRunManager],
        event: str,
        serialized: Any,
        payload: Any,
        name: str,
        run_id: UUID | None,
        extra: dict[str, Any],
    ) -> Any:
        run = self._new_run(kind, name, run_id)
        run._emit(
            event,
            serialized if serialized is not None else {"name": name},
            payload,
            name=name,
            **extra,
        )
        return run

    async def _astart(
        self,
        kind: type[BaseRunManager],
        event: str,
        serialized: Any,
        payload: Any,
        name: str,
        run_id: UUID | None,
        extra: dict[str, Any],
    ) -> Any:
        run = self._new_run(kind, name, run_id)
        await run._aemit(
            event,
            serialized if serialized is not None else {"name": name},
            payload,
            name=name,
            **extra,
        )
        return run

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        name: str,
        run_id: UUID | None = None,
        run_type: str = "chain",
    ) -> CallbackManagerForChainRun:
        """Start a chain run; returns its run manager."""
        return self._start(
            CallbackManagerForChainRun,
            "on_chain_start",
            serialized,
            inputs,
            name,
            run_id,
            {"run_type": run_type},
        )

    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        name: str,
        run_id: UUID | None = None,
        invocation_params: dict[str, Any] | None = None,
    ) -> CallbackManagerForLLMRun:
        """Start a text-completion model run; returns its run manager."""
        return self._start(
            CallbackManagerForLLMRun,
            "on_llm_start",
            serialized,
            prompts,
            name,
            run_id,
            {"invocation_params": invocation_params or {}},
        )

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        name: str,
        run_id: UUID | None = None,
        invocation_params: dict[str, Any] | None = None,
    ) -> CallbackManagerForLLMRun:
        """Start a chat model run; returns its run manager."""
        return self._start(
            CallbackManagerForLLMRun,
            "on_chat_model_start",
            serialized,
            messages,
            name,
            run_id,
            {"invocation_params": invocation_params or {}},
        )

    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        name: str,
        run_id: UUID | None = None,
    ) -> CallbackManagerForRetrieverRun:
        """Start a retriever run; returns its run manager."""
        return self._start(
            CallbackManagerForRetrieverRun,
            "on_retriever_start",
            serialized,
            query,
            name,
            run_id,
            {},
        )

    async def aon_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        name: str,
        run_id: UUID | None = None,
        run_type: str = "chain",
    ) -> CallbackManagerForChainRun:
        """Async twin of :meth:`on_chain_start`."""
        return await self._astart(
            CallbackManagerForChainRun,
            "on_chain_start",
            serialized,
            inputs,
            name,
            run_id,
            {"run_type": run_type},
        )

    async def aon_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        name: str,
        run_id: UUID | None = None,
        invocation_params: dict[str, Any] | None = None,
    ) -> CallbackManagerForLLMRun:
        """Async twin of :meth:`on_llm_start`."""
        return await self._astart(
            CallbackManagerForLLMRun,
            "on_llm_start",
            serialized,
            prompts,
            name,
            run_id,
            {"invocation_params": invocation_params or {}},
        )

    async def aon_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        name: str,
        run_id: UUID | None = None,
        invocation_params: dict[str, Any] | None = None,
    ) -> CallbackManagerForLLMRun:
        """Async twin of :meth:`on_chat_model_start`."""
        return await self._astart(
            CallbackManagerForLLMRun,
            "on_chat_model_start",
            serialized,
            messages,
            name,
            run_id,
            {"invocation_params": invocation_params or {}},
        )

    async def aon_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        *,
        name: str,
        run_id: UUID | None = None,
    ) -> CallbackManagerForRetrieverRun:
        """Async twin of :meth:`on_retriever_start`."""
        return await self._astart(
            CallbackManagerForRetrieverRun,
            "on_retriever_start",
            serialized,
            query,
            name,
            run_id,
            {},
        )

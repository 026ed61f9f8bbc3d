"""AsyncCallbackManager: LangChain's manager whose ``on_*_start`` methods are coroutines."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.callbacks.run_managers import (
    AsyncCallbackManagerForChainRun,
    AsyncCallbackManagerForLLMRun,
    AsyncCallbackManagerForRetrieverRun,
    AsyncCallbackManagerForToolRun,
)

__all__ = ["AsyncCallbackManager", "AsyncCallbackManagerForChainGroup", "atrace_as_chain_group"]


class AsyncCallbackManager(CallbackManager):
    """A CallbackManager whose ``on_*_start`` methods are coroutines returning the async run
    managers (LangChain's ``AsyncCallbackManager``).

    Example:
        >>> import asyncio
        >>> async def main():
        ...     manager = AsyncCallbackManager.configure(inheritable_tags=["t"])
        ...     run = await manager.on_chain_start(None, {"x": 1}, name="step")
        ...     await run.on_chain_end({"y": 2})
        ...     return run.tags
        >>> asyncio.run(main())
        ['t']
    """

    __slots__ = ()

    @property
    def is_async(self) -> bool:
        return True

    async def on_chain_start(  # type: ignore[override]
        self, serialized: Any, inputs: Any, run_id: UUID | None = None, **kwargs: Any
    ) -> AsyncCallbackManagerForChainRun:
        """Start a chain run."""
        return await self.aon_chain_start(serialized, inputs, run_id, **kwargs)

    async def on_llm_start(  # type: ignore[override]
        self, serialized: Any, prompts: list[str], run_id: UUID | None = None, **kwargs: Any
    ) -> list[AsyncCallbackManagerForLLMRun]:
        """Start one text-completion model run per prompt (LangChain's shape)."""
        return [
            await self.aon_llm_start(serialized, [p], run_id if i == 0 else None, **kwargs)
            for i, p in enumerate(prompts)
        ]

    async def on_chat_model_start(  # type: ignore[override]
        self, serialized: Any, messages: list[list[Any]], run_id: UUID | None = None, **kwargs: Any
    ) -> list[AsyncCallbackManagerForLLMRun]:
        """Start one chat model run per message list (LangChain's shape)."""
        return [
            await self.aon_chat_model_start(serialized, [m], run_id if i == 0 else None, **kwargs)
            for i, m in enumerate(messages)
        ]

    async def on_retriever_start(  # type: ignore[override]
        self, serialized: Any, query: str, run_id: UUID | None = None, **kwargs: Any
    ) -> AsyncCallbackManagerForRetrieverRun:
        """Start a retriever run."""
        return await self.aon_retriever_start(serialized, query, run_id, **kwargs)

    async def on_tool_start(  # type: ignore[override]
        self, serialized: Any, input_str: str, run_id: UUID | None = None, **kwargs: Any
    ) -> AsyncCallbackManagerForToolRun:
        """Start a tool run."""
        return await self.aon_tool_start(serialized, input_str, run_id, **kwargs)

    async def on_custom_event(  # type: ignore[override]
        self, name: str, data: Any, run_id: UUID | None = None
    ) -> None:
        """Report a custom event."""
        await self.aon_custom_event(name, data, run_id)


class AsyncCallbackManagerForChainGroup(AsyncCallbackManager):
    """The manager :func:`atrace_as_chain_group` yields: the async
    :class:`~ragline.core.callbacks.manager.CallbackManagerForChainGroup`, whose
    ``on_chain_end`` / ``on_chain_error`` are coroutines ending the group's run."""

    __slots__ = ("ended", "parent_run_manager")

    def __init__(
        self,
        handlers: Any = None,
        inheritable_handlers: Any = None,
        parent_run_id: UUID | None = None,
        *,
        parent_run_manager: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(handlers, inheritable_handlers, parent_run_id, **kwargs)
        self.parent_run_manager = parent_run_manager
        self.ended = False

    def copy(self) -> Any:
        """A copy that ends the same group run (not yet ended, as LangChain's copy)."""
        copied = super().copy()
        copied.parent_run_manager = self.parent_run_manager
        copied.ended = False  # a fresh group manager, as LangChain's copy
        return copied

    async def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """End the group's run with ``outputs``."""
        self.ended = True
        await self.parent_run_manager.on_chain_end(outputs, **kwargs)

    async def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """End the group's run with ``error``."""
        self.ended = True
        await self.parent_run_manager.on_chain_error(error, **kwargs)


@contextlib.asynccontextmanager
async def atrace_as_chain_group(
    group_name: str,
    callback_manager: AsyncCallbackManager | None = None,
    *,
    inputs: dict[str, Any] | None = None,
    project_name: str | None = None,
    example_id: Any = None,
    run_id: UUID | None = None,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    address: Any = None,
) -> AsyncIterator[AsyncCallbackManagerForChainGroup]:
    """The ``async with`` form of
    :func:`~ragline.core.callbacks.manager.trace_as_chain_group`: the runs made with the
    yielded manager are children of one chain run named ``group_name``; it ends with
    ``await manager.on_chain_end(outputs)``, else at the block's end with ``{}`` (or the
    error that leaves it). ``project_name``, ``example_id`` and ``address`` are accepted
    and unused (no LangSmith tracing)."""
    from ragline.core.callbacks.manager import _group_manager

    manager: Any = AsyncCallbackManager.configure(  # an AsyncCallbackManager
        inheritable_callbacks=callback_manager,
        inheritable_tags=tags,
        inheritable_metadata=metadata,
    )
    run = await manager.on_chain_start({"name": group_name}, inputs or {}, run_id=run_id)
    group = _group_manager(AsyncCallbackManagerForChainGroup, run)
    try:
        yield group
    except BaseException as error:
        if not group.ended:
            await run.on_chain_error(error)
        raise
    else:
        if not group.ended:
            await run.on_chain_end({})

"""AsyncCallbackManager: LangChain's manager whose ``on_*_start`` methods are coroutines."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.callbacks.run_managers import (
    AsyncCallbackManagerForChainRun,
    AsyncCallbackManagerForLLMRun,
    AsyncCallbackManagerForRetrieverRun,
    AsyncCallbackManagerForToolRun,
)

__all__ = ["AsyncCallbackManager"]


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

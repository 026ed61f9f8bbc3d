"""A handler that hears one run only: what ``verbose=True`` on a tool or an executor adds.

LangChain's ``verbose`` handler is *local*: the executor prints its own steps, not every
chain and model below it. Handlers here are inherited by child runs, so the printer is
wrapped to forward only the events of the run it was made for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

__all__ = ["OneRunHandler"]


class OneRunHandler:
    """Forward ``handler``'s events whose ``run_id`` is ``run_id``; ignore the rest.

    Example:
        >>> import uuid
        >>> from ragline.core.callbacks import CallbackManager, StdOutCallbackHandler
        >>> run_id = uuid.uuid4()
        >>> manager = CallbackManager([OneRunHandler(StdOutCallbackHandler(), run_id)])
        >>> run = manager.on_chain_start(None, {}, name="outer", run_id=run_id)
        ... # doctest: +NORMALIZE_WHITESPACE
        > Entering new outer chain...
        >>> run.get_child().on_chain_start(None, {}, name="inner").on_chain_end({})
        >>> run.on_chain_end({})  # doctest: +NORMALIZE_WHITESPACE
        > Finished chain.
    """

    def __init__(self, handler: Any, run_id: UUID) -> None:
        self._handler = handler
        self._run_id = run_id

    @property
    def raise_error(self) -> bool:
        return bool(getattr(self._handler, "raise_error", False))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._handler, name)
        if not name.startswith("on_") or not callable(value):
            return value
        return self._forward(value)

    def _forward(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def forward(*args: Any, run_id: UUID, **kwargs: Any) -> Any:
            if run_id == self._run_id:
                return method(*args, run_id=run_id, **kwargs)
            return None

        return forward

    def __repr__(self) -> str:
        return f"OneRunHandler({self._handler!r}, run_id={self._run_id})"

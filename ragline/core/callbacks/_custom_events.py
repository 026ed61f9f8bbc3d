"""Custom events: ``dispatch_custom_event`` reports a named event of the running run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.config import get_current_config

if TYPE_CHECKING:
    from ragline.core.config import RunnableConfig

__all__ = ["adispatch_custom_event", "dispatch_custom_event"]


def _event_manager(config: RunnableConfig | None, caller: str) -> CallbackManager:
    from ragline.core.config import ensure_config

    config = ensure_config(config) if config is not None else get_current_config()
    callbacks = (config or {}).get("callbacks")
    if not isinstance(callbacks, CallbackManager) or not callbacks.has_parent:
        raise RuntimeError(
            f"{caller} needs a parent run: call it inside a running runnable (a "
            "RunnableLambda, a generator in a chain, a tool, a retriever's hook), or pass "
            "that run's config"
        )
    return callbacks


def dispatch_custom_event(name: str, data: Any, *, config: RunnableConfig | None = None) -> None:
    """Report a custom event of the run that is executing now.

    Handlers get ``on_custom_event(name, data, run_id=<that run's id>, ...)``, and
    ``astream_events`` yields it as an ``on_custom_event`` event.

    Args:
        name: the event's name.
        data: anything (JSON-serializable if it is to cross a server).
        config: the run's config; default: the current run's.

    Raises:
        RuntimeError: called outside any run.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> def step(x):
        ...     dispatch_custom_event("progress", {"done": 1})
        ...     return x
        >>> RunnableLambda(step).invoke(1)
        1
    """
    manager = _event_manager(config, "dispatch_custom_event")
    manager.on_custom_event(name, data)


async def adispatch_custom_event(
    name: str, data: Any, *, config: RunnableConfig | None = None
) -> None:
    """Async :func:`dispatch_custom_event` (async handlers are awaited)."""
    manager = _event_manager(config, "adispatch_custom_event")
    await manager.aon_custom_event(name, data)

"""Calling handlers: ignore flags, failing handlers, async handlers from sync code, and
LangChain's fallback from ``on_chat_model_start`` to ``on_llm_start``."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragline.core.callbacks.base import BaseCallbackHandler

logger = logging.getLogger("ragline.callbacks")

# event -> the handler flag that skips it
_IGNORE_FLAG = {
    "on_chain_start": "ignore_chain",
    "on_chain_end": "ignore_chain",
    "on_chain_error": "ignore_chain",
    "on_llm_start": "ignore_llm",
    "on_llm_new_token": "ignore_llm",
    "on_llm_end": "ignore_llm",
    "on_llm_error": "ignore_llm",
    "on_chat_model_start": "ignore_chat_model",
    "on_retriever_start": "ignore_retriever",
    "on_retriever_end": "ignore_retriever",
    "on_retriever_error": "ignore_retriever",
    "on_retry": "ignore_retry",
    "on_custom_event": "ignore_custom_event",
    "on_tool_start": "ignore_agent",
    "on_tool_end": "ignore_agent",
    "on_tool_error": "ignore_agent",
    "on_agent_action": "ignore_agent",
    "on_agent_finish": "ignore_agent",
}


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


def _as_llm_start(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``on_chat_model_start`` arguments turned into ``on_llm_start`` ones: each message
    list becomes one transcript string."""
    from ragline.core.messages import get_buffer_string

    serialized, messages, *rest = args
    return (serialized, [get_buffer_string(list(one)) for one in messages], *rest)


def dispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, /, *args: Any, **kwargs: Any
) -> None:
    """Call ``event`` on every handler in order (async handlers run to completion).

    A run manager's ``_emit`` runs this same loop itself (one function fewer per event
    of a traced run); a change here goes there too."""
    flag = _IGNORE_FLAG.get(event)
    for handler in handlers:
        if flag is not None and getattr(handler, flag, False):
            continue
        try:
            result = getattr(handler, event)(*args, **kwargs)
            # None (the usual answer) skips isawaitable's costly ABC check
            if result is not None and inspect.isawaitable(result):
                _run_coroutine_sync(result)
        except Exception as err:
            _recover(handler, event, err, args, kwargs)


def _recover(
    handler: BaseCallbackHandler,
    event: str,
    err: Exception,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """What :func:`dispatch` does when ``handler``'s ``event`` raised ``err`` (called in
    its ``except`` block): a chat-model start the handler does not implement goes to its
    ``on_llm_start`` (LangChain's fallback); any other error is raised or logged."""
    if event != "on_chat_model_start" or not isinstance(err, NotImplementedError):
        _handle_error(handler, event, err)
        return
    if getattr(handler, "ignore_llm", False):
        return
    try:
        result = handler.on_llm_start(*_as_llm_start(args), **kwargs)
        if inspect.isawaitable(result):
            _run_coroutine_sync(result)
    except Exception as error:
        _handle_error(handler, event, error)


async def adispatch(
    handlers: Sequence[BaseCallbackHandler], event: str, /, *args: Any, **kwargs: Any
) -> None:
    """Async :func:`dispatch`: coroutine handlers are awaited in order, those marked
    ``run_inline`` first (LangChain's async dispatch calls them before the others)."""
    flag = _IGNORE_FLAG.get(event)
    if len(handlers) > 1 and any(getattr(h, "run_inline", False) for h in handlers):
        inline = [h for h in handlers if getattr(h, "run_inline", False)]
        handlers = inline + [h for h in handlers if not getattr(h, "run_inline", False)]
    for handler in handlers:
        if flag is not None and getattr(handler, flag, False):
            continue
        try:
            try:
                result = getattr(handler, event)(*args, **kwargs)
                if result is not None and inspect.isawaitable(result):
                    await result
            except NotImplementedError:
                if event != "on_chat_model_start":
                    raise
                if not getattr(handler, "ignore_llm", False):
                    result = handler.on_llm_start(*_as_llm_start(args), **kwargs)
                    if inspect.isawaitable(result):
                        await result
        except Exception as err:
            _handle_error(handler, event, err)

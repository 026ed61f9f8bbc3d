"""Callbacks across the bridge: runs on one side reported to the other side's handlers.

A wrapper runs the wrapped object with one bridging handler that relays every event to
the caller's handlers, payloads converted (messages, documents, model outputs). The
wrapped object's own top run *is* the wrapper's run (already reported by the wrapper),
so with ``skip_root`` its events are dropped and its children are re-parented under the
wrapper's run; runs below keep their ids and parents. So a ragline handler (or
``astream_events``) sees a LangChain chain's steps under the ragline wrapper, and a
LangChain handler sees a ragline chain's steps under the LangChain wrapper.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from uuid import UUID

from ragline.core.callbacks._dispatch import _IGNORE_FLAG, dispatch
from ragline.core.callbacks.base import BaseCallbackHandler
from ragline.interop.langchain._convert import lc, to_lc, to_ragline

__all__ = ["EVENTS", "ToLangChainHandler", "ToRaglineHandler"]

EVENTS = (
    "on_chain_start",
    "on_chain_end",
    "on_chain_error",
    "on_llm_start",
    "on_chat_model_start",
    "on_llm_new_token",
    "on_llm_end",
    "on_llm_error",
    "on_retriever_start",
    "on_retriever_end",
    "on_retriever_error",
    "on_tool_start",
    "on_tool_end",
    "on_tool_error",
    "on_agent_action",
    "on_agent_finish",
    "on_text",
    "on_retry",
    "on_custom_event",
)
_ENDS = ("_end", "_error")


class _Relay:
    """Which events cross, and under which parent (see the module docstring)."""

    def __init__(self, parent: UUID | None, skip_root: bool) -> None:
        self.parent = parent
        self.skip_root = skip_root
        self.roots: set[UUID] = set()

    def route(self, event: str, kwargs: dict[str, Any]) -> bool:
        """Re-parent ``kwargs`` in place; False when the event is the skipped root's."""
        run_id, parent = kwargs.get("run_id"), kwargs.get("parent_run_id")
        if event.endswith("_start") and parent is None:
            self.roots.add(run_id)  # type: ignore[arg-type]
            if self.skip_root:
                return False
        elif run_id in self.roots:
            if event == "on_custom_event":
                kwargs["run_id"] = self.parent
            elif self.skip_root:
                if event.endswith(_ENDS):
                    self.roots.discard(run_id)  # type: ignore[arg-type]
                return False
        if parent is None or (self.skip_root and parent in self.roots):
            kwargs["parent_run_id"] = self.parent
        return True


@cache
def _to_ragline_class() -> type[Any]:
    base = lc("callbacks").BaseCallbackHandler

    class _ToRagline(base):  # type: ignore[misc, valid-type]
        run_inline = True  # events stay in order with the run that reports them
        raise_error = True  # ragline's dispatch already applies each handler's own flag

        def __init__(self, manager: Any, skip_root: bool) -> None:
            self.handlers = list(manager.handlers)
            self.relay = _Relay(manager.parent_run_id, skip_root)

    def relay(event: str) -> Any:
        def method(self: Any, *args: Any, **kwargs: Any) -> None:
            if self.relay.route(event, kwargs):  # name= as LangChain passed it (or not)
                dispatch(self.handlers, event, *to_ragline(args), **to_ragline(kwargs))

        method.__name__ = event
        return method

    for event in EVENTS:
        setattr(_ToRagline, event, relay(event))
    return _ToRagline


def ToRaglineHandler(manager: Any, *, skip_root: bool = True) -> Any:
    """A LangChain callback handler relaying LangChain runs to the handlers of the ragline
    ``CallbackManager`` ``manager``, under its parent run."""
    return _to_ragline_class()(manager, skip_root)


class ToLangChainHandler(BaseCallbackHandler):
    """A ragline callback handler relaying ragline runs to the handlers of a LangChain
    ``CallbackManager`` (``manager``), under its parent run."""

    def __init__(self, manager: Any, *, skip_root: bool = True) -> None:
        self.handlers = list(manager.handlers)
        self.relay = _Relay(manager.parent_run_id, skip_root)
        self._handle = lc("callbacks.manager").handle_event


def _to_langchain_method(event: str) -> Any:
    flag = _IGNORE_FLAG.get(event)

    def method(self: ToLangChainHandler, *args: Any, **kwargs: Any) -> None:
        if self.relay.route(event, kwargs):
            self._handle(self.handlers, event, flag, *to_lc(args), **to_lc(kwargs))

    method.__name__ = event
    return method


for _event in EVENTS:
    setattr(ToLangChainHandler, _event, _to_langchain_method(_event))

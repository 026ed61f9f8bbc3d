"""Whether a LangChain run would be heard, told without building its callback manager.

The retriever wrappers skip LangChain's run bookkeeping when no handler would see the
run: ``to_langchain(retriever).invoke`` (``RaglineRetriever`` in ``_to_classes.py``)
and, inside ``from_langchain(retriever)``, the LangChain retriever's ``invoke``
(``_unheard_run`` in ``_from.py``). LangChain's own ``CallbackManager.configure`` says
so exactly, but costs more than the rest of the bridge on a fast retriever (it reads the
environment twice through ``os.environ``, LangSmith's tracing context twice, and builds
a manager). :func:`surely_unheard` reads the same sources directly and answers True
only in the common case where nothing is set; a False sends the call through
LangChain's own ``invoke``, which builds the handlers.

It repeats what the installed langchain-core and LangSmith do, so it is trusted only
for the sources it was written against (their digest, checked once) and while none of
those functions has been wrapped or replaced (checked on every call); otherwise it is
never sure.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ragline.core._optional import require

require("langchain_core", "langchain", package="langchain-core")

from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.runnables.config import ensure_config  # noqa: E402

__all__ = ["mirrored_digest", "surely_unheard"]


# What surely_unheard repeats or skips, as (module, name in it): configure and what it
# calls to find the handlers, the manager's constructor, ensure_config, and the retriever
# invoke / ainvoke (with its run manager's calls) the shortcut replaces. It is used only
# when their installed sources have the digest below and each is the library's own
# function (no wrapper); on every call, that each is still the object found then.
_COMMON = (
    ("langchain_core.callbacks.manager", "_configure"),
    ("langchain_core.callbacks.manager", "env_var_is_set"),
    ("langchain_core.callbacks.base", "BaseCallbackManager.__init__"),
    ("langchain_core.tracers.context", "_tracing_v2_is_enabled"),
    ("langchain_core.retrievers", "ensure_config"),
    ("langsmith.utils", "tracing_is_enabled"),
    ("langsmith.utils", "get_env_var"),
    ("langsmith.run_helpers", "get_tracing_context"),
    ("langsmith.run_helpers", "get_current_run_tree"),
    ("langsmith._internal._context", "get_current_run_tree"),
)
_SIDES = {
    False: (
        ("langchain_core.retrievers", "BaseRetriever.invoke"),
        ("langchain_core.callbacks.manager", "CallbackManager.configure"),
        ("langchain_core.callbacks.manager", "CallbackManager.__init__"),  # (inherited)
        ("langchain_core.callbacks.manager", "CallbackManager.on_retriever_start"),
        ("langchain_core.callbacks.manager", "CallbackManagerForRetrieverRun.on_retriever_end"),
        ("langchain_core.callbacks.manager", "CallbackManagerForRetrieverRun.on_retriever_error"),
    ),
    True: (
        ("langchain_core.retrievers", "BaseRetriever.ainvoke"),
        ("langchain_core.callbacks.manager", "AsyncCallbackManager.configure"),
        ("langchain_core.callbacks.manager", "AsyncCallbackManager.__init__"),
        ("langchain_core.callbacks.manager", "AsyncCallbackManager.on_retriever_start"),
        (
            "langchain_core.callbacks.manager",
            "AsyncCallbackManagerForRetrieverRun.on_retriever_end",
        ),
        (
            "langchain_core.callbacks.manager",
            "AsyncCallbackManagerForRetrieverRun.on_retriever_error",
        ),
    ),
}
_MIRRORED_DIGEST = "c8a10abf9f593591c381e7f4627d0eb78ef4ba0dceddf8ac6986e4310080f912"

_Found = list[tuple[Any, str, Any]]


def _find(entries: Sequence[tuple[str, str]]) -> _Found | None:
    """Per entry: the namespace it is looked up in (a module's or class's ``__dict__``),
    its name there and the object found (None: not there, as an inherited method); None
    when a module or class is missing."""
    import importlib

    found: _Found = []
    try:
        for module, name in entries:
            owner: Any = importlib.import_module(module)
            *path, last = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            found.append((vars(owner), last, vars(owner).get(last)))
    except (AttributeError, ImportError):
        return None
    return found


def _library_function(obj: Any) -> Any:
    """The plain function ``obj`` is (through a classmethod or an lru_cache), when it was
    defined in the file of the module it names; else None (a wrapper, a patch)."""
    import functools
    import sys
    import types

    if type(obj) is classmethod:
        obj = obj.__func__
    elif type(obj) is functools._lru_cache_wrapper:  # type: ignore[attr-defined]
        obj = obj.__wrapped__
    if type(obj) is not types.FunctionType:
        return None
    module = sys.modules.get(obj.__module__)
    if not obj.__module__.startswith(("langchain_core.", "langsmith.")) or module is None:
        return None
    return obj if getattr(module, "__file__", None) == obj.__code__.co_filename else None


def mirrored_digest() -> str | None:
    """The sha256 of the installed sources of what :func:`surely_unheard` mirrors, or
    None when one is missing, not the library's own function, or has no source."""
    import hashlib
    import inspect

    found = _find((*_COMMON, *_SIDES[False], *_SIDES[True]))
    if found is None:
        return None
    digest = hashlib.sha256()
    for _namespace, name, obj in found:
        if obj is None:
            digest.update(f"({name} inherited)".encode())
            continue
        function = _library_function(obj)
        if function is None:
            return None
        try:
            digest.update(inspect.getsource(function).encode())
        except (OSError, TypeError):
            return None
    return digest.hexdigest()


_UNHEARD: dict[str, Any] = {}


def _unheard_state() -> dict[str, Any]:
    """What :func:`surely_unheard` reads, found once; ``ready`` is False (never sure)
    when the installed LangChain or LangSmith differs from the sources it was written
    against, or os.environ is not the usual mapping over bytes."""
    if _UNHEARD:
        return _UNHEARD
    state: dict[str, Any] = {"ready": False}
    environ = os.environ
    if (
        type(environ) is os._Environ
        and type(getattr(environ, "_data", None)) is dict
        and environ.encodekey("LANGCHAIN_TRACING") == b"LANGCHAIN_TRACING"  # type: ignore[attr-defined]
        and mirrored_digest() == _MIRRORED_DIGEST
    ):
        from langchain_core.callbacks import manager
        from langchain_core.runnables.config import var_child_runnable_config
        from langchain_core.tracers import context
        from langsmith import utils
        from langsmith._internal import _context

        state.update(
            ready=True,
            found={side: _find((*_COMMON, *_SIDES[side])) for side in (False, True)},
            environ=environ,
            environ_data=environ._data,  # type: ignore[attr-defined]
            manager=manager,
            context=context,
            child_config=var_child_runnable_config,
            utils=utils,
            langsmith=_context,
        )
    _UNHEARD.update(state)
    return _UNHEARD


def surely_unheard(
    config: RunnableConfig | None, options: dict[str, Any], asynchronous: bool
) -> bool:
    """True only when ``configure`` would surely find no handler for a run started with
    ``config`` (and raise nothing): no config callbacks, none inherited from an
    enclosing LangChain run, no verbose or debug, no tracing (LangChain's context
    variable, LangSmith's context, run tree, global switch or environment), no
    LANGCHAIN_TRACING / LANGCHAIN_HANDLER in the environment, and no configure hook set
    (its context variable, or its environment variable: langchain_community registers
    hooks switched on by LANGCHAIN_WANDB_TRACING and LANGCHAIN_COMET_TRACING).

    Each test reads what ``configure`` reads, and anything unusual counts as a possible
    listener, so a needless False only costs LangChain's own path. It is never sure
    when the installed sources differ from those it mirrors, or one of them is wrapped
    or has been replaced since (see :func:`_unheard_state`).
    """
    state = _UNHEARD or _unheard_state()
    if not state["ready"] or options.get("verbose") or os.environ is not state["environ"]:
        return False
    for namespace, name, obj in state["found"][asynchronous]:
        if namespace.get(name) is not obj:
            return False
    inherits = config is not None or state["child_config"].get()
    if inherits and ensure_config(config).get("callbacks") is not None:
        return False
    if state["manager"]._get_debug():
        return False
    context = state["context"]
    if context.tracing_v2_callback_var.get() is not None:
        return False
    langsmith = state["langsmith"]
    enabled = langsmith._TRACING_ENABLED.get()
    if enabled is None:
        if langsmith._PARENT_RUN_TREE_REF.get() is not None:
            return False
        switch = langsmith._GLOBAL_TRACING_ENABLED
        if switch is None:
            env_var = state["utils"].get_env_var
            if env_var("TRACING_V2", default=env_var("TRACING", default="")) == "true":
                return False
        elif switch is not False:
            return False
    elif enabled is not False:
        return False
    environ = state["environ_data"]
    if b"LANGCHAIN_TRACING" in environ or b"LANGCHAIN_HANDLER" in environ:
        return False
    encodekey = state["environ"].encodekey
    for variable, _inheritable, _handler_class, env_var_name in context._configure_hooks:
        if variable.get() is not None:
            return False
        # configure makes the hook's handler when its variable is set to a true value;
        # set at all (whatever the value) counts as a possible listener here
        if env_var_name is not None and encodekey(env_var_name) in environ:
            return False
    return True

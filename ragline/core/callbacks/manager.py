"""CallbackManager: starts runs and hands back a run manager that reports the rest.

How to use it (for anyone writing a runnable that does not use ``_call_with_config``,
for example a language model)::

    from ragline.core.callbacks import CallbackManager
    from ragline.core.config import ensure_config, use_config

    config = ensure_config(config)                  # inherit the current run's config
    manager = CallbackManager.from_config(config)   # handlers, parent run, tags, metadata
    (run,) = manager.on_chat_model_start(           # or on_llm_start(serialized, prompts, ...)
        None, [messages],                           # one run (and manager) per message list
        name=config.get("run_name") or "FakeListChatModel",
        run_id=config.get("run_id"),                # None -> a new uuid4 (when asked for)
        invocation_params={"stop": stop},           # optional, passed to handlers as kwargs
    )                                               # raises RecursionLimitError when too deep
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
``on_chain_error(err)``); ``on_retriever_start(serialized, query, name=...)`` a
:class:`CallbackManagerForRetrieverRun`; ``on_tool_start(serialized, input_str, ...)`` a
:class:`CallbackManagerForToolRun`. Every run manager also has ``on_text(text)``,
``on_retry(retry_state)``, ``get_child()`` (a CallbackManager whose runs are children
of this run) and ``child_config(config)``. In async code use the ``a``-prefixed twins
(``await manager.aon_chat_model_start(...)``, ``await run.aon_llm_new_token(...)``), or
an :class:`AsyncCallbackManager`, whose ``on_*_start`` methods are coroutines.

``CallbackManager.configure(inheritable_callbacks, local_callbacks, verbose,
inheritable_tags, local_tags, inheritable_metadata, local_metadata)`` has LangChain's
signature: inheritable handlers, tags and metadata reach child runs, local ones only the
runs this manager starts.

Handlers that raise are logged and ignored unless ``handler.raise_error`` is True.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any
from uuid import UUID

from ragline.core import globals as _globals
from ragline.core.callbacks._dispatch import adispatch, dispatch
from ragline.core.callbacks.base import BaseCallbackHandler
from ragline.core.callbacks.run_managers import (
    ASYNC_TWIN,
    AsyncCallbackManagerForChainRun,
    AsyncCallbackManagerForLLMRun,
    AsyncCallbackManagerForRetrieverRun,
    AsyncCallbackManagerForToolRun,
    BaseRunManager,
    CallbackManagerForChainRun,
    CallbackManagerForLLMRun,
    CallbackManagerForRetrieverRun,
    CallbackManagerForToolRun,
)
from ragline.core.config import DEFAULT_RECURSION_LIMIT, _current_config, get_current_config
from ragline.core.exceptions import RecursionLimitError

if TYPE_CHECKING:
    from ragline.core.config import RunnableConfig

__all__ = [
    "AsyncCallbackManagerForChainRun",
    "AsyncCallbackManagerForLLMRun",
    "AsyncCallbackManagerForRetrieverRun",
    "AsyncCallbackManagerForToolRun",
    "BaseCallbackManager",
    "BaseRunManager",
    "CallbackManager",
    "CallbackManagerForChainGroup",
    "CallbackManagerForChainRun",
    "CallbackManagerForLLMRun",
    "CallbackManagerForRetrieverRun",
    "CallbackManagerForToolRun",
    "Callbacks",
    "add_default_handler",
    "context_handler",
    "current_run_id",
    "current_run_listeners",
    "remove_default_handler",
    "trace_as_chain_group",
]

_NOT_GIVEN: Any = object()

# Handlers that every root run started in this context reports to (the usage callbacks'
# ``with get_openai_callback() as cb:``); child runs inherit them from the root.
_context_handlers: ContextVar[tuple[BaseCallbackHandler, ...]] = ContextVar(
    "ragline_context_handlers", default=()
)


@contextlib.contextmanager
def context_handler(handler: BaseCallbackHandler) -> Iterator[BaseCallbackHandler]:
    """Inside the ``with`` block, every run started (in this thread or task, and the
    threads and tasks ragline starts from it) also reports to ``handler``.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> from ragline.core.callbacks import RunCollectorCallbackHandler
        >>> with context_handler(RunCollectorCallbackHandler()) as collector:
        ...     RunnableLambda(lambda x: x).invoke(1)
        1
        >>> len(collector.traced_runs)
        1
    """
    token = _context_handlers.set((*_context_handlers.get(), handler))
    try:
        yield handler
    finally:
        _context_handlers.reset(token)


# Handlers that every root run of the process reports to (``ragline.tracing.configure``
# puts its OpenTelemetry handler here); empty unless something registered one.
_default_handlers: tuple[BaseCallbackHandler, ...] = ()


def add_default_handler(handler: BaseCallbackHandler) -> None:
    """Make every root run started from now on, in any thread, report to ``handler``
    (its child runs inherit it). Adding a handler that is already there does nothing.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> from ragline.core.callbacks import RunCollectorCallbackHandler
        >>> collector = RunCollectorCallbackHandler()
        >>> add_default_handler(collector)
        >>> RunnableLambda(lambda x: x).invoke(1)
        1
        >>> remove_default_handler(collector)
        >>> len(collector.traced_runs)
        1
    """
    global _default_handlers
    if handler not in _default_handlers:
        _default_handlers = (*_default_handlers, handler)


def remove_default_handler(handler: BaseCallbackHandler) -> None:
    """Stop reporting new root runs to ``handler`` (runs already started keep it).
    Removing a handler that is not there does nothing."""
    global _default_handlers
    _default_handlers = tuple(h for h in _default_handlers if h is not handler)


def current_run_listeners(event: str) -> tuple[UUID, list[BaseCallbackHandler]] | None:
    """The running run's id and those of its handlers that have a method ``event``, or
    None when there are none (the common case: then nobody asked for the details).

    A runnable calls it from inside its own run (its hook) to hand details that are no
    callback event of LangChain's (a retriever's scores) to the handlers that want them.
    """
    run = _running_run()
    if run is None or not run.handlers:
        return None
    wanting = [handler for handler in run.handlers if hasattr(handler, event)]
    return (run.run_id, wanting) if wanting else None


def current_run_id() -> UUID | None:
    """The id of the run executing right now (the one whose config is current), if any:
    the parent of what the running code reports outside callbacks (an embedding span)."""
    # _running_run's and get_current_config's steps written out: this runs on every
    # traced embedding call, after the model's forward pass (each distinct function
    # costs its cache misses there)
    config = _current_config.get()
    callbacks = config.get("callbacks") if config else None
    run = getattr(callbacks, "_parent", None) if isinstance(callbacks, CallbackManager) else None
    if not isinstance(run, BaseRunManager):
        return None
    # the id its handlers were given (the run_id property only makes one on first use)
    run_id = run._run_id
    return run.run_id if run_id is None else run_id


def _running_run() -> BaseRunManager | None:
    """The run manager of the run whose config is current, if any."""
    config = get_current_config()
    callbacks = config.get("callbacks") if config else None
    run = getattr(callbacks, "_parent", None) if isinstance(callbacks, CallbackManager) else None
    return run if isinstance(run, BaseRunManager) else None


def _with_context_handlers(handlers: Any) -> list[BaseCallbackHandler]:
    """A root run's handlers: ``handlers``, those of the enclosing ``context_handler``
    blocks and the default handlers."""
    extra = _context_handlers.get()
    if _default_handlers:
        extra = (*extra, *_default_handlers)
    if not extra:
        return list(handlers or ())
    own = list(handlers or ())
    merged = own.copy()  # a loop, not a list comprehension: one function fewer per run
    for handler in extra:
        if handler not in own:
            merged.append(handler)
    return merged


def _union(first: list[str], second: Sequence[str] | None) -> list[str]:
    """``first`` then the items of ``second`` it lacks (``first`` itself when nothing is new)."""
    if not second or second is first:
        return first
    if not first:
        return list(second)
    new = [item for item in second if item not in first]
    return first + new if new else first


def _tags_then(first: list[str], second: Sequence[str] | None) -> list[str]:
    """``first`` then ``second``, a tag in both taking its place in ``second`` (as
    LangChain's ``add_tags`` moves a tag added again to the end); ``first`` itself when
    that changes nothing."""
    if not second or second is first:
        return first
    if not first:
        return list(second)
    if first == second:
        return first
    return [tag for tag in first if tag not in second] + list(second)


def _with_tag(tags: list[str], tag: str) -> list[str]:
    """``tags`` then ``tag`` (``_tags_then`` of one tag): a new list (the runs already
    started keep theirs); a tag already there moves last."""
    return [*tags, tag] if tag not in tags else [t for t in tags if t != tag] + [tag]


def _overlay(first: dict[str, Any], second: Mapping[str, Any] | None) -> dict[str, Any]:
    if not second or second is first:
        return first
    return {**first, **second} if first else dict(second)


class BaseCallbackManager:
    """The base of :class:`CallbackManager` and ``AsyncCallbackManager`` (LangChain's name
    for it, which programs use in type hints and ``isinstance`` checks).

    Built directly (``BaseCallbackManager([handler])``, as LangChain allows), it gives a
    :class:`CallbackManager` with those arguments, usable wherever callbacks go.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # object.__new__ of the concrete class; Python then runs its __init__ with the
        # same arguments, since the result is an instance of cls
        return object.__new__(CallbackManager if cls is BaseCallbackManager else cls)


class CallbackManager(BaseCallbackManager):
    """Holds handlers, tags and metadata for runs it starts, and their parent run.

    Args:
        handlers: the callback handlers of runs started here.
        inheritable_handlers: those that child runs also get (default: none, as in
            LangChain; ``configure`` and ``from_config`` pass every handler on).
        parent_run_id: the run that runs started here belong to (``None``: root runs).
        tags, metadata: given to runs started here.
        inheritable_tags, inheritable_metadata: what child runs also get (default: none).
        depth: how many runs enclose runs started here (used for ``recursion_limit``).
        recursion_limit: starting a run at this depth raises ``RecursionLimitError``.

    The lists and dicts are never changed in place (``add_handler`` and friends build new
    ones), so managers and run managers share them freely.

    Example:
        >>> from ragline.core.callbacks import RunCollectorCallbackHandler
        >>> collector = RunCollectorCallbackHandler()
        >>> run = CallbackManager([collector]).on_chain_start(None, {"q": 1}, name="step")
        >>> run.on_chain_end({"a": 2})
        >>> collector.traced_runs[0].outputs
        {'a': 2}
    """

    __slots__ = (
        "_parent",
        "depth",
        "handlers",
        "inheritable_handlers",
        "inheritable_metadata",
        "inheritable_tags",
        "metadata",
        "recursion_limit",
        "tags",
    )

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler] | None = None,
        inheritable_handlers: Sequence[BaseCallbackHandler] | None = None,
        parent_run_id: UUID | None = None,
        *,
        tags: Sequence[str] | None = None,
        inheritable_tags: Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        inheritable_metadata: Mapping[str, Any] | None = None,
        depth: int = 0,
        recursion_limit: int = DEFAULT_RECURSION_LIMIT,
    ) -> None:
        self.handlers: list[BaseCallbackHandler] = list(handlers or [])
        self.inheritable_handlers: list[BaseCallbackHandler] = list(inheritable_handlers or [])
        self._parent: Any = parent_run_id
        self.tags: list[str] = list(tags or [])
        self.inheritable_tags: list[str] = list(inheritable_tags or [])
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.inheritable_metadata: dict[str, Any] = dict(inheritable_metadata or {})
        self.depth = depth
        self.recursion_limit = recursion_limit

    @property
    def parent_run_id(self) -> UUID | None:
        """The run that runs started here belong to (``None``: they are root runs)."""
        parent = self._parent
        if parent is None or isinstance(parent, UUID):
            return parent
        return parent.run_id  # type: ignore[no-any-return]

    @parent_run_id.setter
    def parent_run_id(self, value: UUID | None) -> None:
        self._parent = value

    @property
    def has_parent(self) -> bool:
        """Whether runs started here are child runs (cheaper than ``parent_run_id``)."""
        return self._parent is not None

    @property
    def is_async(self) -> bool:
        """Whether ``on_*_start`` are coroutines (True for :class:`AsyncCallbackManager`)."""
        return False

    def __repr__(self) -> str:
        names = [type(handler).__name__ for handler in self.handlers]
        return f"{type(self).__name__}(handlers={names}, tags={self.tags})"

    # ---- building -------------------------------------------------------------------
    @classmethod
    def _child_of(cls, run: BaseRunManager) -> CallbackManager:
        """The manager of ``run``'s children (shares its inheritable lists)."""
        child = object.__new__(cls)
        child.handlers = child.inheritable_handlers = run.inheritable_handlers
        child._parent = run
        child.tags = child.inheritable_tags = run.inheritable_tags
        child.metadata = child.inheritable_metadata = run.inheritable_metadata
        child.depth = run.depth + 1
        child.recursion_limit = run._recursion_limit
        return child

    @classmethod
    def from_config(cls, config: RunnableConfig | None, *, verbose: bool = False) -> Any:
        """Build the manager for a run from its (ensured) config.

        The config's tags and metadata join those of a manager in ``callbacks`` (whose
        parent run is kept); a handler list in ``callbacks`` makes root runs.

        Args:
            config: the run's config; ``callbacks`` may be a handler list or a manager.
            verbose: add a :class:`StdOutCallbackHandler` if there is none.
        """
        config = config or {}
        callbacks = config.get("callbacks")
        tags = config.get("tags")
        metadata = config.get("metadata")
        manager = object.__new__(cls)  # built by hand: this runs once per run
        if isinstance(callbacks, CallbackManager):
            manager.handlers = callbacks.handlers
            manager.inheritable_handlers = callbacks.inheritable_handlers
            manager._parent = callbacks._parent
            manager.depth = callbacks.depth
            if tags:  # (none: the manager's own lists, as _tags_then returns them)
                shared = callbacks.inheritable_tags is callbacks.tags
                manager.tags = _tags_then(callbacks.tags, tags)
                manager.inheritable_tags = (
                    manager.tags if shared else _tags_then(callbacks.inheritable_tags, tags)
                )
            else:
                manager.tags = callbacks.tags
                manager.inheritable_tags = callbacks.inheritable_tags
            if metadata:
                shared = callbacks.inheritable_metadata is callbacks.metadata
                manager.metadata = _overlay(callbacks.metadata, metadata)
                manager.inheritable_metadata = (
                    manager.metadata
                    if shared
                    else _overlay(callbacks.inheritable_metadata, metadata)
                )
            else:
                manager.metadata = callbacks.metadata
                manager.inheritable_metadata = callbacks.inheritable_metadata
        else:
            manager.handlers = manager.inheritable_handlers = _with_context_handlers(callbacks)
            manager._parent = None
            manager.depth = 0
            manager.tags = manager.inheritable_tags = list(tags or ())
            manager.metadata = manager.inheritable_metadata = dict(metadata or ())
        manager.recursion_limit = config.get("recursion_limit") or DEFAULT_RECURSION_LIMIT
        if verbose or _globals._debug:
            manager._add_printer(verbose)
        return manager

    @classmethod
    def configure(
        cls,
        inheritable_callbacks: Any = None,
        local_callbacks: Any = None,
        verbose: bool = False,
        inheritable_tags: Sequence[str] | None = None,
        local_tags: Sequence[str] | None = None,
        inheritable_metadata: Mapping[str, Any] | None = None,
        local_metadata: Mapping[str, Any] | None = None,
    ) -> CallbackManager:
        """Build a manager the way LangChain's ``CallbackManager.configure`` does.

        Args:
            inheritable_callbacks: handlers (or a manager, whose parent run is kept) that
                this run and its children report to. A RunnableConfig dict here is read as
                :meth:`from_config` reads it.
            local_callbacks: handlers (or a manager's handlers) for the runs started
                here only.
            verbose: add a :class:`StdOutCallbackHandler` if there is none.
            inheritable_tags, local_tags: tags for children too / for these runs only.
            inheritable_metadata, local_metadata: the same for metadata.

        Example:
            >>> from ragline.core.callbacks import StdOutCallbackHandler
            >>> manager = CallbackManager.configure(
            ...     [StdOutCallbackHandler()], inheritable_tags=["a"], local_tags=["b"])
            >>> manager.tags, manager.inheritable_tags
            (['a', 'b'], ['a'])
        """
        if isinstance(inheritable_callbacks, Mapping):  # ragline's form: a RunnableConfig
            manager = cls.from_config(inheritable_callbacks, verbose=verbose)  # type: ignore[arg-type]
        elif isinstance(inheritable_callbacks, CallbackManager):
            manager = inheritable_callbacks.copy()
        else:
            manager = cls(_with_context_handlers(inheritable_callbacks))
            # every handler, tag and metadata key passes on (shared until one differs)
            manager.inheritable_handlers = manager.handlers
            manager.inheritable_tags = manager.tags
            manager.inheritable_metadata = manager.metadata
        if not isinstance(manager, cls):  # configure on AsyncCallbackManager: same state
            manager = cls._rebuilt_from(manager)
        if local_callbacks is not None:
            handlers = (
                local_callbacks.handlers
                if isinstance(local_callbacks, CallbackManager)
                else local_callbacks
            )
            for handler in handlers:
                manager.add_handler(handler, inherit=False)
        manager.add_tags(inheritable_tags or [])
        manager.add_tags(local_tags or [], inherit=False)
        manager.add_metadata(inheritable_metadata or {})
        manager.add_metadata(local_metadata or {}, inherit=False)
        if verbose or _globals._debug:
            manager._add_printer(verbose)
        return manager

    @classmethod
    def _rebuilt_from(cls, other: CallbackManager) -> Any:
        manager = object.__new__(cls)
        for slot in CallbackManager.__slots__:
            setattr(manager, slot, getattr(other, slot))
        return manager

    def _add_printer(self, verbose: bool) -> None:
        """Under ``set_debug(True)`` a :class:`ConsoleCallbackHandler` (its children inherit
        it), in place of the stdout handler ``verbose`` asks for, as in LangChain."""
        if not _globals._debug:
            self._add_stdout()
            return
        from ragline.core.callbacks.console import ConsoleCallbackHandler

        if not any(isinstance(h, ConsoleCallbackHandler) for h in self.handlers):
            self.add_handler(ConsoleCallbackHandler())

    def _add_stdout(self) -> None:
        from ragline.core.callbacks.stdout import StdOutCallbackHandler

        if not any(isinstance(h, StdOutCallbackHandler) for h in self.handlers):
            self.add_handler(StdOutCallbackHandler())

    def _tagged_copy(self, tag: str) -> Any:
        """A copy whose runs are also tagged ``tag``, which their children do not inherit
        (``run_manager.get_child(tag)`` for each part of a composite's run: built by hand,
        as it is once per step)."""
        manager = object.__new__(type(self))
        manager.handlers = self.handlers
        manager.inheritable_handlers = self.inheritable_handlers
        manager._parent = self._parent
        tags = self.tags
        manager.tags = [*tags, tag] if tag not in tags else _with_tag(tags, tag)
        manager.inheritable_tags = self.inheritable_tags
        manager.metadata = self.metadata
        manager.inheritable_metadata = self.inheritable_metadata
        manager.depth = self.depth
        manager.recursion_limit = self.recursion_limit
        return manager

    def copy(self) -> Any:
        """Return an independent copy (same handlers, parent, tags, metadata, depth)."""
        return type(self)._rebuilt_from(self)

    def merge(self, other: CallbackManager) -> Any:
        """A copy with ``other``'s handlers, tags and metadata added (parent kept)."""
        merged = self.copy()
        for handler in other.handlers:
            merged.add_handler(handler, inherit=handler in other.inheritable_handlers)
        merged.add_tags([t for t in other.tags if t in other.inheritable_tags])
        merged.add_tags([t for t in other.tags if t not in other.inheritable_tags], inherit=False)
        merged.add_metadata(other.inheritable_metadata)
        merged.add_metadata(
            {k: v for k, v in other.metadata.items() if k not in other.inheritable_metadata},
            inherit=False,
        )
        return merged

    # ---- changing (new lists each time: run managers may share the old ones) ---------
    def add_handler(self, handler: BaseCallbackHandler, inherit: bool = True) -> None:
        """Add ``handler`` unless it is already here (``inherit``: children get it too)."""
        old = self.handlers
        shared = self.inheritable_handlers is old
        if handler not in old:
            self.handlers = [*old, handler]
        if inherit:
            if shared:
                self.inheritable_handlers = self.handlers
            elif handler not in self.inheritable_handlers:
                self.inheritable_handlers = [*self.inheritable_handlers, handler]
        elif shared:
            self.inheritable_handlers = old

    def remove_handler(self, handler: BaseCallbackHandler) -> None:
        """Remove ``handler``.

        Raises:
            ValueError: ``handler`` is not here.
        """
        if handler not in self.handlers:
            raise ValueError(f"{type(handler).__name__} is not a handler of this manager")
        shared = self.inheritable_handlers is self.handlers
        self.handlers = [h for h in self.handlers if h is not handler]
        self.inheritable_handlers = (
            self.handlers if shared else [h for h in self.inheritable_handlers if h is not handler]
        )

    def set_handlers(self, handlers: Sequence[BaseCallbackHandler], inherit: bool = True) -> None:
        """Replace every handler."""
        self.handlers = list(handlers)
        self.inheritable_handlers = self.handlers if inherit else []

    def set_handler(self, handler: BaseCallbackHandler, inherit: bool = True) -> None:
        """Replace every handler by ``handler``."""
        self.set_handlers([handler], inherit=inherit)

    def add_tags(self, tags: Sequence[str], inherit: bool = True) -> None:
        """Add tags (``inherit``: child runs get them too)."""
        old = self.tags
        shared = self.inheritable_tags is old
        self.tags = _union(old, tags)
        if inherit:
            self.inheritable_tags = self.tags if shared else _union(self.inheritable_tags, tags)
        elif shared:
            self.inheritable_tags = old

    def remove_tags(self, tags: Sequence[str]) -> None:
        """Remove tags."""
        self.tags = [t for t in self.tags if t not in tags]
        self.inheritable_tags = [t for t in self.inheritable_tags if t not in tags]

    def add_metadata(self, metadata: Mapping[str, Any], inherit: bool = True) -> None:
        """Add metadata (``inherit``: child runs get it too)."""
        if not metadata:
            return
        old = self.metadata
        shared = self.inheritable_metadata is old
        self.metadata = {**old, **metadata}
        if inherit:
            self.inheritable_metadata = (
                self.metadata if shared else {**self.inheritable_metadata, **metadata}
            )
        elif shared:
            self.inheritable_metadata = old

    def remove_metadata(self, keys: Sequence[str]) -> None:
        """Remove metadata keys."""
        self.metadata = {k: v for k, v in self.metadata.items() if k not in keys}
        self.inheritable_metadata = {
            k: v for k, v in self.inheritable_metadata.items() if k not in keys
        }

    # ---- starting runs --------------------------------------------------------------
    def _new_run(
        self,
        kind: type[BaseRunManager],
        name: str,
        run_id: UUID | None,
        local_tags: Sequence[str] | None = None,
        local_metadata: Mapping[str, Any] | None = None,
    ) -> Any:
        if self.depth >= self.recursion_limit:
            raise RecursionLimitError(
                f"recursion limit of {self.recursion_limit} reached: run {name!r} would be "
                f"nested {self.depth + 1} runs deep. A chain probably invokes itself without "
                "end; if the depth is intended, raise config['recursion_limit']"
            )
        return kind(
            run_id=run_id,
            parent_run_id=self._parent,
            handlers=self.handlers,
            # no call when a run adds nothing (the usual case: fewer functions per run)
            tags=_union(self.tags, local_tags) if local_tags else self.tags,
            metadata=_overlay(self.metadata, local_metadata) if local_metadata else self.metadata,
            name=name,
            depth=self.depth,
            inheritable_handlers=self.inheritable_handlers,
            inheritable_tags=self.inheritable_tags,
            inheritable_metadata=self.inheritable_metadata,
            recursion_limit=self.recursion_limit,
        )

    def _start(
        self,
        kind: type[BaseRunManager],
        event: str,
        serialized: Any,
        payload: Any,
        name: str | None,
        run_id: UUID | None,
        extra: dict[str, Any],
        run_type: Any = _NOT_GIVEN,
    ) -> Any:
        given = _given_name(serialized) if name is _NOT_GIVEN or not name else name
        run = self._new_run(
            kind,
            given or _kind_name(event),
            run_id,
            extra.pop("local_tags", None),
            extra.pop("local_metadata", None),
        )
        if not run.handlers:
            return run
        if serialized is _OWN_CHAIN_RUN and run_type is _NOT_GIVEN:
            # _start_arguments' answer for ragline's own retriever and chain runs that
            # pass no run_type, without the call (a traced retriever call runs this once,
            # after its query embedding's forward pass evicted the caches)
            run._emit(event, None, payload, metadata=dict(run.metadata),
                      name=extra.pop("handler_name", given), **extra)  # fmt: skip
            return run
        shown, options = _start_arguments(serialized, name, given, extra, run_type)
        run._emit(event, shown, payload, metadata=dict(run.metadata), **options)
        return run

    async def _astart(
        self,
        kind: type[BaseRunManager],
        event: str,
        serialized: Any,
        payload: Any,
        name: str | None,
        run_id: UUID | None,
        extra: dict[str, Any],
        run_type: Any = _NOT_GIVEN,
    ) -> Any:
        given = _given_name(serialized) if name is _NOT_GIVEN or not name else name
        run = self._new_run(
            ASYNC_TWIN[kind],
            given or _kind_name(event),
            run_id,
            extra.pop("local_tags", None),
            extra.pop("local_metadata", None),
        )
        if run.handlers:
            shown, options = _start_arguments(serialized, name, given, extra, run_type)
            await run._aemit(event, shown, payload, metadata=dict(run.metadata), **options)
        return run

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        run_type: Any = _NOT_GIVEN,
        **kwargs: Any,
    ) -> CallbackManagerForChainRun:
        """Start a chain run; returns its run manager (``kwargs`` reach the handlers)."""
        return self._start(  # type: ignore[no-any-return]
            CallbackManagerForChainRun,
            "on_chain_start",
            serialized,
            inputs,
            name,
            run_id,
            kwargs,
            run_type,
        )

    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[CallbackManagerForLLMRun]:
        """Start one text-completion model run per item of ``prompts``; returns their run managers.

        As in LangChain: each run's handlers see a one-item list, and ``run_id`` (if
        given) is the first run's id.
        """
        return self._start_model_runs(
            "on_llm_start", serialized, prompts, run_id, name, invocation_params, kwargs
        )

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> list[CallbackManagerForLLMRun]:
        """Start one chat model run per item of ``messages``; returns their run managers.

        As in LangChain: each run's handlers see a one-item list, and ``run_id`` (if
        given) is the first run's id.
        """
        return self._start_model_runs(
            "on_chat_model_start", serialized, messages, run_id, name, invocation_params, kwargs
        )

    def _start_model_runs(
        self,
        event: str,
        serialized: dict[str, Any] | None,
        items: Sequence[Any],
        run_id: UUID | None,
        name: str | None,
        invocation_params: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> list[CallbackManagerForLLMRun]:
        extra = {"invocation_params": invocation_params or {}, **kwargs}
        return [
            self._start(
                CallbackManagerForLLMRun,
                event,
                serialized,
                [item],
                name,
                run_id if index == 0 else None,
                dict(extra),
            )
            for index, item in enumerate(items)
        ]

    def on_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        **kwargs: Any,
    ) -> CallbackManagerForRetrieverRun:
        """Start a retriever run; returns its run manager."""
        return self._start(  # type: ignore[no-any-return]
            CallbackManagerForRetrieverRun,
            "on_retriever_start",
            serialized,
            query,
            name,
            run_id,
            kwargs,
        )

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        run_id: UUID | None = None,
        *,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> CallbackManagerForToolRun:
        """Start a tool run (``inputs``: the tool's arguments as a dict, when it has them;
        ``name=`` among ``kwargs``: the run name, ``None`` given reaching handlers as
        ``name=None``, as LangChain's tools report a run without a run name). Handlers
        get ``inputs`` first, then ``kwargs`` in the order of the call (LangChain's)."""
        extra = {"inputs": inputs, **kwargs}
        return self._start(  # type: ignore[no-any-return]
            CallbackManagerForToolRun,
            "on_tool_start",
            serialized,
            input_str,
            extra.get("name", _NOT_GIVEN),
            run_id,
            extra,
        )

    def on_custom_event(self, name: str, data: Any, run_id: UUID | None = None) -> None:
        """Report a custom event of the run ``run_id`` (default: this manager's parent run)."""
        if self.handlers:
            dispatch(
                self.handlers,
                "on_custom_event",
                name,
                data,
                run_id=run_id or self.parent_run_id,
                tags=list(self.tags),
                metadata=dict(self.metadata),
            )

    async def aon_custom_event(self, name: str, data: Any, run_id: UUID | None = None) -> None:
        """Async twin of :meth:`on_custom_event`."""
        if self.handlers:
            await adispatch(
                self.handlers,
                "on_custom_event",
                name,
                data,
                run_id=run_id or self.parent_run_id,
                tags=list(self.tags),
                metadata=dict(self.metadata),
            )

    async def aon_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        run_type: Any = _NOT_GIVEN,
        **kwargs: Any,
    ) -> AsyncCallbackManagerForChainRun:
        """Async twin of :meth:`on_chain_start` (the run manager's ``on_*`` are coroutines)."""
        return await self._astart(  # type: ignore[no-any-return]
            CallbackManagerForChainRun,
            "on_chain_start",
            serialized,
            inputs,
            name,
            run_id,
            kwargs,
            run_type,
        )

    async def aon_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> AsyncCallbackManagerForLLMRun:
        """Start one text-completion model run for all ``prompts`` (ragline's own name;
        the models call it with one prompt). LangChain's per-prompt form is
        ``await AsyncCallbackManager.on_llm_start(...)``."""
        return await self._astart(  # type: ignore[no-any-return]
            CallbackManagerForLLMRun,
            "on_llm_start",
            serialized,
            prompts,
            name,
            run_id,
            {"invocation_params": invocation_params or {}, **kwargs},
        )

    async def aon_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> AsyncCallbackManagerForLLMRun:
        """Start one chat model run for all ``messages`` (ragline's own name; the models
        call it with one message list). LangChain's per-list form is ``await
        AsyncCallbackManager.on_chat_model_start(...)``."""
        return await self._astart(  # type: ignore[no-any-return]
            CallbackManagerForLLMRun,
            "on_chat_model_start",
            serialized,
            messages,
            name,
            run_id,
            {"invocation_params": invocation_params or {}, **kwargs},
        )

    async def aon_retriever_start(
        self,
        serialized: dict[str, Any] | None,
        query: str,
        run_id: UUID | None = None,
        *,
        name: str | None = _NOT_GIVEN,
        **kwargs: Any,
    ) -> AsyncCallbackManagerForRetrieverRun:
        """Async twin of :meth:`on_retriever_start`."""
        return await self._astart(  # type: ignore[no-any-return]
            CallbackManagerForRetrieverRun,
            "on_retriever_start",
            serialized,
            query,
            name,
            run_id,
            kwargs,
        )

    async def aon_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        run_id: UUID | None = None,
        *,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> AsyncCallbackManagerForToolRun:
        """Async twin of :meth:`on_tool_start`."""
        extra = {"inputs": inputs, **kwargs}
        return await self._astart(  # type: ignore[no-any-return]
            CallbackManagerForToolRun,
            "on_tool_start",
            serialized,
            input_str,
            extra.get("name", _NOT_GIVEN),
            run_id,
            extra,
        )


Callbacks = Sequence[BaseCallbackHandler] | CallbackManager | None
"""What ``config["callbacks"]`` holds: a list of handlers, a manager, or nothing."""


class _OwnRun:
    """The ``serialized`` of ragline's own runs (runnables, models): handlers get
    ``{"name": run name}`` and ``name=``. A run started by hand gets both as given."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<ragline's own run>"


class _OwnRunOf(_OwnRun):
    """A model's or a prompt's own run: handlers get the head of LangChain's serialized
    form of its class (``lc``, ``type`` and ``id``, so ``serialized["id"][-1]`` is the
    class name, as there) and its ``name`` (its own, not a run_name: LangChain's
    serialized form is the object's); not the instance's ``kwargs`` or ``repr``, which
    would cost a dump per call."""

    __slots__ = ("head", "name")

    def __init__(self, head: dict[str, Any], name: str) -> None:
        self.head = head
        self.name = name


_OWN_RUN: Any = _OwnRun()
# per model or prompt class, made at its first run: its marker (under its class name)
_OWN_RUNS: dict[type, Any] = {}


def _own_run_of(obj: Any) -> Any:
    """The ``serialized`` marker of ``obj``'s own runs (a model or prompt): the head of
    its dump, made once per class (plain ``{"name": run name}`` if it cannot dump), and
    its name (a ``name`` it was given, else its class's)."""
    kind = type(obj)
    own = _OWN_RUNS.get(kind)
    if own is None:
        from ragline.core.load import _encode

        try:  # its own entry only (what it holds is not written: the head is its class's)
            form = _encode(obj)
        except Exception:  # a class ragline cannot write: the run's name alone
            form = {}
        head = {key: form[key] for key in ("lc", "type", "id") if key in form}
        own = _OWN_RUNS[kind] = _OwnRunOf(head, kind.__name__) if len(head) == 3 else _OWN_RUN
    given = getattr(obj, "name", None)
    if given and isinstance(given, str) and own is not _OWN_RUN:
        return _OwnRunOf(own.head, given)
    return own


# ragline's own chain and retriever runs: handlers get ``serialized=None``, as
# LangChain's runnables pass (its prompts and models pass their serialized form, for
# which ragline's give its head: ``_own_run_of``)
_OWN_CHAIN_RUN: Any = _OwnRun()

# The run ids of agent runs being started (AgentExecutor's): their handlers get
# serialized=None, as LangChain's, so ragline's tracing reads here that a run is an agent's.
_AGENT_RUNS: set[UUID] = set()


def _start_arguments(
    serialized: Any,
    name: str | None,
    given: str | None,
    extra: dict[str, Any],
    run_type: Any = _NOT_GIVEN,
) -> tuple[Any, dict[str, Any]]:
    """The ``serialized`` and keywords a start event's handlers get (``given``: the run's
    name). Ragline's own runs: ``None`` (chains, retrievers) or, for models and prompts,
    the head of their class's serialized form with their own ``name`` (see
    :class:`_OwnRunOf`), then ``run_type`` when the run reports one and ``name=`` (a
    model's handlers get the config's run_name only), in LangChain's order; a run
    started by hand: ``serialized`` and ``name`` as given (LangChain's). ``run_type``: a
    chain run's, when its start passed one (first among the keywords)."""
    if isinstance(serialized, _OwnRun):
        shown = extra.pop("handler_name", given)
        named: dict[str, Any] | None
        if isinstance(serialized, _OwnRunOf):
            named = {**serialized.head, "name": serialized.name}
        else:
            named = {"name": given} if serialized is _OWN_RUN and given else None
        if run_type is not _NOT_GIVEN:  # LangChain's keyword order
            return named, {"run_type": run_type, "name": shown, **extra}
        if "invocation_params" in extra:  # a model's start: name= after its options
            batch = {"batch_size": extra.pop("batch_size")} if "batch_size" in extra else {}
            return named, {**extra, "name": shown, **batch}
        return named, {"name": shown, **extra}
    if run_type is not _NOT_GIVEN:
        extra = {"run_type": run_type, **extra}
    if name is _NOT_GIVEN or "name" in extra:  # a tool's name= stays where its call put it
        return serialized, extra
    return serialized, {"name": name, **extra}


def _given_name(serialized: Any) -> str | None:
    """The name ``serialized`` gives a run: its ``name``, else its class path's last part
    (as LangChain); None when it gives none."""
    if isinstance(serialized, Mapping) and isinstance(serialized.get("name"), str):
        return serialized["name"]
    ids = serialized.get("id") if isinstance(serialized, Mapping) else None
    if isinstance(ids, list) and ids and isinstance(ids[-1], str):
        return ids[-1]
    return None


def _kind_name(event: str) -> str:
    """The run manager's name for a run nothing names (handlers get ``name=None``)."""
    return event.removeprefix("on_").removesuffix("_start")


class CallbackManagerForChainGroup(CallbackManager):
    """The manager :func:`trace_as_chain_group` yields: the runs started with it (pass it
    as a call's ``callbacks``) are children of the group's run, and its
    ``on_chain_end(outputs)`` / ``on_chain_error(error)`` end that run (``ended`` then
    says so), as LangChain's.

    Args:
        parent_run_manager: the group run's manager.
        (the others): as :class:`CallbackManager`'s.
    """

    __slots__ = ("ended", "parent_run_manager")

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler] | None = None,
        inheritable_handlers: Sequence[BaseCallbackHandler] | None = None,
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

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """End the group's run with ``outputs``."""
        self.ended = True
        self.parent_run_manager.on_chain_end(outputs, **kwargs)

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        """End the group's run with ``error``."""
        self.ended = True
        self.parent_run_manager.on_chain_error(error, **kwargs)


def _group_manager(kind: Any, run: Any) -> Any:
    """The group manager (of ``kind``) whose runs are children of ``run``."""
    child = run.get_child()
    return kind(
        child.handlers,
        child.inheritable_handlers,
        child.parent_run_id,
        parent_run_manager=run,
        tags=child.tags,
        inheritable_tags=child.inheritable_tags,
        metadata=child.metadata,
        inheritable_metadata=child.inheritable_metadata,
    )


@contextlib.contextmanager
def trace_as_chain_group(
    group_name: str,
    callback_manager: CallbackManager | None = None,
    *,
    inputs: dict[str, Any] | None = None,
    project_name: str | None = None,
    example_id: Any = None,
    run_id: UUID | None = None,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    address: Any = None,
) -> Iterator[CallbackManagerForChainGroup]:
    """Group the runs made inside the ``with`` block under one chain run named
    ``group_name`` (started with ``inputs``), as LangChain's: pass the yielded manager as
    each call's ``callbacks``. The run ends with ``manager.on_chain_end(outputs)``, else
    at the block's end with ``{}`` (or with the error that leaves it).

    ``callback_manager`` gives the handlers (and ``tags`` / ``metadata`` are added for
    every run in the group); ``project_name``, ``example_id`` and ``address`` name a
    LangSmith project, example and agent, which ragline does not trace to: they are
    accepted and unused.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> from ragline.core.callbacks import RunCollectorCallbackHandler
        >>> collector = RunCollectorCallbackHandler()
        >>> handlers = CallbackManager([collector], inheritable_handlers=[collector])
        >>> with trace_as_chain_group("pair", handlers) as group:
        ...     RunnableLambda(lambda x: x + 1).invoke(1, {"callbacks": group})
        ...     group.on_chain_end({"done": True})
        2
        >>> run = collector.traced_runs[0]
        >>> run.name, run.outputs, len(run.child_runs)
        ('pair', {'done': True}, 1)
    """
    manager = CallbackManager.configure(
        inheritable_callbacks=callback_manager,
        inheritable_tags=tags,
        inheritable_metadata=metadata,
    )
    run = manager.on_chain_start({"name": group_name}, inputs or {}, run_id=run_id)
    group = _group_manager(CallbackManagerForChainGroup, run)
    try:
        yield group
    except BaseException as error:
        if not group.ended:
            run.on_chain_error(error)
        raise
    else:
        if not group.ended:
            run.on_chain_end({})

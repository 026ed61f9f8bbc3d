"""RunnableConfig: the options that travel with a run down the whole runnable tree.

A config is a plain dict (a ``TypedDict``). Every runnable merges the config it is given
with the *current* config, which lives in a :class:`contextvars.ContextVar`: while a
runnable runs, the var holds its child config, so anything invoked inside it (a user's
lambda calling another chain, a retriever inside a parallel branch) becomes a child run
without passing ``config`` by hand. Threads and tasks started by ragline copy the
context, so the var follows them.

Merging rules (:func:`merge_configs`): ``tags`` are united and sorted (LangChain's
order, no duplicates; :func:`ensure_config` keeps the order given),
``metadata`` and ``configurable`` are dict-merged (later wins), ``callbacks`` are
combined (a list of handlers added to an inherited :class:`CallbackManager` keeps the
parent run), other keys are replaced by a later non-``None`` value. ``run_name`` and
``run_id`` apply to one run only and are never inherited by children. A key
RunnableConfig does not know is moved into ``configurable`` (as LangChain does), where
user functions can read it.

A config is checked once, where it enters: :func:`ensure_config` checks the config a
caller passes to ``invoke`` and copies the current run's config (checked when it
entered) without checking it again, so a chain of many steps pays for one check.

Example:
    >>> from ragline.core import RunnableLambda
    >>> RunnableLambda(lambda x: x + 1).invoke(1, {"tags": ["demo"], "max_concurrency": 2})
    2
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import copy
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, cast
from uuid import UUID

from ragline.core._checks import check_optional_positive_int, check_positive_int
from ragline.core.exceptions import ConfigurationError, InvalidInputError

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ragline.core.callbacks.base import BaseCallbackHandler
    from ragline.core.callbacks.manager import CallbackManager

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "RunnableConfig",
    "child_config",
    "ensure_config",
    "ensure_config_list",
    "get_config_list",
    "get_current_config",
    "graph_config",
    "legacy_call_config",
    "merge_configs",
    "patch_config",
    "run_in_executor",
    "use_config",
]

_T = TypeVar("_T")

DEFAULT_RECURSION_LIMIT = 25


class RunnableConfig(TypedDict, total=False):
    """Options for one call of a runnable; every key is optional.

    Keys:
        tags: labels for this run and every run below it.
        metadata: JSON-like facts for this run and every run below it.
        callbacks: a list of callback handlers, or a ``CallbackManager``.
        run_name: the name reported for this run only (default: the runnable's name).
        run_id: the UUID reported for this run only (default: a new uuid4).
        max_concurrency: at most this many calls at once in ``batch``/``abatch`` and
            in parallel branches.
        recursion_limit: how deep runs may nest before ``RecursionLimitError`` (25).
        configurable: values for ``configurable_fields`` / ``configurable_alternatives``,
            keyed by ``ConfigurableField.id``.
    """

    tags: list[str]
    metadata: dict[str, Any]
    callbacks: list[BaseCallbackHandler] | CallbackManager | None
    run_name: str
    run_id: UUID | None
    max_concurrency: int | None
    recursion_limit: int
    configurable: dict[str, Any]


_KNOWN_KEYS = frozenset(RunnableConfig.__annotations__)
_ONE_RUN_KEYS = ("run_name", "run_id")

_current_config: ContextVar[RunnableConfig | None] = ContextVar(
    "ragline_current_config", default=None
)


def get_current_config() -> RunnableConfig | None:
    """Return the config of the run executing right now, or ``None`` outside any run.

    Example:
        >>> get_current_config() is None
        True
    """
    return _current_config.get()


@contextlib.contextmanager
def use_config(config: RunnableConfig | None) -> Iterator[None]:
    """Make ``config`` the current config inside the ``with`` block.

    Runnables that start a run do this with their child config, so everything invoked
    inside inherits it. The previous value is restored on exit.
    """
    token = _current_config.set(config)
    try:
        yield
    finally:
        _current_config.reset(token)


def _validated(config: Any) -> dict[str, Any]:
    """``config`` checked once where it enters a run, with unknown keys moved into
    ``configurable`` (as LangChain does, so a call passing extra keys still works).

    Returns ``config`` itself when nothing moved, else a new dict.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict (RunnableConfig), got {type(config).__name__}")
    unknown = [key for key in config if key not in _KNOWN_KEYS]
    if unknown:
        moved = {key: config[key] for key in unknown if config[key] is not None}
        config = {key: value for key, value in config.items() if key in _KNOWN_KEYS}
        if moved:
            configurable = config.get("configurable")
            if configurable is not None and not isinstance(configurable, dict):
                _check_values(config)  # names the bad configurable first
            config["configurable"] = {**moved, **(configurable or {})}
    _check_values(config)
    return config


def _check_values(config: dict[str, Any]) -> None:
    # Wrong types fail here, naming the key, rather than deep inside a run.
    from ragline.core.callbacks.manager import CallbackManager

    problems = []
    tags = config.get("tags")
    if tags is not None and (
        not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags)
    ):
        problems.append(f"tags must be a list of str, got {tags!r:.60}")
    for key in ("metadata", "configurable"):
        if config.get(key) is not None and not isinstance(config[key], dict):
            problems.append(f"{key} must be a dict, got {type(config[key]).__name__}")
    callbacks = config.get("callbacks")
    if callbacks is not None and not isinstance(callbacks, (list, tuple, CallbackManager)):
        problems.append(
            "callbacks must be a list of handlers or a CallbackManager, got "
            f"{type(callbacks).__name__}"
        )
    for key, check in (
        ("max_concurrency", check_optional_positive_int),
        ("recursion_limit", check_positive_int),
    ):
        try:
            if key in config:
                check(key, config[key])
        except InvalidInputError as err:
            problems.append(str(err))
    if config.get("run_name") is not None and not isinstance(config["run_name"], str):
        problems.append(f"run_name must be a str, got {type(config['run_name']).__name__}")
    if problems:
        raise ConfigurationError("; ".join(problems))


def _merge_callbacks(base: Any, extra: Any) -> Any:
    # Imported here: callbacks imports config, and config must stay importable alone.
    from ragline.core.callbacks.manager import CallbackManager

    if extra is None or extra is base:
        return base
    if base is None:
        return extra
    if isinstance(extra, CallbackManager) and isinstance(base, CallbackManager):
        return extra  # the later manager says where the run belongs
    if isinstance(base, CallbackManager) or isinstance(extra, CallbackManager):
        # A handler list joins the manager, which keeps the parent run.
        manager, handlers = (base, extra) if isinstance(base, CallbackManager) else (extra, base)
        merged = manager.copy()
        for handler in handlers:
            merged.add_handler(handler)
        return merged
    return list(base) + [h for h in extra if h not in base]


def _merge_into(
    merged: dict[str, Any], config: dict[str, Any], keep_none: bool = True, sort_tags: bool = False
) -> None:
    """Merge a checked ``config`` into ``merged`` (which the caller owns) in place
    (``keep_none``: a key given as None is set when ``merged`` lacks it; ``sort_tags``:
    the tags become the sorted union, as LangChain's ``merge_configs`` makes them)."""
    for key, value in config.items():
        if key == "tags":
            old = merged.get("tags") or []
            if sort_tags:
                merged["tags"] = sorted({*old, *(value or ())})
            elif value:
                merged["tags"] = old + [t for t in value if t not in old]
            elif "tags" not in merged:
                merged["tags"] = []
        elif key == "metadata" or key == "configurable":
            if value:
                old_dict = merged.get(key)
                merged[key] = {**old_dict, **value} if old_dict else dict(value)
            elif key not in merged:
                merged[key] = {}
        elif key == "callbacks":
            merged["callbacks"] = _merge_callbacks(merged.get("callbacks"), value)
        elif value is not None or (keep_none and key not in merged):
            merged[key] = value


def merge_configs(*configs: RunnableConfig | None) -> RunnableConfig:
    """Merge configs left to right (see the module docstring for the rules).

    Each config is checked (a wrong value type raises ``ConfigurationError`` naming the
    key; unknown keys move into ``configurable``).

    The tags come out as LangChain's do: the union of every config's tags, sorted.

    Example:
        >>> merge_configs({"tags": ["b"]}, {"tags": ["c", "a", "b"], "metadata": {"k": 1}})
        {'tags': ['a', 'b', 'c'], 'metadata': {'k': 1}}
    """
    merged: dict[str, Any] = {}
    for config in configs:
        if config:
            _merge_into(merged, _validated(config), sort_tags=True)
    return merged  # type: ignore[return-value]


def graph_config(config: RunnableConfig | None) -> RunnableConfig:
    """``config`` for the graph a wrapper draws of what it wraps: a copy whose
    ``metadata`` is ``{}`` when it has none, so the nodes carry ``{}`` (as LangChain's
    bound and retried runnables draw them), not no metadata.

    Example:
        >>> graph_config(None)
        {'metadata': {}}
    """
    config = config or {}
    return {**config, "metadata": config.get("metadata") or {}}


def _merge_checked(first: RunnableConfig, second: RunnableConfig | None) -> RunnableConfig:
    """Merge two configs that were both checked already (no second check)."""
    if not second:
        return first
    if not first:
        return second
    merged: dict[str, Any] = {}
    _merge_into(merged, first, sort_tags=True)  # type: ignore[arg-type]
    _merge_into(merged, second, sort_tags=True)  # type: ignore[arg-type]
    return merged  # type: ignore[return-value]


def legacy_call_config(
    callbacks: Any = None,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    run_name: str | None = None,
    *,
    config: RunnableConfig | None = None,
) -> RunnableConfig | None:
    """The config LangChain's pre-Runnable call forms ask for (``chain(x, callbacks=...)``,
    ``get_relevant_documents(q, tags=...)``, ``generate(..., metadata=...)``): the options
    given, merged into ``config`` when there is one (its handlers keep receiving the runs);
    None when nothing was given.

    Example:
        >>> legacy_call_config(tags=["x"], config={"tags": ["a"]})
        {'tags': ['a', 'x']}
    """
    given = {
        key: value
        for key, value in (
            ("callbacks", callbacks),
            ("tags", tags),
            ("metadata", metadata),
            ("run_name", run_name),
        )
        if value is not None
    }
    if config:
        return merge_configs(config, given) if given else config  # type: ignore[arg-type]
    return given or None  # type: ignore[return-value]


class _CheckedConfig(dict):  # type: ignore[type-arg]
    """A complete config checked already: a run's child config made for one part of the
    run (``part_config``). ``ensure_config`` copies it as it is, rather than checking it
    and merging it into the current config again."""

    __slots__ = ()


def ensure_config(config: RunnableConfig | None = None) -> RunnableConfig:
    """Return a full config: defaults, then the current run's config, then ``config``.

    ``config`` (what a caller passes to ``invoke``) is checked here, once; the current
    run's config was checked when it entered, so it is only copied.

    Args:
        config: the config passed to ``invoke`` (may be ``None``).

    Returns:
        A new dict with ``tags``, ``metadata``, ``callbacks`` (may be ``None``),
        ``recursion_limit`` and ``configurable`` set, each container its own, and the
        other keys (``run_name``, ``run_id``, ``max_concurrency``) only where they have
        a value, as LangChain's.

    Raises:
        ConfigurationError: a value of the wrong type (the message names the key).
        TypeError: ``config`` is not a dict.

    Example:
        >>> ensure_config({"tags": ["x"]})["recursion_limit"]
        25
        >>> ensure_config({"session": "abc"})["configurable"]  # unknown keys move there
        {'session': 'abc'}
    """
    if type(config) is _CheckedConfig:
        return _fresh_copy(config)  # type: ignore[arg-type]  # a plain dict
    current = _current_config.get()
    if current is not None:
        # Inside a run: the current config is complete and checked; copy its containers.
        merged: dict[str, Any] = dict(current)
        merged["tags"] = list(current.get("tags") or ())
        merged["metadata"] = dict(current.get("metadata") or ())
        merged["configurable"] = dict(current.get("configurable") or ())
        merged.pop("run_name", None)  # they named the current run, not the next one
        merged.pop("run_id", None)
    else:
        merged = {
            "tags": [],
            "metadata": {},
            "callbacks": None,
            "recursion_limit": DEFAULT_RECURSION_LIMIT,
            "configurable": {},
        }
    if config:
        checked = _validated(config)
        if checked.get("tags") and current is not None:
            # the call's tags replace the current run's, as in LangChain (whose
            # ensure_config updates the context's config with the call's); the run's
            # manager carries the enclosing runs' tags on
            merged["tags"] = []
        _merge_into(merged, checked, keep_none=False)
        configurable = merged["configurable"]
        if configurable:
            _mirror_into_metadata(configurable, merged["metadata"])
    return merged  # type: ignore[return-value]


# LangChain copies these configurable values into the metadata that callbacks see.
_MIRRORED_KEYS = ("model", "checkpoint_ns")


def _mirror_into_metadata(configurable: dict[str, Any], metadata: dict[str, Any]) -> None:
    for key in _MIRRORED_KEYS:
        value = configurable.get(key)
        if isinstance(value, str) and key not in metadata:
            metadata[key] = value


def patch_config(
    config: RunnableConfig | None,
    *,
    callbacks: Any = None,
    recursion_limit: int | None = None,
    max_concurrency: int | None = None,
    run_name: str | None = None,
    configurable: dict[str, Any] | None = None,
) -> RunnableConfig:
    """Return ``config`` filled in (:func:`ensure_config`) with the given values set, as
    LangChain's: ``configurable`` joins the config's own, the others replace; a value
    left ``None`` changes nothing.

    Replacing ``callbacks`` drops ``run_name`` and ``run_id``: they named the parent run.

    Raises:
        ConfigurationError: a value of the wrong type (the message names the key).

    Example:
        >>> patch_config({"tags": ["a"]}, max_concurrency=2)["max_concurrency"]
        2
    """
    patched: dict[str, Any] = dict(ensure_config(config))
    changes: dict[str, Any] = {}
    if callbacks is not None:
        for key in _ONE_RUN_KEYS:
            patched.pop(key, None)
        changes["callbacks"] = callbacks
    if recursion_limit is not None:
        changes["recursion_limit"] = recursion_limit
    if max_concurrency is not None:
        changes["max_concurrency"] = max_concurrency
    if run_name is not None:
        changes["run_name"] = run_name
    if configurable is not None:
        changes["configurable"] = {**patched["configurable"], **configurable}
    _check_values(changes)
    patched.update(changes)
    return patched  # type: ignore[return-value]


def child_config(config: RunnableConfig, callbacks: CallbackManager) -> RunnableConfig:
    """Return the config children of a run get: ``callbacks`` points at the run.

    ``run_name`` and ``run_id`` are removed; everything else is inherited.
    """
    child: dict[str, Any] = {k: v for k, v in config.items() if k not in _ONE_RUN_KEYS}
    child["callbacks"] = callbacks
    return child  # type: ignore[return-value]


def ensure_config_list(
    config: RunnableConfig | Sequence[RunnableConfig] | None, length: int
) -> list[RunnableConfig]:
    """``ensure_config`` of each input's config in a batch (see :func:`get_config_list`).

    A single config is merged and checked once, then copied per input (fresh tags,
    metadata and configurable containers; ``run_id`` for the first input only) rather
    than merged once per input: a batch of a thousand queries feels the difference.
    """
    if isinstance(config, (list, tuple)) or length <= 1:
        return [ensure_config(c) for c in get_config_list(config, length)]
    first = ensure_config(cast("RunnableConfig | None", config))
    rest: RunnableConfig = dict(first)  # type: ignore[assignment]
    if rest.pop("run_id", None) is not None:
        _warn_run_id()
    return [first, *(_fresh_copy(rest) for _ in range(length - 1))]


def _warn_run_id() -> None:
    warnings.warn(
        "a run_id given to a batch names the first input's run only",
        RuntimeWarning,
        stacklevel=4,
    )


def _fresh_copy(config: RunnableConfig) -> RunnableConfig:
    """A copy with its own tags, metadata and configurable, so that a caller who edits
    its config cannot edit another run's."""
    copy: RunnableConfig = dict(config)  # type: ignore[assignment]
    copy["tags"] = list(config.get("tags") or [])
    copy["metadata"] = dict(config.get("metadata") or {})
    copy["configurable"] = dict(config.get("configurable") or {})
    return copy


def get_config_list(
    config: RunnableConfig | Sequence[RunnableConfig] | None, length: int
) -> list[RunnableConfig]:
    """Return one config per input of a batch.

    Each config is filled in (:func:`ensure_config`), as LangChain's are. A single
    config is shared, except ``run_id``, which can name one run only (it is kept for
    the first input and dropped for the others).

    Raises:
        ValueError: a list of configs whose length differs from the number of inputs.
    """
    if isinstance(config, (list, tuple)):
        if len(config) != length:
            raise ValueError(
                f"batch got {len(config)} configs for {length} inputs; pass one config "
                "or exactly one per input"
            )
        return [ensure_config(c) for c in config]
    base: RunnableConfig = ensure_config(config)  # type: ignore[arg-type]  # filled in
    configs = []
    for index in range(length):
        one: dict[str, Any] = dict(base)
        for key in ("tags", "metadata", "configurable"):  # each its own containers
            one[key] = copy.copy(base[key])  # type: ignore[literal-required]
        if index > 0 and one.get("run_id") is not None:
            if index == 1:
                _warn_run_id()
            one.pop("run_id")
        configs.append(one)
    return configs  # type: ignore[return-value]


async def run_in_executor(
    executor_or_config: Executor | RunnableConfig | None,
    func: Callable[..., _T],
    *args: Any,
    **kwargs: Any,
) -> _T:
    """Run the blocking ``func(*args, **kwargs)`` in a thread from async code, and await it.

    Given a config (or None), ``func`` runs in the event loop's default executor in a copy
    of the caller's context, so the current config (and with it the parent run) carries
    over, as in ``Runnable.ainvoke``; given an ``Executor``, it runs there as submitted.
    A ``StopIteration`` out of ``func`` is raised as a ``RuntimeError`` (an asyncio future
    cannot hold one).

    Example:
        >>> import asyncio
        >>> asyncio.run(run_in_executor(None, sum, [1, 2, 3]))
        6
    """

    def call() -> _T:
        try:
            return func(*args, **kwargs)
        except StopIteration as err:
            raise RuntimeError(f"{func!r} raised StopIteration") from err

    loop = asyncio.get_running_loop()
    if executor_or_config is None or isinstance(executor_or_config, dict):
        return await loop.run_in_executor(None, contextvars.copy_context().run, call)
    return await loop.run_in_executor(executor_or_config, call)

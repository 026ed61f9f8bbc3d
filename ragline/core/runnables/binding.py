"""RunnableBinding: a runnable with fixed call options (``bind``) or config (``with_config``)."""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core._json_schema import json_schema_of
from ragline.core.config import (
    RunnableConfig,
    get_config_list,
    get_current_config,
    graph_config,
    merge_configs,
)
from ragline.core.runnables.base import Input, Output, Runnable
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = ["RunnableBinding", "RunnableBindingBase"]

# a function of a call's config (the binding's merged in) giving config to merge over it
ConfigFactory = Callable[[RunnableConfig], RunnableConfig]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class RunnableBindingBase(Runnable[Input, Output]):
    """Delegate every call to ``bound`` with extra keyword options and config.

    The base LangChain names for subclasses with their own ``__init__``;
    :class:`RunnableBinding` adds ``bind`` / ``with_config`` that merge into the binding.

    A binding adds no run of its own: callbacks see the bound runnable's run (with the
    binding's ``run_name``, tags and metadata, if any).

    Args:
        bound: the runnable that does the work.
        kwargs: keyword options passed to every call (``bind(stop=["\\n"])``).
        config: merged under every call's config (``with_config(tags=["x"])``).
        config_factories: each called with a call's config, the binding's merged in; what
            it returns is merged over it (``with_listeners`` adds its handler this way).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> RunnableLambda(lambda x: x).with_config(run_name="echo").invoke(5)
        5
    """

    def __init__(
        self,
        bound: Runnable[Input, Output],
        *,
        kwargs: dict[str, Any] | None = None,
        config: RunnableConfig | None = None,
        config_factories: Sequence[ConfigFactory] | None = None,
    ) -> None:
        self.bound = bound
        self.kwargs: dict[str, Any] = dict(kwargs or {})
        self.config: RunnableConfig = merge_configs(config)  # validates the keys now
        self.config_factories: list[ConfigFactory] = list(config_factories or ())

    # set by with_types(): the declared input / output types (None: the bound runnable's)
    custom_input_type: Any = None
    custom_output_type: Any = None

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        if self.custom_input_type is not None:
            return json_schema_of(self.custom_input_type, defs)
        return self.bound._input_json(defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        if self.custom_output_type is not None:
            return json_schema_of(self.custom_output_type, defs)
        return self.bound._output_json(defs)

    # a declared type's schema is titled after the binding, as LangChain's model for it
    def _input_title(self) -> str:
        if self.custom_input_type is not None:
            return f"{self.get_name()}Input"
        return self.bound._input_title()

    def _output_title(self) -> str:
        if self.custom_output_type is not None:
            return f"{self.get_name()}Output"
        return self.bound._output_title()

    @property
    def InputType(self) -> Any:
        """The declared input type, else the bound runnable's."""
        return (
            self.custom_input_type if self.custom_input_type is not None else self.bound.InputType
        )

    @property
    def OutputType(self) -> Any:
        """The declared output type, else the bound runnable's."""
        return (
            self.custom_output_type
            if self.custom_output_type is not None
            else self.bound.OutputType
        )

    def _copy_types(self, other: RunnableBinding[Input, Output]) -> RunnableBinding[Input, Output]:
        other.custom_input_type = self.custom_input_type
        other.custom_output_type = self.custom_output_type
        return other

    def get_name(self) -> str:
        """The bound runnable's name, as LangChain's (a bound ``run_name`` names the runs,
        not the binding)."""
        return self.name or self.bound.get_name()

    def _config_title(self) -> str:
        return f"{self.name}Config" if self.name else self.bound._config_title()

    def _shown_fields(self) -> list[str]:
        # LangChain's printed form (pydantic's): bound, kwargs, config, config_factories
        # always, then a type given to with_types()
        shown = [
            f"bound={self.bound!r}",
            f"kwargs={self.kwargs!r}",
            f"config={dict(self.config)!r}",
            f"config_factories={self.config_factories!r}",
        ]
        if self.custom_input_type is not None:
            shown.append(f"custom_input_type={self.custom_input_type!r}")
        if self.custom_output_type is not None:
            shown.append(f"custom_output_type={self.custom_output_type!r}")
        return shown

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._shown_fields())})"

    def __str__(self) -> str:
        return " ".join(self._shown_fields())

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.bound]

    def _merge(self, config: RunnableConfig | None) -> RunnableConfig:
        # the bound config was checked when bound; the bound runnable checks the call's
        merged = self.config if not config else merge_configs(self.config, config)
        # LangChain's merge reads each config over the current run's (a config without
        # tags has the current run's) and sorts the union: the order the run's tags
        # then take (each moved after its parent's)
        bound_tags = self.config.get("tags")
        call_tags = config.get("tags") if config else None
        if bound_tags is None or call_tags is None:
            current = get_current_config()
            current_tags = current.get("tags") if current else None
            if bound_tags is None:
                bound_tags = current_tags
            if call_tags is None:
                call_tags = current_tags
        if bound_tags or call_tags:
            tags = sorted({*(bound_tags or ()), *(call_tags or ())})
            if merged.get("tags") != tags:
                merged = {**merged, "tags": tags}  # type: ignore[assignment]
        if not self.config_factories:
            return merged
        factories = tuple(self.config_factories)
        if merged is self.config:  # a call adding no config: the same merge every time
            done = self.__dict__.get("_constant_merge")
            if done is not None and done[0] is merged and done[1] == factories:
                return done[2]  # type: ignore[no-any-return]
        # each factory sees the merged config (with_listeners: the listeners' config)
        result = merge_configs(merged, *(factory(merged) for factory in factories))
        if merged is self.config and all(getattr(f, "constant", False) for f in factories):
            self._constant_merge = (merged, factories, result)
        return result

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """``bound.invoke`` with the bound options and config."""
        return self.bound.invoke(input, self._merge(config), **{**self.kwargs, **kwargs})

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """``bound.ainvoke`` with the bound options and config."""
        return await self.bound.ainvoke(input, self._merge(config), **{**self.kwargs, **kwargs})

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """``bound.batch`` with the bound options and config (so batch fast paths stay)."""
        configs = [self._merge(c) for c in get_config_list(config, len(inputs))]
        return self.bound.batch(
            inputs, configs, return_exceptions=return_exceptions, **{**self.kwargs, **kwargs}
        )

    async def abatch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """``bound.abatch`` with the bound options and config."""
        configs = [self._merge(c) for c in get_config_list(config, len(inputs))]
        return await self.bound.abatch(
            inputs, configs, return_exceptions=return_exceptions, **{**self.kwargs, **kwargs}
        )

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """``bound.stream`` with the bound options and config."""
        return self.bound.stream(input, self._merge(config), **{**self.kwargs, **kwargs})

    def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """``bound.astream`` with the bound options and config."""
        return self.bound.astream(input, self._merge(config), **{**self.kwargs, **kwargs})

    def transform(
        self, input: Iterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """``bound.transform`` with the bound options and config."""
        return self.bound.transform(input, self._merge(config), **{**self.kwargs, **kwargs})

    def atransform(
        self, input: AsyncIterator[Input], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """``bound.atransform`` with the bound options and config."""
        return self.bound.atransform(input, self._merge(config), **{**self.kwargs, **kwargs})

    def __getattr__(self, name: str) -> Any:
        """What the binding lacks comes from the bound runnable, as in LangChain
        (``model.with_config(...).bind_tools(tools)``, ``.model_name``), for a plain binding
        and a ``with_listeners`` one alike; a bound method
        that takes ``config`` gets the binding's config merged under the one given. Only
        names the binding lacks get here, so calls through the binding cost nothing more.
        Private names (``_x``) are not handed on: ragline's own probes of a step
        (``getattr(step, "_added_keys", None)``) must see the binding as it is.
        """
        bound = self.__dict__.get("bound")
        if bound is None or name.startswith("_"):  # also mid-construction, copy, pickle
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        attr = getattr(bound, name)
        return _with_binding_config(attr, self.config) if callable(attr) else attr

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The bound runnable's graph (its nodes carry the bound config's metadata)."""
        return self.bound.get_graph(graph_config(merge_configs(self.config, config)))


class RunnableBinding(RunnableBindingBase[Input, Output]):
    """A runnable with fixed call options (``bind``) or config (``with_config``).

    Binding again merges into this binding instead of wrapping it, as LangChain's:
    ``bind`` adds options, ``with_config`` replaces the config keys it is given (a key not
    given is kept), ``with_listeners`` adds its listeners, and ``with_retry`` retries the
    bound runnable inside the binding (so the retried runs keep the binding's name, tags
    and metadata). Each returns a binding of the same class: a subclass's own methods
    stay (its constructor is called with ``bound``, ``kwargs``, ``config`` and
    ``config_factories``, as LangChain calls it).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> RunnableLambda(lambda x: x).with_config(run_name="echo").invoke(5)
        5
    """

    def bind(self, **kwargs: Any) -> RunnableBinding[Input, Output]:
        """Return a binding with ``kwargs`` added to the bound ones."""
        return self._copy_types(self._rebound(kwargs={**self.kwargs, **kwargs}))

    def _rebound(self, **changes: Any) -> RunnableBinding[Input, Output]:
        """A binding of this binding's class (a user's subclass keeps its methods, as
        LangChain rebuilds ``self.__class__``), without its declared types, with
        ``changes``."""
        fields = {
            "bound": self.bound,
            "kwargs": self.kwargs,
            "config": self.config,
            "config_factories": self.config_factories,
        }
        return type(self)(**{**fields, **changes})

    def with_config(
        self, config: RunnableConfig | None = None, **options: Any
    ) -> RunnableBinding[Input, Output]:
        """Return a binding whose config has the keys given replaced (``tags``,
        ``metadata``, ``callbacks`` ... as given, not merged), the others kept, as
        LangChain's; the listeners of ``with_listeners`` stay."""
        return self._copy_types(self._rebound(config={**self.config, **(config or {}), **options}))

    def with_listeners(
        self,
        *,
        on_start: Callable[[Any], Any] | None = None,
        on_end: Callable[[Any], Any] | None = None,
        on_error: Callable[[Any], Any] | None = None,
    ) -> RunnableBinding[Input, Output]:
        """This binding, its listeners first called with each run of the bound runnable
        (see :meth:`Runnable.with_listeners`); a listener taking ``config`` gets the
        call's config with this binding's merged in."""
        factory = listeners_config_factory(
            on_start,
            on_end,
            on_error,
            qualname="RunnableBinding.with_listeners.<locals>.listener_config_factory",
        )
        return self._copy_types(self._rebound(config_factories=[factory, *self.config_factories]))

    def with_retry(self, **kwargs: Any) -> RunnableBinding[Input, Output]:  # type: ignore[override]
        """This binding around ``bound.with_retry(**kwargs)``: each attempt's run has the
        binding's name, tags and metadata, as LangChain's (whose result also drops the
        declared types)."""
        return self._rebound(bound=self.bound.with_retry(**kwargs))

    def with_types(
        self, *, input_type: Any = None, output_type: Any = None
    ) -> RunnableBinding[Any, Any]:
        """Return this binding with its input and/or output type declared: one binding
        (the bound options and config kept, a type not given kept), as LangChain's."""
        typed = self._copy_types(self._rebound())
        if input_type is not None:
            typed.custom_input_type = input_type
        if output_type is not None:
            typed.custom_output_type = output_type
        return typed


def _with_binding_config(method: Any, config: RunnableConfig) -> Any:
    """``method`` with ``config`` merged under the config it is given, when it takes a
    ``config`` parameter by keyword (keyword-only, or positional-or-keyword); otherwise,
    a positional-only ``config`` included, ``method`` itself, as LangChain's."""
    where = _config_position(method)
    if where is None:
        return method
    if where < 0:  # keyword-only

        @functools.wraps(method)
        def with_config_keyword(*args: Any, **kwargs: Any) -> Any:
            given = kwargs.pop("config", None)
            return method(*args, config=merge_configs(config, given), **kwargs)

        return with_config_keyword

    @functools.wraps(method)
    def with_config(*args: Any, **kwargs: Any) -> Any:
        if len(args) > where:
            given = list(args)
            given[where] = merge_configs(config, given[where])
            return method(*given, **kwargs)
        return method(*args, config=merge_configs(config, kwargs.pop("config", None)), **kwargs)

    return with_config


# the config position of a function read once (its signature does not change); bound
# methods are new objects on every access, so they are keyed on the function they bind
_positions: weakref.WeakKeyDictionary[Any, int | None] = weakref.WeakKeyDictionary()
_method_positions: weakref.WeakKeyDictionary[Any, int | None] = weakref.WeakKeyDictionary()
_UNREAD: Any = object()


def _config_position(method: Any) -> int | None:
    """Where ``method`` takes ``config``: its index when positional-or-keyword, -1 when
    keyword-only, None when it takes none by keyword."""
    if inspect.ismethod(method) and inspect.isfunction(method.__func__):
        cache, key = _method_positions, method.__func__
    elif inspect.isfunction(method):
        cache, key = _positions, method
    else:  # another callable (a builtin, a callable object): read it each time
        return _read_config_position(method)
    position = cache.get(key, _UNREAD)
    if position is _UNREAD:
        position = cache[key] = _read_config_position(method)
    return position  # type: ignore[return-value]


def _read_config_position(method: Any) -> int | None:
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):  # no signature to read
        return None
    for index, parameter in enumerate(parameters):
        if parameter.name == "config":
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
                return -1
            if parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
                return index
            return None
    return None


def listeners_config_factory(
    on_start: Callable[[Any], Any] | None,
    on_end: Callable[[Any], Any] | None,
    on_error: Callable[[Any], Any] | None,
    *,
    qualname: str,
    awaited: bool = False,
) -> ConfigFactory:
    """The config factory ``with_listeners`` adds: a handler calling the listeners. A
    listener taking ``config`` gets the call's (tags, metadata, configurable, run_name
    ..., without callbacks), so each call gets its own handler, as LangChain's.
    ``qualname`` is the name the function prints with (LangChain's, in a printed binding);
    ``awaited``: the listeners are coroutine functions (``with_alisteners``).
    """
    from ragline.core.callbacks.tracers import (
        AsyncRootListenersHandler,
        RootListenersHandler,
        listener_takes_config,
    )

    handler = AsyncRootListenersHandler if awaited else RootListenersHandler

    listeners = (on_start, on_end, on_error)
    factory: ConfigFactory
    if not any(f is not None and listener_takes_config(f) for f in listeners):
        added: RunnableConfig = {"callbacks": [handler(*listeners)]}

        def factory(config: RunnableConfig) -> RunnableConfig:
            return added

        factory.constant = True  # type: ignore[attr-defined]  # its config never changes
    else:

        def factory(config: RunnableConfig) -> RunnableConfig:
            seen: dict[str, Any] = {"tags": [], "metadata": {}, "configurable": {}}
            seen.update({k: v for k, v in config.items() if k != "callbacks" and v is not None})
            return {"callbacks": [handler(*listeners, config=seen)]}

    factory.__qualname__ = qualname
    factory.__name__ = qualname.rpartition(".")[2]
    return factory

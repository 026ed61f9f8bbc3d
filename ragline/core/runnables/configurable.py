"""Configurable runnables: attributes or whole alternatives chosen at invoke time.

``model.configurable_fields(temperature=ConfigurableField(id="temp"))`` lets
``config={"configurable": {"temp": 0.9}}`` set ``temperature`` for one call;
``prompt.configurable_alternatives(ConfigurableField(id="prompt"), poem=other)`` lets
``{"configurable": {"prompt": "poem"}}`` swap the whole runnable. The default runnable
is never changed: each call works on a shallow copy, so the value is gone afterwards.

At the root of a call, ids in ``config["configurable"]`` that no ConfigurableField in
the tree declares raise ``ConfigurationError`` naming the known ids (a tree with no
configurable fields at all lets any id through, for user functions that read it).
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import inspect
import typing
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragline.core.callbacks.manager import CallbackManager
from ragline.core.config import RunnableConfig, ensure_config, get_config_list
from ragline.core.exceptions import ConfigurationError
from ragline.core.fields import is_float_annotation
from ragline.core.runnables._printing import printed_fields
from ragline.core.runnables.base import (
    Input,
    Output,
    Runnable,
    _specs_by_id,
    coerce_to_runnable,
)
from ragline.core.runnables.runs import _configurable_checked
from ragline.core.runnables.serializable import RunnableSerializable

if TYPE_CHECKING:
    from ragline.core.runnables.graph import Graph

__all__ = [
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "RunnableConfigurableAlternatives",
    "RunnableConfigurableFields",
]


@dataclass(frozen=True)
class ConfigurableField:
    """Names a value that can be set through ``config["configurable"][id]``.

    Args:
        id: the key in ``config["configurable"]``.
        name: a human-readable name.
        description: what the value does.
        annotation: the value's type, for ``config_specs`` (by default the attribute's
            declared type).
        is_shared: whether one value is shared by the whole run tree.
        options: for alternatives, the keys that may be chosen (filled in by ragline; not
            printed, LangChain's field has no such attribute).
    """

    id: str
    name: str | None = None
    description: str | None = None
    annotation: Any = None
    is_shared: bool = False
    options: tuple[str, ...] | None = dataclasses.field(default=None, repr=False)


@dataclass(frozen=True)
class ConfigurableFieldSingleOption:
    """A field set to one of named values: ``config["configurable"][id]`` names the key
    of ``options`` to use; without it ``default`` (a key) applies, also to calls with no
    configuration at all.

    Args:
        id: the key in ``config["configurable"]``.
        options: option key -> the value the field takes.
        default: the key used when the configuration names none.
        name, description: human-readable name and description.
        is_shared: whether one value is shared by the whole run tree.
    """

    id: str
    options: Mapping[str, Any]
    default: str
    name: str | None = None
    description: str | None = None
    is_shared: bool = False


@dataclass(frozen=True)
class ConfigurableFieldMultiOption:
    """A field set to a list of named values: ``config["configurable"][id]`` lists keys
    of ``options``; the field takes their values in that order (``default``: the keys
    used when the configuration names none).

    Args:
        id: the key in ``config["configurable"]``.
        options: option key -> value.
        default: the keys used when the configuration names none.
        name, description: human-readable name and description.
        is_shared: whether one value is shared by the whole run tree.
    """

    id: str
    options: Mapping[str, Any]
    default: Sequence[str]
    name: str | None = None
    description: str | None = None
    is_shared: bool = False


_FIELD_KINDS = (ConfigurableField, ConfigurableFieldSingleOption, ConfigurableFieldMultiOption)
AnyConfigurableField = (
    ConfigurableField | ConfigurableFieldSingleOption | ConfigurableFieldMultiOption
)


@dataclass(frozen=True)
class ConfigurableFieldSpec:
    """Describes a value a runnable reads from ``config["configurable"][id]``.

    ``RunnableWithMessageHistory(history_factory_config=[...])`` takes these to name the
    keys that select a conversation (``user_id``, ``conversation_id`` ...).

    Args:
        id: the key in ``config["configurable"]``.
        annotation: the value's type (documentation only).
        name, description: human-readable name and description.
        default: the documented default.
        is_shared: whether one value is shared by the whole run tree.
        dependencies: ids this value depends on (LangChain's field; not used here).
        options: for alternatives, the keys that may be chosen (ragline's addition, left
            out of the printed spec; LangChain's spec names them in an Enum annotation).
    """

    id: str
    annotation: Any = None
    name: str | None = None
    description: str | None = None
    default: Any = None
    is_shared: bool = False
    dependencies: list[str] | None = None
    # not printed: LangChain's spec has no such field, so a printed spec reads as its
    options: tuple[str, ...] | None = dataclasses.field(default=None, repr=False)


@functools.lru_cache(maxsize=256)
def _choice_enum(name: str, keys: tuple[str, ...]) -> type[enum.Enum]:
    """LangChain's annotation of a choice of alternatives: a str Enum named after the
    choice, one member per key (built once per name and keys: a root run with
    ``configurable`` lists its specs on every call)."""
    return enum.Enum(name, [(key, key) for key in keys], type=str)  # type: ignore[return-value]


@RunnableSerializable.register  # as LangChain's is (isinstance and issubclass)
class _Configurable(Runnable[Input, Output]):
    """Shared plumbing: pick the runnable for a config, then delegate every call to it."""

    default: Runnable[Input, Output]

    def _prepare(self, config: RunnableConfig) -> Runnable[Input, Output]:
        raise NotImplementedError

    def _target_config(self, config: Any) -> Any:
        """The config (or list of configs) passed on to the chosen runnable."""
        return config

    def get_name(self) -> str:
        """The default runnable's name."""
        return self.name or self.default.get_name()

    def _config_title(self) -> str:
        # LangChain's config schema is named after the configurable class itself
        return f"{self.name or type(self).__name__}Config"

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.default._input_json(defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.default._output_json(defs)

    def _input_title(self) -> str:
        return self.default._input_title()

    def _output_title(self) -> str:
        return self.default._output_title()

    def _resolve(self, config: RunnableConfig | None) -> tuple[Runnable[Input, Output], bool]:
        """Return the runnable to call and whether this call is the root that checked ids."""
        full = ensure_config(config)
        if _configurable_checked.get():
            return self._prepare(full), False
        root = CallbackManager.configure(full).parent_run_id is None
        if root:
            self._check_configurable(full, CallbackManager.configure(full))
        return self._prepare(full), root

    def _call(
        self,
        method: str,
        input: Any,
        config: Any,
        *,
        select: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Any:
        target, root = self._resolve(select if select is not None else config)
        token = _configurable_checked.set(True) if root else None
        try:
            return getattr(target, method)(input, self._target_config(config), **kwargs)
        finally:
            if token is not None:
                _configurable_checked.reset(token)

    async def _acall(
        self, method: str, input: Any, config: RunnableConfig | None, **kwargs: Any
    ) -> Any:
        target, root = self._resolve(config)
        token = _configurable_checked.set(True) if root else None
        try:
            return await getattr(target, method)(input, self._target_config(config), **kwargs)
        finally:
            if token is not None:
                _configurable_checked.reset(token)

    def invoke(self, input: Input, config: RunnableConfig | None = None, **kwargs: Any) -> Output:
        """Invoke the runnable the config selects."""
        return self._call("invoke", input, config, **kwargs)

    async def ainvoke(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Output:
        """Async ``invoke``."""
        return await self._acall("ainvoke", input, config, **kwargs)

    def batch(
        self,
        inputs: Sequence[Input],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Output]:
        """Batch; when every config selects the default runnable itself, its batch fast
        path; otherwise each input is invoked on its own, as LangChain's (a configured
        copy per input: no state of one call reaches the next)."""
        configs = get_config_list(config, len(inputs))
        same = all(c.get("configurable") == configs[0].get("configurable") for c in configs)
        if same and (not configs or self._selects_default(ensure_config(configs[0]))):
            return self._call(
                "batch",
                inputs,
                configs,
                select=configs[0] if configs else {},
                return_exceptions=return_exceptions,
                **kwargs,
            )
        return super().batch(inputs, configs, return_exceptions=return_exceptions, **kwargs)

    def _selects_default(self, config: RunnableConfig) -> bool:
        """Whether ``config`` selects the default runnable itself."""
        return self._prepare(config) is self.default

    def stream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Output]:
        """Stream the runnable the config selects."""
        target, root = self._resolve(config)
        iterator = iter(target.stream(input, self._target_config(config), **kwargs))
        while True:
            token = _configurable_checked.set(True) if root else None
            try:
                chunk = next(iterator)
            except StopIteration:
                return
            finally:
                if token is not None:
                    _configurable_checked.reset(token)
            yield chunk

    async def astream(
        self, input: Input, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Output]:
        """Async ``stream``."""
        target, root = self._resolve(config)
        iterator = target.astream(input, self._target_config(config), **kwargs).__aiter__()
        try:
            while True:
                token = _configurable_checked.set(True) if root else None
                try:
                    chunk = await iterator.__anext__()
                except StopAsyncIteration:
                    return
                finally:
                    if token is not None:
                        _configurable_checked.reset(token)
                yield chunk
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:  # closed early: close the chosen runnable's stream now
                await aclose()

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The graph of the runnable ``config`` selects (the default without one)."""
        full = ensure_config(config)
        return self._prepare(full).get_graph(full)


class RunnableConfigurableFields(_Configurable[Input, Output]):
    """A runnable whose attributes can be set per call (``configurable_fields``).

    Raises:
        ConfigurationError: a field that is not a ConfigurableField.
        ValueError: an attribute the runnable does not have (names its public
            attributes); a plain ValueError, as LangChain raises.

    Example:
        >>> from ragline.core import ConfigurableField, Runnable
        >>> class Scale(Runnable):
        ...     def __init__(self):
        ...         self.factor = 2
        ...     def invoke(self, input, config=None, **kwargs):
        ...         return self._call_with_config(lambda x: x * self.factor, input, config)
        >>> scale = Scale().configurable_fields(factor=ConfigurableField(id="factor"))
        >>> scale.invoke(5), scale.invoke(5, {"configurable": {"factor": 10}}), scale.invoke(5)
        (10, 50, 10)
    """

    def __init__(
        self, default: Runnable[Input, Output], fields: Mapping[str, AnyConfigurableField]
    ) -> None:
        if not fields:
            raise ConfigurationError(
                "configurable_fields needs at least one field=ConfigurableField(...)"
            )
        attributes = sorted(k for k in vars(default) if not k.startswith("_"))
        for attribute, field in fields.items():
            if not isinstance(field, _FIELD_KINDS):
                raise ConfigurationError(
                    f"configurable_fields({attribute}=...) needs a ConfigurableField, got "
                    f"{type(field).__name__} (a ConfigurableFieldSingleOption or "
                    "ConfigurableFieldMultiOption also works)"
                )
            if not hasattr(default, attribute):
                # a plain ValueError, the class LangChain raises here (parity)
                raise ValueError(
                    f"{default.get_name()} has no attribute {attribute!r} to make configurable; "
                    f"its attributes are {', '.join(attributes)}"
                )
        self.default = default
        self.fields = dict(fields)

    def __repr__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return f"RunnableConfigurableFields({self._printed(', ')})"

    def __str__(self) -> str:
        return self._printed(" ")

    def _printed(self, separator: str) -> str:
        return printed_fields(self.name, separator, default=self.default, fields=self.fields)

    def _children(self) -> list[Runnable[Any, Any]]:
        return [self.default]

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:  # type: ignore[override]
        """This runnable's fields (their default: the current value), then those of the
        runnables inside it."""
        specs: dict[str, Any] = {
            field.id: _option_spec(field)
            if not isinstance(field, ConfigurableField)
            else ConfigurableFieldSpec(
                field.id,
                name=field.name,
                description=field.description,
                default=getattr(self.default, attribute, None),
                annotation=field.annotation or _declared_type(type(self.default), attribute),
                is_shared=field.is_shared,
            )
            for attribute, field in self.fields.items()
        }
        for spec in super().config_specs:
            specs.setdefault(spec.id, spec)
        return _specs_by_id(specs)

    def _prepare(self, config: RunnableConfig) -> Runnable[Input, Output]:
        values = config.get("configurable") or {}
        changes = {}
        for attribute, field in self.fields.items():
            if isinstance(field, ConfigurableFieldSingleOption):
                # the default option applies to every call, as in LangChain
                changes[attribute] = _option(field, values.get(field.id) or field.default)
            elif isinstance(field, ConfigurableFieldMultiOption):
                keys = values.get(field.id, field.default)
                changes[attribute] = [_option(field, key) for key in keys]
            elif field.id in values:
                changes[attribute] = values[field.id]
        if not changes:
            return self.default
        configured = copy.copy(self.default)  # the default itself is never changed
        for attribute, value in changes.items():
            if type(value) is int and is_float_annotation(
                _declared_type(type(self.default), attribute)
            ):
                changes[attribute] = float(value)  # as LangChain's pydantic rebuild does
        # A class whose fields are checked against each other (a retriever's search_type
        # and search_kwargs) takes them in one step, as LangChain's model is rebuilt with
        # all of them before its validators run; others get one assignment per field.
        assign_fields = getattr(configured, "_assign_fields", None)
        if assign_fields is not None:
            assign_fields(changes)
        else:
            for attribute, value in changes.items():
                setattr(configured, attribute, value)
        return configured


class RunnableConfigurableAlternatives(_Configurable[Input, Output]):
    """Choose between whole runnables per call (``configurable_alternatives``).

    Raises:
        ConfigurationError: ``default_key`` clashes with an alternative's key.
        ValueError: (at invoke time) a chosen key that is not an option (names the
            options); a plain ValueError, as LangChain raises.

    Example:
        >>> from ragline.core import ConfigurableField, RunnableLambda
        >>> greet = RunnableLambda(lambda n: f"hello {n}").configurable_alternatives(
        ...     ConfigurableField(id="style"), default_key="plain",
        ...     loud=RunnableLambda(lambda n: f"HELLO {n.upper()}"))
        >>> greet.invoke("ann"), greet.invoke("ann", {"configurable": {"style": "loud"}})
        ('hello ann', 'HELLO ANN')
    """

    def __init__(
        self,
        which: ConfigurableField,
        default: Runnable[Input, Output],
        alternatives: dict[str, Any],
        *,
        default_key: str = "default",
        prefix_keys: bool = False,
    ) -> None:
        if not isinstance(which, ConfigurableField):
            raise ConfigurationError(
                "configurable_alternatives needs a ConfigurableField first, got "
                f"{type(which).__name__}"
            )
        if default_key in alternatives:
            raise ConfigurationError(
                f"alternative key {default_key!r} is already the default_key; rename it or pass "
                "another default_key"
            )
        # No alternative besides the default is allowed (LangChain's is): the choice then
        # has one option, and the app adds alternatives later without touching its callers.
        self.which = which
        self.default = default
        self.default_key = default_key
        self.prefix_keys = prefix_keys
        # an option is a runnable, or (as LangChain's) a function of no arguments that
        # builds one each time its key is chosen; any other callable is wrapped as a step
        self.alternatives: dict[str, Any] = {
            key: value if _is_factory(value) else coerce_to_runnable(value)
            for key, value in alternatives.items()
        }
        if any(_is_factory(value) for value in self.alternatives.values()):
            # what a factory builds is not known ahead: its ids are let through, as
            # LangChain lets through every id
            self._takes_run_config = True

    def __repr__(self) -> str:  # LangChain's: its fields, as a pydantic model prints them
        return f"RunnableConfigurableAlternatives({self._printed(', ')})"

    def __str__(self) -> str:
        return self._printed(" ")

    def _printed(self, separator: str) -> str:
        # default_key shows when it is not its default; prefix_keys (required in
        # LangChain's model) always shows
        keys = {"default_key": self.default_key} if self.default_key != "default" else {}
        return printed_fields(
            self.name,
            separator,
            default=self.default,
            which=self.which,
            alternatives=self.alternatives,
            **keys,
            prefix_keys=self.prefix_keys,
        )

    @property
    def options(self) -> list[str]:
        """Every key that may be chosen, default first."""
        return [self.default_key, *self.alternatives]

    def _children(self) -> list[Runnable[Any, Any]]:
        built = [value for value in self.alternatives.values() if isinstance(value, Runnable)]
        return [self.default, *built]

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:  # type: ignore[override]
        """The choice itself (with its options, the default key its default), then the
        alternatives' own fields."""
        choice = ConfigurableFieldSpec(
            self.which.id,
            annotation=_choice_enum(
                self.which.name or self.which.id, (*self.alternatives, self.default_key)
            ),
            name=self.which.name,
            description=self.which.description,
            default=self.default_key,
            options=tuple(self.options),
        )
        specs: dict[str, Any] = {choice.id: choice}
        if not self.prefix_keys:
            for spec in super().config_specs:
                specs.setdefault(spec.id, spec)
            return _specs_by_id(specs)
        options = [(self.default_key, self.default), *self.alternatives.items()]
        for key, option in options:
            if not isinstance(option, Runnable):  # a factory: its specs are not known
                continue
            for spec in option.config_specs:
                if not getattr(spec, "is_shared", False):  # shared: one for the whole tree
                    spec = dataclasses.replace(spec, id=f"{self._prefix(key)}{spec.id}")
                specs.setdefault(spec.id, spec)
        return _specs_by_id(specs)

    def _prefix(self, key: str) -> str:
        return f"{self.which.id}=={key}/"

    def _target_config(self, config: Any) -> Any:
        """With ``prefix_keys``: the chosen option's prefixed values under their own ids."""
        if not self.prefix_keys:
            return config
        if isinstance(config, list):
            return [self._target_config(one) for one in config]
        config = ensure_config(config)
        values = config.get("configurable") or {}
        prefix = self._prefix(values.get(self.which.id, self.default_key))
        unprefixed = {key.removeprefix(prefix): value for key, value in values.items()}
        return {**config, "configurable": unprefixed}

    def _selects_default(self, config: RunnableConfig) -> bool:
        # the key alone (a factory is not called to answer); an unknown key raises here
        key = (config.get("configurable") or {}).get(self.which.id, self.default_key)
        if key != self.default_key and key not in self.alternatives:
            self._prepare(config)
        return bool(key == self.default_key)

    def _prepare(self, config: RunnableConfig) -> Runnable[Input, Output]:
        key = (config.get("configurable") or {}).get(self.which.id, self.default_key)
        if key == self.default_key:
            return self.default
        if key not in self.alternatives:
            # a plain ValueError, the class LangChain raises here (parity)
            raise ValueError(
                f"configurable {self.which.id!r} got {key!r}; options are "
                f"{', '.join(map(repr, self.options))}"
            )
        option = self.alternatives[key]
        return option if isinstance(option, Runnable) else option()


def _is_factory(value: Any) -> bool:
    """Whether an alternative is a function that builds the runnable: a callable, not a
    runnable, that takes no arguments."""
    if isinstance(value, Runnable) or not callable(value):
        return False
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):  # a builtin without a signature
        return False
    return all(
        parameter.default is not parameter.empty
        or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        for parameter in signature.parameters.values()
    )


@functools.lru_cache(maxsize=256)
def _declared_type(cls: type[Any], attribute: str) -> Any:
    """The type ``attribute`` is declared with: on the class, else as the constructor's
    parameter of that name (LangChain's spec carries the model field's type); None when
    neither declares it or a hint does not resolve. Found once per class and attribute:
    resolving the hints is most of a configured root call, which lists its specs."""
    for owner in (cls, cls.__init__):
        try:
            hints = typing.get_type_hints(owner)
        except Exception:  # a hint naming something not importable here
            continue
        if attribute in hints:
            return hints[attribute]
    return None


def _option(field: ConfigurableFieldSingleOption | ConfigurableFieldMultiOption, key: Any) -> Any:
    """The value of option ``key`` (a KeyError naming the options, as LangChain's is a
    KeyError)."""
    try:
        return field.options[key]
    except (KeyError, TypeError):
        raise KeyError(
            f"{key!r} is not an option of configurable field {field.id!r}; the options are "
            f"{', '.join(map(repr, field.options))}"
        ) from None


def _option_spec(
    field: ConfigurableFieldSingleOption | ConfigurableFieldMultiOption,
) -> ConfigurableFieldSpec:
    """LangChain's spec of an option field: an Enum of the option keys (a Sequence of it
    for a multi option), the default key(s)."""
    choice = _choice_enum(field.name or field.id, tuple(field.options))
    multi = isinstance(field, ConfigurableFieldMultiOption)
    return ConfigurableFieldSpec(
        field.id,
        annotation=Sequence[choice] if multi else choice,  # type: ignore[valid-type]
        name=field.name,
        description=field.description,
        default=field.default,
        is_shared=field.is_shared,
    )

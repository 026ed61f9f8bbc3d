"""Declared fields: a keyword constructor from class annotations, without pydantic.

LangChain's models, retrievers, tools, chains and memories are pydantic models, so code
written for them declares its options as annotated class attributes and constructs by
keyword::

    class CustomLLM(LLM):
        n: int
        temperature: float = 0.0

    CustomLLM(n=30)

ragline's bases that users subclass this way inherit from :class:`Fields`, which gives
the same shape with plain Python: each class that declares fields and writes no
``__init__`` of its own gets one that takes its fields by keyword (defaults applied,
mutable defaults copied per instance), sets them, and passes every other keyword to the
next ``__init__`` up the class chain. A class may still write its own ``__init__``;
subclasses below it declare fields as before. A subclass may give an inherited field a
new default, annotated (``name: str = "weather"``) or not (``name = "weather"``, the
pydantic-v1 style many LangChain examples use); the base's ``__init__`` then uses it.
Nothing is type-checked (that is pydantic's job, and pydantic stays optional), and one
thing is coerced as pydantic does: an ``int`` given for a field annotated ``float`` (or
``float | None``) is stored as a ``float``, so ``temperature=0`` reads back ``0.0``. A
missing required field is a ``TypeError`` naming the class and its fields, and so is an
unknown keyword, unless the class sets ``__ragline_extra__ = "ignore"``: then it is
dropped with a ``UserWarning`` naming it and the fields. The bases whose LangChain
namesakes are pydantic models that drop unknown keywords (models, retrievers, tools,
output parsers, chat histories, memories) set it, so a program that passes a stray
keyword runs as it does there and hears about it; chains refuse them, as LangChain's do.

Example:
    >>> class Greeter(Fields):
    ...     greeting: str = "hello"
    ...     names: list[str] = []
    >>> class Loud(Greeter):
    ...     volume: int
    >>> g = Loud(volume=11, names=["ada"])
    >>> g.greeting, g.names, g.volume
    ('hello', ['ada'], 11)
    >>> Loud(names=[])
    Traceback (most recent call last):
    ...
    TypeError: Loud() missing required field 'volume'
"""

from __future__ import annotations

import copy
import inspect
import sys
import typing
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "Field",
    "FieldSpec",
    "Fields",
    "constructor_stacklevel",
    "declared_fields",
    "is_float_annotation",
    "user_stacklevel",
    "warn_ignored_keywords",
]

_MISSING: Any = object()
_MUTABLE = (list, dict, set, bytearray)


@dataclass(frozen=True)
class FieldSpec:
    """One declared field: its name, default (or factory) and description."""

    name: str
    default: Any = _MISSING
    default_factory: Callable[[], Any] | None = None
    description: str | None = None
    alias: str | None = None

    @property
    def required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def make_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        if isinstance(self.default, _MUTABLE):
            return copy.copy(self.default)
        return self.default


class _FieldMarker:
    """What :func:`Field` returns: read when the class is created, then removed."""

    __slots__ = ("alias", "default", "default_factory", "description")

    def __init__(
        self, default: Any, default_factory: Any, description: str | None, alias: str | None
    ) -> None:
        self.default, self.default_factory, self.description, self.alias = (
            default,
            default_factory,
            description,
            alias,
        )


def Field(
    default: Any = _MISSING,
    *,
    default_factory: Callable[[], Any] | None = None,
    description: str | None = None,
    alias: str | None = None,
) -> Any:
    """Declare a field's default, default factory, description or alias.

    The constructor takes a field by its name or by its ``alias`` (pydantic's
    ``Field(alias=...)`` with LangChain's models' ``populate_by_name``).

    Example:
        >>> class Box(Fields):
        ...     items: list[int] = Field(default_factory=lambda: [1])
        ...     label: str = Field("box", alias="name")
        >>> Box().items, Box(name="crate").label
        ([1], 'crate')
    """
    if default is not _MISSING and default_factory is not None:
        raise TypeError("Field() takes a default or a default_factory, not both")
    return _FieldMarker(default, default_factory, description, alias)


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _is_method_like(value: Any) -> bool:
    return isinstance(value, (property, classmethod, staticmethod)) or inspect.isfunction(value)


def _spec(name: str, value: Any) -> FieldSpec:
    if isinstance(value, _FieldMarker):
        return FieldSpec(name, value.default, value.default_factory, value.description, value.alias)
    if type(value).__name__ == "FieldInfo":  # a pydantic Field(...) in a class of ours
        factory = getattr(value, "default_factory", None)
        default = getattr(value, "default", _MISSING)
        if factory is not None or repr(default) == "PydanticUndefined":
            default = _MISSING
        alias = getattr(value, "alias", None)
        return FieldSpec(
            name,
            default,
            factory,
            getattr(value, "description", None),
            alias if isinstance(alias, str) else None,
        )
    return FieldSpec(name, value)


def _own_fields(cls: type, inherited: dict[str, FieldSpec]) -> dict[str, FieldSpec]:
    """The fields ``cls`` itself declares or re-defaults (not its bases' declarations)."""
    annotations = inspect.get_annotations(cls)
    names = [name for name, annotation in annotations.items() if not _is_class_var(annotation)]
    # an unannotated class attribute over an inherited field is a new default for it
    names += [name for name in inherited if name in cls.__dict__ and name not in annotations]
    fields: dict[str, FieldSpec] = {}
    for name in names:
        if name.startswith("_"):
            continue
        value = cls.__dict__.get(name, _MISSING)
        if _is_method_like(value):
            continue
        spec = _spec(name, value)
        if isinstance(value, _FieldMarker):  # the class attribute becomes the plain default
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        fields[name] = spec
    return fields


def declared_fields(cls: type) -> dict[str, FieldSpec]:
    """Every field ``cls`` and its bases declare, base classes first."""
    fields: dict[str, FieldSpec] = {}
    for klass in reversed(cls.__mro__):
        fields.update(klass.__dict__.get("__ragline_fields__", {}))
    return fields


def changed_fields(instance: Any, *, factory_means_none: bool = False) -> list[str]:
    """``name=repr(value)`` of the fields of ``instance`` that differ from their defaults,
    in declaration order: what a pydantic model prints, which LangChain's classes are.

    A required field always counts as changed. A field with a default factory defaults
    to what the factory returns, or, with ``factory_means_none``, to ``None`` (so it is
    always shown: LangChain's memories print their ``chat_memory`` so). A value whose
    comparison with its default is not a bool (an array) counts as changed unless it is
    the default itself.
    """
    parts = []
    for name, spec in declared_fields(type(instance)).items():
        value = instance.__dict__.get(name, _MISSING)
        if value is _MISSING:
            continue
        if not spec.required:
            if spec.default_factory is None:
                default = spec.default
            else:
                default = None if factory_means_none else spec.default_factory()
            try:
                same = bool(value == default)
            except Exception:  # a comparison that is not a bool
                same = value is default
            if same:
                continue
        parts.append(f"{name}={value!r}")
    return parts


# float and float | None as string annotations (``from __future__ import annotations``
# keeps the source text, spaced as Python prints it)
_FLOAT_SPELLINGS = frozenset(
    {"float", "float | None", "None | float"}
    | {
        f"{prefix}{form}"
        for prefix in ("", "typing.")
        for form in ("Optional[float]", "Union[float, None]", "Union[None, float]")
    }
)


def is_float_annotation(annotation: Any) -> bool:
    """True for ``float`` and ``float | None`` (as a type or as a string annotation)."""
    if annotation is float:
        return True
    if isinstance(annotation, str):
        return annotation.strip() in _FLOAT_SPELLINGS
    args = typing.get_args(annotation)
    return float in args and all(arg is float or arg is type(None) for arg in args)


def _given_as(name: str, spec: FieldSpec, kwargs: dict[str, Any]) -> str | None:
    """The keyword ``kwargs`` gives field ``name`` by: its name, else its alias."""
    if name in kwargs:
        return name
    if spec.alias is not None and spec.alias in kwargs:
        return spec.alias
    return None


def constructor_stacklevel(instance: Any) -> int:
    """The ``warnings.warn`` stacklevel, seen from the function calling this, of the frame
    that constructed ``instance``: the first frame out from that function's caller that is
    neither one of ``instance``'s ``__init__`` methods (or a wrapper of one) nor ragline's
    own code (a factory such as ``StructuredTool.from_function``): the user's line."""
    level, frame = 2, sys._getframe(2)
    while frame.f_back is not None and (
        frame.f_locals.get("self") is instance
        or frame.f_globals.get("__name__", "").startswith("ragline.")
    ):
        level, frame = level + 1, frame.f_back
    return level


def user_stacklevel() -> int:
    """The ``warnings.warn`` stacklevel, seen from the function calling this, of the first
    frame out from that function's caller that is not ragline's own code: the user's line."""
    level, frame = 2, sys._getframe(2)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("ragline."):
        level, frame = level + 1, frame.f_back
    return level


def warn_ignored_keywords(
    instance: Any, ignored: Iterable[str], fields: Iterable[str], advice: str = ""
) -> None:
    """Warn, at the line that built ``instance``, that its constructor dropped the
    keywords ``ignored``, naming its ``fields`` (and ``advice``, a sentence, after them)."""
    unknown = ", ".join(repr(name) for name in ignored)
    names = ", ".join(sorted(fields)) or "none"
    warnings.warn(
        f"{type(instance).__name__}() ignores {unknown}: not among its fields ({names})"
        + (f"; {advice}" if advice else ""),
        UserWarning,
        stacklevel=constructor_stacklevel(instance),
    )


def _make_init(cls: Any, own: list[str], floats: frozenset[str]) -> Callable[..., None]:
    def __init__(self: Any, **kwargs: Any) -> None:
        specs = type(self).__ragline_all_fields__  # a subclass may have re-defaulted a field
        for name in own:
            given = _given_as(name, specs[name], kwargs)
            if given is not None:
                value = kwargs.pop(given)
                if type(value) is int and name in floats:  # pydantic's int -> float
                    value = float(value)
            elif specs[name].required:
                raise TypeError(f"{type(self).__name__}() missing required field {name!r}")
            else:
                value = specs[name].make_default()
            object.__setattr__(self, name, value)
        super(cls, self).__init__(**kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__ragline_generated__ = True  # type: ignore[attr-defined]
    return __init__


class Fields:
    """Base of classes whose annotated class attributes are keyword constructor fields.

    See the module docstring. ``__post_init__``, when a class defines it, runs once after
    every field is set (by the outermost generated ``__init__``).
    """

    __ragline_fields__: ClassVar[dict[str, FieldSpec]] = {}
    __ragline_all_fields__: ClassVar[dict[str, FieldSpec]] = {}
    # fields declared by a class with its own __init__ (no generated one sets them):
    # name -> annotated float
    __ragline_orphan_fields__: ClassVar[dict[str, bool]] = {}
    # a keyword that names no field: "forbid" raises TypeError, "ignore" drops it with a
    # UserWarning (see the module docstring)
    __ragline_extra__: ClassVar[str] = "forbid"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        inherited = declared_fields(cls)  # the bases' fields (cls has none registered yet)
        own = _own_fields(cls, inherited)
        cls.__ragline_fields__ = own
        cls.__ragline_all_fields__ = declared_fields(cls)
        # The generated __init__ sets only the fields no base declares; the bases' own
        # __init__ set the others, with the most derived default.
        new = [name for name in own if name not in inherited]
        annotations = inspect.get_annotations(cls) if new else {}
        floats = frozenset(name for name in new if is_float_annotation(annotations.get(name)))
        if new and "__init__" not in cls.__dict__:
            cls.__init__ = _make_init(cls, new, floats)  # type: ignore[method-assign]
        elif new:
            # A hand-written __init__ passes these up with super().__init__(name=...), as
            # pydantic takes them: Fields.__init__ sets them (see _set_orphan_fields).
            cls.__ragline_orphan_fields__ = {
                **cls.__ragline_orphan_fields__,
                **{name: name in floats for name in new},
            }

    def __init__(self, **kwargs: Any) -> None:
        if type(self).__ragline_orphan_fields__:
            self._set_orphan_fields(kwargs)
        if kwargs:
            names = ", ".join(sorted(declared_fields(type(self)))) or "none"
            unknown = ", ".join(repr(name) for name in kwargs)
            if type(self).__ragline_extra__ != "ignore":
                raise TypeError(
                    f"{type(self).__name__}() got unexpected keyword argument(s) {unknown}; "
                    f"its fields are: {names}"
                )
            warn_ignored_keywords(self, kwargs, declared_fields(type(self)))
        super().__init__()
        post_init = getattr(self, "__post_init__", None)
        if post_init is not None:
            post_init()

    def _set_orphan_fields(self, kwargs: dict[str, Any]) -> None:
        """Set the fields of classes with a hand-written ``__init__`` from ``kwargs``
        (taking them out). One not given keeps what that ``__init__`` set, else reads its
        class attribute; only a factory or mutable default is made here (a fresh one per
        instance). A required one not given is left to that ``__init__``."""
        specs = type(self).__ragline_all_fields__
        for name, is_float in type(self).__ragline_orphan_fields__.items():
            given = _given_as(name, specs[name], kwargs)
            if given is not None:
                value = kwargs.pop(given)
                if is_float and type(value) is int:  # pydantic's int -> float
                    value = float(value)
            else:
                spec = specs[name]
                fresh = spec.default_factory is not None or isinstance(spec.default, _MUTABLE)
                if not fresh or name in self.__dict__:
                    continue
                value = spec.make_default()
            object.__setattr__(self, name, value)

"""The check of a tool call's arguments against a JSON Schema, written once.

A schema compiles to a checker ``check(value, path) -> converted value`` that converts
the way pydantic's lax mode does where a model's JSON is loose (``"3"`` for an integer,
``3`` for a number, ``"true"`` for a boolean) and raises :class:`Invalid` naming the
argument path and the problem. Function parameters typed with a dataclass, a pydantic
model or another class get a *hydrator* as well, which builds (or ``isinstance``-checks)
the object the function expects from the checked JSON value.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["Invalid", "compile_check", "is_pydantic_model", "is_typeddict"]

_BUILTIN_TYPES = frozenset({str, int, float, bool, bytes, list, tuple, set, frozenset, dict,
                            type(None)})  # fmt: skip


def is_pydantic_model(cls: Any) -> bool:
    return isinstance(cls, type) and any(
        klass.__module__.startswith("pydantic") and klass.__name__ == "BaseModel"
        for klass in cls.__mro__
    )


def is_typeddict(cls: type) -> bool:
    # typing's and typing_extensions' TypedDicts (typing.is_typeddict knows only its own)
    return issubclass(cls, dict) and hasattr(cls, "__required_keys__")


class Invalid(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_TRUE = {"true", "1", "yes", "on", "y", "t"}
_FALSE = {"false", "0", "no", "off", "n", "f"}


def _to_integer(value: Any, path: str) -> int:
    if isinstance(value, bool):
        raise Invalid(path, f"expected an integer, got {_describe(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise Invalid(path, f"expected an integer, got {_describe(value)}")


def _to_number(value: Any, path: str) -> float | int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            pass
        else:
            return int(number) if number.is_integer() and "." not in value else number
    raise Invalid(path, f"expected a number, got {_describe(value)}")


def _to_boolean(value: Any, path: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise Invalid(path, f"expected a boolean, got {_describe(value)}")


def _to_string(value: Any, path: str) -> str:
    if isinstance(value, str):
        return value
    raise Invalid(path, f"expected a string, got {_describe(value)}")


def _to_null(value: Any, path: str) -> None:
    if value is None:
        return None
    raise Invalid(path, f"expected null, got {_describe(value)}")


def _to_array(value: Any, path: str) -> list[Any]:
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    raise Invalid(path, f"expected an array, got {_describe(value)}")


def _to_object(value: Any, path: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise Invalid(path, f"expected an object, got {_describe(value)}")


_CONVERTERS: dict[str, Callable[[Any, str], Any]] = {
    "integer": _to_integer,
    "number": _to_number,
    "boolean": _to_boolean,
    "string": _to_string,
    "null": _to_null,
    "array": _to_array,
    "object": _to_object,
}


def _to_float(value: Any, path: str) -> float:
    number = _to_number(value, path)
    try:
        return float(number)
    except OverflowError:  # an integer past float's range: refused, as pydantic does
        raise Invalid(path, f"expected a number a float can hold, got {_describe(value)}") from None


_PYTHON_CONVERTERS = {**_CONVERTERS, "number": _to_float}


def compile_check(
    schema: Any, annotation: Any = None, *, python_floats: bool = False
) -> Callable[[Any, str], Any]:
    """A checker ``check(value, path) -> converted value`` for one JSON Schema.

    ``annotation`` (the Python type, for function parameters) turns checked objects into
    the dataclass or pydantic instances the function expects, and checks plain classes
    with ``isinstance``. ``python_floats`` says the schema was written from Python
    annotations, where ``"number"`` is ``float``: an integer given for it becomes a float,
    as pydantic's lax mode makes it (``3`` -> ``3.0``), while ``float | int`` keeps ``3``.
    """
    converters = _PYTHON_CONVERTERS if python_floats else _CONVERTERS
    check = _compile_schema(schema if isinstance(schema, dict) else {}, converters)
    if annotation is None:
        return check
    hydrate = _hydrator(annotation)
    if hydrate is None:
        return check

    def checked_and_hydrated(value: Any, path: str) -> Any:
        return hydrate(check(value, path), path)

    return checked_and_hydrated


_Converters = Mapping[str, Callable[[Any, str], Any]]


def _compile_schema(
    schema: dict[str, Any], converters: _Converters = _CONVERTERS
) -> Callable[[Any, str], Any]:
    steps: list[Callable[[Any, str], Any]] = []
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        steps.append(_union([_compile_schema(option, converters) for option in options]))
    kind = schema.get("type")
    if isinstance(kind, list):
        steps.append(_union([_compile_schema({**schema, "type": one}, converters) for one in kind]))
    elif isinstance(kind, str) and kind in converters:
        steps.append(converters[kind])
        if kind == "array":
            steps.append(_array_items(schema, converters))
        elif kind == "object" and ("properties" in schema or "additionalProperties" in schema):
            steps.append(_object_members(schema, converters))
        steps.extend(_bounds(schema, kind))
    if "enum" in schema or "const" in schema:
        steps.append(_one_of_values(schema["enum"] if "enum" in schema else [schema["const"]]))
    if not steps:
        return _anything
    if len(steps) == 1:
        return steps[0]

    def run_steps(value: Any, path: str) -> Any:
        for step in steps:
            value = step(value, path)
        return value

    return run_steps


def _anything(value: Any, path: str) -> Any:
    return value


def _union(options: list[Callable[[Any, str], Any]]) -> Callable[[Any, str], Any]:
    def check(value: Any, path: str) -> Any:
        # An exact match first (so "3" stays a string under str | int), then conversions.
        failures: list[Invalid] = []
        for option in options:
            try:
                converted = option(value, path)
            except Invalid as err:
                failures.append(err)
                continue
            if converted == value and type(converted) is type(value):
                return converted
        for option in options:
            try:
                return option(value, path)
            except Invalid:
                continue
        if value is not None:  # "expected null" says nothing about a value that is not None
            failures = [f for f in failures if not f.problem.startswith("expected null")]
        # an option that failed below the value (a key, an item) fits its shape: its
        # problem is the one to report, not the other options' "expected a string"
        failures = [f for f in failures if f.path != path] or failures
        if len(failures) == 1:
            raise failures[0]
        raise Invalid(path, " or ".join(dict.fromkeys(f.problem for f in failures)))

    return check


def _one_of_values(values: list[Any]) -> Callable[[Any, str], Any]:
    def check(value: Any, path: str) -> Any:
        for allowed in values:
            if value == allowed and type(value) is type(allowed):
                return value
        for allowed in values:  # "1" for 1, as the other conversions allow
            if str(value) == str(allowed):
                return allowed
        raise Invalid(
            path, f"expected one of {', '.join(map(repr, values))}, got {_describe(value)}"
        )

    return check


def _array_items(schema: dict[str, Any], converters: _Converters) -> Callable[[Any, str], Any]:
    items = (
        _compile_schema(schema["items"], converters)
        if isinstance(schema.get("items"), dict)
        else None
    )
    prefix = [_compile_schema(s, converters) for s in schema.get("prefixItems", [])]
    unique = bool(schema.get("uniqueItems"))

    def check(value: list[Any], path: str) -> list[Any]:
        checked = []
        for position, item in enumerate(value):
            step = prefix[position] if position < len(prefix) else items
            checked.append(item if step is None else step(item, f"{path}[{position}]"))
        if unique and len({repr(item) for item in checked}) != len(checked):
            raise Invalid(path, "expected unique items")
        return checked

    return check


def _object_members(schema: dict[str, Any], converters: _Converters) -> Callable[[Any, str], Any]:
    members = {
        name: _compile_schema(prop, converters)
        for name, prop in schema.get("properties", {}).items()
    }
    required = list(schema.get("required", []))
    additional = schema.get("additionalProperties", True)
    extra = _compile_schema(additional, converters) if isinstance(additional, dict) else None

    def check(value: dict[str, Any], path: str) -> dict[str, Any]:
        for name in required:
            if name not in value:
                raise Invalid(f"{path}.{name}", "missing (required)")
        checked = {}
        for name, item in value.items():
            step = members.get(name, extra)
            if step is None and name not in members and additional is False:
                raise Invalid(f"{path}.{name}", "unexpected key")
            checked[name] = item if step is None else step(item, f"{path}.{name}")
        return checked

    return check


def _bounds(schema: dict[str, Any], kind: str) -> list[Callable[[Any, str], Any]]:
    rules: list[tuple[str, Callable[[Any, Any], bool], str]] = []
    if kind in ("integer", "number"):
        rules = [
            ("minimum", lambda v, b: v >= b, ">="),
            ("maximum", lambda v, b: v <= b, "<="),
            ("exclusiveMinimum", lambda v, b: v > b, ">"),
            ("exclusiveMaximum", lambda v, b: v < b, "<"),
        ]
    elif kind in ("string", "array"):
        noun = "characters" if kind == "string" else "items"
        rules = [
            ("minLength" if kind == "string" else "minItems", lambda v, b: len(v) >= b,
             f"at least this many {noun}:"),
            ("maxLength" if kind == "string" else "maxItems", lambda v, b: len(v) <= b,
             f"at most this many {noun}:"),
        ]  # fmt: skip
    steps = []
    for key, holds, words in rules:
        if key in schema:
            steps.append(_bound(schema[key], holds, words))
    if kind == "string" and "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        steps.append(
            _bound(pattern, lambda v, p: p.search(v) is not None, f"to match {pattern.pattern!r}")
        )
    return steps


def _bound(limit: Any, holds: Callable[[Any, Any], bool], words: str) -> Callable[[Any, str], Any]:
    shown = "" if isinstance(limit, re.Pattern) else f" {limit}"

    def check(value: Any, path: str) -> Any:
        if not holds(value, limit):
            raise Invalid(path, f"expected {words}{shown}, got {_describe(value)}")
        return value

    return check


def _hydrator(annotation: Any) -> Callable[[Any, str], Any] | None:
    """Turn checked JSON-like values into the Python objects a parameter's type asks for."""
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _hydrator(arguments[0])
    if origin is typing.Union or origin is types.UnionType:
        members = [(member, _hydrator(member)) for member in arguments]
        if all(hydrate is None for _, hydrate in members):
            return None

        def first_fitting(value: Any, path: str) -> Any:
            for _, hydrate in members:
                if hydrate is None:
                    continue
                try:
                    return hydrate(value, path)
                except Invalid:
                    continue
            return value

        return first_fitting
    if origin in (list, Sequence, typing.Sequence, set, frozenset) and arguments:
        inner = _hydrator(arguments[0])
        if inner is None:
            return None
        return lambda value, path: [inner(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if annotation is Any or annotation is object:
        return None
    if isinstance(annotation, type) and annotation not in _BUILTIN_TYPES:
        return _class_hydrator(annotation)
    return None


def _class_hydrator(cls: type) -> Callable[[Any, str], Any] | None:
    if issubclass(cls, enum.Enum):
        return lambda value, path: cls(value)
    if is_pydantic_model(cls):

        def to_model(value: Any, path: str) -> Any:
            if isinstance(value, cls):
                return value
            try:
                validate = getattr(cls, "model_validate", None) or cls.parse_obj  # type: ignore[attr-defined]
                return validate(value)
            except ValueError as err:
                raise Invalid(path, f"not a valid {cls.__name__}: {err}") from None

        return to_model
    if dataclasses.is_dataclass(cls):
        return lambda value, path: value if isinstance(value, cls) else cls(**value)
    if is_typeddict(cls) or cls.__module__ == "builtins":
        return None

    def instance_of(value: Any, path: str) -> Any:
        if not isinstance(value, cls):
            raise Invalid(path, f"expected a {cls.__name__}, got {_describe(value)}")
        return value

    return instance_of

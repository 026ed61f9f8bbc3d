"""Argument schemas: what a tool takes, as JSON Schema, and the check of a call against it.

:class:`ArgsSchema` is built from a Python function (its signature, type hints,
``Annotated`` descriptions, defaults and, with ``parse_docstring``, a Google-style
docstring), from a pydantic model class (when pydantic is installed; never required) or
from a JSON Schema dict. The JSON Schema has the shape LangChain produces through
pydantic (``{"type": "integer"}``, ``{"anyOf": [..., {"type": "null"}]}``,
``{"enum": [...], "type": "string"}`` ...), so models see the same tool descriptions.

``ArgsSchema.validate(args)`` checks a call's arguments before the tool runs, converting
the way pydantic's lax mode does where a model's JSON is loose (``"3"`` for an integer,
``3`` for a number), and names every problem in one :class:`ToolValidationError`. A
pydantic model schema is validated by pydantic itself.

Example:
    >>> from typing import Literal, Optional
    >>> def search(query: str, k: int = 4, kind: Literal["web", "news"] = "web",
    ...            tags: Optional[list[str]] = None) -> str:
    ...     '''Search the index.'''
    >>> schema = ArgsSchema.from_function(search)
    >>> schema.properties["kind"]
    {'default': 'web', 'enum': ['web', 'news'], 'type': 'string'}
    >>> schema.validate({"query": "etna", "k": "2"}, tool="search")
    {'query': 'etna', 'k': 2}
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import math
import re
import types
import typing
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragline.core.exceptions import InvalidDocstringError, InvalidInputError, ToolValidationError
from ragline.core.tools._validate import Invalid, compile_check, is_pydantic_model, is_typeddict

__all__ = [
    "ArgsSchema",
    "InjectedToolArg",
    "InjectedToolCallId",
    "parse_google_docstring",
    "type_to_json_schema",
]

_NONE_TYPE = type(None)
_SKIPPED_PARAMETERS = frozenset({"self", "cls", "run_manager", "callbacks"})
_SIMPLE_TYPES: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    _NONE_TYPE: {"type": "null"},
    None: {"type": "null"},
    bytes: {"format": "binary", "type": "string"},
    list: {"items": {}, "type": "array"},
    tuple: {"items": {}, "type": "array"},
    set: {"items": {}, "type": "array", "uniqueItems": True},
    dict: {"additionalProperties": True, "type": "object"},
}
_ARRAYS = (list, tuple, set, frozenset, Sequence, typing.Sequence)
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Example|Examples|Note|Notes|Attributes):\s*$"
)
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


class InjectedToolArg:
    """Marks a tool argument that the program supplies when it calls the tool, not the
    model: ``user_id: Annotated[str, InjectedToolArg]``.

    The argument is part of the tool's input schema (a call without it fails the check)
    but not of ``tool_call_schema`` / ``tool.args``, so a model bound to the tool never
    sees it; the program adds it to the ToolCall's ``args`` before invoking.
    """


class InjectedToolCallId(InjectedToolArg):
    """Marks the argument that receives the id of the ToolCall the tool is invoked with
    (``call_id: Annotated[str, InjectedToolCallId]``); such a tool must be invoked with a
    ToolCall."""


def _injection(annotation: Any) -> type[InjectedToolArg] | None:
    """The InjectedToolArg kind in ``Annotated`` metadata (a class or an instance)."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    return _injection_in(typing.get_args(annotation)[1:])


def _injection_in(metadata: Sequence[Any]) -> type[InjectedToolArg] | None:
    for extra in metadata:
        if isinstance(extra, type) and issubclass(extra, InjectedToolArg):
            return extra
        if isinstance(extra, InjectedToolArg):
            return type(extra)
    return None


# --------------------------------------------------------------------------- type -> schema


def type_to_json_schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of a Python type, as pydantic (and so LangChain) writes it.

    Example:
        >>> type_to_json_schema(dict[str, float])
        {'additionalProperties': {'type': 'number'}, 'type': 'object'}
    """
    return _schema_of(annotation)[0]


def _schema_of(annotation: Any, titled: bool = False) -> tuple[dict[str, Any], str | None]:
    """``(schema, description from Annotated metadata or None)``; ``titled``: see
    :func:`_plain_schema`."""
    description = None
    if typing.get_origin(annotation) is typing.Annotated:
        annotation, *extras = typing.get_args(annotation)
        for extra in extras:
            if isinstance(extra, str):
                description = extra
            elif isinstance(getattr(extra, "description", None), str):
                description = extra.description
    return _plain_schema(annotation, titled), description


def _plain_schema(annotation: Any, titled: bool = False) -> dict[str, Any]:
    """``annotation``'s schema; ``titled``: inside a union's ``anyOf``, where LangChain
    leaves pydantic's titles (it strips them down through objects, not lists), so a model
    or an enum there keeps its ``title``."""
    if annotation is Any or annotation is inspect.Parameter.empty or annotation is object:
        return {}
    simple = _SIMPLE_TYPES.get(annotation)
    if simple is not None:
        return dict(simple)
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _schema_of(annotation, titled)[0]
    if origin is typing.Union or origin is types.UnionType:
        return {"anyOf": [_plain_schema(member, True) for member in arguments]}
    if origin is typing.Literal:
        return _enum_schema(list(arguments))
    if origin in (list, Sequence, typing.Sequence, typing.List):  # noqa: UP006
        items = _plain_schema(arguments[0], titled) if arguments else {}
        return {"items": items, "type": "array"}
    if origin in (set, frozenset):
        items = _plain_schema(arguments[0], titled)
        return {"items": items, "type": "array", "uniqueItems": True}
    if origin is tuple:
        return _tuple_schema(arguments, titled)
    if origin in (dict, Mapping, typing.Mapping):
        value = _plain_schema(arguments[1], titled) if len(arguments) == 2 else True
        return {"additionalProperties": value if value != {} else True, "type": "object"}
    if isinstance(annotation, type):
        return _class_schema(annotation, titled)
    if isinstance(annotation, str):
        raise InvalidInputError(f"cannot describe the unresolved type annotation {annotation!r}")
    return {}


def _enum_schema(values: list[Any], *, listed: bool = False) -> dict[str, Any]:
    """A ``Literal``'s schema (one value: ``const``), or with ``listed`` an Enum class's
    (always ``enum``), as pydantic writes them."""
    kinds = {type(value) for value in values}
    one = len(values) == 1 and not listed
    schema: dict[str, Any] = {"const": values[0]} if one else {"enum": values}
    if len(kinds) == 1 and next(iter(kinds)) in _SIMPLE_TYPES:
        schema["type"] = _SIMPLE_TYPES[next(iter(kinds))]["type"]
    return schema


def _tuple_schema(arguments: tuple[Any, ...], titled: bool = False) -> dict[str, Any]:
    if len(arguments) == 2 and arguments[1] is Ellipsis:
        return {"items": _plain_schema(arguments[0], titled), "type": "array"}
    return {
        "maxItems": len(arguments),
        "minItems": len(arguments),
        "prefixItems": [_plain_schema(member, True) for member in arguments],
        "type": "array",
    }


def _class_schema(cls: type, titled: bool = False) -> dict[str, Any]:
    if issubclass(cls, enum.Enum):
        schema = _enum_schema([member.value for member in cls], listed=True)
        if titled:  # pydantic's key order: enum, title, type
            first, *rest = schema.items()
            return dict([first, ("title", cls.__name__), *rest])
        return schema
    if is_pydantic_model(cls):
        if titled:
            return _inline_refs(_pydantic_json_schema(cls))  # type: ignore[no-any-return]
        schema = _strip_titles(_inline_refs(_pydantic_json_schema(cls)))
        return {k: v for k, v in schema.items() if k != "title"}
    if is_typeddict(cls):
        required = cls.__required_keys__  # type: ignore[attr-defined]
        hints = typing.get_type_hints(cls, include_extras=True)
        return _object_schema(cls, hints, required, {}, titled)
    if dataclasses.is_dataclass(cls):
        hints = typing.get_type_hints(cls, include_extras=True)
        defaults, required = {}, set()
        for field in dataclasses.fields(cls):
            if field.default is not dataclasses.MISSING:
                defaults[field.name] = field.default
            elif field.default_factory is dataclasses.MISSING:
                required.add(field.name)
        return _object_schema(cls, {f.name: hints[f.name] for f in dataclasses.fields(cls)},
                              required, defaults, titled)  # fmt: skip
    return {}  # another class: described as anything, checked with isinstance


def _object_schema(
    cls: type,
    hints: dict[str, Any],
    required: set[str],
    defaults: dict[str, Any],
    titled: bool = False,
) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    # the class's own docstring only: a TypedDict without one would inherit dict's
    doc = inspect.getdoc(cls) if cls.__doc__ else None
    if doc and not doc.startswith(f"{cls.__name__}("):  # dataclasses invent a docstring
        schema["description"] = doc
    properties = {}
    for name, hint in hints.items():
        prop, described = _schema_of(hint)
        if name in defaults and _is_json_value(defaults[name]):
            prop["default"] = _json_value(defaults[name])
        if described:
            prop["description"] = described
        if titled:  # pydantic's title of a field, its keys in pydantic's (sorted) order
            prop = dict(sorted({**prop, "title": name.title().replace("_", " ").strip()}.items()))
        properties[name] = prop
    schema["properties"] = properties
    schema["required"] = [name for name in hints if name in required]
    if titled:
        schema["title"] = cls.__name__
    schema["type"] = "object"
    return schema


# --------------------------------------------------------------------------- pydantic


# pydantic builds a model's JSON Schema in about 0.3 ms; a model offered to a model (a
# tool, a structured-output schema) is described again and again, so the text is kept per
# class and each caller gets a fresh copy.
_SCHEMA_TEXTS: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()


def _pydantic_json_schema(model: type) -> dict[str, Any]:
    text = _SCHEMA_TEXTS.get(model)
    if text is None:
        if hasattr(model, "model_json_schema"):
            schema = model.model_json_schema()
        else:
            schema = model.schema()  # type: ignore[attr-defined]  # pydantic.v1
        text = _SCHEMA_TEXTS[model] = json.dumps(schema)
    return json.loads(text)  # type: ignore[no-any-return]


def _inline_refs(schema: Any, definitions: dict[str, Any] | None = None) -> Any:
    """``schema`` with every ``$ref`` to its ``$defs`` / ``definitions`` replaced inline."""
    if definitions is None and isinstance(schema, dict):
        definitions = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    if isinstance(schema, list):
        return [_inline_refs(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema and definitions is not None:
        target = _inline_refs(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return {
        key: _inline_refs(value, definitions)
        for key, value in schema.items()
        if key not in ("$defs", "definitions")
    }


def _given_parameters(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON Schema given as a dict, as LangChain sends it to a model: as written, its
    references inlined, without its ``$defs``, its own ``title`` and ``description``, or
    the ``title`` keys inside."""
    inlined = _inline_refs(dict(schema))
    kept = {k: v for k, v in inlined.items() if k not in ("title", "description")}
    return _strip_titles(kept)  # type: ignore[no-any-return]


def _strip_titles(schema: Any) -> Any:
    """Remove pydantic's ``title`` keys (property names are already there), as LangChain
    does: down through objects only, so the schemas inside a list (the members of an
    ``anyOf``: an ``Optional[Model]`` field, a union) keep theirs, as in LangChain's."""
    if not isinstance(schema, dict):
        return schema
    cleaned = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {name: _strip_titles(prop) for name, prop in value.items()}
        else:
            cleaned[key] = _strip_titles(value)
    return cleaned


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_is_json_value(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_value(v) for k, v in value.items())
    return isinstance(value, (bytes, enum.Enum))


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, enum.Enum):
        return value.value
    return value


# --------------------------------------------------------------------------- docstrings


def parse_google_docstring(
    docstring: str | None,
    parameters: Sequence[str],
    *,
    strict: bool = True,
    annotated: Sequence[str] | None = None,
) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument texts.

    The description is the text before the first section (``Args:``, ``Returns:`` ...),
    its paragraphs joined by a space, each keeping its line breaks (as LangChain reads
    it); an ``Args:`` line ``name: text`` (or ``name (type): text``) describes ``name``,
    and more-indented lines below continue it.

    Args:
        docstring: the docstring (already dedented, as ``inspect.getdoc`` returns it).
        parameters: the function's parameter names.
        strict: raise when there is no docstring, when the function takes arguments
            and the docstring has no ``Args:`` block (a blank line, then ``Args:``, as
            LangChain requires), or when it describes an argument the function does not
            take.
        annotated: the parameters with a type hint, where known: only those make an
            ``Args:`` block required, as in LangChain, which counts the function's type
            hints (``def f(x)`` with a one-line docstring passes); ``None``: all of
            ``parameters``.

    Raises:
        InvalidDocstringError: with ``strict``, as above (an ``InvalidInputError``, printed
            as ``ValueError``).

    Example:
        >>> parse_google_docstring("Add.\\n\\nArgs:\\n    a: first.\\n    b: second.", ["a", "b"])
        ('Add.', {'a': 'first.', 'b': 'second.'})
    """
    lines = (docstring or "").strip().splitlines()
    # the description's paragraphs joined by a space, each keeping its own line breaks
    # (as LangChain reads it: "First line\nsecond line. Next paragraph.")
    description: list[str] = []
    paragraph: list[str] = []
    arguments: dict[str, str] = {}
    section = None
    current: str | None = None
    arguments_indent = 0
    for raw in lines:
        line = raw.strip()
        heading = _SECTION.match(line)
        if heading and not raw.startswith((" ", "\t")):
            section, current = heading.group(1), None
            continue
        if section is None:
            if line:
                paragraph.append(raw.rstrip())
            elif paragraph:
                description.append("\n".join(paragraph))
                paragraph = []
            continue
        if section not in ("Args", "Arguments", "Parameters") or not line:
            continue
        indent = len(raw) - len(raw.lstrip())
        match = _ARG_LINE.match(line)
        if match and (current is None or indent <= arguments_indent):
            current = match.group(1).lstrip("*")
            arguments_indent = indent
            arguments[current] = match.group(2).strip()
        elif current is not None:
            arguments[current] = f"{arguments[current]} {line}".strip()
    if strict:
        if not docstring:  # LangChain refuses a missing docstring too, arguments or not
            raise InvalidDocstringError(
                "the function has no docstring to parse; write one (with an 'Args:' block "
                "for its arguments) or pass parse_docstring=False"
            )
        # LangChain's rule: a function that takes arguments needs an "Args:" block of its
        # own, after a blank line that ends the description (an "Args:" heading right
        # under the description, or "Parameters:", is refused as LangChain refuses it)
        blocks = (docstring or "").split("\n\n")
        needing = parameters if annotated is None else [n for n in parameters if n in annotated]
        described = [name for name in needing if name not in ("runtime", "return")]
        if described and not any(block.startswith("Args:") for block in blocks[1:]):
            raise InvalidDocstringError(
                "found no Google-style 'Args:' section in the docstring (a blank line, "
                "then 'Args:' and one 'name: text' line per argument); write one (or pass "
                "parse_docstring=False)"
            )
        unknown = [name for name in arguments if name not in parameters]
        if unknown:
            raise InvalidDocstringError(
                f"the docstring describes argument(s) {', '.join(map(repr, unknown))} that "
                f"the function does not take; its parameters are {', '.join(parameters)}"
            )
    return " ".join([*description, "\n".join(paragraph)]).strip(), arguments


# --------------------------------------------------------------------------- the schema


class ArgsSchema:
    """The arguments of a tool: JSON Schema ``properties`` and ``required``, a validator.

    Build one with :meth:`from_function`, :meth:`from_model` (pydantic) or
    :meth:`from_json_schema`; a tool's ``args_schema`` may be any of an ArgsSchema, a
    pydantic model class or a JSON Schema dict.

    Attributes:
        name: the schema's title (the function or model name).
        description: the description found with it (docstring summary), or "".
        properties: argument name -> JSON Schema, in signature order.
        required: the names of the arguments without a default.
        model: the pydantic model class it came from, or None.
    """

    def __init__(
        self,
        *,
        name: str,
        properties: dict[str, dict[str, Any]],
        required: Sequence[str] = (),
        description: str = "",
        model: type | None = None,
        types: Mapping[str, Any] | None = None,
        additional_properties: bool = False,
        injected: Mapping[str, type[InjectedToolArg]] | None = None,
    ) -> None:
        """See the class docstring; ``types`` maps arguments to Python types (for checked
        values to become dataclass / pydantic instances), ``additional_properties`` lets
        arguments the schema does not name through, ``injected`` maps the arguments
        marked :class:`InjectedToolArg` to their marker class."""
        self.name = name
        self._properties = properties
        self._required = list(required)
        self._pending: Callable[[], tuple[dict[str, dict[str, Any]], list[str]]] | None = None
        self.description = description
        self.model = model
        self._types = dict(types or {})
        self._additional = additional_properties
        self.injected: dict[str, type[InjectedToolArg]] = dict(injected or {})
        self._checks: dict[str, Callable[[Any, str], Any]] | None = None
        # a JSON Schema dict a tool was given as its args_schema, kept as written: LangChain
        # shows it as it is (tool.args) and sends it as it is (convert_to_openai_tool)
        self._given: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"ArgsSchema(name={self.name!r}, arguments={list(self.properties)})"

    # A model's JSON Schema is built when first asked for, not when the tool is: a
    # pydantic.v1 model whose defaults are pydantic 2 ``Field(...)`` objects has none (its
    # ``schema()`` raises TypeError), yet pydantic validates its calls, as in LangChain,
    # where such a tool runs and only ``tool.args`` raises.
    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        """Argument name -> JSON Schema, in signature order."""
        self._resolve()
        return self._properties

    @properties.setter
    def properties(self, value: dict[str, dict[str, Any]]) -> None:
        self._pending = None
        self._properties = value

    @property
    def required(self) -> list[str]:
        """The names of the arguments without a default."""
        self._resolve()
        return self._required

    @required.setter
    def required(self, value: Sequence[str]) -> None:
        self._resolve()
        self._required = list(value)

    def _resolve(self) -> None:
        if self._pending is not None:  # raises again on the next access when it fails
            self._properties, self._required = self._pending()
            self._pending = None

    @property  # type: ignore[misc]  # an instance's name, as a pydantic model class has
    def __name__(self) -> str:  # type: ignore[override]
        """The schema's name (``tool.input_schema.__name__``, as LangChain's)."""
        return self.name

    # ---- construction ----
    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        parse_docstring: bool = False,
        error_on_invalid_docstring: bool = True,
        skip: Sequence[str] = (),
    ) -> ArgsSchema:
        """The schema of ``function``'s parameters.

        ``self``, ``cls``, ``run_manager``, ``callbacks``, ``*args``/``**kwargs`` and the
        names in ``skip`` are left out. A parameter's description comes from its
        docstring entry (with ``parse_docstring``), else from ``Annotated[T, "text"]``.

        Raises:
            InvalidInputError: a type hint cannot be resolved, or (with
                ``parse_docstring`` and ``error_on_invalid_docstring``) the docstring
                does not describe the arguments properly.
        """
        title: str = name or getattr(function, "__name__", None) or type(function).__name__
        signature, hints = _signature_and_hints(function, title)
        parameters = [
            parameter
            for parameter in signature.parameters.values()
            if parameter.name not in _SKIPPED_PARAMETERS
            and parameter.name not in skip
            and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        ]
        takes_any_keyword = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
        docstring = inspect.getdoc(function)
        description, documented = docstring or "", dict[str, str]()
        if parse_docstring:
            description, documented = parse_google_docstring(
                docstring,
                [p.name for p in parameters],
                strict=error_on_invalid_docstring,
                annotated=list(hints),
            )
        properties: dict[str, dict[str, Any]] = {}
        required = []
        types: dict[str, Any] = {}
        injected: dict[str, type[InjectedToolArg]] = {}
        for parameter in parameters:
            annotation = hints.get(parameter.name, parameter.annotation)
            kind = _injection(annotation)
            if kind is not None:
                injected[parameter.name] = kind
            try:
                schema, annotated = _schema_of(annotation)
            except InvalidInputError as err:
                raise InvalidInputError(
                    f"tool {title!r}, argument {parameter.name!r}: {err}"
                ) from None
            if parameter.default is parameter.empty:
                required.append(parameter.name)
            elif _is_json_value(parameter.default):
                schema["default"] = _json_value(parameter.default)
            text = documented.get(parameter.name) or annotated
            if text:
                schema["description"] = text
            properties[parameter.name] = dict(sorted(schema.items()))  # pydantic's key order
            if annotation is not parameter.empty:
                types[parameter.name] = annotation
        return cls(name=title, properties=properties, required=required, description=description,
                   types=types, additional_properties=takes_any_keyword,
                   injected=injected)  # fmt: skip

    @classmethod
    def from_model(cls, model: type) -> ArgsSchema:
        """The schema of a pydantic model class (v2, or ``pydantic.v1``), with ``Field``
        descriptions; calls are validated by pydantic."""
        if not is_pydantic_model(model):
            raise InvalidInputError(f"{model!r} is not a pydantic model class")
        config = getattr(model, "model_config", None)  # a title there names it, as in LangChain
        title = config.get("title") if isinstance(config, dict) else None
        built = cls(
            name=title or model.__name__,
            properties={},
            description=(inspect.getdoc(model) or "") if model.__doc__ else "",
            model=model,
            injected=_model_injections(model),
        )

        def properties_and_required() -> tuple[dict[str, dict[str, Any]], list[str]]:
            schema = _strip_titles(_inline_refs(_pydantic_json_schema(model)))
            return schema.get("properties", {}), list(schema.get("required", []))

        built._pending = properties_and_required
        return built

    @classmethod
    def from_json_schema(cls, schema: Mapping[str, Any], *, name: str | None = None) -> ArgsSchema:
        """A schema given as JSON Schema (``{"type": "object", "properties": ...}``).

        Raises:
            InvalidInputError: ``schema`` is not an object schema.
        """
        if not isinstance(schema, Mapping) or (
            "properties" not in schema and schema.get("type") != "object"
        ):
            raise InvalidInputError(
                f"an args_schema dict must be a JSON Schema of an object (with 'properties'), "
                f"got {schema!r:.80}"
            )
        inlined = _inline_refs(dict(schema))
        return cls(
            name=name or str(schema.get("title") or "arguments"),
            properties=dict(inlined.get("properties", {})),
            required=list(inlined.get("required", [])),
            description=str(schema.get("description") or ""),
            additional_properties=inlined.get("additionalProperties", True) is not False,
        )

    @classmethod
    def coerce(cls, value: Any, *, name: str) -> ArgsSchema:
        """``value`` as an ArgsSchema: itself, a pydantic model class or a JSON Schema dict.

        Raises:
            InvalidInputError: ``value`` is none of those.
        """
        if isinstance(value, ArgsSchema):
            return value
        if is_pydantic_model(value):
            return cls.from_model(value)
        if isinstance(value, Mapping):
            schema = cls.from_json_schema(value, name=name)
            schema._given = dict(value)
            return schema
        raise InvalidInputError(
            f"args_schema of {name!r} must be a pydantic model class, a JSON Schema dict or "
            f"an ArgsSchema, got {value!r:.80}"
        )

    def without_injected(self) -> ArgsSchema:
        """The arguments a model is shown: those not marked :class:`InjectedToolArg`
        (itself when none is)."""
        if not self.injected:
            return self
        shown = [name for name in self.properties if name not in self.injected]
        return ArgsSchema(
            name=self.name,
            properties={name: self.properties[name] for name in shown},
            required=[name for name in self.required if name not in self.injected],
            description=self.description,
            types={name: kind for name, kind in self._types.items() if name in shown},
            additional_properties=self._additional,
        )

    def shown_to_model(self) -> ArgsSchema:
        """What a model is shown (``tool.args``, ``tool_call_schema``): the arguments not
        marked :class:`InjectedToolArg`; for a pydantic model's schema each field with
        ``Field`` extras rebuilt as LangChain rebuilds it there, from its type, description,
        default and constraints, so its ``examples``, ``deprecated`` and
        ``json_schema_extra`` keys (``Field(required=True)`` among them) are left out, and
        a key they set over one of the field's own shows the field's own. Itself when
        nothing is."""
        shown = self.without_injected()
        extras = _fields_with_extras(self.model) if self.model is not None else set()
        rebuilt = [name for name in shown.properties if name in extras]
        if not rebuilt:
            return shown
        return ArgsSchema(
            name=shown.name,
            properties={**shown.properties, **_bare_properties(self.model, rebuilt)},
            required=shown.required,
            description=shown.description,
            model=shown.model,
            types=shown._types,
            additional_properties=shown._additional,
            injected=shown.injected,
        )

    def titled(self, name: str, description: str) -> ArgsSchema:
        """The same arguments under another ``name`` and ``description`` (a tool's
        ``tool_call_schema`` is titled with the tool's)."""
        titled = ArgsSchema(
            name=name,
            properties=self.properties,
            required=self.required,
            description=description,
            model=self.model,
            types=self._types,
            additional_properties=self._additional,
            injected=self.injected,
        )
        titled._given = self._given
        return titled

    # ---- views ----
    def json_schema(self) -> dict[str, Any]:
        """``{"properties": ..., "required": [...], "type": "object"}`` (required only if
        any), as tools are described to models; of a ``pydantic.v1`` model ``type`` comes
        first, as v1 writes it."""
        if self._given is not None:
            return _given_parameters(self._given)
        if self.model is not None and not hasattr(self.model, "model_json_schema"):
            # a pydantic.v1 model: in v1's key order, as LangChain converts it
            schema: dict[str, Any] = {"type": "object", "properties": self.properties}
            if self.required:
                schema["required"] = list(self.required)
            return schema
        schema = {"properties": self.properties}
        if self.required:
            schema["required"] = list(self.required)
        schema["type"] = "object"
        return schema

    def model_json_schema(self) -> dict[str, Any]:
        """The schema as pydantic's ``model_json_schema()`` writes it: with titles, its
        keys in alphabetical order as pydantic sorts them (programs print it)."""
        schema: dict[str, Any] = {"title": self.name}
        if self.description:
            schema["description"] = self.description
        v1 = self._pydantic_v1_schema()
        if v1 is not None:  # pydantic.v1's order, its definitions kept, as v1 writes it
            schema["type"] = "object"
            schema["properties"] = self.args
            if self.required:
                schema["required"] = list(self.required)
            if "definitions" in v1:
                schema["definitions"] = v1["definitions"]
            return schema
        schema["properties"] = self.args
        if self.required:
            schema["required"] = list(self.required)
        schema["type"] = "object"
        return dict(sorted(schema.items()))

    schema = model_json_schema  # pydantic v1's name

    @property
    def args(self) -> dict[str, dict[str, Any]]:
        """``properties`` with pydantic's per-property ``title`` (what ``tool.args`` shows);
        of a ``pydantic.v1`` model, its properties as v1 writes them (``title`` first, a
        nested model as a ``$ref``)."""
        if self._given is not None:
            return dict(self._given.get("properties", {}))
        v1 = self._pydantic_v1_schema()
        if v1 is not None:
            written = v1.get("properties", {})
            return {name: written[name] for name in written if name in self.properties}
        return {
            name: dict(sorted({**prop, "title": name.replace("_", " ").title()}.items()))
            for name, prop in self.properties.items()
        }

    def _pydantic_v1_schema(self) -> dict[str, Any] | None:
        """The ``pydantic.v1`` model's own ``schema()`` (None for any other schema): v1
        does not sort its keys as v2 does, and programs print them."""
        if self.model is None or hasattr(self.model, "model_json_schema"):
            return None
        return _pydantic_json_schema(self.model)

    # ---- validation ----
    def validate(self, args: Mapping[str, Any], *, tool: str) -> dict[str, Any]:
        """Check ``args`` and return them converted (``"3"`` -> ``3`` for an integer ...).

        Only the given arguments are returned; defaults are the function's business.

        Raises:
            ToolValidationError: naming every missing, unknown or ill-typed argument.
        """
        if not isinstance(args, Mapping):
            raise tool_validation_error(
                f"tool {tool!r} takes a dict of arguments, got {type(args).__name__}",
                tool=tool,
                errors=[("", f"expected a dict, got {type(args).__name__}")],
                args=args,
            )
        if self.model is not None:
            return self._validate_with_pydantic(args, tool)
        checks = self._compiled()
        problems: list[tuple[str, str]] = []
        validated: dict[str, Any] = {}
        for name in self.required:
            if name not in args:
                problems.append((name, "missing (required)"))
        for name, value in args.items():
            check = checks.get(name)
            if check is None:
                if self._additional:
                    validated[name] = value
                else:
                    problems.append((name, "unexpected argument"))
                continue
            try:
                validated[name] = check(value, name)
            except Invalid as err:
                problems.append((err.path, err.problem))
        if problems:
            raise _validation_error(tool, problems, list(self.properties), args=dict(args))
        return validated

    def _compiled(self) -> dict[str, Callable[[Any, str], Any]]:
        if self._checks is None:
            self._checks = {
                # written from the function's annotations: "number" is a float there
                name: compile_check(prop, self._types.get(name), python_floats=name in self._types)
                for name, prop in self.properties.items()
            }
        return self._checks

    def _validate_with_pydantic(self, args: Mapping[str, Any], tool: str) -> dict[str, Any]:
        model: Any = self.model
        try:
            instance = (
                model.model_validate(dict(args))
                if hasattr(model, "model_validate")
                else model.parse_obj(dict(args))
            )
        except ValueError as err:  # pydantic's ValidationError is a ValueError
            problems = [
                (".".join(str(part) for part in e.get("loc", ())), str(e.get("msg", "")))
                for e in getattr(err, "errors", list)()
            ] or [("", str(err))]
            try:
                names = list(self.properties)
            except (TypeError, ValueError):  # no JSON Schema (see ``properties``)
                names = list(getattr(model, "model_fields", None) or model.__fields__)
            raise _validation_error(
                tool, problems, names, args=dict(args), pydantic_error=err
            ) from err
        return {name: getattr(instance, name) for name in args if hasattr(instance, name)}


def _fields_with_extras(model: type) -> set[str]:
    """The fields of a pydantic (v2) model whose ``Field`` has ``examples``, ``deprecated``
    or ``json_schema_extra``."""
    return {
        name
        for name, info in (getattr(model, "model_fields", None) or {}).items()
        if any(
            getattr(info, key, None) is not None
            for key in ("examples", "deprecated", "json_schema_extra")
        )
    }


def _bare_properties(model: Any, names: list[str]) -> dict[str, Any]:
    """The JSON Schemas of the fields ``names`` of a pydantic (v2) model, each rebuilt from
    its type, constraints, description and default (or default factory) alone."""
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {}
    for name in names:
        info = model.model_fields[name]
        kept: dict[str, Any] = {"description": info.description}
        if info.default_factory is not None:
            kept["default_factory"] = info.default_factory
        else:
            kept["default"] = info.default
        kind = info.annotation
        if info.metadata:  # the constraints (ge=0, max_length=3 ...)
            annotated = (kind, *info.metadata)
            kind = typing.Annotated[annotated]  # type: ignore[valid-type]
        fields[name] = (kind, Field(**kept))
    config = ConfigDict(arbitrary_types_allowed=True)
    bare = create_model(model.__name__, __config__=config, **fields)
    return dict(_strip_titles(_inline_refs(_pydantic_json_schema(bare))).get("properties", {}))


def _model_injections(model: type) -> dict[str, type[InjectedToolArg]]:
    """The fields of a pydantic (v2) model marked InjectedToolArg in their annotation."""
    found: dict[str, type[InjectedToolArg]] = {}
    for name, info in (getattr(model, "model_fields", None) or {}).items():
        kind = _injection_in(list(getattr(info, "metadata", None) or ()))
        if kind is not None:
            found[name] = kind
    return found


def _signature_and_hints(function: Callable[..., Any], title: str) -> tuple[Any, dict[str, Any]]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as err:
        raise InvalidInputError(f"cannot read the signature of tool {title!r}: {err}") from err
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except (NameError, TypeError) as err:
        raise InvalidInputError(
            f"cannot resolve the type hints of tool {title!r}: {err}; define the types at "
            "module level (or quote none of them)"
        ) from err
    return signature, hints


def _validation_error(
    tool: str,
    problems: list[tuple[str, str]],
    known: list[str],
    *,
    args: Any = None,
    pydantic_error: Any = None,
) -> ToolValidationError:
    listed = "; ".join(f"{path}: {problem}" if path else problem for path, problem in problems)
    return tool_validation_error(
        f"tool {tool!r} got invalid arguments: {listed} (it takes: {', '.join(known) or 'none'})",
        tool=tool,
        errors=problems,
        args=args,
        pydantic_error=pydantic_error,
    )


# ---- the error's class: pydantic's ValidationError too, where pydantic is installed ----
_ERROR_CLASS: list[Any] = []  # [the class] once built; [None] without pydantic


class _Problems(list):  # type: ignore[type-arg]
    """``ToolValidationError.errors``: the ``(path, problem)`` pairs, and callable as
    pydantic's ``ValidationError.errors()`` (the same problems in pydantic's dicts)."""

    def __init__(self, problems: list[tuple[str, str]], pydantic_errors: Any) -> None:
        super().__init__(problems)
        self._pydantic_errors = pydantic_errors

    def __call__(self, **kwargs: Any) -> Any:
        return self._pydantic_errors(**kwargs)


def _error_class() -> Any:
    """The class of a failed argument check: :class:`ToolValidationError`, and also
    pydantic's ``ValidationError`` (named so) when pydantic is installed, as LangChain's
    tools raise pydantic's (``except pydantic.ValidationError`` catches it there and here).
    """
    if not _ERROR_CLASS:
        try:
            import pydantic_core
        except ImportError:
            _ERROR_CLASS.append(None)
        else:

            class ValidationError(  # type: ignore[misc]  # errors: a list, also callable
                pydantic_core.ValidationError, ToolValidationError
            ):
                """A tool's arguments do not fit its schema: pydantic's ``ValidationError``
                (LangChain's class for this) and ragline's ``ToolValidationError``."""

                _text = ""

                def __init__(self, *args: Any, **kwargs: Any) -> None:
                    pass  # built by pydantic's from_exception_data; tool_validation_error
                    # sets ToolValidationError's attributes

                def __str__(self) -> str:
                    return self._text

            # printed as <class 'ragline.core.tools._schema.ValidationError'>, not as a
            # class local to this function
            ValidationError.__qualname__ = "ValidationError"
            _ERROR_CLASS.append(ValidationError)
    return _ERROR_CLASS[0]


def _line_error(path: str, problem: str, args: Any) -> dict[str, Any]:
    """One problem as pydantic's error details (its ``missing``, ``extra_forbidden`` or
    ``value_error`` with ragline's words)."""
    loc = tuple(int(part) if part.isdigit() else part for part in path.split(".")) if path else ()
    value = args.get(path, args) if isinstance(args, Mapping) and path else args
    if problem.startswith("missing"):
        return {"type": "missing", "loc": loc, "input": args}
    if problem == "unexpected argument":
        return {"type": "extra_forbidden", "loc": loc, "input": value}
    return {"type": "value_error", "loc": loc, "input": value, "ctx": {"error": problem}}


def tool_validation_error(
    message: str,
    *,
    tool: str,
    errors: list[tuple[str, str]],
    args: Any = None,
    pydantic_error: Any = None,
) -> ToolValidationError:
    """The error of a failed argument check. With pydantic installed it is also
    pydantic's ``ValidationError``; its text is pydantic's own when a pydantic model
    checked the arguments (as LangChain's), else ragline's ``message``."""
    cls = _error_class()
    if cls is None:
        return ToolValidationError(message, tool=tool, errors=errors)
    error: Any = None
    if pydantic_error is not None:
        try:
            details = [
                {key: e[key] for key in ("type", "loc", "input", "ctx") if key in e}
                for e in pydantic_error.errors()
            ]
            error = cls.from_exception_data(pydantic_error.title, details)
        except Exception:  # a detail pydantic cannot rebuild: ragline's below
            error = None
    if error is None:
        details = [_line_error(path, problem, args) for path, problem in errors]
        error = cls.from_exception_data(tool, details)
    error._text = str(pydantic_error) if pydantic_error is not None else message
    error.args = (error._text,)
    error.tool = tool
    pydantic_class: Any = type(error).__mro__[1]
    error.errors = _Problems(errors, functools.partial(pydantic_class.errors, error))
    return error  # type: ignore[no-any-return]

"""JSON Schemas of runnables: ``input_schema``, ``output_schema``, ``config_schema``.

Every runnable describes its input, its output and its config as JSON Schema, with
LangChain's titles (``PromptInput``, ``<Name>Input``, ``<Name>Output``,
``<Name>Config``), so a server can publish them (LangServe's ``/input_schema``) and a
playground can build forms. LangChain returns pydantic model classes here; ragline
returns a :class:`Schema` class of the same name, which answers the same calls
(``.model_json_schema()``, pydantic v1's ``.schema()``, ``model_fields``), and the dict
directly from ``get_input_jsonschema()``, ``get_output_jsonschema()`` and
``get_config_jsonschema()``.

A runnable class says what it takes and gives by overriding ``_input_json(defs)`` /
``_output_json(defs)`` (or the ``InputType`` / ``OutputType`` properties);
``with_types(input_type=..., output_type=...)`` overrides both for one runnable.

Example:
    >>> from ragline.core import PromptTemplate
    >>> PromptTemplate.from_template("Tell me about {topic}").get_input_jsonschema()
    {'properties': {'topic': {'title': 'Topic', 'type': 'string'}}, 'required': ['topic'], \
'title': 'PromptInput', 'type': 'object'}
"""

from __future__ import annotations

import copy
import enum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast, get_args, get_origin

from ragline.core._json_schema import field_title, is_model_def, json_schema_of
from ragline.core.exceptions import ConfigurationError

if TYPE_CHECKING:
    from ragline.core.runnables.base import Runnable
    from ragline.core.runnables.binding import RunnableBinding

__all__ = ["FieldInfo", "Schema", "SchemaMethods", "schema_class"]

# the RunnableConfig keys config_schema(include=[...]) can describe
# the config keys a config schema may include, in RunnableConfig's order (LangChain
# writes them in that order, whatever the order asked)
_CONFIG_KEYS: dict[str, dict[str, Any]] = {
    "tags": {"type": "array", "items": {"type": "string"}},
    "metadata": {"type": "object", "additionalProperties": True},
    "callbacks": {"anyOf": [{"type": "array", "items": {}}, {}, {"type": "null"}]},
    "run_name": {"type": "string"},
    "max_concurrency": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "recursion_limit": {"type": "integer"},
    "run_id": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]},
}


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
    "object": dict,
    "array": list,
}


class FieldInfo:
    """One field of a :class:`Schema` class, as pydantic's ``model_fields`` lists it:
    ``annotation`` (the Python type of a plain JSON type, else ``Any``), ``default``,
    ``description`` and :meth:`is_required`; printed in pydantic's form."""

    def __init__(self, schema: dict[str, Any], required: bool) -> None:
        kind = schema.get("type")
        self.annotation: Any = _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any
        self.default: Any = schema.get("default")
        self.description: str | None = schema.get("description")
        self.json_schema = schema
        self._required = required

    def is_required(self) -> bool:
        """Whether the field must be given."""
        return self._required

    def __repr__(self) -> str:
        kind = getattr(self.annotation, "__name__", repr(self.annotation))
        text = f"FieldInfo(annotation={kind}, required={self._required}"
        if not self._required:
            text += f", default={self.default!r}"
        if self.description is not None:
            text += f", description={self.description!r}"
        return text + ")"


class _SchemaType(type):
    """The metaclass of :class:`Schema` classes: ``Schema(name, json_schema)`` builds a
    class named ``name``; two such classes are equal when their names and schemas are."""

    _schema: dict[str, Any]

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is not Schema:
            raise TypeError(
                f"{cls.__name__} describes a runnable's data as JSON Schema and makes no "
                "objects; read it with model_json_schema()"
            )
        return schema_class(*args)

    def __eq__(cls, other: object) -> bool:
        if not isinstance(other, _SchemaType) or cls is Schema or other is Schema:
            return cls is other
        return cls.__name__ == other.__name__ and cls._schema == other._schema

    def __hash__(cls) -> int:
        return hash(cls.__name__)

    @property
    def model_fields(cls) -> dict[str, FieldInfo]:
        """``{name: FieldInfo}``: an object's properties, else one field ``root``."""
        defs = cls._schema.get("$defs", {})
        return {
            name: FieldInfo(prop, required)
            for name, prop, required in model_fields(cls._schema, defs)
        }


class Schema(metaclass=_SchemaType):
    """A runnable's input, output or config schema: a class, as LangChain's pydantic model
    is, named after it (``PromptInput``, ``ChatPromptTemplateOutput``), answering
    pydantic's calls ``model_json_schema()`` / ``schema()``, ``model_fields`` and
    ``__name__``. ``Schema(name, json_schema)`` builds one; it makes no objects.

    Example:
        >>> Schema("PromptInput", {"type": "object"}).model_json_schema()
        {'type': 'object'}
        >>> Schema("PromptInput", {"type": "object"})
        <class 'ragline.core.runnables.schema.PromptInput'>
    """

    _schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, **_: Any) -> dict[str, Any]:
        """The JSON Schema (a copy)."""
        return copy.deepcopy(cls._schema)

    @classmethod
    def schema(cls, **_: Any) -> dict[str, Any]:
        """The JSON Schema (pydantic v1's name)."""
        return cls.model_json_schema()


def schema_class(name: str, schema: dict[str, Any]) -> type[Schema]:
    """The :class:`Schema` class named ``name`` for the JSON Schema ``schema``."""
    made = _SchemaType(name, (Schema,), {"_schema": schema, "__module__": __name__})
    return cast("type[Schema]", made)


class FieldDefs(dict[str, Any]):
    """The ``defs`` of a schema written where LangChain writes a runnable's type as a
    model field (a parallel's branches, its input taken from one branch), not the
    runnable's own schema model: a map's items are written inline there, not as
    ``$defs`` references (pydantic inlines ``list[int]``)."""


def field_defs(defs: dict[str, Any]) -> FieldDefs:
    """``defs`` as :class:`FieldDefs` (a copy; add its new entries back to ``defs``)."""
    return defs if isinstance(defs, FieldDefs) else FieldDefs(defs)


def titled(schema: dict[str, Any], title: str, defs: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``title`` and the collected ``$defs``, keys in pydantic's order."""
    result = {"title": title, **{k: v for k, v in schema.items() if k != "title"}}
    if defs:
        result["$defs"] = {**result.get("$defs", {}), **defs}
    return pydantic_sorted(result)


def pydantic_sorted(value: Any, parent: str | None = None) -> Any:
    """``value`` with every dict's keys in alphabetical order, as pydantic's
    ``model_json_schema()`` writes them (programs print these schemas): the names under
    ``properties`` and a ``default`` value keep their own order.

    Example:
        >>> pydantic_sorted({"type": "object", "properties": {"b": {"type": "x"}, "a": {}}})
        {'properties': {'b': {'type': 'x'}, 'a': {}}, 'type': 'object'}
    """
    if isinstance(value, dict):
        keys = list(value) if parent in ("properties", "default") else sorted(value)
        return {key: pydantic_sorted(value[key], key) for key in keys}
    if isinstance(value, list):
        return [pydantic_sorted(item, parent) for item in value]
    return value


def model_fields(schema: dict[str, Any], defs: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """``(name, property schema, required)`` for each field of the model ``schema``
    describes, as LangChain reads a schema's pydantic model: an object with
    ``properties`` has those fields; any other schema is a root model with one field,
    ``root`` (required).
    """
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        schema = defs[ref[8:]]
    if "properties" in schema:
        required = set(schema.get("required", ()))
        return [(name, prop, name in required) for name, prop in schema["properties"].items()]
    root = {"title": "Root", **{k: v for k, v in schema.items() if k != "title"}}
    return [("root", root, True)]


def merged_model(
    sources: list[list[tuple[str, Any, bool]]], title: str | None = None
) -> dict[str, Any]:
    """One object schema holding the fields of every source: a name keeps its first
    place, its last definition wins (as a dict of pydantic fields updates)."""
    fields: dict[str, tuple[Any, bool]] = {}
    for source in sources:
        for name, prop, required in source:
            fields[name] = (prop, required)
    result: dict[str, Any] = {} if title is None else {"title": title}
    result["type"] = "object"
    result["properties"] = {name: prop for name, (prop, _) in fields.items()}
    required_names = [name for name, (_, required) in fields.items() if required]
    if required_names:
        result["required"] = required_names
    return result


def _named_root(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A schema that is only a reference to a ``Document`` or a message is that type's own
    entry, taken out of ``defs``: LangChain's schema of a runnable whose type is one
    pydantic model is that model, titled with its name (``Document``, not ``f_input``).
    Other named types (an enum) stay references."""
    reference = schema.get("$ref") if len(schema) == 1 else None
    name = reference.removeprefix("#/$defs/") if isinstance(reference, str) else None
    if name is None or name not in defs or not is_model_def(name):
        return schema
    entry: dict[str, Any] = defs.pop(name)
    return entry


def _declared_type_arguments(cls: type) -> tuple[Any, Any]:
    """The input and output types a user's class gives its Runnable base as type
    arguments (``Runnable[int, str]``, ``RunnableSerializable[str, list[Document]]``), as
    LangChain reads them; ``(Any, Any)`` when none does (ragline's own classes state
    their types themselves)."""
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] == "ragline":
            break
        for base in klass.__dict__.get("__orig_bases__", ()):
            arguments = get_args(base)
            origin = get_origin(base)
            if (
                len(arguments) == 2
                and isinstance(origin, type)
                and hasattr(origin, "invoke")
                and not any(isinstance(argument, TypeVar) for argument in arguments)
            ):
                return arguments[0], arguments[1]
    return Any, Any


class SchemaMethods:
    """The schema methods of :class:`~ragline.core.runnables.base.Runnable`."""

    if TYPE_CHECKING:

        def get_name(self) -> str: ...

        @property
        def config_specs(self) -> list[Any]: ...

        def _children(self) -> list[Runnable[Any, Any]]: ...

    # ---- what subclasses override ----------------------------------------------------
    @property
    def InputType(self) -> Any:
        """The type of this runnable's input: ``Any`` unless a subclass knows better, or a
        user's class names it as a type argument (``class C(Runnable[int, str])``)."""
        return _declared_type_arguments(type(self))[0]

    @property
    def OutputType(self) -> Any:
        """The type of this runnable's output (see :attr:`InputType`)."""
        return _declared_type_arguments(type(self))[1]

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        """The input's JSON Schema without its title; ``$defs`` entries go into ``defs``."""
        return json_schema_of(self.InputType, defs)

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        """The output's JSON Schema without its title."""
        return json_schema_of(self.OutputType, defs)

    def _input_title(self) -> str:
        return f"{self.get_name()}Input"

    def _output_title(self) -> str:
        return f"{self.get_name()}Output"

    # ---- the public methods ----------------------------------------------------------
    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON Schema of this runnable's input.

        Example:
            >>> from ragline.core import RunnableLambda
            >>> def double(x: int) -> int:
            ...     return 2 * x
            >>> RunnableLambda(double).get_input_jsonschema()
            {'title': 'double_input', 'type': 'integer'}
        """
        defs: dict[str, Any] = {}
        schema = _named_root(self._input_json(defs), defs)
        return titled(schema, schema.get("title") or self._input_title(), defs)

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON Schema of this runnable's output."""
        defs: dict[str, Any] = {}
        schema = _named_root(self._output_json(defs), defs)
        return titled(schema, schema.get("title") or self._output_title(), defs)

    def get_input_schema(self, config: Any = None) -> Any:
        """The input's schema as a :class:`Schema` (``.model_json_schema()``; tools return
        their ArgsSchema, which has the same method)."""
        schema = self.get_input_jsonschema(config)
        return schema_class(schema["title"], schema)

    def get_output_schema(self, config: Any = None) -> type[Schema]:
        """The output's schema as a :class:`Schema`."""
        schema = self.get_output_jsonschema(config)
        return schema_class(schema["title"], schema)

    @property
    def input_schema(self) -> Any:
        """The input's schema (``chain.input_schema.model_json_schema()``, as in LangChain)."""
        return self.get_input_schema()

    @property
    def output_schema(self) -> type[Schema]:
        """The output's schema."""
        return self.get_output_schema()

    def get_config_jsonschema(self, *, include: list[str] | None = None) -> dict[str, Any]:
        """The JSON Schema of the config this runnable takes.

        ``configurable`` lists every configurable field and alternative in the tree
        (their defaults and options); ``include`` adds other config keys (``"tags"``,
        ``"metadata"``, ``"run_name"``, ``"max_concurrency"``, ``"recursion_limit"``,
        ``"run_id"``).

        Raises:
            ConfigurationError: an ``include`` key RunnableConfig does not have.

        Example:
            >>> from ragline.core import ConfigurableField, PromptTemplate
            >>> prompt = PromptTemplate.from_template("{x}").configurable_fields(
            ...     template=ConfigurableField(id="tpl", description="the template"))
            >>> prompt.get_config_jsonschema()["$defs"]["Configurable"]["properties"]
            {'tpl': {'default': '{x}', 'description': 'the template', 'title': 'Tpl', \
'type': 'string'}}
        """
        properties: dict[str, Any] = {}
        defs: dict[str, Any] = {}
        configurable = _configurable_properties(self, defs)
        result: dict[str, Any] = {"title": self._config_title(), "type": "object"}
        if configurable:
            properties["configurable"] = {"$ref": "#/$defs/Configurable", "default": None}
        for key in include or []:
            if key != "configurable" and key not in _CONFIG_KEYS:
                raise ConfigurationError(
                    f"config_schema cannot include {key!r}; it can include "
                    f"{', '.join(map(repr, ['configurable', *_CONFIG_KEYS]))}"
                )
        for key, schema in _CONFIG_KEYS.items():
            if key in (include or ()):
                properties[key] = {"title": field_title(key), **schema, "default": None}
        result["properties"] = properties
        if configurable:
            defs["Configurable"] = {
                "title": "Configurable",
                "type": "object",
                "properties": configurable,
            }
            result["$defs"] = defs
        return cast("dict[str, Any]", pydantic_sorted(result))

    def _config_title(self) -> str:
        """The config schema's title: ``<name>Config`` (a configurable runnable names it
        after its own class, as LangChain's)."""
        return f"{self.get_name()}Config"

    def config_schema(self, *, include: list[str] | None = None) -> type[Schema]:
        """The config's schema as a :class:`Schema` (see :meth:`get_config_jsonschema`)."""
        schema = self.get_config_jsonschema(include=include)
        return schema_class(schema["title"], schema)

    def with_types(
        self, *, input_type: Any = None, output_type: Any = None
    ) -> RunnableBinding[Any, Any]:
        """Return this runnable with its input and/or output type declared (the schemas
        follow them; the calls are unchanged).

        Example:
            >>> from ragline.core import RunnableLambda
            >>> echo = RunnableLambda(lambda x: x).with_types(input_type=int)
            >>> echo.get_input_jsonschema(), echo.invoke(3)
            ({'title': 'RunnableLambdaInput', 'type': 'integer'}, 3)
        """
        from ragline.core.runnables.binding import RunnableBinding

        binding: RunnableBinding[Any, Any] = RunnableBinding(self)  # type: ignore[arg-type]
        binding.custom_input_type = input_type
        binding.custom_output_type = output_type
        return binding


def _configurable_properties(root: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """``config["configurable"]`` keys of the tree under ``root``, as JSON Schema; a
    choice's enum goes into ``defs`` (referred to by name, as pydantic writes it)."""
    from ragline.core.runnables.configurable import (
        RunnableConfigurableAlternatives,
        RunnableConfigurableFields,
    )

    found: dict[str, Any] = {}
    for spec in root.config_specs:  # every id, in the tree's order
        entry: dict[str, Any] = {"title": spec.name or field_title(spec.id)}
        if getattr(spec, "description", None):
            entry["description"] = spec.description
        choice = _choice_def(getattr(spec, "annotation", None))
        if choice is not None:  # one of some keys (an enum), or a list of them
            name, many = choice
            enum_class = get_args(spec.annotation)[0] if many else spec.annotation
            defs[name] = {"title": name, "type": "string", "enum": [m.value for m in enum_class]}
            ref = {"$ref": f"#/$defs/{name}"}
            if many:
                entry.update(type="array", items=ref)
            else:  # pydantic writes no title beside a $ref
                entry = {**ref, **{k: v for k, v in entry.items() if k != "title"}}
        elif getattr(spec, "options", None):
            entry["enum"] = list(spec.options)
            entry["type"] = "string"
        default = getattr(spec, "default", None)
        if default is not None:
            entry["default"] = default
        annotation = getattr(spec, "annotation", None)
        if annotation is not None and choice is None and not getattr(spec, "options", None):
            entry.update(json_schema_of(annotation))
        found[spec.id] = entry

    def refine(node: Any) -> None:  # defaults and types the specs themselves do not carry
        if isinstance(node, RunnableConfigurableFields):
            for attribute, field in node.fields.items():
                value = getattr(node.default, attribute, None)
                entry = found.get(field.id)
                if entry is not None and value is not None and not {"type", "$ref"} & set(entry):
                    entry.setdefault("default", value)  # the spec's default: this value
                    entry.update(json_schema_of(type(value)))
        elif isinstance(node, RunnableConfigurableAlternatives):
            entry = found.get(node.which.id)
            if entry is not None:
                entry.setdefault("default", node.default_key)
        for child in node._children():
            refine(child)

    refine(root)
    return found


def _choice_def(annotation: Any) -> tuple[str, bool] | None:
    """``(enum name, whether a list of it)`` when a spec's annotation is a choice of keys
    (alternatives, ``ConfigurableFieldSingleOption``) or a sequence of one
    (``ConfigurableFieldMultiOption``); else None."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return annotation.__name__, False
    args = get_args(annotation) if get_origin(annotation) is not None else ()
    if len(args) == 1 and isinstance(args[0], type) and issubclass(args[0], enum.Enum):
        return args[0].__name__, True
    return None

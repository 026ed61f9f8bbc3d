"""``create_schema_from_function``: a function's parameters as a pydantic model class.

LangChain programs build a tool's ``args_schema`` this way and then read it as a
pydantic model (``.model_json_schema()``, ``.model_fields``, ``Model(**args)``). The
parameters, their descriptions (an ``Annotated`` text, or a Google-style docstring with
``parse_docstring``) and the model's description come from the same inference as
``@tool`` (:meth:`ArgsSchema.from_function`); pydantic (the ``pydantic`` extra) builds the
class.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ragline.core._optional import require
from ragline.core.exceptions import InvalidInputError
from ragline.core.tools._schema import ArgsSchema, _injection, _signature_and_hints

__all__ = ["create_schema_from_function"]

# left out unless filter_args says otherwise: what the tool machinery passes itself
_FILTERED_BY_DEFAULT = ("run_manager", "callbacks")


def create_schema_from_function(
    model_name: str,
    func: Callable[..., Any],
    *,
    filter_args: Sequence[str] | None = None,
    parse_docstring: bool = False,
    error_on_invalid_docstring: bool = False,
    include_injected: bool = True,
) -> Any:
    """A pydantic model class named ``model_name`` with one field per parameter of ``func``.

    Args:
        model_name: the class's name (its schema's title).
        func: the function whose signature it describes.
        filter_args: parameter names to leave out; when None or empty, ``run_manager``,
            ``callbacks`` and a method's ``self`` or ``cls`` are.
        parse_docstring: take the description of the model and of each parameter from a
            Google-style docstring (else the model's description is the whole docstring).
        error_on_invalid_docstring: with ``parse_docstring``, raise when the docstring does
            not describe the parameters properly.
        include_injected: keep the parameters marked ``InjectedToolArg``.

    Returns:
        The model class. ``*args`` becomes a tuple field and ``**kwargs`` a dict field, both
        defaulting to None; a parameter without a type hint is ``Any``; a parameter whose
        name starts with ``_`` is left out (as LangChain's; pydantic has no such fields).

    Raises:
        ImportError: pydantic is not installed (``pip install 'ragline[pydantic]'``).
        InvalidInputError: a type hint cannot be resolved, a parameter is named
            ``model_config`` (pydantic's own name), or the docstring is invalid and
            ``error_on_invalid_docstring`` is set.

    Example:
        >>> def add(a: int, b: int = 2) -> int:
        ...     '''Add two numbers.'''
        >>> Add = create_schema_from_function("Add", add)
        >>> Add(a="1")
        Add(a=1, b=2)
        >>> Add.model_json_schema()["required"]
        ['a']
    """
    pydantic = require("pydantic", "pydantic")
    signature, hints = _signature_and_hints(func, model_name)
    if filter_args:
        left_out = set(filter_args)
    else:  # an empty list too, as in LangChain
        left_out = set(_FILTERED_BY_DEFAULT)
        first = next(iter(signature.parameters), None)
        if first in ("self", "cls") and "." in getattr(func, "__qualname__", ""):
            left_out.add(first)
    inferred = ArgsSchema.from_function(
        func,
        name=model_name,
        parse_docstring=parse_docstring,
        error_on_invalid_docstring=error_on_invalid_docstring,
    )
    fields: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        annotation = hints.get(parameter.name, Any)
        if parameter.name in left_out or parameter.name.startswith("_"):
            continue  # pydantic refuses a field named _x; LangChain's model leaves it out
        if not include_injected and _injection(annotation) is not None:
            continue
        if parameter.name == "model_config":  # pydantic would read it as the model's config
            raise InvalidInputError(
                f"{model_name}: a parameter named 'model_config' cannot be a field of a "
                "pydantic model; rename it (or leave it out with filter_args)"
            )
        fields[parameter.name] = _field(pydantic, parameter, annotation, inferred)
    model = pydantic.create_model(
        model_name,
        __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
        __doc__=inferred.description,
        __module__=__name__,
        **fields,
    )
    model.__doc__ = inferred.description  # "" without a docstring, as LangChain's
    return model


def _field(
    pydantic: Any, parameter: inspect.Parameter, annotation: Any, inferred: ArgsSchema
) -> Any:
    """``(type, FieldInfo)`` of one parameter, as ``create_model`` takes a field."""
    if parameter.kind is parameter.VAR_POSITIONAL:
        return (tuple[annotation, ...], pydantic.Field(default=None))  # type: ignore[valid-type]
    if parameter.kind is parameter.VAR_KEYWORD:
        return (dict[str, annotation], pydantic.Field(default=None))  # type: ignore[valid-type]
    options: dict[str, Any] = {}
    description = inferred.properties.get(parameter.name, {}).get("description")
    if description:
        options["description"] = description
    if parameter.default is not parameter.empty:
        options["default"] = parameter.default
    return (annotation, pydantic.Field(**options))

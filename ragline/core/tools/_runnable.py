"""``Runnable.as_tool``: a runnable as a tool an agent or a model can call.

As in LangChain: a runnable whose input is a dict of named values (a TypedDict input
annotation, ``arg_types`` or an ``args_schema``) becomes a ``StructuredTool`` of those
arguments, invoked with them as one dict; any other runnable becomes a ``Tool`` of one
string argument, ``tool_input``, invoked with that string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.tools._function import StructuredTool, Tool
from ragline.core.tools._schema import ArgsSchema, type_to_json_schema

__all__ = ["runnable_as_tool"]


def _dict_caller(runnable: Any) -> tuple[Any, Any]:
    """The tool's functions for a dict-input runnable: the keyword arguments go to the
    runnable as one dict, its runs nested under the tool run (``callbacks``)."""

    def invoke(callbacks: Any = None, **arguments: Any) -> Any:
        return runnable.invoke(arguments, config={"callbacks": callbacks})

    async def ainvoke(callbacks: Any = None, **arguments: Any) -> Any:
        return await runnable.ainvoke(arguments, config={"callbacks": callbacks})

    return invoke, ainvoke


def _default_description(runnable: Any, args_schema: Any) -> str:
    """LangChain's placeholder for a tool made without a description: ``"Takes
    {input JSON Schema}."``, the schema being ``args_schema``'s when one is given."""
    if isinstance(args_schema, type):
        runnable = runnable.with_types(input_type=args_schema)
    elif isinstance(args_schema, Mapping):
        return f"Takes {dict(args_schema)}."
    return f"Takes {runnable.get_input_jsonschema()}."


def runnable_as_tool(
    runnable: Any,
    *,
    args_schema: Any = None,
    name: str | None = None,
    description: str | None = None,
    arg_types: Mapping[str, Any] | None = None,
) -> StructuredTool | Tool:
    """Build the tool for ``runnable`` (see ``Runnable.as_tool``): a ``StructuredTool``
    when its input is a dict of named values, else a one-string ``Tool``.

    Raises:
        InvalidInputError: both ``args_schema`` and ``arg_types`` given, or an
            ``arg_types`` key that is not a str.
    """
    if args_schema is not None and arg_types is not None:
        raise InvalidInputError(
            "as_tool takes args_schema or arg_types, not both; pass the one that "
            "describes the runnable's input"
        )
    schema: Any = args_schema
    if arg_types is not None:
        bad = [key for key in arg_types if not isinstance(key, str)]
        if bad:
            raise InvalidInputError(f"as_tool arg_types keys must be str, got {bad[0]!r}")
        schema = {
            "type": "object",
            "properties": {key: type_to_json_schema(kind) for key, kind in arg_types.items()},
            "required": list(arg_types),
        }
    if schema is None:
        declared = runnable.get_input_jsonschema()
        if declared.get("type") == "object" and declared.get("properties"):
            schema = declared
    tool_name = name or runnable.get_name()
    if not description:  # "" too: LangChain's takes the placeholder then
        description = _default_description(runnable, args_schema)
    if schema is None:
        return Tool(tool_name, runnable.invoke, description, coroutine=runnable.ainvoke)
    if isinstance(schema, Mapping):
        # a schema object titled with the tool's name, as LangChain's model made from it
        # is (programs print args_schema.model_json_schema())
        schema = ArgsSchema.from_json_schema(schema, name=tool_name)
    invoke, ainvoke = _dict_caller(runnable)
    return StructuredTool(
        name=tool_name,
        description=description,
        func=invoke,
        coroutine=ainvoke,
        args_schema=schema,
    )

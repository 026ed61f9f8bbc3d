"""``Runnable.as_tool``: a runnable as a tool an agent or a model can call.

As in LangChain: a runnable whose input is a dict of named values (a TypedDict input
annotation, ``arg_types`` or an ``args_schema``) becomes a tool of those arguments and
is invoked with the arguments as a dict; any other runnable becomes a tool of one
string argument, ``tool_input``, invoked with that string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.tools._base import BaseTool
from ragline.core.tools._schema import ArgsSchema, type_to_json_schema

__all__ = ["RunnableTool", "runnable_as_tool"]


class RunnableTool(BaseTool):
    """A tool that invokes a runnable (what ``Runnable.as_tool`` returns).

    Fields: those of :class:`BaseTool`, plus ``runnable`` (what the tool invokes) and
    ``takes_dict`` (True: the arguments go to the runnable as one dict; False: the one
    string argument ``tool_input`` goes as it is).
    """

    runnable: Any = None
    takes_dict: bool = False

    @property
    def args(self) -> dict[str, dict[str, Any]]:
        """The arguments' JSON Schemas; for the one-string tool ``{"tool_input": {"type":
        "string"}}``, untitled, as LangChain's ``Tool`` shows it."""
        if self.takes_dict:
            return super().args
        return {"tool_input": {"type": "string"}}

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        if self.takes_dict:
            return self.runnable.invoke(dict(kwargs))
        return self.runnable.invoke(args[0] if args else kwargs["tool_input"])

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        if self.takes_dict:
            return await self.runnable.ainvoke(dict(kwargs))
        return await self.runnable.ainvoke(args[0] if args else kwargs["tool_input"])


_ONE_STRING = {
    "type": "object",
    "properties": {"tool_input": {"type": "string"}},
    "required": ["tool_input"],
}


def runnable_as_tool(
    runnable: Any,
    *,
    args_schema: Any = None,
    name: str | None = None,
    description: str | None = None,
    arg_types: Mapping[str, Any] | None = None,
) -> RunnableTool:
    """Build the :class:`RunnableTool` for ``runnable`` (see ``Runnable.as_tool``).

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
    if isinstance(schema, Mapping):
        # a schema object titled with the tool's name, as LangChain's model made from it
        # is (programs print args_schema.model_json_schema())
        schema = ArgsSchema.from_json_schema(schema, name=tool_name)
    return RunnableTool(
        name=tool_name,
        description=description or "",
        args_schema=schema if schema is not None else _ONE_STRING,
        runnable=runnable,
        takes_dict=schema is not None,
    )

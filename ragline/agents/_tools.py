"""The tools an executor runs on its own: for an unknown tool name, and for a reply it
could not parse (the observation then tells the model what went wrong)."""

from __future__ import annotations

from ragline.core import BaseTool

__all__ = ["ExceptionTool", "InvalidTool"]


class InvalidTool(BaseTool):
    """Answers a call to a tool the agent does not have, naming the ones it has.

    Example:
        >>> InvalidTool().run({"requested_tool_name": "serch",
        ...                    "available_tool_names": ["search", "calculator"]})
        'serch is not a valid tool, try one of [search, calculator].'
    """

    name = "invalid_tool"
    description = "Called when the tool name is invalid. Suggests valid tool names."

    def _run(self, requested_tool_name: str, available_tool_names: list[str]) -> str:
        names = ", ".join(available_tool_names)
        return f"{requested_tool_name} is not a valid tool, try one of [{names}]."


class ExceptionTool(BaseTool):
    """Returns its input: the observation an executor chose for a reply it could not parse."""

    name = "_Exception"
    description = "Exception tool"

    def _run(self, query: str) -> str:
        return query

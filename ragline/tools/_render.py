"""Tools as the plain text a prompt lists them in (ReAct and structured-chat prompts)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from ragline.core import BaseTool

__all__ = ["render_text_description", "render_text_description_and_args"]


def _describe(tool: BaseTool) -> str:
    function = getattr(tool, "func", None)
    if function is None:
        return f"{tool.name} - {tool.description}"
    # the signature as Python prints it, as LangChain lists it: under
    # ``from __future__ import annotations`` the annotations are strings (``a: 'int'``)
    return f"{tool.name}{inspect.signature(function)} - {tool.description}"


def render_text_description(tools: Sequence[BaseTool]) -> str:
    """One line per tool: ``name(signature) - description`` (``name - description`` for
    tools without a function), as LangChain's ReAct prompt lists them.

    Example:
        >>> from ragline.tools import tool
        >>> @tool
        ... def search(query: str) -> str:
        ...     '''Search the web.'''
        >>> print(render_text_description([search]))  # this module postpones annotations
        search(query: 'str') -> 'str' - Search the web.
    """
    return "\n".join(_describe(tool) for tool in tools)


def render_text_description_and_args(tools: Sequence[BaseTool]) -> str:
    """As :func:`render_text_description`, each line followed by ``, args: {...}``: the
    arguments' schema written as a Python dict, as LangChain writes it (the structured-chat
    prompt shows it to the model, so the prompt text is the same in both)."""
    return "\n".join(f"{_describe(tool)}, args: {tool.args!r}" for tool in tools)

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
    try:  # resolved annotations read better than the strings of postponed ones
        signature = inspect.signature(function, eval_str=True)
    except (NameError, TypeError, SyntaxError):
        signature = inspect.signature(function)
    return f"{tool.name}{signature} - {tool.description}"


def render_text_description(tools: Sequence[BaseTool]) -> str:
    """One line per tool: ``name(signature) - description`` (``name - description`` for
    tools without a function), as LangChain's ReAct prompt lists them.

    Example:
        >>> from ragline.tools import tool
        >>> @tool
        ... def search(query: str) -> str:
        ...     '''Search the web.'''
        >>> render_text_description([search])
        'search(query: str) -> str - Search the web.'
    """
    return "\n".join(_describe(tool) for tool in tools)


def render_text_description_and_args(tools: Sequence[BaseTool]) -> str:
    """As :func:`render_text_description`, each line followed by ``, args: {...}``: the
    arguments' schema written as a Python dict, as LangChain writes it (the structured-chat
    prompt shows it to the model, so the prompt text is the same in both)."""
    return "\n".join(f"{_describe(tool)}, args: {tool.args!r}" for tool in tools)

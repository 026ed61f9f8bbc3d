"""Text helpers for the printed forms (``repr`` / ``str``) of composed runnables, which
follow LangChain's."""

from __future__ import annotations

from typing import Any

__all__ = ["indent_after_first", "printed_fields"]


def indent_after_first(text: str, width: int) -> str:
    """``text`` with every line after the first indented by ``width`` spaces.

    Example:
        >>> indent_after_first("a\\nb", 2)
        'a\\n  b'
    """
    return text.replace("\n", "\n" + " " * width)


def printed_fields(name: str | None, separator: str = " ", **fields: Any) -> str:
    """A runnable's fields as a pydantic model prints them (LangChain's ``str()`` of a
    runnable): ``name=...`` first when it has one (``""`` too: any name but the default
    None), then each field's ``key=repr``.

    Example:
        >>> printed_fields("joke", mapper={})
        "name='joke' mapper={}"
    """
    named = [f"name={name!r}"] if name is not None else []
    return separator.join([*named, *(f"{key}={value!r}" for key, value in fields.items())])

"""What a program can observe of a value, in a form both libraries' values compare in.

LangChain's messages are pydantic models and ragline's are dataclasses, so the parity
tests compare their observable parts (type, content, name, tool calls) rather than the
objects themselves. Everything else (str, int, dict, list) compares as it is.
"""

from __future__ import annotations

from typing import Any


def observe(value: Any) -> Any:
    """The observable form of ``value``: messages and documents as tuples, recursively."""
    if hasattr(value, "page_content") and hasattr(value, "metadata"):
        return ("Document", value.page_content, observe(dict(value.metadata)))
    if hasattr(value, "content") and hasattr(value, "type") and not isinstance(value, dict):
        return (type(value).__name__, observe(value.content), getattr(value, "name", None))
    if isinstance(value, dict):
        return {key: observe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [observe(item) for item in value]
    return value


def per_key(chunks: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The chunks of a parallel stream, grouped by branch key in arrival order."""
    grouped: dict[str, list[Any]] = {}
    for chunk in chunks:
        assert len(chunk) == 1, f"a parallel chunk carries one branch, got {chunk!r}"
        ((key, value),) = chunk.items()
        grouped.setdefault(key, []).append(observe(value))
    return grouped

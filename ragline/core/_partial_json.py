"""Parse JSON that is still arriving: close what is open and parse what is there.

Used by the streaming JSON output parser and by ``AIMessageChunk`` (tool-call arguments
arrive as JSON text split across chunks).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["parse_json_markdown", "parse_partial_json"]

_CLOSERS = {"{": "}", "[": "]"}
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)


def _close(text: str) -> str:
    """Append whatever closes the open strings, objects and arrays of ``text``."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in "}]" and stack and stack[-1] == char:
            stack.pop()
    if in_string:
        if escaped:  # a lone backslash cannot end a string: drop it
            text = text[:-1]
        text += '"'
    return text + "".join(reversed(stack))


def parse_partial_json(text: str) -> Any:
    """Parse complete or truncated JSON; a truncated document parses to what has arrived.

    Open strings, arrays and objects are closed; a trailing piece that cannot be completed
    (a half-written key, ``tru``, a dangling comma) is dropped.

    Args:
        text: JSON text, possibly cut off anywhere.

    Returns:
        The parsed value.

    Raises:
        ValueError: the text is not the start of a JSON document.

    Example:
        >>> parse_partial_json('{"answer": "Par')
        {'answer': 'Par'}
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        first_error = err
    stripped = text.strip()
    if not stripped or stripped[0] not in '{["':
        raise ValueError(f"not JSON: {first_error}") from None
    # Drop characters from the end until the closed-up prefix parses. Only the last,
    # unfinished token is ever dropped, so this stops after a few steps.
    for end in range(len(stripped), 0, -1):
        try:
            return json.loads(_close(stripped[:end]))
        except json.JSONDecodeError:
            continue
    raise ValueError(f"not JSON: {first_error}") from None


def parse_json_markdown(text: str, *, partial: bool = False) -> Any:
    """Parse JSON that may be wrapped in a Markdown code fence (```json ... ```).

    Args:
        text: the model's output.
        partial: accept truncated JSON (see ``parse_partial_json``).

    Returns:
        The parsed value.

    Raises:
        ValueError: no JSON could be parsed.

    Example:
        >>> parse_json_markdown('Here it is:\\n```json\\n{"a": 1}\\n```')
        {'a': 1}
    """
    match = _FENCE.search(text)
    body = (match.group(1) if match else text).strip()
    if partial:
        return parse_partial_json(body)
    return json.loads(body)

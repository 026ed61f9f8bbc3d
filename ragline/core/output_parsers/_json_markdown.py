"""JSON read out of a model's reply, as functions: the parsing ``JsonOutputParser`` does,
for a program that parses a reply itself (LangChain's ``langchain_core.utils.json``).

Example:
    >>> parse_json_markdown('```json\\n{"type": "rent"}\\n```')
    {'type': 'rent'}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragline.core._partial_json import parse_json_markdown as _parse_reply
from ragline.core._partial_json import parse_partial_json
from ragline.core.exceptions import OutputParserException

__all__ = ["parse_and_check_json_markdown", "parse_json_markdown", "parse_partial_json"]


def parse_json_markdown(
    json_string: str, *, parser: Callable[[str], Any] = parse_partial_json
) -> Any:
    """Parse the JSON in a reply: the text itself, or what follows its first Markdown
    code fence (```json ... ```); JSON cut off mid-way parses to what has arrived.

    Args:
        json_string: the model's reply.
        parser: the function that reads the JSON text (stripped of blanks, backquotes
            and the fence): by default :func:`parse_partial_json`; ``json.loads`` reads
            only complete JSON.

    Returns:
        The parsed value.

    Raises:
        json.JSONDecodeError: (a ValueError, as LangChain's) no JSON could be read from
            the text.

    Example:
        >>> parse_json_markdown('Here:\\n```json\\n[{"type": "rent"}, {"type": "wat')
        [{'type': 'rent'}, {'type': 'wat'}]
    """
    if parser is parse_partial_json:
        return _parse_reply(json_string, partial=True)
    return _parse_reply(json_string, parser=parser)


def parse_and_check_json_markdown(text: str, expected_keys: Sequence[str]) -> dict[str, Any]:
    """``parse_json_markdown``, then check that the value is an object with every key of
    ``expected_keys``.

    Raises:
        OutputParserException: the text holds no JSON, or an object lacking a key.

    Example:
        >>> parse_and_check_json_markdown('{"a": 1, "b": 2}', ["a"])
        {'a': 1, 'b': 2}
    """
    try:
        value = parse_json_markdown(text)
    except ValueError as err:
        raise OutputParserException(f"the reply holds no JSON: {err}") from err
    if not isinstance(value, dict):
        raise OutputParserException(f"expected a JSON object, got {value!r:.80}")
    for key in expected_keys:
        if key not in value:
            raise OutputParserException(
                f"the JSON object lacks the key {key!r}; it has {sorted(value)}"
            )
    return value

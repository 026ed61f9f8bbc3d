"""CombiningOutputParser: several dict parsers over one reply, blocks split by blank lines.

The model writes one block per parser, separated by a blank line (two newlines); each
block, stripped, goes to its parser, and the dicts they return are merged in order (a
later key replaces an earlier one). Extra blocks are ignored; missing ones leave their
parsers unused, as in LangChain's parser of the same name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core.exceptions import InvalidInputError
from ragline.core.output_parsers._base import BaseOutputParser
from ragline.core.output_parsers._text import fields_repr

__all__ = ["CombiningOutputParser"]


class CombiningOutputParser(BaseOutputParser[dict[str, Any]]):
    """Parse a reply made of blocks, one per parser, into one dict.

    Args:
        parsers: two or more parsers that each return a dict (``RegexParser``,
            ``StructuredOutputParser``, ``JsonOutputParser`` ...).

    Raises:
        InvalidInputError: fewer than two parsers, a combining parser among them, or a
            plain list parser (its items are no dict).

    Example:
        >>> from ragline.core.output_parsers import RegexParser
        >>> parser = CombiningOutputParser(
        ...     parsers=[
        ...         RegexParser(regex=r"Answer: (.*)", output_keys=["answer"]),
        ...         RegexParser(regex=r"Score: (\\d+)", output_keys=["score"]),
        ...     ]
        ... )
        >>> parser.parse("Answer: blue\\n\\nScore: 7")
        {'answer': 'blue', 'score': '7'}
    """

    parsers: list[BaseOutputParser[Any]]

    def __init__(self, *, parsers: Sequence[BaseOutputParser[Any]], **fields: Any) -> None:
        parsers = list(parsers)
        if len(parsers) < 2:
            raise InvalidInputError("Must have at least two parsers")
        for parser in parsers:
            kind = getattr(parser, "_type", None)
            if kind == "combining":
                raise InvalidInputError("Cannot nest combining parsers")
            if kind == "list":
                raise InvalidInputError("Cannot combine list parsers")
        super().__init__(**fields)
        self.parsers = parsers

    @property
    def _type(self) -> str:
        return "combining"

    @property
    def OutputType(self) -> Any:
        return dict[str, Any]

    def __repr__(self) -> str:
        return fields_repr(self)

    def parse(self, text: str) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for block, parser in zip(text.split("\n\n"), self.parsers, strict=False):
            merged.update(parser.parse(block.strip()))
        return merged

    def get_format_instructions(self) -> str:
        first = f"Write your first output as follows: {self.parsers[0].get_format_instructions()}"
        rest = "\n".join(
            "When that output is complete, leave one blank line (two newline characters) and "
            f"write the next output as follows: {parser.get_format_instructions()}"
            for parser in self.parsers[1:]
        )
        return f"{first}\n{rest}"

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "additionalProperties": True}

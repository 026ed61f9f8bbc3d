"""Parsers of short text replies: LangChain's classic enum, datetime, yes/no and regex
parsers, and the Markdown / numbered list parsers.

``EnumOutputParser``, ``DatetimeOutputParser``, ``BooleanOutputParser``, ``RegexParser``
and ``RegexDictParser`` parse the whole reply (streamed, they give one piece at the
end, as LangChain's do). ``MarkdownListOutputParser`` and ``NumberedListOutputParser``
stream one ``[item]`` as each item is complete. Errors are LangChain's types:
``OutputParserException`` for the enum and datetime parsers, ``ValueError`` for the
others. Format instructions are in ragline's own words.

Example:
    >>> BooleanOutputParser().parse("Yes, it is.")
    True
    >>> NumberedListOutputParser().parse("1. red\\n2. green")
    ['red', 'green']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Any

from ragline.core.exceptions import OutputParserException
from ragline.core.fields import declared_fields
from ragline.core.output_parsers._base import (
    BaseOutputParser,
    ListOutputParser,
)

__all__ = [
    "BooleanOutputParser",
    "DatetimeOutputParser",
    "EnumOutputParser",
    "MarkdownListOutputParser",
    "NumberedListOutputParser",
    "RegexDictParser",
    "RegexParser",
    "fields_repr",
]


def fields_repr(parser: Any) -> str:
    """``Name(field=value, ...)`` with the fields that differ from their defaults, the
    printed form of LangChain's pydantic parsers."""
    shown = [f"name={parser.name!r}"] if parser.name else []
    for name, spec in declared_fields(type(parser)).items():
        value = getattr(parser, name)
        if spec.required or value != spec.make_default():
            shown.append(f"{name}={value!r}")
    return f"{type(parser).__name__}({', '.join(shown)})"


class _Shown:
    def __repr__(self) -> str:
        return fields_repr(self)


class EnumOutputParser(_Shown, BaseOutputParser[Any]):
    """The member of ``enum`` whose value is the reply (surrounding spaces ignored).

    Raises:
        OutputParserException: the reply is no member's value.

    Example:
        >>> class Color(Enum):
        ...     RED = "red"
        >>> EnumOutputParser(enum=Color).parse(" red\\n")
        <Color.RED: 'red'>
    """

    enum: type[Enum]

    def __post_init__(self) -> None:
        if not (isinstance(self.enum, type) and issubclass(self.enum, Enum)):
            raise TypeError(f"EnumOutputParser(enum=) takes an Enum class, got {self.enum!r}")
        if not all(isinstance(member.value, str) for member in self.enum):
            raise ValueError("EnumOutputParser: every member's value must be a str")

    @property
    def _values(self) -> list[str]:
        return [member.value for member in self.enum]

    @property
    def OutputType(self) -> Any:
        """The enum class (what ``parse`` returns)."""
        return self.enum

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        name = self.enum.__name__
        defs[name] = {"enum": self._values, "title": name, "type": "string"}
        return {"$ref": f"#/$defs/{name}"}

    def parse(self, text: str) -> Any:
        try:
            return self.enum(text.strip())
        except ValueError:
            raise OutputParserException(
                f"Response '{text}' is not one of the expected values: {self._values}",
                llm_output=text,
            ) from None

    def get_format_instructions(self) -> str:
        return f"Reply with exactly one of these values and nothing else: {', '.join(self._values)}"


class DatetimeOutputParser(_Shown, BaseOutputParser[datetime]):
    """A ``datetime`` read from the reply with ``datetime.strptime(reply, format)``.

    Raises:
        OutputParserException: the reply does not match ``format``.

    Example:
        >>> DatetimeOutputParser(format="%Y-%m-%d").parse("2024-02-29")
        datetime.datetime(2024, 2, 29, 0, 0)
    """

    format: str = "%Y-%m-%dT%H:%M:%S.%fZ"

    @property
    def _type(self) -> str:
        return "datetime"

    def parse(self, text: str) -> datetime:
        try:
            return datetime.strptime(text.strip(), self.format)
        except ValueError:
            raise OutputParserException(
                f"Could not parse datetime string: {text}", llm_output=text
            ) from None

    def get_format_instructions(self) -> str:
        samples = [
            datetime(2001, 9, 9, 1, 46, 40, 123456, tzinfo=timezone.utc) + timedelta(days=d)
            for d in (0, 4000, 8000)
        ]
        shown = ", ".join(sample.strftime(self.format) for sample in samples)
        return (
            f"Reply with one date and time written in the strftime format {self.format!r} "
            f"(for example: {shown}) and nothing else."
        )

    @property
    def OutputType(self) -> Any:
        return datetime

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string", "format": "date-time"}


class BooleanOutputParser(_Shown, BaseOutputParser[bool]):
    """True when the reply says ``true_val`` as a word, False when it says
    ``false_val`` (any case).

    Raises:
        ValueError: the reply says both, or neither.

    Example:
        >>> BooleanOutputParser().parse("no.")
        False
    """

    true_val: str = "YES"
    false_val: str = "NO"

    @property
    def _type(self) -> str:
        return "boolean_output_parser"

    def parse(self, text: str) -> bool:
        words = rf"\b({re.escape(self.true_val)}|{re.escape(self.false_val)})\b"
        said = {found.upper() for found in re.findall(words, text, flags=re.IGNORECASE)}
        true, false = self.true_val.upper() in said, self.false_val.upper() in said
        if true and false:
            raise ValueError(
                f"Ambiguous response. Both {self.true_val} and {self.false_val} in "
                f"received: {text}."
            )
        if not (true or false):
            raise ValueError(
                f"BooleanOutputParser expected output value to include either "
                f"{self.true_val} or {self.false_val}. Received {text}."
            )
        return true

    @property
    def OutputType(self) -> Any:
        return bool


class RegexParser(_Shown, BaseOutputParser[dict[str, str]]):
    """``{key: group}``: the first match of ``regex`` in the reply, its groups named by
    ``output_keys`` in order. When nothing matches, ``default_output_key`` (if given)
    gets the whole reply and the other keys ``""``.

    Raises:
        ValueError: nothing matches and there is no ``default_output_key``.

    Example:
        >>> RegexParser(regex=r"Score: (\\d+)", output_keys=["score"]).parse("Score: 7")
        {'score': '7'}
    """

    regex: str
    output_keys: list[str]
    default_output_key: str | None = None

    @property
    def _type(self) -> str:
        return "regex_parser"

    @property
    def OutputType(self) -> Any:
        return dict[str, str]

    def parse(self, text: str) -> dict[str, str]:
        match = re.search(self.regex, text)
        if match is not None:
            return {key: match.group(i + 1) for i, key in enumerate(self.output_keys)}
        if self.default_output_key is None:
            raise ValueError(f"Could not parse output: {text}")
        return {key: text if key == self.default_output_key else "" for key in self.output_keys}


class RegexDictParser(_Shown, BaseOutputParser[dict[str, str]]):
    """``{key: value}`` for each ``key: label`` of ``output_key_to_format``: the value
    is what ``regex_pattern`` (a ``str.format`` template; ``{}`` becomes the escaped
    label) captures on the one line that gives it. A value equal to ``no_update_value``
    is left out.

    Raises:
        ValueError: a label is not found, or found more than once.

    Example:
        >>> RegexDictParser(output_key_to_format={"name": "Name"}).parse("Name: Ada")
        {'name': 'Ada'}
    """

    regex_pattern: str = r"{}:\s?([^.'\n']*)\.?"
    output_key_to_format: dict[str, str]
    no_update_value: str | None = None

    @property
    def _type(self) -> str:
        return "regex_dict_parser"

    @property
    def OutputType(self) -> Any:
        return dict[str, str]

    def parse(self, text: str) -> dict[str, str]:
        result: dict[str, str] = {}
        for key, label in self.output_key_to_format.items():
            found = re.findall(self.regex_pattern.format(re.escape(label)), text)
            if not found:
                raise ValueError(
                    f"No match found for output key: {key} with expected format {label} "
                    f"on text {text}"
                )
            if len(found) > 1:
                raise ValueError(
                    f"Multiple matches found for output key: {key} with expected format "
                    f"{label} on text {text}"
                )
            if found[0] != self.no_update_value:
                result[key] = found[0]
        return result


class _LineListParser(_Shown, ListOutputParser):
    """A list read item by item with ``pattern`` (its first group is the item)."""

    pattern: str
    _flags = 0

    def parse(self, text: str) -> list[str]:
        return [found.group(1) for found in self.parse_iter(text)]

    def parse_iter(self, text: str) -> Iterator[re.Match[str]]:
        return re.finditer(self.pattern, text, self._flags)


class MarkdownListOutputParser(_LineListParser):
    """The items of a Markdown bullet list (lines starting with ``-`` or ``*``).

    Example:
        >>> MarkdownListOutputParser().parse("Colors:\\n- red\\n* green")
        ['red', 'green']
    """

    pattern: str = r"^\s*[-*]\s([^\n]+)$"
    _flags = re.MULTILINE

    def get_format_instructions(self) -> str:
        return "Reply with a Markdown bullet list, one item per line: `- first\n- second`."

    @property
    def _type(self) -> str:
        return "markdown-list"


class NumberedListOutputParser(_LineListParser):
    """The items of a numbered list (``1. item``).

    Example:
        >>> NumberedListOutputParser().parse("1. red\\n2. green")
        ['red', 'green']
    """

    pattern: str = r"\d+\.\s([^\n]+)"

    def get_format_instructions(self) -> str:
        return "Reply with a numbered list, one item per line: `1. first\n2. second`."

    @property
    def _type(self) -> str:
        return "numbered-list"

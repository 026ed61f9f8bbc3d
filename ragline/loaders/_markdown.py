"""MarkdownLoader: a Markdown file as one Document, its YAML front matter as metadata.

Front matter is a block at the very top of the file between a ``---`` line and
a closing ``---`` (or ``...``) line. Without a closing line the file has no
front matter (a leading ``---`` is then just a horizontal rule).

The front matter is read by a small built-in parser that needs no PyYAML and
gives the same result everywhere. It understands ``key: value`` lines, comments,
quoted strings (``"..."`` with JSON escapes, ``'...'``), ``true``/``false``,
``null``/``~``/empty, integers, floats, inline lists ``[a, "b", 3]`` and block
lists (``- item`` lines under ``key:``). Everything else is a plain string, so
``date: 2024-05-01`` stays the string ``"2024-05-01"``. Front matter beyond that
(nested mappings, ``|`` blocks, anchors ...) is handed to PyYAML (the ``yaml``
extra) when it is installed (dates become ISO strings, so metadata stays
JSON-friendly); without PyYAML it raises LoaderError naming the file and line.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from collections.abc import Iterator
from typing import Any

from ragline.core import Document, LoaderError
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import check_encoding, check_path, read_text

__all__ = ["MarkdownLoader", "parse_front_matter"]

_FENCE = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_KEY_LINE = re.compile(r"(?P<key>[A-Za-z0-9_][\w .\-]*?)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*-(?:[ \t]+(?P<value>.*?))?[ \t]*$")
_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_UNSUPPORTED_START = ("{", "|", ">", "&", "*", "!", "@", "`")


class _Unsupported(Exception):
    """Front matter the built-in parser does not handle (the line number is args[0])."""


def _scalar(text: str, line: int) -> Any:
    text = text.strip()
    if text.startswith('"'):
        try:
            value, end = json.JSONDecoder().raw_decode(text)
        except json.JSONDecodeError:
            raise _Unsupported(line) from None
        if text[end:].strip() and not text[end:].strip().startswith("#"):
            raise _Unsupported(line)
        return value
    if text.startswith("'"):
        match = re.fullmatch(r"'((?:[^']|'')*)'[ \t]*(?:#.*)?", text)
        if match is None:
            raise _Unsupported(line)
        return match[1].replace("''", "'")
    text = re.sub(r"(?:^|[ \t]+)#.*$", "", text)  # a comment needs a space before '#'
    if text.startswith("["):
        if not text.endswith("]"):
            raise _Unsupported(line)
        inner = text[1:-1].strip()
        return [] if not inner else [_scalar(item, line) for item in _split_items(inner, line)]
    if text.startswith(_UNSUPPORTED_START):
        raise _Unsupported(line)
    lowered = text.lower()
    if lowered in ("", "null", "~"):
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return text


def _split_items(inner: str, line: int) -> list[str]:
    items, current, quote = [], "", ""
    for char in inner:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[]{}":
            raise _Unsupported(line)  # nested collections
        elif char == ",":
            items.append(current)
            current = ""
            continue
        current += char
    return [*items, current]


def _parse_simple(block: str, first_line: int) -> dict[str, Any]:
    result: dict[str, Any] = {}
    list_key: str | None = None  # the key whose block list we are reading
    for number, raw in enumerate(block.splitlines(), start=first_line):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        item = _LIST_ITEM.fullmatch(raw)
        if item is not None and list_key is not None:
            if result[list_key] is None:  # "key:" then "- item" lines: a block list
                result[list_key] = []
            result[list_key].append(_scalar(item["value"] or "", number))
            continue
        match = _KEY_LINE.fullmatch(raw)
        if match is None or raw[0] in " \t":
            raise _Unsupported(number)
        key, value = match["key"], match["value"]
        if value is None or value.startswith("#"):  # "key:" alone: null, or a block list
            result[key], list_key = None, key
            continue
        result[key], list_key = _scalar(value, number), None
    return result


def _parse_with_pyyaml(block: str, path: str, line: int) -> dict[str, Any]:
    try:
        import yaml  # optional: only for front matter the built-in parser cannot read
    except ImportError:
        raise LoaderError(
            f"front matter of {path} uses YAML the built-in parser does not read (line {line}); "
            "install PyYAML (pip install 'ragline[yaml]') for full YAML, or simplify it to key: "
            "value lines"
        ) from None
    try:
        value = yaml.safe_load(block)
    except yaml.YAMLError as err:
        raise LoaderError(f"front matter of {path} is not valid YAML: {err}") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise LoaderError(
            f"front matter of {path} must be a mapping of keys to values, got "
            f"{type(value).__name__}"
        )
    return _jsonable(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def parse_front_matter(text: str, path: str = "<text>") -> tuple[dict[str, Any], str]:
    """Split Markdown text into (front matter, body); see the module docstring.

    Raises:
        LoaderError: the front matter cannot be read (names ``path`` and the line).

    Example:
        >>> parse_front_matter("---\\ntitle: Hi\\ntags: [a, b]\\n---\\n# Body\\n")
        ({'title': 'Hi', 'tags': ['a', 'b']}, '# Body\\n')
    """
    opening = _FENCE.match(text)
    if opening is None:
        return {}, text
    closing = _CLOSE.search(text, opening.end())
    if closing is None:
        return {}, text
    block = text[opening.end() : closing.start()]
    body = text[closing.end() :].lstrip("\r\n")
    try:
        return _parse_simple(block, first_line=2), body
    except _Unsupported as unsupported:
        return _parse_with_pyyaml(block, path, unsupported.args[0]), body


class MarkdownLoader(BaseLoader):
    """Load a Markdown file as one Document; front matter keys go into metadata.

    The content is the raw Markdown after the front matter (leading blank lines
    removed), so a Markdown-aware splitter can still see the headers. Metadata
    is the front matter's keys plus ``source``, the file path (a front-matter
    ``source`` key is replaced by it).

    Args:
        file_path: the Markdown file.
        encoding: its encoding; ``None`` means UTF-8.
        autodetect_encoding: pick the encoding as :class:`TextLoader` does.
        front_matter: ``False`` keeps the front matter in the content, unparsed.

    Raises:
        InvalidInputError: an unknown encoding (at construction).
        LoaderError: on load, the file is missing or undecodable, or its front
            matter cannot be read.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "post.md"
        >>> _ = path.write_text("---\\ntitle: Hello\\n---\\n# Hello\\n")
        >>> doc = MarkdownLoader(path).load()[0]
        >>> doc.metadata["title"], doc.page_content
        ('Hello', '# Hello\\n')
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        encoding: str | None = None,
        autodetect_encoding: bool = False,
        *,
        front_matter: bool = True,
    ) -> None:
        self.file_path = check_path(file_path)
        self.encoding = check_encoding(encoding)
        self.autodetect_encoding = autodetect_encoding
        self.front_matter = front_matter

    def lazy_load(self) -> Iterator[Document]:
        """Yield the file as one Document.

        Raises:
            LoaderError: the file is missing, undecodable, or has unreadable front matter.
        """
        path = os.fspath(self.file_path)
        text = read_text(path, self.encoding, self.autodetect_encoding)
        metadata: dict[str, Any] = {}
        if self.front_matter:
            metadata, text = parse_front_matter(text, path)
        metadata["source"] = path
        yield Document(text, metadata=metadata)

    def __repr__(self) -> str:
        return f"MarkdownLoader({os.fspath(self.file_path)!r})"

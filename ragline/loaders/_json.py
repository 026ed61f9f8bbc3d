"""JSONLoader: pick records out of JSON or JSON Lines with a small path language.

Path syntax (a subset of jq, no jq needed):

==================  ==========================================================
``.``               the whole document
``.name``           the value of key ``name`` (letters, digits, ``_``)
``."odd key"``      a key with other characters (also ``.["odd key"]``)
``[]``              every element of an array (or every value of an object)
``[2]``, ``[-1]``   one array element
==================  ==========================================================

An expression outside this subset (``.title + " " + .body``, ``select(...)``) runs
with the ``jq`` package when it is installed (LangChain's JSONLoader needs it, so a
program ported from LangChain has it); without it, the path is refused. Such an
expression reads the document only: one that uses ``$ENV`` / ``env`` (the process
environment, API keys included), ``input`` / ``inputs``, ``input_filename``, ``debug``,
``stderr``, ``halt`` or ``halt_error`` is refused when the loader is built (LangChain's
loader runs them).

Steps chain: ``.messages[].content`` yields each message's content;
``.[]`` each element of a top-level array; ``.data.items[0].text`` one value.
A step that cannot apply (a missing key, an index past the end, ``[]`` or a key
on a value of the wrong type) raises LoaderError naming the path, the file and
where it failed. An empty array simply yields no documents.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ragline.core import Document, InvalidInputError, LoaderError
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import (
    check_encoding,
    check_path,
    locate_decode_error,
    open_text,
    read_text,
)

__all__ = ["JSONContentError", "JSONLoader", "compile_path"]

_STEP = re.compile(
    r"""\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | \."(?P<quoted>(?:[^"\\]|\\.)*)"
      | \.?\[(?P<each>)\]
      | \.?\[(?P<index>-?\d+)\]
      | \.?\["(?P<bracketed>(?:[^"\\]|\\.)*)"\]""",
    re.VERBOSE,
)
Step = tuple[str, Any]  # ("key", name) | ("each", None) | ("index", n)


class JSONContentError(LoaderError, ValueError):
    """Content that is not a string where ``text_content=True`` wants one; the message
    names the path, the file and the value's kind. Caught as LoaderError (an OSError, as
    every loader's read error) or ValueError (what LangChain's JSONLoader raises there)."""


class _NoMatch(Exception):
    """A path step did not apply; the message says where and why."""


class _JqExpression:
    """A full jq expression, run by the ``jq`` package (what ``compile_path`` does not
    cover)."""

    def __init__(self, expression: str, error: InvalidInputError) -> None:
        try:
            import jq  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            raise InvalidInputError(
                f"{error}; or install the jq package to run a full jq expression"
            ) from None
        _refuse_outside_reads(expression)
        try:
            self._program = jq.compile(expression)
        except ValueError as err:
            raise InvalidInputError(f"JSON path {expression!r} is not valid jq: {err}") from None
        self.expression = expression

    def values(self, value: Any, where: str) -> Iterator[tuple[Any, str]]:
        try:
            results = self._program.input(value).all()
        except ValueError as err:
            raise _NoMatch(f"jq at {where or '.'}: {err}") from None
        for result in results:
            yield result, where or "."


JsonPath = list[Step] | _JqExpression

# jq builtins that read something besides the document (the process environment, other
# inputs, the file name, jq's module paths) or write to stderr / stop the program; and
# module directives. A loader's path reads the document only: without this check a
# path such as ``.x | $ENV.OPENAI_API_KEY`` would put a secret into the documents.
_OUTSIDE_READS = frozenset(
    {"$ENV", "env", "input", "inputs", "input_filename", "input_line_number", "debug",
     "stderr", "halt", "halt_error", "get_search_list", "import", "include", "modulemeta"}
)  # fmt: skip
_JQ_NAME = re.compile(r"\$?[A-Za-z_][A-Za-z0-9_]*")


def _jq_code_names(expression: str) -> Iterator[str]:
    """The names in ``expression``'s code: outside string literals (but inside their
    ``\\(...)`` interpolations) and comments. A ``.name`` field access and an object
    key (``{env: .x}``) are not names."""
    opened: list[str] = []  # the brackets open in code; "\\(" an interpolation's
    in_string = False
    i, n = 0, len(expression)
    while i < n:
        char = expression[i]
        if in_string:
            if char == "\\" and expression[i + 1 : i + 2] == "(":
                opened.append("\\(")
                in_string = False
                i += 2
                continue
            i += 2 if char == "\\" else 1
            if char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "#":
            end = expression.find("\n", i)
            i = n if end < 0 else end
            continue
        elif char in "([{":
            opened.append(char)
        elif char in ")]}":
            if opened and opened.pop() == "\\(":
                in_string = True  # back in the string the interpolation is part of
        else:
            match = _JQ_NAME.match(expression, i)
            if match is not None:
                name, i = match.group(), match.end()
                before = expression[: match.start()].rstrip()[-1:]
                key = (
                    opened[-1:] == ["{"]
                    and before in ("{", ",")
                    and expression[i:].lstrip().startswith(":")
                )
                if name.startswith("$") or not (before == "." or key):
                    yield name
                continue
        i += 1


def _refuse_outside_reads(expression: str) -> None:
    for name in _jq_code_names(expression):
        if name in _OUTSIDE_READS:
            raise InvalidInputError(
                f"jq expression {expression!r} uses {name!r}, which reads outside the JSON "
                "document (the environment, other inputs or files) or writes to stderr; a "
                "JSONLoader path may read the document only"
            )


def _compile(path: str) -> JsonPath:
    """``compile_path``'s steps, or a jq expression where the path is outside them."""
    try:
        return compile_path(path)
    except InvalidInputError as err:
        if not isinstance(path, str) or not path.startswith("."):
            raise
        return _JqExpression(path, err)


def _matches(value: Any, path: JsonPath, where: str = "") -> Iterator[tuple[Any, str]]:
    if isinstance(path, _JqExpression):
        return path.values(value, where)
    return _select(value, path, where)


def compile_path(path: str) -> list[Step]:
    """Parse a path expression (module docstring) into steps.

    Raises:
        InvalidInputError: the path does not follow the syntax.

    Example:
        >>> compile_path(".messages[].content")
        [('key', 'messages'), ('each', None), ('key', 'content')]
    """
    if not isinstance(path, str) or not path.startswith("."):
        raise InvalidInputError(
            f"JSON path {path!r} must start with '.', e.g. '.' or '.messages[].content'"
        )
    if path == ".":
        return []
    steps: list[Step] = []
    position = 0
    while position < len(path):
        match = _STEP.match(path, position)
        if match is None:
            raise InvalidInputError(
                f"JSON path {path!r} is not valid at position {position} ({path[position:]!r}); "
                'use steps like .key, ."odd key", [], [0]'
            )
        if match["name"] is not None:
            steps.append(("key", match["name"]))
        elif match["quoted"] is not None or match["bracketed"] is not None:
            raw = match["quoted"] if match["quoted"] is not None else match["bracketed"]
            steps.append(("key", json.loads(f'"{raw}"')))
        elif match["each"] is not None:
            steps.append(("each", None))
        else:
            steps.append(("index", int(match["index"])))
        position = match.end()
    return steps


def _select(value: Any, steps: list[Step], where: str = "") -> Iterator[tuple[Any, str]]:
    """Yield (value, location) for every match of ``steps``; raise _NoMatch if one fails."""
    if not steps:
        yield value, where or "."
        return
    (kind, arg), rest = steps[0], steps[1:]
    if kind == "key":
        if not isinstance(value, dict):
            raise _NoMatch(f"{where or '.'} is {_kind(value)}, not an object with key {arg!r}")
        if arg not in value:
            raise _NoMatch(f"no key {arg!r} at {where or '.'} (keys there: {sorted(value)})")
        yield from _select(
            value[arg], rest, f"{where}.{arg}" if arg.isidentifier() else f'{where}["{arg}"]'
        )
    elif kind == "index":
        if not isinstance(value, list):
            raise _NoMatch(f"{where or '.'} is {_kind(value)}, not an array")
        if not -len(value) <= arg < len(value):
            raise _NoMatch(f"index {arg} is out of range at {where or '.'} (length {len(value)})")
        yield from _select(value[arg], rest, f"{where}[{arg}]")
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _select(item, rest, f"{where}[{position}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _select(
                item, rest, f"{where}.{key}" if key.isidentifier() else f'{where}["{key}"]'
            )
    else:
        raise _NoMatch(f"{where or '.'} is {_kind(value)}; [] needs an array or object")


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


class JSONLoader(BaseLoader):
    """Load records from a JSON or JSON Lines file, one Document per match of a path.

    Args:
        file_path: the file.
        jq_schema: the path selecting records; the name is LangChain's, the
            language a small jq subset: ``.`` (everything), ``.key``,
            ``."odd key"`` or ``.["odd key"]``, ``[]`` (each element of an array,
            or each value of an object), ``[2]`` / ``[-1]`` (one element),
            chained as in ``.messages[].content``. A step that cannot apply (a
            missing key, an index past the end, a wrong type) is a LoaderError;
            an empty array yields nothing. Any other jq expression runs with the
            ``jq`` package if it is installed.
        content_key: take the content from this key of each record; with
            ``is_content_key_jq_parsable`` it is itself a path and must match once (a
            jq expression run by ``jq``: its first value, as LangChain's loader takes).
        is_content_key_jq_parsable: treat ``content_key`` as a path.
        metadata_func: ``metadata_func(record, metadata) -> metadata`` to add
            facts from the record (the value ``jq_schema`` selected).
        text_content: the content must be a string or ``null`` (which gives ``""``),
            else a JSONContentError (a LoaderError and a ValueError) naming where;
            ``False`` turns other values into JSON text (``null`` into ``""``), with
            non-ASCII characters escaped (``"\\u00e9"``) as LangChain's loader writes them.
        json_lines: the file has one JSON value per line (blank lines skipped);
            it is read line by line.
        encoding: the file's encoding; ``None`` means UTF-8.

    Each document's metadata holds ``source`` (the file's absolute path with links
    resolved, taken when the loader is made, as LangChain's loader stores it; the file
    read is that path too) and ``seq_num`` (1-based,
    counting across all lines of a JSON Lines file), then whatever
    ``metadata_func`` adds (``source`` is put back if it removes it).

    Raises:
        InvalidInputError: a malformed path (outside the subset, without ``jq``
            installed, not valid jq, or a jq expression reading outside the document,
            such as ``$ENV``) or unknown encoding (at construction).
        LoaderError: on load, the file is missing, not valid JSON (names the line
            and column), or the path or content key matches nothing (names the
            path, the file and where it failed); JSONContentError (also a
            ValueError) for non-string content with ``text_content=True``.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "chat.json"
        >>> _ = path.write_text('{"messages": [{"content": "hi"}, {"content": "yo"}]}')
        >>> [d.page_content for d in JSONLoader(path, ".messages[].content").load()]
        ['hi', 'yo']
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        jq_schema: str,
        content_key: str | None = None,
        is_content_key_jq_parsable: bool = False,
        metadata_func: Callable[[Any, dict[str, Any]], dict[str, Any]] | None = None,
        text_content: bool = True,
        json_lines: bool = False,
        *,
        encoding: str | None = None,
    ) -> None:
        self.file_path = check_path(file_path)
        self._source = str(Path(os.fspath(file_path)).resolve())
        self.jq_schema = jq_schema
        self._steps = _compile(jq_schema)
        self.content_key = content_key
        self.is_content_key_jq_parsable = is_content_key_jq_parsable
        self._content_steps: JsonPath | None = None
        if content_key is not None:
            self._content_steps = (
                _compile(content_key) if is_content_key_jq_parsable else [("key", content_key)]
            )
        if metadata_func is not None and not callable(metadata_func):
            raise InvalidInputError(f"metadata_func must be callable, got {metadata_func!r}")
        self.metadata_func = metadata_func
        self.text_content = text_content
        self.json_lines = json_lines
        self.encoding = check_encoding(encoding)

    def lazy_load(self) -> Iterator[Document]:
        """Yield one Document per record the path selects.

        Raises:
            LoaderError: see the class docstring.
        """
        path = self._source
        counter = 0
        for value, line in self._values(path):
            prefix = f"line {line}: " if line else ""
            try:
                for record, where in _matches(value, self._steps):
                    counter += 1
                    yield self._document(record, f"{prefix}{where}", counter, path)
            except _NoMatch as err:
                raise LoaderError(
                    f"JSON path {self.jq_schema!r} matches nothing in {path}: {prefix}{err}"
                ) from None

    def _values(self, path: str) -> Iterator[tuple[Any, int]]:
        """Yield (parsed value, line number or 0) for the file or each of its lines."""
        if not self.json_lines:
            text = read_text(path, self.encoding)
            try:
                value = json.loads(text)
            except json.JSONDecodeError as err:
                raise LoaderError(
                    f"{path} is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"
                ) from None
            except RecursionError:
                raise LoaderError(f"{path} nests arrays or objects too deeply to parse") from None
            yield value, 0
            return
        with open_text(path, self.encoding) as handle:
            try:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    try:
                        value = json.loads(line.rstrip("\r\n"))
                    except json.JSONDecodeError as err:
                        raise LoaderError(
                            f"{path} line {number} is not valid JSON: {err.msg} at column "
                            f"{err.colno}"
                        ) from None
                    except RecursionError:
                        raise LoaderError(
                            f"{path} line {number} nests arrays or objects too deeply to parse"
                        ) from None
                    yield value, number
            except UnicodeDecodeError as err:
                raise locate_decode_error(path, self.encoding or "utf-8") from err

    def _document(self, record: Any, where: str, seq_num: int, path: str) -> Document:
        content, content_where = record, where
        if self._content_steps is not None:
            try:
                matches = list(_matches(record, self._content_steps, where))
            except _NoMatch as err:
                raise LoaderError(
                    f"content_key {self.content_key!r} matches nothing in {path}: {err}"
                ) from None
            if isinstance(self._content_steps, _JqExpression):
                matches = matches[:1]  # jq's first value, as LangChain's loader takes it
            if len(matches) != 1:
                raise LoaderError(
                    f"content_key {self.content_key!r} must match one value at {where} in {path}, "
                    f"matched {len(matches)}"
                )
            content, content_where = matches[0]
        metadata: dict[str, Any] = {"source": path, "seq_num": seq_num}
        if self.metadata_func is not None:
            metadata = self.metadata_func(record, metadata)
            if not isinstance(metadata, dict):
                raise InvalidInputError(
                    f"metadata_func must return a dict, got {type(metadata).__name__}"
                )
            metadata.setdefault("source", path)
        return Document(self._text(content, content_where, path), metadata=metadata)

    def _text(self, content: Any, where: str, path: str) -> str:
        if isinstance(content, str):
            return content
        if content is None:
            return ""
        if self.text_content:
            raise JSONContentError(
                f"content at {where} in {path} is {_kind(content)}, not a string; "
                "pass text_content=False to load it as JSON text"
            )
        return "" if content is None else json.dumps(content)

    def __repr__(self) -> str:
        return f"JSONLoader({os.fspath(self.file_path)!r}, {self.jq_schema!r})"

"""Parse JSON that is still arriving: close what is open and parse what is there.

Used by the streaming JSON output parser and by ``AIMessageChunk`` (tool-call arguments
arrive as JSON text split across chunks).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["PartialJsonScanner", "parse_json_markdown", "parse_json_reply", "parse_partial_json"]

# After the first fence, everything: a string value may hold a fence of its own (code in
# an answer), so the body is not cut at the next ```; what follows the JSON is dropped
# by the parse (a cut after its closing bracket), as LangChain reads it.
_FENCE = re.compile(r"```(?:json|JSON)?(.*)", re.DOTALL)
_STRIP = " \n\r\t`"  # stripped from both ends of the text and of a fence's body
# A string (group 1 is its closing quote, None while the string is still open) or one of
# the structural characters. The regex engine skips string contents, so a scan costs a
# Python step per token, not per character.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*(")?|[\[\]{},:]')
# Characters a number or a literal (true, false, null) can be cut off in, plus blanks.
_LITERAL_CHARS = frozenset("0123456789.+-eEtrufalsn \t\r\n")


def _closers(stack: Any) -> str:
    out = []
    while stack is not None:
        out.append(stack[0])
        stack = stack[1]
    return "".join(out)


class PartialJsonScanner:
    """Scans a JSON text that keeps growing (a stream) and parses what it holds so far.

    Each ``parse(text)`` scans only what was added since the last call when ``text``
    extends the previous text (the streaming case), so a whole stream costs a scan of
    its length rather than one per chunk. Strings are skipped by the regex engine; the
    Python loop steps once per bracket, comma or colon.

    Example:
        >>> scanner = PartialJsonScanner()
        >>> scanner.parse('{"a": [1, '), scanner.parse('{"a": [1, 2]}')
        ({'a': [1]}, {'a': [1, 2]})
    """

    def __init__(self) -> None:
        self._reset("")
        self._fence_body: PartialJsonScanner | None = None

    def fence_body(self) -> PartialJsonScanner:
        """The scanner of what follows a Markdown fence in this stream's text: a second
        text, so each resumes its own scan (sharing one would rescan both per chunk)."""
        if self._fence_body is None:
            self._fence_body = PartialJsonScanner()
        return self._fence_body

    def _reset(self, text: str) -> None:
        self.text = text
        self._resume = 0  # scanning restarts here: the start of an open string, or the end
        self._stack: Any = None  # open brackets as a linked list of closers, innermost first
        self._cuts: list[tuple[int, Any]] = []  # (cut position, stack there)
        self._open_string_end: int | None = None
        self._mismatch = False  # a closing bracket that matches no open one was seen

    def _scan(self, text: str) -> None:
        if not text.startswith(self.text):
            self._reset("")
        self.text = text
        self._open_string_end = None
        stack, cuts = self._stack, self._cuts
        for match in _TOKEN.finditer(text, self._resume):
            token = match[0]
            first = token[0]
            if first == '"':
                if match[1] is None:  # still open: it runs to the end of the text
                    self._open_string_end = match.end()
                    self._resume = match.start()
                    break
            elif first == "{" or first == "[":
                stack = ("}" if first == "{" else "]", stack)
                cuts.append((match.end(), stack))
            elif first == "}" or first == "]":
                if stack is not None and stack[0] == first:
                    # two cuts giving one text: closed here, kept where the brackets
                    # open after it are those open at the end, or those open before it
                    cuts.append((match.start(), stack))
                    stack = stack[1]
                else:
                    self._mismatch = True
                cuts.append((match.end(), stack))
            else:  # , or :  -- cut before it, dropping the member that follows
                cuts.append((match.start(), stack))
        else:
            self._resume = len(text)
        self._stack = stack

    def _candidates(self) -> Iterator[str]:
        """Closed-up prefixes of the text, most complete first.

        The whole text with its open string, arrays and objects closed; then without a
        half-written number or literal at its end; then the text cut at each structural
        point (before a ``,`` or ``:``, after a bracket), latest first, where the
        brackets open there are those open at the end. Only a piece cut off the end is
        dropped, as in LangChain: text whose brackets all close but that is not JSON
        (``{'a': 1}``, ``{"a": True}``, a trailing comma) has no candidate but itself,
        so it fails rather than parse to an empty or shortened value.
        """
        text, end_stack = self.text, self._stack
        closers = _closers(end_stack)
        if self._open_string_end is not None:  # (a lone trailing backslash is dropped)
            yield text[: self._open_string_end] + '"' + closers
        else:
            yield text + closers
            start = len(text)
            while start > 1 and text[start - 1] in _LITERAL_CHARS:
                start -= 1
            for cut in range(len(text) - 1, start - 1, -1):
                yield text[:cut] + closers
        for cut, stack in reversed(self._cuts):
            if stack == end_stack:
                yield text[:cut] + closers

    def parse(self, text: str, *, strict: bool = False) -> Any:
        """Parse ``text`` (usually the previous text plus a new chunk); see
        ``parse_partial_json``."""
        load = _load_strict if strict else _load
        stripped = text.lstrip()  # blanks at the end may belong to an open string
        if stripped[:1] in ("{", "[", '"'):
            self._scan(stripped)
            if self._mismatch:  # no prefix of JSON has one: malformed, None as LangChain's
                return None
            # the first candidate is the text itself when complete
            for candidate in self._candidates():
                try:
                    return load(candidate)
                except json.JSONDecodeError:
                    continue
        try:
            # a number or literal alone, or the error to report
            return json.loads(text, strict=strict)
        except json.JSONDecodeError as err:
            # still the decoder's error (a ValueError): LangChain's raises it, programs catch it
            raise json.JSONDecodeError(f"not JSON: {err.msg}", err.doc, err.pos) from None


def _load(candidate: str) -> Any:
    # strict=False: a raw newline or tab inside a string (models write them) is kept, as
    # LangChain does
    return json.loads(candidate, strict=False)


def _load_strict(candidate: str) -> Any:
    # Only a raw newline may stand inside a string (LangChain escapes it before parsing);
    # any other raw control character there fails. A newline made a blank is whitespace
    # outside strings and an ordinary character inside, so the strict parse of that text
    # checks the rest; the value keeps the newline.
    if "\n" in candidate:
        json.loads(candidate.replace("\n", " "), strict=True)
        return json.loads(candidate, strict=False)
    return json.loads(candidate, strict=True)


def parse_partial_json(text: str, *, strict: bool = False) -> Any:
    """Parse complete or truncated JSON; a truncated document parses to what has arrived.

    Open strings, arrays and objects are closed; a trailing piece that cannot be completed
    (a half-written key, ``tru``, a dangling comma) is dropped. A closing bracket that
    matches no open one makes the text malformed: the value is ``None``, as LangChain's
    ``parse_partial_json`` gives.

    Args:
        text: JSON text, possibly cut off anywhere.
        strict: refuse a raw control character inside a string other than a newline
            (a tab, a carriage return), as LangChain's ``strict``: a complete text
            holding one raises; a cut-off one parses to a prefix that closes before it.
            By default such characters are kept, as models write them.

    Returns:
        The parsed value.

    Raises:
        json.JSONDecodeError: (a ValueError) the text is not the start of a JSON document.

    Example:
        >>> parse_partial_json('{"answer": "Par')
        {'answer': 'Par'}
        >>> parse_partial_json('{"a": "x", "b": "tab\\there', strict=True)
        {'a': 'x'}
    """
    return PartialJsonScanner().parse(text, strict=strict)


def parse_json_markdown(
    text: str,
    *,
    partial: bool = False,
    scanner: PartialJsonScanner | None = None,
    parser: Callable[[str], Any] | None = None,
) -> Any:
    """Parse JSON that may be wrapped in a Markdown code fence (```json ... ```).

    As LangChain reads a reply: the text itself, blanks and backquotes around it
    stripped; failing that, what follows the first fence, stripped the same way (a
    string value may hold fences of its own).

    Args:
        text: the model's output.
        partial: accept truncated JSON (see ``parse_partial_json``).
        scanner: with ``partial``, the scanner of this stream (it resumes where the
            previous call stopped).
        parser: instead of ``partial``, the function that reads the JSON text (the
            text, else the fence's body, stripped); a ``ValueError`` it raises on the
            text itself sends the reading to the fence.

    Returns:
        The parsed value.

    Raises:
        json.JSONDecodeError: (a ValueError) no JSON could be parsed.

    Example:
        >>> parse_json_markdown('Here it is:\\n```json\\n{"a": 1}\\n```')
        {'a': 1}
    """
    stream = (scanner or PartialJsonScanner()) if partial else None
    parse = parser or (_complete_json if stream is None else stream.parse)
    try:  # the text itself, less blanks and backquotes around it
        return parse(text.strip(_STRIP))
    except ValueError:
        match = _FENCE.search(text)
        if match is None:
            raise
    if stream is not None:  # the fence's body is another text: its own resuming scan
        parse = stream.fence_body().parse
    return parse(match.group(1).strip(_STRIP))


def _complete_json(text: str) -> Any:
    return json.loads(text, strict=False)


def parse_json_reply(text: str) -> Any:
    """A model's JSON reply, fenced or bare: complete JSON, else what a reply cut off
    (``max_tokens``) holds, as LangChain reads every reply with its partial-JSON parser.

    Raises:
        ValueError: no JSON could be parsed (the complete parse's error).

    Example:
        >>> parse_json_reply('{"action": "search", "action_input": "bees"')
        {'action': 'search', 'action_input': 'bees'}
    """
    try:
        return parse_json_markdown(text)
    except ValueError as err:
        try:
            return parse_json_markdown(text, partial=True)
        except ValueError:
            raise err from None

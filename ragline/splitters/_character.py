"""Character splitters: cut at one separator, or recursively at the first that occurs."""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypedDict

from ragline.core import InvalidInputError

from ._base import KeepSeparator, TextSplitter, check_text
from ._languages import Language, separators_for_language
from ._merge import Chunk, Merger

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "CharacterTextSplitter",
    "LatexTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "RecursiveCharacterTextSplitter",
]

# Pieces of a text: the pieces, their offsets, and the separator to re-insert between
# two of them (one string for all, or one per piece).
Pieces = tuple[list[str], list[int], "str | list[str]"]

_REGEX_METACHARACTERS = frozenset("\\.^$*+?{}[]|()")


class _Separator:
    """One separator, literal or regular expression, that cuts a text into pieces."""

    __slots__ = ("pattern", "source")

    def __init__(self, source: str, *, is_regex: bool) -> None:
        if not isinstance(source, str):
            raise InvalidInputError(f"a separator must be a str, got {type(source).__name__}")
        self.source = source
        # A regex without metacharacters is plain text: str.split is faster.
        plain = not is_regex or not any(char in _REGEX_METACHARACTERS for char in source)
        self.pattern: re.Pattern[str] | None = None
        if not plain:
            try:
                self.pattern = re.compile(source)
            except re.error as err:
                raise InvalidInputError(
                    f"separator {source!r} is not a valid regular expression: {err}"
                ) from None

    def occurs_in(self, text: str) -> bool:
        if self.pattern is None:
            return self.source in text
        return self.pattern.search(text) is not None

    def cut(self, text: str, base: int, keep: KeepSeparator, *, with_offsets: bool) -> Pieces:
        """Cut ``text`` (found at offset ``base``) into non-empty pieces.

        ``keep`` False drops the separators (they become the gaps re-inserted when
        merging); True/"start" glues each separator to the piece after it, "end" to
        the piece before it. Offsets are only computed ``with_offsets`` (else they
        are all ``base``): they cost time and only ``start_index`` needs them.
        """
        if not self.source:
            return list(text), list(range(base, base + len(text))), ""
        if self.pattern is not None:
            return self._cut_regex(text, base, keep)
        if with_offsets:
            return self._cut_literal(text, base, keep)
        separator = self.source
        parts = text.split(separator)
        if not keep:
            pieces = [part for part in parts if part]
        elif keep == "end":
            pieces = [part + separator for part in parts[:-1]]
            if parts[-1]:
                pieces.append(parts[-1])
        else:
            pieces = [parts[0]] if parts[0] else []
            pieces += [separator + part for part in parts[1:]]
        return pieces, [base] * len(pieces), separator if not keep else ""

    def _cut_literal(self, text: str, base: int, keep: KeepSeparator) -> Pieces:
        separator = self.source
        step = len(separator)
        parts = text.split(separator)
        pieces: list[str] = []
        offsets: list[int] = []
        position = base
        if not keep:
            for part in parts:
                if part:
                    pieces.append(part)
                    offsets.append(position)
                position += len(part) + step
            return pieces, offsets, separator
        if keep == "end":
            for part in parts[:-1]:
                pieces.append(part + separator)
                offsets.append(position)
                position += len(part) + step
            if parts[-1]:
                pieces.append(parts[-1])
                offsets.append(position)
            return pieces, offsets, ""
        if parts[0]:
            pieces.append(parts[0])
            offsets.append(position)
        position += len(parts[0])
        for part in parts[1:]:
            pieces.append(separator + part)
            offsets.append(position)
            position += step + len(part)
        return pieces, offsets, ""

    def _cut_regex(self, text: str, base: int, keep: KeepSeparator) -> Pieces:
        assert self.pattern is not None
        pieces: list[str] = []
        offsets: list[int] = []
        gaps: list[str] = []
        previous = 0  # where the current piece starts
        gap = ""
        for match in self.pattern.finditer(text):
            start, end = match.span()
            if not keep:
                if start > previous:
                    pieces.append(text[previous:start])
                    offsets.append(base + previous)
                    gaps.append(gap)
                gap = match.group()
                previous = end
            elif keep == "end":
                if end > previous:
                    pieces.append(text[previous:end])
                    offsets.append(base + previous)
                previous = end
            else:
                if start > previous:
                    pieces.append(text[previous:start])
                    offsets.append(base + previous)
                previous = start
        if len(text) > previous:
            pieces.append(text[previous:])
            offsets.append(base + previous)
            gaps.append(gap)
        return pieces, offsets, gaps if not keep else ""


class _MergingSplitter(TextSplitter):
    """The run both character splitters share: check the text, cut it, merge the pieces.

    Subclasses implement ``_cut_into``, which cuts ``text`` and feeds the pieces (with
    their offsets) to the merger.
    """

    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into chunks (see the class docstring).

        Raises:
            InvalidInputError: ``text`` is not a str.
        """
        return self._split(text, want_starts=False).chunks

    def _split_with_starts(self, text: str) -> list[Chunk]:
        return self._split(text, want_starts=True).with_starts()

    def _split(self, text: str, *, want_starts: bool) -> Merger:
        check_text(text)
        merger = self._merger(text, want_starts=want_starts)
        self._cut_into(text, merger)
        return merger

    @abstractmethod
    def _cut_into(self, text: str, merger: Merger) -> None:
        """Cut ``text`` (offset 0) into pieces and merge them with ``merger``."""


class CharacterTextSplitter(_MergingSplitter):
    """Split text at one separator, then merge the pieces into chunks.

    Args:
        separator: where to cut (default ``"\\n\\n"``, blank lines).
        is_separator_regex: ``separator`` is a regular expression.
        **options: the TextSplitter options (``chunk_size``, ``chunk_overlap``,
            ``length_function``, ``keep_separator`` (default False), ``add_start_index``,
            ``strip_whitespace``).

    Raises:
        InvalidInputError: a bad option, or ``separator`` is not a valid regex.

    Example:
        >>> splitter = CharacterTextSplitter(separator=" ", chunk_size=9, chunk_overlap=4)
        >>> splitter.split_text("one two three four")
        ['one two', 'two three', 'four']
    """

    def __init__(
        self,
        *,
        separator: str = "\n\n",
        is_separator_regex: bool = False,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: KeepSeparator = False,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> None:
        super().__init__(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            length_function=length_function,
            keep_separator=keep_separator,
            add_start_index=add_start_index,
            strip_whitespace=strip_whitespace,
        )
        self._separator = _Separator(separator, is_regex=is_separator_regex)
        self._is_separator_regex = is_separator_regex

    def _cut_into(self, text: str, merger: Merger) -> None:
        pieces, offsets, gaps = self._separator.cut(
            text, 0, self._keep_separator, with_offsets=merger.want_starts
        )
        merger.merge(pieces, offsets, list(map(merger.length, pieces)), gaps)


class RecursiveCharacterTextSplitter(_MergingSplitter):
    """Split text at the first separator that occurs in it, recursing into large pieces.

    Pieces shorter than ``chunk_size`` are merged into chunks; a piece that is not is
    cut again with the separators after the one used. The defaults cut at paragraphs,
    then lines, words and characters, which keeps related text together.

    Args:
        separators: tried in order (default ``["\\n\\n", "\\n", " ", ""]``). A
            one-character str is that one separator (``"\\n"`` is ``["\\n"]``, as in
            LangChain); a longer str is refused (LangChain would take each of its
            characters as a separator).
        is_separator_regex: the separators are regular expressions.
        keep_separator: default True (separators stay at the start of the next piece).
        **options: the other TextSplitter options (``chunk_size``, ``chunk_overlap``,
            ``length_function``, ``add_start_index``, ``strip_whitespace``).

    Raises:
        InvalidInputError: a bad option, an empty ``separators`` list, a ``separators``
            str longer than one character, or a separator that is not a valid regex.

    Example:
        >>> splitter = RecursiveCharacterTextSplitter(chunk_size=13, chunk_overlap=0)
        >>> splitter.split_text("First line.\\nSecond line.\\n\\nNew paragraph.")
        ['First line.', 'Second line.', 'New', 'paragraph.']
    """

    def __init__(
        self,
        *,
        separators: Sequence[str] | None = None,
        is_separator_regex: bool = False,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: KeepSeparator = True,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> None:
        super().__init__(
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            length_function=length_function,
            keep_separator=keep_separator,
            add_start_index=add_start_index,
            strip_whitespace=strip_whitespace,
        )
        if separators is None:
            separators = ["\n\n", "\n", " ", ""]
        if isinstance(separators, str) and len(separators) == 1:
            # one separator written as a str: LangChain reads a str's characters as the
            # separators, so a one-character str is that separator in both libraries
            separators = [separators]
        if isinstance(separators, str) or not separators:
            raise InvalidInputError(
                f"separators must be a non-empty list of str, got {separators!r}"
            )
        # the strings, as LangChain keeps them (subclasses read and replace them); the
        # compiled ones are made again when either attribute changes
        self._separators = list(separators)
        self._is_separator_regex = is_separator_regex
        self._compiled_key: tuple[tuple[str, ...], bool] | None = None
        self._compiled_separators = self._compiled()

    @classmethod
    def from_language(
        cls,
        language: Language | str,
        *,
        chunk_size: int = 4000,
        chunk_overlap: int = 200,
        length_function: Callable[[str], int] = len,
        keep_separator: KeepSeparator = True,
        add_start_index: bool = False,
        strip_whitespace: bool = True,
    ) -> RecursiveCharacterTextSplitter:
        """A splitter that cuts source code or markup at ``language``'s structure first.

        Args:
            language: a ``Language`` (``Language.PYTHON``) or its value (``"python"``).
            chunk_size, chunk_overlap, length_function, keep_separator,
                add_start_index, strip_whitespace: as for the constructor.

        Returns:
            A splitter with the language's regex separators.

        Raises:
            InvalidInputError: an unknown language, one without a preset, or a bad option.

        Example:
            >>> splitter = RecursiveCharacterTextSplitter.from_language(
            ...     Language.PYTHON, chunk_size=30, chunk_overlap=0)
            >>> splitter.split_text("def a():\\n    pass\\n\\ndef b():\\n    pass\\n")
            ['def a():\\n    pass', 'def b():\\n    pass']
        """
        return cls(
            separators=separators_for_language(language),
            is_separator_regex=True,
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            length_function=length_function,
            keep_separator=keep_separator,
            add_start_index=add_start_index,
            strip_whitespace=strip_whitespace,
        )

    @staticmethod
    def get_separators_for_language(language: Language | str) -> list[str]:
        """The regex separators ``from_language`` uses for ``language``."""
        return separators_for_language(language)

    def _compiled(self) -> list[_Separator]:
        """``self._separators`` compiled (again only after a change to them)."""
        key = (tuple(self._separators), bool(self._is_separator_regex))
        if getattr(self, "_compiled_key", None) != key:
            self._compiled_separators = [_Separator(s, is_regex=key[1]) for s in key[0]]
            self._compiled_key = key
        return self._compiled_separators

    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into chunks (see the class docstring).

        A subclass that overrides ``_split_text(text, separators)`` (LangChain's hook,
        as Langchain-Chatchat's ``ChineseRecursiveTextSplitter`` does) is called with
        the splitter's ``_separators``, as LangChain's ``split_text`` calls it.

        Raises:
            InvalidInputError: ``text`` is not a str.
        """
        if self._overrides_split_text():
            return self._split_text(check_text(text), self._separators)
        return super().split_text(text)

    def _split_with_starts(self, text: str) -> list[Chunk]:
        if self._overrides_split_text():  # the chunks are the subclass's: find them
            return TextSplitter._split_with_starts(self, text)
        return super()._split_with_starts(text)

    def _overrides_split_text(self) -> bool:
        return type(self)._split_text is not RecursiveCharacterTextSplitter._split_text

    def _split_text(self, text: str, separators: list[str]) -> list[str]:
        """Chunks of ``text`` cut with ``separators`` (strings, regexes when
        ``_is_separator_regex``): the recursion ``split_text`` runs with
        ``_separators``, for a subclass's override to call on a piece."""
        check_text(text)
        compiled = [_Separator(s, is_regex=bool(self._is_separator_regex)) for s in separators]
        if not compiled:
            raise InvalidInputError("separators must be a non-empty list of str, got []")
        merger = self._merger(text, want_starts=False)
        self._split_at(text, 0, 0, merger, compiled)
        return merger.chunks

    def _cut_into(self, text: str, merger: Merger) -> None:
        self._split_at(text, 0, 0, merger, self._compiled())

    def _split_at(
        self, text: str, base: int, level: int, merger: Merger, separators: list[_Separator]
    ) -> None:
        """Cut ``text`` (at offset ``base``) with ``separators[level:]``."""
        chosen = len(separators) - 1
        deeper = False  # are there separators left for pieces that are too large?
        for index in range(level, len(separators)):
            separator = separators[index]
            if not separator.source:
                chosen = index
                break
            if separator.occurs_in(text):
                chosen = index
                deeper = index + 1 < len(separators)
                break
        keep = self._keep_separator
        pieces, offsets, gaps = separators[chosen].cut(
            text, base, keep, with_offsets=merger.want_starts
        )
        length, size = merger.length, merger.size
        lengths = list(map(length, pieces))
        # Runs of pieces that fit are merged; a piece that does not is cut further.
        run_start = 0
        for index, piece_length in enumerate(lengths):
            if piece_length < size:
                continue
            if index > run_start:
                merger.merge(*_run(pieces, offsets, lengths, gaps, run_start, index))
            if deeper:
                self._split_at(pieces[index], offsets[index], chosen + 1, merger, separators)
            else:
                merger.add(pieces[index], offsets[index])
            run_start = index + 1
        if len(pieces) > run_start:
            merger.merge(*_run(pieces, offsets, lengths, gaps, run_start, len(pieces)))


def _run(
    pieces: list[str],
    offsets: list[int],
    lengths: list[int],
    gaps: str | list[str],
    start: int,
    end: int,
) -> tuple[list[str], list[int], list[int], str | list[str]]:
    """The pieces[start:end] with their offsets, lengths and gaps (no copy if all)."""
    if start == 0 and end == len(pieces):
        return pieces, offsets, lengths, gaps
    return (
        pieces[start:end],
        offsets[start:end],
        lengths[start:end],
        gaps if isinstance(gaps, str) else gaps[start:end],
    )


class PresetOptions(TypedDict, total=False):
    """The options of a splitter whose separators are a language preset."""

    chunk_size: int
    chunk_overlap: int
    length_function: Callable[[str], int]
    keep_separator: KeepSeparator
    add_start_index: bool
    strip_whitespace: bool


class MarkdownTextSplitter(RecursiveCharacterTextSplitter):
    """A recursive splitter with the Markdown preset's separators, read as plain text.

    Takes the RecursiveCharacterTextSplitter options except ``separators``. As in
    LangChain, the preset's patterns are matched literally here (``"\\n#{1,6} "`` never
    occurs, so headings are cut at blank lines and line breaks like any paragraph); for
    the patterns as regular expressions use
    ``RecursiveCharacterTextSplitter.from_language(Language.MARKDOWN)``.

    Example:
        >>> splitter = MarkdownTextSplitter(chunk_size=12, chunk_overlap=0)
        >>> splitter.split_text("# A\\ntext\\n## B\\nmore")
        ['# A\\ntext', '## B\\nmore']
    """

    def __init__(self, **options: Unpack[PresetOptions]) -> None:
        super().__init__(
            separators=separators_for_language(Language.MARKDOWN),
            is_separator_regex=False,
            **options,
        )


class PythonCodeTextSplitter(RecursiveCharacterTextSplitter):
    """A recursive splitter with the Python preset (classes and functions first)."""

    def __init__(self, **options: Unpack[PresetOptions]) -> None:
        super().__init__(
            separators=separators_for_language(Language.PYTHON), is_separator_regex=True, **options
        )


class LatexTextSplitter(RecursiveCharacterTextSplitter):
    """A recursive splitter with the LaTeX preset's separators, read as plain text.

    As in LangChain, the preset's patterns (``"\\n\\\\section{"`` ...) are matched
    literally, so the text is cut at blank lines, line breaks and spaces; for sections and
    environments first use ``RecursiveCharacterTextSplitter.from_language(Language.LATEX)``.
    """

    def __init__(self, **options: Unpack[PresetOptions]) -> None:
        super().__init__(
            separators=separators_for_language(Language.LATEX), is_separator_regex=False, **options
        )

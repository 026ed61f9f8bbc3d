"""Split Markdown along its sections: every chunk inside one section, with its heading path.

What ``ragline index`` does with Markdown files and HTML pages (which the loaders turn
into Markdown-like text, :func:`ragline.loaders._html.structured_text`). A section runs
from an ATX heading line (``#`` to ``######``, outside fenced code) to the next heading;
it is cut into chunks by the Markdown preset of the recursive splitter (paragraphs,
lines, words), so no chunk spans two sections. A heading followed directly by another
heading (``# Page`` then ``## First part``) has no text of its own: it joins the section
that follows, so no chunk is a lone heading line.

Each chunk's metadata gets ``section``: the titles of the headings it is under, joined
by ``" > "`` (``logging.handlers — Logging handlers > RotatingFileHandler``). Titles are
cleaned for the path: a trailing permalink mark (``¶``, ``§``, ``#``), a trailing
``{#anchor}`` attribute and inline ``<a id=...></a>`` anchors are left out, and a long
title that reads as a signature (``math.isclose(a, b, *, rel_tol=1e-09)``: a name with
``(`` right after it) is
shown as its name (``math.isclose()``). The chunk text itself is the document's
text, unchanged, so ``start_index`` points at it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from ragline.core import Document, InvalidInputError

from ._base import TextSplitter, check_text
from ._character import RecursiveCharacterTextSplitter
from ._languages import Language
from ._merge import Chunk

__all__ = ["MarkdownSectionSplitter", "heading_title"]

# an ATX heading; a closing run of '#' counts only after a space ("## C#" is about C#)
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$|^ {0,3}(#{1,6})[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_ANCHOR_TAG = re.compile(r"<a\s[^>]*>\s*</a>", re.IGNORECASE)
_ATTRIBUTES = re.compile(r"\s*\{#[^}]*\}\s*$")
# trailing permalink marks: a pilcrow, section sign or link symbol; "#" only after a space
_MARKS = re.compile(r"(?:\s*[¶§🔗])+$|\s+#$")
# a signature: an optional word (class, async ...), a dotted name, then "(" right after it
_SIGNATURE = re.compile(r"((?:[a-z]+ )?[A-Za-z_][\w.]*)\(")
_TITLE_AT = 100  # a longer title is cut, with an ellipsis


def heading_title(raw: str) -> str:
    """The title a heading's text stands for in a heading path (rules in the module
    docstring).

    Example:
        >>> heading_title("Listening to signals¶")
        'Listening to signals'
        >>> heading_title("class logging.handlers.RotatingFileHandler(filename, mode='a')")
        'class logging.handlers.RotatingFileHandler()'
        >>> heading_title("Functions (general purpose)")
        'Functions (general purpose)'
    """
    title = _ATTRIBUTES.sub("", _ANCHOR_TAG.sub("", raw))
    title = _MARKS.sub("", " ".join(title.split()))
    signature = _SIGNATURE.match(title)
    if signature is not None:
        return signature.group(1) + "()"
    if len(title) > _TITLE_AT:
        return title[: _TITLE_AT - 1].rstrip() + "…"
    return title


class _Section:
    __slots__ = ("end", "path", "start")

    def __init__(self, start: int, end: int, path: tuple[str, ...]) -> None:
        self.start, self.end, self.path = start, end, path


class MarkdownSectionSplitter(TextSplitter):
    """Cut Markdown into chunks that each stay inside one section, with its heading path.

    A ragline splitter (LangChain has none that does both): ``MarkdownHeaderTextSplitter``
    gives whole sections, however long, and drops the heading lines; the recursive
    splitter's Markdown preset cuts at headings but merges small sections into one
    chunk and records no path. This one keeps the heading line in its section's first
    chunk and puts the path in ``metadata["section"]`` (absent for text before the
    first heading).

    Args:
        chunk_size: the largest chunk in characters (default 1000); the first chunk of a
            section longer than that also holds the heading line, so it can be longer
            by that line (a heading is never a chunk by itself).
        chunk_overlap: characters repeated between chunks of one section (default 150;
            never across sections).
        add_start_index: put each chunk's offset in its document into
            ``metadata["start_index"]``.
        path_separator: what joins the titles of the path (default ``" > "``).

    Raises:
        InvalidInputError: ``chunk_overlap`` is not smaller than ``chunk_size``, or
            ``path_separator`` is not a non-empty str.

    Example:
        >>> splitter = MarkdownSectionSplitter(chunk_size=40, chunk_overlap=0)
        >>> text = "# Guide\\n\\n## Install¶\\n\\nRun pip.\\n\\n## Use\\n\\nImport it."
        >>> for chunk in splitter.create_documents([text]):
        ...     print(repr(chunk.page_content), chunk.metadata["section"])
        '# Guide\\n\\n## Install¶\\n\\nRun pip.' Guide > Install
        '## Use\\n\\nImport it.' Guide > Use
    """

    def __init__(
        self,
        chunk_size: int = 1000,
        chunk_overlap: int = 150,
        *,
        add_start_index: bool = False,
        path_separator: str = " > ",
    ) -> None:
        super().__init__(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=add_start_index
        )
        if not isinstance(path_separator, str) or not path_separator:
            raise InvalidInputError(
                f"path_separator must be a non-empty str, got {path_separator!r}"
            )
        self.path_separator = path_separator
        self._inner = RecursiveCharacterTextSplitter.from_language(
            Language.MARKDOWN, chunk_size=chunk_size, chunk_overlap=chunk_overlap
        )

    def sections(self, text: str) -> list[tuple[int, int, tuple[str, ...]]]:
        """The sections of ``text``: ``(start, end, heading path)``, in order, covering it.

        Example:
            >>> MarkdownSectionSplitter().sections("intro\\n# A\\nx\\n## B\\ny")
            [(0, 6, ()), (6, 12, ('A',)), (12, 18, ('A', 'B'))]
        """
        check_text(text)
        found: list[_Section] = [_Section(0, 0, ())]
        open_headings: list[tuple[int, str]] = []  # (level, title) of the enclosing headings
        fence = ""
        offset = 0
        for line in text.splitlines(keepends=True):
            start, offset = offset, offset + len(line)
            fenced = _FENCE.match(line)
            if fence:
                if fenced is not None and fenced.group(1) == fence:
                    fence = ""
                continue
            if fenced is not None:
                fence = fenced.group(1)
                continue
            match = _HEADING.match(line.rstrip("\r\n"))
            if match is None:
                continue
            level = len(match.group(1) or match.group(3))
            while open_headings and open_headings[-1][0] >= level:
                open_headings.pop()
            open_headings.append((level, heading_title(match.group(2) or "")))
            found[-1].end = start
            found.append(_Section(start, start, tuple(t for _, t in open_headings if t)))
        found[-1].end = len(text)
        merged: list[_Section] = []
        carry: int | None = None  # where heading-only sections began, waiting for a body
        for number, section in enumerate(found):
            body = text[section.start : section.end]
            if section.path:  # leave the heading line out
                body = body.split("\n", 1)[1] if "\n" in body else ""
            if not body.strip() and number < len(found) - 1:
                if section.path and carry is None:
                    carry = section.start
                continue
            if carry is not None:
                section.start, carry = carry, None
            if text[section.start : section.end].strip():
                merged.append(section)
        return [(s.start, s.end, s.path) for s in merged]

    def _split_with_paths(self, text: str) -> list[tuple[str, int, tuple[str, ...]]]:
        pieces = []
        for start, end, path in self.sections(text):
            chunks = self._inner._split_with_starts(text[start:end])
            if len(chunks) > 1 and path and _HEADING.match(chunks[0][0]):
                # a heading line alone: it goes with the text that follows it
                (_, first), (second, offset) = chunks[0], chunks[1]
                chunks[:2] = [(text[start + first : start + offset + len(second)], first)]
            for chunk, offset in chunks:
                pieces.append((chunk, start + offset, path))
        return pieces

    def split_text(self, text: str) -> list[str]:
        """Split ``text`` into chunks, each inside one section.

        Raises:
            InvalidInputError: ``text`` is not a str.
        """
        return [chunk for chunk, _, _ in self._split_with_paths(check_text(text))]

    def _split_with_starts(self, text: str) -> list[Chunk]:
        return [(chunk, start) for chunk, start, _ in self._split_with_paths(text)]

    def create_documents(
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any]] | None = None
    ) -> list[Document]:
        """Split texts into Documents with ``section`` (and, with ``add_start_index``,
        ``start_index``) in their metadata; otherwise as ``TextSplitter.create_documents``.

        Raises:
            InvalidInputError: as ``TextSplitter.create_documents``.
        """
        if isinstance(texts, str):
            raise InvalidInputError("texts must be a list of str, got a str; pass [text]")
        texts = [check_text(text) for text in texts]
        given = list(metadatas) if metadatas is not None else [{}] * len(texts)
        if len(given) != len(texts):
            raise InvalidInputError(
                f"metadatas has {len(given)} items but texts has {len(texts)}; "
                "give one metadata dict per text"
            )
        for metadata in given:
            if not isinstance(metadata, dict):
                raise InvalidInputError(f"metadatas must hold dicts, got {type(metadata).__name__}")
        documents = []
        for text, metadata in zip(texts, given, strict=True):
            for chunk, start, path in self._split_with_paths(text):
                chunk_metadata = copy.deepcopy(metadata)
                if path:
                    chunk_metadata["section"] = self.path_separator.join(path)
                if self._add_start_index:
                    chunk_metadata["start_index"] = start
                documents.append(Document(chunk, metadata=chunk_metadata))
        return documents

"""HTML to text with BeautifulSoup: LangChain's ``get_text()``, or the visible text.

Shared by :class:`BSHTMLLoader` (files) and ``WebBaseLoader`` (pages over HTTP).
``bs4`` is imported only when a page is parsed (the ``html`` extra). By default both
give BeautifulSoup's ``get_text()``, as LangChain's loaders do; ``visible=True`` gives
the visible text below, ``structured=True`` the structured text.

Visible text: ``<script>``, ``<style>``, ``<noscript>``, ``<template>``, ``<head>``
(and so ``<title>``), ``<svg>``, ``<iframe>``, comments and elements with the
``hidden`` attribute are dropped. Whitespace runs collapse to one space, as a
browser shows them; block elements (``<p>``, ``<div>``, ``<li>``, headings, table
rows, ``<br>`` ...) start a new line; blank lines are dropped.

:func:`structured_text` keeps more of the page's structure for splitting (``ragline
index`` loads HTML this way): headings become Markdown heading lines (``## Title``), a
blank line separates paragraphs, lists, tables and code blocks, list items and table rows
stay one per line, and the text of ``<pre>`` keeps its line breaks. A splitter can then
cut at headings first, then paragraphs, lines and words (the Markdown preset), never
inside a word. Navigation (``<nav>``, ``role="navigation"``: Sphinx's sidebar and
related-pages bars) is left out. Code blocks are fenced (```` ``` ````), so a ``#
comment`` in code is not taken for a heading. Permalink marks (Sphinx's ``<a
class="headerlink">¶</a>``, any in-page link whose whole text is ``¶``, ``§``, ``#`` or
``🔗``) are dropped. A term of a definition list that has an ``id`` (an API entry in
Sphinx: ``<dt id="math.isclose">``, a glossary term) is a heading one level below the
heading it is under, so its signature starts the section that holds its description
(``<dd>``); a nested entry (a method in a class's ``<dd>``) goes one level deeper.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ragline.core import Document, InvalidInputError, LoaderError
from ragline.core._optional import require
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import (
    check_encoding,
    check_path,
    decode,
    read_bytes,
    universal_newline_bytes,
    universal_newlines,
)

__all__ = ["BSHTMLLoader", "page_text", "parse_html", "structured_text", "visible_text"]

_INVISIBLE = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "title",
        "meta",
        "link",
        "svg",
        "iframe",
        "object",
        "embed",
        "canvas",
    }
)
_BLOCK = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    }
)
_WHITESPACE = re.compile(r"\s+")
_CELL = frozenset({"td", "th"})
BS_KWARGS = frozenset({"features", "parse_only", "from_encoding", "exclude_encodings"})


def check_bs_kwargs(bs_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return a copy of ``bs_kwargs``; an unknown key is an error naming it."""
    kwargs = dict(bs_kwargs or {})
    unknown = sorted(set(kwargs) - BS_KWARGS)
    if unknown:
        raise InvalidInputError(
            f"unknown bs_kwargs key(s) {', '.join(map(repr, unknown))}; "
            f"valid keys: {', '.join(sorted(BS_KWARGS))}"
        )
    kwargs.setdefault("features", "html.parser")
    return kwargs


def parse_html(markup: str | bytes, bs_kwargs: Mapping[str, Any] | None = None) -> Any:
    """Parse markup with BeautifulSoup (``html.parser`` unless ``features`` says otherwise).

    Raises:
        MissingDependencyError: beautifulsoup4 is not installed (extra ``html``).
    """
    bs4 = require("bs4", "html", package="beautifulsoup4")
    return bs4.BeautifulSoup(markup, **check_bs_kwargs(bs_kwargs))


def _visible_pieces(root: Any, *, layout: bool) -> Iterator[str]:
    """Yield visible strings; with ``layout``, ``"\\n"`` marks block boundaries."""
    bs4 = require("bs4", "html", package="beautifulsoup4")
    text_types = (bs4.NavigableString, bs4.CData)
    # An explicit stack, not recursion: malformed pages can nest thousands deep.
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            yield "\n"
            continue
        if isinstance(node, bs4.NavigableString):
            if type(node) in text_types:  # skips comments, doctypes, declarations
                # Newlines inside text are plain whitespace; only blocks break lines.
                yield _WHITESPACE.sub(" ", node) if layout else str(node)
            continue
        if node.name in _INVISIBLE or node.has_attr("hidden"):
            continue
        if layout and node.name in _BLOCK:
            yield "\n"
            stack.append((node, True))
        elif layout and node.name in _CELL:
            yield " "
        stack.extend((child, False) for child in reversed(node.contents))


# blocks that start a paragraph (a blank line) in structured text; the other _BLOCK
# elements (li, tr, dt, dd, br, option ...) start a line
_PARAGRAPH = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "details",
        "dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form",
        "header", "hgroup", "hr", "html", "main", "nav", "ol", "p", "pre", "section",
        "summary", "table", "ul",
    }
)  # fmt: skip
_HEADING_LEVEL = {f"h{level}": level for level in range(1, 7)}
_BLANK_RUNS = re.compile(r"\n\s*\n\s*")
_EXTRA_BLANKS = re.compile(r"\n{3,}")
_PRE_PROTECT = str.maketrans({"\n": "\x00", " ": "\x01", "\t": "\x01"})
_PRE_RESTORE = str.maketrans({"\x00": "\n", "\x01": " "})
_PERMALINK_MARKS = frozenset({"¶", "§", "#", "🔗"})
_FENCE_OPEN, _FENCE_CLOSE = "\x02", "\x03"
_FENCES = (
    (re.compile(_FENCE_OPEN + "\n*"), "```\n"),
    (re.compile("\n*" + _FENCE_CLOSE), "\n```"),
)


def _is_permalink(node: Any) -> bool:
    """A permalink mark: Sphinx's ``headerlink`` anchor, or an in-page link whose whole
    text is a mark such as ``¶`` (it is noise in every heading it follows)."""
    if node.name != "a":
        return False
    if "headerlink" in (node.get("class") or ()):
        return True
    href = node.get("href") or ""
    return href.startswith("#") and node.get_text().strip() in _PERMALINK_MARKS


def _entry_level(node: Any, heading_level: int) -> int | None:
    """The heading level of a definition term with an ``id`` (an API entry), else None."""
    if node.name != "dt" or not node.get("id"):
        return None
    depth = sum(1 for _ in node.find_parents("dd"))
    return min(6, heading_level + 1 + depth)


def structured_text(soup: Any) -> str:
    """The visible text with its structure: Markdown headings, paragraphs, lines.

    Example:
        >>> soup = parse_html("<h1>Intro</h1><p>One  two.</p><ul><li>a</li><li>b</li></ul>")
        >>> print(structured_text(soup))
        # Intro
        <BLANKLINE>
        One two.
        <BLANKLINE>
        a
        b
    """
    bs4 = require("bs4", "html", package="beautifulsoup4")
    text_types = (bs4.NavigableString, bs4.CData)
    pieces: list[str] = []
    heading_level = 0  # the level of the last <h1>-<h6>: API entries go below it
    # (node, what to write when leaving it or None, inside <pre>); an explicit stack:
    # pages can nest thousands deep
    stack: list[tuple[Any, str | None, bool]] = [(soup, None, False)]
    while stack:
        node, closing, in_pre = stack.pop()
        if closing is not None:  # paragraphs, headings and code blocks push one
            pieces.append(closing)
            continue
        if isinstance(node, bs4.NavigableString):
            if type(node) in text_types:
                if in_pre:  # code keeps its lines and indentation (protected from tidying)
                    pieces.append(str(node).translate(_PRE_PROTECT))
                else:
                    pieces.append(_WHITESPACE.sub(" ", node))
            continue
        if (
            node.name in _INVISIBLE
            or node.name == "nav"
            or node.get("role") == "navigation"
            or node.has_attr("hidden")
            or _is_permalink(node)
        ):
            continue
        level = _HEADING_LEVEL.get(node.name)
        if level is not None:
            heading_level = level
        else:
            level = _entry_level(node, heading_level)
        if level is not None:
            pieces.append("\n\n" + "#" * level + " ")
            stack.append((node, "\n\n", in_pre))
        elif node.name == "pre" and not in_pre:
            pieces.append("\n\n" + _FENCE_OPEN)
            stack.append((node, _FENCE_CLOSE + "\n\n", in_pre))
        elif node.name in _PARAGRAPH:
            pieces.append("\n\n")
            stack.append((node, "\n\n", in_pre))
        elif node.name in _BLOCK:
            pieces.append("\n")
        elif node.name in _CELL:
            pieces.append(" ")
        inside = in_pre or node.name == "pre"
        stack.extend((child, None, inside) for child in reversed(node.contents))
    text = "".join(pieces)
    # tidy each line (a heading's text runs to the line end), then the blank lines
    lines = (" ".join(line.split()) for line in text.split("\n"))
    text = "\n".join(lines)
    text = _BLANK_RUNS.sub("\n\n", text).strip()
    text = _EXTRA_BLANKS.sub("\n\n", text.translate(_PRE_RESTORE))
    for fence, replacement in _FENCES:
        text = fence.sub(replacement, text)
    return text


def visible_text(soup: Any, separator: str | None = None) -> str:
    """The text a reader sees on the page (rules in the module docstring).

    Args:
        soup: a parsed page (see :func:`parse_html`).
        separator: ``None`` for line-per-block layout; a string to join the
            stripped visible strings with it instead (LangChain's
            ``get_text_separator``).
    """
    if separator is not None:
        pieces = (piece.strip() for piece in _visible_pieces(soup, layout=False))
        return separator.join(piece for piece in pieces if piece)
    text = "".join(_visible_pieces(soup, layout=True))
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def page_title(soup: Any, *, collapse: bool = True) -> str | None:
    """The ``<title>`` text (whitespace collapsed unless ``collapse=False``), or None
    without a title."""
    title = soup.find("title")
    if title is None:
        return None
    text = title.get_text()
    return " ".join(text.split()) if collapse else text


def page_text(soup: Any, separator: str | None, *, visible: bool, structured: bool) -> str:
    """A page's text: LangChain's ``soup.get_text(separator)`` (every text node but
    scripts, styles and comments, the title included, with the page's own line breaks) unless
    ``visible`` (:func:`visible_text`) or ``structured`` (:func:`structured_text`)."""
    if structured:
        return structured_text(soup)
    if visible:
        return visible_text(soup, separator)
    return str(soup.get_text(separator or ""))


def check_text_options(owner: str, separator: str | None, visible: bool, structured: bool) -> None:
    """``structured`` takes no separator and excludes ``visible``."""
    if structured and (visible or separator is not None):
        raise InvalidInputError(
            f"{owner}: structured=True cannot be combined with visible=True or get_text_separator"
        )


class BSHTMLLoader(BaseLoader):
    """Load an HTML file's text, with its ``title`` in metadata.

    By default the text is LangChain's: BeautifulSoup's ``get_text()``, every text node
    in document order with the page's own line breaks (the ``<title>``, ``<noscript>``
    and hidden elements included; BeautifulSoup leaves out scripts, styles and
    comments), and the title as written. ``visible=True`` gives the text a reader sees
    instead (no head, scripts, styles or hidden elements; one line per block; whitespace
    cleaned; the title's whitespace collapsed), which keeps code out of chunks and
    embeddings; ``structured=True`` also keeps headings and paragraphs for splitting.

    Args:
        file_path: the HTML file.
        open_encoding: decode the file strictly with this encoding; ``None`` lets
            BeautifulSoup decide from a byte-order mark, ``<meta charset>``, or by
            detection. Either way line ends are read as Python's text mode reads them
            (``"\\r\\n"`` and a lone ``"\\r"`` become ``"\\n"``), as LangChain's loader
            opens the file.
        bs_kwargs: keyword arguments for ``BeautifulSoup`` (``features`` -
            default ``"html.parser"`` - ``parse_only``, ``from_encoding``,
            ``exclude_encodings``); another key is an error.
        get_text_separator: joins the text nodes (``get_text``'s separator; ``None``
            is ``""``); with ``visible=True``, ``None`` puts each block element on its
            own line and a string joins the visible strings with it.
        visible: the visible text, cleaned (see above), and the title collapsed.
        structured: the visible text with the page's structure (:func:`structured_text`:
            Markdown headings, blank lines between paragraphs) for splitting, title
            collapsed; ``ragline index`` loads HTML this way.

    Raises:
        InvalidInputError: unknown ``bs_kwargs`` key or encoding (at construction).
        MissingDependencyError: beautifulsoup4 is missing (on load).
        LoaderError: the file is missing or not valid in ``open_encoding`` (on load).

    Malformed HTML (unclosed or stray tags) is parsed, never an error: the parser
    repairs it the way ``html.parser`` does.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "page.html"
        >>> _ = path.write_text("<title>T</title><p>Hi<script>x()</script></p>")
        >>> doc = BSHTMLLoader(path).load()[0]
        >>> doc.page_content, doc.metadata["title"]
        ('THi', 'T')
        >>> BSHTMLLoader(path, visible=True).load()[0].page_content
        'Hi'
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        open_encoding: str | None = None,
        bs_kwargs: Mapping[str, Any] | None = None,
        get_text_separator: str | None = None,
        *,
        visible: bool = False,
        structured: bool = False,
    ) -> None:
        check_text_options("BSHTMLLoader", get_text_separator, visible, structured)
        self.file_path = check_path(file_path)
        self.open_encoding = check_encoding(open_encoding)
        self.bs_kwargs = check_bs_kwargs(bs_kwargs)
        self.get_text_separator = get_text_separator
        self.visible = visible
        self.structured = structured

    def lazy_load(self) -> Iterator[Document]:
        """Yield the page as one Document with ``source`` and ``title`` metadata.

        Raises:
            LoaderError: the file is missing, unreadable or undecodable.
        """
        # line ends as text mode reads them: LangChain's loader opens the file in it
        data = read_bytes(self.file_path)
        markup: str | bytes
        if self.open_encoding is None:
            markup = universal_newline_bytes(data, self.bs_kwargs.get("from_encoding"))
        else:
            text = decode(data, self.file_path, self.open_encoding, autodetect=False)
            markup = universal_newlines(text)
        try:
            soup = parse_html(markup, self.bs_kwargs)
        except (ValueError, LookupError) as err:  # e.g. a bad from_encoding
            raise LoaderError(f"cannot parse {os.fspath(self.file_path)}: {err}") from err
        cleaned = self.visible or self.structured
        title = page_title(soup, collapse=cleaned) or ""
        metadata = {"source": os.fspath(self.file_path), "title": title}
        text = page_text(
            soup, self.get_text_separator, visible=self.visible, structured=self.structured
        )
        yield Document(text, metadata=metadata)

    def __repr__(self) -> str:
        return f"BSHTMLLoader({os.fspath(self.file_path)!r})"

"""HTMLHeaderTextSplitter: HTML to Documents, one section per header, as LangChain's.

The page (its ``<body>`` when it has one) is read element by element in document
order; each element contributes its own text (the strings directly inside it, each
stripped, joined by spaces; blank ones skipped). An element named in
``headers_to_split_on`` with non-blank text of its own is a header: it becomes a
Document of its own and sets its metadata key, dropping the keys of headers of the same
or a deeper level (``h2`` is level 2). The text between two headers becomes one
Document (its pieces joined by two spaces and a line break), or one per element with
``return_each_element=True``; each carries the metadata of the headers above it.
Needs beautifulsoup4 (the ``html`` extra).

Example:
    >>> splitter = HTMLHeaderTextSplitter([("h1", "Header 1"), ("h2", "Header 2")])
    >>> [(d.page_content, d.metadata) for d in splitter.split_text(
    ...     "<h1>Intro</h1><p>Hello.</p><h2>Part</h2><p>One.</p><p>Two.</p>")]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('Intro', {'Header 1': 'Intro'}), ('Hello.', {'Header 1': 'Intro'}),
     ('Part', {'Header 1': 'Intro', 'Header 2': 'Part'}),
     ('One.  \\nTwo.', {'Header 1': 'Intro', 'Header 2': 'Part'})]
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragline.core import Document, InvalidInputError
from ragline.core._optional import require

__all__ = ["HTMLHeaderTextSplitter"]


class HTMLHeaderTextSplitter:
    """Split HTML at its headers; see the module docstring.

    Args:
        headers_to_split_on: ``(tag, metadata key)`` pairs, e.g. ``[("h1", "Header 1")]``.
        return_each_element: one Document per element instead of one per section.

    Raises:
        InvalidInputError: ``headers_to_split_on`` is not a list of (str, str) pairs.
    """

    def __init__(
        self, headers_to_split_on: Sequence[tuple[str, str]], return_each_element: bool = False
    ) -> None:
        pairs = list(headers_to_split_on)
        if not all(
            isinstance(p, (tuple, list))
            and len(p) == 2
            and all(isinstance(x, str) for x in p)
            and p[0][1:].isdigit()
            for p in pairs
        ):
            raise InvalidInputError(
                "HTMLHeaderTextSplitter headers_to_split_on must be (header tag, name) pairs "
                f"of str such as ('h2', 'Header 2'), got {headers_to_split_on!r}"
            )
        # by level, as LangChain keeps them; tags are matched as given (bs4 names are
        # lower case, so write 'h2')
        self.headers_to_split_on = sorted(
            ((tag, name) for tag, name in pairs), key=lambda pair: int(pair[0][1:])
        )
        self.return_each_element = return_each_element
        self._names = dict(self.headers_to_split_on)
        self._levels = {tag: int(tag[1:]) for tag, _ in self.headers_to_split_on}

    def split_text(self, text: str) -> list[Document]:
        """Split an HTML string."""
        if not isinstance(text, str):
            raise InvalidInputError(
                f"HTMLHeaderTextSplitter.split_text takes a str, got {type(text).__name__}"
            )
        bs4 = require("bs4", "html", package="beautifulsoup4")
        soup = bs4.BeautifulSoup(text, "html.parser")
        return self._split(soup.body or soup)

    def split_text_from_file(self, file: Any) -> list[Document]:
        """Split the HTML of a file: a path (read as UTF-8), or an open text file."""
        if isinstance(file, (str, Path)):
            html = Path(file).read_text(encoding="utf-8")
        else:
            html = file.read()
        return self.split_text(html)

    def _split(self, root: Any) -> list[Document]:
        documents: list[Document] = []
        # tag -> (level, text, depth in the page) of the headers in force
        headers: dict[str, tuple[int, str, int]] = {}
        pending: list[str] = []

        def metadata() -> dict[str, str]:
            return {self._names[tag]: text for tag, (_, text, _) in headers.items()}

        def flush() -> None:
            if pending:
                documents.append(Document(page_content="  \n".join(pending), metadata=metadata()))
                pending.clear()

        for element, depth in _in_order(root):
            own = " ".join(
                piece.strip()
                for piece in element.find_all(string=True, recursive=False)
                if piece.strip()
            )
            if not own:
                continue
            tag = element.name or ""
            if tag in self._names:
                flush()
                level = self._levels[tag]
                for other in [t for t, (lv, _, _) in headers.items() if lv >= level]:
                    del headers[other]
                headers[tag] = (level, own, depth)
                documents.append(Document(page_content=own, metadata=metadata()))
                continue
            # a header stops applying at the first other text above its nesting level
            for gone in [t for t, (_, _, d) in headers.items() if d > depth]:
                del headers[gone]
            if self.return_each_element:
                documents.append(Document(page_content=own, metadata=metadata()))
            else:
                pending.append(own)
        flush()
        return documents


def _in_order(root: Any) -> list[tuple[Any, int]]:
    """Every element under ``root`` (itself first) in document order, with its depth."""
    found: list[tuple[Any, int]] = []
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        found.append((element, depth))
        children = [c for c in element.children if getattr(c, "name", None) is not None]
        stack.extend((child, depth + 1) for child in reversed(children))
    return found

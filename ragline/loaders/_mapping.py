"""Which loader reads which file suffix: the default ``DirectoryLoader`` users reach for.

``DEFAULT_LOADER_MAPPING`` maps a lower-case suffix to a loader class; every other file is
plain text (:class:`TextLoader`, ``DirectoryLoader``'s ``loader_cls``).
``loader_mapping(encoding=...)`` gives the same table with an encoding passed to every
loader that decodes text, for a corpus that is not UTF-8.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType

from ragline.loaders._base import BaseLoader
from ragline.loaders._csv import CSVLoader
from ragline.loaders._encoding import check_encoding
from ragline.loaders._html import BSHTMLLoader
from ragline.loaders._markdown import MarkdownLoader
from ragline.loaders._pdf import PyPDFLoader
from ragline.loaders._text import TextLoader

__all__ = ["DEFAULT_LOADER_MAPPING", "loader_for_path", "loader_mapping"]

LoaderFactory = Callable[..., BaseLoader]

# HTML keeps its headings and paragraphs (BSHTMLLoader(structured=True)) so that the
# splitter can cut on them (the Markdown preset, splitters.LANGUAGE_BY_SUFFIX)
_STRUCTURED_HTML = functools.partial(BSHTMLLoader, structured=True)

DEFAULT_LOADER_MAPPING: Mapping[str, LoaderFactory] = MappingProxyType(
    {
        ".html": _STRUCTURED_HTML,
        ".htm": _STRUCTURED_HTML,
        ".md": MarkdownLoader,
        ".pdf": PyPDFLoader,
        ".csv": CSVLoader,
    }
)
"""Suffix -> loader class; files with any other suffix are read by :class:`TextLoader`.

Example:
    >>> from ragline.loaders import DirectoryLoader
    >>> loader = DirectoryLoader("docs", loader_mapping=DEFAULT_LOADER_MAPPING)
"""


def loader_mapping(
    *, encoding: str | None = None, autodetect_encoding: bool = False
) -> dict[str, LoaderFactory]:
    """The default mapping with an encoding given to every loader that decodes text.

    Pass the same options to :class:`TextLoader` for the files no suffix claims
    (``DirectoryLoader``'s ``loader_kwargs``).

    Args:
        encoding: the text encoding of the files (``None``: UTF-8); given to every loader
            that decodes text (plain text, Markdown, HTML, CSV). PDF files carry their own.
        autodetect_encoding: when ``encoding`` is None, try a byte-order mark, then
            UTF-8, cp1252 and latin-1 (see :class:`TextLoader`). HTML detects on its own.

    Raises:
        InvalidInputError: ``encoding`` is not a text encoding Python knows.

    Example:
        >>> sorted(loader_mapping(encoding="latin-1"))
        ['.csv', '.htm', '.html', '.md', '.pdf']
    """
    check_encoding(encoding)
    html = functools.partial(BSHTMLLoader, open_encoding=encoding, structured=True)
    return {
        ".html": html,
        ".htm": html,
        ".md": functools.partial(
            MarkdownLoader, encoding=encoding, autodetect_encoding=autodetect_encoding
        ),
        ".pdf": PyPDFLoader,
        ".csv": functools.partial(
            CSVLoader, encoding=encoding, autodetect_encoding=autodetect_encoding
        ),
    }


def loader_for_path(
    path: str, mapping: Mapping[str, LoaderFactory], default: LoaderFactory = TextLoader
) -> LoaderFactory:
    """The factory ``mapping`` names for ``path``'s suffix (the longest match), else ``default``.

    Case does not matter, and a suffix may span dots (``".tar.gz"``).

    Example:
        >>> loader_for_path("notes/A.MD", DEFAULT_LOADER_MAPPING).__name__
        'MarkdownLoader'
        >>> loader_for_path("notes/a.txt", DEFAULT_LOADER_MAPPING).__name__
        'TextLoader'
    """
    name = path.lower()
    matches = [suffix for suffix in mapping if name.endswith(suffix)]
    return mapping[max(matches, key=len)] if matches else default

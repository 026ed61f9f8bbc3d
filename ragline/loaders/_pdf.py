"""PyPDFLoader: text of a PDF with pypdf, one Document per page (the ``pdf`` extra);
PyPDFDirectoryLoader: every PDF of a folder."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ragline.core import Document, LoaderError, RaglineError
from ragline.core._checks import check_choice
from ragline.core._optional import require
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import FileMissingError, check_path

__all__ = ["PyPDFDirectoryLoader", "PyPDFLoader"]

_log = logging.getLogger(__name__)

_MODES = ("page", "single")
_EXTRACTION_MODES = ("plain", "layout")


class PyPDFLoader(BaseLoader):
    """Load a PDF's text with pypdf: one Document per page, or one for the file.

    Metadata, in LangChain's order: the PDF's document information first (keys
    lowercased without the ``/``: ``producer``, ``creator`` and ``creationdate`` always,
    defaulting to ``"PyPDF"``, ``"PyPDF"`` and ``""``, then ``title``, ``author`` ... as
    the file lists them; ``creationdate`` / ``moddate`` written ``D:YYYYMMDDHHmmSS`` with
    a time zone become ISO 8601), then ``source`` and ``total_pages``; page documents
    add ``page`` (0-based, as in LangChain) and ``page_label`` (the label the PDF shows,
    e.g. ``"iv"``; ``"1"``-based numbers when it defines none). In ``"single"`` mode
    the pages' text is joined with ``pages_delimiter``. Each page's text is stripped
    of the whitespace around it, as LangChain's parser strips it.

    Args:
        file_path: the PDF file.
        password: the password of an encrypted PDF.
        mode: ``"page"`` (default) or ``"single"``.
        pages_delimiter: what joins pages in ``"single"`` mode (default ``"\\n\\f"``).
        extraction_mode: pypdf's ``"plain"`` (default) or ``"layout"`` text extraction.

    Raises:
        ConfigurationError: unknown ``mode`` or ``extraction_mode`` (at construction).
        MissingDependencyError: pypdf is not installed (``pip install 'ragline[pdf]'``).
        LoaderError: on load, the file is missing, not a readable PDF, encrypted
            without the right password, or a page cannot be read.

    Example:
        >>> loader = PyPDFLoader("report.pdf")  # nothing is read until load()
        >>> loader.mode
        'page'
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        password: str | bytes | None = None,
        *,
        mode: str = "page",
        pages_delimiter: str = "\n\f",
        extraction_mode: str = "plain",
    ) -> None:
        check_choice("mode", mode, _MODES)
        check_choice("extraction_mode", extraction_mode, _EXTRACTION_MODES)
        self.file_path = check_path(file_path)
        self.password = password
        self.mode = mode
        self.pages_delimiter = pages_delimiter
        self.extraction_mode = extraction_mode

    def lazy_load(self) -> Iterator[Document]:
        """Yield one Document per page (or one in ``"single"`` mode), page by page.

        Raises:
            LoaderError: see the class docstring.
        """
        pypdf = require("pypdf", "pdf")
        path = os.fspath(self.file_path)
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed in the finally below
        except FileNotFoundError:
            raise FileMissingError(f"file not found: {path}") from None
        except OSError as err:
            raise LoaderError(f"cannot read {path}: {err.strerror or err}") from err
        try:
            reader = self._open(pypdf, handle, path)
            total = self._guard(path, "count the pages of", lambda: len(reader.pages))
            labels = self._guard(path, "read the page labels of", lambda: list(reader.page_labels))
            info = self._guard(path, "read the document information of", lambda: _info(reader))
            common = {**info, "source": path, "total_pages": total}
            if self.mode == "single":
                texts = (self._page_text(reader, number, path) for number in range(total))
                text = self.pages_delimiter.join(texts)
                yield Document(text, metadata=common)
                return
            for number in range(total):
                metadata = {
                    **common,
                    "page": number,
                    "page_label": labels[number] if number < len(labels) else str(number + 1),
                }
                yield Document(self._page_text(reader, number, path), metadata=metadata)
        finally:
            handle.close()

    def _open(self, pypdf: Any, handle: Any, path: str) -> Any:
        reader = self._guard(path, "read", lambda: pypdf.PdfReader(handle, password=self.password))
        if reader.is_encrypted and self.password is None:
            raise LoaderError(f"{path} is encrypted; pass its password= to PyPDFLoader")
        return reader

    def _page_text(self, reader: Any, number: int, path: str) -> str:
        # Stripped, as LangChain's parser strips it: pypdf's text of a page whose
        # last text operator starts a new line ends in "\n".
        def extract() -> str:
            return reader.pages[number].extract_text(extraction_mode=self.extraction_mode).strip()

        return self._guard(path, f"extract the text of page {number} of", extract)

    @staticmethod
    def _guard(path: str, action: str, function: Any) -> Any:
        # pypdf raises many exception types on damaged files; map them all here,
        # at the boundary, keeping the original chained.
        try:
            return function()
        except RaglineError:
            raise
        except Exception as err:
            raise LoaderError(
                f"cannot {action} {path} as a PDF: {type(err).__name__}: {err}"
            ) from err

    def __repr__(self) -> str:
        return f"PyPDFLoader({os.fspath(self.file_path)!r})"


def _info(reader: Any) -> dict[str, Any]:
    """The PDF's document information as LangChain's PyPDFLoader puts it in metadata."""
    info: dict[str, Any] = {"producer": "PyPDF", "creator": "PyPDF", "creationdate": ""}
    for key, value in (reader.metadata or {}).items():
        name = str(key).lstrip("/").lower()
        text = value if isinstance(value, (int, float)) else str(value)
        if name in ("creationdate", "moddate") and isinstance(text, str):
            text = _iso_date(text)
        info[name] = text
    return info


def _iso_date(text: str) -> str:
    """``D:20240102030405+01'00'`` as ``2024-01-02T03:04:05+01:00``; other forms as given."""
    try:
        return datetime.strptime(text.replace("'", ""), "D:%Y%m%d%H%M%S%z").isoformat()
    except ValueError:
        return text


class PyPDFDirectoryLoader(BaseLoader):
    """Load every PDF under a folder with :class:`PyPDFLoader`, as LangChain's loader of
    the same name does: the files ``glob`` matches (``rglob`` with ``recursive=True``),
    in the order the file system lists them, skipping hidden paths (a part starting with
    ``.``) unless ``load_hidden``; each document's ``source`` is the file's path.

    Args:
        path: the folder.
        glob: the pattern of the files (default ``"**/[!.]*.pdf"``).
        silent_errors: log a file that fails and go on, instead of raising.
        load_hidden: load hidden files and files in hidden folders too.
        recursive: match ``glob`` in every subfolder (``Path.rglob``).
        password, mode, extraction_mode: as :class:`PyPDFLoader`'s.

    Raises:
        ConfigurationError: unknown ``mode`` or ``extraction_mode`` (at construction).
        LoaderError: on load, a file that cannot be read (unless ``silent_errors``).

    Example:
        >>> loader = PyPDFDirectoryLoader("reports/")  # nothing is read until load()
        >>> loader.glob
        '**/[!.]*.pdf'
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        glob: str = "**/[!.]*.pdf",
        silent_errors: bool = False,
        load_hidden: bool = False,
        recursive: bool = False,
        *,
        password: str | bytes | None = None,
        mode: str = "page",
        extraction_mode: str = "plain",
    ) -> None:
        check_choice("mode", mode, _MODES)
        check_choice("extraction_mode", extraction_mode, _EXTRACTION_MODES)
        self.path = path
        self.glob = glob
        self.silent_errors = silent_errors
        self.load_hidden = load_hidden
        self.recursive = recursive
        self.password = password
        self.mode = mode
        self.extraction_mode = extraction_mode

    def lazy_load(self) -> Iterator[Document]:
        """Yield the documents of each PDF in turn.

        Raises:
            LoaderError: a file cannot be read (unless ``silent_errors``).
        """
        root = Path(self.path)
        found = root.rglob(self.glob) if self.recursive else root.glob(self.glob)
        for file in found:
            if not file.is_file():
                continue
            if not self.load_hidden and any(
                p.startswith(".") for p in file.relative_to(root).parts
            ):
                continue
            loader = PyPDFLoader(
                file, self.password, mode=self.mode, extraction_mode=self.extraction_mode
            )
            try:
                documents = loader.load()
            except Exception as err:
                if not self.silent_errors:
                    raise
                _log.warning("%s", err)
                continue
            for document in documents:
                document.metadata["source"] = str(file)
            yield from documents

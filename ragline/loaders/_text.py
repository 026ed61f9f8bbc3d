"""TextLoader: one plain-text file, one Document."""

from __future__ import annotations

import os
from collections.abc import Iterator

from ragline.core import Document
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import check_encoding, check_path, read_text, universal_newlines

__all__ = ["TextLoader"]


class TextLoader(BaseLoader):
    """Load a text file as a single Document with ``metadata["source"]``.

    Args:
        file_path: the file to read.
        encoding: its encoding; ``None`` means UTF-8 (a byte-order mark is dropped).
        autodetect_encoding: when ``encoding`` is ``None``, try a byte-order mark,
            then ``utf-8``, ``cp1252`` and ``latin-1`` in that order and use the
            first that decodes the whole file.

    Line ends are read as Python's text mode reads them (LangChain's TextLoader opens
    the file in that mode): ``"\\r\\n"`` and a lone ``"\\r"`` become ``"\\n"``.

    Raises:
        InvalidInputError: ``encoding`` is not a known codec (raised at construction).
        LoaderError: on load, the file is missing or is not valid in the encoding;
            the message names the file and the encoding.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
        >>> _ = path.write_text("hello", encoding="utf-8")
        >>> TextLoader(path).load()[0].page_content
        'hello'
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        encoding: str | None = None,
        autodetect_encoding: bool = False,
    ) -> None:
        self.file_path = check_path(file_path)
        self.encoding = check_encoding(encoding)
        self.autodetect_encoding = autodetect_encoding

    def lazy_load(self) -> Iterator[Document]:
        """Yield the file's text as one Document.

        Raises:
            LoaderError: the file is missing, unreadable or undecodable.
        """
        text = read_text(self.file_path, self.encoding, self.autodetect_encoding)
        yield Document(universal_newlines(text), metadata={"source": os.fspath(self.file_path)})

    def __repr__(self) -> str:
        return f"TextLoader({os.fspath(self.file_path)!r})"

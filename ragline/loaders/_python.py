"""PythonLoader: a Python source file, read in the encoding its source declares."""

from __future__ import annotations

import os
import tokenize

from ragline.core.exceptions import LoaderError
from ragline.loaders._encoding import FileMissingError, check_path
from ragline.loaders._text import TextLoader

__all__ = ["PythonLoader"]


class PythonLoader(TextLoader):
    """Load a ``.py`` file as one Document, decoded as Python itself would decode it.

    The encoding comes from the file, as the interpreter finds it (PEP 263): a UTF-8
    byte-order mark, else a ``# -*- coding: ... -*-`` comment on the first or second
    line, else UTF-8. It is read when the loader is built, as LangChain's
    ``PythonLoader`` does, so ``loader.encoding`` names it before ``load()``.

    Args:
        file_path: the Python file.

    Raises:
        InvalidInputError: ``file_path`` is not a str or path.
        LoaderError: the file is missing (FileMissingError) or unreadable (raised at
            construction).
        SyntaxError: the coding comment names an unknown encoding, or disagrees with a
            byte-order mark, or the file is not text: ``tokenize.detect_encoding``'s error,
            whose message names the file.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "old.py"
        >>> _ = path.write_bytes(b"# -*- coding: latin-1 -*-\\nname = 'caf\\xe9'\\n")
        >>> loader = PythonLoader(path)
        >>> loader.encoding, loader.load()[0].page_content.splitlines()[1]
        ('iso-8859-1', "name = 'café'")
    """

    def __init__(self, file_path: str | os.PathLike[str]) -> None:
        path = check_path(file_path)
        try:
            with open(path, "rb") as handle:
                # a bad declaration raises the interpreter's SyntaxError, naming the file
                encoding, _ = tokenize.detect_encoding(handle.readline)
        except FileNotFoundError:
            raise FileMissingError(f"file not found: {os.fspath(path)}") from None
        except OSError as err:
            raise LoaderError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err
        super().__init__(path, encoding=encoding)

    def __repr__(self) -> str:
        return f"PythonLoader({os.fspath(self.file_path)!r})"

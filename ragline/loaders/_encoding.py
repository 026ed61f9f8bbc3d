"""Reading files as text: clear errors for missing files and undecodable bytes.

Encoding rules shared by every file loader:

- ``encoding=None`` means UTF-8; a leading byte-order mark is dropped.
- A file that is not valid in the encoding raises :class:`DecodeError` naming the
  file, the encoding and the first bad byte: a :class:`LoaderError` that is also a
  ``RuntimeError``, since LangChain's loaders raise RuntimeError there and ported
  programs catch that.
- A missing file raises :class:`FileMissingError`, a :class:`LoaderError` that is also
  each built-in class LangChain's loaders raise for it.
- ``autodetect_encoding=True`` picks the first encoding that decodes the whole file:
  a byte-order mark if present (UTF-32, UTF-16, UTF-8), else ``utf-8``, ``cp1252``
  and finally ``latin-1`` (which decodes any bytes). The order is fixed, so the
  result does not depend on which packages are installed; pass ``encoding=`` for
  anything else (``cp1251``, ``shift_jis`` ...).
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Callable
from typing import IO, TextIO

from ragline.core import InvalidInputError, LoaderError
from ragline.core.exceptions import printed_as

DEFAULT_ENCODING = "utf-8"
FALLBACK_ENCODINGS = ("utf-8", "cp1252", "latin-1")
_CHUNK = 1 << 20


@printed_as(RuntimeError)
class DecodeError(LoaderError, RuntimeError):
    """A file's bytes are not valid in the encoding; the message names the file, the
    encoding and the first bad byte. Caught as LoaderError (ragline) or RuntimeError
    (what LangChain's TextLoader and DirectoryLoader raise there), and printed as
    RuntimeError (``type(err).__name__``)."""


@printed_as(FileNotFoundError)
class FileMissingError(LoaderError, FileNotFoundError, RuntimeError, ValueError):
    """The file (or the folder of a DirectoryLoader) to load does not exist; the message
    names it. LangChain's loaders raise different classes here (``RuntimeError`` from
    TextLoader and CSVLoader, ``FileNotFoundError`` from DirectoryLoader, JSONLoader,
    BSHTMLLoader and PythonLoader, ``ValueError`` from PyPDFLoader), so this one is all
    of them: ``except`` clauses written for any of those catch it, as does ``except
    LoaderError``. It prints as ``FileNotFoundError`` (``type(err).__name__``)."""


_WIDE = frozenset({"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"})
# utf-32 marks first: the utf-32-le mark begins with the utf-16-le one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def check_path(path: object, *, what: str = "file_path") -> str | os.PathLike[str]:
    """Return ``path`` if it can name a file (a str or an os.PathLike), else raise.

    Raises:
        InvalidInputError: None, bytes, a number ... (named), before any file is opened.
    """
    if isinstance(path, str) or (
        isinstance(path, os.PathLike) and isinstance(os.fspath(path), str)
    ):
        if not os.fspath(path):
            raise InvalidInputError(f"{what} must name a file, got an empty string")
        return path
    raise InvalidInputError(
        f"{what} must be a str or a pathlib.Path naming a file, got {type(path).__name__}: "
        f"{path!r:.60}"
    )


def check_encoding(encoding: str | None) -> str | None:
    """Return ``encoding`` unchanged, or raise if Python does not know it."""
    if encoding is None:
        return None
    try:
        # a TextIOWrapper, unlike codecs.lookup, also refuses bytes-to-bytes codecs
        # such as 'base64' and 'rot13', which would fail only on load
        io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    except (LookupError, TypeError):
        raise InvalidInputError(
            f"encoding {encoding!r} is not a known text encoding "
            "(e.g. 'utf-8', 'cp1252', 'latin-1')"
        ) from None
    return encoding


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """Read a whole file, mapping OS errors to a LoaderError that names it."""
    with _open_binary(path) as handle:
        try:
            return handle.read()
        except OSError as err:
            raise LoaderError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err


def _is_utf8(encoding: str) -> bool:
    return codecs.lookup(encoding).name == "utf-8"


def decode_error(
    path: str | os.PathLike[str],
    encoding: str,
    err: UnicodeDecodeError,
    *,
    offset: int | None = None,
    line: int | None = None,
) -> DecodeError:
    """The DecodeError for bytes that are not valid in ``encoding``.

    ``offset`` is the bad byte's position in the file (default ``err.start``)
    and ``line`` its 1-based line, when known.
    """
    offset = err.start if offset is None else offset
    bad = err.object[err.start : err.start + 1]
    where = (
        f"byte 0x{bad.hex()} at offset {offset}" if bad else f"truncated input at offset {offset}"
    )
    if line is not None:
        where += f" (line {line})"
    return DecodeError(
        f"cannot decode {os.fspath(path)} as {encoding}: {where} is invalid; "
        "pass the right encoding= or autodetect_encoding=True"
    )


def _line_of(before: bytes, encoding: str, lines_before: int = 0) -> int | None:
    # Counting b"\n" is right only for encodings that keep ASCII as single bytes.
    if codecs.lookup(encoding).name in _WIDE:
        return None
    return lines_before + before.count(b"\n") + 1


def locate_decode_error(path: str | os.PathLike[str], encoding: str) -> DecodeError:
    """Describe the first byte of a file that is not valid in ``encoding``.

    Streaming readers call this on their error path: their own error positions
    are relative to an internal chunk. It reads in chunks (constant memory).
    """
    if codecs.lookup(encoding).name == "utf-8-sig":
        # utf-8-sig's decoder counts positions after the byte-order mark; utf-8 reads
        # the mark as a valid character, so its positions are file offsets.
        encoding = "utf-8"
    decoder = codecs.getincrementaldecoder(encoding)()
    consumed = lines = 0
    with _open_binary(path) as handle:
        while True:
            chunk = handle.read(_CHUNK)
            pending = decoder.getstate()[0]
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as err:
                before = (pending + chunk)[: err.start]
                offset = consumed - len(pending) + err.start
                line = _line_of(before, encoding, lines)
                return decode_error(path, encoding, err, offset=offset, line=line)
            if not chunk:
                return DecodeError(f"cannot decode {os.fspath(path)} as {encoding}")
            consumed += len(chunk)
            lines += chunk.count(b"\n")


def decode(
    data: bytes, path: str | os.PathLike[str], encoding: str | None, autodetect: bool
) -> str:
    """Decode a file's bytes by the rules in this module's docstring.

    Raises:
        DecodeError: the bytes are not valid in the encoding (and autodetect is off).
    """
    if autodetect and encoding is None:
        encoding = _detect(data[:4], lambda candidate: _decodes(data, candidate))
    encoding = encoding or DEFAULT_ENCODING
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line = _line_of(data[: err.start], encoding)
        raise decode_error(path, encoding, err, line=line) from err
    if _is_utf8(encoding) and text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_text(
    path: str | os.PathLike[str], encoding: str | None = None, autodetect: bool = False
) -> str:
    """Read and decode a whole file (see the module docstring for the rules).

    Raises:
        LoaderError: the file is missing, unreadable or not valid in the encoding.
    """
    return decode(read_bytes(path), path, encoding, autodetect)


def universal_newlines(text: str) -> str:
    """``text`` with ``"\\r\\n"`` and lone ``"\\r"`` line ends as ``"\\n"``, as Python's text
    mode reads a file (and so LangChain's loaders that open files in text mode)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def universal_newline_bytes(data: bytes, encoding: str | None = None) -> bytes:
    """:func:`universal_newlines` on undecoded bytes, for markup whose encoding the
    parser finds (``encoding``: the one the caller asks it for, if any). Bytes in
    UTF-16 or UTF-32 (a byte-order mark or ``encoding`` says so), where a 0x0D byte
    need not be a carriage return, are decoded, changed and encoded again; if they do
    not decode they are returned as they are, for the parser to report."""
    if b"\r" not in data:
        return data
    wide = _wide_codec(data, encoding)
    if wide is None:
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        return universal_newlines(data.decode(wide)).encode(wide)
    except UnicodeError:
        return data


def _wide_codec(data: bytes, encoding: str | None) -> str | None:
    """The UTF-16 or UTF-32 codec that ``data``'s byte-order mark, else ``encoding``,
    names; None for any other (or an unknown name, which the parser reports)."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            return name if name in _WIDE else None
    if encoding is None:
        return None
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        return None
    return name if name in _WIDE else None


def open_text(
    path: str | os.PathLike[str],
    encoding: str | None = None,
    autodetect: bool = False,
    *,
    newline: str | None = None,
) -> TextIO:
    """Open a file for streaming text reads; autodetection streams the file once first.

    A decoding error while reading surfaces as ``UnicodeDecodeError``; callers turn
    it into a LoaderError with :func:`locate_decode_error`.

    Raises:
        LoaderError: the file is missing or unreadable.
    """
    with _open_binary(path) as handle:
        head = handle.read(4)
    if autodetect and encoding is None:
        encoding = _detect(head, lambda candidate: _file_decodes(path, candidate))
    encoding = encoding or DEFAULT_ENCODING
    if _is_utf8(encoding):
        encoding = "utf-8-sig"
    return io.TextIOWrapper(_open_binary(path), encoding=encoding, newline=newline)


def _open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    try:
        return open(path, "rb")  # the caller owns and closes it
    except FileNotFoundError:
        raise FileMissingError(f"file not found: {os.fspath(path)}") from None
    except IsADirectoryError:
        raise LoaderError(f"{os.fspath(path)} is a directory, not a file") from None
    except OSError as err:
        raise LoaderError(f"cannot read {os.fspath(path)}: {err.strerror or err}") from err


def _detect(head: bytes, decodes: Callable[[str], bool]) -> str:
    for mark, encoding in _BOMS:
        if head.startswith(mark):
            return encoding
    for encoding in FALLBACK_ENCODINGS:
        if decodes(encoding):
            return encoding
    return FALLBACK_ENCODINGS[-1]  # unreachable: latin-1 decodes any bytes


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _file_decodes(path: str | os.PathLike[str], encoding: str) -> bool:
    # Incremental, so a large file is checked in constant memory.
    decoder = codecs.getincrementaldecoder(encoding)()
    with _open_binary(path) as handle:
        try:
            while chunk := handle.read(_CHUNK):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True

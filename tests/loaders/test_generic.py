"""GenericLoader and its blob pieces: ragline's own checks (parity is in
tests/parity/test_port_trial_set18.py)."""

from __future__ import annotations

import pytest

from ragline.core import InvalidInputError
from ragline.loaders import Blob, FileSystemBlobLoader, GenericLoader


def test_bad_arguments_raise_clear_errors(tmp_path) -> None:
    with pytest.raises(InvalidInputError, match="a Blob needs data or a path"):
        Blob()
    with pytest.raises(InvalidInputError, match="Blob data must be bytes or str, got int"):
        Blob.from_data(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"path must be a str or a pathlib\.Path"):
        Blob.from_path(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="lists of strings, not one string"):
        FileSystemBlobLoader(tmp_path, suffixes=".txt")
    with pytest.raises(InvalidInputError, match="unknown parser 'pdf'"):
        GenericLoader.from_filesystem(tmp_path, parser="pdf")


def test_the_default_parser_names_the_file_it_cannot_read(tmp_path) -> None:
    (tmp_path / "notes.md").write_text("# x", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(
        InvalidInputError, match=r"no parser for mime type 'text/markdown' \(.*notes\.md\)"
    ):
        GenericLoader.from_filesystem(tmp_path, glob="*.md").load()
    with pytest.raises(UnicodeDecodeError, match=r"in .*bad\.txt, read as utf-8"):
        GenericLoader.from_filesystem(tmp_path, glob="*.txt").load()
    latin = GenericLoader(FileSystemBlobLoader(tmp_path, glob="*.txt"), _Latin1())
    assert latin.load()[0].page_content == "\xff\xfe\xfa"


class _Latin1:
    def lazy_parse(self, blob: Blob):  # duck-typed parser: GenericLoader only calls this
        from ragline.core import Document

        blob.encoding = "latin-1"
        yield Document(blob.as_string(), metadata={"source": blob.source})

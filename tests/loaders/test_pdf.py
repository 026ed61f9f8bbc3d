"""PyPDFLoader on PDFs the tests write: real pypdf text extraction, asserted exactly."""

from __future__ import annotations

import io
import sys

import pytest

from ragline.core import ConfigurationError, LoaderError, MissingDependencyError
from ragline.loaders import PyPDFLoader

pypdf = pytest.importorskip("pypdf")

PAGES = ["Hello PDF page one", "Second page (with parens)", "Third and last"]
# a PDF without document information gets LangChain's defaults
INFO = {"producer": "PyPDF", "creator": "PyPDF", "creationdate": ""}


@pytest.fixture
def pdf(tmp_path, make_pdf):
    path = tmp_path / "doc.pdf"
    path.write_bytes(make_pdf(PAGES))
    return path


def test_one_document_per_page(pdf) -> None:
    documents = PyPDFLoader(pdf).load()
    assert [d.page_content for d in documents] == PAGES
    assert [d.metadata for d in documents] == [
        {**INFO, "source": str(pdf), "total_pages": 3, "page": n, "page_label": str(n + 1)}
        for n in range(3)
    ]


def test_lazy_load_yields_page_by_page(pdf) -> None:
    stream = PyPDFLoader(pdf).lazy_load()
    assert next(stream).metadata["page"] == 0
    assert [d.metadata["page"] for d in stream] == [1, 2]


def test_single_mode_joins_pages(pdf) -> None:
    [document] = PyPDFLoader(pdf, mode="single").load()
    assert document.page_content == "\n\f".join(PAGES)
    assert document.metadata == {**INFO, "source": str(pdf), "total_pages": 3}
    [joined] = PyPDFLoader(pdf, mode="single", pages_delimiter=" | ").load()
    assert joined.page_content == " | ".join(PAGES)


def _rewrite(pdf_bytes: bytes, change) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf_bytes)))
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_page_labels_come_from_the_pdf(tmp_path, make_pdf) -> None:
    def label(writer) -> None:
        writer.set_page_label(0, 1, style="/r")
        writer.set_page_label(2, 2, style="/D", start=1, prefix="A-")

    path = tmp_path / "labelled.pdf"
    path.write_bytes(_rewrite(make_pdf(PAGES), label))
    assert [d.metadata["page_label"] for d in PyPDFLoader(path).load()] == ["i", "ii", "A-1"]


def test_encrypted_pdf_needs_the_password(tmp_path, make_pdf) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(_rewrite(make_pdf(PAGES), lambda w: w.encrypt("secret", algorithm="RC4-128")))
    with pytest.raises(LoaderError, match=r"locked\.pdf is encrypted; pass its password="):
        PyPDFLoader(path).load()
    with pytest.raises(
        LoaderError, match=r"cannot read .*locked\.pdf as a PDF: WrongPasswordError"
    ):
        PyPDFLoader(path, password="wrong").load()
    assert [d.page_content for d in PyPDFLoader(path, password="secret").load()] == PAGES


def test_not_a_pdf(tmp_path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_bytes(b"this is not a PDF at all")
    with pytest.raises(LoaderError, match=r"cannot read .*fake\.pdf as a PDF: ") as caught:
        PyPDFLoader(path).load()
    assert caught.value.__cause__ is not None  # pypdf's own error is chained


def test_missing_file(tmp_path) -> None:
    with pytest.raises(LoaderError, match=r"file not found: .*none\.pdf"):
        PyPDFLoader(tmp_path / "none.pdf").load()


def test_bad_options(tmp_path) -> None:
    with pytest.raises(ConfigurationError, match="mode 'pages' is not one of 'page', 'single'"):
        PyPDFLoader(tmp_path / "a.pdf", mode="pages")
    with pytest.raises(
        ConfigurationError, match="extraction_mode 'fancy' is not one of 'plain', 'layout'"
    ):
        PyPDFLoader(tmp_path / "a.pdf", extraction_mode="fancy")


def test_missing_pypdf_names_the_extra(pdf, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragline\[pdf\]'"):
        PyPDFLoader(pdf).load()

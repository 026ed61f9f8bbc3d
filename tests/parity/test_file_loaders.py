"""Parity: CSVLoader, PyPDFLoader and a program's own BaseLoader against LangChain's.

The same files load through langchain_community's loaders and ragline's; the documents'
text and metadata (key order included: programs print them) must be equal.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import langchain_community.document_loaders as lc_loaders
from langchain_core.document_loaders import BaseLoader as LCBaseLoader
from langchain_core.documents import Document as LCDocument
from langchain_text_splitters import CharacterTextSplitter as LCCharacterTextSplitter

import ragline.loaders as rl_loaders
from ragline.core import Document
from ragline.splitters import CharacterTextSplitter
from tests.loaders.conftest import build_pdf

COVERS = {"loaders.CSVLoader", "loaders.PyPDFLoader", "loaders.BaseLoader"}

CSV = 'name,age,city\nada,36,London\n"bob, jr",7,"New\nYork"\n'


def observed(documents: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Text and metadata items in order (a printed dict shows the order)."""
    return [(d.page_content, list(d.metadata.items())) for d in documents]


@pytest.fixture
def csv_path(tmp_path: Path) -> str:
    path = tmp_path / "people.csv"
    path.write_text(CSV, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"source_column": "name"},
        {"metadata_columns": ["city"]},
        {"content_columns": ["name", "age"]},
        {"csv_args": {"fieldnames": ["a", "b", "c"]}},
        {"csv_args": {"delimiter": ";"}},
    ],
)
def test_csv_loader(csv_path: str, options: dict[str, Any]) -> None:
    theirs = observed(lc_loaders.CSVLoader(csv_path, **options).load())
    ours = observed(rl_loaders.CSVLoader(csv_path, **options).load())
    assert ours == theirs
    lazy = observed(rl_loaders.CSVLoader(csv_path, **options).lazy_load())
    assert lazy == ours


def test_csv_rows_in_detail(csv_path: str) -> None:
    ours = observed(rl_loaders.CSVLoader(csv_path).load())
    assert ours[1] == ("name: bob, jr\nage: 7\ncity: New\nYork", [("source", csv_path), ("row", 1)])


def _pdf_with_info(path: Path, info: dict[str, str] | None) -> str:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(build_pdf(["Page one text", "Second (page)"])))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    if info is not None:
        writer.add_metadata(info)
        writer.write(str(path))
    else:
        path.write_bytes(build_pdf(["Page one text", "Second (page)"]))
    return str(path)


INFOS = {
    "none": None,
    "full": {
        "/Title": "My Doc",
        "/Author": "Ada",
        "/Producer": "Hand",
        "/CreationDate": "D:20240102030405+01'00'",
        "/ModDate": "D:20240102030405Z",
        "/Custom": "v",
    },
    "odd dates": {"/CreationDate": "D:20240102030405", "/ModDate": "garbage", "/Trapped": "/False"},
}


@pytest.mark.parametrize("info", list(INFOS), ids=list(INFOS))
@pytest.mark.parametrize(
    "options", [{}, {"mode": "single"}, {"mode": "single", "pages_delimiter": "\n--\n"}]
)
def test_pypdf_loader_text_and_metadata(tmp_path: Path, info: str, options: dict[str, Any]) -> None:
    """The PDF's document information comes first in metadata, with LangChain's defaults
    and ISO dates, then source and total_pages, then page and page_label (fails when
    ragline leaves out the document information or orders the keys its own way)."""
    path = _pdf_with_info(tmp_path / "doc.pdf", INFOS[info])
    theirs = observed(lc_loaders.PyPDFLoader(path, **options).load())
    ours = observed(rl_loaders.PyPDFLoader(path, **options).load())
    assert ours == theirs
    if info == "full" and not options:
        assert ours[0][1][:3] == [
            ("producer", "Hand"),
            ("creator", "PyPDF"),
            ("creationdate", "2024-01-02T03:04:05+01:00"),
        ]
        keys = [key for key, _ in ours[0][1]]
        assert keys[-4:] == ["source", "total_pages", "page", "page_label"]


def test_pypdf_loader_lazy_and_split(tmp_path: Path) -> None:
    path = _pdf_with_info(tmp_path / "doc.pdf", INFOS["full"])
    theirs = observed(
        lc_loaders.PyPDFLoader(path).load_and_split(
            LCCharacterTextSplitter(separator=" ", chunk_size=8, chunk_overlap=0)
        )
    )
    ours = observed(
        rl_loaders.PyPDFLoader(path).load_and_split(
            CharacterTextSplitter(separator=" ", chunk_size=8, chunk_overlap=0)
        )
    )
    assert ours == theirs
    assert [text for text, _ in ours] == ["Page one", "text", "Second", "(page)"]
    assert observed(rl_loaders.PyPDFLoader(path).lazy_load()) == observed(
        lc_loaders.PyPDFLoader(path).lazy_load()
    )


def _loader_class(base: type, document: type) -> type:
    class Lines(base):  # type: ignore[misc,valid-type]
        """A program's own loader: one document per line of a string."""

        def __init__(self, text: str) -> None:
            self.text = text

        def lazy_load(self) -> Iterator[Any]:
            for number, line in enumerate(self.text.splitlines()):
                yield document(page_content=line, metadata={"line": number})

    return Lines


async def test_a_program_s_own_loader_gets_load_aload_and_split() -> None:
    text = "alpha beta gamma\ndelta\nepsilon zeta"
    results = []
    for base, document, splitter in (
        (LCBaseLoader, LCDocument, LCCharacterTextSplitter),
        (rl_loaders.BaseLoader, Document, CharacterTextSplitter),
    ):
        loader = _loader_class(base, document)(text)
        results.append(
            [
                observed(loader.load()),
                observed([d async for d in loader.alazy_load()]),
                observed(await loader.aload()),
                observed(
                    loader.load_and_split(splitter(separator=" ", chunk_size=10, chunk_overlap=0))
                ),
            ]
        )
    theirs, ours = results
    assert ours == theirs
    assert [text for text, _ in ours[3]] == ["alpha beta", "gamma", "delta", "epsilon", "zeta"]

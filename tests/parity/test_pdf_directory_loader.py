"""Parity: PyPDFDirectoryLoader against LangChain's.

Both loaders read the same folder (so the file system lists the files in the same
order for both): PDFs at the top, in a subfolder, in a hidden folder, a hidden file, a
file that is not a PDF and a broken PDF. Compared: each document's text and metadata
(``source`` is the file's path) for the default glob, ``recursive``, ``load_hidden``,
another glob, ``mode="single"``, and ``silent_errors`` around the broken file (without
it both raise).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_community.document_loaders import PyPDFDirectoryLoader as LCPyPDFDirectoryLoader

from ragline.loaders import PyPDFDirectoryLoader
from tests.loaders.conftest import build_pdf

COVERS = {"loaders.PyPDFDirectoryLoader"}


def observed(docs: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    return [(d.page_content, list(d.metadata.items())) for d in docs]


def outcome(call: Any) -> Any:
    try:
        return ("ok", observed(call()))
    except Exception:
        return ("raised",)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a.pdf").write_bytes(build_pdf(["Alpha one", "Alpha two"]))
    (tmp_path / "b.pdf").write_bytes(build_pdf(["Beta"]))
    (tmp_path / "sub" / "c.pdf").write_bytes(build_pdf(["Gamma in sub"]))
    (tmp_path / ".hidden" / "d.pdf").write_bytes(build_pdf(["Delta hidden"]))
    (tmp_path / ".e.pdf").write_bytes(build_pdf(["Epsilon hidden file"]))
    (tmp_path / "notes.txt").write_text("not a pdf")
    return tmp_path


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"recursive": True},
        {"load_hidden": True},
        {"load_hidden": True, "recursive": True, "glob": "*.pdf"},
        {"glob": "*.pdf"},
        {"glob": "sub/*.pdf", "mode": "single"},
    ],
)
def test_folders_load_as_langchains(folder, options):
    theirs = outcome(lambda: LCPyPDFDirectoryLoader(str(folder), **options).load())
    ours = outcome(lambda: PyPDFDirectoryLoader(str(folder), **options).load())
    assert ours == theirs
    assert ours[0] == "ok"


def test_a_broken_file(folder):
    (folder / "z_broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    assert outcome(lambda: PyPDFDirectoryLoader(str(folder)).load()) == ("raised",)
    assert outcome(lambda: LCPyPDFDirectoryLoader(str(folder)).load()) == ("raised",)
    assert outcome(lambda: PyPDFDirectoryLoader(str(folder), glob="*.txt").load()) == ("raised",)
    assert outcome(lambda: LCPyPDFDirectoryLoader(str(folder), glob="*.txt").load()) == ("raised",)
    theirs = outcome(lambda: LCPyPDFDirectoryLoader(str(folder), silent_errors=True).load())
    ours = outcome(lambda: PyPDFDirectoryLoader(str(folder), silent_errors=True).load())
    assert ours == theirs
    assert observed(PyPDFDirectoryLoader(str(folder), silent_errors=True).lazy_load()) == ours[1]

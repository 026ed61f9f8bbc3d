"""Parity: PythonLoader over a directory, against langchain_community's, where a file's
encoding declaration is bad.

PythonLoader reads the declaration when it is built, so a bad one fails while
DirectoryLoader makes the file's loader. LangChain's DirectoryLoader treats that as the
file failing: ``silent_errors=True`` skips it and loads the rest. The messages of the
error PythonLoader raises are the interpreter's (they name the file once).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from langchain_community.document_loaders import DirectoryLoader as LCDirectoryLoader
from langchain_community.document_loaders import PythonLoader as LCPythonLoader

from ragline.core import LoaderError
from ragline.loaders import DirectoryLoader, PythonLoader

BAD = {
    "unknown_codec.py": b"# coding: no-such-codec\nx = 1\n",
    "bom_and_latin1.py": b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
    "binary.py": b"\x80\x81\xff\x00 not text",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a_good.py").write_bytes(b"print('a')\n")
    (tmp_path / "z_latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n")
    for name, data in BAD.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def _loaded(loader) -> list[tuple[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = loader.load()
    return sorted((Path(d.metadata["source"]).name, d.page_content) for d in docs)


@pytest.mark.parametrize("threads", [False, True])
def test_silent_errors_skips_a_file_whose_declaration_is_bad(tree: Path, threads: bool) -> None:
    options = {"glob": "*.py", "silent_errors": True, "use_multithreading": threads}
    theirs = _loaded(LCDirectoryLoader(str(tree), loader_cls=LCPythonLoader, **options))
    ours = _loaded(DirectoryLoader(tree, loader_cls=PythonLoader, **options))
    assert (
        ours
        == theirs
        == [
            ("a_good.py", "print('a')\n"),
            ("z_latin1.py", "# -*- coding: latin-1 -*-\ns = 'café'\n"),
        ]
    )


@pytest.mark.parametrize("threads", [False, True])
def test_without_silent_errors_the_bad_file_is_named(tree: Path, threads: bool) -> None:
    for name in BAD:
        (tree / name).unlink()
    (tree / "m_bad.py").write_bytes(BAD["unknown_codec.py"])
    loader = DirectoryLoader(tree, glob="*.py", loader_cls=PythonLoader, use_multithreading=threads)
    with pytest.raises(LoaderError, match=r"m_bad\.py.*no-such-codec"):
        loader.load()


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_error_is_the_interpreters_naming_the_file_once(tree: Path, name: str) -> None:
    path = str(tree / name)
    with pytest.raises(SyntaxError) as theirs:
        LCPythonLoader(path)
    with pytest.raises(SyntaxError) as ours:
        PythonLoader(path)
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).count(path) == 1

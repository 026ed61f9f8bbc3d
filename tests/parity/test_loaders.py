"""Parity: ragline's loaders against LangChain's on what a ported program observes.

LangChain (langchain_community.document_loaders) is the oracle: the same scenario runs
through both, and the test compares the outcome.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.document_loaders import DirectoryLoader as LCDirectoryLoader
    from langchain_community.document_loaders import TextLoader as LCTextLoader

from ragline.core import LoaderError
from ragline.loaders import DirectoryLoader, TextLoader

COVERS = {"loaders.DirectoryLoader", "loaders.TextLoader"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "good.txt").write_text("plain words\n", encoding="utf-8")
    # 0xff is never valid in UTF-8
    (tmp_path / "bad.txt").write_bytes(b"caf\xff au lait\n")
    return tmp_path


def _caught(load: object) -> type[BaseException]:
    try:
        load()  # type: ignore[operator]
    except RuntimeError as err:  # what a LangChain program catches
        return type(err)
    raise AssertionError("no RuntimeError")


def test_undecodable_file_in_directory_raises_runtime_error_in_both(tree: Path) -> None:
    theirs = LCDirectoryLoader(str(tree), glob="*.txt", loader_cls=LCTextLoader)
    ours = DirectoryLoader(str(tree), glob="*.txt", loader_cls=TextLoader)
    assert issubclass(_caught(theirs.load), RuntimeError)
    assert issubclass(_caught(ours.load), RuntimeError)
    # and ragline's own type still catches it, with the file and the bad byte named
    with pytest.raises(LoaderError, match=r"bad\.txt as utf-8: byte 0xff at offset 3"):
        ours.load()


def test_undecodable_file_alone_raises_runtime_error_in_both(tree: Path) -> None:
    with pytest.raises(RuntimeError):
        LCTextLoader(str(tree / "bad.txt")).load()
    with pytest.raises(RuntimeError, match=r"bad\.txt"):
        TextLoader(str(tree / "bad.txt")).load()


def test_silent_errors_skip_the_file_in_both(tree: Path) -> None:
    theirs = LCDirectoryLoader(
        str(tree), glob="*.txt", loader_cls=LCTextLoader, silent_errors=True
    ).load()
    ours = DirectoryLoader(
        str(tree), glob="*.txt", loader_cls=TextLoader, silent_errors=True
    ).load()
    assert [d.page_content for d in ours] == [d.page_content for d in theirs] == ["plain words\n"]
    assert [Path(d.metadata["source"]).name for d in ours] == ["good.txt"]
    assert [Path(d.metadata["source"]).name for d in theirs] == ["good.txt"]

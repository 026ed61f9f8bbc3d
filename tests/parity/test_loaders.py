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


@pytest.mark.parametrize("recursive", [False, True])
@pytest.mark.parametrize(
    "glob", ["*.txt", "**/*.txt", "**/*", "*", "x/*", "x/**/*.txt", "*/*.txt", "y/*.txt"]
)
def test_glob_and_recursive_pick_the_files_langchain_picks(
    tmp_path: Path, glob: str, recursive: bool
) -> None:
    """recursive=True matches the pattern at every depth (Path.rglob), recursive=False (the
    default in both) the pattern as written (Path.glob). ragline had recursive=True by
    default and matched the pattern as written either way, so glob='*.txt',
    recursive=True loaded only the top folder's files. The order within a folder is
    ragline's (by name), so the sets are compared."""
    for relative in ("a.txt", "b.md", "x/c.txt", "x/y/d.txt", "x/y/e.md", "z/f.txt"):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(relative, encoding="utf-8")

    def picked(documents: list) -> set[str]:
        return {Path(d.metadata["source"]).relative_to(tmp_path).as_posix() for d in documents}

    theirs = LCDirectoryLoader(
        str(tmp_path), glob=glob, recursive=recursive, loader_cls=LCTextLoader
    ).load()
    ours = DirectoryLoader(tmp_path, glob=glob, recursive=recursive).load()
    assert picked(ours) == picked(theirs)
    if glob == "*.txt":
        expected = {"a.txt", "x/c.txt", "x/y/d.txt", "z/f.txt"} if recursive else {"a.txt"}
        assert picked(ours) == expected

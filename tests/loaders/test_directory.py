"""DirectoryLoader: file selection, order, laziness, symlinks, sampling, threads, errors."""

from __future__ import annotations

import functools
import logging
import os
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from ragline.core import Document, InvalidInputError, LoaderError
from ragline.loaders import (
    BaseLoader,
    BSHTMLLoader,
    CSVLoader,
    DirectoryLoader,
    JSONLoader,
    MarkdownLoader,
    TextLoader,
)

LOGGER = "ragline.loaders._directory"


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(
        tmp_path / "docs",
        {
            "b.txt": "B",
            "a/x.txt": "AX",
            "a/deep/y.md": "AY",
            "c.md": "C",
            ".hidden.txt": "H",
            ".git/config": "G",
            "_draft.txt": "D",
        },
    )


def relatives(documents: list[Document], root: Path) -> list[str]:
    return [Path(d.metadata["source"]).relative_to(root).as_posix() for d in documents]


def test_default_loads_a_directorys_files_before_its_subdirectories_each_by_name(tree) -> None:
    documents = DirectoryLoader(tree).load()
    assert relatives(documents, tree) == ["_draft.txt", "b.txt", "c.md", "a/x.txt", "a/deep/y.md"]
    assert [d.page_content for d in documents] == ["D", "B", "C", "AX", "AY"]
    assert documents[0].metadata == {"source": os.path.join(str(tree), "_draft.txt")}


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.txt", ["_draft.txt", "b.txt"]),
        ("**/*.txt", ["_draft.txt", "b.txt", "a/x.txt"]),
        ("**/*.md", ["c.md", "a/deep/y.md"]),
        ("a/*", ["a/x.txt"]),
        ("a/**", ["a/x.txt", "a/deep/y.md"]),
        ("[!_]*.txt", ["b.txt"]),
        ("?.md", ["c.md"]),
        (["*.md", "a/*.txt"], ["c.md", "a/x.txt"]),
    ],
)
def test_glob_patterns(tree, glob, expected) -> None:
    assert relatives(DirectoryLoader(tree, glob=glob).load(), tree) == expected


@pytest.mark.parametrize(
    ("glob", "recursive", "expected"),
    [
        ("*.txt", False, ["_draft.txt", "b.txt"]),  # the default: the pattern as written
        ("*.txt", True, ["_draft.txt", "b.txt", "a/x.txt"]),  # at every depth, as rglob
        ("**/*", False, ["_draft.txt", "b.txt", "c.md", "a/x.txt", "a/deep/y.md"]),
        ("*.md", True, ["c.md", "a/deep/y.md"]),
        ("deep/*", True, ["a/deep/y.md"]),
    ],
)
def test_recursive_matches_each_pattern_at_every_depth(tree, glob, recursive, expected) -> None:
    loaded = DirectoryLoader(tree, glob=glob, recursive=recursive).load()
    assert relatives(loaded, tree) == expected


def test_recursive_is_false_by_default_as_in_langchain(tree) -> None:
    assert DirectoryLoader(tree).recursive is False


@pytest.mark.parametrize(
    ("exclude", "expected"),
    [
        ("*.md", ["_draft.txt", "b.txt", "a/x.txt"]),  # a name pattern, at any depth
        ("deep", ["_draft.txt", "b.txt", "c.md", "a/x.txt"]),  # a directory name: not entered
        ("a/*.txt", ["_draft.txt", "b.txt", "c.md", "a/deep/y.md"]),  # a path pattern
        (["_*", "c.*"], ["b.txt", "a/x.txt", "a/deep/y.md"]),
    ],
)
def test_exclude(tree, exclude, expected) -> None:
    assert relatives(DirectoryLoader(tree, exclude=exclude).load(), tree) == expected


def test_load_hidden(tree) -> None:
    found = relatives(DirectoryLoader(tree, load_hidden=True).load(), tree)
    assert found == [
        ".hidden.txt",
        "_draft.txt",
        "b.txt",
        "c.md",
        ".git/config",
        "a/x.txt",
        "a/deep/y.md",
    ]


def test_lazy_load_reads_later_files_only_when_reached(tree) -> None:
    """The first document arrives before later files are read: a change made to a
    later file after that point shows up, and a deleted one fails when reached."""
    stream = DirectoryLoader(tree, glob="**/*.txt").lazy_load()
    first = next(stream)
    assert first.page_content == "D"
    (tree / "b.txt").write_text("B changed after the first document")
    (tree / "a" / "x.txt").write_text("AX changed after the first document")
    assert next(stream).page_content == "B changed after the first document"
    assert next(stream).page_content == "AX changed after the first document"
    stream = DirectoryLoader(tree, glob="**/*.txt").lazy_load()
    assert next(stream).page_content == "D"
    (tree / "b.txt").unlink()
    with pytest.raises(LoaderError, match=r"file not found: .*b\.txt"):
        next(stream)


class Recording(BaseLoader):
    """A loader that records which files were opened, for laziness and order checks."""

    opened: ClassVar[list[str]] = []

    def __init__(self, file_path: str) -> None:
        self.file_path = file_path

    def lazy_load(self) -> Iterator[Document]:
        Recording.opened.append(Path(self.file_path).name)
        yield Document(Path(self.file_path).read_text(), metadata={"source": self.file_path})


def test_lazy_load_opens_one_file_at_a_time(tree) -> None:
    Recording.opened = []
    stream = DirectoryLoader(tree, loader_cls=Recording).lazy_load()
    next(stream)
    assert Recording.opened == ["_draft.txt"]
    next(stream)
    assert Recording.opened == ["_draft.txt", "b.txt"]


def test_loader_mapping_by_suffix(tmp_path) -> None:
    root = make_tree(
        tmp_path,
        {
            "a.csv": "name,age\nAda,36\nBob,40\n",
            "b.MD": "---\ntitle: B\n---\nbody\n",
            "c.html": "<title>C</title><p>page</p>",
            "d.txt": "plain",
            "e.data.json": '{"text": "json"}',
            "f.json": "[]",
        },
    )
    loader = DirectoryLoader(
        root,
        loader_mapping={
            ".csv": CSVLoader,
            ".md": MarkdownLoader,
            ".HTML": BSHTMLLoader,
            ".json": functools.partial(JSONLoader, jq_schema=".[]"),
            ".data.json": functools.partial(JSONLoader, jq_schema=".text"),  # longer suffix wins
        },
    )
    documents = loader.load()
    assert [d.page_content for d in documents] == [
        "name: Ada\nage: 36",
        "name: Bob\nage: 40",
        "body\n",
        "Cpage",  # BSHTMLLoader's default: LangChain's get_text(), the title included
        "plain",
        "json",
    ]
    assert documents[2].metadata == {"title": "B", "source": str(root / "b.MD")}
    assert documents[3].metadata["title"] == "C"
    assert documents[5].metadata["seq_num"] == 1


def test_loader_kwargs_reach_loader_cls(tmp_path) -> None:
    (tmp_path / "latin.txt").write_bytes("café".encode("cp1252"))
    loader = DirectoryLoader(tmp_path, loader_kwargs={"encoding": "cp1252"})
    assert loader.load()[0].page_content == "café"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"loader_kwargs": {"encodng": "x"}}, r"loader_kwargs \['encodng'\] do not fit TextLoader"),
        ({"loader_mapping": {"csv": CSVLoader}}, "loader_mapping key 'csv' must be a file suffix"),
        ({"loader_mapping": {".csv": "CSVLoader"}}, r"loader_mapping\['.csv'\] must be callable"),
        ({"max_concurrency": 0}, "max_concurrency must be an int >= 1, got 0"),
        ({"sample_size": -1}, "sample_size must be an int >= 0"),
        ({"glob": ""}, "glob '' must be a non-empty relative pattern"),
        ({"glob": "/etc/*"}, "glob '/etc/\\*' must be a non-empty relative pattern"),
        ({"glob": []}, "glob must name at least one pattern"),
        ({"loader_cls": 3}, "loader_cls must be a loader class or callable"),
    ],
)
def test_bad_options_fail_at_construction(tmp_path, options, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        DirectoryLoader(tmp_path, **options)


def test_missing_directory_and_file_path(tmp_path) -> None:
    with pytest.raises(LoaderError, match=r"directory not found: .*nowhere"):
        DirectoryLoader(tmp_path / "nowhere").load()
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(LoaderError, match=r"f\.txt is not a directory"):
        DirectoryLoader(tmp_path / "f.txt").load()


def test_bad_file_raises_naming_it_without_silent_errors(tree) -> None:
    (tree / "bad.txt").write_bytes(b"ok \xff")
    with pytest.raises(LoaderError, match=r"cannot decode .*bad\.txt as utf-8"):
        DirectoryLoader(tree, glob="*.txt").load()


def test_silent_errors_skips_and_logs_bad_files(tree, caplog) -> None:
    (tree / "bad.txt").write_bytes(b"ok \xff")
    (tree / "broken.json").write_text("{not json")
    loader = DirectoryLoader(
        tree,
        glob=["*.txt", "*.json"],
        silent_errors=True,
        loader_mapping={".json": functools.partial(JSONLoader, jq_schema=".")},
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        documents = loader.load()
    assert [d.page_content for d in documents] == ["D", "B"]
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(messages) == 2
    assert messages[0].startswith(f"skipping {tree / 'bad.txt'}: cannot decode")
    assert messages[1].startswith(
        f"skipping {tree / 'broken.json'}: {tree / 'broken.json'} is not valid JSON"
    )


def test_a_file_that_fails_midway_contributes_nothing(tmp_path) -> None:
    """A CSV whose third row is ragged: with silent_errors none of its rows appear."""
    make_tree(tmp_path, {"a.csv": "x,y\n1,2\n3,4\n5\n", "b.txt": "after"})
    loader = DirectoryLoader(tmp_path, silent_errors=True, loader_mapping={".csv": CSVLoader})
    assert [d.page_content for d in loader.load()] == ["after"]


def test_unexpected_exceptions_become_loader_errors(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("x")

    class Exploding(BaseLoader):
        def __init__(self, file_path: str) -> None:
            self.file_path = file_path

        def lazy_load(self) -> Iterator[Document]:
            raise ValueError("boom")

    with pytest.raises(LoaderError, match=r"cannot load .*a\.txt: ValueError: boom") as caught:
        DirectoryLoader(tmp_path, loader_cls=Exploding).load()
    assert isinstance(caught.value.__cause__, ValueError)


def test_bad_loader_options_propagate_even_with_silent_errors(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("x")
    loader = DirectoryLoader(
        tmp_path,
        silent_errors=True,
        loader_cls=functools.partial(TextLoader, encoding="no-such-codec"),
    )
    with pytest.raises(InvalidInputError, match="encoding 'no-such-codec'"):
        loader.load()


def test_symlinks_leaving_the_directory_are_skipped_unless_asked(tmp_path, caplog) -> None:
    root = make_tree(tmp_path / "root", {"inside.txt": "in", "sub/s.txt": "sub"})
    outside = make_tree(tmp_path / "outside", {"secret.txt": "SECRET", "dir/o.txt": "O"})
    (root / "link_file.txt").symlink_to(outside / "secret.txt")
    (root / "link_dir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "link_inside.txt").symlink_to(root / "inside.txt")
    (root / "sub" / "loop").symlink_to(root, target_is_directory=True)  # back to an ancestor
    (root / "dangling.txt").symlink_to(tmp_path / "missing.txt")

    with caplog.at_level(logging.INFO, logger=LOGGER):
        documents = DirectoryLoader(root).load()
    assert relatives(documents, root) == ["inside.txt", "link_inside.txt", "sub/s.txt"]
    assert "SECRET" not in [d.page_content for d in documents]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert (
        f"skipping {root / 'link_file.txt'}: it links to {outside / 'secret.txt'}, outside"
        in logged
    )
    assert f"skipping broken symbolic link {root / 'dangling.txt'}" in logged

    followed = DirectoryLoader(root, follow_symlinks=True).load()
    assert relatives(followed, root) == [
        "inside.txt",
        "link_file.txt",
        "link_inside.txt",
        "link_dir/o.txt",
        "sub/s.txt",
    ]
    assert [d.page_content for d in followed] == ["in", "SECRET", "in", "O", "sub"]


def test_sample_size_takes_the_first_files(tree) -> None:
    assert relatives(DirectoryLoader(tree, sample_size=2).load(), tree) == [
        "_draft.txt",
        "b.txt",
    ]


def test_random_sample_is_repeatable_with_a_seed(tree) -> None:
    everything = list(DirectoryLoader(tree).iter_paths())
    expected = everything[:]
    random.Random(7).shuffle(expected)
    loader = DirectoryLoader(tree, sample_size=3, randomize_sample=True, sample_seed=7)
    sample = [d.metadata["source"] for d in loader.load()]
    assert sample == [str(p) for p in expected[:3]]
    assert [d.metadata["source"] for d in loader.load()] == sample


def test_multithreading_keeps_file_order_and_really_overlaps(tmp_path) -> None:
    """Three loads must be in flight together (a barrier of 3 would time out
    otherwise); files that finish early still come out in file order."""
    files = {f"f{i:02d}.txt": str(i) for i in range(12)}
    make_tree(tmp_path, files)
    barrier = threading.Barrier(3, timeout=60)
    done = {number: threading.Event() for number in range(3)}
    finished: list[str] = []

    class Overlapping(BaseLoader):
        def __init__(self, file_path: str) -> None:
            self.file_path = file_path

        def lazy_load(self) -> Iterator[Document]:
            number = int(Path(self.file_path).read_text())
            if number < 3:
                barrier.wait()  # the first three files load at the same time
                if number < 2:  # and finish in reverse order: 2, then 1, then 0
                    assert done[number + 1].wait(timeout=60)
            finished.append(str(number))
            if number < 3:
                done[number].set()
            yield Document(str(number), metadata={"source": self.file_path})

    loader = DirectoryLoader(
        tmp_path, loader_cls=Overlapping, use_multithreading=True, max_concurrency=3
    )
    documents = loader.load()
    assert [d.page_content for d in documents] == [str(i) for i in range(12)]
    assert finished[:3] == ["2", "1", "0"]


def test_multithreading_surfaces_errors_in_file_order(tree) -> None:
    (tree / "c.md").write_bytes(b"\xff")
    loader = DirectoryLoader(tree, use_multithreading=True, max_concurrency=4)
    stream = loader.lazy_load()
    assert [next(stream).page_content, next(stream).page_content] == ["D", "B"]
    with pytest.raises(LoaderError, match=r"c\.md as utf-8"):
        next(stream)


def test_show_progress_draws_a_tqdm_bar(tree, capsys) -> None:
    assert len(DirectoryLoader(tree, show_progress=True).load()) == 5
    assert "5/5" in capsys.readouterr().err


async def test_alazy_load(tree) -> None:
    documents = [d async for d in DirectoryLoader(tree, glob="*.md").alazy_load()]
    assert [d.page_content for d in documents] == ["C"]

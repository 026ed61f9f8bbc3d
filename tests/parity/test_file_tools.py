"""Parity: ``MoveFileTool`` (langchain_community.tools), over real files in a temporary
folder: the same moves leave the same files, the tool has LangChain's name and arguments,
and a path outside ``root_dir`` is refused without touching anything. ragline's
descriptions and messages are its own wording; without ``root_dir`` ragline confines the
tool to the current working directory, where LangChain's takes any path
(docs/differences-from-langchain.md).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from ragline.tools import MoveFileTool

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.tools import MoveFileTool as LCMoveFileTool

COVERS = {"tools.MoveFileTool"}


def _folder(base: Path) -> Path:
    root = base / "root"
    (root / "notes").mkdir(parents=True)
    (root / "draft.txt").write_text("draft")
    (root / "todo.txt").write_text("todo")
    (base / "outside.txt").write_text("keep me")
    return root


def _files(base: Path) -> dict[str, str]:
    return {
        str(path.relative_to(base)): path.read_text()
        for path in sorted(base.rglob("*"))
        if path.is_file()
    }


MOVES = [
    ("draft.txt", "final.txt"),  # a rename
    ("todo.txt", "notes/todo.txt"),  # into a subfolder, by its new path
    ("final.txt", "notes"),  # into a folder, by the folder's name
]


def _moved(tool_class: Any, base: Path) -> tuple[list[bool], dict[str, str]]:
    tool = tool_class(root_dir=str(_folder(base)))
    outputs = [
        tool.invoke({"source_path": source, "destination_path": destination})
        for source, destination in MOVES
    ]
    return [not output.startswith("Error") for output in outputs], _files(base)


def test_the_same_moves_leave_the_same_files(tmp_path: Path) -> None:
    ours = _moved(MoveFileTool, tmp_path / "ours")
    assert ours == _moved(LCMoveFileTool, tmp_path / "theirs")
    assert ours == (
        [True, True, True],
        {
            "outside.txt": "keep me",
            "root/notes/final.txt": "draft",
            "root/notes/todo.txt": "todo",
        },
    )


def test_the_tool_has_langchains_name_and_arguments() -> None:
    ours, theirs = MoveFileTool(), LCMoveFileTool()
    assert (ours.name, ours.root_dir, ours.return_direct) == (
        theirs.name,
        theirs.root_dir,
        theirs.return_direct,
    )
    shape = {name: (arg["title"], arg["type"]) for name, arg in ours.args.items()}
    assert shape == {name: (arg["title"], arg["type"]) for name, arg in theirs.args.items()}
    assert list(shape) == ["source_path", "destination_path"]
    assert (
        ours.tool_call_schema.model_json_schema()["required"]
        == (theirs.tool_call_schema.model_json_schema()["required"])
    )


@pytest.mark.parametrize(
    "move",
    [
        {"source_path": "../outside.txt", "destination_path": "inside.txt"},
        {"source_path": "missing.txt", "destination_path": "other.txt"},
    ],
)
def test_a_refused_or_failed_move_is_an_error_text_and_moves_nothing(
    tmp_path: Path, move: dict[str, str]
) -> None:
    outputs, files = [], []
    for tool_class, base in ((MoveFileTool, tmp_path / "ours"), (LCMoveFileTool, tmp_path / "lc")):
        tool = tool_class(root_dir=str(_folder(base)))
        outputs.append(tool.invoke(move))
        files.append(_files(base))
    assert [output.startswith("Error: ") for output in outputs] == [True, True]
    assert files[0] == files[1] == _files(tmp_path / "ours")
    assert "outside.txt" in files[0] and "root/draft.txt" in files[0]


def test_a_destination_outside_the_folder_is_refused(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere")
    tool = MoveFileTool(root_dir=str(root))
    for destination in ("../moved.txt", str(tmp_path / "moved.txt"), "link/moved.txt"):
        output = tool.invoke({"source_path": "draft.txt", "destination_path": destination})
        assert output == (
            f"Error: destination_path {destination!r} is outside {root.resolve()}, "
            "the only folder this tool may use"
        )
    assert _files(tmp_path) == {
        "outside.txt": "keep me",
        "root/draft.txt": "draft",
        "root/todo.txt": "todo",
    }
    # LangChain's tool fails here with an UnboundLocalError of its own code
    with pytest.raises(UnboundLocalError):
        LCMoveFileTool(root_dir=str(root)).invoke(
            {"source_path": "draft.txt", "destination_path": "../moved.txt"}
        )


def test_without_root_dir_the_tool_stays_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _folder(tmp_path)
    monkeypatch.chdir(root)
    tool = MoveFileTool()
    assert tool.invoke({"source_path": "draft.txt", "destination_path": "notes/d.txt"}) == (
        "Moved draft.txt to notes/d.txt."
    )
    refused = tool.invoke({"source_path": "../outside.txt", "destination_path": "o.txt"})
    assert refused.startswith("Error: source_path '../outside.txt' is outside ")
    assert (tmp_path / "outside.txt").read_text() == "keep me"


def test_a_move_onto_an_existing_file_is_refused_where_langchains_replaces_it(
    tmp_path: Path,
) -> None:
    # LangChain's shutil.move renames over the destination: todo.txt's text is gone.
    theirs = _folder(tmp_path / "lc")
    LCMoveFileTool(root_dir=str(theirs)).invoke(
        {"source_path": "draft.txt", "destination_path": "todo.txt"}
    )
    assert _files(theirs) == {"todo.txt": "draft"}
    root = _folder(tmp_path / "ours")
    (root / "notes" / "draft.txt").write_text("older draft")
    (root / "alias.txt").symlink_to(root / "todo.txt")
    tool = MoveFileTool(root_dir=str(root))
    outputs = [
        tool.invoke({"source_path": "draft.txt", "destination_path": destination})
        for destination in ("todo.txt", "notes", "alias.txt")
    ]
    assert outputs == [
        "Error: todo.txt already exists; this tool does not replace files (move that one first)",
        "Error: notes already holds draft.txt; this tool does not replace files "
        "(move that one first)",
        "Error: alias.txt already exists; this tool does not replace files (move that one first)",
    ]
    assert _files(root) == {
        "alias.txt": "todo",
        "draft.txt": "draft",
        "notes/draft.txt": "older draft",
        "todo.txt": "todo",
    }

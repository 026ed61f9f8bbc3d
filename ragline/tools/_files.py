"""File tools an agent may call: ``MoveFileTool`` (LangChain community's name, arguments
and outputs' shape; the descriptions a model reads and the messages are ragline's own).

Every path a model gives is resolved inside one folder, ``root_dir``, or refused:
``..``, an absolute path elsewhere and a symlink that leads out are all outside. Without
``root_dir`` the folder is the current working directory (LangChain's tool then takes
any path: a model could move any file the process may write). A move never replaces an
existing file (LangChain's does).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ragline.core import BaseTool
from ragline.core.tools import ArgsSchema

__all__ = ["MoveFileTool"]


class _OutsideRoot(Exception):
    pass


class _FileTool(BaseTool):
    """A tool that reads or writes files inside ``root_dir`` (default: the current
    working directory, read at each call)."""

    root_dir: str | None = None

    def get_relative_path(self, file_path: str) -> Path:
        """``file_path`` resolved inside ``root_dir``.

        Raises:
            _OutsideRoot: the path (symlinks followed) is outside ``root_dir``.
        """
        root = Path(self.root_dir if self.root_dir is not None else os.getcwd()).resolve()
        resolved = (root / file_path).resolve()
        if not resolved.is_relative_to(root):
            raise _OutsideRoot(root)
        return resolved

    def _refused(self, argument: str, value: str, err: _OutsideRoot) -> str:
        return (
            f"Error: {argument} {value!r} is outside {err.args[0]}, the only folder this "
            "tool may use"
        )


class MoveFileTool(_FileTool):
    """Moves (or renames) one file inside ``root_dir``; the outcome, or what went wrong,
    is the tool's output, for the model to read. A destination that already exists (or a
    folder already holding a file of the source's name) is refused: nothing is replaced.

    Fields:
        root_dir: the folder every path is resolved in (default: the current working
            directory). A path outside it is refused.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "draft.txt").write_text("hi")
        >>> MoveFileTool(root_dir=folder).invoke(
        ...     {"source_path": "draft.txt", "destination_path": "final.txt"})
        'Moved draft.txt to final.txt.'
        >>> MoveFileTool(root_dir=folder).invoke(
        ...     {"source_path": "final.txt", "destination_path": "../final.txt"})[:42]
        "Error: destination_path '../final.txt' is "
    """

    name: str = "move_file"
    description: str = "Moves a file to another path, or renames it."
    args_schema: Any = ArgsSchema(
        name="FileMoveInput",
        properties={
            "source_path": {"description": "The path of the file to move", "type": "string"},
            "destination_path": {
                "description": "The path the file gets (a folder: moved into it)",
                "type": "string",
            },
        },
        required=["source_path", "destination_path"],
        description="The file to move and where it goes.",
    )

    def _run(self, source_path: str, destination_path: str) -> str:
        try:
            source = self.get_relative_path(source_path)
        except _OutsideRoot as err:
            return self._refused("source_path", source_path, err)
        try:
            destination = self.get_relative_path(destination_path)
        except _OutsideRoot as err:
            return self._refused("destination_path", destination_path, err)
        if not source.exists():
            return f"Error: there is no file at {source_path}"
        # a move onto an existing file would replace it (LangChain's does: shutil.move
        # renames over it); nothing stored is lost here, so the model is told instead
        into_folder = destination.is_dir()
        target = destination / source.name if into_folder else destination
        if target.exists() or target.is_symlink():
            there = (
                f"{destination_path} already holds {source.name}"
                if into_folder
                else f"{destination_path} already exists"
            )
            return f"Error: {there}; this tool does not replace files (move that one first)"
        try:
            shutil.move(source, destination)
        except (OSError, shutil.Error) as err:
            return f"Error: {err}"
        return f"Moved {source_path} to {destination_path}."

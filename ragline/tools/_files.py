"""File tools an agent may call, and ``FileManagementToolkit``, which hands them out
(LangChain community's names, arguments and outputs' shape; the descriptions a model
reads and the messages are ragline's own): ``CopyFileTool``, ``DeleteFileTool``,
``FileSearchTool``, ``MoveFileTool``, ``ReadFileTool``, ``WriteFileTool``,
``ListDirectoryTool``.

Every path a model gives is resolved inside one folder, ``root_dir``, or refused:
``..``, an absolute path elsewhere and a symlink that leads out are all outside. Without
``root_dir`` the folder is the current working directory (LangChain's tools then take
any path: a model could read, write or delete any file the process may). A move or a
copy never replaces an existing file (LangChain's do); writing a file is what
``write_file`` is for, so it does.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragline.core import BaseTool
from ragline.core.exceptions import InvalidInputError
from ragline.core.tools import ArgsSchema

__all__ = [
    "CopyFileTool",
    "DeleteFileTool",
    "FileManagementToolkit",
    "FileSearchTool",
    "ListDirectoryTool",
    "MoveFileTool",
    "ReadFileTool",
    "WriteFileTool",
]


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

    def _resolve(self, **paths: str) -> tuple[Path, ...] | str:
        """Each path argument resolved inside ``root_dir``, in the order given; or, for the
        first one outside it, the refusal the model reads (a str, for ``_run`` to return).
        """
        resolved = []
        for argument, value in paths.items():
            try:
                resolved.append(self.get_relative_path(value))
            except _OutsideRoot as err:
                return (
                    f"Error: {argument} {value!r} is outside {err.args[0]}, the only folder "
                    "this tool may use"
                )
        return tuple(resolved)


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
        paths = self._resolve(source_path=source_path, destination_path=destination_path)
        if isinstance(paths, str):
            return paths
        source, destination = paths
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


def _schema(name: str, description: str, **arguments: tuple[str, str, Any]) -> ArgsSchema:
    """An argument schema from ``name=(json_type, description, default)`` (``...``: no
    default, so required)."""
    properties: dict[str, dict[str, Any]] = {}
    for argument, (json_type, text, default) in arguments.items():
        properties[argument] = {"description": text, "type": json_type}
        if default is not ...:
            properties[argument]["default"] = default
    required = [name for name, spec in arguments.items() if spec[2] is ...]
    return ArgsSchema(name=name, properties=properties, required=required, description=description)


def _two_paths(verb: str) -> ArgsSchema:
    return _schema(
        f"File{verb.title()}Input",
        f"The file to {verb} and where it goes.",
        source_path=("string", f"The path of the file to {verb}", ...),
        destination_path=("string", "The path the file gets (a folder: into it)", ...),
    )


class CopyFileTool(_FileTool):
    """Copies one file inside ``root_dir``; a destination that already exists is
    refused (nothing is replaced). The outcome, or what went wrong, is the output.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "a.txt").write_text("hi")
        >>> CopyFileTool(root_dir=folder).invoke(
        ...     {"source_path": "a.txt", "destination_path": "b.txt"})
        'Copied a.txt to b.txt.'
    """

    name: str = "copy_file"
    description: str = "Copies a file to another path."
    args_schema: Any = _two_paths("copy")

    def _run(self, source_path: str, destination_path: str) -> str:
        paths = self._resolve(source_path=source_path, destination_path=destination_path)
        if isinstance(paths, str):
            return paths
        source, destination = paths
        if not source.is_file():
            return f"Error: there is no file at {source_path}"
        target = destination / source.name if destination.is_dir() else destination
        if target.exists() or target.is_symlink():
            return (
                f"Error: {destination_path} already holds a file of that name; this tool "
                "does not replace files"
            )
        try:
            shutil.copy(source, target)
        except OSError as err:
            return f"Error: {err}"
        return f"Copied {source_path} to {destination_path}."


class DeleteFileTool(_FileTool):
    """Deletes one file inside ``root_dir`` (never a folder).

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "a.txt").write_text("hi")
        >>> DeleteFileTool(root_dir=folder).invoke({"file_path": "a.txt"})
        'Deleted a.txt.'
    """

    name: str = "file_delete"
    description: str = "Deletes a file."
    args_schema: Any = _schema(
        "FileDeleteInput",
        "The file to delete.",
        file_path=("string", "The path of the file to delete", ...),
    )

    def _run(self, file_path: str) -> str:
        paths = self._resolve(file_path=file_path)
        if isinstance(paths, str):
            return paths
        (path,) = paths
        if not path.is_file():
            return f"Error: there is no file at {file_path}"
        try:
            path.unlink()
        except OSError as err:
            return f"Error: {err}"
        return f"Deleted {file_path}."


class FileSearchTool(_FileTool):
    """Finds the files under a folder of ``root_dir`` whose names match a shell pattern
    (``*.txt``), searching its subfolders too; one path a line, relative to that folder.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "a.txt").write_text("hi")
        >>> FileSearchTool(root_dir=folder).invoke({"pattern": "*.txt"})
        'a.txt'
    """

    name: str = "file_search"
    description: str = "Finds files whose names match a pattern, in a folder and below it."
    args_schema: Any = _schema(
        "FileSearchInput",
        "Where to search and the pattern names must match.",
        dir_path=("string", "The folder to search (default: the root folder)", "."),
        pattern=("string", "A shell pattern for the names: * matches any text", ...),
    )

    def _run(self, pattern: str, dir_path: str = ".") -> str:
        paths = self._resolve(dir_path=dir_path)
        if isinstance(paths, str):
            return paths
        (folder,) = paths
        if not folder.is_dir():
            return f"Error: there is no folder at {dir_path}"
        found = []
        for parent, _, names in os.walk(folder):
            for name in fnmatch.filter(names, pattern):
                found.append(os.path.relpath(os.path.join(parent, name), folder))
        if not found:
            return f"No file under {dir_path} has a name matching {pattern}."
        return "\n".join(sorted(found))


class ListDirectoryTool(_FileTool):
    """The names in a folder of ``root_dir`` (files and folders), one a line, sorted.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "a.txt").write_text("hi")
        >>> ListDirectoryTool(root_dir=folder).invoke({})
        'a.txt'
    """

    name: str = "list_directory"
    description: str = "Lists the files and folders in a folder."
    args_schema: Any = _schema(
        "DirectoryListingInput",
        "The folder to list.",
        dir_path=("string", "The folder to list (default: the root folder)", "."),
    )

    def _run(self, dir_path: str = ".") -> str:
        paths = self._resolve(dir_path=dir_path)
        if isinstance(paths, str):
            return paths
        (folder,) = paths
        try:
            names = sorted(os.listdir(folder))
        except OSError as err:
            return f"Error: {err}"
        if not names:
            return f"The folder {dir_path} is empty."
        return "\n".join(names)


class ReadFileTool(_FileTool):
    """A file's text (UTF-8) inside ``root_dir``.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> _ = Path(folder, "a.txt").write_text("hi")
        >>> ReadFileTool(root_dir=folder).invoke({"file_path": "a.txt"})
        'hi'
    """

    name: str = "read_file"
    description: str = "Reads a text file."
    args_schema: Any = _schema(
        "ReadFileInput",
        "The file to read.",
        file_path=("string", "The path of the file to read", ...),
    )

    def _run(self, file_path: str) -> str:
        paths = self._resolve(file_path=file_path)
        if isinstance(paths, str):
            return paths
        (path,) = paths
        if not path.is_file():
            return f"Error: there is no file at {file_path}"
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            return f"Error: {err}"


class WriteFileTool(_FileTool):
    """Writes text to a file inside ``root_dir`` (its folders made as needed), replacing
    what it held, or after it with ``append=True``.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> WriteFileTool(root_dir=folder).invoke({"file_path": "a.txt", "text": "hi"})
        'Wrote a.txt.'
    """

    name: str = "write_file"
    description: str = "Writes text to a file (replacing it, or appending to it)."
    args_schema: Any = _schema(
        "WriteFileInput",
        "The file, the text and whether to append.",
        file_path=("string", "The path of the file to write", ...),
        text=("string", "The text to write", ...),
        append=("boolean", "Whether to add the text after what the file holds", False),
    )

    def _run(self, file_path: str, text: str, append: bool = False) -> str:
        paths = self._resolve(file_path=file_path)
        if isinstance(paths, str):
            return paths
        (path,) = paths
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a" if append else "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as err:
            return f"Error: {err}"
        return f"{'Appended to' if append else 'Wrote'} {file_path}."


# LangChain's order, get_tools()'s without selected_tools
_TOOLS: dict[str, type[_FileTool]] = {
    "copy_file": CopyFileTool,
    "file_delete": DeleteFileTool,
    "file_search": FileSearchTool,
    "move_file": MoveFileTool,
    "read_file": ReadFileTool,
    "write_file": WriteFileTool,
    "list_directory": ListDirectoryTool,
}


class FileManagementToolkit:
    """The file tools over one folder, for an agent.

    Args:
        root_dir: the folder every tool's paths are resolved in (default: the current
            working directory, read at each call); a path outside it is refused.
        selected_tools: the names of the tools to hand out, in the order
            ``get_tools`` gives them (default: all seven).

    Raises:
        InvalidInputError: a selected name is not one of the tools'.

    Example:
        >>> import tempfile
        >>> toolkit = FileManagementToolkit(root_dir=tempfile.mkdtemp())
        >>> [tool.name for tool in toolkit.get_tools()][:3]
        ['copy_file', 'file_delete', 'file_search']
    """

    def __init__(
        self, *, root_dir: str | None = None, selected_tools: Sequence[str] | None = None
    ) -> None:
        if isinstance(selected_tools, str):
            raise InvalidInputError(
                f"selected_tools takes a list of tool names, got the string {selected_tools!r}"
            )
        for name in selected_tools or ():
            if name not in _TOOLS:
                raise InvalidInputError(
                    f"selected_tools names {name!r}, which is not a file tool; the tools "
                    f"are {list(_TOOLS)}"
                )
        self.root_dir = None if root_dir is None else str(root_dir)
        self.selected_tools = None if selected_tools is None else list(selected_tools)

    def __repr__(self) -> str:
        return (
            f"FileManagementToolkit(root_dir={self.root_dir!r}, "
            f"selected_tools={self.selected_tools!r})"
        )

    def get_tools(self) -> list[BaseTool]:
        """One tool per selected name, in ``selected_tools``' order (without it, all
        seven: ``copy_file``, ``file_delete``, ``file_search``, ``move_file``,
        ``read_file``, ``write_file``, ``list_directory``)."""
        names = self.selected_tools if self.selected_tools is not None else list(_TOOLS)
        return [_TOOLS[name](root_dir=self.root_dir) for name in names]

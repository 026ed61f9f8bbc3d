"""FileChatMessageHistory: one conversation in one JSON file.

The file holds a JSON list of message dicts (LangChain's shape, so files written by
LangChain's ``FileChatMessageHistory`` load here and the reverse). Writes are atomic: the
new list goes to a temporary file in the same folder, is flushed to disk and renamed over
the old one, so a crash leaves either the old or the new conversation, never half of
one. Writers in several processes take turns through a lock file beside it
(``<name>.lock``), so two processes adding messages at once lose neither's messages.
Readers need no lock (the rename is atomic).

A file that is not a JSON list of messages this version can read (not JSON, ``[1]``,
an unknown message type) is never overwritten by ``add_messages``:
the call raises ``PersistenceError`` naming the file, and the file stays as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragline.core import BaseMessage, InvalidInputError, PersistenceError
from ragline.core._paths import check_file_path
from ragline.core.chat_history import BaseChatMessageHistory, check_messages
from ragline.memory._codec import decode_items, encode_messages

__all__ = ["FileChatMessageHistory"]


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed) across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        if os.name == "nt":  # pragma: no cover - exercised on Windows only
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# The temporary file written beside the history is ".<name>." + 8 random characters +
# ".tmp" (14 bytes more than the name); the lock file adds ".lock" (5).
_SIBLING_RESERVE = 14


def write_atomically(path: Path, text: str, encoding: str) -> None:
    """Replace ``path`` with ``text``: temporary file, fsync, rename (fsync the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding=encoding) as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if os.name != "nt":
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


class FileChatMessageHistory(BaseChatMessageHistory):
    """A conversation stored as a JSON list in one file.

    Args:
        file_path: the file. Created holding ``[]`` (with its folder) when missing, as
            LangChain's history creates it on construction.
        encoding: the file's text encoding.
        ensure_ascii: escape non-ASCII characters in the JSON (LangChain's default).

    Raises:
        InvalidInputError: ``file_path`` is not a path, holds a NUL or a character the
            file system cannot encode, or has a name longer than the file system allows.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "chat.json"
        >>> history = FileChatMessageHistory(path)
        >>> history.add_user_message("hi")
        >>> FileChatMessageHistory(path).messages
        [HumanMessage(content='hi', additional_kwargs={}, response_metadata={})]
    """

    def __init__(
        self,
        file_path: str | os.PathLike[str],
        *,
        encoding: str = "utf-8",
        ensure_ascii: bool = True,
    ) -> None:
        self.file_path = Path(
            check_file_path(file_path, what="file_path", reserve=_SIBLING_RESERVE)
        )
        self.encoding = encoding
        self.ensure_ascii = ensure_ascii
        self._lock_path = self.file_path.with_name(self.file_path.name + ".lock")
        self._create_if_missing()

    def _create_if_missing(self) -> None:
        """Create the file holding ``[]`` unless it exists (an existing file is not read).

        ``O_EXCL`` makes the creation race-free without the lock: if another process
        creates or renames the file first, this one leaves it alone.

        Raises:
            PersistenceError: the file or its folder cannot be created.
        """
        if self.file_path.exists():
            return
        try:
            self.file_path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(self.file_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            return
        except OSError as err:
            raise PersistenceError(
                f"cannot create chat history file {self.file_path}: {err}"
            ) from err
        with os.fdopen(handle, "w", encoding=self.encoding) as stream:
            stream.write("[]")

    def __repr__(self) -> str:
        return f"FileChatMessageHistory({str(self.file_path)!r})"

    def _read_items(self) -> list[Any]:
        try:
            text = self.file_path.read_text(encoding=self.encoding)
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as err:
            raise PersistenceError(
                f"cannot read chat history file {self.file_path}: {err}"
            ) from err
        if not text.strip():  # an empty file (LangChain creates one before writing)
            return []
        try:
            items = json.loads(text)
        except ValueError as err:
            raise PersistenceError(
                f"chat history file {self.file_path} is not valid JSON ({err}); it was left "
                "as it is: repair or move it, or pass another file_path"
            ) from None
        if not isinstance(items, list):
            raise PersistenceError(
                f"chat history file {self.file_path} holds a JSON {type(items).__name__}, not "
                "a list of messages; it was left as it is"
            )
        return items

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The stored messages (read from the file on every access).

        Raises:
            PersistenceError: the file is not a JSON list of message dicts.
        """
        return decode_items(self._read_items(), f"chat history file {self.file_path}")

    def add_message(self, message: BaseMessage) -> None:
        """Append one message (one locked read-append-rename of the file)."""
        self._write(self._joined(check_messages([message])))

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages: one locked read-append-rename of the file.

        A subclass that overrides :meth:`add_message` has it called once per message, in
        order, as LangChain's history does (its ``add_messages`` is a loop over
        ``add_message``), so the override sees every message.

        Raises:
            InvalidInputError: an item is not a message or cannot be stored as JSON
                (nothing is written, and an overridden ``add_message`` is not called).
            PersistenceError: the existing file is not a JSON list of messages this
                version can read (it is left as it is).
        """
        checked = check_messages(messages)
        joined = self._joined(checked)  # every message stored whole, or none
        if type(self).add_message is not FileChatMessageHistory.add_message:
            super().add_messages(checked)  # the base's loop over add_message
            return
        self._write(joined)

    def _joined(self, messages: list[BaseMessage]) -> str:
        """The messages as the file's JSON items, joined by ``", "`` (``""`` for none).

        Raises:
            InvalidInputError: a message cannot be stored as JSON in the file's encoding.
        """
        joined = ", ".join(encode_messages(messages, ensure_ascii=self.ensure_ascii))
        try:
            joined.encode(self.encoding)
        except UnicodeEncodeError as err:
            raise InvalidInputError(
                f"a message holds {joined[err.start : err.end]!r}, which the chat history "
                f"file's encoding {self.encoding!r} cannot store; nothing was stored"
            ) from None
        return joined

    def _write(self, joined: str) -> None:
        """Append ``joined`` (see :meth:`_joined`) to the file's list, under its lock."""
        if not joined:
            return
        with file_lock(self._lock_path):
            items = self._read_items()
            # Every stored item must load before anything is written: a file this
            # version cannot read (an unknown message type, a list of numbers) is
            # reported and left byte for byte as it was.
            decode_items(items, f"chat history file {self.file_path}")
            # Stored items are written back as read, not re-encoded, so fields this
            # version does not know survive.
            text = json.dumps(items, ensure_ascii=self.ensure_ascii)
            text = f"[{joined}]" if text == "[]" else f"{text[:-1]}, {joined}]"
            write_atomically(self.file_path, text, self.encoding)

    def clear(self) -> None:
        """Remove every message (the file then holds ``[]``)."""
        with file_lock(self._lock_path):
            write_atomically(self.file_path, "[]", self.encoding)

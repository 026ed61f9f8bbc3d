"""In-process byte stores: a dict and a folder of files, and the interface every store keeps.

``BaseStore[K, V]`` is the interface (LangChain's names): batch ``mget`` / ``mset`` /
``mdelete`` and ``yield_keys(prefix=None)``, with async twins that run the sync method in
a worker thread unless a store has something better. Two stores ship here:

* ``InMemoryByteStore``: a dict, for tests and one-process caches; ``InMemoryStore``
  is the same for any Python values (LangChain's docstore of parent documents).
* ``LocalFileStore(root_path)``: one file per key under a directory. Keys are checked
  (letters, digits, ``_ . - /``; no empty, ``.`` or ``..`` segment) so no key can escape
  the root, and each value is written to a temporary file then renamed over the target,
  so a reader never sees half a value and a process that dies mid-write leaves the
  previous value intact. (Files are not fsync'ed, for speed: after a power cut the
  latest writes may be lost or empty, and an embedding cache treats those as misses.)
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from ragline.core.exceptions import InvalidInputError, PersistenceError

__all__ = ["BaseStore", "ByteStore", "InMemoryByteStore", "InMemoryStore", "LocalFileStore"]

K = TypeVar("K")
V = TypeVar("V")

_KEY_PATTERN = re.compile(r"[A-Za-z0-9_.\-/]+")
# "~" can never appear in a key, so files holding it are temporary files, never keys.
_TEMP_MARK = "~tmp"
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows
_CHECKED_DIRS_LIMIT = 4096


class BaseStore(ABC, Generic[K, V]):
    """A batch key-value store.

    Subclasses implement ``mget``, ``mset``, ``mdelete`` and ``yield_keys``; the async
    twins default to running those in a worker thread.

    Example:
        >>> store = InMemoryByteStore()
        >>> store.mset([("a", b"1"), ("b", b"2")])
        >>> store.mget(["a", "missing"])
        [b'1', None]
    """

    @abstractmethod
    def mget(self, keys: Sequence[K]) -> list[V | None]:
        """Return the value of each key, ``None`` where the key is absent.

        Args:
            keys: the keys to look up.

        Returns:
            One value or ``None`` per key, in order.
        """

    @abstractmethod
    def mset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        """Store each ``(key, value)`` pair, replacing existing values.

        Args:
            key_value_pairs: the pairs to store. Every pair is checked before any is written.

        Raises:
            InvalidInputError: a key or value is invalid for this store.
        """

    @abstractmethod
    def mdelete(self, keys: Sequence[K]) -> None:
        """Delete the keys; absent keys are ignored.

        Args:
            keys: the keys to delete.
        """

    @abstractmethod
    def yield_keys(self, *, prefix: str | None = None) -> Iterator[K]:
        """Yield the stored keys, only those starting with ``prefix`` when given.

        Args:
            prefix: keep keys whose string form starts with this.

        Returns:
            An iterator over keys.
        """

    async def amget(self, keys: Sequence[K]) -> list[V | None]:
        """Async ``mget``."""
        return await asyncio.to_thread(self.mget, keys)

    async def amset(self, key_value_pairs: Sequence[tuple[K, V]]) -> None:
        """Async ``mset``."""
        await asyncio.to_thread(self.mset, key_value_pairs)

    async def amdelete(self, keys: Sequence[K]) -> None:
        """Async ``mdelete``."""
        await asyncio.to_thread(self.mdelete, keys)

    async def ayield_keys(self, *, prefix: str | None = None) -> AsyncIterator[K]:
        """Async ``yield_keys`` (the listing is taken in a worker thread)."""
        keys = await asyncio.to_thread(lambda: list(self.yield_keys(prefix=prefix)))
        for key in keys:
            yield key


ByteStore = BaseStore[str, bytes]


def _check_key(key: object) -> str:
    if not isinstance(key, str):
        raise InvalidInputError(f"store keys must be str, got {type(key).__name__}: {key!r:.60}")
    return key


def _check_value(key: str, value: object) -> bytes:
    if isinstance(value, bytearray):
        return bytes(value)
    if not isinstance(value, bytes):
        raise InvalidInputError(
            f"byte store values must be bytes, got {type(value).__name__} for key {key!r}"
        )
    return value


def check_keys(keys: Sequence[str]) -> list[str]:
    """A byte store's key list, checked (shared by every byte store backend)."""
    if isinstance(keys, (str, bytes)):
        raise InvalidInputError(f"keys must be a list of str, got a single value {keys!r:.60}")
    return [_check_key(key) for key in keys]


def check_pairs(key_value_pairs: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """A byte store's ``mset`` pairs, checked: str keys, bytes values (bytearray copied)."""
    checked = []
    for pair in key_value_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise InvalidInputError(f"mset expects (key, value) pairs, got {pair!r:.60}")
        key = _check_key(pair[0])
        checked.append((key, _check_value(key, pair[1])))
    return checked


class InMemoryBaseStore(BaseStore[str, V]):
    """A store in a dict: fast, per process, gone when the process ends. One hook:
    ``_checked`` (the ``mset`` pairs, checked). LangChain's name for the base of its two
    in-memory stores (what ``type(store).__mro__[1]`` shows)."""

    def __init__(self) -> None:
        self.store: dict[str, V] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(<{len(self.store)} keys>)"

    def _checked(self, key_value_pairs: Sequence[tuple[str, V]]) -> list[tuple[str, V]]:
        raise NotImplementedError

    def mget(self, keys: Sequence[str]) -> list[V | None]:
        """Return each key's value or ``None``."""
        return [self.store.get(key) for key in check_keys(keys)]

    def mset(self, key_value_pairs: Sequence[tuple[str, V]]) -> None:
        """Store the pairs (all checked before any is stored)."""
        self.store.update(self._checked(key_value_pairs))

    def mdelete(self, keys: Sequence[str]) -> None:
        """Delete the keys; absent keys are ignored."""
        for key in check_keys(keys):
            self.store.pop(key, None)

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        """Yield keys in insertion order, only those starting with ``prefix``."""
        for key in list(self.store):
            if prefix is None or key.startswith(prefix):
                yield key

    # nothing blocks here, so the async twins run inline instead of in a thread
    async def amget(self, keys: Sequence[str]) -> list[V | None]:
        """Async ``mget`` (inline)."""
        return self.mget(keys)

    async def amset(self, key_value_pairs: Sequence[tuple[str, V]]) -> None:
        """Async ``mset`` (inline)."""
        self.mset(key_value_pairs)

    async def amdelete(self, keys: Sequence[str]) -> None:
        """Async ``mdelete`` (inline)."""
        self.mdelete(keys)

    async def ayield_keys(self, *, prefix: str | None = None) -> AsyncIterator[str]:
        """Async ``yield_keys`` (inline)."""
        for key in self.yield_keys(prefix=prefix):
            yield key


class InMemoryByteStore(InMemoryBaseStore[bytes]):
    """A byte store in a dict: fast, per process, gone when the process ends.

    Example:
        >>> store = InMemoryByteStore()
        >>> store.mset([("user:1", b"x")])
        >>> list(store.yield_keys(prefix="user:"))
        ['user:1']
    """

    def _checked(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
        return check_pairs(key_value_pairs)


class InMemoryStore(InMemoryBaseStore[Any]):
    """LangChain's ``InMemoryStore``: any Python values under str keys, in a dict.

    The values are kept as they are (not copied), as LangChain's store keeps them.

    Example:
        >>> store = InMemoryStore()
        >>> store.mset([("doc:1", {"title": "a"}), ("doc:2", [1, 2])])
        >>> store.mget(["doc:1", "doc:3"])
        [{'title': 'a'}, None]
    """

    def _checked(self, key_value_pairs: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
        checked = []
        for pair in key_value_pairs:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise InvalidInputError(f"mset expects (key, value) pairs, got {pair!r:.60}")
            checked.append((_check_key(pair[0]), pair[1]))
        return checked


class LocalFileStore(BaseStore[str, bytes]):
    """A byte store with one file per key under ``root_path``.

    A key is a relative path made of letters, digits and ``_ . - /``; ``/`` makes
    sub-directories. Keys with an empty, ``.`` or ``..`` segment are refused, so no key
    reaches outside the root. Writes go to a temporary file in the target directory and
    are renamed into place (atomic on POSIX and Windows), so concurrent readers and other
    processes see either the old or the new value, never a partial one. A file that is a
    symbolic link is never followed (reading it raises PersistenceError; writing replaces
    the link itself), and a symlinked sub-directory leading outside the root is refused.

    Args:
        root_path: the directory (created on first write if missing).
        chmod_file: permission bits for new files (e.g. ``0o600``), default: umask.
        chmod_dir: permission bits for new directories, default: umask.
        update_atime: touch a file's access time when it is read (for LRU-style pruning).

    Raises:
        InvalidInputError: a key is not a safe relative path (on any call).
        PersistenceError: the file system refused a read or write; names the path.

    Example:
        >>> import tempfile
        >>> store = LocalFileStore(tempfile.mkdtemp())
        >>> store.mset([("cache/a", b"1")])
        >>> store.mget(["cache/a"]), list(store.yield_keys())
        ([b'1'], ['cache/a'])
    """

    def __init__(
        self,
        root_path: str | os.PathLike[str],
        *,
        chmod_file: int | None = None,
        chmod_dir: int | None = None,
        update_atime: bool = False,
    ) -> None:
        if not isinstance(root_path, (str, os.PathLike)) or not str(root_path):
            raise InvalidInputError(f"root_path must be a directory path, got {root_path!r}")
        self.root_path = Path(root_path).expanduser().resolve()
        if self.root_path.exists() and not self.root_path.is_dir():
            raise InvalidInputError(f"root_path {str(self.root_path)!r} is not a directory")
        self.chmod_file = chmod_file
        self.chmod_dir = chmod_dir
        self.update_atime = update_atime
        self._checked_dirs: set[Path] = set()

    def __repr__(self) -> str:
        return f"LocalFileStore({str(self.root_path)!r})"

    def _path(self, key: object) -> Path:
        key = _check_key(key)
        segments = key.split("/")
        if not _KEY_PATTERN.fullmatch(key) or any(
            segment in ("", ".", "..") for segment in segments
        ):
            raise InvalidInputError(
                f"LocalFileStore key {key!r} is not a safe relative path: use letters, "
                "digits and '_ . - /', with no empty, '.' or '..' segment"
            )
        path = self.root_path.joinpath(*segments)
        # Belt and braces: a symlinked directory inside the root must not lead outside it.
        # Directories are few and stable, so each is resolved once (a resolve per key
        # costs most of a read); files are opened without following symlinks instead.
        parent = path.parent
        if parent not in self._checked_dirs:
            if not parent.resolve().is_relative_to(self.root_path):
                raise InvalidInputError(
                    f"LocalFileStore key {key!r} resolves outside {self.root_path}"
                )
            if parent.is_dir():
                if len(self._checked_dirs) >= _CHECKED_DIRS_LIMIT:
                    self._checked_dirs.clear()
                self._checked_dirs.add(parent)
        return path

    def _read(self, path: Path) -> bytes | None:
        try:
            handle = os.open(path, os.O_RDONLY | _NO_FOLLOW)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as err:
            if path.is_symlink():
                raise PersistenceError(f"refusing to follow the symbolic link {path}") from err
            raise PersistenceError(f"cannot read {path}: {err}") from err
        try:
            with os.fdopen(handle, "rb") as file:
                return file.read()
        except IsADirectoryError:
            return None  # "a" is a directory because "a/b" is a key
        except OSError as err:
            raise PersistenceError(f"cannot read {path}: {err}") from err

    def _make_dirs(self, directory: Path) -> None:
        if directory.is_dir():
            return
        missing = []
        for parent in [directory, *directory.parents]:
            if parent.exists():
                break
            missing.append(parent)
        for path in reversed(missing):
            path.mkdir(exist_ok=True)
            if self.chmod_dir is not None:
                os.chmod(path, self.chmod_dir)

    def mget(self, keys: Sequence[str]) -> list[bytes | None]:
        """Return each key's bytes or ``None`` when no file holds it."""
        paths = [self._path(key) for key in keys]
        values = [self._read(path) for path in paths]
        if self.update_atime:
            for path, value in zip(paths, values, strict=True):
                if value is not None:
                    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns))
        return values

    def mset(self, key_value_pairs: Sequence[tuple[str, bytes]]) -> None:
        """Write each value atomically (temporary file + rename); all keys checked first."""
        checked = [(self._path(key), value) for key, value in check_pairs(key_value_pairs)]
        for path, value in checked:
            self._write_atomic(path, value)

    def _write_atomic(self, path: Path, value: bytes) -> None:
        try:
            self._make_dirs(path.parent)
            handle, temp_name = tempfile.mkstemp(
                dir=path.parent, prefix=f".{path.name}.", suffix=_TEMP_MARK
            )
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(value)
                if self.chmod_file is not None:
                    os.chmod(temp_name, self.chmod_file)
                os.replace(temp_name, path)
            except BaseException:
                Path(temp_name).unlink(missing_ok=True)
                raise
        except OSError as err:
            raise PersistenceError(f"cannot write {path}: {err}") from err

    def mdelete(self, keys: Sequence[str]) -> None:
        """Delete the files of the keys; absent keys are ignored."""
        for path in [self._path(key) for key in keys]:
            try:
                path.unlink()
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                pass
            except OSError as err:
                raise PersistenceError(f"cannot delete {path}: {err}") from err

    def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
        """Yield stored keys; with ``prefix``, those in that folder under the root.

        As LangChain's: the prefix names a folder (``"a"`` and ``"a/"`` list ``a/x`` and
        ``a/y/z``, not ``ab``; a key's own name lists nothing), and may be any path that
        stays inside the root (``"./a"``). The order is the file system's, as
        ``Path.rglob`` walks the folder (LangChain's order): not sorted, but the same for
        the same files, run after run.

        Raises:
            InvalidInputError: ``prefix`` has other characters than a key's, or leads
                outside the root.
        """
        root = folder = self.root_path
        if prefix:
            if not _KEY_PATTERN.fullmatch(_check_key(prefix)):
                raise InvalidInputError(
                    f"LocalFileStore prefix {prefix!r} is not a relative path: use letters, "
                    "digits and '_ . - /'"
                )
            folder = (root / prefix).resolve()
            if not folder.is_relative_to(root):
                raise InvalidInputError(f"LocalFileStore prefix {prefix!r} leads outside {root}")
        if not folder.is_dir():
            return
        for path in folder.rglob("*"):
            if _TEMP_MARK in path.name or not path.is_file():
                continue
            yield path.relative_to(root).as_posix()

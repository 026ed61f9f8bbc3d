"""The writer lock of a store folder: one writer at a time, and the others told who writes.

The lock is an exclusive ``flock`` on ``ragline.lock`` in the folder. The operating system
drops it when the holder exits, however it exits (a ``kill -9`` included), so a lock is
never left behind by a dead process. The holder writes who it is into the file (process
id, host, start time, command), so a second writer that cannot wait can say who holds it.
Readers take no lock: they read the committed copy the manifest names.

A forked child (``index_paths``' split workers, a user's ``multiprocessing``) closes the
lock descriptors it inherited at once (:func:`_forget_in_child`): a flock belongs to the
open file, so a child keeping a copy would hold the lock after the writer released it
or died, for as long as the child lived.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
import weakref
from datetime import datetime, timezone
from pathlib import Path

from ragline.core import StoreLockedError

__all__ = ["LOCK_FILE", "WAIT_HINT", "FolderLock"]

LOCK_FILE = "ragline.lock"
# How a locked-out writer is told to wait, in the library's words; the ``ragline index``
# command puts its ``--wait`` flag in its place.
WAIT_HINT = "pass wait=SECONDS (index_paths, StoreFolder.writer) to wait for it"
_POLL_SECONDS = 0.05

try:
    import fcntl
except ImportError:  # pragma: no cover  (Windows: no flock)
    fcntl = None  # type: ignore[assignment]

# the locks this process holds, for _forget_in_child
_HELD: weakref.WeakSet[FolderLock] = weakref.WeakSet()


def _holder_text() -> str:
    started = datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")
    command = " ".join([os.path.basename(sys.argv[0] or "python"), *sys.argv[1:]])[:200]
    return f"pid {os.getpid()} on {socket.gethostname()} since {started} ({command})"


class FolderLock:
    """An exclusive lock on one store folder, for one writer.

    Args:
        folder: the store folder (it must exist).
        wait: seconds to wait for another writer to finish (0: fail at once).

    Raises:
        StoreLockedError: (from :meth:`acquire`) another process holds the lock and did
            not release it within ``wait`` seconds; the message names the holder.
    """

    def __init__(self, folder: Path, *, wait: float = 0.0) -> None:
        self.path = folder / LOCK_FILE
        self.wait = wait
        self._descriptor: int | None = None

    def acquire(self) -> None:
        """Take the lock, waiting up to ``wait`` seconds for the current holder."""
        deadline = time.monotonic() + self.wait
        while True:
            descriptor = self._open()
            if _flock(descriptor):
                if self._still_the_lock_file(descriptor):
                    break
                os.close(descriptor)  # the holder removed it (with its new folder): again
                continue
            holder = _read(descriptor)
            os.close(descriptor)
            if time.monotonic() >= deadline:
                waited = f" after waiting {self.wait:g} s" if self.wait > 0 else ""
                raise StoreLockedError(
                    f"{self.path.parent} is being written by another ragline process "
                    f"({holder or 'holder unknown'}){waited}; wait for it to finish, or "
                    f"{WAIT_HINT}"
                )
            time.sleep(_POLL_SECONDS)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, (_holder_text() + "\n").encode("utf-8"))
        self._descriptor = descriptor
        _HELD.add(self)

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:  # a first run that failed removed the folder it made
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)

    def _still_the_lock_file(self, descriptor: int) -> bool:
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(descriptor)
        return (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino)

    def release(self) -> None:
        """Give the lock up (the lock file stays: removing it would race other writers)."""
        descriptor, self._descriptor = self._descriptor, None
        _HELD.discard(self)
        if descriptor is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(descriptor, 0)
        os.close(descriptor)  # closing drops the flock


def _forget_in_child() -> None:
    """In a forked child: close the copies of the parent's lock descriptors, and forget
    them (the child's release() does nothing: the lock and its holder text are the
    parent's)."""
    for lock in list(_HELD):
        descriptor, lock._descriptor = lock._descriptor, None
        if descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(descriptor)
    _HELD.clear()


if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_forget_in_child)


def _flock(descriptor: int) -> bool:
    if fcntl is None:  # pragma: no cover
        return True
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _read(descriptor: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(descriptor, 400, 0).decode("utf-8", "replace").strip()
    return ""

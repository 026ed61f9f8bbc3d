"""The writer lock and forked children (index_paths' split workers, issue 25): a child
must not keep the lock after the writer released it or died."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from ragline.store_folder import StoreFolder, index_paths
from ragline.store_folder._lock import LOCK_FILE, FolderLock

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")

REPO_ROOT = Path(__file__).resolve().parents[2]


def _child(lock: FolderLock, conn: Connection) -> None:
    """A forked child: says whether it still has the lock's descriptor, releases its
    copy of the lock (a child unwinding a ``with writer:``), then waits to be told."""
    conn.send(lock._descriptor)
    lock.release()
    conn.send("released")
    conn.recv()


def test_a_forked_child_keeps_neither_the_lock_nor_its_holder_text(tmp_path: Path) -> None:
    lock = FolderLock(tmp_path)
    lock.acquire()
    holder = (tmp_path / LOCK_FILE).read_text(encoding="utf-8")
    ours, theirs = multiprocessing.Pipe()
    child = multiprocessing.get_context("fork").Process(target=_child, args=(lock, theirs))
    child.start()
    try:
        assert ours.recv() is None  # the child closed its copy when it was forked
        assert ours.recv() == "released"
        # the child's release() did not touch the file: the holder is still named
        assert (tmp_path / LOCK_FILE).read_text(encoding="utf-8") == holder
        lock.release()
        # the child is alive, and the lock is free: before, the child's copy held it
        again = FolderLock(tmp_path)
        again.acquire()
        again.release()
    finally:
        ours.send("done")
        child.join(10)
    assert child.exitcode == 0


# a run whose worker processes split the files (the workers forced on any machine) and
# whose model is slow, so the run is killed while they are alive
SLOW_RUN = """
import sys, time
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, index_paths, register_embedding
from ragline.store_folder import _index

class SlowGPU(HashingEmbeddings):
    def describe_device(self):
        return "cuda:0 (test stub)"

    def embed_documents(self, texts):
        time.sleep(0.5)
        return super().embed_documents(texts)

    def embed_documents_array(self, texts):
        time.sleep(0.5)
        return super().embed_documents_array(texts)

register_embedding("slow-gpu", EmbeddingBackend(lambda options, bar: SlowGPU(dimension=8)))
_index.WORKER_CPUS = 1
planner = _index._Planner.__init__

def started(self, *args):
    planner(self, *args)
    if self.warm is not None:
        self.warm.result(60)
        print("workers", *sorted(self.pool._processes), flush=True)

_index._Planner.__init__ = started
index_paths([sys.argv[1]], sys.argv[2], embedding="slow-gpu", chunk_size=200,
            chunk_overlap=20)
"""


def test_a_run_killed_with_its_workers_alive_leaves_the_store_unlocked(tmp_path: Path) -> None:
    """``kill -9`` of an index_paths run whose split workers are alive: the next writer
    gets the store (the workers had inherited the lock's descriptor)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(8):
        (corpus / f"doc{number}.txt").write_text(f"word{number} alpha beta " * 20_000)
    folder = tmp_path / "store"
    run = subprocess.Popen(
        [sys.executable, "-c", SLOW_RUN, str(corpus), str(folder)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    try:
        assert run.stdout is not None
        line = run.stdout.readline()
        assert line.startswith("workers "), line + (run.stderr.read() if run.stderr else "")
        workers = [int(pid) for pid in line.split()[1:]]
        assert workers
    finally:
        run.kill()
        run.wait()
    try:
        with StoreFolder(folder).writer(embedding="hashing", wait=5):
            pass
        small = tmp_path / "small"
        small.mkdir()
        (small / "a.txt").write_text("alpha beta")
        result = index_paths([small], folder, embedding="hashing", rebuild=True)
        assert result["num_added"] == 1
    finally:
        for pid in workers:  # an orphan left by a run before this fix
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)

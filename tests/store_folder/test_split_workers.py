"""index_paths beside a GPU on many cores: files split, hashed and tokenized by worker
processes (issue 25). The store must be the one the main thread alone writes."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import BM25Tokenizer
from ragline.store_folder import EmbeddingBackend, StoreFolder, index_paths, register_embedding
from ragline.store_folder import _index as index_module
from ragline.store_folder import _writer as writer_module
from ragline.store_folder._ahead import EmbedAhead
from ragline.store_folder._text_index import RowsAhead, local_rows

# where _recording_split_group notes the process that split each group
RECORD = "RAGLINE_TEST_SPLIT_RECORD"
_original_split_group = index_module._split_group


def _recording_split_group(*args: Any) -> Any:
    """index_module._split_group, noting the process it runs in (module level: the pool
    pickles it by name; a forked worker has this module's patch)."""
    with open(os.environ[RECORD], "a", encoding="utf-8") as record:
        record.write(f"{os.getpid()}\n")
    return _original_split_group(*args)


def _failing_in_workers(*args: Any) -> Any:
    """Fails in a worker process; works in the main one (index_module._split_group)."""
    if os.getpid() != int(os.environ[RECORD]):
        raise RuntimeError("a worker's own failure")
    return _original_split_group(*args)


def _dying_in_workers(*args: Any) -> Any:
    """Kills the worker process it runs in (the pool breaks); works in the main one."""
    if os.getpid() != int(os.environ[RECORD]):
        os._exit(3)
    return _original_split_group(*args)


class _GPUHashing(HashingEmbeddings):
    """Hashing vectors from an embedding that says it runs on a GPU (blocks of 4,096)."""

    def describe_device(self) -> str:
        return "cuda:0 (test stub)"


register_embedding(
    "split-workers-gpu", EmbeddingBackend(lambda options, bar: _GPUHashing(dimension=16))
)


def _indexed(corpus: Path, store: Path) -> Any:
    """``corpus`` indexed into ``store`` with the stub that says it runs on cuda."""
    return index_paths(
        [corpus], store, embedding="split-workers-gpu", chunk_size=200, chunk_overlap=20
    )


def _corpus(folder: Path, files: int = 6) -> Path:
    """``files`` files of 600 chunks each at chunk size 200: one group of files per file
    (a group is about 512 x 200 characters)."""
    folder.mkdir()
    for number in range(files):
        paragraphs = (
            f"file {number} paragraph {line} alpha{line % 7} beta{(line * number) % 11} "
            + "gamma delta " * 12
            for line in range(120)
        )
        text = "\n\n".join(paragraphs)
        (folder / f"doc{number}.txt").write_text(text * 5, encoding="utf-8")
    return folder


def _stored(folder: Path) -> tuple[Any, ...]:
    """What a store folder holds, without the names that differ run to run."""
    store = StoreFolder(folder).open_store()
    snapshot = store.snapshot()
    vectors = store.index.reconstruct_n(0, store.index.ntotal)
    data = StoreFolder(folder).data_path(StoreFolder(folder).read_manifest())
    meta = json.loads((data / "bm25.json").read_text(encoding="utf-8"))
    with np.load(data / "bm25.npz") as arrays:
        rows = {name: arrays[name].tolist() for name in ("doc_ptr", "doc_terms", "doc_tfs")}
    return (
        list(snapshot.ids), list(snapshot.texts), list(snapshot.metadatas), vectors.tolist(),
        meta["ids"], meta["terms"], rows,
    )  # fmt: skip


def _wait_for_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every group after the first goes to the workers: the planner waits until they are
    forked (it plans groups itself until then, and a loaded machine may take a while)."""
    started = index_module._Planner.__init__

    def waiting(planner: Any, *args: Any) -> None:
        started(planner, *args)
        if planner.warm is not None:
            planner.warm.result(timeout=60)

    monkeypatch.setattr(index_module._Planner, "__init__", waiting)


def test_worker_processes_store_what_the_main_thread_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "corpus")
    alone = _indexed(corpus, tmp_path / "alone")
    record = tmp_path / "record.txt"
    monkeypatch.setenv(RECORD, str(record))
    monkeypatch.setattr(index_module, "WORKER_CPUS", 1)
    monkeypatch.setattr(index_module, "_split_group", _recording_split_group)
    _wait_for_workers(monkeypatch)
    result = _indexed(corpus, tmp_path / "workers")
    pids = record.read_text(encoding="utf-8").split()
    # the first file is split here (the model starts on it at once), the rest in the workers
    assert len(pids) == 5 and str(os.getpid()) not in pids
    assert result == alone and result["num_added"] == 3_600 == result["chunks"]
    assert _stored(tmp_path / "workers") == _stored(tmp_path / "alone")


@pytest.mark.parametrize("split_group", [_failing_in_workers, _dying_in_workers])
def test_a_group_a_worker_fails_on_is_planned_by_the_main_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_group: Any
) -> None:
    """A worker's error, or a worker killed (the pool broken): the main thread plans
    those groups, and the rest of the run, itself."""
    corpus = _corpus(tmp_path / "corpus")
    alone = _indexed(corpus, tmp_path / "alone")
    monkeypatch.setenv(RECORD, str(os.getpid()))
    monkeypatch.setattr(index_module, "WORKER_CPUS", 1)
    monkeypatch.setattr(index_module, "_split_group", split_group)
    _wait_for_workers(monkeypatch)
    result = _indexed(corpus, tmp_path / "workers")
    assert result == alone
    assert _stored(tmp_path / "workers") == _stored(tmp_path / "alone")


@pytest.mark.parametrize(
    ("batch", "cpus", "workers"),
    [(4_096, 16, 8), (4_096, 64, 8), (4_096, 8, 4), (4_096, 7, 0), (4_096, 2, 0), (100, 16, 0)],
)
def test_workers_only_beside_a_gpu_on_many_cores(
    monkeypatch: pytest.MonkeyPatch, batch: int, cpus: int, workers: int
) -> None:
    monkeypatch.setattr(index_module, "_cpu_count", lambda: cpus)
    ahead: Any = object()
    assert index_module._worker_count(batch, ahead) == workers
    assert index_module._worker_count(batch, None) == 0  # nothing embeds ahead


def test_rows_computed_elsewhere_are_numbered_as_a_pass_over_the_tokens_would() -> None:
    """Worker rows are numbered from an empty vocabulary; here they are renumbered into
    the index's ("b", "x" known): "a" and "c" come after them in order of first
    appearance, and each row's terms are sorted again by the new numbers."""
    tokenizer = BM25Tokenizer()
    texts = ["a b a", "c b"]
    rows = local_rows(texts, tokenizer)
    assert rows.terms == ["a", "b", "c"] and rows.doc_terms.tolist() == [0, 1, 1, 2]
    here = RowsAhead(["b", "x"], tokenizer)
    here.add(["1", "2"], texts, rows)
    vocabulary = ["b", "x"]
    terms, tfs, sizes = here.take(vocabulary, ["1", "2"], texts, tokenizer) or ()
    assert vocabulary == ["b", "x", "a", "c"]
    assert (terms.tolist(), tfs.tolist(), sizes.tolist()) == ([0, 2, 0, 3], [1, 2, 1, 1], [2, 2])
    tokenized = RowsAhead(["b", "x"], tokenizer)  # the same as tokenizing here
    tokenized.add(["1", "2"], texts)
    again = tokenized.take(["b", "x"], ["1", "2"], texts, tokenizer) or ()
    assert [part.tolist() for part in again] == [[0, 2, 0, 3], [1, 2, 1, 1], [2, 2]]


def test_rows_from_workers_do_not_set_the_pace_of_the_early_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit made while the model embeds its last blocks judges its own time from
    how long expect() took per chunk (tokenizing is the same kind of work); numbering
    rows a worker computed takes almost none of it, and would make a commit of 4,096
    chunks look nearly free. Here expect() seems to take a second a call (a clock that
    jumps), and the model's time left is that of committing 4,096 chunks at
    COMMIT_SECONDS_PER_CHUNK: only the first file's 600 chunks are tokenized on the main
    thread (under 1,000), so that pace is used and the run commits at its one batch
    boundary, 4,096 chunks, then at the end."""
    corpus = _corpus(tmp_path / "corpus", files=12)
    commits: list[int] = []
    commit = writer_module.FolderWriter.commit

    def counted(writer: writer_module.FolderWriter) -> None:
        assert writer.store is not None
        commits.append(writer.store.count())
        commit(writer)

    monkeypatch.setattr(writer_module.FolderWriter, "commit", counted)
    progress = (4_096 * writer_module.COMMIT_SECONDS_PER_CHUNK, 0.0)
    monkeypatch.setattr(EmbedAhead, "time_left", lambda self: progress)
    monkeypatch.setattr(EmbedAhead, "caller_waited", lambda self: True)  # the run is ahead
    seconds = itertools.count()
    jumping = SimpleNamespace(perf_counter=lambda: float(next(seconds)), monotonic=time.monotonic)
    monkeypatch.setattr(writer_module, "time", jumping)
    monkeypatch.setattr(index_module, "WORKER_CPUS", 1)
    _wait_for_workers(monkeypatch)
    result = _indexed(corpus, tmp_path / "workers")
    assert (result["num_added"], result["chunks"]) == (7_200, 7_200)
    assert commits == [4_096, 7_200]


def test_no_workers_where_processes_cannot_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows has no fork: get_context("fork") would raise there, failing the run."""
    monkeypatch.setattr(index_module, "_cpu_count", lambda: 16)
    monkeypatch.setattr(index_module.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert index_module._worker_count(4_096, object()) == 0  # type: ignore[arg-type]


_KILLED_RUN = """
import os, sys, time
from pathlib import Path
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, index_paths, register_embedding
from ragline.store_folder import _index as index_module

class GPU(HashingEmbeddings):
    def describe_device(self):
        return "cuda:0 (test stub)"

def stuck(*args):  # a worker that says where it is, then works for a long time
    with open(sys.argv[3], "a", encoding="utf-8") as record:
        record.write(f"{os.getpid()}\\n")
    time.sleep(120)

register_embedding("killed-gpu", EmbeddingBackend(lambda options, bar: GPU(dimension=8)))
index_module.WORKER_CPUS = 1
index_module._split_group = stuck
started = index_module._Planner.__init__
def waiting(planner, *args):
    started(planner, *args)
    planner.warm.result(timeout=60)
index_module._Planner.__init__ = waiting
index_paths([sys.argv[1]], sys.argv[2], embedding="killed-gpu", chunk_size=200, chunk_overlap=0)
"""


def _recorded_pids(record: Path) -> list[int]:
    """The worker pids the run's script writes to ``record`` once the second file reaches
    a worker (waits up to 60 s)."""
    for _ in range(600):
        if record.exists() and record.read_text(encoding="utf-8").strip():
            break
        time.sleep(0.1)
    return [int(pid) for pid in record.read_text(encoding="utf-8").split()]


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not reaped, does not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False
    return "State:\tZ" not in status


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_workers_end_when_the_run_is_killed(tmp_path: Path) -> None:
    """kill -9 of a run leaves its workers orphans: one waiting on the pool's queue (or
    busy) would run forever. Each ends within seconds of its parent's death."""
    corpus = _corpus(tmp_path / "corpus", files=3)
    record = tmp_path / "workers.txt"
    script = tmp_path / "killed_run.py"
    script.write_text(_KILLED_RUN, encoding="utf-8")
    run = subprocess.Popen([sys.executable, str(script), str(corpus), str(tmp_path / "store"),
                            str(record)])  # fmt: skip
    pids: list[int] = []
    try:
        pids = _recorded_pids(record)
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=30)
        for _ in range(600):  # <= 60 s (a worker checks its parent every 0.5 s)
            if not any(map(_alive, pids)):
                break
            time.sleep(0.1)
        assert pids and not any(map(_alive, pids))
    finally:
        run.kill()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_cpus_counted_are_the_ones_the_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A container or job pinned to 2 cores of a 64-core GPU host: 8 workers on those 2
    cores would compete with the run (0.64x against 0.73x without, on 2 cores)."""
    monkeypatch.delattr(os, "process_cpu_count", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert index_module._cpu_count() == 2
    assert index_module._worker_count(4_096, object()) == 0  # type: ignore[arg-type]


_TERMINATED_WORKER = """
import os, signal, sys, time
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, index_paths, register_embedding
from ragline.store_folder import _index as index_module

class GPU(HashingEmbeddings):
    def describe_device(self):
        return "cuda:0 (test stub)"

original = index_module._split_group
def stuck(*args):  # the first group sent to a worker says where it is, then waits
    with open(sys.argv[3], "a", encoding="utf-8") as record:
        record.write(f"{os.getpid()}\\n")
    time.sleep(120)

signal.signal(signal.SIGTERM, lambda *_: print("the run's handler", flush=True))
register_embedding("terminated-gpu", EmbeddingBackend(lambda options, bar: GPU(dimension=8)))
index_module.WORKER_CPUS = 1
index_module._cpu_count = lambda: 2  # one worker
index_module._split_group = stuck
started = index_module._Planner.__init__
def waiting(planner, *args):
    started(planner, *args)
    planner.warm.result(timeout=60)
index_module._Planner.__init__ = waiting
result = index_paths([sys.argv[1]], sys.argv[2], embedding="terminated-gpu", chunk_size=200,
                     chunk_overlap=0)
print("chunks", result["chunks"], result["num_added"], flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_worker_told_to_terminate_ends_and_the_run_splits_the_rest(tmp_path: Path) -> None:
    """A worker inherits the run's SIGTERM handler (ragline index stops after the current
    batch): SIGTERM to the process group made each worker print the stop line and keep
    running. A worker ends on SIGTERM; the run plans its groups itself and finishes."""
    corpus = _corpus(tmp_path / "corpus", files=3)
    record = tmp_path / "workers.txt"
    script = tmp_path / "terminated.py"
    script.write_text(_TERMINATED_WORKER, encoding="utf-8")
    run = subprocess.Popen(
        [sys.executable, str(script), str(corpus), str(tmp_path / "store"), str(record)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    pids: list[int] = []
    try:
        pids = _recorded_pids(record)
        os.kill(pids[0], signal.SIGTERM)
        output, _ = run.communicate(timeout=60)
        assert output.splitlines() == ["chunks 1800 1800"]
        assert run.returncode == 0 and not _alive(pids[0])
    finally:
        run.kill()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


_FORK_FAILS = """
import errno, os, signal, sys, time
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, index_paths, register_embedding
from ragline.store_folder import _index as index_module

class GPU(HashingEmbeddings):
    def describe_device(self):
        return "cuda:0 (test stub)"

forks = [0]
real_fork = os.fork
def fork():  # the second of the pool's 4 forks is refused
    forks[0] += 1
    if forks[0] == 2:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
    return real_fork()
os.fork = fork
# the run's own SIGTERM handler (as ragline index's), still the worker's until its
# initializer runs, which here waits a while
signal.signal(signal.SIGTERM, lambda *_: print("the run's handler", flush=True))
started = index_module._worker_started
def slow_start(parent):
    time.sleep(3)
    started(parent)
index_module._worker_started = slow_start
register_embedding("fork-fails-gpu", EmbeddingBackend(lambda options, bar: GPU(dimension=8)))
index_module.WORKER_CPUS = 1
os.cpu_count = index_module._cpu_count = lambda: 8  # 4 workers
result = index_paths([sys.argv[1]], sys.argv[2], embedding="fork-fails-gpu", chunk_size=200,
                     chunk_overlap=0)
print("chunks", result["chunks"], result["num_added"], "forks", forks[0], flush=True)
"""


def test_a_run_whose_fork_fails_part_way_ends(tmp_path: Path) -> None:
    """The pool's second fork refused (EAGAIN) after its first was made: the run plans
    every group itself, and the worker already forked, which would never be told to
    stop, is ended; before, the interpreter waited for it at exit, forever. It is
    killed, not terminated: before its initializer ran it still has the run's SIGTERM
    handler, which carries on (then the run waited for it, forever)."""
    corpus = _corpus(tmp_path / "corpus", files=2)
    script = tmp_path / "fork_fails.py"
    script.write_text(_FORK_FAILS, encoding="utf-8")
    run = subprocess.Popen(
        [sys.executable, str(script), str(corpus), str(tmp_path / "store")],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        output, _ = run.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)  # the run and the worker it left
        run.communicate()
        raise
    assert output.splitlines() == ["chunks 1200 1200 forks 2"] and run.returncode == 0

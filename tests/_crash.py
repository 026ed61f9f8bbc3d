"""Crash convergence: kill a real child process (SIGKILL) at any write, then check the next run.

A *scenario* is one way to index a corpus folder into a store:

- ``redis``: ``ragline.indexing.index()`` into a Redis store, records in a SQLite file;
- ``redis-async``: the same through ``aindex()``;
- ``memory``: ``index()`` into an ``InMemoryVectorStore``, records in a SQLite file: the
  store lives and dies with its process (each run starts with an empty one), the records
  file stays, so the next run must re-add what the records name but the store lacks;
- ``folder``: ``StoreFolder.writer().index()``, FAISS on disk with its SQLite records
  (the API for a store saved to disk);
- ``cli``: ``ragline.cli.main(["index", ...])``, the command, run in the child.

A child runs one scenario on the corpus as it is. With ``kill_at=N`` it sends itself
SIGKILL at its N-th *write point*: just before every call that writes (the record
manager's writes, the vector store's adds and deletes, every request sent to Redis, file
renames, unlinks, mkdirs and rmdirs, opens for writing, SQLite copies, faiss index
writes, the lock file's writes), and once more after its last write, so there is one
point between every pair of consecutive writes. With ``kill_at=0`` it runs to the end and
reports how many points it passed. The parent then runs the same scenario again,
unharmed, and checks that the store holds exactly the chunks a fresh index of the corpus
would: the same ids (content hashes) and texts, nothing extra, nothing missing, every
chunk recorded, nothing pending; for a store folder also its manifest counts, its keyword
index (the same chunk ids) and no leftover files.

Children fork from a forkserver that imported ragline, faiss and redis once, so a trial
costs milliseconds instead of an interpreter start; each is still a real process ended
by a real SIGKILL. ``cli-exec`` trials (see :func:`exec_cli`) run ``python -m ragline.cli``
itself and kill it after a random delay.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import io
import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import faiss  # noqa: F401  (imported once in the forkserver, not in every child)
import redis
import redis.asyncio.connection
import redis.connection

import ragline.core._redis as redis_plumbing
from ragline.cli import main as cli_main
from ragline.core import Document
from ragline.embeddings import HashingEmbeddings
from ragline.indexing import SQLRecordManager, aindex, index
from ragline.indexing.api import hash_document
from ragline.store_folder import StoreFolder, load_paths, split_documents
from ragline.store_folder._text_index import load_text_index
from ragline.vectorstores import FAISS, InMemoryVectorStore, Redis, VectorStore
from ragline.vectorstores.faiss._index import LabeledIndex

SCENARIOS = ("redis", "redis-async", "memory", "folder", "cli")
CHUNK_SIZE = 200
REPO_ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the corpus


def write_corpus(root: Path, version: int, *, seed: int, files: int = 12) -> None:
    """Make ``root`` hold version ``version`` of a corpus of short paragraphs.

    Most paragraphs keep their text from version to version (re-runs skip them); some
    change, files come and go, and old texts come back, so a run adds, skips and deletes.
    Every paragraph is one chunk (shorter than CHUNK_SIZE).
    """
    rng = random.Random(seed * 100_003 + version)
    wanted: dict[str, str] = {}
    for number in range(files):
        if rng.random() < 0.2:
            continue  # this file is absent from this version
        paragraphs = []
        for position in range(rng.randint(1, 5)):
            variant = rng.choice((0, 0, 0, 1, version % 4))
            paragraphs.append(
                f"File {number} paragraph {position} variant {variant}: "
                + " ".join(f"w{(number * 7 + position * 3 + variant) % 97}" for _ in range(20))
            )
        wanted[f"f{number:02d}.txt"] = "\n\n".join(paragraphs)
    root.mkdir(parents=True, exist_ok=True)
    for path in root.iterdir():
        if path.name not in wanted:
            path.unlink()
    for name, text in wanted.items():
        (root / name).write_text(text, encoding="utf-8")


def corpus_chunks(root: Path) -> list[Document]:
    """The chunks every scenario indexes for the corpus in ``root`` (as ``ragline index``)."""
    documents = load_paths([root.absolute()]).documents
    return split_documents(documents, chunk_size=CHUNK_SIZE, chunk_overlap=0)


def expected_store(root: Path) -> dict[str, str]:
    """What a fresh index of the corpus holds: chunk id -> text."""
    return {hash_document(chunk): chunk.page_content for chunk in corpus_chunks(root)}


# ---------------------------------------------------------------- the child


class KillSwitch:
    """Counts write points; sends this process SIGKILL at point ``at`` (0: never)."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.seen = 0

    def point(self) -> None:
        self.seen += 1
        if self.seen == self.at:
            os.kill(os.getpid(), signal.SIGKILL)

    def wrap(self, owner: Any, name: str, *, when: Callable[..., bool] | None = None) -> None:
        """Put a point before every call of ``owner.name`` (if ``when`` says it writes)."""
        original = getattr(owner, name)
        switch = self

        if asyncio.iscoroutinefunction(original):

            @functools.wraps(original)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                switch.point()
                return await original(*args, **kwargs)

            setattr(owner, name, async_wrapper)
            return

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if when is None or when(*args, **kwargs):
                switch.point()
            return original(*args, **kwargs)

        setattr(owner, name, wrapper)


def _writes_file(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> bool:
    return any(flag in mode for flag in "wax+")


def _os_open_writes(path: Any, flags: int, *args: Any, **kwargs: Any) -> bool:
    return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def install_kill_points(switch: KillSwitch, scenario: str) -> None:
    """Every write of the scenario gets a point before and after it."""
    for method in ("update", "delete_keys", "mark_pending", "copy_to"):
        switch.wrap(SQLRecordManager, method)
    if scenario == "memory":
        for method in ("add_documents", "delete"):
            switch.wrap(InMemoryVectorStore, method)
        return
    if scenario.startswith("redis"):
        for method in ("add_documents", "delete", "aadd_documents", "adelete"):
            switch.wrap(Redis, method)
        # every request that leaves for the server, so kills land inside a bulk write
        switch.wrap(redis.connection.AbstractConnection, "send_packed_command")
        switch.wrap(redis.asyncio.connection.AbstractConnection, "send_packed_command")
        switch.wrap(redis_plumbing, "_send_packed")
        return
    for method in ("add_documents", "delete"):
        switch.wrap(FAISS, method)
    switch.wrap(LabeledIndex, "write")
    for function in ("replace", "rename", "unlink", "remove", "rmdir", "mkdir", "ftruncate"):
        switch.wrap(os, function)
    switch.wrap(os, "open", when=_os_open_writes)
    switch.wrap(builtins, "open", when=_writes_file)
    switch.wrap(io, "open", when=_writes_file)


@dataclass
class Setup:
    """Where one chain of trials keeps its corpus and store."""

    workdir: Path
    redis_url: str | None = None
    index_name: str = ""
    seed: int = 0
    batch_size: int = 4  # chunks per batch of a folder run (larger for large corpora)
    checkpoint_seconds: float = 0  # a folder run commits at every batch boundary

    @property
    def corpus(self) -> Path:
        return self.workdir / "corpus"

    @property
    def store(self) -> Path:
        return self.workdir / "store"

    @property
    def records(self) -> Path:
        return self.workdir / "records.sqlite"


def run_scenario(scenario: str, setup: Setup) -> VectorStore | None:
    """Index the corpus as ``scenario`` does (in this process); ``memory`` returns its store."""
    if scenario == "cli":
        status = cli_main(
            ["index", str(setup.corpus.absolute()), "--store", str(setup.store),
             "--embedding", "hashing", "--full", "--chunk-size", str(CHUNK_SIZE),
             "--chunk-overlap", "0", "--checkpoint-every", "0", "-q"]
        )  # fmt: skip
        if status != 0:
            raise RuntimeError(f"ragline index exited with {status}")
        return None
    chunks = corpus_chunks(setup.corpus)
    if scenario == "folder":
        folder = StoreFolder(setup.store)
        with folder.writer(
            embedding="hashing", checkpoint_seconds=setup.checkpoint_seconds, durable=False
        ) as writer:
            writer.index(chunks, cleanup="full", batch_size=setup.batch_size)
        return None
    records = SQLRecordManager("crash", db_url=f"sqlite:///{setup.records}")
    options: dict[str, Any] = {"cleanup": "full", "source_id_key": "source", "batch_size": 4}
    if scenario == "memory":
        memory = InMemoryVectorStore(HashingEmbeddings(dimension=32))
        try:
            index(chunks, records, memory, **options)
        finally:
            records.close()
        return memory
    store = Redis(
        HashingEmbeddings(dimension=32),
        redis_url=str(setup.redis_url),
        index_name=setup.index_name,
        batch_size=2,
    )
    try:
        if scenario == "redis-async":
            asyncio.run(aindex(chunks, records, store, **options))
        else:
            index(chunks, records, store, **options)
    finally:
        store.close()
        records.close()
    return None


def child(scenario: str, setup: Setup, kill_at: int, report: str) -> None:
    """The child process: run the scenario with a kill switch; report the points passed."""
    switch = KillSwitch(kill_at)
    install_kill_points(switch, scenario)
    try:
        run_scenario(scenario, setup)
        switch.point()  # after the last write
    except BaseException as err:  # reported to the parent, which fails the trial
        Path(report).write_text(json.dumps({"error": f"{type(err).__name__}: {err}"}))
        raise
    Path(report).write_text(json.dumps({"points": switch.seen}))


# ---------------------------------------------------------------- the parent


_CONTEXT: Any = None


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload([__name__])
    return _CONTEXT


@dataclass
class Trial:
    """How one child ended: killed (SIGKILL) or finished, with the points it passed."""

    killed: bool
    points: int = 0


def trial(scenario: str, setup: Setup, kill_at: int, *, timeout: float = 300) -> Trial:
    """Run one child; raise if it neither finished nor was killed by its switch."""
    report = setup.workdir / f"report-{os.getpid()}-{time.monotonic_ns()}.json"
    process = _context().Process(target=child, args=(scenario, setup, kill_at, str(report)))
    process.start()
    process.join(timeout)
    if process.exitcode is None:
        process.kill()
        process.join()
        raise RuntimeError(f"{scenario} child did not finish within {timeout} s")
    try:
        if process.exitcode == -signal.SIGKILL:
            return Trial(killed=True)
        details = json.loads(report.read_text()) if report.exists() else {}
        if process.exitcode != 0 or "points" not in details:
            raise RuntimeError(
                f"{scenario} child failed (exit {process.exitcode}): {details.get('error')}"
            )
        return Trial(killed=False, points=int(details["points"]))
    finally:
        report.unlink(missing_ok=True)


def check(scenario: str, setup: Setup, memory: VectorStore | None = None) -> list[str]:
    """What differs between the store and a fresh index of the corpus (empty: converged).

    ``memory``: the in-memory store of the ``memory`` scenario (it lives in the process
    that ran it, so the check runs there, see :func:`converge`).
    """
    expected = expected_store(setup.corpus)
    problems: list[str] = []
    if scenario == "memory" or scenario.startswith("redis"):
        if scenario == "memory":
            if memory is None:
                raise ValueError("the memory scenario is checked in the process that ran it")
            count = memory.count()
            held = {doc.id: doc.page_content for doc in memory.get_by_ids(list(expected))}
        else:
            store = Redis(
                HashingEmbeddings(dimension=32),
                redis_url=str(setup.redis_url),
                index_name=setup.index_name,
            )
            try:
                count = store.count()
                held = {doc.id: doc.page_content for doc in store.get_by_ids(list(expected))}
            finally:
                store.close()
        records = SQLRecordManager("crash", db_url=f"sqlite:///{setup.records}")
        recorded, pending = set(records.list_keys()), records.list_pending()
        records.close()
    else:
        folder = StoreFolder(setup.store)
        store_state = folder.open_store().snapshot()  # type: ignore[attr-defined]
        count = len(store_state.ids)
        held = dict(zip(store_state.ids, store_state.texts, strict=True))
        manifest = folder.read_manifest()
        copy = SQLRecordManager("ragline-faiss", db_url=":memory:")
        copy.copy_from(setup.store / str(manifest.generation) / "records.sqlite")
        recorded, pending = set(copy.list_keys()), copy.list_pending()
        if manifest.chunks != len(expected):
            problems.append(f"manifest says {manifest.chunks} chunks, not {len(expected)}")
        sources = len({path.name for path in setup.corpus.iterdir()})
        if manifest.documents != sources:
            problems.append(f"manifest says {manifest.documents} documents, not {sources}")
        keyword_index = load_text_index(folder.data_path(manifest))[0]
        if keyword_index is None or set(keyword_index.ids) != set(expected):
            problems.append("the keyword index is not the store's")
        names = sorted(path.name for path in setup.store.iterdir())
        if names != sorted([str(manifest.generation), "ragline.json", "ragline.lock"]):
            problems.append(f"leftover files in the store folder: {names}")
    if count != len(expected):
        problems.append(f"the store holds {count} chunks, a fresh index {len(expected)}")
    missing = sorted(set(expected) - set(held))
    if missing:
        problems.append(f"{len(missing)} chunks missing, e.g. {expected[missing[0]]!r}")
    wrong = [key for key in held if held[key] != expected.get(key)]
    if wrong:
        problems.append(f"{len(wrong)} chunks with other text")
    if recorded != set(expected):
        problems.append(
            f"records differ: {len(recorded - set(expected))} extra, "
            f"{len(set(expected) - recorded)} missing"
        )
    if pending:
        problems.append(f"{len(pending)} writes still pending")
    return problems


def exec_cli(setup: Setup, *, kill_after: float | None) -> bool:
    """Run ``python -m ragline.cli index`` (a fresh interpreter); SIGKILL it after a delay.

    Returns whether it was killed (False: it finished first, with exit status 0).
    """
    command = [
        sys.executable, "-m", "ragline.cli", "index", str(setup.corpus.absolute()),
        "--store", str(setup.store), "--embedding", "hashing", "--full",
        "--chunk-size", str(CHUNK_SIZE), "--chunk-overlap", "0", "--checkpoint-every", "0", "-q",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    if kill_after is not None:
        try:
            process.wait(kill_after)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return True
    _, stderr = process.communicate(timeout=300)
    if process.returncode != 0:
        raise RuntimeError(f"ragline index exited with {process.returncode}: {stderr}")
    return False


def converge(scenario: str, setup: Setup) -> list[str]:
    """Run the scenario unharmed (in this process) and say what differs from a fresh index."""
    return check(scenario, setup, run_scenario(scenario, setup))


def new_setup(workdir: Path, redis_url: str | None, seed: int) -> Setup:
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    return Setup(workdir, redis_url, f"crash-{seed}-{os.urandom(4).hex()}", seed)


def drop(setup: Setup) -> None:
    """Remove what a Redis chain left on the server."""
    if setup.redis_url:
        store = Redis(
            HashingEmbeddings(dimension=32), redis_url=setup.redis_url, index_name=setup.index_name
        )
        store.drop_index(delete_documents=True)
        store.close()


@dataclass
class Tally:
    """Runs, kills and convergence checks of one scenario."""

    runs: int = 0
    kills: int = 0
    checks: int = 0
    converged: int = 0
    failures: list[str] = field(default_factory=list)

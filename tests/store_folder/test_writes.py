"""Store-folder writes: one writer at a time, checkpoints, rebuilds, old folders, artifacts."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from ragline.core import (
    Document,
    IndexingInterrupted,
    InvalidInputError,
    MissingDependencyError,
    PersistenceError,
    StoreLockedError,
)
from ragline.indexing import SQLRecordManager
from ragline.indexing.api import hash_document
from ragline.store_folder import (
    FolderArtifact,
    StoreFolder,
    index_paths,
    open_store,
    register_artifact,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


def chunks(count: int, source: str = "s", word: str = "chunk") -> list[Document]:
    return [Document(f"{word} {n}", metadata={"source": source}) for n in range(count)]


def stored_texts(folder: Path) -> list[str]:
    snapshot = StoreFolder(folder).open_store().snapshot()  # type: ignore[attr-defined]
    return sorted(snapshot.texts)


def records_of(folder: Path) -> list[str]:
    manifest = StoreFolder(folder).read_manifest()
    records = SQLRecordManager("ragline-faiss", db_url=":memory:")
    records.copy_from(folder / str(manifest.generation) / "records.sqlite")
    return sorted(records.list_keys())


def python(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


HOLD_THE_LOCK = """
import sys, time
from pathlib import Path
from ragline.store_folder import StoreFolder
with StoreFolder(sys.argv[1]).writer(embedding="hashing") as writer:
    print("locked", flush=True)
    time.sleep(float(sys.argv[2]))
    if len(sys.argv) > 3:  # says it is about to let go of the lock
        Path(sys.argv[3]).touch()
"""


def test_a_second_writer_is_told_who_holds_the_lock(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    holder = python(HOLD_THE_LOCK, str(folder), "30")
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(StoreLockedError) as caught:
            StoreFolder(folder).writer(embedding="hashing").__enter__()
        message = str(caught.value)
        assert f"{folder} is being written by another ragline process (pid {holder.pid} on " in (
            message
        )
        assert socket.gethostname() in message
        assert message.endswith("; wait for it to finish, or pass wait=SECONDS (index_paths, "
                                "StoreFolder.writer) to wait for it")  # fmt: skip
    finally:
        holder.kill()
        holder.wait()
    # the holder was killed (-9): the operating system dropped its lock
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(2))
    assert stored_texts(folder) == ["chunk 0", "chunk 1"]


def test_a_second_writer_can_wait(tmp_path: Path) -> None:
    """The writer gets the lock once the holder is done with it: the holder's last act
    under the lock (a file it leaves) is there by then. (Not the seconds waited: on a
    loaded machine this process may start its wait late into the holder's 1.5 s.)"""
    folder = tmp_path / "store"
    letting_go = tmp_path / "letting-go"
    holder = python(HOLD_THE_LOCK, str(folder), "1.5", str(letting_go))
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    with StoreFolder(folder).writer(embedding="hashing", wait=60) as writer:
        assert letting_go.exists()  # it got the lock once the holder was done
        writer.index(chunks(1))
    assert holder.wait() == 0


def test_concurrent_cli_runs_take_turns_and_lose_nothing(tmp_path: Path) -> None:
    """Three `ragline index` runs of different folders into one store at once, with --wait."""
    corpora = []
    for n in range(3):
        corpus = tmp_path / f"corpus{n}"
        corpus.mkdir()
        for m in range(4):
            (corpus / f"f{m}.txt").write_text(f"corpus {n} file {m} " * 30, encoding="utf-8")
        corpora.append(corpus)
    folder = tmp_path / "store"
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ragline.cli",
                "index",
                str(corpus),
                "--store",
                str(folder),
                "--embedding",
                "hashing",
                "--wait",
                "120",
                "-q",
            ],
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stderr=subprocess.PIPE,
            text=True,
        )
        for corpus in corpora
    ]
    assert [run.wait(timeout=300) for run in runs] == [0, 0, 0], [r.stderr.read() for r in runs]  # type: ignore[union-attr]
    expected = sorted(f"corpus {n} file {m} " * 30 for n in range(3) for m in range(4))
    assert stored_texts(folder) == [text.strip() for text in expected]
    assert len(records_of(folder)) == 12
    assert StoreFolder(folder).read_manifest().documents == 12


def test_a_folder_another_first_run_creates_meanwhile_is_shared_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first runs at once both see no folder; the other one creates it first. This
    run uses it (it failed with FileExistsError, seen under load in the concurrent CLI
    test) and, not having created it, leaves it when it fails."""
    folder = tmp_path / "store"
    is_dir = Path.is_dir
    raced: list[Path] = []

    def racing(path: Path) -> bool:
        if path == folder and not raced:  # the check before mkdir: not there yet ...
            raced.append(path)
            folder.mkdir()  # ... and the other run makes it now
            return False
        return is_dir(path)

    monkeypatch.setattr(Path, "is_dir", racing)
    with (
        pytest.raises(RuntimeError, match="boom"),
        StoreFolder(folder).writer(embedding="hashing") as writer,
    ):
        raise RuntimeError("boom")
    assert raced and folder.is_dir()  # not removed: this run did not create it
    raced.clear()
    shutil.rmtree(folder)
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(2))
    assert raced and stored_texts(folder) == ["chunk 0", "chunk 1"]


def test_a_store_path_that_is_a_file_is_refused_before_reading(tmp_path: Path) -> None:
    target = tmp_path / "store"
    target.write_text("not a folder")
    with pytest.raises(InvalidInputError, match="is a file, not a folder"):
        StoreFolder(target).writer(embedding="hashing")
    result = subprocess.run(
        [sys.executable, "-m", "ragline.cli", "index", str(REPO_ROOT / "ragline" / "core"),
         "--store", str(target), "--embedding", "hashing"],
        capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"ragline: error: store {target} is a file, not a folder; give a folder path\n"
    )
    assert "loaded" not in result.stderr and target.read_text() == "not a folder"


@pytest.mark.parametrize(("module", "embedding"), [("faiss", "hashing"), ("openai", "openai")])
def test_a_missing_extra_leaves_no_folder(tmp_path: Path, module: str, embedding: str) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("hello")
    folder = tmp_path / "new" / "store"
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from ragline.cli import main\n"
        f"sys.exit(main(['index', {str(corpus)!r}, '--store', {str(folder)!r}, "
        f"'--embedding', {embedding!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )  # fmt: skip
    assert result.returncode == 2
    assert f"pip install 'ragline[{module}]'" in result.stderr
    assert (not folder.exists() and not folder.parent.exists()) or list(
        folder.parent.iterdir()
    ) == []
    assert not folder.exists()


def test_a_failed_first_run_leaves_no_folder(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with pytest.raises(RuntimeError), StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(3))
        raise RuntimeError("boom")
    assert not folder.exists()


def test_a_corrupted_store_says_to_rebuild_and_rebuild_repairs_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Alpha text.")
    (corpus / "b.txt").write_text("Beta text.")
    folder = tmp_path / "store"
    index_paths([corpus], folder, embedding="hashing")
    faiss_folder = folder / str(StoreFolder(folder).read_manifest().generation) / "faiss"
    (data_file,) = faiss_folder.glob("index.[0-9a-f]*.sqlite")  # documents in SQLite
    data_file.write_bytes(data_file.read_bytes()[:-20])  # truncated
    for call in (lambda: open_store(folder), lambda: index_paths([corpus], folder)):
        with pytest.raises(PersistenceError, match="--rebuild"):
            call()
    result = index_paths([corpus], folder, rebuild=True)
    assert (result["num_added"], result["stored_chunks"]) == (2, 2)
    assert stored_texts(folder) == ["Alpha text.", "Beta text."]
    # the embedding may change with --rebuild (a new store), not without
    index_paths([corpus], folder, rebuild=True, embedding="hashing")


def test_rebuild_also_repairs_a_corrupted_manifest(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(2))
    (folder / "ragline.json").write_text("{}")
    with pytest.raises(PersistenceError, match=r"no 'embedding' name.*--rebuild"):
        StoreFolder(folder).writer()
    with StoreFolder(folder).writer(embedding="hashing", rebuild=True) as writer:
        writer.index(chunks(3))
    assert stored_texts(folder) == ["chunk 0", "chunk 1", "chunk 2"]
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("gen-")) == [
        StoreFolder(folder).read_manifest().generation
    ]


def make_old_layout(folder: Path) -> None:
    """Turn a store folder into the layout ragline wrote before format 2."""
    manifest = json.loads((folder / "ragline.json").read_text())
    generation = folder / manifest.pop("generation")
    manifest.pop("format")
    for name in ("faiss", "records.sqlite", "bm25.json", "bm25.npz"):
        (generation / name).rename(folder / name)
    generation.rmdir()
    (folder / "ragline.json").write_text(json.dumps(manifest))


def test_an_old_folder_is_read_and_moved_into_a_generation(tmp_path: Path) -> None:
    """Stale -wal/-shm of an old version's work copy are never replayed onto the records."""
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(3))
    make_old_layout(folder)
    # what an old `ragline index` killed mid-write left: a work copy's WAL of other records
    stale = sqlite3.connect(folder / "records.sqlite.tmp")
    stale.execute("PRAGMA journal_mode=WAL")
    stale.execute("CREATE TABLE junk (x)")
    stale.execute("INSERT INTO junk VALUES (1)")
    # the work copy was renamed away while its log stayed behind (what a kill left)
    os.replace(folder / "records.sqlite.tmp", tmp_path / "moved-away.sqlite")
    assert stored_texts(folder) == ["chunk 0", "chunk 1", "chunk 2"]  # read as it is
    with StoreFolder(folder).writer() as writer:
        result = writer.index(chunks(4), cleanup="full")
    assert (result["num_added"], result["num_skipped"]) == (1, 3)
    manifest = StoreFolder(folder).read_manifest()
    assert sorted(p.name for p in folder.iterdir()) == [
        str(manifest.generation),
        "ragline.json",
        "ragline.lock",
    ]
    assert stored_texts(folder) == ["chunk 0", "chunk 1", "chunk 2", "chunk 3"]
    assert records_of(folder) == sorted(hash_document(doc) for doc in chunks(4))
    stale.close()


def test_a_stopped_first_index_keeps_its_embeddings(tmp_path: Path) -> None:
    """Stopped during the 3rd batch: it ends with that batch; the re-run embeds the rest."""
    folder = tmp_path / "store"
    stop = threading.Event()
    docs = chunks(350)

    def stopping(documents: Sequence[Document]) -> Iterable[Document]:
        for position, document in enumerate(documents):
            if position == 230:
                stop.set()
            yield document

    with (
        pytest.raises(IndexingInterrupted, match="keeps the 300 chunks stored so far"),
        StoreFolder(folder).writer(embedding="hashing", stop=stop) as writer,
    ):
        writer.index(stopping(docs))
    assert len(stored_texts(folder)) == 300 and len(records_of(folder)) == 300
    with StoreFolder(folder).writer() as writer:
        result = writer.index(docs)
    assert (result["num_added"], result["num_skipped"]) == (50, 300)


def test_checkpoints_commit_as_the_run_goes(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    generations: list[int] = []

    def watching(documents: Sequence[Document]) -> Iterable[Document]:
        for position, document in enumerate(documents):
            if position % 100 == 50 and (folder / "ragline.json").exists():
                generations.append(StoreFolder(folder).read_manifest().chunks)
            yield document

    with StoreFolder(folder).writer(embedding="hashing", checkpoint_seconds=0) as writer:
        writer.index(watching(chunks(360)))
    assert generations == [100, 200, 300]
    assert StoreFolder(folder).read_manifest().chunks == 360


def test_the_folders_records_keep_no_intent_log_and_commit_in_step_with_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store and records are committed together at batch boundaries, so index()'s
    log of pending writes (two statements per batch) could never be read: the folder's
    records keep none. Each checkpoint and the end still commit records that name
    exactly the stored chunks."""
    folder = tmp_path / "store"
    marked: list[int] = []
    real_mark = SQLRecordManager.mark_pending

    def mark_pending(self: SQLRecordManager, keys: Sequence[str], **options: object) -> None:
        marked.append(len(keys))
        real_mark(self, keys, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(SQLRecordManager, "mark_pending", mark_pending)
    in_step: list[bool] = []

    def watching(documents: Sequence[Document]) -> Iterable[Document]:
        for position, document in enumerate(documents):
            if position % 100 == 50 and (folder / "ragline.json").exists():
                ids = StoreFolder(folder).open_store().snapshot().ids
                in_step.append(sorted(records_of(folder)) == sorted(ids) and len(ids) > 0)
            yield document

    with StoreFolder(folder).writer(embedding="hashing", checkpoint_seconds=0) as writer:
        writer.index(watching(chunks(360)))
    with StoreFolder(folder).writer(embedding="hashing", checkpoint_seconds=0) as writer:
        writer.index(chunks(120, word="other"), cleanup="full")  # deletes, unlogged too
    assert marked == []
    assert in_step == [True, True, True]
    assert sorted(records_of(folder)) == sorted(hash_document(d) for d in chunks(120, word="other"))
    assert stored_texts(folder) == sorted(f"other {n}" for n in range(120))


def test_a_commit_flushes_the_faiss_index_file_beside_the_documents_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The faiss index file is flushed to disk by the thread that wrote it, while the
    documents file is written (a durable commit used to flush every file one after the
    other once all were written); both are flushed before the manifest names them."""
    from ragline.vectorstores.faiss import _files

    flushed: list[tuple[str, str]] = []
    real_fsync = _files._fsync_file

    def fsync_file(path: Path) -> None:
        flushed.append((threading.current_thread().name.split("_")[0], path.suffix))
        real_fsync(path)

    monkeypatch.setattr(_files, "_fsync_file", fsync_file)
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(chunks(30))
    assert sorted(flushed) == [("MainThread", ".sqlite"), ("ragline-faiss-save", ".faiss")]
    assert sorted(records_of(folder)) == sorted(hash_document(d) for d in chunks(30))


SIGINT_RUN = """
import os, sys, time
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, register_embedding
from ragline.cli import main

class Slow(HashingEmbeddings):
    batches = 0

    def embed_documents_array(self, texts):
        print(f"embedding {len(texts)}", file=sys.stderr, flush=True)
        Slow.batches += 1
        gate = os.environ.get("RAGLINE_TEST_GATE")
        deadline = time.monotonic() + 60  # bounds a hang
        # the batches after the first wait until the test has seen the run take its
        # signal (a fixed pause could be over before a loaded machine delivers it)
        while gate and Slow.batches > 1 and not os.path.exists(gate):
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        return super().embed_documents_array(texts)

register_embedding("slow", EmbeddingBackend(lambda options, progress: Slow(dimension=32)))
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_ctrl_c_commits_what_was_embedded_and_says_so(
    tmp_path: Path, signum: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C, or SIGTERM (``timeout -s TERM``, a service manager), mid-run: the run commits
    the batches it embedded, says so and exits 130; the next run embeds only the rest.
    The second batch waits until the run has taken the signal (it says so on stderr)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(300):
        (corpus / f"f{n:03d}.txt").write_text(f"file {n}")
    folder = tmp_path / "store"
    gate = tmp_path / "signal-taken"
    monkeypatch.setenv("RAGLINE_TEST_GATE", str(gate))
    run = python(SIGINT_RUN, "index", str(corpus), "--store", str(folder), "--embedding", "slow")
    assert run.stderr is not None
    read = ["-"]
    while read[-1] and "embedding" not in read[-1]:
        read.append(run.stderr.readline())
    assert read[-1], "the run ended before it embedded anything"
    run.send_signal(signum)
    while read[-1] and "stopping after the current batch" not in read[-1]:
        read.append(run.stderr.readline())
    gate.touch()
    stdout, rest = run.communicate(timeout=120)
    stderr = "".join(read[1:]) + rest
    assert run.returncode == 130, stderr
    assert stdout == ""
    assert "ragline: stopping after the current batch, keeping what is embedded" in stderr
    kept = StoreFolder(folder).read_manifest().chunks
    assert kept in (100, 200)
    assert stderr.strip().splitlines()[-1] == (
        f"ragline: interrupted: stopped on request; {folder} keeps the {kept} chunks stored "
        f"so far, so the next run embeds only what is left"
    )
    again = python(SIGINT_RUN, "index", str(corpus), "--store", str(folder), "-q")
    stdout, stderr = again.communicate(timeout=120)
    assert again.returncode == 0, stderr
    assert stderr.count("embedding ") == (300 - kept + 99) // 100
    assert StoreFolder(folder).read_manifest().chunks == 300


class ChunkIds(FolderArtifact):
    """A test artifact: the set of chunk ids, kept as a JSON list."""

    def load(self, path: Path | None, documents) -> None:  # type: ignore[no-untyped-def]
        if path is None:
            self.ids = {str(doc.id) for doc in documents()}
        else:
            self.ids = set(json.loads(path.read_text()))

    def added(self, documents: Sequence[Document]) -> None:
        self.ids.update(str(doc.id) for doc in documents)

    def deleted(self, ids: Sequence[str]) -> None:
        self.ids.difference_update(ids)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(sorted(self.ids)))


def test_an_artifact_is_kept_in_step_with_the_store(tmp_path: Path) -> None:
    register_artifact("chunk-ids.json", ChunkIds)
    folder = StoreFolder(tmp_path / "store")
    with folder.writer(embedding="hashing") as writer:  # a store without the artifact
        writer.index(chunks(3))
    assert folder.artifact_path("chunk-ids.json") is None
    with folder.writer(artifacts=["chunk-ids.json"]) as writer:  # added: built from the store
        writer.index(chunks(4))
    with folder.writer() as writer:  # the manifest names it: updated without asking
        writer.index(chunks(2, word="other"), cleanup="full")
    path = folder.artifact_path("chunk-ids.json")
    assert path is not None and path.parent.name == folder.read_manifest().generation
    assert json.loads(path.read_text()) == sorted(hash_document(d) for d in chunks(2, word="other"))
    assert folder.read_manifest().artifacts == ["chunk-ids.json"]


def test_an_unknown_artifact_stops_the_run_before_it_writes(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    with folder.writer(embedding="hashing") as writer:
        writer.index(chunks(1))
    manifest = json.loads((folder.path / "ragline.json").read_text())
    manifest["artifacts"] = ["not-registered"]
    (folder.path / "ragline.json").write_text(json.dumps(manifest))
    with pytest.raises(Exception, match="artifact 'not-registered' that this program cannot"):
        folder.writer()


def test_missing_dependency_error_is_an_import_error() -> None:
    assert issubclass(MissingDependencyError, ImportError)


def test_readers_see_a_whole_store_while_a_writer_commits(tmp_path: Path) -> None:
    """open_store() during commits: each read is one committed generation, never an error."""
    folder = StoreFolder(tmp_path / "store")
    with folder.writer(embedding="hashing") as writer:
        writer.index(chunks(5, word="v0"))
    done = threading.Event()
    seen: list[int] = []
    errors: list[BaseException] = []

    def read() -> None:
        while not done.is_set():
            try:
                texts = folder.open_store().snapshot().texts  # type: ignore[attr-defined]
                seen.append(len({text.split()[0] for text in texts}))  # one version per read
            except BaseException as err:
                errors.append(err)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for version in range(1, 15):
            with folder.writer(checkpoint_seconds=3600) as writer:
                writer.index(chunks(5, word=f"v{version}"), cleanup="full")
    finally:
        done.set()
        reader.join()
    assert errors == []
    assert seen and set(seen) == {1}

"""An index run writes the commit's files while it embeds (issue 25).

The documents file: the store writes each batch's rows into the next generation's
folder on a thread, and the commit after the last batch finishes that file instead of
writing every row then. The file is the one a full write makes, byte for byte, and a
run killed while drafting leaves the last commit whole; the next run removes the
unfinished generation and finishes.

The keyword index: once every file is read and split, the index the commit will write
(every expected chunk added, nothing deleted) is written into that generation's folder
on a thread; the commit keeps those files when its own index is the same."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from ragline.store_folder import StoreFolder, index_paths
from ragline.store_folder import _writer as writer_module
from ragline.vectorstores.faiss import _files as faiss_files

REPO_ROOT = Path(__file__).resolve().parents[2]


def write_corpus(root: Path, version: int, files: int = 12) -> None:
    """``files`` text files of ~9 chunks each; version 1 changes two files, adds one."""
    root.mkdir(parents=True, exist_ok=True)
    for number in range(files + version):
        changed = version and number in (2, 7)
        paragraphs = [
            f"file {number} paragraph {p} {'changed ' if changed else ''}" + "word " * 170
            for p in range(9)
        ]
        (root / f"f{number:02d}.txt").write_text("\n\n".join(paragraphs), encoding="utf-8")


def keyword_files(folder: Path) -> tuple[bytes, dict[str, Any]]:
    generation = folder / str(StoreFolder(folder).read_manifest().generation)
    meta = json.loads((generation / "bm25.json").read_text(encoding="utf-8"))
    return (generation / "bm25.npz").read_bytes(), meta


def documents_file(folder: Path) -> Path:
    manifest = StoreFolder(folder).read_manifest()
    (found,) = (folder / str(manifest.generation) / "faiss").glob("index.*.sqlite")
    return found


def contents(folder: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(documents_file(folder))
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = db.execute("SELECT id, text, metadata FROM documents ORDER BY id").fetchall()
        return [*rows, *db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()]
    finally:
        db.close()


def entries(folder: Path) -> list[str]:
    """Generation folders and hidden files anywhere in the store folder."""
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.name.startswith(("gen-", "."))
    )


def test_an_index_run_finishes_the_documents_file_it_wrote_while_embedding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus, 0)
    with monkeypatch.context() as patch:  # the commit writes the whole file, as before
        patch.setattr(writer_module.FolderWriter, "_drafting", lambda self: None)
        index_paths([corpus], tmp_path / "full", embedding="hashing")
    with monkeypatch.context() as patch:
        patch.setattr(faiss_files, "_write_sqlite", None)  # a full write would fail
        result = index_paths([corpus], tmp_path / "drafted", embedding="hashing")
    assert result["num_added"] == 12 * 9 > 100  # more than one batch
    drafted = documents_file(tmp_path / "drafted")
    assert drafted.read_bytes() == documents_file(tmp_path / "full").read_bytes()
    generation = StoreFolder(tmp_path / "drafted").read_manifest().generation
    assert entries(tmp_path / "drafted") == [generation]  # no draft, no other generation

    # a second run adds to a loaded store: the draft starts as a copy of its file
    write_corpus(corpus, 1)
    with monkeypatch.context() as patch:
        patch.setattr(writer_module.FolderWriter, "_drafting", lambda self: None)
        index_paths([corpus], tmp_path / "full", embedding="hashing")
    with monkeypatch.context() as patch:
        patch.setattr(faiss_files, "_write_sqlite", None)
        again = index_paths([corpus], tmp_path / "drafted", embedding="hashing")
    assert (again["num_added"], again["num_deleted"]) == (3 * 9, 2 * 9)
    assert contents(tmp_path / "drafted") == contents(tmp_path / "full")
    assert contents(tmp_path / "drafted")[-1] == ("format", "ragline.faiss.documents")
    generation = StoreFolder(tmp_path / "drafted").read_manifest().generation
    assert entries(tmp_path / "drafted") == [generation]


KILLED_WHILE_DRAFTING = """
import os, signal, sys
from ragline.store_folder import index_paths
from ragline.vectorstores.faiss import _records

insert = _records.DocumentsDraft._insert
done = []

def insert_then_die(self, batch):
    insert(self, batch)
    done.append(len(batch))
    if len(done) == 2:  # two batches in the draft, the run not committed
        self._db.commit()  # so the file on disk holds them (a kill can come any time)
        os.kill(os.getpid(), signal.SIGKILL)

_records.DocumentsDraft._insert = insert_then_die
index_paths([sys.argv[1]], sys.argv[2], embedding="hashing")
"""


def test_a_run_killed_while_drafting_keeps_the_last_commit_and_the_next_finishes(
    tmp_path: Path,
) -> None:
    corpus, folder = tmp_path / "corpus", tmp_path / "store"
    write_corpus(corpus, 0)
    index_paths([corpus], folder, embedding="hashing")
    committed = StoreFolder(folder).read_manifest().generation
    before = contents(folder)

    write_corpus(corpus, 1, files=30)  # 2 changed, 19 new files: several batches
    child = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_DRAFTING, str(corpus), str(folder)],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    # the kill left an unfinished generation holding the draft; the commit is whole
    left = [name for name in entries(folder) if name.startswith("gen-") and committed not in name]
    assert [name.split("/")[-1].split(".")[-1] for name in left if "/" in name] == ["draft"]
    assert StoreFolder(folder).read_manifest().generation == committed
    assert contents(folder) == before
    store = StoreFolder(folder).open_store()
    assert store.count() == 12 * 9

    result = index_paths([corpus], folder, embedding="hashing")
    assert (result["num_added"], result["num_deleted"]) == (21 * 9, 2 * 9)
    generation = StoreFolder(folder).read_manifest().generation
    assert entries(folder) == [generation]  # the unfinished generation is gone
    fresh = tmp_path / "fresh"
    index_paths([corpus], fresh, embedding="hashing")
    assert contents(folder) == contents(fresh)


def test_an_index_run_keeps_the_keyword_index_it_wrote_while_embedding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus, 0)
    written: list[tuple[int, str]] = []  # (rows, the thread: ahead, or the commit's)
    real_saved_rows = writer_module._saved_rows

    def saved_rows(data: Path, rows: Any) -> Any:
        thread = threading.current_thread().name.split("_")[0].removeprefix("ragline-keyword-")
        written.append((len(rows.ids), thread))
        return real_saved_rows(data, rows)

    monkeypatch.setattr(writer_module, "_saved_rows", saved_rows)
    with monkeypatch.context() as patch:  # nothing written ahead: the commit writes it
        patch.setattr(writer_module.FolderWriter, "_write_keyword_index_ahead", lambda self: None)
        index_paths([corpus], tmp_path / "at-commit", embedding="hashing")
    assert written == [(12 * 9, "save")]
    index_paths([corpus], tmp_path / "ahead", embedding="hashing")
    assert written[1:] == [(12 * 9, "ahead")]  # once, ahead, not by the commit
    arrays, meta = keyword_files(tmp_path / "ahead")
    expected_arrays, expected_meta = keyword_files(tmp_path / "at-commit")
    assert arrays == expected_arrays
    generation = StoreFolder(tmp_path / "ahead").read_manifest().generation
    assert meta == {**expected_meta, "saved_in": generation}
    assert len(meta["ids"]) == 12 * 9
    assert entries(tmp_path / "ahead") == [generation]

    # a re-run on stored chunks writes nothing ahead: it may delete some (here two files
    # changed), and the index written ahead would then be written again
    write_corpus(corpus, 1)
    for store in ("at-commit", "ahead"):
        index_paths([corpus], tmp_path / store, embedding="hashing")
    assert written[2:] == [(13 * 9, "save"), (13 * 9, "save")]
    arrays, meta = keyword_files(tmp_path / "ahead")
    expected_arrays, expected_meta = keyword_files(tmp_path / "at-commit")
    generation = StoreFolder(tmp_path / "ahead").read_manifest().generation
    assert (arrays, meta) == (expected_arrays, {**expected_meta, "saved_in": generation})

    # a guess that turns out wrong (a chunk the run did not add) is written over
    with monkeypatch.context() as patch:
        patch.setattr(writer_module.FolderWriter, "_write_keyword_index_ahead", lambda self: None)
        index_paths([corpus], tmp_path / "fresh", embedding="hashing")
    expected_arrays, expected_meta = keyword_files(tmp_path / "fresh")
    real_expect = writer_module.FolderWriter.expect

    def expect_one_more(self: Any, ids: Any, texts: Any, *, last: bool = False) -> None:
        if last:
            ids, texts = [*ids, "not-added"], [*texts, "lava and ash"]
        real_expect(self, ids, texts, last=last)

    monkeypatch.setattr(writer_module.FolderWriter, "expect", expect_one_more)
    index_paths([corpus], tmp_path / "guessed-wrong", embedding="hashing")
    assert written[5:] == [(13 * 9 + 1, "ahead"), (13 * 9, "save")]  # the guess, the commit's
    arrays, meta = keyword_files(tmp_path / "guessed-wrong")
    generation = StoreFolder(tmp_path / "guessed-wrong").read_manifest().generation
    assert (arrays, meta) == (expected_arrays, {**expected_meta, "saved_in": generation})

"""A FAISS store writes its next SQLite save's documents file as documents are added (a
draft, issue 25): the save then only finishes it, and what it saves is what a full write
saves, byte for byte for a store built in memory."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ragline.core import Document
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import FAISS
from ragline.vectorstores.faiss import _files as faiss_files


def _documents(first: int, count: int) -> list[Document]:
    return [
        Document(
            f'text {n} é\n"quoted" \\ {"x" * (n % 7)}',
            metadata={"source": f"s{n % 3}", "n": n, "nested": {"list": [n, 1.5, None]}},
            id=f"id-{n}",
        )
        for n in range(first, first + count)
    ]


def _store() -> FAISS:
    return FAISS(HashingEmbeddings(dimension=16), metric="cosine")


def _documents_file(folder: Path) -> Path:
    (found,) = folder.glob("index.*.sqlite")
    return found


def _names(folder: Path) -> list[str]:
    """The folder's file names, each save's random token left out."""
    return sorted(re.sub(r"\.[0-9a-f]{16}\.", ".", path.name) for path in folder.iterdir())


def _rows(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = db.execute("SELECT label, id, text, metadata FROM documents ORDER BY label")
        meta = db.execute("SELECT key, value FROM meta ORDER BY key")
        return [*rows.fetchall(), *meta.fetchall()]
    finally:
        db.close()


def test_a_drafted_save_writes_the_bytes_a_full_save_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, drafted = _store(), _store()
    drafted._start_documents_draft(tmp_path / "drafted")
    for first in (0, 5, 105):
        batch = _documents(first, 100 if first else 5)
        plain.add_documents(batch)
        drafted.add_documents(batch)
    plain.save_local(tmp_path / "plain", documents="sqlite")
    with monkeypatch.context() as patch:
        patch.setattr(faiss_files, "_write_sqlite", None)  # a full write would fail
        drafted.save_local(tmp_path / "drafted", documents="sqlite")
    written = _documents_file(tmp_path / "drafted")
    assert written.read_bytes() == _documents_file(tmp_path / "plain").read_bytes()
    assert _names(tmp_path / "drafted") == _names(tmp_path / "plain")  # no draft left behind
    loaded = FAISS.load_local(tmp_path / "drafted", HashingEmbeddings(dimension=16))
    assert loaded.get_by_ids(["id-0", "id-204"]) == [_documents(0, 1)[0], _documents(204, 1)[0]]
    # the next save (no draft) writes from the loaded file as before
    drafted.add_documents(_documents(300, 2))
    drafted.save_local(tmp_path / "again")
    assert len(_rows(_documents_file(tmp_path / "again"))) == 207 + 2


@pytest.mark.parametrize("loaded", [True, False])
def test_a_draft_follows_deletes_and_replacements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loaded: bool
) -> None:
    """Rows of the first 50 deleted or replaced, drafted rows deleted or replaced later;
    ``loaded``: the first 50 are a SQLite save's (the draft starts as a copy of its
    file). The saved file holds what a store built with the same steps holds."""
    steps: list[tuple[str, Any]] = [
        ("add", _documents(50, 30)),
        ("delete", ["id-3", "id-55"]),  # a row of the file, a drafted row
        ("add", _documents(10, 2)),  # replaces rows of the file
        ("add", _documents(60, 1)),  # replaces a drafted row
    ]
    store = _store()
    store.add_documents(_documents(0, 50))
    if loaded:
        store.save_local(tmp_path / "base", documents="sqlite")
        store = FAISS.load_local(tmp_path / "base", HashingEmbeddings(dimension=16))
    assert (store._table.base is not None) is loaded
    expected = _store()
    expected.add_documents(_documents(0, 50))
    store._start_documents_draft(tmp_path / "drafted")
    for what, argument in steps:
        for target in (store, expected):
            getattr(target, "add_documents" if what == "add" else "delete")(argument)
    monkeypatch.setattr(faiss_files, "_write_sqlite", None)  # a full write would fail
    store.save_local(tmp_path / "drafted", documents="sqlite")
    rows = _rows(_documents_file(tmp_path / "drafted"))
    assert rows[-2:] == [("count", "78"), ("format", "ragline.faiss.documents")]
    saved = FAISS.load_local(tmp_path / "drafted", HashingEmbeddings(dimension=16)).snapshot()
    wanted = expected.snapshot()
    assert (saved.labels, saved.ids, saved.texts, saved.metadatas) == (
        wanted.labels,
        wanted.ids,
        wanted.texts,
        wanted.metadatas,
    )


def test_a_draft_for_another_folder_is_dropped(tmp_path: Path) -> None:
    store = _store()
    store._start_documents_draft(tmp_path / "elsewhere")
    store.add_documents(_documents(0, 10))
    store.save_local(tmp_path / "here", documents="sqlite")
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert len(_rows(_documents_file(tmp_path / "here"))) == 10 + 2


def test_a_draft_is_not_used_by_a_json_save(tmp_path: Path) -> None:
    store = _store()
    store._start_documents_draft(tmp_path / "store")
    store.add_documents(_documents(0, 4))
    store.save_local(tmp_path / "store", documents="json")
    assert sorted(path.suffix for path in (tmp_path / "store").iterdir()) == [
        ".faiss",
        ".json",
        ".json",
    ]
    loaded = FAISS.load_local(tmp_path / "store", HashingEmbeddings(dimension=16))
    assert [document.id for document in loaded.get_by_ids(["id-0", "id-3"])] == ["id-0", "id-3"]

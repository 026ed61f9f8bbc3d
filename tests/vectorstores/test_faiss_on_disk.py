"""FAISS with its documents on disk: saves in SQLite (format 4), opened without reading.

A store loaded from a SQLite save reads a document only when a search returns it, and
keeps what changed since in memory: these tests check that such a store answers exactly
as the store it was saved from (searches, filters, get_by_ids), that deletes, replaces
and adds on top of the file save and load again, that JSON saves still load and move to
SQLite, and that a damaged or foreign documents file is refused.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.core import ConfigurationError, InvalidInputError, PersistenceError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS

DIMENSION = 8
COUNT = 300


class RowEmbeddings(Embeddings):
    """Queries "q<i>" embed to fixed random vectors (documents are added by vector)."""

    def __init__(self, queries: np.ndarray) -> None:
        self.queries = queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.queries[int(text[1:])]]


RNG = np.random.default_rng(7)
VECTORS = RNG.normal(size=(COUNT, DIMENSION)).astype(np.float32)
QUERIES = RNG.normal(size=(10, DIMENSION)).astype(np.float32)
TEXTS = [f"passage {i}" for i in range(COUNT)]
METADATAS: list[dict[str, Any]] = [
    {"group": i % 5, "even": i % 2 == 0, "name": f"n{i % 3}", "tags": ["a", str(i)]}
    for i in range(COUNT)
]
IDS = [f"d{i}" for i in range(COUNT)]


@pytest.fixture
def embeddings() -> RowEmbeddings:
    return RowEmbeddings(QUERIES)


def build(embeddings: Embeddings, **options: Any) -> FAISS:
    pairs = list(zip(TEXTS, VECTORS.tolist(), strict=True))
    return FAISS.from_embeddings(pairs, embeddings, METADATAS, ids=IDS, metric="cosine", **options)


def saved_and_loaded(store: FAISS, folder: Path, embeddings: Embeddings) -> FAISS:
    store.save_local(folder, documents="sqlite")
    return FAISS.load_local(folder, embeddings)


FILTERS: list[dict[str, Any]] = [
    {"group": 3},
    {"even": True},
    {"group": {"$ne": 1}},
    {"group": {"$gte": 3}},
    {"name": {"$in": ["n0", "n2"]}},
    {"$and": [{"group": {"$lt": 2}}, {"even": False}]},
    {"$or": [{"group": 4}, {"name": "n1"}]},
]


def test_a_sqlite_save_loads_without_reading_and_answers_the_same(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    store = build(embeddings)
    loaded = saved_and_loaded(store, tmp_path, embeddings)
    table = loaded._table
    assert table.base is not None and table.added == {} and table.deleted == set()
    assert loaded.count() == COUNT and loaded._next_label == COUNT
    for q in range(10):
        query = f"q{q}"
        assert loaded.similarity_search_with_score(query, k=7) == (
            store.similarity_search_with_score(query, k=7)
        )
        for filter in FILTERS:
            assert loaded.similarity_search(query, k=5, filter=filter) == (
                store.similarity_search(query, k=5, filter=filter)
            ), filter
    assert loaded.get_by_ids(["d5", "nope", "d0"]) == store.get_by_ids(["d5", "nope", "d0"])
    assert loaded.get_by_ids(["d5"])[0].metadata == {
        "group": 0, "even": False, "name": "n2", "tags": ["a", "5"],
    }  # fmt: skip
    assert loaded.docstore.search("d9") == store.docstore.search("d9")
    assert loaded.index_to_docstore_id == store.index_to_docstore_id


def test_changes_on_top_of_the_file_save_and_load_again(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    store = build(embeddings)
    loaded = saved_and_loaded(store, tmp_path / "one", embeddings)
    for target in (store, loaded):
        target.delete(["d1", "d2", "d250"])
        target.add_embeddings([("replaced", VECTORS[0].tolist())], [{"group": 9}], ids=["d3"])
        target.add_embeddings([("new", VECTORS[1].tolist())], [{"group": 9}], ids=["x"])
    assert loaded._table.deleted == {1, 2, 3, 250}
    assert loaded.count() == store.count() == COUNT - 2
    assert loaded.get_by_ids(["d1", "d3", "x"]) == store.get_by_ids(["d1", "d3", "x"])
    assert [doc.page_content for doc in loaded.get_by_ids(["d3", "x"])] == ["replaced", "new"]
    assert loaded.similarity_search("q0", k=300, filter={"group": 9}) == (
        store.similarity_search("q0", k=300, filter={"group": 9})
    )
    assert len(loaded.similarity_search("q0", k=300, filter={"group": 9})) == 2
    again = saved_and_loaded(loaded, tmp_path / "two", embeddings)
    assert again._table.added == {} and again.count() == COUNT - 2
    assert again.snapshot().ids == store.snapshot().ids  # same documents, same order
    for q in range(10):
        assert again.similarity_search_with_score(f"q{q}", k=6) == (
            store.similarity_search_with_score(f"q{q}", k=6)
        )
    # a store loaded from SQLite saves in SQLite by default, over its own folder
    again.add_embeddings([("more", VECTORS[2].tolist())], ids=["y"])
    again.save_local(tmp_path / "two")
    files = sorted(path.suffix for path in (tmp_path / "two").iterdir())
    assert files == [".faiss", ".json", ".sqlite"]  # one copy: the old files are gone
    assert FAISS.load_local(tmp_path / "two", embeddings).get_by_ids(["y"])[0].page_content == (
        "more"
    )


def test_an_add_on_top_of_the_file_looks_its_ids_up_in_one_query(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    """Issue 25: an add to a loaded store looked each id up in the saved file, one query
    per id (after a store folder's checkpoint every later batch of 4,096 new chunks made
    4,096 queries on the run's thread). One query now answers the whole batch; replaced
    ids are still found, deleted ones are not."""
    store = build(embeddings)
    loaded = saved_and_loaded(store, tmp_path, embeddings)
    base = loaded._table.base
    assert base is not None
    for target in (store, loaded):
        target.delete(["d1"])  # its row stays in the file: a re-add is a new document
    statements: list[str] = []
    base._db.set_trace_callback(statements.append)
    ids = ["d4", "d1", "d250", *(f"new{i}" for i in range(47)), "d7"]
    pairs = [(f"text {doc_id}", VECTORS[i % COUNT].tolist()) for i, doc_id in enumerate(ids)]
    for target in (store, loaded):
        target.add_embeddings(pairs, [{"group": 9}] * len(ids), ids=ids)
    lookups = [sql for sql in statements if "FROM documents WHERE id" in sql]
    assert len(lookups) == 1
    assert loaded._table.deleted == {1, 4, 7, 250}
    assert loaded.count() == store.count() == COUNT + 47
    assert loaded.get_by_ids(ids) == store.get_by_ids(ids)
    assert loaded.snapshot().ids == store.snapshot().ids


def test_the_documents_file_is_the_documented_sqlite_format(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    build(embeddings).save_local(tmp_path, "kb", documents="sqlite")
    manifest = json.loads((tmp_path / "kb.manifest.json").read_text())
    assert (manifest["format_version"], manifest["documents_format"], manifest["count"]) == (
        4, "sqlite", COUNT,
    )  # fmt: skip
    assert manifest["next_label"] == COUNT
    db = sqlite3.connect(tmp_path / manifest["documents_file"])
    row = db.execute("SELECT label, id, text, metadata FROM documents WHERE id = 'd4'")
    assert row.fetchone() == (
        4, "d4", "passage 4", json.dumps(METADATAS[4], ensure_ascii=False),
    )  # fmt: skip
    assert dict(db.execute("SELECT key, value FROM meta")) == {
        "format": "ragline.faiss.documents", "count": str(COUNT),
    }  # fmt: skip


def test_a_json_save_still_loads_and_moves_to_sqlite(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    store = build(embeddings)
    store.save_local(tmp_path)  # JSON by default: format 3, as before
    assert json.loads((tmp_path / "index.manifest.json").read_text())["format_version"] == 3
    loaded = FAISS.load_local(tmp_path, embeddings)
    assert loaded._table.base is None  # JSON is read whole
    loaded.save_local(tmp_path, documents="sqlite")  # the migration
    manifest = json.loads((tmp_path / "index.manifest.json").read_text())
    assert manifest["format_version"] == 4
    assert sorted(path.suffix for path in tmp_path.iterdir()) == [".faiss", ".json", ".sqlite"]
    moved = FAISS.load_local(tmp_path, embeddings)
    assert moved.similarity_search_with_score("q3", k=9, filter={"even": False}) == (
        store.similarity_search_with_score("q3", k=9, filter={"even": False})
    )
    moved.save_local(tmp_path, documents="json")  # and back, when asked
    assert json.loads((tmp_path / "index.manifest.json").read_text())["format_version"] == 3
    assert FAISS.load_local(tmp_path, embeddings).snapshot().ids == IDS


def test_a_damaged_or_foreign_documents_file_is_refused(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    build(embeddings).save_local(tmp_path / "a", documents="sqlite")
    manifest = json.loads((tmp_path / "a" / "index.manifest.json").read_text())
    path = tmp_path / "a" / manifest["documents_file"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(PersistenceError, match="does not match the checksum"):
        FAISS.load_local(tmp_path / "a", embeddings)
    path.write_bytes(bytes(data[:-100]))
    with pytest.raises(PersistenceError, match="truncated"):
        FAISS.load_local(tmp_path / "a", embeddings)


def test_metadata_a_save_cannot_hold_leaves_no_files(
    embeddings: RowEmbeddings, tmp_path: Path
) -> None:
    store = build(embeddings)
    store._table.added[0][2]["when"] = object()  # slipped past the checks on add
    with pytest.raises(InvalidInputError, match="'d0'"):
        store.save_local(tmp_path, documents="sqlite")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigurationError, match="documents 'parquet' is not one of"):
        store.save_local(tmp_path, documents="parquet")


@pytest.mark.slow
def test_one_hundred_thousand_documents_round_trip(tmp_path: Path) -> None:
    """At 100k documents: a loaded store fetches its hits from disk and fills k for a
    filter that matches 0.01% (10 documents) and one that matches half."""
    count, rng = 100_000, np.random.default_rng(3)
    vectors = rng.normal(size=(count, 16)).astype(np.float32)
    queries = rng.normal(size=(3, 16)).astype(np.float32)
    embeddings = RowEmbeddings(queries)
    store = FAISS(embeddings, metric="cosine")
    store.add_embeddings(
        zip([f"t{i}" for i in range(count)], vectors, strict=True),
        [{"rare": i % 10_000 == 0, "half": i % 2} for i in range(count)],
        ids=[f"i{i}" for i in range(count)],
    )
    loaded = saved_and_loaded(store, tmp_path, embeddings)
    for q in range(3):
        assert loaded.similarity_search(f"q{q}", k=10) == store.similarity_search(f"q{q}", k=10)
        rare = loaded.similarity_search(f"q{q}", k=10, filter={"rare": True})
        assert sorted(doc.id for doc in rare) == [f"i{i}" for i in range(0, count, 10_000)]
        half = loaded.similarity_search(f"q{q}", k=10, filter={"half": 1})
        assert half == store.similarity_search(f"q{q}", k=10, filter={"half": 1})


def test_a_save_after_the_loaded_folder_is_gone(embeddings: RowEmbeddings, tmp_path: Path) -> None:
    """A store folder removes the generation a writer loaded from once it commits the
    next one: the writer's later saves still copy the documents (through the open file)."""
    import shutil

    loaded = saved_and_loaded(build(embeddings), tmp_path / "old", embeddings)
    loaded.delete(["d7"])
    shutil.rmtree(tmp_path / "old")
    loaded.save_local(tmp_path / "new")
    assert loaded._table.base is not None and loaded._table.deleted == set()  # adopted
    shutil.rmtree(tmp_path / "new")
    loaded.add_embeddings([("late", VECTORS[3].tolist())], ids=["late"])
    loaded.save_local(tmp_path / "newer")
    again = FAISS.load_local(tmp_path / "newer", embeddings)
    assert again.count() == COUNT and again.get_by_ids(["d7", "late"])[0].page_content == "late"


def test_a_save_on_top_of_a_saved_file_copies_the_file_not_its_pages(
    embeddings: RowEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved documents file is copied as a file (SQLite's page copy took as long as
    writing every row anew); a file replaced at that path since it was opened is not
    copied (the pages are, through the open connection)."""
    from ragline.vectorstores.faiss import _records

    store = build(embeddings)
    loaded = saved_and_loaded(store, tmp_path / "one", embeddings)
    page_copies: list[Path] = []
    page_copy = _records.DiskDocuments.copy_to

    def watched(documents: _records.DiskDocuments, target: sqlite3.Connection) -> None:
        page_copies.append(documents.path)
        page_copy(documents, target)

    monkeypatch.setattr(_records.DiskDocuments, "copy_to", watched)
    for target in (store, loaded):
        target.delete(["d5"])
        target.add_embeddings([("new", VECTORS[1].tolist())], [{"group": 9}], ids=["x"])
    again = saved_and_loaded(loaded, tmp_path / "two", embeddings)
    assert page_copies == []
    assert again.snapshot().ids == store.snapshot().ids
    assert again.get_by_ids(["x"])[0].page_content == "new"
    assert again.similarity_search_with_score("q2", k=5, filter={"group": 9}) == (
        store.similarity_search_with_score("q2", k=5, filter={"group": 9})
    )
    # the file at the saved path replaced by another (same name, other content): the
    # pages the connection reads are copied, not the file now at that path
    base = again._table.base
    assert base is not None
    replaced = base.path.read_bytes()
    base.path.unlink()
    base.path.write_bytes(replaced[: len(replaced) // 2])
    again.add_embeddings([("late", VECTORS[3].tolist())], ids=["late"])
    third = saved_and_loaded(again, tmp_path / "three", embeddings)
    assert page_copies == [base.path]
    assert third.count() == COUNT + 1
    assert third.get_by_ids(["late", "x"])[0].page_content == "late"


def test_file_checksums_read_in_pieces_so_rss_stays_flat(tmp_path: Path) -> None:
    """A saved file is hashed through a small buffer: hashing a 96 MiB file raises the
    process's peak RSS by far less than the file (a memory map counted every page)."""
    import hashlib
    import subprocess
    import sys

    if not Path("/proc/self/status").exists():
        pytest.skip("reads VmHWM from /proc")
    data = np.random.default_rng(0).integers(0, 256, 96 << 20, dtype=np.uint8).tobytes()
    path = tmp_path / "index.faiss"
    path.write_bytes(data)
    script = (
        "import sys\n"
        "from ragline.vectorstores.faiss._files import file_checksum\n"
        "def peak():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'): return int(line.split()[1])\n"
        "before = peak()\n"
        "digest = file_checksum('sha256', sys.argv[1])\n"
        "print(digest, peak() - before)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert output[0] == hashlib.sha256(data).hexdigest()
    assert int(output[1]) < 32 << 10  # KiB: under 32 MiB of growth for a 96 MiB file


@pytest.mark.parametrize("size", [0, 1, 1000, (8 << 20) - 1, 8 << 20, (8 << 20) + 1])
def test_a_small_file_is_hashed_without_an_8_mib_buffer(tmp_path: Path, size: int) -> None:
    """A file of at most 8 MiB is hashed through a memory map, a larger one through a
    buffer of at most 8 MiB: a 1,000-vector store's files were hashed through a whole
    8 MiB buffer (bytearray writes every byte), which cost more than the hashing. The
    digests are the same at the piece boundaries, by both ways of reading (the background
    check reads by explicit offsets)."""
    import hashlib
    import tracemalloc

    from ragline.vectorstores.faiss import _files

    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    path = tmp_path / "index.faiss"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        digest = _files.file_checksum("sha256", path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert digest == hashlib.sha256(data).hexdigest()
    assert peak < min(size, 8 << 20) + (64 << 10)
    with open(path, "rb") as handle:
        assert _files._positional_checksum("sha256", handle) == digest


def test_a_documents_file_dropped_right_after_it_was_opened_still_loads_and_saves(
    embeddings: RowEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store folder's writer drops an old generation while a reader opens it: once the
    connection holds the file, the load goes on (a5aa254's look at the file's identity
    raised FileNotFoundError there), and a save on top of it copies its pages."""
    from ragline.vectorstores.faiss import _records

    store = build(embeddings)
    store.save_local(tmp_path / "one", documents="sqlite")
    connect = sqlite3.connect

    def connect_then_drop(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(database, *args, **kwargs)
        if str(database).startswith("file:"):  # the reader's connection: the file goes now
            for path in (tmp_path / "one").glob("*.sqlite"):
                path.unlink()
        return db

    monkeypatch.setattr(_records.sqlite3, "connect", connect_then_drop)
    loaded = FAISS.load_local(tmp_path / "one", embeddings)
    monkeypatch.setattr(_records.sqlite3, "connect", connect)
    assert list((tmp_path / "one").glob("*.sqlite")) == []
    assert loaded.get_by_ids(["d7"])[0].page_content == store.get_by_ids(["d7"])[0].page_content
    loaded.add_embeddings([("late", VECTORS[3].tolist())], ids=["late"])
    again = saved_and_loaded(loaded, tmp_path / "two", embeddings)
    assert again.count() == COUNT + 1
    assert again.get_by_ids(["late", "d7"])[0].page_content == "late"

"""Opening a saved compressed FAISS store without reading it (issue 26: open under 1 s).

A trained IVF index with ``rerank`` is saved without a direct map, its inverted lists are
memory-mapped on load and copied into memory before the first change, and files above
``_files.HASHED_BYTES`` are hashed by a background thread: a damaged file is still a
PersistenceError (at the next search, and before any save), never saved again.
"""

from __future__ import annotations

import json
import mmap
import shutil
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import pytest

from ragline.core import PersistenceError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS
from ragline.vectorstores.faiss import _files, _index, _vectors

COUNT, DIMENSION = 3_000, 16
RNG = np.random.default_rng(5)
CENTERS = RNG.normal(size=(20, DIMENSION))
ROWS = CENTERS[RNG.integers(0, 20, COUNT)] + 0.5 * RNG.normal(size=(COUNT, DIMENSION))
VECTORS = (ROWS / np.linalg.norm(ROWS, axis=1, keepdims=True)).astype(np.float32)
IDS = [f"d{i}" for i in range(COUNT)]
TEXTS = [f"passage number {i:05d}" for i in range(COUNT)]


class QueryRows(Embeddings):
    """Query i is stored vector i (so its own document comes first, score 1)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("documents are added by vector")

    def embed_query(self, text: str) -> list[float]:
        return VECTORS[int(text)].tolist()


def build(**options: object) -> FAISS:
    store = FAISS(QueryRows(), metric="cosine", index_factory="IVF16,SQ8", nprobe=16,
                  rerank=4, **options)  # fmt: skip
    for start in range(0, COUNT, 1_000):
        rows = slice(start, start + 1_000)
        store.add_embeddings(
            zip(TEXTS[rows], VECTORS[rows], strict=True),
            [{"n": i} for i in range(start, start + 1_000)],
            ids=IDS[rows],
        )
    return store


def top(store: FAISS, query: int, k: int = 5) -> list[tuple[str | None, float]]:
    hits = store.similarity_search_with_score(str(query), k=k)
    return [(doc.id, round(score, 5)) for doc, score in hits]


def index_file(folder: Path) -> Path:
    return folder / json.loads((folder / "index.manifest.json").read_text())["index_file"]


def documents_file(folder: Path) -> Path:
    return folder / json.loads((folder / "index.manifest.json").read_text())["documents_file"]


def test_a_loaded_ivf_store_maps_its_lists_and_copies_them_before_a_change(tmp_path: Path) -> None:
    store = build()
    store.save_local(tmp_path / "a", documents="sqlite")
    saved = faiss.read_index(str(index_file(tmp_path / "a")))
    assert faiss.extract_index_ivf(saved).direct_map.type == faiss.DirectMap.NoMap  # type: ignore[attr-defined]
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert loaded._index is not None and loaded._index._mapped
    expected = {query: top(store, query) for query in (0, 7, 2_999)}
    assert {query: top(loaded, query) for query in expected} == expected
    assert loaded._index._mapped  # searching changes nothing
    loaded.delete(["d7"])
    assert not loaded._index._mapped
    assert "d7" not in [doc_id for doc_id, _ in top(loaded, 7)]
    loaded.add_embeddings([("late", VECTORS[7])], ids=["late"])
    assert top(loaded, 7)[0] == ("late", 1.0)
    loaded.save_local(tmp_path / "b")
    again = FAISS.load_local(tmp_path / "b", QueryRows())
    assert again.count() == COUNT
    assert top(again, 7) == top(loaded, 7) and top(again, 0) == expected[0]


def test_a_store_saved_right_after_loading_holds_its_own_lists(tmp_path: Path) -> None:
    """Mapped lists are copied before a save: the new file does not point at the old."""
    build().save_local(tmp_path / "a", documents="sqlite")
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    expected = top(loaded, 11)
    loaded.save_local(tmp_path / "b")
    del loaded
    shutil.rmtree(tmp_path / "a")
    again = FAISS.load_local(tmp_path / "b", QueryRows())
    assert again._index is not None and again._index._mapped
    assert top(again, 11) == expected and expected[0] == ("d11", 1.0)


def test_a_store_saved_with_a_direct_map_still_loads_and_deletes(tmp_path: Path) -> None:
    """Saves written before this change kept IVF's hash-table direct map."""
    store = build()
    assert store._index is not None
    ivf = faiss.extract_index_ivf(store._index.index)
    ivf.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
    store.save_local(tmp_path / "a", documents="sqlite")
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    loaded.delete(["d3"])
    assert [doc_id for doc_id, _ in top(loaded, 3)][:1] != ["d3"]
    assert loaded.count() == COUNT - 1


@pytest.mark.parametrize("victim", ["index", "documents"])
def test_a_damaged_large_file_is_caught_in_the_background_and_never_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, victim: str
) -> None:
    """Above HASHED_BYTES the checksum runs after opening: the save waits for it and
    refuses, and later searches raise the same PersistenceError."""
    monkeypatch.setattr(_files, "HASHED_BYTES", 0)
    build().save_local(tmp_path / "a", documents="sqlite")
    path = index_file(tmp_path / "a") if victim == "index" else documents_file(tmp_path / "a")
    data = bytearray(path.read_bytes())
    if victim == "index":  # a code byte in the middle of the inverted lists
        data[len(data) // 2] ^= 0x01
    else:  # one character of one text: the database itself stays readable
        at = data.find(b"passage number 01500")
        assert at > 0
        data[at] = ord("P")
    path.write_bytes(bytes(data))
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())  # opens without hashing
    with pytest.raises(PersistenceError, match="does not match the checksum") as info:
        loaded.save_local(tmp_path / "b")
    assert path.name in str(info.value)
    assert not (tmp_path / "b" / "index.manifest.json").exists()
    with pytest.raises(PersistenceError, match="does not match the checksum"):
        loaded.similarity_search_with_score("3", k=3)


def test_an_intact_large_file_checked_in_the_background_loads_and_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_files, "HASHED_BYTES", 0)
    store = build()
    store.save_local(tmp_path / "a", documents="sqlite")
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert top(loaded, 42) == top(store, 42)
    loaded.save_local(tmp_path / "b")
    assert loaded._index is not None and loaded._index.pending_check is None
    assert top(FAISS.load_local(tmp_path / "b", QueryRows()), 42) == top(store, 42)


def test_a_forked_child_checks_the_file_from_its_start(tmp_path: Path) -> None:
    """A child forked while the parent's thread hashes the file shares that open file's
    offset; the child's own check must still read from byte 0. Simulated: the thread's
    run is over, then the check starts again as in a child, with the offset moved on."""
    store = build()
    store.save_local(tmp_path / "a", documents="sqlite")
    manifest = json.loads((tmp_path / "a" / "index.manifest.json").read_text())
    path = index_file(tmp_path / "a")
    algorithm = manifest["checksum_algorithm"]
    check = _files.LateChecksum(path, algorithm, manifest["index_checksum"])
    assert check.thread is not None
    check.thread.join()
    assert check(wait=False) is True
    check.done = False
    check.process = -1  # as in a forked child: the thread is not in this process
    check.handle = open(path, "rb")  # noqa: SIM115 (run closes it)
    check.handle.seek(path.stat().st_size // 2)  # where the parent's thread had got to
    assert check(wait=True) is True


def test_a_large_add_goes_straight_to_its_own_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows of at least SPILL_BYTES are written from the caller's array to a segment file
    (after the rows waiting in memory); a later add over the same labels still wins."""
    monkeypatch.setattr(_vectors, "SPILL_BYTES", 64)  # 4 rows of dimension 4
    vectors = _vectors.VectorFile(4)
    small = np.arange(8, dtype=np.float32).reshape(2, 4)
    large = np.arange(100, 140, dtype=np.float32).reshape(10, 4)
    vectors.put(0, small)
    assert vectors.segments == [] and len(vectors.pending) == 1
    vectors.put(2, large)
    large[:] = -1  # the caller's array is free again: the rows are in the file
    assert [(s.start, s.rows) for s in vectors.segments] == [(0, 2), (2, 10)]
    assert vectors.pending == []
    expected = np.concatenate([small, np.arange(100, 140, dtype=np.float32).reshape(10, 4)])
    assert np.array_equal(vectors.get(np.arange(12)), expected)
    again = np.full((3, 4), 7.0, dtype=np.float32)
    vectors.put(5, again)  # an add rolled back and redone over labels 5..7
    assert np.array_equal(vectors.get(np.array([4, 5, 7])), [expected[4], again[0], again[2]])
    listed = vectors.save(tmp_path, "index.x.vectors")
    assert [(entry["start"], entry["rows"]) for entry in listed] == [(0, 2), (2, 10), (5, 3)]
    loaded = _vectors.VectorFile.load(tmp_path, 4, listed)
    assert np.array_equal(loaded.get(np.array([1, 4, 6, 11])), vectors.get(np.array([1, 4, 6, 11])))


def test_a_deferred_check_lets_searches_run_and_still_refuses_the_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loaded in ``deferred_checks`` (a one-shot command), no thread hashes the damaged
    index: searches answer, and a save hashes it first and refuses."""
    monkeypatch.setattr(_files, "HASHED_BYTES", 0)
    build().save_local(tmp_path / "a", documents="sqlite")
    path = index_file(tmp_path / "a")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with _files.deferred_checks():
        loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert loaded._index is not None and loaded._index.pending_check.thread is None
    assert len(loaded.similarity_search_with_score("3", k=3)) == 3
    with pytest.raises(PersistenceError, match="does not match the checksum") as info:
        loaded.save_local(tmp_path / "b")
    assert path.name in str(info.value)
    assert not (tmp_path / "b" / "index.manifest.json").exists()


def test_ragline_query_starts_no_background_check_and_a_library_load_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ragline query`` exits before a large file's check could end: it opens the store
    without starting it; ``open_store`` (and ``FAISS.load_local``) afterwards in the same
    process still start it, and both give the same results."""
    from ragline.cli import main
    from ragline.store_folder import open_store

    root = tmp_path / "docs"
    root.mkdir()
    for number, text in enumerate(["comma separated values", "restart the server", "json"]):
        (root / f"{number}.txt").write_text(text, encoding="utf-8")
    folder = tmp_path / "store"
    assert main(["index", str(root), "--store", str(folder), "--embedding", "hashing", "-q"]) == 0
    monkeypatch.setattr(_files, "HASHED_BYTES", 0)  # every data file is checked late
    started: list[bool] = []
    opened = _files.LateChecksum.__init__

    def record(check: _files.LateChecksum, *args: Any) -> None:
        opened(check, *args)
        started.append(check.thread is not None)

    monkeypatch.setattr(_files.LateChecksum, "__init__", record)
    assert main(["query", "comma separated", "--store", str(folder), "-k", "3", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(started) >= 1 and not any(started)  # the checks exist, deferred
    started.clear()
    store = open_store(folder)
    assert len(started) >= 1 and all(started)
    hits = store.similarity_search_with_relevance_scores("comma separated", k=3)
    assert [row["id"] for row in rows] == [document.id for document, _ in hits]
    assert [row["score"] for row in rows] == pytest.approx([score for _, score in hits])
    assert rows[0]["content"] == "comma separated values"


def test_vector_maps_are_read_at_random_and_a_dense_read_as_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved vectors are advised random access (a re-ranking search touches a few
    rows: no read-ahead around each); a read of most rows advises sequential access and
    read-ahead over its span, then random again."""
    store = build()
    store.save_local(tmp_path / "a", documents="sqlite")
    advice: list[tuple[str, int, int]] = []
    advise = _vectors._advise

    def record(mapped: Any, name: str, start: int = 0, length: int = 0) -> None:
        advice.append((name, start, length))
        advise(mapped, name, start, length)

    monkeypatch.setattr(_vectors, "_advise", record)
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert advice == [("MADV_RANDOM", 0, 0)]  # one segment, advised once
    advice.clear()
    assert top(loaded, 42) == top(store, 42)
    assert advice == []  # 20 candidates of 3,000 rows: read at random
    assert loaded._index is not None and loaded._index.full is not None
    rows = loaded._index.full.get(np.arange(100, COUNT))
    assert np.allclose(rows, VECTORS[100:], atol=1e-6)
    begin = 100 * DIMENSION * 4 // mmap.PAGESIZE * mmap.PAGESIZE
    span = (begin, COUNT * DIMENSION * 4 - begin)
    assert advice == [
        ("MADV_SEQUENTIAL", *span), ("MADV_WILLNEED", *span), ("MADV_RANDOM", *span),
    ]  # fmt: skip
    loaded._index.full.get(np.arange(0, COUNT, 64))  # one row in 64: at random
    assert len(advice) == 3


def test_mapped_lists_are_advised_random_access_and_copied_as_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """faiss's map of the inverted lists gets random-access advice when the store opens
    (the kernel accepts it: madvise returns 0), sequential advice before the copy that
    the first change makes."""
    store = build()
    store.save_local(tmp_path / "a", documents="sqlite")
    advice: list[tuple[str, bool]] = []
    advise = _index.advise_lists

    def record(ivf: Any, name: str) -> bool:
        advice.append((name, advise(ivf, name)))
        return advice[-1][1]

    monkeypatch.setattr(_index, "advise_lists", record)
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert advice == [("MADV_RANDOM", True)]
    assert top(loaded, 7) == top(store, 7)
    loaded.add_embeddings([("late", VECTORS[7])], ids=["late"])
    assert advice == [("MADV_RANDOM", True), ("MADV_SEQUENTIAL", True)]
    assert sorted(top(loaded, 7, k=2)) == [("d7", 1.0), ("late", 1.0)]

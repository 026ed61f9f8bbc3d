"""FAISS-specific behaviour on real faiss indexes (the shared behaviour is in the contract suite).

Two kinds of data: a few hand-checkable vectors whose scores can be worked out on
paper, and a fixed-seed random set (2,000 unit vectors in 16-D) whose exact answers
numpy computes, to check approximate indexes, selective filters and persistence.
"""

from __future__ import annotations

import doctest
import json
import math
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.core import (
    ConfigurationError,
    DimensionError,
    Document,
    InvalidInputError,
    PersistenceError,
)
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS, VectorStore
from ragline.vectorstores._validation import SearchPlan
from ragline.vectorstores.faiss import _files as _faiss_files
from ragline.vectorstores.faiss import _filters as _faiss_filters
from ragline.vectorstores.faiss import _index as _faiss_index
from ragline.vectorstores.faiss import _store as _faiss
from ragline.vectorstores.faiss._index import LabeledIndex
from ragline.vectorstores.filters import matches, parse_filter

faiss = pytest.importorskip("faiss")
xxhash = pytest.importorskip("xxhash")


class TableEmbeddings(Embeddings):
    """Texts map to fixed vectors; ``"t<i>"`` is document row i, ``"q<j>"`` query row j."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.query_batches: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(self.table[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(self.table[text])

    def embed_queries_array(self, texts: Any) -> np.ndarray:
        self.query_batches.append(len(texts))
        return np.array([self.table[text] for text in texts], dtype=np.float32)


# ---------------------------------------------------------------------- random data

N, DIM, QUERIES = 2000, 16, 20
RNG = np.random.default_rng(7)
VECTORS = RNG.standard_normal((N, DIM)).astype(np.float32)
VECTORS /= np.linalg.norm(VECTORS, axis=1, keepdims=True)
QUERY_VECTORS = RNG.standard_normal((QUERIES, DIM)).astype(np.float32)
QUERY_VECTORS /= np.linalg.norm(QUERY_VECTORS, axis=1, keepdims=True)
TEXTS = [f"t{i}" for i in range(N)]
IDS = [f"id{i}" for i in range(N)]
# 1% of the documents are "rare" (every 100th), the rest "common"; "n" is the row number
METADATAS = [{"group": "rare" if i % 100 == 0 else "common", "n": i} for i in range(N)]
RARE = [i for i in range(N) if i % 100 == 0]

INDEX_TYPES = {
    "flat": {},
    "hnsw": {"index_factory": "HNSW16", "ef_construction": 80, "ef_search": 64},
    "ivf": {"index_factory": "IVF8,Flat", "nprobe": 8},
}


@pytest.fixture
def random_embeddings() -> TableEmbeddings:
    table = {text: row.tolist() for text, row in zip(TEXTS, VECTORS, strict=True)}
    table.update({f"q{j}": row.tolist() for j, row in enumerate(QUERY_VECTORS)})
    return TableEmbeddings(table)


def build(embeddings: Embeddings, kind: str, count: int = N, **extra: Any) -> FAISS:
    return FAISS.from_texts(
        TEXTS[:count],
        embeddings,
        METADATAS[:count],
        ids=IDS[:count],
        **{"metric": "cosine", **INDEX_TYPES[kind], **extra},
    )


def exact_ids(query: np.ndarray, rows: list[int], k: int) -> list[str]:
    """The k nearest of ``rows`` by cosine, computed with numpy."""
    scores = VECTORS[rows] @ query
    order = np.argsort(-scores, kind="stable")[:k]
    return [IDS[rows[i]] for i in order]


def ids_of(documents: list[Document]) -> list[str | None]:
    return [document.id for document in documents]


# ---------------------------------------------------------------------- exact scores


@pytest.fixture
def plane() -> TableEmbeddings:
    return TableEmbeddings(
        {
            "x": [1.0, 0.0],
            "y": [0.0, 2.0],  # not unit length: inner product and L2 see the 2
            "xy": [3.0, 3.0],
            "query": [1.0, 0.0],
        }
    )


def test_native_scores_are_exact_for_each_metric(plane: TableEmbeddings) -> None:
    """cosine: cos; inner_product: dot; l2: squared distance (faiss's own numbers)."""
    expected = {
        "cosine": [("x", 1.0), ("xy", math.sqrt(0.5)), ("y", 0.0)],
        "inner_product": [("xy", 3.0), ("x", 1.0), ("y", 0.0)],
        "l2": [("x", 0.0), ("y", 5.0), ("xy", 13.0)],
    }
    for metric, pairs in expected.items():
        store = FAISS.from_texts(["x", "y", "xy"], plane, metric=metric)
        found = store.similarity_search_with_score("query", k=3)
        assert [doc.page_content for doc, _ in found] == [text for text, _ in pairs]
        assert [score for _, score in found] == pytest.approx([s for _, s in pairs], abs=1e-6)
        relevance = [
            score for _, score in store.similarity_search_with_relevance_scores("query", k=3)
        ]
        assert all(0.0 <= value <= 1.0 for value in relevance), (metric, relevance)


def test_from_embeddings_and_from_documents(plane: TableEmbeddings) -> None:
    store = FAISS.from_embeddings(
        [("a", [1.0, 0.0]), ("b", [0.0, 1.0])],
        plane,
        [{"k": 1}, {"k": 2}],
        ids=["A", "B"],
        metric="cosine",
    )
    assert ids_of(store.similarity_search_by_vector([0.1, 1.0], k=2)) == ["B", "A"]
    assert store.get_by_ids(["A"])[0].metadata == {"k": 1}
    documents = [Document("x", {"s": 1}, id="X"), Document("y", {"s": 2}, id="Y")]
    store = FAISS.from_documents(documents, plane, metric="l2")
    assert ids_of(store.similarity_search("query", k=1)) == ["X"]
    assert store.metric == "l2" and store.count() == 2 and store.index.ntotal == 2


# ---------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"metric": "dot"}, "'cosine', 'inner_product', 'l2'"),
        ({"index_factory": ""}, "index-factory string"),
        ({"index_factory": "Flta", "dimension": 8}, "'Flta'"),
        ({"index_factory": "IDMap,Flat", "dimension": 8}, "IDMap"),
        ({"ef_search": 32}, "HNSW"),
        ({"index_factory": "HNSW8", "nprobe": 4, "dimension": 8}, "IVF"),
        ({"train_size": 0}, "train_size"),
        ({"dimension": True}, "dimension"),
    ],
)
def test_bad_options_are_refused(plane: TableEmbeddings, options: dict, fragment: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        FAISS(plane, **options).add_texts(["x"])
    assert fragment in str(caught.value)


def test_a_bad_factory_fails_the_first_add_and_stores_nothing(plane: TableEmbeddings) -> None:
    store = FAISS(plane, index_factory="PQ3", metric="cosine")  # 2-D vectors cannot split into 3
    with pytest.raises(ConfigurationError, match="PQ3"):
        store.add_texts(["x", "y"])
    assert store.count() == 0 and store.dimension is None


# ---------------------------------------------------------------------- index types


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_search_matches_exact_neighbours(random_embeddings: TableEmbeddings, kind: str) -> None:
    store = build(random_embeddings, kind)
    queries = [f"q{j}" for j in range(QUERIES)]
    results = store.as_retriever(search_kwargs={"k": 10}).batch(queries)
    recall = np.mean(
        [
            len(set(ids_of(found)) & set(exact_ids(QUERY_VECTORS[j], list(range(N)), 10))) / 10
            for j, found in enumerate(results)
        ]
    )
    assert recall == 1.0 if kind == "flat" else recall >= 0.9
    assert random_embeddings.query_batches[-1] == QUERIES  # embedded (and searched) at once


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_delete_removes_vectors(random_embeddings: TableEmbeddings, kind: str) -> None:
    store = build(random_embeddings, kind)
    nearest = exact_ids(QUERY_VECTORS[0], list(range(N)), 5)
    store.delete(nearest[:3])
    assert store.count() == N - 3
    assert store.get_by_ids(nearest[:3]) == []
    found = ids_of(store.similarity_search("q0", k=5))
    assert len(found) == 5 and not set(found) & set(nearest[:3])
    assert found[:2] == nearest[3:5]
    if kind == "hnsw":  # HNSW cannot remove: masked until rebuilt
        assert store.index.ntotal == N and len(store._index.masked) == 3
    else:
        assert store.index.ntotal == N - 3


def test_hnsw_masked_ids_never_come_back_and_are_dropped_on_save(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    store = build(random_embeddings, "hnsw", count=200)
    doomed = [f"id{i}" for i in range(0, 200, 2)]  # half of the store
    store.delete(doomed)
    store.add_texts(["t1"], [{"group": "moved"}], ids=["id1"])  # upsert: the old vector masked
    assert store.index.ntotal == 201 and store.count() == 100
    for j in range(QUERIES):
        found = ids_of(store.similarity_search(f"q{j}", k=100))
        assert sorted(found) == sorted(IDS[1:200:2]), "every live document, no masked one"
    assert store.get_by_ids(["id1"])[0].metadata == {"group": "moved"}
    store.save_local(tmp_path)
    assert store.index.ntotal == 100 and not store._index.masked  # rebuilt without them
    loaded = FAISS.load_local(tmp_path, random_embeddings)
    assert loaded.index.ntotal == 100
    assert ids_of(loaded.similarity_search("q3", k=7)) == ids_of(store.similarity_search("q3", k=7))


def test_ivf_trains_once_enough_vectors_exist(random_embeddings: TableEmbeddings) -> None:
    # trains at 39 * 8
    store = FAISS(random_embeddings, index_factory="IVF8,Flat", nprobe=8, metric="cosine")
    store.add_texts(TEXTS[:300], METADATAS[:300], ids=IDS[:300])
    assert not isinstance(store.index, faiss.IndexIVF)  # exact flat index while waiting
    assert ids_of(store.similarity_search("q0", k=5)) == exact_ids(
        QUERY_VECTORS[0], list(range(300)), 5
    )
    store.add_texts(TEXTS[300:312], METADATAS[300:312], ids=IDS[300:312])
    assert isinstance(store.index, faiss.IndexIVF) and store.index.is_trained
    assert store.index.ntotal == 312
    assert ids_of(store.similarity_search("q0", k=5)) == exact_ids(
        QUERY_VECTORS[0], list(range(312)), 5
    )
    store.delete(["id0", "id1"])
    assert store.index.ntotal == 310


# ---------------------------------------------------------------------- filters


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_selective_filter_returns_k_when_k_match(
    random_embeddings: TableEmbeddings, kind: str
) -> None:
    """1% selectivity: the 4 nearest rare documents, exactly, on every index type."""
    store = build(random_embeddings, kind)
    for j in range(QUERIES):
        found = store.similarity_search(f"q{j}", k=4, filter={"group": "rare"})
        assert ids_of(found) == exact_ids(QUERY_VECTORS[j], RARE, 4)
    assert len(store.similarity_search("q0", k=50, filter={"group": "rare"})) == len(RARE)


@pytest.mark.parametrize(("inner_product", "worst"), [(True, -np.inf), (False, np.inf)])
def test_exact_search_over_labels_pads_short_rows(inner_product: bool, worst: float) -> None:
    index = LabeledIndex(2, _faiss_index.IndexOptions("Flat", inner_product=inner_product))
    index.add(np.array([[1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32), np.array([10, 20, 30]))
    queries = np.array([[1, 0], [0, 1]], dtype=np.float32)
    scores, labels = index.exact(queries, 2, np.array([20, 30]))
    assert labels.tolist() == [[30, 20], [20, 30]]
    expected = [[0.6, 0.0], [1.0, 0.8]] if inner_product else [[0.8, 2.0], [0.0, 0.4]]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    scores, labels = index.exact(queries, 3, np.array([10]))  # fewer allowed than asked
    assert labels.tolist() == [[10, -1, -1], [10, -1, -1]]
    assert scores[:, 1:].tolist() == [[worst] * 2] * 2


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_broad_filter_goes_through_the_faiss_selector(
    random_embeddings: TableEmbeddings, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """About 30% match: faiss searches with an ID selector (no exact fallback needed on Flat)."""
    store = build(random_embeddings, kind)
    calls: list[str] = []
    original = LabeledIndex.search

    def spy(self: LabeledIndex, *args: Any, **kwargs: Any) -> Any:
        calls.append("search")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(LabeledIndex, "search", spy)
    rows = [i for i in range(N) if i % 10 < 3]
    for j in range(5):
        found = store.similarity_search(f"q{j}", k=10, filter={"n": {"$in": rows}})
        truth = exact_ids(QUERY_VECTORS[j], rows, 10)
        if kind == "flat":
            assert ids_of(found) == truth
        else:
            assert len(found) == 10 and len(set(ids_of(found)) & set(truth)) >= 8
            assert all(int(doc.id[2:]) % 10 < 3 for doc in found)  # type: ignore[index]
    assert calls == ["search"] * 5


def test_filter_index_agrees_with_the_reference_evaluator(plane: TableEmbeddings) -> None:
    """Tricky metadata: bool vs int, 1 vs 1.0, lists, missing fields, huge ints (NaN is
    refused when added: it would not survive a save)."""
    values: list[Any] = [
        True,
        False,
        1,
        1.0,
        0,
        2.5,
        "1",
        "a",
        [1],
        {"a": 1},
        2**60,
        None,
    ]
    metadatas = [{"v": value} for value in values] + [{}, {"w": 1}]
    texts = [f"d{i}" for i in range(len(metadatas))]
    table = {text: [1.0, i / 10] for i, text in enumerate(texts)} | {"query": [1.0, 0.0]}
    store = FAISS.from_texts(texts, TableEmbeddings(table), metadatas, ids=texts, metric="cosine")
    filters = [
        {"v": True}, {"v": 1}, {"v": 1.0}, {"v": 0}, {"v": False}, {"v": "1"},
        {"v": {"$ne": 1}}, {"v": {"$in": [True, "a"]}}, {"v": {"$nin": [1, "a"]}},
        {"v": {"$gt": 0}}, {"v": {"$gte": 1}}, {"v": {"$lt": 2.5}}, {"v": {"$lte": 2**60}},
        {"v": {"$gt": 2**59}}, {"$or": [{"v": "a"}, {"w": 1}]},
        {"$and": [{"v": {"$gte": 0}}, {"v": {"$ne": 2.5}}]}, {"w": {"$ne": 1}},
    ]  # fmt: skip
    for raw in filters:
        expected = sorted(
            t for t, m in zip(texts, metadatas, strict=True) if matches(parse_filter(raw), m)
        )
        found = store.similarity_search("query", k=len(texts), filter=raw)
        assert sorted(ids_of(found)) == expected, raw  # type: ignore[type-var]


def test_filters_see_writes(random_embeddings: TableEmbeddings) -> None:
    store = build(random_embeddings, "flat", count=300)
    assert len(store.similarity_search("q0", k=10, filter={"group": "rare"})) == 3
    store.add_texts(["t5"], [{"group": "rare"}], ids=["id5"])
    store.delete(["id0"])
    found = store.similarity_search("q0", k=10, filter={"group": "rare"})
    assert sorted(ids_of(found)) == ["id100", "id200", "id5"]  # type: ignore[type-var]


def test_mmr_with_filter_on_hnsw(random_embeddings: TableEmbeddings) -> None:
    store = build(random_embeddings, "hnsw")
    found = store.max_marginal_relevance_search("q1", k=4, fetch_k=10, filter={"group": "rare"})
    assert len(found) == 4 and {doc.metadata["group"] for doc in found} == {"rare"}
    assert found[0].id == exact_ids(QUERY_VECTORS[1], RARE, 1)[0]


# ---------------------------------------------------------------------- failures mid-add


def test_index_failure_half_way_leaves_store_consistent(
    random_embeddings: TableEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = build(random_embeddings, "flat", count=100)
    before = ids_of(store.similarity_search("q0", k=10))
    original = faiss.IndexIDMap2.add_with_ids

    def half_then_fail(self: Any, vectors: np.ndarray, labels: np.ndarray) -> None:
        original(self, vectors[:5], labels[:5])  # some vectors land, then faiss "fails"
        raise RuntimeError("injected faiss failure")

    monkeypatch.setattr(faiss.IndexIDMap2, "add_with_ids", half_then_fail)
    with pytest.raises(RuntimeError, match="injected"):
        store.add_texts(TEXTS[100:120], METADATAS[100:120], ids=IDS[100:120])
    monkeypatch.undo()
    assert store.count() == 100 and store.index.ntotal == 100  # no orphan vectors
    assert ids_of(store.similarity_search("q0", k=10)) == before
    assert store.add_texts(TEXTS[100:120], METADATAS[100:120], ids=IDS[100:120]) == IDS[100:120]
    assert store.count() == store.index.ntotal == 120


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_document_failure_half_way_rolls_back_vectors(
    random_embeddings: TableEmbeddings, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = build(random_embeddings, kind, count=100)
    store.add_texts(["t5"], [{"version": 1}], ids=["id5"])  # will be "replaced" below
    before = ids_of(store.similarity_search("q0", k=10))

    def fail_half_way(self: FAISS, ids: list[str], labels: range, *columns: Any) -> None:
        self._records[labels[0]] = (ids[0], "partial", {})
        self._label_of[ids[0]] = labels[0]
        raise MemoryError("injected")

    monkeypatch.setattr(FAISS, "_store", fail_half_way)
    with pytest.raises(MemoryError):
        store.add_texts(["t5", "t150"], [{"version": 2}, {}], ids=["id5", "id150"])
    monkeypatch.undo()
    live = store.index.ntotal - len(store._index.masked)
    assert store.count() == live == 100  # no documents without vectors, no orphan vectors
    assert store.get_by_ids(["id5", "id150"])[0].metadata == {"version": 1}
    assert len(store.get_by_ids(["id150"])) == 0
    assert ids_of(store.similarity_search("q0", k=10)) == before


def test_bad_input_changes_nothing(random_embeddings: TableEmbeddings) -> None:
    store = build(random_embeddings, "flat", count=50)
    with pytest.raises(DimensionError):
        store.add_embeddings([("x", [1.0] * (DIM + 1))], ids=["id0"])
    with pytest.raises(InvalidInputError):
        store.add_texts(["t1", "t2"], ids=["id1", "id1"])
    assert store.count() == store.index.ntotal == 50
    assert store.get_by_ids(["id0"])[0].page_content == "t0"


# ---------------------------------------------------------------------- merge


def test_merge_from_adds_everything_and_refuses_clashes(random_embeddings: TableEmbeddings) -> None:
    first = FAISS.from_texts(
        TEXTS[:10], random_embeddings, METADATAS[:10], ids=IDS[:10], metric="cosine"
    )
    second = FAISS.from_texts(
        TEXTS[10:20], random_embeddings, METADATAS[10:20], ids=IDS[10:20], metric="cosine"
    )
    first.merge_from(second)
    assert first.count() == 20 and second.count() == 10
    assert ids_of(first.similarity_search("q2", k=20)) == exact_ids(
        QUERY_VECTORS[2], list(range(20)), 20
    )
    clashing = FAISS.from_texts(
        TEXTS[15:25], random_embeddings, METADATAS[15:25], ids=IDS[15:25], metric="cosine"
    )
    with pytest.raises(InvalidInputError, match="'id15'"):
        first.merge_from(clashing)
    assert first.count() == 20 and first.index.ntotal == 20 and clashing.count() == 10
    with pytest.raises(InvalidInputError, match="metric"):
        first.merge_from(FAISS.from_texts(["t30"], random_embeddings, metric="l2"))
    other_dimension = FAISS.from_embeddings([("z", [1.0, 0.0])], random_embeddings, metric="cosine")
    with pytest.raises(InvalidInputError, match="dimension"):
        first.merge_from(other_dimension)
    assert first.count() == 20


# ---------------------------------------------------------------------- persistence


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_save_load_round_trip(
    random_embeddings: TableEmbeddings, kind: str, tmp_path: Path
) -> None:
    store = build(random_embeddings, kind)
    store.delete(["id7"])
    store.save_local(tmp_path / "saved")
    loaded = FAISS.load_local(tmp_path / "saved", random_embeddings)
    assert loaded.count() == N - 1 and loaded.metric == store.metric
    for j in range(QUERIES):
        assert loaded.similarity_search_with_score(
            f"q{j}", k=5
        ) == store.similarity_search_with_score(f"q{j}", k=5)
        assert ids_of(
            loaded.similarity_search(f"q{j}", k=4, filter={"group": "rare"})
        ) == exact_ids(QUERY_VECTORS[j], RARE, 4)
    assert loaded.get_by_ids(["id9"]) == store.get_by_ids(["id9"])
    loaded.add_texts(["t7"], ids=["id7"])  # labels continue after the loaded ones
    assert loaded.count() == N


def test_saved_files_are_documented_format(plane: TableEmbeddings, tmp_path: Path) -> None:
    FAISS.from_texts(["x", "y"], plane, [{"a": 1}, {}], ids=["X", "Y"], metric="cosine").save_local(
        tmp_path, "kb"
    )
    manifest = json.loads((tmp_path / "kb.manifest.json").read_text())
    keys = ("format", "format_version", "dimension", "metric", "count")
    assert {k: manifest[k] for k in keys} == {
        "format": "ragline.faiss", "format_version": 3, "dimension": 2, "metric": "cosine",
        "count": 2,
    }  # fmt: skip
    assert manifest["checksum_algorithm"] == "xxh3_128"
    index_bytes = (tmp_path / manifest["index_file"]).read_bytes()
    assert manifest["index_checksum"] == xxhash.xxh3_128_hexdigest(index_bytes)
    documents_bytes = (tmp_path / manifest["documents_file"]).read_bytes()
    assert manifest["documents_checksum"] == xxhash.xxh3_128_hexdigest(documents_bytes)
    documents = json.loads((tmp_path / manifest["documents_file"]).read_text())
    assert documents == {"ids": ["X", "Y"], "texts": ["x", "y"], "metadatas": [{"a": 1}, {}]}
    index = faiss.read_index(str(tmp_path / manifest["index_file"]))
    assert index.ntotal == 2 and faiss.vector_to_array(index.id_map).tolist() == [0, 1]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["kb.manifest.json", manifest["documents_file"], manifest["index_file"]]
    )


def test_save_of_an_untrained_ivf_and_of_an_empty_store(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    store = build(random_embeddings, "ivf", count=100)  # below 39 * 8: not trained yet
    store.save_local(tmp_path / "young")
    loaded = FAISS.load_local(tmp_path / "young", random_embeddings)
    assert ids_of(loaded.similarity_search("q0", k=3)) == exact_ids(
        QUERY_VECTORS[0], list(range(100)), 3
    )
    loaded.add_texts(TEXTS[100:400], METADATAS[100:400], ids=IDS[100:400])
    assert isinstance(loaded.index, faiss.IndexIVF)
    FAISS(random_embeddings, metric="cosine").save_local(tmp_path / "empty")
    empty = FAISS.load_local(tmp_path / "empty", random_embeddings)
    assert empty.count() == 0 and empty.similarity_search("q0") == []


def test_crash_mid_save_leaves_previous_copy(
    random_embeddings: TableEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = build(random_embeddings, "flat", count=100)
    store.save_local(tmp_path)
    files_before = sorted(path.name for path in tmp_path.iterdir())
    store.add_texts(TEXTS[100:200], METADATAS[100:200], ids=IDS[100:200])

    def crash(*args: Any) -> None:
        raise OSError("disk full (injected)")

    monkeypatch.setattr(_faiss_files.os, "replace", crash)  # fail just before the commit point
    with pytest.raises(PersistenceError, match="disk full"):
        store.save_local(tmp_path)
    monkeypatch.undo()
    assert sorted(path.name for path in tmp_path.iterdir()) == files_before
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 100
    # a save killed outright leaves stray files: the next save removes them
    (tmp_path / "index.0123456789abcdef.faiss").write_bytes(b"partial")
    store.save_local(tmp_path)
    assert len(list(tmp_path.iterdir())) == 3
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 200


@pytest.mark.parametrize("failing", ["index", "documents"])
def test_a_failed_sqlite_save_leaves_no_file_of_either_writer(
    random_embeddings: TableEmbeddings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
) -> None:
    """With SQLite documents the faiss index is written on a thread beside the documents
    file. Either failing raises on the caller's thread (a PersistenceError) only once the
    other writer is done, so no file of the failed save is left (the index writer here
    is slow: a save that did not wait for it would find its file appear after the
    clean-up), and the previous copy stays whole."""
    import time

    store = build(random_embeddings, "flat", count=100)
    store.save_local(tmp_path, documents="sqlite")
    files_before = sorted(path.name for path in tmp_path.iterdir())
    store.add_texts(TEXTS[100:200], METADATAS[100:200], ids=IDS[100:200])
    real_write = LabeledIndex.write

    def slow_write(index: LabeledIndex, path: str) -> None:
        time.sleep(0.3)
        real_write(index, path)
        if failing == "index":
            raise RuntimeError("disk full (injected in the index)")

    def failing_documents(snapshot: Any, path: Path) -> int:
        path.write_bytes(b"partial")
        raise OSError("disk full (injected in the documents)")

    monkeypatch.setattr(LabeledIndex, "write", slow_write)
    if failing == "documents":
        monkeypatch.setattr(_faiss_files, "_write_sqlite", failing_documents)
    with pytest.raises(PersistenceError, match=f"disk full \\(injected in the {failing}"):
        store.save_local(tmp_path)
    time.sleep(0.5)  # a writer still running would add its file by now
    monkeypatch.undo()
    assert sorted(path.name for path in tmp_path.iterdir()) == files_before
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 100
    store.save_local(tmp_path)
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 200


def test_durable_save_fsyncs_files_and_folder(
    random_embeddings: TableEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = build(random_embeddings, "flat", count=20)
    synced: list[int] = []
    real_fsync = _faiss_files.os.fsync
    monkeypatch.setattr(_faiss_files.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    store.save_local(tmp_path)
    assert synced == []  # default: atomic against process crashes, no fsync
    store.save_local(tmp_path, durable=True)
    assert len(synced) == 4  # index file, documents file, manifest, folder
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 20


def test_unsavable_metadata_is_refused_before_writing(
    plane: TableEmbeddings, tmp_path: Path
) -> None:
    """Metadata a save could not write is refused when added; if some slips in anyway,
    the save refuses it, naming the document, before writing any file."""
    with pytest.raises(InvalidInputError, match=r"metadatas\[0\]\['when'\]"):
        FAISS.from_texts(["x"], plane, [{"when": object()}], ids=["X"], metric="cosine")
    store = FAISS.from_texts(["x"], plane, [{}], ids=["X"], metric="cosine")
    store.snapshot().metadatas[0]["when"] = object()  # the snapshot shares the dicts
    with pytest.raises(InvalidInputError, match="'X'"):
        store.save_local(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def _saved(embeddings: Embeddings, folder: Path) -> dict[str, Any]:
    FAISS.from_texts(
        TEXTS[:50], embeddings, METADATAS[:50], ids=IDS[:50], metric="cosine"
    ).save_local(folder)
    return json.loads((folder / "index.manifest.json").read_text())


def test_loading_a_missing_folder_or_manifest(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    with pytest.raises(PersistenceError, match="does not exist"):
        FAISS.load_local(tmp_path / "nowhere", random_embeddings)
    _saved(random_embeddings, tmp_path)
    with pytest.raises(PersistenceError, match=r"other\.manifest\.json is missing"):
        FAISS.load_local(tmp_path, random_embeddings, index_name="other")


def test_loading_a_newer_format_version(random_embeddings: TableEmbeddings, tmp_path: Path) -> None:
    manifest = _saved(random_embeddings, tmp_path)
    manifest["format_version"] = 5
    (tmp_path / "index.manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(PersistenceError, match="format version 5, newer"):
        FAISS.load_local(tmp_path, random_embeddings)


def _reseal(folder: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest with checksums and sizes recomputed from the files as they are
    now: a folder damaged *consistently*, to reach the checks behind the checksums."""
    algorithm = manifest.get("checksum_algorithm", "xxh3_128")
    for name in ("index", "documents"):
        if manifest[f"{name}_file"] is not None:
            path = folder / manifest[f"{name}_file"]
            manifest[f"{name}_bytes"] = path.stat().st_size
            manifest[f"{name}_checksum"] = _faiss_files.file_checksum(algorithm, path)
    manifest["manifest_checksum"] = _faiss_files._manifest_checksum(manifest, algorithm)
    (folder / "index.manifest.json").write_text(json.dumps(manifest))


def _rewrite_documents(folder: Path, manifest: dict[str, Any], documents: dict[str, Any]) -> None:
    """Replace the documents file, and its size and checksums in the manifest."""
    (folder / manifest["documents_file"]).write_bytes(json.dumps(documents).encode())
    _reseal(folder, manifest)


def test_loading_format_version_1(random_embeddings: TableEmbeddings, tmp_path: Path) -> None:
    """Version 1 always listed the labels: such a folder loads, its labels checked."""
    store = build(random_embeddings, "flat", count=50)
    store.delete(["id3"])  # labels 0..49 without 3
    store.save_local(tmp_path)
    manifest = json.loads((tmp_path / "index.manifest.json").read_text())
    documents = json.loads((tmp_path / manifest["documents_file"]).read_text())
    labels = [label for label in range(50) if label != 3]
    manifest["format_version"] = 1
    _rewrite_documents(tmp_path, manifest, {**documents, "labels": labels})
    loaded = FAISS.load_local(tmp_path, random_embeddings)
    assert loaded.count() == 49 and sorted(loaded._records) == labels
    assert loaded.similarity_search_with_score("q1", k=5) == store.similarity_search_with_score(
        "q1", k=5
    )
    labels[10] = 3  # the vectors carry label 11 there
    _rewrite_documents(tmp_path, manifest, {**documents, "labels": labels})
    with pytest.raises(PersistenceError, match="labels do not match"):
        FAISS.load_local(tmp_path, random_embeddings)


def test_loading_ivf_labels_out_of_order(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    """A trained IVF index cannot list its labels: the documents file must, increasing."""
    build(random_embeddings, "ivf").save_local(tmp_path)
    manifest = json.loads((tmp_path / "index.manifest.json").read_text())
    documents = json.loads((tmp_path / manifest["documents_file"]).read_text())
    assert documents["labels"] == list(range(N)) and manifest["trained"]
    documents["labels"][:2] = [1, 0]
    _rewrite_documents(tmp_path, manifest, documents)
    with pytest.raises(PersistenceError, match="labels must be increasing"):
        FAISS.load_local(tmp_path, random_embeddings)
    del documents["labels"]
    _rewrite_documents(tmp_path, manifest, documents)
    with pytest.raises(PersistenceError, match="does not list its labels"):
        FAISS.load_local(tmp_path, random_embeddings)


@pytest.mark.parametrize("victim", ["index_file", "documents_file", "manifest"])
def test_loading_truncated_files(
    random_embeddings: TableEmbeddings, tmp_path: Path, victim: str
) -> None:
    manifest = _saved(random_embeddings, tmp_path)
    path = tmp_path / ("index.manifest.json" if victim == "manifest" else manifest[victim])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(PersistenceError, match="truncated"):
        FAISS.load_local(tmp_path, random_embeddings)


def test_loading_corrupt_files_of_the_right_size(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    manifest = _saved(random_embeddings, tmp_path)
    index_path = tmp_path / manifest["index_file"]
    index_path.write_bytes(b"\0" * manifest["index_bytes"])
    _reseal(tmp_path, manifest)
    with pytest.raises(PersistenceError, match="not a readable faiss index"):
        FAISS.load_local(tmp_path, random_embeddings)
    manifest = _saved(random_embeddings, tmp_path)
    documents_path = tmp_path / manifest["documents_file"]
    documents = json.loads(documents_path.read_text())
    documents["ids"][1] = "id0"  # same length, so only the duplicate is wrong
    documents_path.write_text(json.dumps(documents)[: manifest["documents_bytes"]])
    _reseal(tmp_path, manifest)
    with pytest.raises(PersistenceError, match="ids must be unique"):
        FAISS.load_local(tmp_path, random_embeddings)
    (tmp_path / "index.manifest.json").write_text('{"format": "something else"}')
    with pytest.raises(PersistenceError, match="not a ragline FAISS manifest"):
        FAISS.load_local(tmp_path, random_embeddings)


def _save_pair(embeddings: Embeddings, folder: Path, rows: slice, **options: Any) -> None:
    FAISS.from_texts(TEXTS[rows], embeddings, METADATAS[rows], ids=IDS[rows], **options).save_local(
        folder
    )


@pytest.mark.parametrize("victim", ["index_file", "documents_file"])
def test_a_flipped_byte_in_a_data_file_is_caught(
    random_embeddings: TableEmbeddings, tmp_path: Path, victim: str
) -> None:
    """One bit flipped anywhere in a data file (here: in the middle, among the vectors or
    the texts) is a PersistenceError naming that file, not wrong search results."""
    manifest = _saved(random_embeddings, tmp_path)
    path = tmp_path / manifest[victim]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(PersistenceError, match="does not match the checksum") as info:
        FAISS.load_local(tmp_path, random_embeddings)
    assert manifest[victim] in str(info.value)


@pytest.mark.parametrize("victim", ["index_file", "documents_file"])
def test_a_same_size_file_from_another_store_is_caught(
    random_embeddings: TableEmbeddings, tmp_path: Path, victim: str
) -> None:
    """Two stores with as many documents (the same sizes to the byte): copying one's data
    file over the other's is caught by the checksum, naming the file."""
    _save_pair(random_embeddings, tmp_path / "a", slice(10, 60))  # ids id10 ... id59
    _save_pair(random_embeddings, tmp_path / "b", slice(50, 100))  # ids id50 ... id99
    first = json.loads((tmp_path / "a" / "index.manifest.json").read_text())
    second = json.loads((tmp_path / "b" / "index.manifest.json").read_text())
    source, target = tmp_path / "b" / second[victim], tmp_path / "a" / first[victim]
    assert source.stat().st_size == target.stat().st_size  # the size check cannot see it
    target.write_bytes(source.read_bytes())
    with pytest.raises(PersistenceError, match="another store") as info:
        FAISS.load_local(tmp_path / "a", random_embeddings)
    assert first[victim] in str(info.value)
    assert FAISS.load_local(tmp_path / "b", random_embeddings).count() == 50


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("metric", "inner_product"),  # the faiss file cannot tell: only the checksum can
        ("metric", "l2"),
        ("index_factory", "HNSW32"),
        ("count", 49),
        ("dimension", 8),
        ("options", {"ef_search": 64}),
    ],
)
def test_an_edited_manifest_is_caught(
    random_embeddings: TableEmbeddings, tmp_path: Path, field: str, value: Any
) -> None:
    """A manifest edited by hand (cosine -> l2 would invert rankings, Flat -> HNSW32 would
    make searches fail) no longer matches its own checksum: PersistenceError naming it."""
    manifest = _saved(random_embeddings, tmp_path)
    manifest[field] = value
    (tmp_path / "index.manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(PersistenceError, match="edited after saving") as info:
        FAISS.load_local(tmp_path, random_embeddings)
    assert "index.manifest.json" in str(info.value)


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("metric", "l2", "compares by inner product, but the metric needs L2"),
        ("index_factory", "HNSW32", "IndexIDMap2(IndexFlat), but index_factory 'HNSW32' builds"),
        ("index_factory", "IVF4,Flat", "but index_factory 'IVF4,Flat' builds"),
        ("count", 49, "'ids' should be a list of 49 items (the manifest's count)"),
        ("dimension", 8, "dimension 16, expected 8"),
    ],
)
def test_the_manifest_is_checked_against_the_faiss_file(
    random_embeddings: TableEmbeddings, tmp_path: Path, field: str, value: Any, fragment: str
) -> None:
    """Behind the checksums (a manifest resealed after editing, or an old format without
    checksums), the manifest's metric, index_factory, count and dimension are compared
    with the faiss index itself."""
    manifest = _saved(random_embeddings, tmp_path)
    manifest[field] = value
    _reseal(tmp_path, manifest)
    with pytest.raises(PersistenceError) as info:
        FAISS.load_local(tmp_path, random_embeddings)
    assert fragment in str(info.value)


def test_an_index_with_another_count_than_the_manifest(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    """A faiss file holding more vectors than the manifest counts documents (a file from a
    bigger store, with consistent documents) is refused, naming the index file."""
    _save_pair(random_embeddings, tmp_path / "small", slice(0, 50))
    _save_pair(random_embeddings, tmp_path / "big", slice(0, 60))
    small = json.loads((tmp_path / "small" / "index.manifest.json").read_text())
    big = json.loads((tmp_path / "big" / "index.manifest.json").read_text())
    index_path = tmp_path / "small" / small["index_file"]
    index_path.write_bytes((tmp_path / "big" / big["index_file"]).read_bytes())
    _reseal(tmp_path / "small", small)
    with pytest.raises(PersistenceError, match=r"holds 60 vectors but index\.manifest"):
        FAISS.load_local(tmp_path / "small", random_embeddings)


def _as_version_2(folder: Path) -> dict[str, Any]:
    """Turn a saved folder into what format version 2 wrote (no checksum fields)."""
    manifest = json.loads((folder / "index.manifest.json").read_text())
    for key in ("checksum_algorithm", "index_checksum", "documents_checksum", "manifest_checksum"):
        del manifest[key]
    manifest["format_version"] = 2
    (folder / "index.manifest.json").write_text(json.dumps(manifest))
    return manifest


def test_format_version_2_still_loads_and_is_checked_against_the_index(
    random_embeddings: TableEmbeddings, tmp_path: Path
) -> None:
    """A folder saved before checksums loads as before; saving it again writes version 3.
    Its manifest is still compared with the faiss file (an l2 edit is caught)."""
    store = build(random_embeddings, "hnsw", count=200)
    store.save_local(tmp_path)
    manifest = _as_version_2(tmp_path)
    loaded = FAISS.load_local(tmp_path, random_embeddings)
    assert loaded.similarity_search_with_score("q3", k=5) == store.similarity_search_with_score(
        "q3", k=5
    )
    loaded.save_local(tmp_path)
    assert json.loads((tmp_path / "index.manifest.json").read_text())["format_version"] == 3
    store.save_local(tmp_path / "edited")
    manifest = _as_version_2(tmp_path / "edited")
    manifest["metric"] = "l2"
    (tmp_path / "edited" / "index.manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(PersistenceError, match=r"does not match index\.manifest\.json"):
        FAISS.load_local(tmp_path / "edited", random_embeddings)


def test_sha256_checksums_when_xxhash_is_missing(
    random_embeddings: TableEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the xxhash package a save uses hashlib's sha256 (named in the manifest),
    and loading checks it the same way."""
    monkeypatch.setitem(__import__("sys").modules, "xxhash", None)  # import fails
    manifest = _saved(random_embeddings, tmp_path)
    assert manifest["checksum_algorithm"] == "sha256"
    import hashlib

    documents = (tmp_path / manifest["documents_file"]).read_bytes()
    assert manifest["documents_checksum"] == hashlib.sha256(documents).hexdigest()
    assert FAISS.load_local(tmp_path, random_embeddings).count() == 50
    path = tmp_path / manifest["index_file"]
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x80
    path.write_bytes(bytes(data))
    with pytest.raises(PersistenceError, match="does not match the checksum"):
        FAISS.load_local(tmp_path, random_embeddings)


@pytest.mark.parametrize("kind", sorted(INDEX_TYPES))
def test_snapshot_and_restore(random_embeddings: TableEmbeddings, kind: str) -> None:
    """snapshot() gives the whole state (documents in label order, settings, index);
    restore() builds an equal store from it, which keeps working (labels continue)."""
    store = build(random_embeddings, kind, count=400)
    store.delete(["id5"])
    snapshot = store.snapshot()
    assert len(snapshot.ids) == len(snapshot.labels) == 399 and "id5" not in snapshot.ids
    assert snapshot.labels == sorted(snapshot.labels) and snapshot.metric == "cosine"
    first = (snapshot.ids[4], snapshot.texts[4], snapshot.metadatas[4])
    assert first == ("id4", "t4", METADATAS[4])
    copy = FAISS.restore(snapshot, random_embeddings)
    assert copy.similarity_search_with_score("q1", k=5) == store.similarity_search_with_score(
        "q1", k=5
    )
    copy.add_texts(["t5"], [METADATAS[5]], ids=["id5"])
    assert copy.get_by_ids(["id5"])[0].page_content == "t5" and copy.count() == 400
    with pytest.raises(InvalidInputError, match="ids must be unique"):
        FAISS.restore(
            _faiss_index.Snapshot(**{**vars(snapshot), "ids": ["same"] * 399}), random_embeddings
        )


def test_persistence_reads_no_private_field_of_the_store() -> None:
    """_files.py works on a Snapshot only: it reaches no private attribute of anything."""
    import ast

    tree = ast.parse(Path(_faiss_files.__file__).read_text())
    private = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
    }
    assert private == set()


# ---------------------------------------------------------------------- threads


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_searching_while_another_thread_adds(random_embeddings: TableEmbeddings, kind: str) -> None:
    store = build(random_embeddings, kind, count=500)
    errors: list[BaseException] = []
    done = threading.Event()

    def writer() -> None:
        try:
            for start in range(500, N, 50):
                store.add_texts(
                    TEXTS[start : start + 50],
                    METADATAS[start : start + 50],
                    ids=IDS[start : start + 50],
                )
                store.delete([IDS[start - 1]])
        except BaseException as err:  # reported by the main thread
            errors.append(err)
        finally:
            done.set()

    def reader(j: int) -> None:
        try:
            while not done.is_set():
                found = store.similarity_search(f"q{j}", k=5)
                assert len(found) == 5 and all(
                    doc.page_content == f"t{doc.id[2:]}" for doc in found
                )  # type: ignore[index]
                rare = store.similarity_search(f"q{j}", k=3, filter={"group": "rare"})
                assert len(rare) == 3 and all(doc.metadata["group"] == "rare" for doc in rare)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=writer)] + [
        threading.Thread(target=reader, args=(j,)) for j in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[0]
    deleted = len(range(500, N, 50))
    assert store.count() == N - deleted
    assert store.index.ntotal - len(store._index.masked) == N - deleted


@pytest.mark.parametrize("module", [_faiss_index, _faiss_filters, _faiss])
def test_docstring_examples_run(module: Any) -> None:
    """The examples in the FAISS modules' docstrings run and print what they show."""
    tests = doctest.DocTestFinder().find(module)
    assert sum(len(test.examples) for test in tests) > 0
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ---------------------------------------------------------------------- one MMR pick


@pytest.mark.parametrize("metric", ["cosine", "l2"])
async def test_faiss_mmr_agrees_with_the_base_path_sync_and_async(
    random_embeddings: TableEmbeddings, metric: str
) -> None:
    """FAISS picks MMR on its own arrays (Documents only for the picks); the async path
    goes through the base class (_asearch with vectors, then _pick_mmr). Both use the
    one mmr_picks, so they must return the same documents, in the same order, with the
    same scores."""
    store = build(random_embeddings, "flat", count=500, metric=metric)
    cases = [(None, 5), ({"group": "common"}, 5), ({"n": {"$lt": 3}}, 3), ({"group": "x"}, 0)]
    for filter, count in cases:
        plan = SearchPlan.mmr(5, 40, 0.3, filter)
        for j in range(5):
            query = QUERY_VECTORS[j].tolist()
            found = store.max_marginal_relevance_search_by_vector(
                query, k=5, fetch_k=40, lambda_mult=0.3, filter=filter
            )
            found_async = await store.amax_marginal_relevance_search_by_vector(
                query, k=5, fetch_k=40, lambda_mult=0.3, filter=filter
            )
            queries = np.array([query], dtype=np.float32)
            own = store._mmr_hits(queries, plan)[0]
            base = VectorStore._mmr_hits(store, queries, plan)[0]
            assert len(found) == count
            assert ids_of(found) == ids_of(found_async) == [hit.document.id for hit in base]
            assert [(h.document, h.score) for h in own] == [(h.document, h.score) for h in base]


# ---------------------------------------------------------------------- exact limits


def test_ivf_trains_at_exactly_train_size_and_keeps_every_vector(
    random_embeddings: TableEmbeddings,
) -> None:
    """train_size=100: 99 documents stay in the exact waiting index; the 100th trains the
    IVF index (>=, not >), which then holds every vector under its own id: each document
    is its own nearest neighbour afterwards."""
    store = FAISS.from_texts(TEXTS[:99], random_embeddings, ids=IDS[:99],
                             index_factory="IVF4,Flat", train_size=100, nprobe=4,
                             metric="cosine")  # fmt: skip
    assert not isinstance(store.index, faiss.IndexIVF)
    store.add_texts(TEXTS[99:100], ids=IDS[99:100])
    assert isinstance(store.index, faiss.IndexIVF) and store.index.ntotal == 100
    for i in range(100):
        [(document, score)] = store.similarity_search_with_score_by_vector(VECTORS[i], k=1)
        assert document.id == IDS[i] and score == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("matching", [9, 10, 11])
def test_filters_at_the_exact_scoring_boundary(
    random_embeddings: TableEmbeddings, matching: int
) -> None:
    """With 160 documents a filter matching 10 (= 160 / 16) is scored exactly over the
    matching vectors, 11 goes through faiss's selector: on both sides of the boundary
    the k nearest matching documents come back, in order."""
    rows = list(range(0, 160, 14))[:matching]
    metadatas = [{"hit": i in rows} for i in range(160)]
    store = FAISS.from_texts(
        TEXTS[:160], random_embeddings, metadatas, ids=IDS[:160], metric="cosine"
    )
    for j in range(QUERIES):
        found = store.similarity_search(f"q{j}", k=5, filter={"hit": True})
        assert ids_of(found) == exact_ids(QUERY_VECTORS[j], rows, 5)


def test_a_lone_surrogate_that_slipped_in_fails_the_save_before_any_file(
    plane: TableEmbeddings, tmp_path: Path
) -> None:
    """add_texts refuses lone surrogates; one that slips in anyway (here through the
    snapshot's shared dicts) fails save_local with InvalidInputError before any file
    (or temporary file) is written, and the previous copy stays loadable."""
    store = FAISS.from_texts(["x"], plane, [{"who": "a"}], ids=["X"], metric="cosine")
    store.save_local(tmp_path)
    before = sorted(path.name for path in tmp_path.iterdir())
    store.snapshot().metadatas[0]["who"] = "\udc80"
    with pytest.raises(InvalidInputError, match="lone surrogate"):
        store.save_local(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == before
    assert FAISS.load_local(tmp_path, plane).get_by_ids(["X"])[0].metadata == {"who": "a"}


# ---------------------------------------------------------------------- one query vector


@pytest.mark.parametrize("metric", ["cosine", "inner_product", "l2"])
def test_one_query_vector_as_list_or_array_takes_the_one_query_check(
    random_embeddings: TableEmbeddings, metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """similarity_search_by_vector with a list of floats or a 1-D float32 array (what
    embed_query returns) goes to FAISS's one-query check as a one-row matrix, without
    the general conversion (as_vector_matrix); a float64 array or a tuple still goes the
    general way. Every form gives the text search's documents and scores, and the
    caller's vector is left as it was (cosine normalizes a copy)."""
    from ragline.vectorstores import _primitives

    general: list[Any] = []
    original = _primitives.as_vector_matrix

    def counted(vectors: Any, **options: Any) -> np.ndarray:
        general.append(vectors)
        return original(vectors, **options)

    store = build(random_embeddings, "flat", count=300, metric=metric)
    monkeypatch.setattr(_primitives, "as_vector_matrix", counted)
    for j in range(QUERIES):
        query = QUERY_VECTORS[j] * 3.0  # not unit length: cosine must normalize it
        expected = store.similarity_search_with_score_by_vector(query.tolist(), k=4)
        array = query.copy()
        for form in (query.tolist(), array):
            found = store.similarity_search_with_score_by_vector(form, k=4)
            assert [(d.id, s) for d, s in found] == [(d.id, s) for d, s in expected]
            assert ids_of(store.similarity_search_by_vector(form, k=4)) == ids_of(
                [d for d, _ in expected]
            )
        assert np.array_equal(array, query)
        assert general == []
        for form in (query.astype(np.float64), tuple(query.tolist())):
            found = store.similarity_search_with_score_by_vector(form, k=4)
            assert [d.id for d, _ in found] == [d.id for d, _ in expected]
            assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-6)
        assert len(general) == 2
        general.clear()


def test_one_query_vector_that_is_not_numbers_of_the_dimension_is_refused() -> None:
    """The one-query conversion refuses what the general check refuses, with its errors:
    a wrong length, NaN / infinity (None converts to NaN), text, nested lists, a 2-D
    array; the store is unchanged and still answers."""
    store = FAISS.from_embeddings(
        [("a", [1.0, 0.0, 0.0]), ("b", [0.0, 1.0, 0.0])], TableEmbeddings({}), ids=["A", "B"]
    )
    cases: list[tuple[Any, type[Exception], str]] = [
        ([1.0, 0.0], DimensionError, "dimension 2"),
        (np.zeros(4, dtype=np.float32), DimensionError, "dimension 4"),
        ([1.0, None, 0.0], DimensionError, "NaN or infinite"),
        ([1.0, float("inf"), 0.0], DimensionError, "NaN or infinite"),
        (np.array([1.0, np.nan, 0.0], dtype=np.float32), DimensionError, "NaN or infinite"),
        (["x", "y", "z"], DimensionError, "list of numbers"),
        ([[1.0], [0.0], [0.0]], DimensionError, "2-D array"),
        (np.eye(3, dtype=np.float32), InvalidInputError, "1-D"),
    ]
    for vector, error, fragment in cases:
        with pytest.raises(error, match=fragment):
            store.similarity_search_by_vector(vector, k=1)
    assert ids_of(store.similarity_search_by_vector([0.1, 1.0, 0.0], k=2)) == ["B", "A"]

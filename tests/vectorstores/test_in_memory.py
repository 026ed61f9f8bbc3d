"""InMemoryVectorStore specifics (the shared behaviour is in the contract suite)."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.core import ConfigurationError, DimensionError, InvalidInputError, PersistenceError
from ragline.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore
from ragline.vectorstores.filters import matches, parse_filter

from .contract import IDS, METADATAS, TEXTS, ExplicitEmbeddings


def test_unknown_metric_lists_the_valid_ones() -> None:
    with pytest.raises(
        ConfigurationError, match="metric 'dot' is not one of 'cosine', 'inner_product', 'l2'"
    ):
        InMemoryVectorStore(ExplicitEmbeddings(), metric="dot")


@pytest.mark.parametrize(
    ("metric", "score_kind", "expected"),
    [
        # query (3, 0); documents (2, 0) and (1, 1)
        ("cosine", "cosine_similarity", [1.0, math.sqrt(0.5)]),
        ("inner_product", "inner_product", [6.0, 3.0]),
        ("l2", "l2", [1.0, math.sqrt(5.0)]),
    ],
)
def test_native_scores_per_metric_on_vectors_that_are_not_unit_length(
    metric: str, score_kind: str, expected: list[float]
) -> None:
    """cosine ignores length; inner product and L2 do not (documented native scores)."""
    embeddings = ExplicitEmbeddings({"a": [2.0, 0.0], "b": [1.0, 1.0], "q": [3.0, 0.0]})
    store = InMemoryVectorStore.from_texts(["b", "a"], embeddings, metric=metric)
    assert store.score_kind == score_kind
    pairs = store.similarity_search_with_score("q", k=2)
    assert [d.page_content for d, _ in pairs] == ["a", "b"]
    assert [score for _, score in pairs] == pytest.approx(expected, abs=1e-6)


def test_dimension_is_fixed_by_the_first_vectors_and_kept_when_emptied() -> None:
    store = InMemoryVectorStore(ExplicitEmbeddings({"a": [1.0, 0.0], "c": [1.0, 0.0, 0.0]}))
    assert store.dimension is None
    store.add_texts(["a"], ids=["a"])
    assert store.dimension == 2
    store.delete(["a"])
    assert (store.count(), store.dimension) == (0, 2)
    with pytest.raises(
        DimensionError, match="dimension 3 but this store holds vectors of dimension 2"
    ):
        store.add_texts(["c"])


def test_results_match_brute_force_after_many_deletes_and_upserts() -> None:
    """Deleting moves the last row into the hole: check that ids, texts, metadata and
    vectors stay together through many deletes and upserts, against a numpy reference."""
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(400, 12)).astype(np.float32)
    table = {f"t{i}": row.tolist() for i, row in enumerate(vectors)}
    queries = rng.normal(size=(10, 12)).astype(np.float32)
    table.update({f"q{i}": row.tolist() for i, row in enumerate(queries)})
    store = InMemoryVectorStore(ExplicitEmbeddings(table), metric="l2")
    expected: dict[str, tuple[str, dict[str, int]]] = {}  # id -> (text, metadata)
    for start in range(0, 300, 60):  # add in batches, so the matrix grows several times
        ids = [f"id{i}" for i in range(start, start + 60)]
        texts = [f"t{i}" for i in range(start, start + 60)]
        metadatas = [{"bucket": i % 5} for i in range(start, start + 60)]
        store.add_texts(texts, metadatas, ids=ids)
        expected.update(zip(ids, zip(texts, metadatas, strict=True), strict=True))
    deleted = [f"id{i}" for i in rng.choice(300, size=120, replace=False)]
    store.delete(deleted)
    for doc_id in deleted:
        del expected[doc_id]
    # upsert: 40 survivors get other texts (so other vectors), plus 50 new documents
    survivors = sorted(expected)[:40]
    new_ids = [f"id{i}" for i in range(300, 350)]
    upserts = survivors + new_ids
    texts = [f"t{300 + i}" for i in range(len(upserts))]
    metadatas = [{"bucket": 9} for _ in upserts]
    store.add_texts(texts, metadatas, ids=upserts)
    expected.update(zip(upserts, zip(texts, metadatas, strict=True), strict=True))
    assert store.count() == len(expected) == 230

    ids = sorted(expected)
    matrix = np.array([table[expected[doc_id][0]] for doc_id in ids], dtype=np.float64)
    for name, flt in [("q0", None), ("q1", {"bucket": 9}), ("q2", {"bucket": {"$in": [1, 2]}})]:
        query = np.array(table[name])
        keep = [
            i for i, doc_id in enumerate(ids) if matches(parse_filter(flt), expected[doc_id][1])
        ]
        distances = np.linalg.norm(matrix[keep] - query, axis=1)
        order = np.argsort(distances)[:7]
        found = store.similarity_search_with_score(name, k=7, filter=flt)
        assert [d.id for d, _ in found] == [ids[keep[i]] for i in order]
        assert [s for _, s in found] == pytest.approx(distances[order].tolist(), rel=1e-4)
        assert all((d.page_content, d.metadata) == expected[d.id] for d, _ in found)


def test_concurrent_writers_lose_nothing() -> None:
    embeddings = HashingEmbeddings(dimension=16)
    store = InMemoryVectorStore(embeddings)

    def add(worker: int) -> None:
        for batch in range(20):
            texts = [f"w{worker} b{batch} n{n}" for n in range(5)]
            store.add_texts(texts, ids=texts)

    threads = [threading.Thread(target=add, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.count() == 4 * 20 * 5
    assert store.get_by_ids(["w3 b19 n4"])[0].page_content == "w3 b19 n4"


def test_first_writers_racing_with_two_dimensions_leave_a_consistent_store() -> None:
    """Two first adds of different dimensions both pass the (empty store) dimension check;
    the one that stores second gets a DimensionError and writes nothing (it used to fail
    in numpy after appending its ids, leaving documents without vectors)."""
    both_checked = threading.Barrier(2)

    class Racing(InMemoryVectorStore):
        def _upsert(self, *primitive_args: Any) -> None:
            both_checked.wait(timeout=60)  # both calls are past the check, none has stored
            super()._upsert(*primitive_args)

    store = Racing(ExplicitEmbeddings())
    errors: list[Exception] = []

    def add(text: str) -> None:
        try:
            store.add_texts([text], ids=[text])
        except Exception as err:
            errors.append(err)

    threads = [threading.Thread(target=add, args=(text,)) for text in ("d0", "wrongdim")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1 and isinstance(errors[0], DimensionError)
    [stored] = [doc.id for doc in store.get_by_ids(["d0", "wrongdim"])]
    assert store.count() == 1
    assert [doc.id for doc in store.similarity_search(stored, k=5)] == [stored]


def test_with_hashing_embeddings_end_to_end() -> None:
    store = InMemoryVectorStore.from_texts(
        ["the cat sat on the mat", "stock prices fell sharply", "a dog chased the cat"],
        HashingEmbeddings(dimension=256),
        metadatas=[{"topic": "pets"}, {"topic": "finance"}, {"topic": "pets"}],
    )
    assert store.similarity_search("stock prices", k=1)[0].metadata == {"topic": "finance"}
    found = store.similarity_search("the cat", k=2, filter={"topic": "pets"})
    assert {d.page_content for d in found} == {"the cat sat on the mat", "a dog chased the cat"}
    assert repr(store) == "InMemoryVectorStore(metric='cosine', count=3)"


@pytest.mark.parametrize("metric", ["cosine", "inner_product", "l2"])
def test_dump_and_load_round_trip(tmp_path: Path, metric: str) -> None:
    embeddings = ExplicitEmbeddings()
    store = InMemoryVectorStore.from_texts(
        TEXTS, embeddings, metadatas=METADATAS, ids=IDS, metric=metric
    )
    store.delete(["id4"])  # a hole, filled by the last row
    path = tmp_path / "store.json"
    store.dump(path)
    loaded = InMemoryVectorStore.load(path, embeddings)
    assert (loaded.metric, loaded.dimension, loaded.count()) == (metric, 3, 7)
    before = store.similarity_search_with_score("q25", k=7, filter={"n": {"$ne": 1}})
    after = loaded.similarity_search_with_score("q25", k=7, filter={"n": {"$ne": 1}})
    assert [(d.id, d.page_content, d.metadata) for d, _ in after] == [
        (d.id, d.page_content, d.metadata) for d, _ in before
    ]
    assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-7)
    assert [p.name for p in tmp_path.iterdir()] == ["store.json"]  # no temporary left


def test_dump_of_an_empty_store_keeps_its_dimension(tmp_path: Path) -> None:
    # ragline's format (a metric other than cosine) keeps the dimension of an emptied store
    store = InMemoryVectorStore(ExplicitEmbeddings(), metric="l2")
    store.dump(tmp_path / "empty.json")
    assert InMemoryVectorStore.load(tmp_path / "empty.json", ExplicitEmbeddings()).count() == 0
    store.add_texts(["d0"], ids=["x"])
    store.delete(["x"])
    store.dump(tmp_path / "emptied.json")
    loaded = InMemoryVectorStore.load(tmp_path / "emptied.json", ExplicitEmbeddings())
    assert (loaded.metric, loaded.dimension) == ("l2", 3)
    # a cosine store is saved in LangChain's layout: {} when empty, no dimension kept
    cosine = InMemoryVectorStore(ExplicitEmbeddings())
    cosine.add_texts(["d0"], ids=["x"])
    cosine.delete(["x"])
    cosine.dump(tmp_path / "cosine.json")
    assert (tmp_path / "cosine.json").read_text(encoding="utf-8") == "{}"
    loaded = InMemoryVectorStore.load(tmp_path / "cosine.json", ExplicitEmbeddings())
    assert (loaded.metric, loaded.dimension, loaded.count()) == ("cosine", None, 0)


def test_dump_refuses_metadata_json_cannot_hold_and_keeps_the_old_file(tmp_path: Path) -> None:
    embeddings = ExplicitEmbeddings()
    store = InMemoryVectorStore.from_texts(["d0"], embeddings, ids=["good"])
    path = tmp_path / "store.json"
    store.dump(path)
    saved = path.read_bytes()
    with pytest.raises(InvalidInputError, match=r"metadatas\[0\]\['when'\] = <object"):
        store.add_texts(["d1"], [{"when": object()}], ids=["bad"])  # refused when added
    store.add_texts(["d1"], [{}], ids=["bad"])
    store._metadatas[-1]["when"] = object()  # the dump still guards against what slips in
    with pytest.raises(InvalidInputError, match="the metadata of document 'bad' is not JSON"):
        store.dump(path)
    assert path.read_bytes() == saved


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "no saved store at"),
        ('{"format": "ragline.InMemoryVectorStore", "version": 1, "metr', "truncated or corrupt"),
        ('{"format": "something else"}', "is not a saved ragline.InMemoryVectorStore"),
        ('{"format": "ragline.InMemoryVectorStore", "version": 2}', "format version 2"),
        (
            '{"format": "ragline.InMemoryVectorStore", "version": 1, "metric": "cosine", '
            '"dimension": 2, "ids": ["a"], "texts": ["t"], "metadatas": [{}], "vectors": [[1]]}',
            "corrupt saved store",
        ),
        (
            '{"format": "ragline.InMemoryVectorStore", "version": 1, "metric": "cosine", '
            '"dimension": 1, "ids": ["a", "a"], "texts": ["t", "u"], "metadatas": [{}, {}], '
            '"vectors": [[1], [2]]}',
            "ids must be unique",
        ),
    ],
)
def test_load_errors_name_the_file(tmp_path: Path, content: str | None, fragment: str) -> None:
    path = tmp_path / "store.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(PersistenceError) as info:
        InMemoryVectorStore.load(path, ExplicitEmbeddings())
    assert fragment in str(info.value) and str(path) in str(info.value)


def test_a_lone_surrogate_is_refused_when_added_and_a_dump_leaves_no_temp_file(
    tmp_path: Path,
) -> None:
    """A lone surrogate is refused by add_texts; if one slips into the store anyway, dump
    raises InvalidInputError before creating any file (no temporary file is left)."""
    store = InMemoryVectorStore.from_texts(["d0"], ExplicitEmbeddings(), ids=["a"])
    with pytest.raises(InvalidInputError, match="lone surrogate"):
        store.add_texts(["d1"], [{"who": "\udc80"}], ids=["b"])
    store._texts[0] = "bad \ud800"
    with pytest.raises(InvalidInputError, match="cannot save"):
        store.dump(tmp_path / "store.json")
    assert list(tmp_path.iterdir()) == []


class _AbsoluteFake(DeterministicFakeEmbedding):
    """The fake's draws without their signs, by its array methods only."""

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        return np.abs(super().embed_documents_array(texts))

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents_array(texts)


def test_a_subclass_overriding_the_array_methods_is_embedded_through_them() -> None:
    """The cosine store takes an embedding's lists (float64, as LangChain's) only where its
    array methods merely round them: a subclass's own array methods are used."""
    embeddings = _AbsoluteFake(size=6)
    store = InMemoryVectorStore.from_texts(["foo", "bar"], embeddings, ids=["a", "b"])
    stored = np.array([store.store[i]["vector"] for i in ("a", "b")])
    assert np.array_equal(stored, embeddings.embed_documents_array(["foo", "bar"]))
    query = embeddings.embed_queries_array(["foo"])[0].astype(np.float64)
    cosines = stored @ query / (np.linalg.norm(stored, axis=1) * np.linalg.norm(query))
    found = store.similarity_search_with_score("foo", k=2)
    assert [d.id for d, _ in found] == ["a", "b"]
    assert [s for _, s in found] == pytest.approx(list(cosines), abs=1e-12)

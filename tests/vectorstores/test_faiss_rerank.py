"""Compressed FAISS indexes with exact re-ranking (``rerank=``): codes in RAM, vectors on disk.

The data: a seeded Gaussian mixture of unit vectors (clusters, like real embeddings),
20,000 of dimension 32. Exact answers come from a Flat store on the same vectors.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.core import ConfigurationError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS
from ragline.vectorstores.faiss import _vectors

COUNT, DIMENSION, CLUSTERS = 20_000, 32, 40


def mixture(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(0).normal(size=(CLUSTERS, DIMENSION))
    rows = centers[rng.integers(0, CLUSTERS, count)] + 0.6 * rng.normal(size=(count, DIMENSION))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


VECTORS = mixture(COUNT, 1)
QUERIES = mixture(20, 2)
IDS = [f"d{i}" for i in range(COUNT)]
# "one": 2 documents match (0.01%); "pct": 1%; "half": 50%
METADATAS = [{"one": i % 10_000 == 7, "pct": i % 100, "half": i % 2} for i in range(COUNT)]


class QueryRows(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("documents are added by vector")

    def embed_query(self, text: str) -> list[float]:
        return QUERIES[int(text)].tolist()


def build(**options: Any) -> FAISS:
    store = FAISS(QueryRows(), metric="cosine", **options)
    for start in range(0, COUNT, 5_000):  # several adds: training waits for data
        rows = slice(start, start + 5_000)
        store.add_embeddings(
            zip([f"t{i}" for i in range(start, start + 5_000)], VECTORS[rows], strict=True),
            METADATAS[rows],
            ids=IDS[rows],
        )
    return store


def exact_ids(query: int, k: int, allowed: np.ndarray | None = None) -> list[str]:
    labels = np.arange(COUNT) if allowed is None else allowed
    scores = VECTORS[labels] @ QUERIES[query]
    return [IDS[i] for i in labels[np.argsort(-scores, kind="stable")[:k]]]


def recall(store: FAISS, filter: dict[str, Any] | None, allowed: np.ndarray | None) -> float:
    found = 0
    for query in range(len(QUERIES)):
        hits = store.similarity_search(str(query), k=10, filter=filter)
        assert len(hits) == 10  # filtered searches fill k
        found += len({doc.id for doc in hits} & set(exact_ids(query, 10, allowed)))
    return found / (10 * len(QUERIES))


@pytest.fixture(scope="module")
def sq8() -> FAISS:
    return build(index_factory="IVF64,SQ8", nprobe=8, rerank=4)


def test_reranked_scores_are_exact_and_recall_is_high(sq8: FAISS) -> None:
    assert sq8._index is not None and sq8._index.reranks
    for query in range(5):
        for doc, score in sq8.similarity_search_with_score(str(query), k=10):
            exact = float(VECTORS[int(doc.id[1:])] @ QUERIES[query])  # type: ignore[index]
            assert score == pytest.approx(exact, abs=1e-5)
    assert recall(sq8, None, None) >= 0.95


def test_without_rerank_scores_are_the_codes_approximations() -> None:
    """The same index without rerank: SQ8 scores differ from the exact ones (so the
    test above checks the re-ranking, not the index)."""
    store = build(index_factory="IVF64,SQ8", nprobe=8)
    doc, score = store.similarity_search_with_score("0", k=1)[0]
    assert score != pytest.approx(float(VECTORS[int(doc.id[1:])] @ QUERIES[0]), abs=1e-5)  # type: ignore[index]


@pytest.mark.parametrize(
    ("filter", "matching"),
    [
        ({"one": True}, np.arange(7, COUNT, 10_000)),
        ({"pct": 3}, np.arange(3, COUNT, 100)),
        ({"half": 1}, np.arange(1, COUNT, 2)),
    ],
    ids=["0.01%", "1%", "50%"],
)
def test_filtered_searches_fill_k_with_high_recall(
    sq8: FAISS, filter: dict[str, Any], matching: np.ndarray
) -> None:
    if len(matching) < 10:
        for query in range(len(QUERIES)):
            hits = sq8.similarity_search(str(query), k=10, filter=filter)
            assert [doc.id for doc in hits] == exact_ids(query, 10, matching)
        return
    assert recall(sq8, filter, matching) >= 0.95


def test_hnsw_sq8_reranks_too() -> None:
    hnsw = build(index_factory="HNSW16,SQ8", ef_search=32, rerank=4)
    assert recall(hnsw, None, None) >= 0.95


@pytest.mark.slow  # PQ training: eight k-means runs
def test_ivf_pq_reranks_too() -> None:
    pq = build(index_factory="IVF64,PQ8", nprobe=8, rerank=10, train_size=5_000)
    assert recall(pq, None, None) >= 0.95


def test_saved_vectors_are_memory_mapped_and_survive_more_adds(
    sq8: FAISS, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sq8.save_local(tmp_path / "a", documents="sqlite")
    manifest = json.loads((tmp_path / "a" / "index.manifest.json").read_text())
    assert manifest["format_version"] == 4 and manifest["options"]["rerank"] == 4
    assert [entry["rows"] for entry in manifest["vectors"]] == [COUNT]
    loaded = FAISS.load_local(tmp_path / "a", QueryRows())
    assert loaded._index is not None and loaded._index.full is not None
    segment = loaded._index.full.segments[0]  # a view of the file's map, not a copy
    assert isinstance(segment.mapped, mmap.mmap) and not segment.array.flags.owndata
    for query in range(5):
        assert loaded.similarity_search_with_score(str(query), k=10) == (
            sq8.similarity_search_with_score(str(query), k=10)
        )
    monkeypatch.setattr(_vectors, "SPILL_BYTES", 1)  # every add becomes a segment
    extra = mixture(30, 3)
    loaded.add_embeddings([("late", extra[0])], ids=["late"])
    loaded.add_embeddings([("later", extra[1])], ids=["later"])
    loaded.save_local(tmp_path / "b")
    manifest = json.loads((tmp_path / "b" / "index.manifest.json").read_text())
    assert [(e["start"], e["rows"]) for e in manifest["vectors"]] == [
        (0, COUNT), (COUNT, 1), (COUNT + 1, 1),
    ]  # fmt: skip
    again = FAISS.load_local(tmp_path / "b", QueryRows())
    assert again._index is not None
    assert np.allclose(
        again._index.vectors(np.array([COUNT + 1, 5])), [extra[1], VECTORS[5]], atol=1e-6
    )


def test_rerank_on_an_exact_index_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="rerank applies to compressed indexes"):
        FAISS(QueryRows(), metric="cosine", rerank=4, dimension=DIMENSION)
    with pytest.raises(ConfigurationError, match="rerank"):
        FAISS(QueryRows(), metric="cosine", index_factory="IVF8,SQ8", rerank=0)

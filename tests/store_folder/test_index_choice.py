"""The store folder's faiss index kind: ``--index auto|flat|hnsw|ivf-pq|ivf-sq8``.

``auto`` keeps an exact flat index up to FLAT_LIMIT chunks and rebuilds it once, with
its progress noted, as IVF-SQ8 with exact re-ranking when the store grows past it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragline.core import ConfigurationError
from ragline.store_folder import StoreFolder, index_paths, open_store
from ragline.vectorstores.faiss import _choice
from ragline.vectorstores.faiss._choice import choose_index, index_kind_of


def test_the_index_for_each_kind_and_size() -> None:
    assert choose_index("auto", 100_000, 384).factory == "Flat"
    plan = choose_index("auto", 1_000_000, 384)
    assert (plan.factory, plan.nprobe, plan.rerank, plan.train_size) == (
        "IVF1024,SQ8", 8, 4, 40_960,
    )  # fmt: skip
    plan = choose_index("ivf-pq", 10_000_000, 384)
    assert (plan.factory, plan.nprobe, plan.rerank, plan.train_size) == (
        "IVF4096,PQ48", 16, 10, 163_840,
    )  # fmt: skip
    assert choose_index("ivf-pq", 1_000, 100).factory == "IVF64,PQ10"  # PQ: a divisor
    assert choose_index("ivf-pq", 1_000, 100).train_size == 9_984  # codebooks need it
    assert choose_index("hnsw", 10, 8).options() == {
        "index_factory": "HNSW32,SQ8", "nprobe": None, "ef_search": 64, "rerank": 4,
        "train_size": None,
    }  # fmt: skip
    assert [index_kind_of(f) for f in ("Flat", "HNSW32,SQ8", "IVF64,SQ8", "IVF8,PQ4")] == [
        "flat", "hnsw", "ivf-sq8", "ivf-pq",
    ]  # fmt: skip
    with pytest.raises(ConfigurationError, match="index 'ivf' is not one of auto, flat"):
        choose_index("ivf", 10, 8)


def corpus(tmp_path: Path, files: int) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    for number in range(files):
        (folder / f"f{number}.txt").write_text(f"document {number} about topic {number % 3}")
    return folder


def test_auto_rebuilds_a_store_that_outgrows_its_flat_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_choice, "FLAT_LIMIT", 6)
    notes: list[str] = []
    store_path = tmp_path / "store"
    index_paths([corpus(tmp_path, 5)], store_path, embedding="hashing", note=notes.append)
    assert open_store(store_path).index_factory == "Flat"
    before = open_store(store_path).similarity_search("topic 1", k=3)
    index_paths([corpus(tmp_path, 8)], store_path, note=notes.append)
    store = open_store(store_path)
    assert store.index_factory == "IVF64,SQ8" and store.count() == 8
    assert StoreFolder(store_path).read_manifest().extras["index"] == "auto"
    rebuild = [line for line in notes if "index" in line or "vectors (" in line]
    assert rebuild == [
        "rebuilding the index as IVF64,SQ8 (ivf-sq8, 8 vectors)",
        "  8 / 8 vectors (100%)",
    ]
    # exact still (too few vectors to train): the exact cosine order
    documents = store.get_by_ids([doc.id for doc in store.similarity_search("x", k=8)])
    vectors = np.array(store.embeddings.embed_documents([d.page_content for d in documents]))
    query = np.array(store.embeddings.embed_query("topic 1"))
    cosine = vectors @ query / np.linalg.norm(vectors, axis=1) / np.linalg.norm(query)
    expected = [documents[i].id for i in np.argsort(-cosine, kind="stable")[:3]]
    assert [doc.id for doc in store.similarity_search("topic 1", k=3)] == expected
    assert len(before) == 3
    monkeypatch.setattr(_choice, "FLAT_LIMIT", 100)  # never back to flat
    index_paths([corpus(tmp_path, 9)], store_path)
    assert open_store(store_path).index_factory == "IVF64,SQ8"


def test_an_explicit_kind_is_kept_by_later_runs(tmp_path: Path) -> None:
    store_path = tmp_path / "store"
    index_paths([corpus(tmp_path, 3)], store_path, embedding="hashing", index="hnsw")
    assert open_store(store_path).index_factory == "HNSW32,SQ8"
    index_paths([corpus(tmp_path, 4)], store_path)
    store = open_store(store_path)
    assert store.index_factory == "HNSW32,SQ8" and store.count() == 4
    with pytest.raises(ConfigurationError, match="index 'fast' is not one of"):
        index_paths([corpus(tmp_path, 4)], store_path, index="fast")

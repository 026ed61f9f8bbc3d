"""A Flat FAISS store that is searched moves its vectors to an aligned buffer of its own
(ragline/vectorstores/faiss/_placement.py): same answers, same saved bytes, and faiss owns
them again before anything changes them.

Data: 1,200 fixed-seed unit vectors in 64-D (300 KiB of vectors, above the placement
threshold), exact answers computed by numpy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS
from ragline.vectorstores.faiss import _placement

faiss = pytest.importorskip("faiss")
pytestmark = pytest.mark.skipif(
    not _placement.can_place(faiss), reason="this faiss has no MaybeOwnedVector views"
)

DIM, COUNT = 64, 1200


class RowEmbeddings(Embeddings):
    """``"t<i>"`` is row i of the documents, ``"q<j>"`` row j of the queries."""

    def __init__(self, documents: np.ndarray, queries: np.ndarray) -> None:
        self.documents, self.queries = documents, queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.documents[int(text[1:])].tolist() for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.queries[int(text[1:])].tolist()


def unit_rows(rng: np.random.Generator, count: int) -> np.ndarray:
    rows = rng.standard_normal((count, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261129)
    return unit_rows(rng, COUNT), unit_rows(rng, 80)


def build(data: tuple[np.ndarray, np.ndarray], count: int = COUNT) -> FAISS:
    documents, queries = data
    pairs = [(f"t{i}", documents[i].tolist()) for i in range(count)]
    ids = [f"doc-{i}" for i in range(count)]
    return FAISS.from_embeddings(pairs, RowEmbeddings(documents, queries), ids=ids)


def placed(store: FAISS) -> bool:
    return _placement.is_placed(store._index.index)


def address(store: FAISS) -> int:
    flat = faiss.downcast_index(store._index.index.index)
    return int(faiss.rev_swig_ptr(flat.get_xb(), 1).ctypes.data)


def search_all(store: FAISS, queries: int = 80) -> list[list[tuple[str, float]]]:
    return [
        [(doc.id, score) for doc, score in store.similarity_search_with_score(f"q{j}", k=5)]
        for j in range(queries)
    ]


def expected(data: tuple[np.ndarray, np.ndarray], live: list[int]) -> list[list[str]]:
    """numpy's 5 nearest (squared L2, the store's default metric) among ``live`` rows."""
    documents, queries = data
    rows = documents[live]
    distances = ((queries[:, None, :] - rows[None, :, :]) ** 2).sum(axis=2)
    order = np.argsort(distances, axis=1, kind="stable")[:, :5]
    return [[f"doc-{live[i]}" for i in row] for row in order]


def test_a_searched_flat_store_scans_an_aligned_buffer_with_the_same_answers(data) -> None:
    store = build(data)
    before = search_all(store, _placement.PLACE_AFTER - 1)
    assert not placed(store)
    assert faiss.downcast_index(store._index.index.index).codes.is_owned

    rest = search_all(store)[_placement.PLACE_AFTER - 1 :]  # the search that places

    flat = faiss.downcast_index(store._index.index.index)
    assert placed(store)
    assert not flat.codes.is_owned  # a view on ragline's buffer
    assert address(store) % 64 == 0  # every AVX-512 load within one cache line
    assert flat.ntotal == COUNT and flat.codes.size() == COUNT * DIM * 4
    answers = before + rest
    assert [[doc_id for doc_id, _ in row] for row in answers] == expected(data, list(range(COUNT)))
    assert search_all(store) == answers  # scores too, bit for bit


def test_adds_and_deletes_after_placement_give_faiss_its_vectors_back(data) -> None:
    store, never_placed = build(data, 1100), build(data, 1100)
    search_all(store)
    assert placed(store)

    store.add_texts(
        [f"t{i}" for i in range(1100, COUNT)], ids=[f"doc-{i}" for i in range(1100, COUNT)]
    )
    assert not placed(store)
    assert faiss.downcast_index(store._index.index.index).codes.is_owned
    store.delete(["doc-7", "doc-1150"])
    never_placed.add_texts(
        [f"t{i}" for i in range(1100, COUNT)], ids=[f"doc-{i}" for i in range(1100, COUNT)]
    )
    never_placed.delete(["doc-7", "doc-1150"])

    live = [i for i in range(COUNT) if i not in (7, 1150)]
    answers = search_all(store)  # placed again on the way
    assert placed(store)
    assert [[doc_id for doc_id, _ in row] for row in answers] == expected(data, live)
    assert answers == [
        [(doc.id, score) for doc, score in never_placed.similarity_search_with_score(f"q{j}", k=5)]
        for j in range(80)
    ]
    assert store._index.index.ntotal == COUNT - 2


def test_a_placed_store_saves_the_same_bytes_and_loads_back(data, tmp_path: Path) -> None:
    store, never_placed = build(data), build(data)
    answers = search_all(store)
    assert placed(store)

    store.save_local(tmp_path / "placed")
    never_placed.save_local(tmp_path / "owned")

    [placed_file] = (tmp_path / "placed").glob("*.faiss")
    [owned_file] = (tmp_path / "owned").glob("*.faiss")
    assert placed_file.read_bytes() == owned_file.read_bytes()
    loaded = FAISS.load_local(tmp_path / "placed", store.embeddings)
    assert search_all(loaded) == answers
    assert placed(loaded)


def test_the_live_index_of_a_placed_store_reads_as_before(data, tmp_path: Path) -> None:
    store, never_placed = build(data), build(data)
    search_all(store)
    assert placed(store)

    index, owned = store.index, never_placed.index  # LangChain code reads these

    assert placed(store)  # handing it out copies nothing
    assert index.ntotal == COUNT and index.d == DIM
    assert np.array_equal(index.reconstruct(17), owned.reconstruct(17))
    query = np.ascontiguousarray(data[1][:3])
    assert all(map(np.array_equal, index.search(query, 5), owned.search(query, 5)))
    faiss.write_index(index, str(tmp_path / "placed.faiss"))
    faiss.write_index(owned, str(tmp_path / "owned.faiss"))
    assert (tmp_path / "placed.faiss").read_bytes() == (tmp_path / "owned.faiss").read_bytes()


def test_a_small_store_keeps_the_vectors_where_faiss_put_them(data) -> None:
    store = build(data, 100)  # 25 KiB of vectors: below the placement threshold

    search_all(store)

    assert not placed(store)
    assert faiss.downcast_index(store._index.index.index).codes.is_owned

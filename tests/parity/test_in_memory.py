"""Parity: ragline's InMemoryVectorStore against langchain_core's, scores to 1e-6.

Unit-length vectors from a fixed table (hand-checkable cosines), the same documents in
both stores; the test compares ``store.store``, the documents, the scores and a
callable ``filter`` (called with each Document, as LangChain calls it).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.core import FilterError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS, InMemoryVectorStore

COVERS = {"vectorstores.InMemoryVectorStore"}

TABLE = {
    "north": [0.0, 1.0, 0.0],
    "east": [1.0, 0.0, 0.0],
    "north-east": [0.6, 0.8, 0.0],
    "south": [0.0, -1.0, 0.0],
    "west-ish": [-0.8, 0.6, 0.0],
    "q": [0.0, 1.0, 0.0],
}
TEXTS = ["north", "east", "north-east", "south", "west-ish"]
IDS = [f"id-{text}" for text in TEXTS]
METADATAS = [{"group": "a" if i % 2 == 0 else "b", "n": i} for i in range(len(TEXTS))]


class Table(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(TABLE[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(TABLE[text])


class LCTable(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(TABLE[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(TABLE[text])


def _pair() -> tuple[Any, InMemoryVectorStore]:
    theirs = LCInMemoryVectorStore(embedding=LCTable())
    theirs.add_texts(TEXTS, METADATAS, ids=IDS)
    ours = InMemoryVectorStore(Table())
    ours.add_texts(TEXTS, METADATAS, ids=IDS)
    return theirs, ours


def _seen(pairs: list[tuple[Any, float]]) -> list[tuple[Any, ...]]:
    return [(d.id, d.page_content, d.metadata) for d, _ in pairs]


def test_store_attribute_reads_as_langchains() -> None:
    theirs, ours = _pair()
    assert list(ours.store) == list(theirs.store) == IDS
    for doc_id in IDS:
        mine, lc = ours.store[doc_id], theirs.store[doc_id]
        assert sorted(mine) == sorted(lc) == ["id", "metadata", "text", "vector"]
        assert (mine["id"], mine["text"], mine["metadata"]) == (
            lc["id"],
            lc["text"],
            lc["metadata"],
        )
        assert mine["vector"] == [float(x) for x in lc["vector"]]
    ours.store["id-east"]["text"] = "changed"  # a copy: the store is not changed
    assert ours.get_by_ids(["id-east"])[0].page_content == "east"


RAW = {  # not unit length: LangChain keeps each vector as the embedding gave it
    "a": [3.0, 4.0, 0.1],
    "b": [0.1, 0.2, 0.30000000000000004],
    "c": [-2.5, 0.0, 1e-9],
    "q": [1.0, 1.0, 1.0],
}


class Raw(Embeddings):
    """Each text's RAW vector as given (lists of floats, not unit length)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(RAW[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(RAW[text])


class LCRaw(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(RAW[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(RAW[text])


def test_store_vectors_are_the_embeddings_as_given(tmp_path: Any) -> None:
    theirs = LCInMemoryVectorStore(embedding=LCRaw())
    theirs.add_texts(["a", "b", "c"], ids=["1", "2", "3"])
    ours = InMemoryVectorStore(Raw())
    ours.add_texts(["a", "b", "c"], ids=["1", "2", "3"])
    expected = {i: [float(x) for x in theirs.store[i]["vector"]] for i in ["1", "2", "3"]}
    assert expected == {"1": RAW["a"], "2": RAW["b"], "3": RAW["c"]}
    assert {i: ours.store[i]["vector"] for i in ["1", "2", "3"]} == expected
    ours.dump(str(tmp_path / "ours.json"))
    theirs.dump(str(tmp_path / "theirs.json"))
    ours = InMemoryVectorStore.load(str(tmp_path / "ours.json"), Raw())
    theirs = LCInMemoryVectorStore.load(str(tmp_path / "theirs.json"), LCRaw())
    assert {i: ours.store[i]["vector"] for i in ["1", "2", "3"]} == expected
    assert [(d.id, s) for d, s in ours.similarity_search_with_score("q", k=3)] == [
        (d.id, s) for d, s in theirs.similarity_search_with_score("q", k=3)
    ]


async def test_async_adds_and_queries_keep_the_embeddings_numbers_as_langchains() -> None:
    """Async adds and searches keep the float64 vectors as given, as sync ones and as
    LangChain's (they stored float32-rounded ones: 0.10000000149011612 for 0.1)."""

    theirs = LCInMemoryVectorStore(embedding=LCRaw())
    await theirs.aadd_texts(["a", "b", "c"], ids=["1", "2", "3"])
    ours = InMemoryVectorStore(Raw())
    await ours.aadd_texts(["a", "b", "c"], ids=["1", "2", "3"])
    assert {i: ours.store[i]["vector"] for i in ["1", "2", "3"]} == {
        i: [float(x) for x in theirs.store[i]["vector"]] for i in ["1", "2", "3"]
    }
    found = await ours.asimilarity_search_with_score("q", k=3)
    lc_found = await theirs.asimilarity_search_with_score("q", k=3)
    assert [(d.id, s) for d, s in found] == [(d.id, s) for d, s in lc_found]


def test_dump_makes_missing_folders_as_langchains(tmp_path: Any) -> None:
    theirs, ours = _pair()
    theirs.dump(str(tmp_path / "lc" / "saved" / "store.json"))
    ours.dump(tmp_path / "rl" / "saved" / "store.json")
    loaded = InMemoryVectorStore.load(tmp_path / "rl" / "saved" / "store.json", Table())
    assert loaded.store == ours.store
    assert sorted(p.name for p in (tmp_path / "rl" / "saved").iterdir()) == ["store.json"]


def test_scores_equal_langchains() -> None:
    theirs, ours = _pair()
    lc_found = theirs.similarity_search_with_score("q", k=5)
    found = ours.similarity_search_with_score("q", k=5)
    assert _seen(found) == _seen(lc_found)
    assert [s for _, s in found] == pytest.approx([s for _, s in lc_found], abs=1e-6)
    assert [round(s, 6) for _, s in found] == [1.0, 0.8, 0.6, 0.0, -1.0]  # cosines by hand


@pytest.mark.parametrize("k", [1, 2, 5])
async def test_callable_filter_gets_the_document_in_both(k: int) -> None:
    theirs, ours = _pair()
    calls: list[Any] = []

    def in_group_a(document: Any) -> bool:
        calls.append(type(document).__name__)
        return document.metadata["group"] == "a" and document.id != "id-north"

    lc_found = theirs.similarity_search_with_score("q", k=k, filter=in_group_a)
    found = ours.similarity_search_with_score("q", k=k, filter=in_group_a)
    assert _seen(found) == _seen(lc_found)
    assert [s for _, s in found] == pytest.approx([s for _, s in lc_found], abs=1e-6)
    assert set(calls) == {"Document"}
    assert [d.id for d in await ours.asimilarity_search("q", k=k, filter=in_group_a)] == [
        d.id for d in theirs.similarity_search("q", k=k, filter=in_group_a)
    ]
    by_retriever = ours.as_retriever(search_kwargs={"k": k, "filter": in_group_a}).invoke("q")
    assert [d.id for d in by_retriever] == [d.id for d, _ in lc_found]


def test_faiss_callable_filter_gets_the_metadata() -> None:
    store = FAISS.from_texts(TEXTS, Table(), METADATAS, ids=IDS)
    seen: list[Any] = []

    def even(metadata: dict[str, Any]) -> bool:
        seen.append(metadata)
        return metadata["n"] % 2 == 0

    assert [d.page_content for d in store.similarity_search("q", k=2, filter=even)] == [
        "north",
        "north-east",
    ]
    assert all(isinstance(m, dict) and "group" in m for m in seen)


def test_a_store_that_cannot_call_python_refuses_a_callable_filter() -> None:
    from ragline.vectorstores import VectorStore

    class Minimal(InMemoryVectorStore):
        _callable_filters = False

    assert issubclass(Minimal, VectorStore)
    store = Minimal(Table())
    store.add_texts(TEXTS, METADATAS, ids=IDS)
    with pytest.raises(FilterError, match="cannot filter with a function: give a filter dict"):
        store.similarity_search("q", filter=lambda document: True)


def _tied(text: str) -> list[float]:
    """Three directions only, so most documents tie with others (hand-checkable)."""
    return [1.0, float(len(text) % 3), 0.5]


class Tied(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [_tied(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return _tied(text)


class LCTied(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [_tied(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return _tied(text)


@pytest.mark.parametrize("size", [2, 5, 17, 100, 1000])
def test_equal_scores_come_out_in_langchains_order(size: int) -> None:
    # "aa" and "bb" are identical vectors added in that order; so are most of the rest
    texts = ["aa", "bb", *(f"t{i}" for i in range(size - 2))]
    theirs = LCInMemoryVectorStore.from_texts(texts, LCTied())
    ours = InMemoryVectorStore.from_texts(texts, Tied())
    for k in (2, 4, 10):
        expected = [(d.page_content, s) for d, s in theirs.similarity_search_with_score("qq", k=k)]
        got = [(d.page_content, s) for d, s in ours.similarity_search_with_score("qq", k=k)]
        assert got == expected
    odd = lambda doc: doc.page_content != "t1"  # noqa: E731
    expected = [d.page_content for d in theirs.similarity_search("qq", k=4, filter=odd)]
    assert [d.page_content for d in ours.similarity_search("qq", k=4, filter=odd)] == expected
    pair = [d.page_content for d in ours.similarity_search("qq", k=2)]
    if size == 2:  # LangChain's sort, reversed: the later of two equal ones first
        assert pair == ["bb", "aa"]

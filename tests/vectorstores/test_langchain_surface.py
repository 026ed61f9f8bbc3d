"""The store surface LangChain users call: per-call retriever options (LangChain's standard
retriever test ``test_invoke_with_k_kwarg``: ``invoke(q, k=1)`` returns 1 document,
``k=3`` returns 3), ``retriever.bind(k=...)``, ``VectorStore.search(query, search_type)``,
on every backend; and a minimal custom store written as LangChain's guide shows (only
``add_texts``, ``similarity_search``, ``from_texts``)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterable
from typing import Any

import pytest

from ragline.core import ConfigurationError, Document, InvalidInputError, PromptTemplate
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import VectorStore

from .contract import IDS, METADATAS, TEXTS, ExplicitEmbeddings, StoreFactory, texts_of

BACKENDS = ["in_memory-cosine", "faiss-cosine", "redis-cosine"]


@pytest.fixture
def store(store_factory: StoreFactory) -> VectorStore:
    return store_factory.from_texts(TEXTS, ExplicitEmbeddings(), metadatas=METADATAS, ids=IDS)


@pytest.mark.parametrize("store_factory", BACKENDS, indirect=True)
def test_invoke_with_k_kwarg(store: VectorStore) -> None:
    """LangChain's standard retriever test: the k keyword sets how many come back."""
    retriever = store.as_retriever()
    result_1 = retriever.invoke("q0", k=1)
    assert len(result_1) == 1
    result_3 = retriever.invoke("q0", k=3)
    assert len(result_3) == 3
    assert all(isinstance(doc, Document) for doc in result_1 + result_3)
    assert texts_of(result_3) == ["d0", "d1", "d2"]
    assert len(retriever.invoke("q0")) == 4  # the retriever's own k is untouched


@pytest.mark.parametrize("store_factory", BACKENDS, indirect=True)
def test_bound_and_async_options_override_search_kwargs(store: VectorStore) -> None:
    retriever = store.as_retriever(search_kwargs={"k": 2, "filter": {"color": "red"}})
    assert texts_of(retriever.bind(k=3).invoke("q0")) == ["d0", "d2", "d5"]
    assert texts_of(retriever.invoke("q0", filter={"color": "blue"})) == ["d1", "d4"]
    assert [texts_of(d) for d in retriever.batch(["q0", "q95"], k=1)] == [["d0"], ["d5"]]
    assert texts_of(asyncio.run(retriever.ainvoke("q0", k=1))) == ["d0"]
    with pytest.raises(InvalidInputError, match="'lambda_mult' not accepted by search_type"):
        retriever.invoke("q0", lambda_mult=0.3)  # checked like search_kwargs, named
    mmr = store.as_retriever(search_type="mmr", search_kwargs={"fetch_k": 8})
    assert len(mmr.invoke("q0", k=2, lambda_mult=1.0)) == 2


@pytest.mark.parametrize("store_factory", BACKENDS, indirect=True)
def test_a_prompt_value_is_read_as_its_string(store: VectorStore) -> None:
    chain = PromptTemplate.from_template("{name}") | store.as_retriever(search_kwargs={"k": 1})
    assert texts_of(chain.invoke({"name": "q95"})) == ["d5"]


@pytest.mark.parametrize("store_factory", BACKENDS, indirect=True)
def test_search_dispatches_by_search_type(store: VectorStore) -> None:
    assert texts_of(store.search("q0", "similarity", k=2)) == ["d0", "d1"]
    assert texts_of(
        store.search("q0", "similarity_score_threshold", k=8, score_threshold=0.95)
    ) == ["d0", "d1", "d2"]  # relevance (1 + cos)/2 >= 0.95: angles up to 25.8 degrees
    assert texts_of(store.search("q0", "mmr", k=2, fetch_k=8, lambda_mult=1.0)) == ["d0", "d1"]
    assert texts_of(asyncio.run(store.asearch("q0", "similarity", k=1))) == ["d0"]
    with pytest.raises(ConfigurationError, match="search_type 'simlarity' is not one of"):
        store.search("q0", "simlarity")
    with pytest.raises(InvalidInputError, match="'lambda_mult' not accepted by search_type"):
        store.search("q0", "similarity", lambda_mult=0.3)


# ---------------------------------------------------------------------- LangChain-style


class TinyStore(VectorStore):
    """A store written as LangChain's custom vector store guide does: three methods."""

    def __init__(self, embedding: Any) -> None:
        self.embedding = embedding
        self.rows: list[tuple[str, str, dict[str, Any], list[float]]] = []

    def add_texts(
        self, texts: Iterable[str], metadatas: list[dict] | None = None, **kwargs: Any
    ) -> list[str]:
        texts = list(texts)
        metadatas = metadatas or [{} for _ in texts]
        ids = kwargs.get("ids") or [str(uuid.uuid4()) for _ in texts]
        for doc_id, text, metadata in zip(ids, texts, metadatas, strict=True):
            self.rows.append((doc_id, text, metadata, self.embedding.embed_query(text)))
        return list(ids)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        vector = self.embedding.embed_query(query)
        wanted = kwargs.get("filter") or {}
        rows = [r for r in self.rows if all(r[2].get(f) == v for f, v in wanted.items())]
        rows.sort(key=lambda row: -sum(a * b for a, b in zip(vector, row[3], strict=True)))
        return [Document(text, metadata=meta, id=i) for i, text, meta, _ in rows[:k]]

    @classmethod
    def from_texts(
        cls, texts: list[str], embedding: Any, metadatas: list[dict] | None = None, **kwargs: Any
    ) -> TinyStore:
        store = cls(embedding)
        store.add_texts(texts, metadatas, **kwargs)
        return store


def tiny() -> TinyStore:
    return TinyStore.from_texts(TEXTS, ExplicitEmbeddings(), METADATAS, ids=IDS)


def test_a_three_method_store_searches_and_derives_the_rest() -> None:
    store = tiny()
    assert texts_of(store.similarity_search("q0", k=2)) == ["d0", "d1"]
    assert texts_of(store.search("q0", "similarity", k=1)) == ["d0"]
    retriever = store.as_retriever(search_kwargs={"k": 2})
    assert texts_of(retriever.invoke("q0")) == ["d0", "d1"]
    assert texts_of(retriever.invoke("q0", k=3, filter={"color": "red"})) == ["d0", "d2", "d5"]
    assert texts_of(asyncio.run(retriever.ainvoke("q95", k=1))) == ["d5"]
    assert store.add_documents([Document("d8", id="new")]) == ["new"]
    assert store.rows[-1][:2] == ("new", "d8")
    built = TinyStore.from_documents(
        [Document("d9", metadata={"a": 1}, id="x")], ExplicitEmbeddings()
    )
    assert [(r[0], r[1], r[2]) for r in built.rows] == [("x", "d9", {"a": 1})]
    assert texts_of(asyncio.run(store.asimilarity_search("q95", k=1))) == ["d5"]
    assert store.embeddings is store.embedding


@pytest.mark.parametrize(
    "call, missing",
    [
        (lambda s: s.delete(["id0"]), "delete"),
        (lambda s: s.get_by_ids(["id0"]), "get_by_ids"),
        (lambda s: s.held_ids(["id0"]), "get_by_ids"),
        (lambda s: asyncio.run(s.aheld_ids(["id0"])), "get_by_ids"),
        (lambda s: s.similarity_search_with_score("q0"), "similarity_search_with_score"),
        (lambda s: s.max_marginal_relevance_search("q0"), "max_marginal_relevance_search"),
        (lambda s: s.search("q0", "mmr"), "max_marginal_relevance_search"),
        (
            lambda s: s.as_retriever(
                search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.5}
            ).invoke("q0"),
            "similarity_search_with_relevance_scores",
        ),
        (lambda s: s.count(), "count"),
    ],
)
def test_what_a_three_method_store_cannot_do_is_refused_by_name(call: Any, missing: str) -> None:
    store = tiny()
    with pytest.raises(NotImplementedError, match=rf"TinyStore\.{missing} is not available"):
        call(store)
    assert len(store.rows) == 8  # nothing changed


class TinyStoreWithLookUps(TinyStore):
    """The three methods and get_by_ids, as LangChain's guide adds it."""

    def get_by_ids(self, ids: Any) -> list[Document]:
        wanted = set(ids)
        return [
            Document(text, metadata=meta, id=i) for i, text, meta, _ in self.rows if i in wanted
        ]


def test_held_ids_of_a_langchain_style_store_come_from_its_get_by_ids() -> None:
    store = TinyStoreWithLookUps.from_texts(TEXTS, ExplicitEmbeddings(), METADATAS, ids=IDS)
    assert store.held_ids(["id2", "nope", "id0"]) == {"id0", "id2"}
    assert asyncio.run(store.aheld_ids(["id7", "id9"])) == {"id7"}


def test_a_store_implementing_the_primitives_is_not_taken_for_a_langchain_style_one() -> None:
    from ragline.vectorstores import InMemoryVectorStore

    assert not InMemoryVectorStore._langchain_style and TinyStore._langchain_style
    store = InMemoryVectorStore.from_texts(["a"], HashingEmbeddings(dimension=8))
    assert store.search("a", "similarity", k=1)[0].page_content == "a"

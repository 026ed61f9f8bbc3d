"""Parity: a program's own VectorStore, written the LangChain way, on both libraries.

The store implements ``add_texts``, ``similarity_search`` and ``from_texts`` only (as a
custom store in LangChain's guide does); the same class body is built on LangChain's
``VectorStore`` and on ragline's. What the base class derives from those three is
compared: ``add_documents`` (ids from the documents or given), ``from_documents``,
``as_retriever`` with ``search_kwargs`` (invoke, batch, ainvoke), the async searches,
``search`` by type, and the error where a method is not derivable.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.vectorstores import VectorStore as LCVectorStore

from ragline.core import Document
from ragline.vectorstores import VectorStore

COVERS = {"vectorstores.VectorStore"}


def _store_class(base: type, document: type) -> Any:
    """A word-overlap store: the score is how many query words a text contains."""

    class WordStore(base):  # type: ignore[misc,valid-type]
        def __init__(self, embedding: Any = None) -> None:
            self.embedding = embedding
            self.rows: dict[str, tuple[str, dict[str, Any]]] = {}

        def add_texts(
            self,
            texts: Iterable[str],
            metadatas: list[dict[str, Any]] | None = None,
            *,
            ids: list[str] | None = None,
            **kwargs: Any,
        ) -> list[str]:
            texts = list(texts)
            ids = list(ids) if ids else [str(uuid.uuid4()) for _ in texts]
            for i, text in enumerate(texts):
                meta = dict(metadatas[i]) if metadatas else {}
                self.rows[ids[i]] = (text, meta)
            return ids

        def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Any]:
            words = set(query.lower().split())
            scored = sorted(
                self.rows.items(),
                key=lambda item: -len(words & set(item[1][0].lower().split())),
            )
            return [
                document(page_content=text, metadata=dict(meta), id=doc_id)
                for doc_id, (text, meta) in scored[:k]
            ]

        @classmethod
        def from_texts(
            cls,
            texts: list[str],
            embedding: Any,
            metadatas: list[dict[str, Any]] | None = None,
            *,
            ids: list[str] | None = None,
            **kwargs: Any,
        ) -> Any:
            store = cls(embedding)
            store.add_texts(texts, metadatas, ids=ids)
            return store

    return WordStore


class _NoEmbeddings(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("the word store embeds nothing")

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("the word store embeds nothing")


LCWordStore = _store_class(LCVectorStore, LCDocument)
WordStore = _store_class(VectorStore, Document)

TEXTS = ["red apples grow", "yellow bananas", "red cherries and red apples", "brown dates"]
METADATAS = [{"fruit": t.split()[1]} for t in TEXTS]


def _seen(documents: list[Any]) -> list[tuple[str, dict[str, Any], Any]]:
    return [(d.page_content, dict(d.metadata), d.id) for d in documents]


def _pair(with_ids: bool) -> tuple[Any, Any]:
    ids = [f"f{i}" for i in range(len(TEXTS))] if with_ids else None
    lc_docs = [LCDocument(t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)]
    docs = [Document(t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)]
    if with_ids:
        for i, (a, b) in enumerate(zip(lc_docs, docs, strict=True)):
            a.id = b.id = f"f{i}"
    theirs = LCWordStore.from_documents(lc_docs, _NoEmbeddings())
    ours = WordStore.from_documents(docs, _NoEmbeddings())
    if ids:
        assert list(ours.rows) == list(theirs.rows) == ids
    else:  # fresh uuid4 strings in both
        assert [len(i) for i in ours.rows] == [len(i) for i in theirs.rows] == [36] * 4
    return theirs, ours


def test_from_documents_keeps_the_documents_ids_and_the_retriever_searches() -> None:
    theirs, ours = _pair(with_ids=True)
    assert _seen(ours.similarity_search("red apples", k=2)) == _seen(
        theirs.similarity_search("red apples", k=2)
    )
    lc_retriever = theirs.as_retriever(search_kwargs={"k": 1})
    retriever = ours.as_retriever(search_kwargs={"k": 1})
    assert _seen(retriever.invoke("bananas")) == _seen(lc_retriever.invoke("bananas"))
    assert _seen(retriever.invoke("bananas")) == [("yellow bananas", {"fruit": "bananas"}, "f1")]
    queries = ["brown", "red cherries", "yellow"]
    assert [_seen(r) for r in retriever.batch(queries)] == [
        _seen(r) for r in lc_retriever.batch(queries)
    ]


def test_add_documents_with_ids_and_search_by_type() -> None:
    theirs, ours = _pair(with_ids=False)
    added = ["g1", "g2"]
    new = [("green grapes", {"fruit": "grapes"}), ("green limes", {"fruit": "limes"})]
    assert (
        ours.add_documents([Document(t, metadata=m) for t, m in new], ids=added)
        == theirs.add_documents([LCDocument(t, metadata=m) for t, m in new], ids=added)
        == added
    )
    assert _seen(ours.search("green grapes", "similarity", k=2)) == _seen(
        theirs.search("green grapes", "similarity", k=2)
    )
    assert [d.id for d in ours.search("green grapes", "similarity", k=1)] == ["g1"]
    assert list(ours.rows)[4:] == list(theirs.rows)[4:] == added


async def test_async_search_and_retriever() -> None:
    theirs, ours = _pair(with_ids=True)
    assert _seen(await ours.asimilarity_search("dates", k=1)) == _seen(
        await theirs.asimilarity_search("dates", k=1)
    )
    assert _seen(await ours.as_retriever().ainvoke("red")) == _seen(
        await theirs.as_retriever().ainvoke("red")
    )


def test_what_the_three_methods_do_not_give_raises_not_implemented() -> None:
    theirs, ours = _pair(with_ids=True)
    with pytest.raises(NotImplementedError):
        theirs.similarity_search_by_vector([1.0, 0.0])
    with pytest.raises(NotImplementedError):
        ours.similarity_search_by_vector([1.0, 0.0])
    with pytest.raises(NotImplementedError):
        theirs.max_marginal_relevance_search("red")
    with pytest.raises(NotImplementedError):
        ours.max_marginal_relevance_search("red")

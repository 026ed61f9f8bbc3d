"""Parity: ragline's BM25Retriever against LangChain's (langchain_community, rank_bm25).

The corpus is lowercase words with every query term in fewer than half the documents,
where both libraries' tokenizers and idf formulas rank alike (the documented differences:
ragline's idf stays positive and a query sharing no term returns nothing; see
docs/differences-from-langchain.md). Compared: the documents returned, in order, with
their metadata and ids, for invoke, batch and a changed ``k``; and, over capitals and
punctuation, that the default tokenizer is LangChain's (``str.split``, case-sensitive).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_community.retrievers import BM25Retriever as LCBM25Retriever
from langchain_core.documents import Document as LCDocument

from ragline.core import Document
from ragline.retrievers import BM25Retriever

COVERS = {"retrievers.BM25Retriever"}

TEXTS = [
    "the cat sat on the mat",
    "dogs chase the cat around the garden",
    "a red fox jumps over a lazy dog",
    "the garden has roses and tulips",
    "cats and dogs sleep in the sun",
    "fresh bread smells of yeast",
    "the baker sells bread and cakes",
    "tulips bloom in spring",
]
METADATAS = [{"n": i, "source": f"doc{i}.txt"} for i in range(len(TEXTS))]
IDS = [f"id-{i}" for i in range(len(TEXTS))]
# each query with how many documents share a term with it, all with distinct scores
# (LangChain pads with non-matching documents and orders ties the other way round)
MATCHING = {
    "cat mat garden": 3,
    "roses bread cakes": 3,
    "bread": 2,
    "tulips spring": 2,
    "bread cakes": 2,
    "fox dog": 1,
    "sun cats": 1,
}


def _seen(documents: list[Any]) -> list[tuple[str, dict[str, Any], Any]]:
    return [(d.page_content, dict(d.metadata), d.id) for d in documents]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_from_texts_returns_the_same_documents_in_the_same_order(k: int) -> None:
    theirs = LCBM25Retriever.from_texts(TEXTS, metadatas=METADATAS, ids=IDS, k=k)
    ours = BM25Retriever.from_texts(TEXTS, metadatas=METADATAS, ids=IDS, k=k)
    queries = [query for query, matching in MATCHING.items() if matching >= k]
    for query in queries:
        assert _seen(ours.invoke(query)) == _seen(theirs.invoke(query)), query
    assert [_seen(r) for r in ours.batch(queries)] == [_seen(r) for r in theirs.batch(queries)]
    assert [d.page_content for d in ours.invoke("cat mat garden")] == [
        "the cat sat on the mat",
        "dogs chase the cat around the garden",
        "the garden has roses and tulips",
    ][:k]


def test_from_documents_with_langchains_tokenizer_and_a_changed_k() -> None:
    theirs = LCBM25Retriever.from_documents(
        [LCDocument(t, metadata=m, id=i) for t, m, i in zip(TEXTS, METADATAS, IDS, strict=True)],
        preprocess_func=str.split,
        k=2,
    )
    ours = BM25Retriever.from_documents(
        [Document(t, metadata=m, id=i) for t, m, i in zip(TEXTS, METADATAS, IDS, strict=True)],
        preprocess_func=str.split,
        k=2,
    )
    assert _seen(ours.invoke("the cat")) == _seen(theirs.invoke("the cat"))
    for query in [query for query, matching in MATCHING.items() if matching >= 2]:
        assert _seen(ours.invoke(query)) == _seen(theirs.invoke(query)), query
    expected = [("the cat sat on the mat", METADATAS[0], "id-0")]
    theirs.k = 1
    ours.k = 1
    assert _seen(ours.invoke("mat")) == _seen(theirs.invoke("mat")) == expected


async def test_ainvoke_matches() -> None:
    theirs = LCBM25Retriever.from_texts(TEXTS, metadatas=METADATAS, k=2)
    ours = BM25Retriever.from_texts(TEXTS, metadatas=METADATAS, k=2)
    assert _seen(await ours.ainvoke("bread cakes")) == _seen(await theirs.ainvoke("bread cakes"))


# Capitals and punctuation: LangChain's default tokenizer (str.split) keeps both, so
# "Paris" does not find "paris hotels" and "France" does not find "France."
CASED_TEXTS = [
    "Paris is in France.",
    "paris hotels are expensive",
    "France exports wine",
    "The Eiffel Tower, in Paris",
    "Wine from Bordeaux",
    "tower bridge in London",
    "London is large",
    "a quiet village",
]
CASED_QUERIES = ["Paris", "France exports Bordeaux", "Wine London", "Tower, village"]


def test_the_default_tokenizer_is_langchains_case_sensitive_whitespace_split() -> None:
    from langchain_community.retrievers.bm25 import (
        default_preprocessing_func as lc_default_preprocessing_func,
    )

    from ragline.retrievers import default_preprocessing_func

    for text in [*CASED_TEXTS, "  tabs\tand\nnew lines  ", "", "e-mail, 2024!"]:
        assert default_preprocessing_func(text) == lc_default_preprocessing_func(text), text
    theirs = LCBM25Retriever.from_texts(CASED_TEXTS, k=2)
    ours = BM25Retriever.from_texts(CASED_TEXTS, k=2)
    for query in CASED_QUERIES:
        assert _seen(ours.invoke(query)) == _seen(theirs.invoke(query)), query
    assert [_seen(r) for r in ours.batch(CASED_QUERIES)] == [
        _seen(r) for r in theirs.batch(CASED_QUERIES)
    ]
    assert [d.page_content for d in ours.invoke("Paris")] == [
        "Paris is in France.",
        "The Eiffel Tower, in Paris",
    ]

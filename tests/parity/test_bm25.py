"""Parity: ragline's BM25Retriever against LangChain's (langchain_community, rank_bm25).

Compared: the documents returned, in order, with their metadata and ids, for invoke,
batch and a changed ``k``; over capitals and punctuation, that the default tokenizer is
LangChain's (``str.split``, case-sensitive); and, over corpora with terms in half or more
of the documents (zero and negative idf, rank_bm25's epsilon floor), many tied scores
and queries sharing no term, that both return the ``k`` best whatever the score, with
the same scores (exactly) and ties in the same order; ``bm25_params`` with ``k1``, ``b``
and ``epsilon``.
"""

from __future__ import annotations

import random
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


# ---- the k best whatever the score: zero / negative idf, ties, no shared term -----------

# "foo" is in half the documents: idf 0, every score 0, the ties in rank_bm25's order
FOO = ["foo", "foo bar", "hello", "world"]


def _corpus(seed: int, size: int) -> list[str]:
    """Short texts over a small vocabulary: common words (negative idf), rare words,
    repeated words and identical texts (tied scores), an empty text."""
    rng = random.Random(seed)
    words = ["a", "a", "a", "b", "b", "c", "d", "e", "f", "g", "h"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) for _ in range(size)]
    return [*texts, texts[0], texts[1], ""]


QUERIES = ["a", "b", "a b", "c c", "h a", "zzz", "", "g h e", "a a b"]


def _ranked(retriever: Any, queries: list[str]) -> list[list[str]]:
    return [[d.page_content + f"#{d.metadata['n']}" for d in r] for r in retriever.batch(queries)]


def test_every_query_gets_k_documents_whatever_their_score() -> None:
    theirs = LCBM25Retriever.from_texts(FOO)
    ours = BM25Retriever.from_texts(FOO)
    assert [d.page_content for d in theirs.invoke("foo")] == ["world", "hello", "foo bar", "foo"]
    assert [d.page_content for d in ours.invoke("foo")] == ["world", "hello", "foo bar", "foo"]
    for query in ["foo", "bar", "hello world", "nothing", "foo bar"]:
        assert _seen(ours.invoke(query)) == _seen(theirs.invoke(query)), query


@pytest.mark.parametrize(
    ("size", "options"),
    [
        (10, {}),
        (40, {}),
        (40, {"bm25_params": {"epsilon": 0.0}}),
        (40, {"bm25_params": {"epsilon": 1.5, "k1": 0.8, "b": 0.3}}),
        (300, {"k": 7}),
        (300, {"k": 50, "bm25_params": {"b": 0.9}}),
    ],
)
def test_scores_and_rankings_are_the_same_with_ties_and_negative_idf(
    size: int, options: dict[str, Any]
) -> None:
    texts = _corpus(size, size)
    metadatas = [{"n": i} for i in range(len(texts))]
    theirs = LCBM25Retriever.from_texts(texts, metadatas=metadatas, **options)
    ours = BM25Retriever.from_texts(texts, metadatas=metadatas, **options)
    for query in QUERIES:
        tokens = query.split()
        assert ours.vectorizer.get_scores(tokens).tolist() == (
            theirs.vectorizer.get_scores(tokens).tolist()
        ), query
    assert _ranked(ours, QUERIES) == _ranked(theirs, QUERIES)
    assert [_seen(ours.invoke(q)) for q in QUERIES] == [_seen(theirs.invoke(q)) for q in QUERIES]


def test_only_matching_keeps_ragline_s_cut_one_argument_away() -> None:
    ours = BM25Retriever.from_texts(FOO, only_matching=True)
    assert ours.invoke("foo") == []  # idf 0: nothing scores above 0
    lucene = BM25Retriever.from_texts(FOO, idf="lucene", only_matching=True)
    assert [d.page_content for d in lucene.invoke("foo")] == ["foo", "foo bar"]
    assert lucene.invoke("nothing") == []

"""BM25Retriever: exact Okapi scores from the documented formula, ranking, batch, options."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.core import (
    ConfigurationError,
    Document,
    InvalidInputError,
    RunCollectorCallbackHandler,
)
from ragline.retrievers import BM25Index, BM25Retriever, BM25Tokenizer, default_preprocessing_func

TEXTS = ["The cat sat", "the dog sat on the mat", "cat and dog", "Birds fly"]
# lowercase word tokens: lengths 3, 6, 3, 2 -> avgdl 3.5, N = 4
WORDS = BM25Tokenizer()  # lowercase word tokens (the default, str.split, keeps case)
# ragline's own scoring, as store folders and hybrid search use it (the default is
# LangChain's: rank_bm25's idf, the k best whatever the score)
RAGLINE = {"idf": "lucene", "only_matching": True}


def reference_scores(
    corpus: list[list[str]],
    query: list[str],
    k1: float = 1.5,
    b: float = 0.75,
    idf_kind: str = "lucene",
    epsilon: float = 0.25,
):
    """BM25 written straight from the formula in ragline.retrievers._bm25's docstring."""
    n_docs = len(corpus)
    avgdl = sum(map(len, corpus)) / n_docs
    terms = {t for d in corpus for t in d}
    okapi = {}
    for term in terms:
        df = sum(1 for d in corpus if term in d)
        okapi[term] = math.log(n_docs - df + 0.5) - math.log(df + 0.5)
    floor = epsilon * sum(okapi.values()) / len(okapi) if okapi else 0.0
    scores = []
    for doc in corpus:
        counts = Counter(doc)
        total = 0.0
        for token in query:  # repeated query tokens count each time
            df = sum(1 for d in corpus if token in d)
            if df == 0 or counts[token] == 0:
                continue
            if idf_kind == "lucene":
                idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            else:
                idf = okapi[token] if okapi[token] >= 0 else floor
            tf = counts[token]
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(total)
    return scores


def test_default_tokenizer_splits_on_whitespace_and_bm25_tokenizer_gives_lowercase_words():
    assert default_preprocessing_func("The CAT's\te-mail,  2024!") == [
        "The",
        "CAT's",
        "e-mail,",
        "2024!",
    ]
    assert default_preprocessing_func("") == []
    assert BM25Tokenizer()("The CAT's e-mail, 2024!") == ["the", "cat", "s", "e", "mail", "2024"]


def test_a_single_term_score_checked_by_hand():
    index = BM25Retriever.from_texts(TEXTS, idf="lucene").vectorizer
    # "mat": in 1 of 4 documents; document 1 has it once and 6 tokens (avgdl 3.5)
    idf = math.log(1 + (4 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 1 * 2.5 / (1 + 1.5 * (1 - 0.75 + 0.75 * 6 / 3.5))
    assert expected == pytest.approx(0.9111, abs=1e-4)  # ln(10/3) * 2.5 / 3.3036
    assert index.get_scores(["mat"]).tolist() == pytest.approx([0.0, expected, 0.0, 0.0], rel=1e-12)


@pytest.mark.parametrize("query", ["cat", "the", "sat dog", "cat cat", "the the mat", "fish", ""])
@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.75), (1.2, 0.0), (0.0, 1.0), (2.0, 0.3)])
@pytest.mark.parametrize(("idf", "epsilon"), [("lucene", 0.25), ("okapi", 0.25), ("okapi", 2.0)])
def test_scores_match_the_formula(query, k1, b, idf, epsilon):
    corpus = [default_preprocessing_func(t) for t in TEXTS]
    retriever = BM25Retriever.from_texts(TEXTS, k1=k1, b=b, idf=idf, epsilon=epsilon)
    tokens = default_preprocessing_func(query)
    expected = reference_scores(corpus, tokens, k1, b, idf, epsilon)
    assert retriever.vectorizer.get_scores(tokens).tolist() == pytest.approx(
        expected, rel=1e-12, abs=1e-15
    )


def test_a_term_in_most_documents_still_scores_positive():
    # "the" is in 2 of 4 documents, "sat" too; with 3 of 4 the classic idf would be < 0
    index = BM25Index([["a", "x"], ["a"], ["a", "y"], ["z"]])
    scores = index.get_scores(["a"])
    assert (scores[:3] > 0).all() and scores[3] == 0
    assert index.idf[index.vocabulary["a"]] == pytest.approx(math.log(1 + 1.5 / 3.5))


@settings(max_examples=60, deadline=None)
@given(
    corpus=st.lists(st.lists(st.sampled_from("abcdefg"), max_size=8), min_size=1, max_size=12),
    queries=st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=5), min_size=1, max_size=6),
)
def test_batch_scores_match_the_reference_on_random_corpora(corpus, queries):
    if not any(corpus):
        return  # avgdl 0: no term to match
    index = BM25Index(corpus)
    scores = index.score_queries(queries)
    for row, query in zip(scores, queries, strict=True):
        assert row.tolist() == pytest.approx(reference_scores(corpus, query), rel=1e-12, abs=1e-15)


def test_ranking_best_first_only_matching_documents_ties_in_corpus_order():
    retriever = BM25Retriever.from_texts(TEXTS, ids=["a", "b", "c", "d"], **RAGLINE)
    assert [d.id for d in retriever.invoke("cat")] == ["a", "c"]  # same tf and length: a tie
    assert [d.id for d in retriever.invoke("dog sat")] == ["b", "a", "c"]
    assert retriever.invoke("fish") == []
    assert retriever.invoke("") == []
    retriever.k = 1
    assert [d.id for d in retriever.invoke("dog sat")] == ["b"]


def test_metadata_and_ids_are_kept_and_results_are_copies():
    retriever = BM25Retriever.from_texts(
        TEXTS[:2], metadatas=[{"n": 0}, None], ids=["x", "y"], k=4, **RAGLINE
    )
    first = retriever.invoke("mat")
    assert first == [Document("the dog sat on the mat", {}, "y")]
    first[0].metadata["changed"] = True
    assert retriever.invoke("cat") == [Document("The cat sat", {"n": 0}, "x")]
    assert retriever.invoke("mat")[0].metadata == {}


def test_from_documents_and_a_custom_tokenizer():
    docs = [Document("Apple pie"), Document("apple juice"), Document("pear")]
    by_default = BM25Retriever.from_documents(docs, **RAGLINE)
    assert [d.page_content for d in by_default.invoke("apple")] == ["apple juice"]
    assert by_default.invoke("APPLE") == []
    lowercase_words = BM25Retriever.from_documents(docs, preprocess_func=BM25Tokenizer(), **RAGLINE)
    assert [d.page_content for d in lowercase_words.invoke("APPLE")] == [
        "Apple pie",
        "apple juice",
    ]


def test_bm25_params_is_langchains_spelling_of_k1_and_b():
    by_params = BM25Retriever.from_texts(TEXTS, bm25_params={"k1": 0.9, "b": 0.4})
    by_keywords = BM25Retriever.from_texts(TEXTS, k1=0.9, b=0.4)
    assert (by_params.vectorizer.k1, by_params.vectorizer.b) == (0.9, 0.4)
    assert (
        by_params.vectorizer.get_scores(["sat"]).tolist()
        == by_keywords.vectorizer.get_scores(["sat"]).tolist()
    )


def test_batch_scores_all_queries_in_one_call_with_one_run_per_query():
    retriever = BM25Retriever.from_texts(
        TEXTS, ids=["a", "b", "c", "d"], preprocess_func=WORDS, **RAGLINE
    )
    calls = []
    top = retriever.vectorizer.top_k_with_scores
    retriever.vectorizer.top_k_with_scores = lambda queries, k, mask, **options: (
        calls.append(list(queries)) or top(queries, k, mask, **options)
    )
    collector = RunCollectorCallbackHandler()
    results = retriever.batch(["cat", "mat", "birds"], {"callbacks": [collector]})
    assert [[d.id for d in docs] for docs in results] == [["a", "c"], ["b"], ["d"]]
    assert calls == [[["cat"], ["mat"], ["birds"]]]
    assert [(r.name, r.run_type, r.inputs) for r in collector.traced_runs] == [
        ("BM25Retriever", "retriever", {"query": "cat"}),
        ("BM25Retriever", "retriever", {"query": "mat"}),
        ("BM25Retriever", "retriever", {"query": "birds"}),
    ]


def test_score_queries_and_top_k_agree_with_get_scores():
    index = BM25Retriever.from_texts(TEXTS, preprocess_func=WORDS, idf="lucene").vectorizer
    queries = [["cat"], ["dog", "dog"], ["mat", "the"], [], ["x"]]
    matrix = index.score_queries(queries)
    assert matrix.shape == (5, 4)
    for row, query in zip(matrix, queries, strict=True):
        assert np.array_equal(row, index.get_scores(query))
    assert index.top_k(queries, 2) == [[0, 2], [2, 1], [1, 0], [], []]


async def test_async_paths_agree_with_sync():
    retriever = BM25Retriever.from_texts(TEXTS, k=2)
    assert await retriever.ainvoke("dog sat") == retriever.invoke("dog sat")
    assert await retriever.abatch(["cat", "mat"]) == retriever.batch(["cat", "mat"])


def test_an_empty_corpus_returns_nothing():
    retriever = BM25Retriever.from_texts([])
    assert retriever.invoke("anything") == []
    assert retriever.batch(["a", "b"]) == [[], []]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"k": 0}, InvalidInputError, "k must be an int >= 1, got 0"),
        ({"k": -2}, InvalidInputError, "k must be an int >= 1, got -2"),
        ({"k": 2.5}, InvalidInputError, "k must be an int >= 1, got 2.5"),
        ({"k1": -0.1}, InvalidInputError, "k1 must be a finite number >= 0, got -0.1"),
        ({"b": 1.5}, InvalidInputError, r"b must be a number between 0 and 1, got 1.5"),
        ({"b": float("nan")}, InvalidInputError, "b must be a number between 0 and 1, got nan"),
        (
            {"bm25_params": {"delta": 0.5}},
            ConfigurationError,
            "bm25_params has unknown key.*'delta'; valid keys are 'k1', 'b', 'epsilon'",
        ),
        ({"idf": "bm25"}, ConfigurationError, "idf 'bm25' is not one of 'okapi', 'lucene'"),
        ({"epsilon": float("inf")}, InvalidInputError, "epsilon must be a finite number"),
        ({"metadatas": [{}]}, InvalidInputError, "got 1 metadatas for 4 texts"),
        ({"ids": ["a"]}, InvalidInputError, "got 1 ids for 4 texts"),
        (
            {"metadatas": [{}, "x", None, {}]},
            InvalidInputError,
            r"metadatas\[1\] must be a dict or None, got str",
        ),
        ({"preprocess_func": "split"}, InvalidInputError, "preprocess_func must be callable"),
        ({"preprocess_func": str.lower}, InvalidInputError, "must return a list of str"),
        ({"preprocess_func": lambda t: [1]}, InvalidInputError, "returned a int token"),
    ],
)
def test_bad_options_are_rejected_with_clear_errors(options, error, message):
    with pytest.raises(error, match=message):
        BM25Retriever.from_texts(TEXTS, **options)


def test_bad_texts_and_documents_are_rejected():
    with pytest.raises(InvalidInputError, match=r"texts\[1\] must be a str, got int"):
        BM25Retriever.from_texts(["a", 3])
    with pytest.raises(InvalidInputError, match=r"documents\[0\] must be a Document, got str"):
        BM25Retriever.from_documents(["a"])


def test_setting_a_bad_k_keeps_the_old_value():
    retriever = BM25Retriever.from_texts(TEXTS, k=3)
    with pytest.raises(InvalidInputError, match="k must be an int >= 1, got 0"):
        retriever.k = 0
    assert retriever.k == 3


def test_ties_at_the_k_th_place_go_to_the_earlier_documents():
    texts = ["apple"] * 6 + ["apple apple"]
    retriever = BM25Retriever.from_texts(texts, ids=[str(i) for i in range(7)], k=3, **RAGLINE)
    # "apple apple" scores highest; the six single "apple" documents tie
    assert [d.id for d in retriever.invoke("apple")] == ["6", "0", "1"]
    retriever.k = 1
    assert [d.id for d in retriever.invoke("apple")] == ["6"]
    tied = BM25Retriever.from_texts(["x y"] * 50, ids=[str(i) for i in range(50)], k=4, **RAGLINE)
    assert [[d.id for d in docs] for docs in tied.batch(["x", "y", "x y"])] == [
        ["0", "1", "2", "3"]
    ] * 3

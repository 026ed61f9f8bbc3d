"""HybridRetriever's adaptive fusion (per-query weights from each side's score peak) and
its keyword feedback option (issue 30)."""

from __future__ import annotations

import math
import random

import pytest

from ragline.core import ConfigurationError, Document, InvalidInputError
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import (
    BM25Index,
    BM25Retriever,
    HybridRetriever,
    adaptive_weights,
    score_peak,
    term_coverage,
)
from ragline.retrievers._hybrid import expand_query
from ragline.vectorstores import InMemoryVectorStore

TEXTS = ["cats purr softly", "the cat sat on the mat", "stock prices fell", "dogs bark loudly"]
IDS = ["purr", "sat", "stock", "bark"]


def _hybrid(**options: object) -> HybridRetriever:
    store = InMemoryVectorStore.from_texts(TEXTS, HashingEmbeddings(dimension=64), ids=IDS)
    return HybridRetriever(store, BM25Retriever.from_texts(TEXTS, ids=IDS), **options)  # type: ignore[arg-type]


def _scored(pairs: list[tuple[str, float]]) -> list[Document]:
    return [Document(name, {"relevance_score": score}, id=name) for name, score in pairs]


def _fuse(hybrid: HybridRetriever, dense: list[tuple[str, float]],
          keyword: list[tuple[str, float]]) -> list[tuple[str, float]]:  # fmt: skip
    found = hybrid.weighted_reciprocal_rank([_scored(dense), _scored(keyword)])
    return [(d.id or "", d.metadata["relevance_score"]) for d in found]


# ------------------------------------------------------------------ the signals


def test_score_peak_by_hand() -> None:
    assert score_peak([9.0, 1.0, 1.0]) == 1.0  # one hit above a floor
    assert score_peak([3.0, 2.0, 1.0]) == 0.75  # (3 - 1.5) / (3 - 1)
    assert score_peak([0.9, 0.8, 0.7, 0.6]) == pytest.approx((0.9 - 0.7) / 0.3)
    assert score_peak([0.8, 0.8, 0.8]) == 0.0  # flat
    assert score_peak([5.0]) == 1.0
    assert score_peak([]) == 0.0


def test_adaptive_weights_by_hand() -> None:
    """peaks 0.75 and 1.0, base 0.5/0.5, strength 1: 0.375 / 0.5 -> 3/7 and 4/7;
    strength 2: 0.28125 / 0.5 -> 9/25 and 16/25; a flat side gets 0."""
    lists = [[3.0, 2.0, 1.0], [9.0, 1.0, 1.0]]
    assert adaptive_weights(lists, [0.5, 0.5], strength=1, depth=3) == pytest.approx([3 / 7, 4 / 7])
    assert adaptive_weights(lists, [0.5, 0.5], strength=2, depth=3) == pytest.approx(
        [9 / 25, 16 / 25]
    )
    assert adaptive_weights(lists, [0.6, 0.4], strength=0, depth=3) == pytest.approx([0.6, 0.4])
    flat = [[3.0, 2.0, 1.0], [4.0, 4.0, 4.0]]
    assert adaptive_weights(flat, [0.5, 0.5], strength=1, depth=3) == [1.0, 0.0]
    both_flat = [[1.0, 1.0], [4.0, 4.0]]
    assert adaptive_weights(both_flat, [0.6, 0.4], strength=1, depth=2) == pytest.approx([0.6, 0.4])
    # depth: only the first scores count ([3, 2] has peak 1)
    assert adaptive_weights(lists, [0.5, 0.5], strength=1, depth=2) == [0.5, 0.5]


# ------------------------------------------------------------------ fusion orders


def test_a_flat_keyword_side_gives_way_to_the_dense_side() -> None:
    """BM25 scores every candidate 3.0 (it matched one common word): min-max makes each
    1, so the fixed-weight fusion puts its d and e above the dense side's second hit b.
    The adaptive fusion gives the flat side no weight: the dense order alone."""
    dense = [("a", 0.9), ("b", 0.6), ("c", 0.5)]
    keyword = [("d", 3.0), ("e", 3.0), ("a", 3.0)]
    old = _fuse(_hybrid(k=5, fusion="relative_score", dense_weight=0.5), dense, keyword)
    assert [name for name, _ in old] == ["a", "d", "e", "b", "c"]
    assert [score for _, score in old] == pytest.approx([1.0, 0.5, 0.5, 0.125, 0.0])
    new = _fuse(_hybrid(k=5, fusion="adaptive", dense_weight=0.5), dense, keyword)
    assert [name for name, _ in new] == ["a", "b", "c", "d", "e"]
    assert [score for _, score in new] == pytest.approx([1.0, 0.25, 0.0, 0.0, 0.0])


def test_a_flat_dense_side_gives_way_to_the_keyword_side() -> None:
    dense = [("a", 0.7), ("b", 0.7), ("c", 0.7)]
    keyword = [("c", 8.0), ("d", 2.0), ("a", 1.0)]
    new = _fuse(_hybrid(k=4, dense_weight=0.6), dense, keyword)
    assert [name for name, _ in new] == ["c", "d", "a", "b"]
    assert [score for _, score in new] == pytest.approx([1.0, 1 / 7, 0.0, 0.0])


def test_equal_peaks_fuse_as_the_fixed_weights_do() -> None:
    """Both sides equally peaked (the same shape of scores): the adaptive weights are the
    base weights, so the results are exactly fusion='relative_score''s."""
    dense = [("a", 1.0), ("b", 0.5), ("c", 0.0)]  # peak (1 - 0.25) / 1 = 0.75
    keyword = [("b", 12.0), ("d", 6.0), ("a", 0.0)]  # peak (12 - 3) / 12 = 0.75
    for weight in (0.3, 0.5, 0.6):
        adaptive = _fuse(_hybrid(k=4, dense_weight=weight), dense, keyword)
        fixed = _fuse(_hybrid(k=4, fusion="relative_score", dense_weight=weight), dense, keyword)
        assert adaptive == fixed


def test_adaptivity_zero_is_the_fixed_weight_fusion() -> None:
    rng = random.Random(30)
    for _ in range(50):
        names = [f"d{i}" for i in range(12)]
        dense = sorted(((n, rng.random()) for n in rng.sample(names, 8)), key=lambda p: -p[1])
        keyword = sorted(((n, 10 * rng.random()) for n in rng.sample(names, 8)),
                         key=lambda p: -p[1])  # fmt: skip
        assert _fuse(_hybrid(k=12, adaptivity=0), dense, keyword) == _fuse(
            _hybrid(k=12, fusion="relative_score"), dense, keyword
        )


def test_the_peaked_side_outweighs_the_flatter_one() -> None:
    """dense peak (0.9 - 0.55) / 0.4 = 0.875, keyword peak (5 - 4.25) / 1 = 0.75; base
    0.5, strength 1: weights 0.875 / 1.625 and 0.75 / 1.625. The keyword side's first (x)
    falls below the dense side's first (a), found by both."""
    dense = [("a", 0.9), ("b", 0.6), ("c", 0.5)]
    keyword = [("x", 5.0), ("a", 4.5), ("y", 4.0)]
    wd, wk = 0.875 / 1.625, 0.75 / 1.625
    new = _fuse(_hybrid(k=5, dense_weight=0.5, adaptivity=1), dense, keyword)
    assert [name for name, _ in new] == ["a", "x", "b", "c", "y"]
    assert [score for _, score in new] == pytest.approx([wd + wk * 0.5, wk, wd * 0.25, 0, 0])


# ------------------------------------------------------------------ term coverage


def test_term_coverage_by_hand() -> None:
    idf = {"purr": 2.0, "the": 0.5}
    assert term_coverage(idf, [{"the", "cat"}, {"dog"}]) == 0.2  # 0.5 / 2.5
    assert term_coverage(idf, [{"the"}, {"purr"}]) == 1.0  # any of the hits counts
    assert term_coverage(idf, [{"cat"}]) == 0.0
    assert term_coverage(idf, []) == 0.0
    assert term_coverage({}, [{"cat"}]) == 0.0  # no known query term
    assert term_coverage({"a": 0.0}, [{"a"}]) == 0.0  # no idf mass


def test_keyword_coverage_weighs_the_query_terms_by_idf() -> None:
    """idf = log(1 + (N - n + 0.5) / (n + 0.5)) over the four texts: 'cat'... each
    word is in one text (n = 1) except 'the' (n = 1 too, twice in one text), so every
    known term weighs log(1 + 3.5 / 1.5); 'zebra' is unknown and does not count."""
    hybrid = _hybrid()
    purr = Document("cats purr softly", id="purr")
    stock = Document("stock prices fell", id="stock")
    assert hybrid.keyword_coverage("purr zebra", [purr]) == 1.0
    assert hybrid.keyword_coverage("stock cats", [stock]) == pytest.approx(0.5)
    assert hybrid.keyword_coverage("stock cats bark", [stock, purr]) == pytest.approx(2 / 3)
    # only the first COVERAGE_DEPTH (3) hits count
    assert hybrid.keyword_coverage("purr", [stock, stock, stock, purr]) == 0.0
    assert hybrid.keyword_coverage("zebra", [purr]) == 0.0
    # a hit's terms are its row of the index, found by id; a hit the index does not hold
    # is read from its text
    assert hybrid.keyword_coverage("purr", [Document("zebra", id="purr")]) == 1.0
    assert hybrid.keyword_coverage("stock cats", [Document("stock prices")]) == pytest.approx(0.5)
    assert hybrid.keyword_coverage("stock", [Document("stock", id="elsewhere")]) == 1.0


def test_a_peaked_keyword_side_missing_the_query_words_gives_way() -> None:
    """Query 'purr loudly': BM25's first three hits hold 'purr' but not 'loudly' (equal
    idf): coverage 0.5. Peaks: dense (0.9 - 0.45) / 0.5 = 0.9, keyword 1. Base 0.55 /
    0.45, adaptivity 1: 0.495 and 0.45; coverage 1 halves the keyword side's: 0.225, so
    the weights are 0.495 / 0.72 and 0.225 / 0.72 and the dense side's first (sat) stays
    first; without coverage (0) the keyword side's first (purr) goes ahead."""
    texts = dict(zip(IDS, TEXTS, strict=True))

    def side(pairs: list[tuple[str, float]]) -> list[Document]:
        return [Document(texts[n], {"relevance_score": s}, id=n) for n, s in pairs]

    dense = [("sat", 0.9), ("purr", 0.5), ("stock", 0.4)]
    keyword = [("purr", 9.0), ("sat", 1.0), ("stock", 1.0)]
    hybrid = _hybrid(k=3, dense_weight=0.55, adaptivity=1, coverage=1)
    assert hybrid.keyword_coverage("purr loudly", side(keyword)) == pytest.approx(0.5)
    found = hybrid._fuse_one("purr loudly", [side(dense), side(keyword)])
    wd, wk = 0.495 / 0.72, 0.225 / 0.72
    assert [d.id for d in found] == ["sat", "purr", "stock"]
    assert [d.metadata["relevance_score"] for d in found] == pytest.approx([wd, wd * 0.2 + wk, 0])
    without = _hybrid(k=3, dense_weight=0.55, adaptivity=1, coverage=0)
    found = without._fuse_one("purr loudly", [side(dense), side(keyword)])
    wd, wk = 0.495 / 0.945, 0.45 / 0.945
    assert [d.id for d in found] == ["purr", "sat", "stock"]
    assert [d.metadata["relevance_score"] for d in found] == pytest.approx([wd * 0.2 + wk, wd, 0])
    # a full match (coverage 1) leaves the peaks' weights as they are
    assert hybrid._fuse_one("purr", [side(dense), side(keyword)])[0].id == "purr"


def test_coverage_is_the_same_through_invoke_and_batch() -> None:
    """Each query of a batch is fused with its own coverage (a context variable, not
    state shared between the queries)."""
    hybrid = _hybrid(k=4)
    queries = ["purr loudly", "cat mat", "stock bark"]
    single = [hybrid.invoke(q) for q in queries]
    batched = hybrid.batch(queries)
    for one, other in zip(single, batched, strict=True):
        assert [d.id for d in one] == [d.id for d in other]
        assert [d.metadata["relevance_score"] for d in one] == pytest.approx(
            [d.metadata["relevance_score"] for d in other]
        )


def test_defaults_and_options() -> None:
    hybrid = _hybrid()
    assert repr(hybrid) == (
        "HybridRetriever(k=4, fetch_k=50, fusion='adaptive', dense_weight=0.5, adaptivity=1, "
        "coverage=1)"
    )
    old_default = _hybrid(fusion="relative_score", dense_weight=0.5, fetch_k=50)
    assert repr(old_default) == (
        "HybridRetriever(k=4, fetch_k=50, fusion='relative_score', dense_weight=0.5)"
    )
    with pytest.raises(ConfigurationError, match="fusion 'adaptiv' is not one of 'adaptive'"):
        _hybrid(fusion="adaptiv")
    with pytest.raises(InvalidInputError, match="adaptivity must be"):
        _hybrid(adaptivity=-1)
    with pytest.raises(InvalidInputError, match="coverage must be"):
        _hybrid(coverage=-0.5)
    with pytest.raises(InvalidInputError, match="keyword_feedback 'rm3' is not one of"):
        _hybrid(keyword_feedback="rm3")


# ------------------------------------------------------------------ keyword feedback


def test_expansion_weights_by_hand() -> None:
    """Documents [cat purr], [cat nap nap], [dog]: idf(purr) = ln(1 + 2.5/1.5), idf(cat) =
    ln(1 + 1.5/2.5). Feedback from document 0 (length 2): purr 1/2 idf(purr), cat 1/2
    idf(cat). Query [purr], original weight 0.5, two terms: purr gets 0.5 + 0.5 * its
    share of the expansion mass, cat the rest."""
    index = BM25Index([["cat", "purr"], ["cat", "nap", "nap"], ["dog"]])
    purr, cat = math.log1p(2.5 / 1.5) / 2, math.log1p(1.5 / 2.5) / 2
    weights = expand_query(index, ["purr"], [0], terms=2, original_weight=0.5)
    named = {index.terms[term]: weight for term, weight in weights.items()}
    assert named == pytest.approx(
        {"purr": 0.5 + 0.5 * purr / (purr + cat), "cat": 0.5 * cat / (purr + cat)}
    )
    only_own = expand_query(index, ["purr"], [0], terms=1, original_weight=0.5)
    assert {index.terms[t]: w for t, w in only_own.items()} == {"purr": 1.0}
    no_known_word = expand_query(index, ["owl"], [1], terms=1, original_weight=0.7)
    assert {index.terms[t]: w for t, w in no_known_word.items()} == {"nap": 1.0}


def test_keyword_feedback_finds_a_passage_sharing_no_query_word() -> None:
    """'purr' is only in 'cats purr softly'; its feedback adds 'cats' (and 'softly'), so
    the keyword list the fusion gets also holds 'cats nap' (plain BM25 finds only one)."""
    texts = ["cats purr softly", "cats nap", "stock prices fell", "dogs bark loudly"]
    ids = ["purr", "nap", "stock", "bark"]
    store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=64), ids=ids)
    keyword = BM25Retriever.from_texts(texts, ids=ids)
    fused_keyword_lists: list[list[str | None]] = []

    def spying(hybrid: HybridRetriever) -> HybridRetriever:
        fuse = hybrid.weighted_reciprocal_rank

        def spy(doc_lists: list[list[Document]]) -> list[Document]:
            fused_keyword_lists.append([d.id for d in doc_lists[1]])
            return fuse(doc_lists)

        hybrid.weighted_reciprocal_rank = spy  # type: ignore[method-assign]
        return hybrid

    plain = spying(HybridRetriever(store, keyword, k=4, fetch_k=2))
    rm3 = spying(HybridRetriever(store, keyword, k=4, fetch_k=2, keyword_feedback="keyword"))
    plain.invoke("purr")
    rm3.invoke("purr")
    rm3.batch(["purr"])
    assert fused_keyword_lists == [["purr"], ["purr", "nap"], ["purr", "nap"]]
    assert [d.id for d in rm3.batch(["purr"])[0]] == [d.id for d in rm3.invoke("purr")]


def test_dense_feedback_expands_from_the_dense_sides_passages() -> None:
    texts = ["cats purr softly", "cats nap", "stock prices fell", "dogs bark loudly"]
    ids = ["purr", "nap", "stock", "bark"]
    store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=64), ids=ids)
    keyword = BM25Retriever.from_texts(texts, ids=ids)
    hybrid = HybridRetriever(store, keyword, k=4, keyword_feedback="dense")
    feedback = hybrid._feedback
    assert feedback is not None
    dense_first = [Document("stock prices fell", id="stock")]
    # the query's word 'purr' keeps its share; 'stock', 'prices', 'fell' come from the
    # dense side's first passage, so 'stock' is found too
    found = feedback.search("purr", dense_first, keyword.invoke("purr"))
    assert [d.id for d in found] == ["purr", "stock"]

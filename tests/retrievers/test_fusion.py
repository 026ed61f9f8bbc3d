"""Score fusion, BM25Tokenizer, score_key on ragline's retrievers, HybridRetriever."""

from __future__ import annotations

import math

import pytest

from ragline.core import (
    ConfigurationError,
    Document,
    InvalidInputError,
    MissingDependencyError,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import (
    BM25Retriever,
    BM25Tokenizer,
    EnsembleRetriever,
    HybridRetriever,
    normalize_scores,
    score_fusion,
)
from ragline.vectorstores import InMemoryVectorStore

TEXTS = ["cats purr softly", "the cat sat on the mat", "stock prices fell", "dogs bark loudly"]
IDS = ["purr", "sat", "stock", "bark"]


# ------------------------------------------------------------------ normalisation


def test_min_max_by_hand() -> None:
    assert normalize_scores([10.0, 4.0, 1.0], "relative_score") == [1.0, 1 / 3, 0.0]
    assert normalize_scores([2.0, 2.0], "relative_score") == [1.0, 1.0]  # no spread
    assert normalize_scores([], "dbsf") == []


def test_distribution_based_by_hand() -> None:
    """Scores 1, 2, 3, 10: mean 4, population sd sqrt(12.5) = 3.5355; the window is
    4 -/+ 10.6066; 10 maps to (10 - 4 + 10.6066) / 21.2132 = 0.7828."""
    values = normalize_scores([10.0, 3.0, 2.0, 1.0], "dbsf")
    sd = math.sqrt(((10 - 4) ** 2 + 1 + 4 + 9) / 4)
    assert values == pytest.approx([(x - 4 + 3 * sd) / (6 * sd) for x in (10, 3, 2, 1)])
    assert values[0] == pytest.approx(0.7828, abs=1e-4)
    assert normalize_scores([5.0], "dbsf") == [1.0]


def test_distribution_based_clamps_scores_beyond_three_deviations() -> None:
    """A score can only fall outside mean -/+ 3 sd in a list of 11 or more (|z| is at most
    sqrt(n - 1)). 10 and ten 0s: mean 10/11, sd sqrt(1000)/11, so 10 sits at z = sqrt(10)
    = 3.16 and maps to 0.5 + sqrt(10)/6 = 1.027, clamped to 1; each 0 maps to
    0.5 - 1/(6 sqrt(10)) = 0.4473. Mirrored (-10 and ten 0s): -10 clamps to 0, each 0 is
    0.5 + 1/(6 sqrt(10)) = 0.5527."""
    inside = 1 / (6 * math.sqrt(10))
    high = normalize_scores([10.0] + [0.0] * 10, "dbsf")
    assert high[0] == 1.0
    assert high[1:] == pytest.approx([0.5 - inside] * 10, abs=1e-12)
    assert high[1] == pytest.approx(0.447295, abs=1e-6)
    low = normalize_scores([-10.0] + [0.0] * 10, "dbsf")
    assert low[0] == 0.0
    assert low[1:] == pytest.approx([0.5 + inside] * 10, abs=1e-12)


def test_dbsf_fusion_of_a_long_list_stays_within_zero_and_one() -> None:
    """The outlier's fused score is 0.5 * 1 (clamped) + 0.5 * 1 (the other list's only
    hit), exactly 1.0, not 0.5 * 1.027 + 0.5 = 1.0135; the ten others get 0.5 * 0.4473."""
    docs = [Document(f"d{i}", id=f"d{i}") for i in range(11)]
    long_list = [(docs[0], 10.0)] + [(doc, 0.0) for doc in docs[1:]]
    fused = score_fusion([long_list, [(docs[0], 3.0)]], [1, 1], normalization="dbsf")
    assert [doc.id for doc, _ in fused] == [f"d{i}" for i in range(11)]
    assert fused[0][1] == 1.0
    expected_rest = 0.5 * (0.5 - 1 / (6 * math.sqrt(10)))
    assert [score for _, score in fused[1:]] == pytest.approx([expected_rest] * 10, abs=1e-12)


def test_unknown_normalization_names_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match="'relative_score', 'dbsf'"):
        normalize_scores([1.0], "zscore")


def test_score_fusion_by_hand() -> None:
    """Weights 0.75 / 0.25. List 1: a 9, b 5, c 1 -> 1, .5, 0. List 2: c 0.9, d 0.5 -> 1, 0.
    a = .75, b = .375, c = 0 + .25 = .25, d = 0."""
    a, b, c, d = (Document(t, id=t) for t in "abcd")
    fused = score_fusion([[(a, 9.0), (b, 5.0), (c, 1.0)], [(c, 0.9), (d, 0.5)]], [3, 1])
    assert [(doc.id, score) for doc, score in fused] == [
        ("a", 0.75),
        ("b", 0.375),
        ("c", 0.25),
        ("d", 0.0),
    ]
    with pytest.raises(InvalidInputError, match="got 1 weights for 2 result lists"):
        score_fusion([[], []], [1])


def test_a_document_listed_twice_in_one_list_counts_once_at_its_best_place() -> None:
    """List 1: a 4, a 3, b 2 -> 1, .5, 0 (the second a is ignored, not added); list 2:
    b 4, c 2 -> 1, 0. Equal weights: a = .5, b = 0 + .5 = .5 (tied: a came first), c = 0."""
    a, b, c = (Document(t, id=t) for t in "abc")
    fused = score_fusion([[(a, 4.0), (a, 3.0), (b, 2.0)], [(b, 4.0), (c, 2.0)]], [1, 1])
    assert [(doc.id, score) for doc, score in fused] == [("a", 0.5), ("b", 0.5), ("c", 0.0)]


def test_documents_are_matched_by_id_and_by_text_only_without_one() -> None:
    """Two documents with the same text and different ids stay two; a document without
    an id is matched across lists by its text. List 1: x 2, y 1, t 0 -> 1, .5, 0; list 2:
    t 4, y 0 -> 1, 0. Equal weights: x = .5, t = 0 + .5 = .5 (after x: first seen),
    y = .25 + 0 = .25."""
    x, y = Document("same", id="x"), Document("same", id="y")
    fused = score_fusion(
        [
            [(x, 2.0), (y, 1.0), (Document("free text"), 0.0)],
            [(Document("free text"), 4.0), (y, 0.0)],
        ],
        [1, 1],
    )
    assert [(doc.id, doc.page_content, score) for doc, score in fused] == [
        ("x", "same", 0.5),
        (None, "free text", 0.5),
        ("y", "same", 0.25),
    ]


# ------------------------------------------------------------------ tokenizer


def test_tokenizer_stopwords_and_stemming() -> None:
    pytest.importorskip("Stemmer")
    tokenizer = BM25Tokenizer(stem=True, stopwords=True)
    assert tokenizer("How do I restart the servers? Restarting: not now") == [
        "restart",
        "server",
        "restart",
        "not",
        "now",
    ]
    assert BM25Tokenizer()("The Servers") == ["the", "servers"]
    assert BM25Tokenizer(language="french", stopwords=True)("Le serveur et la base") == [
        "serveur",
        "base",
    ]


def test_tokenizer_round_trips_through_its_dict() -> None:
    tokenizer = BM25Tokenizer(language="German", stem=True, stopwords=["Der", "die"])
    options = tokenizer.to_dict()
    assert options == {"language": "german", "stem": True, "stopwords": ["der", "die"]}
    assert BM25Tokenizer.from_dict(options) == tokenizer
    with pytest.raises(ConfigurationError, match="unknown BM25Tokenizer option"):
        BM25Tokenizer.from_dict({"language": "english", "lowercase": True})


def test_tokenizer_errors_name_the_problem() -> None:
    with pytest.raises(ConfigurationError, match="no built-in stopword list for 'finnish'"):
        BM25Tokenizer(language="finnish", stopwords=True)
    with pytest.raises(ConfigurationError, match="no stemmer for language 'klingon'"):
        BM25Tokenizer(language="klingon", stem=True)
    with pytest.raises(InvalidInputError, match="stopwords must be True, False or a list"):
        BM25Tokenizer(stopwords="the")  # type: ignore[arg-type]


def test_stemming_without_pystemmer_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "Stemmer", None)
    with pytest.raises(MissingDependencyError, match=r"ragline\[stem\]"):
        BM25Tokenizer(stem=True)("text")


def test_stemmed_bm25_matches_other_word_forms() -> None:
    pytest.importorskip("Stemmer")
    texts = ["restarting the servers nightly", "a cat sleeps"]
    plain = BM25Retriever.from_texts(texts, k=1, idf="lucene", only_matching=True)
    stemmed = BM25Retriever.from_texts(
        texts, k=1, preprocess_func=BM25Tokenizer(stem=True), idf="lucene", only_matching=True
    )
    assert plain.invoke("restart server") == []
    assert [d.page_content for d in stemmed.invoke("restart server")] == [texts[0]]


# ------------------------------------------------------------------ score_key, filter


def test_bm25_scores_and_filter() -> None:
    retriever = BM25Retriever.from_texts(
        TEXTS, [{"n": i} for i in range(4)], ids=IDS, k=4, score_key="score", only_matching=True
    )
    found = retriever.invoke("cat mat")
    assert [d.id for d in found] == ["sat"]
    expected = float(retriever.vectorizer.get_scores(["cat", "mat"])[1])
    assert found[0].metadata == {"n": 1, "score": expected}
    assert retriever.docs[1].metadata == {"n": 1}  # the stored document is untouched
    filtered = BM25Retriever(
        retriever.vectorizer, retriever.docs, filter={"n": {"$gte": 2}}, only_matching=True
    )
    assert [d.id for d in filtered.invoke("cats stock dogs")] == ["stock", "bark"]
    filtered.only_matching = False  # LangChain's ranking: k documents, still filtered
    # one term each, same idf and length: a tie, the later document first (rank_bm25's)
    assert [d.metadata["n"] for d in filtered.invoke("cats stock dogs")] == [3, 2]


def test_vector_store_retriever_puts_relevance_in_metadata() -> None:
    store = InMemoryVectorStore.from_texts(TEXTS, HashingEmbeddings(dimension=64), ids=IDS)
    pairs = store.similarity_search_with_relevance_scores("cats purr", k=2)
    for search_type in ("similarity", "mmr"):
        retriever = store.as_retriever(
            search_type=search_type, search_kwargs={"k": 2}, score_key="relevance"
        )
        found = retriever.invoke("cats purr")
        assert 0 <= found[0].metadata["relevance"] <= 1
        if search_type == "similarity":
            assert [(d.id, d.metadata["relevance"]) for d in found] == [(d.id, s) for d, s in pairs]
    assert "relevance" not in store.as_retriever().invoke("cats purr")[0].metadata


# ------------------------------------------------------------------ ensemble by score


def _parts() -> tuple[InMemoryVectorStore, BM25Retriever]:
    store = InMemoryVectorStore.from_texts(TEXTS, HashingEmbeddings(dimension=64), ids=IDS)
    return store, BM25Retriever.from_texts(TEXTS, ids=IDS, k=3)


def test_ensemble_by_score_asks_ragline_retrievers_for_scores_without_changing_them() -> None:
    store, keyword = _parts()
    dense = store.as_retriever(search_kwargs={"k": 3})
    ensemble = EnsembleRetriever([keyword, dense], weights=[0.5, 0.5], fusion="relative_score")
    found = ensemble.invoke("cat mat")
    assert keyword.score_key is None and dense.score_key is None
    scores = [d.metadata["relevance_score"] for d in found]
    assert scores == sorted(scores, reverse=True) and 0 <= scores[-1] <= scores[0] <= 1
    assert found[0].id == "sat"  # first on both sides: 0.5 * 1 + 0.5 * 1
    assert scores[0] == 1.0
    batched = ensemble.batch(["cat mat", "stock"])
    assert [d.id for d in batched[0]] == [d.id for d in found]


def test_ensemble_by_score_needs_scores_from_other_retrievers() -> None:
    plain = RunnableLambda(lambda q: [Document("x", id="x")])
    ensemble = EnsembleRetriever([plain], fusion="dbsf")
    with pytest.raises(
        InvalidInputError, match=r"without a number in metadata\['relevance_score'\]"
    ):
        ensemble.invoke("q")
    scored = RunnableLambda(lambda q: [Document("x", {"relevance_score": 3}, id="x")])
    assert EnsembleRetriever([scored], fusion="dbsf").invoke("q")[0].metadata == {
        "relevance_score": 1.0
    }
    with pytest.raises(ConfigurationError, match="fusion 'max' is not one of 'rrf'"):
        EnsembleRetriever([plain], fusion="max")


def test_rrf_stays_langchains_and_k_cuts() -> None:
    store, keyword = _parts()
    dense = store.as_retriever(search_kwargs={"k": 3})
    ensemble = EnsembleRetriever([keyword, dense])
    assert all("relevance_score" not in d.metadata for d in ensemble.invoke("cat"))
    assert len(EnsembleRetriever([keyword, dense], k=1).invoke("cat")) == 1


# ------------------------------------------------------------------ HybridRetriever


def test_hybrid_fuses_both_sides_and_reports_child_runs() -> None:
    store, keyword = _parts()
    hybrid = HybridRetriever(store, keyword, k=2, fetch_k=4, dense_weight=0.5,
                             fusion="relative_score")  # fmt: skip
    collector = RunCollectorCallbackHandler()
    found = hybrid.invoke("cat on the mat", {"callbacks": [collector]})
    assert found[0].id == "sat"
    assert len(found) == 2
    names = sorted(run.name for run in collector.traced_runs[0].children)
    assert names == ["BM25Retriever", "VectorStoreRetriever"]
    assert repr(hybrid) == (
        "HybridRetriever(k=2, fetch_k=4, fusion='relative_score', dense_weight=0.5)"
    )


def test_hybrid_dense_weight_favours_the_dense_side() -> None:
    """The two sides disagree: the vector store ranks "cat cat cat ..." first, BM25 ranks
    the short "cat purr" first (document length). Two candidates per side, min-max: each
    side's first gets 1 and its second 0, so the fused score of the dense side's first is
    exactly dense_weight and of the keyword side's first 1 - dense_weight."""
    texts = ["cat purr", "cat cat cat dog bird fish ant eel", "dog", "owl", "emu"]
    ids = ["purr", "many", "dog", "owl", "emu"]
    store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=64), ids=ids)
    keyword = BM25Retriever.from_texts(texts, ids=ids)
    dense_first = [d.id for d, _ in store.similarity_search_with_relevance_scores("cat", k=2)]
    keyword_first = [
        d.id for d in BM25Retriever(keyword.vectorizer, keyword.docs, k=2).invoke("cat")
    ]
    assert (dense_first, keyword_first) == (["many", "purr"], ["purr", "many"])
    for weight, expected in [(0.8, [("many", 0.8), ("purr", 0.2)]),
                             (0.3, [("purr", 0.7), ("many", 0.3)])]:  # fmt: skip
        hybrid = HybridRetriever(store, keyword, k=3, fetch_k=2, dense_weight=weight,
                                 fusion="relative_score")  # fmt: skip
        found = [(d.id, d.metadata["relevance_score"]) for d in hybrid.invoke("cat")]
        assert [name for name, _ in found] == [name for name, _ in expected]
        assert [score for _, score in found] == pytest.approx(
            [score for _, score in expected], abs=1e-12
        )
        assert hybrid.weights == [weight, 1 - weight]  # [dense, keyword]


def test_hybrid_defaults_are_the_ones_chosen_on_the_dev_sets() -> None:
    """adaptive min-max fusion (dense weight 0.5, adaptivity 1, term coverage 1), max(50,
    k) candidates per side: the point of ``benchmarks/retrieval_quality.py --sweep`` chosen
    on the nine dev sets (issue 30; docs/hybrid-search.md). Changing one is a quality
    decision: re-run the sweep. Each side is asked for fetch_k candidates, not k (the
    store returns all 4)."""
    store, keyword = _parts()
    assert repr(HybridRetriever(store, keyword)) == (
        "HybridRetriever(k=4, fetch_k=50, fusion='adaptive', dense_weight=0.5, adaptivity=1, "
        "coverage=1)"
    )
    assert HybridRetriever(store, keyword, k=80).fetch_k == 80
    collector = RunCollectorCallbackHandler()
    HybridRetriever(store, keyword, k=1).invoke("cat", {"callbacks": [collector]})
    sides = collector.traced_runs[0].children
    assert [len(run.outputs["documents"]) for run in sides] == [4, 1]  # BM25: only the match


def test_hybrid_filter_applies_to_both_sides() -> None:
    store = InMemoryVectorStore.from_texts(
        TEXTS, HashingEmbeddings(dimension=64), [{"n": i} for i in range(4)], ids=IDS
    )
    keyword = BM25Retriever.from_texts(TEXTS, [{"n": i} for i in range(4)], ids=IDS)
    hybrid = HybridRetriever(store, keyword, k=4, filter={"n": {"$in": [0, 2]}})
    assert {d.id for d in hybrid.invoke("cat stock purr")} == {"purr", "stock"}


def test_hybrid_needs_ids_and_checks_options() -> None:
    store, _ = _parts()
    with pytest.raises(InvalidInputError, match=r"matches the two sides. results by Document\.id"):
        HybridRetriever(store, BM25Retriever.from_texts(TEXTS))
    with pytest.raises(InvalidInputError, match="dense_weight must be a number between 0 and 1"):
        HybridRetriever(store, BM25Retriever.from_texts(TEXTS, ids=IDS), dense_weight=1.5)

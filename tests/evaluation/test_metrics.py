"""Ranking metrics: hand-computed cases, and equality with pytrec_eval on random runs."""

from __future__ import annotations

import math
import random

import pytest

from ragline.core import InvalidInputError
from ragline.evaluation import mrr_at_k, ndcg_at_k, recall_at_k

pytrec_eval = pytest.importorskip("pytrec_eval")  # the dev extra installs pytrec-eval-terrier

# One query, graded judgements: a=2, b=1, c=0 (judged not relevant), d=-1 (negative).
JUDGED = {"a": 2, "b": 1, "c": 0, "d": -1}
RANKED = ["d", "c", "b", "e", "a"]


def test_ndcg_by_hand() -> None:
    """DCG@3 = 0 (d: negative grade counts 0) + 0 (c) + 1/log2(4) = 0.5; IDCG@3 = 2/log2(2) +
    1/log2(3) = 2.6309 (grades 2, 1, 0); at 10 the 'a' at rank 5 adds 2/log2(6)."""
    idcg = 2 + 1 / math.log2(3)
    assert ndcg_at_k(RANKED, JUDGED, 3) == pytest.approx(0.5 / idcg, abs=1e-15)
    assert ndcg_at_k(RANKED, JUDGED, 10) == pytest.approx((0.5 + 2 / math.log2(6)) / idcg)
    assert ndcg_at_k(["a", "b"], JUDGED, 2) == 1.0  # ideal order
    assert ndcg_at_k(["b", "a"], JUDGED, 1) == 0.5  # gain 1 where 2 was possible
    assert ndcg_at_k(["x"], {"x": 0}, 10) == 0.0  # nothing relevant: 0, not a division error


def test_recall_and_mrr_by_hand() -> None:
    assert recall_at_k(RANKED, JUDGED, 3) == 0.5  # b of {a, b}
    assert recall_at_k(RANKED, JUDGED, 5) == 1.0
    assert mrr_at_k(RANKED, JUDGED, 10) == pytest.approx(1 / 3)  # b at rank 3
    assert mrr_at_k(RANKED, JUDGED, 2) == 0.0  # cut before b
    assert recall_at_k(["a"], {"a": 0}, 10) == 0.0  # no relevant document at all


def test_a_document_listed_twice_counts_once_at_its_first_rank() -> None:
    """Chunks of one document map to the same id: only the best one counts."""
    assert recall_at_k(["x", "x", "x", "a"], {"a": 1}, 2) == 1.0
    assert mrr_at_k(["x", "x", "a", "a"], {"a": 1}, 10) == 0.5


def test_k_must_be_positive() -> None:
    with pytest.raises(InvalidInputError, match="k must be an int >= 1, got 0"):
        ndcg_at_k(["a"], {"a": 1}, 0)


def _pytrec(qrels, runs, k):
    measures = {f"ndcg_cut.{k}", f"recall.{k}", "recip_rank"}
    full = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(
        # strictly decreasing scores keep the given order (trec_eval sorts by score)
        {q: {d: 1.0 / r for r, d in enumerate(ranked, 1)} for q, ranked in runs.items()}
    )
    cut = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(
        {q: {d: 1.0 / r for r, d in enumerate(ranked[:k], 1)} for q, ranked in runs.items()}
    )
    return full, cut


@pytest.mark.parametrize("k", [1, 3, 5, 10, 20])
def test_metrics_equal_pytrec_eval_on_random_runs(k: int) -> None:
    """200 random queries: graded judgements (-1..3, some judged non-relevant), runs of 0-30
    documents drawn from judged and unjudged ids. Every metric equals pytrec_eval's to
    1e-12 (MRR@k against recip_rank on the run cut at k)."""
    rng = random.Random(k)
    qrels, runs = {}, {}
    for q in range(200):
        pool = [f"d{i}" for i in range(40)]
        judged = {d: rng.choice([-1, 0, 1, 1, 2, 3]) for d in rng.sample(pool, rng.randint(1, 8))}
        if not any(g > 0 for g in judged.values()):
            judged[pool[0]] = 1
        qrels[f"q{q}"] = judged
        runs[f"q{q}"] = rng.sample(pool, rng.randint(1, 30))
    full, cut = _pytrec(qrels, runs, k)
    for q, ranked in runs.items():
        assert ndcg_at_k(ranked, qrels[q], k) == pytest.approx(full[q][f"ndcg_cut_{k}"], abs=1e-12)
        assert recall_at_k(ranked, qrels[q], k) == pytest.approx(full[q][f"recall_{k}"], abs=1e-12)
        assert mrr_at_k(ranked, qrels[q], k) == pytest.approx(cut[q]["recip_rank"], abs=1e-12)

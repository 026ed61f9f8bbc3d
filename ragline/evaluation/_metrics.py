"""Ranking metrics at a cutoff k, computed as trec_eval (and so pytrec_eval) computes them.

For one query, ``ranked`` is the list of retrieved document ids, best first (a document
listed twice counts once, at its first place), and ``judged`` maps document ids to their
graded relevance from the qrels (ids not in it are not relevant):

* **nDCG@k** (trec_eval ``ndcg_cut.k``): ``DCG / IDCG`` with ``DCG = sum over the first k
  of gain / log2(rank + 1)``, the gain being the judged relevance (negative grades count
  0), and ``IDCG`` the DCG of the judged grades sorted best first; 0 when no grade is
  positive.
* **Recall@k** (``recall.k``): relevant documents (grade >= 1) among the first k, over
  all relevant documents of the query; 0 when it has none.
* **MRR@k** (``recip_rank`` over the run cut at k): 1 / rank of the first relevant
  document among the first k, else 0.

trec_eval orders a run by score and breaks ties by document id (descending); these
functions take the ranking as given, so give pytrec_eval strictly decreasing scores to
compare (as :func:`ragline.evaluation.write_trec_run` writes them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ragline.core._checks import check_positive_int

__all__ = ["mrr_at_k", "ndcg_at_k", "recall_at_k"]

RELEVANCE_LEVEL = 1  # trec_eval's default: a grade >= 1 is relevant


def _first_k(ranked: Sequence[str], k: int) -> list[str]:
    check_positive_int("k", k)
    return list(dict.fromkeys(ranked))[:k]


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Normalised discounted cumulative gain of the first ``k`` results.

    Example:
        >>> round(ndcg_at_k(["c", "b", "a"], {"a": 2, "b": 1}, 3), 4)
        0.6199
    """
    dcg = sum(
        max(judged.get(doc_id, 0), 0) / math.log2(rank + 1)
        for rank, doc_id in enumerate(_first_k(ranked, k), start=1)
    )
    ideal = sorted((grade for grade in judged.values() if grade > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Share of the relevant documents (grade >= 1) found among the first ``k`` results.

    Example:
        >>> recall_at_k(["x", "a"], {"a": 1, "b": 1, "c": 0}, 2)
        0.5
    """
    relevant = {doc_id for doc_id, grade in judged.items() if grade >= RELEVANCE_LEVEL}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_first_k(ranked, k))) / len(relevant)


def mrr_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document among the first ``k`` (0 if none).

    Example:
        >>> mrr_at_k(["x", "y", "a"], {"a": 1}, 10), mrr_at_k(["x", "y", "a"], {"a": 1}, 2)
        (0.3333333333333333, 0.0)
    """
    for rank, doc_id in enumerate(_first_k(ranked, k), start=1):
        if judged.get(doc_id, 0) >= RELEVANCE_LEVEL:
            return 1.0 / rank
    return 0.0

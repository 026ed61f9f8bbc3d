"""Score-based fusion: a convex combination of normalised scores.

Each retriever's scores live on their own scale (BM25 scores are unbounded, a vector
store's relevance sits in a narrow band of [0, 1]), so they are first normalised per
result list, then combined with weights summing to 1::

    fused(d) = sum_i w_i * norm_i(score_i(d))      (0 for a list that lacks d)

Normalisations (the relative-score and distribution-based fusion of search engines):

* ``"relative_score"`` (min-max): ``(s - min) / (max - min)`` over the list, so its best
  document gets 1 and its last 0 (every document 1 when all scores are equal).
* ``"dbsf"`` (distribution-based): ``(s - (mean - 3 sd)) / (6 sd)`` clipped to [0, 1],
  mean and (population) standard deviation over the list; less sensitive to one outlying
  top score than min-max (every document 1 when the scores do not vary).

Unlike reciprocal rank fusion, how far ahead a document is counts, not only its rank: a
retriever that is sure of its first hit can carry it past the other's weak candidates.

Adaptive weights (:func:`adaptive_weights`, ``HybridRetriever``'s default) go one step
further and set the weights per query, from the scores alone (no labels): min-max
normalisation gives every list's best document 1, however far ahead of its candidates
it is, so a retriever that found nothing in particular (flat scores) pulls as hard as
one with a clear hit. Each list's *peak* measures that::

    peak = (s_1 - mean(s_2 .. s_n)) / (s_1 - min(s_1 .. s_n))     over its n best scores

(1 when the best stands alone above candidates that all score the lowest, near 0 when
the scores are flat; a list of one score has peak 1, an empty or flat list 0). The
weights become ``w_i * peak_i ** strength``, scaled to sum to 1: ``strength=0`` is plain
fusion; a list with flat scores gets no weight and the other decides alone.

A keyword list can be peaked and still wrong: a question worded unlike its answer may
share one rare word with an unrelated passage, which then stands far above the rest.
:func:`term_coverage` measures what a peak cannot: the share of the query's idf mass
(its distinct terms that the index knows, each weighted by its idf) that the keyword
side's first hits contain at all::

    coverage = sum of idf(t) over query terms t found in the first hits
               / sum of idf(t) over all the query's known terms

(1 when the first hits hold every informative word of the query, low when they match
only some common ones). ``HybridRetriever`` multiplies the keyword side's weight by
``coverage ** strength`` after the peaks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import TypeVar

from ragline.core import Document, InvalidInputError
from ragline.core._checks import check_choice

__all__ = [
    "NORMALIZATIONS",
    "adaptive_weights",
    "normalize_scores",
    "score_fusion",
    "score_peak",
    "term_coverage",
]

NORMALIZATIONS = ("relative_score", "dbsf")
_Term = TypeVar("_Term", bound=Hashable)


def normalize_scores(scores: Sequence[float], method: str) -> list[float]:
    """Map one list's scores into [0, 1] (see the module docstring).

    Example:
        >>> normalize_scores([4.0, 3.0, 2.0], "relative_score")
        [1.0, 0.5, 0.0]
        >>> [round(s, 3) for s in normalize_scores([4.0, 3.0, 2.0], "dbsf")]
        [0.704, 0.5, 0.296]
    """
    check_choice("normalization", method, NORMALIZATIONS)
    if not scores:
        return []
    if method == "relative_score":
        low, high = min(scores), max(scores)
    else:
        mean = math.fsum(scores) / len(scores)
        spread = 3 * math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
        low, high = mean - spread, mean + spread
    if not high > low:
        return [1.0] * len(scores)
    width = high - low
    return [min(max((s - low) / width, 0.0), 1.0) for s in scores]


def score_peak(scores: Sequence[float]) -> float:
    """How far a list's best score stands above the others, in [0, 1] (module docstring).

    Example:
        >>> score_peak([9.0, 1.0, 1.0])  # one clear hit
        1.0
        >>> score_peak([3.0, 2.0, 1.0])
        0.75
        >>> score_peak([0.8, 0.8, 0.8])  # flat: says nothing
        0.0
    """
    if not scores:
        return 0.0
    if len(scores) == 1:
        return 1.0
    best, low = scores[0], min(scores)
    if not best > low:
        return 0.0
    rest = math.fsum(scores[1:]) / (len(scores) - 1)
    return min(max((best - rest) / (best - low), 0.0), 1.0)


def adaptive_weights(
    score_lists: Sequence[Sequence[float]],
    weights: Sequence[float],
    *,
    strength: float,
    depth: int,
) -> list[float]:
    """Per-query weights: ``weights[i] * peak_i ** strength`` over each list's ``depth``
    best scores, scaled to sum to 1 (the base weights, scaled, when every peak is 0).

    Args:
        score_lists: each retriever's scores for one query, best first.
        weights: the base weights (non-negative, summing to a positive number).
        strength: how much the peaks count (0: not at all).
        depth: how many of each list's best scores the peak looks at.

    Example:
        >>> adaptive_weights([[0.9, 0.5, 0.5], [7.0, 7.0, 7.0]], [0.5, 0.5], strength=1, depth=3)
        [1.0, 0.0]
        >>> adaptive_weights([[3.0, 2.0, 1.0], [9.0, 1.0, 1.0]], [0.5, 0.5], strength=1, depth=3)
        [0.42857142857142855, 0.5714285714285714]
    """
    if len(score_lists) != len(weights):
        raise InvalidInputError(f"got {len(weights)} weights for {len(score_lists)} result lists")
    total = math.fsum(weights)
    if not total > 0:
        raise InvalidInputError(f"weights must sum to a positive number, got {list(weights)}")
    peaks = [score_peak(scores[:depth]) for scores in score_lists]
    if strength == 0 or len(set(peaks)) == 1:  # equal peaks change nothing
        return [weight / total for weight in weights]
    scaled = [weight * peak**strength for peak, weight in zip(peaks, weights, strict=True)]
    scaled_total = math.fsum(scaled)
    if not scaled_total > 0:
        return [weight / total for weight in weights]
    return [weight / scaled_total for weight in scaled]


def coverage_weights(weights: Sequence[float], coverage: float, exponent: float) -> list[float]:
    """Two fusion weights (dense, keyword) with the keyword weight multiplied by
    ``coverage ** exponent`` (a query's :func:`term_coverage`), scaled to sum to 1; the
    weights as given when both come to 0.

    Example:
        >>> coverage_weights([0.5, 0.5], 0.25, 1)
        [0.8, 0.2]
    """
    dense, keyword = weights[0], weights[1] * coverage**exponent
    if not dense + keyword > 0:
        return list(weights)
    return [dense / (dense + keyword), keyword / (dense + keyword)]


def term_coverage(query_idf: Mapping[_Term, float], hits: Sequence[Collection[_Term]]) -> float:
    """The share of a query's idf mass found in the first hits of a keyword search, in
    [0, 1] (module docstring); 0 when the query has no known term.

    Args:
        query_idf: each distinct query term the index knows (a word, or its number in
            the index), with its idf (>= 0).
        hits: the terms of each first hit, named as in ``query_idf`` (any collection; a
            term counts once however many hits hold it).

    Example:
        >>> term_coverage({"purr": 2.0, "the": 0.5}, [{"the", "cat"}, {"dog"}])
        0.2
        >>> term_coverage({"purr": 2.0, "the": 0.5}, [{"the"}, {"purr", "cat"}])
        1.0
        >>> term_coverage({}, [{"cat"}])
        0.0
    """
    total = found = 0.0
    for term, weight in query_idf.items():
        total += weight
        for hit in hits:
            if term in hit:
                found += weight
                break
    return min(found / total, 1.0) if total > 0 else 0.0


def score_fusion(
    scored_lists: Sequence[Sequence[tuple[Document, float]]],
    weights: Sequence[float],
    *,
    normalization: str = "relative_score",
    key: Callable[[Document], Hashable] | None = None,
) -> list[tuple[Document, float]]:
    """Fuse ``(document, score)`` lists by a weighted sum of normalised scores.

    Args:
        scored_lists: one list per retriever, best first.
        weights: one non-negative weight per list (scaled to sum to 1).
        normalization: ``"relative_score"`` or ``"dbsf"``.
        key: identifies a document across lists (default: its ``id``, else its text).

    Returns:
        ``(document, fused score)`` pairs, best first; ties keep the order of first
        appearance; each document is the first copy seen.

    Example:
        >>> a, b, c = Document("a"), Document("b"), Document("c")
        >>> fused = score_fusion([[(a, 9.0), (b, 5.0), (c, 1.0)], [(b, 0.9), (c, 0.8)]], [0.5, 0.5])
        >>> [(d.page_content, s) for d, s in fused]
        [('b', 0.75), ('a', 0.5), ('c', 0.0)]
    """
    if len(scored_lists) != len(weights):
        raise InvalidInputError(f"got {len(weights)} weights for {len(scored_lists)} result lists")
    total = math.fsum(weights)
    if not total > 0:
        raise InvalidInputError(f"weights must sum to a positive number, got {list(weights)}")
    identify = key or _default_key
    fused: dict[Hashable, float] = {}
    first_copy: dict[Hashable, Document] = {}
    for pairs, weight in zip(scored_lists, weights, strict=True):
        share = weight / total
        seen_here: set[Hashable] = set()
        normalized = normalize_scores([score for _, score in pairs], normalization)
        for (document, _), value in zip(pairs, normalized, strict=True):
            name = identify(document)
            if name in seen_here:
                continue  # a document listed twice counts once, at its best place
            seen_here.add(name)
            first_copy.setdefault(name, document)
            fused[name] = fused.get(name, 0.0) + share * value
    order = sorted(first_copy, key=lambda name: -fused[name])  # stable: first appearance
    return [(first_copy[name], fused[name]) for name in order]


def _default_key(document: Document) -> Hashable:
    return ("id", document.id) if document.id is not None else ("text", document.page_content)

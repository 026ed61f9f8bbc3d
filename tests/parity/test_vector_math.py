"""Parity: ``cosine_similarity`` (langchain_community.utils.math, its numpy path) and
``maximal_marginal_relevance`` (langchain_core.vectorstores.utils) against LangChain's:
the same numbers to the last bit, dtypes and shapes, zero rows, empty inputs, every k and
lambda on random embeddings, and the errors for mismatched widths and a zero query.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from langchain_core.vectorstores.utils import maximal_marginal_relevance as lc_mmr

from ragline.vectorstores import (
    cosine_similarity,
    cosine_similarity_top_k,
    maximal_marginal_relevance,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # langchain_community's sunset notice
    lc_math = importlib.import_module("langchain_community.utils.math")
    lc_community_utils = importlib.import_module("langchain_community.vectorstores.utils")

COVERS = {
    "vectorstores.cosine_similarity",
    "vectorstores.cosine_similarity_top_k",
    "vectorstores.maximal_marginal_relevance",
}

RNG = np.random.default_rng(7)
EMBEDDINGS = RNG.normal(size=(40, 384))


def same_array(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert type(ours) is type(theirs)
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ([[1, 0], [1, 1]], [[1, 0]]),
        ([[1, 2, 3], [0, 0, 0]], [[0, 0, 0], [3, 2, 1]]),
        ([[np.inf, 1.0]], [[1.0, 1.0]]),
        ([], []),
        ([[1.0, 2.0]], []),
        ([], [[1.0]]),
        (EMBEDDINGS[:5], EMBEDDINGS[5:12]),
        (EMBEDDINGS[:5].astype(np.float32), EMBEDDINGS[5:12].astype(np.float32)),
        (EMBEDDINGS[:3].astype(np.float32), EMBEDDINGS[5:7]),
        (list(EMBEDDINGS[:3]), list(EMBEDDINGS[3:6])),
    ],
)
def test_cosine_similarity_gives_langchains_array(left, right):
    same_array(cosine_similarity(left, right), lc_math.cosine_similarity(left, right))


def test_cosine_similarity_values_and_width_errors():
    assert cosine_similarity([[1, 0], [1, 1], [0, 0]], [[2, 0]]).tolist() == [
        [1.0],
        [0.7071067811865475],
        [0.0],
    ]
    with pytest.raises(ValueError) as theirs:
        lc_math.cosine_similarity([[1, 0]], [[1, 0, 0]])
    with pytest.raises(ValueError, match=r"same width; got shapes \(1, 2\) and \(1, 3\)"):
        cosine_similarity([[1, 0]], [[1, 0, 0]])
    assert "(1, 3)" in str(theirs.value)
    # a 1-D input: LangChain fails with an IndexError from a shape lookup; ragline says why
    with pytest.raises(IndexError):
        lc_math.cosine_similarity([1.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="2-D"):
        cosine_similarity([1.0, 0.0], [1.0, 0.0])


def test_mmr_picks_langchains_indices():
    query = RNG.normal(size=384)
    candidates = EMBEDDINGS[:20]
    for k in (-1, 0, 1, 2, 4, 10, 20, 25):
        for lambda_mult in (0.0, 0.25, 0.5, 0.9, 1.0):
            ours = maximal_marginal_relevance(query, candidates, lambda_mult=lambda_mult, k=k)
            theirs = lc_mmr(query, candidates, lambda_mult, k)
            assert ours == theirs, (k, lambda_mult)
            assert all(type(i) is int for i in ours)
    assert maximal_marginal_relevance(query, candidates) == lc_mmr(query, candidates)
    # float32 embeddings, a (1, d) query, a list of rows
    q32, c32 = query.astype(np.float32), list(candidates.astype(np.float32))
    assert maximal_marginal_relevance(q32[None, :], c32, 0.3, 6) == lc_mmr(
        q32[None, :], c32, 0.3, 6
    )


def test_mmr_small_cases_ties_and_zero_rows():
    query = np.array([1.0, 0.2])
    rows = [[1, 0], [0.9, 0.1], [0, 1], [1, 0.2], [0, 0], [1, 0]]
    for k in range(8):
        for lambda_mult in (0.0, 0.5, 1.0):
            ours = maximal_marginal_relevance(query, rows, lambda_mult, k)
            assert ours == lc_mmr(query, rows, lambda_mult, k), (k, lambda_mult)
    assert maximal_marginal_relevance(query, rows, 0.5, 4) == [3, 0, 1, 2]
    assert maximal_marginal_relevance(query, [[1, 0], [1, 0]], 0.5, 3) == [0, 1]
    assert maximal_marginal_relevance(query, [], 0.5, 3) == lc_mmr(query, [], 0.5, 3) == []
    # the community copy agrees where its results are defined
    assert maximal_marginal_relevance(
        query, rows, 0.5, 5
    ) == lc_community_utils.maximal_marginal_relevance(query, rows, 0.5, 5)


def test_mmr_errors():
    with pytest.raises(ValueError) as theirs:
        lc_mmr(np.zeros(2), [[1, 0], [0, 1]], 0.5, 2)
    with pytest.raises(ValueError, match="undefined"):
        maximal_marginal_relevance(np.zeros(2), [[1, 0], [0, 1]], 0.5, 2)
    assert "NaN" in str(theirs.value)
    with pytest.raises(ValueError):
        lc_mmr(np.array([1.0, 0.0]), [[1, 0, 0]], 0.5, 2)
    with pytest.raises(ValueError, match="same width"):
        maximal_marginal_relevance(np.array([1.0, 0.0]), [[1, 0, 0]], 0.5, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        picks = maximal_marginal_relevance(np.array([1.0, 0.0]), [[np.nan, 0], [1, 0]], 0.5, 2)
    assert picks == lc_mmr(np.array([1.0, 0.0]), [[np.nan, 0], [1, 0]], 0.5, 2)
    assert [w.category for w in caught] == [RuntimeWarning, RuntimeWarning]


TOP_K_LEFT = [[1, 0], [0, 1]]
TOP_K_RIGHT = [[1, 0.1], [-1, 0.2], [0.5, 0.5]]


@pytest.mark.parametrize(
    ("left", "right", "options"),
    [
        (TOP_K_LEFT, TOP_K_RIGHT, {}),
        (TOP_K_LEFT, TOP_K_RIGHT, {"top_k": None}),  # at most one pair per row of X
        (TOP_K_LEFT, TOP_K_RIGHT, {"top_k": 0}),
        (TOP_K_LEFT, TOP_K_RIGHT, {"top_k": 2}),
        (TOP_K_LEFT, TOP_K_RIGHT, {"top_k": 10, "score_threshold": 0.5}),
        ([[1, 0]], [[-1, 0.1], [0.5, -1], [1, 1]], {"top_k": 3, "score_threshold": -0.5}),
        ([[1, 0]], [[0, 1], [0, 2]], {}),  # only zero similarities: every pair, 0.0
        ([[1, 2, 3], [0, 0, 0]], [[3, 2, 1], [1, 2, 3]], {"top_k": 4}),
        ([], [[1.0]], {}),
        ([[1.0]], [], {}),
        (EMBEDDINGS[:6], EMBEDDINGS[6:20], {"top_k": 7}),
        (EMBEDDINGS[:6], EMBEDDINGS[6:20], {"top_k": 50, "score_threshold": 0.05}),
        (EMBEDDINGS[:3].astype(np.float32), EMBEDDINGS[3:9].astype(np.float32), {}),
    ],
)
def test_cosine_similarity_top_k_gives_langchains_pairs(left, right, options):
    """Pairs (as numpy integer tuples) and scores (floats) in LangChain's order."""
    ours = cosine_similarity_top_k(left, right, **options)
    theirs = lc_math.cosine_similarity_top_k(left, right, **options)
    assert ours == theirs
    assert [type(i) for pair in ours[0] for i in pair] == [
        type(i) for pair in theirs[0] for i in pair
    ]
    assert [type(score) for score in ours[1]] == [type(score) for score in theirs[1]]


def test_cosine_similarity_top_k_keeps_the_threshold():
    """Where no pair reaches score_threshold LangChain returns the pairs below it, each
    scored 0.0; ragline returns none and warns."""
    left, right = [[1, 0]], [[-1, 0.1], [0, 1]]
    theirs = lc_math.cosine_similarity_top_k(left, right, score_threshold=0.5)
    assert theirs == ([(0, 1), (0, 0)], [0.0, 0.0])
    with pytest.warns(UserWarning, match="below score_threshold 0.5"):
        assert cosine_similarity_top_k(left, right, score_threshold=0.5) == ([], [])
    assert cosine_similarity_top_k([[1, 0]], [[1, 1], [0, 1]], top_k=3, score_threshold=0.5) == (
        [(0, 0)],
        [0.7071067811865475],
    )
    # a pair zeroed for being below a negative threshold outranks one above it there
    left, right = [[1, 0]], [[-1, 0.1], [-0.3, 1]]
    assert lc_math.cosine_similarity_top_k(left, right, score_threshold=-0.5) == ([(0, 0)], [0.0])
    with pytest.warns(UserWarning, match="below score_threshold -0.5"):
        pairs, scores = cosine_similarity_top_k(left, right, score_threshold=-0.5)
    assert pairs == [(0, 1)]
    assert scores == [float(cosine_similarity(left, right)[0, 1])]

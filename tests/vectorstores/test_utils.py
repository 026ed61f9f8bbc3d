"""Vector checks, relevance functions and MMR (ragline.vectorstores.utils)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragline.core import ConfigurationError, DimensionError
from ragline.vectorstores.utils import (
    RELEVANCE_FUNCTIONS,
    as_vector_matrix,
    cosine_similarity_matrix,
    maximal_marginal_relevance,
    normalize_rows,
    relevance_function,
)


def test_as_vector_matrix_returns_contiguous_float32() -> None:
    matrix = as_vector_matrix([[1, 2], [3, 4]], dimension=2)
    assert matrix.dtype == np.float32 and matrix.flags.c_contiguous
    assert matrix.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert as_vector_matrix(np.zeros((0, 3)), dimension=3).shape == (0, 3)


@pytest.mark.parametrize(
    ("vectors", "dimension", "fragment"),
    [
        ([[1.0, 2.0], [3.0]], None, "list of numbers of one length"),
        ([1.0, 2.0], None, "got an array of shape (2,)"),
        (
            [[1.0, 2.0]],
            3,
            "query vector has dimension 2 but this store holds vectors of dimension 3",
        ),
        ([[1.0, 0.0], [math.nan, 0.0]], 2, "query vector number 1 contains NaN or infinite"),
        ([[math.inf, 0.0]], None, "number 0 contains NaN or infinite"),
        ([["a", "b"]], None, "list of numbers"),
        ([[]], None, "at least one dimension"),
    ],
)
def test_as_vector_matrix_rejects(vectors: object, dimension: int | None, fragment: str) -> None:
    with pytest.raises(DimensionError) as info:
        as_vector_matrix(vectors, dimension=dimension, what="query vector")
    assert fragment in str(info.value)


@pytest.mark.filterwarnings("error")  # and no overflow warning escapes
@pytest.mark.parametrize("rows", [2, 3000])  # a few queries, and a bulk add (sum of squares)
def test_as_vector_matrix_checks_finiteness_exactly(rows: int) -> None:
    huge = np.full((rows, 2), 3e38, dtype=np.float32)  # finite, but its square overflows
    assert as_vector_matrix(huge, dimension=2) is huge
    huge[rows - 1, 1] = np.inf
    with pytest.raises(DimensionError, match=f"vector number {rows - 1} contains NaN"):
        as_vector_matrix(huge, dimension=2)
    huge[rows - 1, 1] = np.nan
    with pytest.raises(DimensionError, match=f"vector number {rows - 1} contains NaN"):
        as_vector_matrix(huge, dimension=2)


def test_as_vector_matrix_private_never_shares_memory_with_the_input() -> None:
    held = np.ones((2, 3), dtype=np.float32)
    assert as_vector_matrix(held, dimension=3) is held  # not private: no copy
    inputs = [
        held,  # float32 C-contiguous: copied
        held[:, :2],  # a strided view: converted
        held.astype(np.float64),  # another dtype: converted
        [held[0], held[1]],  # a list of rows: converted
        [[1.0, 2.0, 3.0]],
        memoryview(held),  # not an ndarray: viewed by numpy, so copied
    ]
    for vectors in inputs:
        matrix = as_vector_matrix(vectors, dimension=None, private=True)
        assert not np.may_share_memory(matrix, held)
        matrix[:] = 7.0
    assert held.tolist() == [[1.0] * 3] * 2


def test_normalize_rows_keeps_zero_rows() -> None:
    rows = normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    assert rows.ravel().tolist() == pytest.approx([0.6, 0.8, 0.0, 0.0])


def test_cosine_similarity_matrix() -> None:
    sims = cosine_similarity_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[5.0, 5.0]]))
    assert sims.shape == (2, 1)
    assert sims[:, 0] == pytest.approx([math.sqrt(0.5)] * 2, abs=1e-6)


@pytest.mark.parametrize("angle", [0, 30, 60, 90, 120, 180])
def test_every_score_kind_gives_the_same_relevance_for_unit_vectors(angle: int) -> None:
    """(1 + cos) / 2 whichever native score a backend returns, so thresholds are portable."""
    cos = math.cos(math.radians(angle))
    native = {
        "cosine_similarity": cos,
        "cosine_distance": 1 - cos,
        "inner_product": cos,
        "inner_product_distance": 1 - cos,
        "l2": math.sqrt(2 - 2 * cos),
        "squared_l2": 2 - 2 * cos,
    }
    assert set(native) == set(RELEVANCE_FUNCTIONS)
    for kind, score in native.items():
        relevance = float(relevance_function(kind)(np.array([score]))[0])
        assert relevance == pytest.approx((1 + cos) / 2, abs=1e-9), kind


def test_relevance_is_clipped_to_the_unit_interval() -> None:
    """Vectors that are not unit length can give native scores beyond the unit-vector range."""
    assert relevance_function("inner_product")(np.array([3.0, -4.0])).tolist() == [1.0, 0.0]
    assert relevance_function("l2")(np.array([0.0, 5.0])).tolist() == [1.0, 0.0]
    assert relevance_function("squared_l2")(np.array([9.0])).tolist() == [0.0]


def test_unknown_score_kind_lists_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="'cosine_similarity', 'cosine_distance'"):
        relevance_function("hamming")


def _unit(angle: float) -> list[float]:
    return [math.cos(math.radians(angle)), math.sin(math.radians(angle))]


def test_mmr_by_hand() -> None:
    """Query at 10 degrees; candidates at 2, 0 and 50 degrees. First pick: 2 (nearest).
    Then 0 scores 0.5*cos10 - 0.5*cos2 = -0.007 and 50 scores 0.5*cos40 - 0.5*cos48 =
    +0.048: MMR takes 50, plain similarity would take 0."""
    candidates = np.array([_unit(2), _unit(0), _unit(50)])
    query = np.array(_unit(10))
    assert maximal_marginal_relevance(query, candidates, k=2, lambda_mult=0.5) == [0, 2]
    assert maximal_marginal_relevance(query, candidates, k=2, lambda_mult=1.0) == [0, 1]
    assert maximal_marginal_relevance(query, candidates, k=3, lambda_mult=0.5) == [0, 2, 1]
    assert maximal_marginal_relevance(query, candidates, k=10, lambda_mult=0.5) == [0, 2, 1]


def test_mmr_edge_cases() -> None:
    query = np.array([1.0, 0.0])
    assert maximal_marginal_relevance(query, np.zeros((0, 2)), k=3, lambda_mult=0.5) == []
    # an exact duplicate of the first pick loses to an orthogonal candidate when
    # lambda < 0.5; at 0.5 both score 0 and the tie goes to the earlier candidate
    duplicates = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert maximal_marginal_relevance(query, duplicates, k=2, lambda_mult=0.4) == [0, 2]
    assert maximal_marginal_relevance(query, duplicates, k=2, lambda_mult=0.5) == [0, 1]


def test_mmr_matches_a_naive_implementation() -> None:
    """The vectorized version picks exactly what the textbook O(k * n^2) loop picks."""
    rng = np.random.default_rng(0)
    candidates = rng.normal(size=(60, 16)).astype(np.float32)
    query = rng.normal(size=16).astype(np.float32)
    sims = cosine_similarity_matrix(candidates, candidates)
    to_query = cosine_similarity_matrix(candidates, query[None, :])[:, 0]
    for lambda_mult in (0.0, 0.25, 0.5, 0.9, 1.0):
        picked = [int(np.argmax(to_query))]
        while len(picked) < 10:
            scores = {
                i: lambda_mult * to_query[i] - (1 - lambda_mult) * max(sims[i][j] for j in picked)
                for i in range(60)
                if i not in picked
            }
            picked.append(max(scores, key=lambda i: (scores[i], -i)))
        assert (
            maximal_marginal_relevance(query, candidates, k=10, lambda_mult=lambda_mult) == picked
        )

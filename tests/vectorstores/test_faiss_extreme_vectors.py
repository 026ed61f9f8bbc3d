"""Cosine FAISS stores with vectors whose squared length does not fit a float32.

Cosine similarity does not depend on a vector's length, so a query (or a stored vector)
scaled by 1e30 or by 3e-30 must find what its unit form finds, with the same scores.
Its float32 sum of squares overflows to infinity (1e20 per component is enough) or
underflows to zero, and a normalisation through it turned the vector into zeros or
NaN: the query found nothing, a stored vector was never found again.

Hand-checkable data: x = (1, 0, 0), y = (0, 1, 0), xy = (0.6, 0.8, 0); a query along
(0.6, 0.8, 0) has cosines xy 1.0, y 0.8, x 0.6.
"""

from __future__ import annotations

import numpy as np
import pytest

from ragline.core import DimensionError
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import FAISS

pytest.importorskip("faiss")

ROWS = {"x": [1.0, 0.0, 0.0], "y": [0.0, 1.0, 0.0], "xy": [0.6, 0.8, 0.0]}
EXPECTED = [("xy", 1.0), ("y", 0.8), ("x", 0.6)]
SCALES = [1e30, 1e20, 3e38, 3e-30, 1e-36]


def _store(rows: dict[str, list[float]]) -> FAISS:
    return FAISS.from_embeddings(
        list(zip(rows, rows.values(), strict=True)),
        HashingEmbeddings(dimension=3),
        ids=list(rows),
        metric="cosine",
    )


def _pairs(found: list[tuple[object, float]]) -> list[tuple[str | None, float]]:
    return [(document.id, round(float(score), 5)) for document, score in found]  # type: ignore[attr-defined]


@pytest.mark.parametrize("scale", SCALES)
def test_a_scaled_query_finds_what_its_unit_form_finds(scale: float) -> None:
    store = _store(ROWS)
    query = [0.6 * scale, 0.8 * scale, 0.0]
    as_list = store.similarity_search_with_score_by_vector(query, k=3)
    as_row = store.similarity_search_with_score_by_vector(np.array(query, np.float32), k=3)
    assert _pairs(as_list) == _pairs(as_row) == EXPECTED


@pytest.mark.parametrize("scale", [1e30, 3e-30])
def test_mmr_with_a_scaled_query_picks_as_with_its_unit_form(scale: float) -> None:
    store = _store(ROWS)
    unit = store.max_marginal_relevance_search_by_vector([0.6, 0.8, 0.0], k=2, fetch_k=3)
    scaled = store.max_marginal_relevance_search_by_vector(
        [0.6 * scale, 0.8 * scale, 0.0], k=2, fetch_k=3
    )
    assert [d.id for d in scaled] == [d.id for d in unit]
    assert scaled[0].id == "xy"


@pytest.mark.parametrize("scale", [1e30, 3e-30])
def test_a_scaled_stored_vector_is_found(scale: float) -> None:
    """Stored with a length far from 1, found as its direction says, nothing lost."""
    store = _store({**ROWS, "xy": [0.6 * scale, 0.8 * scale, 0.0]})
    found = store.similarity_search_with_score_by_vector([0.6, 0.8, 0.0], k=3)
    assert _pairs(found) == EXPECTED
    along_x = store.similarity_search_with_score_by_vector([1.0, 0.0, 0.0], k=3)
    assert _pairs(along_x) == [("x", 1.0), ("xy", 0.6), ("y", 0.0)]


def test_a_zero_query_still_scores_zero() -> None:
    """A zero vector has no direction: every cosine is 0, as before."""
    found = _store(ROWS).similarity_search_with_score_by_vector([0.0, 0.0, 0.0], k=3)
    assert sorted(score for _, score in found) == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_a_non_finite_query_is_a_clear_error(value: float) -> None:
    with pytest.raises(DimensionError, match="contains NaN or infinite values"):
        _store(ROWS).similarity_search_by_vector([value, 1.0, 0.0], k=1)

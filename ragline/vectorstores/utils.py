"""Numeric helpers every vector store shares: vector checks, relevance scores, MMR.

All of them work on whole numpy arrays (no Python loop over vectors), so a store
answers a batch of queries with a few matrix operations.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import numpy as np

from ragline.core._checks import check_choice
from ragline.core.exceptions import DimensionError

__all__ = [
    "METRICS",
    "RELEVANCE_FUNCTIONS",
    "DistanceStrategy",
    "as_vector_matrix",
    "cosine_similarity",
    "cosine_similarity_matrix",
    "cosine_similarity_top_k",
    "maximal_marginal_relevance",
    "mmr_picks",
    "normalize_rows",
    "relevance_function",
]

_FLOAT32 = np.dtype(np.float32)
_dot = np.dot
_add_reduce = np.add.reduce
_SMALL_MATRIX = 4096  # values: up to ten 384-dimension queries

# The distance metrics a store may be built with.
METRICS = ("cosine", "inner_product", "l2")


class DistanceStrategy(str, Enum):
    """LangChain's names for a store's distance (``FAISS(distance_strategy=...)``).

    The values are LangChain's strings, so either library's member (or the plain
    string) is accepted where the other's is expected. ragline's own stores are built
    with ``metric=`` ("cosine", "inner_product", "l2"); see
    :class:`ragline.vectorstores.FAISS` for how each strategy maps to a metric and to
    LangChain's scores.
    """

    EUCLIDEAN_DISTANCE = "EUCLIDEAN_DISTANCE"
    MAX_INNER_PRODUCT = "MAX_INNER_PRODUCT"
    DOT_PRODUCT = "DOT_PRODUCT"
    JACCARD = "JACCARD"
    COSINE = "COSINE"


def _clip(values: np.ndarray) -> np.ndarray:
    if type(values) is not np.ndarray:  # a numpy scalar (from 0-d input) has no out=
        return np.clip(values, 0.0, 1.0)
    # two in-place ufunc calls on the fresh temporary: several times cheaper than
    # np.clip's Python-level dispatch on the few scores of one query
    return np.minimum(np.maximum(values, 0.0, out=values), 1.0, out=values)


# Native score kind -> a function mapping an array of native scores to relevance in
# [0, 1], higher is more relevant. Every mapping gives the SAME relevance for the same
# pair of unit-length vectors, (1 + cosine) / 2, so a score_threshold means the same
# thing on every backend and metric. For vectors that are not unit length, inner product
# and L2 relevances are clipped to [0, 1] (still monotonic, no longer strictly).
RELEVANCE_FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    # cosine similarity in [-1, 1], higher is closer
    "cosine_similarity": lambda s: _clip((1.0 + s) / 2.0),
    # cosine distance 1 - cosine in [0, 2], lower is closer (Redis COSINE)
    "cosine_distance": lambda d: _clip(1.0 - d / 2.0),
    # inner product, equal to cosine on unit vectors, higher is closer (FAISS IP)
    "inner_product": lambda s: _clip((1.0 + s) / 2.0),
    # 1 - inner product, lower is closer (Redis IP)
    "inner_product_distance": lambda d: _clip(1.0 - d / 2.0),
    # Euclidean distance; on unit vectors d**2 = 2 - 2 * cosine
    "l2": lambda d: _clip(1.0 - d * d / 4.0),
    # squared Euclidean distance, lower is closer (FAISS L2, Redis L2)
    "squared_l2": lambda d2: _clip(1.0 - d2 / 4.0),
}


def _unit(value: float) -> float:
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value  # NaN stays NaN, as np.clip


# The same mappings for one Python float (same float64 arithmetic, so the same results):
# a few scores per query cost less in plain Python than in numpy calls.
RELEVANCE_SCALAR_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "cosine_similarity": lambda s: _unit((1.0 + s) / 2.0),
    "cosine_distance": lambda d: _unit(1.0 - d / 2.0),
    "inner_product": lambda s: _unit((1.0 + s) / 2.0),
    "inner_product_distance": lambda d: _unit(1.0 - d / 2.0),
    "l2": lambda d: _unit(1.0 - d * d / 4.0),
    "squared_l2": lambda d2: _unit(1.0 - d2 / 4.0),
}


def relevance_function(score_kind: str) -> Callable[[np.ndarray], np.ndarray]:
    """Return the function turning native scores of ``score_kind`` into relevance in [0, 1].

    Args:
        score_kind: one of the keys of :data:`RELEVANCE_FUNCTIONS`.

    Raises:
        ConfigurationError: an unknown score kind (the message lists the known ones).

    Example:
        >>> float(relevance_function("cosine_distance")(np.array([0.5]))[0])
        0.75
    """
    return RELEVANCE_FUNCTIONS[check_choice("score kind", score_kind, RELEVANCE_FUNCTIONS)]


def as_vector_matrix(
    vectors: Any, *, dimension: int | None, what: str = "vector", private: bool = False
) -> np.ndarray:
    """Check vectors and return them as a C-contiguous float32 matrix of shape (n, d).

    Args:
        vectors: a sequence of vectors or a 2-D array (a single 1-D vector is NOT accepted
            here; wrap it in a list).
        dimension: the dimension every vector must have, or ``None`` to accept any.
        what: how to name the vectors in error messages ("query vector", "embedding" ...).
        private: return a matrix that shares no memory with ``vectors``, so the caller may
            keep it or change it in place: the array this call converted (a list's
            values, another dtype), else a copy.

    Raises:
        DimensionError: ragged or non-numeric input, a wrong dimension, or NaN / infinite
            values (the message names the first offending row).

    Example:
        >>> as_vector_matrix([[1, 0], [0, 1]], dimension=2).dtype
        dtype('float32')
    """
    if type(vectors) is np.ndarray and vectors.dtype == _FLOAT32:
        matrix = vectors  # the usual case (an Embeddings returning arrays): no conversion call
    else:
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError) as err:
            raise DimensionError(
                f"each {what} must be a list of numbers of one length: {err}"
            ) from err
    if matrix.ndim != 2:
        raise DimensionError(
            f"expected a list of {what}s (a 2-D array), got an array of shape {matrix.shape}"
        )
    if dimension is not None and matrix.shape[1] != dimension:
        raise DimensionError(
            f"{what} has dimension {matrix.shape[1]} but this store holds vectors of "
            f"dimension {dimension}"
        )
    if matrix.shape[0] and matrix.shape[1] == 0:
        raise DimensionError(f"{what}s must have at least one dimension")
    if not matrix.flags.c_contiguous:
        matrix = np.ascontiguousarray(matrix)
    if not _all_finite(matrix):
        finite = np.isfinite(matrix).all(axis=1)
        if not finite.all():
            row = int(np.argmin(finite))
            raise DimensionError(
                f"{what} number {row} contains NaN or infinite values; every value must be finite"
            )
    if private and not _converted(matrix, vectors):
        matrix = matrix.copy()
    return matrix


def _all_finite(matrix: np.ndarray) -> bool:
    """Whether a C-contiguous float32 matrix holds no NaN or infinity."""
    if matrix.size <= _SMALL_MATRIX:
        # a few queries: NaN and inf survive a sum, which float64 cannot overflow here
        return math.isfinite(_add_reduce(matrix, axis=None, dtype=np.float64))
    # NaN and inf survive a sum of squares, so one BLAS dot product (no n x d temporary,
    # several times faster than np.isfinite) clears the usual case; only a non-finite
    # total (NaN, inf, or the overflow of huge finite values) pays for the exact check.
    flat = matrix.reshape(-1)
    with np.errstate(over="ignore", invalid="ignore"):
        total = _dot(flat, flat)
    return math.isfinite(total) or bool(np.isfinite(matrix).all())


def _converted(matrix: np.ndarray, source: Any) -> bool:
    """Whether ``matrix`` is a new array made here from ``source`` (shares no memory with it).

    A list or tuple is always converted into a new array; an ndarray only when its dtype
    or layout changed. Anything else (a tensor, a buffer) may be viewed without a copy,
    so it counts as not converted.
    """
    if type(source) in (list, tuple):
        return True
    return (
        isinstance(source, np.ndarray)
        and matrix is not source
        and not np.may_share_memory(matrix, source)
    )


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Return a copy of ``matrix`` with every row scaled to unit length (zero rows stay zero).

    Example:
        >>> normalize_rows(np.array([[3.0, 4.0]], dtype=np.float32)).tolist()
        [[0.6000000238418579, 0.800000011920929]]
    """
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # a zero vector has no direction; keep it zero
    return (matrix / norms).astype(np.float32, copy=False)


def cosine_similarity_matrix(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``left`` with every row of ``right``: shape (n, m).

    Example:
        >>> cosine_similarity_matrix(np.eye(2), np.array([[2.0, 0.0]])).tolist()
        [[1.0], [0.0]]
    """
    return (
        normalize_rows(np.asarray(left, dtype=np.float32))
        @ normalize_rows(np.asarray(right, dtype=np.float32)).T
    )


def _greedy_mmr(
    query_vector: np.ndarray,
    candidate_vectors: np.ndarray,
    *,
    k: int,
    lambda_mult: float,
) -> list[int]:
    """Pick ``k`` candidates that are relevant to the query and diverse among themselves.

    Greedy MMR with cosine similarity: the first pick is the candidate most similar to the
    query; each next pick maximises ``lambda_mult * sim(query, c) - (1 - lambda_mult) *
    max(sim(c, s) for s already picked)``. Ties go to the earlier candidate, so candidates
    should come in rank order. Runs in O(k * n * d) without building the n x n matrix.

    Args:
        query_vector: shape (d,).
        candidate_vectors: shape (n, d), in rank order.
        k: how many to pick (at most n are returned).
        lambda_mult: 1 is pure relevance, 0 is pure diversity.

    Returns:
        Indices into ``candidate_vectors``, in pick order.

    Example:
        Candidates at 2, 0 and 50 degrees, query at 10: plain similarity would take 2 then
        0 (near duplicates); MMR takes 2 then 50.

        >>> angles = np.radians([2, 0, 50])
        >>> candidates = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        >>> query = np.array([np.cos(np.radians(10)), np.sin(np.radians(10))])
        >>> _greedy_mmr(query, candidates, k=2, lambda_mult=0.5)
        [0, 2]
    """
    count = len(candidate_vectors)
    if count == 0 or k <= 0:
        return []
    candidates = normalize_rows(np.asarray(candidate_vectors, dtype=np.float32))
    query = normalize_rows(np.asarray(query_vector, dtype=np.float32).reshape(1, -1))[0]
    to_query = candidates @ query
    first = int(np.argmax(to_query))
    picked = [first]
    # the highest similarity of each candidate to anything picked so far
    closest_picked = candidates @ candidates[first]
    available = np.ones(count, dtype=bool)
    available[first] = False
    while len(picked) < min(k, count):
        scores = lambda_mult * to_query - (1.0 - lambda_mult) * closest_picked
        scores[~available] = -np.inf
        best = int(np.argmax(scores))
        picked.append(best)
        available[best] = False
        np.maximum(closest_picked, candidates @ candidates[best], out=closest_picked)
    return picked


def mmr_picks(
    queries: np.ndarray, candidates: Sequence[np.ndarray], *, k: int, lambda_mult: float
) -> list[list[int]]:
    """For each query, the rows MMR picks among that query's candidate vectors.

    The one MMR pick of every store: the base class runs it on the hits ``_search``
    returned, a backend on its own arrays (FAISS, so it builds Documents only for the
    picks). The rule is :func:`maximal_marginal_relevance`'s, in float32 on unit rows.

    Args:
        queries: shape (q, d).
        candidates: q arrays of shape (n_i, d), each in rank order (n_i may be 0).
        k: how many to pick per query.
        lambda_mult: 1 is pure relevance, 0 is pure diversity.

    Example:
        >>> mmr_picks(np.eye(2), [np.eye(2), np.empty((0, 2))], k=1, lambda_mult=0.5)
        [[0], []]
    """
    return [
        _greedy_mmr(query, vectors, k=k, lambda_mult=lambda_mult)
        for query, vectors in zip(queries, candidates, strict=True)
    ]


Matrix = list[list[float]] | list[np.ndarray] | np.ndarray


def cosine_similarity(X: Matrix, Y: Matrix) -> np.ndarray:
    """Cosine similarity of every row of ``X`` with every row of ``Y``, as LangChain's
    ``langchain_community.utils.math.cosine_similarity`` computes it (without simsimd).

    Float64 unless both inputs are float32; a pair where a row has zero length (or
    the result is not finite) gets 0.0. An empty ``X`` or ``Y`` gives ``np.array([])``.

    Args:
        X: n rows of width d (lists or arrays).
        Y: m rows of width d.

    Returns:
        An (n, m) array.

    Raises:
        DimensionError (a ValueError): ``X`` or ``Y`` is not 2-D, or their widths differ.

    Example:
        >>> cosine_similarity([[1, 0], [1, 1], [0, 0]], [[1, 0]]).round(4).tolist()
        [[1.0], [0.7071], [0.0]]
    """
    if len(X) == 0 or len(Y) == 0:
        return np.array([])
    similarity = _cosine_table(np.array(X), np.array(Y))
    similarity[~np.isfinite(similarity)] = 0.0
    return similarity


def cosine_similarity_top_k(
    X: Matrix,
    Y: Matrix,
    top_k: int | None = 5,
    score_threshold: float | None = None,
) -> tuple[list[tuple[int, int]], list[float]]:
    """The most similar (row of ``X``, row of ``Y``) pairs and their cosine similarities,
    as LangChain's ``langchain_community.utils.math.cosine_similarity_top_k`` gives them.

    Pairs come best first, as tuples of numpy integers; scores are floats. Pairs scoring
    exactly 0 are left out unless every pair does. ``top_k=None`` (or 0) means one pair
    per row of ``X``, as in LangChain. Where LangChain would return pairs below
    ``score_threshold`` (scored 0.0), ragline returns only the pairs that reach it, and
    warns.

    Args:
        X: n rows of width d.
        Y: m rows of width d.
        top_k: how many pairs at most.
        score_threshold: the least similarity a pair needs.

    Returns:
        ``(pairs, scores)``; ``([], [])`` when ``X`` or ``Y`` is empty.

    Example:
        >>> pairs, scores = cosine_similarity_top_k([[1, 0], [0, 1]], [[1, 1], [1, 0]], top_k=2)
        >>> [(int(i), int(j)) for i, j in pairs], [round(s, 4) for s in scores]
        ([(0, 1), (1, 0)], [1.0, 0.7071])
    """
    if len(X) == 0 or len(Y) == 0:
        return [], []
    similarity = cosine_similarity(X, Y)
    threshold = -1.0 if score_threshold is None else score_threshold
    scores = np.where(similarity < threshold, 0.0, similarity).astype(similarity.dtype)
    limit = top_k or len(scores)
    count = int(min(limit, int(np.count_nonzero(scores))))
    picked = np.argpartition(scores, -count, axis=None)[-count:]
    picked = picked[np.argsort(scores.ravel()[picked])][::-1]
    flat = similarity.ravel()
    if bool((flat[picked] < threshold).any()):
        warnings.warn(
            f"cosine_similarity_top_k: LangChain would return pairs below score_threshold "
            f"{score_threshold} (scored 0.0); ragline returns only the pairs that reach it",
            UserWarning,
            stacklevel=2,
        )
        picked = np.flatnonzero(flat >= threshold)
        picked = picked[np.argsort(flat[picked], kind="stable")[::-1]][:limit]
    rows, columns = np.unravel_index(picked, similarity.shape)
    return list(zip(rows, columns, strict=True)), flat[picked].tolist()


def maximal_marginal_relevance(
    query_embedding: np.ndarray | Sequence[float],
    embedding_list: Matrix,
    lambda_mult: float = 0.5,
    k: int = 4,
) -> list[int]:
    """Indices of ``k`` embeddings picked for relevance to the query and diversity,
    as ``langchain_core.vectorstores.utils.maximal_marginal_relevance`` picks them.

    The first pick is the embedding most similar to the query; each next one maximises
    ``lambda_mult * sim(query, e) - (1 - lambda_mult) * max(sim(e, picked))`` (cosine,
    computed as LangChain does so the picks agree to the last bit; ties go to the
    earlier embedding). Stores' own MMR search uses a faster float32 twin.

    Args:
        query_embedding: shape (d,) or (1, d).
        embedding_list: n rows of width d.
        lambda_mult: 1 is pure relevance, 0 is pure diversity.
        k: how many to pick (at most n; none when k <= 0).

    Returns:
        Indices into ``embedding_list`` (Python ints), in pick order.

    Raises:
        DimensionError (a ValueError): the widths differ, or every similarity to the
            query is undefined (a zero or NaN query).

    Example:
        >>> rows = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [1.0, 0.2]]
        >>> maximal_marginal_relevance(np.array([1.0, 0.2]), rows, lambda_mult=0.5, k=3)
        [3, 0, 1]
    """
    count = len(embedding_list)
    if min(k, count) <= 0:
        return []
    query = np.asarray(query_embedding)
    if query.ndim == 1:
        query = query[np.newaxis, :]
    embeddings = np.array(embedding_list)
    to_query = _checked_cosine(query, embeddings)[0]
    picked = [int(np.argmax(to_query))]
    while len(picked) < min(k, count):
        closest_picked = _checked_cosine(embeddings, embeddings[picked]).max(axis=1)
        scores = lambda_mult * to_query - (1 - lambda_mult) * closest_picked
        scores[picked] = -np.inf
        picked.append(int(np.argmax(scores)))
    return picked


def _cosine_table(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Row-by-row cosine as ``dot / outer(norms)`` (NaN or inf where a norm is zero)."""
    if left.ndim != 2 or right.ndim != 2 or left.shape[1] != right.shape[1]:
        raise DimensionError(
            "cosine similarity needs two 2-D matrices of the same width; got shapes "
            f"{left.shape} and {right.shape}"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            np.dot(left, right.T)
            / np.outer(np.linalg.norm(left, axis=1), np.linalg.norm(right, axis=1))
        )


def _checked_cosine(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """:func:`_cosine_table` as MMR uses it: an error when no similarity is defined,
    otherwise undefined ones count as 0.0 (a warning first for NaN or inf inputs)."""
    for name, values in (("NaN", np.isnan), ("Inf", np.isinf)):
        if values(left).any() or values(right).any():
            warnings.warn(
                f"{name} in the vectors compared: the similarities may mean little",
                RuntimeWarning,
                stacklevel=3,
            )
    similarity = _cosine_table(left, right)
    if np.isnan(similarity).all():
        raise DimensionError(
            "every cosine similarity is undefined (NaN): the query or the embeddings are "
            "zero vectors or hold NaN values; remove them and try again"
        )
    similarity[~np.isfinite(similarity)] = 0.0
    return similarity

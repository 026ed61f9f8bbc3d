"""Distance evaluators: how far a prediction is from a reference (or another prediction).

String distances (``"string_distance"``, ``"pairwise_string_distance"``) are computed
here in plain Python, with the values rapidfuzz gives (LangChain's evaluators call
rapidfuzz; ragline does not need it): Levenshtein, Damerau-Levenshtein (unrestricted
adjacent transpositions), Jaro, Jaro-Winkler (prefix weight 0.1, up to 4 characters,
above a Jaro similarity of 0.7), Hamming (the shorter string padded) and Indel
(insertions and deletions only). ``normalize_score=True`` (the default) divides by the
largest possible distance, so scores lie in [0, 1]; Jaro and Jaro-Winkler are already
``1 - similarity``.

Embedding distances (``"embedding_distance"``, ``"pairwise_embedding_distance"``) embed
both texts with the ``embeddings`` given (``embed_documents``, one call for the two) and
return cosine (``1 - cosine similarity``), Euclidean, Manhattan, Chebyshev or Hamming
(the share of differing components) distance, as LangChain computes them with NumPy.
Unlike LangChain, no default embedding model is created: ``embeddings`` is required.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ragline.evaluation._chain_evaluator import (
    EvaluatorChain,
    PairwiseEvaluatorChain,
    StringEvaluatorChain,
)
from ragline.evaluation._evaluator_base import PairwiseStringEvaluator, StringEvaluator

__all__ = [
    "EmbeddingDistance",
    "EmbeddingDistanceEvalChain",
    "PairwiseEmbeddingDistanceEvalChain",
    "PairwiseStringDistanceEvalChain",
    "StringDistance",
    "StringDistanceEvalChain",
]


class StringDistance(str, Enum):
    """The string distances the string-distance evaluators compute."""

    DAMERAU_LEVENSHTEIN = "damerau_levenshtein"
    LEVENSHTEIN = "levenshtein"
    JARO = "jaro"
    JARO_WINKLER = "jaro_winkler"
    HAMMING = "hamming"
    INDEL = "indel"


# ---------------------------------------------------------------- string distances


def levenshtein(a: str, b: str) -> int:
    """Insertions, deletions and substitutions turning ``a`` into ``b``."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def damerau_levenshtein(a: str, b: str) -> int:
    """Levenshtein with swaps of adjacent characters, unrestricted (edits may overlap)."""
    last_row_of: dict[str, int] = {}
    infinity = len(a) + len(b)
    rows = [[infinity] * (len(b) + 2)]
    rows += [[infinity, *range(len(b) + 1)]]
    for i in range(1, len(a) + 1):
        rows.append([infinity, i] + [0] * len(b))
        last_column = 0
        for j in range(1, len(b) + 1):
            row_k = last_row_of.get(b[j - 1], 0)
            column_l = last_column
            cost = 1
            if a[i - 1] == b[j - 1]:
                cost, last_column = 0, j
            rows[i + 1][j + 1] = min(
                rows[i][j] + cost,
                rows[i + 1][j] + 1,
                rows[i][j + 1] + 1,
                rows[row_k][column_l] + (i - row_k - 1) + 1 + (j - column_l - 1),
            )
        last_row_of[a[i - 1]] = i
    return rows[len(a) + 1][len(b) + 1]


def indel(a: str, b: str) -> int:
    """Insertions and deletions only: ``len(a) + len(b) - 2 * LCS``."""
    previous = [0] * (len(b) + 1)
    for char_a in a:
        current = [0]
        for j, char_b in enumerate(b, 1):
            current.append(
                previous[j - 1] + 1 if char_a == char_b else max(previous[j], current[j - 1])
            )
        previous = current
    return len(a) + len(b) - 2 * previous[-1]


def hamming(a: str, b: str) -> int:
    """Positions that differ, the shorter string padded to the longer one's length."""
    return sum(x != y for x, y in zip(a, b, strict=False)) + abs(len(a) - len(b))


def jaro_similarity(a: str, b: str) -> float:
    """Jaro similarity (1.0 for two empty strings)."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    window = max(max(len(a), len(b)) // 2 - 1, 0)
    taken = [False] * len(b)
    matched_a: list[str] = []
    for i, char in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not taken[j] and b[j] == char:
                taken[j] = True
                matched_a.append(char)
                break
    common = len(matched_a)
    if not common:
        return 0.0
    matched_b = [char for j, char in enumerate(b) if taken[j]]
    transpositions = sum(x != y for x, y in zip(matched_a, matched_b, strict=True)) // 2
    total = common / len(a) + common / len(b) + (common - transpositions) / common
    return total / 3.0


def jaro_winkler_similarity(a: str, b: str) -> float:
    """Jaro similarity raised by a shared prefix (up to 4 characters, weight 0.1)."""
    similarity = jaro_similarity(a, b)
    if similarity > 0.7:
        prefix = 0
        for x, y in zip(a[:4], b[:4], strict=False):
            if x != y:
                break
            prefix += 1
        similarity += prefix * 0.1 * (1.0 - similarity)
    return similarity


def _normalized(
    distance: Callable[[str, str], int], largest: Callable[[str, str], int]
) -> Callable[[str, str], float]:
    def normalized(a: str, b: str) -> float:
        most = largest(a, b)
        return distance(a, b) / most if most else 0.0

    return normalized


def _longest(a: str, b: str) -> int:
    return max(len(a), len(b))


def _both(a: str, b: str) -> int:
    return len(a) + len(b)


def _jaro_distance(a: str, b: str) -> float:
    return 1.0 - jaro_similarity(a, b)


def _jaro_winkler_distance(a: str, b: str) -> float:
    return 1.0 - jaro_winkler_similarity(a, b)


_METRICS: dict[StringDistance, tuple[Callable[[str, str], float], Callable[[str, str], float]]] = {
    # (distance, normalized distance)
    StringDistance.LEVENSHTEIN: (levenshtein, _normalized(levenshtein, _longest)),
    StringDistance.DAMERAU_LEVENSHTEIN: (
        damerau_levenshtein,
        _normalized(damerau_levenshtein, _longest),
    ),
    StringDistance.HAMMING: (hamming, _normalized(hamming, _longest)),
    StringDistance.INDEL: (indel, _normalized(indel, _both)),
    # already in [0, 1]: the same function either way
    StringDistance.JARO: (_jaro_distance, _jaro_distance),
    StringDistance.JARO_WINKLER: (_jaro_winkler_distance, _jaro_winkler_distance),
}


def normalized_distance(distance: StringDistance) -> Callable[[str, str], float]:
    """The normalized form of a string distance (scores in [0, 1])."""
    return _METRICS[StringDistance(distance)][1]


class _ScoreChain(EvaluatorChain):
    """What the four distance evaluators share: the two texts in, one output, ``score``."""

    @property
    def output_keys(self) -> list[str]:
        return ["score"]

    def _eval_inputs(self, arguments: dict[str, Any]) -> dict[str, Any]:
        # the prediction and what it is compared with: the other prediction, or the reference
        other = "prediction_b" if "prediction_b" in arguments else "reference"
        return {"prediction": arguments["prediction"], other: arguments[other]}

    def _prepare_output(self, result: dict[str, Any]) -> dict[str, Any]:
        return {"score": result["score"]}


class _StringDistanceChain(_ScoreChain):
    """What both string-distance evaluators share: the metric and the output."""

    distance: StringDistance = StringDistance.JARO_WINKLER
    normalize_score: bool = True

    def __post_init__(self) -> None:
        try:
            self.distance = StringDistance(self.distance)
        except ValueError:
            raise ValueError(
                f"Invalid distance metric: {self.distance}\nMust be one of: {list(StringDistance)}"
            ) from None

    @property
    def metric(self) -> Callable[[str, str], float]:
        plain, normalized = _METRICS[StringDistance(self.distance)]
        return normalized if self.normalize_score else plain

    def compute_metric(self, a: str, b: str) -> float:
        """The distance between ``a`` and ``b`` with this evaluator's metric."""
        return self.metric(a, b)

    def _score(self, inputs: dict[str, Any]) -> dict[str, Any]:
        first, second = self.input_keys
        return {"score": self.compute_metric(inputs[first], inputs[second])}

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        return self._score(inputs)

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        return self._score(inputs)


class StringDistanceEvalChain(StringEvaluatorChain, StringEvaluator, _StringDistanceChain):
    """The distance between a prediction and the reference (``"string_distance"``).

    Example:
        >>> StringDistanceEvalChain(distance="levenshtein").evaluate_strings(
        ...     prediction="kitten", reference="sitting")
        {'score': 0.42857142857142855}
    """

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def input_keys(self) -> list[str]:
        return ["reference", "prediction"]

    @property
    def evaluation_name(self) -> str:
        return f"{StringDistance(self.distance).value}_distance"


class PairwiseStringDistanceEvalChain(
    PairwiseEvaluatorChain, PairwiseStringEvaluator, _StringDistanceChain
):
    """The distance between two predictions (``"pairwise_string_distance"``)."""

    @property
    def input_keys(self) -> list[str]:
        return ["prediction", "prediction_b"]

    @property
    def evaluation_name(self) -> str:
        return f"pairwise_{StringDistance(self.distance).value}_distance"


# ---------------------------------------------------------------- embedding distances


class EmbeddingDistance(str, Enum):
    """The vector distances the embedding-distance evaluators compute."""

    COSINE = "cosine"
    EUCLIDEAN = "euclidean"
    MANHATTAN = "manhattan"
    CHEBYSHEV = "chebyshev"
    HAMMING = "hamming"


def _vector_distance(metric: EmbeddingDistance, vectors: Sequence[Sequence[float]]) -> float:
    import numpy as np

    a, b = (np.asarray(vector, dtype=float) for vector in vectors)
    if metric is EmbeddingDistance.COSINE:  # as rows, the shapes LangChain computes with
        x, y = a.reshape(1, -1), b.reshape(1, -1)
        with np.errstate(divide="ignore", invalid="ignore"):
            similarity = np.dot(x, y.T) / np.outer(
                np.linalg.norm(x, axis=1), np.linalg.norm(y, axis=1)
            )
        if np.isnan(similarity).all():
            raise ValueError("NaN values found, please remove the NaN values and try again")
        similarity[np.isinf(similarity)] = 0.0
        return float((1.0 - similarity).item())
    if metric is EmbeddingDistance.EUCLIDEAN:
        return float(np.linalg.norm(a - b))
    if metric is EmbeddingDistance.MANHATTAN:
        return float(np.abs(a - b).sum())
    if metric is EmbeddingDistance.CHEBYSHEV:
        return float(np.max(np.abs(a - b)))
    return float(np.mean(a != b))


class _EmbeddingDistanceChain(_ScoreChain):
    """What both embedding-distance evaluators share: the embeddings and the metric."""

    embeddings: Any = None
    distance_metric: EmbeddingDistance = EmbeddingDistance.COSINE

    def __post_init__(self) -> None:
        if self.embeddings is None:
            raise ValueError(
                f"{type(self).__name__} needs embeddings=: ragline creates no default "
                "embedding model (give one, e.g. HuggingFaceEmbeddings())"
            )
        try:
            self.distance_metric = EmbeddingDistance(self.distance_metric)
        except ValueError:
            raise ValueError(f"Invalid metric: {self.distance_metric}") from None

    def _texts(self, inputs: dict[str, Any]) -> list[str]:
        return [inputs[key] for key in self.input_keys]

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        vectors = self.embeddings.embed_documents(self._texts(inputs))
        return {"score": _vector_distance(EmbeddingDistance(self.distance_metric), vectors)}

    async def _acall(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        vectors = await self.embeddings.aembed_documents(self._texts(inputs))
        return {"score": _vector_distance(EmbeddingDistance(self.distance_metric), vectors)}


class EmbeddingDistanceEvalChain(StringEvaluatorChain, _EmbeddingDistanceChain, StringEvaluator):
    """The embedding distance between a prediction and the reference (``"embedding_distance"``)."""

    @property
    def requires_reference(self) -> bool:
        return True

    @property
    def evaluation_name(self) -> str:
        return f"embedding_{EmbeddingDistance(self.distance_metric).value}_distance"

    @property
    def input_keys(self) -> list[str]:
        return ["prediction", "reference"]


class PairwiseEmbeddingDistanceEvalChain(
    PairwiseEvaluatorChain, _EmbeddingDistanceChain, PairwiseStringEvaluator
):
    """The embedding distance between two predictions (``"pairwise_embedding_distance"``)."""

    @property
    def input_keys(self) -> list[str]:
        return ["prediction", "prediction_b"]

    @property
    def evaluation_name(self) -> str:
        return f"pairwise_embedding_{EmbeddingDistance(self.distance_metric).value}_distance"

"""LangChain's FAISS scores: which metric a ``distance_strategy`` means, and its relevance.

LangChain's ``FAISS`` is built with a ``DistanceStrategy`` (default
``EUCLIDEAN_DISTANCE``) and reports faiss's raw score from
``similarity_search_with_score``. ragline gives the same numbers where they are right:

======================  ===========  =====================  ===========================
strategy                metric       native score            relevance (LangChain's)
======================  ===========  =====================  ===========================
``EUCLIDEAN_DISTANCE``  ``"l2"``     squared L2, lower is    ``1 - score / sqrt(2)``
                                     closer
``COSINE``              ``"l2"``     squared L2 (LangChain   ``1 - score``
                                     builds an L2 index)
``MAX_INNER_PRODUCT``   ``"inner_    inner product, higher   ragline's ``(1 + score) / 2``
                        product"``   is closer               (LangChain's is inverted)
======================  ===========  =====================  ===========================

Where LangChain's numbers are wrong, ragline keeps its own and says so:

* A relevance outside [0, 1] (a far document under ``EUCLIDEAN_DISTANCE`` or ``COSINE``,
  or a ``relevance_score_fn`` that leaves the range) is clipped into [0, 1] with a
  ``UserWarning`` (LangChain warns too, and returns the value unclipped, so a
  ``score_threshold`` compares against numbers that are no relevance).
* ``MAX_INNER_PRODUCT``: LangChain maps a positive inner product ``s`` to ``1 - s``, so
  the nearest documents get the lowest relevance. ragline gives ``(1 + s) / 2`` (1 for
  identical unit vectors) and warns once per store that it differs.
* ``DOT_PRODUCT`` and ``JACCARD``: LangChain silently builds a Euclidean index and fails
  on the first relevance search; ragline refuses them when the store is built.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from enum import Enum
from typing import Any

import numpy as np

from ragline.core import ConfigurationError
from ragline.vectorstores.utils import RELEVANCE_SCALAR_FUNCTIONS, DistanceStrategy

__all__ = ["relevance_for", "strategy_metric"]

_METRIC_OF = {
    DistanceStrategy.EUCLIDEAN_DISTANCE: "l2",
    DistanceStrategy.COSINE: "l2",
    DistanceStrategy.MAX_INNER_PRODUCT: "inner_product",
}
_SQRT2 = math.sqrt(2.0)


def strategy_metric(strategy: Any) -> tuple[DistanceStrategy, str]:
    """The checked strategy (either library's enum member or its string) and its metric.

    Raises:
        ConfigurationError: an unknown strategy, or one FAISS cannot score
            (``DOT_PRODUCT``, ``JACCARD``).
    """
    name = strategy.value if isinstance(strategy, Enum) else strategy
    try:
        checked = DistanceStrategy(name)
    except ValueError:
        checked = None
    if checked is None or checked not in _METRIC_OF:
        raise ConfigurationError(
            f"FAISS distance_strategy must be one of EUCLIDEAN_DISTANCE (LangChain's "
            f"default), MAX_INNER_PRODUCT or COSINE, got {strategy!r}; for ragline's own "
            "scores pass metric='cosine', 'inner_product' or 'l2' instead"
        )
    return checked, _METRIC_OF[checked]


def _caller_level() -> int:
    """The warnings stacklevel of the first frame outside ragline.vectorstores, counted
    from the function that calls this one (so the warning names the user's line)."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(
        "ragline.vectorstores"
    ):
        frame = frame.f_back
        level += 1
    return level


def _clipped(relevance: Callable[[float], float], where: str) -> Callable[[float], float]:
    """``relevance`` with any value outside [0, 1] clipped into it, with a warning."""

    def checked(score: float) -> float:
        value = relevance(score)  # its own type, as LangChain's (float32 from a float32 score)
        if 0.0 <= float(value) <= 1.0:
            return value
        clipped = _like(value, 0.0 if value < 0.0 else 1.0 if value > 1.0 else value)
        warnings.warn(
            f"FAISS ({where}): relevance {value!r} of native score {score!r} is outside "
            f"[0, 1]; ragline clips it to {clipped!r} (LangChain returns it as it is)",
            UserWarning,
            stacklevel=_caller_level(),
        )
        return clipped

    return checked


def _like(model: Any, value: Any) -> Any:
    """``value`` as the numpy scalar type of ``model`` (a float32 relevance stays one)."""
    return type(model)(value) if isinstance(model, np.floating) else value


def relevance_for(
    strategy: DistanceStrategy | None,
    score_kind: str,
    override: Callable[[float], float] | None,
) -> Callable[[float], float]:
    """The function from one native score to its relevance (see the module docstring).

    Args:
        strategy: the store's LangChain strategy, or None for a store built with
            ``metric=`` (ragline's mapping, ``(1 + cosine) / 2`` on unit vectors).
        score_kind: the store's native score kind (for ragline's mapping).
        override: a ``relevance_score_fn`` given to the store (used as LangChain does).
    """
    if override is not None:
        return _clipped(override, "relevance_score_fn")
    if strategy is None:
        return RELEVANCE_SCALAR_FUNCTIONS[score_kind]
    if strategy is DistanceStrategy.EUCLIDEAN_DISTANCE:
        return _clipped(lambda d: 1.0 - d / _SQRT2, "EUCLIDEAN_DISTANCE")
    if strategy is DistanceStrategy.COSINE:
        return _clipped(lambda d: 1.0 - d, "COSINE")
    own = RELEVANCE_SCALAR_FUNCTIONS["inner_product"]
    warned = False

    def inner_product(score: float) -> float:
        nonlocal warned
        if not warned:
            warned = True
            warnings.warn(
                "FAISS (MAX_INNER_PRODUCT): relevance is (1 + inner product) / 2, 1 for the "
                "nearest; LangChain's maps an inner product s > 0 to 1 - s, which ranks the "
                "nearest documents lowest, so its relevance scores and score_threshold "
                "results differ from these",
                UserWarning,
                stacklevel=_caller_level(),
            )
        return _like(score, own(score))

    return inner_product

"""Which faiss index fits a corpus: ``ragline index --index auto|flat|hnsw|ivf-pq|ivf-sq8``.

================  =====================================================================
kind              index (n vectors of dimension d)
================  =====================================================================
``flat``          exact scan: ``Flat`` (4d bytes a vector in RAM)
``hnsw``          ``HNSW32,SQ8`` graph on 8-bit codes (d + 256 bytes a vector), exact
                  re-ranking of 4k candidates from vectors on disk; efSearch 64
``ivf-sq8``       ``IVF<nlist>,SQ8`` (d bytes a vector), re-ranking of 4k candidates
``ivf-pq``        ``IVF<nlist>,PQ<d/8>`` (d/8 bytes a vector), re-ranking of 10k
``auto``          ``flat`` up to :data:`FLAT_LIMIT` vectors, ``ivf-sq8`` above
================  =====================================================================

IVF uses ``nlist`` = the power of two nearest ``sqrt(n)`` (64 to 8,192) lists, probes
``nprobe`` = nlist / 256 of them (at least 8), and trains its k-means on a seeded random
sample of ``40 x nlist`` vectors (faiss wants 39 to 256 points per centroid; PQ
codebooks want at least 256 x 39 = 9,984, so a PQ index trains on at least that many).
faiss suggests 4 to 16 sqrt(n) lists for the fastest search; fewer lists keep the
k-means of a 10M build within minutes on two cores, and the exact re-ranking makes up
for coarser lists.
``ivf-sq8`` is the ``auto`` choice above the flat limit: its 8-bit codes lose little, so
four candidates per result re-ranked exactly reach recall@10 of 0.95 and more at a
quarter of the flat index's memory, and its training is a single k-means (PQ trains one
per sub-quantizer, minutes on two cores at 10M); ``ivf-pq`` is for corpora whose SQ8
codes do not fit in RAM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ragline.core import ConfigurationError

__all__ = [
    "FLAT_LIMIT",
    "INDEX_KINDS",
    "IndexPlan",
    "choose_index",
    "index_kind_of",
    "resolve_kind",
]

INDEX_KINDS = ("auto", "flat", "hnsw", "ivf-pq", "ivf-sq8")
# up to this many vectors an exact scan answers a single query in a few milliseconds
FLAT_LIMIT = 100_000
_POINTS_PER_LIST = 40
_PQ_TRAIN_MINIMUM = 256 * 39
# k-means over more lists costs more to train than two cores give in minutes at 10M
_MAX_LISTS = 8192


@dataclass(frozen=True)
class IndexPlan:
    """A kind's index for a corpus size: FAISS's constructor options."""

    kind: str
    factory: str
    nprobe: int | None = None
    ef_search: int | None = None
    rerank: int | None = None
    train_size: int | None = None

    def options(self) -> dict[str, object]:
        """The keyword arguments of ``FAISS(...)`` / ``FAISS.change_index(...)``."""
        return {
            "index_factory": self.factory,
            "nprobe": self.nprobe,
            "ef_search": self.ef_search,
            "rerank": self.rerank,
            "train_size": self.train_size,
        }


def resolve_kind(kind: str, count: int) -> str:
    """The concrete kind ``auto`` stands for at ``count`` vectors (others unchanged)."""
    if kind not in INDEX_KINDS:
        raise ConfigurationError(f"index {kind!r} is not one of {', '.join(INDEX_KINDS)}")
    if kind == "auto":
        return "flat" if count <= FLAT_LIMIT else "ivf-sq8"
    return kind


def choose_index(kind: str, count: int, dimension: int) -> IndexPlan:
    """The index of ``kind`` for ``count`` vectors of ``dimension``.

    Example:
        >>> choose_index("auto", 1_000_000, 384).factory
        'IVF1024,SQ8'
        >>> choose_index("auto", 5_000, 384).factory
        'Flat'
    """
    concrete = resolve_kind(kind, count)
    if concrete == "flat":
        return IndexPlan("flat", "Flat")
    if concrete == "hnsw":
        return IndexPlan("hnsw", "HNSW32,SQ8", ef_search=64, rerank=4)
    nlist = 2 ** round(math.log2(max(1.0, math.sqrt(max(count, 1)))))
    nlist = min(_MAX_LISTS, max(64, nlist))
    nprobe = max(8, nlist // 256)
    train_size = _POINTS_PER_LIST * nlist
    if concrete == "ivf-sq8":
        return IndexPlan(
            concrete, f"IVF{nlist},SQ8", nprobe=nprobe, rerank=4, train_size=train_size
        )
    return IndexPlan(
        concrete,
        f"IVF{nlist},PQ{_pq_codes(dimension)}",
        nprobe=nprobe,
        rerank=10,
        train_size=max(train_size, _PQ_TRAIN_MINIMUM),
    )


def _pq_codes(dimension: int) -> int:
    """Sub-quantizers: about one per 8 dimensions, a divisor of the dimension."""
    wanted = max(1, dimension // 8)
    return min(
        (m for m in range(1, dimension + 1) if dimension % m == 0),
        key=lambda m: (abs(m - wanted), -m),
    )


def index_kind_of(factory: str) -> str:
    """The kind of a factory string (``"other"`` for one no kind builds)."""
    compact = factory.replace(" ", "")
    if compact == "Flat":
        return "flat"
    if compact.startswith("HNSW"):
        return "hnsw"
    if compact.startswith("IVF") and compact.endswith(",SQ8"):
        return "ivf-sq8"
    if compact.startswith("IVF") and ",PQ" in compact:
        return "ivf-pq"
    return "other"

"""Where a flat index's vectors sit in memory: an aligned buffer for a store that is read.

faiss keeps an ``IndexFlat``'s vectors in a ``std::vector`` from ``malloc``: 16-byte
aligned, at whatever address the heap gives, in 4 KiB pages. Every unfiltered query
scans all of them, and how fast depends on where they lie: measured at 10k vectors of
dimension 384 (15 MB, one thread), a copy in a 64-byte aligned buffer (every AVX-512
load within one cache line) scans 3-5% faster than faiss's own buffer, more again on
2 MiB pages (fewer TLB misses), and two stores built alike differ by a few percent by
the luck of their heap addresses (``benchmarks/vectorstore_counts.py``, bare scan row).

:func:`place` copies the vectors into a memory map of our own (page-aligned; on 2 MiB
aligned transparent huge pages, advised, from 2 MiB up) and points the index at it with
faiss's ``MaybeOwnedVector`` view; :func:`own` copies them back into a vector faiss owns.
faiss cannot grow or shrink a view (it aborts the process), so the index must be owned
again before any change: :class:`~ragline.vectorstores.faiss._index.LabeledIndex` does
that in ``add`` and ``remove`` and places an index only once it has answered
:data:`PLACE_AFTER` searches since its last change (a copy costs about one scan, so a
store that changes between every few searches is left as faiss built it).

The map stays alive in the outer faiss index's Python object (in ``referenced_objects``,
faiss's own list of what an index must keep alive), so it lives as long as anything (the
store, or a caller holding ``store.index``) holds that index.
"""

from __future__ import annotations

import contextlib
import mmap
from typing import Any

import numpy as np

__all__ = ["MIN_BYTES", "PLACE_AFTER", "can_place", "is_placed", "own", "place"]

# searches since the last change before the vectors are copied: a copy costs about a
# scan, a placed scan saves a few percent, and a change copies them back
PLACE_AFTER = 64
# smaller indexes fit the caches whatever their address: not worth a map of their own
MIN_BYTES = 256 * 1024
_HUGE_PAGE = 2 * 1024 * 1024


class _Placed:
    """The map and the vectors' bytes in it, held by the index that reads them."""

    def __init__(self, mapped: mmap.mmap, buffer: np.ndarray) -> None:
        self.mapped, self.buffer = mapped, buffer


def can_place(faiss: Any) -> bool:
    """Whether this faiss has views of outside memory (``MaybeOwnedVector``, 1.10 on)."""
    return hasattr(faiss, "MaybeOwnedVectorUInt8")


def is_placed(outer: Any) -> bool:
    """Whether ``outer``'s vectors are in a buffer :func:`place` made."""
    return _placed(outer) is not None


def _placed(outer: Any) -> _Placed | None:
    held = getattr(outer, "referenced_objects", None) or ()
    return next((item for item in held if type(item) is _Placed), None)


def place(faiss: Any, outer: Any, flat: Any) -> bool:
    """Copy ``flat``'s vectors into an aligned map and point ``flat`` at it (``outer`` is
    the index wrapping it, or ``flat`` itself). False, and nothing changes, for an
    index below :data:`MIN_BYTES` or already placed."""
    codes = flat.codes
    size = int(codes.size())
    if size < MIN_BYTES or is_placed(outer):
        return False
    huge = size >= _HUGE_PAGE
    span = -(-size // _HUGE_PAGE) * _HUGE_PAGE + _HUGE_PAGE if huge else size
    mapped = mmap.mmap(-1, span)  # anonymous, page-aligned, untouched
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if huge and advice is not None:  # before the copy faults the pages in
        with contextlib.suppress(OSError):  # a hint: 4 KiB pages then
            mapped.madvise(advice)
    whole = np.frombuffer(mapped, dtype=np.uint8)
    start = -whole.ctypes.data % _HUGE_PAGE if huge else 0
    buffer = whole[start : start + size]
    buffer[:] = faiss.rev_swig_ptr(codes.data(), size)
    view = faiss.MaybeOwnedVectorUInt8.create_view(faiss.swig_ptr(buffer), size, codes.owner)
    held = getattr(outer, "referenced_objects", None) or []
    outer.referenced_objects = [*held, _Placed(mapped, buffer)]  # alive before faiss reads it
    flat.codes = view
    flat.codes.owned_data.swap(faiss.UInt8Vector())  # free faiss's copy: assigning kept it
    return True


def own(faiss: Any, outer: Any, flat: Any) -> None:
    """Copy placed vectors back into a vector faiss owns (which it can grow and shrink);
    nothing to do for an index that is not placed."""
    placed = _placed(outer)
    if placed is None:
        return
    buffer = placed.buffer
    flat.codes = faiss.MaybeOwnedVectorUInt8()  # an empty vector faiss owns, grown in place
    flat.codes.resize(len(buffer))
    faiss.rev_swig_ptr(flat.codes.data(), len(buffer))[:] = buffer
    outer.referenced_objects = [item for item in outer.referenced_objects if item is not placed]

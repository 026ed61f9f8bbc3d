"""Full-precision vectors on disk, memory-mapped, for exact re-ranking.

A compressed faiss index (PQ, SQ8 ...) holds codes, not vectors: its scores are
approximate. With ``rerank=`` the FAISS store also keeps every vector at full precision
in a :class:`VectorFile`, row ``label - start`` of a *segment*; the index proposes
``rerank x k`` candidates and their exact scores, computed from these rows, pick the k.
Exact searches over a filter's matching documents read their rows here too.

Segments are immutable float32 files read through ``numpy.memmap``, so the operating
system keeps only the rows searches touch in memory. New vectors collect in memory and
are written out as a new segment every :data:`SPILL_BYTES` (into a temporary folder
until the store is saved) and on each save; an add of at least that many bytes goes
straight to its own segment, never copied in memory. A save links each segment into the saved
folder (``os.link``, no copy, on one file system; a copy elsewhere), so saving a large
store rewrites only the vectors added since the last save. Deleted documents leave their
rows behind (labels are never reused); they are dropped when the index is built anew
(see ``FAISS.change_index``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["SPILL_BYTES", "Segment", "VectorFile"]

SPILL_BYTES = 64 * 2**20  # vectors kept in memory before they go to a segment file
_COPY_ROWS = 65_536


@dataclass
class Segment:
    """Rows for labels ``start .. start + rows - 1``, in ``path`` (float32, row-major)."""

    start: int
    rows: int
    path: Path
    array: np.ndarray  # a read-only memmap of path


class VectorFile:
    """Full-precision vectors addressed by label (see the module docstring).

    Args:
        dimension: the vector dimension.
    """

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.segments: list[Segment] = []
        self.pending: list[tuple[int, np.ndarray]] = []  # (start label, rows) in memory
        self._temporary: Path | None = None
        self._written = 0  # segment files written (their names stay unique)

    @property
    def end(self) -> int:
        """One past the highest label with a row."""
        if self.pending:
            start, rows = self.pending[-1]
            return start + len(rows)
        if self.segments:
            last = self.segments[-1]
            return last.start + last.rows
        return 0

    def put(self, first: int, vectors: np.ndarray) -> None:
        """Rows for labels ``first ...`` (labels at or above ``first`` already held, left by
        an add that was rolled back, are replaced)."""
        self._truncate(first)
        end = self.end
        if first > end:  # labels never given a vector: zero rows keep the arithmetic simple
            self.pending.append((end, np.zeros((first - end, self.dimension), np.float32)))
        if vectors.nbytes >= SPILL_BYTES:  # a large add: from the caller's rows to a file
            self.spill()  # what waits goes first, so segments stay in label order
            self._write_segment(first, [np.asarray(vectors, dtype=np.float32)])
            return
        self.pending.append((first, np.array(vectors, dtype=np.float32, copy=True)))
        if sum(rows.nbytes for _, rows in self.pending) >= SPILL_BYTES:
            self.spill()

    def _truncate(self, first: int) -> None:
        kept = []
        for start, rows in self.pending:
            if start + len(rows) <= first:
                kept.append((start, rows))
            elif start < first:
                kept.append((start, rows[: first - start]))
        self.pending = kept  # rows already in a segment are shadowed by later ones (get)

    def spill(self) -> None:
        """Write the rows held in memory to a new segment file (temporary folder)."""
        if not self.pending:
            return
        self._write_segment(self.pending[0][0], [rows for _, rows in self.pending])
        self.pending = []

    def _write_segment(self, start: int, parts: list[np.ndarray]) -> None:
        """Write consecutive rows (in parts, never concatenated) as a new segment."""
        if self._temporary is None:
            self._temporary = Path(tempfile.mkdtemp(prefix="ragline-vectors-"))
            weakref.finalize(self, shutil.rmtree, self._temporary, True)
        rows = sum(len(part) for part in parts)
        path = self._temporary / f"{start}-{rows}-{self._written}.f32"
        self._written += 1
        with open(path, "wb") as handle:
            for part in parts:
                np.ascontiguousarray(part).tofile(handle)
        self.segments.append(self._open(start, rows, path))

    def _open(self, start: int, rows: int, path: Path) -> Segment:
        if rows == 0:
            array = np.zeros((0, self.dimension), dtype=np.float32)
        else:
            array = np.memmap(path, dtype=np.float32, mode="r", shape=(rows, self.dimension))
        return Segment(start, rows, path, array)

    def get(self, labels: np.ndarray) -> np.ndarray:
        """Rows of these labels, shape ``(len(labels), dimension)``."""
        labels = np.asarray(labels, dtype=np.int64)
        out = np.empty((len(labels), self.dimension), dtype=np.float32)
        if not len(labels):
            return out
        parts = [(s.start, s.rows, s.array) for s in self.segments]
        parts += [(start, len(rows), rows) for start, rows in self.pending]
        if len(parts) == 1:
            start, _, array = parts[0]
            out[:] = array[labels - start]
            return out
        for start, count, array in parts:
            inside = (labels >= start) & (labels < start + count)
            if inside.any():
                out[inside] = array[labels[inside] - start]
        return out

    # ------------------------------------------------------------------ files

    def save(self, folder: Path, prefix: str) -> list[dict[str, int | str]]:
        """Put every row into files in ``folder`` named ``<prefix>.<n>.f32``; returns what
        the manifest lists (file, start, rows). Segments are linked where possible."""
        self.spill()
        listed: list[dict[str, int | str]] = []
        for number, segment in enumerate(self.segments):
            name = f"{prefix}.{number}.f32"
            target = folder / name
            try:
                os.link(segment.path, target)
            except OSError:  # another file system, or the file is gone: copy the rows
                _write_rows(segment.array, target)
            listed.append({"file": name, "start": segment.start, "rows": segment.rows})
        return listed

    def adopt(self, folder: Path, listed: list[dict[str, int | str]]) -> None:
        """Read from the files a save wrote (so the temporary ones can go)."""
        self.segments = [
            self._open(int(entry["start"]), int(entry["rows"]), folder / str(entry["file"]))
            for entry in listed
        ]

    @classmethod
    def load(cls, folder: Path, dimension: int, listed: list[dict[str, int | str]]) -> VectorFile:
        """Open saved segments (sizes are checked by the caller)."""
        vectors = cls(dimension)
        vectors.adopt(folder, listed)
        return vectors


def _write_rows(array: np.ndarray, path: Path) -> None:
    with open(path, "wb") as handle:
        for begin in range(0, len(array), _COPY_ROWS):
            handle.write(np.ascontiguousarray(array[begin : begin + _COPY_ROWS]).tobytes())
    with contextlib.suppress(OSError):
        os.chmod(path, 0o644)

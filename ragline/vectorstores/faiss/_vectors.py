"""Full-precision vectors on disk, memory-mapped, for exact re-ranking.

A compressed faiss index (PQ, SQ8 ...) holds codes, not vectors: its scores are
approximate. With ``rerank=`` the FAISS store also keeps every vector at full precision
in a :class:`VectorFile`, row ``label - start`` of a *segment*; the index proposes
``rerank x k`` candidates and their exact scores, computed from these rows, pick the k.
Exact searches over a filter's matching documents read their rows here too.

Segments are immutable float32 files, memory-mapped, so the operating system keeps only
the rows searches touch in memory. Each map is advised random access (``MADV_RANDOM``,
where the platform has it): a re-ranking search reads a few dozen rows spread over every
segment, and the kernel's read-ahead on each first touch (8 MiB on some disks) made a
cold 10M-vector search read ~450 MB (see docs/scale.md, "cold query"). A read of many
rows close together (``FAISS.change_index``, an exact scan of a large filtered subset, a
copy on save) advises sequential access over the span it reads for its duration.

New vectors collect in memory and are written out as a new segment every
:data:`SPILL_BYTES` (into a temporary folder until the store is saved) and on each save;
an add of at least that many bytes goes straight to its own segment, never copied in
memory. A save links each segment into the saved folder (``os.link``, no copy, on one
file system; a copy elsewhere), so saving a large store rewrites only the vectors added
since the last save. Deleted documents leave their rows behind (labels are never
reused); they are dropped when the index is built anew (see ``FAISS.change_index``).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import shutil
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["SPILL_BYTES", "Segment", "VectorFile"]

SPILL_BYTES = 64 * 2**20  # vectors kept in memory before they go to a segment file
_COPY_ROWS = 65_536
# a read of at least one row in this many over the span it covers is a sequential pass
_DENSE_EVERY = 32
_PAGE = mmap.PAGESIZE


@dataclass
class Segment:
    """Rows for labels ``start .. start + rows - 1``, in ``path`` (float32, row-major)."""

    start: int
    rows: int
    path: Path
    array: np.ndarray  # a read-only view of ``mapped``
    mapped: mmap.mmap | None = None  # the file's map (None for an empty segment)

    @contextlib.contextmanager
    def sequential(self, first: int, last: int) -> Iterator[None]:
        """Rows ``first .. last`` are read as one pass: advise sequential access (and
        read-ahead) over them meanwhile, random access again after."""
        if self.mapped is None:
            yield
            return
        row = self.array.shape[1] * 4
        begin = first * row // _PAGE * _PAGE
        length = (last + 1) * row - begin
        _advise(self.mapped, "MADV_SEQUENTIAL", begin, length)
        _advise(self.mapped, "MADV_WILLNEED", begin, length)
        try:
            yield
        finally:
            _advise(self.mapped, "MADV_RANDOM", begin, length)


def _advise(mapped: mmap.mmap, name: str, start: int = 0, length: int = 0) -> None:
    """``mapped.madvise`` where the platform has it and the advice (a hint: errors are
    ignored)."""
    option = getattr(mmap, name, None)
    if option is None or not hasattr(mapped, "madvise"):
        return
    with contextlib.suppress(OSError, ValueError):
        if length:
            mapped.madvise(option, start, length)
        else:
            mapped.madvise(option)


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
            return Segment(start, rows, path, np.zeros((0, self.dimension), dtype=np.float32))
        with open(path, "rb") as handle:  # the map stays valid once the file is closed
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        _advise(mapped, "MADV_RANDOM")
        array = np.frombuffer(mapped, dtype=np.float32, count=rows * self.dimension)
        return Segment(start, rows, path, array.reshape(rows, self.dimension), mapped)

    def get(self, labels: np.ndarray) -> np.ndarray:
        """Rows of these labels, shape ``(len(labels), dimension)``."""
        labels = np.asarray(labels, dtype=np.int64)
        out = np.empty((len(labels), self.dimension), dtype=np.float32)
        if not len(labels):
            return out
        parts: list[tuple[int, int, np.ndarray, Segment | None]]
        parts = [(s.start, s.rows, s.array, s) for s in self.segments]
        parts += [(start, len(rows), rows, None) for start, rows in self.pending]
        if len(parts) == 1:
            _read(out, parts[0][2], labels - parts[0][0], parts[0][3])
            return out
        for start, count, array, segment in parts:
            inside = (labels >= start) & (labels < start + count)
            if inside.any():
                out[inside] = _read(None, array, labels[inside] - start, segment)
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
                _write_rows(segment, target)
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


def _read(
    out: np.ndarray | None, array: np.ndarray, rows: np.ndarray, segment: Segment | None
) -> np.ndarray:
    """``array[rows]`` (into ``out`` when given); a dense read of a segment (at least one
    row in :data:`_DENSE_EVERY` of the span) is read as a sequential pass."""
    advice: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if segment is not None:
        first, last = int(rows.min()), int(rows.max())
        if len(rows) * _DENSE_EVERY >= last - first + 1:
            advice = segment.sequential(first, last)
    with advice:
        if out is None:
            return array[rows]
        out[:] = array[rows]
        return out


def _write_rows(segment: Segment, path: Path) -> None:
    array = segment.array
    with open(path, "wb") as handle, segment.sequential(0, max(len(array) - 1, 0)):
        for begin in range(0, len(array), _COPY_ROWS):
            handle.write(np.ascontiguousarray(array[begin : begin + _COPY_ROWS]).tobytes())
    with contextlib.suppress(OSError):
        os.chmod(path, 0o644)

"""The merge engine: adjacent pieces become chunks, each with its true start offset.

The rule is LangChain's (so ported code gets the same chunks): add pieces to the current
chunk while it stays within ``chunk_size``; when the next piece does not fit, emit the
chunk, then drop pieces from its front until what is left is at most ``chunk_overlap``
and leaves room for the next piece. Pieces carry their offsets in the original text, so
a chunk's start is known exactly instead of being searched for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["Chunk", "Merger", "memoized"]

# A chunk and the offset of its first character in the text it was cut from.
Chunk = tuple[str, int]


def memoized(length_function: Callable[[str], int]) -> Callable[[str], int]:
    """Wrap ``length_function`` with a cache that lives for one split call.

    Splitting measures the same piece several times (to decide whether to split it
    further, to merge it, to drop it from the overlap), and a token count is expensive.
    """
    if length_function is len:
        return len
    cache: dict[str, int] = {}

    def measure(piece: str) -> int:
        size = cache.get(piece)
        if size is None:
            size = cache[piece] = length_function(piece)
        return size

    return measure


class Merger:
    """Merges runs of adjacent pieces into chunks for one split call.

    Args:
        chunk_size, chunk_overlap, strip_whitespace: the splitter's options.
        want_starts: also record each chunk's start offset in ``starts``.
        length: measures pieces of the text being split (memoized).
        gap_length: measures the separators re-inserted between pieces.

    Attributes:
        chunks: the chunks so far, in text order.
        starts: their start offsets (only ``want_starts``).
    """

    __slots__ = (
        "chunks",
        "gap_length",
        "length",
        "overlap",
        "size",
        "starts",
        "strip",
        "want_starts",
    )

    def __init__(
        self,
        *,
        chunk_size: int,
        chunk_overlap: int,
        strip_whitespace: bool,
        want_starts: bool,
        length: Callable[[str], int],
        gap_length: Callable[[str], int],
    ) -> None:
        self.size = chunk_size
        self.overlap = chunk_overlap
        self.strip = strip_whitespace
        self.want_starts = want_starts
        self.length = length
        self.gap_length = gap_length
        self.chunks: list[str] = []
        self.starts: list[int] = []

    def add(self, chunk: str, start: int) -> None:
        """Add a chunk as it is (a piece too large to merge that cannot be cut further)."""
        self.chunks.append(chunk)
        if self.want_starts:
            self.starts.append(start)

    def with_starts(self) -> list[Chunk]:
        """The chunks paired with their start offsets."""
        return list(zip(self.chunks, self.starts, strict=True))

    def merge(
        self,
        pieces: Sequence[str],
        offsets: Sequence[int],
        lengths: Sequence[int],
        gaps: str | Sequence[str],
    ) -> None:
        """Merge adjacent ``pieces`` into chunks added to ``self.chunks``.

        Args:
            pieces: the pieces, in text order.
            offsets: each piece's offset in the original text.
            lengths: each piece's length under the length function.
            gaps: the separator re-inserted between two pieces: one string for all, or
                ``gaps[i]`` goes before ``pieces[i]`` (``gaps[0]`` is unused).
        """
        size, overlap = self.size, self.overlap
        first = 0  # the current chunk is pieces[first:index]
        total = 0  # its length: pieces plus the gaps between them
        if isinstance(gaps, str):
            # The common case, one separator everywhere: the same rule with a constant
            # gap length (this loop is the hot path of every split).
            gap = self.gap_length(gaps)
            chunks = self.chunks
            plain = self.strip and not self.want_starts  # the default: emit inline
            for index, length in enumerate(lengths):
                if total + length + gap > size and index > first:
                    if plain:
                        chunk = gaps.join(pieces[first:index]).strip()
                        if chunk:
                            chunks.append(chunk)
                    else:
                        self._emit(pieces, offsets, gaps, first, index)
                    while total > overlap or (
                        total > 0 and total + length + (gap if index > first else 0) > size
                    ):
                        total -= lengths[first] + (gap if index - first > 1 else 0)
                        first += 1
                total += length + (gap if index > first else 0)
        else:
            gap_lengths = list(map(self.gap_length, gaps))
            for index, length in enumerate(lengths):
                if index > first and total + length + gap_lengths[index] > size:
                    self._emit(pieces, offsets, gaps, first, index)
                    # Drop pieces from the front until what is left fits in the overlap
                    # and leaves room for the new piece.
                    while total > overlap or (
                        total > 0
                        and total + length + (gap_lengths[index] if index > first else 0) > size
                    ):
                        total -= lengths[first] + (
                            gap_lengths[first + 1] if index - first > 1 else 0
                        )
                        first += 1
                total += length + (gap_lengths[index] if index > first else 0)
        if len(pieces) > first:
            if self.strip and not self.want_starts and isinstance(gaps, str):
                chunk = gaps.join(pieces[first:]).strip()
                if chunk:
                    self.chunks.append(chunk)
            else:
                self._emit(pieces, offsets, gaps, first, len(pieces))

    def _emit(
        self,
        pieces: Sequence[str],
        offsets: Sequence[int],
        gaps: str | Sequence[str],
        first: int,
        end: int,
    ) -> None:
        if isinstance(gaps, str):
            text = gaps.join(pieces[first:end])
        else:
            parts = [pieces[first]]
            for index in range(first + 1, end):
                parts.append(gaps[index])
                parts.append(pieces[index])
            text = "".join(parts)
        chunk = text.strip() if self.strip else text
        if not chunk:
            return
        self.chunks.append(chunk)
        if self.want_starts:
            lead = len(text) - len(text.lstrip()) if self.strip else 0
            self.starts.append(_locate(lead, pieces, offsets, gaps, first, end))


def _locate(
    position: int,
    pieces: Sequence[str],
    offsets: Sequence[int],
    gaps: str | Sequence[str],
    first: int,
    end: int,
) -> int:
    """Map a position in the joined pieces[first:end] back to an offset in the text."""
    for index in range(first, end):
        if position < len(pieces[index]):
            return offsets[index] + position
        position -= len(pieces[index])
        if index + 1 < end:
            gap = gaps if isinstance(gaps, str) else gaps[index + 1]
            if position < len(gap):
                # The gap re-inserted before a piece is the separator just before it.
                return offsets[index + 1] - len(gap) + position
            position -= len(gap)
    return offsets[end - 1] + len(pieces[end - 1])  # only whitespace: never emitted

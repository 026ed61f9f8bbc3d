"""The parity tests' stand-in embedding: a text's letter counts as a unit vector.

Deterministic, offline and cheap, and its float64 numbers are not all exactly
representable in float32, so a store that rounds shows it.
"""

from __future__ import annotations


def letter_counts(text: str) -> list[float]:
    """The 26 counts of ``text``'s letters a-z (case folded), scaled to length 1 (all
    zeros for a text without letters)."""
    counts = [0.0] * 26
    for ch in text.lower():
        if "a" <= ch <= "z":
            counts[ord(ch) - 97] += 1.0
    norm = sum(x * x for x in counts) ** 0.5 or 1.0
    return [x / norm for x in counts]

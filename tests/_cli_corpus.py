"""The three-file corpus (cats, dogs, Mars) that several CLI tests index."""

from __future__ import annotations

from pathlib import Path

FILES = {
    "cats.md": "# Cats\n\nCats purr when they are content and sleep most of the day.",
    "dogs.txt": "Dogs bark at strangers and love long walks in the park.",
    "mars.txt": "Mars is a cold desert planet with the largest volcano in the solar system.",
}


def write_corpus(root: Path) -> Path:
    """Write :data:`FILES` into ``root`` (a new folder) and return it."""
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root

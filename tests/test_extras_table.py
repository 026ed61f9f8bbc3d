"""The extras table of docs/getting-started.md names every extra pyproject.toml declares
(a new extra, such as ``cluster`` for EmbeddingsClusteringFilter, was missing there)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def _table_extras() -> set[str]:
    text = (REPO_ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z0-9-]+)`\s*\|", text, flags=re.MULTILINE))


def test_the_getting_started_table_names_every_extra() -> None:
    # the extras' names: the keys of pyproject's [project.optional-dependencies] table
    # (read by hand: tomllib is Python 3.11+, and ragline runs on 3.10)
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = pyproject.split("[project.optional-dependencies]\n", 1)[1]
    section = re.split(r"^\[", section, maxsplit=1, flags=re.MULTILINE)[0]
    declared = set(re.findall(r"^([a-z0-9-]+) = ", section, flags=re.MULTILINE))
    assert "cluster" in declared
    assert _table_extras() == declared

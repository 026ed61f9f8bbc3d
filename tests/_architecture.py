"""Read ARCHITECTURE.md: its package map and its dependency table.

The tests take the dependency table from ARCHITECTURE.md rather than from a copy of
their own, so the page and the enforced rule cannot drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_ROOT = REPO_ROOT / "ragline"
ARCHITECTURE = REPO_ROOT / "ARCHITECTURE.md"

_ANY = "(any)"
_NOTHING = "(nothing)"


def section(title: str, text: str | None = None) -> str:
    """The text of the ``## title`` section (up to the next ``## `` heading)."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"ARCHITECTURE.md has no '## {title}' section"
    return match.group(1)


def dependency_table(text: str | None = None) -> dict[str, set[str] | None]:
    """Package (or top-level module) -> the ragline packages it may import.

    ``None`` means any package (the ``(any)`` rows: the CLI).
    """
    table: dict[str, set[str] | None] = {}
    for line in section("Dependency table", text).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not re.fullmatch(r"`\w+`", cells[0]):
            continue  # prose, the header row or the |---| rule
        name = cells[0].strip("`")
        assert name not in table, f"ARCHITECTURE.md's dependency table lists {name!r} twice"
        if cells[1] == _ANY:
            table[name] = None
        elif cells[1] == _NOTHING:
            table[name] = set()
        else:
            allowed = re.findall(r"`(\w+)`", cells[1])
            assert allowed and ", ".join(f"`{a}`" for a in allowed) == cells[1], (
                f"ARCHITECTURE.md dependency row {name!r}: write the allowed packages as "
                f"`a`, `b` (or {_NOTHING} / {_ANY}), got {cells[1]!r}"
            )
            table[name] = set(allowed)
    return table


def mapped_paths(text: str | None = None) -> set[str]:
    """Every module (``x/y.py``) and package (``x/``) path the package map names.

    A module or nested package is a table row (``| `core/_checks.py` | ... |``); a
    top-level package is the heading of its section (``### `core/` — ...``).
    """
    text = section("Package map", text)
    rows = re.findall(r"^\| `([\w/]+(?:\.py|/))` \|", text, re.M)
    headings = re.findall(r"^### `(\w+/)`", text, re.M)
    return set(rows) | set(headings)


def modules_on_disk() -> set[str]:
    """Every module and package below ragline/, as the package map writes them.

    Modules are ``core/_checks.py`` (every ``.py`` but a subpackage's ``__init__.py``);
    packages are ``core/runnables/`` (every folder with an ``__init__.py``).
    """
    found = set()
    for path in PACKAGE_ROOT.rglob("*.py"):
        relative = path.relative_to(PACKAGE_ROOT).as_posix()
        if path.name != "__init__.py" or path.parent == PACKAGE_ROOT:
            found.add(relative)
        elif path.parent != PACKAGE_ROOT:
            found.add(path.parent.relative_to(PACKAGE_ROOT).as_posix() + "/")
    return found


def top_level_units() -> set[str]:
    """The rows the dependency table must have: subpackages and top-level modules."""
    units = {path.name for path in PACKAGE_ROOT.iterdir() if (path / "__init__.py").is_file()}
    units |= {path.stem for path in PACKAGE_ROOT.glob("*.py") if path.name != "__init__.py"}
    return units

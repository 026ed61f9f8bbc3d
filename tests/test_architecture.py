"""ARCHITECTURE.md stays true: every package and module has its line, and no line is stale.

The dependency table it holds is the one ``tests/test_package.py`` enforces.
"""

from __future__ import annotations

import pytest

from tests._architecture import (
    ARCHITECTURE,
    dependency_table,
    mapped_paths,
    modules_on_disk,
    top_level_units,
)


def test_every_module_and_package_is_in_the_package_map() -> None:
    """A module or package under ragline/ without its line in ARCHITECTURE.md fails.

    On failure, add the lines printed below to the table of their package under
    '## Package map' in ARCHITECTURE.md (a new package also gets its own '### `name/`'
    section), saying in a few words what each module holds.
    """
    missing = sorted(modules_on_disk() - mapped_paths())
    lines = "\n".join(
        f"### `{path}` — <what the package is for>"
        if path.count("/") == 1 and path.endswith("/")
        else f"| `{path}` | <what it holds> |"
        for path in missing
    )
    assert not missing, f"ARCHITECTURE.md's package map lacks (add these rows):\n{lines}"


def test_the_package_map_names_nothing_that_is_gone() -> None:
    """A line for a module that was moved or removed makes the map lie: fix or drop it."""
    stale = sorted(mapped_paths() - modules_on_disk())
    assert not stale, f"ARCHITECTURE.md's package map names modules that do not exist: {stale}"


def test_the_dependency_table_has_a_row_for_every_package() -> None:
    """Each subpackage and top-level module has exactly one row in the dependency table.

    On failure, add a row under '## Dependency table' in ARCHITECTURE.md naming the ragline
    packages the new one may import (only those below it in the pipeline; `(any)` only for
    entry points such as the CLI that nothing imports), e.g. | `tools` | `core`, `retrievers` |
    """
    table = dependency_table()
    units = top_level_units()
    missing = sorted(units - set(table))
    assert not missing, (
        "ARCHITECTURE.md's dependency table lacks a row for "
        + ", ".join(missing)
        + "; add e.g. "
        + "; ".join(f"| `{name}` | `core` |" for name in missing)
    )
    unknown = sorted(set(table) - units)
    assert not unknown, f"ARCHITECTURE.md's dependency table names no such package: {unknown}"
    for name, allowed in table.items():
        assert allowed is None or allowed <= units, (
            f"row {name!r} allows unknown packages {sorted(allowed - units)}"
        )


def test_the_table_parser_reads_every_form_of_row() -> None:
    """The parser itself: if it misread rows, the dependency test would check nothing."""
    text = (
        "## Dependency table\n\n| package | may import |\n|---|---|\n"
        "| `core` | (nothing) |\n| `loaders` | `core` |\n"
        "| `chains` | `core`, `retrievers` |\n| `cli` | (any) |\n\n## Next\n| `x` | `y` |\n"
    )
    assert dependency_table(text) == {
        "core": set(),
        "loaders": {"core"},
        "chains": {"core", "retrievers"},
        "cli": None,
    }
    with pytest.raises(AssertionError, match="write the allowed packages"):
        dependency_table("## Dependency table\n| `chains` | core, retrievers |\n")
    with pytest.raises(AssertionError, match="twice"):
        dependency_table("## Dependency table\n| `a` | `core` |\n| `a` | `core` |\n")


def test_the_map_parser_reads_module_and_package_rows() -> None:
    text = (
        "## Package map\n| module | what |\n|---|---|\n| `core/_checks.py` | checks |\n"
        "| `core/runnables/` | runnables |\n| `cli.py` | the command |\nprose `x.py`\n"
        "### `tools/` — tools\n"
    )
    assert mapped_paths(text) == {"core/_checks.py", "core/runnables/", "cli.py", "tools/"}


def test_the_page_exists_where_the_readme_points() -> None:
    readme = (ARCHITECTURE.parent / "README.md").read_text(encoding="utf-8")
    assert ARCHITECTURE.is_file() and "ARCHITECTURE.md" in readme
    assert "core/_checks.py" in modules_on_disk()
    assert "core/runnables/" in modules_on_disk()
    assert "cli" in top_level_units() and "core" in top_level_units()

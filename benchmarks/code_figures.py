"""Code-shape figures of the ``ragline`` package: the "before/after" numbers of issue 12.

What it measures (over every ``.py`` file below ``ragline/``, tests and benchmarks left out):

* **modules, lines**: how many modules, their total physical lines, and the largest
  module (physical lines, as ``wc -l`` counts them).
* **function length**: for every ``def`` and ``async def`` (methods and nested functions
  included), ``end_lineno - lineno + 1`` from the AST: the signature line(s) through the
  last line of the body, decorators not counted, the docstring counted. Reported as the
  median and the 90th percentile (nearest rank: the smallest length that at least 90% of
  the functions do not exceed) and the longest.
* **``**kwargs: Any``**: parameters written ``**<name>: Any`` (the regular expression
  ``\\*\\*\\w+: Any\\b``), as a count and per 1,000 lines.
* **duplicate pairs**: the count in the first line of ``duplicates --repo ragline --most
  200`` (pairs of places sharing six or more lines), when that tool is on ``PATH``.
* **``import ragline``**: in a fresh interpreter, ``len(sys.modules)`` after ``import
  ragline`` (interpreter start-up included), how many modules the import itself added,
  and how many of those are ragline's own.

Usage (from the repository root, with the package you want to measure first on the path):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/code_figures.py [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "ragline"
KWARGS_ANY = re.compile(r"\*\*\w+: Any\b")
IMPORT_COUNT = (
    "import sys; before = set(sys.modules); import ragline; "
    "new = set(sys.modules) - before; "
    "print(len(sys.modules), len(new), "
    "sum(1 for m in new if m == 'ragline' or m.startswith('ragline.')))"
)


def nearest_rank(values: list[int], fraction: float) -> int:
    """The smallest value that at least ``fraction`` of ``values`` do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def function_lengths(source: str) -> list[int]:
    """Lines of every def / async def in ``source`` (signature through end of body)."""
    return [
        node.end_lineno - node.lineno + 1
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno
    ]


def duplicate_pairs() -> int | None:
    """The pair count ``duplicates`` reports for ragline/, or None without the tool."""
    if shutil.which("duplicates") is None:
        return None
    out = subprocess.run(
        ["duplicates", "--repo", "ragline", "--most", "200", "--seconds", "120"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    ).stdout
    first = out.splitlines()[0] if out else ""
    if first.startswith("no duplicates"):
        return 0
    match = re.search(r"(\d+) pairs?", first)
    return int(match.group(1)) if match else None


def import_counts() -> tuple[int, int, int]:
    """``sys.modules`` after ``import ragline``: (all, added by the import, ragline's own)."""
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_COUNT],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    ).stdout.split()
    return int(out[0]), int(out[1]), int(out[2])


def measure() -> dict[str, object]:
    """Every figure, as a flat dict (see the module docstring for the definitions)."""
    files = sorted(PACKAGE.rglob("*.py"))
    sizes: dict[str, int] = {}
    lengths: list[int] = []
    kwargs_any = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        sizes[str(path.relative_to(REPO))] = len(source.splitlines())
        lengths.extend(function_lengths(source))
        kwargs_any += len(KWARGS_ANY.findall(source))
    total = sum(sizes.values())
    largest = max(sizes, key=lambda name: sizes[name])
    total_modules, added, own = import_counts()
    return {
        "modules": len(files),
        "lines": total,
        "largest_module": largest,
        "largest_module_lines": sizes[largest],
        "functions": len(lengths),
        "function_median": statistics.median(lengths),
        "function_p90": nearest_rank(lengths, 0.9),
        "function_max": max(lengths),
        "kwargs_any": kwargs_any,
        "kwargs_any_per_1000_lines": round(1000 * kwargs_any / total, 1),
        "duplicate_pairs": duplicate_pairs(),
        "import_ragline_sys_modules": total_modules,
        "import_ragline_added_modules": added,
        "import_ragline_own_modules": own,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    figures = measure()
    if parser.parse_args().json:
        print(json.dumps(figures, indent=2))
        return
    width = max(map(len, figures))
    for name, value in figures.items():
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()

"""How long CSVLoader takes on a very wide header (issue 31: 80,000 columns, 91 s).

Writes one CSV of ``--columns`` columns and one data row, then times, on the same
header in the same run:

* ``baseline``: the column-name check CSVLoader used before the fix
  (``header.count(name)`` for every name: quadratic), reproduced here;
* ``CSVLoader.load()``: today's loader, the whole load (header checks included).

Usage: ``python benchmarks/csv_columns.py [--columns 80000]`` (the baseline alone takes
about a minute and a half at 80,000 columns).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragline.loaders import CSVLoader


def _quadratic_duplicates(header: list[str]) -> list[str]:
    """The pre-fix check, kept only as this benchmark's baseline."""
    return sorted({name for name in header if header.count(name) > 1})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--columns", type=int, default=80_000)
    columns = parser.parse_args().columns
    header = [f"column{i}" for i in range(columns)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "wide.csv"
        path.write_text(",".join(header) + "\n" + ",".join(["1"] * columns) + "\n")
        start = time.perf_counter()
        CSVLoader(path).load()
        loader_seconds = time.perf_counter() - start
    start = time.perf_counter()
    _quadratic_duplicates(header)
    baseline_seconds = time.perf_counter() - start
    print(f"columns: {columns}")
    print(f"baseline (pre-fix name check alone): {baseline_seconds:.3f} s")
    print(f"CSVLoader.load() (whole load):       {loader_seconds:.3f} s")
    print(f"ratio baseline / load: {baseline_seconds / loader_seconds:.0f}x")


if __name__ == "__main__":
    main()

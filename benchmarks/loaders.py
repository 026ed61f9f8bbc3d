"""Loader speed and memory against LangChain's loaders, measured in the same run.

Measures, on corpora the script writes to a temporary directory:

* a directory of N small text files (nested 3 levels): ragline ``DirectoryLoader``
  (sequential and with 4 threads) against langchain-community ``DirectoryLoader`` with
  ``TextLoader`` (files per second);
* a CSV file of R rows: ``CSVLoader`` against langchain-community ``CSVLoader`` (rows
  per second);
* peak Python memory (tracemalloc) while iterating ``lazy_load()`` over a directory of
  large files, against ``load()``: a lazy load should hold about one file at a time;
* import time of the loaders package in a fresh interpreter.

Both sides load the same files and the script checks they produce the same texts
before timing. Figures are the best of ``--repeat`` runs.

Usage:
    .venv/bin/python benchmarks/loaders.py [--files 2000] [--rows 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import platform
import sys
import tempfile
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
warnings.filterwarnings("ignore", category=DeprecationWarning)

from _timing import best_of, import_time  # noqa: E402

from ragline.loaders import CSVLoader, DirectoryLoader  # noqa: E402


def write_tree(root: Path, files: int) -> None:
    paragraph = "Retrieval-augmented generation loads documents, splits them and embeds them. "
    for i in range(files):
        folder = root / f"d{i % 10}" / f"e{i % 7}" / f"f{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc{i:05d}.txt").write_text(
            f"Document {i}. " + paragraph * 25, encoding="utf-8"
        )


def write_csv(path: Path, rows: int) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "title", "body", "author"])
        for i in range(rows):
            writer.writerow([i, f"Title {i}", f"Body of row {i}, with a comma", f"author{i % 50}"])


def peak_memory(function: Callable[[], object]) -> float:
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def row(name: str, ours: float, theirs: float, unit: str) -> None:
    print(
        f"{name:<44} ragline {ours:>12,.0f} {unit:<10} langchain {theirs:>12,.0f} {unit:<10} "
        f"ratio {ours / theirs:5.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from langchain_community.document_loaders import CSVLoader as LCCSVLoader
    from langchain_community.document_loaders import DirectoryLoader as LCDirectoryLoader
    from langchain_community.document_loaders import TextLoader as LCTextLoader

    print(
        f"python {platform.python_version()} on {platform.machine()}, {args.files} files, "
        f"{args.rows} CSV rows, best of {args.repeat}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        tree = tmp_path / "tree"
        write_tree(tree, args.files)
        ours = DirectoryLoader(tree, glob="**/*.txt")
        threaded = DirectoryLoader(
            tree, glob="**/*.txt", use_multithreading=True, max_concurrency=4
        )
        theirs = LCDirectoryLoader(
            str(tree), glob="**/*.txt", loader_cls=LCTextLoader, loader_kwargs={"encoding": "utf-8"}
        )
        assert sorted(d.page_content for d in ours.load()) == sorted(
            d.page_content for d in theirs.load()
        )
        t_ours, _ = best_of(args.repeat, ours.load)
        t_threaded, _ = best_of(args.repeat, threaded.load)
        t_theirs, _ = best_of(args.repeat, theirs.load)
        row("DirectoryLoader, sequential", args.files / t_ours, args.files / t_theirs, "files/s")
        row(
            "DirectoryLoader, 4 threads (both sides)",
            args.files / t_threaded,
            args.files
            / best_of(
                args.repeat,
                LCDirectoryLoader(
                    str(tree),
                    glob="**/*.txt",
                    loader_cls=LCTextLoader,
                    use_multithreading=True,
                    max_concurrency=4,
                ).load,
            )[0],
            "files/s",
        )

        table = tmp_path / "table.csv"
        write_csv(table, args.rows)
        ours_csv, theirs_csv = CSVLoader(table), LCCSVLoader(str(table), encoding="utf-8")
        assert [d.page_content for d in ours_csv.load()[:50]] == [
            d.page_content for d in theirs_csv.load()[:50]
        ]
        t_ours, _ = best_of(args.repeat, ours_csv.load)
        t_theirs, _ = best_of(args.repeat, theirs_csv.load)
        row("CSVLoader", args.rows / t_ours, args.rows / t_theirs, "rows/s")

        big = tmp_path / "big"
        big.mkdir()
        for i in range(10):
            (big / f"big{i}.txt").write_text(
                ("x" * 99 + "\n") * 50_000, encoding="utf-8"
            )  # 5 MB each

        def consume_lazily() -> None:
            for document in DirectoryLoader(big).lazy_load():
                len(document.page_content)

        lazy, eager = peak_memory(consume_lazily), peak_memory(DirectoryLoader(big).load)
        print(
            f"{'peak memory over 10 x 5 MB files':<44} lazy_load {lazy:8.1f} MiB   load() "
            f"{eager:8.1f} MiB   ratio {lazy / eager:5.2f}x"
        )

    t_ours = import_time("import ragline.loaders as l; l.DirectoryLoader; l.CSVLoader")
    t_theirs = import_time(
        "from langchain_community.document_loaders import DirectoryLoader, CSVLoader"
    )
    print(
        f"{'import DirectoryLoader + CSVLoader':<44} ragline {t_ours * 1000:9.0f} ms      "
        f"langchain {t_theirs * 1000:9.0f} ms      ratio {t_ours / t_theirs:5.2f}x"
    )


if __name__ == "__main__":
    main()

"""InMemoryVectorStore search speed: this tree against an earlier revision and LangChain's.

The same random vectors (dimension 384, fixed seed) in three stores: ragline's
``InMemoryVectorStore`` from this tree, the same class from ``--baseline`` (a git
revision, loaded from ``git show``; default ``HEAD``), and langchain_core's
``InMemoryVectorStore``. Each answers the same queries through
``similarity_search_with_score`` (k=4), in rounds that alternate the stores, per size.
It prints the median milliseconds per query and the ratio of this tree to the baseline
(the cosine ranking went from float32 + argpartition to LangChain's float64 + argsort),
and ``/proc/loadavg`` at start and end (figures on a loaded machine are noisy).

Usage::

    .venv/bin/python benchmarks/in_memory_search.py [--sizes 1000,10000,100000]
        [--queries 200] [--baseline REV]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragline.embeddings import Embeddings  # noqa: E402
from ragline.vectorstores import InMemoryVectorStore  # noqa: E402

DIM = 384
SEED = 20261129


def load_average() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return "unknown"


def baseline_class(revision: str) -> Any:
    """InMemoryVectorStore as it was at ``revision`` (its module, imported under a new name)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:ragline/vectorstores/in_memory.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp())
    path = folder / "in_memory_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ragline_in_memory_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.InMemoryVectorStore


class Table:
    """Texts are row numbers ("7"), queries "q7"; vectors come from two fixed tables."""

    def __init__(self, count: int, queries: int) -> None:
        rng = np.random.default_rng(SEED)
        self.rows = rng.standard_normal((count, DIM))
        self.queries = rng.standard_normal((queries, DIM))

    def vector(self, text: str) -> list[float]:
        if text.startswith("q"):
            return self.queries[int(text[1:])].tolist()
        return self.rows[int(text)].tolist()


def ours_embeddings(table: Table) -> Embeddings:
    class Ours(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [table.vector(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return table.vector(text)

    return Ours()


def their_embeddings(table: Table) -> Any:
    from langchain_core.embeddings import Embeddings as LCEmbeddings

    class Theirs(LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [table.vector(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return table.vector(text)

    return Theirs()


def measure(count: int, queries: int, baseline: Any) -> dict[str, float]:
    from langchain_core.vectorstores import InMemoryVectorStore as LCStore

    table = Table(count, queries)
    texts = [str(i) for i in range(count)]
    stores = {
        "this tree": InMemoryVectorStore.from_texts(texts, ours_embeddings(table)),
        "baseline": baseline.from_texts(texts, ours_embeddings(table)),
        "langchain": LCStore.from_texts(texts, their_embeddings(table)),
    }
    times: dict[str, list[float]] = {name: [] for name in stores}
    for i in range(queries):
        query = f"q{i}"
        for name, store in stores.items():
            start = time.perf_counter()
            store.similarity_search_with_score(query, k=4)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--baseline", default="HEAD")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(f"load at start: {load_average()}")
    baseline = baseline_class(args.baseline)
    print(f"{'size':>8} {'this tree ms':>13} {'baseline ms':>12} {'langchain ms':>13} {'ratio':>6}")
    for size in [int(s) for s in args.sizes.split(",")]:
        ms = measure(size, args.queries, baseline)
        ratio = ms["this tree"] / ms["baseline"]
        print(
            f"{size:>8} {ms['this tree']:>13.3f} {ms['baseline']:>12.3f} "
            f"{ms['langchain']:>13.3f} {ratio:>6.2f}"
        )
    print(f"load at end: {load_average()}")


if __name__ == "__main__":
    main()

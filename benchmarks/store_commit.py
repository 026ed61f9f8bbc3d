"""A small run on a large store folder: what its commit costs, and its keyword-index part.

A store folder commits a new generation at the end of every run (and at checkpoints):
the FAISS store, the records, and the keyword (BM25) index brought in step with the
store. This builds a folder of ``--chunks`` chunks once (``--sources`` sources of equal
size, synthetic texts of ~40 words over a seeded 20,000-word vocabulary, an embedding
stub that costs nothing: seeded random vectors of ``--dim`` floats), then times, each
``--repeats`` times:

* add: a run that indexes one new source of ``--small`` chunks (the run, its commit,
  and the keyword index's part of the commit, ``_save_keyword_index``);
* change: a run that re-indexes one existing source with one chunk's text changed (one
  chunk deleted, one added);
* nothing: a run that indexes a source already stored unchanged (no commit; the exit's
  check that the keyword index is the store's, ``_keyword_index_behind``).

Medians are printed: wall time, and CPU time (the run's: the process; a function's:
its thread), which the load of other processes on a shared machine does not inflate
as it does the wall time. ``--repo PATH`` imports ragline from another checkout (e.g. a
``git archive`` of an older commit), so a before/after pair runs on the same machine;
the folder is built by the imported ragline.

Usage:
    .venv/bin/python benchmarks/store_commit.py [--chunks 100000] [--repeats 5]
        [--repo PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--sources", type=int, default=1_000)
    parser.add_argument("--small", type=int, default=100, help="chunks of the added source")
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    return parser.parse_args()


ARGS = parse()
sys.path.insert(0, str(ARGS.repo.resolve()))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from ragline.core import Document  # noqa: E402
from ragline.embeddings import Embeddings  # noqa: E402
from ragline.store_folder import EmbeddingBackend, StoreFolder, register_embedding  # noqa: E402
from ragline.store_folder import _writer as writer_module  # noqa: E402


class Stub(Embeddings):
    """Seeded random vectors: the model is not what is measured."""

    def embed_documents_array(self, texts: Any) -> np.ndarray:
        rng = np.random.default_rng(len(texts))
        return rng.standard_normal((len(texts), ARGS.dim)).astype(np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents_array([text])[0].tolist()


register_embedding("commit-stub", EmbeddingBackend(lambda options, progress: Stub()))

WORDS = [f"w{number}" for number in range(20_000)]


def source(name: str, count: int, seed: int) -> list[Document]:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(WORDS), size=(count, 40))
    return [
        Document(f"{name} part {i}: " + " ".join(WORDS[w] for w in row), {"source": name})
        for i, row in enumerate(picks.tolist())
    ]


TIMES: dict[str, float] = {}  # wall seconds by name; "<name> cpu": this thread's CPU


def wrap(name: str) -> None:
    original = getattr(writer_module.FolderWriter, name, None)
    if original is None:
        return

    def timed(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            TIMES[name] = TIMES.get(name, 0.0) + time.perf_counter() - started
            TIMES[f"{name} cpu"] = TIMES.get(f"{name} cpu", 0.0) + time.thread_time() - cpu

    setattr(writer_module.FolderWriter, name, timed)


for _name in ("commit", "_save_keyword_index", "_keyword_index_behind"):
    wrap(_name)


def run(folder: StoreFolder, documents: list[Document]) -> dict[str, float]:
    TIMES.clear()
    started, cpu = time.perf_counter(), time.process_time()
    with folder.writer(embedding="commit-stub") as writer:
        writer.index(documents, batch_size=1000)
    return {"run": time.perf_counter() - started, "run cpu": time.process_time() - cpu, **TIMES}


def median_table(label: str, samples: list[dict[str, float]]) -> None:
    print(f"{label}:{'wall ms':>22}{'CPU ms':>10}   (wall min-max)")
    for key in ("run", "commit", "_save_keyword_index", "_keyword_index_behind"):
        values = [sample.get(key, 0.0) for sample in samples]
        cpu = statistics.median(sample.get(f"{key} cpu", 0.0) for sample in samples)
        print(f"  {key:<24}{statistics.median(values) * 1e3:>10.1f}{cpu * 1e3:>10.1f}   "
              f"({min(values) * 1e3:.1f}-{max(values) * 1e3:.1f})")  # fmt: skip


def main() -> None:
    per_source = ARGS.chunks // ARGS.sources
    print(f"ragline from {ARGS.repo}; {ARGS.chunks:,} chunks in {ARGS.sources:,} sources, "
          f"dim {ARGS.dim}; load average {os.getloadavg()[0]:.1f} at start")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="ragline-bench-commit-") as tmp:
        folder = StoreFolder(Path(tmp) / "store")

        def corpus() -> Iterator[Document]:
            for number in range(ARGS.sources):
                yield from source(f"s{number}", per_source, number)

        started = time.perf_counter()
        with folder.writer(embedding="commit-stub") as writer:
            writer.index(corpus(), batch_size=5000)
        print(f"built in {time.perf_counter() - started:.1f} s\n")
        cases: list[tuple[str, Callable[[int], list[Document]]]] = [
            (f"add a source of {ARGS.small} chunks",
             lambda r: source(f"new{r}", ARGS.small, 10_000 + r)),
            ("change one chunk of a source", lambda r: changed(r, per_source)),
            ("nothing to do (a stored source again)", lambda r: source("s0", per_source, 0)),
        ]  # fmt: skip
        for label, make in cases:
            samples = [run(folder, make(repeat)) for repeat in range(ARGS.repeats)]
            median_table(label, samples)
    print(f"\nload average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at end")


def changed(repeat: int, per_source: int) -> list[Document]:
    """Source s1 with its first chunk's text changed (differently each repeat)."""
    documents = source("s1", per_source, 1)
    documents[0] = Document(f"{documents[0].page_content} edit {repeat}", {"source": "s1"})
    return documents


if __name__ == "__main__":
    main()

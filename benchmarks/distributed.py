"""Indexing in this process against indexing on Ray (RayEngine) with 1 and 2 workers.

The corpus is the first ``--files`` Python files of this interpreter's standard library
(sorted, tests left out), read and split the way ``ragline index`` does (recursive
splitter, Python preset, 1,000 characters, overlap 150), embedded with the packaged
MiniLM (ONNX Runtime, fp32) into a FAISS store with an in-memory record manager.
Measured, in one run on a local Ray of ``--cpus`` CPUs (loopback, no dashboard):

* **in-process**: ``index()`` fed by ``load_paths`` + ``split_documents``: passages/s
  and files/s, wall clock, reading and splitting included (ONNX on every core);
* **Ray, 1 and 2 workers**: ``index(engine.chunks(files, ...), engine=RayEngine(...))``,
  wall clock from the call to its return (read tasks, actor start and model load
  included), and each run's per-worker embedding rate (passages per second of a
  worker's own embedding time: what one more worker adds);
* **Ray overhead per batch**: a batch of ``--batch-size`` passages embedded by a
  feature-hashing model (almost no compute) and added to FAISS, through one Ray actor
  against the same call in this process: the difference is what Ray costs per batch
  (serialising texts out and vectors back, scheduling, the driver's wait);
* **driver ceiling**: the whole Ray path with the hashing model on ``--ceiling-files``
  files: passages the driver handles (rows in, hashing, records, FAISS adds, Ray round
  trips) per second of wall clock and per second of its own CPU time (its ceiling on a
  core of its own), as marginal rates over a 10-file run, whose remainder is the fixed
  cost of a run (Ray Data's start, the actors');
* **Redis write rate**: ``Redis.add_embeddings`` of the run's real texts and MiniLM
  vectors from one client into one Redis Stack node (started by the script);
* **a core's rate**: MiniLM passages per second of CPU time on one thread, what a
  worker with a core to itself embeds (the wall-clock rates above depend on the load).

It ends with the 10M-passage calculation from those figures (see
docs/ray.md). faiss: one OpenMP thread. Each figure is one run: the machine's
other load moves them; the script prints the load average beside them.

Usage:
    .venv/bin/python benchmarks/distributed.py [--files 24] [--cpus 2] [--batch-size 256]

Figures: see docs/ray.md.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# benchmarks/redis.py would shadow redis-py: import from the repository root instead
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

from benchmarks._timing import stdlib_files  # noqa: E402
from ragline.core import Document  # noqa: E402
from ragline.embeddings import HashingEmbeddings  # noqa: E402
from ragline.indexing import InMemoryRecordManager, RayEngine, index  # noqa: E402
from ragline.store_folder import make_embeddings, split_documents  # noqa: E402
from ragline.store_folder._corpus import FileLoader, file_items, load_paths  # noqa: E402
from ragline.vectorstores import FAISS, Redis  # noqa: E402

SPLIT = functools.partial(split_documents, chunk_size=1000, chunk_overlap=150)
TEN_MILLION = 10_000_000


class Rates:
    """A RayProgress summing what the workers report."""

    def __init__(self) -> None:
        self.embedded = 0
        self.seconds = 0.0

    def loaded(self, item: Any, documents: int, error: str | None) -> None:
        pass

    def add_embedded(self, count: int, seconds: float) -> None:
        self.embedded += count
        self.seconds += seconds

    def add_written(self, count: int) -> None:
        pass

    @property
    def per_worker(self) -> float:
        return self.embedded / self.seconds if self.seconds else 0.0


def in_process(files: list[Path], batch_size: int) -> tuple[float, int]:
    start = time.perf_counter()
    chunks = SPLIT(load_paths(files).documents)
    store = FAISS(make_embeddings("minilm"), metric="cosine")
    index(chunks, InMemoryRecordManager("local"), store, batch_size=batch_size)
    return time.perf_counter() - start, store.count()


def on_ray(
    files: list[Path], workers: int, batch_size: int, embedding: Any
) -> tuple[float, int, Rates]:
    rates = Rates()
    engine = RayEngine(workers=workers, embeddings=embedding, progress=rates)
    store = FAISS(embedding(), metric="cosine")
    start = time.perf_counter()
    chunks = engine.chunks(file_items(files, "**/*"), load=FileLoader(), split=SPLIT)
    index(chunks, InMemoryRecordManager("ray"), store, batch_size=batch_size, engine=engine)
    return time.perf_counter() - start, store.count(), rates


def batch_overhead(texts: list[str], batch_size: int, rounds: int = 30) -> tuple[float, float]:
    """Seconds per batch (hashing embeddings + FAISS add) here and through one actor: the
    fastest of ``rounds`` interleaved calls of each, so load from other processes hurts
    both alike or neither."""
    embeddings = HashingEmbeddings(dimension=384)
    batch = [Document(text) for text in (texts * batch_size)[:batch_size]]
    ids = [f"id{n}" for n in range(batch_size)]
    local, remote = FAISS(embeddings, metric="cosine"), FAISS(embeddings, metric="cosine")
    best = [float("inf"), float("inf")]
    with RayEngine(workers=1, embeddings=embeddings).writing(remote) as write:
        write(batch, ids)  # starts the actor
        for _ in range(rounds):
            for slot, call in enumerate((local.add_documents, write)):
                start = time.perf_counter()
                call(batch, ids=ids) if slot == 0 else call(batch, ids)
                best[slot] = min(best[slot], time.perf_counter() - start)
    return best[0], best[1]


def cpu_rate(texts: list[str]) -> float:
    """MiniLM passages per second of CPU time on one thread (what a worker with a core of
    its own embeds, whatever else the machine runs)."""
    from ragline.embeddings import SentenceTransformerEmbeddings

    model = SentenceTransformerEmbeddings(backend="onnx", normalize_embeddings=True, threads=1)
    model.embed_documents_array(texts[:8])
    start = time.process_time()
    model.embed_documents_array(texts)
    return len(texts) / (time.process_time() - start)


def driver_ceiling(files: list[Path], workers: int, batch_size: int) -> tuple[float, float, float]:
    """What the driver sustains with a free model (feature hashing), as marginal rates
    between a run of 10 files and one of all ``files`` (so actor start and Ray Data's
    start, paid once per run, drop out): passages per second of wall clock here (the
    driver sharing the cores with the actors and read tasks), passages per second of
    the driver's own CPU time (its ceiling on a core of its own), and the fixed cost of a
    run in seconds."""
    hashing = functools.partial(HashingEmbeddings, dimension=384)
    on_ray(files, workers, batch_size, hashing)  # Ray Data's task workers up for this size
    runs = []
    for chosen in (files[:10], files):
        cpu = time.process_time()
        seconds, count, _ = on_ray(chosen, workers, batch_size, hashing)
        runs.append((seconds, time.process_time() - cpu, count))
    (small_wall, small_cpu, small), (wall, cpu, count) = runs
    rate = (count - small) / (wall - small_wall)
    return rate, (count - small) / (cpu - small_cpu), small_wall - small / rate


def redis_rate(texts: list[str], vectors: np.ndarray, count: int) -> float:
    from tests.conftest import RedisServer

    with tempfile.TemporaryDirectory() as directory:
        server = RedisServer(Path(directory)).start()
        try:
            store = Redis(HashingEmbeddings(dimension=vectors.shape[1]), redis_url=server.url)
            rows = [(texts[n % len(texts)], vectors[n % len(texts)]) for n in range(count)]
            metadatas = [{"source": f"file{n % 100}.py"} for n in range(count)]
            ids = [f"passage{n}" for n in range(count)]
            store.add_embeddings(rows[:100], metadatas[:100], ids=ids[:100])  # the index
            start = time.perf_counter()
            store.add_embeddings(rows, metadatas, ids=ids)
            seconds = time.perf_counter() - start
            store.close()
        finally:
            server.stop()
    return count / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=24)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--ceiling-files", type=int, default=300)
    args = parser.parse_args()

    import faiss
    import ray

    faiss.omp_set_num_threads(1)
    files = stdlib_files(args.files)
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    ray.init(
        num_cpus=args.cpus,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level=logging.WARNING,
    )
    minilm = functools.partial(make_embeddings, "minilm")
    on_ray(files[:2], 1, args.batch_size, minilm)  # Ray Data's workers, the ONNX export
    in_process(files[:2], args.batch_size)  # the model loaded here too

    local_seconds, passages = in_process(files, args.batch_size)
    local_rate = passages / local_seconds
    print(f"\ncorpus: {len(files)} files, {passages} passages (MiniLM ONNX fp32)")
    print(f"{'path':<22}{'wall s':>8}{'passages/s':>12}{'files/s':>9}{'per worker/s':>14}")
    print(f"{'in-process':<22}{local_seconds:>8.1f}{local_rate:>12.1f}"
          f"{len(files) / local_seconds:>9.2f}{'':>14}")  # fmt: skip
    per_worker: dict[int, float] = {}
    for workers in (1, 2):
        seconds, count, rates = on_ray(files, workers, args.batch_size, minilm)
        assert count == passages, (count, passages)
        per_worker[workers] = rates.per_worker
        print(f"{f'Ray, {workers} worker(s)':<22}{seconds:>8.1f}{count / seconds:>12.1f}"
              f"{len(files) / seconds:>9.2f}{rates.per_worker:>14.1f}")  # fmt: skip

    texts = [doc.page_content for doc in SPLIT(load_paths(files[:4]).documents)]
    here, through_ray = batch_overhead(texts, args.batch_size)
    shared, ceiling, fixed = driver_ceiling(stdlib_files(args.ceiling_files), 2, args.batch_size)
    vectors = make_embeddings("minilm").embed_documents_array(texts)
    core = cpu_rate(texts[:64])
    writes = redis_rate(texts, vectors, 20_000)
    print(f"\nbatch of {args.batch_size} (hashing model + FAISS add): in-process "
          f"{here * 1e3:.1f} ms, through one Ray actor {through_ray * 1e3:.1f} ms: "
          f"Ray adds {(through_ray - here) * 1e3:.1f} ms per batch "
          f"({(through_ray - here) / args.batch_size * 1e6:.0f} us per passage)")  # fmt: skip
    print(
        f"driver with a free model (hashing, 2 workers, {args.ceiling_files} files): "
        f"{shared:.0f} passages/s of wall clock on these shared cores, {ceiling:.0f} per "
        f"second of its own CPU; fixed cost per run (Ray Data, actors) {fixed:.1f} s"
    )
    print(f"Redis writes, one client, one node: {writes:.0f} passages/s (384-d + text)")

    worker = per_worker[1]
    scaling = per_worker[2] / per_worker[1] if per_worker[1] else 0.0
    print(
        f"\n10M passages: a Ray worker embedded {worker:.1f}/s of its own wall clock at this "
        f"load (with 2 workers on the 2 cores, each kept {scaling:.2f} of that); one thread "
        f"embeds {core:.1f} passages per second of CPU time, what a worker with a core of "
        f"its own does"
    )
    for workers in (8, 64, 256, 1024):
        rate = workers * core
        hours = TEN_MILLION / min(rate, ceiling) / 3600
        limit = "embedding" if rate < ceiling else "the driver"
        print(
            f"  {workers:>5} workers: {rate:>7.0f} passages/s embedded, "
            f"{TEN_MILLION / rate / 3600:6.2f} h; Redis nodes busy: {rate / writes:5.2f}; "
            f"limit: {limit} ({hours:.2f} h)"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    ray.shutdown()


if __name__ == "__main__":
    main()

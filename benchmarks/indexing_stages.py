"""``index_paths`` without the model: the rest of the pipeline, stage by stage (issue 25).

On a GPU the encoder embeds ~14,000 chunks/s, so everything else ``index_paths`` does on
the main thread (load, split, hash, record look-ups, FAISS and keyword-index writes,
commits) sets the pace. This runs ``index_paths`` into a new store folder over Python
files of this interpreter's standard library (tests left out, name order, the first
``--files``; a private copy) with an embedding that costs nothing: a stub
(``precomputed``) that hands back vectors computed before the clock starts (the hashing
embedding's, 384 floats, looked up by text). The same corpus is indexed ``--repeats``
times into fresh folders; the median run is reported.

Each stage is timed by wrapping the function that does it (wall time and this thread's
CPU time, summed over its calls):

* load: ``load_paths`` (where files are read one at a time, ``FileLoader`` per file);
  split: ``split_documents``;
* plan: which chunks to embed ahead (one look-up of their keys, ``_to_embed``; before
  the keys were shared with ``index()``, their hashing too);
* hash: the chunks' keys (``_Keys``, where it exists) and ``index()``'s batches
  checked, hashed (before) and de-duplicated (``_Run.prepare``);
* records: the record manager's ``exists``/``update``/``list_keys``/``delete_keys``;
* embed: the stub's calls (on the embed-ahead thread);
* faiss add: ``FAISS.add_documents`` (the stub's time included; it is ~0);
* keyword rows: the new chunks' keyword-index rows computed while the model embeds
  (``FolderWriter.expect``, where it exists);
* keyword index: the keyword index of each commit (``_save_keyword_index``);
* commit: the rest of each commit (faiss + docstore + records files, manifest);
* (a stage inside another, e.g. records in plan, counts for itself only)
* other: end to end minus the stages (driver, generators, checkpoints, progress).

``--profile OUT.prof`` also prints the profiled run's function calls per chunk on the
main thread (cProfile follows only the thread it is enabled on): unlike the walls and CPU
seconds, the machine's load does not change it, so a before/after pair on a busy machine
still compares (d6f3a59, a keyword index's rows tokenized a batch at a time: 130.3 -> 124.6
calls per chunk at --embed-rate 14000).

``--repo PATH`` imports ragline from another checkout (e.g. a ``git worktree`` of an
older commit), so a before/after pair runs on the same machine at the same load.

Figures (734 files, 17,301 chunks; 2 shared cores at load 3.7-4.1; two before/after
pairs in one session, ``--repo`` on commit 7767dc7): process CPU 2.32 / 3.19 s before,
1.93 / 1.82 s after; keyword index 1.12-1.47 -> 0.74-0.76 s CPU; the plan's hashing
(0.15 s) gone. The 3x issue 25 would need is not reached (docs/embeddings.md). Later
(88d0801, 2d960fe, bfafe6b): keyword rows computed beside the embedding, a small first
block, the faiss index written beside the documents: after the last block 1.32 ->
0.40-0.50 s at ``--embed-rate 3000`` (0.77x -> 0.88-0.91x of the encoder alone), 1.56-1.70
-> 0.49-0.62 s at 14,000 (0.36-0.39x -> 0.60-0.65x); load 3-4 (docs/embeddings.md).
Later still (cbd9a21 .. f8f87e0: embedding calls that grow and end at block multiples,
the keyword index written on a thread, no intent log; --repo at 36e8f86, load 5.5-6.5):
the rest's CPU 85-86 -> 75-78 us per chunk in batches of 100, 84.6-85.1 -> 71.2-84.5 at
--embed-rate 14000; encoder idle between its calls ~0.09 s -> none at load 1.
At 00603f0 (load 1.2, one run at 14,000): main thread 0.061 / 1.387 / 0.514 s before /
while / after the encoder (1.236 s alone), 127.3 calls per chunk, 0.56x (runs 0.63, 0.56,
0.36); the early commit then came with 13,205 chunks still to index (see
docs/embeddings.md: it now waits until the run waits for the model).

Under load the walls say little (the main thread falls behind the stand-in encoder). The
main thread's CPU time is printed in three parts (before the stub's first call, while it
ran, after its last call: read from the embedding thread through the main thread's CPU
clock) with its CPU per chunk while the encoder ran, and each commit with its start
relative to the encoder's end and its CPU (92015db commits once before that end): the
part after the last block is what an idle machine adds to the encoder's time. On a
machine at load 8, ``--embed-rate 3500`` leaves the main thread about the slack 14,000
leaves it on an idle one.

Usage:
    .venv/bin/python benchmarks/indexing_stages.py [--files 800] [--repeats 3]
        [--repo PATH] [--profile OUT.prof] [--embed-rate CHUNKS_PER_S [--tokenize]]
        [--worker-cpus N]

Beside a GPU on 8 cores or more, ``index_paths`` splits, hashes and tokenizes the keyword
rows in worker processes (``_index.WORKER_CPUS``): on the 16-core GPU machine this script
runs them by itself; ``--worker-cpus 1`` runs them on any machine (on 2 shared cores
they compete with the main thread, so only the main thread's CPU and calls say much).
Their CPU is not in the process CPU columns (other processes).

``--embed-rate 14000`` stands in for a GPU encoder on a machine without one: the stub
sleeps as long as that encoder would take (the GIL released, as a GPU's kernels run)
and says it runs on CUDA (blocks of 4,096), and the end-to-end rate is printed against
the encoder's alone: how much of the rest overlaps the embedding (the wall time, so a
shared machine's load counts). "before the first block" is the wall time from the start
to the stub's first call, "after the last block" from the end of its last call to the
end of the run: the parts of the run nothing overlaps.

A sleep alone flatters the pipeline: a real GPU encoder is not free on the CPU. Its
tokenizer runs there (``TorchEncoder``: a producer thread, the Rust tokenizer's
``encode_batch`` releasing the GIL and using every core, then padded id arrays filled in
Python), about 0.2 ms of CPU per 1,000-character chunk on this kind of machine, i.e.
most of a core at 3,000 chunks/s. ``--tokenize`` (with ``--embed-rate``) runs that real
producer (MiniLM's tokenizer, ``TorchEncoder._batches``: windows, length grouping, token
budget of a GPU) and replaces only the forward passes by a sleep of the same length per
batch, so the rest of the pipeline competes with the tokenizer for the cores as it would
beside a GPU. The encoder alone is then measured in the same run (the stub over every
chunk in blocks of 4,096, as the embedding thread calls it), not computed from the rate.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--profile", type=Path, help="cProfile the last run into this file")
    parser.add_argument(
        "--embed-rate", type=float, default=0.0, metavar="CHUNKS_PER_S",
        help="the stub takes as long as an encoder of this rate (sleeping, the GIL "
             "released, as a GPU's kernels run) and says it runs on cuda, so batches are "
             "a GPU's; prints end to end against the encoder alone",
    )  # fmt: skip
    parser.add_argument(
        "--tokenize", action="store_true",
        help="with --embed-rate: the stub also tokenizes as a GPU encoder does (MiniLM's "
             "Rust tokenizer on a producer thread, TorchEncoder's batching), so the "
             "encoder's CPU share competes with the rest of the pipeline",
    )  # fmt: skip
    parser.add_argument(
        "--worker-cpus", type=int, metavar="N",
        help="index_paths splits, hashes and tokenizes in worker processes beside a GPU on "
             "machines of N cores or more (default: its own WORKER_CPUS, 8); 1 tries them "
             "on any machine",
    )  # fmt: skip
    return parser.parse_args()


ARGS = parse()
sys.path.insert(0, str(ARGS.repo.resolve()))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from _timing import copy_stdlib_files  # noqa: E402  (this script's folder, on sys.path)

from ragline.embeddings import Embeddings, HashingEmbeddings  # noqa: E402
from ragline.indexing import SQLRecordManager  # noqa: E402
from ragline.indexing import api as indexing_api  # noqa: E402
from ragline.store_folder import (  # noqa: E402
    EmbeddingBackend,
    index_paths,
    load_paths,
    register_embedding,
    split_documents,
)
from ragline.store_folder import _corpus as corpus_module  # noqa: E402
from ragline.store_folder import _index as index_module  # noqa: E402
from ragline.store_folder import _writer as writer_module  # noqa: E402
from ragline.vectorstores import FAISS  # noqa: E402

STAGES = ("load", "split", "plan", "hash", "records", "embed", "faiss add", "keyword rows",
          "keyword index", "commit")  # fmt: skip


# the stub's first call's start and last call's end (perf_counter), per run, and the main
# thread's CPU time then (read from the embedding thread through the main thread's clock)
CALLS: dict[str, float] = {}
MAIN_CLOCK = time.pthread_getcpuclockid(threading.main_thread().ident or 0)


class Precomputed(Embeddings):
    """Vectors computed before the clock starts, looked up by text."""

    vectors: ClassVar[dict[str, np.ndarray]] = {}
    dimension = 384
    encoder: ClassVar[Any] = None  # --tokenize: a TorchEncoder whose passes sleep

    def embed_documents_array(self, texts: Any) -> np.ndarray:
        called = time.perf_counter()
        CALLS.setdefault("first", called)
        CALLS.setdefault("main cpu at first", time.clock_gettime(MAIN_CLOCK))
        with clock("embed", thread=True):
            if self.encoder is not None and texts:
                self.encoder.encode(list(texts), normalize=True)  # tokenizes; passes sleep
            elif ARGS.embed_rate:
                time.sleep(len(texts) / ARGS.embed_rate)
            if not texts:
                vectors = np.zeros((0, self.dimension), dtype=np.float32)
            else:
                vectors = np.stack([self.vectors[text] for text in texts])
        CALLS["last"] = time.perf_counter()
        CALLS["main cpu at last"] = time.clock_gettime(MAIN_CLOCK)
        CALLS["busy"] = CALLS.get("busy", 0.0) + CALLS["last"] - called
        CALLS["calls"] = CALLS.get("calls", 0) + 1
        return vectors

    def describe_device(self) -> str:
        return "cuda:0 (stub)" if ARGS.embed_rate else "cpu (stub)"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents_array([text])[0].tolist()


def sleeping_gpu() -> Any:
    """A ``TorchEncoder`` (MiniLM's tokenizer, a GPU's token budget) whose forward passes
    are a sleep of ``rows / --embed-rate`` seconds per batch: the tokenizing producer
    thread is the real one."""
    from ragline.embeddings import SentenceTransformerEmbeddings
    from ragline.embeddings import _torch_encoder as encoder_module

    class SleepingGPU(encoder_module.TorchEncoder):
        def models(self) -> list[Any]:
            return [None]

        def _consume(self, model: Any, device: Any, ready: Any, *rest: Any) -> None:
            while (batch := ready.get()) is not encoder_module._DONE:
                time.sleep(len(batch.rows) / ARGS.embed_rate)

    spec = SentenceTransformerEmbeddings(normalize_embeddings=True)._spec()
    return SleepingGPU(
        spec, devices=["cpu"], precision="fp32", token_budget=encoder_module.CUDA_TOKEN_BUDGET
    )


register_embedding("precomputed", EmbeddingBackend(lambda options, progress: Precomputed()))

TOTALS: dict[str, list[float]] = {}
# the main thread's open stages, each with the wall and CPU its nested stages took
ACTIVE: list[list[float]] = []


@contextlib.contextmanager
def clock(stage: str, *, thread: bool = False) -> Iterator[None]:
    """Time a stage; a stage inside another counts for itself, not for the outer one."""
    inner = [0.0, 0.0]
    if not thread:
        ACTIVE.append(inner)
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        yield
    finally:
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        totals = TOTALS.setdefault(stage, [0.0, 0.0])
        totals[0] += wall - inner[0]
        totals[1] += cpu - inner[1]
        if not thread:
            ACTIVE.pop()
            if ACTIVE:
                ACTIVE[-1][0] += wall
                ACTIVE[-1][1] += cpu


def wrap(owner: Any, name: str, stage: str) -> None:
    original = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        with clock(stage):
            return original(*args, **kwargs)

    setattr(owner, name, timed)


def instrument() -> None:
    if hasattr(index_module, "read_files"):  # files read one at a time, planned in groups
        wrap(corpus_module.FileLoader, "__call__", "load")
    else:
        wrap(index_module, "load_paths", "load")
    wrap(index_module, "split_documents", "split")
    wrap(index_module, "_to_embed", "plan")
    if hasattr(index_module, "_Keys"):  # the keys computed once for the plan and index()
        keys = index_module._Keys
        wrap(keys, "add" if hasattr(keys, "add") else "__init__", "hash")
    wrap(indexing_api._Run, "prepare", "hash")
    for name in ("exists", "update", "list_keys", "delete_keys"):
        wrap(SQLRecordManager, name, "records")
    wrap(FAISS, "add_documents", "faiss add")
    if hasattr(writer_module.FolderWriter, "expect"):  # keyword rows computed ahead
        wrap(writer_module.FolderWriter, "expect", "keyword rows")
    wrap(writer_module.FolderWriter, "_save_keyword_index", "keyword index")
    wrap(writer_module.FolderWriter, "commit", "commit")


# each commit of a run: its start (perf_counter), wall, main-thread CPU, chunks stored
COMMITS: list[tuple[float, float, float, int]] = []


def log_commits() -> None:
    """Record every commit (outside the stage clocks: its whole wall and CPU)."""
    original = writer_module.FolderWriter.commit

    def logged(writer: Any) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            original(writer)
        finally:
            count = writer.store.count() if writer.store is not None else 0
            COMMITS.append((wall, time.perf_counter() - wall, time.thread_time() - cpu, count))

    writer_module.FolderWriter.commit = logged  # type: ignore[method-assign]


Run = tuple[
    float, float, dict[str, list[float]], int, float, float, float, int,
    tuple[float, float, float], str,
]  # fmt: skip


def one_run(corpus: Path, store: Path) -> Run:
    """(wall, process CPU, stage totals, chunks, before the first block, after the last,
    the encoder idle between its first and last call, its calls, the main thread's CPU
    before the first block, between the first block's start and the last's end, after)."""
    TOTALS.clear()
    CALLS.clear()
    COMMITS.clear()
    start, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
    result = index_paths([corpus], store, embedding="precomputed", glob="**/*.py")
    end, cpu, main_end = time.perf_counter(), time.process_time() - cpu, time.thread_time()
    head = CALLS.get("first", end) - start
    tail = end - CALLS.get("last", start)
    idle = CALLS.get("last", start) - CALLS.get("first", start) - CALLS.get("busy", 0.0)
    at_first = CALLS.get("main cpu at first", main_end)
    at_last = CALLS.get("main cpu at last", main_end)
    main_cpu = (at_first - main, at_last - at_first, main_end - at_last)
    totals = {k: list(v) for k, v in TOTALS.items()}
    last = CALLS.get("last", end)
    commits = ", ".join(
        f"{count:,} chunks at {began - last:+.3f} s: {seconds:.3f} s, CPU {thread_cpu:.3f} s"
        for began, seconds, thread_cpu, count in COMMITS
    )
    return (end - start, cpu, totals, result["chunks"], head, tail, idle,
            int(CALLS.get("calls", 0)), main_cpu, commits)  # fmt: skip


def encoder_alone(texts: list[str]) -> float:
    """Seconds the stub takes over ``texts`` in blocks of 4,096 (the GPU's blocks)."""
    stub = Precomputed()
    start = time.perf_counter()
    for first in range(0, len(texts), 4_096):
        stub.embed_documents_array(texts[first : first + 4_096])
    return time.perf_counter() - start


def main() -> None:
    import faiss

    if ARGS.worker_cpus is not None and hasattr(index_module, "WORKER_CPUS"):
        index_module.WORKER_CPUS = ARGS.worker_cpus

    faiss.omp_set_num_threads(1)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        files = copy_stdlib_files(ARGS.files, corpus)  # a private copy
        documents = load_paths([corpus], glob="**/*.py").documents
        texts = [c.page_content for c in split_documents(documents, chunk_size=1000,
                                                         chunk_overlap=150)]  # fmt: skip
        vectors = HashingEmbeddings(dimension=384).embed_documents_array(texts)
        Precomputed.vectors = dict(zip(texts, vectors.astype(np.float32), strict=True))
        alone_runs: list[float] = []
        if ARGS.tokenize and ARGS.embed_rate:
            Precomputed.encoder = sleeping_gpu()
            Precomputed.encoder.encode(texts[:64], normalize=True)  # loads the tokenizer
        instrument()
        log_commits()
        runs = []
        profiled = ""  # --profile: the profiled run's function calls (main thread only)
        for repeat in range(ARGS.repeats):
            store = Path(scratch) / f"store{repeat}"
            if ARGS.profile is not None and repeat == ARGS.repeats - 1:
                import cProfile
                import pstats

                profiler = cProfile.Profile()
                profiler.enable()
                runs.append(one_run(corpus, store))
                profiler.disable()
                profiler.dump_stats(ARGS.profile)
                calls = pstats.Stats(profiler).total_calls
                profiled = f"{calls:,} ({calls / max(runs[-1][3], 1):.1f} per chunk)"
            else:
                runs.append(one_run(corpus, store))
            if ARGS.tokenize and ARGS.embed_rate:  # alternated with the runs: the same load
                alone_runs.append(encoder_alone(texts))
        runs.sort(key=lambda run: run[0])
        wall, cpu, totals, chunks, head, tail, idle, calls, main_cpu, commits = runs[len(runs) // 2]
        print(
            f"ragline from {ARGS.repo}; {len(files)} stdlib files, {chunks:,} chunks; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of "
            f"{ARGS.repeats} runs (walls {', '.join(f'{run[0]:.2f}' for run in runs)} s)"
        )
        print(f"  {'stage':14s} {'wall s':>8s} {'CPU s':>8s} {'chunks/s':>11s} "
              f"{'CPU us/chunk':>13s}")  # fmt: skip
        counted = 0.0
        for stage in STAGES:
            seconds, thread_cpu = totals.get(stage, [0.0, 0.0])
            if stage != "embed":
                counted += seconds
            rate = f"{chunks / seconds:11,.0f}" if seconds else f"{'-':>11s}"
            print(f"  {stage:14s} {seconds:8.3f} {thread_cpu:8.3f} {rate} "
                  f"{1e6 * thread_cpu / chunks:13.1f}")  # fmt: skip
        other = wall - counted
        print(f"  {'other':14s} {other:8.3f} {'':8s} {chunks / max(other, 1e-9):11,.0f}")
        print(
            f"  {'end to end':14s} {wall:8.3f} {cpu:8.3f} {chunks / wall:11,.0f} "
            f"{1e6 * cpu / chunks:13.1f}   (CPU columns: the process, all threads)"
        )
        embed_cpu = totals.get("embed", [0.0, 0.0])[1]
        print(
            f"  the rest of the pipeline (process CPU less the embedding thread's; with "
            f"--tokenize the tokenizer's thread counts): {1e6 * (cpu - embed_cpu) / chunks:.1f}"
            f" us of CPU per chunk"
        )
        print(
            f"  before the first block {head:.3f} s, after the last block {tail:.3f} s "
            f"(runs: {', '.join(f'{run[4]:.2f}/{run[5]:.2f}' for run in runs)})"
        )
        print(
            f"  the encoder idle between its first and last call (waiting for chunks): "
            f"{idle:.3f} s over {calls} calls (runs: {', '.join(f'{run[6]:.2f}' for run in runs)})"
        )
        print(
            f"  the main thread's CPU (load changes it little): before the first block "
            f"{main_cpu[0]:.3f} s, while the encoder ran {main_cpu[1]:.3f} s "
            f"({1e6 * main_cpu[1] / chunks:.1f} us per chunk), after the last block "
            f"{main_cpu[2]:.3f} s (runs: "
            f"{', '.join('/'.join(f'{part:.3f}' for part in run[8]) for run in runs)})"
        )
        print(
            f"  commits, from the end of the encoder's last call (the median run; the main "
            f"thread's CPU): {commits}"
        )
        if profiled:
            print(
                f"  function calls on the main thread, profiled run (a measure the machine's "
                f"load does not change): {profiled}"
            )
        if ARGS.embed_rate:
            alone = chunks / ARGS.embed_rate
            what = "sleeping"
            if alone_runs:  # measured beside the runs: the tokenizer's time included
                alone = sorted(alone_runs)[len(alone_runs) // 2]
                what = (f"tokenizing, then sleeping; measured alone: "
                        f"{', '.join(f'{seconds:.2f}' for seconds in alone_runs)} s")  # fmt: skip
            each = ", ".join(f"{alone / run[0]:.2f}" for run in runs)
            print(
                f"  an encoder of {ARGS.embed_rate:,.0f} chunks/s ({what}) alone: {alone:.3f} s;"
                f" end to end / encoder alone: {alone / wall:.2f}x (the GPU target: 0.8x); "
                f"runs: {each}"
            )


if __name__ == "__main__":
    main()

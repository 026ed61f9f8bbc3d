"""Re-indexing an unchanged corpus against indexing it the first time, same run.

The corpus is the first ``--files`` Python files of this interpreter's standard library
(sorted paths, test folders left out), split by the recursive splitter's Python preset
(1,000 characters, overlap 150) the way ``ragline index`` splits them. Measured:

* **cli**: ``ragline index STDLIB_FILES --store DIR`` end to end (load, split, embed,
  index, save), then the same command again on the unchanged files (load, split, hash,
  look up, save), then once more after editing one file. The ratio re-index / first is
  what incremental indexing buys; loading and splitting are in both runs.
* **index()**: the library call alone on the chunks already split, with a FAISS store
  and a SQLRecordManager file, first run and re-run.
* **look-ups** (``--lookup``): an unchanged re-run asks the store which recorded keys it
  holds. ``index()`` re-runs (in-memory records) on the in-memory, FAISS and Redis stores
  (Redis Stack started on a free loopback port), asking with ``held_ids`` (a membership
  test) against the same store class asking with ``get_by_ids`` (documents built, and
  their text and metadata fetched from Redis), interleaved; wall time and this process's
  CPU time. With ``--langchain`` the same
  chunks also go through LangChain's ``index()`` (its InMemoryRecordManager and
  InMemoryVectorStore, the same hashing embedding wrapped as a LangChain Embeddings),
  against ragline's ``index()`` with the in-memory record manager and store.

faiss runs with one OpenMP thread (``faiss.omp_set_num_threads(1)``). Each timing is one
run (the first index cannot be repeated without starting over); re-runs are the median
of ``--repeats``.

Usage:
    .venv/bin/python benchmarks/indexing.py [--files 300] [--embedding hashing|minilm]
                                            [--repeats 3] [--langchain] [--cli-only]
                                            [--lookup]

Figures (2 cores, load average 5-6 from other jobs, so absolute times are noisy):

* hashing, 300 files (6,424 chunks): CLI first index 2.6 s, unchanged re-index 0.68 s
  (0.26x), one file edited 0.68 s; ``index()`` alone 1.44 s then 0.26 s (41 us per chunk,
  0.18x); against LangChain's ``index()`` on in-memory parts: re-run 0.18 s vs 1.42 s
  (7.9x), LangChain's re-run re-adding 1,600 chunks of files that span batches.
* MiniLM, 100 files (2,505 chunks), ``--cli-only``: first index 572 s, unchanged re-index
  0.42 s (0.001x), one file edited 2.4 s (0.004x).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _timing import copy_stdlib_files  # this script's folder is first on sys.path

from ragline.cli import main
from ragline.core import Document
from ragline.indexing import InMemoryRecordManager, SQLRecordManager, index
from ragline.loaders import TextLoader
from ragline.store_folder import make_embeddings, split_documents
from ragline.vectorstores import FAISS, InMemoryVectorStore


def timed(job: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = job()
    return time.perf_counter() - start, value


def run_cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(list(args))
    if status != 0:
        raise SystemExit(f"ragline {' '.join(args[:1])} failed with status {status}")
    return out.getvalue().strip()


def bench_cli(corpus: Path, embedding: str, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as store:
        first, summary = timed(
            lambda: run_cli("index", str(corpus), "--store", store, "--embedding", embedding)
        )
        print(f"  first index    {first:8.2f} s   ({summary})")
        again = []
        for _ in range(repeats):
            seconds, summary = timed(lambda: run_cli("index", str(corpus), "--store", store))
            again.append(seconds)
        median = statistics.median(again)
        print(f"  re-index       {median:8.2f} s   ({summary})   {median / first:.3f} x first")
        edited = sorted(corpus.rglob("*.py"))[0]
        edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        seconds, summary = timed(lambda: run_cli("index", str(corpus), "--store", store))
        print(f"  one file edited{seconds:8.2f} s   ({summary})   {seconds / first:.3f} x first")


def load_chunks(corpus: Path) -> list[Document]:
    documents = [doc for path in sorted(corpus.rglob("*.py")) for doc in TextLoader(path).load()]
    return split_documents(documents, chunk_size=1000, chunk_overlap=150)


def bench_index(chunks: list[Document], embedding: str, repeats: int, folder: Path) -> None:
    embeddings = make_embeddings(embedding, {})
    store = FAISS(embeddings, metric="cosine")
    records = SQLRecordManager("bench", db_url=f"sqlite:///{folder / 'records.sqlite'}")
    options = {"cleanup": "incremental", "source_id_key": "source"}
    first, result = timed(lambda: index(chunks, records, store, **options))
    print(f"  first run      {first:8.2f} s   {result}")
    again = [timed(lambda: index(chunks, records, store, **options))[0] for _ in range(repeats)]
    median = statistics.median(again)
    per_chunk = median / len(chunks) * 1e6
    print(
        f"  re-run         {median:8.2f} s   ({per_chunk:.0f} us per chunk)   "
        f"{median / first:.3f} x first"
    )


def bench_langchain(chunks: list[Document], repeats: int) -> None:
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.indexing import InMemoryRecordManager as LCRecordManager
    from langchain_core.indexing import index as lc_index
    from langchain_core.vectorstores import InMemoryVectorStore as LCStore

    from ragline.embeddings import HashingEmbeddings

    ours = HashingEmbeddings(dimension=384)

    class Wrapped(LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return ours.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return ours.embed_query(text)

    lc_chunks = [LCDocument(page_content=c.page_content, metadata=dict(c.metadata)) for c in chunks]

    def measure(
        name: str, run: Callable[..., Any], docs: list[Any], records: Any, store: Any
    ) -> tuple[float, float]:
        def job() -> Any:
            return run(
                docs,
                records,
                store,
                cleanup="incremental",
                source_id_key="source",
                key_encoder="sha256",
            )

        first, _ = timed(job)
        reruns = [timed(job) for _ in range(repeats)]
        again = statistics.median(seconds for seconds, _ in reruns)
        print(
            f"  {name:10s} first {first:7.2f} s   re-run {again:7.3f} s   "
            f"({again / len(docs) * 1e6:.0f} us per chunk)   re-run result {dict(reruns[-1][1])}"
        )
        return first, again

    ours_first, ours_again = measure(
        "ragline", index, chunks, InMemoryRecordManager("b"), InMemoryVectorStore(ours)
    )
    lc_first, lc_again = measure(
        "langchain", lc_index, lc_chunks, LCRecordManager("b"), LCStore(Wrapped())
    )
    print(
        f"  LangChain / ragline: first {lc_first / ours_first:.2f} x, re-run "
        f"{lc_again / ours_again:.2f} x"
    )


def bench_lookup(chunks: list[Document], repeats: int, folder: Path) -> None:
    # this folder holds benchmarks/redis.py, which would shadow the redis package
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    from ragline.embeddings import HashingEmbeddings
    from ragline.vectorstores import Redis
    from tests.conftest import RedisServer

    embeddings = HashingEmbeddings(dimension=384)
    server = RedisServer(folder / "redis").start()
    try:
        makers: dict[str, Callable[[type], Any]] = {
            "in-memory": lambda cls: cls(embeddings),
            "FAISS": lambda cls: cls(embeddings, metric="cosine"),
            "Redis": lambda cls: cls(embeddings, redis_url=server.url, index_name=cls.__name__),
        }
        bases = {"in-memory": InMemoryVectorStore, "FAISS": FAISS, "Redis": Redis}
        for name, base in bases.items():
            # the same store class without held_ids: index() then looks up with get_by_ids
            documents_only = type(f"{base.__name__}DocumentsOnly", (base,), {"held_ids": None})
            runs = {}
            for label, cls in (("held_ids", base), ("get_by_ids", documents_only)):
                records, store = InMemoryRecordManager(label), makers[name](cls)
                index(chunks, records, store, cleanup="incremental", source_id_key="source")
                runs[label] = (records, store)
            wall: dict[str, list[float]] = {"held_ids": [], "get_by_ids": []}
            cpu: dict[str, list[float]] = {"held_ids": [], "get_by_ids": []}
            for _ in range(repeats):
                for label, (records, store) in runs.items():
                    started, cpu_started = time.perf_counter(), time.process_time()
                    result = index(
                        chunks, records, store, cleanup="incremental", source_id_key="source"
                    )
                    wall[label].append(time.perf_counter() - started)
                    cpu[label].append(time.process_time() - cpu_started)
                    assert result["num_skipped"] == len(chunks), result
            held, documents = (statistics.median(wall[k]) for k in ("held_ids", "get_by_ids"))
            held_cpu, documents_cpu = (
                statistics.median(cpu[k]) for k in ("held_ids", "get_by_ids")
            )
            print(
                f"  {name:9s} re-run with held_ids {held:6.3f} s ({held_cpu:6.3f} s CPU)   "
                f"with get_by_ids {documents:6.3f} s ({documents_cpu:6.3f} s CPU)   "
                f"{documents / held:4.2f}x wall, {documents_cpu / held_cpu:4.2f}x CPU"
            )
    finally:
        server.stop()


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--embedding", choices=("hashing", "minilm"), default="hashing")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--langchain", action="store_true")
    parser.add_argument(
        "--cli-only", action="store_true", help="only the CLI runs (MiniLM: one slow first index)"
    )
    parser.add_argument(
        "--lookup", action="store_true", help="only the look-ups of unchanged re-runs"
    )
    args = parser.parse_args()
    import faiss

    faiss.omp_set_num_threads(1)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        # a private copy, so the edit below touches nothing real
        files = copy_stdlib_files(args.files, corpus)
        chunks = load_chunks(corpus)
        size = sum(len(c.page_content) for c in chunks) / 1e6
        print(
            f"corpus: {len(files)} stdlib files, {len(chunks)} chunks, {size:.1f} M characters; "
            f"embedding {args.embedding}; load average {os.getloadavg()[0]:.1f} on "
            f"{os.cpu_count()} cores"
        )
        if args.lookup:
            print(f"unchanged index() re-runs, median of {args.repeats}:")
            bench_lookup(chunks, args.repeats, Path(scratch))
            return
        print("ragline index (CLI, end to end):")
        bench_cli(corpus, args.embedding, args.repeats)
        if args.cli_only:
            return
        print("index() alone (FAISS + SQLRecordManager file):")
        bench_index(load_chunks(corpus), args.embedding, args.repeats, Path(scratch))
        if args.langchain:
            print("index() against LangChain's (in-memory record manager and store, hashing 384):")
            bench_langchain(load_chunks(corpus), args.repeats)


if __name__ == "__main__":
    main_bench()

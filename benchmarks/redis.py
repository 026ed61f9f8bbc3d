"""Redis store speed against the same operations written directly with redis-py.

Measures, in one run and on one server, ragline's ``Redis`` store and raw redis-py on the
same documents (same vectors, texts and metadata) and the same index schema (content
TEXT, a FLAT or HNSW COSINE vector field with the same M / EF_CONSTRUCTION / EF_RUNTIME,
a case-sensitive tag field ``source``), each in its own index:

* bulk load of ``--n`` documents (documents per second): ``Redis.add_embeddings`` against
  a raw redis-py pipeline (``pipe.hset(key, mapping=...)``, batches of 1000, no MULTI).
  The corpus is loaded in chunks of ``--chunk`` documents; for every chunk both sides
  load it, alternating who goes first, so drifting load on the machine hits both alike.
  Both indexes then stay on the server for the queries;
* per-query latency for k=4, without and with a tag filter (median and p99):
  ``similarity_search_by_vector`` against ``client.ft(index).search(Query(...))``,
  alternating which goes first per query;
* recall@4 of both indexes against an exact scan, over the first 20 queries (an HNSW
  index is approximate; a FLAT one gives 1.0);
* small adds to the loaded (large) index: ``--small-adds`` adds of ``--small-size`` new
  documents each (``add_embeddings`` against the raw pipeline, alternating who goes
  first), median and p90 milliseconds per add. Here the store's own checks around a
  write (is the index there, did every document get indexed) weigh most: a check whose
  cost grows with the index (FT.INFO: ~12-18 ms at 60k HNSW documents, 0.64 s at 1M)
  is paid per add, however small. ``--queries 0`` skips the queries.

Data: seeded 384-d unit vectors clustered like embeddings (a Gaussian mixture of 1,000
centres, as benchmarks/scale.py), generated chunk by chunk (1M x 384 float32 is
1.5 GB: never held at once), short texts ``passage <i> of a synthetic corpus`` and one
metadata field ``{"source": "file<i % 100>.txt"}``. The embedding model is not measured:
the store gets precomputed vectors (``add_embeddings``; queries by vector).

Targets: query overhead at most 1.3x the raw call; bulk load at least as fast as the raw
pipelined baseline.

Usage:
    .venv/bin/python benchmarks/redis.py                                  # 20k, FLAT: quick
    .venv/bin/python benchmarks/redis.py --n 1000000 --algorithm HNSW     # issue 26
    .venv/bin/python benchmarks/redis.py --n 60000 --algorithm HNSW --queries 0 \
        --small-adds 50                                  # small adds to a 60k HNSW index

``--repo PATH`` imports ragline from another checkout (e.g. ``git archive`` of an older
commit), so a before/after pair runs on the same machine.

1M documents with HNSW need about 8 GB of memory for the server (two indexes of 1M).
The script starts its own Redis Stack (scripts/redis-stack.sh, free 127.0.0.1 port,
temporary directory) unless ``RAGLINE_REDIS_URL`` is set.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
_at = sys.argv.index("--repo") if "--repo" in sys.argv else -1  # ragline from another checkout
IMPORT_FROM = Path(sys.argv[_at + 1]).resolve() if 0 <= _at < len(sys.argv) - 1 else REPO
# This file is named redis.py: drop its folder from the path so `import redis` finds redis-py.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(IMPORT_FROM))

from ragline.embeddings import Embeddings  # noqa: E402
from ragline.vectorstores import Redis  # noqa: E402


class TableEmbeddings(Embeddings):
    """Precomputed vectors looked up by text, so only the store is measured."""

    def __init__(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.rows = {text: row for row, text in enumerate(texts)}
        self.vectors = vectors

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        return self.vectors[[self.rows[text] for text in texts]]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_documents_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.vectors[self.rows[text]].tolist()


def start_server() -> tuple[str, Callable[[], None]]:
    url = os.environ.get("RAGLINE_REDIS_URL")
    if url:
        return url, lambda: None
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    directory = tempfile.mkdtemp(prefix="ragline-bench-redis-")
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "redis-stack.sh"), "start", str(port), directory],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    pid = int(result.stdout.split()[-1])
    return f"redis://127.0.0.1:{port}", lambda: os.kill(pid, signal.SIGTERM)


SOURCES = 100  # metadata "source" takes this many values: a tag filter matches 1%


CLUSTERS, NOISE = 1_000, 0.6  # a seeded Gaussian mixture, as benchmarks/scale.py


def chunk_data(
    number: int, size: int, n: int, dim: int
) -> tuple[list[str], list[str], list[dict], np.ndarray]:
    """Documents ``number * size ...`` of the corpus: texts, ids, metadatas, vectors."""
    start = number * size
    count = min(size, n - start)
    rng = np.random.default_rng(1_000 + number)
    centers = np.random.default_rng(12345).normal(size=(CLUSTERS, dim))
    vectors = centers[rng.integers(0, CLUSTERS, count)] + NOISE * rng.normal(size=(count, dim))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    rows = range(start, start + count)
    texts = [f"passage {i} of a synthetic corpus" for i in rows]
    ids = [f"id{i}" for i in rows]
    metadatas = [{"source": f"file{i % SOURCES}.txt"} for i in rows]
    return texts, ids, metadatas, vectors


def query_rows(count: int, dim: int) -> np.ndarray:
    """Queries drawn from the same mixture (seeded apart from the corpus)."""
    rng = np.random.default_rng(1)
    centers = np.random.default_rng(12345).normal(size=(CLUSTERS, dim))
    rows = centers[rng.integers(0, CLUSTERS, count)] + NOISE * rng.normal(size=(count, dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def vector_args(args: argparse.Namespace) -> list:
    vector = ["TYPE", "FLOAT32", "DIM", args.dim, "DISTANCE_METRIC", "COSINE"]
    if args.algorithm == "HNSW":
        vector += ["M", args.m, "EF_CONSTRUCTION", args.ef_construction]
        vector += ["EF_RUNTIME", args.ef_runtime]
    return vector


def raw_create(client, index: str, args: argparse.Namespace) -> None:
    """FT.CREATE written out by hand: the store's schema (its tag separator included)."""
    vector = vector_args(args)
    client.execute_command(
        "FT.CREATE", index, "ON", "HASH", "PREFIX", 1, f"raw:{index}:", "STOPWORDS", 0,
        "SCHEMA", "content", "TEXT",
        "content_vector", "VECTOR", args.algorithm, len(vector), *vector,
        "source", "TAG", "SEPARATOR", "\x1f", "CASESENSITIVE",
    )  # fmt: skip


def raw_load(client, index: str, texts, ids, metadatas, vectors, batch: int = 1000) -> None:
    pipe = client.pipeline(transaction=False)
    for position, (text, doc_id, metadata) in enumerate(zip(texts, ids, metadatas, strict=True)):
        mapping = {
            "content": text,
            "content_vector": vectors[position].tobytes(),
            "source": metadata["source"],
        }
        pipe.hset(f"raw:{index}:{doc_id}", mapping=mapping)
        if (position + 1) % batch == 0:
            pipe.execute()
    pipe.execute()


def raw_search(client, index: str, vector: np.ndarray, where: str | None):
    from redis.commands.search.query import Query

    base = "*" if where is None else f"({where})"
    query = (
        Query(f"{base}=>[KNN 4 @content_vector $vec AS score]")
        .sort_by("score")
        .return_fields("content", "source", "score")
        .paging(0, 4)
        .dialect(2)
    )
    return client.ft(index).search(query, query_params={"vec": vector.tobytes()}).docs


def exact_top(args: argparse.Namespace, queries: np.ndarray, keep: Callable | None) -> list[set]:
    """Exact top-4 ids per query by cosine (a scan over the corpus, chunk by chunk)."""
    best_scores = np.full((len(queries), 4), -np.inf, np.float32)
    best_rows = np.full((len(queries), 4), -1, np.int64)
    for number in range((args.n + args.chunk - 1) // args.chunk):
        _, _, _, vectors = chunk_data(number, args.chunk, args.n, args.dim)
        rows = np.arange(number * args.chunk, number * args.chunk + len(vectors))
        if keep is not None:
            mask = keep(rows)
            rows, vectors = rows[mask], vectors[mask]
        scores = np.concatenate([best_scores, queries @ vectors.T], axis=1)
        labels = np.concatenate([best_rows, np.broadcast_to(rows, (len(queries), len(rows)))], 1)
        order = np.argsort(-scores, axis=1, kind="stable")[:, :4]
        best_scores = np.take_along_axis(scores, order, 1)
        best_rows = np.take_along_axis(labels, order, 1)
    return [{f"id{i}" for i in row} for row in best_rows.tolist()]


def timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def paired_latencies(
    first: Callable[[np.ndarray], object],
    second: Callable[[np.ndarray], object],
    queries: np.ndarray,
) -> tuple[list[float], list[float]]:
    """Time both functions on every query, alternating which goes first, so background load
    on the machine hits both alike."""
    for query in queries[:20]:  # warm up
        first(query)
        second(query)
    times: tuple[list[float], list[float]] = ([], [])
    for position, query in enumerate(queries):
        pair = ((0, first), (1, second)) if position % 2 == 0 else ((1, second), (0, first))
        for slot, function in pair:
            started = time.perf_counter()
            function(query)
            times[slot].append(time.perf_counter() - started)
    return times


def percentile(times: list[float], fraction: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def memory(client) -> str:
    return f"{client.info('memory')['used_memory'] / 2**30:.2f} GiB"


def small_adds(
    args: argparse.Namespace, client, store: Redis
) -> tuple[list[float], list[float]] | None:
    """``--small-adds`` adds of ``--small-size`` new documents to each loaded index
    (alternating who goes first): seconds per add, raw and store."""
    if args.small_adds <= 0:
        return None
    size = args.small_size
    base = (args.n + size - 1) // size  # chunk numbers past the corpus: new ids
    times: tuple[list[float], list[float]] = ([], [])
    for number in range(args.small_adds + 2):  # the first two warm up
        texts, ids, metadatas, vectors = chunk_data(base + number, size, (base + number + 1)
                                                    * size, args.dim)  # fmt: skip

        def add_raw() -> None:
            raw_load(client, "bench-raw", texts, ids, metadatas, vectors)  # noqa: B023

        def add_store() -> None:
            store.add_embeddings(zip(texts, vectors, strict=True), metadatas, ids=ids)  # noqa: B023

        pair = ((0, add_raw), (1, add_store)) if number % 2 == 0 else ((1, add_store), (0, add_raw))
        for slot, function in pair:
            seconds = timed(function)
            if number >= 2:
                times[slot].append(seconds)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", "--docs", type=int, default=20_000, help="documents")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--algorithm", default="FLAT", choices=["FLAT", "HNSW"])
    parser.add_argument("--m", type=int, default=16, help="HNSW M")
    parser.add_argument("--ef-construction", type=int, default=200)
    parser.add_argument("--ef-runtime", type=int, default=10)
    parser.add_argument("--chunk", type=int, default=10_000, help="documents per load call")
    parser.add_argument("--small-adds", type=int, default=20, help="small adds after the load")
    parser.add_argument("--small-size", type=int, default=100, help="documents per small add")
    parser.add_argument("--repo", type=Path, default=REPO, help="import ragline from here")
    args = parser.parse_args()

    import redis

    url, stop = start_server()
    try:
        client = redis.Redis.from_url(url, protocol=2)
        client.flushall()
        version = getattr(redis, "__version__", "?")  # mypy takes this file for redis-py
        print(f"python {platform.python_version()}, redis-py {version}, server "
              f"{client.info('server')['redis_version']}, {os.cpu_count()} cores, load "
              f"average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at start "
              "(other work skews both columns)")  # fmt: skip
        hnsw = (f" (M {args.m}, EF_CONSTRUCTION {args.ef_construction}, EF_RUNTIME "
                f"{args.ef_runtime})" if args.algorithm == "HNSW" else "")  # fmt: skip
        print(
            f"{args.n:,} documents, dim {args.dim}, {args.algorithm} COSINE index{hnsw}, "
            f"k=4, {args.queries} queries, loaded in chunks of {args.chunk:,}\n",
            flush=True,
        )

        raw_create(client, "bench-raw", args)
        store = Redis(
            TableEmbeddings([], np.zeros((0, args.dim), np.float32)),
            redis_url=url, index_name="bench-store", index_schema={"source": "tag"},
            vector_schema={"algorithm": args.algorithm, "distance_metric": "COSINE",
                           **({"m": args.m, "ef_construction": args.ef_construction,
                               "ef_runtime": args.ef_runtime} if args.algorithm == "HNSW" else {})},
        )  # fmt: skip
        raw_seconds = store_seconds = 0.0
        began = time.perf_counter()
        chunks = (args.n + args.chunk - 1) // args.chunk
        for number in range(chunks):
            texts, ids, metadatas, vectors = chunk_data(number, args.chunk, args.n, args.dim)

            def load_raw() -> None:
                raw_load(client, "bench-raw", texts, ids, metadatas, vectors)  # noqa: B023

            def load_store() -> None:
                store.add_embeddings(zip(texts, vectors, strict=True), metadatas, ids=ids)  # noqa: B023

            first, second = (load_raw, load_store) if number % 2 == 0 else (load_store, load_raw)
            times = {first: timed(first), second: timed(second)}
            raw_seconds += times[load_raw]
            store_seconds += times[load_store]
            done = min((number + 1) * args.chunk, args.n)
            if (number + 1) % max(1, chunks // 20) == 0 or number + 1 == chunks:
                print(f"  {done:>9,} loaded: raw {done / raw_seconds:,.0f}/s, ragline "
                      f"{done / store_seconds:,.0f}/s, {time.perf_counter() - began:.0f} s, "
                      f"server memory {memory(client)}, load average "
                      f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)  # fmt: skip
        raw_rate, store_rate = args.n / raw_seconds, args.n / store_seconds
        assert store.count() == args.n
        assert int(client.ft("bench-raw").info()["num_docs"]) == args.n
        server_memory = memory(client)
        small = small_adds(args, client, store)

        queries = query_rows(args.queries, args.dim)
        results = {}
        for label, where, filt, keep in (
            ("no filter", None, None, None),
            ("tag filter (1%)", "@source:{file7\\.txt}", {"source": "file7.txt"},
             lambda rows: rows % SOURCES == 7),
        ) if args.queries else ():  # fmt: skip
            exact = exact_top(args, queries[:20], keep)
            found = {"raw": 0, "store": 0, "same": 0}
            for query, truth in zip(queries[:20], exact, strict=True):
                mine = [d.id for d in store.similarity_search_by_vector(query, k=4, filter=filt)]
                theirs = [
                    d.id.split(":")[-1] for d in raw_search(client, "bench-raw", query, where)
                ]
                assert len(mine) == 4, mine
                found["store"] += len(truth & set(mine))
                found["raw"] += len(truth & set(theirs))
                found["same"] += len(set(mine) & set(theirs))

            def raw_query(query: np.ndarray, where: str | None = where) -> object:
                return raw_search(client, "bench-raw", query, where)

            def store_query(query: np.ndarray, filt: dict | None = filt) -> object:
                return store.similarity_search_by_vector(query, k=4, filter=filt)

            raw_times, store_times = paired_latencies(raw_query, store_query, queries)
            results[label] = (raw_times, store_times, found)

        print(f"\nserver memory with both indexes: {server_memory}; load average at end "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
        print(f"\n{'bulk load':<24}{'raw redis-py':>16}{'ragline Redis':>16}{'ratio':>10}")
        print(f"{'  documents / s':<24}{raw_rate:>16,.0f}{store_rate:>16,.0f}"
              f"{store_rate / raw_rate:>9.2f}x  (target >= 1.0x)")  # fmt: skip
        print(f"{'  seconds':<24}{raw_seconds:>16,.1f}{store_seconds:>16,.1f}")
        if small is not None:
            raw_times, store_times = small
            print(f"\n{f'small adds ({args.small_size} docs)':<24}{'raw redis-py':>16}"
                  f"{'ragline Redis':>16}{'ratio':>10}")  # fmt: skip
            for name, fraction in (("p50", 0.5), ("p90", 0.9)):
                raw_value = percentile(raw_times, fraction)
                store_value = percentile(store_times, fraction)
                print(f"  {name + ' ms per add':<22}{raw_value * 1e3:>16.2f}"
                      f"{store_value * 1e3:>16.2f}{store_value / raw_value:>9.2f}x")  # fmt: skip
            print(f"  ({len(raw_times)} adds each into the {args.n:,}-document indexes)")
        if results:
            print(f"\n{'query k=4':<24}{'raw redis-py':>16}{'ragline Redis':>16}{'ratio':>10}")
        for label, (raw_times, store_times, found) in results.items():
            for name, fraction in (("p50", 0.5), ("p99", 0.99)):
                raw_value = percentile(raw_times, fraction)
                store_value = percentile(store_times, fraction)
                target = "  (target <= 1.3x)" if name == "p50" else ""
                print(
                    f"  {label + ' ' + name:<22}{raw_value * 1e6:>13.0f} us"
                    f"{store_value * 1e6:>13.0f} us{store_value / raw_value:>9.2f}x{target}"
                )
            print(f"  {label + ' recall@4':<22}{found['raw'] / 80:>16.3f}"
                  f"{found['store'] / 80:>16.3f}   (20 queries vs exact; "
                  f"{found['same']} of 80 ids the same in both)")  # fmt: skip
        client.flushall(asynchronous=True)  # a sync FLUSHALL of 9 GB outlasts the timeout
    finally:
        stop()


if __name__ == "__main__":
    main()

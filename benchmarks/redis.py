"""Redis store speed against the same operations written directly with redis-py.

Measures, in one run and on one server:

* bulk load of N documents (documents per second): ``Redis.add_texts`` against a raw
  redis-py pipeline (``pipe.hset(key, mapping=...)``, batches of 1000, no MULTI) into an
  index of the same schema (content TEXT, FLAT vector, a tag and a numeric field);
* per-query latency for k=4, without and with a tag filter:
  ``similarity_search_by_vector`` against ``client.ft(index).search(Query(...))``.

Targets: query overhead at most 1.3x the raw call; bulk load at least as fast as the raw
pipelined baseline. Vectors are random unit vectors (the embedding model is not measured:
the store gets precomputed vectors through a lookup-table Embeddings).

Usage:
    .venv/bin/python benchmarks/redis.py [--docs 100000] [--dim 384] [--queries 500]

The script starts its own Redis Stack (scripts/redis-stack.sh, free 127.0.0.1 port,
temporary directory) unless ``RAGLINE_REDIS_URL`` is set.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# This file is named redis.py: drop its folder from the path so `import redis` finds redis-py.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(REPO))

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


def make_data(count: int, dim: int) -> tuple[list[str], list[str], list[dict], np.ndarray]:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(count, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    texts = [f"document {i}: " + "some words of a chunk of text " * 3 for i in range(count)]
    ids = [f"id{i}" for i in range(count)]
    metadatas = [{"source": f"file{i % 100}.txt", "page": i % 50} for i in range(count)]
    return texts, ids, metadatas, vectors


def raw_create(client, index: str, dim: int) -> None:
    from redis.commands.search.field import NumericField, TagField, TextField, VectorField
    from redis.commands.search.index_definition import IndexDefinition, IndexType

    client.ft(index).create_index(
        [
            TextField("content"),
            VectorField(
                "content_vector",
                "FLAT",
                {"TYPE": "FLOAT32", "DIM": dim, "DISTANCE_METRIC": "COSINE"},
            ),
            TagField("source", case_sensitive=True),
            NumericField("page"),
        ],
        definition=IndexDefinition(prefix=[f"raw:{index}:"], index_type=IndexType.HASH),
        stopwords=[],
    )


def raw_load(client, index: str, texts, ids, metadatas, vectors, batch: int = 1000) -> None:
    pipe = client.pipeline(transaction=False)
    for position, (text, doc_id, metadata) in enumerate(zip(texts, ids, metadatas, strict=True)):
        mapping = {
            "content": text,
            "content_vector": vectors[position].tobytes(),
            "source": metadata["source"],
            "page": metadata["page"],
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
        .return_fields("content", "source", "page", "score")
        .paging(0, 4)
        .dialect(2)
    )
    return client.ft(index).search(query, query_params={"vec": vector.tobytes()}).docs


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()

    import redis

    url, stop = start_server()
    try:
        client = redis.Redis.from_url(url, protocol=2)
        texts, ids, metadatas, vectors = make_data(args.docs, args.dim)
        embeddings = TableEmbeddings(texts, vectors)
        print(f"python {platform.python_version()}, redis-py {redis.__version__}, server "
              f"{client.info('server')['redis_version']}, {os.cpu_count()} cores, load "
              f"average {os.getloadavg()[0]:.1f} at start "
              "(other work skews both columns)")  # fmt: skip
        print(f"{args.docs} documents, dim {args.dim}, FLAT COSINE index, k=4, "
              f"{args.queries} queries\n")  # fmt: skip

        # Bulk load: two rounds, alternating who goes first; the faster round counts.
        raw_seconds, store_seconds = [], []
        for round_number in range(2):
            order = ["raw", "store"] if round_number == 0 else ["store", "raw"]
            for who in order:
                client.flushall()
                if who == "raw":
                    raw_create(client, "bench-raw", args.dim)
                    raw_seconds.append(timed(lambda: raw_load(
                        client, "bench-raw", texts, ids, metadatas, vectors)))  # fmt: skip
                else:
                    store = Redis(embeddings, redis_url=url, index_name="bench-store")
                    store_seconds.append(
                        timed(lambda: store.add_texts(texts, metadatas, ids=ids))  # noqa: B023
                    )
        raw_rate, store_rate = args.docs / min(raw_seconds), args.docs / min(store_seconds)
        # Both indexes side by side for the query comparison.
        client.flushall()
        raw_create(client, "bench-raw", args.dim)
        raw_load(client, "bench-raw", texts, ids, metadatas, vectors)
        store = Redis(embeddings, redis_url=url, index_name="bench-store")
        store.add_texts(texts, metadatas, ids=ids)
        assert store.count() == args.docs
        assert int(client.ft("bench-raw").info()["num_docs"]) == args.docs

        rng = np.random.default_rng(1)
        queries = rng.normal(size=(args.queries, args.dim)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        results = {}
        for label, where, filt in (
            ("no filter", None, None),
            ("tag filter", "@source:{file7\\.txt}", {"source": "file7.txt"}),
        ):
            # same answers first, then the timings (interleaved to share any drift)
            for query in queries[:5]:
                mine = [d.id for d in store.similarity_search_by_vector(query, k=4, filter=filt)]
                theirs = [
                    d.id.split(":")[-1] for d in raw_search(client, "bench-raw", query, where)
                ]
                assert mine == theirs, (mine, theirs)

            def raw_query(query: np.ndarray, where: str | None = where) -> object:
                return raw_search(client, "bench-raw", query, where)

            def store_query(query: np.ndarray, filt: dict | None = filt) -> object:
                return store.similarity_search_by_vector(query, k=4, filter=filt)

            raw_times, store_times = paired_latencies(raw_query, store_query, queries)
            results[label] = (statistics.median(raw_times), statistics.median(store_times))

        print(f"{'bulk load':<24}{'raw redis-py':>16}{'ragline Redis':>16}{'ratio':>10}")
        print(f"{'  documents / s':<24}{raw_rate:>16,.0f}{store_rate:>16,.0f}"
              f"{store_rate / raw_rate:>9.2f}x  (target >= 1.0x)")  # fmt: skip
        print(f"\n{'query k=4 (median)':<24}{'raw redis-py':>16}{'ragline Redis':>16}{'ratio':>10}")
        for label, (raw_median, store_median) in results.items():
            print(f"  {label:<22}{raw_median * 1e6:>13.0f} us{store_median * 1e6:>13.0f} us"
                  f"{store_median / raw_median:>9.2f}x  (target <= 1.3x)")  # fmt: skip
        client.flushall()
    finally:
        stop()


if __name__ == "__main__":
    main()

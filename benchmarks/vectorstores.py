"""FAISS store speed and memory: ragline's FAISS against raw faiss and LangChain's wrapper.

All three work on the same precomputed vectors (random unit vectors, dimension 384,
fixed seed; short texts; metadata ``{"group", "n"}`` where 1% of the documents are in
group "rare"), through one lookup-table Embeddings (numpy rows, so no wrapper pays for
list conversions), with the cosine metric (unit vectors, inner product):

* **raw faiss**: what a careful user writes directly on faiss: ``IndexIDMap2(IndexFlatIP)``,
  a list docstore (metadata copied with ``dict()``) with an id -> position dict (so a
  document can be found, replaced or deleted by its string id, as in every store),
  ragline ``Document`` results, a group -> ids dict built on first use for filters
  (``IDSelectorBatch``), ragline's numpy MMR helper, ``write_index`` + JSON;
* **ragline**: ``ragline.vectorstores.FAISS`` (Flat);
* **LangChain**: ``langchain_community.vectorstores.FAISS`` with
  ``distance_strategy=MAX_INNER_PRODUCT, normalize_L2=True``.

Measured per size (1k, 10k, 100k documents) with 1,000 queries: build from embeddings
and from texts, single-query search (k=4), with scores, with relevance scores, MMR
(k=4, fetch_k=20), filtered search at 1% selectivity (and how many of the 4 asked for
come back), ``retriever.batch`` / ``abatch`` over the 1,000 queries, save and load, and
the memory the documents take (tracemalloc: Python objects only, faiss's vectors are in
C++ memory and not counted). Single-query timings run the three implementations
round-robin on each query, three tries each (one at 100k), keep each query's fastest try
and report the median over the queries; whole operations (builds, batch, save, load)
report the fastest of several alternating runs. Both filter out bursts of load from
other processes on a shared machine.

Threads: faiss runs every single query on ONE OpenMP thread (``omp_set_num_threads(1)``
in the main thread; faster for one query on these 2 cores). Batches run as each library
ships, with faiss's default thread count (one per core) in every thread: raw faiss and
ragline make one search call spread over the cores; LangChain searches query by query in
a thread pool. The batch rows also print LangChain at its fastest setting here, its pool
threads on one OpenMP thread each (no oversubscription), which a user must set up.

``--hnsw`` instead builds an HNSW index over 1M vectors (``--hnsw-size``) and reports
per-query latency and recall@10 against the exact flat result for several efSearch.
Its data is clustered by default (points around random centres, the neighbour structure
real embeddings have); ``--hnsw-data random`` gives uniform random vectors, on which any
graph index does badly in 384-D (all points are about equally far apart).

Usage:
    .venv/bin/python benchmarks/vectorstores.py [--sizes 1000,10000,100000] [--queries 1000]
    .venv/bin/python benchmarks/vectorstores.py --hnsw [--hnsw-size 1000000] [--hnsw-m 16]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import faiss
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import Document
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS
from ragline.vectorstores.utils import mmr_picks

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", message="Normalizing L2 is not applicable")  # it still normalizes
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.utils import DistanceStrategy

DIM = 384
BATCH_THREADS = faiss.omp_get_max_threads()  # faiss's default: one per core
SEED = 20251122
RARE = {"group": "rare"}
# --hnsw clustered data: noise per coordinate around each centre. 0.025 * sqrt(384) = 0.49,
# so a point keeps cosine ~0.9 with its centre, and its cluster-mates are its neighbours.
NOISE = 0.025


# ---------------------------------------------------------------------- data


class Data:
    """Documents and queries of one size: unit vectors, short texts, metadata."""

    def __init__(self, count: int, queries: int, dim: int = DIM) -> None:
        rng = np.random.default_rng(SEED + count)
        self.vectors = _unit(rng.standard_normal((count, dim), dtype=np.float32))
        self.query_vectors = _unit(rng.standard_normal((queries, dim), dtype=np.float32))
        self.texts = [f"document {i} on topic {i % 97}" for i in range(count)]
        self.ids = [f"doc-{i}" for i in range(count)]
        self.metadatas = [
            {"group": "rare" if i % 100 == 0 else f"g{i % 7}", "n": i} for i in range(count)
        ]
        self.queries = [f"query {j}" for j in range(queries)]
        self.pairs = list(zip(self.texts, self.vectors, strict=True))
        self.embeddings = LookupEmbeddings(self)


def _unit(matrix: np.ndarray) -> np.ndarray:
    faiss.normalize_L2(matrix)
    return matrix


class LookupEmbeddings(Embeddings, LCEmbeddings):
    """Both libraries' Embeddings: texts and queries looked up in precomputed matrices."""

    def __init__(self, data: Data) -> None:
        self._documents = data.vectors
        self._queries = data.query_vectors
        self._row = {text: i for i, text in enumerate(data.texts)}
        self._query_row = {text: i for i, text in enumerate(data.queries)}

    def embed_documents(self, texts: list[str]) -> Any:
        return self._documents[[self._row[text] for text in texts]]

    def embed_query(self, text: str) -> Any:
        return self._queries[self._query_row[text]]

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        return self._documents[[self._row[text] for text in texts]]

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 1:  # one query: a view of its row, as cheap as embed_query
            row = self._query_row[texts[0]]
            return self._queries[row : row + 1]
        return self._queries[[self._query_row[text] for text in texts]]


# ---------------------------------------------------------------------- raw faiss


class RawFaiss:
    """The baseline: the same features written directly on faiss, without a wrapper."""

    def __init__(
        self,
        embeddings: LookupEmbeddings,
        texts: list[str],
        vectors: Any,
        metadatas: list,
        ids: list,
    ) -> None:
        self.embeddings = embeddings
        matrix = np.array(vectors, dtype=np.float32)  # a copy, normalized in place
        faiss.normalize_L2(matrix)
        self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(matrix.shape[1]))
        self.index.add_with_ids(matrix, np.arange(len(texts), dtype=np.int64))
        # label = position; metadata copied (flat dicts: shallow), as a store must not share
        # it with the caller, which ragline's contract asks and LangChain's Documents do
        self.docs = list(zip(ids, texts, map(dict, metadatas), strict=True))
        self.position = dict(zip(ids, range(len(ids)), strict=True))
        self.by_group: dict[str, np.ndarray] | None = None

    @classmethod
    def from_embeddings(
        cls, pairs: list, embeddings: LookupEmbeddings, metadatas: list, ids: list
    ) -> RawFaiss:
        return cls(embeddings, [text for text, _ in pairs], [v for _, v in pairs], metadatas, ids)

    @classmethod
    def from_texts(
        cls, texts: list, embeddings: LookupEmbeddings, metadatas: list, ids: list
    ) -> RawFaiss:
        return cls(embeddings, texts, embeddings.embed_documents_array(texts), metadatas, ids)

    def _query(self, text: str) -> np.ndarray:
        query = np.array([self.embeddings.embed_query(text)], dtype=np.float32)
        faiss.normalize_L2(query)
        return query

    def _documents(self, labels: list[int]) -> list[Document]:
        docs = self.docs
        return [Document(docs[i][1], dict(docs[i][2]), id=docs[i][0]) for i in labels if i >= 0]

    def search_with_score(self, text: str, k: int = 4, filter: dict | None = None) -> list:
        query = self._query(text)
        if filter is None:
            scores, labels = self.index.search(query, k)
        else:
            selector = faiss.IDSelectorBatch(self._group(filter["group"]))
            params = faiss.SearchParameters(sel=selector)
            scores, labels = self.index.search(query, k, params=params)
        documents = self._documents(labels[0].tolist())
        return list(zip(documents, scores[0].tolist(), strict=False))

    def search(self, text: str, k: int = 4, filter: dict | None = None) -> list[Document]:
        return [document for document, _ in self.search_with_score(text, k, filter)]

    def search_with_relevance(self, text: str, k: int = 4) -> list:
        return [
            (document, (1.0 + score) / 2.0) for document, score in self.search_with_score(text, k)
        ]

    def mmr(self, text: str, k: int = 4, fetch_k: int = 20) -> list[Document]:
        query = self._query(text)
        _, labels = self.index.search(query, fetch_k)
        found = labels[0][labels[0] >= 0]
        picks = mmr_picks(query, [self.index.reconstruct_batch(found)], k=k, lambda_mult=0.5)[0]
        return self._documents([int(found[i]) for i in picks])

    def batch(self, texts: list[str], k: int = 4) -> list[list[Document]]:
        queries = np.array(self.embeddings.embed_queries_array(texts), dtype=np.float32)
        faiss.normalize_L2(queries)
        _, labels = self.index.search(queries, k)
        return [self._documents(row) for row in labels.tolist()]

    def get_by_ids(self, ids: list[str]) -> list[Document]:
        return self._documents([self.position[doc_id] for doc_id in ids if doc_id in self.position])

    def _group(self, group: str) -> np.ndarray:
        if self.by_group is None:
            groups: dict[str, list[int]] = {}
            for label, (_, _, metadata) in enumerate(self.docs):
                groups.setdefault(metadata["group"], []).append(label)
            self.by_group = {
                name: np.array(labels, dtype=np.int64) for name, labels in groups.items()
            }
        return self.by_group.get(group, np.zeros(0, dtype=np.int64))

    def save(self, folder: Path) -> None:
        faiss.write_index(self.index, str(folder / "index.faiss"))
        ids, texts, metadatas = zip(*self.docs, strict=True) if self.docs else ((), (), ())
        payload = {"ids": list(ids), "texts": list(texts), "metadatas": list(metadatas)}
        (folder / "docs.json").write_bytes(json.dumps(payload, ensure_ascii=False).encode())

    @classmethod
    def load(cls, folder: Path, embeddings: LookupEmbeddings) -> RawFaiss:
        store = cls.__new__(cls)
        store.embeddings = embeddings
        store.index = faiss.read_index(str(folder / "index.faiss"))
        payload = json.loads((folder / "docs.json").read_bytes())
        store.docs = list(zip(payload["ids"], payload["texts"], payload["metadatas"], strict=True))
        store.position = dict(zip(payload["ids"], range(len(payload["ids"])), strict=True))
        store.by_group = None
        return store


# ---------------------------------------------------------------------- the three stores


def lc_options() -> dict[str, Any]:
    return {"distance_strategy": DistanceStrategy.MAX_INNER_PRODUCT, "normalize_L2": True}


def build_all(data: Data) -> dict[str, Any]:
    emb = data.embeddings
    return {
        "raw": RawFaiss.from_embeddings(data.pairs, emb, data.metadatas, data.ids),
        "ragline": FAISS.from_embeddings(
            data.pairs, emb, data.metadatas, ids=data.ids, metric="cosine"
        ),
        "langchain": LCFAISS.from_embeddings(
            data.pairs, emb, data.metadatas, ids=data.ids, **lc_options()
        ),
    }


NAMES = ("raw", "ragline", "langchain")


def round_robin(
    calls: dict[str, Callable[[Any], Any]], inputs: Sequence[Any], reps: int, warmup: int = 20
) -> dict[str, float]:
    """Seconds per call of each implementation: the median over inputs of the fastest of
    ``reps`` tries, the implementations alternating on every input (so a burst of load
    from other processes hits all of them alike, and the minimum filters it out)."""
    for item in inputs[:warmup]:
        for call in calls.values():
            call(item)
    best: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for position, item in enumerate(inputs):
        tries: dict[str, float] = dict.fromkeys(names, float("inf"))
        for rep in range(reps):
            shift = (position + rep) % len(names)
            for name in names[shift:] + names[:shift]:
                start = time.perf_counter()
                calls[name](item)
                tries[name] = min(tries[name], time.perf_counter() - start)
        for name in names:
            best[name].append(tries[name])
    return {name: statistics.median(values) for name, values in best.items()}


def repeated(calls: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Fastest of ``repeats`` runs of whole operations (builds, saves ...), alternating."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            gc.collect()
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def document_memory(build: Callable[[], Any]) -> int:
    """Bytes of Python objects a freshly built store keeps (its documents; not faiss's C++)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    store = build()
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del store
    return after - before


def lc_pool(retriever: Any, queries: list[str]) -> list[Any]:
    """What LangChain's ``batch`` does (one ``invoke`` per query in a thread pool of its
    default size), with each pool thread's faiss on one OpenMP thread: its fastest here."""
    with ThreadPoolExecutor(
        max_workers=min(32, (os.cpu_count() or 1) + 4),
        initializer=faiss.omp_set_num_threads,
        initargs=(1,),
    ) as pool:
        return list(pool.map(retriever.invoke, queries))


def batch_note(seconds: dict[str, float], fastest: float) -> str:
    return (
        f"{seconds['langchain'] / seconds['ragline']:.1f}x faster than LangChain; "
        f"{fastest / seconds['ragline']:.1f}x than LangChain at its fastest "
        f"({fmt_time(fastest)}, one OpenMP thread per pool thread)"
    )


def run_async(coroutine: Any, omp_threads: int) -> Any:
    """asyncio.run, with executor threads that give faiss ``omp_threads`` OpenMP threads."""

    async def main() -> Any:
        executor = ThreadPoolExecutor(
            initializer=faiss.omp_set_num_threads, initargs=(omp_threads,)
        )
        asyncio.get_running_loop().set_default_executor(executor)
        return await coroutine

    return asyncio.run(main())


# ---------------------------------------------------------------------- one size


def measure(count: int, queries: int, rows: list[dict[str, Any]]) -> None:
    print(f"\n== {count:,} documents, {queries:,} queries", flush=True)
    data = Data(count, queries)
    emb = data.embeddings
    repeats = {1_000: 21, 10_000: 9}.get(count, 5)
    reps = 3 if count <= 10_000 else 1  # tries per query and implementation

    def row(
        operation: str, seconds: dict[str, float], target: str, met: bool, note: str = ""
    ) -> None:
        rows.append(
            {
                "size": count,
                "operation": operation,
                **seconds,
                "target": target,
                "met": met,
                "note": note,
            }
        )
        ratio = seconds["ragline"] / seconds["raw"] if seconds.get("raw") else float("nan")
        print(f"  {operation:<28} ragline/raw {ratio:5.2f}  {note}", flush=True)

    builds = repeated(
        {
            "raw": lambda: RawFaiss.from_embeddings(data.pairs, emb, data.metadatas, data.ids),
            "ragline": lambda: FAISS.from_embeddings(
                data.pairs, emb, data.metadatas, ids=data.ids, metric="cosine"
            ),
            "langchain": lambda: LCFAISS.from_embeddings(
                data.pairs, emb, data.metadatas, ids=data.ids, **lc_options()
            ),
        },
        repeats,
    )
    row("build from embeddings", builds, "<= 1.5x raw", builds["ragline"] <= 1.5 * builds["raw"])
    builds = repeated(
        {
            "raw": lambda: RawFaiss.from_texts(data.texts, emb, data.metadatas, data.ids),
            "ragline": lambda: FAISS.from_texts(
                data.texts, emb, data.metadatas, ids=data.ids, metric="cosine"
            ),
            "langchain": lambda: LCFAISS.from_texts(
                data.texts, emb, data.metadatas, ids=data.ids, **lc_options()
            ),
        },
        repeats,
    )
    row("build from texts", builds, "<= 2x raw", builds["ragline"] <= 2.0 * builds["raw"])

    stores = build_all(data)
    raw, ours, lc = stores["raw"], stores["ragline"], stores["langchain"]
    single = {
        "similarity_search k=4": {
            "raw": lambda q: raw.search(q, 4),
            "ragline": lambda q: ours.similarity_search(q, 4),
            "langchain": lambda q: lc.similarity_search(q, 4),
        },
        "search with score": {
            "raw": lambda q: raw.search_with_score(q, 4),
            "ragline": lambda q: ours.similarity_search_with_score(q, 4),
            "langchain": lambda q: lc.similarity_search_with_score(q, 4),
        },
        "search with relevance": {
            "raw": lambda q: raw.search_with_relevance(q, 4),
            "ragline": lambda q: ours.similarity_search_with_relevance_scores(q, 4),
            "langchain": lambda q: lc.similarity_search_with_relevance_scores(q, 4),
        },
        "MMR k=4 fetch_k=20": {
            "raw": lambda q: raw.mmr(q, 4, 20),
            "ragline": lambda q: ours.max_marginal_relevance_search(q, 4, 20),
            "langchain": lambda q: lc.max_marginal_relevance_search(q, 4, 20),
        },
    }
    unfiltered = None
    for operation, calls in single.items():
        seconds = round_robin(calls, data.queries, reps)
        unfiltered = unfiltered or seconds
        row(operation, seconds, "<= 1.3x raw", seconds["ragline"] <= 1.3 * seconds["raw"])

    filtered = {
        "raw": lambda q: raw.search(q, 4, RARE),
        "ragline": lambda q: ours.similarity_search(q, 4, filter=RARE),
        "langchain": lambda q: lc.similarity_search(q, 4, filter=RARE),
    }
    seconds = round_robin(filtered, data.queries, reps)
    returned = {
        name: statistics.mean(len(call(q)) for q in data.queries[:200])
        for name, call in filtered.items()
    }
    assert unfiltered is not None
    faster = seconds["ragline"] < unfiltered["ragline"]
    row(
        "filtered search 1%",
        seconds,
        "k returned; < unfiltered",
        returned["ragline"] == 4 and faster,
        note=(
            f"returned of 4: raw {returned['raw']:.2f}, ragline {returned['ragline']:.2f}, "
            f"langchain {returned['langchain']:.2f}; ragline unfiltered "
            f"{unfiltered['ragline'] * 1e6:.0f} us"
        ),
    )

    retrievers = {
        "ragline": ours.as_retriever(search_kwargs={"k": 4}),
        "langchain": lc.as_retriever(search_kwargs={"k": 4}),
    }
    batch_repeats = 7 if count <= 10_000 else 3
    # Batches as shipped: faiss's default thread count in every thread (see the docstring)
    faiss.omp_set_num_threads(BATCH_THREADS)
    lc_fastest = lambda: lc_pool(retrievers["langchain"], data.queries)  # noqa: E731
    seconds = repeated(
        {
            "raw": lambda: raw.batch(data.queries, 4),
            "ragline": lambda: retrievers["ragline"].batch(data.queries),
            "langchain": lambda: retrievers["langchain"].batch(data.queries),
            "langchain_fastest": lc_fastest,
        },
        batch_repeats,
    )
    fastest = seconds.pop("langchain_fastest")
    row(
        "retriever.batch 1000 q",
        seconds,
        ">= 5x faster than LC",
        seconds["langchain"] >= 5 * seconds["ragline"],
        note=batch_note(seconds, fastest),
    )
    seconds = repeated(
        {
            "raw": lambda: raw.batch(data.queries, 4),
            "ragline": lambda: run_async(retrievers["ragline"].abatch(data.queries), BATCH_THREADS),
            "langchain": lambda: run_async(
                retrievers["langchain"].abatch(data.queries), BATCH_THREADS
            ),
            "langchain_fastest": lambda: run_async(retrievers["langchain"].abatch(data.queries), 1),
        },
        batch_repeats,
    )
    faiss.omp_set_num_threads(1)
    fastest = seconds.pop("langchain_fastest")
    row(
        "retriever.abatch 1000 q",
        seconds,
        ">= 5x faster than LC",
        seconds["langchain"] >= 5 * seconds["ragline"],
        note=batch_note(seconds, fastest),
    )

    with tempfile.TemporaryDirectory() as tmp:
        folders = {name: Path(tmp) / name for name in NAMES}
        for folder in folders.values():
            folder.mkdir()
        seconds = repeated(
            {
                "raw": lambda: raw.save(folders["raw"]),
                "ragline": lambda: ours.save_local(folders["ragline"]),
                "langchain": lambda: lc.save_local(str(folders["langchain"])),
            },
            repeats,
        )
        row("save", seconds, "<= 1.5x raw", seconds["ragline"] <= 1.5 * seconds["raw"])
        seconds = repeated(
            {
                "raw": lambda: RawFaiss.load(folders["raw"], emb),
                "ragline": lambda: FAISS.load_local(folders["ragline"], emb),
                "langchain": lambda: LCFAISS.load_local(
                    str(folders["langchain"]), emb, allow_dangerous_deserialization=True
                ),
            },
            repeats,
        )
        row("load", seconds, "<= 1.5x raw", seconds["ragline"] <= 1.5 * seconds["raw"])

    stores.clear()
    memory = {
        "raw": document_memory(
            lambda: RawFaiss.from_embeddings(data.pairs, emb, data.metadatas, data.ids)
        ),
        "ragline": document_memory(
            lambda: FAISS.from_embeddings(
                data.pairs, emb, data.metadatas, ids=data.ids, metric="cosine"
            )
        ),
        "langchain": document_memory(
            lambda: LCFAISS.from_embeddings(
                data.pairs, emb, data.metadatas, ids=data.ids, **lc_options()
            )
        ),
    }
    rows.append(
        {
            "size": count,
            "operation": "document memory (MB)",
            **{name: value / 1e6 for name, value in memory.items()},
            "target": "<= LangChain",
            "met": memory["ragline"] <= memory["langchain"],
            "note": "",
            "unit": "MB",
        }
    )


# ---------------------------------------------------------------------- report


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"| {'docs':>7} | {'operation':<24} | {'raw faiss':>10} | {'ragline':>10} | "
        f"{'LangChain':>10} "
        f"| {'ragline/raw':>11} | {'LC/raw':>7} | {'target':<24} | met |"
    )
    print("\n" + header)
    print("|" + "|".join("-" * (len(part)) for part in header.split("|")[1:-1]) + "|")
    for r in rows:
        mb = r.get("unit") == "MB"
        show = (lambda v: f"{v:.1f} MB") if mb else fmt_time
        print(
            f"| {r['size']:>7,} | {r['operation']:<24} | {show(r['raw']):>10} | "
            f"{show(r['ragline']):>10} "
            f"| {show(r['langchain']):>10} | {r['ragline'] / r['raw']:>10.2f}x | "
            f"{r['langchain'] / r['raw']:>6.2f}x "
            f"| {r['target']:<24} | {'yes' if r['met'] else 'NO':<3} |"
        )
    notes = [r for r in rows if r.get("note")]
    if notes:
        print()
        for r in notes:
            print(f"  {r['size']:>7,} {r['operation']}: {r['note']}")


# ---------------------------------------------------------------------- HNSW mode


def clustered(rng: np.random.Generator, count: int, centers: np.ndarray) -> np.ndarray:
    """Unit vectors scattered around random centres: neighbour structure like real embeddings
    (uniform random vectors in 384-D have almost none: every point is about equally far)."""
    matrix = np.empty((count, centers.shape[1]), dtype=np.float32)
    for first in range(0, count, 100_000):  # in chunks, to bound the temporary memory
        rows = min(100_000, count - first)
        picked = centers[rng.integers(0, len(centers), rows)]
        noise = rng.standard_normal((rows, centers.shape[1]), dtype=np.float32) * NOISE
        matrix[first : first + rows] = picked + noise
    return _unit(matrix)


def hnsw_mode(size: int, queries: int, m: int, ef_construction: int, data: str) -> None:
    """1M vectors in an HNSW index: build time, per-query latency and recall@10."""
    faiss.omp_set_num_threads(2)  # the build uses both cores
    rng = np.random.default_rng(SEED)
    print(f"generating {size:,} x {DIM} unit vectors ({data}) ...", flush=True)
    if data == "random":
        vectors = _unit(rng.standard_normal((size, DIM), dtype=np.float32))
        query_vectors = _unit(rng.standard_normal((queries, DIM), dtype=np.float32))
    else:
        centers = _unit(rng.standard_normal((max(size // 100, 1), DIM), dtype=np.float32))
        vectors = clustered(rng, size, centers)
        query_vectors = clustered(rng, queries, centers)
    print("exact flat result (ground truth, batched BLAS) ...", flush=True)
    flat = faiss.IndexFlatIP(DIM)
    flat.add(vectors)
    start = time.perf_counter()
    _, truth = flat.search(query_vectors, 10)
    flat_batch = time.perf_counter() - start
    del flat

    class Table(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise NotImplementedError

        def embed_query(self, text: str) -> list[float]:
            return query_vectors[int(text)].tolist()

        def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
            return query_vectors[[int(text) for text in texts]]

    print(f"building ragline FAISS HNSW{m} (efConstruction {ef_construction}) ...", flush=True)
    store = FAISS(
        Table(), metric="cosine", index_factory=f"HNSW{m}", ef_construction=ef_construction
    )
    start = time.perf_counter()
    chunk = 100_000
    for first in range(0, size, chunk):  # add_embeddings in chunks, to show progress
        rows = range(first, min(first + chunk, size))
        store.add_embeddings([(f"doc {i}", vectors[i]) for i in rows], ids=[str(i) for i in rows])
        print(f"  {rows.stop:>9,} vectors, {time.perf_counter() - start:6.0f} s", flush=True)
    build = time.perf_counter() - start
    faiss.omp_set_num_threads(1)
    flat_single = []
    exact = faiss.IndexFlatIP(DIM)
    exact.add(vectors[: size // 10])  # a 10% flat index times the single-query exact cost
    for j in range(min(queries, 100)):
        t = time.perf_counter()
        exact.search(query_vectors[j : j + 1], 10)
        flat_single.append((time.perf_counter() - t) * 10)
    del exact
    print(
        f"\nHNSW{m}, efConstruction {ef_construction}, {size:,} x {DIM} {data} vectors: "
        f"built in {build:.0f} s (2 threads)"
    )
    print(
        f"exact flat: {statistics.median(flat_single) * 1e3:.1f} ms per query (1 thread, "
        f"extrapolated from a 10% index), {flat_batch:.1f} s for {queries} queries batched (2 "
        "threads)"
    )
    # the baseline is faiss's search call alone: no documents are built for it
    print("\n| efSearch | ragline ms/query | faiss search alone ms | ratio | recall@10 |")
    print("|---------:|-----------------:|----------------------:|------:|----------:|")
    hnsw = faiss.downcast_index(store.index.index).hnsw  # tuning the live index is allowed
    texts = [str(j) for j in range(queries)]
    for ef in (16, 32, 64, 128, 256, 512):
        hnsw.efSearch = ef
        params = faiss.SearchParametersHNSW(efSearch=ef)

        def raw_call(text: str, params: Any = params) -> Any:
            query = np.array([query_vectors[int(text)]], dtype=np.float32)
            faiss.normalize_L2(query)
            return store.index.search(query, 10, params=params)

        seconds = round_robin(
            {"raw": raw_call, "ragline": lambda text: store.similarity_search(text, 10)}, texts, 3
        )
        found = store.as_retriever(search_kwargs={"k": 10}).batch(texts)
        recall = np.mean(
            [
                len({int(doc.id) for doc in docs} & set(truth[j].tolist())) / 10  # type: ignore[arg-type]
                for j, docs in enumerate(found)
            ]
        )
        print(
            f"| {ef:>8} | {seconds['ragline'] * 1e3:>16.3f} | {seconds['raw'] * 1e3:>21.3f} "
            f"| {seconds['ragline'] / seconds['raw']:>4.2f}x | {recall:>9.3f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--hnsw", action="store_true", help="the 1M-vector HNSW mode")
    parser.add_argument("--hnsw-size", type=int, default=1_000_000)
    parser.add_argument("--hnsw-m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=40)
    parser.add_argument(
        "--hnsw-data",
        choices=("clustered", "random"),
        default="clustered",
        help="clustered: points around size/100 random centres (like real embeddings); "
        "random: uniform on the sphere (the worst case for any graph index)",
    )
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, faiss {faiss.__version__}, numpy {np.__version__}, "
        f"{platform.machine()}, omp threads: 1 for single queries, faiss's default "
        f"({BATCH_THREADS}) in every thread for batches"
    )
    if args.hnsw:
        hnsw_mode(args.hnsw_size, args.queries, args.hnsw_m, args.ef_construction, args.hnsw_data)
        return
    faiss.omp_set_num_threads(1)
    rows: list[dict[str, Any]] = []
    for size in (int(part) for part in args.sizes.split(",")):
        measure(size, args.queries, rows)
    print_table(rows)


if __name__ == "__main__":
    main()

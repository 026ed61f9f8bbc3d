"""Millions of passages on one machine: ragline's compressed FAISS store vs LangChain's.

Issue 26. Embedding millions of real texts would take a day on two cores, so the data
is synthetic: unit vectors from a seeded Gaussian mixture (``--clusters`` centres, noise
0.6 per dimension, then normalized: clustered like real embeddings), short texts
("passage <i> about topic <c>") and metadata ``{"topic": c, "bucket": i % 10000}``.
Rows are generated in blocks of 100,000 from per-block seeds, so no run ever holds all
vectors at once (10M x 384 floats are 15 GB) and every process sees the same data.

Each system runs in its own child process (``--child``), so its peak RSS
(``ru_maxrss``, the input blocks included) is its own:

* **ragline**: ``ragline.vectorstores.FAISS`` built through the public API
  (``add_embeddings`` per block) with the index ``--index`` picks for ``--n`` vectors
  (``auto``: IVF-SQ8 with exact re-ranking above 100k, see
  ``ragline/vectorstores/faiss/_choice.py``), cosine metric, saved with
  ``save_local(documents="sqlite")``; opened again in a fresh child (``load_local``:
  the time and the RSS right after opening);
* **LangChain** (``--n`` up to 2M; ``--no-baseline`` skips it):
  ``langchain_community.vectorstores.FAISS.from_embeddings`` with
  ``distance_strategy=MAX_INNER_PRODUCT`` on the same unit vectors (exact flat index,
  documents in a Python docstore), ``save_local`` / ``load_local`` (pickle).

Measured: build, save, open/load (fresh process), RSS after opening, peak RSS, single
query (median of ``--queries`` queries, k=10, one OpenMP thread: ``omp_set_num_threads(1)``
before any search), filtered queries at 0.01% / 1% / 50% selectivity (median time, how
many of the 10 came back, recall@10), and recall@10 against the exact answer (computed
here block by block with numpy; kept in ``--folder`` as ``exact.json`` with the data's
parameters and a digest of the code that makes the data in ``exact.key.json``, and reused
by a later run whose key matches). ``--store-folder`` builds ragline's store through a
store folder instead (``StoreFolder.writer()``: its store, committed as a generation)
and opens it with ``open_store``.

    python benchmarks/scale.py --n 1000000            # ragline and LangChain, ~30 min
    python benchmarks/scale.py --n 10000000 --no-baseline --save-every 1000000 \
        --folder /big/disk/scale

The 10M run is the issue's goal (build <= 60 min, peak RSS <= 8 GiB, open < 1 s,
median single-thread query <= 10 ms, recall@10 >= 0.95, filters fill k); it needs
about 20 GB of free disk in ``--folder`` (vectors 15 GB, documents, index).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

BLOCK = 100_000
NOISE = 0.6
FILTERS = {  # selectivity name -> filter, and the rows it matches (i % 10000 test)
    "0.01%": ({"bucket": 7}, lambda b: b == 7),
    "1%": ({"bucket": {"$lt": 100}}, lambda b: b < 100),
    "50%": ({"bucket": {"$lt": 5000}}, lambda b: b < 5000),
}


def centers(clusters: int, dimension: int) -> np.ndarray:
    return np.random.default_rng(12345).normal(size=(clusters, dimension))


def block(number: int, n: int, clusters: int, dimension: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``number * BLOCK ...`` of the corpus: (unit float32 vectors, cluster ids)."""
    start = number * BLOCK
    count = min(BLOCK, n - start)
    rng = np.random.default_rng(1_000_003 + number)
    topic = rng.integers(0, clusters, count)
    rows = centers(clusters, dimension)[topic] + NOISE * rng.normal(size=(count, dimension))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32), topic


def queries(count: int, clusters: int, dimension: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    rows = centers(clusters, dimension)[rng.integers(0, clusters, count)]
    rows = rows + NOISE * rng.normal(size=rows.shape)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def blocks(args: argparse.Namespace) -> range:
    return range((args.n + BLOCK - 1) // BLOCK)


def texts_and_metadata(
    number: int, topic: np.ndarray
) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    start = number * BLOCK
    rows = range(start, start + len(topic))
    texts = [f"passage {i} about topic {t}" for i, t in zip(rows, topic.tolist(), strict=True)]
    metadatas = [
        {"topic": t, "bucket": i % 10_000} for i, t in zip(rows, topic.tolist(), strict=True)
    ]
    return texts, metadatas, [f"p{i}" for i in rows]


def exact_answers(args: argparse.Namespace, query_rows: np.ndarray) -> dict[str, list[list[str]]]:
    """Exact top-10 ids per query: unfiltered and per filter (numpy, block by block)."""
    found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    names = ["all", *FILTERS]
    q = len(query_rows)
    for name in names:
        found[name] = (np.full((q, 10), -np.inf, np.float32), np.full((q, 10), -1, np.int64))
    for number in blocks(args):
        vectors, _ = block(number, args.n, args.clusters, args.dimension)
        scores = query_rows @ vectors.T  # (q, rows)
        labels = np.arange(number * BLOCK, number * BLOCK + len(vectors))
        for name in names:
            keep = None if name == "all" else FILTERS[name][1](labels % 10_000)
            part_scores = scores if keep is None else scores[:, keep]
            part_labels = labels if keep is None else labels[keep]
            if part_scores.shape[1] > 10:  # this block's best 10 per query, then merge
                top = np.argpartition(-part_scores, 9, axis=1)[:, :10]
                part_scores = np.take_along_axis(part_scores, top, 1)
                part_labels = part_labels[top]
            else:
                part_labels = np.broadcast_to(part_labels, part_scores.shape)
            best_scores, best_labels = found[name]
            merged_scores = np.concatenate([best_scores, part_scores], axis=1)
            merged_labels = np.concatenate([best_labels, part_labels], axis=1)
            order = np.argsort(-merged_scores, axis=1, kind="stable")[:, :10]
            found[name] = (
                np.take_along_axis(merged_scores, order, 1),
                np.take_along_axis(merged_labels, order, 1),
            )
    return {name: [[f"p{i}" for i in row] for row in found[name][1].tolist()] for name in names}


def exact_key(args: argparse.Namespace) -> dict[str, Any]:
    """What the exact answers depend on: the data's parameters and the code making them."""
    code = "".join(inspect.getsource(f) for f in (centers, block, queries, blocks, exact_answers))
    return {
        "n": args.n, "dimension": args.dimension, "clusters": args.clusters,
        "queries": args.queries, "block": BLOCK, "noise": NOISE,
        "filters": {name: filter for name, (filter, _) in FILTERS.items()},
        "code_sha256": hashlib.sha256(code.encode()).hexdigest(),
    }  # fmt: skip


def cached_exact(args: argparse.Namespace) -> bool:
    """Whether ``--folder`` holds exact answers made for this data (``exact.key.json``)."""
    key, answers = Path(args.folder, "exact.key.json"), Path(args.folder, "exact.json")
    if not (key.exists() and answers.exists()):
        return False
    return bool(json.loads(key.read_text()) == exact_key(args))


def write_exact(args: argparse.Namespace) -> dict[str, Any]:
    exact = exact_answers(args, queries(args.queries, args.clusters, args.dimension))
    Path(args.folder, "exact.json").write_text(json.dumps(exact))
    Path(args.folder, "exact.key.json").write_text(json.dumps(exact_key(args)))
    return {}


class Rows:
    """Embeddings for queries given by vector (the stores are searched by vector)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise AssertionError("the benchmark adds vectors, never texts")

    def embed_query(self, text: str) -> list[float]:
        raise AssertionError("the benchmark searches by vector")


def peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # GiB (Linux: KiB)


def current_rss() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**30


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ---------------------------------------------------------------------- children


def build_ragline(args: argparse.Namespace) -> dict[str, Any]:
    from ragline.embeddings import Embeddings
    from ragline.vectorstores import FAISS
    from ragline.vectorstores.faiss._choice import choose_index

    class QueryRows(Rows, Embeddings):
        pass

    plan = choose_index(args.index, args.n, args.dimension)
    path = Path(args.folder) / "ragline"
    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    writer = None
    if args.store_folder:
        from ragline.store_folder import StoreFolder

        writer = StoreFolder(path).writer(embedding="hashing", index=args.index, durable=False)
        writer.__enter__()
        store = writer.store
        assert store is not None
        store.change_index(**plan.options())  # type: ignore[arg-type]
    else:
        store = FAISS(QueryRows(), metric="cosine", **plan.options())  # type: ignore[arg-type]
    for number in blocks(args):
        vectors, topic = block(number, args.n, args.clusters, args.dimension)
        texts, metadatas, ids = texts_and_metadata(number, topic)
        store.add_embeddings(zip(texts, vectors, strict=True), metadatas, ids=ids)
        done = min((number + 1) * BLOCK, args.n)
        if args.save_every and done % args.save_every == 0 and done < args.n and not writer:
            store.save_local(path, documents="sqlite")  # the documents go to disk
        print(f"  ragline: {done:,} added, {time.perf_counter() - start:.0f} s, RSS "
              f"{current_rss():.2f} GiB (peak {peak_rss():.2f}), load average "
              f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)  # fmt: skip
    build = time.perf_counter() - start
    start = time.perf_counter()
    if writer is not None:
        writer.__exit__(None, None, None)  # commits the generation (and the keyword index)
    else:
        store.save_local(path, documents="sqlite")
    save = time.perf_counter() - start
    return {
        "index": plan.factory, "rerank": plan.rerank, "nprobe": plan.nprobe,
        "build_s": build, "save_s": save, "saved_bytes": folder_bytes(path),
        "build_peak_rss_gib": peak_rss(),
    }  # fmt: skip


def build_langchain(args: argparse.Namespace) -> dict[str, Any]:
    import warnings

    warnings.simplefilter("ignore")
    from langchain_community.vectorstores import FAISS as LangChainFAISS
    from langchain_community.vectorstores.utils import DistanceStrategy
    from langchain_core.embeddings import Embeddings

    class QueryRows(Rows, Embeddings):
        pass

    path = Path(args.folder) / "langchain"
    shutil.rmtree(path, ignore_errors=True)
    pairs: list[tuple[str, list[float]]] = []
    metadatas: list[dict[str, Any]] = []
    ids: list[str] = []
    for number in blocks(args):  # LangChain's from_embeddings takes everything at once
        vectors, topic = block(number, args.n, args.clusters, args.dimension)
        texts, block_metadatas, block_ids = texts_and_metadata(number, topic)
        pairs += zip(texts, vectors, strict=True)  # type: ignore[arg-type]
        metadatas += block_metadatas
        ids += block_ids
    start = time.perf_counter()
    store = LangChainFAISS.from_embeddings(
        pairs, QueryRows(), metadatas, ids=ids, distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT
    )
    build = time.perf_counter() - start
    start = time.perf_counter()
    store.save_local(str(path))
    save = time.perf_counter() - start
    return {
        "index": "IndexFlatIP (exact)", "build_s": build, "save_s": save,
        "saved_bytes": folder_bytes(path), "build_peak_rss_gib": peak_rss(),
    }  # fmt: skip


def milliseconds(times: list[float]) -> dict[str, float]:
    """The median and p99 of ``times`` (seconds), in milliseconds."""
    return {
        "median_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * sorted(times)[int(0.99 * (len(times) - 1))],
    }


def query_child(args: argparse.Namespace) -> dict[str, Any]:
    """Open the saved store in this fresh process, then time queries (one thread)."""
    import warnings

    import faiss

    warnings.simplefilter("ignore")
    faiss.omp_set_num_threads(1)
    start = time.perf_counter()
    if args.child == "ragline-query":
        from ragline.embeddings import Embeddings
        from ragline.vectorstores import FAISS

        class QueryRows(Rows, Embeddings):
            pass

        if args.store_folder:
            from ragline.store_folder import StoreFolder

            store: Any = StoreFolder(Path(args.folder) / "ragline").open_store()
        else:
            store = FAISS.load_local(Path(args.folder) / "ragline", QueryRows())
    else:
        from langchain_community.vectorstores import FAISS as LangChainFAISS
        from langchain_core.embeddings import Embeddings as LangChainEmbeddings

        class LangChainRows(Rows, LangChainEmbeddings):
            pass

        store = LangChainFAISS.load_local(
            str(Path(args.folder) / "langchain"), LangChainRows(),
            allow_dangerous_deserialization=True,
        )  # fmt: skip
    open_s = time.perf_counter() - start
    rss_open = current_rss()
    query_rows = queries(args.queries, args.clusters, args.dimension)
    exact = json.loads(Path(args.folder, "exact.json").read_text())
    result: dict[str, Any] = {"open_s": open_s, "rss_after_open_gib": rss_open}

    def run(filter: Any, name: str) -> None:
        times, recalls, counts = [], [], []
        for row, truth in zip(query_rows, exact[name], strict=True):
            vector = row.tolist()
            begin = time.perf_counter()
            hits = store.similarity_search_with_score_by_vector(vector, k=10, filter=filter)
            times.append(time.perf_counter() - begin)
            ids = [doc.id for doc, _ in hits]
            counts.append(len(ids))
            recalls.append(len(set(ids) & set(truth)) / 10)
        result[name] = {
            **milliseconds(times),
            "recall_at_10": statistics.mean(recalls),
            "min_returned": min(counts),
        }

    run(None, "all")  # warms the caches the first queries pay for, then measured again
    run(None, "all")
    fetch_times = []  # the k documents of each query, fetched again by id (warm pages)
    for truth in exact["all"]:
        begin = time.perf_counter()
        fetched = store.get_by_ids(truth)
        fetch_times.append(time.perf_counter() - begin)
        assert len(fetched) == len(truth), "a document of the exact answer is missing"
    result["fetch_k"] = milliseconds(fetch_times)
    for name, (filter, _) in FILTERS.items():
        run(filter, name)
    result["peak_rss_gib"] = peak_rss()
    return result


# ---------------------------------------------------------------------- driver


def child(args: argparse.Namespace, name: str) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", name, *args.passed]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    output = subprocess.run(command, check=True, stdout=subprocess.PIPE, env=env, text=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--clusters", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--index", default="auto", help="auto, flat, hnsw, ivf-pq, ivf-sq8")
    parser.add_argument("--folder", default=None, help="where the stores go (default: a temp dir)")
    parser.add_argument("--no-baseline", action="store_true", help="skip LangChain's FAISS")
    parser.add_argument("--store-folder", action="store_true", help="ragline via a store folder")
    parser.add_argument(
        "--save-every", type=int, default=0,
        help="save the store every this many documents while building (a multiple of "
        "100,000): a store built in memory holds its documents as Python objects until "
        "it is saved, and a save moves them to SQLite",
    )  # fmt: skip
    parser.add_argument(
        "--query-only",
        action="store_true",
        help="skip the builds: open the stores already saved in --folder and query them",
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        work = {
            "exact": write_exact,
            "ragline-build": build_ragline, "langchain-build": build_langchain,
            "ragline-query": query_child, "langchain-query": query_child,
        }[args.child]  # fmt: skip
        print(json.dumps(work(args)))
        return
    temporary = args.folder is None
    args.folder = args.folder or tempfile.mkdtemp(prefix="ragline-scale-")
    Path(args.folder).mkdir(parents=True, exist_ok=True)
    args.passed = [
        "--n", str(args.n), "--dimension", str(args.dimension), "--clusters",
        str(args.clusters), "--queries", str(args.queries), "--index", args.index,
        "--folder", args.folder, "--save-every", str(args.save_every),
        *(["--store-folder"] if args.store_folder else []),
    ]  # fmt: skip
    baseline = not args.no_baseline and args.n <= 2_000_000
    print(f"{args.n:,} passages, dimension {args.dimension}, {args.clusters} clusters, "
          f"{args.queries} queries, k=10, one OpenMP thread per query; {os.cpu_count()} "
          f"cores, folder {args.folder}", flush=True)  # fmt: skip
    start = time.perf_counter()
    if cached_exact(args):  # same data, same code: the answers in --folder are reused
        print(f"exact answers: reused {Path(args.folder, 'exact.json')}", flush=True)
    else:  # in a child: Linux keeps a parent's peak RSS across fork + exec
        Path(args.folder, "exact.key.json").unlink(missing_ok=True)
        child(args, "exact")
        print(f"exact answers: {time.perf_counter() - start:.0f} s", flush=True)
    results: dict[str, dict[str, Any]] = {}
    systems = ["ragline", *(["langchain"] if baseline else [])]
    for system in systems:
        results[system] = {} if args.query_only else child(args, f"{system}-build")
        results[system].update(child(args, f"{system}-query"))
        print(json.dumps({system: results[system]}), flush=True)
    report(results)
    if temporary:
        shutil.rmtree(args.folder, ignore_errors=True)


def filter_rows(name: str) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    return [
        (f"filter {name}: median (ms)", lambda r: f"{r[name]['median_ms']:.2f}"),
        (f"filter {name}: fewest of 10", lambda r: str(r[name]["min_returned"])),
        (f"filter {name}: recall@10", lambda r: f"{r[name]['recall_at_10']:.3f}"),
    ]


def shown(cell: Callable[[dict[str, Any]], str], result: dict[str, Any]) -> str:
    """A table cell, or a dash for a figure this run did not measure (--query-only)."""
    try:
        return cell(result)
    except KeyError:
        return "-"


def report(results: dict[str, dict[str, Any]]) -> None:
    names = list(results)
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("index", lambda r: str(r["index"])),
        ("build (s)", lambda r: f"{r['build_s']:.1f}"),
        ("peak RSS building (GiB)", lambda r: f"{r['build_peak_rss_gib']:.2f}"),
        ("save (s)", lambda r: f"{r['save_s']:.1f}"),
        ("saved (GB)", lambda r: f"{r['saved_bytes'] / 1e9:.2f}"),
        ("open/load, fresh process (s)", lambda r: f"{r['open_s']:.2f}"),
        ("RSS after open (GiB)", lambda r: f"{r['rss_after_open_gib']:.2f}"),
        ("peak RSS querying (GiB)", lambda r: f"{r['peak_rss_gib']:.2f}"),
        ("single query median (ms)", lambda r: f"{r['all']['median_ms']:.2f}"),
        ("single query p99 (ms)", lambda r: f"{r['all']['p99_ms']:.2f}"),
        ("recall@10", lambda r: f"{r['all']['recall_at_10']:.3f}"),
        ("fetch k documents by id, median (ms)", lambda r: f"{r['fetch_k']['median_ms']:.3f}"),
        ("fetch k documents by id, p99 (ms)", lambda r: f"{r['fetch_k']['p99_ms']:.3f}"),
    ]
    for name in FILTERS:
        rows += filter_rows(name)
    print()
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, cell in rows:
        print(f"| {label} | " + " | ".join(shown(cell, results[name]) for name in names) + " |")
    if "langchain" in results and "build_s" in results["ragline"]:
        ragline, langchain = results["ragline"], results["langchain"]
        ratio = {
            "single query": ragline["all"]["median_ms"] / langchain["all"]["median_ms"],
            "RSS after open": ragline["rss_after_open_gib"] / langchain["rss_after_open_gib"],
            "open": ragline["open_s"] / langchain["open_s"],
            "build": ragline["build_s"] / langchain["build_s"],
        }
        print("\nragline / LangChain: " + ", ".join(f"{k} {v:.2f}x" for k, v in ratio.items()))


if __name__ == "__main__":
    main()

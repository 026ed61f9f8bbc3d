"""Deterministic cost of ragline's FAISS query paths: Python calls per query (cProfile).

Timings on a shared machine are noisy; the number of function calls a query makes is
not. This script builds the store of ``benchmarks/vectorstores.py`` (same data, same
embeddings, cosine metric) and reports, per query, the calls cProfile counts (Python
functions and builtins, primitive and recursive) and the distinct functions among them,
for ``similarity_search``, ``similarity_search_with_score``, ``similarity_search_by_vector``
(the query's vector as the benchmark's Embeddings returns it: a float32 numpy row, and as a
list of floats), ``retriever.invoke`` and ``retriever.batch``, with a digest of
the bytecode of every ragline function each row ran. ``--root`` points at another
checkout (a ``git worktree`` of an older commit, say) to compare two trees with this same
script: equal data, equal counting; equal digests mean the same code ran.

``--langchain`` also counts the single-query rows on LangChain's FAISS (same data).
``--top N`` lists the N functions with the most calls per row, each ragline function with
its own bytecode digest (diff two trees' listings to find what a change added or
changed). Calls made on threads other than the caller's are not counted; the script says
how many threads each row started (0 for all rows as written). The harness's own calls
(a lambda and a list comprehension per row) are in the counts, alike on both trees.

``--pairs N --against PATH`` times the rows instead: N runs of each checkout, one process
each, alternated (the order swapped every pair), faiss on one OpenMP thread throughout
(``OMP_NUM_THREADS=1``, LangChain's pool threads included), raw faiss and LangChain in
every run as ``vectorstores.py`` sets them up (single queries: fastest of 3 tries per
query, median over the queries; batch: fastest of 7 alternated runs), plus a row of
faiss's bare C search on each store's own index (no Python work: where two libraries'
indexes sit in memory can make their scans differ, most at 10k documents); it prints each
run's LangChain/ragline ratio, the medians and the load average before each run.
``--cpu`` times with the process's CPU time (all its threads) instead of the wall clock:
on a loaded machine, time spent waiting for a core is not counted. Without ``--against``,
``--pairs N`` runs the one checkout N times (ragline against LangChain only).
``--size`` takes a comma list in timing mode (``--size 1000,10000``): each size in turn.

Usage:
    .venv/bin/python benchmarks/vectorstore_counts.py [--root PATH] [--size 10000] [--top 0]
    .venv/bin/python benchmarks/vectorstore_counts.py --pairs 5 --root OLD --against NEW [--cpu]
    .venv/bin/python benchmarks/vectorstore_counts.py --pairs 5 --size 1000,10000 [--cpu]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

HERE = Path(__file__).resolve().parent


def count(call: Callable[[], Any], per: int) -> tuple[float, int, int, list[Any]]:
    """(calls per query, distinct functions, threads started, profiler entries) of one
    ``call``."""
    started = 0
    original = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        nonlocal started
        started += 1
        original(thread)

    threading.Thread.start = start  # type: ignore[method-assign]
    profile = cProfile.Profile()
    try:
        profile.enable()
        call()
        profile.disable()
    finally:
        threading.Thread.start = original  # type: ignore[method-assign]
    entries = [
        entry
        for entry in profile.getstats()
        if not (isinstance(entry.code, str) and "_lsprof.Profiler" in entry.code)
    ]
    total = sum(entry.callcount for entry in entries)
    return total / per, len(entries), started, entries


def where(code: Any) -> str:
    """A function's name for the listing: ragline-relative file, line, qualified name,
    and for ragline's own a digest of its bytecode (which of them differ on two trees)."""
    if isinstance(code, str):
        return re.sub(r" at 0x[0-9a-f]+", "", code)
    file = code.co_filename
    if "/ragline/" not in file:
        return f"{Path(file).name}:{code.co_firstlineno} {code.co_qualname}"
    own = hashlib.sha256(code_bytes(code)).hexdigest()[:8]
    return f"{file.split('/ragline/')[-1]}:{code.co_firstlineno} {code.co_qualname} [{own}]"


def code_bytes(code: Any) -> bytes:
    """A function's bytecode with its names, constants and nested code (no line numbers)."""
    consts = b"".join(
        code_bytes(c) if hasattr(c, "co_code") else repr(c).encode() for c in code.co_consts
    )
    return code.co_qualname.encode() + code.co_code + repr(code.co_names).encode() + consts


def digest(entries: list[Any]) -> str:
    """A hash of the bytecode of every ragline function the row ran: equal digests on
    two trees mean the same code ran (``--top`` shows each function's own)."""
    parts = []
    for entry in entries:
        code = entry.code
        if isinstance(code, str) or "/ragline/" not in code.co_filename:
            continue
        relative = code.co_filename.split("/ragline/")[-1]
        parts.append(relative.encode() + b"\0" + code_bytes(code))
    return hashlib.sha256(b"\1".join(sorted(parts))).hexdigest()[:12]


def timed(bench: Any, data: Any) -> None:
    """One timing run of this tree: each row with raw faiss and LangChain in the same
    process (``benchmarks/vectorstores.py``'s helpers and settings, faiss on one OpenMP
    thread for batches too); prints one JSON line of seconds per query."""
    stores = bench.build_all(data)
    raw, lc = stores["raw"], stores["langchain"]
    # ragline's store of the three, built between the other two as vectorstores.py
    # builds them (where its vectors land changes its scan: see own_scan)
    store = stores["ragline"]
    retriever = store.as_retriever(search_kwargs={"k": 4})
    lc_retriever = lc.as_retriever(search_kwargs={"k": 4})
    queries = data.queries
    search = bench.round_robin(
        {
            "raw": lambda q: raw.search(q, 4),
            "ragline": lambda q: store.similarity_search(q, 4),
            "langchain": lambda q: lc.similarity_search(q, 4),
        },
        queries,
        3,
    )
    with_score = bench.round_robin(
        {
            "raw": lambda q: raw.search_with_score(q, 4),
            "ragline": lambda q: store.similarity_search_with_score(q, 4),
            "langchain": lambda q: lc.similarity_search_with_score(q, 4),
        },
        queries,
        3,
    )
    by_vector = []
    for vectors in query_vectors(data):  # the same vector objects for both libraries
        by_vector.append(
            bench.round_robin(
                {
                    "ragline": lambda i: store.similarity_search_by_vector(vectors[i], 4),  # noqa: B023
                    "langchain": lambda i: lc.similarity_search_by_vector(vectors[i], 4),  # noqa: B023
                },
                range(len(queries)),
                3,
            )
        )
    invoke = bench.round_robin(
        {"ragline": retriever.invoke, "langchain": lc_retriever.invoke}, queries, 3
    )
    batch = bench.repeated(
        {
            "raw": lambda: raw.batch(queries, 4),
            "ragline": lambda: retriever.batch(queries),
            "langchain": lambda: lc_retriever.batch(queries),
        },
        7,
    )
    batch = {name: seconds / len(queries) for name, seconds in batch.items()}
    scan = bench.round_robin(
        {name: own_scan(index, data) for name, index in (
            ("raw", raw.index), ("ragline", store.index), ("langchain", lc.index))},
        queries,
        3,
    )  # fmt: skip
    rows = {
        "bare faiss scan of each store's own index": scan,
        "similarity_search k=4": search,
        "similarity_search_with_score k=4": with_score,
        "similarity_search_by_vector (array) k=4": by_vector[0],
        "similarity_search_by_vector (list) k=4": by_vector[1],
        "retriever.invoke": invoke,
        "retriever.batch": batch,
    }
    print("TIMES " + json.dumps(rows))


def own_scan(index: Any, data: Any) -> Callable[[str], Any]:
    """faiss's C search alone on one store's own index, for a query's unit vector: the
    floor of that store's row. Each library builds its own index, so their scans can
    differ by where the vectors landed in memory; this row shows by how much, apart
    from any Python work (compare its LangChain/ragline ratio with the others')."""
    import numpy as np

    unit = {q: data.query_vectors[i : i + 1].copy() for i, q in enumerate(data.queries)}
    scores, labels = np.empty((1, 4), dtype=np.float32), np.empty((1, 4), dtype=np.int64)
    pointer = faiss_pointer()
    out_scores, out_labels = pointer(scores), pointer(labels)

    def search(q: str) -> None:
        index.search_c(1, pointer(unit[q]), 4, out_scores, out_labels, None)

    return search


def faiss_pointer() -> Callable[[Any], Any]:
    import faiss

    return faiss.swig_ptr  # type: ignore[no-any-return]


def query_vectors(data: Any) -> tuple[list[Any], list[Any]]:
    """Each query's vector as the benchmark's Embeddings' ``embed_query`` returns it (a
    float32 numpy row), and as a list of Python floats."""
    arrays = [data.embeddings.embed_query(q) for q in data.queries]
    return arrays, [vector.tolist() for vector in arrays]


def pairs(args: argparse.Namespace) -> None:
    """``--pairs N``: N timing runs of ``--root`` and of ``--against`` (when given),
    alternated (the order swapped every pair), one process each, for each ``--size``;
    per row, each run's LangChain/ragline and ragline/raw ratios, the load average
    before it, and the medians."""
    trees = {"root": args.root.resolve()}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    for size in args.sizes:
        pairs_of_size(args, trees, size)


def pairs_of_size(args: argparse.Namespace, trees: dict[str, Path], size: int) -> None:
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    loads: dict[str, list[str]] = {name: [] for name in trees}
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # LangChain's pool threads too
    for pair in range(args.pairs):
        for name in list(trees) if pair % 2 == 0 else list(trees)[::-1]:
            command = [sys.executable, __file__, "--root", str(trees[name]), "--time"]
            command += ["--size", str(size), "--queries", str(args.queries)]
            command += ["--cpu"] if args.cpu else []
            loads[name].append(Path("/proc/loadavg").read_text().split()[0])
            output = subprocess.run(
                command, check=True, capture_output=True, text=True, env=env
            ).stdout
            line = next(x for x in output.splitlines() if x.startswith("TIMES "))
            runs[name].append(json.loads(line[len("TIMES ") :]))
            print(
                f"{size:,} docs: pair {pair + 1} {name} done (load {loads[name][-1]})", flush=True
            )
    print(
        f"\n{size:,} documents, {args.queries} queries, faiss on 1 OpenMP thread, "
        f"{'CPU time' if args.cpu else 'wall clock'}; load "
        f"at the end {Path('/proc/loadavg').read_text().split()[0]}"
    )
    for name, tree in trees.items():
        print(f"{name}: {tree}; load before each run {', '.join(loads[name])}")
    for row in runs["root"][0]:
        print(f"\n{row} ({size:,} documents)")
        for name in trees:
            times = [run[row] for run in runs[name]]
            lc = [t["langchain"] / t["ragline"] for t in times]
            ours = [t["ragline"] * 1e6 for t in times]
            line = f"  {name:<8} ragline us/query {' '.join(f'{x:.1f}' for x in ours)}"
            line += f" (median {statistics.median(ours):.1f}); LC/ragline "
            line += f"{' '.join(f'{x:.2f}' for x in lc)} (median {statistics.median(lc):.2f})"
            if "raw" in times[0]:
                to_raw = [t["ragline"] / t["raw"] for t in times]
                line += f"; ragline/raw median {statistics.median(to_raw):.3f}"
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent, help="checkout to import")
    parser.add_argument(
        "--size", default="10000", help="documents; a comma list with --pairs (1000,10000)"
    )
    parser.add_argument(
        "--queries", type=int, help="queries per row: 200 for counts, 1000 for timing"
    )
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--time", action="store_true", help="time the rows in this process")
    parser.add_argument("--pairs", type=int, default=0, help="alternated timing runs")
    parser.add_argument("--against", type=Path, help="the other checkout for --pairs")
    parser.add_argument("--cpu", action="store_true", help="timing: process CPU time")
    parser.add_argument("--langchain", action="store_true", help="counts: LangChain's too")
    args = parser.parse_args()
    args.queries = args.queries or (1000 if args.time or args.pairs else 200)
    args.sizes = [int(size) for size in args.size.split(",")]
    if len(args.sizes) > 1 and not args.pairs:
        parser.error("several sizes need --pairs")
    args.size = args.sizes[0]
    if args.pairs:
        pairs(args)
        return
    sys.path.insert(0, str(args.root.resolve()))
    import ragline  # the --root checkout's, before vectorstores.py puts this one on the path

    sys.path.insert(1, str(HERE))
    import vectorstores as bench  # the workload's data and embeddings

    assert Path(ragline.__file__).resolve().is_relative_to(args.root.resolve()), ragline.__file__
    bench.faiss.omp_set_num_threads(1)
    data = bench.Data(args.size, args.queries)
    if args.time:  # only build_all's stores, as vectorstores.py times them
        if args.cpu:  # vectorstores.py's timing helpers read this clock
            bench.time = SimpleNamespace(perf_counter=time.process_time)
        timed(bench, data)
        return
    store = bench.FAISS.from_embeddings(
        data.pairs, data.embeddings, data.metadatas, ids=data.ids, metric="cosine"
    )
    retriever = store.as_retriever(search_kwargs={"k": 4})
    queries = data.queries
    arrays, lists = query_vectors(data)
    rows: dict[str, Callable[[], Any]] = {
        "similarity_search k=4": lambda: [store.similarity_search(q, 4) for q in queries],
        "..._with_score k=4": lambda: [store.similarity_search_with_score(q, 4) for q in queries],
        "..._by_vector (array)": lambda: [store.similarity_search_by_vector(v, 4) for v in arrays],
        "..._by_vector (list)": lambda: [store.similarity_search_by_vector(v, 4) for v in lists],
        "retriever.invoke": lambda: [retriever.invoke(q) for q in queries],
        "retriever.batch": lambda: retriever.batch(queries),
    }
    print(f"ragline from {Path(ragline.__file__).resolve().parent}, {args.size:,} documents")
    for call in rows.values():
        call()  # warm: lazy imports, caches
    modules = [name for name in sys.modules if name.split(".")[0] == "ragline"]
    print(
        f"modules loaded: {len(modules)} ragline, {len(sys.modules)} in all; gc-tracked "
        f"objects: {len(gc.get_objects()):,}"
    )
    print(
        "| operation             | calls per query | distinct functions | threads | code digest  |"
    )
    print(
        "|-----------------------|----------------:|-------------------:|--------:|--------------|"
    )
    listed = []
    for name, call in rows.items():
        calls, distinct, threads, entries = count(call, len(queries))
        print(
            f"| {name:<21} | {calls:>15.2f} | {distinct:>18} | {threads:>7} | {digest(entries)} |"
        )
        listed.append((name, entries))
    if args.langchain:  # the same rows on LangChain's FAISS over the same data
        lc = bench.LCFAISS.from_embeddings(
            data.pairs, data.embeddings, data.metadatas, ids=data.ids, **bench.lc_options()
        )
        lc_retriever = lc.as_retriever(search_kwargs={"k": 4})
        lc_rows: dict[str, Callable[[], Any]] = {
            "similarity_search k=4": lambda: [lc.similarity_search(q, 4) for q in queries],
            "..._with_score k=4": lambda: [lc.similarity_search_with_score(q, 4) for q in queries],
            "..._by_vector (array)": lambda: [lc.similarity_search_by_vector(v, 4) for v in arrays],
            "..._by_vector (list)": lambda: [lc.similarity_search_by_vector(v, 4) for v in lists],
            "retriever.invoke": lambda: [lc_retriever.invoke(q) for q in queries],
        }
        for call in lc_rows.values():
            call()
        print("\nLangChain's FAISS, the same rows:")
        for name, call in lc_rows.items():
            calls, distinct, threads, _ = count(call, len(queries))
            print(f"| {name:<21} | {calls:>15.2f} | {distinct:>18} | {threads:>7} | -            |")
    for name, entries in listed if args.top else ():
        print(f"\n{name}: top {args.top} by calls per query")
        ranked = sorted(entries, key=lambda entry: (-entry.callcount, where(entry.code)))
        for entry in ranked[: args.top]:
            print(f"  {entry.callcount / len(queries):>8.2f}  {where(entry.code)}")


if __name__ == "__main__":
    main()

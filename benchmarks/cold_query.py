"""A cold ``ragline query`` on a store folder: its wall time, and where the time goes.

Issue 26 asks that ``ragline query`` stay under 1 s cold on a 10M store. "Cold" here is
a fresh process, with the store folder's files dropped from the page cache before each
run (``posix_fadvise(DONTNEED)`` on every file under ``--store``; Python's and the
packages' own files stay cached, as on a machine that has run Python before). Each run
times, in turn:

* the command itself: ``python -m ragline.cli query TEXT --store DIR -k 10 --json`` in a
  fresh process, wall time from start to exit (it must print k results);
* the same steps in a fresh process of this script (``--phases``), each timed:
  ``import`` (``ragline.cli``, which the command imports, and the store folder),
  ``open`` (read the manifest, ``open_store``: ``FAISS.load_local`` of the committed
  generation, inside ``deferred_checks()`` as the command opens it: no background
  checksum), ``embed`` (the store's own embeddings, ``embed_query``), ``search`` (the
  index's nearest labels, re-ranked exactly) and ``fetch`` (the k Documents, read from
  the store's SQLite file). ``search`` and ``fetch`` call the store's internal steps
  (``_nearest``, ``_hits``) so that they can be timed apart.

An interpreter's start (``python -c pass``) is timed too: it is part of the command's
wall time and of no phase. ``--minilm`` also times a cold MiniLM ``embed_query`` (fresh
process, ONNX on the CPU, its cached export dropped from the page cache too) step by
step: import, tokenizer, session, first query. That is the embed step of a store built
with MiniLM, since synthetic stores (``benchmarks/scale.py --store-folder``) are built
with the ``hashing`` embedding, whose query costs microseconds; with ``--minilm`` the
export is dropped before every whole-command run as well (for a store folder whose
manifest names MiniLM). ``--baseline DIR`` runs the whole command from another checkout
too (``git archive OLD ragline | tar -x -C DIR``), in turn with this one's.

    python benchmarks/cold_query.py --store /big/disk/scale/ragline --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _timing import REPO, process_env  # this script's folder is first on sys.path


def evict(folder: Path) -> int:
    """Drop the page-cache pages of every file under ``folder`` (or of the file
    ``folder``); the bytes they had."""
    total = 0
    for path in [folder] if folder.is_file() else folder.rglob("*"):
        if path.is_file():
            descriptor = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(descriptor)
            total += path.stat().st_size
    return total


def timed_process(command: list[str], repo: Path = REPO) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**process_env(repo), "HF_HUB_OFFLINE": "1"},
        cwd=repo,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, done.stdout


def phases(store: str, text: str, k: int) -> dict[str, Any]:
    """The command's steps, each timed, in this fresh process."""
    clock = time.perf_counter
    start = clock()
    import numpy as np

    import ragline.cli  # noqa: F401  (what `python -m ragline.cli` imports first)
    from ragline.store_folder import StoreFolder
    from ragline.vectorstores.faiss._files import deferred_checks

    times: dict[str, Any] = {"import": clock() - start}
    start = clock()
    folder = StoreFolder(store)
    folder.read_manifest()
    with deferred_checks():  # as the command opens it (no background checksum thread)
        faiss_store: Any = folder.open_store()
    times["open"] = clock() - start
    start = clock()
    vector = faiss_store.embeddings.embed_query(text)
    times["embed"] = clock() - start
    row = np.asarray([vector], dtype=np.float32)
    row /= np.linalg.norm(row, axis=1, keepdims=True)  # the store is cosine: unit queries
    with faiss_store._lock:
        start = clock()
        found = faiss_store._nearest(row, k, None)
        times["search"] = clock() - start
        start = clock()
        hits = faiss_store._hits(*found, False)
        times["fetch"] = clock() - start
    times["returned"] = len(hits[0])
    times["content_chars"] = sum(len(hit[0].page_content) for hit in hits[0])
    return times


def minilm_steps(text: str) -> dict[str, float]:
    """A cold MiniLM ``embed_query`` (ONNX), step by step, in this fresh process; the
    export file was dropped from the page cache by the parent."""
    clock = time.perf_counter
    times: dict[str, float] = {}
    start = clock()
    import onnxruntime  # noqa: F401

    times["import onnxruntime"] = clock() - start
    start = clock()
    from ragline.store_folder._embeddings import make_embeddings

    model: Any = make_embeddings("minilm-onnx")
    times["make embeddings (model folder, spec)"] = clock() - start
    start = clock()
    model.weights_sha256  # noqa: B018  (the remembered digest: the store checks identity)
    times["weights digest (remembered)"] = clock() - start
    start = clock()
    encoder = model.client  # tokenizer.json read, export located
    times["tokenizer"] = clock() - start
    from ragline.embeddings import _onnx

    start = clock()
    _onnx._session(encoder.onnx_file)  # the cold 90 MB file read and session creation
    times["ONNX session (cold file)"] = clock() - start
    start = clock()
    model.embed_query(text)
    times["first query"] = clock() - start
    return times


def export_file() -> Path:
    """The cached ONNX export of the packaged MiniLM (made by an earlier run)."""
    from ragline.embeddings import _onnx
    from ragline.store_folder._embeddings import make_embeddings

    model: Any = make_embeddings("minilm-onnx")
    path = _onnx.export_path(model.weights_sha256, model.precision)
    if not path.is_file():
        raise SystemExit(f"no ONNX export at {path}: embed one text with minilm-onnx first")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", required=True, help="a store folder (ragline index's)")
    parser.add_argument("--text", default="passage about topic 7")
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--minilm",
        action="store_true",
        help="also a cold MiniLM embed_query, step by step (its export file dropped too)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout (e.g. git archive of an older commit): its whole command "
        "is timed too, in turn with this one's",
    )
    parser.add_argument("--phases", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--minilm-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phases:
        print(json.dumps(phases(args.store, args.text, args.k)))
        return
    if args.minilm_child:
        print(json.dumps(minilm_steps(args.text)))
        return
    store = Path(args.store)
    python = [sys.executable, "-W", "ignore"]
    query = [*python, "-m", "ragline.cli", "query", args.text, "--store", str(store)]
    query += ["-k", str(args.k), "--json"]
    me = [*python, __file__, "--store", str(store), "--text", args.text, "-k", str(args.k)]
    rows: dict[str, list[float]] = {}
    model_file = export_file() if args.minilm else None
    for _ in range(args.runs):
        rows.setdefault("interpreter start (python -c pass)", []).append(
            timed_process([*python, "-c", "pass"])[0]
        )
        checkouts = [("", REPO)]
        if args.baseline is not None:
            checkouts.append((f" ({args.baseline})", args.baseline))
        for label, repo in checkouts:
            size = evict(store)
            if model_file is not None:
                evict(model_file)
            seconds, output = timed_process(query, repo)
            returned = len(json.loads(output))
            if returned != args.k:
                raise SystemExit(f"ragline query returned {returned} results, not {args.k}")
            rows.setdefault(f"ragline query, whole command{label}", []).append(seconds)
        evict(store)
        if model_file is not None:
            evict(model_file)
        seconds, output = timed_process([*me, "--phases"])
        measured = json.loads(output.strip().splitlines()[-1])
        assert measured["returned"] == args.k, measured
        rows.setdefault("phases process, whole", []).append(seconds)
        for name in ("import", "open", "embed", "search", "fetch"):
            rows.setdefault(f"  {name}", []).append(measured[name])
        if model_file is not None:
            evict(model_file)
            seconds, output = timed_process([*me, "--minilm-child"])
            steps = json.loads(output.strip().splitlines()[-1])
            rows.setdefault("MiniLM (ONNX) embed_query, cold: load + one query", []).append(
                sum(steps.values())
            )
            for name, value in steps.items():
                rows.setdefault(f"  {name}", []).append(value)
    print(
        f"store {store} ({size / 1e9:.2f} GB of files, dropped from the page cache before "
        f"each run), k={args.k}, {args.runs} runs, load average {os.getloadavg()[0]:.1f}"
    )
    print("| step | median (ms) | fastest (ms) | slowest (ms) |\n|---|---:|---:|---:|")
    for name, values in rows.items():
        median, low, high = (
            1000 * x for x in (statistics.median(values), min(values), max(values))
        )
        print(f"| {name} | {median:.1f} | {low:.1f} | {high:.1f} |")


if __name__ == "__main__":
    main()

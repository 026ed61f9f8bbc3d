"""Async search through ragline's own embeddings before and after a change (issue 24).

703bbe1 made the async store paths await a user subclass's own ``aembed_documents`` /
``aembed_query``. ragline's own classes should be unaffected: this times
``await store.asimilarity_search(q, k=4)`` on InMemoryVectorStore (cosine) and FAISS
with HashingEmbeddings, DeterministicFakeEmbedding and the packaged MiniLM
(``--minilm``), plus a user subclass overriding the async methods (the new path), in
each checkout given, in child processes run alternately (the best of ``--rounds``
rounds per case). Prints µs per search per checkout and the ratio to the first, with
the load average.

    python benchmarks/async_embedding_paths.py --checkout /tmp/before --checkout . [--minilm]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _timing import process_env

TEXTS = [f"document {i} about topic {i % 37} and subject {i % 11}" for i in range(1000)]
QUERIES = [f"topic {i % 37} subject {i % 5}" for i in range(200)]


def _stores(minilm: bool) -> dict[str, tuple[Any, Any]]:
    from ragline.embeddings import DeterministicFakeEmbedding, HashingEmbeddings

    class UserAsync(DeterministicFakeEmbedding):
        async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
            return await super().aembed_documents(texts)

        async def aembed_query(self, text: str) -> list[float]:
            return await super().aembed_query(text)

    models: dict[str, Any] = {
        "hashing": HashingEmbeddings(dimension=256),
        "fake": DeterministicFakeEmbedding(size=64),
        "user-async-fake": UserAsync(size=64),
    }
    if minilm:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from ragline.embeddings import SentenceTransformerEmbeddings

        models["minilm"] = SentenceTransformerEmbeddings()
    return models


async def _child(minilm: bool, per_case: int) -> dict[str, float]:
    from ragline.vectorstores import FAISS, InMemoryVectorStore

    result: dict[str, float] = {}
    for name, model in _stores(minilm).items():
        texts = TEXTS[:200] if name == "minilm" else TEXTS
        queries = QUERIES[: per_case // 4] if name == "minilm" else QUERIES[:per_case]
        memory = InMemoryVectorStore(model)
        await memory.aadd_texts(texts)
        faiss = await FAISS.afrom_texts(texts, model)
        for kind, store in (("in-memory", memory), ("faiss", faiss)):
            await store.asimilarity_search(queries[0], k=4)  # warm
            start = time.perf_counter()
            for query in queries:
                await store.asimilarity_search(query, k=4)
            result[f"{kind} {name}"] = (time.perf_counter() - start) / len(queries) * 1e6
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", default=[], help="a ragline checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-case", type=int, default=200, help="searches per case")
    parser.add_argument("--minilm", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_child(args.minilm, args.per_case))))
        return
    checkouts = [Path(c).resolve() for c in args.checkout or ["."]]
    best: dict[Path, dict[str, float]] = {c: {} for c in checkouts}
    print(f"load average at start: {os.getloadavg()}")
    for _ in range(args.rounds):
        for checkout in checkouts:
            command = [sys.executable, __file__, "--child", "--per-case", str(args.per_case)]
            if args.minilm:
                command.append("--minilm")
            out = subprocess.run(
                command, env=process_env(checkout), capture_output=True, text=True, check=True
            ).stdout
            for case, micros in json.loads(out.splitlines()[-1]).items():
                best[checkout][case] = min(best[checkout].get(case, float("inf")), micros)
    print(f"load average at end: {os.getloadavg()}")
    base = checkouts[0]
    print(f"{'case':28}" + "".join(f"{c.name[:18]:>20}" for c in checkouts) + "   ratio to first")
    for case in best[base]:
        row = "".join(f"{best[c].get(case, float('nan')):17.1f} µs" for c in checkouts)
        ratios = " ".join(f"x{best[c][case] / best[base][case]:.3f}" for c in checkouts[1:])
        print(f"{case:28}{row}   {ratios}")


if __name__ == "__main__":
    main()

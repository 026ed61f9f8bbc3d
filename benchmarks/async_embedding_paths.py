"""Async search through ragline's own embeddings before and after a change (issue 24).

703bbe1 made the async store paths await a user subclass's own ``aembed_documents`` /
``aembed_query``. ragline's own classes should be unaffected: this times
``await store.asimilarity_search(q, k=4)`` on InMemoryVectorStore (cosine) and FAISS
with HashingEmbeddings, DeterministicFakeEmbedding and the packaged MiniLM
(``--minilm``), plus a user subclass overriding the async methods (the new path), in
each checkout given, in child processes run alternately (the best of ``--rounds``
rounds per case). Prints µs per search per checkout and the ratio to the first, with
the load average. Rounds alternate the order (ABBA); give a checkout twice for a
control pair.

    python benchmarks/async_embedding_paths.py --checkout /tmp/before --checkout . [--minilm]
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from _timing import checkouts_parser, child_runs, fastest

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
    parser = checkouts_parser(__doc__.splitlines()[0], rounds=3, per_case="searches per case")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(_child(args.minilm, args.per_case))))
        return
    checkouts = [Path(c).resolve() for c in args.checkout or ["."]]
    slots = range(len(checkouts))  # a checkout given twice is timed twice (a control)
    child = ["--per-case", str(args.per_case), *(["--minilm"] if args.minilm else [])]
    best = [fastest(runs) for runs in child_runs(__file__, checkouts, child, rounds=args.rounds)]
    print(f"{'case':28}" + "".join(f"{c.name[:18]:>20}" for c in checkouts) + "   ratio to first")
    for case in best[0]:
        row = "".join(f"{best[slot].get(case, float('nan')):17.1f} µs" for slot in slots)
        ratios = " ".join(f"x{best[slot][case] / best[0][case]:.3f}" for slot in slots[1:])
        print(f"{case:28}{row}   {ratios}")


if __name__ == "__main__":
    main()

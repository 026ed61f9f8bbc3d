"""Embedding calls with and without a user override, before and after a change (issue 24).

ragline's own embeddings keep their array path; a subclass overriding ``embed_documents``
/ ``embed_query`` (calling the native method through ``super()``) is called by the stores
instead. For each checkout given, in child processes run alternately, this counts the
Python function calls (cProfile) of one call of each case and times it (the best of
``--rounds`` rounds, each the mean of ``--per-case`` calls): ``embed_documents`` of 100
texts, ``embed_query``, and ``similarity_search(q, k=4)`` over 1000 texts on
InMemoryVectorStore (cosine) and FAISS, with HashingEmbeddings, a prefix-adding subclass
of it (overriding the list methods), one overriding only ``embed_documents_array``
(whose inherited list methods call it), and the packaged MiniLM (``--minilm``) and its
prefix-adding subclass. Prints the load average, then per case the calls and µs per
checkout and the ratio to the first.
Rounds alternate the order (ABBA); give a checkout twice for a control pair.

    python benchmarks/embedding_overrides.py --checkout /tmp/before --checkout . [--minilm]
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from _timing import checkouts_parser, child_runs, fastest

TEXTS = [f"document {i} about topic {i % 37} and subject {i % 11}" for i in range(1000)]
QUERIES = [f"topic {i % 37} subject {i % 5}" for i in range(200)]


def _models(minilm: bool) -> dict[str, Any]:
    from ragline.embeddings import HashingEmbeddings

    class PrefixedHashing(HashingEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return super().embed_documents([f"passage: {text}" for text in texts])

        def embed_query(self, text: str) -> list[float]:
            return super().embed_query(f"query: {text}")

    class PrefixedHashingArrays(HashingEmbeddings):  # its list methods are inherited
        def embed_documents_array(self, texts: Sequence[str]) -> Any:
            return super().embed_documents_array([f"passage: {text}" for text in texts])

    models: dict[str, Any] = {
        "hashing": HashingEmbeddings(dimension=256),
        "user-hashing": PrefixedHashing(dimension=256),
        "user-hashing-arrays": PrefixedHashingArrays(dimension=256),
    }
    if minilm:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from ragline.embeddings import SentenceTransformerEmbeddings

        class PrefixedMiniLM(SentenceTransformerEmbeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return super().embed_documents([f"passage: {text}" for text in texts])

            def embed_query(self, text: str) -> list[float]:
                return super().embed_query(f"query: {text}")

        models["minilm"] = SentenceTransformerEmbeddings()
        models["user-minilm"] = PrefixedMiniLM()
    return models


def _calls(function: Callable[[], Any]) -> int:
    profile = cProfile.Profile()
    profile.runcall(function)
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def _child(minilm: bool, per_case: int) -> dict[str, list[float]]:
    from ragline.vectorstores import FAISS, InMemoryVectorStore

    result: dict[str, list[float]] = {}
    for name, model in _models(minilm).items():
        heavy = "minilm" in name
        texts = TEXTS[:200] if heavy else TEXTS
        runs = max(1, per_case // 10) if heavy else per_case
        documents = texts[:100]
        cases: dict[str, Callable[[int], Any]] = {
            "embed_documents(100)": lambda i, m=model, d=documents: m.embed_documents(d),
            "embed_query": lambda i, m=model: m.embed_query(QUERIES[i % len(QUERIES)]),
        }
        memory = InMemoryVectorStore(model)
        memory.add_texts(texts)
        faiss = FAISS.from_texts(texts, model)
        for kind, store in (("in-memory", memory), ("faiss", faiss)):
            cases[f"{kind} search"] = lambda i, s=store: s.similarity_search(
                QUERIES[i % len(QUERIES)], k=4
            )
        for case, call in cases.items():
            call(0)  # warm
            calls = _calls(lambda c=call: c(1))
            count = runs if case != "embed_documents(100)" else max(1, runs // 20)
            start = time.perf_counter()
            for i in range(count):
                call(i)
            result[f"{name}: {case}"] = [calls, (time.perf_counter() - start) / count * 1e6]
    return result


def main() -> None:
    parser = checkouts_parser(__doc__.splitlines()[0], rounds=5, per_case="calls per case")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.minilm, args.per_case)))
        return
    checkouts = [Path(c).resolve() for c in args.checkout or ["."]]
    slots = range(len(checkouts))  # a checkout given twice is timed twice (a control)
    child = ["--per-case", str(args.per_case), *(["--minilm"] if args.minilm else [])]
    runs = child_runs(__file__, checkouts, child, rounds=args.rounds)
    calls = [{case: int(figures[0]) for case, figures in slot[-1].items()} for slot in runs]
    best = [fastest([{case: f[1] for case, f in run.items()} for run in slot]) for slot in runs]
    names = "".join(f"{c.name[:16]:>26}" for c in checkouts)
    print(f"{'case (Python calls, µs best)':40}{names}   ratio to first")
    for case in best[0]:
        row = "".join(
            f"{calls[slot].get(case, 0):9d} {best[slot].get(case, float('nan')):13.1f} µs"
            for slot in slots
        )
        ratios = " ".join(f"x{best[slot][case] / best[0][case]:.3f}" for slot in slots[1:])
        print(f"{case:40}{row}   {ratios}")


if __name__ == "__main__":
    main()

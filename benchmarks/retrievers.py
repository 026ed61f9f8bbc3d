"""BM25 speed: ragline's numpy BM25Retriever against LangChain's (rank_bm25), same run.

Both get the same synthetic corpus (Zipf-distributed words, so a few terms are in most
documents and most are rare, as in real text), the same tokenizer (ragline's
lowercase word tokens, ``BM25Tokenizer()``) and the same k. Measured:

* **build**: ``BM25Retriever.from_texts`` on the corpus.
* **invoke**: one query at a time, queries per second.
* **batch**: ``retriever.batch(queries)`` (ragline scores the whole batch with one
  bincount per block; LangChain's runs ``invoke`` per query in threads).
* **hybrid** (ragline only): ``EnsembleRetriever`` over the BM25 retriever and an
  ``InMemoryVectorStore`` (``HashingEmbeddings(384)``, ``--hybrid-docs`` texts): ``batch``,
  which hands all queries to each child's batch (one embedding call), against a loop of
  ``invoke``.
* **agreement**: mean overlap of the top-k sets: 1.0, since ragline's default scores and
  ranks as rank_bm25 does (its idf with the epsilon floor, the k best whatever the score;
  ``idf="lucene", only_matching=True`` is ragline's own scoring).

Each timing is the median of ``--repeats`` runs, the two implementations interleaved.

Usage:
    .venv/bin/python benchmarks/retrievers.py [--docs 20000] [--queries 500] [--repeats 3]
                                              [--hybrid-docs 5000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

warnings.filterwarnings("ignore", category=DeprecationWarning)
from langchain_community.retrievers import BM25Retriever as LCBM25  # noqa: E402

from ragline.embeddings import HashingEmbeddings  # noqa: E402
from ragline.retrievers import BM25Retriever, BM25Tokenizer, EnsembleRetriever  # noqa: E402
from ragline.vectorstores import InMemoryVectorStore  # noqa: E402

K = 4
WORDS = BM25Tokenizer()  # lowercase word tokens, for both libraries (the default is str.split)


def make_texts(count: int, words_per_text: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(20000)])
    ranks = np.minimum(rng.zipf(1.3, size=(count, words_per_text)), len(vocabulary)) - 1
    return [" ".join(vocabulary[row]) for row in ranks]


def timed(job: Callable[[], object]) -> float:
    start = time.perf_counter()
    job()
    return time.perf_counter() - start


def interleave(repeats: int, jobs: dict[str, Callable[[], object]]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(repeats):
        for name, job in jobs.items():
            times[name].append(timed(job))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--hybrid-docs", type=int, default=5000)
    args = parser.parse_args()

    texts = make_texts(args.docs, 60, seed=1)
    queries = make_texts(args.queries, 4, seed=2)
    print(f"corpus: {args.docs} texts of 60 words, {args.queries} queries of 4 words, k={K}")

    built: dict[str, object] = {}
    builders = {
        "ragline": lambda: built.__setitem__(
            "ragline", BM25Retriever.from_texts(texts, k=K, preprocess_func=WORDS)
        ),
        "langchain": lambda: built.__setitem__(
            "langchain", LCBM25.from_texts(texts, k=K, preprocess_func=WORDS)
        ),
    }
    build = interleave(args.repeats, builders)
    ours, theirs = built["ragline"], built["langchain"]

    few = queries[: min(100, len(queries))]
    invoke = interleave(
        args.repeats,
        {
            "ragline": lambda: [ours.invoke(q) for q in few],  # type: ignore[attr-defined]
            "langchain": lambda: [theirs.invoke(q) for q in few],  # type: ignore[attr-defined]
        },
    )
    batch = interleave(
        args.repeats,
        {
            "ragline": lambda: ours.batch(queries),  # type: ignore[attr-defined]
            "langchain": lambda: theirs.batch(queries),  # type: ignore[attr-defined]
        },
    )

    ours_top = ours.batch(queries)  # type: ignore[attr-defined]
    theirs_top = theirs.batch(queries)  # type: ignore[attr-defined]
    overlap = statistics.mean(
        len({d.page_content for d in a} & {d.page_content for d in b}) / K
        for a, b in zip(ours_top, theirs_top, strict=True)
    )

    print(f"{'measure':<28}{'ragline':>12}{'langchain':>12}{'speed-up':>10}")
    rows = [
        ("build (s)", build["ragline"], build["langchain"]),
        ("invoke (queries/s)", len(few) / invoke["ragline"], len(few) / invoke["langchain"]),
        ("batch (queries/s)", len(queries) / batch["ragline"], len(queries) / batch["langchain"]),
    ]
    for name, mine, base in rows:
        ratio = base / mine if name.endswith("(s)") else mine / base
        print(f"{name:<28}{mine:>12.3f}{base:>12.3f}{ratio:>9.1f}x")
    print(f"top-{K} overlap with rank_bm25: {overlap:.3f}")

    hybrid_texts = texts[: args.hybrid_docs]
    store = InMemoryVectorStore.from_texts(hybrid_texts, HashingEmbeddings(dimension=384))
    hybrid = EnsembleRetriever(
        [
            BM25Retriever.from_texts(hybrid_texts, k=K, preprocess_func=WORDS),
            store.as_retriever(search_kwargs={"k": K}),
        ],
        weights=[0.5, 0.5],
    )
    hybrid_times = interleave(
        args.repeats,
        {
            "batch": lambda: hybrid.batch(queries),
            "invoke loop": lambda: [hybrid.invoke(q) for q in queries],
        },
    )
    print(
        f"hybrid BM25 + vectors over {len(hybrid_texts)} texts, {len(queries)} queries: "
        f"batch {len(queries) / hybrid_times['batch']:.0f} queries/s, invoke loop "
        f"{len(queries) / hybrid_times['invoke loop']:.0f} queries/s "
        f"({hybrid_times['invoke loop'] / hybrid_times['batch']:.1f}x)"
    )


if __name__ == "__main__":
    main()

"""Retrieval quality on the dev sets: dense, BM25, RRF hybrid, the old and the new default
hybrid (and keyword feedback), with LangChain's EnsembleRetriever beside them.

Per dev set (``benchmarks/devsets.py``: postgresql, django, devil, debfaq, debref, pyfaq,
handbook, harden, gitdoc; or any BEIR folder given by path), the documents (title + text)
are cut into chunks with ragline's ``RecursiveCharacterTextSplitter`` (1,000 characters,
overlap 150), every chunk keeping its document id; the packaged MiniLM embeds them
(``SentenceTransformerEmbeddings``, normalised, offline) through a
``CacheBackedEmbeddings`` over ``.cache/embeddings`` (the first run embeds, later runs
read the cache; ``.cache/`` is not committed). Each retriever returns ``--depth`` chunks
per query (default 30); a document ranks at its best chunk, and nDCG@10 / Recall@10 /
MRR@10 are taken over the first 10 documents (``ragline.evaluation``, equal to
pytrec_eval's). Latency is the mean time of one ``invoke`` per query, after an untimed
pass over the queries (so the first row does not pay for warming caches); the query
vectors come from the embedding cache for every retriever alike, so latency is the search
and fusion alone, not MiniLM. faiss runs on one OpenMP thread (LangChain's FAISS too: it
is the same library in this process).

Rows:

* ``dense``: the FAISS store's retriever (similarity).
* ``bm25``: ragline's BM25Retriever, lowercase word tokens (``BM25Tokenizer()``; the
  default, LangChain's, is ``str.split``; the same tokenizer is used for both libraries so
  the comparison is of the fusion), scored and cut as a store folder's keyword index is
  (``idf="lucene", only_matching=True``: only documents sharing a term with the query;
  the retriever's default is LangChain's rank_bm25 idf and always ``k`` documents).
* ``bm25 stem+stop``: ``BM25Tokenizer(stem=True, stopwords=True)`` (English Snowball).
* ``rrf hybrid``: ``EnsembleRetriever([bm25, dense], weights=[0.5, 0.5])``, LangChain's
  behaviour in ragline.
* ``old default hybrid``: ``HybridRetriever(fusion="relative_score", dense_weight=0.5,
  fetch_k=50)``, the default before issue 30 (over the plain ``bm25``, as a store
  folder's keyword index is by default).
* ``new default hybrid``: ``HybridRetriever`` with its defaults (adaptive fusion).
* ``new + keyword feedback`` / ``new + dense feedback``: the defaults with
  ``keyword_feedback="keyword"`` (RM3-style) or ``"dense"`` (``--no-feedback``: left out).
* ``langchain ensemble``: ``langchain_classic``/``langchain`` EnsembleRetriever over
  ``langchain_community`` BM25Retriever (rank_bm25, ragline's tokenizer) and FAISS (the same
  vectors), weights [0.5, 0.5] (``--no-langchain``: left out; it needs ``rank_bm25``).

After each set's table, ``fusion alone`` is the mean ms per query of the fusion step of the
old and the new default on the same candidate lists (searched once), and of what the
new default adds to a query: the two peaks alone, the keyword side's term coverage alone.

``--sweep`` also prints the grid the defaults were chosen from (dense weight x adaptivity x
candidates per side x peak depth x coverage), computed from each side's ranked lists without
re-running them, with the rule (no set more than 0.005 nDCG@10 below the better of dense
and BM25, nor below the old default; above the better one on average) and where the old
and new defaults rank.

Usage:
    .venv/bin/python benchmarks/retrieval_quality.py [SET_OR_FOLDER ...] [--depth 30]
                                                     [--sweep] [--no-langchain]
                                                     [--no-feedback]

Figures (one run with ``--sweep --no-langchain --no-feedback``, faiss on 1 OpenMP thread,
the shared 2-core machine at load average 13-15, so ms figures are noisy; quality figures
are the same in every run). nDCG@10 / Recall@10 / MRR@10 of the old and new default::

    set          dense  bm25   old default            new default
    postgresql   0.803  0.788  0.862 / 0.986 / 0.823  0.858 / 0.986 / 0.818
    django       0.789  0.783  0.885 / 1.000 / 0.849  0.897 / 1.000 / 0.864
    devil        0.892  0.982  0.987 / 1.000 / 0.982  0.987 / 1.000 / 0.982
    debfaq       0.816  0.620  0.828 / 0.956 / 0.788  0.842 / 0.956 / 0.806
    debref       0.843  0.683  0.863 / 0.978 / 0.826  0.895 / 0.978 / 0.868
    pyfaq        0.609  0.368  0.626 / 0.806 / 0.570  0.627 / 0.817 / 0.567
    handbook     0.605  0.335  0.580 / 0.822 / 0.503  0.628 / 0.867 / 0.554
    harden       0.787  0.619  0.857 / 0.933 / 0.833  0.864 / 0.956 / 0.836
    gitdoc       0.398  0.228  0.380 / 0.622 / 0.306  0.409 / 0.622 / 0.344
    mean         0.727  0.601  0.763                  0.779

    (rrf hybrid, mean 0.737: 0.845 0.860 0.969 0.814 0.817 0.609 0.556 0.823 0.344)

The old default falls below dense search on handbook (-0.025) and gitdoc (-0.018), issue
30's case. The new default is above the better of dense and BM25 on every set (+0.055,
+0.108, +0.005, +0.026, +0.052, +0.018, +0.023, +0.077, +0.011) and at most 0.004 below
the old default (postgresql). Sweep: 240 points (dense weight 0.45-0.6 x adaptivity 0-2 x
fetch_k 30/40/50 x coverage 0-1.5, peak over 20), 12 keep the rule; the default (0.5, 1,
50, 20, coverage 1) ranks 1st by mean margin (+0.041; the sweep's lists give gitdoc 0.406:
one batch of searches against the rows' one search per query, near-ties fall
differently). The same point without coverage breaks the rule on handbook (0.579).
Cost, ms per query in the same run: the peaks 0.004-0.27, the term coverage 0.04-0.33
(means under load); best of 15 passes in a quieter minute (handbook, pyfaq, gitdoc,
postgresql): peaks 0.003-0.004, coverage 0.016-0.067. Keyword feedback rows (measured
before the coverage, with the default of the time): neither kind helps on every set, so
feedback is off by default (docs/hybrid-search.md).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# one OpenMP thread in EVERY thread (omp_set_num_threads only sets the calling thread's;
# an ensemble runs a child on a worker thread), before anything loads faiss
os.environ["OMP_NUM_THREADS"] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from devsets import CACHE as DEVSET_CACHE
from devsets import load_devset

from ragline.core import Document, LocalFileStore
from ragline.evaluation import (
    Evaluation,
    evaluate_rankings,
    evaluate_retriever,
    format_table,
)
from ragline.retrievers import (
    BM25Retriever,
    BM25Tokenizer,
    EnsembleRetriever,
    HybridRetriever,
    adaptive_weights,
    score_fusion,
)
from ragline.retrievers._checks import copy_document
from ragline.retrievers._fusion import coverage_weights
from ragline.retrievers._hybrid import (
    DEFAULT_ADAPTIVITY,
    DEFAULT_COVERAGE,
    DEFAULT_DENSE_WEIGHT,
    DEFAULT_FETCH_K,
    PEAK_DEPTH,
)

REPO = Path(__file__).resolve().parent.parent
EMBEDDING_CACHE = REPO / ".cache" / "embeddings"
K = 10


def cached_minilm() -> Any:
    from ragline.embeddings import CacheBackedEmbeddings, SentenceTransformerEmbeddings

    model = SentenceTransformerEmbeddings(normalize_embeddings=True, batch_size=64)
    EMBEDDING_CACHE.mkdir(parents=True, exist_ok=True)
    return CacheBackedEmbeddings.from_bytes_store(
        model,
        LocalFileStore(EMBEDDING_CACHE),
        namespace="all-MiniLM-L6-v2-normalized-",
        query_embedding_cache=True,
        batch_size=512,
        key_encoder="sha256",  # the keys this cache was first written with
    )


def chunk_corpus(corpus: dict[str, dict[str, Any]]) -> list[Document]:
    from ragline.splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=150)
    chunks = []
    for doc_id, doc in corpus.items():
        text = f"{doc['title']}\n\n{doc['text']}" if doc.get("title") else doc["text"]
        for number, piece in enumerate(splitter.split_text(text)):
            chunks.append(Document(piece, {"doc_id": doc_id}, id=f"{doc_id}::{number}"))
    return chunks


# a store folder's keyword scoring (BM25Retriever's default is LangChain's)
RAGLINE_BM25: dict[str, Any] = {"idf": "lucene", "only_matching": True}


class Setup:
    """One dev set's chunks, store and BM25 indexes, built once."""

    def __init__(self, name: str, embeddings: Any, depth: int) -> None:
        from ragline.vectorstores import FAISS

        self.data = load_devset(name)
        self.name = self.data.name
        self.depth = depth
        self.chunks = chunk_corpus(self.data.corpus)
        start = time.perf_counter()
        vectors = embeddings.embed_documents_array([c.page_content for c in self.chunks])
        self.embed_seconds = time.perf_counter() - start
        self.vectors = vectors
        self.embeddings = embeddings
        self.store = FAISS.from_embeddings(
            [(c.page_content, v) for c, v in zip(self.chunks, vectors, strict=True)],
            embeddings,
            metadatas=[c.metadata for c in self.chunks],
            ids=[c.id for c in self.chunks],
            metric="cosine",
        )
        self.bm25 = BM25Retriever.from_documents(
            self.chunks, k=depth, preprocess_func=BM25Tokenizer(), **RAGLINE_BM25
        )
        self.bm25_stem = BM25Retriever.from_documents(
            self.chunks,
            k=depth,
            preprocess_func=BM25Tokenizer(stem=True, stopwords=True),
            **RAGLINE_BM25,
        )

    def evaluate(self, retriever: Any, label: str) -> Evaluation:
        for query in self.data.queries.values():  # untimed pass: no row pays the warm-up
            retriever.invoke(query)
        return evaluate_retriever(
            retriever, self.data.queries, self.data.qrels, k=K, id_key="doc_id", name=label
        )


def old_default(setup: Setup, **options: Any) -> HybridRetriever:
    """The hybrid default before issue 30: fixed equal weights, min-max, 50 per side."""
    return HybridRetriever(setup.store, setup.bm25, k=setup.depth, fusion="relative_score",
                           dense_weight=0.5, fetch_k=50, **options)  # fmt: skip


def ragline_rows(setup: Setup, *, feedback: bool = True) -> list[Evaluation]:
    dense = setup.store.as_retriever(search_kwargs={"k": setup.depth})
    rrf = EnsembleRetriever([setup.bm25, dense], weights=[0.5, 0.5])
    hybrid = HybridRetriever(setup.store, setup.bm25, k=setup.depth)
    rows = [
        setup.evaluate(dense, "dense"),
        setup.evaluate(setup.bm25, "bm25"),
        setup.evaluate(setup.bm25_stem, "bm25 stem+stop"),
        setup.evaluate(rrf, "rrf hybrid"),
        setup.evaluate(old_default(setup), "old default hybrid"),
        setup.evaluate(hybrid, "new default hybrid"),
    ]
    if feedback:
        for source in ("keyword", "dense"):
            with_feedback = HybridRetriever(
                setup.store, setup.bm25, k=setup.depth, keyword_feedback=source
            )
            rows.append(setup.evaluate(with_feedback, f"new + {source} feedback"))
    return rows


def fusion_cost(setup: Setup, repeat: int = 5) -> tuple[float, float, float, float]:
    """Mean ms per query of the fusion step alone (the two sides' lists searched once,
    then fused ``repeat`` times): old default, new default (with the keyword side's
    term coverage of the query), and what the new default adds to the old fusion: the
    two peaks alone, the keyword side's term coverage alone."""
    new = HybridRetriever(setup.store, setup.bm25, k=setup.depth)
    old = old_default(setup)
    queries = list(setup.data.queries.values())
    lists = [[side.invoke(query) for side in new._runners] for query in queries]
    costs = []
    for hybrid in (old, new):
        # the fusion writes its score into the documents: each run gets fresh copies
        copies = [
            (query, [[copy_document(d) for d in side] for side in pair])
            for _ in range(repeat + 1)
            for query, pair in zip(queries, lists, strict=True)
        ]
        hybrid._fuse_one(*copies.pop())  # warm
        start = time.perf_counter()
        for query, pair in copies:
            hybrid._fuse_one(query, pair)
        costs.append((time.perf_counter() - start) * 1000 / len(copies))
    scores = [[[d.metadata["relevance_score"] for d in side] for side in pair] for pair in lists]
    start = time.perf_counter()
    for _ in range(repeat):
        for pair_scores in scores:
            adaptive_weights(pair_scores, new.weights, strength=new.adaptivity, depth=PEAK_DEPTH)
    costs.append((time.perf_counter() - start) * 1000 / (repeat * len(scores)))
    start = time.perf_counter()
    for _ in range(repeat):
        for query, pair in zip(queries, lists, strict=True):
            new.keyword_coverage(query, pair[1])
    costs.append((time.perf_counter() - start) * 1000 / (repeat * len(scores)))
    return costs[0], costs[1], costs[2], costs[3]


def langchain_row(setup: Setup) -> Evaluation | None:
    try:
        from langchain_community.retrievers import BM25Retriever as LCBM25
        from langchain_community.vectorstores import FAISS as LCFAISS
        from langchain_core.documents import Document as LCDocument
        from langchain_core.embeddings import Embeddings as LCEmbeddings
    except ImportError as err:
        print(f"  (LangChain not installed: {err}; pip install 'ragline[bench]')")
        return None
    try:
        import rank_bm25  # noqa: F401  (LangChain's BM25Retriever needs it)
    except ImportError:
        print("  (langchain ensemble row left out: rank_bm25 is not installed; "
              "pip install rank-bm25, or 'ragline[dev]')")  # fmt: skip
        return None
    try:
        from langchain_classic.retrievers import EnsembleRetriever as LCEnsemble
    except ImportError:
        from langchain.retrievers import EnsembleRetriever as LCEnsemble  # type: ignore

    ours = setup.embeddings

    class Cached(LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return ours.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return ours.embed_query(text)

    documents = [
        LCDocument(page_content=c.page_content, metadata=dict(c.metadata), id=c.id)
        for c in setup.chunks
    ]
    bm25 = LCBM25.from_documents(documents, preprocess_func=BM25Tokenizer())
    bm25.k = setup.depth
    store = LCFAISS.from_embeddings(
        [(c.page_content, v.tolist()) for c, v in zip(setup.chunks, setup.vectors, strict=True)],
        Cached(),
        metadatas=[dict(c.metadata) for c in setup.chunks],
        ids=[c.id for c in setup.chunks],
    )
    dense = store.as_retriever(search_kwargs={"k": setup.depth})
    ensemble = LCEnsemble(retrievers=[bm25, dense], weights=[0.5, 0.5])

    class Adapter:
        """LangChain's retriever behind the evaluation's interface (invoke + get_name)."""

        def invoke(self, query: str) -> list[Document]:
            return [
                Document(d.page_content, dict(d.metadata), d.id) for d in ensemble.invoke(query)
            ]

        def get_name(self) -> str:
            return "langchain ensemble"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return setup.evaluate(Adapter(), "langchain ensemble")  # type: ignore[arg-type]


# ---------------------------------------------------------------- the sweep


def candidate_lists(setup: Setup, depth: int) -> dict[str, list[list[tuple[Document, float]]]]:
    """Per side, per query: the ``depth`` best chunks with their scores."""
    queries = list(setup.data.queries.values())
    dense = setup.store.as_retriever(search_kwargs={"k": depth}, score_key="s")
    lists: dict[str, list[list[tuple[Document, float]]]] = {
        "dense": [[(d, d.metadata["s"]) for d in docs] for docs in dense.batch(queries)]
    }
    for label, bm25 in (("bm25", setup.bm25), ("bm25 stem+stop", setup.bm25_stem)):
        wide = BM25Retriever(
            bm25.vectorizer,
            bm25.docs,
            k=depth,
            preprocess_func=bm25.preprocess_func,
            only_matching=True,
        )
        lists[label] = wide.search_with_scores(queries)
    return lists


def _doc_ranking(documents: Sequence[Document]) -> list[str]:
    return [d.metadata["doc_id"] for d in documents]


GRID = {
    "dense_weight": (0.45, 0.5, 0.55, 0.6),
    "adaptivity": (0.0, 0.5, 1.0, 1.5, 2.0),
    "fetch_k": (30, 40, 50),
    "peak_depth": (20,),
    "coverage": (0.0, 0.5, 1.0, 1.5),
}
OLD_POINT = (0.5, 0.0, 50, 20, 0.0)  # the old default: fixed equal weights, 50 per side
RULE = 0.005  # most nDCG@10 a set may lose against the better single side / the old default


def sweep(setup: Setup, lists: dict[str, Any]) -> dict[tuple[Any, ...], float]:
    """nDCG@10 of the single sides and of every grid point (dense weight, adaptivity,
    candidates per side, peak depth, coverage) of the adaptive min-max fusion;
    adaptivity 0 and coverage 0 is the fixed-weight fusion (``OLD_POINT``: the old
    default)."""
    data = setup.data
    query_ids = list(data.queries)
    results: dict[tuple[Any, ...], float] = {}
    # the keyword side's term coverage of each query (its first hits: the same in every
    # point, as fetch_k only cuts the lists further down)
    measure = HybridRetriever(setup.store, setup.bm25, k=setup.depth)
    coverages = [
        measure.keyword_coverage(query, [d for d, _ in lists["bm25"][i]])
        for i, query in enumerate(data.queries.values())
    ]

    def score(name: tuple[Any, ...], fuse: Callable[[int], list[Document]]) -> None:
        rankings = {q: _doc_ranking(fuse(i)) for i, q in enumerate(query_ids)}
        results[name] = evaluate_rankings(rankings, data.queries, data.qrels, k=K).ndcg

    for side in ("dense", "bm25"):
        score((side,), lambda i, side=side: [d for d, _ in lists[side][i]])
    for weight, adaptivity, fetch, depth, coverage in itertools.product(*GRID.values()):
        if adaptivity == 0 and depth != GRID["peak_depth"][0]:
            results[(weight, adaptivity, fetch, depth, coverage)] = results[
                (weight, adaptivity, fetch, GRID["peak_depth"][0], coverage)
            ]
            continue

        def fused(i: int, weight=weight, adaptivity=adaptivity, fetch=fetch, depth=depth,
                  coverage=coverage) -> list[Document]:  # fmt: skip
            pair = [lists["dense"][i][:fetch], lists["bm25"][i][:fetch]]
            weights = adaptive_weights(
                [[s for _, s in side] for side in pair],
                [weight, 1 - weight],
                strength=adaptivity,
                depth=depth,
            )
            if coverage:  # as HybridRetriever._fusion_weights
                weights = coverage_weights(weights, coverages[i], coverage)
            return [d for d, _ in score_fusion(pair, weights)]

        score((weight, adaptivity, fetch, depth, coverage), fused)
    return results


def choose(per_set: dict[str, dict[tuple[Any, ...], float]]) -> list[tuple[Any, ...]]:
    """Grid rows (mean margin, min margin, min vs old, point, values), those that keep
    the rule first (no set below the better single side, nor the old default, by more
    than RULE), each group by mean margin over the better single side."""
    names = list(per_set)
    best_single = {n: max(per_set[n][("dense",)], per_set[n][("bm25",)]) for n in names}
    old = {n: per_set[n][OLD_POINT] for n in names}
    rows = []
    for point in (key for key in per_set[names[0]] if len(key) == len(OLD_POINT)):
        values = [per_set[n][point] for n in names]
        margins = [v - best_single[n] for v, n in zip(values, names, strict=True)]
        against_old = [v - old[n] for v, n in zip(values, names, strict=True)]
        keeps = min(margins) >= -RULE and min(against_old) >= -RULE and statistics.fmean(
            margins) > 0  # fmt: skip
        rows.append((keeps, statistics.fmean(margins), min(margins), min(against_old), point,
                     values))  # fmt: skip
    rows.sort(key=lambda row: (not row[0], -row[1]))
    return rows


def print_sweep(per_set: dict[str, dict[tuple[Any, ...], float]], top: int = 25) -> None:
    names = list(per_set)
    rows = choose(per_set)
    print(
        f"\nsweep: nDCG@10 of adaptive min-max fusion, {len(rows)} points; margin = hybrid - "
        f"better of dense and bm25; rule: every margin and every change against the old "
        f"default >= -{RULE}, mean margin > 0 ({sum(r[0] for r in rows)} points keep it)"
    )
    columns = "  ".join(f"{n[:10]:>10}" for n in names)
    print(f"{'w':>4} {'adapt':>5} {'fetch':>5} {'depth':>5} {'cover':>5}  {columns}  mean margin"
          "  min margin  min vs old  rule")  # fmt: skip
    for keeps, mean_margin, min_margin, min_old, point, values in rows[:top]:
        weight, adaptivity, fetch, depth, coverage = point
        print(
            f"{weight:>4} {adaptivity:>5} {fetch:>5} {depth:>5} {coverage:>5}  "
            + "  ".join(f"{v:>10.3f}" for v in values)
            + f"  {mean_margin:>+11.3f}  {min_margin:>+10.3f}  {min_old:>+10.3f}  "
            + ("yes" if keeps else "no")
        )
    chosen = (DEFAULT_DENSE_WEIGHT, DEFAULT_ADAPTIVITY, DEFAULT_FETCH_K, PEAK_DEPTH,
              DEFAULT_COVERAGE)  # fmt: skip
    for label, point in (("old default", OLD_POINT), ("new default", chosen)):
        row = next((r for r in rows if r[4] == point), None)
        if row is None:
            print(f"{label}: {point} is not on the grid")
            continue
        print(
            f"{label}: w={point[0]} adaptivity={point[1]} fetch_k={point[2]} peak depth="
            f"{point[3]} coverage={point[4]}: "
            + ", ".join(f"{n} {v:.3f}" for n, v in zip(names, row[5], strict=True))
            + f"; mean margin {row[1]:+.3f}, min margin {row[2]:+.3f}, min vs old {row[3]:+.3f}"
            + f", rank {rows.index(row) + 1} of {len(rows)}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sets",
        nargs="*",
        default=[
            *("postgresql", "django", "devil", "debfaq", "debref", "pyfaq"),
            *("handbook", "harden", "gitdoc"),
        ],
    )
    parser.add_argument("--depth", type=int, default=30, help="chunks each retriever returns")
    parser.add_argument("--sweep", action="store_true", help="print the fusion grid too")
    parser.add_argument("--no-langchain", action="store_true")
    parser.add_argument(
        "--no-feedback", action="store_true", help="leave out the keyword feedback rows"
    )
    args = parser.parse_args(argv)
    import faiss

    # one OpenMP thread: a single query on a shared 2-core machine is 10x slower with two
    # (measured: dense 15-24 ms per query against 1.2-1.5 ms), which would rank by load
    faiss.omp_set_num_threads(1)
    embeddings = cached_minilm()
    sweeps: dict[str, dict[tuple[Any, ...], float]] = {}
    summary: list[tuple[str, list[Evaluation]]] = []
    print(f"dev sets under {DEVSET_CACHE}; embeddings cached in {EMBEDDING_CACHE}")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"faiss on 1 OpenMP thread; {os.cpu_count()} cores, load average {load}")
    for name in args.sets:
        setup = Setup(name, embeddings, args.depth)
        print(
            f"\n{setup.name}: {len(setup.data.corpus)} documents, {len(setup.chunks)} chunks, "
            f"{len(setup.data.queries)} queries (embedding/cache read {setup.embed_seconds:.1f} s)"
        )
        rows = ragline_rows(setup, feedback=not args.no_feedback)
        if not args.no_langchain:
            row = langchain_row(setup)
            if row is not None:
                rows.append(row)
        print(format_table(rows))
        old_ms, new_ms, peaks_ms, coverage_ms = fusion_cost(setup)
        print(
            f"fusion alone, ms per query: old default {old_ms:.3f}, new default {new_ms:.3f}; "
            f"the peaks alone {peaks_ms:.4f}, the term coverage alone {coverage_ms:.4f}"
        )
        summary.append((setup.name, rows))
        if args.sweep:
            sweeps[setup.name] = sweep(setup, candidate_lists(setup, 100))
    if len(summary) > 1:
        print("\nnDCG@10 summary")
        labels = [e.name for e in summary[0][1]]
        print(f"{'search':<24}" + "".join(f"{n[:12]:>13}" for n, _ in summary) + f"{'mean':>9}")
        for position, label in enumerate(labels):
            values = [rows[position].ndcg for _, rows in summary if position < len(rows)]
            print(
                f"{label:<24}" + "".join(f"{v:>13.3f}" for v in values)
                + f"{statistics.fmean(values):>9.3f}"
            )  # fmt: skip
    if sweeps:
        print_sweep(sweeps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

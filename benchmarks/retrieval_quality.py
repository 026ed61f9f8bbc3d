"""Retrieval quality on the dev sets: dense, BM25, RRF hybrid and the default hybrid, with
LangChain's EnsembleRetriever (its BM25Retriever + FAISS) on the same data beside them.

Per dev set (``benchmarks/devsets.py``; or any BEIR folder given by path), the documents
(title + text) are cut into chunks with ragline's ``RecursiveCharacterTextSplitter``
(1,000 characters, overlap 150), every chunk keeping its document id; the packaged MiniLM
embeds them (``SentenceTransformerEmbeddings``, normalised, offline) through a
``CacheBackedEmbeddings`` over ``.cache/embeddings`` (the first run embeds, later runs
read the cache). Each retriever returns ``--depth`` chunks per query (default 30); a
document ranks at its best chunk, and nDCG@10 / Recall@10 / MRR@10 are taken over the
first 10 documents (``ragline.evaluation``, equal to pytrec_eval's). Latency is the mean
time of one ``invoke`` per query, after an untimed pass over the queries (so the first
row does not pay for warming caches); the query vectors come from the embedding cache for
every retriever alike, so latency is the search and fusion alone, not MiniLM. faiss runs
on one OpenMP thread (LangChain's FAISS too: it is the same library in this process).

Rows:

* ``dense``: the FAISS store's retriever (similarity).
* ``bm25``: ragline's BM25Retriever, lowercase word tokens (LangChain's default tokenizer
  is ``str.split``; ragline's is used for both so the comparison is of the fusion).
* ``bm25 stem+stop``: ``BM25Tokenizer(stem=True, stopwords=True)`` (English Snowball).
* ``rrf hybrid``: ``EnsembleRetriever([bm25, dense], weights=[0.5, 0.5])``, LangChain's
  behaviour in ragline.
* ``default hybrid``: ``HybridRetriever`` with its defaults (over the plain ``bm25``, as a
  store folder's keyword index is by default).
* ``langchain ensemble``: ``langchain_classic``/``langchain`` EnsembleRetriever over
  ``langchain_community`` BM25Retriever (rank_bm25, ragline's tokenizer) and FAISS (the same
  vectors), weights [0.5, 0.5].

``--sweep`` also prints the grid the defaults were chosen from (fusion x dense weight x
candidates per side), computed from each side's ranked lists without re-running them.

Usage:
    .venv/bin/python benchmarks/retrieval_quality.py [SET_OR_FOLDER ...] [--depth 30]
                                                     [--sweep] [--no-langchain]

Figures (one run, faiss on 1 OpenMP thread, the shared 2-core machine at load average
1.6; quality figures are the same in every run). nDCG@10 / Recall@10 / MRR@10, mean ms
per query::

    postgresql          nDCG   R@10    MRR      ms
    dense              0.803  0.943  0.758    0.32
    bm25               0.788  0.929  0.741    0.24
    bm25 stem+stop     0.848  0.971  0.807    0.14
    rrf hybrid         0.845  0.971  0.804    0.72
    default hybrid     0.862  0.986  0.823    1.13
    langchain ensemble 0.826  0.943  0.788   15.37

    django
    dense              0.789  0.986  0.725    0.37
    bm25               0.783  0.900  0.746    0.23
    bm25 stem+stop     0.807  0.929  0.768    0.18
    rrf hybrid         0.860  1.000  0.815    0.90
    default hybrid     0.885  1.000  0.849    1.38
    langchain ensemble 0.844  0.986  0.798   18.92

    devil
    dense              0.892  0.982  0.863    0.18
    bm25               0.982  0.982  0.982    0.11
    bm25 stem+stop     0.965  0.982  0.960    0.10
    rrf hybrid         0.969  1.000  0.958    0.65
    default hybrid     0.987  1.000  0.982    0.91
    langchain ensemble 0.969  1.000  0.959    6.29

The default hybrid is above the better of dense and BM25 on every set (+0.059, +0.096,
+0.005; +0.053 on average) and above the stemmed BM25 too (+0.014, +0.078, +0.005). It
takes 50 candidates per side (RRF here: 30). Before the ensembles ran their children on
one shared pool they started two threads per query: 3.7-8.7 ms per hybrid query at load 3.
"""

from __future__ import annotations

import argparse
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
    score_fusion,
    weighted_reciprocal_rank,
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
        self.bm25 = BM25Retriever.from_documents(self.chunks, k=depth)
        self.bm25_stem = BM25Retriever.from_documents(
            self.chunks, k=depth, preprocess_func=BM25Tokenizer(stem=True, stopwords=True)
        )

    def evaluate(self, retriever: Any, label: str) -> Evaluation:
        for query in self.data.queries.values():  # untimed pass: no row pays the warm-up
            retriever.invoke(query)
        return evaluate_retriever(
            retriever, self.data.queries, self.data.qrels, k=K, id_key="doc_id", name=label
        )


def ragline_rows(setup: Setup) -> list[Evaluation]:
    dense = setup.store.as_retriever(search_kwargs={"k": setup.depth})
    rrf = EnsembleRetriever([setup.bm25, dense], weights=[0.5, 0.5])
    hybrid = HybridRetriever(setup.store, setup.bm25, k=setup.depth)
    return [
        setup.evaluate(dense, "dense"),
        setup.evaluate(setup.bm25, "bm25"),
        setup.evaluate(setup.bm25_stem, "bm25 stem+stop"),
        setup.evaluate(rrf, "rrf hybrid"),
        setup.evaluate(hybrid, "default hybrid"),
    ]


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
        from langchain_classic.retrievers import EnsembleRetriever as LCEnsemble
    except ImportError:
        from langchain.retrievers import EnsembleRetriever as LCEnsemble  # type: ignore

    from ragline.retrievers import default_preprocessing_func

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
    bm25 = LCBM25.from_documents(documents, preprocess_func=default_preprocessing_func)
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
            bm25.vectorizer, bm25.docs, k=depth, preprocess_func=bm25.preprocess_func
        )
        lists[label] = wide.search_with_scores(queries)
    return lists


def _doc_ranking(documents: Sequence[Document]) -> list[str]:
    return [d.metadata["doc_id"] for d in documents]


def sweep(setup: Setup, lists: dict[str, Any]) -> dict[tuple[Any, ...], float]:
    """nDCG@10 of every grid point: (keyword side, fusion, dense weight, candidates)."""
    data = setup.data
    query_ids = list(data.queries)
    results: dict[tuple[Any, ...], float] = {}

    def score(name: tuple[Any, ...], fuse: Callable[[int], list[Document]]) -> None:
        rankings = {q: _doc_ranking(fuse(i)) for i, q in enumerate(query_ids)}
        results[name] = evaluate_rankings(rankings, data.queries, data.qrels, k=K).ndcg

    for side in ("dense", "bm25", "bm25 stem+stop"):
        score((side,), lambda i, side=side: [d for d, _ in lists[side][i]])
    for keyword in ("bm25", "bm25 stem+stop"):
        for fetch in (10, 20, 30, 50, 100):
            for weight in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
                pair = (
                    lambda i, fetch=fetch: lists["dense"][i][:fetch],
                    lambda i, fetch=fetch, keyword=keyword: lists[keyword][i][:fetch],
                )
                for fusion in ("relative_score", "dbsf"):

                    def fused(i: int, pair=pair, weight=weight, fusion=fusion) -> list[Document]:
                        found = score_fusion(
                            [pair[0](i), pair[1](i)], [weight, 1 - weight], normalization=fusion
                        )
                        return [d for d, _ in found]

                    score((keyword, fusion, weight, fetch), fused)

                def rrf(i: int, pair=pair, weight=weight) -> list[Document]:
                    docs = [[d for d, _ in pair[0](i)], [d for d, _ in pair[1](i)]]
                    return weighted_reciprocal_rank(docs, [weight, 1 - weight])

                score((keyword, "rrf", weight, fetch), rrf)
    return results


def print_sweep(per_set: dict[str, dict[tuple[Any, ...], float]]) -> None:
    names = list(per_set)
    grid = [key for key in next(iter(per_set.values())) if len(key) == 4]
    best_part = {
        name: max(per_set[name][(s,)] for s in ("dense", "bm25", "bm25 stem+stop"))
        for name in names
    }
    rows = []
    for key in grid:
        values = [per_set[name][key] for name in names]
        margins = [v - best_part[name] for v, name in zip(values, names, strict=True)]
        rows.append((statistics.fmean(margins), min(margins), key, values))
    rows.sort(key=lambda row: (-row[1] >= 0, -row[0]))
    print("\nsweep: nDCG@10 per set; margin = hybrid - best single part (dense, bm25, stemmed)")
    print(f"{'keyword':<15} {'fusion':<15} {'w':>4} {'fetch':>5}  " + "  ".join(
        f"{n[:10]:>10}" for n in names) + "  mean margin  min margin")  # fmt: skip
    for mean_margin, min_margin, key, values in sorted(rows, key=lambda r: -r[0])[:25]:
        keyword, fusion, weight, fetch = key
        print(
            f"{keyword:<15} {fusion:<15} {weight:>4} {fetch:>5}  "
            + "  ".join(f"{v:>10.3f}" for v in values)
            + f"  {mean_margin:>+11.3f}  {min_margin:>+10.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", default=["postgresql", "django", "devil"])
    parser.add_argument("--depth", type=int, default=30, help="chunks each retriever returns")
    parser.add_argument("--sweep", action="store_true", help="print the fusion grid too")
    parser.add_argument("--no-langchain", action="store_true")
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
        rows = ragline_rows(setup)
        if not args.no_langchain:
            row = langchain_row(setup)
            if row is not None:
                rows.append(row)
        print(format_table(rows))
        summary.append((setup.name, rows))
        if args.sweep:
            sweeps[setup.name] = sweep(setup, candidate_lists(setup, 100))
    if len(summary) > 1:
        print("\nnDCG@10 summary")
        labels = [e.name for e in summary[0][1]]
        print(f"{'search':<20}" + "".join(f"{n[:12]:>13}" for n, _ in summary) + f"{'mean':>9}")
        for position, label in enumerate(labels):
            values = [rows[position].ndcg for _, rows in summary if position < len(rows)]
            print(
                f"{label:<20}" + "".join(f"{v:>13.3f}" for v in values)
                + f"{statistics.fmean(values):>9.3f}"
            )  # fmt: skip
    if sweeps:
        print_sweep(sweeps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

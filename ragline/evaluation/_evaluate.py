"""Evaluate any retriever on judged queries: nDCG@k, Recall@k, MRR@k and latency.

:func:`evaluate_retriever` runs each judged query through the retriever (``invoke``, one
at a time, timed), maps each returned Document to a document id (its ``id``, or
``metadata[id_key]``: a chunk maps to the document it was cut from, and only its best
chunk counts), and scores the ranking with the metrics of :mod:`._metrics` (equal to
pytrec_eval's). :func:`format_table` prints several evaluations side by side.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragline.core import Document, InvalidInputError, Runnable
from ragline.core._checks import check_choice, check_positive_int
from ragline.evaluation._formats import write_trec_run
from ragline.evaluation._metrics import mrr_at_k, ndcg_at_k, recall_at_k

__all__ = ["Evaluation", "QueryResult", "evaluate_rankings", "evaluate_retriever", "format_table"]


@dataclass(frozen=True)
class QueryResult:
    """One query's outcome.

    Attributes:
        query_id: the query's id.
        query: its text.
        ranked: the retrieved document ids, best first, each once.
        ndcg, recall, mrr: the metrics at the evaluation's ``k``.
        seconds: how long the retriever took (None for rankings read from a file).
    """

    query_id: str
    query: str
    ranked: list[str]
    ndcg: float
    recall: float
    mrr: float
    seconds: float | None = None


@dataclass(frozen=True)
class Evaluation:
    """The results of one retriever (or run) on a set of judged queries.

    The metric properties are means over the queries; a query the retriever found
    nothing for counts 0 (trec_eval would leave it out of the mean).
    """

    name: str
    k: int
    results: list[QueryResult] = field(repr=False)

    @property
    def ndcg(self) -> float:
        """Mean nDCG@k."""
        return math.fsum(r.ndcg for r in self.results) / len(self.results)

    @property
    def recall(self) -> float:
        """Mean Recall@k."""
        return math.fsum(r.recall for r in self.results) / len(self.results)

    @property
    def mrr(self) -> float:
        """Mean MRR@k."""
        return math.fsum(r.mrr for r in self.results) / len(self.results)

    def latency_ms(self, statistic: str = "mean") -> float | None:
        """Query latency in milliseconds: ``"mean"``, ``"p50"`` or ``"p95"`` (None when
        not timed)."""
        check_choice("statistic", statistic, ("mean", "p50", "p95"), error=InvalidInputError)
        times = sorted(r.seconds for r in self.results if r.seconds is not None)
        if not times:
            return None
        if statistic == "mean":
            return 1000 * math.fsum(times) / len(times)
        share = 0.5 if statistic == "p50" else 0.95
        # nearest-rank percentile: the smallest time with at least `share` at or below
        return 1000 * times[max(math.ceil(share * len(times)) - 1, 0)]

    def summary(self) -> dict[str, Any]:
        """The means as a JSON-ready dict (``ndcg@k``, ``recall@k``, ``mrr@k``, latency)."""
        k = self.k
        return {
            "name": self.name,
            "queries": len(self.results),
            f"ndcg@{k}": self.ndcg,
            f"recall@{k}": self.recall,
            f"mrr@{k}": self.mrr,
            "latency_ms_mean": self.latency_ms("mean"),
            "latency_ms_p95": self.latency_ms("p95"),
        }

    def per_query_rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per query: name, id, text, metrics, seconds, retrieved ids."""
        k = self.k
        return [
            {
                "name": self.name,
                "query_id": r.query_id,
                "query": r.query,
                f"ndcg@{k}": r.ndcg,
                f"recall@{k}": r.recall,
                f"mrr@{k}": r.mrr,
                "seconds": r.seconds,
                "retrieved": r.ranked,
            }
            for r in self.results
        ]

    def write_per_query(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`per_query_rows` as JSON Lines."""
        write_jsonl(path, self.per_query_rows())

    def write_trec_run(self, path: str | os.PathLike[str]) -> None:
        """Write the rankings as a TREC run file (tag: the evaluation's name)."""
        runs = {r.query_id: r.ranked for r in self.results}
        write_trec_run(path, runs, tag="".join(self.name.split()) or "ragline")


def write_jsonl(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """Write one JSON object per line (UTF-8, not ASCII-escaped)."""
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _judged_queries(
    queries: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]]
) -> list[str]:
    missing = [query_id for query_id in qrels if query_id not in queries]
    if missing:
        raise InvalidInputError(
            f"the qrels judge {len(missing)} queries the queries lack (e.g. {missing[0]!r})"
        )
    judged = [query_id for query_id in queries if query_id in qrels]
    if not judged:
        raise InvalidInputError("no query has judgements in the qrels: nothing to evaluate")
    return judged


def evaluate_rankings(
    rankings: Mapping[str, Sequence[str]],
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    k: int = 10,
    name: str = "run",
    seconds: Mapping[str, float] | None = None,
) -> Evaluation:
    """Score ready rankings (query id -> document ids, best first), e.g. a TREC run file.

    A judged query missing from ``rankings`` counts 0.

    Example:
        >>> e = evaluate_rankings({"q": ["b", "a"]}, {"q": "text"}, {"q": {"a": 1}}, k=10)
        >>> round(e.ndcg, 4), e.recall, e.mrr
        (0.6309, 1.0, 0.5)
    """
    check_positive_int("k", k)
    results = []
    for query_id in _judged_queries(queries, qrels):
        ranked = list(dict.fromkeys(rankings.get(query_id, ())))
        judged = qrels[query_id]
        results.append(
            QueryResult(
                query_id,
                queries[query_id],
                ranked,
                ndcg_at_k(ranked, judged, k),
                recall_at_k(ranked, judged, k),
                mrr_at_k(ranked, judged, k),
                None if seconds is None else seconds.get(query_id),
            )
        )
    return Evaluation(name, k, results)


def evaluate_retriever(
    retriever: Runnable[str, list[Document]],
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    k: int = 10,
    id_key: str | None = None,
    name: str | None = None,
    warm_up: bool = True,
) -> Evaluation:
    """Run every judged query through ``retriever`` and score the rankings.

    Args:
        retriever: any retriever (a Runnable from a query to a list of Documents). When
            documents were split into chunks, let it return more than ``k`` chunks: the
            ranking keeps each document's best chunk only.
        queries: query id -> text (e.g. :func:`load_queries`).
        qrels: query id -> {document id: grade} (e.g. :func:`load_qrels`). Queries without
            judgements are skipped.
        k: the metrics' cutoff.
        id_key: the metadata key holding a returned Document's document id (None: its
            ``id``).
        name: a label for tables (default: the retriever's name).
        warm_up: run the first query once, untimed, before timing (a model loads on its
            first use).

    Returns:
        The :class:`Evaluation` (means, latency, per-query results).

    Raises:
        InvalidInputError: k < 1, qrels judging queries the queries lack, nothing to
            evaluate, or a returned Document without the id the key names.

    Example:
        >>> from ragline.retrievers import BM25Retriever
        >>> retriever = BM25Retriever.from_texts(
        ...     ["red fox", "blue whale", "red whale"], ids=["fox", "whale", "red-whale"], k=2
        ... )
        >>> result = evaluate_retriever(
        ...     retriever, {"q1": "blue whale", "q2": "fox"}, {"q1": {"whale": 1}, "q2": {"fox": 1}}
        ... )
        >>> result.ndcg, result.mrr
        (1.0, 1.0)
    """
    check_positive_int("k", k)
    if id_key is not None and not isinstance(id_key, str):
        raise InvalidInputError(f"id_key must be a str or None, got {id_key!r}")
    judged = _judged_queries(queries, qrels)
    if warm_up:
        retriever.invoke(queries[judged[0]])
    rankings: dict[str, list[str]] = {}
    seconds: dict[str, float] = {}
    for query_id in judged:
        start = time.perf_counter()
        documents = retriever.invoke(queries[query_id])
        seconds[query_id] = time.perf_counter() - start
        rankings[query_id] = [_document_id(document, id_key) for document in documents]
    label = name if name is not None else retriever.get_name()
    return evaluate_rankings(rankings, queries, qrels, k=k, name=label, seconds=seconds)


def _document_id(document: Document, id_key: str | None) -> str:
    value = document.id if id_key is None else document.metadata.get(id_key)
    if value is None:
        where = "an id" if id_key is None else f"metadata[{id_key!r}]"
        raise InvalidInputError(
            f"a retrieved document has no {where} to match the qrels against: {document!r:.120}"
        )
    return str(value)


def format_table(evaluations: Sequence[Evaluation], *, title: str | None = None) -> str:
    """Several evaluations side by side: nDCG@k, Recall@k, MRR@k, mean and p95 latency.

    Example:
        >>> e = evaluate_rankings({"q": ["a"]}, {"q": "t"}, {"q": {"a": 1}}, name="bm25")
        >>> print(format_table([e]))
        search        nDCG@10  Recall@10  MRR@10   ms/query    p95 ms
        bm25            1.000      1.000   1.000          -         -
    """
    if not evaluations:
        return ""
    k = evaluations[0].k
    width = max(12, *(len(e.name) for e in evaluations))
    head = (
        f"{'search':<{width}}  {f'nDCG@{k}':>7}  {f'Recall@{k}':>9}  {f'MRR@{k}':>6}"
        f"  {'ms/query':>9}  {'p95 ms':>8}"
    )
    lines = [title] if title else []
    lines.append(head)
    for e in evaluations:
        mean, p95 = e.latency_ms("mean"), e.latency_ms("p95")
        lines.append(
            f"{e.name:<{width}}  {e.ndcg:>7.3f}  {e.recall:>9.3f}  {e.mrr:>6.3f}"
            f"  {_ms(mean):>9}  {_ms(p95):>8}"
        )
    return "\n".join(lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"

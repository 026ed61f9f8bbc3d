"""``ragline eval``: retrieval measured on judged queries (nDCG@k, Recall@k, MRR@k).

Several search types side by side over one store folder; the work is
:func:`ragline.evaluation.evaluate_retriever`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from ragline.cli._common import (
    SEARCH_TYPES,
    CommandError,
    Commands,
    default_score_threshold,
    note,
    warn,
)
from ragline.cli._search import add_fusion_option


def add_eval_command(commands: Commands) -> None:
    evaluate = commands.add_parser(
        "eval", help="measure retrieval on judged queries: nDCG@k, Recall@k, MRR@k, latency"
    )
    evaluate.add_argument("--store", required=True, help="folder written by 'ragline index'")
    evaluate.add_argument(
        "--queries", required=True, help="BEIR queries.jsonl, or 'id<TAB>text' lines"
    )
    evaluate.add_argument(
        "--qrels", required=True, help="judgements: BEIR qrels .tsv or TREC qrels"
    )
    evaluate.add_argument(
        "--search-type",
        action="append",
        choices=SEARCH_TYPES,
        help="repeat to compare several side by side (default: similarity, bm25, hybrid)",
    )
    add_fusion_option(evaluate)
    evaluate.add_argument("-k", type=int, default=10, help="the metrics' cutoff (default: 10)")
    evaluate.add_argument(
        "--depth",
        type=int,
        default=None,
        help="chunks retrieved per query (default: 3k); a document ranks at its best chunk",
    )
    evaluate.add_argument(
        "--id-key",
        default="path",
        help="the chunk metadata holding the document ids the qrels name (default: path, "
        "the file relative to the indexed folder; 'id' for chunk ids)",
    )
    evaluate.add_argument("--per-query", metavar="FILE", help="write per-query results (JSONL)")
    evaluate.add_argument("--runs", metavar="DIR", help="write one TREC run per search type")
    evaluate.add_argument("--json", action="store_true", help="print the summary as JSON")
    evaluate.set_defaults(handler=command_eval)


def command_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragline.evaluation import evaluate_retriever, format_table, load_qrels, load_queries
    from ragline.store_folder import StoreFolder

    if args.k < 1 or (args.depth is not None and args.depth < 1):
        raise CommandError("-k and --depth must be at least 1")
    search_types = args.search_type or ["similarity", "bm25", "hybrid"]
    if args.fusion is not None and "hybrid" not in search_types:
        raise CommandError("--fusion goes with --search-type hybrid")
    queries, qrels = load_queries(args.queries), load_qrels(args.qrels)
    folder = StoreFolder(args.store)
    store = folder.open_store()
    depth = args.depth or 3 * args.k
    id_key = None if args.id_key == "id" else args.id_key
    check_qrels_ids(qrels, store, id_key)
    evaluations = []
    for search_type in search_types:
        kwargs: dict[str, Any] = {"k": depth}
        if search_type == "hybrid" and args.fusion is not None:
            kwargs["fusion"] = args.fusion
        if search_type == "similarity_score_threshold":
            kwargs["score_threshold"] = default_score_threshold(folder.read_manifest().embedding)
        retriever = folder.as_retriever(search_type=search_type, search_kwargs=kwargs, store=store)
        note(args, f"{search_type}: {len(qrels)} queries ...")
        evaluations.append(
            evaluate_retriever(retriever, queries, qrels, k=args.k, id_key=id_key, name=search_type)
        )
    if args.per_query:
        from ragline.evaluation._evaluate import write_jsonl

        write_jsonl(args.per_query, [row for e in evaluations for row in e.per_query_rows()])
    if args.runs:
        Path(args.runs).mkdir(parents=True, exist_ok=True)
        for evaluation in evaluations:
            evaluation.write_trec_run(Path(args.runs) / f"{evaluation.name}.trec")
    if args.json:
        print(json.dumps([e.summary() for e in evaluations], indent=2))
    else:
        print(format_table(evaluations, title=f"{len(evaluations[0].results)} judged queries"))
    return 0


def check_qrels_ids(qrels: Mapping[str, Mapping[str, int]], store: Any, id_key: str | None) -> None:
    """Warn about the qrels' document ids no stored chunk carries (under ``id_key``; None:
    the chunk ids), showing what the stored ids look like; when none matches, every score
    would be 0.000, so that is an error instead.

    Raises:
        CommandError: no judged document id matches a stored chunk.
    """
    snapshot = store.snapshot()
    if id_key is None:
        stored = {str(chunk_id) for chunk_id in snapshot.ids}
    else:
        stored = {str(m[id_key]) for m in snapshot.metadatas if m.get(id_key) is not None}
    judged = {document for judgements in qrels.values() for document in judgements}
    unmatched = sorted(judged - stored)
    if not unmatched:
        return
    where = "chunk id" if id_key is None else f"chunk's {id_key!r} metadata"
    shown = ", ".join(map(repr, unmatched[:5])) + (", ..." if len(unmatched) > 5 else "")
    examples = ", ".join(map(repr, sorted(stored)[:3]))
    looks = f"stored ids look like {examples}" if stored else f"no stored chunk has a {where}"
    message = (
        f"{len(unmatched)} of the {len(judged)} document ids in the qrels match no {where} "
        f"in the store ({shown}); {looks}"
    )
    if len(unmatched) == len(judged):
        raise CommandError(f"{message}; every score would be 0 (check --qrels and --id-key)")
    warn(message)

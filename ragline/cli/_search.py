"""The search options of ``query``, ``ask`` and ``chat``, and the retriever they ask for.

``search_kwargs`` turns the options into a retriever's ``search_kwargs`` (the same dict a
``ragline serve`` client sends); ``folder_retriever`` opens the store folder and builds the
retriever over it.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ragline.cli._common import (
    HYBRID_FUSIONS,
    SEARCH_TYPES,
    CommandError,
    add_embedding_option,
    default_score_threshold,
)
from ragline.core import InvalidInputError

if TYPE_CHECKING:
    from ragline.core import BaseRetriever


def add_search_options(sub: argparse.ArgumentParser) -> None:
    """The options every command that retrieves from a store takes."""
    sub.add_argument(
        "--store", default=None, help="folder written by 'ragline index' (or give --server)"
    )
    sub.add_argument(
        "--server",
        default=None,
        metavar="URL",
        help="ask a running 'ragline serve' at URL instead of loading the store "
        "(default without --store: $RAGLINE_SERVER)",
    )
    add_embedding_option(
        sub,
        "embed the query with this (%(choices)s; default: what the store was built with); "
        "it must give the same vectors",
    )
    sub.add_argument("-k", type=int, default=4, help="how many chunks to retrieve (default: 4)")
    sub.add_argument(
        "--search-type",
        choices=SEARCH_TYPES,
        default="similarity",
        help="similarity (default), mmr, similarity_score_threshold, bm25 (keywords) or "
        "hybrid (vectors and keywords fused by score)",
    )
    sub.add_argument(
        "--score-threshold",
        type=float,
        default=None,
        help="similarity_score_threshold: the lowest relevance kept (default: 0.70 for "
        "MiniLM stores, 0.5 otherwise)",
    )
    sub.add_argument(
        "--fetch-k",
        type=int,
        default=None,
        help="mmr: candidates to pick from (default: max(20, 2k)); hybrid: candidates per "
        "side (default: max(40, k))",
    )
    add_fusion_option(sub)
    sub.add_argument(
        "--filter", default=None, help='metadata filter as JSON, e.g. {"path": "a.txt"}'
    )
    sub.add_argument(
        "--source",
        default=None,
        metavar="PATTERN",
        help="only chunks of files whose path (relative to the indexed folder) matches this "
        "shell pattern, e.g. 'library/csv*'",
    )
    sub.add_argument("--width", type=int, default=12, help="lines of each chunk to show (0: all)")


def add_fusion_option(sub: argparse.ArgumentParser) -> None:
    """``--fusion``: how hybrid search fuses its two sides (query, ask, chat and eval)."""
    sub.add_argument(
        "--fusion",
        choices=HYBRID_FUSIONS,
        default=None,
        help="hybrid: how the two sides' lists are fused: adaptive (default: min-max scores "
        "weighted per query by how peaked each side is), relative_score (min-max, fixed "
        "equal weights: the default before issue 30), dbsf (scores scaled by their spread) "
        "or rrf (ranks only)",
    )


def search_kwargs(args: argparse.Namespace, embedding: str | None = None) -> dict[str, Any]:
    """The retriever's ``search_kwargs`` the search options ask for (``embedding``: the
    store's, for the default score threshold)."""
    kwargs: dict[str, Any] = {"k": args.k}
    if args.filter:
        try:
            kwargs["filter"] = json.loads(args.filter)
        except json.JSONDecodeError as err:
            raise CommandError(f"--filter is not valid JSON: {err}") from None
    if args.search_type == "similarity_score_threshold":
        kwargs["score_threshold"] = (
            args.score_threshold
            if args.score_threshold is not None
            else default_score_threshold(embedding)
        )
    elif args.score_threshold is not None:
        raise CommandError("--score-threshold goes with --search-type similarity_score_threshold")
    if args.search_type == "mmr":
        k = args.k if isinstance(args.k, int) else 0
        kwargs["fetch_k"] = args.fetch_k if args.fetch_k is not None else max(20, 2 * k)
        if args.fetch_k is not None and isinstance(args.k, int) and args.fetch_k < args.k:
            # the library warns and returns fetch_k documents (LangChain's result); a
            # command line asking for k documents gets told instead
            raise CommandError(f"--fetch-k ({args.fetch_k}) must be at least -k ({args.k})")
    elif args.search_type == "hybrid" and args.fetch_k is not None:
        kwargs["fetch_k"] = args.fetch_k
    elif args.fetch_k is not None:
        raise CommandError("--fetch-k goes with --search-type mmr or hybrid")
    fusion = getattr(args, "fusion", None)
    if fusion is not None:
        if args.search_type != "hybrid":
            raise CommandError("--fusion goes with --search-type hybrid")
        kwargs["fusion"] = fusion
    return kwargs


def folder_retriever(args: argparse.Namespace) -> tuple[BaseRetriever, str]:
    """The retriever the search options ask for, and the store's embedding name."""
    from ragline.store_folder import StoreFolder, source_filter

    folder = StoreFolder(args.store)
    manifest = folder.read_manifest()
    store = folder.open_store(embedding=args.embedding)
    kwargs = search_kwargs(args, manifest.embedding)
    if args.source:
        try:
            by_source = source_filter(store, args.source)
        except InvalidInputError as err:
            raise CommandError(f"--source {err}") from None
        given = kwargs.get("filter")
        kwargs["filter"] = {"$and": [given, by_source]} if given else by_source
    retriever = folder.as_retriever(search_type=args.search_type, search_kwargs=kwargs, store=store)
    return retriever, manifest.embedding


def no_results_hint(args: argparse.Namespace) -> str:
    """Why a search found nothing, when a filter is the likely reason."""
    if args.filter:
        return (
            "no results: no chunk matches --filter (metadata keys of indexed chunks include "
            "'source' (the absolute file path), 'path' (relative to the indexed folder) and "
            "'start_index'; --source 'pattern' matches paths)"
        )
    if args.search_type == "similarity_score_threshold":
        return "no results above the score threshold (lower it with --score-threshold)"
    if args.search_type == "bm25":
        return "no results: no chunk shares a word with the query (try --search-type hybrid)"
    return "no results"

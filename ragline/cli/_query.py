"""``ragline query``: the chunks most similar to a text, with their scores and sources."""

from __future__ import annotations

import argparse
import json

from ragline.cli._common import (
    DEFAULT_SCORE_THRESHOLDS,
    Commands,
    indent,
    location,
    place,
    require_text,
)
from ragline.cli._remote import remote_search, server_url
from ragline.cli._search import add_search_options, folder_retriever, no_results_hint

SCORE_MEANINGS = {
    "similarity": "relevance in [0, 1] = (1 + cosine) / 2",
    "similarity_score_threshold": "relevance in [0, 1] = (1 + cosine) / 2",
    "mmr": "relevance in [0, 1] = (1 + cosine) / 2 (ranked by MMR: relevance and diversity)",
    "bm25": "BM25 keyword score (unbounded; compare within one query only)",
    "hybrid": "fused score in [0, 1]: dense and BM25 scores, each scaled so that this "
    "query's best candidate is 1, weighted per query (0.5 dense to start; the side whose "
    "best candidate stands out from its others gets more, BM25 less when its first hits "
    "miss some of the query's rarer words)",
}
MINILM_SCALE = "with MiniLM, unrelated text scores about 0.55-0.70, an answering passage 0.70-0.90"


def add_query_command(commands: Commands) -> None:
    query = commands.add_parser("query", help="print the chunks most similar to a text")
    query.add_argument("text")
    add_search_options(query)
    query.add_argument("--json", action="store_true", help="print the results as JSON")
    query.set_defaults(handler=command_query)


def command_query(args: argparse.Namespace) -> int:
    require_text("query text", args.text, hint="give the words to search for")
    server = server_url(args)
    if server is not None:
        documents, embedding = remote_search(server, args.text, args)
    else:
        from ragline.vectorstores.faiss._files import deferred_checks

        # one shot: the background checksum of a large store's files could not finish
        # before the command exits, and its reads slow the cold search (docs/scale.md)
        with deferred_checks():
            retriever, embedding = folder_retriever(args)
        documents = retriever.invoke(args.text)
    results = [(document, document.metadata.pop("relevance_score", None)) for document in documents]
    if args.json:
        rows = [
            {
                "rank": rank,
                "score": score,
                "id": document.id,
                "source": place(document)[0],
                "section": place(document)[1],
                "metadata": document.metadata,
                "content": document.page_content,
            }
            for rank, (document, score) in enumerate(results, 1)
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not results:
        print(no_results_hint(args))
        return 0
    meaning = SCORE_MEANINGS[args.search_type]
    if args.search_type not in ("bm25", "hybrid") and embedding in DEFAULT_SCORE_THRESHOLDS:
        meaning += f"; {MINILM_SCALE}"
    print(f"score: {meaning}\n")
    for rank, (document, score) in enumerate(results, 1):
        shown = "" if score is None else f"  score {score:.3f}"
        print(f"[{rank}]{shown}  {location(document)}")
        print(indent(document.page_content, args.width))
        print()
    return 0

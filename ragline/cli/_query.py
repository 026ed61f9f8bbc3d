"""``ragline query``: the chunks most similar to a text, with their scores and sources."""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any

from ragline.cli._common import (
    DEFAULT_SCORE_THRESHOLDS,
    Commands,
    indent,
    location,
    passage_row,
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


def prepare_query_model(store: str, embedding: str | None) -> Callable[[], None] | None:
    """Ready a store's local MiniLM up to its ONNX session; the function that opens it.

    A cold MiniLM query imports ONNX Runtime, reads the tokenizer, then reads a 90 MB
    model file and builds an ONNX Runtime session (docs/scale.md). The first steps hold
    Python's GIL and are done here; the session is built by the returned function, which
    releases the GIL while it works, so it runs in a thread while the store opens. What
    is loaded is kept in the embeddings module's shared caches (tokenizer, session),
    where the store's own Embeddings find it: the vectors are the same. Nothing else is
    loaded: no export is made (the query makes it, as before), no torch model. None:
    nothing to load; any error is left to the command's own path, which meets it again
    and reports it.
    """
    from ragline.store_folder import StoreFolder
    from ragline.store_folder._embeddings import MINILM_NAMES, same_vectors_names

    try:
        manifest = StoreFolder(store).read_manifest()
        name = embedding or manifest.embedding
        if name not in MINILM_NAMES or not same_vectors_names(name, manifest.embedding):
            return None
        from ragline.core._optional import require
        from ragline.embeddings import _onnx
        from ragline.store_folder._embeddings import make_embeddings

        model: Any = make_embeddings(name, manifest.embedding_options)
        if model.backend != "onnx":
            return None
        digest = model.weights_sha256
        if digest is None or not _onnx.export_path(digest, model.precision).is_file():
            return None
        model.client  # noqa: B018  (the tokenizer, read now: it holds the GIL)
        require("onnxruntime", "onnx")
    except Exception:  # the command meets the same error on its own path and reports it
        return None

    def open_session() -> None:
        with contextlib.suppress(Exception):  # as above: the command reports it
            model.warm_up()

    return open_session


def start_model_load(args: argparse.Namespace) -> threading.Thread | None:
    """Start building the query model's session in a thread (None: nothing to load)."""
    if args.search_type == "bm25" or args.store is None:
        return None
    open_session = prepare_query_model(args.store, args.embedding)
    if open_session is None:
        return None
    thread = threading.Thread(target=open_session, name="ragline-query-model", daemon=True)
    thread.start()
    return thread


def command_query(args: argparse.Namespace) -> int:
    require_text("query text", args.text, hint="give the words to search for")
    server = server_url(args)
    if server is not None:
        documents, embedding = remote_search(server, args.text, args)
    else:
        from ragline.vectorstores.faiss._files import deferred_checks

        loading = start_model_load(args)
        try:
            # one shot: the background checksum of a large store's files could not finish
            # before the command exits, and its reads slow the cold search (docs/scale.md)
            with deferred_checks():
                retriever, embedding = folder_retriever(args)
            documents = retriever.invoke(args.text)
        finally:
            if loading is not None:
                loading.join()
    results = [(document, document.metadata.pop("relevance_score", None)) for document in documents]
    if args.json:
        rows = [
            passage_row(rank, document, score=score)
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

"""``--server URL``: ``query``, ``ask`` and ``chat`` asking a running ``ragline serve``.

The requests carry the same search options a local run uses (``search_kwargs``) and go
through the standard-library client of ``ragline.serve._light``, so a remote query loads
no model, no store and no HTTP library. The API key, if any, is ``$RAGLINE_API_KEY``.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ragline.cli._common import (
    NO_ANSWER_STATUS,
    CommandError,
    collect_answer,
    print_answer,
    print_answer_json,
    print_passages,
    questions,
)
from ragline.cli._search import search_kwargs
from ragline.core import Document, RaglineError


def server_url(args: argparse.Namespace) -> str | None:
    """The server a retrieving command asks: ``--server``, else ``$RAGLINE_SERVER`` when
    no ``--store`` is given; None means the local store."""
    if args.server:
        if args.store:
            raise CommandError("give --store or --server, not both")
        url = args.server
    elif args.store:
        return None
    else:
        url = os.environ.get("RAGLINE_SERVER")
        if not url:
            raise CommandError("--store DIR is required (or --server URL, or set RAGLINE_SERVER)")
    if args.embedding:
        raise CommandError("--embedding goes with --store; a server embeds with its own")
    return url.rstrip("/")


def _server_headers() -> dict[str, str]:
    key = os.environ.get("RAGLINE_API_KEY")
    return {"X-API-Key": key} if key else {}


def _search_request(
    server: str, args: argparse.Namespace, **query: str
) -> tuple[dict[str, Any], str]:
    """The search options as a request to the server, and the server's embedding name
    (which decides the default score threshold, as the store's does locally)."""
    from ragline.serve._light import get

    if args.source:
        raise CommandError("--source goes with --store (use --filter with --server)")
    if getattr(args, "fusion", None) is not None:
        raise CommandError("--fusion goes with --store (a server's hybrid uses its defaults)")
    embedding = str(get(f"{server}/healthz", headers=_server_headers())["embedding"])
    request = {**query, "search_type": args.search_type, **search_kwargs(args, embedding)}
    return request, embedding


def remote_search(server: str, text: str, args: argparse.Namespace) -> tuple[list[Document], str]:
    """``query --server``: the documents the server's /retrieve finds (each with its
    relevance in ``metadata["relevance_score"]``), and the server's embedding name."""
    from ragline.serve._light import post

    request, embedding = _search_request(server, args, query=text)
    answer = post(f"{server}/retrieve/invoke", {"input": request}, headers=_server_headers())
    return list(answer["output"]), embedding


def _no_model(err: RaglineError) -> bool:
    """Whether the server refused because it has no chat model (its /ask and /chat
    answer 503 then; /retrieve still works)."""
    return getattr(err, "status_code", None) == 503


def remote_ask(server: str, args: argparse.Namespace) -> int:
    """``ask --server``: the server's /ask, streamed (its model and chain answer)."""
    from ragline.serve._light import stream

    if args.agent:
        raise CommandError("--agent runs on the local store; it does not go with --server")
    request, _ = _search_request(server, args, input=args.question)
    try:
        chunks = stream(f"{server}/ask/stream", {"input": request}, headers=_server_headers())
        if args.json:
            print_answer_json(args.question, *collect_answer(chunks))
        else:
            print_answer(chunks)
    except RaglineError as err:
        if not _no_model(err):
            raise
        print(f"{err}; showing the retrieved passages instead", file=sys.stderr)
        documents, _ = remote_search(server, args.question, args)
        if args.json:
            print_answer_json(args.question, None, documents)
        else:
            print_passages(documents, args.width)
        return NO_ANSWER_STATUS
    return 0


def remote_chat(server: str, args: argparse.Namespace) -> int:
    """``chat --server``: each line a turn of the server's /chat for ``--session``."""
    from ragline.serve._light import post, stream

    session = args.session
    passages_only = False  # the server has no model: show what /retrieve finds, as --store does
    if session == "default":  # not named: the server issues a conversation's id
        try:
            issued = post(f"{server}/chat/session", {}, headers=_server_headers())
        except RaglineError as err:
            if not _no_model(err):
                print(f"ragline: error: {err}", file=sys.stderr)
                return 2
            print(f"{err}; showing the retrieved passages instead", file=sys.stderr)
            passages_only = True
        else:
            session = str(issued["session_id"])
            print(f"(session {session}: resume it with --session {session})", file=sys.stderr)
    config = {"configurable": {"session_id": session}}
    failed = False
    for line in questions():
        if line in ("/exit", "/quit"):
            break
        if line == "/reset":
            print("(/reset needs the local store; start another --session instead)")
            continue
        if not passages_only:
            try:
                request = {"input": {"input": line}, "config": config}
                chunks = stream(f"{server}/chat/stream", request, headers=_server_headers())
                print_answer(chunks, heading=None)
                continue
            except RaglineError as err:
                if not _no_model(err):
                    print(f"ragline: error: {err}", file=sys.stderr)
                    failed = True
                    continue
                print(f"{err}; showing the retrieved passages instead", file=sys.stderr)
                passages_only = True
        documents, _ = remote_search(server, line, args)
        print_passages(documents, args.width, spaced=False)
    return 2 if failed else 0

"""``ragline serve``: the store over HTTP (search, answers, chat and a web page).

The app is :func:`ragline.serve.create_store_app`; this module reads the options, makes
the chat model (if one is configured) and runs the server until interrupted.
"""

from __future__ import annotations

import argparse
import os

from ragline.cli._common import (
    NO_MODEL,
    CommandError,
    Commands,
    add_chain_option,
    add_embedding_option,
    add_model_option,
    chat_model,
    default_score_threshold,
    note,
    warn,
)


def add_serve_command(commands: Commands) -> None:
    serve = commands.add_parser(
        "serve", help="serve the store over HTTP: search, answers, chat and a web page"
    )
    serve.add_argument("--store", required=True, help="folder written by 'ragline index'")
    add_chain_option(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    add_model_option(serve)
    add_embedding_option(serve, "%(choices)s (default: the store's)")
    serve.add_argument("-k", type=int, default=4, help="passages per answer (default: 4)")
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="let pages from ORIGIN call the API (repeatable; default: none)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="answer requests for this host name too, as NAME or NAME:PORT (repeatable; "
        "default: localhost, 127.0.0.1, ::1 and --host); any other Host header gets 400",
    )
    serve.add_argument(
        "--mcp",
        action="store_true",
        help="also serve the store to MCP clients at /mcp (Streamable HTTP), behind the same "
        "API key and host/origin checks",
    )
    serve.add_argument(
        "--share-terminal-history",
        action="store_true",
        help="keep /chat conversations in the store's chat.sqlite with 'ragline chat' (any "
        "session id taken); default: the server's own serve-chat.sqlite, ids it issues",
    )
    limits = serve.add_argument_group("limits (a request over one gets a 422 naming it)")
    for flag, default, what in (
        ("--max-k", 100, "most results one search may ask for"),
        ("--max-fetch-k", 1000, "most MMR / hybrid candidates (fetch_k) one search may ask for"),
        ("--max-batch", 100, "most inputs in one /batch request"),
        ("--search-workers", 2, "threads for long searches (MMR, filters, BM25, hybrid), run "
                                "off the event loop"),
    ):  # fmt: skip
        limits.add_argument(flag, type=int, default=default, metavar="N",
                            help=f"{what} (default: {default})")  # fmt: skip
    for flag, seconds, what in (
        ("--header-timeout", 10.0, "seconds a connection has to send a request's headers"),
        ("--body-timeout", 30.0, "seconds a request has to send its body (then 408)"),
    ):
        limits.add_argument(flag, type=float, default=seconds, metavar="S",
                            help=f"{what} (default: {seconds:g})")  # fmt: skip
    limits.add_argument("--max-connections", type=int, default=512, metavar="N",
                        help="most connections at once; more get 503 (default: 512)")  # fmt: skip
    serve.set_defaults(handler=command_serve)


def command_serve(args: argparse.Namespace) -> int:
    """Load the store and the embedding model once, then serve until interrupted. The
    API key, if any, comes from $RAGLINE_API_KEY (never the command line). Each request
    gets an access-log line on stderr unless ``--quiet``."""
    from ragline.serve import create_store_app, run_server
    from ragline.store_folder import StoreFolder

    # what makes serving impossible is said alone, before any warning or loading
    embedding = StoreFolder(args.store).read_manifest().embedding
    _check_port_free(args.host, args.port)
    model = chat_model(args)
    if model is None:
        warn(f"{NO_MODEL}: /ask and /chat answer 503, /retrieve works")

    from ragline.serve._guard import is_loopback

    api_key = os.environ.get("RAGLINE_API_KEY") or None
    allowed_hosts = [*args.allowed_host]
    if args.host not in ("0.0.0.0", "::", ""):  # a wildcard address is no host name
        allowed_hosts.append(f"[{args.host}]" if ":" in args.host else args.host)
    if not is_loopback(args.host) and api_key is None:
        warn(
            f"serving on {args.host}, reachable from other machines, without an API key: "
            "anyone who can reach it can search the store and chat; set RAGLINE_API_KEY"
        )
    app = create_store_app(
        args.store,
        model=model,
        chain_type=args.chain,
        embedding=args.embedding,
        k=args.k,
        score_threshold=default_score_threshold(embedding),
        api_key=api_key,
        cors_origins=args.cors_origin,
        allowed_hosts=allowed_hosts,
        share_terminal_history=args.share_terminal_history,
        max_k=args.max_k,
        max_fetch_k=args.max_fetch_k,
        max_batch_size=args.max_batch,
        search_workers=args.search_workers,
        mcp=args.mcp,
    )
    key = "required" if api_key else "off"
    mcp = f", MCP at http://{args.host}:{args.port}/mcp" if args.mcp else ""
    note(
        args,
        f"serving {args.store} on http://{args.host}:{args.port}/{mcp} (API key {key}); "
        "Ctrl-C stops",
    )
    if not args.quiet:
        _print_access_log()
    run_server(app, host=args.host, port=args.port, log_level="warning",
               header_timeout=args.header_timeout, body_timeout=args.body_timeout,
               max_connections=args.max_connections)  # fmt: skip
    return 0


def _print_access_log() -> None:
    """One line per request on stderr (``GET /ask 200 12.3ms``); ``--quiet`` leaves it
    off. The lines come from the ``ragline.serve.access`` logger."""
    import logging
    import sys

    from ragline.serve._access import ACCESS_LOGGER

    logger = logging.getLogger(ACCESS_LOGGER)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _check_port_free(host: str, port: int) -> None:
    """Bind ``host:port`` once, as uvicorn will, so that a port in use is one error line
    (uvicorn would log its own error after ``serving on ...``).

    Raises:
        CommandError: the address cannot be bound (in use, or not this machine's).
    """
    import socket

    if not 0 <= port <= 65535:
        raise CommandError(f"--port must be between 0 and 65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # uvicorn sets it too
        try:
            probe.bind((host, port))
        except OSError as err:
            raise CommandError(
                f"cannot serve on {host}:{port}: {err.strerror or err}; stop what uses it "
                "or pick another --port (or --host)"
            ) from None

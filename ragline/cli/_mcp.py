"""``ragline mcp``: the store as an MCP server over stdio, for desktop assistants and
editors (the tools and resources are :mod:`ragline.serve._mcp`'s).

stdout carries the protocol and nothing else: notes, warnings and logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from ragline.cli._common import (
    NO_MODEL,
    Commands,
    add_chain_option,
    add_embedding_option,
    add_model_option,
    chat_model,
    default_score_threshold,
    note,
)


def add_mcp_command(commands: Commands) -> None:
    mcp = commands.add_parser(
        "mcp", help="serve the store to MCP clients (assistants, editors) over stdio"
    )
    mcp.add_argument("--store", required=True, help="folder written by 'ragline index'")
    add_chain_option(mcp)
    add_model_option(mcp)
    add_embedding_option(mcp, "%(choices)s (default: the store's)")
    mcp.add_argument("-k", type=int, default=4, help="passages per search (default: 4)")
    mcp.set_defaults(handler=command_mcp)


def command_mcp(args: argparse.Namespace) -> int:
    """Load the store once, then answer MCP requests on stdin/stdout until stdin closes."""
    from ragline.core._optional import require
    from ragline.serve._mcp import open_store_mcp, serve_stdio
    from ragline.store_folder import StoreFolder

    require("mcp", "mcp")
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="ragline mcp: %(levelname)s %(name)s: %(message)s")  # fmt: skip
    embedding = StoreFolder(args.store).read_manifest().embedding
    model = chat_model(args)
    tools = open_store_mcp(
        args.store,
        model=model,
        chain_type=args.chain,
        embedding=args.embedding,
        k=args.k,
        score_threshold=default_score_threshold(embedding),
    )
    ask = "" if model is not None else f" ({NO_MODEL}: no 'ask' tool)"
    note(args, f"serving {args.store} over MCP on stdio{ask}")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_stdio(tools))
    return 0

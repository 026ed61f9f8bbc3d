"""The ``ragline`` command: index a corpus, query it, ask questions about it.

    ragline index PATH... --store DIR [--glob PATTERN] [--chunk-size N] [--chunk-overlap N]
                          [--embedding minilm|minilm-onnx|minilm-torch|minilm-int8|hashing|openai]
                          [--device auto|cpu|cuda|cuda:N] [--index auto|flat|hnsw|ivf-pq|ivf-sq8]
                          [--full] [--rebuild]
                          [--encoding NAME | --autodetect-encoding] [--strict]
                          [--wait SECONDS] [--checkpoint-every SECONDS]
    ragline query "text" --store DIR [-k N]
                          [--search-type similarity|mmr|similarity_score_threshold|hybrid|bm25]
                          [--score-threshold X] [--fetch-k N] [--filter JSON]
                          [--fusion adaptive|rrf|relative_score|dbsf] [--source PATTERN]
                          [--json] [--embedding NAME] [--width N]
    ragline ask "question" --store DIR [--chain stuff|map_reduce|refine|map_rerank] [-k N]
                          [--model NAME] [--agent [--max-steps N]] [--json]
                          (and query's search options; exit status 3: no model answered)
    ragline chat --store DIR [--session NAME] [-k N] [--model NAME] (and query's search options)
    ragline eval --store DIR --queries QUERIES --qrels QRELS [--search-type TYPE]... [-k N]
                          [--depth N] [--id-key KEY] [--per-query FILE] [--runs DIR] [--json]
                          [--fusion adaptive|rrf|relative_score|dbsf]
    ragline serve --store DIR [--chain stuff|map_reduce|refine|map_rerank]
                          [--host 127.0.0.1] [--port 8000] [--model NAME] [--embedding NAME]
                          [-k N] [--cors-origin ORIGIN] [--mcp] (limits: see docs/cli.md)
    ragline mcp --store DIR [--chain TYPE] [--model NAME] [--embedding NAME] [-k N]
                          (MCP over stdio)
    ragline port FILE... [--diff]   (rewrite a LangChain program's imports as ragline's)
    ragline query|ask|chat ... --server URL     (or $RAGLINE_SERVER): ask a running server
    ragline --version

docs/cli.md holds the whole synopsis (every option, checked by a test).

The store folder (``ragline.store_folder``) does the work; this package parses arguments
and prints, one module per sub-command (``_index``, ``_query``, ``_ask``, ``_chat``,
``_serve``, ``_mcp``, ``_eval``), with the search options in ``_search``, ``--server`` in
``_remote`` and what they all print in ``_common``. ``index`` stops cleanly on Ctrl-C
(SIGINT) or SIGTERM: it commits what it has embedded at the next batch boundary, says so
and exits with 130 (a second Ctrl-C stops at once, keeping the last checkpoint).

Each sub-command module has one ``add_<name>_command`` function (its arguments) and one
``command_<name>`` function (what it does); :data:`COMMANDS` lists them in the order
``--help`` shows them, so a new sub-command is a new module and one line there. Errors
are printed as one line on stderr with exit status 2; ``ask`` exits with 3 when no chat
model answered and it showed the retrieved passages instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ragline.cli._ask import add_ask_command
from ragline.cli._chat import add_chat_command
from ragline.cli._common import CommandError, Commands
from ragline.cli._eval import add_eval_command
from ragline.cli._index import add_index_command
from ragline.cli._mcp import add_mcp_command
from ragline.cli._port import add_port_command
from ragline.cli._query import add_query_command
from ragline.cli._search import search_kwargs
from ragline.cli._serve import add_serve_command
from ragline.core import RaglineError

__all__ = ["COMMANDS", "CommandError", "build_parser", "main", "search_kwargs"]

COMMANDS: list[Callable[[Commands], None]] = [
    add_index_command,
    add_query_command,
    add_ask_command,
    add_chat_command,
    add_eval_command,
    add_serve_command,
    add_mcp_command,
    add_port_command,
]
"""One function per sub-command: adds its parser, with ``handler`` set to what it runs."""


def build_parser() -> argparse.ArgumentParser:
    from ragline import __version__

    parser = argparse.ArgumentParser(
        prog="ragline", description="Index documents and ask questions about them."
    )
    parser.add_argument("--version", action="version", version=f"ragline {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for add_command in COMMANDS:
        add_command(commands)
    for sub in commands.choices.values():
        sub.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ragline`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    # The model's weight-loading bar says nothing a user needs; indexing shows its own.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        return int(args.handler(args))
    except (RaglineError, OSError) as err:
        print(f"ragline: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ragline: interrupted", file=sys.stderr)
        return 130

"""``ragline chat``: a conversation over the store, kept in the store folder.

Questions come from stdin, one per line; answers stream with their sources. The
conversation lives in the folder's ``chat.sqlite``, so ``--session NAME`` resumes it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragline.cli._common import (
    NO_MODEL,
    Commands,
    add_model_option,
    chat_model,
    note,
    print_answer,
    print_passages,
    questions,
)
from ragline.cli._remote import remote_chat, server_url
from ragline.cli._search import add_search_options, folder_retriever
from ragline.core import RaglineError


def add_chat_command(commands: Commands) -> None:
    chat = commands.add_parser(
        "chat", help="a conversation over the store, remembered in the store folder"
    )
    add_search_options(chat)
    chat.add_argument(
        "--session",
        default="default",
        help="the conversation to start or resume (default: default)",
    )
    add_model_option(chat)
    chat.set_defaults(handler=command_chat)


def command_chat(args: argparse.Namespace) -> int:
    """Questions from stdin, one per line; answers streamed with their sources. The
    conversation is kept in the store folder (``chat.sqlite``), so it resumes; ``/reset``
    forgets it, ``/exit`` (or end of input) ends the chat."""
    server = server_url(args)
    if server is not None:
        return remote_chat(server, args)
    from ragline.chains import create_conversational_retrieval_chain
    from ragline.memory import SQLChatMessageHistory
    from ragline.store_folder import StoreFolder

    folder = StoreFolder(args.store)
    retriever, _ = folder_retriever(args)
    history = SQLChatMessageHistory(args.session, connection=folder.chat_history_path)
    chain = None
    model = chat_model(args)
    if model is not None:
        chain = create_conversational_retrieval_chain(model, retriever, lambda _: history)
        if stored := len(history.messages):
            note(args, f"resuming session {args.session!r} ({stored} messages)")
    else:
        print(f"{NO_MODEL}; showing the retrieved passages instead", file=sys.stderr)
    failed = False
    for line in questions():
        if line in ("/exit", "/quit"):
            break
        if line == "/reset":
            history.clear()
            print(f"(session {args.session!r} forgotten)")
        elif chain is None:
            print_passages(retriever.invoke(line), args.width, spaced=False)
        else:
            try:
                _chat_turn(chain, line, args.session)
            except RaglineError as err:  # one failed turn stores nothing; the chat goes on
                print(f"ragline: error: {err}", file=sys.stderr)
                failed = True
    return 2 if failed else 0


def _chat_turn(chain: Any, question: str, session: str) -> None:
    config = {"configurable": {"session_id": session}}
    print_answer(chain.stream({"input": question}, config), heading=None)

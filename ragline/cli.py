"""The ``ragline`` command: index a corpus, query it, ask questions about it.

    ragline index PATH... --store DIR [--glob PATTERN] [--chunk-size N] [--chunk-overlap N]
                          [--embedding minilm|minilm-onnx|minilm-torch|hashing|openai]
                          [--full]
                          [--encoding NAME | --autodetect-encoding] [--strict]
    ragline query "text" --store DIR [-k N]
                          [--search-type similarity|mmr|similarity_score_threshold]
                          [--score-threshold X] [--fetch-k N] [--filter JSON] [--json]
                          [--embedding NAME]
    ragline ask "question" --store DIR [--chain stuff|map_reduce|refine|map_rerank] [-k N]
                          [--model NAME] [--agent [--max-steps N]]
    ragline chat --store DIR [--session NAME] [-k N] [--model NAME]
    ragline --version

The store folder (``ragline.store_folder``) does the work; this module parses arguments
and prints. Each sub-command is one ``add_<name>_command`` function (its arguments) and
one ``command_<name>`` function (what it does); :data:`COMMANDS` lists them in the order
``--help`` shows them. Errors are printed as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core import Document, RaglineError

if TYPE_CHECKING:
    from ragline.vectorstores import VectorStore

SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold")


class CommandError(RaglineError):
    """A command-line usage problem, reported as one line."""


def _note(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr (not with ``--quiet``)."""
    if not args.quiet:
        print(message, file=sys.stderr)


def _warn(message: str) -> None:
    """A warning on stderr, shown even with ``--quiet``."""
    print(f"ragline: warning: {message}", file=sys.stderr)


# ---------------------------------------------------------------- index


def add_index_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ragline.store_folder import embedding_names

    index = commands.add_parser("index", help="load, split, embed and save a FAISS store")
    index.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to index")
    index.add_argument("--store", required=True, help="folder to write the store to")
    index.add_argument("--glob", default="**/*", help="files to take from folders (default: **/*)")
    index.add_argument(
        "--chunk-size", type=int, default=None, help="default: the store's, else 1000"
    )
    index.add_argument(
        "--chunk-overlap", type=int, default=None, help="default: the store's, else 150"
    )
    index.add_argument(
        "--embedding",
        choices=embedding_names(),
        default=None,
        help="default: what the store was built with, else minilm (ONNX Runtime when the "
        "onnx extra is installed, else torch; minilm-torch: always torch)",
    )
    index.add_argument(
        "--full", action="store_true", help="also delete the chunks of files not given in this run"
    )
    encoding = index.add_mutually_exclusive_group()
    encoding.add_argument(
        "--encoding", default=None, help="text encoding of the files (default: utf-8)"
    )
    encoding.add_argument(
        "--autodetect-encoding",
        action="store_true",
        help="try a byte-order mark, utf-8, cp1252, then latin-1 for each file",
    )
    index.add_argument(
        "--strict",
        action="store_true",
        help="fail on a file that cannot be read (default: skip it with a warning)",
    )
    index.set_defaults(handler=command_index)


def command_index(args: argparse.Namespace) -> int:
    """Index PATHs into the store, re-embedding only chunks that changed since the last run."""
    from ragline.store_folder import index_paths

    size, overlap = args.chunk_size, args.chunk_overlap
    if (size is not None and size <= 0) or (
        size is not None and overlap is not None and not 0 <= overlap < size
    ):
        raise CommandError(f"need 0 <= --chunk-overlap < --chunk-size, got {overlap} and {size}")
    result = index_paths(
        args.paths,
        args.store,
        glob=args.glob,
        embedding=args.embedding,
        chunk_size=size,
        chunk_overlap=overlap,
        cleanup="full" if args.full else "incremental",
        encoding=args.encoding,
        autodetect_encoding=args.autodetect_encoding,
        strict=args.strict,
        show_progress=not args.quiet and sys.stderr.isatty(),
        note=lambda message: _note(args, message),
    )
    for skipped in result["skipped_files"]:
        _warn(f"skipped {skipped.path}: {skipped.reason}")
    if not args.quiet:
        print(
            f"added {result['num_added']}, updated {result['num_updated']}, "
            f"skipped {result['num_skipped']}, deleted {result['num_deleted']}"
        )
    if result["skipped_files"]:
        count = len(result["skipped_files"])
        _warn(
            f"{count} file{'s' if count > 1 else ''} could not be read and "
            f"{'were' if count > 1 else 'was'} not indexed (--strict to fail instead; "
            f"--encoding or --autodetect-encoding for text in another encoding)"
        )
    _note(args, f"{args.store} holds {result['stored_chunks']} chunks")
    return 0


# ---------------------------------------------------------------- query


def add_search_options(sub: argparse.ArgumentParser) -> None:
    """The options every command that retrieves from a store takes."""
    from ragline.store_folder import embedding_names

    sub.add_argument("--store", required=True, help="folder written by 'ragline index'")
    sub.add_argument(
        "--embedding",
        choices=embedding_names(),
        default=None,
        help="embed the query with this (default: what the store was built with); "
        "it must give the same vectors",
    )
    sub.add_argument("-k", type=int, default=4, help="how many chunks to retrieve (default: 4)")
    sub.add_argument("--search-type", choices=SEARCH_TYPES, default="similarity")
    sub.add_argument("--score-threshold", type=float, default=None)
    sub.add_argument(
        "--fetch-k",
        type=int,
        default=None,
        help="mmr: candidates to pick from (default: max(20, 2k))",
    )
    sub.add_argument(
        "--filter", default=None, help='metadata filter as JSON, e.g. {"source": "a.txt"}'
    )
    sub.add_argument("--width", type=int, default=12, help="lines of each chunk to show (0: all)")


def open_store(folder: str, embedding: str | None = None) -> VectorStore:
    """Load a store written by ``ragline index`` (queries embedded with ``embedding``)."""
    from ragline.store_folder import StoreFolder

    return StoreFolder(folder).open_store(embedding=embedding)


def search_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The retriever's ``search_kwargs`` the search options ask for."""
    kwargs: dict[str, Any] = {"k": args.k}
    if args.filter:
        try:
            kwargs["filter"] = json.loads(args.filter)
        except json.JSONDecodeError as err:
            raise CommandError(f"--filter is not valid JSON: {err}") from None
    if args.search_type == "similarity_score_threshold":
        kwargs["score_threshold"] = (
            args.score_threshold if args.score_threshold is not None else 0.5
        )
    elif args.score_threshold is not None:
        raise CommandError("--score-threshold goes with --search-type similarity_score_threshold")
    if args.search_type == "mmr":
        k = args.k if isinstance(args.k, int) else 0
        kwargs["fetch_k"] = args.fetch_k if args.fetch_k is not None else max(20, 2 * k)
    elif args.fetch_k is not None:
        raise CommandError("--fetch-k goes with --search-type mmr")
    return kwargs


def _retrieve_with_scores(
    store: VectorStore, query: str, args: argparse.Namespace
) -> list[tuple[Document, float | None]]:
    """Ranked chunks with their relevance in [0, 1] (MMR ranks by diversity: no score)."""
    kwargs = search_kwargs(args)
    if args.search_type == "mmr":
        documents = store.max_marginal_relevance_search(query, **kwargs)
        return [(document, None) for document in documents]
    return store.similarity_search_with_relevance_scores(query, **kwargs)


def location(document: Document) -> str:
    """``source @ start_index`` for printing where a chunk comes from."""
    source = document.metadata.get("source", "?")
    start = document.metadata.get("start_index")
    return f"{source}" if start is None else f"{source} @ {start}"


def indent(text: str, width: int) -> str:
    """The first ``width`` lines of a chunk (0: all), indented for printing."""
    lines = text.strip().splitlines()
    if width and len(lines) > width:
        lines = [*lines[:width], "..."]
    return "\n".join("    " + line for line in lines)


def add_query_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    query = commands.add_parser("query", help="print the chunks most similar to a text")
    query.add_argument("text")
    add_search_options(query)
    query.add_argument("--json", action="store_true", help="print the results as JSON")
    query.set_defaults(handler=command_query)


def command_query(args: argparse.Namespace) -> int:
    store = open_store(args.store, args.embedding)
    results = _retrieve_with_scores(store, args.text, args)
    if args.json:
        rows = [
            {
                "rank": rank,
                "score": score,
                "id": document.id,
                "source": document.metadata.get("source"),
                "metadata": document.metadata,
                "content": document.page_content,
            }
            for rank, (document, score) in enumerate(results, 1)
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    if not results:
        print("no results")
    for rank, (document, score) in enumerate(results, 1):
        shown = "" if score is None else f"  score {score:.3f}"
        print(f"[{rank}]{shown}  {location(document)}")
        print(indent(document.page_content, args.width))
        print()
    return 0


# ---------------------------------------------------------------- ask


def add_ask_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ragline.chains import CHAIN_TYPES

    ask = commands.add_parser("ask", help="answer a question with a chat model over the store")
    ask.add_argument("question")
    add_search_options(ask)
    ask.add_argument("--chain", choices=list(CHAIN_TYPES), default="stuff")
    ask.add_argument("--model", default=os.environ.get("RAGLINE_MODEL", "gpt-4o-mini"))
    ask.add_argument(
        "--agent",
        action="store_true",
        help="let a tool-calling agent search the store (several times if it needs) before "
        "answering, printing its searches",
    )
    ask.add_argument(
        "--max-steps",
        type=int,
        default=5,
        help="with --agent: at most this many rounds of searches",
    )
    ask.set_defaults(handler=command_ask)


def command_ask(args: argparse.Namespace) -> int:
    from ragline.chains import create_documents_chain, create_retrieval_chain

    store = open_store(args.store, args.embedding)
    retriever = store.as_retriever(search_type=args.search_type, search_kwargs=search_kwargs(args))
    base_url = os.environ.get("OPENAI_BASE_URL")
    if not base_url and not os.environ.get("OPENAI_API_KEY"):
        print(
            "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY); "
            "showing the retrieved passages instead",
            file=sys.stderr,
        )
        for rank, document in enumerate(retriever.invoke(args.question), 1):
            print(f"[{rank}] {location(document)}")
            print(indent(document.page_content, args.width))
            print()
        return 0

    from ragline.chat_models import ChatOpenAI

    model = ChatOpenAI(model=args.model, temperature=0)
    if args.agent:
        return ask_agent(args, model, retriever)
    chain = create_retrieval_chain(
        retriever, create_documents_chain(model, args.chain, question_key="input")
    )
    sources: list[Document] = []
    for chunk in chain.stream({"input": args.question}):
        if "context" in chunk:
            sources = chunk["context"]
        if "answer" in chunk:
            print(chunk["answer"], end="", flush=True)
    print()
    if sources:
        print("\nsources:")
        for rank, document in enumerate(sources, 1):
            print(f"  [{rank}] {location(document)}")
    return 0


AGENT_INSTRUCTIONS = (
    "You answer questions about the user's documents. Search them with the search_documents "
    "tool before answering, and search again with other words when the passages found do not "
    "answer the question. Answer only from the passages; say so when they do not contain the "
    "answer."
)


def ask_agent(args: argparse.Namespace, model: Any, retriever: Any) -> int:
    """``ask --agent``: a tool-calling agent with the store's retriever as its one tool."""
    from ragline.agents import AgentExecutor, create_tool_calling_agent
    from ragline.core import BaseCallbackHandler, ChatPromptTemplate, MessagesPlaceholder
    from ragline.tools import create_retriever_tool

    if args.max_steps < 1:
        raise CommandError(f"--max-steps must be at least 1, got {args.max_steps}")
    search = create_retriever_tool(
        retriever, "search_documents", "Search the indexed documents for passages about a query."
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", AGENT_INSTRUCTIONS),
            ("human", "{input}"),
            MessagesPlaceholder("agent_scratchpad"),
        ]
    )
    sources: dict[str, Document] = {}
    found: list[int] = []  # passages per search, in the order the searches ran

    class Sources(BaseCallbackHandler):  # what the searches found: counts and the source list
        def on_retriever_end(self, documents: Any, **kwargs: Any) -> None:
            found.append(len(documents))
            for document in documents:
                sources.setdefault(location(document), document)

    executor = AgentExecutor(
        agent=create_tool_calling_agent(model, [search], prompt),
        tools=[search],
        max_iterations=args.max_steps,
        handle_parsing_errors=True,
    )
    for chunk in executor.stream({"input": args.question}, {"callbacks": [Sources()]}):
        for action in chunk.get("actions", []):
            query = action.tool_input
            query = query.get("query", query) if isinstance(query, dict) else query
            _note(args, f"> {action.tool}: {query}")
        for step in chunk.get("steps", []):
            count = found.pop(0) if step.action.tool == search.name and found else 0
            _note(args, f"  {count} passage(s)")
        if "output" in chunk:
            print(chunk["output"])
    if sources:
        print("\nsources:")
        for rank, place in enumerate(sources, 1):
            print(f"  [{rank}] {place}")
    return 0


# ---------------------------------------------------------------- chat


def add_chat_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chat = commands.add_parser(
        "chat", help="a conversation over the store, remembered in the store folder"
    )
    add_search_options(chat)
    chat.add_argument(
        "--session",
        default="default",
        help="the conversation to start or resume (default: default)",
    )
    chat.add_argument("--model", default=os.environ.get("RAGLINE_MODEL", "gpt-4o-mini"))
    chat.set_defaults(handler=command_chat)


def command_chat(args: argparse.Namespace) -> int:
    """Questions from stdin, one per line; answers streamed with their sources. The
    conversation is kept in the store folder (``chat.sqlite``), so it resumes; ``/reset``
    forgets it, ``/exit`` (or end of input) ends the chat."""
    from ragline.chains import create_conversational_retrieval_chain
    from ragline.memory import SQLChatMessageHistory
    from ragline.store_folder import StoreFolder

    folder = StoreFolder(args.store)
    retriever = open_store(args.store, args.embedding).as_retriever(
        search_type=args.search_type, search_kwargs=search_kwargs(args)
    )
    history = SQLChatMessageHistory(args.session, connection=folder.chat_history_path)
    chain = None
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        from ragline.chat_models import ChatOpenAI

        model = ChatOpenAI(model=args.model, temperature=0)
        chain = create_conversational_retrieval_chain(model, retriever, lambda _: history)
        if stored := len(history.messages):
            _note(args, f"resuming session {args.session!r} ({stored} messages)")
    else:
        print(
            "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY); "
            "showing the retrieved passages instead",
            file=sys.stderr,
        )
    failed = False
    for line in _questions():
        if line in ("/exit", "/quit"):
            break
        if line == "/reset":
            history.clear()
            print(f"(session {args.session!r} forgotten)")
        elif chain is None:
            for rank, document in enumerate(retriever.invoke(line), 1):
                print(f"[{rank}] {location(document)}\n{indent(document.page_content, args.width)}")
        else:
            try:
                _chat_turn(chain, line, args.session)
            except RaglineError as err:  # one failed turn stores nothing; the chat goes on
                print(f"ragline: error: {err}", file=sys.stderr)
                failed = True
    return 2 if failed else 0


def _questions() -> Iterator[str]:
    """Non-empty lines of stdin (with a ``you>`` prompt on a terminal)."""
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            print("you> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            yield line.strip()


def _chat_turn(chain: Any, question: str, session: str) -> None:
    sources: list[Document] = []
    for chunk in chain.stream({"input": question}, {"configurable": {"session_id": session}}):
        sources = chunk.get("context", sources)
        print(chunk.get("answer", ""), end="", flush=True)
    print()
    for rank, document in enumerate(sources, 1):
        print(f"  [{rank}] {location(document)}")


# ---------------------------------------------------------------- main

COMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    add_index_command,
    add_query_command,
    add_ask_command,
    add_chat_command,
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
        return 130


if __name__ == "__main__":
    sys.exit(main())

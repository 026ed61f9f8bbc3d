"""The ``ragline`` command: index a corpus, query it, ask questions about it.

    ragline index PATH... --store DIR [--glob PATTERN] [--chunk-size N] [--chunk-overlap N]
                          [--embedding minilm|minilm-onnx|minilm-torch|hashing|openai]
                          [--full] [--rebuild]
                          [--encoding NAME | --autodetect-encoding] [--strict]
                          [--wait SECONDS] [--checkpoint-every SECONDS]
    ragline query "text" --store DIR [-k N]
                          [--search-type similarity|mmr|similarity_score_threshold|hybrid|bm25]
                          [--score-threshold X] [--fetch-k N] [--filter JSON]
                          [--source PATTERN] [--json] [--embedding NAME]
    ragline ask "question" --store DIR [--chain stuff|map_reduce|refine|map_rerank] [-k N]
                          [--model NAME] [--agent [--max-steps N]] (and query's search options)
    ragline chat --store DIR [--session NAME] [-k N] [--model NAME]
    ragline eval --store DIR --queries QUERIES --qrels QRELS [--search-type TYPE]... [-k N]
                          [--depth N] [--id-key KEY] [--per-query FILE] [--runs DIR] [--json]
    ragline serve --store DIR [--chain stuff|map_reduce|refine|map_rerank]
                          [--host 127.0.0.1] [--port 8000] [--model NAME] [-k N]
                          [--cors-origin ORIGIN]
    ragline query|ask|chat ... --server URL     (or $RAGLINE_SERVER): ask a running server
    ragline --version

The store folder (``ragline.store_folder``) does the work; this module parses arguments
and prints. ``index`` stops cleanly on Ctrl-C (SIGINT) or SIGTERM: it commits what it has
embedded at the next batch boundary, says so and exits with 130 (a second Ctrl-C stops at
once, keeping the last checkpoint).

Each sub-command is one ``add_<name>_command`` function (its arguments) and one
``command_<name>`` function (what it does); :data:`COMMANDS` lists them in the order
``--help`` shows them. Errors are printed as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ragline.core import Document, IndexingInterrupted, RaglineError

if TYPE_CHECKING:
    from ragline.vectorstores import VectorStore

SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold", "hybrid", "bm25")
# --score-threshold when none is given, by the store's embedding. The packaged MiniLM's
# relevance is (1 + cosine) / 2: on ragline's dev sets the best chunk for a question about
# something else scored 0.58-0.73 (median 0.61), the chunk answering a question 0.64-0.93
# (median 0.80); 0.70 drops nine in ten off-topic hits and keeps nine in ten answers.
DEFAULT_SCORE_THRESHOLDS = {"minilm": 0.70, "minilm-onnx": 0.70, "minilm-torch": 0.70}
FALLBACK_SCORE_THRESHOLD = 0.5
SCORE_MEANINGS = {
    "similarity": "relevance in [0, 1] = (1 + cosine) / 2",
    "similarity_score_threshold": "relevance in [0, 1] = (1 + cosine) / 2",
    "mmr": "relevance in [0, 1] = (1 + cosine) / 2 (ranked by MMR: relevance and diversity)",
    "bm25": "BM25 keyword score (unbounded; compare within one query only)",
    "hybrid": "fused score in [0, 1]: 0.5 x dense + 0.5 x BM25, each scaled so that this "
    "query's best candidate is 1",
}
MINILM_SCALE = "with MiniLM, unrelated text scores about 0.55-0.70, an answering passage 0.70-0.90"


class CommandError(RaglineError):
    """A command-line usage problem, reported as one line."""


class LazyChoices:
    """argparse ``choices`` read from the library on first use (a check or ``--help``),
    so building the parser imports neither the embeddings nor the chains: ``ragline
    query --server`` costs milliseconds. Give the option a ``metavar`` (argparse builds
    one from the choices otherwise) and list them in its help with ``%(choices)s``."""

    def __init__(self, load: Callable[[], Sequence[str]]) -> None:
        self._load = load

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __contains__(self, value: object) -> bool:
        return value in self._load()


def _embedding_names() -> Sequence[str]:
    from ragline.store_folder import embedding_names

    return embedding_names()


def _chain_types() -> Sequence[str]:
    from ragline.chains import CHAIN_TYPES

    return list(CHAIN_TYPES)


def _note(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr (not with ``--quiet``)."""
    if not args.quiet:
        print(message, file=sys.stderr)


def _warn(message: str) -> None:
    """A warning on stderr, shown even with ``--quiet``."""
    print(f"ragline: warning: {message}", file=sys.stderr)


# ---------------------------------------------------------------- index


def add_index_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        choices=LazyChoices(_embedding_names),
        metavar="NAME",
        default=None,
        help="%(choices)s; default: what the store was built with, else minilm (ONNX Runtime "
        "when the "
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
    index.add_argument(
        "--rebuild",
        action="store_true",
        help="start from an empty store (re-embeds everything; repairs a corrupted store)",
    )
    index.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long for another run writing the same store (default: fail at once)",
    )
    index.add_argument(
        "--checkpoint-every",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="save what is embedded this often, so a killed run loses little (default: 30)",
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
    stop = threading.Event()
    try:
        with _stop_on_signals(stop):
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
                rebuild=args.rebuild,
                wait=args.wait,
                checkpoint_seconds=args.checkpoint_every,
                stop=stop,
                show_progress=not args.quiet and sys.stderr.isatty(),
                note=lambda message: _note(args, message),
            )
    except IndexingInterrupted as interrupted:
        print(f"ragline: interrupted: {interrupted}", file=sys.stderr)
        return 130
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


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C / SIGTERM set ``stop`` (the run commits and stops); a second Ctrl-C stops now."""

    def handle(signum: int, frame: object) -> None:
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.set()
        print(
            "ragline: stopping after the current batch, keeping what is embedded "
            "(Ctrl-C again to stop at once)",
            file=sys.stderr,
        )

    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# ---------------------------------------------------------------- query


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
    sub.add_argument(
        "--embedding",
        choices=LazyChoices(_embedding_names),
        metavar="NAME",
        default=None,
        help="embed the query with this (%(choices)s; default: what the store was built with); "
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
        "side (default: max(50, k))",
    )
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


def open_store(folder: str, embedding: str | None = None) -> VectorStore:
    """Load a store written by ``ragline index`` (queries embedded with ``embedding``)."""
    from ragline.store_folder import StoreFolder

    return StoreFolder(folder).open_store(embedding=embedding)


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
            else DEFAULT_SCORE_THRESHOLDS.get(embedding or "", FALLBACK_SCORE_THRESHOLD)
        )
    elif args.score_threshold is not None:
        raise CommandError("--score-threshold goes with --search-type similarity_score_threshold")
    if args.search_type == "mmr":
        k = args.k if isinstance(args.k, int) else 0
        kwargs["fetch_k"] = args.fetch_k if args.fetch_k is not None else max(20, 2 * k)
    elif args.search_type == "hybrid" and args.fetch_k is not None:
        kwargs["fetch_k"] = args.fetch_k
    elif args.fetch_k is not None:
        raise CommandError("--fetch-k goes with --search-type mmr or hybrid")
    return kwargs


def source_filter(store: VectorStore, pattern: str) -> dict[str, Any]:
    """A filter for the chunks of files whose relative ``path`` (or absolute ``source``)
    matches a shell pattern; an error with examples when no file does."""
    import fnmatch

    from ragline.store_folder._text_index import store_records

    _, _, metadatas = store_records(store)
    files = {(m.get("path"), m.get("source")) for m in metadatas}
    matched = sorted(
        {
            str(source)
            for path, source in files
            if (isinstance(path, str) and fnmatch.fnmatchcase(path, pattern))
            or (isinstance(source, str) and fnmatch.fnmatchcase(source, pattern))
        }
    )
    if not matched:
        examples = sorted(str(path) for path, _ in files if path is not None)[:3]
        hint = (
            f"paths are relative to the indexed folder, e.g. {', '.join(map(repr, examples))}"
            if examples
            else "this store has no relative paths (index it again to record them)"
        )
        raise CommandError(
            f"--source {pattern!r} matches none of the {len(files)} indexed files; {hint}"
        )
    return {"source": {"$in": matched}}


def folder_retriever(args: argparse.Namespace) -> tuple[Any, str]:
    """The retriever the search options ask for, and the store's embedding name."""
    from ragline.store_folder import StoreFolder

    folder = StoreFolder(args.store)
    manifest = folder.read_manifest()
    store = folder.open_store(embedding=args.embedding)
    kwargs = search_kwargs(args, manifest.embedding)
    if args.source:
        by_source = source_filter(store, args.source)
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
    server = server_url(args)
    if server is not None:
        documents, embedding = remote_search(server, args.text, args)
    else:
        retriever, embedding = folder_retriever(args)
        documents = retriever.invoke(args.text)
    results = [(document, document.metadata.pop("relevance_score", None)) for document in documents]
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


# ---------------------------------------------------------------- ask


def add_ask_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = commands.add_parser("ask", help="answer a question with a chat model over the store")
    ask.add_argument("question")
    add_search_options(ask)
    ask.add_argument(
        "--chain",
        choices=LazyChoices(_chain_types),
        default="stuff",
        metavar="TYPE",
        help="%(choices)s (default: stuff)",
    )
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
    server = server_url(args)
    if server is not None:
        return remote_ask(server, args)
    from ragline.chains import create_documents_chain, create_retrieval_chain

    retriever, _ = folder_retriever(args)
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
    print_answer(chain.stream({"input": args.question}))
    return 0


def print_answer(chunks: Iterator[Any], *, heading: str | None = "\nsources:") -> None:
    """Print the ``answer`` pieces of a retrieval chain's streamed chunks as they come,
    then the sources (under ``heading``, if any)."""
    sources: list[Document] = []
    for chunk in chunks:
        sources = chunk.get("context", sources)
        print(chunk.get("answer", ""), end="", flush=True)
    print()
    if sources and heading is not None:
        print(heading)
    for rank, document in enumerate(sources, 1):
        print(f"  [{rank}] {location(document)}")


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
    config = {"configurable": {"session_id": session}}
    print_answer(chain.stream({"input": question}, config), heading=None)


# ---------------------------------------------------------------- serve and --server


def add_serve_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser(
        "serve", help="serve the store over HTTP: search, answers, chat and a web page"
    )
    serve.add_argument("--store", required=True, help="folder written by 'ragline index'")
    serve.add_argument(
        "--chain",
        choices=LazyChoices(_chain_types),
        default="stuff",
        metavar="TYPE",
        help="%(choices)s (default: stuff)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    serve.add_argument("--model", default=os.environ.get("RAGLINE_MODEL", "gpt-4o-mini"))
    serve.add_argument(
        "--embedding",
        choices=LazyChoices(_embedding_names),
        metavar="NAME",
        default=None,
        help="%(choices)s (default: the store's)",
    )
    serve.add_argument("-k", type=int, default=4, help="passages per answer (default: 4)")
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="let pages from ORIGIN call the API (repeatable; default: none)",
    )
    serve.set_defaults(handler=command_serve)


def command_serve(args: argparse.Namespace) -> int:
    """Load the store and the embedding model once, then serve until interrupted. The
    API key, if any, comes from $RAGLINE_API_KEY (never the command line)."""
    from ragline.serve import create_store_app, run_server

    model = None
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        from ragline.chat_models import ChatOpenAI

        model = ChatOpenAI(model=args.model, temperature=0)
    else:
        _warn("no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY): "
              "/ask and /chat answer 503, /retrieve works")  # fmt: skip
    from ragline.store_folder import StoreFolder

    api_key = os.environ.get("RAGLINE_API_KEY") or None
    embedding = StoreFolder(args.store).read_manifest().embedding
    app = create_store_app(
        args.store,
        model=model,
        chain_type=args.chain,
        embedding=args.embedding,
        k=args.k,
        score_threshold=DEFAULT_SCORE_THRESHOLDS.get(embedding, FALLBACK_SCORE_THRESHOLD),
        api_key=api_key,
        cors_origins=args.cors_origin,
    )
    _note(args, f"serving {args.store} on http://{args.host}:{args.port}/ "
                f"(API key {'required' if api_key else 'off'}); Ctrl-C stops")  # fmt: skip
    run_server(app, host=args.host, port=args.port, log_level="warning")
    return 0


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


def remote_ask(server: str, args: argparse.Namespace) -> int:
    """``ask --server``: the server's /ask, streamed (its model and chain answer)."""
    from ragline.serve._light import stream

    if args.agent:
        raise CommandError("--agent runs on the local store; it does not go with --server")
    request, _ = _search_request(server, args, input=args.question)
    try:
        print_answer(stream(f"{server}/ask/stream", {"input": request}, headers=_server_headers()))
    except RaglineError as err:
        if getattr(err, "status_code", None) != 503:
            raise
        print(f"{err}; showing the retrieved passages instead", file=sys.stderr)
        documents, _ = remote_search(server, args.question, args)
        for rank, document in enumerate(documents, 1):
            print(f"[{rank}] {location(document)}")
            print(indent(document.page_content, args.width))
            print()
    return 0


def remote_chat(server: str, args: argparse.Namespace) -> int:
    """``chat --server``: each line a turn of the server's /chat for ``--session``."""
    from ragline.serve._light import stream

    config = {"configurable": {"session_id": args.session}}
    failed = False
    for line in _questions():
        if line in ("/exit", "/quit"):
            break
        if line == "/reset":
            print("(/reset needs the local store; start another --session instead)")
            continue
        try:
            request = {"input": {"input": line}, "config": config}
            chunks = stream(f"{server}/chat/stream", request, headers=_server_headers())
            print_answer(chunks, heading=None)
        except RaglineError as err:
            print(f"ragline: error: {err}", file=sys.stderr)
            failed = True
    return 2 if failed else 0


# ---------------------------------------------------------------- eval


def add_eval_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    queries, qrels = load_queries(args.queries), load_qrels(args.qrels)
    folder = StoreFolder(args.store)
    store = folder.open_store()
    depth = args.depth or 3 * args.k
    id_key = None if args.id_key == "id" else args.id_key
    evaluations = []
    for search_type in args.search_type or ["similarity", "bm25", "hybrid"]:
        kwargs: dict[str, Any] = {"k": depth}
        if search_type == "similarity_score_threshold":
            kwargs["score_threshold"] = DEFAULT_SCORE_THRESHOLDS.get(
                folder.read_manifest().embedding, FALLBACK_SCORE_THRESHOLD
            )
        retriever = folder.as_retriever(search_type=search_type, search_kwargs=kwargs, store=store)
        _note(args, f"{search_type}: {len(qrels)} queries ...")
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


# ---------------------------------------------------------------- main

COMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    add_index_command,
    add_query_command,
    add_ask_command,
    add_chat_command,
    add_eval_command,
    add_serve_command,
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


if __name__ == "__main__":
    sys.exit(main())

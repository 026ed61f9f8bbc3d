"""The ``ragline`` command: index a corpus, query it, ask questions about it.

    ragline index PATH... --store DIR [--glob PATTERN] [--chunk-size N] [--chunk-overlap N]
                          [--embedding minilm|hashing|openai] [--full]
    ragline query "text" --store DIR [-k N]
                          [--search-type similarity|mmr|similarity_score_threshold]
                          [--score-threshold X] [--filter JSON] [--json]
    ragline ask "question" --store DIR [--chain stuff|map_reduce|refine|map_rerank] [-k N]
                          [--model NAME]

A store folder holds ``ragline.json`` (how it was built: embedding, chunking) beside the
FAISS store in ``faiss/``, so ``query`` and ``ask`` embed with the same model ``index`` used,
and ``records.sqlite`` (each chunk's content hash and source), so re-running ``index`` on the
same store embeds only the chunks that changed.
Errors are printed as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragline.core import Document, RaglineError

STORE_MANIFEST = "ragline.json"
RECORDS_FILE = "records.sqlite"  # what index() wrote: chunk hashes and sources
FAISS_FOLDER = "faiss"
EMBEDDING_CHOICES = ("minilm", "hashing", "openai")
SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold")
CHAIN_TYPES = ("stuff", "map_reduce", "refine", "map_rerank")
# Which loader reads which file suffix when indexing a folder.
LOADER_BY_SUFFIX = {
    ".html": "BSHTMLLoader",
    ".htm": "BSHTMLLoader",
    ".md": "MarkdownLoader",
    ".pdf": "PyPDFLoader",
    ".csv": "CSVLoader",
}
LANGUAGE_BY_SUFFIX = {".py": "PYTHON", ".md": "MARKDOWN", ".html": "HTML", ".htm": "HTML"}


class CommandError(RaglineError):
    """A command-line usage problem, reported as one line."""


# ---------------------------------------------------------------- embeddings


def make_embeddings(name: str, options: dict[str, Any]) -> Any:
    """The Embeddings a store was (or will be) built with."""
    from ragline import embeddings

    if name == "minilm":
        return embeddings.SentenceTransformerEmbeddings(
            normalize_embeddings=True, show_progress=options.get("show_progress", False)
        )
    if name == "hashing":
        return embeddings.HashingEmbeddings(dimension=int(options.get("dimension", 384)))
    if name == "openai":
        return embeddings.OpenAIEmbeddings(model=options.get("model", "text-embedding-3-small"))
    raise CommandError(f"--embedding {name!r} is not one of {', '.join(EMBEDDING_CHOICES)}")


# ---------------------------------------------------------------- index


def _load_documents(paths: Sequence[str], glob: str, show_progress: bool) -> list[Document]:
    from ragline import loaders

    loader_for_suffix = {
        suffix: getattr(loaders, name) for suffix, name in LOADER_BY_SUFFIX.items()
    }
    documents: list[Document] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            loader = loaders.DirectoryLoader(
                path,
                glob=glob,
                loader_cls=loaders.TextLoader,
                loader_mapping=loader_for_suffix,
                show_progress=show_progress,
            )
        elif path.is_file():
            loader = loader_for_suffix.get(path.suffix.lower(), loaders.TextLoader)(path)
        else:
            raise CommandError(f"{raw}: no such file or directory")
        documents.extend(loader.lazy_load())
    if not documents:
        raise CommandError(f"no documents found under {', '.join(paths)} matching {glob!r}")
    return documents


def _split_documents(documents: list[Document], chunk_size: int, overlap: int) -> list[Document]:
    """Split each document with the preset for its language (plain text otherwise)."""
    from ragline.splitters import Language, RecursiveCharacterTextSplitter

    splitters: dict[str, Any] = {}
    chunks: list[Document] = []
    for document in documents:
        suffix = Path(str(document.metadata.get("source", ""))).suffix.lower()
        language = LANGUAGE_BY_SUFFIX.get(suffix, "")
        splitter = splitters.get(language)
        if splitter is None:
            options = {"chunk_size": chunk_size, "chunk_overlap": overlap, "add_start_index": True}
            if language:
                splitter = RecursiveCharacterTextSplitter.from_language(
                    Language[language], **options
                )
            else:
                splitter = RecursiveCharacterTextSplitter(**options)
            splitters[language] = splitter
        chunks.extend(splitter.split_documents([document]))
    return chunks


def command_index(args: argparse.Namespace) -> int:
    """Index PATHs into the store, re-embedding only chunks that changed since the last run.

    The store folder keeps ``records.sqlite`` (a SQLRecordManager: the content hash and
    source of every stored chunk). A re-run loads the saved FAISS store and runs
    :func:`ragline.indexing.index` with incremental cleanup keyed on ``source`` (``--full``:
    also delete the chunks of files no longer given). The records are written to a copy
    that replaces ``records.sqlite`` only after the store is saved, so a crash never
    leaves records of chunks the saved store lacks.
    """
    from ragline.indexing import SQLRecordManager, index
    from ragline.vectorstores import FAISS

    if args.chunk_size <= 0 or not 0 <= args.chunk_overlap < args.chunk_size:
        raise CommandError(
            f"need 0 <= --chunk-overlap < --chunk-size, got {args.chunk_overlap} and "
            f"{args.chunk_size}"
        )
    folder = Path(args.store)
    previous = _read_manifest(folder)
    built_with = previous.get("embedding") if previous else None
    if args.embedding is None:
        args.embedding = built_with or "minilm"
    elif built_with is not None and args.embedding != built_with:
        raise CommandError(
            f"{folder} was built with the {built_with!r} embedding, not {args.embedding!r}; "
            f"re-run with --embedding {built_with} or index into a new --store folder"
        )
    show_progress = not args.quiet and sys.stderr.isatty()
    # absolute paths: the chunks' source must not depend on the directory we run from
    paths = [str(Path(raw).absolute()) for raw in args.paths]
    documents = _load_documents(paths, args.glob, show_progress)
    chunks = _split_documents(documents, args.chunk_size, args.chunk_overlap)
    _note(args, f"loaded {len(documents)} documents, split into {len(chunks)} chunks")
    embeddings = make_embeddings(args.embedding, {"show_progress": not args.quiet})
    folder.mkdir(parents=True, exist_ok=True)
    records_path, work_path = folder / RECORDS_FILE, folder / (RECORDS_FILE + ".tmp")
    # A store without records (or records without a store) starts over: its chunks
    # could not be matched to records, so they would never be cleaned up.
    resume = built_with is not None and records_path.is_file() and (folder / FAISS_FOLDER).is_dir()
    if resume:
        store = FAISS.load_local(folder / FAISS_FOLDER, embeddings)
        shutil.copyfile(records_path, work_path)
    else:
        store = FAISS(embeddings)
        work_path.unlink(missing_ok=True)
    records = SQLRecordManager("ragline-faiss", db_url=f"sqlite:///{work_path.absolute()}")
    try:
        result = index(
            chunks, records, store, cleanup="full" if args.full else "incremental",
            source_id_key="source",
        )  # fmt: skip
        records.close()
        store.save_local(folder / FAISS_FOLDER)
        os.replace(work_path, records_path)
    finally:
        records.close()
        work_path.unlink(missing_ok=True)
    manifest = {
        "embedding": args.embedding,
        "embedding_options": {},
        "chunk_size": args.chunk_size,
        "chunk_overlap": args.chunk_overlap,
        "documents": len(documents),
        "chunks": store.count(),
    }
    tmp = folder / (STORE_MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, folder / STORE_MANIFEST)
    if not args.quiet:
        print(
            f"added {result['num_added']}, updated {result['num_updated']}, "
            f"skipped {result['num_skipped']}, deleted {result['num_deleted']}"
        )
    _note(args, f"{folder} holds {store.count()} chunks")
    return 0


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    """The store's ragline.json, or None when the folder holds no store yet."""
    path = folder / STORE_MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise CommandError(f"{path}: not a valid store manifest ({err})") from None
    if not isinstance(manifest, dict):
        raise CommandError(f"{path}: not a valid store manifest (not a JSON object)")
    return manifest


# ---------------------------------------------------------------- query


def open_store(folder_name: str) -> Any:
    """Load a store written by ``ragline index``."""
    from ragline.vectorstores import FAISS

    folder = Path(folder_name)
    manifest = _read_manifest(folder)
    if manifest is None:
        raise CommandError(
            f"{folder}: not a ragline store (no {STORE_MANIFEST}); run 'ragline index' first"
        )
    embeddings = make_embeddings(manifest["embedding"], manifest.get("embedding_options", {}))
    return FAISS.load_local(folder / FAISS_FOLDER, embeddings)


def _search_kwargs(args: argparse.Namespace) -> dict[str, Any]:
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
    return kwargs


def _retrieve_with_scores(
    store: Any, query: str, args: argparse.Namespace
) -> list[tuple[Document, float | None]]:
    """Ranked chunks with their relevance in [0, 1] (MMR ranks by diversity: no score)."""
    kwargs = _search_kwargs(args)
    if args.search_type == "mmr":
        documents = store.max_marginal_relevance_search(query, **kwargs)
        return [(document, None) for document in documents]
    return store.similarity_search_with_relevance_scores(query, **kwargs)


def _location(document: Document) -> str:
    source = document.metadata.get("source", "?")
    start = document.metadata.get("start_index")
    return f"{source}" if start is None else f"{source} @ {start}"


def command_query(args: argparse.Namespace) -> int:
    store = open_store(args.store)
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
        print(f"[{rank}]{shown}  {_location(document)}")
        print(_indent(document.page_content, args.width))
        print()
    return 0


def _indent(text: str, width: int) -> str:
    lines = text.strip().splitlines()
    if width and len(lines) > width:
        lines = [*lines[:width], "..."]
    return "\n".join("    " + line for line in lines)


# ---------------------------------------------------------------- ask


def command_ask(args: argparse.Namespace) -> int:
    from ragline.chains import create_documents_chain, create_retrieval_chain

    store = open_store(args.store)
    retriever = store.as_retriever(search_type=args.search_type, search_kwargs=_search_kwargs(args))
    base_url = os.environ.get("OPENAI_BASE_URL")
    if not base_url and not os.environ.get("OPENAI_API_KEY"):
        print(
            "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY); "
            "showing the retrieved passages instead",
            file=sys.stderr,
        )
        for rank, document in enumerate(retriever.invoke(args.question), 1):
            print(f"[{rank}] {_location(document)}")
            print(_indent(document.page_content, args.width))
            print()
        return 0

    from ragline.chat_models import ChatOpenAI

    model = ChatOpenAI(model=args.model, temperature=0)
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
            print(f"  [{rank}] {_location(document)}")
    return 0


# ---------------------------------------------------------------- main


def _note(args: argparse.Namespace, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragline", description="Index documents and ask questions about them."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    index = commands.add_parser("index", help="load, split, embed and save a FAISS store")
    index.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to index")
    index.add_argument("--store", required=True, help="folder to write the store to")
    index.add_argument("--glob", default="**/*", help="files to take from folders (default: **/*)")
    index.add_argument("--chunk-size", type=int, default=1000)
    index.add_argument("--chunk-overlap", type=int, default=150)
    index.add_argument(
        "--embedding",
        choices=EMBEDDING_CHOICES,
        default=None,
        help="default: what the store was built with, else minilm",
    )
    index.add_argument(
        "--full", action="store_true", help="also delete the chunks of files not given in this run"
    )
    index.set_defaults(handler=command_index)

    def add_search_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--store", required=True, help="folder written by 'ragline index'")
        sub.add_argument("-k", type=int, default=4, help="how many chunks to retrieve (default: 4)")
        sub.add_argument("--search-type", choices=SEARCH_TYPES, default="similarity")
        sub.add_argument("--score-threshold", type=float, default=None)
        sub.add_argument(
            "--filter", default=None, help='metadata filter as JSON, e.g. {"source": "a.txt"}'
        )
        sub.add_argument(
            "--width", type=int, default=12, help="lines of each chunk to show (0: all)"
        )

    query = commands.add_parser("query", help="print the chunks most similar to a text")
    query.add_argument("text")
    add_search_options(query)
    query.add_argument("--json", action="store_true", help="print the results as JSON")
    query.set_defaults(handler=command_query)

    ask = commands.add_parser("ask", help="answer a question with a chat model over the store")
    ask.add_argument("question")
    add_search_options(ask)
    ask.add_argument("--chain", choices=CHAIN_TYPES, default="stuff")
    ask.add_argument("--model", default=os.environ.get("RAGLINE_MODEL", "gpt-4o-mini"))
    ask.set_defaults(handler=command_ask)

    for sub in (index, query, ask):
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

"""What every ``ragline`` sub-command shares: its error, lazy choices, and the printing.

A sub-command module (``_index.py``, ``_query.py`` ...) parses its arguments and calls the
library; the lines it prints to the user are written here once, so ``query``, ``ask`` and
``chat`` show a passage, an answer and its sources the same way, locally or from a server.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ragline.core import Document, RaglineError

if TYPE_CHECKING:
    from ragline.core import BaseChatModel

# A string: argparse's action class is not subscriptable at run time.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers`` returns: each ``add_<name>_command`` adds its parser to it."""

SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold", "hybrid", "bm25")
# --fusion: HybridRetriever's fusions (ragline.retrievers.HYBRID_FUSIONS, named here so the
# command starts without importing the retrievers; a test holds the two equal)
HYBRID_FUSIONS = ("adaptive", "rrf", "relative_score", "dbsf")
# --score-threshold when none is given, by the store's embedding. The packaged MiniLM's
# relevance is (1 + cosine) / 2: on ragline's dev sets the best chunk for a question about
# something else scored 0.58-0.73 (median 0.61), the chunk answering a question 0.64-0.93
# (median 0.80); 0.70 drops nine in ten off-topic hits and keeps nine in ten answers.
DEFAULT_SCORE_THRESHOLDS = {
    "minilm": 0.70,
    "minilm-onnx": 0.70,
    "minilm-torch": 0.70,
    "minilm-int8": 0.70,
}
FALLBACK_SCORE_THRESHOLD = 0.5
NO_MODEL = "no chat model configured (set OPENAI_BASE_URL and/or OPENAI_API_KEY)"
# ``ask`` that shows passages because no model answers: a script must tell it from an
# answer (0) and from an error (2).
NO_ANSWER_STATUS = 3


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


def add_embedding_option(sub: argparse.ArgumentParser, help: str) -> None:
    """``--embedding NAME``, one of the store folder's embedding names."""
    sub.add_argument(
        "--embedding",
        choices=LazyChoices(_embedding_names),
        metavar="NAME",
        default=None,
        help=help,
    )


def add_chain_option(sub: argparse.ArgumentParser) -> None:
    """``--chain TYPE``, one of ``ragline.chains.CHAIN_TYPES`` (default: stuff)."""
    sub.add_argument(
        "--chain",
        choices=LazyChoices(_chain_types),
        default="stuff",
        metavar="TYPE",
        help="%(choices)s (default: stuff)",
    )


def add_model_option(sub: argparse.ArgumentParser) -> None:
    """``--model NAME`` (default: ``$RAGLINE_MODEL``, else gpt-4o-mini)."""
    sub.add_argument(
        "--model",
        default=os.environ.get("RAGLINE_MODEL", "gpt-4o-mini"),
        metavar="NAME",
        help="the chat model's name at the OpenAI-protocol server set by $OPENAI_BASE_URL / "
        "$OPENAI_API_KEY (default: $RAGLINE_MODEL, else gpt-4o-mini)",
    )


def require_text(what: str, text: str, *, hint: str) -> str:
    """``text`` when it holds more than whitespace (a search for nothing finds arbitrary
    chunks).

    Raises:
        CommandError: ``text`` is empty or whitespace only.
    """
    if not text.strip():
        raise CommandError(f"the {what} is empty ({text!r}); {hint}")
    return text


def default_score_threshold(embedding: str | None) -> float:
    """The ``similarity_score_threshold`` cut-off for a store built with ``embedding``."""
    return DEFAULT_SCORE_THRESHOLDS.get(embedding or "", FALLBACK_SCORE_THRESHOLD)


def chat_model(args: argparse.Namespace) -> BaseChatModel | None:
    """``ChatOpenAI`` for ``--model`` when an OpenAI-protocol server is configured
    (``$OPENAI_BASE_URL`` or ``$OPENAI_API_KEY``), else None."""
    if not (os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")):
        return None
    from ragline.chat_models import ChatOpenAI

    return ChatOpenAI(model=args.model, temperature=0)


def note(args: argparse.Namespace, message: str) -> None:
    """A progress line on stderr (not with ``--quiet``)."""
    if not args.quiet:
        print(message, file=sys.stderr)


def warn(message: str) -> None:
    """A warning on stderr, shown even with ``--quiet``."""
    print(f"ragline: warning: {message}", file=sys.stderr)


def place(document: Document) -> tuple[str, str | None]:
    """Where a chunk comes from: its file's path relative to the indexed folder (its
    ``source`` when it has no ``path``: a store indexed another way) and its section's
    heading path, or None outside any section."""
    metadata = document.metadata
    path = metadata.get("path")
    if not isinstance(path, str) or not path:
        path = str(metadata.get("source", "?"))
    section = metadata.get("section")
    return path, section if isinstance(section, str) and section else None


def passage_row(rank: int, document: Document, **before_id: Any) -> dict[str, Any]:
    """A ranked passage as ``--json`` prints it (``before_id``: keys between rank and id,
    such as query's score)."""
    source, section = place(document)
    return {
        "rank": rank,
        **before_id,
        "id": document.id,
        "source": source,
        "section": section,
        "metadata": document.metadata,
        "content": document.page_content,
    }


def location(document: Document) -> str:
    """``path § section`` (or the path alone) for printing where a chunk comes from."""
    path, section = place(document)
    return path if section is None else f"{path} § {section}"


def indent(text: str, width: int) -> str:
    """The first ``width`` lines of a chunk (0: all), indented for printing."""
    lines = text.strip().splitlines()
    if width and len(lines) > width:
        lines = [*lines[:width], "..."]
    return "\n".join("    " + line if line else "" for line in lines)  # no trailing blanks


def print_passages(documents: Iterable[Document], width: int, *, spaced: bool = True) -> None:
    """Each retrieved passage, ranked, with where it comes from (a blank line after each
    when ``spaced``): what ``ask`` and ``chat`` show when no model can answer."""
    for rank, document in enumerate(documents, 1):
        print(f"[{rank}] {location(document)}")
        print(indent(document.page_content, width))
        if spaced:
            print()


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


def print_answer_json(question: str, answer: str | None, sources: Iterable[Document]) -> None:
    """``ask --json``: the question, the answer (None when no model answered) and the
    passages it came from, ranked, as one JSON object on stdout."""
    rows = [passage_row(rank, document) for rank, document in enumerate(sources, 1)]
    print(
        json.dumps(
            {"question": question, "answer": answer, "sources": rows}, indent=2, ensure_ascii=False
        )
    )


def collect_answer(chunks: Iterator[Any]) -> tuple[str, list[Document]]:
    """The whole answer of a retrieval chain's streamed chunks, and its sources."""
    sources: list[Document] = []
    pieces: list[str] = []
    for chunk in chunks:
        sources = chunk.get("context", sources)
        pieces.append(chunk.get("answer", ""))
    return "".join(pieces), list(sources)


def questions() -> Iterator[str]:
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

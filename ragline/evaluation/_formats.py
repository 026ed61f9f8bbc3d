"""Reading and writing the files of retrieval evaluation: BEIR and TREC formats.

* **Queries**: BEIR ``queries.jsonl`` (one ``{"_id": ..., "text": ...}`` per line) or a
  TREC-style tab-separated file (``query id <TAB> text``).
* **Qrels** (judgements): BEIR ``qrels/test.tsv`` (``query-id <TAB> corpus-id <TAB>
  score``, with or without its header line) or TREC (``query-id iteration doc-id
  relevance``, separated by white space).
* **Corpus**: BEIR ``corpus.jsonl`` (``{"_id", "title", "text"}`` per line).
* **Runs**: TREC (``query-id Q0 doc-id rank score tag``).

Every reader raises :class:`~ragline.core.InvalidInputError` naming the file and line of a
malformed row, and :class:`~ragline.core.LoaderError` for a file it cannot read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragline.core import InvalidInputError, LoaderError

__all__ = [
    "load_beir",
    "load_corpus",
    "load_qrels",
    "load_queries",
    "read_trec_run",
    "write_trec_run",
]

PathLike = str | os.PathLike[str]


def _lines(path: PathLike) -> Iterator[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield number, line.rstrip("\n")
    except (OSError, UnicodeDecodeError) as err:
        raise LoaderError(f"cannot read {os.fspath(path)}: {err}") from err


def _json_rows(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in _lines(path):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise InvalidInputError(f"{os.fspath(path)}:{number}: not JSON ({err})") from None
        if not isinstance(row, dict) or "_id" not in row:
            raise InvalidInputError(
                f"{os.fspath(path)}:{number}: expected a JSON object with an '_id', got "
                f"{line[:80]!r}"
            )
        yield number, row


def load_queries(path: PathLike) -> dict[str, str]:
    """Read queries: BEIR JSON Lines (``.jsonl``) or ``id <TAB> text`` lines.

    Returns:
        query id -> query text, in file order.

    Raises:
        InvalidInputError: a malformed line, or the same id twice.
        LoaderError: the file cannot be read.
    """
    queries: dict[str, str] = {}
    rows: Iterator[tuple[int, str, Any]]
    if str(path).endswith(".jsonl"):
        rows = ((n, str(row["_id"]), row.get("text")) for n, row in _json_rows(path))
    else:
        rows = ((n, *_split_query_line(path, n, line)) for n, line in _lines(path))
    for number, query_id, text in rows:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError(f"{os.fspath(path)}:{number}: query {query_id!r} has no text")
        if query_id in queries:
            raise InvalidInputError(f"{os.fspath(path)}:{number}: query id {query_id!r} repeated")
        queries[query_id] = text
    return queries


def _split_query_line(path: PathLike, number: int, line: str) -> tuple[str, str]:
    query_id, tab, text = line.partition("\t")
    if not tab:
        raise InvalidInputError(
            f"{os.fspath(path)}:{number}: expected 'query id <TAB> text', got {line[:80]!r}"
        )
    return query_id.strip(), text


def load_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read relevance judgements in BEIR (3 columns) or TREC (4 columns) format.

    A BEIR header line (``query-id corpus-id score``) is skipped. Tab-separated files
    are split on tabs (document ids may then hold spaces), others on white space.

    Returns:
        query id -> {document id: relevance grade}.

    Raises:
        InvalidInputError: a line without 3 or 4 columns or with a non-integer grade.
        LoaderError: the file cannot be read.
    """
    qrels: dict[str, dict[str, int]] = {}
    for number, line in _lines(path):
        cells = line.split("\t") if "\t" in line else line.split()
        cells = [cell.strip() for cell in cells]
        if len(cells) == 4:
            query_id, _, doc_id, grade = cells
        elif len(cells) == 3:
            query_id, doc_id, grade = cells
        else:
            raise InvalidInputError(
                f"{os.fspath(path)}:{number}: expected 'query doc grade' (BEIR) or "
                f"'query iteration doc grade' (TREC), got {line[:80]!r}"
            )
        try:
            value = int(grade)
        except ValueError:
            if number == 1 and len(cells) == 3:
                continue  # the BEIR header
            raise InvalidInputError(
                f"{os.fspath(path)}:{number}: relevance {grade!r} is not an integer"
            ) from None
        qrels.setdefault(query_id, {})[doc_id] = value
    return qrels


def load_corpus(path: PathLike) -> dict[str, dict[str, Any]]:
    """Read a BEIR ``corpus.jsonl``: document id -> ``{"title", "text", "metadata"}``."""
    corpus: dict[str, dict[str, Any]] = {}
    for number, row in _json_rows(path):
        if not isinstance(row.get("text"), str):
            raise InvalidInputError(f"{os.fspath(path)}:{number}: document has no 'text'")
        corpus[str(row["_id"])] = {
            "title": str(row.get("title") or ""),
            "text": row["text"],
            "metadata": dict(row.get("metadata") or {}),
        }
    return corpus


def load_beir(
    folder: PathLike, split: str = "test"
) -> tuple[dict[str, dict[str, Any]], dict[str, str], dict[str, dict[str, int]]]:
    """Read a BEIR data set folder: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/SPLIT.tsv``.

    Returns:
        ``(corpus, queries, qrels)``; only the queries the qrels judge are kept.
    """
    root = Path(folder)
    qrels = load_qrels(root / "qrels" / f"{split}.tsv")
    queries = {q: t for q, t in load_queries(root / "queries.jsonl").items() if q in qrels}
    return load_corpus(root / "corpus.jsonl"), queries, qrels


def write_trec_run(path: PathLike, runs: Mapping[str, Sequence[str]], tag: str = "ragline") -> None:
    """Write ranked document ids as a TREC run (score ``1 / rank``, so trec_eval keeps the
    order)."""
    with open(path, "w", encoding="utf-8") as handle:
        for query_id, ranked in runs.items():
            for rank, doc_id in enumerate(dict.fromkeys(ranked), start=1):
                handle.write(f"{query_id} Q0 {doc_id} {rank} {1 / rank!r} {tag}\n")


def read_trec_run(path: PathLike) -> dict[str, list[str]]:
    """Read a TREC run: query id -> document ids ranked as trec_eval ranks them (by score,
    highest first; ties by document id, descending)."""
    scored: dict[str, list[tuple[float, str]]] = {}
    for number, line in _lines(path):
        cells = line.split()
        if len(cells) != 6:
            raise InvalidInputError(
                f"{os.fspath(path)}:{number}: expected 'query Q0 doc rank score tag', "
                f"got {line[:80]!r}"
            )
        try:
            score = float(cells[4])
        except ValueError:
            raise InvalidInputError(
                f"{os.fspath(path)}:{number}: score {cells[4]!r} is not a number"
            ) from None
        scored.setdefault(cells[0], []).append((score, cells[2]))
    return {
        query_id: [doc_id for _, doc_id in sorted(pairs, reverse=True)]
        for query_id, pairs in scored.items()
    }

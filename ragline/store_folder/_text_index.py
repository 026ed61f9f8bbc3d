"""The store folder's keyword index: BM25 over the stored chunks, saved beside the vectors.

Files (JSON and numpy arrays, no pickle)::

    bm25.json   format, tokenizer options, k1, b, the chunk ids (one per row), the terms,
                the sha256 of bm25.npz, and the name of the folder it was saved into
    bm25.npz    per-chunk rows: doc_ptr, doc_terms, doc_tfs (see BM25Index.from_rows)

**The vector store is the source of truth.** The keyword index is derived from it and
carries the ids of the chunks it covers; whoever opens it checks those ids against the
store's and brings the index in step (drops chunks the store no longer has, tokenizes
the ones it lacks), so hybrid search never disagrees with the vectors it is fused with.
A commit writes the index into the new generation's folder beside the store (each file
written to a temporary name and renamed; the JSON names the arrays' checksum, so a JSON
and arrays from different runs are never used together), and the manifest, written
last, is the commit point: a run stopped before it leaves the previous generation, index
and store together. An index that is behind all the same (copied in from elsewhere, or
from a folder written before generations) is repaired from the store. Updating costs
what changed: only new chunks are tokenized. A commit whose committed index names its
own generation (so that generation's commit wrote it, in step with its store) applies
only what the store changed since and reads no stored chunk back; any other index is
checked against every stored chunk.

The tokenizer is part of the manifest (``"bm25": {"tokenizer": {...}}``); an index made
with other tokenizer options is rebuilt.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ragline.core import Document
from ragline.retrievers import BM25Index, BM25Tokenizer
from ragline.retrievers._bm25 import rows_fit
from ragline.retrievers._tokenizer import TEXT_SEPARATOR, separated_tokens

__all__ = [
    "DEFAULT_TOKENIZER",
    "LocalRows",
    "RowsAhead",
    "TextIndex",
    "TextRows",
    "load_text_index",
    "load_text_rows",
    "local_rows",
    "save_text_index",
    "save_text_rows",
    "store_records",
    "sync_text_index",
    "sync_text_rows",
    "update_text_rows",
]

JSON_FILE = "bm25.json"
ARRAYS_FILE = "bm25.npz"
FORMAT = 1
# What a new store folder's keyword index uses: plain lowercase word tokens. On the dev
# sets (ragline.retrievers._hybrid) stemming with stopwords helped BM25 alone on the
# manuals but made the hybrid worse; set "bm25": {"tokenizer": {...}} in ragline.json
# before the first run for another choice (e.g. {"language": "english", "stem": true,
# "stopwords": true}, which needs PyStemmer).
DEFAULT_TOKENIZER: dict[str, Any] = {"language": "english", "stem": False, "stopwords": False}


@dataclass
class TextIndex:
    """A BM25 index over chunks identified by id (row ``i`` is chunk ``ids[i]``)."""

    ids: list[str]
    index: BM25Index
    tokenizer: BM25Tokenizer

    def row_of(self) -> dict[str, int]:
        """Chunk id -> row."""
        return {chunk_id: row for row, chunk_id in enumerate(self.ids)}


@dataclass
class TextRows:
    """A keyword index as it is saved: per chunk its distinct term numbers and counts
    (``doc_ptr``/``doc_terms``/``doc_tfs``, as :meth:`BM25Index.from_rows` takes them),
    without the postings a search needs. A commit reads, updates and writes these only:
    building the postings sorts every row's terms, and a commit never searches.

    ``saved_in`` is the name of the folder the index was saved into, as its JSON records
    it ("" when it records none): a generation's own index names that generation, one
    copied there from elsewhere does not.
    """

    ids: list[str]
    terms: list[str]
    doc_ptr: np.ndarray
    doc_terms: np.ndarray
    doc_tfs: np.ndarray
    tokenizer: BM25Tokenizer
    k1: float = 1.5
    b: float = 0.75
    saved_in: str = ""

    @classmethod
    def of(cls, text_index: TextIndex) -> TextRows:
        index = text_index.index
        return cls(text_index.ids, list(index.terms), index.doc_ptr, index.doc_terms,
                   index.doc_tfs, text_index.tokenizer, index.k1, index.b)  # fmt: skip

    def to_index(self) -> TextIndex:
        """The searchable index (its postings built)."""
        index = BM25Index.from_rows(
            self.terms, self.doc_ptr, self.doc_terms, self.doc_tfs, k1=self.k1, b=self.b
        )
        return TextIndex(self.ids, index, self.tokenizer)


def default_tokenizer_options() -> dict[str, Any]:
    """A copy of :data:`DEFAULT_TOKENIZER`."""
    return dict(DEFAULT_TOKENIZER)


def store_records(store: Any) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """Every stored chunk's id, text and metadata, in the store's order.

    Uses the store's ``snapshot()`` (FAISS); other stores are not store-folder backends.
    """
    snapshot = store.snapshot()
    return list(snapshot.ids), list(snapshot.texts), list(snapshot.metadatas)


def sync_text_index(
    current: TextIndex | None,
    ids: Sequence[str],
    texts: Sequence[str],
    tokenizer: BM25Tokenizer,
) -> tuple[TextIndex, int, int]:
    """Bring ``current`` in step with the chunks ``ids``/``texts`` (the store's).

    Rows of chunks no longer stored are dropped, chunks not indexed yet are tokenized
    and added (an index with another tokenizer is rebuilt). Terms no row uses any more
    are dropped.

    Returns:
        ``(index, added, removed)``.
    """
    rows = None if current is None else TextRows.of(current)
    synced, added, removed = sync_text_rows(rows, ids, texts, tokenizer)
    return synced.to_index(), added, removed


def sync_text_rows(
    current: TextRows | None,
    ids: Sequence[str],
    texts: Sequence[str],
    tokenizer: BM25Tokenizer,
    ahead: RowsAhead | None = None,
) -> tuple[TextRows, int, int]:
    """:func:`sync_text_index` on rows (no postings built); the new chunks' rows are taken
    from ``ahead`` when it computed them (see :class:`RowsAhead`)."""
    if current is not None and current.tokenizer != tokenizer:
        current = None
    wanted = dict(zip(ids, texts, strict=True))
    if current is None:
        kept_rows: list[int] = []
        have: set[str] = set()
    else:
        kept_rows = [row for row, chunk_id in enumerate(current.ids) if chunk_id in wanted]
        have = {current.ids[row] for row in kept_rows}
    new_ids = [chunk_id for chunk_id in ids if chunk_id not in have]
    new_texts = [wanted[chunk_id] for chunk_id in new_ids]
    rows = _with_rows(current, kept_rows, new_ids, new_texts, tokenizer, ahead)
    removed = 0 if current is None else len(current.ids) - len(kept_rows)
    return rows, len(new_ids), removed


def update_text_rows(
    current: TextRows,
    removed: Sequence[str],
    added_ids: Sequence[str],
    added_texts: Sequence[str],
    ahead: RowsAhead | None = None,
) -> TextRows:
    """``current`` with the rows of ``removed`` dropped and ``added_ids`` tokenized (an id
    in both is replaced): the update by what changed, for an index known to be in step
    with the store before the change. Only the added texts are read (or their rows taken
    from ``ahead``); the rest costs one pass over the ids when rows are dropped, and
    copies of the row arrays.
    """
    gone = {*removed, *added_ids}
    kept: list[int] | None = None  # None: every row
    if gone:
        kept = [row for row, chunk_id in enumerate(current.ids) if chunk_id not in gone]
    return _with_rows(current, kept, list(added_ids), list(added_texts), current.tokenizer, ahead)


def _with_rows(
    current: TextRows | None,
    kept_rows: list[int] | None,
    new_ids: list[str],
    new_texts: list[str],
    tokenizer: BM25Tokenizer,
    ahead: RowsAhead | None = None,
) -> TextRows:
    """``current``'s ``kept_rows`` (in order; None: all of them) followed by new rows for
    ``new_texts`` (from ``ahead`` when it has them); terms no row uses any more are dropped."""
    if current is None:
        current = TextRows([], [], np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                           np.zeros(0, dtype=np.int32), tokenizer)  # fmt: skip
    if kept_rows is not None and len(kept_rows) == len(current.ids):
        kept_rows = None  # every row (the callers' rows are increasing): nothing to drop
    vocabulary = list(current.terms)
    ptr, terms, tfs = current.doc_ptr, current.doc_terms, current.doc_tfs
    found = None if ahead is None else ahead.take(vocabulary, new_ids, new_texts, tokenizer)
    new_terms, new_tfs, new_sizes = found or _rows_of(new_texts, vocabulary, tokenizer)
    # term numbers and counts as saved (int32): a large index is copied once per update
    new_terms, new_tfs = new_terms.astype(np.int32), new_tfs.astype(np.int32)
    if kept_rows is None:  # nothing dropped: the rows as they are, then the new ones
        kept_ids = list(current.ids)
        all_terms = np.concatenate([terms, new_terms])
        all_tfs = np.concatenate([tfs, new_tfs])
        doc_ptr = np.concatenate([ptr, ptr[-1] + np.cumsum(new_sizes, dtype=np.int64)])
    else:
        kept_ids = [current.ids[row] for row in kept_rows]
        starts, ends = ptr[kept_rows], ptr[np.asarray(kept_rows, dtype=np.int64) + 1]
        sizes = ends - starts
        # the positions of the kept rows' entries: each row's start, counted up to its size
        offsets = np.cumsum(sizes) - sizes
        take = np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - offsets, sizes)
        all_terms = np.concatenate([terms[take], new_terms])
        all_tfs = np.concatenate([tfs[take], new_tfs])
        row_sizes = np.concatenate([sizes, new_sizes]).astype(np.int64)
        doc_ptr = np.concatenate([[0], np.cumsum(row_sizes)])
        # drop terms no row uses (deleted chunks' words), renumbering the rest
        used = np.flatnonzero(np.bincount(all_terms, minlength=len(vocabulary)))  # no sort
        if len(used) < len(vocabulary):
            remap = np.full(len(vocabulary), -1, dtype=np.int32)
            remap[used] = np.arange(len(used), dtype=np.int32)
            all_terms = remap[all_terms]
            vocabulary = [vocabulary[t] for t in used.tolist()]
    return TextRows(
        [*kept_ids, *new_ids], vocabulary, np.asarray(doc_ptr, dtype=np.int64),
        np.asarray(all_terms, dtype=np.int32), np.asarray(all_tfs, dtype=np.int32),
        tokenizer, current.k1, current.b,
    )  # fmt: skip


class _Numbering(dict[str, int]):
    """Term -> its number in ``vocabulary``; a term not there yet is appended to it."""

    def __init__(self, vocabulary: list[str]) -> None:
        super().__init__((term, number) for number, term in enumerate(vocabulary))
        self.vocabulary = vocabulary

    def __missing__(self, term: str) -> int:
        number = self[term] = len(self.vocabulary)
        self.vocabulary.append(term)
        return number


def _rows_of(
    texts: Sequence[str],
    vocabulary: list[str],
    tokenizer: BM25Tokenizer,
    numbers: _Numbering | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The index rows of ``texts``: every text's distinct term numbers in increasing order
    and their counts, flattened, and each text's number of distinct terms. A term not in
    ``vocabulary`` is appended to it (numbered in order of first appearance; ``numbers``:
    its numbering, kept from an earlier call).

    Done over all texts at once (counting in numpy), not term by term in Python.
    """
    numbers = _Numbering(vocabulary) if numbers is None else numbers
    if type(tokenizer) is BM25Tokenizer and numbers.get(TEXT_SEPARATOR, -1) == -1:
        # every text's tokens, a separator after each (numbered -1, never a term), in
        # one list: a few calls for the whole batch instead of one per text
        numbers[TEXT_SEPARATOR] = -1
        separated = separated_tokens(tokenizer, texts)
        term_of = np.fromiter(map(numbers.__getitem__, separated), np.int64, len(separated))
        separators = term_of < 0
        row_of = np.cumsum(separators, dtype=np.int64)[~separators]  # separators before it
        term_of = term_of[~separators]
    else:  # a tokenizer of another type could make any token
        token_lists = [tokenizer(text) for text in texts]
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        # one pass over the tokens, numbered as they come (a dict look-up each, in C)
        tokens = itertools.chain.from_iterable(token_lists)
        term_of = np.fromiter(map(numbers.__getitem__, tokens), np.int64, int(lengths.sum()))
        row_of = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    # one key per (row, term): sorted unique keys are each row's terms in increasing order
    width = max(len(vocabulary), 1)
    keys, counts = np.unique(row_of * width + term_of, return_counts=True)
    sizes = np.bincount(keys // width, minlength=len(texts)).astype(np.int64)
    return keys % width, counts.astype(np.int64), sizes


@dataclass
class LocalRows:
    """:func:`_rows_of` of some texts from an empty vocabulary (``terms``: the terms in
    order of first appearance): rows computed away from the index they go into (a worker
    process), numbered into its vocabulary by :func:`_numbered`."""

    terms: list[str]
    doc_terms: np.ndarray
    doc_tfs: np.ndarray
    sizes: np.ndarray
    tokenizer: dict[str, Any]  # the options they were tokenized with (BM25Tokenizer.to_dict)


def local_rows(texts: Sequence[str], tokenizer: BM25Tokenizer) -> LocalRows:
    """The rows of ``texts`` numbered from an empty vocabulary."""
    vocabulary: list[str] = []
    terms, tfs, sizes = _rows_of(texts, vocabulary, tokenizer)
    return LocalRows(vocabulary, terms.astype(np.int32), tfs.astype(np.int32), sizes,
                     tokenizer.to_dict())  # fmt: skip


_NEW = -2  # never a term's number (the text separator's is -1)


def _numbered(rows: LocalRows, numbers: _Numbering) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`_rows_of` gives for the texts of ``rows`` with ``numbers``: their terms
    numbered in order of first appearance (new terms appended to its vocabulary in that
    order, as a pass over the tokens would), each row's terms sorted again by number."""
    # _NEW: a term new to the vocabulary; those are numbered in bulk, in order, not one
    # __missing__ call each
    mapping = np.array(list(map(numbers.get, rows.terms, itertools.repeat(_NEW))), dtype=np.int64)
    new_at = mapping == _NEW
    if new_at.any():
        vocabulary = numbers.vocabulary
        new = list(itertools.compress(rows.terms, new_at.tolist()))
        numbered = range(len(vocabulary), len(vocabulary) + len(new))
        mapping[new_at] = numbered
        numbers.update(zip(new, numbered, strict=True))
        vocabulary.extend(new)
    terms = mapping[rows.doc_terms]
    sizes = np.asarray(rows.sizes, dtype=np.int64)
    row_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    # a row's terms are distinct: the (row, term) keys are, and sorting them orders each
    # row's terms by their numbers here
    order = np.argsort(row_of * max(len(numbers.vocabulary), 1) + terms, kind="stable")
    return terms[order], np.asarray(rows.doc_tfs, dtype=np.int64)[order], sizes


class RowsAhead:
    """Keyword-index rows of chunks a run is going to add, computed before the commit that
    writes them.

    ``index_paths`` knows the chunks it will add (those it hands to the embedding thread)
    as soon as a group of files is split: their rows are computed then, while the model
    embeds, so the commit after the last embedding block appends them instead of
    tokenizing every new chunk. Rows depend on the order terms first appear (they are
    numbered so), so they are computed in the order the chunks will be added, from the
    vocabulary the commit will start from; :meth:`take` hands them out only when a
    commit asks for exactly the next texts, from exactly that vocabulary. Anything else
    (a guess that was wrong, rows dropped with their terms at a checkpoint, another
    tokenizer) gets None, and the commit tokenizes as it would without this: what is
    written never depends on the guess.

    Args:
        vocabulary: the terms of the keyword index the next commit starts from.
        tokenizer: the keyword index's tokenizer.
    """

    def __init__(self, vocabulary: Sequence[str], tokenizer: BM25Tokenizer) -> None:
        self.tokenizer = tokenizer
        self._numbers = _Numbering(list(vocabulary))
        self.ids: list[str] = []
        self.texts: list[str] = []
        self._parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._taken_vocabulary = len(vocabulary)  # terms the rows handed out (and the start) use
        self._wrong = False  # a take did not match: nothing more is handed out

    def add(self, ids: Sequence[str], texts: Sequence[str], rows: LocalRows | None = None) -> None:
        """Compute the rows of the chunks ``ids``/``texts``, to be added after those of
        earlier calls; ``rows``: :func:`local_rows` of exactly these texts with this
        tokenizer, computed elsewhere (a worker process), only numbered here."""
        if self._wrong or not ids:
            return
        if rows is not None and rows.tokenizer == self.tokenizer.to_dict():
            terms, tfs, sizes = _numbered(rows, self._numbers)
        else:
            terms, tfs, sizes = _rows_of(texts, self._numbers.vocabulary, self.tokenizer,
                                         self._numbers)  # fmt: skip
        self._parts.append((terms.astype(np.int32), tfs.astype(np.int32), sizes))
        self.ids.extend(ids)
        self.texts.extend(texts)

    def take(
        self,
        vocabulary: list[str],
        ids: Sequence[str],
        texts: Sequence[str],
        tokenizer: BM25Tokenizer,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """What :func:`_rows_of` gives for ``texts`` from ``vocabulary`` (which is extended
        the same way), when these are the next chunks computed, from that vocabulary;
        else None (and None from then on)."""
        count_texts = len(ids)
        known = self._numbers.vocabulary
        if (
            self._wrong
            or tokenizer != self.tokenizer
            or len(vocabulary) != self._taken_vocabulary
            or self.ids[:count_texts] != list(ids)
            or self.texts[:count_texts] != list(texts)
            or vocabulary != known[: len(vocabulary)]
        ):
            self._wrong = True
            self._parts, self.ids, self.texts = [], [], []
            return None
        if len(self._parts) != 1:  # one array from here on: each take cuts its head off
            empty = np.zeros(0, dtype=np.int32)
            parts = self._parts or [(empty, empty, np.zeros(0, dtype=np.int64))]
            terms, tfs, sizes = (np.concatenate([part[i] for part in parts]) for i in range(3))
            self._parts = [(terms, tfs, sizes)]
        terms, tfs, sizes = self._parts[0]
        count = int(sizes[:count_texts].sum())
        taken = terms[:count], tfs[:count], sizes[:count_texts]
        # only what is not handed out yet stays here (a long run with checkpoints does
        # not hold every row it computed until its end)
        self._parts = [(terms[count:].copy(), tfs[count:].copy(), sizes[count_texts:].copy())]
        del self.ids[:count_texts], self.texts[:count_texts]
        used = int(taken[0].max()) + 1 if count else 0
        vocabulary.extend(known[len(vocabulary) : used])
        self._taken_vocabulary = len(vocabulary)
        return taken


def save_text_index(folder: Path, text_index: TextIndex) -> None:
    """Write ``bm25.npz`` then ``bm25.json`` (temporary names, renamed)."""
    save_text_rows(folder, TextRows.of(text_index))


def save_text_rows(folder: Path, rows: TextRows) -> None:
    """Write ``bm25.npz`` then ``bm25.json`` (temporary names, renamed); the JSON names
    ``folder`` (:attr:`TextRows.saved_in`)."""
    ptr = np.asarray(rows.doc_ptr, dtype=np.int64)
    terms = np.asarray(rows.doc_terms, dtype=np.int32)
    tfs = np.asarray(rows.doc_tfs, dtype=np.int32)
    digest = _write_atomically(
        folder / ARRAYS_FILE,
        lambda handle: np.savez(handle, doc_ptr=ptr, doc_terms=terms, doc_tfs=tfs),
    )
    meta = {
        "format": FORMAT,
        "tokenizer": rows.tokenizer.to_dict(),
        "k1": rows.k1,
        "b": rows.b,
        "arrays_sha256": digest,
        "saved_in": folder.name,
        "ids": rows.ids,
        "terms": rows.terms,
    }
    text = json.dumps(meta, ensure_ascii=False).encode("utf-8")
    _write_atomically(folder / JSON_FILE, lambda handle: handle.write(text))
    rows.saved_in = folder.name


def _write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> str:
    """Write a file through ``write`` under a temporary name, flush it to disk and rename
    it; returns its sha256 (read back in pieces: no copy of the whole file in memory)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        digest = _file_sha256(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return digest


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    piece = bytearray(1 << 20)
    view = memoryview(piece)
    with open(path, "rb", buffering=0) as handle:
        while size := handle.readinto(view):
            digest.update(view[:size])
    return digest.hexdigest()


def load_text_index(folder: Path) -> tuple[TextIndex | None, str]:
    """Read the saved index, or ``(None, why)`` when it is missing, damaged or out of date
    with itself (then it is rebuilt from the store)."""
    rows, why = load_text_rows(folder)
    return (None, why) if rows is None else (rows.to_index(), "")


def load_text_rows(folder: Path) -> tuple[TextRows | None, str]:
    """:func:`load_text_index` without building the postings."""
    json_path, arrays_path = folder / JSON_FILE, folder / ARRAYS_FILE
    if not json_path.is_file() or not arrays_path.is_file():
        return None, "no keyword index yet"
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
        if not isinstance(meta, Mapping) or meta.get("format") != FORMAT:
            return None, f"{JSON_FILE}: unknown format"
        # the files of a committed generation never change (and a writer holds the
        # folder's lock), so the arrays read after the check are the ones checked
        if _file_sha256(arrays_path) != meta.get("arrays_sha256"):
            return None, f"{ARRAYS_FILE} does not belong to {JSON_FILE} (an interrupted save)"
        with np.load(arrays_path, allow_pickle=False) as data:
            ptr = np.asarray(data["doc_ptr"], dtype=np.int64)
            terms = np.asarray(data["doc_terms"], dtype=np.int32)
            tfs = np.asarray(data["doc_tfs"], dtype=np.int32)
        vocabulary = [str(term) for term in meta["terms"]]
        if not rows_fit(len(vocabulary), ptr, terms, tfs):
            return None, f"{ARRAYS_FILE}: rows that do not fit together (sizes or term numbers)"
        ids = [str(chunk_id) for chunk_id in meta["ids"]]
        if len(ids) != len(ptr) - 1:
            return None, f"{JSON_FILE}: {len(ids)} ids for {len(ptr) - 1} rows"
        saved_in = meta.get("saved_in")
        rows = TextRows(
            ids, vocabulary, ptr, terms, tfs, BM25Tokenizer.from_dict(meta["tokenizer"]),
            float(meta["k1"]), float(meta["b"]), saved_in if isinstance(saved_in, str) else "",
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as err:  # damaged: rebuild
        return None, f"unreadable keyword index ({err})"
    return rows, ""


def documents_for(
    text_index: TextIndex, ids: Sequence[str], texts: Sequence[str], metadatas: Sequence[Any]
) -> list[Document]:
    """The Documents of the index's rows, in row order, from the store's records."""
    position = {chunk_id: i for i, chunk_id in enumerate(ids)}
    documents = []
    for chunk_id in text_index.ids:
        i = position[chunk_id]
        documents.append(Document(texts[i], dict(metadatas[i]), chunk_id))
    return documents

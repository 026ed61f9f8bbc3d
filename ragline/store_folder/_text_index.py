"""The store folder's keyword index: BM25 over the stored chunks, saved beside the vectors.

Files (JSON and numpy arrays, no pickle)::

    bm25.json   format, tokenizer options, k1, b, the chunk ids (one per row), the terms,
                and the sha256 of bm25.npz
    bm25.npz    per-chunk rows: doc_ptr, doc_terms, doc_tfs (see BM25Index.from_rows)

**The vector store is the source of truth.** The keyword index is derived from it and
carries the ids of the chunks it covers; whoever opens it checks those ids against the
store's and brings the index in step (drops chunks the store no longer has, tokenizes
the ones it lacks). ``ragline index`` saves it after the store (each file written to a
temporary name and renamed; the JSON names the arrays' checksum, so a JSON and arrays
from different runs are never used together); a run stopped between the two leaves
an index that is behind, which the next open or run repairs from the store, so hybrid
search never disagrees with the vectors it is fused with. Updating costs what changed:
only new chunks are tokenized.

The tokenizer is part of the manifest (``"bm25": {"tokenizer": {...}}``); an index made
with other tokenizer options is rebuilt.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragline.core import Document
from ragline.retrievers import BM25Index, BM25Tokenizer

__all__ = [
    "DEFAULT_TOKENIZER",
    "TextIndex",
    "load_text_index",
    "save_text_index",
    "store_records",
    "sync_text_index",
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
    if current is not None and current.tokenizer != tokenizer:
        current = None
    wanted = dict(zip(ids, texts, strict=True))
    if current is None:
        kept_rows: list[int] = []
        kept_ids: list[str] = []
        vocabulary: list[str] = []
        ptr = np.zeros(1, dtype=np.int64)
        terms = np.zeros(0, dtype=np.int64)
        tfs = np.zeros(0, dtype=np.int64)
    else:
        kept_rows = [row for row, chunk_id in enumerate(current.ids) if chunk_id in wanted]
        kept_ids = [current.ids[row] for row in kept_rows]
        vocabulary = list(current.index.terms)
        ptr, terms, tfs = current.index.doc_ptr, current.index.doc_terms, current.index.doc_tfs
    removed = 0 if current is None else len(current.ids) - len(kept_ids)
    have = set(kept_ids)
    new_ids = [chunk_id for chunk_id in ids if chunk_id not in have]
    # the kept rows, then one row per new chunk
    starts, ends = ptr[kept_rows], ptr[np.asarray(kept_rows, dtype=np.int64) + 1]
    sizes = ends - starts
    # the positions of the kept rows' entries: each row's start, counted up to its size
    offsets = np.cumsum(sizes) - sizes
    take = np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(starts - offsets, sizes)
    new_texts = [wanted[chunk_id] for chunk_id in new_ids]
    new_terms, new_tfs, new_sizes = _rows_of(new_texts, vocabulary, tokenizer)
    row_terms: list[np.ndarray] = [terms[take], new_terms]
    row_tfs: list[np.ndarray] = [tfs[take], new_tfs]
    row_sizes: list[int] = [*sizes.tolist(), *new_sizes.tolist()]
    all_terms = np.concatenate(row_terms) if row_terms else np.zeros(0, dtype=np.int64)
    all_tfs = np.concatenate(row_tfs) if row_tfs else np.zeros(0, dtype=np.int64)
    doc_ptr = np.concatenate([[0], np.cumsum(np.asarray(row_sizes, dtype=np.int64))])
    # drop terms no row uses (deleted chunks' words), renumbering the rest
    used = np.flatnonzero(np.bincount(all_terms, minlength=len(vocabulary)))  # no sort
    if len(used) < len(vocabulary):
        remap = np.full(len(vocabulary), -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        all_terms = remap[all_terms]
        vocabulary = [vocabulary[t] for t in used.tolist()]
    k1 = current.index.k1 if current is not None else 1.5
    b = current.index.b if current is not None else 0.75
    index = BM25Index.from_rows(vocabulary, doc_ptr, all_terms, all_tfs, k1=k1, b=b)
    return TextIndex([*kept_ids, *new_ids], index, tokenizer), len(new_ids), removed


def _rows_of(
    texts: Sequence[str], vocabulary: list[str], tokenizer: BM25Tokenizer
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The index rows of ``texts``: every text's distinct term numbers in increasing order
    and their counts, flattened, and each text's number of distinct terms. A term not in
    ``vocabulary`` is appended to it (numbered in order of first appearance).

    Done over all texts at once (counting in numpy), not term by term in Python.
    """
    numbers = {term: number for number, term in enumerate(vocabulary)}
    token_lists = [tokenizer(text) for text in texts]
    flat = [token for tokens in token_lists for token in tokens]
    for token in dict.fromkeys(flat):  # the distinct tokens, in order of first appearance
        if token not in numbers:
            numbers[token] = len(vocabulary)
            vocabulary.append(token)
    term_of = np.fromiter(map(numbers.__getitem__, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    row_of = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    # one key per (row, term): sorted unique keys are each row's terms in increasing order
    width = max(len(vocabulary), 1)
    keys, counts = np.unique(row_of * width + term_of, return_counts=True)
    sizes = np.bincount(keys // width, minlength=len(texts)).astype(np.int64)
    return keys % width, counts.astype(np.int64), sizes


def save_text_index(folder: Path, text_index: TextIndex) -> None:
    """Write ``bm25.npz`` then ``bm25.json`` (temporary names, renamed)."""
    index = text_index.index
    buffer = io.BytesIO()
    np.savez(
        buffer,
        doc_ptr=index.doc_ptr.astype(np.int64),
        doc_terms=index.doc_terms.astype(np.int32),
        doc_tfs=index.doc_tfs.astype(np.int32),
    )
    arrays = buffer.getvalue()
    meta = {
        "format": FORMAT,
        "tokenizer": text_index.tokenizer.to_dict(),
        "k1": index.k1,
        "b": index.b,
        "arrays_sha256": hashlib.sha256(arrays).hexdigest(),
        "ids": text_index.ids,
        "terms": index.terms,
    }
    _write_atomically(folder / ARRAYS_FILE, arrays)
    _write_atomically(folder / JSON_FILE, json.dumps(meta, ensure_ascii=False).encode("utf-8"))


def _write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def load_text_index(folder: Path) -> tuple[TextIndex | None, str]:
    """Read the saved index, or ``(None, why)`` when it is missing, damaged or out of date
    with itself (then it is rebuilt from the store)."""
    json_path, arrays_path = folder / JSON_FILE, folder / ARRAYS_FILE
    if not json_path.is_file() or not arrays_path.is_file():
        return None, "no keyword index yet"
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
        arrays = arrays_path.read_bytes()
        if not isinstance(meta, Mapping) or meta.get("format") != FORMAT:
            return None, f"{JSON_FILE}: unknown format"
        if hashlib.sha256(arrays).hexdigest() != meta.get("arrays_sha256"):
            return None, f"{ARRAYS_FILE} does not belong to {JSON_FILE} (an interrupted save)"
        with np.load(io.BytesIO(arrays), allow_pickle=False) as data:
            ptr, terms, tfs = data["doc_ptr"], data["doc_terms"], data["doc_tfs"]
        tokenizer = BM25Tokenizer.from_dict(meta["tokenizer"])
        index = BM25Index.from_rows(
            meta["terms"], ptr, terms, tfs, k1=float(meta["k1"]), b=float(meta["b"])
        )
        ids = [str(chunk_id) for chunk_id in meta["ids"]]
        if len(ids) != index.corpus_size:
            return None, f"{JSON_FILE}: {len(ids)} ids for {index.corpus_size} rows"
    except (OSError, ValueError, KeyError, TypeError) as err:  # damaged: rebuild
        return None, f"unreadable keyword index ({err})"
    return TextIndex(ids, index, tokenizer), ""


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

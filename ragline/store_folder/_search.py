"""Retrievers over a store folder: the vector store's search types, BM25 and hybrid.

``StoreFolder.as_retriever(search_type=...)`` builds them: ``"similarity"``, ``"mmr"``
and ``"similarity_score_threshold"`` are the vector store's own; ``"bm25"`` searches the
folder's keyword index and ``"hybrid"`` fuses both (:class:`~ragline.retrievers.
HybridRetriever`, its defaults). The keyword index is read from the folder and brought
in step with the store first (see :mod:`._text_index`), so a folder indexed before it
had one, or whose last run stopped early, still searches correctly.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragline.core import BaseRetriever, InvalidInputError
from ragline.core._checks import check_choice
from ragline.retrievers import BM25Retriever, BM25Tokenizer, HybridRetriever
from ragline.store_folder._text_index import (
    default_tokenizer_options,
    documents_for,
    load_text_rows,
    store_records,
    sync_text_rows,
)
from ragline.vectorstores import VectorStore

__all__ = [
    "SCORE_KEY",
    "SEARCH_TYPES",
    "folder_retriever",
    "keyword_retriever",
    "set_tokenizer",
    "source_filter",
    "tokenizer_options",
]

SEARCH_TYPES = ("similarity", "mmr", "similarity_score_threshold", "hybrid", "bm25")
SCORE_KEY = "relevance_score"  # every folder retriever puts its score there
_HYBRID_OPTIONS = ("fusion", "dense_weight", "adaptivity", "coverage", "keyword_feedback")
_KEYWORD_KWARGS = {"bm25": ("k", "filter"), "hybrid": ("k", "filter", "fetch_k", *_HYBRID_OPTIONS)}


def tokenizer_options(extras: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword tokenizer a manifest's extras name (``"bm25": {"tokenizer": ...}``),
    else the default."""
    entry = extras.get("bm25")
    if isinstance(entry, Mapping) and isinstance(entry.get("tokenizer"), Mapping):
        return dict(entry["tokenizer"])
    return default_tokenizer_options()


def set_tokenizer(
    extras: dict[str, Any], wanted: BM25Tokenizer | None, *, report: bool
) -> str | None:
    """Record ``wanted`` in a manifest's extras (None: keep the recorded one, else the
    default); with ``report``, the change to tell the user when it differs."""
    stored = tokenizer_options(extras)
    if wanted is None:  # an entry of another shape stays as it is
        extras.setdefault("bm25", {"tokenizer": stored})
        return None
    entry = extras.get("bm25")
    extras["bm25"] = {
        **(entry if isinstance(entry, Mapping) else {}),
        "tokenizer": wanted.to_dict(),
    }
    if not report or wanted.to_dict() == stored:
        return None
    return (
        f"keyword tokenizer changes from {BM25Tokenizer.from_dict(stored)} to {wanted} "
        f"(recorded in ragline.json): the keyword index is rebuilt"
    )


def source_filter(store: VectorStore, pattern: str) -> dict[str, Any]:
    """A filter for the chunks of the files whose ``path`` (relative to the indexed folder)
    or absolute ``source`` matches a shell pattern (what ``ragline query --source`` takes).

    Raises:
        InvalidInputError: no indexed file matches (the message shows a few paths).

    Example:
        >>> source_filter(open_store("my-store"), "library/csv*")  # doctest: +SKIP
        {'source': {'$in': ['/home/me/docs/library/csv.txt']}}
    """
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
        raise InvalidInputError(
            f"{pattern!r} matches none of the {len(files)} indexed files; {hint}"
        )
    return {"source": {"$in": matched}}


def keyword_retriever(
    path: Path, store: VectorStore, tokenizer: BM25Tokenizer, *, k: int = 4, filter: Any = None
) -> BM25Retriever:
    """A BM25Retriever over every chunk of ``store``, from the folder's saved keyword index
    brought in step with the store (in memory: reading never writes)."""
    ids, texts, metadatas = store_records(store)
    saved, _ = load_text_rows(path)  # rows only: the postings are built once, below
    rows, _, _ = sync_text_rows(saved, ids, texts, tokenizer)
    text_index = rows.to_index()
    documents = documents_for(text_index, ids, texts, metadatas)
    return BM25Retriever(
        text_index.index,
        documents,
        k=k,
        preprocess_func=tokenizer,
        filter=filter,
        only_matching=True,
    )


def folder_retriever(
    path: Path,
    store: VectorStore,
    tokenizer: BM25Tokenizer,
    *,
    search_type: str = "similarity",
    search_kwargs: Mapping[str, Any] | None = None,
) -> BaseRetriever:
    """The retriever for one search type over a store folder's store and keyword index.

    Every returned document carries its score in ``metadata["relevance_score"]``: the
    store's relevance in [0, 1], the BM25 score, or the hybrid's fused score in [0, 1].

    Raises:
        ConfigurationError: an unknown search type (the valid ones listed).
        InvalidInputError: a search_kwargs key the search type does not take (named).
    """
    check_choice("search_type", search_type, SEARCH_TYPES)
    kwargs = dict(search_kwargs or {})
    if search_type not in _KEYWORD_KWARGS:
        return store.as_retriever(
            search_type=search_type, search_kwargs=kwargs, score_key=SCORE_KEY
        )
    allowed = _KEYWORD_KWARGS[search_type]
    unknown = [key for key in kwargs if key not in allowed]
    if unknown:
        raise InvalidInputError(
            f"search_kwargs {', '.join(map(repr, unknown))} not accepted by search_type "
            f"{search_type!r}; it takes {', '.join(map(repr, allowed))}"
        )
    k = kwargs.get("k", 4)
    keyword = keyword_retriever(path, store, tokenizer, k=k)
    if search_type == "bm25":
        return BM25Retriever(
            keyword.vectorizer,
            keyword.docs,
            k=k,
            preprocess_func=tokenizer,
            filter=kwargs.get("filter"),
            score_key=SCORE_KEY,
            only_matching=True,
        )
    # HybridRetriever's defaults unless asked otherwise (the previous default:
    # {"fusion": "relative_score", "dense_weight": 0.5, "fetch_k": 50})
    options = {name: kwargs[name] for name in _HYBRID_OPTIONS if name in kwargs}
    return HybridRetriever(
        store, keyword, k=k, fetch_k=kwargs.get("fetch_k"), filter=kwargs.get("filter"), **options
    )

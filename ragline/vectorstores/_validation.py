"""Input checks shared by every VectorStore method; all of them raise before any write."""

from __future__ import annotations

import copy
import functools
import itertools
import math
import numbers
import uuid
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ragline.core import Document, InvalidInputError
from ragline.core._checks import check_positive_int, check_unit_interval, not_a_document
from ragline.core.fields import user_stacklevel
from ragline.vectorstores._metadata import check_round_trip, encodable
from ragline.vectorstores.filters import FilterNode, parse_filter

__all__ = [
    "Batch",
    "SearchPlan",
    "check_batch",
    "check_id_list",
    "copy_metadata",
    "is_flat",
    "split_documents",
]


# value types a shallow copy may share without a closer look (exact types)
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


def copy_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``metadata`` that shares nothing mutable with the original.

    Deep only where needed: flat metadata (the usual case) costs one dict copy.
    """
    if is_flat(metadata):  # the usual case
        return dict(metadata)
    if any(isinstance(value, (dict, list, set)) for value in metadata.values()):
        return copy.deepcopy(dict(metadata))
    return dict(metadata)


def is_flat(metadata: Mapping[str, Any]) -> bool:
    """Whether every value is a scalar (str, int, float, bool, None): one C-level pass."""
    return _SCALAR_TYPES.issuperset(map(type, metadata.values()))


def _native_threshold(value: Any) -> float | None:
    """A similarity search's ``score_threshold`` (a native score): a finite number."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidInputError(
            f"score_threshold must be a number (a native score), got {type(value).__name__}"
        )
    if not math.isfinite(float(value)):
        raise InvalidInputError(f"score_threshold must be finite, got {value}")
    return float(value)


@dataclass(frozen=True)
class SearchPlan:
    """A checked search request: what to ask ``_search`` for and how to finish the hits."""

    k: int
    fetch_k: int
    filter: FilterNode | None
    to_relevance: bool = False
    score_threshold: float | None = None
    lambda_mult: float = 0.5
    is_mmr: bool = False
    # LangChain FAISS's fetch_k of a filtered search: it filters only this many nearest
    # documents. ragline still returns k when k match, and warns when that differs.
    window: int | None = None
    # LangChain FAISS's score_threshold of a similarity search: a bound on the native
    # score (a floor for a similarity, a ceiling for a distance), not a relevance.
    native_threshold: float | None = None

    @classmethod
    def similarity(
        cls,
        k: int,
        filter: Mapping[str, Any] | None,
        fetch_k: int | None = None,
        score_threshold: float | None = None,
    ) -> SearchPlan:
        if (
            filter is None
            and fetch_k is None
            and score_threshold is None
            and type(k) is int
            and k >= 1
        ):
            return _plain_similarity(k)  # the hot path: frozen plans are built once per k
        k = check_positive_int("k", k)
        return cls(
            k=k,
            fetch_k=k,
            filter=parse_filter(filter),
            window=_window(fetch_k, filter),
            native_threshold=_native_threshold(score_threshold),
        )

    @classmethod
    def relevance(
        cls,
        k: int,
        filter: Mapping[str, Any] | None,
        score_threshold: float | None,
        fetch_k: int | None = None,
    ) -> SearchPlan:
        if (
            filter is None
            and score_threshold is None
            and fetch_k is None
            and type(k) is int
            and k >= 1
        ):
            return _plain_relevance(k)
        k = check_positive_int("k", k)
        if score_threshold is not None:
            check_unit_interval("score_threshold", score_threshold)
        return cls(
            k=k,
            fetch_k=k,
            filter=parse_filter(filter),
            to_relevance=True,
            score_threshold=None if score_threshold is None else float(score_threshold),
            window=_window(fetch_k, filter),
        )

    @classmethod
    def mmr(
        cls, k: int, fetch_k: int, lambda_mult: float, filter: Mapping[str, Any] | None
    ) -> SearchPlan:
        if (
            filter is None
            and type(k) is int
            and type(fetch_k) is int
            and type(lambda_mult) in (float, int)
            and 1 <= k <= fetch_k
            and 0.0 <= lambda_mult <= 1.0
        ):
            return _plain_mmr(k, fetch_k, float(lambda_mult))
        k = check_positive_int("k", k)
        fetch_k = check_positive_int("fetch_k", fetch_k)
        if fetch_k < k:  # LangChain's stores pick from the fetch_k candidates: fewer come back
            warnings.warn(
                f"fetch_k ({fetch_k}) is below k ({k}): MMR picks from the fetch_k nearest, so "
                f"at most {fetch_k} documents come back (as LangChain's stores return); raise "
                "fetch_k to get k",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
            k = fetch_k
        check_unit_interval("lambda_mult", lambda_mult)
        return cls(
            k=k,
            fetch_k=fetch_k,
            filter=parse_filter(filter),
            lambda_mult=float(lambda_mult),
            is_mmr=True,
        )


def _window(fetch_k: int | None, filter: Mapping[str, Any] | None) -> int | None:
    """LangChain's candidate window of a filtered search (None: none given, or no filter,
    where LangChain ignores fetch_k too)."""
    if fetch_k is None:
        return None
    fetch_k = check_positive_int("fetch_k", fetch_k)
    return None if filter is None else fetch_k


@functools.lru_cache(maxsize=64)
def _plain_similarity(k: int) -> SearchPlan:
    return SearchPlan(k=k, fetch_k=k, filter=None)


@functools.lru_cache(maxsize=64)
def _plain_relevance(k: int) -> SearchPlan:
    return SearchPlan(k=k, fetch_k=k, filter=None, to_relevance=True)


@functools.lru_cache(maxsize=64)
def _plain_mmr(k: int, fetch_k: int, lambda_mult: float) -> SearchPlan:
    return SearchPlan(k=k, fetch_k=fetch_k, filter=None, lambda_mult=lambda_mult, is_mmr=True)


@dataclass(frozen=True)
class Batch:
    texts: list[str]
    metadatas: list[dict[str, Any]]
    ids: list[str]


def check_batch(
    texts: Iterable[str],
    metadatas: Sequence[Mapping[str, Any] | None] | None,
    ids: Sequence[str] | None,
) -> Batch:
    """Check what add_texts received; raise before anything is embedded or stored."""
    if isinstance(texts, (str, bytes)):
        raise InvalidInputError(
            f"texts must be a list of strings, got a single string; wrap it: [{texts!r:.40}]"
        )
    try:
        texts = list(texts)
    except TypeError:
        raise InvalidInputError(
            f"texts must be a list of strings, got {type(texts).__name__}: {texts!r:.40}"
        ) from None
    if not set(map(type, texts)) <= {str}:  # one C-level pass; the loop below names the culprit
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInputError(
                    f"texts[{position}] must be a str, got {type(text).__name__}: {text!r:.60}"
                )
    if metadatas is None:
        check_round_trip(texts, [])
        checked_metadatas: list[dict[str, Any]] = [{} for _ in texts]
    else:
        metadatas = list(metadatas)
        if len(metadatas) != len(texts):
            raise InvalidInputError(
                f"got {len(texts)} texts but {len(metadatas)} metadatas; give one metadata "
                "dict per text (or none at all)"
            )
        # the ONE copy the store keeps (handed to _upsert as is)
        flat_values = _flat_values(metadatas)
        if flat_values is not None:  # the usual case: one C-level pass, then dict copies
            check_round_trip(texts, cast("list[dict[str, Any]]", metadatas), flat_values)
            checked_metadatas = list(map(dict, cast("list[dict[str, Any]]", metadatas)))
        else:
            for position, metadata in enumerate(metadatas):
                if metadata is not None and not isinstance(metadata, Mapping):
                    raise InvalidInputError(
                        f"metadatas[{position}] must be a dict, got {type(metadata).__name__}"
                    )
            check_round_trip(texts, [metadata or {} for metadata in metadatas])
            checked_metadatas = [
                copy_metadata(metadata) if metadata else {} for metadata in metadatas
            ]
    if ids is None:
        checked_ids = [str(uuid.uuid4()) for _ in texts]
    else:
        checked_ids = check_id_list(ids)
        if len(checked_ids) != len(texts):
            raise InvalidInputError(
                f"got {len(texts)} texts but {len(checked_ids)} ids; give one id per text"
            )
        _check_unique(checked_ids)
    return Batch(texts, checked_metadatas, checked_ids)


def _flat_values(metadatas: list[Any]) -> tuple[Any, ...] | None:
    """Every value of every metadata when each metadata is a dict with no dict, list or
    set value (so that a shallow copy shares nothing :func:`copy_metadata` would
    deep-copy), else None.

    One C-level pass answers both: ``dict.values`` rejects anything but a dict, and
    hashing every value rejects those containers (they are unhashable). Faster than
    looking at each value's type, which costs a Python-level call per value. The values
    serve the round-trip check next.
    """
    try:
        values = tuple(itertools.chain.from_iterable(map(dict.values, metadatas)))
        hash(values)
    except Exception:  # TypeError, or a value whose own __hash__ fails: the careful path
        return None
    return values


def check_id_list(ids: Sequence[str]) -> list[str]:
    if isinstance(ids, (str, bytes)) or ids is None:
        raise InvalidInputError(f"ids must be a list of strings, got {ids!r:.60}")
    checked = list(ids)
    joined = _joined(checked)
    if joined is None or "" in checked:
        for position, doc_id in enumerate(checked):
            if not isinstance(doc_id, str) or not doc_id:
                raise InvalidInputError(f"ids[{position}] must be a non-empty str, got {doc_id!r}")
    elif not encodable(joined):  # a lone surrogate: no file or server could store the id
        for position, doc_id in enumerate(checked):
            if not encodable(doc_id):
                raise InvalidInputError(
                    f"ids[{position}] = {doc_id!r} holds a lone surrogate, which UTF-8 cannot store"
                )
    return checked


def _joined(items: list[Any]) -> str | None:
    """All items joined, or None when one is not a str. For short strings such as ids,
    ``str.join`` checks that in C faster than a type scan (the joined copy costs less
    than calling ``type`` per item); not for texts, whose copy would cost more."""
    try:
        return "".join(items)
    except TypeError:
        return None


def _check_unique(ids: list[str]) -> None:
    if len(set(ids)) != len(ids):
        repeated = sorted(doc_id for doc_id, times in Counter(ids).items() if times > 1)
        raise InvalidInputError(
            f"the same id appears more than once in one call: {', '.join(map(repr, repeated[:5]))}"
            "; ids must be unique within a call"
        )


def split_documents(
    documents: Iterable[Document], ids: Sequence[str] | None
) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    if isinstance(documents, Document):  # it iterates as (field, value) pairs
        raise InvalidInputError(
            "documents must be a list of Documents, got one Document; pass [document]"
        )
    documents = list(documents)
    for position, document in enumerate(documents):
        if not isinstance(document, Document):
            raise InvalidInputError(
                f"documents[{position}] must be a Document, got {not_a_document(document)}"
            )
    if ids is None:
        doc_ids = [document.id or str(uuid.uuid4()) for document in documents]
    else:
        doc_ids = check_id_list(ids)
        if len(doc_ids) != len(documents):
            raise InvalidInputError(
                f"got {len(documents)} documents but {len(doc_ids)} ids; give one id per document"
            )
    texts = [document.page_content for document in documents]
    return texts, [document.metadata for document in documents], doc_ids

"""EnsembleRetriever: fuse the rankings of several retrievers (weighted RRF or by score).

Weighted Reciprocal Rank Fusion gives a document ``sum_i w_i / (c + rank_i)`` over the
retrievers ``i`` that returned it (``rank_i`` counts from 1). Documents are the same
when their key is: ``metadata[id_key]`` if ``id_key`` is set, else ``page_content``, as
in LangChain (not ``Document.id``: a BM25 side built without ids and a store side with
ids must still agree that a chunk is one document). The fused list is sorted by score,
ties in order of first appearance (retriever 0's list, then retriever 1's ...), and each
document is the first copy seen.
A document listed twice by one retriever counts once, at its best rank (LangChain's adds
both ranks).

``fusion="relative_score"`` or ``"dbsf"`` fuse by score instead (see
:mod:`ragline.retrievers._fusion`): each retriever's documents carry their score in
``metadata[score_key]``; ragline's own retrievers (``BM25Retriever``, a vector store's
retriever) are asked for it (a copy of each with ``score_key`` set), any other retriever
must put it there itself.

``invoke`` runs the children concurrently: the calling thread runs the first, a worker
of one shared pool each other one (a pool per call cost 4-8 ms of thread starts per
query on a loaded 2-core machine, ten times the searches of a hybrid). A child that is
itself an ensemble, run by a worker, runs its children in that worker, so no worker ever
waits for another and nesting cannot exhaust the pool.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import math
import os
import threading
from collections.abc import Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from ragline.core import Document, InvalidInputError, Runnable, RunnableConfig
from ragline.core._checks import check_choice, check_number, check_optional_int
from ragline.core.config import get_current_config
from ragline.core.fields import warn_ignored_keywords
from ragline.core.runnables.base import adopt_runnable
from ragline.core.runnables.runs import ainvoke_part, invoke_part, part_config
from ragline.retrievers._batching import ChildBatchRetriever
from ragline.retrievers._fusion import NORMALIZATIONS, score_fusion

__all__ = ["FUSION_METHODS", "EnsembleRetriever", "weighted_reciprocal_rank"]

FUSION_METHODS = ("rrf", *NORMALIZATIONS)
_POOL_WORKERS = 8
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_in_worker = threading.local()


def _mark_worker() -> None:
    _in_worker.active = True


def _forget_pool() -> None:
    global _pool
    _pool = None  # a forked child has none of the parent's threads


os.register_at_fork(after_in_child=_forget_pool)


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                _POOL_WORKERS, thread_name_prefix="ragline-ensemble", initializer=_mark_worker
            )
        return _pool


def _invoke_children(children: Sequence[Runnable[Any, Any]], query: str) -> list[Any]:
    """Each child's result for ``query``, the children run concurrently (module docstring)."""
    # each child's run is tagged retriever_<n>, as LangChain's
    configs = _child_configs(get_current_config(), len(children))
    if getattr(_in_worker, "active", False):
        return [invoke_part(child, query, c) for child, c in zip(children, configs, strict=True)]
    # each pooled child runs in a copy of this run's context, so its run is our child run
    futures = [
        _shared_pool().submit(contextvars.copy_context().run, invoke_part, child, query, config)
        for child, config in zip(children[1:], configs[1:], strict=True)
    ]
    try:
        first = invoke_part(children[0], query, configs[0])
    finally:
        wait(futures)  # every child's run ends before this one does
    return [first, *(future.result() for future in futures)]


def _child_configs(config: RunnableConfig | None, count: int) -> list[Any]:
    return [part_config(config, f"retriever_{n}") for n in range(1, count + 1)]


def weighted_reciprocal_rank(
    doc_lists: Sequence[Sequence[Document]],
    weights: Sequence[float],
    c: float = 60,
    id_key: str | None = None,
) -> list[Document]:
    """Fuse ranked lists with weighted Reciprocal Rank Fusion (see the module docstring).

    Args:
        doc_lists: one ranked list per retriever.
        weights: one weight per list.
        c: the rank constant; larger values flatten the difference between ranks.
        id_key: metadata key identifying a document (None: its ``page_content``).

    Returns:
        The unique documents, best fused score first.

    Raises:
        InvalidInputError: the number of weights differs from the number of lists, or a
            document lacks ``metadata[id_key]``.

    Example:
        >>> a, b, c = Document("a"), Document("b"), Document("c")
        >>> [d.page_content for d in weighted_reciprocal_rank([[a, b], [c, b]], [1, 1])]
        ['b', 'a', 'c']
    """
    if len(doc_lists) != len(weights):
        raise InvalidInputError(f"got {len(weights)} weights for {len(doc_lists)} document lists")
    scores: dict[Hashable, float] = {}
    first_copy: dict[Hashable, Document] = {}
    for documents, weight in zip(doc_lists, weights, strict=True):
        seen_here: set[Hashable] = set()
        for rank, document in enumerate(documents, start=1):
            key = _key(document, id_key)
            if key in seen_here:
                continue
            seen_here.add(key)
            first_copy.setdefault(key, document)
            scores[key] = scores.get(key, 0.0) + weight / (c + rank)
    # sorted() is stable: equal scores keep the order of first appearance
    return [first_copy[key] for key in sorted(first_copy, key=lambda key: -scores[key])]


def _key(document: Document, id_key: str | None) -> Hashable:
    if id_key is not None:
        try:
            value = document.metadata[id_key]
        except KeyError:
            raise InvalidInputError(
                f"EnsembleRetriever id_key {id_key!r} is missing from the metadata of "
                f"{document!r}; its keys are {sorted(document.metadata)}"
            ) from None
        return ("metadata", value if isinstance(value, Hashable) else repr(value))
    return ("text", document.page_content)


_FIELDS = ("retrievers", "weights", "c", "id_key", "fusion", "score_key", "k", "tags", "metadata")


class EnsembleRetriever(ChildBatchRetriever):
    """Run several retrievers at once and fuse their results with weighted RRF.

    The usual use is hybrid search: BM25 finds exact words, a vector store finds
    meaning, and the fusion ranks first what both agree on. Equal-weight RRF (LangChain's
    way) can rank below the better of its two parts when one retriever is much weaker;
    :class:`HybridRetriever` fuses by score with defaults measured on dev data.
    ``invoke`` runs the children in threads; ``batch`` gives each child all the queries
    in one ``batch`` call (one embedding call for a vector-store retriever), the children
    in threads; the async methods gather the children. Each query gets one ensemble run,
    its children's runs under it.

    Args:
        retrievers: the retrievers (any Runnable from a query to a list of Documents).
        weights: one non-negative weight per retriever, summing to a positive number
            (default: equal weights).
        c: the RRF rank constant (>= 0; 60 as in the original paper and LangChain).
        id_key: a metadata key identifying documents across retrievers (default: the
            document's ``page_content``, as LangChain's).
        fusion: ``"rrf"`` (weighted reciprocal rank fusion, LangChain's), or fuse by
            score: ``"relative_score"`` (min-max normalised) or ``"dbsf"``
            (distribution-based); the weights then make a convex combination.
        score_key: the metadata key holding each child's score (score fusion), and where
            the fused score is put on the results.
        k: return at most this many documents (None: every fused document, as
            LangChain's does).
        tags, metadata: added to this retriever's runs, as LangChain's fields are.
        **ignored: any other keyword is dropped with a ``UserWarning`` naming it (LangChain's
            pydantic model drops it silently).

    Raises:
        InvalidInputError: no retrievers, a retriever that is not a Runnable, a weights
            list of the wrong length, a negative or non-finite weight, weights summing
            to 0, or a negative ``c``.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.retrievers import BM25Retriever
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> texts = ["cats purr softly", "the cat sat", "stock prices fell"]
        >>> keyword = BM25Retriever.from_texts(texts, ids=["1", "2", "3"], k=2)
        >>> embeddings = HashingEmbeddings(dimension=256)
        >>> store = InMemoryVectorStore.from_texts(texts, embeddings, ids=["1", "2", "3"])
        >>> dense = store.as_retriever(search_kwargs={"k": 2})
        >>> hybrid = EnsembleRetriever(retrievers=[keyword, dense], weights=[0.5, 0.5])
        >>> [d.id for d in hybrid.invoke("cats purr")]
        ['1', '3', '2']
    """

    def __init__(
        self,
        retrievers: Sequence[Runnable[str, list[Document]]],
        weights: Sequence[float] | None = None,
        c: float = 60,
        id_key: str | None = None,
        *,
        fusion: str = "rrf",
        score_key: str = "relevance_score",
        k: int | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:
            # LangChain's is a pydantic model that drops unknown keywords (a misspelt
            # weight=, a search_type= it has no use for): dropped here too, and named
            warn_ignored_keywords(self, ignored, _FIELDS)
        if tags is not None:
            self.tags = list(tags)
        if metadata is not None:
            self.metadata = dict(metadata)
        if (
            isinstance(retrievers, Runnable)
            or not isinstance(retrievers, Sequence)
            or not retrievers
        ):
            raise InvalidInputError(
                f"EnsembleRetriever needs a non-empty list of retrievers, got {retrievers!r:.80}"
            )
        adopted = []
        for position, retriever in enumerate(retrievers):
            part = adopt_runnable(retriever)
            if part is None:
                raise InvalidInputError(
                    f"EnsembleRetriever retrievers[{position}] must be a retriever (a Runnable), "
                    f"got {type(retriever).__name__}"
                )
            adopted.append(part)
        self.retrievers = adopted
        self.weights = _check_weights(weights, len(self.retrievers))
        self.c = check_number("EnsembleRetriever c", c, low=0)
        if id_key is not None and not isinstance(id_key, str):
            raise InvalidInputError(
                f"EnsembleRetriever id_key must be a str or None, got {id_key!r}"
            )
        self.id_key = id_key
        self.fusion = check_choice("EnsembleRetriever fusion", fusion, FUSION_METHODS)
        self._normalization = self.fusion  # score fusion: how each list is normalised
        if not isinstance(score_key, str):
            raise InvalidInputError(f"EnsembleRetriever score_key must be a str, got {score_key!r}")
        self.score_key = score_key
        self.k = check_optional_int("EnsembleRetriever k", k)
        # score fusion asks ragline's own retrievers for their scores (copies, so the
        # caller's retrievers are not changed). Not named _children: that is Runnable's
        # method listing the parts (config_specs and with_config walk it).
        self._runners = (
            self.retrievers
            if self.fusion == "rrf"
            else [_scored(retriever, score_key) for retriever in self.retrievers]
        )

    def __repr__(self) -> str:
        names = ", ".join(r.get_name() for r in self.retrievers)
        fusion = f", c={self.c:g}" if self.fusion == "rrf" else f", fusion={self.fusion!r}"
        return (
            f"{type(self).__name__}(retrievers=[{names}], weights={self.weights}{fusion}"
            f"{'' if self.k is None else f', k={self.k}'})"
        )

    def _children(self) -> list[Runnable[Any, Any]]:
        return list(self.retrievers)

    def weighted_reciprocal_rank(self, doc_lists: list[list[Document]]) -> list[Document]:
        """Fuse one result list per retriever with this ensemble's weights, c and id_key.

        Raises:
            InvalidInputError: a retriever's result is not a list of Documents (named).
        """
        for position, documents in enumerate(doc_lists):
            if not isinstance(documents, list) or not all(
                isinstance(d, Document) for d in documents
            ):
                name = (
                    self.retrievers[position].get_name() if position < len(self.retrievers) else "?"
                )
                raise InvalidInputError(
                    f"EnsembleRetriever retrievers[{position}] ({name}) must return a list of "
                    f"Document, got {documents!r:.80}"
                )
        if self.fusion != "rrf":
            return self._fuse_scores(doc_lists)
        fused = weighted_reciprocal_rank(doc_lists, self.weights, self.c, self.id_key)
        return fused if self.k is None else fused[: self.k]

    def _fuse_scores(self, doc_lists: list[list[Document]]) -> list[Document]:
        key = self.score_key
        scored_lists = []
        for position, documents in enumerate(doc_lists):
            pairs = []
            for document in documents:
                score = document.metadata.get(key)
                if not isinstance(score, (int, float)) or isinstance(score, bool):
                    raise InvalidInputError(
                        f"EnsembleRetriever retrievers[{position}] "
                        f"({self.retrievers[position].get_name()}) returned a document without "
                        f"a number in metadata[{key!r}]; fusion={self.fusion!r} needs each "
                        "retriever's scores there (or use fusion='rrf')"
                    )
                pairs.append((document, float(score)))
            scored_lists.append(pairs)
        fused = score_fusion(
            scored_lists,
            self._fusion_weights(scored_lists),
            normalization=self._normalization,
            key=lambda document: _key(document, self.id_key),
        )
        if self.k is not None:
            fused = fused[: self.k]
        for document, score in fused:
            document.metadata[key] = score  # children return fresh copies
        return [document for document, _ in fused]

    def _fusion_weights(self, scored_lists: list[list[tuple[Document, float]]]) -> list[float]:
        """The weights of one query's score fusion (HybridRetriever's adapt to the scores)."""
        return self.weights

    def _fuse_one(self, query: str, doc_lists: list[Any]) -> list[Document]:
        """One query's fused result from its children's (HybridRetriever adds feedback)."""
        return self.weighted_reciprocal_rank(doc_lists)

    def _get_relevant_documents(self, query: str) -> list[Document]:
        return self._fuse_one(query, _invoke_children(self._runners, query))

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        configs = _child_configs(get_current_config(), len(self._runners))
        doc_lists = await asyncio.gather(
            *(
                ainvoke_part(retriever, query, config)
                for retriever, config in zip(self._runners, configs, strict=True)
            )
        )
        return self._fuse_one(query, list(doc_lists))

    # batch / abatch (ChildBatchRetriever) hand ALL the queries to each child's batch
    def _fuse_batch(self, queries: list[str], per_child: list[list[Any]]) -> list[Any]:
        fused: list[Any] = []
        for query, *results in zip(queries, *per_child, strict=True):
            error = next((r for r in results if isinstance(r, BaseException)), None)
            if error is None:
                try:
                    fused.append(self._fuse_one(query, list(results)))
                except InvalidInputError as err:  # fails this query only
                    fused.append(err)
            else:
                fused.append(error)
        return fused

    def _search_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        with ThreadPoolExecutor(max_workers=len(self._runners)) as pool:
            futures = [
                pool.submit(
                    contextvars.copy_context().run,
                    retriever.batch,
                    queries,
                    [part_config(config, f"retriever_{n}") for config in configs],
                    return_exceptions=True,
                )
                for n, retriever in enumerate(self._runners, 1)
            ]
            return self._fuse_batch(queries, [future.result() for future in futures])

    async def _asearch_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        per_child = await asyncio.gather(
            *(
                retriever.abatch(
                    queries,
                    [part_config(config, f"retriever_{n}") for config in configs],
                    return_exceptions=True,
                )
                for n, retriever in enumerate(self._runners, 1)
            )
        )
        return self._fuse_batch(queries, list(per_child))


def _scored(retriever: Runnable[str, list[Document]], score_key: str) -> Any:
    """One of ragline's retrievers (those with a ``score_key`` option) as a copy that puts
    its scores in ``metadata[score_key]``; any other retriever as it is."""
    current = getattr(retriever, "score_key", _NO_OPTION)
    if current is _NO_OPTION or current == score_key:
        return retriever
    scored = copy.copy(retriever)
    scored.score_key = score_key  # type: ignore[attr-defined]
    return scored


_NO_OPTION = object()


def _check_weights(weights: Any, count: int) -> list[float]:
    if weights is None:
        return [1.0 / count] * count
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
        raise InvalidInputError(
            f"EnsembleRetriever weights must be a list of numbers, got {weights!r:.80}"
        )
    if len(weights) != count:
        raise InvalidInputError(
            f"EnsembleRetriever got {len(weights)} weights for {count} retrievers; "
            "give one weight per retriever"
        )
    checked = [
        check_number(f"EnsembleRetriever weights[{i}]", w, low=0) for i, w in enumerate(weights)
    ]
    total = math.fsum(checked)
    if total <= 0:
        raise InvalidInputError(
            f"EnsembleRetriever weights must sum to a positive number, got {list(weights)}"
        )
    return checked

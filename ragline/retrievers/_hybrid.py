"""HybridRetriever: dense (vector store) and keyword (BM25) search fused by score.

The default fusion (issue 30) adapts to each query: min-max normalised scores, weighted
by a dense weight of 0.5 times each side's score peak (:func:`~ragline.retrievers.
adaptive_weights`, adaptivity 1, over a side's 20 best), the keyword side's weight also
scaled by its term coverage of the query (:func:`~ragline.retrievers.term_coverage`: the
share of the query's idf mass that BM25's first 3 hits hold, to the power 1), 50
candidates per side, BM25 on plain lowercase word tokens. It was chosen on ragline's nine
retrieval dev sets (``benchmarks/devsets/``: the PostgreSQL manual, the Django
documentation, The Devil's Dictionary, the Debian FAQ, the Debian Reference, Python's
FAQ, The Debian Administrator's Handbook, the Securing Debian Manual and git's
documentation; in the last six the questions are worded unlike their answers, and on the
Handbook and git sets the previous fixed-weight default fell below dense search; known-item
questions; the packaged MiniLM) from a grid of dense weight (0.45-0.6) x adaptivity (0-2) x
candidates (30-50) x coverage (0-1.5), by the rule: on every set at most 0.005 nDCG@10
below the better single retriever and below the previous default, and above the better
single retriever on average; best mean margin (docs/hybrid-search.md). nDCG@10 (chunks of
1,000 characters, ``benchmarks/retrieval_quality.py``):

=================  =====  ======  =====  ======  ======  =====  ========  ======  ======  =====
search             pg     django  devil  debfaq  debref  pyfaq  handbook  harden  gitdoc  mean
=================  =====  ======  =====  ======  ======  =====  ========  ======  ======  =====
dense (MiniLM)     0.803  0.789   0.892  0.816   0.843   0.609  0.605     0.787   0.398   0.727
BM25               0.788  0.783   0.982  0.620   0.683   0.368  0.335     0.619   0.228   0.601
previous default   0.862  0.885   0.987  0.828   0.863   0.626  0.580     0.857   0.380   0.763
HybridRetriever    0.858  0.897   0.987  0.842   0.895   0.627  0.628     0.864   0.409   0.779
=================  =====  ======  =====  ======  ======  =====  ========  ======  ======  =====

The previous default (``fusion="relative_score"``, ``dense_weight=0.5``, ``fetch_k=50``:
fixed equal weights) stays reachable by those options. Equal-weight reciprocal rank
fusion (LangChain's EnsembleRetriever) only looks at ranks, so a weak side's candidates
dilute a strong side's first hit; score fusion keeps how far ahead a hit is, the adaptive
weights keep a side whose scores are flat (it found nothing in particular) from pulling
as hard as one with a clear hit, and the coverage keeps a keyword side that matched only
part of the question (one rare word shared with an unrelated passage) from pulling as
hard as one whose first hits hold all of it.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ragline.core import Document, InvalidInputError
from ragline.core._checks import (
    check_choice,
    check_number,
    check_positive_int,
    check_unit_interval,
)
from ragline.retrievers._bm25 import BM25Index, BM25Retriever, _best_indices, _tokens
from ragline.retrievers._checks import copy_document
from ragline.retrievers._ensemble import FUSION_METHODS, EnsembleRetriever
from ragline.retrievers._fusion import adaptive_weights, coverage_weights, term_coverage

if TYPE_CHECKING:
    from ragline.vectorstores import VectorStore

__all__ = [
    "COVERAGE_DEPTH",
    "DEFAULT_ADAPTIVITY",
    "DEFAULT_COVERAGE",
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_FETCH_K",
    "DEFAULT_FUSION",
    "DEFAULT_KEYWORD_FEEDBACK",
    "FEEDBACK_SOURCES",
    "HYBRID_FUSIONS",
    "PEAK_DEPTH",
    "HybridRetriever",
    "KeywordFeedback",
    "expand_query",
    "weighted_top_k",
]

HYBRID_FUSIONS = ("adaptive", *FUSION_METHODS)
DEFAULT_FUSION = "adaptive"
DEFAULT_DENSE_WEIGHT = 0.5
DEFAULT_FETCH_K = 50
DEFAULT_ADAPTIVITY = 1.0
PEAK_DEPTH = 20  # the best scores of each side that its peak looks at
DEFAULT_COVERAGE = 1.0  # the exponent of the keyword side's term coverage
COVERAGE_DEPTH = 3  # the keyword side's first hits that its term coverage looks at
DEFAULT_KEYWORD_FEEDBACK: str | None = None
# the keyword side's term coverage of the query being fused (None: not computed)
_KEYWORD_COVERAGE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "ragline_keyword_coverage", default=None
)


class HybridRetriever(EnsembleRetriever):
    """Search a vector store and a BM25 index over the same documents; fuse by score.

    Each side returns its ``fetch_k`` best candidates with their scores (relevance in
    [0, 1] for the store, BM25 scores for the keywords); each list is normalised and the
    two are combined as ``w * dense + (1 - w) * keyword``; the ``k`` best come back, each
    with the fused score in ``metadata[score_key]``.

    With ``fusion="adaptive"`` (the default) ``w`` is set per query from the two lists'
    scores (min-max normalised): ``dense_weight`` scaled by how far each side's best
    candidate stands above its others (:func:`~ragline.retrievers.adaptive_weights`,
    ``adaptivity`` its exponent), so a side whose scores are flat (it found nothing in
    particular) gives way to the other; the keyword side's weight is then scaled by
    ``keyword_coverage(query, hits) ** coverage``, the share of the query's idf mass that
    its first 3 hits hold (:func:`~ragline.retrievers.term_coverage`).
    ``fusion="relative_score", dense_weight=0.5, fetch_k=50`` is the previous default
    (fixed equal weights).

    Args:
        vectorstore: the dense side.
        keyword: a :class:`BM25Retriever` over the same documents, with the same ids (the
            two sides' results are matched by ``Document.id``). Its index and tokenizer
            are used with the always-positive ``"lucene"`` idf and only the documents
            sharing a term with the query, whatever the retriever's own options.
        k: documents to return.
        fetch_k: candidates each side contributes (default 50, or k if larger).
        filter: a metadata filter applied on both sides (the vector stores' language).
        fusion: ``"adaptive"`` (default), ``"relative_score"`` (min-max, fixed weights),
            ``"dbsf"`` or ``"rrf"``.
        dense_weight: the dense side's (base) weight in [0, 1] (default 0.5).
        adaptivity: with ``fusion="adaptive"``, how much each side's peak counts
            (>= 0, default 1; 0 with ``coverage=0`` gives ``"relative_score"``'s results).
        coverage: with ``fusion="adaptive"``, how much the keyword side's term coverage
            of the query counts (>= 0, default 1; 0: not at all).
        keyword_feedback: pseudo-relevance feedback for the keyword side (see
            :mod:`ragline.retrievers._feedback`): ``None`` (default: none), ``"keyword"``
            (RM3-style: BM25's own first 3 passages) or ``"dense"`` (the dense side's
            first 3): BM25 runs a second time with the query expanded by 10 of their terms.
        score_key: the metadata key of the scores.

    Raises:
        InvalidInputError: a keyword document without an id, a bad k / fetch_k / weight /
            adaptivity / coverage.

        ConfigurationError: an unknown fusion (the valid ones named).

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> texts = ["cats purr softly", "the cat sat", "stock prices fell"]
        >>> ids = ["1", "2", "3"]
        >>> store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=256), ids=ids)
        >>> keyword = BM25Retriever.from_texts(texts, ids=ids)
        >>> hybrid = HybridRetriever(store, keyword, k=2)
        >>> [(d.id, round(d.metadata["relevance_score"], 2)) for d in hybrid.invoke("cats purr")]
        [('1', 1.0), ('2', 0.14)]
    """

    def __init__(
        self,
        vectorstore: VectorStore,
        keyword: BM25Retriever,
        *,
        k: int = 4,
        fetch_k: int | None = None,
        filter: Mapping[str, Any] | None = None,
        fusion: str = DEFAULT_FUSION,
        dense_weight: float = DEFAULT_DENSE_WEIGHT,
        adaptivity: float = DEFAULT_ADAPTIVITY,
        coverage: float = DEFAULT_COVERAGE,
        keyword_feedback: str | None = DEFAULT_KEYWORD_FEEDBACK,
        score_key: str = "relevance_score",
    ) -> None:
        if not isinstance(keyword, BM25Retriever):
            raise InvalidInputError(
                f"HybridRetriever keyword must be a BM25Retriever, got {type(keyword).__name__}"
            )
        missing = next((d for d in keyword.docs if d.id is None), None)
        if missing is not None:
            raise InvalidInputError(
                "HybridRetriever matches the two sides' results by Document.id; the keyword "
                f"retriever has a document without one: {missing!r:.80}"
            )
        k = check_positive_int("HybridRetriever k", k)
        fetch = (
            max(DEFAULT_FETCH_K, k)
            if fetch_k is None
            else check_positive_int("HybridRetriever fetch_k", fetch_k)
        )
        fusion = check_choice("HybridRetriever fusion", fusion, HYBRID_FUSIONS)
        weight = check_unit_interval("HybridRetriever dense_weight", dense_weight)
        self.adaptivity = check_number("HybridRetriever adaptivity", adaptivity, low=0)
        self.coverage = check_number("HybridRetriever coverage", coverage, low=0)
        dense_side = vectorstore.as_retriever(
            search_kwargs={"k": fetch, "filter": filter}, score_key=score_key
        )
        keyword_side = BM25Retriever(
            # the always-positive idf, whatever the given retriever's (rank_bm25's by default)
            keyword.vectorizer.with_idf("lucene"),
            keyword.docs,
            k=fetch,
            preprocess_func=keyword.preprocess_func,
            score_key=score_key,
            filter=filter,
            only_matching=True,
        )
        super().__init__(
            [dense_side, keyword_side],
            weights=[weight, 1.0 - weight],
            fusion="relative_score" if fusion == "adaptive" else fusion,
            score_key=score_key,
            k=k,
        )
        self.fusion = fusion
        self.fetch_k = fetch
        self._keyword = keyword_side
        self._rows: tuple[dict[str, int], list[int]] | None = None
        self.dense_weight = weight
        if keyword_feedback is not None and keyword_feedback not in FEEDBACK_SOURCES:
            raise InvalidInputError(
                f"HybridRetriever keyword_feedback {keyword_feedback!r} is not one of "
                f"{', '.join(map(repr, FEEDBACK_SOURCES))} or None"
            )
        self.keyword_feedback = keyword_feedback
        self._feedback = (
            None
            if keyword_feedback is None
            else KeywordFeedback(keyword_side, source=keyword_feedback)
        )

    def _fuse_one(self, query: str, doc_lists: list[Any]) -> list[Document]:
        if self._feedback is not None and all(isinstance(found, list) for found in doc_lists):
            dense, keyword = doc_lists
            doc_lists = [dense, self._feedback.search(query, dense, keyword)]
        if self.fusion != "adaptive" or self.coverage == 0 or not isinstance(doc_lists[1], list):
            return self.weighted_reciprocal_rank(doc_lists)
        # the query's coverage reaches _fusion_weights through a context variable (safe
        # across the threads and tasks of batch / abatch)
        token = _KEYWORD_COVERAGE.set(self.keyword_coverage(query, doc_lists[1]))
        try:
            return self.weighted_reciprocal_rank(doc_lists)
        finally:
            _KEYWORD_COVERAGE.reset(token)

    def keyword_coverage(self, query: str, keyword_hits: Sequence[Document]) -> float:
        """The share of ``query``'s idf mass held by the first ``COVERAGE_DEPTH`` keyword
        hits (:func:`~ragline.retrievers.term_coverage`, tokenized and weighted as the
        keyword index does). A hit's terms are read from the index's row for its id (a
        hit the index does not hold is tokenized from its text)."""
        index, tokenize = self._keyword.vectorizer, self._keyword.preprocess_func
        query_idf: dict[int, float] = {}
        for token in _tokens(tokenize, query, "the query"):
            term = index.vocabulary.get(token)
            if term is not None:
                query_idf[term] = float(index.idf[term])
        if not query_idf:
            return 0.0
        rows, starts = self._keyword_rows()
        hits: list[Collection[int]] = []
        for hit in keyword_hits[:COVERAGE_DEPTH]:
            row = rows.get(hit.id) if hit.id is not None else None
            if row is None:
                tokens = _tokens(tokenize, hit.page_content, "a keyword hit")
                hits.append({t for t in map(index.vocabulary.get, tokens) if t is not None})
            else:  # a short list: scanning it is cheaper than hashing it into a set
                hits.append(index.doc_terms[starts[row] : starts[row + 1]].tolist())
        return term_coverage(query_idf, hits)

    def _keyword_rows(self) -> tuple[dict[str, int], list[int]]:
        """Each keyword document's row in the index by id, and where each row's terms
        start (built on first use)."""
        if self._rows is None:
            index = self._keyword.vectorizer
            rows = {d.id: row for row, d in enumerate(self._keyword.docs) if d.id}
            self._rows = (rows, index.doc_ptr.tolist())
        return self._rows

    def _fusion_weights(self, scored_lists: list[list[tuple[Document, float]]]) -> list[float]:
        if self.fusion != "adaptive":
            return self.weights
        weights = adaptive_weights(
            [[score for _, score in pairs] for pairs in scored_lists],
            self.weights,
            strength=self.adaptivity,
            depth=PEAK_DEPTH,
        )
        coverage = _KEYWORD_COVERAGE.get()
        if coverage is None:  # fused without a query (weighted_reciprocal_rank called alone)
            return weights
        return coverage_weights(weights, coverage, self.coverage)

    def __repr__(self) -> str:
        adaptive = (
            f", adaptivity={self.adaptivity:g}, coverage={self.coverage:g}"
            if self.fusion == "adaptive"
            else ""
        )
        feedback = (
            "" if self.keyword_feedback is None else f", keyword_feedback={self.keyword_feedback!r}"
        )
        return (
            f"HybridRetriever(k={self.k}, fetch_k={self.fetch_k}, fusion={self.fusion!r}, "
            f"dense_weight={self.dense_weight:g}{adaptive}{feedback})"
        )


# ---------------------------------------------------------------- keyword feedback
# Pseudo-relevance feedback for BM25: expand a query with terms of passages found first.
#
# A question worded unlike its answer shares few words with it, so BM25 scores the answer
# low. Feedback takes the first passages some search found (BM25's own, as in RM3, or the
# dense side's: "dense-guided" expansion, which needs no shared word to find them), weighs
# each of their terms by its share of the passage times its idf::
#
#     weight(t) = sum over the feedback passages d of  tf(t, d) / |d| * idf(t)
#
# keeps the ``terms`` heaviest, and searches BM25 again with the query's own terms at
# ``original_weight`` of the mass (each of its tokens equally) and the expansion terms at
# the rest (in proportion to their weights). A document's score is the sum over the
# weighted terms of ``term weight * its BM25 term score``.


FEEDBACK_SOURCES = ("keyword", "dense")


def expand_query(
    index: BM25Index,
    query: Sequence[str],
    feedback: Sequence[int],
    *,
    terms: int,
    original_weight: float,
) -> dict[int, float]:
    """Term number -> weight of the expanded query (see the module docstring).

    Args:
        index: the BM25 index.
        query: the query's tokens (unknown ones are dropped).
        feedback: the row numbers of the feedback documents in ``index``.
        terms: how many expansion terms to add at most.
        original_weight: the query's own share of the weight, in [0, 1].

    Example:
        >>> index = BM25Index([["cat", "purr"], ["cat", "nap", "nap"], ["dog"]])
        >>> weights = expand_query(index, ["purr"], [0], terms=1, original_weight=0.5)
        >>> [(index.terms[t], w) for t, w in weights.items()]
        [('purr', 1.0)]
    """
    own: dict[int, float] = {}
    for token in query:
        number = index.vocabulary.get(token)
        if number is not None:
            own[number] = own.get(number, 0.0) + 1.0
    mass: dict[int, float] = {}
    for row in feedback:
        start, end = int(index.doc_ptr[row]), int(index.doc_ptr[row + 1])
        length = float(index.doc_len[row]) or 1.0
        for term, tf in zip(
            index.doc_terms[start:end].tolist(), index.doc_tfs[start:end].tolist(), strict=True
        ):
            mass[term] = mass.get(term, 0.0) + tf / length * float(index.idf[term])
    chosen = sorted(mass.items(), key=lambda item: (-item[1], item[0]))[:terms]
    chosen_total = math.fsum(weight for _, weight in chosen)
    own_total = math.fsum(own.values())
    # the query's own share; all of it when nothing is added, none when no word is known
    share = original_weight if own_total and chosen_total else float(own_total > 0)
    weights = {term: share * count / own_total for term, count in own.items()}
    for term, weight in chosen:
        if chosen_total:
            weights[term] = weights.get(term, 0.0) + (1 - share) * weight / chosen_total
    return weights


def weighted_top_k(
    index: BM25Index, weights: dict[int, float], k: int, mask: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """The ``k`` best ``(row, score)`` pairs for a weighted query (ties by lower row)."""
    scores = np.zeros(index.corpus_size)
    for term, weight in weights.items():
        start, end = index.offsets[term], index.offsets[term + 1]
        scores[index.postings_docs[start:end]] += weight * index.postings_weights[start:end]
    if mask is not None:
        scores[~mask] = 0.0
    best = _best_indices(scores, k)
    return list(zip(best, scores[best].tolist(), strict=True))


class KeywordFeedback:
    """Second BM25 pass of a hybrid search, its query expanded from feedback passages.

    Args:
        keyword: the hybrid's keyword side (its index, documents, tokenizer, k, filter).
        source: ``"keyword"`` (BM25's own first passages, RM3-style) or ``"dense"`` (the
            dense side's first passages).
        documents: feedback passages (the first ones of the source's list).
        terms: expansion terms added.
        original_weight: the query's own share of the expanded query's weight.

    Raises:
        InvalidInputError: a bad source, count or weight.
    """

    def __init__(
        self,
        keyword: BM25Retriever,
        *,
        source: str,
        documents: int = 3,
        terms: int = 10,
        original_weight: float = 0.7,
    ) -> None:
        if source not in FEEDBACK_SOURCES:
            raise InvalidInputError(
                f"keyword feedback {source!r} is not one of "
                f"{', '.join(map(repr, FEEDBACK_SOURCES))} (or None)"
            )
        self.keyword = keyword
        self.source = source
        self.documents = check_positive_int("keyword feedback documents", documents)
        self.terms = check_positive_int("keyword feedback terms", terms)
        self.original_weight = check_unit_interval(
            "keyword feedback original_weight", original_weight
        )
        self._rows = {document.id: row for row, document in enumerate(keyword.docs)}

    def search(self, query: str, dense: list[Document], keyword: list[Document]) -> list[Document]:
        """The keyword side's list for ``query`` again, with the expanded query; each
        document a fresh copy carrying its score in ``metadata[score_key]``."""
        side = self.keyword
        first = dense if self.source == "dense" else keyword
        rows = [self._rows[d.id] for d in first[: self.documents] if d.id in self._rows]
        if not rows:
            return keyword
        tokens = _tokens(side.preprocess_func, query, "the query")
        weights = expand_query(
            side.vectorizer,
            tokens,
            rows,
            terms=self.terms,
            original_weight=self.original_weight,
        )
        found = []
        for row, score in weighted_top_k(side.vectorizer, weights, side.k, side._filter_mask()):
            document = copy_document(side.docs[row])
            if side.score_key is not None:
                document.metadata[side.score_key] = score
            found.append(document)
        return found

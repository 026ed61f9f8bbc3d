"""HybridRetriever: dense (vector store) and keyword (BM25) search fused by score.

The defaults (min-max normalised scores, equal weights, 50 candidates per side, BM25 on
plain lowercase word tokens) were chosen on ragline's retrieval dev sets
(``benchmarks/devsets/``: the PostgreSQL manual, the Django documentation, The Devil's
Dictionary; known-item questions; the packaged MiniLM), from a grid of fusion method
(relative score, distribution-based, RRF) x dense weight (0.3-0.8) x candidates (10-100)
x keyword tokenizer (plain, stemmed with stopwords), as the point with the best mean gain
over the better single retriever that is not below it on any set. nDCG@10 (chunks of
1,000 characters, ``benchmarks/retrieval_quality.py``):

=====================  ==========  ======  =====  =====
search                 postgresql  django  devil  mean
=====================  ==========  ======  =====  =====
dense (MiniLM)         0.803       0.789   0.892  0.828
BM25                   0.788       0.783   0.982  0.851
BM25, stemmed          0.848       0.807   0.965  0.873
RRF 0.5/0.5            0.845       0.860   0.969  0.891
HybridRetriever        0.862       0.885   0.987  0.911
=====================  ==========  ======  =====  =====

The hybrid is above the best single retriever on every set (+0.014, +0.078, +0.005;
+0.033 on average). Equal-weight reciprocal rank fusion (LangChain's EnsembleRetriever)
only looks at ranks, so a weak side's candidates dilute a strong side's first hit; score
fusion keeps how far ahead a hit is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragline.core import InvalidInputError
from ragline.core._checks import check_positive_int, check_unit_interval
from ragline.retrievers._bm25 import BM25Retriever
from ragline.retrievers._ensemble import EnsembleRetriever

if TYPE_CHECKING:
    from ragline.vectorstores import VectorStore

__all__ = [
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_FETCH_K",
    "DEFAULT_FUSION",
    "HybridRetriever",
]

DEFAULT_FUSION = "relative_score"
DEFAULT_DENSE_WEIGHT = 0.5
DEFAULT_FETCH_K = 50


class HybridRetriever(EnsembleRetriever):
    """Search a vector store and a BM25 index over the same documents; fuse by score.

    Each side returns its ``fetch_k`` best candidates with their scores (relevance in
    [0, 1] for the store, BM25 scores for the keywords); each list is normalised
    (``fusion``) and the two are combined as ``dense_weight * dense + (1 - dense_weight) *
    keyword``; the ``k`` best come back, each with the fused score in
    ``metadata[score_key]``.

    Args:
        vectorstore: the dense side.
        keyword: a :class:`BM25Retriever` over the same documents, with the same ids (the
            two sides' results are matched by ``Document.id``).
        k: documents to return.
        fetch_k: candidates each side contributes (default 50, or k if larger).
        filter: a metadata filter applied on both sides (the vector stores' language).
        fusion: ``"relative_score"`` (min-max, default), ``"dbsf"`` or ``"rrf"``.
        dense_weight: the dense side's weight in [0, 1] (default 0.5).
        score_key: the metadata key of the scores.

    Raises:
        InvalidInputError: a keyword document without an id, a bad k / fetch_k / weight.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> texts = ["cats purr softly", "the cat sat", "stock prices fell"]
        >>> ids = ["1", "2", "3"]
        >>> store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=256), ids=ids)
        >>> keyword = BM25Retriever.from_texts(texts, ids=ids)
        >>> hybrid = HybridRetriever(store, keyword, k=2)
        >>> [(d.id, round(d.metadata["relevance_score"], 2)) for d in hybrid.invoke("cats purr")]
        [('1', 1.0), ('2', 0.15)]
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
        weight = check_unit_interval("HybridRetriever dense_weight", dense_weight)
        dense_side = vectorstore.as_retriever(
            search_kwargs={"k": fetch, "filter": filter}, score_key=score_key
        )
        keyword_side = BM25Retriever(
            keyword.vectorizer,
            keyword.docs,
            k=fetch,
            preprocess_func=keyword.preprocess_func,
            score_key=score_key,
            filter=filter,
        )
        super().__init__(
            [dense_side, keyword_side],
            weights=[weight, 1.0 - weight],
            fusion=fusion,
            score_key=score_key,
            k=k,
        )
        self.fetch_k = fetch
        self.dense_weight = weight

    def __repr__(self) -> str:
        return (
            f"HybridRetriever(k={self.k}, fetch_k={self.fetch_k}, fusion={self.fusion!r}, "
            f"dense_weight={self.dense_weight:g})"
        )

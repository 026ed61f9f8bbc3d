"""HybridRetriever: dense (vector store) and keyword (BM25) search fused by score.

The defaults were chosen on ragline's retrieval dev sets (``benchmarks/devsets/``: the
PostgreSQL manual, the Django documentation and The Devil's Dictionary, known-item
questions, MiniLM embeddings) so that the hybrid is at least as good as the better of
its two parts on each set and better on average; ``benchmarks/retrieval_quality.py``
prints the figures. Equal-weight reciprocal rank fusion (LangChain's EnsembleRetriever)
fell below dense search alone on both manuals; fusing normalised scores does not,
because a confident first hit of one side keeps its lead.
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
DEFAULT_DENSE_WEIGHT = 0.6
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
        dense_weight: the dense side's weight in [0, 1] (default 0.6).
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
        [('1', 1.0), ('2', 0.18)]
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

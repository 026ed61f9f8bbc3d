"""ragline.vectorstores: the VectorStore interface, its retriever and the backends.

Public names load lazily: ``import ragline.vectorstores`` imports neither faiss nor redis
(each backend imports its library when a store is built).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "VectorStore": ".base",
    # the type variable of a store class's own type (from_texts returns one), for
    # programs that annotate their VectorStore subclasses with it as LangChain's do
    "VST": ".base",
    "VectorStoreRetriever": ".retriever",
    "InMemoryVectorStore": ".in_memory",
    "FAISS": ".faiss",
    "DistanceStrategy": ".utils",
    "cosine_similarity": ".utils",
    "cosine_similarity_top_k": ".utils",
    "maximal_marginal_relevance": ".utils",
    "InMemoryDocstore": ".faiss._docstore",
    "Redis": ".redis",
    "RedisFilter": ".redis._filters",
    "RedisFilterExpression": ".redis._filters",
    "RedisNum": ".redis._filters",
    "RedisTag": ".redis._filters",
    "RedisText": ".redis._filters",
    # a byte store, not a vector store: its home is ragline.core.stores (kept here too)
    "RedisStore": "ragline.core.stores",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)

"""ragline.retrievers: retrievers that are more than one vector store.

BM25 keyword search (with optional stemming and stopwords), hybrid search (weighted
Reciprocal Rank Fusion of several retrievers, or fusion of normalised scores:
HybridRetriever), multi-query expansion by a model, contextual compression (embeddings
filter, redundancy filter, k-means clustering filter (scikit-learn), LLM extraction,
filtering and listwise reranking, pipelines), parent-document and multi-vector
retrieval, with the document stores they keep their documents in;
LongContextReorder (the best documents to both ends of a long context); MergerRetriever
(several retrievers' results interleaved); RePhraseQueryRetriever (a model rewrites the
question into a search query); TimeWeightedVectorStoreRetriever (similarity plus
recency); KNNRetriever (brute-force nearest texts over a numpy matrix); TFIDFRetriever
(TF-IDF cosine similarity, with scikit-learn);
SelfQueryRetriever (a model writes the search text and a metadata filter), its query
constructor and translators. Public names
load lazily.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "BM25Index": "._bm25",
    "BM25Retriever": "._bm25",
    "BM25Tokenizer": "._tokenizer",
    "HybridRetriever": "._hybrid",
    "score_fusion": "._fusion",
    "normalize_scores": "._fusion",
    "adaptive_weights": "._fusion",
    "score_peak": "._fusion",
    "term_coverage": "._fusion",
    "default_preprocessing_func": "._bm25",
    "EnsembleRetriever": "._ensemble",
    "weighted_reciprocal_rank": "._ensemble",
    "MultiQueryRetriever": "._multi_query",
    "LineListOutputParser": "._multi_query",
    "BaseDocumentCompressor": "._compression",
    "ContextualCompressionRetriever": "._compression",
    "DocumentCompressorPipeline": "._compression",
    "EmbeddingsClusteringFilter": "._compressors",
    "EmbeddingsFilter": "._compressors",
    "EmbeddingsRedundantFilter": "._compressors",
    "LLMChainFilter": "._llm_filter",
    "BooleanOutputParser": "._llm_filter",
    "LLMChainExtractor": "._compressors",
    "LLMListwiseRerank": "._listwise_rerank",
    "NoOutputParser": "._compressors",
    "ParentDocumentRetriever": "._parent_document",
    "MultiVectorRetriever": "._multi_vector",
    "SearchType": "._multi_vector",
    "LongContextReorder": "._reorder",
    "MergerRetriever": "._merger",
    "RePhraseQueryRetriever": "._rephrase",
    "TimeWeightedVectorStoreRetriever": "._time_weighted",
    "KNNRetriever": "._knn",
    "TFIDFRetriever": "._tfidf",
    "InMemoryDocumentStore": "._docstore",
    "create_kv_docstore": "._docstore",
    "SelfQueryRetriever": "._self_query",
    "AttributeInfo": "._query_constructor",
    "StructuredQueryOutputParser": "._query_constructor",
    "construct_examples": "._query_constructor",
    "fix_filter_directive": "._query_constructor",
    "get_query_constructor_prompt": "._query_constructor",
    "load_query_constructor_runnable": "._query_constructor",
    "get_parser": "._query_parser",
    "FilterTranslator": "._query_translators",
    "RedisTranslator": "._query_translators",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)

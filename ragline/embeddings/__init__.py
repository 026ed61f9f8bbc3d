"""ragline.embeddings: the Embeddings interface and its implementations.

Public names load lazily, so ``import ragline.embeddings`` imports no torch,
sentence_transformers, onnxruntime or openai.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "Embeddings": ".base",
    "check_texts": ".base",
    "validate_embeddings": ".base",
    "HashingEmbeddings": ".hashing",
    "DeterministicFakeEmbedding": ".hashing",
    "FakeEmbeddings": ".hashing",
    "SentenceTransformerEmbeddings": ".huggingface",
    "HuggingFaceEmbeddings": ".huggingface",
    "HuggingFaceBgeEmbeddings": ".huggingface",
    "OpenAIEmbeddings": ".openai_compatible",
    "CacheBackedEmbeddings": ".cache",
    "check_same_vectors": "._identity",
    "describe_identity": "._identity",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)

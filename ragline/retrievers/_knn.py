"""KNNRetriever: brute-force nearest neighbours over a numpy matrix of embeddings
(LangChain's retriever of the same name).

``from_texts`` embeds every text with the embedding's ``embed_query`` (as LangChain's
does, several at once in threads) into ``index``. A query is embedded, every row and
the query are scaled to length 1, and the ``k`` rows of highest cosine similarity are
returned, best first (numpy's ``argsort`` order for ties). With
``relevancy_threshold``, a row must also reach it after the query's similarities are
rescaled to [0, 1] (min to max, plus 1e-6 in the divisor).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterable
from typing import Any

import numpy as np

from ragline.core import BaseRetriever, Document

__all__ = ["KNNRetriever", "create_index"]


def create_index(contexts: list[str], embeddings: Any) -> np.ndarray:
    """The ``embed_query`` vectors of ``contexts``, one row each, in order."""
    with concurrent.futures.ThreadPoolExecutor() as executor:
        return np.array(list(executor.map(embeddings.embed_query, contexts)))


class KNNRetriever(BaseRetriever):
    """Return the texts whose embeddings are nearest the query's (module docstring).

    Args:
        embeddings: embeds the query (and, in ``from_texts``, the texts).
        index: the texts' vectors, one row each.
        texts: the texts.
        metadatas: one metadata dict per text (default: ``{}`` each).
        k: how many documents a query returns.
        relevancy_threshold: the least rescaled similarity a document needs.

    Example:
        >>> from ragline.embeddings import DeterministicFakeEmbedding
        >>> retriever = KNNRetriever.from_texts(["a", "b"], DeterministicFakeEmbedding(size=8), k=1)
        >>> [d.page_content for d in retriever.invoke("b")]
        ['b']
    """

    embeddings: Any
    texts: list[str]
    index: Any = None
    metadatas: list[dict[str, Any]] | None = None
    k: int = 4
    relevancy_threshold: float | None = None

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embeddings: Any,
        metadatas: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> KNNRetriever:
        """The retriever over ``texts``, embedded now."""
        texts = list(texts)  # lists, as LangChain's pydantic fields store them
        index = create_index(texts, embeddings)
        metadatas = list(metadatas) if metadatas is not None else None
        return cls(embeddings=embeddings, index=index, texts=texts, metadatas=metadatas, **kwargs)

    @classmethod
    def from_documents(
        cls, documents: Iterable[Document], embeddings: Any, **kwargs: Any
    ) -> KNNRetriever:
        """The retriever over the documents' texts and metadata."""
        texts, metadatas = zip(*((d.page_content, d.metadata) for d in documents), strict=False)
        return cls.from_texts(texts=texts, embeddings=embeddings, metadatas=metadatas, **kwargs)  # type: ignore[arg-type]

    def _get_relevant_documents(self, query: str) -> list[Document]:
        query_vector = np.array(self.embeddings.embed_query(query))
        rows = self.index / np.sqrt((self.index**2).sum(1, keepdims=True))
        query_vector = query_vector / np.sqrt((query_vector**2).sum())
        similarities = rows.dot(query_vector)
        order = np.argsort(-similarities)
        spread = np.max(similarities) - np.min(similarities) + 1e-6
        rescaled = (similarities - np.min(similarities)) / spread
        return [
            Document(self.texts[row], metadata=self.metadatas[row] if self.metadatas else {})
            for row in order[0 : self.k]
            if self.relevancy_threshold is None or rescaled[row] >= self.relevancy_threshold
        ]

"""TFIDFRetriever: documents ranked by the TF-IDF cosine similarity of their text to the
query (LangChain's retriever of the same name; scikit-learn does the arithmetic).

``from_texts`` fits scikit-learn's ``TfidfVectorizer`` (its defaults, or the
``tfidf_params`` given) on the texts; a query is turned into a vector by the same
vectorizer, each text's cosine similarity to it is computed, and the ``k`` best are
returned, best first; ties keep numpy's ``argsort`` order read from the end, as
LangChain's does, so equal scores come back in the same order in both.

Saving (LangChain's ``save_local`` / ``load_local``) is not offered: it pickles, which
ragline never loads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragline.core import BaseRetriever, Document
from ragline.core._optional import require

__all__ = ["TFIDFRetriever"]


class TFIDFRetriever(BaseRetriever):
    """Return the documents most similar to the query by TF-IDF (module docstring).

    Args:
        vectorizer: the fitted ``sklearn`` ``TfidfVectorizer``.
        docs: the documents, in the vectorizer's row order.
        tfidf_array: the documents' TF-IDF matrix (one row each).
        k: how many documents a query returns.

    Raises:
        MissingDependencyError: scikit-learn is not installed (extra ``tfidf``).

    Example:
        >>> retriever = TFIDFRetriever.from_texts(["red apple", "blue sky", "green apple"], k=2)
        >>> [d.page_content for d in retriever.invoke("apple")]
        ['green apple', 'red apple']
    """

    docs: list[Document]
    vectorizer: Any = None
    tfidf_array: Any = None
    k: int = 4

    @classmethod
    def from_texts(
        cls,
        texts: Iterable[str],
        metadatas: Iterable[Mapping[str, Any]] | None = None,
        tfidf_params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> TFIDFRetriever:
        """The retriever over ``texts`` (each with its metadata, default ``{}``), with a
        vectorizer built from ``tfidf_params`` and fitted on them now."""
        text = require("sklearn.feature_extraction.text", "tfidf", package="scikit-learn")
        texts = list(texts)
        vectorizer = text.TfidfVectorizer(**dict(tfidf_params or {}))
        tfidf_array = vectorizer.fit_transform(texts)
        metadata = [dict(m) for m in metadatas] if metadatas is not None else []
        if not metadata:  # none given (or an empty list): {} for each, as in LangChain
            metadata = [{} for _ in texts]
        docs = [Document(page_content=t, metadata=m) for t, m in zip(texts, metadata, strict=False)]
        return cls(vectorizer=vectorizer, docs=docs, tfidf_array=tfidf_array, **kwargs)

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        *,
        tfidf_params: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> TFIDFRetriever:
        """The retriever over the documents' texts and metadata."""
        documents = list(documents)
        return cls.from_texts(
            texts=[d.page_content for d in documents],
            metadatas=[d.metadata for d in documents],
            tfidf_params=tfidf_params,
            **kwargs,
        )

    def _get_relevant_documents(self, query: str) -> list[Document]:
        pairwise = require("sklearn.metrics.pairwise", "tfidf", package="scikit-learn")
        similarity = pairwise.cosine_similarity(
            self.tfidf_array, self.vectorizer.transform([query])
        ).reshape(-1)
        # the last k of argsort, best first (k=0 or k past the end: all of them)
        return [self.docs[row] for row in similarity.argsort()[-self.k :][::-1]]

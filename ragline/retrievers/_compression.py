"""Contextual compression: retrieve, then keep only what matters for the query.

A compressor takes the retrieved documents and the query and returns fewer or shorter
documents. :class:`ContextualCompressionRetriever` chains a base retriever and a
compressor; :class:`DocumentCompressorPipeline` chains several compressors and document
transformers (a text splitter, for instance: anything with ``transform_documents``).
The compressors themselves live in ``_compressors.py``.
"""

from __future__ import annotations

import asyncio
import contextvars
from abc import ABC, abstractmethod
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ragline.core import Document, InvalidInputError, Runnable, RunnableConfig
from ragline.core.config import use_config
from ragline.core.fields import warn_ignored_keywords
from ragline.core.runnables.base import adopt_runnable
from ragline.retrievers._batching import ChildBatchRetriever
from ragline.retrievers._checks import check_documents

__all__ = ["BaseDocumentCompressor", "ContextualCompressionRetriever", "DocumentCompressorPipeline"]

_COMPRESS_WORKERS = 8  # queries compressed at once in a batch (each may call a model)


class BaseDocumentCompressor(ABC):
    """Shrink retrieved documents given the query; implement ``compress_documents``.

    Example:
        >>> class FirstWord(BaseDocumentCompressor):
        ...     def compress_documents(self, documents, query):
        ...         return [Document(d.page_content.split()[0]) for d in documents]
        >>> FirstWord().compress_documents([Document("hello world")], "greeting")
        [Document(metadata={}, page_content='hello')]
    """

    @abstractmethod
    def compress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        """Return the documents (fewer, shorter or reordered) that matter for ``query``.

        Args:
            documents: the retrieved documents.
            query: the query they were retrieved for.
        """

    async def acompress_documents(
        self, documents: Sequence[Document], query: str
    ) -> list[Document]:
        """Async ``compress_documents``; by default the sync one in a worker thread."""
        return await asyncio.to_thread(self.compress_documents, documents, query)


def _check_output(owner: str, output: Any) -> list[Document]:
    if not isinstance(output, list):
        raise InvalidInputError(
            f"{owner} must return a list of Document, got {type(output).__name__}"
        )
    return check_documents(owner, output)


class ContextualCompressionRetriever(ChildBatchRetriever):
    """Retrieve with ``base_retriever``, then compress the results with ``base_compressor``.

    Args:
        base_compressor: a :class:`BaseDocumentCompressor` (``EmbeddingsFilter``,
            ``LLMChainExtractor``, ``DocumentCompressorPipeline`` ...).
        base_retriever: any retriever (a Runnable from a query to documents).
        tags, metadata: added to this retriever's runs; name: its run name (LangChain's
            fields).

    Another keyword is dropped with a ``UserWarning``, not refused:
    LangChain's retriever drops it silently, and its merger-retriever guide passes
    ``search_kwargs={"k": 3}`` here (the number of documents belongs on
    ``base_retriever``).

    Raises:
        InvalidInputError: a compressor without ``compress_documents``, or a retriever
            that is not a Runnable.

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> from ragline.retrievers import BM25Retriever, EmbeddingsFilter
        >>> base = BM25Retriever.from_texts(["cats purr loudly", "cats and stock prices"], k=2)
        >>> keep = EmbeddingsFilter(HashingEmbeddings(dimension=256), k=1)
        >>> retriever = ContextualCompressionRetriever(base_compressor=keep, base_retriever=base)
        >>> [doc.page_content for doc in retriever.invoke("cats purr")]
        ['cats purr loudly']
    """

    def __init__(
        self,
        base_compressor: BaseDocumentCompressor,
        base_retriever: Runnable[str, list[Document]],
        *,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **ignored: Any,
    ) -> None:
        if ignored:
            warn_ignored_keywords(
                self,
                ignored,
                ("base_compressor", "base_retriever", "tags", "metadata", "name"),
                "set search options such as k on base_retriever",
            )
        if not callable(getattr(base_compressor, "compress_documents", None)):
            raise InvalidInputError(
                "ContextualCompressionRetriever base_compressor needs a compress_documents "
                f"method, got {type(base_compressor).__name__}"
            )
        adopted = adopt_runnable(base_retriever)
        if adopted is None:
            raise InvalidInputError(
                "ContextualCompressionRetriever base_retriever must be a retriever (a Runnable), "
                f"got {type(base_retriever).__name__}"
            )
        self.base_compressor = base_compressor
        self.base_retriever = adopted
        # LangChain's retriever fields (a retriever's and a runnable's), kept as there
        if tags is not None:
            self.tags = list(tags)
        if metadata is not None:
            self.metadata = dict(metadata)
        if name is not None:
            self.name = name

    def __repr__(self) -> str:
        return (
            f"ContextualCompressionRetriever(base_compressor={self.base_compressor!r}, "
            f"base_retriever={self.base_retriever.get_name()})"
        )

    def _compress(self, documents: Any, query: str) -> list[Document]:
        documents = _check_output("base_retriever", documents)
        if not documents:
            return []
        return _check_output(
            "base_compressor", self.base_compressor.compress_documents(documents, query)
        )

    async def _acompress(self, documents: Any, query: str) -> list[Document]:
        documents = _check_output("base_retriever", documents)
        if not documents:
            return []
        compress = getattr(self.base_compressor, "acompress_documents", None)
        if compress is not None:
            output = await compress(documents, query)
        else:  # a duck-typed compressor with only the sync method (to_thread keeps the context)
            output = await asyncio.to_thread(
                self.base_compressor.compress_documents, documents, query
            )
        return _check_output("base_compressor", output)

    def _get_relevant_documents(self, query: str) -> list[Document]:
        return self._compress(self.base_retriever.invoke(query), query)

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        return await self._acompress(await self.base_retriever.ainvoke(query), query)

    # batch / abatch (ChildBatchRetriever): one base-retriever batch for all the queries,
    # then each query's compression inside its own run (so model calls nest under it)
    def _compress_in_run(self, documents: Any, query: str, config: RunnableConfig) -> Any:
        if isinstance(documents, BaseException):
            return documents
        try:
            with use_config(config):
                return self._compress(documents, query)
        except Exception as err:
            return err

    async def _acompress_in_run(self, documents: Any, query: str, config: RunnableConfig) -> Any:
        if isinstance(documents, BaseException):
            return documents
        try:
            with use_config(config):
                return await self._acompress(documents, query)
        except Exception as err:
            return err

    def _search_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        found = self.base_retriever.batch(queries, configs, return_exceptions=True)
        if len(queries) == 1:
            return [self._compress_in_run(found[0], queries[0], configs[0])]
        with ThreadPoolExecutor(max_workers=min(len(queries), _COMPRESS_WORKERS)) as pool:
            futures = [
                pool.submit(
                    contextvars.copy_context().run, self._compress_in_run, docs, query, config
                )
                for docs, query, config in zip(found, queries, configs, strict=True)
            ]
            return [future.result() for future in futures]

    async def _asearch_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        found = await self.base_retriever.abatch(queries, configs, return_exceptions=True)
        return list(
            await asyncio.gather(
                *(
                    self._acompress_in_run(docs, query, config)
                    for docs, query, config in zip(found, queries, configs, strict=True)
                )
            )
        )


class DocumentCompressorPipeline(BaseDocumentCompressor):
    """Apply compressors and document transformers one after the other.

    Each step is used through the first of these it has: ``compress_documents(documents,
    query)`` (a compressor), ``transform_documents(documents)`` (a text splitter or
    other transformer), or ``invoke(documents)`` (a Runnable over a list of documents).

    Args:
        transformers: the steps, in order.

    Raises:
        InvalidInputError: an empty list, or a step with none of the three methods
            (the message names its position and type).

    Example:
        >>> from ragline.core import RunnableLambda
        >>> short = RunnableLambda(lambda docs: [d for d in docs if len(d.page_content) < 6])
        >>> class Upper:
        ...     def transform_documents(self, documents):
        ...         return [Document(d.page_content.upper()) for d in documents]
        >>> DocumentCompressorPipeline(transformers=[short, Upper()]).compress_documents(
        ...     [Document("tiny"), Document("much longer")], "q")
        [Document(metadata={}, page_content='TINY')]
    """

    def __init__(self, transformers: Sequence[Any]) -> None:
        if (
            isinstance(transformers, (str, bytes))
            or not isinstance(transformers, Sequence)
            or not transformers
        ):
            raise InvalidInputError(
                "DocumentCompressorPipeline needs a non-empty list of transformers, got "
                f"{transformers!r:.80}"
            )
        for position, step in enumerate(transformers):
            if _kind(step) is None:
                raise InvalidInputError(
                    f"DocumentCompressorPipeline transformers[{position}] ({type(step).__name__}) "
                    "has none of compress_documents, transform_documents or invoke"
                )
        self.transformers = list(transformers)

    def __repr__(self) -> str:
        names = ", ".join(type(t).__name__ for t in self.transformers)
        return f"DocumentCompressorPipeline(transformers=[{names}])"

    def compress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        current = list(documents)
        for position, step in enumerate(self.transformers):
            kind = _kind(step)
            if kind == "compress":
                output = step.compress_documents(current, query)
            elif kind == "transform":
                output = step.transform_documents(current)
            else:
                output = step.invoke(current)
            current = _check_output(f"DocumentCompressorPipeline transformers[{position}]", output)
            if not current:
                break
        return current


def _kind(step: Any) -> str | None:
    if callable(getattr(step, "compress_documents", None)):
        return "compress"
    if callable(getattr(step, "transform_documents", None)):
        return "transform"
    if isinstance(step, Runnable):
        return "runnable"
    return None

"""BaseRetriever: a runnable from a query string to a list of documents.

A retriever implements one hook, ``_get_relevant_documents(query)``. The public
``invoke``/``ainvoke``/``batch``/``abatch`` validate the query, report a retriever run
(``on_retriever_start`` / ``end`` / ``error``) and call the hook. Optional hooks:

- ``_aget_relevant_documents(query)``: a truly async search (default: the sync hook in
  a worker thread, with the caller's context).
- ``_batch_get_relevant_documents(queries)``: search many queries in one go (one
  matrix product, one round trip). When a subclass defines it, ``batch`` and ``abatch``
  call it ONCE for all inputs, still reporting one retriever run per query.

Example:
    >>> from ragline.core import BaseRetriever, Document
    >>> class Keyword(BaseRetriever):
    ...     def __init__(self, docs):
    ...         self.docs = docs
    ...     def _get_relevant_documents(self, query):
    ...         return [d for d in self.docs if query in d.page_content]
    >>> Keyword([Document("red apple"), Document("green pear")]).invoke("apple")
    [Document(page_content='red apple')]
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from ragline.core.callbacks.manager import BaseRunManager
from ragline.core.config import RunnableConfig, ensure_config, ensure_config_list
from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError
from ragline.core.runnables.base import Runnable
from ragline.core.runnables.runs import _aend_run, _end_run

__all__ = ["BaseRetriever"]


class BaseRetriever(Runnable[str, list[Document]]):
    """Base class of retrievers; subclasses write ``_get_relevant_documents``.

    Attributes:
        tags: added to every run of this retriever (class or instance attribute).
        metadata: added to every run of this retriever.
    """

    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None

    @abstractmethod
    def _get_relevant_documents(self, query: str) -> list[Document]:
        """Return the documents relevant to ``query`` (the one hook to implement)."""

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        """Async hook; by default the sync hook in a worker thread."""
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._get_relevant_documents, query)
        return await asyncio.get_running_loop().run_in_executor(None, call)

    def _batch_get_relevant_documents(self, queries: list[str]) -> list[list[Document]]:
        """Optional batch hook: one list of documents per query, in order."""
        raise NotImplementedError

    def _has_batch_hook(self) -> bool:
        return (
            type(self)._batch_get_relevant_documents
            is not BaseRetriever._batch_get_relevant_documents
        )

    # ---- public API -----------------------------------------------------------------
    def _own_config(self, config: RunnableConfig | None) -> RunnableConfig:
        """The ensured config of one of this retriever's runs (for batch plumbing)."""
        return ensure_config(config)

    def _local_run_info(self) -> tuple[Any, Any]:
        # This retriever's tags and metadata mark its own runs (as in LangChain).
        return self.tags, self.metadata

    def _check_query(self, query: Any) -> str:
        if not isinstance(query, str):
            raise InvalidInputError(
                f"{self.get_name()} needs a str query, got {type(query).__name__}: {query!r:.80}"
            )
        return query

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Return the documents relevant to the query ``input``.

        Raises:
            InvalidInputError: the query is not a str.
            TypeError: keyword options were given (configure the retriever instead).
        """
        self._reject_kwargs(kwargs)
        self._check_query(input)
        return self._call_with_config(
            self._get_relevant_documents, input, config, run_type="retriever"
        )

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Async ``invoke`` through ``_aget_relevant_documents``."""
        self._reject_kwargs(kwargs)
        self._check_query(input)
        return await self._acall_with_config(
            self._aget_relevant_documents, input, config, run_type="retriever"
        )

    def _start_batch(
        self, inputs: Sequence[str], config: Any
    ) -> tuple[list[str], list[BaseRunManager]]:
        queries = [self._check_query(q) for q in inputs]
        if isinstance(config, (list, tuple)):
            configs = ensure_config_list(config, len(queries))
        elif queries:
            # One config for all: merged and checked once, and shared, since the configs
            # only start the runs here (a retriever has no child runs to hand them to).
            # run_id names one run: the first query's.
            first = ensure_config(config)
            configs = [first, *[{**first, "run_id": None}] * (len(queries) - 1)]  # type: ignore[list-item]
        else:
            configs = []
        return queries, self._start_runs(queries, configs, "retriever")

    def _check_batch_result(self, queries: list[str], results: Any) -> list[list[Document]]:
        if not isinstance(results, list) or len(results) != len(queries):
            size = len(results) if isinstance(results, list) else type(results).__name__
            raise InvalidInputError(
                f"{self.get_name()}._batch_get_relevant_documents returned {size} results "
                f"for {len(queries)} queries"
            )
        return results

    def batch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """Search many queries; one call of the batch hook when the subclass has one."""
        self._reject_kwargs(kwargs)
        inputs = [self._check_query(q) for q in inputs]  # all checked before any search
        if not self._has_batch_hook() or not inputs:
            return super().batch(inputs, config, return_exceptions=return_exceptions)
        queries, runs = self._start_batch(inputs, config)
        try:
            results = self._check_batch_result(queries, self._batch_get_relevant_documents(queries))
        except Exception as err:
            for run in runs:
                _end_run(run, error=err)
            if return_exceptions:
                return [err] * len(queries)  # type: ignore[list-item]
            raise
        for run, documents in zip(runs, results, strict=True):
            _end_run(run, documents)
        return results

    async def abatch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """Async ``batch``; the batch hook runs once, in a worker thread."""
        self._reject_kwargs(kwargs)
        inputs = [self._check_query(q) for q in inputs]
        if not self._has_batch_hook() or not inputs:
            return await super().abatch(inputs, config, return_exceptions=return_exceptions)
        queries, runs = self._start_batch(inputs, config)
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._batch_get_relevant_documents, queries)
        try:
            raw = await asyncio.get_running_loop().run_in_executor(None, call)
            results = self._check_batch_result(queries, raw)
        except Exception as err:
            for run in runs:
                await _aend_run(run, error=err)
            if return_exceptions:
                return [err] * len(queries)  # type: ignore[list-item]
            raise
        for run, documents in zip(runs, results, strict=True):
            await _aend_run(run, documents)
        return results

"""Batches that reach the children: one child ``batch`` for all the queries of a batch.

``BaseRetriever.batch`` either runs ``invoke`` per query in threads, or calls a batch hook
once, outside any single query's run (so children it invokes would not be nested under
the right run). A retriever built on other retrievers does better: it starts one run
per query, then hands ALL the queries to each child's own ``batch`` with, for query
``i``, the child config of run ``i``. A vector-store child then embeds every query in
one call, and each child run still appears under its query's run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core import BaseRetriever, Document, InvalidInputError, RunnableConfig

__all__ = ["ChildBatchRetriever"]


class ChildBatchRetriever(BaseRetriever):
    """A retriever whose ``batch`` and ``abatch`` pass all the queries to its children.

    Subclasses write ``_search_batch`` (and ``_asearch_batch``) besides the usual hooks.
    """

    def _search_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        """Return, per query, its documents or the exception it failed with.

        Args:
            queries: the checked queries.
            configs: per query, the config to pass to the children (``child.batch(
                queries, configs, return_exceptions=True)``).
        """
        raise NotImplementedError

    async def _asearch_batch(self, queries: list[str], configs: list[RunnableConfig]) -> list[Any]:
        """Async :meth:`_search_batch`."""
        raise NotImplementedError

    def batch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """Search many queries, each child searching all of them in one ``batch`` call.

        Args:
            inputs: the queries.
            config: one config for all, or one per query.
            return_exceptions: put a query's exception in its place instead of raising.
        """
        self._reject_kwargs(kwargs)
        queries = [self._check_query(q) for q in inputs]  # all checked before any search
        if not queries:
            return []
        configs = [self._own_config(c) for c in _config_list(config, len(queries))]
        runs = [self._start_run(q, c, "retriever") for q, c in zip(queries, configs, strict=True)]
        child_configs = [run.child_config(c) for run, c in zip(runs, configs, strict=True)]
        try:
            results = self._search_batch(queries, child_configs)
        except Exception as err:  # a failure outside the children fails every query
            results = [err] * len(queries)
        for run, result in zip(runs, results, strict=True):
            if isinstance(result, BaseException):
                run.on_retriever_error(result)
            else:
                run.on_retriever_end(result)
        return _raise_or_return(results, return_exceptions)

    async def abatch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """Async :meth:`batch`."""
        self._reject_kwargs(kwargs)
        queries = [self._check_query(q) for q in inputs]
        if not queries:
            return []
        configs = [self._own_config(c) for c in _config_list(config, len(queries))]
        runs = [
            await self._astart_run(q, c, "retriever") for q, c in zip(queries, configs, strict=True)
        ]
        child_configs = [run.child_config(c) for run, c in zip(runs, configs, strict=True)]
        try:
            results = await self._asearch_batch(queries, child_configs)
        except Exception as err:
            results = [err] * len(queries)
        for run, result in zip(runs, results, strict=True):
            if isinstance(result, BaseException):
                await run.aon_retriever_error(result)
            else:
                await run.aon_retriever_end(result)
        return _raise_or_return(results, return_exceptions)


def _config_list(config: Any, count: int) -> list[Any]:
    """One config per query: a list is used as is; one config is shared (its run_id: the first)."""
    if isinstance(config, (list, tuple)):
        if len(config) != count:
            raise InvalidInputError(
                f"batch got {len(config)} configs for {count} queries; pass one config or one per "
                "query"
            )
        return list(config)
    shared = dict(config or {})
    later = {key: value for key, value in shared.items() if key != "run_id"}
    return [shared if index == 0 else later for index in range(count)]


def _raise_or_return(results: list[Any], return_exceptions: bool) -> list[Any]:
    if not return_exceptions:
        for result in results:
            if isinstance(result, BaseException):
                raise result
    return results

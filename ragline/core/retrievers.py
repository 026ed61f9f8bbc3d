"""BaseRetriever: a runnable from a query string to a list of documents.

A retriever implements one hook, ``_get_relevant_documents``, in ragline's shape
``(self, query)`` or LangChain's ``(self, query, *, run_manager)``; a hook with further
parameters (``k=None``, ``**kwargs``) receives per-call search options, so
``retriever.invoke(q, k=3)`` and ``retriever.bind(k=3)`` work as in LangChain. Which
parameters the hook takes is read once, when the class is created. The public
``invoke``/``ainvoke``/``batch``/``abatch`` check the query (a ``str``, or a
``PromptValue`` read as its string), report a retriever run (``on_retriever_start`` /
``end`` / ``error``) and call the hook. Optional hooks:

- ``_aget_relevant_documents(query)`` (same shapes): a truly async search (default: the
  sync hook in a worker thread, with the caller's context).
- ``_batch_get_relevant_documents(queries)`` (``**options`` optional): search many
  queries in one go (one matrix product, one round trip). When a subclass defines it,
  ``batch`` and ``abatch`` call it ONCE for all inputs, still reporting one retriever
  run per query.

Subclasses may declare their options as annotated class attributes (``k: int = 4``),
which become keyword arguments of the constructor, as with LangChain's pydantic
retrievers. ``get_relevant_documents`` / ``aget_relevant_documents`` remain as
deprecated aliases of ``invoke`` / ``ainvoke``.

Example:
    >>> from ragline.core import BaseRetriever, Document
    >>> class Keyword(BaseRetriever):
    ...     documents: list[Document]
    ...     k: int = 4
    ...     def _get_relevant_documents(self, query, *, run_manager, k=None):
    ...         found = [d for d in self.documents if query in d.page_content]
    ...         return found[: k or self.k]
    >>> retriever = Keyword(documents=[Document("red apple"), Document("apple pie")])
    >>> retriever.invoke("apple", k=1)
    [Document(metadata={}, page_content='red apple')]
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import warnings
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ragline.core._json_schema import json_schema_of
from ragline.core.callbacks.run_managers import BaseRunManager
from ragline.core.config import (
    RunnableConfig,
    ensure_config,
    ensure_config_list,
    legacy_call_config,
)
from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError
from ragline.core.fields import user_stacklevel
from ragline.core.prompts import PromptValue
from ragline.core.runnables.runs import _aend_run, _end_run
from ragline.core.runnables.serializable import RunnableSerializable

__all__ = ["BaseRetriever"]


def _parameters(function: Any) -> set[str]:
    try:
        return set(inspect.signature(function).parameters) - {"self"}
    except (TypeError, ValueError):
        return set()


class BaseRetriever(RunnableSerializable[str, list[Document]]):
    """Base class of retrievers; subclasses write ``_get_relevant_documents``.

    Attributes:
        tags: added to this retriever's runs (class or instance attribute, or field).
        metadata: added to this retriever's runs.
    """

    __ragline_extra__ = "ignore"  # a stray keyword is dropped with a warning: LangChain's drops it

    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None

    # Read from the hooks' signatures when the class is created (LangChain's names).
    _new_arg_supported: ClassVar[bool] = False  # _get_relevant_documents takes run_manager
    _expects_other_args: ClassVar[bool] = False  # ... and search options
    _async_new_arg_supported: ClassVar[bool] = False
    _async_expects_other_args: ClassVar[bool] = False
    _batch_takes_options: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for public, hook in (
            ("get_relevant_documents", "_get_relevant_documents"),
            ("aget_relevant_documents", "_aget_relevant_documents"),
        ):
            if public in cls.__dict__:  # a retriever written for LangChain 0.0.x
                warnings.warn(
                    f"{cls.__name__} overrides {public}; retrievers implement {hook} "
                    f"(ragline uses the {public} given as {hook})",
                    DeprecationWarning,
                    stacklevel=2,
                )
                setattr(cls, hook, cls.__dict__[public])
                setattr(cls, public, getattr(BaseRetriever, public))
        sync = _parameters(cls._get_relevant_documents)
        cls._new_arg_supported = "run_manager" in sync
        cls._expects_other_args = bool(sync - {"query", "run_manager"})
        if cls._aget_relevant_documents is BaseRetriever._aget_relevant_documents:
            cls._async_new_arg_supported = True  # the default passes it on
            cls._async_expects_other_args = cls._expects_other_args
        else:
            asynchronous = _parameters(cls._aget_relevant_documents)
            cls._async_new_arg_supported = "run_manager" in asynchronous
            cls._async_expects_other_args = bool(asynchronous - {"query", "run_manager"})
        cls._batch_takes_options = bool(
            _parameters(cls._batch_get_relevant_documents) - {"queries"}
        )

    @abstractmethod
    def _get_relevant_documents(self, query: str) -> list[Document]:
        """Return the documents relevant to ``query`` (the one hook to implement)."""

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: Any = None, **options: Any
    ) -> list[Document]:
        """Async hook; by default the sync hook in a worker thread."""
        if self._new_arg_supported:
            options["run_manager"] = run_manager.get_sync() if run_manager else None
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._get_relevant_documents, query, **options)
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

    def _input_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string"}

    def _output_json(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "array", "items": json_schema_of(Document, defs)}

    def _local_run_info(self) -> tuple[Any, Any]:
        # This retriever's tags and metadata mark its own runs (as in LangChain).
        return self.tags, self.metadata

    def _get_ls_params(self, **kwargs: Any) -> dict[str, Any]:
        """The ``ls_*`` keys of this retriever's run metadata (LangChain's tracing keys).

        ``ls_retriever_name`` is the lowercased name without a leading or trailing
        ``Retriever`` (``BM25Retriever``: ``bm25``). The keys reach the runs inside this
        one too; the retriever's own ``metadata`` wins over them on its run.
        """
        return {"ls_retriever_name": _ls_retriever_name(self.get_name())}

    def _run_start_config(self, config: RunnableConfig) -> RunnableConfig:
        # ``config`` is an ensured one (its own dict): the keys go over the caller's
        # metadata, and its child config hands them down.
        params = self._get_ls_params()  # a fresh dict
        metadata = config.get("metadata")
        config["metadata"] = {**metadata, **params} if metadata else params
        return config

    def _check_query(self, query: Any) -> str:
        if isinstance(query, str):
            return query
        if isinstance(query, PromptValue):
            return query.to_string()
        raise InvalidInputError(
            f"{self.get_name()} needs a str query, got {type(query).__name__}: {query!r:.80}"
        )

    def _check_options(self, options: dict[str, Any], expects: bool) -> dict[str, Any]:
        """The per-call options the hook gets: all of them, or none (with a warning) when
        the hook has no parameter for them; LangChain's retriever drops them silently."""
        if not options or expects:
            return options
        warnings.warn(
            f"{self.get_name()} ignores the search options {', '.join(sorted(options))}: its "
            "_get_relevant_documents hook has no parameter for them, so the search runs "
            "without them, as LangChain's does (declare them, e.g. k=None or **kwargs, to "
            "use per-call options)",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return {}

    def _hook(self, options: dict[str, Any]) -> Callable[[str, Any], list[Document]]:
        if self._new_arg_supported:
            return lambda query, run: self._get_relevant_documents(  # type: ignore[call-arg]
                query, run_manager=run, **options
            )
        return lambda query, run: self._get_relevant_documents(query, **options)

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Return the documents relevant to the query ``input``.

        Args:
            input: the query (a ``PromptValue`` is read as its string).
            config: a RunnableConfig.
            **kwargs: per-call search options (``k=3``) for a hook that takes them.

        Raises:
            InvalidInputError: the query is not a str.

        Warns:
            UserWarning: options were given to a retriever whose hook takes none (they
                are ignored, as LangChain ignores them).
        """
        query = input if type(input) is str else self._check_query(input)
        if kwargs:
            kwargs = self._check_options(kwargs, self._expects_other_args)
        return self._call_with_config(  # type: ignore[no-any-return]
            self._hook(kwargs), query, config, run_type="retriever", with_run_manager=True
        )

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        """Async ``invoke`` through ``_aget_relevant_documents``."""
        query = self._check_query(input)
        kwargs = self._check_options(kwargs, self._async_expects_other_args)
        if self._async_new_arg_supported:

            async def hook(query: str, run: Any) -> list[Document]:
                return await self._aget_relevant_documents(query, run_manager=run, **kwargs)  # type: ignore[call-arg]

        else:

            async def hook(query: str, run: Any) -> list[Document]:
                return await self._aget_relevant_documents(query, **kwargs)

        return await self._acall_with_config(  # type: ignore[no-any-return]
            hook, query, config, run_type="retriever", with_run_manager=True
        )

    def get_relevant_documents(
        self,
        query: str,
        *,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """Deprecated alias of ``invoke`` (LangChain's pre-Runnable name)."""
        warnings.warn(
            "get_relevant_documents is deprecated; use invoke", DeprecationWarning, stacklevel=2
        )
        return self.invoke(query, legacy_call_config(callbacks, tags, metadata, run_name), **kwargs)

    async def aget_relevant_documents(
        self,
        query: str,
        *,
        callbacks: Any = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        """Deprecated alias of ``ainvoke``."""
        warnings.warn(
            "aget_relevant_documents is deprecated; use ainvoke", DeprecationWarning, stacklevel=2
        )
        config = legacy_call_config(callbacks, tags, metadata, run_name)
        return await self.ainvoke(query, config, **kwargs)

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

    def _batch_hook_usable(self, options: dict[str, Any]) -> bool:
        return self._has_batch_hook() and (not options or self._batch_takes_options)

    def batch(
        self,
        inputs: Sequence[str],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[list[Document]]:
        """Search many queries; one call of the batch hook when the subclass has one.

        ``**kwargs`` are per-call search options, as for ``invoke``.
        """
        kwargs = self._check_options(kwargs, self._expects_other_args)
        inputs = [self._check_query(q) for q in inputs]  # all checked before any search
        if not self._batch_hook_usable(kwargs) or not inputs:
            return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)
        queries, runs = self._start_batch(inputs, config)
        try:
            results = self._check_batch_result(
                queries, self._batch_get_relevant_documents(queries, **kwargs)
            )
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
        kwargs = self._check_options(kwargs, self._async_expects_other_args)
        inputs = [self._check_query(q) for q in inputs]
        if not self._batch_hook_usable(kwargs) or not inputs:
            return await super().abatch(
                inputs, config, return_exceptions=return_exceptions, **kwargs
            )
        queries, runs = self._start_batch(inputs, config)
        context = contextvars.copy_context()
        call = functools.partial(context.run, self._batch_get_relevant_documents, queries, **kwargs)
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


@functools.lru_cache(maxsize=256)
def _ls_retriever_name(name: str) -> str:
    """``ls_retriever_name`` of a retriever named ``name`` (computed once per name: it is
    part of every retriever run's metadata)."""
    if name.startswith("Retriever"):
        name = name[9:]
    elif name.endswith("Retriever"):
        name = name[:-9]
    return name.lower()

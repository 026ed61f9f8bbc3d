"""VectorStoreRetriever: a VectorStore searched as a Runnable retriever.

``store.as_retriever(search_type=..., search_kwargs={...})`` builds one. Its options are
checked when it is built (unknown search_type or search_kwargs keys, bad values), and a
batch of queries is embedded at once and searched with ONE backend ``_search`` call.
Per-call options go over ``search_kwargs`` (``retriever.invoke(q, k=3)``,
``retriever.bind(k=3)``), checked the same way.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from ragline.core import BaseRetriever, ConfigurationError, Document, InvalidInputError
from ragline.core._checks import check_choice
from ragline.core.callbacks.manager import current_run_listeners
from ragline.core.exceptions import as_validation_error
from ragline.core.retrievers import _ls_retriever_name
from ragline.embeddings import Embeddings
from ragline.vectorstores._validation import SearchPlan

if TYPE_CHECKING:
    from ragline.vectorstores.base import VectorStore

__all__ = ["SEARCH_KWARGS", "SEARCH_TYPES", "VectorStoreRetriever"]

SEARCH_TYPES = ("similarity", "similarity_score_threshold", "mmr")

# what a handler defines to receive a search's k and relevances (ragline.tracing's does)
_DETAILS_EVENT = "on_retriever_details"

# search_type -> the search_kwargs keys it accepts
SEARCH_KWARGS: dict[str, tuple[str, ...]] = {
    "similarity": ("k", "filter", "fetch_k", "score_threshold"),
    "similarity_score_threshold": ("k", "filter", "score_threshold", "fetch_k"),
    "mmr": ("k", "fetch_k", "lambda_mult", "filter"),
}


class VectorStoreRetriever(BaseRetriever):
    """Retrieve documents from a VectorStore by similarity, score threshold or MMR.

    Args:
        vectorstore: the store to search.
        search_type: ``"similarity"`` (default), ``"similarity_score_threshold"`` or
            ``"mmr"``.
        search_kwargs: options of that search type. ``similarity``: ``k`` (4), ``filter``,
            ``fetch_k`` (LangChain FAISS's, see ``VectorStore.similarity_search``);
            ``similarity_score_threshold``: ``score_threshold`` (required, in [0, 1]),
            ``k`` (4), ``filter``, ``fetch_k``; ``mmr``: ``k`` (4), ``fetch_k`` (20, as
            LangChain's: a larger ``k`` gets 20 documents, with a warning),
            ``lambda_mult`` (0.5), ``filter``.
        tags: added to every run's tags (``as_retriever`` defaults them to the store's
            and the embeddings' class names).
        metadata: added to every run's metadata.
        score_key: when set, each returned document carries its relevance in [0, 1] in
            ``metadata[score_key]`` (what score-based fusion reads; MMR results too).

    Raises:
        ConfigurationError: an unknown search_type (the message lists the valid ones).
        InvalidInputError: a bad value (k < 1, a threshold outside [0, 1] ...), or a call's
            option the search type does not take (``retriever.invoke(q, top_k=2)``). A
            ``search_kwargs`` key it does not take is ignored with a ``UserWarning`` naming
            it, as LangChain's stores drop it (silently).
        FilterError: a bad filter.

    Example:
        >>> options = {"k": 1, "filter": {"topic": "pets"}}
        >>> retriever = VectorStoreRetriever(store, search_kwargs=options)
        >>> retriever.invoke("stocks and cats")
        [Document(id='cats', metadata={'topic': 'pets'}, page_content='cats purr')]
    """

    allowed_search_types = SEARCH_TYPES
    # invoke's hook is _search_one, which stands for _get_relevant_documents and
    # _batch_get_relevant_documents: False in a subclass that overrides either
    _one_query_path: ClassVar[bool] = True
    # ragline.core.load's dumps writes it as LangChain's does (LangChain does not
    # serialize it): a not_implemented entry under LangChain's id, with its run name
    _lc_not_implemented_id: ClassVar[tuple[str, ...]] = (
        "langchain_core",
        "vectorstores",
        "base",
        "VectorStoreRetriever",
    )

    def __init__(
        self,
        vectorstore: VectorStore,
        *,
        search_type: str = "similarity",
        search_kwargs: Mapping[str, Any] | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        score_key: str | None = None,
    ) -> None:
        if score_key is not None and not isinstance(score_key, str):
            raise InvalidInputError(f"score_key must be a str or None, got {score_key!r}")
        self.vectorstore = vectorstore
        self.score_key = score_key
        try:
            self._configure(search_type, search_kwargs)
        except (ConfigurationError, InvalidInputError) as err:
            given = {"search_type": search_type, "search_kwargs": search_kwargs}
            raise _refused(err, type(self).__name__, given) from None
        # as LangChain's: built directly, only the given tags (as_retriever adds the
        # store and embeddings classes)
        self.tags = list(tags) if tags is not None else None
        self.metadata = dict(metadata) if metadata else None

    def _configure(self, search_type: str, search_kwargs: Mapping[str, Any] | None) -> None:
        kwargs = dict(search_kwargs or {})
        ignored: frozenset[str] = frozenset()
        check_choice("search_type", search_type, SEARCH_TYPES)
        if self.vectorstore._langchain_style:  # its own options: only the type is ours
            self._plan = None
        else:
            ignored = frozenset(key for key in kwargs if key not in SEARCH_KWARGS[search_type])
            if ignored:
                # LangChain's stores drop a key their search does not read (a tutorial's
                # "include_metadata", a misspelt "top_k"): ignored here too, but said
                warnings.warn(
                    f"search_kwargs {', '.join(map(repr, sorted(ignored)))} ignored: search_type "
                    f"{search_type!r} takes {', '.join(map(repr, SEARCH_KWARGS[search_type]))}",
                    UserWarning,
                    stacklevel=4,
                )
            # checked first: a bad value changes nothing
            self._plan = _plan(search_type, _without(kwargs, ignored))
        self._search_type, self._search_kwargs = search_type, kwargs
        self._ignored = ignored

    # Properties, so that assigning either option (by hand, or per call through
    # configurable_fields, which sets the attribute on a copy) re-checks it and takes
    # effect, and search_kwargs cannot be changed in place unnoticed.
    @property
    def search_type(self) -> str:
        """The search type; assigning one checks it with the current search_kwargs."""
        return self._search_type

    @search_type.setter
    def search_type(self, search_type: str) -> None:
        self._configure(search_type, self._search_kwargs)

    @property
    def search_kwargs(self) -> Mapping[str, Any]:
        """The search options, read-only; assign a new dict to change them (it is checked)."""
        return MappingProxyType(self._search_kwargs)

    @search_kwargs.setter
    def search_kwargs(self, search_kwargs: Mapping[str, Any] | None) -> None:
        self._configure(self._search_type, search_kwargs)

    def _assign_fields(self, values: dict[str, Any]) -> None:
        """Assign several fields at once (a ``configurable_fields`` choice): a new
        ``search_type`` is checked with the new ``search_kwargs``, not the old ones."""
        values = dict(values)
        search_type = values.pop("search_type", self._search_type)
        search_kwargs = values.pop("search_kwargs", self._search_kwargs)
        try:  # checked first: a bad pair changes nothing
            self._configure(search_type, search_kwargs)
        except (ConfigurationError, InvalidInputError) as err:
            given = {"search_type": search_type, "search_kwargs": search_kwargs}
            raise _refused(err, type(self).__name__, given) from None
        for attribute, value in values.items():
            setattr(self, attribute, value)

    def get_name(self) -> str:
        # LangChain's names: "VectorStoreRetriever", Redis's "RedisVectorStoreRetriever";
        # a subclass is named after itself
        if self.name:
            return self.name
        if type(self) is VectorStoreRetriever:
            return self.vectorstore._retriever_name
        return type(self).__name__

    def _get_ls_params(self, **kwargs: Any) -> dict[str, Any]:
        """``ls_retriever_name``, ``ls_vector_store_provider`` (the store's class name) and,
        when the store has embeddings, ``ls_embedding_provider`` (their class name)."""
        store = self.vectorstore
        params = {
            "ls_retriever_name": _ls_retriever_name(self.get_name()),
            "ls_vector_store_provider": type(store).__name__,
        }
        embeddings = getattr(store, "embeddings", None)
        if not embeddings:
            embeddings = getattr(store, "embedding", None)
            if not isinstance(embeddings, Embeddings):
                return params
        params["ls_embedding_provider"] = type(embeddings).__name__
        return params

    def __repr__(self) -> str:
        return (
            f"VectorStoreRetriever(vectorstore={type(self.vectorstore).__name__}, "
            f"search_type={self._search_type!r}, search_kwargs={self._search_kwargs!r})"
        )

    def add_documents(self, documents: list[Document]) -> list[str]:
        """Add documents to the underlying store (see ``VectorStore.add_documents``)."""
        return self.vectorstore.add_documents(documents)

    async def aadd_documents(self, documents: list[Document]) -> list[str]:
        """Async :meth:`add_documents`."""
        return await self.vectorstore.aadd_documents(documents)

    def _plan_for(self, search_options: dict[str, Any]) -> SearchPlan:
        """The search plan of one call: ``search_kwargs`` with the call's options over them
        (``retriever.invoke(q, k=3)``, as LangChain's retriever merges them), checked."""
        if not search_options and self._plan is not None:
            return self._plan
        return _plan(
            self._search_type, {**_without(self._search_kwargs, self._ignored), **search_options}
        )

    def _get_relevant_documents(self, query: str, **search_options: Any) -> list[Document]:
        return self._batch_get_relevant_documents([query], **search_options)[0]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._one_query_path = (
            cls._get_relevant_documents is VectorStoreRetriever._get_relevant_documents
            and cls._batch_get_relevant_documents
            is VectorStoreRetriever._batch_get_relevant_documents
        )

    def _hook(self, options: dict[str, Any]) -> Any:
        if options or not self._one_query_path:
            return super()._hook(options)
        return self._search_one

    def _search_one(self, query: str, run: Any) -> list[Document]:
        """``invoke``'s hook without per-call options: what ``_get_relevant_documents``
        does for one query, with the run's handlers read from ``run`` itself (the run
        whose config is current while it searches) rather than looked up."""
        store = self.vectorstore
        if store._langchain_style:
            return store.search(query, self._search_type, **self._search_kwargs)
        plan: SearchPlan = self._plan  # type: ignore[assignment]  # made for our stores
        wanting = None  # the handlers that take the search's details (tracing)
        handlers = run.handlers
        if handlers:  # untraced, no handlers: no loop to set up (bf37ad5 ran an empty one)
            for handler in handlers:  # a loop, not a comprehension: see below
                if hasattr(handler, _DETAILS_EVENT):
                    wanting = [handler] if wanting is None else [*wanting, handler]
        if self.score_key is None:
            if wanting is None:
                return store._search_texts([query], plan, scores=False)[0]
            # _reporting_plan's and _reported's steps for one query and no score_key,
            # written out: a traced call runs this once, after a query embedding's
            # forward pass has evicted the caches, where each further Python function
            # (a comprehension is one) costs its own cache misses
            documents, scores = [], []
            for document, score in store._search_texts([query], plan)[0]:
                documents.append(document)
                scores.append(float(score))
            kind = "relevance" if plan.to_relevance else "native"
            run_id = run._run_id  # a run with handlers has it from its start: no property
            if run_id is None:
                run_id = run.run_id
            for handler in wanting:
                getattr(handler, _DETAILS_EVENT)(run_id=run_id, k=plan.k,
                                                 search_type=self._search_type,
                                                 scores=scores, score_type=kind)  # fmt: skip
            return documents
        pairs = store._search_texts([query], self._reporting_plan(plan))
        return self._reported(pairs, plan, (run.run_id, wanting) if wanting else None)[0]

    async def _aget_relevant_documents(  # type: ignore[override]
        self, query: str, **search_options: Any
    ) -> list[Document]:
        if self.vectorstore._langchain_style:
            options = {**self._search_kwargs, **search_options}
            return await self.vectorstore.asearch(query, self._search_type, **options)
        plan = self._plan_for(search_options)
        listeners = current_run_listeners(_DETAILS_EVENT)
        if self.score_key is not None or listeners is not None:
            pairs = await self.vectorstore._asearch_texts([query], self._reporting_plan(plan))
            return self._reported(pairs, plan, listeners)[0]
        return (await self.vectorstore._asearch_texts([query], plan, scores=False))[0]

    def _batch_get_relevant_documents(  # type: ignore[override]
        self, queries: list[str], **search_options: Any
    ) -> list[list[Document]]:
        if self.vectorstore._langchain_style:  # its search methods, one query at a time
            options = {**self._search_kwargs, **search_options}
            return [self.vectorstore.search(q, self._search_type, **options) for q in queries]
        # one embed_queries_array call and one backend _search call for all the queries
        plan = self._plan_for(search_options)
        listeners = current_run_listeners(_DETAILS_EVENT)
        if self.score_key is not None or listeners is not None:
            pairs = self.vectorstore._search_texts(queries, self._reporting_plan(plan))
            return self._reported(pairs, plan, listeners)
        return self.vectorstore._search_texts(queries, plan, scores=False)

    def _reporting_plan(self, plan: SearchPlan) -> SearchPlan:
        """The plan whose scores are reported: relevances in [0, 1] for ``score_key``;
        for a handler alone, the search's own scores (no conversion, no clipping
        warning that the untraced search would not give)."""
        if self.score_key is None or plan.to_relevance:
            return plan
        return dataclasses.replace(plan, to_relevance=True)

    def _reported(
        self, results: list[list[Any]], plan: SearchPlan, listeners: Any
    ) -> list[list[Document]]:
        """The documents of scored ``results``: each with its relevance under
        ``score_key`` (when set), and the k and scores handed to the handlers that asked
        for them (tracing: one retriever run searches one query), with what the scores
        are: ``relevance`` (in [0, 1]) or the store's ``native`` score."""
        key = self.score_key
        if key is not None:
            for pairs in results:
                for document, relevance in pairs:
                    document.metadata[key] = relevance  # a fresh Document: ours to change
        if listeners is not None and len(results) == 1:
            run_id, handlers = listeners
            scores = [float(score) for _, score in results[0]]
            kind = "relevance" if key is not None or plan.to_relevance else "native"
            for handler in handlers:
                getattr(handler, _DETAILS_EVENT)(
                    run_id=run_id,
                    k=plan.k,
                    search_type=self._search_type,
                    scores=scores,
                    score_type=kind,
                )
        return [[document for document, _ in pairs] for pairs in results]


def _without(options: dict[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    return {key: value for key, value in options.items() if key not in keys} if keys else options


def _plan(search_type: str, search_kwargs: dict[str, Any]) -> SearchPlan:
    """Check search_type and search_kwargs, and turn them into a SearchPlan."""
    check_choice("search_type", search_type, SEARCH_TYPES)
    allowed = SEARCH_KWARGS[search_type]
    unknown = [key for key in search_kwargs if key not in allowed]
    if unknown:
        raise InvalidInputError(
            f"search_kwargs {', '.join(map(repr, unknown))} not accepted by search_type "
            f"{search_type!r}; it takes {', '.join(map(repr, allowed))}"
        )
    k = search_kwargs.get("k", 4)
    filter = search_kwargs.get("filter")
    if search_type == "similarity":
        return SearchPlan.similarity(
            k, filter, search_kwargs.get("fetch_k"), search_kwargs.get("score_threshold")
        )
    if search_type == "mmr":
        # LangChain's default, also when k is larger: MMR then picks from the 20 nearest
        # and 20 come back (SearchPlan.mmr warns that fetch_k is below k)
        fetch_k = search_kwargs.get("fetch_k", 20)
        return SearchPlan.mmr(k, fetch_k, search_kwargs.get("lambda_mult", 0.5), filter)
    if search_kwargs.get("score_threshold") is None:
        raise InvalidInputError(
            "search_type 'similarity_score_threshold' needs search_kwargs['score_threshold'], "
            "a relevance between 0 and 1"
        )
    return SearchPlan.relevance(
        k, filter, search_kwargs["score_threshold"], search_kwargs.get("fetch_k")
    )


def _refused(error: Exception, title: str, given: dict[str, Any]) -> Exception:
    """A retriever's refused options as LangChain's pydantic model refuses them: also
    pydantic's ``ValidationError`` (a type mistake stays ragline's TypeError)."""
    if isinstance(error, TypeError):
        return error
    return as_validation_error(error, title, given)  # type: ignore[arg-type]

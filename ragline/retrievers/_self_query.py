"""SelfQueryRetriever: a model writes the search text and a metadata filter from the
question, and the store searches with both (LangChain's class of the same name).

The query constructor (:func:`load_query_constructor_runnable`) turns the question into
a :class:`~ragline.core.structured_query.StructuredQuery`; a translator (a ``Visitor``)
turns its filter into the store's own; the store is searched with ``search_type`` and
``search_kwargs``, the filter and the model's ``limit`` (as ``k``) added.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ragline.core import BaseRetriever, Document, InvalidInputError, Runnable
from ragline.core._checks import check_choice
from ragline.core.runnables.base import adopt_runnable
from ragline.core.structured_query import StructuredQuery, Visitor
from ragline.retrievers._query_constructor import AttributeInfo, load_query_constructor_runnable
from ragline.retrievers._query_translators import builtin_translator

__all__ = ["QUERY_CONSTRUCTOR_RUN_NAME", "SelfQueryRetriever"]

logger = logging.getLogger("ragline.retrievers")

QUERY_CONSTRUCTOR_RUN_NAME = "query_constructor"


class SelfQueryRetriever(BaseRetriever):
    """Search a vector store with the text and the metadata filter a model derives from
    the question.

    Args:
        vectorstore: the store searched (a ragline store; any store with
            ``structured_query_translator`` given).
        query_constructor: a Runnable from ``{"query": question}`` to a
            ``StructuredQuery`` (also accepted as ``llm_chain``, LangChain's older name).
        search_type: ``"similarity"``, ``"mmr"`` or ``"similarity_score_threshold"``.
        search_kwargs: options of that search (``k`` ...); the filter and the model's
            limit are added to them (and win over them).
        structured_query_translator: turns the structured query into the store's search
            arguments; default: the store's built-in one (ragline's filter language, or
            Redis filter expressions). A translator written for LangChain (a
            ``langchain_core`` Visitor such as ``ChromaTranslator``) works too.
        verbose: log each generated query (logger ``ragline.retrievers``, INFO).
        use_original_query: search with the user's question instead of the model's text.

    Raises:
        InvalidInputError: a missing or non-Runnable query constructor, bad search_kwargs.
        ConfigurationError: an unknown search_type (the valid ones named).
        ValueError: no built-in translator for the store.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> from ragline.embeddings import FakeEmbeddings
        >>> from ragline.vectorstores import InMemoryVectorStore
        >>> store = InMemoryVectorStore.from_texts(
        ...     ["a dog story", "a cat story"], FakeEmbeddings(size=8),
        ...     metadatas=[{"year": 1999}, {"year": 2005}])
        >>> import json
        >>> reply = json.dumps({"query": "story", "filter": 'gt("year", 2000)'})
        >>> model = FakeListLLM(responses=[reply])
        >>> retriever = SelfQueryRetriever.from_llm(
        ...     model, store, "Short stories",
        ...     [AttributeInfo(name="year", description="year written", type="integer")])
        >>> [d.page_content for d in retriever.invoke("stories after 2000")]
        ['a cat story']
    """

    def __init__(
        self,
        *,
        vectorstore: Any,
        query_constructor: Runnable[dict[str, Any], StructuredQuery] | None = None,
        llm_chain: Runnable[dict[str, Any], StructuredQuery] | None = None,
        search_type: str = "similarity",
        search_kwargs: Mapping[str, Any] | None = None,
        structured_query_translator: Visitor | None = None,
        verbose: bool = False,
        use_original_query: bool = False,
        **fields: Any,
    ) -> None:
        super().__init__(**fields)
        if query_constructor is None:
            query_constructor = llm_chain
        elif llm_chain is not None:
            raise InvalidInputError(
                "give query_constructor or llm_chain (its older name), not both"
            )
        adopted = adopt_runnable(query_constructor)  # another library's too (interop)
        if adopted is None:
            raise InvalidInputError(
                "SelfQueryRetriever needs query_constructor, a Runnable from "
                f"{{'query': question}} to a StructuredQuery; got "
                f"{type(query_constructor).__name__}"
            )
        query_constructor = adopted
        if search_kwargs is not None and not isinstance(search_kwargs, Mapping):
            raise InvalidInputError(
                f"search_kwargs must be a dict, got {type(search_kwargs).__name__}"
            )
        if structured_query_translator is None:
            structured_query_translator = builtin_translator(vectorstore)
        # a Visitor, or one written for LangChain (its translators visit ragline's nodes)
        if not callable(getattr(structured_query_translator, "visit_structured_query", None)):
            raise InvalidInputError(
                "structured_query_translator must be a Visitor (with visit_structured_query), "
                f"got {type(structured_query_translator).__name__}"
            )
        # imported here: ragline.vectorstores.retriever loads numpy (the embeddings)
        from ragline.vectorstores.retriever import SEARCH_TYPES

        self.vectorstore = vectorstore
        self.query_constructor = query_constructor
        self.search_type = check_choice("search_type", search_type, SEARCH_TYPES)
        self.search_kwargs = dict(search_kwargs or {})
        self.structured_query_translator = structured_query_translator
        self.verbose = bool(verbose)
        self.use_original_query = bool(use_original_query)

    @property
    def llm_chain(self) -> Runnable[dict[str, Any], StructuredQuery]:
        """The query constructor (LangChain's older name)."""
        return self.query_constructor

    def __repr__(self) -> str:
        return (
            f"SelfQueryRetriever(vectorstore={self.vectorstore!r}, "
            f"search_type={self.search_type!r}, search_kwargs={self.search_kwargs!r})"
        )

    def _prepare_query(
        self, query: str, structured_query: StructuredQuery
    ) -> tuple[str, dict[str, Any]]:
        if self.verbose:
            logger.info("Generated Query: %s", structured_query)
        new_query, new_kwargs = self.structured_query_translator.visit_structured_query(
            structured_query
        )
        new_kwargs = dict(new_kwargs)
        if structured_query.limit is not None:
            new_kwargs["k"] = structured_query.limit
        if self.use_original_query:
            new_query = query
        return new_query, {**self.search_kwargs, **new_kwargs}

    def _get_relevant_documents(self, query: str) -> list[Document]:
        structured_query = self.query_constructor.invoke({"query": query})
        new_query, search_kwargs = self._prepare_query(query, structured_query)
        return self.vectorstore.search(new_query, self.search_type, **search_kwargs)  # type: ignore[no-any-return]

    async def _aget_relevant_documents(self, query: str) -> list[Document]:  # type: ignore[override]
        structured_query = await self.query_constructor.ainvoke({"query": query})
        new_query, search_kwargs = self._prepare_query(query, structured_query)
        return await self.vectorstore.asearch(new_query, self.search_type, **search_kwargs)  # type: ignore[no-any-return]

    @classmethod
    def from_llm(
        cls,
        llm: Runnable[Any, Any],
        vectorstore: Any,
        document_contents: str,
        metadata_field_info: Sequence[AttributeInfo | Mapping[str, Any]],
        structured_query_translator: Visitor | None = None,
        chain_kwargs: Mapping[str, Any] | None = None,
        enable_limit: bool = False,
        use_original_query: bool = False,
        **kwargs: Any,
    ) -> SelfQueryRetriever:
        """Build the retriever with ``load_query_constructor_runnable`` as its query
        constructor (run name ``query_constructor``).

        The model is offered the comparators and operators the translator can express
        unless ``chain_kwargs`` names them; ``chain_kwargs`` (``examples``,
        ``fix_invalid``, ``schema_prompt`` ...) go to the query constructor, ``kwargs``
        (``search_type``, ``search_kwargs``, ``verbose``, ``tags`` ...) to the retriever.
        """
        if structured_query_translator is None:
            structured_query_translator = builtin_translator(vectorstore)
        options = dict(chain_kwargs or {})
        for name in ("allowed_comparators", "allowed_operators"):
            # read leniently: the constructor says clearly what a translator must be
            allowed = getattr(structured_query_translator, name, None)
            if allowed is not None:
                options.setdefault(name, allowed)
        query_constructor = load_query_constructor_runnable(
            llm, document_contents, metadata_field_info, enable_limit=enable_limit, **options
        ).with_config(run_name=QUERY_CONSTRUCTOR_RUN_NAME)
        return cls(
            query_constructor=query_constructor,
            vectorstore=vectorstore,
            use_original_query=use_original_query,
            structured_query_translator=structured_query_translator,
            **kwargs,
        )

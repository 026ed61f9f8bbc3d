"""The ``langchain_core`` classes that ragline objects become (see ``_to.py``).

Imported only by ``to_langchain``, so that importing ragline loads no langchain_core.
Each wrapper calls the ragline object with a config whose one callback handler relays
the ragline runs inside to the LangChain run's handlers (the ragline object's own top
run is the wrapper's LangChain run; see ``_callbacks.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from ragline.core._optional import require
from ragline.core.chat_history import is_role_tuple
from ragline.interop.langchain._callbacks import ToLangChainHandler
from ragline.interop.langchain._convert import (
    document_from_langchain,
    document_to_langchain,
    documents_to_langchain,
    message_from_langchain,
    message_to_langchain,
    to_lc,
    to_ragline,
)
from ragline.interop.langchain._unheard import surely_unheard

require("langchain_core", "langchain", package="langchain-core")

from langchain_core.callbacks import (  # noqa: E402
    AsyncCallbackManagerForRetrieverRun,
    CallbackManager,
    CallbackManagerForRetrieverRun,
)
from langchain_core.chat_history import BaseChatMessageHistory  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.runnables import Runnable, RunnableConfig  # noqa: E402
from langchain_core.runnables.config import (  # noqa: E402
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)
from langchain_core.tools import BaseTool  # noqa: E402
from langchain_core.vectorstores import VectorStore  # noqa: E402
from pydantic import ConfigDict  # noqa: E402

__all__ = [
    "RaglineChatMessageHistory",
    "RaglineEmbeddings",
    "RaglineRetriever",
    "RaglineRunnable",
    "RaglineTool",
    "RaglineVectorStore",
    "ragline_config",
]

_CARRIED = ("max_concurrency", "recursion_limit", "configurable")


def ragline_config(run_manager: Any = None, config: Any = None) -> dict[str, Any]:
    """The ragline config for a call made inside a LangChain run: its limits and
    configurable values, its children's tags and metadata, and a handler relaying the
    ragline runs to the LangChain run's handlers."""
    converted: dict[str, Any] = {key: config[key] for key in _CARRIED if (config or {}).get(key)}
    if run_manager is None or not run_manager.handlers:
        return converted  # nobody listens (the common case): skip building the child manager
    # configure() adds the handlers LangChain keeps in context variables (collect_runs,
    # tracing), which a child manager alone does not carry.
    child = CallbackManager.configure(run_manager.get_child())
    if child.handlers:
        converted["callbacks"] = [ToLangChainHandler(child)]
    if child.inheritable_tags:
        converted["tags"] = list(child.inheritable_tags)
    if child.inheritable_metadata:
        converted["metadata"] = dict(child.inheritable_metadata)
    return converted


def _documents(found: Iterable[Any]) -> list[Document]:
    return documents_to_langchain(found)


def _ragline_documents(documents: Iterable[Document]) -> list[Any]:
    return [document_from_langchain(document) for document in documents]


def _scored(found: Iterable[tuple[Any, float]]) -> list[tuple[Document, float]]:
    return [(document_to_langchain(document), score) for document, score in found]


class RaglineEmbeddings(Embeddings):
    """ragline ``Embeddings`` as LangChain ``Embeddings``."""

    def __init__(self, embeddings: Any) -> None:
        self.ragline_object = embeddings

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.ragline_object.embed_documents(list(texts))  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.ragline_object.embed_query(text)  # type: ignore[no-any-return]

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await self.ragline_object.aembed_documents(list(texts))  # type: ignore[no-any-return]

    async def aembed_query(self, text: str) -> list[float]:
        return await self.ragline_object.aembed_query(text)  # type: ignore[no-any-return]


class RaglineVectorStore(VectorStore):
    """A ragline vector store (FAISS, Redis, in-memory ...) as a LangChain ``VectorStore``:
    ids, upserts, filters (ragline's filter language), scores and relevance scores are
    the ragline store's own."""

    def __init__(self, store: Any) -> None:
        self.ragline_object = store

    @property
    def embeddings(self) -> Embeddings | None:
        inner = self.ragline_object.embeddings
        return None if inner is None else RaglineEmbeddings(inner)

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict[Any, Any]] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        return self.ragline_object.add_texts(list(texts), metadatas, ids=ids, **kwargs)  # type: ignore[no-any-return]

    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        return self.ragline_object.add_documents(_ragline_documents(documents), **kwargs)  # type: ignore[no-any-return]

    async def aadd_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        converted = _ragline_documents(documents)
        return await self.ragline_object.aadd_documents(converted, **kwargs)  # type: ignore[no-any-return]

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        return self.ragline_object.delete(ids, **kwargs)  # type: ignore[no-any-return]

    async def adelete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        return await self.ragline_object.adelete(ids, **kwargs)  # type: ignore[no-any-return]

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        return _documents(self.ragline_object.get_by_ids(list(ids)))

    async def aget_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        return _documents(await self.ragline_object.aget_by_ids(list(ids)))

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return _documents(self.ragline_object.similarity_search(query, k=k, **kwargs))

    async def asimilarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return _documents(await self.ragline_object.asimilarity_search(query, k=k, **kwargs))

    def similarity_search_with_score(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return _scored(self.ragline_object.similarity_search_with_score(query, k=k, **kwargs))

    def similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        found = self.ragline_object.similarity_search_with_relevance_scores(query, k=k, **kwargs)
        return _scored(found)

    def similarity_search_by_vector(
        self, embedding: list[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        found = self.ragline_object.similarity_search_by_vector(embedding, k=k, **kwargs)
        return _documents(found)

    def max_marginal_relevance_search(
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        found = self.ragline_object.max_marginal_relevance_search(
            query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, **kwargs
        )
        return _documents(found)

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        **kwargs: Any,
    ) -> list[Document]:
        found = self.ragline_object.max_marginal_relevance_search_by_vector(
            embedding, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, **kwargs
        )
        return _documents(found)

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict[Any, Any]] | None = None,
        **kwargs: Any,
    ) -> RaglineVectorStore:
        raise NotImplementedError(
            "RaglineVectorStore wraps an existing ragline store: build it with the ragline "
            "class's from_texts (FAISS.from_texts ...), then to_langchain(store)"
        )


class RaglineRetriever(BaseRetriever):
    """A ragline retriever as a LangChain ``BaseRetriever``; its runs inside are
    reported under the LangChain retriever run.

    When no LangChain handler could see the retriever run (``surely_unheard``:
    nothing in the config or the context, no tracing, no debug, no configure hook),
    ``invoke`` and ``ainvoke`` call the ragline retriever directly: LangChain's run
    would report to nobody, and the ragline call is the one its own hook makes then (no
    callbacks crossing: an empty config). Otherwise LangChain's own ``invoke`` runs,
    unchanged (the handlers are built by LangChain alone, as for its own retrievers).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    ragline_object: Any

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        if not surely_unheard(config, kwargs, False):
            return super().invoke(input, config, **kwargs)
        return _documents(self.ragline_object.invoke(input, {}))

    async def ainvoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        if not surely_unheard(config, kwargs, True):
            return await super().ainvoke(input, config, **kwargs)
        return _documents(await self.ragline_object.ainvoke(input, {}))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return _documents(self.ragline_object.invoke(query, ragline_config(run_manager)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = await self.ragline_object.ainvoke(query, ragline_config(run_manager))
        return _documents(found)


class RaglineTool(BaseTool):
    """A ragline tool as a LangChain tool: same name, description and argument schema."""

    ragline_object: Any

    def _run(self, run_manager: Any = None, **kwargs: Any) -> Any:
        return to_lc(self.ragline_object.invoke(kwargs, ragline_config(run_manager)))

    async def _arun(self, run_manager: Any = None, **kwargs: Any) -> Any:
        return to_lc(await self.ragline_object.ainvoke(kwargs, ragline_config(run_manager)))


class RaglineChatMessageHistory(BaseChatMessageHistory):
    """A ragline chat message history as a LangChain one."""

    def __init__(self, history: Any) -> None:
        self.ragline_object = history

    # (role, text) pairs, which in-memory histories keep as given on both sides, pass
    # as they are

    @property
    def messages(self) -> list[Any]:  # type: ignore[override]
        return [
            message if is_role_tuple(message) else message_to_langchain(message)
            for message in self.ragline_object.messages
        ]

    def add_messages(self, messages: Sequence[Any]) -> None:
        self.ragline_object.add_messages(
            [m if is_role_tuple(m) else message_from_langchain(m) for m in messages]
        )

    def clear(self) -> None:
        self.ragline_object.clear()


class RaglineRunnable(Runnable[Any, Any]):
    """Any ragline Runnable (a chain, a chat model, a parser ...) as a LangChain
    Runnable: inputs and outputs converted, streaming kept, its inner runs reported
    under this one."""

    def __init__(self, runnable: Any, name: str | None = None) -> None:
        self.ragline_object = runnable
        self.name = name or runnable.get_name()

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        # The run is started here rather than through Runnable._call_with_config, which
        # reads the called function's signature on every call (a third of the bridge's
        # cost on a fast model).
        config = ensure_config(config)
        run = get_callback_manager_for_config(config).on_chain_start(
            None, input, name=config.get("run_name") or self.get_name(), run_id=config.get("run_id")
        )
        try:
            inner = ragline_config(run, config)
            output = to_lc(self.ragline_object.invoke(to_ragline(input), inner, **kwargs))
        except BaseException as err:
            run.on_chain_error(err)
            raise
        run.on_chain_end(output)
        return output

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        run = await get_async_callback_manager_for_config(config).on_chain_start(
            None, input, name=config.get("run_name") or self.get_name(), run_id=config.get("run_id")
        )
        try:
            inner = ragline_config(run, config)
            reply = await self.ragline_object.ainvoke(to_ragline(input), inner, **kwargs)
            output = to_lc(reply)
        except BaseException as err:
            await run.on_chain_error(err)
            raise
        await run.on_chain_end(output)
        return output

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        def chunks(inputs: Iterator[Any], run_manager: Any, config: RunnableConfig) -> Any:
            inner = ragline_config(run_manager, config)
            for value in inputs:
                for chunk in self.ragline_object.stream(to_ragline(value), inner, **kwargs):
                    yield to_lc(chunk)

        yield from self._transform_stream_with_config(input, chunks, config)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        yield from self.transform(iter([input]), config, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async def chunks(
            inputs: AsyncIterator[Any], run_manager: Any, config: RunnableConfig
        ) -> AsyncIterator[Any]:
            inner = ragline_config(run_manager, config)
            async for value in inputs:
                async for chunk in self.ragline_object.astream(to_ragline(value), inner, **kwargs):
                    yield to_lc(chunk)

        async for chunk in self._atransform_stream_with_config(input, chunks, config):
            yield chunk

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self.atransform(one(), config, **kwargs):
            yield chunk

"""``from_langchain``: a LangChain object as its ragline equivalent.

Each wrapper is a subclass of the ragline base it stands for, so it goes wherever ragline
takes one (``FAISS.from_documents(docs, from_langchain(lc_embeddings))``, ``prompt |
from_langchain(lc_model)``). Calls go to the LangChain object with the arguments and
results converted (``_convert.py``) and with the caller's callbacks bridged
(``_callbacks.py``): the LangChain object's own top run is the wrapper's run, its
inner runs become the wrapper's children.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from functools import cache
from typing import Any

from ragline.core import Document
from ragline.core.callbacks.manager import CallbackManager
from ragline.core.chat_history import BaseChatMessageHistory
from ragline.core.config import RunnableConfig, ensure_config
from ragline.core.exceptions import InvalidInputError
from ragline.core.language_models._chat import BaseChatModel
from ragline.core.language_models._llm import BaseLLM
from ragline.core.messages import AIMessage, AIMessageChunk, BaseMessage
from ragline.core.retrievers import BaseRetriever
from ragline.core.runnables.base import Runnable
from ragline.core.tools import BaseTool
from ragline.embeddings.base import Embeddings
from ragline.interop.langchain._callbacks import ToRaglineHandler
from ragline.interop.langchain._convert import (
    document_from_langchain,
    document_to_langchain,
    lc,
    message_from_langchain,
    message_to_langchain,
    to_lc,
    to_ragline,
)
from ragline.loaders import BaseLoader
from ragline.splitters import TextSplitter
from ragline.vectorstores import VectorStore

__all__ = [
    "LangChainChatMessageHistory",
    "LangChainChatModel",
    "LangChainEmbeddings",
    "LangChainLLM",
    "LangChainLoader",
    "LangChainRetriever",
    "LangChainRunnable",
    "LangChainTextSplitter",
    "LangChainTool",
    "LangChainVectorStore",
    "from_langchain",
    "langchain_config",
]

_CARRIED = ("max_concurrency", "recursion_limit", "configurable")


def langchain_config(config: RunnableConfig | None = None) -> dict[str, Any]:
    """The LangChain config for a call made inside the current ragline run: its tags,
    metadata, limits and configurable values, and a handler relaying LangChain's runs to
    the run's callback handlers (nothing when there are none)."""
    config = ensure_config(config)
    converted: dict[str, Any] = {key: config[key] for key in _CARRIED if config.get(key)}  # type: ignore[literal-required]
    manager = CallbackManager.from_config(config)
    if manager.parent_run_id is not None:
        # The LangChain object's top run stands for the wrapper's run: give it that id
        # (its reply ids, "lc_run--<run id>", then name the run ragline reported).
        converted["run_id"] = manager.parent_run_id
    if manager.handlers:
        converted["callbacks"] = [ToRaglineHandler(manager)]
    if manager.inheritable_tags:
        converted["tags"] = list(manager.inheritable_tags)
    if manager.inheritable_metadata:
        converted["metadata"] = dict(manager.inheritable_metadata)
    return converted


def _lc_messages(messages: Sequence[BaseMessage]) -> list[Any]:
    return [message_to_langchain(message) for message in messages]


def _ai(message: Any) -> AIMessage:
    converted = message_from_langchain(message)
    if not isinstance(converted, AIMessage):
        raise InvalidInputError(
            f"the LangChain model answered with {type(message).__name__}, not an AIMessage"
        )
    return converted


def _tool_spec(tool: Any) -> Any:
    """A tool as LangChain's ``bind_tools`` takes it (ragline tools as OpenAI dicts)."""
    if isinstance(tool, BaseTool):
        from ragline.core.tools import convert_to_openai_tool

        return convert_to_openai_tool(tool)
    return tool


class LangChainChatModel(BaseChatModel):
    """A LangChain chat model (or one bound with tools) as a ragline ``BaseChatModel``.

    ``invoke`` / ``stream`` / ``ainvoke`` / ``astream`` call the LangChain model's own;
    replies keep their ids, tool calls and usage metadata. ``bind_tools`` and
    ``with_structured_output`` are the LangChain model's (so each provider's own method
    is used); ragline tools are passed as OpenAI tool dicts.
    """

    structured_output_methods = ("function_calling", "json_schema", "json_mode")

    def __init__(self, model: Any) -> None:
        self.langchain_object = model
        self._name = str(model.get_name())

    def get_name(self) -> str:
        return self.name or self._name

    @property
    def _llm_type(self) -> str:
        # read on every call (run metadata, cache keys): worked out once per wrapped model
        model = self.langchain_object
        cached = self.__dict__.get("_llm_type_of")
        if cached is None or cached[0] is not model:
            inner = getattr(model, "_llm_type", None)
            cached = (model, f"langchain:{inner or type(model).__name__}")
            self.__dict__["_llm_type_of"] = cached
        return cached[1]

    def _generate(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **bound: Any
    ) -> AIMessage:
        reply = self.langchain_object.invoke(
            _lc_messages(messages), langchain_config(), stop=stop, **bound
        )
        return _ai(reply)

    async def _agenerate(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **bound: Any
    ) -> AIMessage:
        reply = await self.langchain_object.ainvoke(
            _lc_messages(messages), langchain_config(), stop=stop, **bound
        )
        return _ai(reply)

    def _stream(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **bound: Any
    ) -> Iterator[AIMessageChunk]:
        for chunk in self.langchain_object.stream(
            _lc_messages(messages), langchain_config(), stop=stop, **bound
        ):
            yield _ai(chunk)  # type: ignore[misc]

    async def _astream(  # type: ignore[override]
        self, messages: list[BaseMessage], stop: list[str] | None = None, **bound: Any
    ) -> AsyncIterator[AIMessageChunk]:
        async for chunk in self.langchain_object.astream(
            _lc_messages(messages), langchain_config(), stop=stop, **bound
        ):
            yield _ai(chunk)  # type: ignore[misc]

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> LangChainChatModel:
        """The LangChain model's ``bind_tools`` (ragline tools as OpenAI tool dicts)."""
        bound = self.langchain_object.bind_tools([_tool_spec(tool) for tool in tools], **kwargs)
        return LangChainChatModel(bound)

    def with_structured_output(
        self,
        schema: Any = None,
        *,
        method: str | None = None,
        include_raw: bool = False,
        strict: bool | None = None,
    ) -> Runnable[Any, Any]:
        """The LangChain model's ``with_structured_output`` as a ragline Runnable (a
        ``raw`` reply, with ``include_raw``, comes back as a ragline message)."""
        options: dict[str, Any] = {"include_raw": include_raw}
        if method is not None:
            options["method"] = method
        if strict is not None:
            options["strict"] = strict
        return LangChainRunnable(self.langchain_object.with_structured_output(schema, **options))


class LangChainLLM(BaseLLM):
    """A LangChain text-completion model (``BaseLLM``) as a ragline ``BaseLLM``."""

    def __init__(self, model: Any) -> None:
        self.langchain_object = model

    @property
    def _llm_type(self) -> str:
        return f"langchain:{getattr(self.langchain_object, '_llm_type', 'llm')}"

    def _generate(self, prompt: str, stop: list[str] | None = None, **bound: Any) -> str:  # type: ignore[override]
        return str(self.langchain_object.invoke(prompt, langchain_config(), stop=stop, **bound))

    async def _agenerate(self, prompt: str, stop: list[str] | None = None, **bound: Any) -> str:  # type: ignore[override]
        reply = await self.langchain_object.ainvoke(prompt, langchain_config(), stop=stop, **bound)
        return str(reply)

    def _stream(self, prompt: str, stop: list[str] | None = None, **bound: Any) -> Iterator[str]:  # type: ignore[override]
        yield from self.langchain_object.stream(prompt, langchain_config(), stop=stop, **bound)

    async def _astream(  # type: ignore[override]
        self, prompt: str, stop: list[str] | None = None, **bound: Any
    ) -> AsyncIterator[str]:
        async for chunk in self.langchain_object.astream(
            prompt, langchain_config(), stop=stop, **bound
        ):
            yield chunk


class LangChainEmbeddings(Embeddings):
    """LangChain ``Embeddings`` as ragline ``Embeddings`` (vectors as the model gives them)."""

    def __init__(self, embeddings: Any) -> None:
        self.langchain_object = embeddings

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(map(float, row)) for row in self.langchain_object.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return list(map(float, self.langchain_object.embed_query(text)))

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        rows = await self.langchain_object.aembed_documents(texts)
        return [list(map(float, row)) for row in rows]

    async def aembed_query(self, text: str) -> list[float]:
        return list(map(float, await self.langchain_object.aembed_query(text)))


@cache
def _surely_unheard() -> Any:
    """``_unheard.surely_unheard``, imported on first use (it loads langchain_core)."""
    from ragline.interop.langchain._unheard import surely_unheard

    return surely_unheard


def _unheard_run(retriever: Any, config: dict[str, Any], asynchronous: bool) -> Any:
    """A no-op LangChain run manager for ``retriever``'s hook when the retriever run
    ``invoke`` would start with ``config`` has no handler, else None (then its own
    ``invoke`` / ``ainvoke`` runs).

    ``surely_unheard`` (``_unheard.py``) says whether a handler could be there (passed in
    the config, in context variables, or set up globally), reading what LangChain's
    ``configure`` reads; when unsure, LangChain's own ``invoke`` runs and builds the
    handlers. So only its bookkeeping for a run nobody hears is skipped. A retriever
    class with its own ``invoke`` always gets it called.
    """
    base = lc("retrievers").BaseRetriever
    name = "ainvoke" if asynchronous else "invoke"
    if getattr(type(retriever), name) is not getattr(base, name):
        return None
    if not _surely_unheard()(config, {}, asynchronous):
        return None
    manager = lc("callbacks.manager")
    kind = (
        manager.AsyncCallbackManagerForRetrieverRun
        if asynchronous
        else manager.CallbackManagerForRetrieverRun
    )
    run_id = config.get("run_id")  # the id the run would have had (the wrapper's run)
    if run_id is None:
        return kind.get_noop_manager()
    tags, metadata = config.get("tags", []), config.get("metadata", {})
    return kind(
        run_id=run_id,
        handlers=[],
        inheritable_handlers=[],
        tags=[],
        inheritable_tags=tags,
        metadata={},
        inheritable_metadata=metadata,
    )


class LangChainRetriever(BaseRetriever):
    """A LangChain retriever as a ragline retriever; its documents converted.

    When the LangChain retriever run would have no handler (``_unheard_run``), its hook
    is called as its ``invoke`` would call it, without starting that run.
    """

    def __init__(self, retriever: Any) -> None:
        self.langchain_object = retriever
        self._name = str(retriever.get_name())

    def get_name(self) -> str:
        return self._name

    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        retriever, config = self.langchain_object, langchain_config()
        quiet = _unheard_run(retriever, config, asynchronous=False)
        if quiet is None:
            found = retriever.invoke(query, config)
        elif retriever._new_arg_supported:
            found = retriever._get_relevant_documents(query, run_manager=quiet)
        else:
            found = retriever._get_relevant_documents(query)
        return [document_from_langchain(document) for document in found]

    async def _aget_relevant_documents(  # type: ignore[override]
        self, query: str, *, run_manager: Any = None
    ) -> list[Document]:
        retriever, config = self.langchain_object, langchain_config()
        quiet = _unheard_run(retriever, config, asynchronous=True)
        if quiet is None:
            found = await retriever.ainvoke(query, config)
        elif retriever._new_arg_supported:
            found = await retriever._aget_relevant_documents(query, run_manager=quiet)
        else:
            found = await retriever._aget_relevant_documents(query)
        return [document_from_langchain(document) for document in found]


def _documents(found: Iterable[Any]) -> list[Document]:
    return [document_from_langchain(document) for document in found]


def _scored(found: Iterable[tuple[Any, float]]) -> list[tuple[Document, float]]:
    return [(document_from_langchain(document), float(score)) for document, score in found]


class LangChainVectorStore(VectorStore):
    """A LangChain vector store as a ragline ``VectorStore`` (written LangChain's way:
    every call goes to the LangChain store; ``filter`` is that store's own language and
    scores are its own; ``as_retriever`` is its retriever, converted)."""

    def __init__(self, store: Any) -> None:
        self.langchain_object = store

    @property
    def embeddings(self) -> Any:
        inner = self.langchain_object.embeddings
        return None if inner is None else from_langchain(inner)

    def add_texts(  # type: ignore[override]
        self,
        texts: Iterable[str],
        metadatas: Sequence[dict[str, Any] | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        options = {"ids": list(ids)} if ids is not None else {}
        texts = list(texts)
        meta = None if metadatas is None else [dict(m or {}) for m in metadatas]
        return list(self.langchain_object.add_texts(texts, meta, **options, **kwargs))

    def add_documents(  # type: ignore[override]
        self, documents: Iterable[Document], *, ids: Sequence[str] | None = None, **kwargs: Any
    ) -> list[str]:
        options = {"ids": list(ids)} if ids is not None else {}
        converted = [document_to_langchain(document) for document in documents]
        return list(self.langchain_object.add_documents(converted, **options, **kwargs))

    def delete(self, ids: Sequence[str] | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        return self.langchain_object.delete(None if ids is None else list(ids), **kwargs)

    def get_by_ids(self, ids: Sequence[str]) -> list[Document]:  # type: ignore[override]
        return _documents(self.langchain_object.get_by_ids(list(ids)))

    def similarity_search(  # type: ignore[override]
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[Document]:
        return _documents(self.langchain_object.similarity_search(query, k=k, **kwargs))

    def similarity_search_with_score(  # type: ignore[override]
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        return _scored(self.langchain_object.similarity_search_with_score(query, k=k, **kwargs))

    def similarity_search_with_relevance_scores(  # type: ignore[override]
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        found = self.langchain_object.similarity_search_with_relevance_scores(query, k=k, **kwargs)
        return _scored(found)

    def similarity_search_by_vector(  # type: ignore[override]
        self, embedding: Sequence[float], k: int = 4, **kwargs: Any
    ) -> list[Document]:
        found = self.langchain_object.similarity_search_by_vector(list(embedding), k=k, **kwargs)
        return _documents(found)

    def max_marginal_relevance_search(  # type: ignore[override]
        self, query: str, k: int = 4, fetch_k: int = 20, lambda_mult: float = 0.5, **kwargs: Any
    ) -> list[Document]:
        found = self.langchain_object.max_marginal_relevance_search(
            query, k=k, fetch_k=fetch_k, lambda_mult=lambda_mult, **kwargs
        )
        return _documents(found)

    async def asimilarity_search(  # type: ignore[override]
        self, query: str, k: int = 4, **kwargs: Any
    ) -> list[Document]:
        return _documents(await self.langchain_object.asimilarity_search(query, k=k, **kwargs))

    def as_retriever(self, **kwargs: Any) -> LangChainRetriever:  # type: ignore[override]
        """The LangChain store's own retriever (its search types and options)."""
        return LangChainRetriever(self.langchain_object.as_retriever(**kwargs))

    @classmethod
    def from_texts(cls, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        raise InvalidInputError(
            "LangChainVectorStore wraps an existing LangChain store: build it with the "
            "LangChain class's from_texts, then from_langchain(store)"
        )


class LangChainLoader(BaseLoader):
    """A LangChain document loader as a ragline loader; ``lazy_load`` stays lazy (one
    document converted at a time, as the LangChain loader yields it)."""

    def __init__(self, loader: Any) -> None:
        self.langchain_object = loader

    def lazy_load(self) -> Iterator[Document]:
        for document in self.langchain_object.lazy_load():
            yield document_from_langchain(document)

    async def alazy_load(self) -> AsyncIterator[Document]:
        async for document in self.langchain_object.alazy_load():
            yield document_from_langchain(document)


class LangChainTextSplitter(TextSplitter):
    """A LangChain text splitter (``langchain_text_splitters.TextSplitter``) as a ragline
    splitter: texts and documents are split by the LangChain splitter itself."""

    def __init__(self, splitter: Any) -> None:
        super().__init__(
            chunk_size=splitter._chunk_size,
            chunk_overlap=min(splitter._chunk_overlap, splitter._chunk_size - 1),
            add_start_index=bool(getattr(splitter, "_add_start_index", False)),
        )
        self.langchain_object = splitter

    def split_text(self, text: str) -> list[str]:
        return list(self.langchain_object.split_text(text))

    def create_documents(  # type: ignore[override]
        self, texts: Sequence[str], metadatas: Sequence[dict[str, Any]] | None = None
    ) -> list[Document]:
        found = self.langchain_object.create_documents(
            list(texts), None if metadatas is None else [dict(m) for m in metadatas]
        )
        return _documents(found)

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        converted = [document_to_langchain(document) for document in documents]
        return _documents(self.langchain_object.split_documents(converted))


class LangChainTool(BaseTool):
    """A LangChain tool as a ragline tool: same name, description and argument schema;
    a call runs the LangChain tool with the checked arguments."""

    def __init__(self, tool: Any) -> None:
        from langchain_core.utils.function_calling import convert_to_openai_tool

        spec = convert_to_openai_tool(tool)["function"]
        super().__init__(  # type: ignore[call-arg]
            name=tool.name,
            description=tool.description,
            args_schema=spec.get("parameters", {"type": "object", "properties": {}}),
            return_direct=bool(tool.return_direct),
        )
        self.langchain_object = tool

    def _run(self, **kwargs: Any) -> Any:
        return to_ragline(self.langchain_object.invoke(kwargs, langchain_config()))

    async def _arun(self, **kwargs: Any) -> Any:
        return to_ragline(await self.langchain_object.ainvoke(kwargs, langchain_config()))


class LangChainChatMessageHistory(BaseChatMessageHistory):
    """A LangChain chat message history (a file, a database table ...) as a ragline
    history: messages read and written through it, converted field for field."""

    def __init__(self, history: Any) -> None:
        self.langchain_object = history

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return [message_from_langchain(message) for message in self.langchain_object.messages]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.langchain_object.add_messages([message_to_langchain(m) for m in messages])

    def clear(self) -> None:
        self.langchain_object.clear()


class LangChainRunnable(Runnable[Any, Any]):
    """Any LangChain Runnable as a ragline Runnable: inputs and outputs converted
    (messages, documents, prompt values, also inside lists and dicts), streaming kept,
    its inner runs reported under this one."""

    def __init__(self, runnable: Any) -> None:
        self.langchain_object = runnable
        self._name = str(runnable.get_name())

    def get_name(self) -> str:
        return self._name

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        def call(value: Any) -> Any:
            return to_ragline(
                self.langchain_object.invoke(to_lc(value), langchain_config(), **kwargs)
            )

        return self._call_with_config(call, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        async def call(value: Any) -> Any:
            reply = await self.langchain_object.ainvoke(to_lc(value), langchain_config(), **kwargs)
            return to_ragline(reply)

        return await self._acall_with_config(call, input, config)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        def chunks(inputs: Iterator[Any]) -> Iterator[Any]:
            for value in inputs:
                for chunk in self.langchain_object.stream(
                    to_lc(value), langchain_config(), **kwargs
                ):
                    yield to_ragline(chunk)

        yield from self._transform_stream_with_config(iter([input]), chunks, config)

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Hand the input stream to the LangChain object's ``transform`` (a parser then
        streams as it does in LangChain)."""

        def chunks(inputs: Iterator[Any]) -> Iterator[Any]:
            converted = (to_lc(value) for value in inputs)
            for chunk in self.langchain_object.transform(converted, langchain_config(), **kwargs):
                yield to_ragline(chunk)

        yield from self._transform_stream_with_config(input, chunks, config)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async :meth:`transform`."""

        async def chunks(inputs: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async def converted() -> AsyncIterator[Any]:
                async for value in inputs:
                    yield to_lc(value)

            async for chunk in self.langchain_object.atransform(
                converted(), langchain_config(), **kwargs
            ):
                yield to_ragline(chunk)

        async for chunk in self._atransform_stream_with_config(input, chunks, config):
            yield chunk

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        async def one() -> AsyncIterator[Any]:
            yield input

        async def chunks(inputs: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async for value in inputs:
                async for chunk in self.langchain_object.astream(
                    to_lc(value), langchain_config(), **kwargs
                ):
                    yield to_ragline(chunk)

        async for chunk in self._atransform_stream_with_config(one(), chunks, config):
            yield chunk


def from_langchain(obj: Any) -> Any:
    """The ragline equivalent of a LangChain object.

    Chat models, LLMs, embeddings, vector stores, retrievers, document loaders, text
    splitters, tools and chat message histories become the ragline class of that kind;
    any other Runnable becomes a ragline Runnable. A ragline object is returned as it is,
    and one ``to_langchain`` wrapped is given back unwrapped.

    Raises:
        InvalidInputError: ``obj`` is none of these (its type is named).

    Example:
        >>> from langchain_core.language_models import FakeListChatModel
        >>> model = from_langchain(FakeListChatModel(responses=["hello"]))
        >>> model.invoke("hi").content
        'hello'
    """
    if type(obj).__module__ == "ragline.interop.langchain._to_classes":
        return obj.ragline_object  # a ragline object to_langchain wrapped: itself
    if type(obj).__module__.startswith("ragline.") or isinstance(obj, Embeddings):
        # ragline's (a user's subclass too: compose registers ragline's Embeddings as a
        # virtual subclass of LangChain's, so the check below would take it)
        return obj
    language_models = lc("language_models")
    kinds: list[tuple[Any, Any]] = [
        (language_models.BaseChatModel, LangChainChatModel),
        (language_models.BaseLLM, LangChainLLM),
        (lc("embeddings").Embeddings, LangChainEmbeddings),
        (lc("vectorstores").VectorStore, LangChainVectorStore),
        (lc("retrievers").BaseRetriever, LangChainRetriever),
        (lc("document_loaders").BaseLoader, LangChainLoader),
        (lc("tools").BaseTool, LangChainTool),
        (lc("chat_history").BaseChatMessageHistory, LangChainChatMessageHistory),
    ]
    for base, wrapper in kinds:
        if isinstance(obj, base):
            return wrapper(obj)
    if _is_text_splitter(obj):
        return LangChainTextSplitter(obj)
    if isinstance(obj, lc("runnables").Runnable):
        if _is_chat_model_binding(obj):
            return LangChainChatModel(obj)
        return LangChainRunnable(obj)
    raise InvalidInputError(
        f"from_langchain cannot wrap {type(obj).__module__}.{type(obj).__name__}: it takes "
        "LangChain chat models, LLMs, embeddings, vector stores, retrievers, document "
        "loaders, text splitters, tools, chat message histories and Runnables"
    )


def _is_text_splitter(obj: Any) -> bool:
    return any(
        cls.__name__ == "TextSplitter" and cls.__module__.startswith("langchain_text_splitters")
        for cls in type(obj).__mro__
    )


def _is_chat_model_binding(obj: Any) -> bool:
    """A chat model with bound arguments (``model.bind_tools(...)``)."""
    bound = getattr(obj, "bound", None)
    return bound is not None and isinstance(bound, lc("language_models").BaseChatModel)

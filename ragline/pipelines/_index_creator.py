"""VectorstoreIndexCreator: loaders or documents into a vector store, wrapped for questions."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from ragline.chains import RetrievalQA, RetrievalQAWithSourcesChain
from ragline.core import Document, Field, Fields
from ragline.core.exceptions import UnsupportedMethodError
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.vectorstores import InMemoryVectorStore

__all__ = ["VectorStoreIndexWrapper", "VectorstoreIndexCreator"]


def _default_store() -> type:
    warnings.warn(
        "VectorstoreIndexCreator was given no vectorstore_cls, so it uses "
        "InMemoryVectorStore, which keeps nothing after the program ends; pass "
        "vectorstore_cls=... to choose the store",
        UserWarning,
        stacklevel=3,
    )
    return InMemoryVectorStore


def _default_splitter() -> RecursiveCharacterTextSplitter:
    return RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=0)


def _needs_llm(llm: Any, method: str) -> None:
    if llm is None:
        raise UnsupportedMethodError(
            f"VectorStoreIndexWrapper.{method} needs a model to answer with: "
            f"pass llm=... (a chat model or an LLM)"
        )


class VectorStoreIndexWrapper(Fields):
    """A vector store with one-call questions: retrieve, then answer with a model.

    LangChain's wrapper (``langchain_classic.indexes``). ``query`` runs
    ``RetrievalQA.from_chain_type(llm, retriever=vectorstore.as_retriever(
    **retriever_kwargs), **kwargs)`` on the question and returns its answer;
    ``query_with_sources`` does the same with ``RetrievalQAWithSourcesChain`` and returns
    its whole output (``question``, ``answer``, ``sources``).

    Raises:
        UnsupportedMethodError: no ``llm`` was given (a ``NotImplementedError``, printed
            as one: LangChain's exception type).

    Example:
        >>> from ragline.core import FakeListLLM
        >>> from ragline.embeddings import DeterministicFakeEmbedding
        >>> index = VectorstoreIndexCreator(
        ...     vectorstore_cls=InMemoryVectorStore,
        ...     embedding=DeterministicFakeEmbedding(size=8),
        ... ).from_documents([Document(page_content="Paris is in France.")])
        >>> index.query("Where is Paris?", llm=FakeListLLM(responses=["In France."]))
        'In France.'
    """

    vectorstore: Any

    def _retriever(self, retriever_kwargs: dict[str, Any] | None) -> Any:
        return self.vectorstore.as_retriever(**(retriever_kwargs or {}))

    def query(
        self,
        question: str,
        llm: Any = None,
        retriever_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> str:
        """The answer of a ``RetrievalQA`` chain over the store to ``question``."""
        _needs_llm(llm, "query")
        chain = RetrievalQA.from_chain_type(
            llm, retriever=self._retriever(retriever_kwargs), **kwargs
        )
        return chain.invoke({chain.input_key: question})[chain.output_key]  # type: ignore[no-any-return]

    async def aquery(
        self,
        question: str,
        llm: Any = None,
        retriever_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> str:
        """``query`` run with ``ainvoke``."""
        _needs_llm(llm, "aquery")
        chain = RetrievalQA.from_chain_type(
            llm, retriever=self._retriever(retriever_kwargs), **kwargs
        )
        return (await chain.ainvoke({chain.input_key: question}))[chain.output_key]  # type: ignore[no-any-return]

    def query_with_sources(
        self,
        question: str,
        llm: Any = None,
        retriever_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The output of a ``RetrievalQAWithSourcesChain`` over the store."""
        _needs_llm(llm, "query_with_sources")
        chain = RetrievalQAWithSourcesChain.from_chain_type(
            llm, retriever=self._retriever(retriever_kwargs), **kwargs
        )
        return chain.invoke({chain.question_key: question})  # type: ignore[no-any-return]

    async def aquery_with_sources(
        self,
        question: str,
        llm: Any = None,
        retriever_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """``query_with_sources`` run with ``ainvoke``."""
        _needs_llm(llm, "aquery_with_sources")
        chain = RetrievalQAWithSourcesChain.from_chain_type(
            llm, retriever=self._retriever(retriever_kwargs), **kwargs
        )
        return await chain.ainvoke({chain.question_key: question})  # type: ignore[no-any-return]


class VectorstoreIndexCreator(Fields):
    """Split documents, store them in a new vector store, and wrap it for questions.

    LangChain's creator (``langchain_classic.indexes``): ``from_loaders`` loads every
    loader, ``from_documents`` splits with ``text_splitter`` (by default a
    ``RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=0)``, as LangChain's)
    and builds ``vectorstore_cls.from_documents(chunks, embedding,
    **vectorstore_kwargs)``, returned inside a :class:`VectorStoreIndexWrapper`.

    Args:
        embedding: the embeddings the store uses (required).
        vectorstore_cls: the store class; without it ``InMemoryVectorStore``, with a
            ``UserWarning`` (LangChain warns too: the store lives only in memory).
        text_splitter: what cuts the documents (``split_documents``).
        vectorstore_kwargs: more keywords for ``vectorstore_cls.from_documents``.
    """

    vectorstore_cls: Any = Field(default_factory=_default_store)
    embedding: Any
    text_splitter: Any = Field(default_factory=_default_splitter)
    vectorstore_kwargs: dict[str, Any] = Field(default_factory=dict)

    def from_loaders(self, loaders: Iterable[Any]) -> VectorStoreIndexWrapper:
        """The documents of every loader (``load()``), indexed by ``from_documents``."""
        docs: list[Document] = []
        for loader in loaders:
            docs.extend(loader.load())
        return self.from_documents(docs)

    async def afrom_loaders(self, loaders: Iterable[Any]) -> VectorStoreIndexWrapper:
        """``from_loaders`` reading each loader with ``alazy_load``."""
        docs: list[Document] = []
        for loader in loaders:
            docs.extend([doc async for doc in loader.alazy_load()])
        return await self.afrom_documents(docs)

    def from_documents(self, documents: list[Document]) -> VectorStoreIndexWrapper:
        """``documents`` split, stored in a new ``vectorstore_cls`` and wrapped."""
        chunks = self.text_splitter.split_documents(documents)
        store = self.vectorstore_cls.from_documents(
            chunks, self.embedding, **self.vectorstore_kwargs
        )
        return VectorStoreIndexWrapper(vectorstore=store)

    async def afrom_documents(self, documents: list[Document]) -> VectorStoreIndexWrapper:
        """``from_documents`` building the store with ``afrom_documents``."""
        chunks = self.text_splitter.split_documents(documents)
        store = await self.vectorstore_cls.afrom_documents(
            chunks, self.embedding, **self.vectorstore_kwargs
        )
        return VectorStoreIndexWrapper(vectorstore=store)

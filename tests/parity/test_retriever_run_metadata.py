"""Parity: a retriever run's name, tags and ``ls_*`` metadata, against LangChain's.

LangChain's retrievers put tracing keys in the metadata of their runs:
``ls_retriever_name`` (the retriever's name without a leading or trailing "Retriever",
lowercased) and, for a vector store's retriever, ``ls_vector_store_provider`` and
``ls_embedding_provider`` (class names). They go over the caller's metadata, reach the
runs inside the retriever, and the retriever's own ``metadata`` wins over them on its own
run. A store's retriever is named ``VectorStoreRetriever`` (Redis's
``RedisVectorStoreRetriever``); ``as_retriever(tags=...)`` replaces the store's default
tags (Redis's adds them after). Each scenario runs through both libraries with a handler
that records what reaches it, and compares the records.
"""

from __future__ import annotations

import asyncio
import uuid
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore
from langchain_core.vectorstores import VectorStoreRetriever as LCVectorStoreRetriever

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.redis import Redis as LCRedis

from ragline.core import BaseCallbackHandler, BaseRetriever, Document, RunnableLambda
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import FAISS, InMemoryVectorStore, Redis, VectorStoreRetriever

COVERS = {"core.BaseRetriever", "vectorstores.VectorStoreRetriever"}

TEXTS = ["red apple", "green pear", "blue sky"]


def _recorder(base: type) -> tuple[Any, list[tuple[Any, ...]]]:
    seen: list[tuple[Any, ...]] = []

    class Recorder(base):  # type: ignore[misc, valid-type]
        def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
            seen.append(("retriever", kwargs.get("name"), kwargs.get("tags"), kwargs["metadata"]))

        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            seen.append(("chain", kwargs.get("name"), kwargs.get("tags"), kwargs["metadata"]))

    return Recorder(), seen


def _both(scenario: Callable[[Any, bool], Any], lc: Any, rl: Any) -> None:
    """Run ``scenario(retriever, langchain)`` on both sides and compare the records."""
    lc_handler, lc_seen = _recorder(LCBaseCallbackHandler)
    rl_handler, rl_seen = _recorder(BaseCallbackHandler)
    scenario(lc, lc_handler)
    scenario(rl, rl_handler)
    assert rl_seen == lc_seen
    assert lc_seen  # the scenario reached the handler


# ---- plain retrievers ------------------------------------------------------------------


class LCKeywordRetriever(LCBaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
        LCRunnableLambda(lambda x: x).invoke(query, {"callbacks": run_manager.get_child()})
        return []


class KeywordRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        RunnableLambda(lambda x: x).invoke(query, {"callbacks": run_manager.get_child()})
        return []


class LCRetrieverOfNotes(LCBaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
        return []


class RetrieverOfNotes(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return []


def _renamed(cls: type, name: str) -> type:
    # the same class under the scenario's name (each library's runs show the class name)
    return type(name, (cls,), {})


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"metadata": {"user": 7, "ls_retriever_name": "from the call"}, "tags": ["call"]},
        {"run_name": "lookup"},  # the run is renamed; ls_retriever_name stays the class's
    ],
)
def test_a_plain_retrievers_runs_and_the_runs_inside_carry_ls_retriever_name(
    config: dict[str, Any],
) -> None:
    def scenario(retriever: Any, handler: Any) -> None:
        retriever.invoke("q", {**config, "callbacks": [handler]})

    _both(scenario, _renamed(LCKeywordRetriever, "KeywordRetriever")(), KeywordRetriever())


def test_a_leading_retriever_is_cut_and_own_metadata_wins_on_its_run() -> None:
    lc_cls = _renamed(LCRetrieverOfNotes, "RetrieverOfNotes")
    lc, rl = lc_cls(), RetrieverOfNotes()

    def scenario(retriever: Any, handler: Any) -> None:
        retriever.invoke("q", {"callbacks": [handler]})
        retriever.metadata = {"ls_retriever_name": "mine", "team": "a"}
        retriever.invoke("q", {"callbacks": [handler]})

    _both(scenario, lc, rl)


def test_async_and_batch_runs_carry_the_keys() -> None:
    def scenario(retriever: Any, handler: Any) -> None:
        asyncio.run(retriever.ainvoke("q", {"callbacks": [handler]}))
        retriever.batch(["a", "b"], {"callbacks": [handler], "metadata": {"n": 1}})
        asyncio.run(retriever.abatch(["c"], {"callbacks": [handler]}))

    _both(scenario, _renamed(LCKeywordRetriever, "KeywordRetriever")(), KeywordRetriever())


# ---- vector stores' retrievers ---------------------------------------------------------


def _stores(kind: str) -> tuple[Any, Any]:
    if kind == "in_memory":
        lc_store = LCInMemoryVectorStore(LCDeterministicFakeEmbedding(size=8))
        lc_store.add_texts(TEXTS)
        store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
        store.add_texts(TEXTS)
        return lc_store, store
    return (
        LCFAISS.from_texts(TEXTS, LCDeterministicFakeEmbedding(size=8)),
        FAISS.from_texts(TEXTS, DeterministicFakeEmbedding(size=8)),
    )


@pytest.mark.parametrize("kind", ["in_memory", "faiss"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"search_kwargs": {"k": 1}},
        {"tags": ["mine"], "metadata": {"user": 7}},  # given tags replace the store's
        {"search_type": "mmr", "search_kwargs": {"k": 1, "fetch_k": 2}},
    ],
)
def test_a_stores_retriever_is_named_and_tagged_as_langchains(
    kind: str, options: dict[str, Any]
) -> None:
    lc_store, store = _stores(kind)

    def scenario(retriever: Any, handler: Any) -> None:
        retriever.invoke("red", {"callbacks": [handler]})
        asyncio.run(retriever.ainvoke("red", {"callbacks": [handler], "metadata": {"a": 1}}))
        retriever.batch(["red", "sky"], {"callbacks": [handler]})

    _both(scenario, lc_store.as_retriever(**options), store.as_retriever(**options))


def test_a_retriever_built_directly_has_no_default_tags() -> None:
    lc_store, store = _stores("in_memory")

    def scenario(retriever: Any, handler: Any) -> None:
        retriever.invoke("red", {"callbacks": [handler]})

    _both(
        scenario,
        LCVectorStoreRetriever(vectorstore=lc_store),
        VectorStoreRetriever(store),
    )


@pytest.mark.redis
@pytest.mark.parametrize("tags", [None, ["mine"]])
def test_a_redis_retriever_is_named_and_tagged_as_langchains(
    redis_url: str, tags: list[str] | None
) -> None:
    """LangChain's Redis store cannot connect with this redis-py (it imports a module
    redis-py renamed), so its side is a store object that never connects: the name, tags
    and ``ls_*`` keys LangChain's retriever gives its runs come from ``get_name``, ``tags``
    and ``_get_ls_params``, read here; ragline's side is a real Redis store's run."""
    lc_store = LCRedis.__new__(LCRedis)
    lc_store._embeddings = LCDeterministicFakeEmbedding(size=8)
    lc = lc_store.as_retriever(tags=list(tags) if tags else None)
    expected = ("retriever", lc.get_name(), lc.tags, lc._get_ls_params())

    store = Redis.from_texts(
        TEXTS,
        DeterministicFakeEmbedding(size=8),
        redis_url=redis_url,
        index_name=f"ls-{uuid.uuid4().hex[:8]}",
    )
    try:
        handler, seen = _recorder(BaseCallbackHandler)
        store.as_retriever(tags=list(tags) if tags else None).invoke(
            "red", {"callbacks": [handler]}
        )
    finally:
        store.drop_index(delete_documents=True)
    assert seen == [expected]

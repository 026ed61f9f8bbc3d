"""Parity: a user's embedding subclass has its own methods called by the async store
paths as LangChain's stores call them.

A subclass of ``DeterministicFakeEmbedding`` counts the calls to the methods it
overrides (the async ones, the sync ones, or all four), each calling the base through
``super()``; the same subclass of LangChain's fake goes through LangChain's stores.
``aadd_texts``, ``asimilarity_search(_with_score)`` and a retriever's ``ainvoke`` on
InMemoryVectorStore and FAISS call the same methods the same number of times and give
the same results.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import FAISS, InMemoryVectorStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.vectorstores import FAISS as LCFAISS

COVERS = {"embeddings.DeterministicFakeEmbedding"}

TEXTS = ["a red fox", "a lazy dog", "the blue sky", "green grass"]
IDS = ["1", "2", "3", "4"]


def _counting(base: type, overrides: str) -> Any:
    """An instance of a subclass of ``base`` counting its calls to the overridden
    methods (``"async"``, ``"sync"`` or ``"both"``), each calling ``super()``."""
    calls: Counter[str] = Counter()
    body: dict[str, Any] = {}
    if overrides in ("async", "both"):

        async def aembed_documents(self: Any, texts: list[str]) -> list[list[float]]:
            calls["aembed_documents"] += 1
            return await super(cls, self).aembed_documents(texts)  # type: ignore[no-any-return]

        async def aembed_query(self: Any, text: str) -> list[float]:
            calls["aembed_query"] += 1
            return await super(cls, self).aembed_query(text)  # type: ignore[no-any-return]

        body.update(aembed_documents=aembed_documents, aembed_query=aembed_query)
    if overrides in ("sync", "both"):

        def embed_documents(self: Any, texts: list[str]) -> list[list[float]]:
            calls["embed_documents"] += 1
            return super(cls, self).embed_documents(texts)  # type: ignore[no-any-return]

        def embed_query(self: Any, text: str) -> list[float]:
            calls["embed_query"] += 1
            return super(cls, self).embed_query(text)  # type: ignore[no-any-return]

        body.update(embed_documents=embed_documents, embed_query=embed_query)
    cls = type(f"Counting{base.__name__}", (base,), body)
    instance = cls(size=8)
    instance.__dict__["calls"] = calls
    return instance


async def _steps(store: Any) -> list[Any]:
    """Async searches and a retriever's ainvoke, as comparable values."""
    found = await store.asimilarity_search("a red dog", k=2)
    scored = await store.asimilarity_search_with_score("blue grass", k=3)
    retrieved = await store.as_retriever(search_kwargs={"k": 2}).ainvoke("a fox")
    return [
        [d.page_content for d in found],
        [(d.page_content, s) for d, s in scored],
        [d.page_content for d in retrieved],
    ]


@pytest.mark.parametrize("overrides", ["async", "sync", "both"])
async def test_in_memory_async_paths_call_the_overrides_as_langchains(overrides: str) -> None:
    theirs_embedding = _counting(LCFake, overrides)
    ours_embedding = _counting(DeterministicFakeEmbedding, overrides)
    theirs = LCInMemoryVectorStore(embedding=theirs_embedding)
    ours = InMemoryVectorStore(ours_embedding)
    await theirs.aadd_texts(TEXTS, ids=IDS)
    await ours.aadd_texts(TEXTS, ids=IDS)
    after_add = dict(ours_embedding.calls)
    assert after_add == dict(theirs_embedding.calls)
    assert after_add  # the overrides were called
    assert await _steps(ours) == await _steps(theirs)  # scores exactly equal
    assert dict(ours_embedding.calls) == dict(theirs_embedding.calls)


@pytest.mark.parametrize("overrides", ["async", "sync", "both"])
async def test_faiss_async_paths_call_the_overrides_as_langchains(overrides: str) -> None:
    theirs_embedding = _counting(LCFake, overrides)
    ours_embedding = _counting(DeterministicFakeEmbedding, overrides)
    theirs = await LCFAISS.afrom_texts(TEXTS[:2], theirs_embedding, ids=IDS[:2])
    ours = await FAISS.afrom_texts(TEXTS[:2], ours_embedding, ids=IDS[:2])
    await theirs.aadd_texts(TEXTS[2:], ids=IDS[2:])
    await ours.aadd_texts(TEXTS[2:], ids=IDS[2:])
    assert dict(ours_embedding.calls) == dict(theirs_embedding.calls)
    ours_steps, theirs_steps = await _steps(ours), await _steps(theirs)
    assert ours_steps[0] == theirs_steps[0] and ours_steps[2] == theirs_steps[2]
    assert [c for c, _ in ours_steps[1]] == [c for c, _ in theirs_steps[1]]
    assert [s for _, s in ours_steps[1]] == pytest.approx([s for _, s in theirs_steps[1]])
    assert dict(ours_embedding.calls) == dict(theirs_embedding.calls)

"""Parity: TimeWeightedVectorStoreRetriever against LangChain's.

Both retrievers sit on a flat L2 FAISS store (LangChain's in-memory store has no
relevance scores, which the retriever needs) with a letter-count embedding and the
clock held still (``datetime.datetime`` replaced for the call, as LangChain's
``mock_now`` does, which ragline's code reads the same way). The scenarios compare the
returned documents with their metadata (stamps, ``buffer_idx``), the memory stream after
each query (accessed documents are restamped), and the ids the stores return.
"""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

import pytest
from langchain_classic.retrievers import (
    TimeWeightedVectorStoreRetriever as LCTimeWeightedVectorStoreRetriever,
)
from langchain_community.docstore.in_memory import InMemoryDocstore as LCInMemoryDocstore
from langchain_community.vectorstores import FAISS as LCFAISS
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.utils import mock_now

from ragline.core import Document
from ragline.embeddings import Embeddings
from ragline.retrievers import TimeWeightedVectorStoreRetriever
from ragline.vectorstores import FAISS
from tests.parity._letters import letter_counts

COVERS = {"retrievers.TimeWeightedVectorStoreRetriever"}

START = datetime.datetime(2024, 3, 1, 9, 0, 0)


def lifted(text: str) -> list[float]:
    """Letter counts with a constant 27th component, scaled to length 1: any two texts
    are close enough that the L2 store's relevance stays inside [0, 1] (outside it,
    ragline clips where LangChain does not; docs/differences-from-langchain.md)."""
    return [x / 2**0.5 for x in letter_counts(text)] + [2**-0.5]


class Letters(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [lifted(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return lifted(text)


class LCLetters(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [lifted(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return lifted(text)


TEXTS = [
    ("apple pie recipe", {"importance": 0.5}),
    ("banana bread", {}),
    ("cherry tart with apples", {"importance": 0.1}),
    ("dates and figs", {"last_accessed_at": START - datetime.timedelta(hours=30)}),
    ("elderberry jam", {"created_at": START - datetime.timedelta(days=2)}),
    ("fig roll", {"last_accessed_at": (START - datetime.timedelta(hours=5)).timestamp()}),
]


def seen(docs: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(doc.page_content, dict(doc.metadata)) for doc in docs]


def build(options: dict[str, Any]) -> tuple[Any, Any]:
    import faiss

    lc_store = LCFAISS(LCLetters(), faiss.IndexFlatL2(27), LCInMemoryDocstore({}), {})
    lc = LCTimeWeightedVectorStoreRetriever(vectorstore=lc_store, **options)
    rl = TimeWeightedVectorStoreRetriever(vectorstore=FAISS(Letters(), dimension=27), **options)
    return lc, rl


def fill(lc: Any, rl: Any) -> tuple[Any, Any]:
    """Add the texts in two calls (the second an hour later, one with current_time)."""
    first, second = TEXTS[:3], TEXTS[3:]
    with mock_now(START):
        lc_ids = lc.add_documents([LCDocument(t, metadata=dict(m), id=t) for t, m in first])
        rl_ids = rl.add_documents([Document(t, metadata=dict(m), id=t) for t, m in first])
    later = START + datetime.timedelta(hours=1)
    lc_ids += lc.add_documents(
        [LCDocument(t, metadata=dict(m), id=t) for t, m in second], current_time=later
    )
    rl_ids += rl.add_documents(
        [Document(t, metadata=dict(m), id=t) for t, m in second], current_time=later
    )
    return lc_ids, rl_ids


QUERIES = ["apple", "fig", "jam with berries", "zzz"]
OPTIONS = [
    {},
    {"k": 2},
    {"k": 3, "decay_rate": 0.5, "other_score_keys": ["importance"]},
    {"k": 2, "default_salience": 0.7, "search_kwargs": {"k": 2}},
    {"k": 5, "search_kwargs": {"k": 3, "score_threshold": 0.8}},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_queries_rank_and_restamp_as_langchains(options):
    lc, rl = build(options)
    lc_ids, rl_ids = fill(lc, rl)
    assert rl_ids == lc_ids
    assert seen(rl.memory_stream) == seen(lc.memory_stream)
    for hours, query in enumerate(QUERIES, start=2):
        with mock_now(START + datetime.timedelta(hours=hours * 7)):
            found = (rl.invoke(query), lc.invoke(query))
        assert seen(found[0]) == seen(found[1]), query
        assert seen(rl.memory_stream) == seen(lc.memory_stream), query


@pytest.mark.parametrize("options", OPTIONS[1:3])
def test_async_queries_as_langchains(options):
    lc, rl = build(options)

    async def run(retriever: Any, make: Any) -> list[Any]:
        await retriever.aadd_documents(
            [make(t, metadata=dict(m)) for t, m in TEXTS], current_time=START
        )
        results = []
        for hours, query in enumerate(QUERIES, start=1):
            with mock_now(START + datetime.timedelta(hours=hours)):
                results.append(seen(await retriever.ainvoke(query)))
        results.append(seen(retriever.memory_stream))
        return results

    assert asyncio.run(run(rl, Document)) == asyncio.run(run(lc, LCDocument))


def test_salient_docs_and_inputs_left_alone():
    lc, rl = build({"search_kwargs": {"k": 3}})
    given = [Document("apple", metadata={"n": 1})]
    rl.add_documents(given, current_time=START)
    lc.add_documents([LCDocument("apple", metadata={"n": 1})], current_time=START)
    assert given[0].metadata == {"n": 1}  # the retriever adds copies
    for query in ["apple", "zzz"]:
        ours = {
            i: (d.page_content, d.metadata, s) for i, (d, s) in rl.get_salient_docs(query).items()
        }
        theirs = {
            i: (d.page_content, d.metadata, s) for i, (d, s) in lc.get_salient_docs(query).items()
        }
        assert ours == theirs

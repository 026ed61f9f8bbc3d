"""Parity: KNNRetriever against LangChain's.

The same texts and metadata, the same deterministic embedding, both libraries'
retrievers: the documents each query returns, in order, for several ``k`` and
``relevancy_threshold`` values, built ``from_texts`` and ``from_documents``; the index
rows (each text's ``embed_query`` vector); sync and async.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from langchain_community.retrievers import KNNRetriever as LCKNNRetriever
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import Document
from ragline.embeddings import Embeddings
from ragline.retrievers import KNNRetriever
from tests.parity._letters import letter_counts

COVERS = {"retrievers.KNNRetriever"}

TEXTS = ["apple pie", "banana bread", "cherry tart", "apple crumble", "date loaf", "pie"]
METADATAS = [{"n": i, "kind": "sweet"} for i in range(len(TEXTS))]


class Letters(Embeddings):
    """Letter counts, with the query side doubled (so embed_query is the one used)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[-1.0] * 26 for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [2 * x for x in letter_counts(text)]


class LCLetters(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[-1.0] * 26 for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [2 * x for x in letter_counts(text)]


def seen(docs: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize(
    "options",
    [{}, {"k": 2}, {"k": 10}, {"relevancy_threshold": 0.5}, {"k": 3, "relevancy_threshold": 0.9}],
)
def test_queries_as_langchains(options):
    lc = LCKNNRetriever.from_texts(TEXTS, LCLetters(), metadatas=METADATAS, **options)
    rl = KNNRetriever.from_texts(TEXTS, Letters(), metadatas=METADATAS, **options)
    assert np.array_equal(rl.index, lc.index)
    for query in ["apple", "pie", "bread with dates", "zzz"]:
        assert seen(rl.invoke(query)) == seen(lc.invoke(query)), query
        assert seen(asyncio.run(rl.ainvoke(query))) == seen(asyncio.run(lc.ainvoke(query)))


def test_from_documents_and_no_metadata():
    lc = LCKNNRetriever.from_documents(
        [LCDocument(t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)], LCLetters(), k=3
    )
    rl = KNNRetriever.from_documents(
        [Document(t, metadata=m) for t, m in zip(TEXTS, METADATAS, strict=True)], Letters(), k=3
    )
    assert seen(rl.invoke("cherry")) == seen(lc.invoke("cherry"))
    lc_plain = LCKNNRetriever.from_texts(TEXTS, LCLetters())
    rl_plain = KNNRetriever.from_texts(TEXTS, Letters())
    assert seen(rl_plain.invoke("tart")) == seen(lc_plain.invoke("tart"))
    assert all(metadata == {} for _, metadata in seen(rl_plain.invoke("tart")))

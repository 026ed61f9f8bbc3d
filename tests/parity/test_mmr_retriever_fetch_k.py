"""Parity: an MMR retriever without ``fetch_k`` picks from LangChain's 20 candidates.

``store.as_retriever(search_type="mmr", search_kwargs={"k": k})`` hands the search
LangChain's default ``fetch_k`` of 20, also when ``k`` is larger: MMR then picks from the
20 nearest, so 20 documents come back (ragline warns that ``fetch_k`` is below ``k``;
LangChain says nothing). Checked on FAISS and InMemoryVectorStore, sync and async; the
documents and their order are compared. Each scenario is one program, run through
LangChain and, after ``ragline port``, through ragline.
"""

from __future__ import annotations

import warnings

import pytest

from tests.parity._port_trial import ported, printed

COVERS: set[str] = set()  # the stores are listed by their own parity modules

_PROGRAM = """
import asyncio
import math

from langchain_community.vectorstores import FAISS
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore


class Circle(Embeddings):
    \"\"\"doc n on a circle, in seven layers; a query sits a little after its number.\"\"\"

    def embed_documents(self, texts):
        return [self.vector(text, 0) for text in texts]

    def embed_query(self, text):
        return self.vector(text, 0.3)

    def vector(self, text, shift):
        n = int(text.split()[-1])
        return [math.cos((n + shift) * 0.37), math.sin((n + shift) * 0.37), (n % 7) / 6]


texts = [f"doc {i}" for i in range(30)]
for store_class in (FAISS, InMemoryVectorStore):
    store = store_class.from_texts(texts, Circle())
    for search_kwargs in ({"k": 25}, {"k": 25, "lambda_mult": 0.9}, {"k": 25, "fetch_k": 30},
                          {"k": 3}):
        retriever = store.as_retriever(search_type="mmr", search_kwargs=search_kwargs)
        found = [doc.page_content for doc in retriever.invoke("doc 3")]
        print(store_class.__name__, search_kwargs, len(found), found)
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 21})
    found = asyncio.run(retriever.ainvoke("doc 12"))
    print(store_class.__name__, "async", len(found), [doc.page_content for doc in found])
"""


def test_an_mmr_retriever_picks_from_20_candidates_as_langchains() -> None:
    langchain_printed = printed(_PROGRAM)
    assert "FAISS {'k': 25} 20 " in langchain_printed
    assert "InMemoryVectorStore {'k': 25, 'fetch_k': 30} 25 " in langchain_printed
    assert printed(ported(_PROGRAM)) == langchain_printed


def test_the_retriever_warns_when_k_is_above_the_default_fetch_k() -> None:
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore.from_texts(
        [f"doc {i}" for i in range(30)], DeterministicFakeEmbedding(size=8)
    )
    with pytest.warns(UserWarning, match=r"fetch_k \(20\) is below k \(25\)"):
        retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 25})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(retriever.invoke("doc 1")) == 20

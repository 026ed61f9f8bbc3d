"""Parity: ragline's DeterministicFakeEmbedding against LangChain's (langchain_core).

A test double a program builds a store on. What both promise is compared: the length
of every vector (sync and async), the same vector for the same text in every call and
process, different vectors for different texts, and a store over each finding a stored
text first when asked for it. The numbers themselves differ (docs/differences.md):
LangChain's are normal draws seeded by the text's hash, ragline's are its
HashingEmbeddings vectors (unit length, texts sharing words alike).
"""

from __future__ import annotations

import math

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.embeddings import DeterministicFakeEmbedding, HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore

COVERS = {"embeddings.DeterministicFakeEmbedding"}

TEXTS = ["red apples", "yellow bananas", "Ça va, 你好", "red apples"]


def _shape(embeddings: object, size: int) -> tuple[object, ...]:
    vectors = embeddings.embed_documents(TEXTS)  # type: ignore[attr-defined]
    again = embeddings.embed_documents(TEXTS)  # type: ignore[attr-defined]
    query = embeddings.embed_query("red apples")  # type: ignore[attr-defined]
    return (
        embeddings.size,  # type: ignore[attr-defined]
        [len(v) for v in vectors],
        vectors == again,
        vectors[0] == vectors[3] == query,
        vectors[0] != vectors[1],
        all(isinstance(x, float) for x in query),
    )


@pytest.mark.parametrize("size", [4, 32])
def test_the_same_promises(size: int) -> None:
    ours = _shape(DeterministicFakeEmbedding(size=size), size)
    assert ours == _shape(LCDeterministicFakeEmbedding(size=size), size)
    assert ours == (size, [size] * 4, True, True, True, True)


def test_the_numbers_are_hashing_embeddings() -> None:
    # listed in docs/differences.md
    vector = DeterministicFakeEmbedding(size=16).embed_query("red apples")
    assert vector == HashingEmbeddings(dimension=16).embed_query("red apples")
    assert math.isclose(math.hypot(*vector), 1.0, rel_tol=1e-6)
    assert vector != LCDeterministicFakeEmbedding(size=16).embed_query("red apples")


async def test_async_vectors_have_the_same_length() -> None:
    theirs = await LCDeterministicFakeEmbedding(size=8).aembed_documents(TEXTS)
    ours = await DeterministicFakeEmbedding(size=8).aembed_documents(TEXTS)
    assert [len(v) for v in ours] == [len(v) for v in theirs] == [8] * 4


def test_a_store_finds_a_stored_text_first() -> None:
    texts = ["red apples", "yellow bananas", "brown dates", "green grapes"]
    theirs = LCInMemoryVectorStore.from_texts(texts, LCDeterministicFakeEmbedding(size=64))
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=64))
    for query in texts:
        assert (
            ours.similarity_search(query, k=1)[0].page_content
            == theirs.similarity_search(query, k=1)[0].page_content
            == query
        )

"""Parity: ragline's DeterministicFakeEmbedding against LangChain's (langchain_core).

A test double a program builds a store on. What both promise is compared: the length
of every vector (sync and async), the same vector for the same text in every call and
process, different vectors for different texts, and a store over each finding a stored
text first when asked for it, and the numbers themselves: both are normal draws
seeded by the text's SHA-256, equal to the last bit (float32 in ragline's arrays).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.embeddings import DeterministicFakeEmbedding
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


@pytest.mark.parametrize("size", [1, 16, 300])
def test_the_numbers_are_langchains(size: int) -> None:
    ours, theirs = DeterministicFakeEmbedding(size=size), LCDeterministicFakeEmbedding(size=size)
    texts = [*TEXTS, "", "The meaning of life is 42"]
    assert ours.embed_documents(texts) == theirs.embed_documents(texts)
    assert ours.embed_query("Ça va, 你好") == theirs.embed_query("Ça va, 你好")


def test_known_values() -> None:
    # hand-checkable: numpy default_rng(sha256("hi") % 10**8).normal(size=3)
    seed = int(hashlib.sha256(b"hi").hexdigest(), 16) % 10**8
    expected = np.random.default_rng(seed).normal(size=3).tolist()
    assert DeterministicFakeEmbedding(size=3).embed_query("hi") == expected
    assert LCDeterministicFakeEmbedding(size=3).embed_query("hi") == expected
    assert not math.isclose(math.hypot(*expected), 1.0)


def test_the_array_is_the_same_numbers_as_float32() -> None:
    ours = DeterministicFakeEmbedding(size=8)
    matrix = ours.embed_documents_array(TEXTS)
    assert matrix.dtype == np.float32
    assert matrix.shape == (4, 8)
    expected = np.array(LCDeterministicFakeEmbedding(size=8).embed_documents(TEXTS), np.float32)
    assert (matrix == expected).all()
    assert (ours.embed_queries_array(["red apples"])[0] == expected[0]).all()


async def test_async_vectors_are_the_same() -> None:
    theirs = await LCDeterministicFakeEmbedding(size=8).aembed_documents(TEXTS)
    ours = await DeterministicFakeEmbedding(size=8).aembed_documents(TEXTS)
    assert ours == theirs
    assert await DeterministicFakeEmbedding(size=8).aembed_query("x") == (
        await LCDeterministicFakeEmbedding(size=8).aembed_query("x")
    )


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

"""Parity: FakeEmbeddings (random draws) against LangChain's.

``numpy.random.default_rng`` is replaced, for the length of each comparison, by one that
hands out generators from a fixed seed sequence; both libraries draw one generator per
vector, so their numbers must then be equal, value and type. Without the replacement
the draws differ on every call, in both. LangChain's community ``FakeEmbeddings`` draws
from numpy's global generator instead: only its shapes and types are compared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from langchain_community.embeddings import FakeEmbeddings as LCCommunityFakeEmbeddings
from langchain_core.embeddings import FakeEmbeddings as LCFakeEmbeddings

from ragline.embeddings import FakeEmbeddings
from ragline.vectorstores import FAISS

COVERS = {"embeddings.FakeEmbeddings"}


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    real = np.random.default_rng
    seeds = iter(range(seed, seed + 10_000))
    np.random.default_rng = lambda *args: real(next(seeds))  # type: ignore[assignment]
    try:
        yield
    finally:
        np.random.default_rng = real


def calls(embeddings: Any) -> list[Any]:
    return [
        embeddings.embed_query("q"),
        embeddings.embed_documents(["a", "b", "a"]),
        embeddings.embed_documents([]),
        asyncio.run(embeddings.aembed_query("q")),
        asyncio.run(embeddings.aembed_documents(["x", "y"])),
    ]


def types(value: Any) -> Any:
    return [types(item) for item in value] if isinstance(value, list) else type(value)


@pytest.mark.parametrize("size", [1, 4, 17])
def test_seeded_draws_equal_langchains(size):
    with seeded(7):
        ours = calls(FakeEmbeddings(size=size))
    with seeded(7):
        theirs = calls(LCFakeEmbeddings(size=size))
    assert ours == theirs
    assert types(ours) == types(theirs)
    assert repr(FakeEmbeddings(size=size)) == repr(LCFakeEmbeddings(size=size))


def test_unseeded_draws_differ_every_call_as_langchains():
    for fake in (FakeEmbeddings(size=8), LCFakeEmbeddings(size=8)):
        first, second = fake.embed_query("same"), fake.embed_query("same")
        assert first != second
        one, two = fake.embed_documents(["same", "same"])
        assert one != two


def test_community_spelling_shapes():
    ours, theirs = FakeEmbeddings(size=5), LCCommunityFakeEmbeddings(size=5)
    assert repr(ours) == repr(theirs)
    assert [len(v) for v in ours.embed_documents(["a", "b"])] == [
        len(v) for v in theirs.embed_documents(["a", "b"])
    ]
    assert types(ours.embed_query("a")) == types(theirs.embed_query("a"))


def test_a_store_built_with_it_returns_what_langchains_does():
    from langchain_community.vectorstores import FAISS as LCFAISS

    texts = ["one", "two", "three", "four"]
    with seeded(11):
        ours = FAISS.from_texts(texts, FakeEmbeddings(size=6))
        ours_found = ours.similarity_search_with_score("query", k=4)
    with seeded(11):
        theirs = LCFAISS.from_texts(texts, LCFakeEmbeddings(size=6))
        theirs_found = theirs.similarity_search_with_score("query", k=4)
    assert [d.page_content for d, _ in ours_found] == [d.page_content for d, _ in theirs_found]
    assert [float(s) for _, s in ours_found] == pytest.approx(
        [float(s) for _, s in theirs_found], rel=1e-6
    )

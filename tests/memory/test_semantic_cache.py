"""SemanticCache: the LLM-cache contract on vector stores (in-memory and FAISS), then what
only a semantic cache does: paraphrases hit, other questions and other models miss."""

from __future__ import annotations

from typing import Any

import pytest
from _llm_cache_contract import LLMCacheContract, OpenCache

from ragline.core import FakeListChatModel, Generation, InvalidInputError
from ragline.embeddings import HashingEmbeddings
from ragline.memory import SemanticCache
from ragline.vectorstores import FAISS, InMemoryVectorStore

pytestmark = pytest.mark.usefixtures("no_global_cache")


class TestSemanticCacheInMemory(LLMCacheContract):
    @pytest.fixture
    def open_cache(self) -> OpenCache:
        store = InMemoryVectorStore(HashingEmbeddings(dimension=256))
        return lambda: SemanticCache(store)


class TestSemanticCacheFAISS(LLMCacheContract):
    @pytest.fixture
    def open_cache(self) -> OpenCache:
        pytest.importorskip("faiss")
        store = FAISS(HashingEmbeddings(dimension=256))
        return lambda: SemanticCache(store)


def _store() -> Any:
    return InMemoryVectorStore(HashingEmbeddings(dimension=512))


def test_a_paraphrase_is_a_hit_and_another_question_a_miss() -> None:
    cache = SemanticCache(_store(), score_threshold=0.8)
    model = FakeListChatModel(responses=["Paris.", "Mount Everest."], cache=cache)
    assert model.invoke("What is the capital city of France?").content == "Paris."
    assert model.invoke("what is the capital city of France").content == "Paris."
    assert model.invoke("What is the highest mountain?").content == "Mount Everest."
    assert len(model.calls) == 2


def test_the_threshold_decides_how_close_is_close_enough() -> None:
    strict = SemanticCache(_store(), score_threshold=1.0)
    strict.update("the capital of France", "m", [Generation("Paris")])
    assert strict.lookup("the capital of France", "m") == [Generation("Paris")]
    assert strict.lookup("the capital of France please", "m") is None
    loose = SemanticCache(strict.vectorstore, score_threshold=0.7)
    assert loose.lookup("the capital of France please", "m") == [Generation("Paris")]


def test_other_models_never_share_entries() -> None:
    cache = SemanticCache(_store())
    FakeListChatModel(responses=["a"], cache=cache).invoke("same question")
    other = FakeListChatModel(responses=["b"], cache=cache)
    assert other.invoke("same question").content == "b"


def test_storing_a_prompt_again_replaces_its_entry() -> None:
    cache = SemanticCache(_store())
    cache.update("q", "m", [Generation("old")])
    cache.update("q", "m", [Generation("new")])
    assert cache.lookup("q", "m") == [Generation("new")]
    assert cache.vectorstore.count() == 1


def test_options_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="score_threshold must be a number between 0 and 1"):
        SemanticCache(_store(), score_threshold=1.5)
    with pytest.raises(InvalidInputError, match="needs a vector store"):
        SemanticCache(object())


async def test_async_calls() -> None:
    cache = SemanticCache(_store(), score_threshold=0.8)
    model = FakeListChatModel(responses=["one", "two"], cache=cache)
    assert (await model.ainvoke("Tell me about volcanoes")).content == "one"
    assert (await model.ainvoke("tell me about volcanoes")).content == "one"

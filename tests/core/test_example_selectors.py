"""Example selectors over real vector stores (in-memory, FAISS, Redis) and the offline
MiniLM model: the semantically nearest examples, MMR's diverse ones, and the same choice
as LangChain's selector makes over the same embeddings."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    FewShotChatMessagePromptTemplate,
    FewShotPromptTemplate,
    HumanMessage,
    InvalidInputError,
    MaxMarginalRelevanceExampleSelector,
    PromptTemplate,
    SemanticSimilarityExampleSelector,
)
from ragline.embeddings import SentenceTransformerEmbeddings
from ragline.vectorstores import FAISS, InMemoryVectorStore, Redis

pytestmark = pytest.mark.slow

YOUNG = [
    {"input": "a young dog", "output": "puppy"},
    {"input": "a baby dog", "output": "puppy"},
    {"input": "a small dog", "output": "puppy"},
    {"input": "a young cat", "output": "kitten"},
    {"input": "a young horse", "output": "foal"},
    {"input": "a large car", "output": "limousine"},
]


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings()


@pytest.fixture(params=["memory", "faiss", "redis"])
def store_options(request: pytest.FixtureRequest) -> tuple[Any, dict[str, Any]]:
    if request.param == "memory":
        return InMemoryVectorStore, {}
    if request.param == "faiss":
        return FAISS, {}
    redis_url = request.getfixturevalue("redis_url")
    return Redis, {"redis_url": redis_url, "index_name": f"examples-{uuid.uuid4().hex[:8]}"}


def test_semantic_selector_picks_the_nearest_examples(minilm, store_options):
    store_cls, options = store_options
    selector = SemanticSimilarityExampleSelector.from_examples(
        YOUNG, minilm, store_cls, k=2, input_keys=["input"], **options
    )
    assert selector.select_examples({"input": "a newborn dog"}) == [
        {"input": "a baby dog", "output": "puppy"},
        {"input": "a young dog", "output": "puppy"},
    ]
    assert selector.select_examples({"input": "a big automobile"})[0] == {
        "input": "a large car", "output": "limousine",
    }  # fmt: skip


def test_mmr_selector_trades_relevance_for_variety(minilm, store_options):
    store_cls, options = store_options
    selector = MaxMarginalRelevanceExampleSelector.from_examples(
        YOUNG, minilm, store_cls, k=2, input_keys=["input"], fetch_k=6, **options
    )
    assert selector.fetch_k == 6
    # the second pick is not another dog: a young cat adds more than a near-duplicate
    assert selector.select_examples({"input": "a newborn dog"}) == [
        {"input": "a baby dog", "output": "puppy"},
        {"input": "a young cat", "output": "kitten"},
    ]


def test_examples_added_later_and_example_keys(minilm):
    selector = SemanticSimilarityExampleSelector.from_examples(
        YOUNG[:2], minilm, InMemoryVectorStore, k=1, example_keys=["output"]
    )
    selector.add_example({"input": "a young goat", "output": "kid"})
    assert selector.select_examples({"input": "a baby goat", "output": ""}) == [{"output": "kid"}]


async def test_async_selection_uses_the_stores_async_search(minilm):
    selector = await SemanticSimilarityExampleSelector.afrom_examples(
        YOUNG, minilm, InMemoryVectorStore, k=1, input_keys=["input"]
    )
    await selector.aadd_example({"input": "a young sheep", "output": "lamb"})
    assert await selector.aselect_examples({"input": "a newborn sheep"}) == [
        {"input": "a young sheep", "output": "lamb"}
    ]
    few_shot = FewShotPromptTemplate(
        example_selector=selector,
        example_prompt=PromptTemplate.from_template("{input}: {output}"),
        suffix="{input}:",
    )
    assert (await few_shot.ainvoke({"input": "a baby horse"})).to_string() == (
        "a young horse: foal\n\na baby horse:"
    )


def test_a_chat_prompt_with_selected_examples(minilm):
    selector = SemanticSimilarityExampleSelector.from_examples(
        YOUNG, minilm, FAISS, k=1, input_keys=["input"]
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Name the young animal."),
            FewShotChatMessagePromptTemplate(
                example_selector=selector,
                example_prompt=ChatPromptTemplate.from_messages(
                    [("human", "{input}"), ("ai", "{output}")]
                ),
                input_variables=["input"],
            ),
            ("human", "{input}"),
        ]
    )
    assert prompt.format_messages(input="a little kitty")[1:] == [
        HumanMessage("a young cat"),
        AIMessage("kitten"),
        HumanMessage("a little kitty"),
    ]


def test_the_same_choice_as_langchains_selector(minilm):
    from langchain_core.embeddings import Embeddings as LCEmbeddings
    from langchain_core.example_selectors import (
        SemanticSimilarityExampleSelector as LCSelector,
    )
    from langchain_core.vectorstores import InMemoryVectorStore as LCStore

    class Same(LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return minilm.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return minilm.embed_query(text)

    theirs = LCSelector.from_examples(YOUNG, Same(), LCStore, k=3)
    ours = SemanticSimilarityExampleSelector.from_examples(YOUNG, minilm, InMemoryVectorStore, k=3)
    for question in ("a newborn dog", "a little kitty", "a pony", "a big automobile"):
        query = {"input": question, "output": ""}
        assert ours.select_examples(query) == theirs.select_examples(query)


def test_bad_selectors_are_refused(minilm):
    with pytest.raises(InvalidInputError, match="must be a vector store"):
        SemanticSimilarityExampleSelector(object())
    store = InMemoryVectorStore(minilm)
    with pytest.raises(InvalidInputError, match="k must be"):
        SemanticSimilarityExampleSelector(store, k=0)
    with pytest.raises(InvalidInputError, match=r"lacks the input key\(s\) \['question'\]"):
        SemanticSimilarityExampleSelector(store, input_keys=["question"]).select_examples(
            {"input": "x"}
        )

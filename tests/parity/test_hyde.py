"""Parity: HypotheticalDocumentEmbedder (HyDE) against LangChain's.

The same fake model writes the same passages in both libraries and the same
deterministic embedding embeds them, so the vectors must be equal: ``embed_query``
(sync and async), ``embed_documents``, ``combine_embeddings``, a FAISS search through
the embedder, the chain's input and output keys for every prompt key, and the errors
(an unknown prompt key, calling it as a chain). The prompts' wording is ragline's own;
only their variables are compared.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains import HypotheticalDocumentEmbedder as LCHyde
from langchain_community.vectorstores import FAISS as LCFAISS
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.chains import HypotheticalDocumentEmbedder
from ragline.core import FakeListChatModel, FakeListLLM, PromptTemplate
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import FAISS

COVERS = {"chains.HypotheticalDocumentEmbedder"}

KEYS = [
    "web_search",
    "sci_fact",
    "arguana",
    "trec_covid",
    "fiqa",
    "dbpedia_entity",
    "trec_news",
    "mr_tydi",
]
PASSAGES = ["Paris is the capital of France.", "The moon orbits the earth.", "Water boils."]


def outcome(call: Any) -> Any:
    try:
        return ("ok", call())
    except Exception as err:
        return ("raised", type(err).__name__, str(err))


def pair(key: str | None = "web_search", prompt: tuple[Any, Any] | None = None, **kw: Any):
    lc = LCHyde.from_llm(
        LCFakeListLLM(responses=PASSAGES),
        LCDeterministicFakeEmbedding(size=8),
        prompt_key=key,
        custom_prompt=prompt[0] if prompt else None,
        **kw,
    )
    rl = HypotheticalDocumentEmbedder.from_llm(
        FakeListLLM(responses=PASSAGES),
        DeterministicFakeEmbedding(size=8),
        prompt_key=key,
        custom_prompt=prompt[1] if prompt else None,
        **kw,
    )
    return lc, rl


@pytest.mark.parametrize("key", KEYS)
def test_every_prompt_key_embeds_the_written_passage(key):
    lc, rl = pair(key)
    assert rl.input_keys == lc.input_keys
    assert rl.output_keys == lc.output_keys
    for query in ["capital of France?", "moon", "boiling point"]:
        ours, theirs = rl.embed_query(query), lc.embed_query(query)
        assert ours == theirs
        assert [type(x) for x in ours] == [type(x) for x in theirs]
    assert rl.embed_documents(PASSAGES) == lc.embed_documents(PASSAGES)


def test_async_query_and_chat_model():
    lc, rl = pair("fiqa")
    assert asyncio.run(rl.aembed_query("q")) == asyncio.run(lc.aembed_query("q"))
    assert asyncio.run(rl.aembed_documents(["a", "b"])) == asyncio.run(
        lc.aembed_documents(["a", "b"])
    )
    chat_lc = LCHyde.from_llm(
        LCFakeListChatModel(responses=PASSAGES), LCDeterministicFakeEmbedding(size=5), "mr_tydi"
    )
    chat_rl = HypotheticalDocumentEmbedder.from_llm(
        FakeListChatModel(responses=PASSAGES), DeterministicFakeEmbedding(size=5), "mr_tydi"
    )
    assert [chat_rl.embed_query(q) for q in "abc"] == [chat_lc.embed_query(q) for q in "abc"]


def test_custom_prompt_and_combining():
    prompts = (
        LCPromptTemplate.from_template("{subject}: write about {angle}"),
        PromptTemplate.from_template("{subject}: write about {angle}"),
    )
    lc, rl = pair(None, prompts)
    assert rl.input_keys == lc.input_keys
    lc2, rl2 = pair("web_search", prompts)  # the custom prompt wins over the key
    assert rl2.input_keys == lc2.input_keys
    one = (
        LCPromptTemplate.from_template("Answer in one line: {q}"),
        PromptTemplate.from_template("Answer in one line: {q}"),
    )
    lc3, rl3 = pair(None, one)
    assert (rl3.input_keys, rl3.embed_query("x")) == (lc3.input_keys, lc3.embed_query("x"))
    vectors = [[1.0, 2.0, 3.5], [2.0, -5.0, 0.25], [0.1, 0.2, 0.3]]
    assert rl.combine_embeddings(vectors) == lc.combine_embeddings(vectors)


def test_errors_as_langchains():
    assert outcome(lambda: pair(None)) == outcome(
        lambda: LCHyde.from_llm(
            LCFakeListLLM(responses=["x"]), LCDeterministicFakeEmbedding(size=2)
        )
    )
    lc_error = outcome(
        lambda: LCHyde.from_llm(
            LCFakeListLLM(responses=["x"]), LCDeterministicFakeEmbedding(size=2), "nope"
        )
    )
    assert lc_error[:2] == ("raised", "ValueError")
    assert outcome(lambda: pair("nope")) == lc_error
    lc, rl = pair()
    assert outcome(lambda: rl.invoke({"QUESTION": "q"})) == outcome(
        lambda: lc.invoke({"QUESTION": "q"})
    )


def test_a_store_searched_through_the_embedder():
    texts = ["Paris is the capital of France.", "Berlin is in Germany.", "Cats purr."]
    lc, rl = pair("web_search")
    lc_store = LCFAISS.from_texts(texts, lc)
    rl_store = FAISS.from_texts(texts, rl)
    for query in ["What is the capital of France?", "orbit", "boil"]:
        theirs = lc_store.similarity_search_with_score(query, k=3)
        ours = rl_store.similarity_search_with_score(query, k=3)
        assert [d.page_content for d, _ in ours] == [d.page_content for d, _ in theirs]
        assert [float(s) for _, s in ours] == pytest.approx([float(s) for _, s in theirs])

"""Parity: RetrievalQAWithSourcesChain and load_qa_with_sources_chain against LangChain's.

The same fake model replies and the same retrieved documents go through both
libraries' chains: the answer and sources split out of each reply (the label in any
case, ``QUESTION:`` cuts too, only the first line of sources), ``return_source_documents``,
renamed keys, the calling forms (``invoke`` with a dict or the bare question, ``ainvoke``),
``reduce_k_below_max_tokens`` with a model that counts words, and a document without
``source`` metadata (an error in both). The prompts are ragline's own wording with
LangChain's variables; only the model's replies reach the outputs.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains import RetrievalQAWithSourcesChain as LCRetrievalQAWithSources
from langchain_classic.chains.qa_with_sources import (
    load_qa_with_sources_chain as lc_load_qa_with_sources_chain,
)
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.chains import RetrievalQAWithSourcesChain, load_qa_with_sources_chain
from ragline.core import BaseRetriever, Document, FakeListLLM

COVERS = {"chains.RetrievalQAWithSourcesChain", "chains.load_qa_with_sources_chain"}

DOCS = [
    ("Paris is the capital of France.", {"source": "france.txt"}),
    ("Berlin is the capital of Germany.", {"source": "germany.txt", "page": 2}),
    ("The Seine flows through Paris.", {"source": "rivers.md"}),
]

REPLIES = [
    "Paris.\nSOURCES: france.txt, rivers.md\nanything after",
    "I don't know.",
    "Paris. sources:france.txt",
    "It is Paris QUESTION: what else? SOURCES: x\ny",
    "Answer first\nSource: a.txt\nSOURCES: b.txt",
    "SOURCES:",
    "",
]


class LCListRetriever(LCBaseRetriever):
    docs: list[Any]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
        return [LCDocument(text, metadata=dict(meta)) for text, meta in self.docs]


class ListRetriever(BaseRetriever):
    def __init__(self, docs: list[Any]) -> None:
        super().__init__()
        self.docs = docs

    def _get_relevant_documents(self, query: str) -> list[Document]:
        return [Document(text, metadata=dict(meta)) for text, meta in self.docs]


class LCWordCountLLM(LCFakeListLLM):
    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


class WordCountLLM(FakeListLLM):
    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", isinstance(err, ValueError))


def pair(chain_type: str, replies: list[str], docs: list[Any] = DOCS, **kw: Any):
    lc = LCRetrievalQAWithSources.from_chain_type(
        LCFakeListLLM(responses=replies),
        chain_type=chain_type,
        retriever=LCListRetriever(docs=docs),
        **kw,
    )
    rl = RetrievalQAWithSourcesChain.from_chain_type(
        FakeListLLM(responses=replies), chain_type=chain_type, retriever=ListRetriever(docs), **kw
    )
    return lc, rl


def seen(result: Any) -> Any:
    if result[0] != "ok":
        return result
    return {
        key: [(d.page_content, d.metadata) for d in value] if key == "source_documents" else value
        for key, value in result[1].items()
    }


@pytest.mark.parametrize("chain_type", ["stuff", "refine"])
@pytest.mark.parametrize("reply", REPLIES)
def test_answer_and_sources_split_as_langchains(chain_type, reply):
    lc, rl = pair(chain_type, [reply], return_source_documents=True)
    assert rl.input_keys == lc.input_keys
    assert rl.output_keys == lc.output_keys
    assert seen(outcome(rl.invoke, {"question": "Capital?"})) == seen(
        outcome(lc.invoke, {"question": "Capital?"})
    )


def test_keys_calling_forms_and_async():
    options = {"answer_key": "result", "sources_answer_key": "refs"}
    lc, rl = pair("stuff", REPLIES[:3], **options)
    assert (rl.input_keys, rl.output_keys) == (lc.input_keys, lc.output_keys)
    assert rl.invoke("Capital?") == lc.invoke("Capital?")
    assert rl.invoke({"question": "q"}, return_only_outputs=True) == lc.invoke(
        {"question": "q"}, return_only_outputs=True
    )
    assert asyncio.run(rl.ainvoke({"question": "a"})) == asyncio.run(lc.ainvoke({"question": "a"}))
    assert outcome(rl.invoke, {"query": "wrong key"}) == outcome(lc.invoke, {"query": "wrong key"})
    # the documents chain's prompt still asks for {question}: both fail on another key
    lc, rl = pair("stuff", ["x"], question_key="query")
    assert (rl.input_keys, rl.output_keys) == (lc.input_keys, lc.output_keys)
    assert outcome(rl.invoke, {"query": "q"}) == outcome(lc.invoke, {"query": "q"})


@pytest.mark.parametrize("limit", [100, 12, 11, 6, 5, 0])
def test_reduce_k_below_max_tokens(limit):
    lc = LCRetrievalQAWithSources.from_chain_type(
        LCWordCountLLM(responses=[REPLIES[0]]),
        retriever=LCListRetriever(docs=DOCS),
        reduce_k_below_max_tokens=True,
        max_tokens_limit=limit,
        return_source_documents=True,
    )
    rl = RetrievalQAWithSourcesChain.from_chain_type(
        WordCountLLM(responses=[REPLIES[0]]),
        retriever=ListRetriever(DOCS),
        reduce_k_below_max_tokens=True,
        max_tokens_limit=limit,
        return_source_documents=True,
    )
    assert seen(outcome(rl.invoke, "q")) == seen(outcome(lc.invoke, "q"))


def test_a_document_without_source_fails_in_both():
    lc, rl = pair("stuff", ["x"], docs=[("no source here", {})])
    assert seen(outcome(rl.invoke, "q")) == seen(outcome(lc.invoke, "q")) == ("raised", True)


def test_load_qa_with_sources_chain_answers_with_the_sources_line():
    docs = [Document(t, metadata=dict(m)) for t, m in DOCS]
    lc_docs = [LCDocument(t, metadata=dict(m)) for t, m in DOCS]
    for chain_type in ["stuff", "refine"]:
        lc = lc_load_qa_with_sources_chain(LCFakeListLLM(responses=REPLIES), chain_type=chain_type)
        rl = load_qa_with_sources_chain(FakeListLLM(responses=REPLIES), chain_type=chain_type)
        for _ in range(3):
            theirs = lc.invoke({"input_documents": lc_docs, "question": "q"})["output_text"]
            ours = rl.invoke({"input_documents": docs, "question": "q"})["output_text"]
            assert ours == theirs
    assert outcome(load_qa_with_sources_chain, FakeListLLM(responses=["x"]), "nope") == outcome(
        lc_load_qa_with_sources_chain, LCFakeListLLM(responses=["x"]), "nope"
    )

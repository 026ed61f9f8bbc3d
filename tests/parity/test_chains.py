"""Parity: chains, against LangChain's (langchain_classic.chains).

The same retriever (a fixed list, written once per library) and the same scripted model
answer the same question through LangChain's chain and ragline's chain of the same
name; outputs and the exact prompt the model receives are compared.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_classic.chains import RetrievalQA as LCRetrievalQA
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.chains import RetrievalQA
from ragline.core import BaseCallbackHandler, BaseRetriever, Document, FakeListLLM, PromptTemplate

COVERS = {"chains.RetrievalQA"}

TEXTS = ["Etna is in Sicily.", "It erupts often."]
TEMPLATE = "Use this:\n{context}\nQ: {question}\nA:"


class LCFixed(LCBaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[LCDocument]:
        return [LCDocument(page_content=text, metadata={"n": n}) for n, text in enumerate(TEXTS)]


class Fixed(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Document]:
        return [Document(page_content=text, metadata={"n": n}) for n, text in enumerate(TEXTS)]


def prompt_recorder(base: type) -> Any:
    class Prompts(base):
        def __init__(self) -> None:
            self.prompts: list[list[str]] = []

        def on_llm_start(self, serialized, prompts, **kwargs):
            self.prompts.append(list(prompts))

    return Prompts()


def run(library: str, *, explicit_prompt: bool, **options: Any) -> tuple[dict[str, Any], list]:
    if library == "langchain":
        llm, retriever = LCFakeListLLM(responses=["Sicily"]), LCFixed()
        prompt = LCPromptTemplate.from_template(TEMPLATE) if explicit_prompt else None
        qa = LCRetrievalQA.from_llm(llm, prompt=prompt, retriever=retriever, **options)
        handler = prompt_recorder(LCBaseCallbackHandler)
    else:
        llm, retriever = FakeListLLM(responses=["Sicily"]), Fixed()
        prompt = PromptTemplate.from_template(TEMPLATE) if explicit_prompt else None
        qa = RetrievalQA.from_llm(llm, prompt=prompt, retriever=retriever, **options)
        handler = prompt_recorder(BaseCallbackHandler)
    output = qa.invoke({"query": "Where is Etna?"}, {"callbacks": [handler]})
    sources = output.pop("source_documents", None)
    if sources is not None:
        output["sources"] = [(d.page_content, dict(d.metadata)) for d in sources]
    return output, handler.prompts


@pytest.mark.parametrize("sources", [False, True])
def test_retrieval_qa_from_llm_answers_with_langchains_prompt_and_outputs(sources):
    options = {"return_source_documents": sources}
    theirs = run("langchain", explicit_prompt=True, **options)
    ours = run("ragline", explicit_prompt=True, **options)
    assert ours == theirs
    assert ours[1] == [
        ["Use this:\nContext:\nEtna is in Sicily.\n\nContext:\nIt erupts often.\nQ: Where is "
         "Etna?\nA:"]
    ]  # fmt: skip


def test_retrieval_qa_from_llm_default_prompt_gives_the_same_outputs():
    """The default prompt's wording is ragline's own; what comes out is the same."""
    theirs, _ = run("langchain", explicit_prompt=False)
    ours, prompts = run("ragline", explicit_prompt=False)
    assert ours == theirs == {"query": "Where is Etna?", "result": "Sicily"}
    assert "Context:\nEtna is in Sicily.\n\nContext:\nIt erupts often." in prompts[0][0]


def test_retrieval_qa_from_llm_positional_callbacks_and_llm_chain_kwargs():
    """LangChain's positional order (llm, prompt, callbacks, llm_chain_kwargs)."""
    handler = prompt_recorder(BaseCallbackHandler)
    prompt = PromptTemplate.from_template(TEMPLATE)
    qa = RetrievalQA.from_llm(
        FakeListLLM(responses=["Sicily"]), prompt, [handler], {"verbose": False}, retriever=Fixed()
    )
    assert qa.run("Where is Etna?") == "Sicily"
    lc_handler = prompt_recorder(LCBaseCallbackHandler)
    lc_qa = LCRetrievalQA.from_llm(
        LCFakeListLLM(responses=["Sicily"]),
        LCPromptTemplate.from_template(TEMPLATE),
        [lc_handler],
        {"verbose": False},
        retriever=LCFixed(),
    )
    assert lc_qa.run("Where is Etna?") == "Sicily"

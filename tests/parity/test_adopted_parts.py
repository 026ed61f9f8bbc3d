"""Parity: LangChain models and runnables given to the last ragline constructors that
refused them (issue 24).

After ``ragline port`` a program may still hold a LangChain object: one from an
integration package the port leaves as it is. With ``ragline.interop.langchain.compose``
imported (the port adds it), ragline's constructors wrap such a part
(``adopt_runnable``). Each scenario gives the same LangChain-core fake model or runnable
to LangChain's class and to ragline's, and compares what a program sees: the LLMChain and
combine-documents chains' model, SelfQueryRetriever's query constructor, the retrying
parsers' retry chain, and the runnable ``add_routes`` serves.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.structured_query import Comparator as LCComparator
from langchain_core.structured_query import Comparison as LCComparison
from langchain_core.structured_query import StructuredQuery as LCStructuredQuery

import ragline.interop.langchain.compose  # noqa: F401 - what ragline port adds
from ragline.chains import LLMChain, create_stuff_documents_chain, load_qa_chain
from ragline.core import (
    ChatPromptTemplate,
    Document,
    InvalidInputError,
    JsonOutputParser,
    OutputFixingParser,
    PromptTemplate,
    RetryOutputParser,
    RetryWithErrorOutputParser,
)
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.retrievers import SelfQueryRetriever
from ragline.vectorstores import FAISS

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import LLMChain as LCLLMChain
    from langchain_classic.chains.combine_documents import (
        create_stuff_documents_chain as lc_create_stuff_documents_chain,
    )
    from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa_chain
    from langchain_classic.output_parsers import OutputFixingParser as LCOutputFixingParser
    from langchain_classic.output_parsers import RetryOutputParser as LCRetryOutputParser
    from langchain_classic.output_parsers import (
        RetryWithErrorOutputParser as LCRetryWithErrorOutputParser,
    )
    from langchain_classic.retrievers.self_query.base import (
        SelfQueryRetriever as LCSelfQueryRetriever,
    )
    from langchain_community.query_constructors.chroma import ChromaTranslator
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFake


def test_llm_chain_runs_a_langchain_model() -> None:
    def run(chain_class: Any, prompt_class: Any) -> tuple[Any, Any]:
        prompt = prompt_class.from_template("Capital of {country}?")
        chain = chain_class(prompt=prompt, llm=LCFakeListLLM(responses=["Paris.", "Rome."]))
        return chain.invoke({"country": "France"}), chain.predict(country="Italy")

    theirs = run(LCLLMChain, LCPromptTemplate)
    assert theirs == ({"country": "France", "text": "Paris."}, "Rome.")
    assert run(LLMChain, PromptTemplate) == theirs


@pytest.mark.parametrize("chain_type", ["stuff", "map_reduce", "refine"])
def test_a_qa_chain_runs_a_langchain_model(chain_type: str) -> None:
    """load_qa_chain's combine-documents chains take the model itself (LangChain's wrap
    it in an LLMChain): the same answers from the same scripted model."""

    def run(load: Callable[..., Any], document: type) -> tuple[list[str], str]:
        model = LCFakeListChatModel(responses=["one", "two", "three", "four"])
        chain = load(model, chain_type=chain_type)
        docs = [document(page_content="cats purr"), document(page_content="dogs bark")]
        result = chain.invoke({"input_documents": docs, "question": "Which pets?"})
        return sorted(result), result["output_text"]

    theirs = run(lc_load_qa_chain, LCDocument)
    assert theirs[0] == ["input_documents", "output_text", "question"]
    assert run(load_qa_chain, Document) == theirs


def test_a_stuff_documents_chain_runs_a_langchain_model() -> None:
    def run(create: Callable[..., Any], prompts: Any, document: type) -> list[Any]:
        prompt = prompts.from_messages([("system", "Notes: {context}"), ("human", "{input}")])
        chain = create(LCFakeListChatModel(responses=["Cats purr."]), prompt)
        docs = [document(page_content="cats purr"), document(page_content="dogs bark")]
        return [chain.invoke({"context": docs, "input": "What purrs?"}), chain.get_name()]

    theirs = run(lc_create_stuff_documents_chain, LCChatPromptTemplate, LCDocument)
    assert theirs == ["Cats purr.", "RunnableSequence"]
    assert run(create_stuff_documents_chain, ChatPromptTemplate, Document) == theirs


def test_self_query_runs_a_langchain_query_constructor() -> None:
    texts = ["cats purr", "dogs bark", "birds sing"]
    metadatas = [{"year": 2001}, {"year": 1999}, {"year": 2010}]
    asked: list[Any] = []

    def construct(request: dict[str, Any]) -> LCStructuredQuery:
        asked.append(request)
        newer = LCComparison(comparator=LCComparator.GT, attribute="year", value=2000)
        return LCStructuredQuery(query="pets", filter=newer, limit=None)

    theirs_store = LCFAISS.from_texts(texts, LCDeterministicFake(size=16), metadatas=metadatas)
    theirs = LCSelfQueryRetriever(
        query_constructor=LCRunnableLambda(construct),
        vectorstore=theirs_store,
        structured_query_translator=ChromaTranslator(),
    ).invoke("pets after 2000")
    ours_store = FAISS.from_texts(texts, DeterministicFakeEmbedding(size=16), metadatas=metadatas)
    ours = SelfQueryRetriever(
        query_constructor=LCRunnableLambda(construct), vectorstore=ours_store
    ).invoke("pets after 2000")
    seen = [(d.page_content, d.metadata) for d in theirs]
    assert sorted(seen) == [("birds sing", {"year": 2010}), ("cats purr", {"year": 2001})]
    assert [(d.page_content, d.metadata) for d in ours] == seen
    assert asked == [{"query": "pets after 2000"}] * 2


def _recording_chain(asked: list[dict[str, Any]]) -> Any:
    def answer(values: dict[str, Any]) -> str:
        asked.append(values)
        return '{"ok": true}'

    return LCRunnableLambda(answer)


def test_retrying_parsers_run_a_langchain_retry_chain() -> None:
    def run(kinds: tuple[Any, Any, Any], parser: Any, prompt: Any) -> list[Any]:
        fixing, retry, retry_with_error = kinds
        seen = []
        for kind in (fixing, retry, retry_with_error):
            asked: list[dict[str, Any]] = []
            wrapper = kind(parser=parser, retry_chain=_recording_chain(asked), max_retries=1)
            value = prompt.format_prompt(claim="cats purr")
            got = (
                wrapper.parse("maybe")
                if kind is fixing
                else wrapper.parse_with_prompt("maybe", value)
            )
            # the error's wording is each library's own; the values asked for are not
            seen.append((got, [sorted(a) for a in asked], [a.get("prompt") for a in asked]))
        return seen

    theirs = run(
        (LCOutputFixingParser, LCRetryOutputParser, LCRetryWithErrorOutputParser),
        LCJsonOutputParser(),
        LCPromptTemplate.from_template("Is it true that {claim}?"),
    )
    assert theirs == [
        ({"ok": True}, [["completion", "error", "instructions"]], [None]),
        ({"ok": True}, [["completion", "prompt"]], ["Is it true that cats purr?"]),
        ({"ok": True}, [["completion", "error", "prompt"]], ["Is it true that cats purr?"]),
    ]
    ours = run(
        (OutputFixingParser, RetryOutputParser, RetryWithErrorOutputParser),
        JsonOutputParser(),
        PromptTemplate.from_template("Is it true that {claim}?"),
    )
    assert ours == theirs


def test_add_routes_serves_a_langchain_runnable() -> None:
    langserve = pytest.importorskip("langserve")
    from fastapi import FastAPI

    from ragline.serve import BackgroundServer, add_routes, create_app

    def chain() -> Any:
        prompt = LCPromptTemplate.from_template("Tell me about {topic}.")
        return prompt | LCFakeListChatModel(responses=["Cats purr.", "Dogs bark."])

    ours = create_app()
    add_routes(ours, chain(), path="/pets")
    theirs = FastAPI()
    langserve.add_routes(theirs, chain(), path="/pets")
    answers = {}
    with BackgroundServer(ours) as mine, BackgroundServer(theirs) as other:
        for which, server in (("ragline", mine), ("langserve", other)):
            remote = langserve.RemoteRunnable(server.url + "/pets")
            first = remote.invoke({"topic": "cats"})
            rest = remote.batch([{"topic": "dogs"}])
            answers[which] = [(type(m).__name__, m.content) for m in [first, *rest]]
    assert answers["langserve"] == [("AIMessage", "Cats purr."), ("AIMessage", "Dogs bark.")]
    assert answers["ragline"] == answers["langserve"]


def test_what_is_not_a_runnable_is_still_refused() -> None:
    prompt = PromptTemplate.from_template("{x}")
    with pytest.raises(InvalidInputError, match=r"LLMChain\.llm must be a model"):
        LLMChain(prompt=prompt, llm="gpt")
    with pytest.raises(InvalidInputError, match="retry_chain must be a Runnable"):
        RetryOutputParser(parser=JsonOutputParser(), retry_chain=object())
    with pytest.raises(InvalidInputError, match="needs query_constructor"):
        SelfQueryRetriever(query_constructor=object(), vectorstore=None)

"""Parity: ``RePhraseQueryRetriever`` against LangChain's (langchain_classic.retrievers):
the model's answer searched exactly as it came back, the runs in order
(names, queries and inputs as each library's handler sees them; LangChain's
``seq:step:N`` tags are a documented difference), a custom prompt, and the default
prompt's variable. ``ainvoke`` searches (LangChain's raises NotImplementedError). The
default prompt's wording is ragline's own.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.retrievers import RePhraseQueryRetriever as LCRePhraseQueryRetriever
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.core import BaseCallbackHandler, BaseRetriever, Document, FakeListLLM, PromptTemplate
from ragline.retrievers import RePhraseQueryRetriever

COVERS = {"retrievers.RePhraseQueryRetriever"}

QUESTION = "Hi! I'd like to know about cats purring, thanks"


def echo(base: Any, document: Any) -> Any:
    class Echo(base):  # type: ignore[misc, valid-type]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [document(page_content=f"found: {query}")]

    return Echo()


def recorder(base: Any) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[Any] = []

        def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
            self.seen.append(("retriever", kwargs.get("name"), query))

        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            self.seen.append(("chain", kwargs.get("name"), inputs))

        def on_llm_start(self, serialized: Any, prompts: list[str], **kwargs: Any) -> None:
            self.seen.append(("llm", QUESTION in prompts[0]))

    return Recorder()


def run(m: dict[str, Any]) -> list[Any]:
    llm = m["llm"](responses=["  cats purring  \n", "kittens"])
    retriever = m["class"].from_llm(retriever=echo(m["base"], m["document"]), llm=llm)
    handler = recorder(m["handler"])
    out: list[Any] = [retriever.invoke(QUESTION, {"callbacks": [handler]})[0].page_content]
    out.append(handler.seen)
    custom = m["class"].from_llm(
        retriever=echo(m["base"], m["document"]),
        llm=m["llm"](responses=["dogs"]),
        prompt=m["prompt"].from_template("Search words for: {question}"),
    )
    out.append(custom.invoke("tell me about dogs")[0].page_content)
    return out


LC = {
    "class": LCRePhraseQueryRetriever,
    "base": LCBaseRetriever,
    "document": LCDocument,
    "handler": LCBaseCallbackHandler,
    "llm": LCFakeListLLM,
    "prompt": LCPromptTemplate,
}
RL = {
    "class": RePhraseQueryRetriever,
    "base": BaseRetriever,
    "document": Document,
    "handler": BaseCallbackHandler,
    "llm": FakeListLLM,
    "prompt": PromptTemplate,
}


def test_the_model_answer_is_searched_as_it_came_back():
    ours, theirs = run(RL), run(LC)
    assert ours == theirs
    assert ours[0] == "found:   cats purring  \n"


def test_ainvoke_works_where_langchain_raises():
    # LangChain's class has no async search (NotImplementedError); ragline's searches
    # (docs/differences-from-langchain.md, "Accepted here, refused by LangChain").
    def build(m: dict[str, Any]) -> Any:
        llm = m["llm"](responses=["kittens"])
        return m["class"].from_llm(retriever=echo(m["base"], m["document"]), llm=llm)

    with pytest.raises(NotImplementedError):
        asyncio.run(build(LC).ainvoke(QUESTION))
    assert asyncio.run(build(RL).ainvoke(QUESTION)) == [Document("found: kittens")]


def test_the_default_prompt_takes_the_question_and_bad_parts_are_refused():
    from langchain_classic.retrievers.re_phraser import DEFAULT_QUERY_PROMPT as LC_PROMPT

    from ragline.retrievers._rephrase import DEFAULT_QUERY_PROMPT

    assert DEFAULT_QUERY_PROMPT.input_variables == LC_PROMPT.input_variables == ["question"]
    with pytest.raises(ValueError):
        RePhraseQueryRetriever(retriever="not a retriever", llm_chain=FakeListLLM(responses=[]))
    with pytest.raises(ValueError):
        LCRePhraseQueryRetriever(retriever="not a retriever", llm_chain=LCFakeListLLM(responses=[]))

"""Parity: ``MultiQueryRetriever`` against LangChain's (langchain_classic.retrievers).

The same keyword retriever (a word match over a fixed list, written once per library)
and the same scripted model answer the same question; the documents must match, with
LangChain's deprecated ``parser_key`` accepted in both of LangChain's places, and the
queries searched must be the model's lines as LangChain takes them (repeats included).
"""

from __future__ import annotations

import logging
import warnings

import pytest
from langchain_classic.retrievers import MultiQueryRetriever as LCMultiQueryRetriever
from langchain_classic.retrievers.multi_query import DEFAULT_QUERY_PROMPT as LC_PROMPT
from langchain_classic.retrievers.multi_query import LineListOutputParser as LCLineListOutputParser
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from pydantic import Field

from ragline.core import BaseRetriever, Document, FakeListChatModel, PromptTemplate
from ragline.retrievers import LineListOutputParser, MultiQueryRetriever

COVERS = {"retrievers.MultiQueryRetriever", "retrievers.LineListOutputParser"}

TEXTS = ["cats purr when content", "felines sleep a lot", "dogs bark", "cats and dogs"]
QUERIES = "cats\nfelines\ncats"
PROMPT = PromptTemplate.from_template("Other ways to ask: {question}")


def matches(query: str) -> list[str]:
    return [text for text in TEXTS if any(word in text for word in query.lower().split())]


class LCWords(LCBaseRetriever):
    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        return [LCDocument(page_content=text) for text in matches(query)]


class Words(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager=None) -> list[Document]:
        return [Document(page_content=text) for text in matches(query)]


def texts(documents) -> list[str]:
    return [document.page_content for document in documents]


@pytest.mark.parametrize("include_original", [False, True])
def test_from_llm_takes_parser_key_in_langchains_position(include_original):
    theirs = LCMultiQueryRetriever.from_llm(
        LCWords(), LCFakeListChatModel(responses=[QUERIES]), LC_PROMPT, "lines", include_original
    )
    with pytest.warns(DeprecationWarning, match="parser_key='lines' is deprecated and unused"):
        ours = MultiQueryRetriever.from_llm(
            Words(), FakeListChatModel(responses=[QUERIES]), None, "lines", include_original
        )
    expected = texts(theirs.invoke("dogs"))
    assert texts(ours.invoke("dogs")) == expected
    # queries cats, felines, (cats again,) and with include_original the question last
    assert expected == [TEXTS[0], TEXTS[3], TEXTS[1]] + ([TEXTS[2]] if include_original else [])


def test_the_constructor_takes_parser_key_too():
    lc_chain = LC_PROMPT | LCFakeListChatModel(responses=[QUERIES]) | LCLineListOutputParser()
    theirs = LCMultiQueryRetriever(retriever=LCWords(), llm_chain=lc_chain, parser_key="lines")
    chain = PROMPT | FakeListChatModel(responses=[QUERIES]) | LineListOutputParser()
    with pytest.warns(DeprecationWarning, match="parser_key"):
        ours = MultiQueryRetriever(retriever=Words(), llm_chain=chain, parser_key="lines")
    assert texts(ours.invoke("q")) == texts(theirs.invoke("q"))


def test_without_parser_key_nothing_is_warned():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MultiQueryRetriever.from_llm(Words(), FakeListChatModel(responses=[QUERIES]))


ANSWER = " cats \n\n   \nfelines\r\ncats\ndogs  \ncats \n"


class LCSeen(LCBaseRetriever):
    seen: list[str] = Field(default_factory=list)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        self.seen.append(query)
        return [LCDocument(page_content=text) for text in matches(query)]


class Seen(BaseRetriever):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def _get_relevant_documents(self, query: str, *, run_manager=None) -> list[Document]:
        self.seen.append(query)
        return [Document(page_content=text) for text in matches(query)]


@pytest.mark.parametrize("include_original", [False, True])
def test_each_line_is_searched_as_written_repeats_included(include_original):
    assert LineListOutputParser().parse(ANSWER) == LCLineListOutputParser().parse(ANSWER)
    assert LineListOutputParser().parse(ANSWER) == [
        "cats ",
        "   ",
        "felines\r",
        "cats",
        "dogs  ",
        "cats",
    ]
    lc_base, base = LCSeen(), Seen()
    theirs = LCMultiQueryRetriever.from_llm(
        lc_base, LCFakeListChatModel(responses=[ANSWER]), include_original=include_original
    )
    ours = MultiQueryRetriever.from_llm(
        base, FakeListChatModel(responses=[ANSWER]), include_original=include_original
    )
    assert texts(ours.invoke("cats")) == texts(theirs.invoke("cats"))
    # ragline searches the queries in one batch (threads): compare them as a multiset
    assert sorted(base.seen) == sorted(lc_base.seen)
    assert len(base.seen) == (7 if include_original else 6)


def test_the_generated_queries_are_logged_as_langchain_logs_them(caplog):
    caplog.set_level(logging.INFO)
    lc_base, base = LCSeen(), Seen()
    LCMultiQueryRetriever.from_llm(
        lc_base, LCFakeListChatModel(responses=[ANSWER, "dogs"]), include_original=True
    ).batch(["cats", "birds"], config={"max_concurrency": 1})
    LCMultiQueryRetriever(
        retriever=lc_base,
        llm_chain=LC_PROMPT | LCFakeListChatModel(responses=["x"]) | LCLineListOutputParser(),
        verbose=False,
    ).invoke("quiet")
    theirs = [(r.levelname, r.getMessage()) for r in caplog.records]
    caplog.clear()
    MultiQueryRetriever.from_llm(
        base, FakeListChatModel(responses=[ANSWER, "dogs"]), include_original=True
    ).batch(["cats", "birds"], config={"max_concurrency": 1})
    MultiQueryRetriever(
        retriever=base,
        llm_chain=PROMPT | FakeListChatModel(responses=["x"]) | LineListOutputParser(),
        verbose=False,
    ).invoke("quiet")
    ours = [(r.levelname, r.getMessage()) for r in caplog.records]
    # one question at a time: the scripted answers go to the questions in order (with two
    # at once either question could take the first answer, in either library)
    assert sorted(ours) == sorted(theirs)
    # a record formats its list when read: by then the question has joined it (LangChain's)
    assert sorted(ours) == [
        (
            "INFO",
            "Generated queries: ['cats ', '   ', 'felines\\r', 'cats', 'dogs  ', 'cats', 'cats']",
        ),
        ("INFO", "Generated queries: ['dogs', 'birds']"),
    ]


def test_langchains_step_methods() -> None:
    lc_base, base = LCSeen(), Seen()
    theirs = LCMultiQueryRetriever.from_llm(lc_base, LCFakeListChatModel(responses=[ANSWER]))
    ours = MultiQueryRetriever.from_llm(base, FakeListChatModel(responses=[ANSWER]))
    manager = CallbackManagerForRetrieverRun.get_noop_manager()
    written = theirs.generate_queries("cats", manager)
    assert ours.generate_queries("cats") == written
    found = theirs.retrieve_documents(["cats", "dogs", "cats"], manager)
    assert texts(ours.retrieve_documents(["cats", "dogs", "cats"])) == texts(found)
    assert texts(ours.unique_union(ours.retrieve_documents(["cats", "dogs"]))) == texts(
        theirs.unique_union(theirs.retrieve_documents(["cats", "dogs"], manager))
    )
    assert texts(found) == [TEXTS[0], TEXTS[3], TEXTS[2], TEXTS[3], TEXTS[0], TEXTS[3]]


async def test_langchains_async_step_methods() -> None:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun

    theirs = LCMultiQueryRetriever.from_llm(LCSeen(), LCFakeListChatModel(responses=[ANSWER]))
    ours = MultiQueryRetriever.from_llm(Seen(), FakeListChatModel(responses=[ANSWER]))
    manager = AsyncCallbackManagerForRetrieverRun.get_noop_manager()
    assert await ours.agenerate_queries("cats") == await theirs.agenerate_queries("cats", manager)
    assert texts(await ours.aretrieve_documents(["dogs", "cats"])) == texts(
        await theirs.aretrieve_documents(["dogs", "cats"], manager)
    )

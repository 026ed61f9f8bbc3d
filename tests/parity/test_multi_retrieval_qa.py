"""Parity: MultiRetrievalQAChain (a model picks which retriever's RetrievalQA answers)
against langchain_classic's (``langchain_classic.chains.router.MultiRetrievalQAChain``).

The same retrievers (fixed lists, written once per library) and the same scripted model
replies go through both libraries' ``from_retrievers``. The router prompt is each
library's own wording; with a scripted model that cannot change a reply. Compared: the
keys; the outputs of ``invoke`` (the chosen chain's inputs and outputs joined, the
default conversation's history growing from one call to the next), ``run`` and
``ainvoke``; the run tree (chain names and input keys, what each retriever is asked, the
``destination: next_inputs`` text); the exact prompt a ``retriever_infos`` prompt and a
``default_prompt`` give the model; ``"DEFAULT"`` in any case; an unknown destination
(an error, or the default with ``silent_errors``); the errors for a missing default and
for ``default_prompt`` without ``default_retriever``; ``MULTI_RETRIEVAL_ROUTER_TEMPLATE``'s
variables.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from langchain_classic.chains.router import MultiRetrievalQAChain as LCMultiRetrievalQAChain
from langchain_classic.chains.router.multi_retrieval_prompt import (
    MULTI_RETRIEVAL_ROUTER_TEMPLATE as LC_TEMPLATE,
)
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.chains import MULTI_RETRIEVAL_ROUTER_TEMPLATE, MultiRetrievalQAChain
from ragline.core import (
    BaseCallbackHandler,
    BaseRetriever,
    Document,
    FakeListLLM,
    PromptTemplate,
)
from tests.parity._handlers import LCPromptLog, PromptLog

COVERS = {"chains.MultiRetrievalQAChain", "chains.MULTI_RETRIEVAL_ROUTER_TEMPLATE"}

TEXTS = {
    "volcanoes": ["Vesuvius buried Pompeii.", "Etna erupts often."],
    "rivers": ["The Nile flows north."],
    "fallback": ["Ask a librarian."],
}
RIVER_PROMPT = "Rivers: {context}\nQ: {question}\nA:"
DEFAULT_PROMPT = "Fallback: {context} / {question}"
REPLIES = [
    '{"destination": "volcanoes", "next_inputs": "Which volcano buried Pompeii?"}',
    "Vesuvius.",
    '```json\n{\n    "destination": "rivers",\n'
    '    "next_inputs": "Where does the Nile flow?"\n}\n```',
    "North.",
    '{"destination": "default", "next_inputs": "Hello there"}',
    "Hi!",
    '{"destination": "DEFAULT", "next_inputs": "And again"}',
    "Hi again!",
]
QUESTIONS = ["Pompeii?", "Nile?", "Hello", "Again"]


class LCFixed(LCBaseRetriever):
    texts: list[str]

    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
        return [LCDocument(page_content=text) for text in self.texts]


class Fixed(BaseRetriever):
    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
        return [Document(page_content=text) for text in self.texts]


class _Recording:
    """The events a scenario compares (mixed into each library's handler class)."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kw: Any) -> None:
        self.events.append(("chain", kw.get("name"), sorted(inputs)))

    def on_retriever_start(self, serialized: Any, query: str, **kw: Any) -> None:
        self.events.append(("retriever", query))

    def on_llm_start(self, serialized: Any, prompts: list[str], **kw: Any) -> None:
        self.events.append(("llm", len(prompts)))

    def on_text(self, text: str, **kw: Any) -> None:
        if not text.startswith("Prompt after formatting"):
            self.events.append(("text", text))


class LCRecorder(_Recording, LCHandler):
    pass


class Recorder(_Recording, BaseCallbackHandler):
    pass


def parts(which: str) -> tuple[Any, Any, Any]:
    if which == "langchain":
        return LCFakeListLLM, LCFixed, LCPromptTemplate.from_template
    return FakeListLLM, Fixed, PromptTemplate.from_template


def infos(which: str) -> list[dict[str, Any]]:
    _, retriever, prompt = parts(which)
    return [
        {
            "name": "volcanoes",
            "description": "Good for questions about volcanoes",
            "retriever": retriever(texts=TEXTS["volcanoes"]),
        },
        {
            "name": "rivers",
            "description": "Good for questions about rivers",
            "retriever": retriever(texts=TEXTS["rivers"]),
            "prompt": prompt(RIVER_PROMPT),
        },
    ]


def build(which: str, replies: list[str] = REPLIES, **kw: Any) -> Any:
    llm_class, retriever, prompt = parts(which)
    cls: Any = LCMultiRetrievalQAChain if which == "langchain" else MultiRetrievalQAChain
    if kw.pop("with_default_retriever", False):
        kw["default_retriever"] = retriever(texts=TEXTS["fallback"])
        kw["default_prompt"] = prompt(DEFAULT_PROMPT)
    llm = llm_class(responses=replies)
    if "default_chain" not in kw and "default_retriever" not in kw:
        kw["default_chain_llm"] = llm
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls.from_retrievers(llm, infos(which), **kw)


def test_keys_and_the_outputs_of_each_route() -> None:
    results = {}
    for which in ("langchain", "ragline"):
        chain = build(which)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = [chain.invoke({"input": question}) for question in QUESTIONS]
        results[which] = (chain.input_keys, chain.output_keys, outputs)
    assert results["ragline"] == results["langchain"]
    assert results["ragline"][2] == [
        {"input": "Pompeii?", "query": "Which volcano buried Pompeii?", "result": "Vesuvius."},
        {"input": "Nile?", "query": "Where does the Nile flow?", "result": "North."},
        {"input": "Hello", "query": "Hello there", "history": "", "result": "Hi!"},
        {
            "input": "Again",
            "query": "And again",
            "history": "Human: Hello there\nAI: Hi!",
            "result": "Hi again!",
        },
    ]


def test_run_and_ainvoke() -> None:
    results = {}
    for which in ("langchain", "ragline"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ran = [build(which).run(question) for question in QUESTIONS[:1]]
            awaited = asyncio.run(build(which).ainvoke({"input": "Pompeii?"}))
        results[which] = (ran, awaited)
    assert results["ragline"] == results["langchain"]
    assert results["ragline"][0] == ["Vesuvius."]


def test_the_run_tree_of_a_retriever_route_and_of_the_default() -> None:
    recorders = {"langchain": LCRecorder(), "ragline": Recorder()}
    for which, recorder in recorders.items():
        chain = build(which)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for question in QUESTIONS[:3]:
                chain.invoke({"input": question}, {"callbacks": [recorder]})
    assert recorders["ragline"].events == recorders["langchain"].events
    events = recorders["ragline"].events
    assert [event for event in events if event[0] in ("text", "retriever")] == [
        ("text", "volcanoes: {'query': 'Which volcano buried Pompeii?'}"),
        ("retriever", "Which volcano buried Pompeii?"),
        ("text", "rivers: {'query': 'Where does the Nile flow?'}"),
        ("retriever", "Where does the Nile flow?"),
        ("text", "None: {'query': 'Hello there'}"),
    ]
    assert ("chain", "ConversationChain", ["history", "query"]) in events


def test_the_given_prompts_reach_the_model() -> None:
    logs = {"langchain": LCPromptLog(), "ragline": PromptLog()}
    replies = [REPLIES[2], "North.", '{"destination": "DEFAULT", "next_inputs": "x?"}', "?"]
    for which, log in logs.items():
        chain = build(which, replies, with_default_retriever=True)
        for question in ("Nile?", "Other?"):
            chain.invoke({"input": question}, {"callbacks": [log]})
    assert logs["ragline"].prompts[1::2] == logs["langchain"].prompts[1::2]
    assert logs["ragline"].prompts[1::2] == [
        # from_llm writes each document as "Context:\n<its text>", in both
        "Rivers: Context:\nThe Nile flows north.\nQ: Where does the Nile flow?\nA:",
        "Fallback: Context:\nAsk a librarian. / x?",
    ]


def test_an_unknown_destination_raises_or_goes_to_the_default() -> None:
    replies = ['{"destination": "deserts", "next_inputs": "Sahara?"}', "Sand."]
    errors = {}
    for which in ("langchain", "ragline"):
        with pytest.raises(ValueError) as caught:
            build(which, replies, with_default_retriever=True).invoke({"input": "Sahara?"})
        errors[which] = str(caught.value)
    assert errors["ragline"] == errors["langchain"]
    outputs = {
        which: build(which, replies, with_default_retriever=True, silent_errors=True).invoke(
            {"input": "Sahara?"}
        )
        for which in ("langchain", "ragline")
    }
    assert outputs["ragline"] == outputs["langchain"]
    assert outputs["ragline"] == {"input": "Sahara?", "query": "Sahara?", "result": "Sand."}


def test_a_given_default_chain_answers_for_default() -> None:
    outputs = {}
    for which in ("langchain", "ragline"):
        llm_class, _, _ = parts(which)
        cls: Any = LCMultiRetrievalQAChain if which == "langchain" else MultiRetrievalQAChain
        fallback = build(which, ["Fallback answer."], with_default_retriever=True)
        fallback = fallback.destination_chains["volcanoes"]
        llm = llm_class(responses=['{"destination": "DEFAULT", "next_inputs": "Lava?"}'])
        chain = cls.from_retrievers(llm, infos(which), default_chain=fallback)
        outputs[which] = chain.invoke({"input": "Lava?"})
    assert outputs["ragline"] == outputs["langchain"]
    assert outputs["ragline"]["result"] == "Fallback answer."


def test_bad_defaults_are_refused_alike() -> None:
    types = {}
    for which in ("langchain", "ragline"):
        llm_class, _, prompt = parts(which)
        cls: Any = LCMultiRetrievalQAChain if which == "langchain" else MultiRetrievalQAChain
        found = []
        with pytest.raises(NotImplementedError):
            cls.from_retrievers(llm_class(responses=["x"]), infos(which))
        found.append("NotImplementedError")
        with pytest.raises(ValueError, match="default_retriever"):
            cls.from_retrievers(
                llm_class(responses=["x"]),
                infos(which),
                default_prompt=prompt(DEFAULT_PROMPT),
                default_chain_llm=llm_class(responses=["x"]),
            )
        found.append("ValueError")
        types[which] = found
    assert types["ragline"] == types["langchain"]


def test_the_router_template_takes_destinations_then_input() -> None:
    lc = LCPromptTemplate.from_template(LC_TEMPLATE.format(destinations="a: b"))
    ours = PromptTemplate.from_template(MULTI_RETRIEVAL_ROUTER_TEMPLATE.format(destinations="a: b"))
    assert ours.input_variables == lc.input_variables == ["input"]
    assert "a: b" in ours.format(input="q") and "\nq\n" in ours.format(input="q")

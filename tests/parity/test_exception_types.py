"""Parity: the built-in exception class a program catches is LangChain's.

ragline raises its own typed errors (``MissingVariableError``, ``InvalidInputError``:
they name the thing, the bad value and what to do), and each is also the built-in class
LangChain raises in that place, so ``except ValueError`` / ``except KeyError`` written
for LangChain catches ragline's error too. Only ``type(err).__name__`` differs
(docs/differences-from-langchain.md, "Exception classes"). Each case runs through both
libraries; the test asserts that ragline's error is an instance of the class LangChain
raised.
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from langchain_classic import chains as lc_chains
from langchain_classic import memory as lc_memory
from langchain_core import embeddings as lc_embeddings
from langchain_core import language_models as lc_models
from langchain_core import prompts as lc_prompts
from langchain_core import vectorstores as lc_vectorstores

from ragline import chains, embeddings, memory, vectorstores
from ragline.core import FakeListLLM, InvalidInputError, MissingVariableError, PromptTemplate

COVERS: set[str] = set()  # the classes are listed by their own parity modules

LIBRARIES: dict[str, dict[str, Any]] = {
    "langchain": {
        "chains": lc_chains,
        "memory": lc_memory,
        "FakeListLLM": lc_models.FakeListLLM,
        "PromptTemplate": lc_prompts.PromptTemplate,
        "InMemoryVectorStore": lc_vectorstores.InMemoryVectorStore,
        "Embedding": lc_embeddings.DeterministicFakeEmbedding,
    },
    "ragline": {
        "chains": chains,
        "memory": memory,
        "FakeListLLM": FakeListLLM,
        "PromptTemplate": PromptTemplate,
        "InMemoryVectorStore": vectorstores.InMemoryVectorStore,
        "Embedding": embeddings.DeterministicFakeEmbedding,
    },
}


def _two_inputs(ns: dict[str, Any]) -> Any:
    prompt = ns["PromptTemplate"].from_template("{a} and {b}")
    return ns["chains"].LLMChain(llm=ns["FakeListLLM"](responses=["x"]), prompt=prompt)


def _conversation(ns: dict[str, Any]) -> Any:
    # the memory saves 'question', which the chain's input ('input') is not
    chat = ns["memory"].ConversationBufferMemory(input_key="question")
    prompt = ns["PromptTemplate"].from_template("{history} {input}")
    llm = ns["FakeListLLM"](responses=["x"])
    return ns["chains"].ConversationChain(llm=llm, memory=chat, prompt=prompt)


def _retriever_memory(ns: dict[str, Any]) -> Any:
    store = ns["InMemoryVectorStore"](ns["Embedding"](size=4))
    return ns["memory"].VectorStoreRetrieverMemory(
        retriever=store.as_retriever(), input_key="question"
    )


CASES: dict[str, Callable[[dict[str, Any]], Any]] = {
    # a legacy chain missing one of its inputs: LangChain's ValueError
    "chain invoke": lambda ns: _two_inputs(ns).invoke({"a": 1}),
    "chain call": lambda ns: _two_inputs(ns)({"a": 1}),
    "chain run": lambda ns: _two_inputs(ns).run(a=1),
    # a memory missing its input (or output) key: LangChain's KeyError
    "memory input_key": lambda ns: (
        ns["memory"]
        .ConversationBufferMemory(input_key="question")
        .save_context({"q": "hi"}, {"text": "yo"})
    ),
    "memory output_key": lambda ns: (
        ns["memory"]
        .ConversationBufferMemory(output_key="answer")
        .save_context({"q": "hi"}, {"text": "yo"})
    ),
    "window memory input_key": lambda ns: (
        ns["memory"]
        .ConversationBufferWindowMemory(input_key="question")
        .save_context({"q": "hi"}, {"text": "yo"})
    ),
    "chain with memory": lambda ns: _conversation(ns).invoke({"input": "hi"}),
    "retriever memory": lambda ns: _retriever_memory(ns).load_memory_variables({"q": "x"}),
}


def _raised(ns: dict[str, Any], case: Callable[[dict[str, Any]], Any]) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's deprecation warnings
        try:
            case(ns)
        except Exception as err:
            return err
    raise AssertionError("no exception")


@pytest.mark.parametrize("name", list(CASES))
def test_ragline_raises_an_instance_of_langchains_class(name: str) -> None:
    theirs = _raised(LIBRARIES["langchain"], CASES[name])
    ours = _raised(LIBRARIES["ragline"], CASES[name])
    assert type(theirs) in (ValueError, KeyError)  # the built-in a program catches
    assert isinstance(ours, type(theirs))
    assert isinstance(ours, InvalidInputError)  # and ragline's own typed error
    if isinstance(theirs, KeyError):
        assert isinstance(ours, MissingVariableError)


def test_an_agent_refuses_an_llm_chain_it_cannot_run_when_built() -> None:
    """LangChain's agent validates llm_chain when built (an object without LLMChain's
    fields fails there); ragline's says what to give (it used to fail at the first
    step with an AttributeError)."""
    from ragline.agents import ZeroShotAgent

    prompt = ZeroShotAgent.create_prompt([])
    chain = types.SimpleNamespace(llm=FakeListLLM(responses=["x"]), prompt=prompt)
    with pytest.raises(InvalidInputError, match="llm_chain must be an LLMChain"):
        ZeroShotAgent(llm_chain=chain, allowed_tools=[])

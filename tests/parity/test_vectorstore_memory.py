"""Parity: ragline's VectorStoreRetrieverMemory against LangChain's (langchain_classic).

The memory over an InMemoryVectorStore retriever, as LangChain's guide uses it: turns
saved with save_context, then load_memory_variables for a new prompt. Both stores get
the same word-count embedding, so the same turns are found. Compared: the exchanges
recalled, the variables' names and the saved documents, text and metadata: one
"key: value" line per input and then per output, no metadata. (Seed 000 §5.4 shows
"Human: ...\nAI: ..." with a timestamp, which LangChain does not write.)
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic.memory import VectorStoreRetrieverMemory as LCMemory
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.embeddings import Embeddings
from ragline.memory import VectorStoreRetrieverMemory
from ragline.vectorstores import InMemoryVectorStore

COVERS = {"memory.VectorStoreRetrieverMemory"}

VOCABULARY = ["food", "pizza", "sport", "soccer", "football", "cat", "name", "watch", "zz"]


def _vector(text: str) -> list[float]:
    words = [w.strip(".,?!:").lower() for w in text.split()]
    vector = [float(words.count(term)) for term in VOCABULARY]
    return vector if any(vector) else [0.0] * (len(VOCABULARY) - 1) + [1.0]


class Counts(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [_vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return _vector(text)


class LCCounts(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [_vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return _vector(text)


TURNS = [
    ({"input": "My favorite food is pizza"}, {"output": "that's good to know"}),
    ({"input": "My favorite sport is soccer"}, {"output": "..."}),
    ({"input": "I don't the Celtics"}, {"output": "ok"}),
    ({"input": "My cat has a name: Tom"}, {"output": "nice cat"}),
]


def recalled(history: str) -> list[str]:
    """The saved exchanges' human inputs, whichever library's layout."""
    found = []
    for line in history.splitlines():
        label, _, text = line.partition(": ")
        if label in ("Human", "input"):
            found.append(text)
    return found


def _pair(**options: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's memory classes are deprecated
        theirs = LCMemory(
            retriever=LCInMemoryVectorStore(LCCounts()).as_retriever(search_kwargs={"k": 1}),
            **options,
        )
    ours = VectorStoreRetrieverMemory(
        retriever=InMemoryVectorStore(Counts()).as_retriever(search_kwargs={"k": 1}), **options
    )
    for inputs, outputs in TURNS:
        theirs.save_context(inputs, outputs)
        ours.save_context(inputs, outputs)
    return theirs, ours


@pytest.mark.parametrize(
    "prompt", ["what sport should i watch?", "tell me about pizza food", "my cat name"]
)
def test_history_text_is_the_nearest_turn(prompt: str) -> None:
    theirs, ours = _pair()
    assert ours.memory_variables == theirs.memory_variables == ["history"]
    got = ours.load_memory_variables({"prompt": prompt})["history"]
    expected = theirs.load_memory_variables({"prompt": prompt})["history"]
    assert got == expected
    assert len(recalled(got)) == 1
    if "sport" in prompt:
        assert got == "input: My favorite sport is soccer\noutput: ..."


def test_return_docs_and_a_memory_key() -> None:
    theirs, ours = _pair(return_docs=True, memory_key="related")
    got = ours.load_memory_variables({"prompt": "pizza"})["related"]
    expected = theirs.load_memory_variables({"prompt": "pizza"})["related"]
    assert [(d.page_content, d.metadata) for d in got] == [
        (d.page_content, d.metadata) for d in expected
    ]
    assert [(d.page_content, d.metadata) for d in got] == [
        ("input: My favorite food is pizza\noutput: that's good to know", {})
    ]


def test_an_input_key_picks_which_input_is_saved() -> None:
    theirs, ours = _pair(input_key="input")
    inputs = {"input": "football tonight", "other": "ignored"}
    theirs.save_context(inputs, {"output": "fine"})
    ours.save_context(inputs, {"output": "fine"})
    got = ours.load_memory_variables({"input": "football"})["history"]
    expected = theirs.load_memory_variables({"input": "football"})["history"]
    assert recalled(got) == recalled(expected) == ["football tonight"]
    # every input is saved, not only the input_key's
    assert got == expected == "input: football tonight\nother: ignored\noutput: fine"


def test_excluded_inputs_and_the_memory_key_are_not_saved() -> None:
    theirs, ours = _pair(exclude_input_keys=["context"])
    inputs = {"input": "football tonight", "context": "long", "history": "earlier"}
    theirs.save_context(inputs, {"output": "fine", "extra": 2})
    ours.save_context(inputs, {"output": "fine", "extra": 2})
    got = ours.load_memory_variables({"input": "football"})["history"]
    expected = theirs.load_memory_variables({"input": "football"})["history"]
    assert got == expected == "input: football tonight\noutput: fine\nextra: 2"

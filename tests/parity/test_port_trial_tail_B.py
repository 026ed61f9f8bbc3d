"""Parity: what still differed in port-trial sets 7 to 13 (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or catch.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import langchain_core.chat_history as lc_chat_history
import langchain_core.messages as lc_messages
import langchain_core.prompts as lc_prompts
import langchain_text_splitters as lc_splitters
import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFake
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

import ragline.core.chat_history as rl_chat_history
import ragline.core.messages as rl_messages
import ragline.core.prompts as rl_prompts
import ragline.splitters as rl_splitters
from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError, MissingVariableError, RaglineError
from ragline.embeddings import DeterministicFakeEmbedding, Embeddings
from ragline.vectorstores import InMemoryVectorStore


def _caught(run: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        run()
    return caught.value


def _printed(error: BaseException) -> tuple[str, str]:
    """What a program prints: the class name and the repr's head."""
    return type(error).__name__, repr(error).split("(")[0]


def _builtins(error: BaseException) -> set[str]:
    """The built-in exceptions an `except` clause could name to catch it."""
    kinds = (KeyError, ValueError, TypeError, RuntimeError, NotImplementedError)
    return {kind.__name__ for kind in kinds if isinstance(error, kind)}


# Exception classes a program prints with type(e).__name__ (format_document_sources,
# string_prompt_template_subclass, gbagents_session_history_chat,
# intuition_create_documents_from_docs): ragline's class prints LangChain's built-in name
# and stays ragline's error, so `except` clauses written for either catch it.


def _prompt_missing(mod: Any) -> Callable[[], Any]:
    return lambda: mod.PromptTemplate.from_template("{topic}: {outline}").invoke({"topic": "x"})


def _prompt_not_a_dict(mod: Any) -> Callable[[], Any]:
    return lambda: mod.PromptTemplate.from_template("{topic}: {outline}").invoke("x")


def _chat_prompt_not_a_dict(mod: Any) -> Callable[[], Any]:
    prompt = mod.ChatPromptTemplate.from_messages([("system", "{style}"), ("human", "{q}")])
    return lambda: prompt.invoke(["x"])


def _chat_prompt_missing(mod: Any) -> Callable[[], Any]:
    prompt = mod.ChatPromptTemplate.from_messages([("system", "{style}"), ("human", "{q}")])
    return lambda: prompt.invoke({"q": "x"})


def _placeholder_missing(mod: Any) -> Callable[[], Any]:
    return lambda: mod.MessagesPlaceholder("history").format_messages(q="x")


def _few_shot_example_missing(mod: Any) -> Callable[[], Any]:
    prompt = mod.FewShotPromptTemplate(
        examples=[{"q": "2+2"}],
        example_prompt=mod.PromptTemplate.from_template("{q} = {a}"),
        suffix="{input}",
        input_variables=["input"],
    )
    return lambda: prompt.format(input="3+3")


def _format_document_missing(mod: Any) -> Callable[[], Any]:
    document = (LCDocument if mod is lc_prompts else Document)(page_content="x")
    prompt = mod.PromptTemplate.from_template("{page_content} [{source}]")
    return lambda: mod.format_document(document, prompt)


def _history_str_with_a_tuple(mod: Any) -> Callable[[], Any]:
    history = mod.InMemoryChatMessageHistory()
    history.messages.append(("human", "hi"))
    return lambda: str(history)


def _create_documents_from_documents(mod: Any) -> Callable[[], Any]:
    splitter = mod.RecursiveCharacterTextSplitter(chunk_size=20, chunk_overlap=0)
    document = (LCDocument if mod is lc_splitters else Document)(page_content="a b c")
    return lambda: splitter.create_documents([document])


@pytest.mark.parametrize(
    ("scenario", "lc_mod", "rl_mod", "ragline_class"),
    [
        (_prompt_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_chat_prompt_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_prompt_not_a_dict, lc_prompts, rl_prompts, InvalidInputError),
        (_chat_prompt_not_a_dict, lc_prompts, rl_prompts, InvalidInputError),
        (_placeholder_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_few_shot_example_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_format_document_missing, lc_prompts, rl_prompts, MissingVariableError),
        (_history_str_with_a_tuple, lc_chat_history, rl_chat_history, InvalidInputError),
        (_create_documents_from_documents, lc_splitters, rl_splitters, InvalidInputError),
    ],
)
def test_error_prints_langchains_class_name_and_stays_raglines(
    scenario: Callable[[Any], Callable[[], Any]],
    lc_mod: Any,
    rl_mod: Any,
    ragline_class: type[RaglineError],
) -> None:
    theirs = _caught(scenario(lc_mod))
    ours = _caught(scenario(rl_mod))
    assert _printed(ours) == _printed(theirs)
    assert _builtins(theirs) <= _builtins(ours)
    assert isinstance(ours, ragline_class)
    # the traceback names ragline's class; pickling brings back the same class
    assert type(ours).__qualname__ != type(ours).__name__
    assert type(pickle.loads(pickle.dumps(ours))) is type(ours)


def test_get_buffer_string_refuses_a_non_message_with_langchains_class() -> None:
    theirs = _caught(lambda: lc_messages.get_buffer_string([("human", "hi")]))  # type: ignore[list-item]
    ours = _caught(lambda: rl_messages.get_buffer_string([("human", "hi")]))  # type: ignore[list-item]
    assert _printed(ours) == _printed(theirs) == ("ValueError", "ValueError")
    assert isinstance(ours, InvalidInputError)


# InMemoryVectorStore.dump (inmemory_vectorstore_dump_load): a cosine store is saved in
# LangChain's layout, so the program reading the file sees the ids, and LangChain loads it.


_VECTORS = {"foo": [0.1, 0.7, -0.3], "bar": [0.6, 0.2, 0.25], "baz": [-0.4, 0.5, 0.9]}


class _Fixed(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(_VECTORS[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(_VECTORS[text])


class _LCFixed(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(_VECTORS[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(_VECTORS[text])


def _dumped_store(cls: Any, embedding: Any, path: Path) -> Any:
    store = cls(embedding)
    documents = [
        (LCDocument if cls is LCInMemoryVectorStore else Document)(page_content=text, metadata=meta)
        for text, meta in [("foo", {"k": 1}), ("bar", {"k": 2, "é": "ü"}), ("baz", {})]
    ]
    store.add_documents(documents, ids=["1", "2", "3"])
    store.dump(str(path))
    return store


def test_in_memory_dump_is_langchains_layout_and_langchain_loads_it(tmp_path: Path) -> None:
    _dumped_store(LCInMemoryVectorStore, _LCFixed(), tmp_path / "theirs.json")
    _dumped_store(InMemoryVectorStore, _Fixed(), tmp_path / "ours.json")
    theirs = json.loads((tmp_path / "theirs.json").read_text(encoding="utf-8"))
    ours = json.loads((tmp_path / "ours.json").read_text(encoding="utf-8"))
    assert ours == theirs
    assert list(ours) == ["1", "2", "3"]
    # LangChain's load reads ragline's file: the same records and the same scores
    lc_loaded = LCInMemoryVectorStore.load(str(tmp_path / "ours.json"), _LCFixed())
    assert lc_loaded.store == theirs
    rl_loaded = InMemoryVectorStore.load(tmp_path / "ours.json", _Fixed())
    found = rl_loaded.similarity_search_with_score("bar", k=3)
    lc_found = lc_loaded.similarity_search_with_score("bar", k=3)
    assert [d.id for d, _ in found] == [d.id for d, _ in lc_found]
    assert [s for _, s in found] == pytest.approx([s for _, s in lc_found], abs=1e-6)
    # an empty store is {} in both
    LCInMemoryVectorStore(_LCFixed()).dump(str(tmp_path / "lc_empty.json"))
    InMemoryVectorStore(_Fixed()).dump(tmp_path / "rl_empty.json")
    assert json.loads((tmp_path / "rl_empty.json").read_text(encoding="utf-8")) == json.loads(
        (tmp_path / "lc_empty.json").read_text(encoding="utf-8")
    )


# InMemoryVectorStore over DeterministicFakeEmbedding (found while testing the dump): the
# store keeps the fake's float64 draws, as LangChain's does, so unrounded scores and
# stored vectors print LangChain's digits (they were the float32-rounded draws).


def test_in_memory_store_over_the_deterministic_fake_has_langchains_exact_numbers() -> None:
    texts = ["foo", "bar", "baz", "qux"]
    theirs = LCInMemoryVectorStore.from_texts(texts, LCDeterministicFake(size=12), ids=texts)
    ours = InMemoryVectorStore.from_texts(texts, DeterministicFakeEmbedding(size=12), ids=texts)
    assert {i: [float(x) for x in r["vector"]] for i, r in theirs.store.items()} == {
        i: r["vector"] for i, r in ours.store.items()
    }
    for query in ["foo", "quux"]:
        lc_found = theirs.similarity_search_with_score(query, k=4)
        found = ours.similarity_search_with_score(query, k=4)
        assert [(d.id, float(s)) for d, s in found] == [(d.id, float(s)) for d, s in lc_found]
    # (MMR for "foo" itself is a tie at 0 for every second pick, which float rounding breaks)
    lc_mmr = theirs.max_marginal_relevance_search("quux", k=3, fetch_k=4, lambda_mult=0.3)
    mmr = ours.max_marginal_relevance_search("quux", k=3, fetch_k=4, lambda_mult=0.3)
    assert [d.id for d in mmr] == [d.id for d in lc_mmr]

"""Parity: differences found by the third port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import Document
from ragline.embeddings import Embeddings
from ragline.retrievers import EmbeddingsFilter
from tests.parity._letters import letter_counts

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.retrievers.document_compressors import (
        EmbeddingsFilter as LCEmbeddingsFilter,
    )


class _LCLetters(LCEmbeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [letter_counts(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return letter_counts(text)


class _Letters(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [letter_counts(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return letter_counts(text)


# a corpus with duplicates (equal scores), as a retriever over a store with repeated
# passages returns them, and documents sharing no letter with the query "xyz" (score 0)
TEXTS = [
    "the economy grew",
    "a judge was nominated",
    "the economy grew",
    "cats sleep all day",
    "abc",
    "the economy grew",
]


@pytest.mark.parametrize(
    ("query", "options"),
    [
        ("economy judge", {"similarity_threshold": 0.5}),  # default k=20: best first
        ("economy judge", {"k": 3}),
        ("economy", {"k": None, "similarity_threshold": 0.3}),  # LangChain: k=None means 20
        ("xyz", {"similarity_threshold": 0.0}),  # no shared letter scores 0: not above 0
        ("abc", {"similarity_threshold": 0.999999}),
        ("economy", {"k": 20, "similarity_threshold": 0.2}),
    ],
)
def test_embeddings_filter_order_ties_and_threshold(query: str, options: Any) -> None:
    theirs = LCEmbeddingsFilter(embeddings=_LCLetters(), **options).compress_documents(
        [LCDocument(page_content=t, metadata={"i": i}) for i, t in enumerate(TEXTS)], query
    )
    ours = EmbeddingsFilter(embeddings=_Letters(), **options).compress_documents(
        [Document(page_content=t, metadata={"i": i}) for i, t in enumerate(TEXTS)], query
    )
    assert [d.metadata["i"] for d in ours] == [d.metadata["i"] for d in theirs]
    assert [d.page_content for d in ours] == [d.page_content for d in theirs]


def test_streamed_assign_passes_each_input_chunk_on() -> None:
    # RAG with sources, streamed: RunnableParallel({"context": ..., "question": ...})
    # .assign(answer=...) yields the context and the question as two chunks, as they come
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables import RunnableParallel as LCParallel
    from langchain_core.runnables import RunnablePassthrough as LCPassthrough

    from ragline.core import RunnableLambda, RunnableParallel, RunnablePassthrough

    def shapes(parallel: Any, passthrough: Any, lam: Any) -> list[Any]:
        with_sources = parallel(
            {"context": lam(lambda q: [q, q]), "question": passthrough()}
        ).assign(answer=lam(lambda x: f"{len(x['context'])} for {x['question']}"))
        plain = passthrough.assign(size=lam(lambda x: len(x)))
        twice = with_sources | passthrough.assign(again=lam(lambda x: sorted(x)))
        return [
            list(with_sources.stream("q")),
            list(plain.stream({"a": 1, "b": 2})),
            list(plain.transform(iter([{"a": 1}, {"b": 2}, {"a": 3}]))),
            list(twice.stream("q")),
        ]

    theirs = shapes(LCParallel, LCPassthrough, LCLambda)
    ours = shapes(RunnableParallel, RunnablePassthrough, RunnableLambda)
    assert ours == theirs
    assert ours[0] == [{"context": ["q", "q"]}, {"question": "q"}, {"answer": "2 for q"}]


def test_stuff_documents_chain_name_and_run_name() -> None:
    # map_reduce_lcel_summary printed stuff.get_name(): LangChain's chain is a sequence
    # bound with run_name="stuff_documents_chain", so get_name() is RunnableSequence while
    # its runs are named stuff_documents_chain
    from langchain_classic.chains.combine_documents import (
        create_stuff_documents_chain as lc_create_stuff,
    )
    from langchain_core.callbacks import BaseCallbackHandler as LCHandler
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.prompts import ChatPromptTemplate as LCPrompt

    from ragline.chains import create_stuff_documents_chain
    from ragline.core import BaseCallbackHandler, ChatPromptTemplate, FakeListChatModel

    def run(create: Any, model: Any, prompt: Any, document: Any, handler: Any) -> Any:
        names: list[Any] = []

        class Names(handler):  # type: ignore[misc, valid-type]
            def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
                names.append(kwargs.get("name"))

        chain = create(
            model(responses=["done"]),
            prompt.from_messages([("system", "Summarize:\n\n{context}")]),
        )
        out = chain.invoke(
            {"context": [document(page_content="a"), document(page_content="b")]},
            config={"callbacks": [Names()]},
        )
        return chain.get_name(), out, names[0]

    theirs = run(lc_create_stuff, LCFakeChat, LCPrompt, LCDocument, LCHandler)
    ours = run(
        create_stuff_documents_chain,
        FakeListChatModel,
        ChatPromptTemplate,
        Document,
        BaseCallbackHandler,
    )
    assert ours == theirs == ("RunnableSequence", "done", "stuff_documents_chain")


def test_model_start_handlers_get_the_run_name_only() -> None:
    # callback_token_printer printed kwargs.get("name") in on_chat_model_start: LangChain's
    # models pass the config's run_name there (None unless set), not the model's name
    from langchain_core.callbacks import BaseCallbackHandler as LCHandler
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.language_models import FakeListLLM as LCFakeLLM

    from ragline.core import BaseCallbackHandler, FakeListChatModel, FakeListLLM

    def names(handler: Any, chat: Any, llm: Any) -> list[Any]:
        seen: list[Any] = []

        class Names(handler):  # type: ignore[misc, valid-type]
            def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
                seen.append(("chat", kwargs.get("name")))

            def on_llm_start(self, serialized: Any, prompts: Any, **kwargs: Any) -> None:
                seen.append(("llm", kwargs.get("name")))

        for config in ({}, {"run_name": "mine"}):
            chat(responses=["x"]).invoke("hi", {"callbacks": [Names()], **config})
            llm(responses=["x"]).invoke("hi", {"callbacks": [Names()], **config})
            list(chat(responses=["xy"]).stream("hi", {"callbacks": [Names()], **config}))
            chat(responses=["x"]).batch(["a", "b"], {"callbacks": [Names()], **config})
        return seen

    async def anames(handler: Any, chat: Any) -> list[Any]:
        seen: list[Any] = []

        class Names(handler):  # type: ignore[misc, valid-type]
            def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
                seen.append(kwargs.get("name"))

        await chat(responses=["x"]).ainvoke("hi", {"callbacks": [Names()]})
        await chat(responses=["x"]).ainvoke("hi", {"callbacks": [Names()], "run_name": "r"})
        return seen

    import asyncio

    theirs = names(LCHandler, LCFakeChat, LCFakeLLM)
    assert names(BaseCallbackHandler, FakeListChatModel, FakeListLLM) == theirs
    assert ("chat", None) in theirs and ("llm", "mine") in theirs
    assert asyncio.run(anames(BaseCallbackHandler, FakeListChatModel)) == asyncio.run(
        anames(LCHandler, LCFakeChat)
    )

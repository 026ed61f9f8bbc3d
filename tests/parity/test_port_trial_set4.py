"""Parity: differences found by the fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage as LCSystemMessage
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import HumanMessagePromptTemplate as LCHumanMessagePromptTemplate
from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.prompts.chat import ChatMessagePromptTemplate as LCChatMessagePromptTemplate

from ragline.core.messages import SystemMessage
from ragline.core.prompts import (
    ChatMessagePromptTemplate,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
)


def _pretty_forms(lib: dict[str, Any], capsys: Any) -> list[str]:
    chat = (
        lib["ChatPromptTemplate"]
        .from_messages(
            [
                ("system", "Be {style}."),
                lib["SystemMessage"]("fixed"),
                lib["MessagesPlaceholder"]("history"),
                ("placeholder", "{optional}"),
                ("ai", "ok {x}"),
                lib["ChatMessagePromptTemplate"].from_template("r {y}", role="critic"),
                ("human", "{question}"),
            ]
        )
        .partial(style="brief")
    )
    text = lib["PromptTemplate"].from_template("Tell {a} about {b}").partial(a="me")
    human = lib["HumanMessagePromptTemplate"].from_template("hi {n}")
    forms = [chat.pretty_repr(), chat.pretty_repr(html=True), text.pretty_repr(html=True)]
    for item in (chat, text, human, lib["MessagesPlaceholder"]("h", optional=True)):
        item.pretty_print()
    forms.append(capsys.readouterr().out)
    return forms


def test_chat_prompt_pretty_print(capsys: Any) -> None:
    """chatbot_messages_loop: ``prompt.pretty_print()`` prints each part under a banner,
    variables as ``{name}`` (partials filled in), placeholders as ``{variable}``."""
    lc = {
        "ChatPromptTemplate": LCChatPromptTemplate,
        "SystemMessage": LCSystemMessage,
        "MessagesPlaceholder": LCMessagesPlaceholder,
        "ChatMessagePromptTemplate": LCChatMessagePromptTemplate,
        "PromptTemplate": LCPromptTemplate,
        "HumanMessagePromptTemplate": LCHumanMessagePromptTemplate,
    }
    ours = {
        "ChatPromptTemplate": ChatPromptTemplate,
        "SystemMessage": SystemMessage,
        "MessagesPlaceholder": MessagesPlaceholder,
        "ChatMessagePromptTemplate": ChatMessagePromptTemplate,
        "PromptTemplate": PromptTemplate,
        "HumanMessagePromptTemplate": HumanMessagePromptTemplate,
    }
    expected = _pretty_forms(lc, capsys)
    assert "Messages Placeholder" in expected[0]
    assert _pretty_forms(ours, capsys) == expected


def _fake_model_hooks(chat_class: type, llm_class: type) -> list[Any]:
    class RateLimitError(Exception):
        pass

    class Flaky(chat_class):  # type: ignore[misc,valid-type]
        def _call(self, *args: Any, **kwargs: Any) -> str:
            raise RateLimitError("rate limited")

    class FlakyLLM(llm_class):  # type: ignore[misc,valid-type]
        def _call(self, *args: Any, **kwargs: Any) -> str:
            raise RateLimitError("llm limited")

    class Upper(chat_class):  # type: ignore[misc,valid-type]
        def _call(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> str:
            return str(super()._call(messages, stop=stop, **kw)).upper()

    backup = chat_class(responses=["b1", "b2"])
    out: list[Any] = [Flaky(responses=["never"]).with_fallbacks([backup]).invoke("q").content]
    llm_backup = llm_class(responses=["lb"])
    out.append(FlakyLLM(responses=["never"]).with_fallbacks([llm_backup]).invoke("q"))
    upper = Upper(responses=["abc", "de"])
    out += [upper.invoke("x").content, "".join(c.content for c in upper.stream("x"))]
    try:
        Flaky(responses=["never"]).invoke("q")
    except RateLimitError as err:
        out.append(str(err))
    out.append([c.content for c in Flaky(responses=["ok"]).stream("q")])
    return out


def test_fake_model_answers_go_through_call() -> None:
    """fallbacks_model_chain: a ``FakeListChatModel`` / ``FakeListLLM`` subclass that
    overrides ``_call`` (to raise, say) changes ``invoke``, so ``with_fallbacks`` moves on
    to the backup; streaming does not go through ``_call``."""
    from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM

    from ragline.core.fake_models import FakeListChatModel, FakeListLLM

    expected = _fake_model_hooks(LCFakeListChatModel, LCFakeListLLM)
    assert expected == ["b1", "lb", "ABC", "de", "rate limited", ["o", "k"]]
    assert _fake_model_hooks(FakeListChatModel, FakeListLLM) == expected


def _history_names(history_class: type, lambda_class: type, store_class: type) -> list[Any]:
    store = store_class()
    wrapped = history_class(lambda_class(lambda x: "a"), lambda session_id: store)
    seen: list[str] = []

    def listen(run: Any) -> None:
        seen.append(run.name)

    listened = wrapped.with_listeners(on_start=listen)
    listened.invoke("hi", {"configurable": {"session_id": "s"}})
    return [wrapped.get_name(), seen, len(store.messages)]


def test_message_history_name_and_run_name() -> None:
    """history_aware_rag_chat: ``RunnableWithMessageHistory(...).get_name()`` is
    ``RunnableSequence`` (LangChain's is a binding of a sequence configured with
    ``run_name="RunnableWithMessageHistory"``); its runs keep that run name."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_core.chat_history import InMemoryChatMessageHistory as LCHistory
        from langchain_core.runnables import RunnableLambda as LCRunnableLambda
        from langchain_core.runnables.history import (
            RunnableWithMessageHistory as LCRunnableWithMessageHistory,
        )

        expected = _history_names(LCRunnableWithMessageHistory, LCRunnableLambda, LCHistory)
    from ragline.core.chat_history import InMemoryChatMessageHistory
    from ragline.core.runnables import RunnableLambda
    from ragline.core.runnables.history import RunnableWithMessageHistory

    assert expected == ["RunnableSequence", ["RunnableWithMessageHistory"], 2]
    assert _history_names(
        RunnableWithMessageHistory, RunnableLambda, InMemoryChatMessageHistory
    ) == (expected)


def test_as_retriever_ignores_unknown_options_with_a_warning() -> None:
    """csv_faq_retrievalqa_prompt: ``store.as_retriever(score_threshold=0.7)`` (the option
    outside ``search_kwargs``) runs as LangChain's: the option is ignored, a plain
    similarity search; ragline also warns that it is ignored."""
    import warnings

    from langchain_core.embeddings import Embeddings as LCEmbeddings

    from ragline.embeddings import Embeddings
    from tests.parity._letters import letter_counts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.vectorstores import FAISS as LCFAISS

    from ragline.vectorstores import FAISS

    class LCLetters(LCEmbeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [letter_counts(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return letter_counts(text)

    class Letters(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [letter_counts(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return letter_counts(text)

    texts = ["refund policy", "job assistance", "course access", "zzz"]

    def shape(retriever: Any) -> list[Any]:
        found = [d.page_content for d in retriever.invoke("refund")]
        return [retriever.search_type, dict(retriever.search_kwargs), found]

    lc_store = LCFAISS.from_texts(texts, LCLetters())
    expected = shape(lc_store.as_retriever(score_threshold=0.7))
    store = FAISS.from_texts(texts, Letters())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        retriever = store.as_retriever(score_threshold=0.7)
    assert [str(w.message) for w in caught] == [
        "as_retriever ignores score_threshold=0.7, as LangChain's does: search options go "
        "in search_kwargs (e.g. search_kwargs={'score_threshold': 0.7})"
    ]
    assert expected[:2] == ["similarity", {}]
    assert shape(retriever) == expected


def _summaries(load: Any, document_class: type, llm_class: type) -> list[Any]:
    class WordCountLLM(llm_class):  # type: ignore[misc,valid-type]
        def get_num_tokens(self, text: str) -> int:
            return len(text.split())

    docs = [document_class(page_content=t) for t in ("one a", "two b", "three c")]
    stuff = load(llm_class(responses=["Stuffed."]), chain_type="stuff")
    out: list[Any] = [stuff.invoke(docs), stuff.invoke({"input_documents": docs[:1]})]
    map_reduce = load(
        WordCountLLM(responses=["s1", "s2", "s3", "Final."]),
        chain_type="map_reduce",
        return_intermediate_steps=True,
    )
    out.append(map_reduce.invoke({"input_documents": docs}, return_only_outputs=True))
    refine = load(llm_class(responses=["r1", "r2", "r3"]), chain_type="refine")
    out.append(refine.invoke(docs, return_only_outputs=True))
    return [repr(item) for item in out]  # the two libraries' Documents print alike


def test_classic_document_chains_take_the_documents_alone() -> None:
    """load_summarize_chain_types: a classic document chain (``load_summarize_chain``,
    ``load_qa_chain``) is a LangChain ``Chain``: ``chain.invoke(docs)`` puts the list under
    its one input key, and ``invoke(..., return_only_outputs=True)`` leaves the inputs out."""
    import asyncio
    import warnings

    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM

    from ragline.chains import load_summarize_chain
    from ragline.core import Document
    from ragline.core.fake_models import FakeListLLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.chains.summarize import load_summarize_chain as lc_load

        expected = _summaries(lc_load, LCDocument, LCFakeListLLM)
    assert expected[2] == "{'intermediate_steps': ['s1', 's2', 's3'], 'output_text': 'Final.'}"
    assert _summaries(load_summarize_chain, Document, FakeListLLM) == expected
    chain = load_summarize_chain(FakeListLLM(responses=["async"]))
    result = asyncio.run(chain.ainvoke([Document("x")], return_only_outputs=True))
    assert result == {"output_text": "async"}


def _run_tree(run: Any) -> tuple[str, list[Any]]:
    children = run.child_runs if hasattr(run, "child_runs") else run.children
    return (run.name, [_run_tree(child) for child in children])


def _classic_stuff(lib: dict[str, Any], capsys: Any) -> list[Any]:
    docs = [lib["Document"](page_content="Etna is in Sicily.")]
    prompt = lib["PromptTemplate"].from_template("Context: {context}\nQ: {question}")
    model = lib["FakeListChatModel"](responses=["Sicily."])
    chain = lib["load_qa_chain"](model, chain_type="stuff", verbose=True, prompt=prompt)
    out: list[Any] = [chain.invoke({"input_documents": docs, "question": "Where?"})["output_text"]]
    out.append(capsys.readouterr().out)  # the StuffDocumentsChain's and its LLMChain's runs
    out += [chain.get_name(), type(chain.llm_chain).__name__, chain.llm_chain.prompt.template]
    own, caller = lib["RunCollectorCallbackHandler"](), lib["RunCollectorCallbackHandler"]()
    chain = lib["load_qa_chain"](lib["FakeListChatModel"](responses=["x"]), callbacks=[own])
    chain.invoke({"input_documents": docs, "question": "q"}, {"callbacks": [caller]})
    out += [[_run_tree(run) for run in own.traced_runs], _run_tree(caller.traced_runs[0])]
    summary = lib["load_summarize_chain"](lib["FakeListLLM"](responses=["s"]))
    out += [summary.get_name(), summary.llm_chain.prompt.input_variables]
    return out


def test_classic_stuff_chain_holds_an_llm_chain(capsys: Any) -> None:
    """csv_faq_retrievalqa_prompt, load_summarize_chain_types: the stuff chain of
    ``load_qa_chain`` / ``load_summarize_chain`` / ``RetrievalQA.from_chain_type`` is
    LangChain's classic one, a ``StuffDocumentsChain`` holding an ``LLMChain``
    (``chain.llm_chain.prompt``), run as StuffDocumentsChain > LLMChain > model, with
    ``verbose`` and the constructor's callbacks on both chains."""
    import warnings

    from langchain_core.documents import Document as LCDocument
    from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
    from langchain_core.language_models import FakeListLLM as LCFakeListLLM
    from langchain_core.tracers.run_collector import (
        RunCollectorCallbackHandler as LCRunCollectorCallbackHandler,
    )

    from ragline.chains import load_qa_chain, load_summarize_chain
    from ragline.core import Document
    from ragline.core.callbacks import RunCollectorCallbackHandler
    from ragline.core.fake_models import FakeListChatModel, FakeListLLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa
        from langchain_classic.chains.summarize import load_summarize_chain as lc_summarize

        expected = _classic_stuff(
            {
                "Document": LCDocument,
                "PromptTemplate": LCPromptTemplate,
                "FakeListChatModel": LCFakeListChatModel,
                "FakeListLLM": LCFakeListLLM,
                "load_qa_chain": lc_load_qa,
                "load_summarize_chain": lc_summarize,
                "RunCollectorCallbackHandler": LCRunCollectorCallbackHandler,
            },
            capsys,
        )
    assert expected[5] == [("StuffDocumentsChain", [("LLMChain", [])])]
    ours = {
        "Document": Document,
        "PromptTemplate": PromptTemplate,
        "FakeListChatModel": FakeListChatModel,
        "FakeListLLM": FakeListLLM,
        "load_qa_chain": load_qa_chain,
        "load_summarize_chain": load_summarize_chain,
        "RunCollectorCallbackHandler": RunCollectorCallbackHandler,
    }
    assert _classic_stuff(ours, capsys) == expected

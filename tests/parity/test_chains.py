"""Parity: chains, against LangChain's (langchain_classic.chains).

The same retriever (a fixed list, written once per library) and the same scripted model
answer the same question through LangChain's chain and ragline's chain of the same
name; outputs and the exact prompt the model receives are compared.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from langchain_classic.chains import RetrievalQA as LCRetrievalQA
from langchain_classic.chains import (
    create_structured_output_runnable as lc_create_structured_output_runnable,
)
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.language_models import (
    FakeMessagesListChatModel as LCFakeMessagesListChatModel,
)
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from pydantic import BaseModel, Field

from ragline.chains import RetrievalQA, create_structured_output_runnable
from ragline.core import (
    AIMessage,
    BaseCallbackHandler,
    BaseRetriever,
    ChatPromptTemplate,
    Document,
    FakeListLLM,
    FakeMessagesListChatModel,
    PromptTemplate,
)

COVERS = {
    "chains.RetrievalQA",
    "chains.create_structured_output_runnable",
    "chains.LLMChain",
    "chains.SequentialChain",
    "chains.SimpleSequentialChain",
    "chains.TransformChain",
    "chains.StuffDocumentsChain",
    "chains.create_stuff_documents_chain",
    "chains.create_retrieval_chain",
    "chains.load_qa_chain",
    "chains.RefineDocumentsChain",
    "chains.MapRerankDocumentsChain",
    "chains.BaseCombineDocumentsChain",
    "chains.ConversationChain",
    "chains.create_history_aware_retriever",
}

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


class Dog(BaseModel):
    """A dog."""

    name: str = Field(description="its name")
    color: str


DOG_SCHEMA = {
    "title": "dog",
    "description": "A dog.",
    "type": "object",
    "properties": {"name": {"type": "string"}, "color": {"type": "string"}},
    "required": ["name"],
}
ARGS = {"name": "Harry", "color": "brown"}


def function_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "content": "",
        "additional_kwargs": {"function_call": {"name": name, "arguments": json.dumps(arguments)}},
    }


def tool_call(name: str) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"name": name, "args": ARGS, "id": "1"}]}


STRUCTURED_CASES = {
    "functions, dict": (DOG_SCHEMA, {}, function_call("output_formatter", ARGS)),
    "functions, model": (Dog, {}, function_call("_OutputFormatter", {"output": ARGS})),
    "tools, dict": (DOG_SCHEMA, {"mode": "openai-tools"}, tool_call("dog")),
    "tools, model": (Dog, {"mode": "openai-tools"}, tool_call("Dog")),
    "tools, all calls": (
        DOG_SCHEMA,
        {"mode": "openai-tools", "return_single": False},
        tool_call("dog"),
    ),
    "tools, no call": (DOG_SCHEMA, {"mode": "openai-tools"}, {"content": "no"}),
    "tools, not enforced": (
        Dog,
        {"mode": "openai-tools", "enforce_function_usage": False},
        tool_call("Dog"),
    ),
    "json, dict": (
        DOG_SCHEMA,
        {"mode": "openai-json", "enforce_function_usage": False},
        {"content": json.dumps(ARGS)},
    ),
    "json, model": (
        Dog,
        {"mode": "openai-json", "enforce_function_usage": False},
        {"content": json.dumps(ARGS)},
    ),
}


def structured(library: str, schema: Any, options: dict[str, Any], reply: dict[str, Any]) -> Any:
    if library == "langchain":
        model = LCFakeMessagesListChatModel(responses=[LCAIMessage(**reply)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain deprecates the helper
            runnable = lc_create_structured_output_runnable(schema, model, **options)
    else:
        model = FakeMessagesListChatModel(responses=[AIMessage(**reply)])
        runnable = create_structured_output_runnable(schema, model, **options)
    output = runnable.invoke("Harry is a brown dog")
    bound = json.loads(json.dumps(runnable.first.kwargs))
    for function in bound.get("functions", []):
        function.pop("description")  # the formatter's description is each library's own words
    return output, bound


@pytest.mark.parametrize("case", sorted(STRUCTURED_CASES))
def test_create_structured_output_runnable_binds_and_parses_as_langchain(case):
    schema, options, reply = STRUCTURED_CASES[case]
    assert structured("ragline", schema, options, reply) == structured(
        "langchain", schema, options, reply
    )


def test_create_structured_output_runnable_fills_the_json_mode_prompt_with_the_schema():
    def first_message(prompt_class: Any, create: Any, model: Any) -> str:
        prompt = prompt_class.from_messages(
            [("system", "Schema:\n{output_schema}"), ("human", "{input}")]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            runnable = create(Dog, model, prompt, mode="openai-json", enforce_function_usage=False)
        return runnable.first.invoke({"input": "x"}).to_messages()[0].content

    reply = json.dumps(ARGS)
    theirs = first_message(
        LCChatPromptTemplate,
        lc_create_structured_output_runnable,
        LCFakeMessagesListChatModel(responses=[LCAIMessage(reply)]),
    )
    ours = first_message(
        ChatPromptTemplate,
        create_structured_output_runnable,
        FakeMessagesListChatModel(responses=[AIMessage(reply)]),
    )
    assert ours == theirs
    assert json.loads(ours.removeprefix("Schema:\n"))["required"] == ["name", "color"]


def test_create_structured_output_runnable_json_mode_refuses_enforced_function_usage():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError):
            lc_create_structured_output_runnable(
                Dog, LCFakeMessagesListChatModel(responses=[LCAIMessage("x")]), mode="openai-json"
            )
    with pytest.raises(ValueError, match="enforce_function_usage=False"):
        create_structured_output_runnable(
            Dog, FakeMessagesListChatModel(responses=[AIMessage("x")]), mode="openai-json"
        )


# ---- the legacy chains and the LCEL constructors: same inputs, same outputs ----------------
def chain_classes(library: str) -> dict[str, Any]:
    if library == "langchain":
        from langchain_classic import chains as lc
        from langchain_classic.chains.combine_documents import (
            create_stuff_documents_chain as lc_create_stuff,
        )
        from langchain_classic.chains.question_answering import load_qa_chain as lc_load_qa
        from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
        from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
        from langchain_core.runnables import RunnableLambda as LCRunnableLambda

        return {
            **{name: getattr(lc, name) for name in LEGACY},
            "create_stuff_documents_chain": lc_create_stuff,
            "load_qa_chain": lc_load_qa,
            "create_retrieval_chain": lc.create_retrieval_chain,
            "create_history_aware_retriever": lc.create_history_aware_retriever,
            "FakeListLLM": LCFakeListLLM,
            "FakeListChatModel": LCFakeListChatModel,
            "PromptTemplate": LCPromptTemplate,
            "ChatPromptTemplate": LCChatPromptTemplate,
            "MessagesPlaceholder": LCMessagesPlaceholder,
            "Document": LCDocument,
            "RunnableLambda": LCRunnableLambda,
        }
    from ragline import chains
    from ragline.core import FakeListChatModel, MessagesPlaceholder, RunnableLambda

    return {
        **{name: getattr(chains, name) for name in LEGACY},
        "create_stuff_documents_chain": chains.create_stuff_documents_chain,
        "load_qa_chain": chains.load_qa_chain,
        "create_retrieval_chain": chains.create_retrieval_chain,
        "create_history_aware_retriever": chains.create_history_aware_retriever,
        "FakeListLLM": FakeListLLM,
        "FakeListChatModel": FakeListChatModel,
        "PromptTemplate": PromptTemplate,
        "ChatPromptTemplate": ChatPromptTemplate,
        "MessagesPlaceholder": MessagesPlaceholder,
        "Document": Document,
        "RunnableLambda": RunnableLambda,
    }


LEGACY = [
    "LLMChain",
    "SequentialChain",
    "SimpleSequentialChain",
    "TransformChain",
    "StuffDocumentsChain",
]


def seen(value: Any) -> Any:
    """A value as a program sees it, with documents as (text, metadata)."""
    if hasattr(value, "page_content"):
        return ("Document", value.page_content, dict(value.metadata))
    if isinstance(value, dict):
        return {key: seen(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [seen(item) for item in value]
    return value


def llm_chain(ns: dict[str, Any]) -> Any:
    llm = ns["FakeListLLM"](responses=["Paris", "Rome"])
    chain = ns["LLMChain"](
        llm=llm, prompt=ns["PromptTemplate"].from_template("Capital of {country}?")
    )
    return [
        chain.invoke({"country": "France"}),
        chain.predict(country="Italy"),
    ]


def llm_chain_apply(ns: dict[str, Any]) -> Any:
    llm = ns["FakeListLLM"](responses=["Paris", "Rome"])
    chain = ns["LLMChain"](
        llm=llm, prompt=ns["PromptTemplate"].from_template("Capital of {country}?")
    )
    return chain.apply([{"country": "France"}, {"country": "Italy"}])


def sequential(ns: dict[str, Any]) -> Any:
    first = ns["LLMChain"](
        llm=ns["FakeListLLM"](responses=["Paris"]),
        prompt=ns["PromptTemplate"].from_template("Capital of {country}?"),
        output_key="city",
    )
    second = ns["LLMChain"](
        llm=ns["FakeListLLM"](responses=["2M"]),
        prompt=ns["PromptTemplate"].from_template("Population of {city}?"),
        output_key="population",
    )
    both = ns["SequentialChain"](
        chains=[first, second], input_variables=["country"], output_variables=["city", "population"]
    )
    return both.invoke({"country": "France"})


def simple_sequential(ns: dict[str, Any]) -> Any:
    steps = [
        ns["LLMChain"](
            llm=ns["FakeListLLM"](responses=[reply]),
            prompt=ns["PromptTemplate"].from_template(text),
        )
        for reply, text in (("Paris", "Capital of {country}?"), ("2M", "Population of {city}?"))
    ]
    return ns["SimpleSequentialChain"](chains=steps).invoke("France")


def transform(ns: dict[str, Any]) -> Any:
    upper = ns["TransformChain"](
        input_variables=["text"],
        output_variables=["upper"],
        transform=lambda d: {"upper": d["text"].upper()},
    )
    return [upper.invoke({"text": "hi"}), upper.run("ho")]


def documents(ns: dict[str, Any]) -> list[Any]:
    return [
        ns["Document"](page_content="Etna is in Sicily.", metadata={"n": 1}),
        ns["Document"](page_content="It erupts."),
    ]


def stuff_lcel(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_messages(
        [("system", "Context: {context}"), ("human", "{input}")]
    )
    chain = ns["create_stuff_documents_chain"](
        ns["FakeListChatModel"](responses=["Sicily"]), prompt
    )
    return chain.invoke({"context": documents(ns), "input": "Where?"})


def retrieval(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_messages(
        [("system", "Context: {context}"), ("human", "{input}")]
    )
    combine = ns["create_stuff_documents_chain"](
        ns["FakeListChatModel"](responses=["Sicily"]), prompt
    )
    docs = documents(ns)
    chain = ns["create_retrieval_chain"](ns["RunnableLambda"](lambda query: docs), combine)
    return chain.invoke({"input": "Where?"})


def load_qa(ns: dict[str, Any]) -> Any:
    chain = ns["load_qa_chain"](ns["FakeListLLM"](responses=["Sicily"]), chain_type="stuff")
    return chain.invoke({"input_documents": documents(ns), "question": "Where?"})


def load_qa_refine(ns: dict[str, Any]) -> Any:
    llm = ns["FakeListLLM"](responses=["draft", "Sicily"])
    chain = ns["load_qa_chain"](llm, chain_type="refine", return_intermediate_steps=True)
    return chain.invoke({"input_documents": documents(ns), "question": "Where?"})


def load_qa_map_rerank(ns: dict[str, Any]) -> Any:
    llm = ns["FakeListLLM"](responses=["Sicily\nScore: 90", "Italy\nScore: 40"])
    chain = ns["load_qa_chain"](llm, chain_type="map_rerank", return_intermediate_steps=True)
    return chain.invoke({"input_documents": documents(ns), "question": "Where?"})


def conversation(ns: dict[str, Any]) -> Any:
    if ns["Document"] is LCDocument:
        from langchain_classic.chains import ConversationChain
        from langchain_classic.memory import ConversationBufferMemory
    else:
        from ragline.chains import ConversationChain
        from ragline.memory import ConversationBufferMemory
    llm = ns["FakeListLLM"](responses=["Hi Bob", "You are Bob"])
    chat = ConversationChain(llm=llm, memory=ConversationBufferMemory())
    first = chat.invoke({"input": "I am Bob"})
    return [first, chat.invoke({"input": "Who am I?"}), chat.memory.buffer]


def stuff_legacy(ns: dict[str, Any]) -> Any:
    inner = ns["LLMChain"](
        llm=ns["FakeListLLM"](responses=["Sicily"]),
        prompt=ns["PromptTemplate"].from_template("{context}\nQ: {question}"),
    )
    chain = ns["StuffDocumentsChain"](llm_chain=inner, document_variable_name="context")
    return [
        chain.invoke({"input_documents": documents(ns), "question": "Where?"}),
        inner.prompt.format(context="c", question="q"),
    ]


def history_aware(ns: dict[str, Any]) -> Any:
    prompt = ns["ChatPromptTemplate"].from_messages(
        [
            ns["MessagesPlaceholder"]("chat_history"),
            ("human", "{input}"),
            ("human", "As a search query?"),
        ]
    )
    model = ns["FakeListChatModel"](responses=["etna location"])
    search = ns["RunnableLambda"](lambda query: [ns["Document"](page_content=f"found: {query}")])
    retriever = ns["create_history_aware_retriever"](model, search, prompt)
    history = [("human", "Etna?"), ("ai", "A volcano.")]
    return [
        retriever.invoke({"input": "where is it", "chat_history": []}),
        retriever.invoke({"input": "where is it", "chat_history": history}),
    ]


# (map-reduce is left out: LangChain's counts tokens with a GPT-2 tokenizer it downloads)
SCENARIOS = [llm_chain, llm_chain_apply, sequential, simple_sequential, transform, stuff_lcel,
             retrieval, load_qa, load_qa_refine, load_qa_map_rerank, stuff_legacy,
             history_aware, conversation]  # fmt: skip


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_chains_give_langchains_outputs(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's deprecations of its legacy chains
        theirs = seen(scenario(chain_classes("langchain")))
    ours = seen(scenario(chain_classes("ragline")))
    assert ours == theirs
    assert repr(ours) == repr(theirs)  # dict keys in LangChain's order too (printed forms)

"""Parity: differences found by the fourteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from typing import Any

import langchain_core.language_models as lc_models
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
from typing_extensions import TypedDict

import ragline.core as rl

COVERS = {"retrievers.TFIDFRetriever"}


def _model_with_float_fields(mod: Any, prompts: Any, runnables: Any) -> list[Any]:
    class FakeOllama(mod.FakeListLLM):
        model: str = "llama3.1"
        temperature: float = 0.0
        top_p: float | None = None
        num_ctx: int = 2048

        def _call(
            self, prompt: str, stop: Any = None, run_manager: Any = None, **kwargs: Any
        ) -> str:
            text = super()._call(prompt, stop=stop, run_manager=run_manager, **kwargs)
            return f"[{self.model} t={self.temperature} p={self.top_p}] {text}"

    llm = FakeOllama(temperature=0, top_p=1, num_ctx=4096, responses=["joke"])
    configurable = llm.configurable_fields(
        temperature=runnables.ConfigurableField(id="temperature", name="T", description="d")
    )
    chain = prompts.ChatPromptTemplate.from_messages([("user", "{input}")]) | configurable
    return [
        llm.temperature,
        type(llm.temperature).__name__,
        llm.top_p,
        llm.num_ctx,
        chain.invoke({"input": "x"}),
        chain.with_config(configurable={"temperature": 1}).invoke({"input": "x"}),
        [(spec.id, spec.default) for spec in chain.config_specs],
    ]


def test_an_int_given_for_a_float_field_reads_back_as_a_float() -> None:
    # xlusean_configurable_fields_model_temperature: FakeOllama(temperature=0) printed
    # 't=0.0' under LangChain (pydantic makes the int a float), 't=0' under ragline
    assert _model_with_float_fields(rl, rl, rl) == _model_with_float_fields(
        lc_models, lc_prompts, lc_runnables
    )


class _Args(TypedDict):
    a: int
    b: list[int]


def _times_max(x: _Args) -> str:
    return str(x["a"] * max(x["b"]))


def _untyped(x: dict) -> str:  # type: ignore[type-arg]
    return str(x["a"] * max(x["b"]))


def _add_a(x: str) -> str:
    return x + "a"


def _add_z(x: str) -> str:
    return x + "z"


def _as_tools(runnables: Any) -> list[Any]:
    typed = runnables.RunnableLambda(_times_max).as_tool(
        name="My tool", description="Explanation of when to use tool."
    )
    by_types = runnables.RunnableLambda(_untyped).as_tool(arg_types={"a": int, "b": list[int]})
    text = (runnables.RunnableLambda(_add_a) | runnables.RunnableLambda(_add_z)).as_tool()
    return [
        typed.name,
        typed.description,
        typed.args_schema.model_json_schema(),
        typed.args,
        typed.invoke({"a": 3, "b": [1, 2]}),
        by_types.name,
        by_types.args_schema.model_json_schema(),
        by_types.args,
        by_types.invoke({"a": 2, "b": [5, 1]}),
        text.name,
        text.args,
        text.invoke("b"),
    ]


def test_runnable_as_tool_schema_and_args_as_langchains() -> None:
    # wpbarco_runnable_as_tool_typed_dict: as_tool(...).args_schema.model_json_schema()
    # raised AttributeError ('dict' has no model_json_schema); a one-string tool's args
    # carried a title LangChain's Tool does not show
    assert _as_tools(rl) == _as_tools(lc_runnables)


def _knn_fields(retrievers: Any, documents: Any, embeddings: Any) -> list[Any]:
    docs = [
        documents.Document(page_content="foo", metadata={"n": 1}),
        documents.Document(page_content="bar", metadata={"n": 2}),
    ]
    knn = retrievers.KNNRetriever.from_documents(
        docs, embeddings=embeddings.DeterministicFakeEmbedding(size=16), k=1
    )
    by_texts = retrievers.KNNRetriever.from_texts(
        ("a", "b"), embeddings=embeddings.DeterministicFakeEmbedding(size=16)
    )
    return [knn.texts, knn.metadatas, repr(knn.metadatas), by_texts.texts, by_texts.metadatas]


def test_knn_retriever_keeps_texts_and_metadatas_as_lists() -> None:
    # langchain_knn_retriever_from_texts: print(r.metadatas) after from_documents printed
    # a tuple under ragline, a list under LangChain (pydantic makes it one)
    import langchain_community.retrievers as lc_retrievers
    import langchain_core.documents as lc_documents
    import langchain_core.embeddings as lc_embeddings

    import ragline.embeddings as rl_embeddings
    import ragline.retrievers as rl_retrievers

    assert _knn_fields(rl_retrievers, rl, rl_embeddings) == _knn_fields(
        lc_retrievers, lc_documents, lc_embeddings
    )


def _llm_chain_over_langchains_prompt(chains: Any, models: Any) -> list[Any]:
    from langchain_classic.memory.prompt import ENTITY_MEMORY_CONVERSATION_TEMPLATE

    partial = lc_prompts.PromptTemplate.from_template("{greeting}, {name}! {question}").partial(
        greeting="Hello"
    )
    llm = models.FakeListLLM(responses=["one", "two"])
    entity = chains.LLMChain(llm=llm, prompt=ENTITY_MEMORY_CONVERSATION_TEMPLATE)
    greeting = chains.LLMChain(llm=llm, prompt=partial)
    return [
        entity.input_keys,
        entity.prompt.format(entities="Ada: a mathematician", history="", input="hi"),
        entity.invoke({"entities": "", "history": "", "input": "hi"}),
        greeting.input_keys,
        greeting.prompt.format(name="Ada", question="How are you?"),
        greeting.invoke({"name": "Ada", "question": "How are you?"}),
    ]


def test_llm_chain_takes_a_langchain_default_prompt_the_port_leaves() -> None:
    # tirth_entity_memory_conversation: ENTITY_MEMORY_CONVERSATION_TEMPLATE stays
    # LangChain's after `ragline port` (ragline's has its own wording); ragline's
    # ConversationChain refused that PromptTemplate ('must be a prompt template, got
    # PromptTemplate')
    import langchain_classic.chains as lc_chains

    import ragline.chains as rl_chains

    assert _llm_chain_over_langchains_prompt(rl_chains, rl) == _llm_chain_over_langchains_prompt(
        lc_chains, lc_models
    )


def _tfidf_results(retrievers: Any, documents: Any) -> list[Any]:
    texts = [
        "wombat: waste of money, brains and time",
        "foo: a sample name for anything",
        "bar: the second sample name, after foo",
        "kludge: a clever trick",
        "hack: a quick job",
        "cruft: superfluous junk",
        "foo bar baz",
    ]
    by_texts = retrievers.TFIDFRetriever.from_texts(
        texts, metadatas=[{"i": i} for i in range(len(texts))]
    )
    docs = [documents.Document(page_content=t, metadata={"n": len(t)}) for t in texts]
    by_docs = retrievers.TFIDFRetriever.from_documents(
        docs, tfidf_params={"ngram_range": (1, 2)}, k=2
    )
    everything = retrievers.TFIDFRetriever.from_texts(texts, k=0)
    return [
        [(d.page_content, d.metadata) for d in by_texts.invoke("What does 'wombat' mean?")],
        [(d.page_content, d.metadata) for d in by_texts.invoke("foo")],
        [d.page_content for d in by_texts.invoke("no word in common")],  # all tie at 0
        [(d.page_content, d.metadata) for d in by_docs.invoke("sample name")],
        [d.page_content for d in everything.invoke("junk")],
        by_texts.k,
        by_texts.tfidf_array.shape,
    ]


def test_tfidf_retriever_ranks_as_langchains() -> None:
    # orbiter_tfidf_jargon_context: TFIDFRetriever.from_documents(texts).invoke(question);
    # ragline lacked the retriever, so `ragline port` left LangChain's
    import langchain_community.retrievers as lc_retrievers
    import langchain_core.documents as lc_documents

    import ragline.retrievers as rl_retrievers

    assert _tfidf_results(rl_retrievers, rl) == _tfidf_results(lc_retrievers, lc_documents)

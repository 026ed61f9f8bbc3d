"""MultiQueryRetriever: the prompt the model gets, line parsing, one batch, unique union, runs."""

from __future__ import annotations

import pytest

from ragline.core import (
    AIMessage,
    BaseChatModel,
    BaseRetriever,
    Document,
    FakeListChatModel,
    FakeListLLM,
    InvalidInputError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import LineListOutputParser, MultiQueryRetriever
from ragline.retrievers._multi_query import DEFAULT_QUERY_PROMPT, unique_documents
from ragline.vectorstores import InMemoryVectorStore

TEXTS = [
    "the cat purrs on the mat",
    "a kitten is purring",
    "dog barks at the cat",
    "stock prices fell sharply",
    "cats and kittens nap",
    "bond yields rose",
]
IDS = ["t1", "t2", "t3", "t4", "t5", "t6"]


@pytest.fixture
def vector_retriever():
    store = InMemoryVectorStore.from_texts(TEXTS, HashingEmbeddings(dimension=256), ids=IDS)
    return store.as_retriever(search_kwargs={"k": 2})


def ids(documents):
    return [d.id for d in documents]


class Recording(BaseRetriever):
    """Records each batch it is asked for; answers with one document per query."""

    def __init__(self):
        self.batches = []

    def _get_relevant_documents(self, query):
        return [Document(query)]

    def _batch_get_relevant_documents(self, queries):
        self.batches.append(list(queries))
        return [[Document(q.split()[0])] for q in queries]


def test_the_model_gets_the_question_and_each_line_is_searched(vector_retriever):
    # alone, the vector retriever finds: "kitten purring" -> t2, t5; "stock market" -> t4, t6
    assert ids(vector_retriever.invoke("kitten purring")) == ["t2", "t5"]
    assert ids(vector_retriever.invoke("stock market")) == ["t4", "t6"]
    model = FakeListChatModel(responses=["kitten purring\n\n  stock market \nkitten purring\n"])
    retriever = MultiQueryRetriever.from_llm(vector_retriever, model)
    assert ids(retriever.invoke("cat nap")) == ["t2", "t5", "t4", "t6"]
    (messages,) = model.calls
    assert [m.type for m in messages] == ["human"]
    assert messages[0].content == DEFAULT_QUERY_PROMPT.format(question="cat nap")
    assert messages[0].content.endswith("one per line, without numbering.\nQuestion: cat nap")


def test_include_original_searches_the_question_last(vector_retriever):
    model = FakeListChatModel(responses=["stock market"])
    retriever = MultiQueryRetriever.from_llm(vector_retriever, model, include_original=True)
    # the model's queries; the question joins them when searching (LangChain's methods)
    assert retriever.generate_queries("cat nap") == ["stock market"]
    # "cat nap" alone finds t5, t3
    assert ids(retriever.invoke("cat nap")) == ["t4", "t6", "t5", "t3"]


def test_all_queries_go_to_the_retriever_in_one_batch():
    base = Recording()
    retriever = MultiQueryRetriever.from_llm(
        base, FakeListLLM(responses=["alpha one\nbeta two\nalpha three"]), include_original=True
    )
    assert retriever.invoke("gamma") == [Document("alpha"), Document("beta"), Document("gamma")]
    assert base.batches == [["alpha one", "beta two", "alpha three", "gamma"]]


def test_a_custom_prompt_and_the_run_tree(vector_retriever):
    prompt = PromptTemplate.from_template("Rephrase twice: {question}")
    model = FakeListChatModel(responses=["kitten purring\nstock market"])
    collector = RunCollectorCallbackHandler()
    retriever = MultiQueryRetriever.from_llm(vector_retriever, model, prompt=prompt)
    retriever.invoke("cats?", {"callbacks": [collector]})
    assert model.calls[0][0].content == "Rephrase twice: cats?"
    (run,) = collector.traced_runs
    assert run.tree() == (
        "MultiQueryRetriever",
        [
            (
                "RunnableSequence",
                [("PromptTemplate", []), ("FakeListChatModel", []), ("LineListOutputParser", [])],
            ),
            ("VectorStoreRetriever", []),
            ("VectorStoreRetriever", []),
        ],
    )
    assert run.run_type == "retriever"
    assert [child.inputs for child in run.children[1:]] == [
        {"query": "kitten purring"},
        {"query": "stock market"},
    ]
    assert ids(run.outputs["documents"]) == ["t2", "t5", "t4", "t6"]


def test_an_empty_answer_searches_nothing_unless_the_original_is_included():
    base = Recording()
    assert MultiQueryRetriever.from_llm(base, FakeListLLM(responses=["\n  \n"])).invoke("q") == []
    assert base.batches == []
    both = MultiQueryRetriever.from_llm(base, FakeListLLM(responses=["\n"]), include_original=True)
    assert both.invoke("solo") == [Document("solo")]


def test_unique_queries_strips_and_searches_each_query_once():
    answer = "kitten \n\n  \nkitten\n stock market"
    base = Recording()
    every = MultiQueryRetriever.from_llm(
        base, FakeListLLM(responses=[answer]), include_original=True
    )
    assert every.generate_queries("kitten") == ["kitten ", "  ", "kitten", " stock market"]
    once = MultiQueryRetriever.from_llm(
        base, FakeListLLM(responses=[answer]), include_original=True, unique_queries=True
    )
    assert once.generate_queries("kitten") == ["kitten", "stock market"]
    assert repr(once) == (
        "MultiQueryRetriever(retriever=Recording, include_original=True, unique_queries=True)"
    )
    with pytest.raises(InvalidInputError, match="unique_queries must be a bool"):
        MultiQueryRetriever(base, RunnableLambda(lambda x: []), unique_queries="yes")


def test_a_hand_built_llm_chain_may_return_a_list_or_text():
    base = Recording()
    as_list = MultiQueryRetriever(base, RunnableLambda(lambda x: [x["question"] + " a", "b c"]))
    assert as_list.invoke("q") == [Document("q"), Document("b")]
    as_text = MultiQueryRetriever(base, RunnableLambda(lambda x: "x y\nz"))
    assert as_text.invoke("q") == [Document("x"), Document("z")]
    broken = MultiQueryRetriever(base, RunnableLambda(lambda x: 42))
    with pytest.raises(InvalidInputError, match="llm_chain must return a list of str, got 42"):
        broken.invoke("q")


async def test_async_matches_sync(vector_retriever):
    sync = MultiQueryRetriever.from_llm(
        vector_retriever, FakeListChatModel(responses=["kitten purring\nbonds"])
    )
    asynchronous = MultiQueryRetriever.from_llm(
        vector_retriever, FakeListChatModel(responses=["kitten purring\nbonds"])
    )
    assert await asynchronous.ainvoke("q") == sync.invoke("q")
    assert ids(await asynchronous.ainvoke("q")) == ["t2", "t5", "t6", "t4"]


def test_line_parser_and_unique_documents():
    # LangChain's rule: the text stripped, split at "\n", empty lines dropped
    assert LineListOutputParser().invoke(" a \r\n\n  \nb\n") == ["a \r", "  ", "b"]
    same = [
        Document("x", {"n": 1}),
        Document("x", {"n": 2}),
        Document("x", {"n": 1}),
        Document("x", id="i"),
    ]
    assert unique_documents(same) == [same[0], same[1], same[3]]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda r: MultiQueryRetriever.from_llm(
                r, FakeListLLM(responses=["a"]), prompt=PromptTemplate.from_template("{query}")
            ),
            r"prompt must have the one variable 'question', got \['query'\]",
        ),
        (
            lambda r: MultiQueryRetriever.from_llm(
                r, FakeListLLM(responses=["a"]), prompt="{question}"
            ),
            "prompt must be a prompt template, got str",
        ),
        (lambda r: MultiQueryRetriever.from_llm(r, "gpt"), "llm must be a Runnable, got str"),
        (
            lambda r: MultiQueryRetriever.from_llm([r], FakeListLLM(responses=["a"])),
            "retriever must be a Runnable, got list",
        ),
    ],
)
def test_bad_arguments_are_rejected(build, message):
    with pytest.raises(InvalidInputError, match=message):
        build(Recording())


class Rephraser(BaseChatModel):
    """Writes two queries per question, deterministic whatever the thread order."""

    def _generate(self, messages, stop=None):
        question = messages[-1].text.rsplit("Question: ", 1)[1]
        return AIMessage("" if question == "silent" else f"{question} one\n{question} two")


def test_batch_asks_the_model_per_question_then_searches_all_queries_in_one_batch():
    base = Recording()
    retriever = MultiQueryRetriever.from_llm(base, Rephraser(), include_original=True)
    collector = RunCollectorCallbackHandler()
    results = retriever.batch(["alpha", "beta", "silent"], {"callbacks": [collector]})
    assert results == [[Document("alpha")], [Document("beta")], [Document("silent")]]
    assert base.batches == [
        ["alpha one", "alpha two", "alpha", "beta one", "beta two", "beta", "silent"]
    ]
    runs = collector.traced_runs
    assert [(run.name, run.inputs) for run in runs] == [
        ("MultiQueryRetriever", {"query": "alpha"}),
        ("MultiQueryRetriever", {"query": "beta"}),
        ("MultiQueryRetriever", {"query": "silent"}),
    ]
    writer = (
        "RunnableSequence",
        [("PromptTemplate", []), ("Rephraser", []), ("LineListOutputParser", [])],
    )
    assert runs[0].tree() == (
        "MultiQueryRetriever",
        [writer, ("Recording", []), ("Recording", []), ("Recording", [])],
    )
    assert [child.inputs["query"] for child in runs[1].children[1:]] == [
        "beta one",
        "beta two",
        "beta",
    ]
    assert runs[2].tree() == ("MultiQueryRetriever", [writer, ("Recording", [])])


async def test_abatch_matches_batch_and_a_bad_answer_fails_only_its_question(vector_retriever):
    retriever = MultiQueryRetriever.from_llm(vector_retriever, Rephraser())
    questions = ["kitten purring", "stock market"]
    assert (
        await retriever.abatch(questions)
        == retriever.batch(questions)
        == [retriever.invoke(q) for q in questions]
    )
    picky = MultiQueryRetriever(
        Recording(), RunnableLambda(lambda x: 7 if x["question"] == "bad" else ["ok"])
    )
    results = picky.batch(["good", "bad"], return_exceptions=True)
    assert results[0] == [Document("ok")]
    assert isinstance(results[1], InvalidInputError)
    assert "must return a list of str, got 7" in str(results[1])
    async_results = await picky.abatch(["good", "bad"], return_exceptions=True)
    assert async_results[0] == [Document("ok")] and isinstance(async_results[1], InvalidInputError)


async def test_a_retriever_that_returns_no_document_list_is_named():
    """The searched retriever answers one query with text: a clear error in every path;
    in a batch only the question whose queries got text fails."""
    base = RunnableLambda(lambda q: "oops" if q == "bad" else [Document(q)], name="base")
    retriever = MultiQueryRetriever(base, RunnableLambda(lambda x: [x["question"]]))
    message = r"MultiQueryRetriever retriever \(base\) must return a list of Document, got 'oops'"
    with pytest.raises(InvalidInputError, match=message):
        retriever.invoke("bad")
    with pytest.raises(InvalidInputError, match=message):
        await retriever.ainvoke("bad")
    good, bad = retriever.batch(["ok", "bad"], return_exceptions=True)
    assert good == [Document("ok")]
    assert isinstance(bad, InvalidInputError) and "got 'oops'" in str(bad)


def test_the_step_methods_take_a_run_manager():
    from ragline.core.callbacks import CallbackManager, CallbackManagerForRetrieverRun

    collector = RunCollectorCallbackHandler()
    model = FakeListLLM(responses=["a\nb"])
    retriever = MultiQueryRetriever.from_llm(Recording(), model)
    manager = CallbackManager.configure([collector]).on_retriever_start(None, "q")
    assert isinstance(manager, CallbackManagerForRetrieverRun)
    assert retriever.generate_queries("q", manager) == ["a", "b"]
    assert retriever.retrieve_documents(["x y", "z"], manager) == [Document("x"), Document("z")]
    manager.on_retriever_end([])
    (run,) = collector.traced_runs
    assert [child.name for child in run.children] == ["RunnableSequence", "Recording", "Recording"]

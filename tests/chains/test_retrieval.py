"""create_retrieval_chain and RetrievalQA over a real in-memory store (hashing embeddings)."""

from __future__ import annotations

import pytest

from ragline.chains import (
    RetrievalQA,
    create_retrieval_chain,
    create_stuff_documents_chain,
    load_qa_chain,
)
from ragline.core import (
    ChatPromptTemplate,
    Document,
    FakeListChatModel,
    InvalidInputError,
    MissingVariableError,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore

TEXTS = [
    "the cat sat on the mat",
    "dogs chase the ball in the park",
    "the stock market fell sharply today",
]
PROMPT = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{input}")])


@pytest.fixture
def store() -> InMemoryVectorStore:
    return InMemoryVectorStore.from_texts(
        TEXTS,
        HashingEmbeddings(dimension=256),
        metadatas=[{"n": i} for i in range(3)],
        ids=["a", "b", "c"],
    )


def test_retrieval_chain_returns_input_context_and_answer(store: InMemoryVectorStore) -> None:
    model = FakeListChatModel(responses=["On the mat."])
    chain = create_retrieval_chain(
        store.as_retriever(search_kwargs={"k": 1}), create_stuff_documents_chain(model, PROMPT)
    )
    output = chain.invoke({"input": "where did the cat sit", "extra": 1})
    assert output["answer"] == "On the mat."
    assert output["input"] == "where did the cat sit" and output["extra"] == 1
    assert [(d.id, d.page_content) for d in output["context"]] == [("a", "the cat sat on the mat")]
    assert [m.text for m in model.calls[0]] == ["the cat sat on the mat", "where did the cat sit"]


def test_retrieval_chain_run_tree(store: InMemoryVectorStore) -> None:
    chain = create_retrieval_chain(
        store.as_retriever(search_kwargs={"k": 1}),
        create_stuff_documents_chain(FakeListChatModel(responses=["x"]), PROMPT),
    )
    collector = RunCollectorCallbackHandler()
    chain.invoke({"input": "cat"}, {"callbacks": [collector]})
    (root,) = collector.traced_runs
    assert root.name == "retrieval_chain"
    retriever_runs = [r for r in collector.runs_by_id.values() if r.run_type == "retriever"]
    model_runs = [r for r in collector.runs_by_id.values() if r.run_type == "llm"]
    assert len(retriever_runs) == 1 and len(model_runs) == 1
    assert retriever_runs[0].inputs == {"query": "cat"}
    for run in retriever_runs + model_runs:
        while run.parent_run_id is not None:
            run = collector.runs_by_id[run.parent_run_id]
        assert run is root


def test_retrieval_chain_needs_input(store: InMemoryVectorStore) -> None:
    chain = create_retrieval_chain(
        store.as_retriever(),
        create_stuff_documents_chain(FakeListChatModel(responses=["x"]), PROMPT),
    )
    with pytest.raises(
        MissingVariableError, match=r"needs the question under 'input'; got \['question'\]"
    ):
        chain.invoke({"question": "cat"})
    with pytest.raises(InvalidInputError, match="both Runnables"):
        create_retrieval_chain(store, PROMPT)  # type: ignore[arg-type]


def test_a_runnable_retriever_receives_the_whole_input() -> None:
    seen = []

    def history_aware(inputs: dict) -> list[Document]:
        seen.append(inputs)
        return [Document(f"about {inputs['topic']}")]

    chain = create_retrieval_chain(
        RunnableLambda(history_aware),
        create_stuff_documents_chain(FakeListChatModel(responses=["ok"]), PROMPT),
    )
    output = chain.invoke({"input": "q", "topic": "cats"})
    assert seen == [{"input": "q", "topic": "cats"}]
    assert output["context"] == [Document("about cats")]


async def test_retrieval_chain_with_no_documents_found(store: InMemoryVectorStore) -> None:
    model = FakeListChatModel(responses=["unused"])
    retriever = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.99}
    )
    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(model, PROMPT))
    output = await chain.ainvoke({"input": "quantum chromodynamics"})
    assert output["context"] == []
    assert output["answer"].startswith("I found no documents")
    assert model.calls == []


def test_retrieval_qa_invoke_and_stream(store: InMemoryVectorStore) -> None:
    model = FakeListChatModel(responses=["Mat."])
    qa = RetrievalQA.from_chain_type(
        model, retriever=store.as_retriever(search_kwargs={"k": 1}), return_source_documents=True
    )
    output = qa.invoke({"query": "cat"})
    assert output == {
        "query": "cat",
        "result": "Mat.",
        "source_documents": [store.get_by_ids(["a"])[0]],
    }
    # a Chain's stream, as LangChain's: invoke's result in one piece
    assert list(qa.stream({"query": "cat"})) == [output]
    with pytest.raises(MissingVariableError, match="under 'query'"):
        qa.invoke({"question": "cat"})


async def test_retrieval_qa_async(store: InMemoryVectorStore) -> None:
    qa = RetrievalQA.from_chain_type(
        FakeListChatModel(responses=["Ball."]),
        "refine",
        retriever=store.as_retriever(search_kwargs={"k": 1}),
    )
    assert await qa.ainvoke({"query": "dogs"}) == {"query": "dogs", "result": "Ball."}
    chunks = [c async for c in qa.astream({"query": "dogs"})]
    assert chunks == [{"query": "dogs", "result": "Ball."}]


def test_retrieval_qa_rejects_bad_options(store: InMemoryVectorStore) -> None:
    model = FakeListChatModel(responses=["x"])
    with pytest.raises(InvalidInputError, match="does not take bogus"):
        RetrievalQA.from_chain_type(
            model, retriever=store.as_retriever(), chain_type_kwargs={"bogus": 1}
        )
    with pytest.raises(InvalidInputError, match="needs a documents chain with an output_key"):
        RetrievalQA(
            retriever=store.as_retriever(),
            combine_documents_chain=create_stuff_documents_chain(model, PROMPT),
        )
    assert load_qa_chain(model).output_key == "output_text"


def test_retrieval_qa_passes_the_question_under_the_chains_question_key(
    store: InMemoryVectorStore,
) -> None:
    model = FakeListChatModel(responses=["Mat."])
    prompt = ChatPromptTemplate.from_messages([("human", "{context} | {ask}")])
    qa = RetrievalQA.from_chain_type(
        model,
        retriever=store.as_retriever(search_kwargs={"k": 1}),
        chain_type_kwargs={"prompt": prompt, "question_key": "ask"},
    )
    assert qa.invoke({"query": "cat"})["result"] == "Mat."
    assert [m.text for m in model.calls[0]] == ["the cat sat on the mat | cat"]

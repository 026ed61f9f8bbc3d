"""End to end: files -> splitter -> real MiniLM -> a real store -> retrieval chain ->
ChatOpenAI over HTTP to a local server speaking the OpenAI protocol.

The same test runs on FAISS, the in-memory store and Redis: the store is built on ONE
line (``STORES``), and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragline.chains import (
    RetrievalQA,
    create_documents_chain,
    create_retrieval_chain,
    create_stuff_documents_chain,
)
from ragline.chat_models import ChatOpenAI
from ragline.core import ChatPromptTemplate, Document, RunCollectorCallbackHandler
from ragline.embeddings import SentenceTransformerEmbeddings
from ragline.loaders import DirectoryLoader, TextLoader
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.vectorstores import FAISS, InMemoryVectorStore, Redis
from tests._openai_server import (
    CHAT_PATH,
    OpenAITestServer,
    Reply,
    chat_completion,
    chat_completion_chunks,
)

pytestmark = pytest.mark.slow

CORPUS = {
    "volcanoes.txt": (
        "Volcanoes form where magma from the Earth's mantle reaches the surface.\n\n"
        "Mount Etna in Sicily is one of the most active volcanoes in Europe; its eruptions "
        "send lava flows down the slopes several times a year."
    ),
    "bread.txt": (
        "Sourdough bread rises with a starter of wild yeast and lactic acid bacteria.\n\n"
        "Bakers feed the starter with flour and water every day and let the dough proof "
        "slowly, often overnight, before baking it in a hot oven."
    ),
    "chess.txt": (
        "In chess, castling moves the king two squares towards a rook, and the rook jumps "
        "over the king.\n\nCastling is not allowed when the king is in check or has moved."
    ),
    "rivers.txt": (
        "The Danube flows through ten countries, more than any other river in the world, "
        "from the Black Forest to the Black Sea."
    ),
}

QUESTION = "How often does Mount Etna erupt?"
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from the context.\n\n{context}"), ("human", "{input}")]
)


@pytest.fixture(scope="module")
def chunks(tmp_path_factory: pytest.TempPathFactory) -> list[Document]:
    folder = tmp_path_factory.mktemp("corpus")
    for name, text in CORPUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    documents = DirectoryLoader(folder, glob="*.txt", loader_cls=TextLoader).load()
    splitter = RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True)
    return splitter.split_documents(documents)


@pytest.fixture(scope="module")
def embeddings() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings(normalize_embeddings=True)


def _redis(chunks: list[Document], embeddings: Any, request: pytest.FixtureRequest) -> Redis:
    redis_url = request.getfixturevalue("redis_url")
    store = Redis.from_documents(chunks, embeddings, redis_url=redis_url, index_name="e2e_chain")
    request.addfinalizer(lambda: store.drop_index(delete_documents=True))
    return store


STORES: dict[str, Callable[[list[Document], Any, pytest.FixtureRequest], Any]] = {
    "faiss": lambda chunks, embeddings, request: FAISS.from_documents(chunks, embeddings),
    "in_memory": lambda chunks, embeddings, request: InMemoryVectorStore.from_documents(
        chunks, embeddings
    ),
    "redis": _redis,
}


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


@pytest.mark.parametrize("backend", sorted(STORES))
def test_retrieval_chain_answers_from_the_retrieved_chunks(
    backend: str,
    chunks: list[Document],
    embeddings: Any,
    server: OpenAITestServer,
    request: pytest.FixtureRequest,
) -> None:
    # the volcano and bread files split at their blank line; chess and rivers fit in one chunk
    assert len(chunks) == 6
    store = STORES[backend](chunks, embeddings, request)
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 2, "fetch_k": 6})
    model = ChatOpenAI(model="local-model", base_url=server.base_url, api_key="test", temperature=0)
    chain = create_retrieval_chain(retriever, create_stuff_documents_chain(model, PROMPT))
    server.enqueue(CHAT_PATH, Reply(body=chat_completion("Several times a year.")))

    collector = RunCollectorCallbackHandler()
    output = chain.invoke({"input": QUESTION}, {"callbacks": [collector]})

    assert output["answer"] == "Several times a year."
    assert output["input"] == QUESTION
    sources = [Path(d.metadata["source"]).name for d in output["context"]]
    # MMR: the most relevant chunk first, then a different one (not its sibling chunk
    # about volcanoes in general, which is near-duplicate in topic).
    assert output["context"][0].page_content.startswith("Mount Etna in Sicily")
    assert sources[0] == "volcanoes.txt" and len(set(sources)) == 2
    (request_sent,) = server.requests_to(CHAT_PATH)
    assert request_sent.body["model"] == "local-model"
    assert request_sent.body["temperature"] == 0
    system, human = request_sent.body["messages"]
    assert system["role"] == "system" and human == {"role": "user", "content": QUESTION}
    assert system["content"] == "Answer from the context.\n\n" + "\n\n".join(
        d.page_content for d in output["context"]
    )
    # the retriever run and the model call are children of the one chain run
    (root,) = collector.traced_runs
    assert root.name == "retrieval_chain"
    assert root.find("retrieve_documents") is not None
    kinds = {run.run_type for run in collector.runs_by_id.values()}
    assert {"retriever", "llm"} <= kinds  # a chat model is an "llm" run there, as in LangChain


def test_retrieval_chain_streams_the_answer(
    chunks: list[Document], embeddings: Any, server: OpenAITestServer
) -> None:
    store = FAISS.from_documents(chunks, embeddings)
    model = ChatOpenAI(model="local-model", base_url=server.base_url, api_key="test")
    chain = create_retrieval_chain(
        store.as_retriever(search_kwargs={"k": 1}), create_stuff_documents_chain(model, PROMPT)
    )
    server.enqueue(
        CHAT_PATH, Reply(events=chat_completion_chunks(["Several ", "times ", "a year."]))
    )
    pieces = list(chain.stream({"input": QUESTION}))
    first_answer = next(i for i, piece in enumerate(pieces) if "answer" in piece)
    before = {key: value for piece in pieces[:first_answer] for key, value in piece.items()}
    assert before["input"] == QUESTION  # input and context come before the answer starts
    assert before["context"][0].page_content.startswith("Mount Etna")
    assert [p["answer"] for p in pieces[first_answer:] if p.get("answer")] == [
        "Several ",
        "times ",
        "a year.",
    ]
    assert server.requests_to(CHAT_PATH)[0].body["stream"] is True


@pytest.mark.parametrize("chain_type", ["map_reduce", "refine", "map_rerank"])
async def test_other_chain_types_over_http(
    chain_type: str, chunks: list[Document], embeddings: Any, server: OpenAITestServer
) -> None:
    store = InMemoryVectorStore.from_documents(chunks, embeddings)
    model = ChatOpenAI(model="local-model", base_url=server.base_url, api_key="test")
    replies = {
        "map_reduce": [
            "Etna erupts several times a year.",
            "Nothing relevant.",
            "Several times a year.",
        ],
        "refine": ["It erupts often.", "Several times a year."],
        "map_rerank": ["Several times a year.\nScore: 90", "Unknown.\nScore: 5"],
    }[chain_type]
    server.enqueue(CHAT_PATH, *(Reply(body=chat_completion(text)) for text in replies))
    combine = create_documents_chain(
        model,
        chain_type,
        question_key="input",
        **({"max_concurrency": 1} if chain_type != "refine" else {}),
    )
    chain = create_retrieval_chain(store.as_retriever(search_kwargs={"k": 2}), combine)
    output = await chain.ainvoke({"input": QUESTION})
    assert output["answer"] == "Several times a year."
    assert len(server.requests_to(CHAT_PATH)) == len(replies)


def test_retrieval_qa_classic_shape(
    chunks: list[Document], embeddings: Any, server: OpenAITestServer
) -> None:
    store = FAISS.from_documents(chunks, embeddings)
    model = ChatOpenAI(model="local-model", base_url=server.base_url, api_key="test")
    qa = RetrievalQA.from_chain_type(
        model,
        "stuff",
        retriever=store.as_retriever(search_kwargs={"k": 1}),
        return_source_documents=True,
    )
    server.enqueue(CHAT_PATH, Reply(body=chat_completion("Castling is not allowed in check.")))
    output = qa.invoke({"query": "Can I castle while in check?"})
    assert output["result"] == "Castling is not allowed in check."
    assert output["query"] == "Can I castle while in check?"
    assert [Path(d.metadata["source"]).name for d in output["source_documents"]] == ["chess.txt"]

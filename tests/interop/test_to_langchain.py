"""ragline objects through to_langchain: LangChain's own VectorStoreIntegrationTests
(langchain-tests) on ragline's FAISS, in-memory and Redis stores, a LangGraph prebuilt
ReAct agent searching with a ragline retriever tool, LangServe serving a ragline chain,
and LangChain's callbacks and astream_events seeing the ragline runs inside."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import langserve
import pytest
from langchain_core.callbacks import BaseCallbackHandler as LCHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.messages import HumanMessage as LCHumanMessage
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.tracers.context import collect_runs
from langchain_core.vectorstores import VectorStore as LCVectorStore
from langchain_openai import ChatOpenAI as LCChatOpenAI
from langchain_tests.integration_tests import VectorStoreIntegrationTests

from ragline.core import (
    ChatPromptTemplate,
    Document,
    FakeListChatModel,
    RunnableLambda,
    StrOutputParser,
)
from ragline.interop.langchain import from_langchain, to_langchain
from ragline.serve import BackgroundServer
from ragline.tools import create_retriever_tool
from ragline.vectorstores import FAISS, InMemoryVectorStore
from tests._openai_server import OpenAITestServer, Reply, chat_completion


class TestRaglineFAISSThroughTheBridge(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self) -> Iterator[LCVectorStore]:
        store = FAISS(embedding=from_langchain(self.get_embeddings()), metric="l2")
        yield to_langchain(store)


class TestRaglineInMemoryThroughTheBridge(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self) -> Iterator[LCVectorStore]:
        yield to_langchain(InMemoryVectorStore(from_langchain(self.get_embeddings())))


class TestRaglineRedisThroughTheBridge(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self, redis_url: str) -> Iterator[LCVectorStore]:
        from ragline.vectorstores import Redis

        store = Redis(
            embedding=from_langchain(self.get_embeddings()),
            redis_url=redis_url,
            index_name=f"bridge-{uuid.uuid4().hex[:12]}",
        )
        yield to_langchain(store)
        store.drop_index(delete_documents=True)
        store.close()


DOCS = [
    Document("Cats purr when they are content.", metadata={"n": 0}, id="cats"),
    Document("Dogs bark at strangers.", metadata={"n": 1}, id="dogs"),
    Document("Parrots can mimic speech.", metadata={"n": 2}, id="parrots"),
]


def _store() -> FAISS:
    from ragline.embeddings import HashingEmbeddings

    return FAISS.from_documents(DOCS, HashingEmbeddings(dimension=64))


def test_the_bridged_retriever_is_langchain_s_and_finds_what_ragline_finds() -> None:
    retriever = _store().as_retriever(search_kwargs={"k": 2})
    bridged = to_langchain(retriever)
    assert isinstance(bridged, LCBaseRetriever)
    expected = [
        LCDocument(d.page_content, metadata=d.metadata, id=d.id)
        for d in retriever.invoke("cats purr")
    ]
    assert bridged.invoke("cats purr") == expected
    assert expected[0].id == "cats"
    assert from_langchain(bridged) is retriever  # back again: the ragline object itself


class _Starts(LCHandler):
    def __init__(self) -> None:
        self.starts: list[tuple[str, Any, Any]] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.starts.append((kwargs["name"], kwargs["run_id"], kwargs["parent_run_id"]))

    def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
        self.starts.append((kwargs["name"], kwargs["run_id"], kwargs["parent_run_id"]))


def test_langchain_handlers_see_the_ragline_runs_under_the_wrapper() -> None:
    chain = RunnableLambda(lambda x: x + 1, name="inc") | RunnableLambda(
        lambda x: x * 2, name="dbl"
    )
    handler = _Starts()
    assert to_langchain(chain).invoke(3, {"callbacks": [handler]}) == 8
    (wrapper, wrapper_id, none), (inc, _, inc_parent), (dbl, _, dbl_parent) = handler.starts
    assert (wrapper, none) == ("RunnableSequence", None)
    assert (inc, inc_parent, dbl, dbl_parent) == ("inc", wrapper_id, "dbl", wrapper_id)
    with collect_runs() as collected:
        to_langchain(chain).invoke(3)
    (root,) = collected.traced_runs
    assert [child.name for child in root.child_runs] == ["inc", "dbl"]


async def test_langchain_astream_events_see_the_ragline_chain_inside() -> None:
    model = FakeListChatModel(responses=["ok"])
    chain = ChatPromptTemplate.from_messages([("human", "{q}")]) | model | StrOutputParser()
    outer = LCRunnableLambda(lambda x: x, name="outer") | to_langchain(chain)
    events = [
        (event["event"], event["name"], len(event["parent_ids"]))
        async for event in outer.astream_events({"q": "hi"}, version="v2")
    ]
    # the ragline model streams its tokens into LangChain's event stream, under the wrapper
    assert events == [
        ("on_chain_start", "RunnableSequence", 0),
        ("on_chain_start", "outer", 1),
        ("on_chain_stream", "outer", 1),
        ("on_chain_start", "RunnableSequence", 1),
        ("on_prompt_start", "ChatPromptTemplate", 2),
        ("on_prompt_end", "ChatPromptTemplate", 2),
        ("on_chat_model_start", "FakeListChatModel", 2),
        ("on_chat_model_stream", "FakeListChatModel", 2),
        ("on_parser_start", "StrOutputParser", 2),
        ("on_chain_stream", "RunnableSequence", 1),
        ("on_chain_stream", "RunnableSequence", 0),
        ("on_chat_model_stream", "FakeListChatModel", 2),
        ("on_chain_stream", "RunnableSequence", 1),
        ("on_chain_stream", "RunnableSequence", 0),
        ("on_chat_model_end", "FakeListChatModel", 2),
        ("on_parser_end", "StrOutputParser", 2),
        ("on_chain_end", "outer", 1),
        ("on_chain_end", "RunnableSequence", 1),
        ("on_chain_end", "RunnableSequence", 0),
    ]


# LangGraph 1.x points to langchain.agents.create_agent; the issue asks for its prebuilt agent
@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_a_langgraph_react_agent_searches_with_a_ragline_retriever_tool() -> None:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    tool = create_retriever_tool(
        _store().as_retriever(search_kwargs={"k": 1}), "search_pets", "Search the pet notes."
    )
    with OpenAITestServer() as server:
        server.enqueue(
            "/v1/chat/completions",
            Reply(
                body=chat_completion(
                    None,
                    tool_calls=[
                        {
                            "id": "call_1",
                            "name": "search_pets",
                            "arguments": '{"query": "cats purr"}',
                        }
                    ],
                    finish_reason="tool_calls",
                )
            ),
            Reply(body=chat_completion("Cats purr when content.")),
        )
        model = LCChatOpenAI(base_url=server.base_url, api_key="test", model="test-model")
        agent = prebuilt.create_react_agent(model, [to_langchain(tool)])
        result = agent.invoke({"messages": [LCHumanMessage("Why do cats purr?")]})
        second = server.requests[1].body
    kinds = [(type(m).__name__, m.content) for m in result["messages"]]
    assert kinds == [
        ("HumanMessage", "Why do cats purr?"),
        ("AIMessage", ""),
        ("ToolMessage", "Cats purr when they are content."),
        ("AIMessage", "Cats purr when content."),
    ]
    assert result["messages"][2].tool_call_id == "call_1"
    assert second["messages"][2] == {
        "content": "Cats purr when they are content.",
        "role": "tool",
        "tool_call_id": "call_1",
    }


@pytest.fixture(scope="module")
def langserve_server() -> Iterator[BackgroundServer]:
    from fastapi import FastAPI

    retriever = _store().as_retriever(search_kwargs={"k": 1})
    chain = (
        RunnableLambda(
            lambda question: {"context": retriever.invoke(question)[0].page_content, "q": question}
        )
        | ChatPromptTemplate.from_messages([("human", "{context} {q}")])
        | FakeListChatModel(responses=["Because they are content."])
        | StrOutputParser()
    )
    app = FastAPI()
    langserve.add_routes(app, to_langchain(chain), path="/pets")
    with BackgroundServer(app) as server:
        yield server


def test_langserve_serves_a_ragline_chain(langserve_server: BackgroundServer) -> None:
    remote = langserve.RemoteRunnable(langserve_server.url + "/pets")
    assert remote.invoke("why purr?") == "Because they are content."
    assert "".join(remote.stream("why purr?")) == "Because they are content."
    reply = httpx.post(langserve_server.url + "/pets/invoke", json={"input": "why purr?"})
    assert reply.status_code == 200
    assert reply.json()["output"] == "Because they are content."


def test_anything_else_is_refused_by_name() -> None:
    from ragline.core.exceptions import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"builtins\.int"):
        to_langchain(3)

"""LangChain integrations (langchain-community FAISS and in-memory stores, Qdrant in
process, langchain-text-splitters, a community loader, tools, a file history) used
through from_langchain: the same scenario natively and bridged gives equal results."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from langchain_community.chat_message_histories import FileChatMessageHistory
from langchain_community.document_loaders import CSVLoader
from langchain_community.vectorstores import FAISS as LCFAISS
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.tools import tool as lc_tool
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter as LCSplitter

from ragline.core import AIMessage, Document, HumanMessage, ToolMessage
from ragline.core.callbacks import RunCollectorCallbackHandler
from ragline.interop.langchain import document_from_langchain, from_langchain
from ragline.interop.langchain._from import (
    LangChainChatMessageHistory,
    LangChainEmbeddings,
    LangChainLoader,
    LangChainRetriever,
    LangChainTextSplitter,
    LangChainTool,
    LangChainVectorStore,
)
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.vectorstores import FAISS

TEXTS = ["cats purr softly", "dogs bark loudly", "cats chase mice", "birds sing at dawn"]
DOCS = [
    LCDocument(
        text, metadata={"n": number, "kind": "cat" if "cat" in text else "other"}, id=f"d{number}"
    )
    for number, text in enumerate(TEXTS)
]


def _embeddings() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=16)


def _native(documents: list[Any]) -> list[Document]:
    return [document_from_langchain(document) for document in documents]


def _lc_faiss() -> Any:
    return LCFAISS.from_documents(DOCS, _embeddings(), ids=[d.id for d in DOCS])


def _lc_memory() -> Any:
    store = LCInMemoryVectorStore(_embeddings())
    store.add_documents(DOCS)
    return store


def _qdrant() -> Any:
    qdrant = pytest.importorskip("langchain_qdrant")
    from qdrant_client import QdrantClient
    from qdrant_client.models import Distance, VectorParams

    client = QdrantClient(":memory:")  # qdrant-client's in-process mode: no server
    client.create_collection(
        "notes", vectors_config=VectorParams(size=16, distance=Distance.COSINE)
    )
    store = qdrant.QdrantVectorStore(
        client=client, collection_name="notes", embedding=_embeddings()
    )
    ids = ["00000000-0000-0000-0000-00000000000" + str(n) for n in range(len(DOCS))]
    store.add_documents(DOCS, ids=ids)
    return store


STORES = {"community-faiss": _lc_faiss, "in-memory": _lc_memory, "qdrant": _qdrant}


@pytest.mark.parametrize("make", STORES.values(), ids=list(STORES))
def test_a_langchain_store_searches_the_same_through_the_bridge(make: Any) -> None:
    native, bridged = make(), from_langchain(make())
    assert isinstance(bridged, LangChainVectorStore)
    for query in ("cats", "loud dogs", "dawn"):
        assert bridged.similarity_search(query, k=3) == _native(
            native.similarity_search(query, k=3)
        )
        scored = bridged.similarity_search_with_score(query, k=2)
        expected = native.similarity_search_with_score(query, k=2)
        assert scored == [(document_from_langchain(d), float(s)) for d, s in expected]
        assert bridged.max_marginal_relevance_search(query, k=2, fetch_k=4) == _native(
            native.max_marginal_relevance_search(query, k=2, fetch_k=4)
        )
    retriever = bridged.as_retriever(search_kwargs={"k": 2})
    assert isinstance(retriever, LangChainRetriever)
    assert retriever.invoke("cats") == _native(
        native.as_retriever(search_kwargs={"k": 2}).invoke("cats")
    )


def test_adding_through_the_bridge_writes_to_the_langchain_store() -> None:
    native = _lc_memory()
    bridged = from_langchain(native)
    ids = bridged.add_documents([Document("fish swim", metadata={"n": 9}, id="f1")])
    assert ids == ["f1"]
    assert native.get_by_ids(["f1"]) == [LCDocument("fish swim", metadata={"n": 9}, id="f1")]
    assert bridged.get_by_ids(["f1"]) == [Document("fish swim", metadata={"n": 9}, id="f1")]
    bridged.delete(["f1"])
    assert native.get_by_ids(["f1"]) == []


def test_a_user_s_ragline_embeddings_subclass_is_returned_as_it_is_after_compose() -> None:
    # compose registers ragline's Embeddings as LangChain's (for integration packages'
    # isinstance checks); from_langchain still tells a user's subclass of ragline's
    # embeddings (its module is not ragline's) from LangChain's and does not wrap it
    import ragline.interop.langchain.compose  # noqa: F401
    from ragline.embeddings import HashingEmbeddings

    class Mine(HashingEmbeddings):
        pass

    mine = Mine(dimension=8)
    assert from_langchain(mine) is mine


def test_langchain_embeddings_fill_a_ragline_faiss_store_as_they_fill_langchain_s() -> None:
    embeddings = from_langchain(_embeddings())
    assert isinstance(embeddings, LangChainEmbeddings)
    assert embeddings.embed_query("cats") == _embeddings().embed_query("cats")
    ours = FAISS.from_documents(_native(DOCS), embeddings, metric="l2")
    theirs = _lc_faiss()
    for query in ("cats", "loud dogs", "dawn"):
        assert [d.id for d in ours.similarity_search(query, k=4)] == [
            d.id for d in theirs.similarity_search(query, k=4)
        ]


def test_a_ragline_handler_sees_the_bridged_retriever_run() -> None:
    retriever = from_langchain(_lc_memory().as_retriever(search_kwargs={"k": 1}))
    collector = RunCollectorCallbackHandler()
    found = retriever.invoke("cats", {"callbacks": [collector], "tags": ["t"]})
    (run,) = collector.traced_runs
    assert run.run_type == "retriever"
    assert run.outputs == {"documents": found}
    assert run.tags == ["t"]
    assert found == _native(_lc_memory().as_retriever(search_kwargs={"k": 1}).invoke("cats"))
    assert len(found) == 1


def test_a_langchain_splitter_splits_as_it_does_natively() -> None:
    text = "First paragraph here.\n\nSecond one is a bit longer than that.\n\nThird."
    native = LCSplitter(chunk_size=30, chunk_overlap=5, add_start_index=True)
    bridged = from_langchain(LCSplitter(chunk_size=30, chunk_overlap=5, add_start_index=True))
    assert isinstance(bridged, LangChainTextSplitter)
    assert bridged.split_text(text) == native.split_text(text)
    chunks = bridged.split_documents([Document(text, metadata={"source": "a"})])
    assert chunks == _native(native.split_documents([LCDocument(text, metadata={"source": "a"})]))
    assert [c.metadata["start_index"] for c in chunks] == [0, 23, 50, 62]
    ours = RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=5, add_start_index=True)
    assert ours.split_documents([Document(text, metadata={"source": "a"})]) == chunks
    assert bridged.invoke([Document(text)]) == _native(native.split_documents([LCDocument(text)]))


def test_a_community_loader_stays_lazy(tmp_path: Path) -> None:
    path = tmp_path / "pets.csv"
    path.write_text("name,sound\ncat,purr\ndog,bark\n", encoding="utf-8")
    loader = from_langchain(CSVLoader(str(path)))
    assert isinstance(loader, LangChainLoader)
    documents = loader.lazy_load()
    assert inspect.isgenerator(documents)
    first = next(documents)
    assert first == Document("name: cat\nsound: purr", metadata={"source": str(path), "row": 0})
    assert loader.load() == _native(CSVLoader(str(path)).load())


async def test_a_community_loader_loads_asynchronously(tmp_path: Path) -> None:
    path = tmp_path / "pets.csv"
    path.write_text("name,sound\ncat,purr\n", encoding="utf-8")
    loaded = [d async for d in from_langchain(CSVLoader(str(path))).alazy_load()]
    assert loaded == _native(CSVLoader(str(path)).load())


@lc_tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def test_a_langchain_tool_runs_as_a_ragline_tool() -> None:
    bridged = from_langchain(multiply)
    assert isinstance(bridged, LangChainTool)
    assert (bridged.name, bridged.description) == ("multiply", "Multiply two integers.")
    assert bridged.invoke({"a": 6, "b": 7}) == multiply.invoke({"a": 6, "b": 7}) == 42
    call = {"name": "multiply", "args": {"a": 2, "b": 3}, "id": "call_9", "type": "tool_call"}
    assert bridged.invoke(call) == ToolMessage("6", tool_call_id="call_9", name="multiply")
    with pytest.raises(Exception, match="b"):
        bridged.invoke({"a": 1})  # ragline checks the arguments against the tool's schema


def test_a_langchain_file_history_reads_and_writes_through_the_bridge(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    history = from_langchain(FileChatMessageHistory(str(path)))
    assert isinstance(history, LangChainChatMessageHistory)
    usage: Any = {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
    sent = [HumanMessage("hi", id="h1"), AIMessage("hello", id="a1", usage_metadata=usage)]
    history.add_messages(sent)
    assert history.messages == sent
    assert _native_messages(FileChatMessageHistory(str(path)).messages) == sent
    history.clear()
    assert FileChatMessageHistory(str(path)).messages == []


def _native_messages(messages: list[Any]) -> list[Any]:
    from ragline.interop.langchain import message_from_langchain

    return [message_from_langchain(message) for message in messages]


def test_anything_else_is_refused_by_name() -> None:
    from ragline.core.exceptions import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"builtins\.object"):
        from_langchain(object())


def test_a_langchain_llm_is_a_ragline_llm() -> None:
    from langchain_core.language_models import FakeStreamingListLLM

    from ragline.core import BaseLLM

    bridged = from_langchain(FakeStreamingListLLM(responses=["Paris", "Rome"]))
    assert isinstance(bridged, BaseLLM)
    assert bridged.invoke("capital of France?") == "Paris"
    assert list(bridged.stream("capital of Italy?")) == ["R", "o", "m", "e"]


def test_any_langchain_runnable_streams_as_a_ragline_runnable() -> None:
    from langchain_core.runnables import RunnableGenerator

    def words(chunks: Any) -> Any:
        for chunk in chunks:
            yield from chunk.split()

    bridged = from_langchain(RunnableGenerator(words))
    assert list(bridged.stream("a b c")) == ["a", "b", "c"]
    assert bridged.invoke("a b") == "ab"  # LangChain adds the streamed strings up


def test_a_ragline_history_is_a_langchain_history() -> None:
    from langchain_core.chat_history import BaseChatMessageHistory as LCHistory
    from langchain_core.messages import AIMessage as LCAIMessage

    from ragline.core import InMemoryChatMessageHistory
    from ragline.interop.langchain import to_langchain

    ours = InMemoryChatMessageHistory()
    theirs = to_langchain(ours)
    assert isinstance(theirs, LCHistory)
    theirs.add_messages([LCAIMessage("hello", id="a1")])
    assert ours.messages == [AIMessage("hello", id="a1")]
    assert theirs.messages == [LCAIMessage("hello", id="a1")]


def test_a_ragline_history_holding_role_pairs_reads_as_langchains() -> None:
    """(role, text) pairs stored in an in-memory history (as LangChain's stores them)
    pass the bridge as given, both ways; reading them raised AttributeError."""
    from langchain_core.chat_history import InMemoryChatMessageHistory as LCInMemoryHistory
    from langchain_core.messages import AIMessage as LCAIMessage

    from ragline.core import InMemoryChatMessageHistory
    from ragline.interop.langchain import to_langchain

    given = [("human", "hi"), LCAIMessage("hello", id="a1")]
    reference = LCInMemoryHistory()
    reference.add_messages(given)
    ours = InMemoryChatMessageHistory()
    theirs = to_langchain(ours)
    theirs.add_messages(given)
    assert ours.messages == [("human", "hi"), AIMessage("hello", id="a1")]
    assert theirs.messages == reference.messages == given

"""The memories of legacy chains: what each loads and saves, on in-memory and persistent
histories, with scripted models writing the summaries and real vector stores recalling
exchanges; bad keys and options give clear errors."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from ragline.core import (
    AIMessage,
    Document,
    FakeListChatModel,
    FakeListLLM,
    HumanMessage,
    InvalidInputError,
    PromptTemplate,
    SystemMessage,
)
from ragline.embeddings import HashingEmbeddings
from ragline.memory import (
    CombinedMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
    ConversationSummaryBufferMemory,
    ConversationSummaryMemory,
    ConversationTokenBufferMemory,
    FileChatMessageHistory,
    ReadOnlySharedMemory,
    SimpleMemory,
    SQLChatMessageHistory,
    VectorStoreRetrieverMemory,
)
from ragline.vectorstores import FAISS, InMemoryVectorStore

EXCHANGES = [("hi", "hello"), ("my name is Ada", "nice to meet you, Ada"), ("bye", "goodbye")]


def _fill(memory: Any, exchanges: list[tuple[str, str]] = EXCHANGES) -> None:
    for human, ai in exchanges:
        memory.save_context({"input": human}, {"output": ai})


# ---------------------------------------------------------------- buffer memories


def test_buffer_memory_as_transcript_and_as_messages() -> None:
    memory = ConversationBufferMemory()
    _fill(memory, EXCHANGES[:2])
    assert memory.memory_variables == ["history"]
    assert memory.load_memory_variables({"input": "x"}) == {
        "history": "Human: hi\nAI: hello\nHuman: my name is Ada\nAI: nice to meet you, Ada"
    }
    as_messages = ConversationBufferMemory(
        memory_key="chat_history", return_messages=True, chat_memory=memory.chat_memory
    )
    assert as_messages.load_memory_variables({}) == {
        "chat_history": [
            HumanMessage("hi"),
            AIMessage("hello"),
            HumanMessage("my name is Ada"),
            AIMessage("nice to meet you, Ada"),
        ]
    }
    assert as_messages.buffer == as_messages.buffer_as_messages
    assert as_messages.buffer_as_str == memory.buffer


def test_buffer_memory_prefixes_and_keys() -> None:
    memory = ConversationBufferMemory(
        human_prefix="User", ai_prefix="Bot", input_key="question", output_key="answer"
    )
    memory.save_context({"question": "2+2?", "context": "maths"}, {"answer": "4", "sources": ["a"]})
    assert memory.buffer == "User: 2+2?\nBot: 4"


@pytest.mark.parametrize(
    ("inputs", "outputs", "message"),
    [
        ({"a": 1, "b": 2}, {"output": "x"}, r"one input key to save, got \['a', 'b'\]"),
        ({}, {"output": "x"}, r"one input key to save, got \[\]"),
        ({"input": "q"}, {"x": 1, "y": 2}, r"several output keys \['x', 'y'\]"),
    ],
)
def test_ambiguous_keys_are_an_error_and_nothing_is_saved(
    inputs: dict[str, Any], outputs: dict[str, Any], message: str
) -> None:
    memory = ConversationBufferMemory()
    with pytest.raises(InvalidInputError, match=message):
        memory.save_context(inputs, outputs)
    assert memory.chat_memory.messages == []


def test_a_missing_configured_key_is_named() -> None:
    memory = ConversationBufferMemory(input_key="question")
    with pytest.raises(InvalidInputError, match=r"saves input 'question', which the run lacks"):
        memory.save_context({"query": "q"}, {"output": "a"})


def test_memory_variables_and_stop_are_not_the_input() -> None:
    memory = ConversationBufferMemory()
    memory.save_context({"input": "q", "history": "old", "stop": ["\n"]}, {"output": "a"})
    assert memory.buffer == "Human: q\nAI: a"


def test_buffer_memory_over_persistent_histories(tmp_path: Path) -> None:
    """chat_memory may be any history: a new memory on the same file/table continues."""
    for open_history in (
        lambda: FileChatMessageHistory(tmp_path / "chat.json"),
        lambda: SQLChatMessageHistory("s", connection=tmp_path / "chat.db"),
    ):
        _fill(ConversationBufferMemory(chat_memory=open_history()), EXCHANGES[:1])
        later = ConversationBufferMemory(chat_memory=open_history())
        assert later.buffer == "Human: hi\nAI: hello"
        later.clear()
        assert open_history().messages == []


def test_chat_memory_must_be_a_history() -> None:
    with pytest.raises(InvalidInputError, match="chat_memory must be a chat message history"):
        ConversationBufferMemory(chat_memory=[])


def test_window_memory_loads_the_last_k_exchanges_and_keeps_everything() -> None:
    memory = ConversationBufferWindowMemory(k=2)
    _fill(memory)
    assert memory.buffer == (
        "Human: my name is Ada\nAI: nice to meet you, Ada\nHuman: bye\nAI: goodbye"
    )
    assert len(memory.chat_memory.messages) == 6  # the window chooses; nothing is deleted
    assert ConversationBufferWindowMemory(k=0, chat_memory=memory.chat_memory).buffer == ""
    with pytest.raises(InvalidInputError, match="k must be an int >= 0"):
        ConversationBufferWindowMemory(k=-1)


def test_token_buffer_memory_keeps_the_newest_messages_within_the_limit() -> None:
    model = FakeListChatModel(responses=["unused"])
    memory = ConversationTokenBufferMemory(llm=model, max_token_limit=15, return_messages=True)
    _fill(memory)
    loaded = memory.load_memory_variables({})["history"]
    stored = memory.chat_memory.messages
    assert loaded == stored[-len(loaded) :]
    assert model.get_num_tokens_from_messages(loaded) <= 15
    one_more = stored[-len(loaded) - 1 :]
    assert model.get_num_tokens_from_messages(one_more) > 15
    assert 0 < len(loaded) < len(stored)
    with pytest.raises(InvalidInputError, match="max_token_limit must be an int >= 1"):
        ConversationTokenBufferMemory(llm=model, max_token_limit=0)


def test_token_buffer_counts_with_the_models_counter() -> None:
    class WordCounter(FakeListLLM):
        def get_num_tokens_from_messages(self, messages: Any) -> int:
            return sum(len(m.text.split()) for m in messages)

    memory = ConversationTokenBufferMemory(
        llm=WordCounter(responses=["x"]), max_token_limit=7, return_messages=True
    )
    _fill(memory)  # word counts: 1 1 4 5 1 1
    assert [m.text for m in memory.buffer] == ["nice to meet you, Ada", "bye", "goodbye"]


# ---------------------------------------------------------------- summary memories


def test_summary_memory_folds_each_exchange_into_the_summary() -> None:
    llm = FakeListLLM(responses=["S1", "S2"])
    memory = ConversationSummaryMemory(llm=llm)
    _fill(memory, EXCHANGES[:2])
    assert memory.buffer == "S2"
    assert memory.load_memory_variables({}) == {"history": "S2"}
    assert "Summary so far:\n\n" in llm.calls[0] and "Human: hi\nAI: hello" in llm.calls[0]
    assert "Summary so far:\nS1" in llm.calls[1]
    assert "Human: my name is Ada\nAI: nice to meet you, Ada" in llm.calls[1]
    assert "Human: hi" not in llm.calls[1]  # only the new lines are sent
    assert len(memory.chat_memory.messages) == 4  # every message is kept
    messages = ConversationSummaryMemory(llm=llm, return_messages=True, buffer="S")
    assert messages.load_memory_variables({}) == {"history": [SystemMessage("S")]}
    memory.clear()
    assert (memory.buffer, memory.chat_memory.messages) == ("", [])


def test_summary_memory_with_its_own_prompt_and_message_class() -> None:
    prompt = PromptTemplate.from_template("Old: {summary}\nNew: {new_lines}\nShort summary:")
    llm = FakeListLLM(responses=["greeting"])
    memory = ConversationSummaryMemory(
        llm=llm, prompt=prompt, summary_message_cls=AIMessage, return_messages=True
    )
    _fill(memory, EXCHANGES[:1])
    assert llm.calls == ["Old: \nNew: Human: hi\nAI: hello\nShort summary:"]
    assert memory.load_memory_variables({}) == {"history": [AIMessage("greeting")]}
    with pytest.raises(InvalidInputError, match=r"needs the variables 'summary' and 'new_lines'"):
        ConversationSummaryMemory(llm=llm, prompt=PromptTemplate.from_template("{summary}"))


def test_seed_000_predict_new_summary() -> None:
    """Seed 000 §5.3: predict_new_summary(messages, existing_summary) with the prefixes."""
    llm = FakeListLLM(responses=["The human asks about AI."])
    memory = ConversationSummaryMemory(llm=llm, human_prefix="User", ai_prefix="Bot")
    summary = memory.predict_new_summary(
        [HumanMessage("What do you think of AI?"), AIMessage("A force for good.")], "Nothing yet."
    )
    assert summary == "The human asks about AI."
    assert "Nothing yet." in llm.calls[0]
    assert "User: What do you think of AI?\nBot: A force for good." in llm.calls[0]


def test_summary_memory_from_existing_messages(tmp_path: Path) -> None:
    history = FileChatMessageHistory(tmp_path / "old.json")
    history.add_messages([HumanMessage(str(i)) for i in range(5)])
    llm = FakeListLLM(responses=["A", "B", "C"])
    memory = ConversationSummaryMemory.from_messages(llm, history, summarize_step=2)
    assert memory.buffer == "C"
    assert len(llm.calls) == 3 and "Human: 4" in llm.calls[2]


def test_summary_buffer_memory_summarizes_what_no_longer_fits() -> None:
    model = FakeListChatModel(responses=["SUMMARY-1", "SUMMARY-2"])
    memory = ConversationSummaryBufferMemory(llm=model, max_token_limit=17, return_messages=True)
    memory.save_context({"input": "hi"}, {"output": "hello"})
    assert model.calls == []  # still fits: no summary
    assert memory.load_memory_variables({})["history"] == [HumanMessage("hi"), AIMessage("hello")]
    memory.save_context({"input": "my name is Ada"}, {"output": "nice to meet you, Ada"})
    memory.save_context({"input": "bye"}, {"output": "goodbye"})
    loaded = memory.load_memory_variables({})["history"]
    assert loaded[0] == SystemMessage(memory.moving_summary_buffer)
    recent = loaded[1:]
    stored = memory.chat_memory.messages
    assert len(stored) == 6  # nothing is deleted from the history
    assert recent == stored[memory.summarized_messages :]
    assert model.get_num_tokens_from_messages(recent) <= 17
    first, second = (call[0].text for call in model.calls)
    assert "Summary so far:\n\n\nNewest lines:\nHuman: hi\n\nNew summary:" in first
    assert (
        "Summary so far:\nSUMMARY-1\n\nNewest lines:\nAI: hello\nHuman: my name is Ada\n" in second
    )
    assert memory.summarized_messages == 3
    as_text = ConversationSummaryBufferMemory(
        llm=model,
        chat_memory=memory.chat_memory,
        moving_summary_buffer="S",
        summarized_messages=4,
    )
    assert as_text.load_memory_variables({}) == {"history": "System: S\nHuman: bye\nAI: goodbye"}


async def test_async_memory_methods_use_the_async_history() -> None:
    memory = ConversationSummaryBufferMemory(
        llm=FakeListChatModel(responses=["S"]), max_token_limit=20, return_messages=True
    )
    for human, ai in EXCHANGES:
        await memory.asave_context({"input": human}, {"output": ai})
    loaded = (await memory.aload_memory_variables({}))["history"]
    assert loaded[0] == SystemMessage("S")
    buffer = ConversationBufferMemory()
    await buffer.asave_context({"input": "a"}, {"output": "b"})
    assert await buffer.aload_memory_variables({}) == {"history": "Human: a\nAI: b"}
    await buffer.aclear()
    assert buffer.buffer == ""


# ---------------------------------------------------------------- vector-store memory


def _store(kind: str, request: pytest.FixtureRequest) -> Any:
    embeddings = HashingEmbeddings(dimension=256)
    if kind == "in_memory":
        return InMemoryVectorStore(embeddings)
    if kind == "faiss":
        pytest.importorskip("faiss")
        return FAISS(embeddings)
    from ragline.vectorstores import Redis

    url = request.getfixturevalue("redis_url")
    return Redis(embeddings, redis_url=url, index_name=f"memory-{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize(
    "kind", ["in_memory", "faiss", pytest.param("redis", marks=pytest.mark.redis)]
)
def test_vector_store_memory_recalls_the_relevant_exchange(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """Seed 000 §5.4 on every backend: each exchange is saved as one document and the one
    most similar to the new input is recalled. The seed's snippet writes "Human: ...\nAI:
    ..." with a timestamp; LangChain writes one "key: value" line per input and output and
    no metadata, and the parity rule wins (tests/parity/test_vectorstore_memory.py)."""
    store = _store(kind, request)
    try:
        memory = VectorStoreRetrieverMemory(retriever=store.as_retriever(search_kwargs={"k": 1}))
        memory.save_context({"input": "my favourite food is pizza"}, {"output": "noted"})
        memory.save_context({"input": "my favourite sport is tennis"}, {"output": "great"})
        memory.save_context({"input": "the weather is rainy"}, {"output": "sorry"})
        assert memory.load_memory_variables({"input": "which sport is my favourite?"}) == {
            "history": "input: my favourite sport is tennis\noutput: great"
        }
        docs = VectorStoreRetrieverMemory(
            retriever=store.as_retriever(search_kwargs={"k": 1}), return_docs=True
        ).load_memory_variables({"prompt": "what food do I like? pizza"})["history"]
        assert [(d.page_content, d.metadata) for d in docs] == [
            ("input: my favourite food is pizza\noutput: noted", {})
        ]
    finally:
        if kind == "redis":
            store.drop_index(delete_documents=True)


async def test_vector_store_memory_async() -> None:
    store = InMemoryVectorStore(HashingEmbeddings(dimension=128))
    memory = VectorStoreRetrieverMemory(
        retriever=store.as_retriever(search_kwargs={"k": 1}), input_key="q", memory_key="past"
    )
    await memory.asave_context({"q": "cats purr", "other": 1}, {"text": "yes"})
    assert await memory.aload_memory_variables({"q": "do cats purr"}) == {
        "past": "q: cats purr\nother: 1\ntext: yes"
    }


def test_vector_store_memory_leaves_out_excluded_inputs_and_the_memory_key() -> None:
    store = InMemoryVectorStore(HashingEmbeddings(dimension=128))
    memory = VectorStoreRetrieverMemory(
        retriever=store.as_retriever(search_kwargs={"k": 1}), exclude_input_keys=["context"]
    )
    memory.save_context(
        {"input": "cats purr", "context": "long text", "history": "earlier"}, {"output": "yes"}
    )
    assert [d.page_content for d in store.similarity_search("cats purr", k=5)] == [
        "input: cats purr\noutput: yes"
    ]


def test_vector_store_memory_recalls_exchanges_saved_in_the_old_layout() -> None:
    """Exchanges an older ragline saved ("Human: ...\nAI: ..." with a timestamp) stay in
    the store and are recalled as they were written."""
    store = InMemoryVectorStore(HashingEmbeddings(dimension=128))
    old = "Human: cats purr\nAI: yes"
    store.add_documents([Document(old, metadata={"timestamp": "2026-01-01T00:00:00+00:00"})])
    memory = VectorStoreRetrieverMemory(retriever=store.as_retriever(search_kwargs={"k": 1}))
    assert memory.load_memory_variables({"input": "cats purr"}) == {"history": old}


def test_vector_store_memory_needs_a_store_retriever() -> None:
    with pytest.raises(InvalidInputError, match="needs a vector store retriever"):
        VectorStoreRetrieverMemory(retriever=object())


# ---------------------------------------------------------------- combined and read-only


def test_combined_memory_merges_and_saves_to_each() -> None:
    chat = ConversationBufferMemory(memory_key="chat", input_key="input")
    window = ConversationBufferWindowMemory(memory_key="recent", k=1, input_key="input")
    combined = CombinedMemory(memories=[chat, window, SimpleMemory(memories={"user": "Ada"})])
    _fill(combined, EXCHANGES[:2])
    assert combined.memory_variables == ["chat", "recent", "user"]
    variables = combined.load_memory_variables({"input": "x"})
    assert variables["recent"] == "Human: my name is Ada\nAI: nice to meet you, Ada"
    assert variables["chat"].startswith("Human: hi") and variables["user"] == "Ada"
    combined.clear()
    assert chat.buffer == "" and window.buffer == ""


def test_combined_memory_refuses_overlapping_variables() -> None:
    with pytest.raises(InvalidInputError, match=r"both provide 'history'"):
        CombinedMemory(memories=[ConversationBufferMemory(), ConversationBufferWindowMemory()])
    with pytest.raises(InvalidInputError, match=r"memories\[0\] must be a memory"):
        CombinedMemory(memories=["not a memory"])


def test_read_only_shared_memory_reads_but_never_writes() -> None:
    shared = ConversationBufferMemory()
    _fill(shared, EXCHANGES[:1])
    view = ReadOnlySharedMemory(memory=shared)
    view.save_context({"input": "ignored"}, {"output": "ignored"})
    view.clear()
    assert view.load_memory_variables({}) == {"history": "Human: hi\nAI: hello"}
    assert view.memory_variables == ["history"]


def test_docstring_examples_run() -> None:
    import doctest

    from ragline.memory import (
        _buffer,
        _combined,
        _file_history,
        _semantic_cache,
        _sql_history,
        _summary,
    )

    for module in (_buffer, _summary, _combined, _file_history, _sql_history, _semantic_cache):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__

"""RunnableWithMessageHistory: which messages reach the runnable, what gets stored (once
per call), the configurable keys and their errors, streaming, batches, async, callbacks."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from _run_ids import no_run_ids

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    BaseChatMessageHistory,
    BaseMessage,
    ChatMessageHistory,
    ChatPromptTemplate,
    ConfigurableField,
    ConfigurableFieldSpec,
    ConfigurationError,
    FakeListChatModel,
    HumanMessage,
    InMemoryChatMessageHistory,
    InvalidInputError,
    MessagesPlaceholder,
    RunCollectorCallbackHandler,
    RunnableLambda,
    RunnableWithMessageHistory,
    StrOutputParser,
    SystemMessage,
)

SESSION = {"configurable": {"session_id": "s1"}}


class RecordingHistory(InMemoryChatMessageHistory):
    """An in-memory history that counts reads and writes."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.writes: list[list[BaseMessage]] = []

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.writes.append(list(messages))
        super().add_messages(messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.writes.append(list(messages))
        super().add_messages(messages)


def _prompt() -> ChatPromptTemplate:
    return ChatPromptTemplate.from_messages(
        [
            ("system", "You're an assistant who's good at {ability}"),
            MessagesPlaceholder(variable_name="history"),
            ("human", "{question}"),
        ]
    )


def _sessions() -> tuple[dict[str, RecordingHistory], Any]:
    store: dict[str, RecordingHistory] = {}
    return store, lambda session_id: store.setdefault(session_id, RecordingHistory())


def test_seed_003_in_memory_example() -> None:
    """Seed 003, example 7 without Redis: the second turn sees the first."""
    model = FakeListChatModel(responses=["Cosine is a ratio.", "Arccosine."])
    chain = _prompt() | model
    message_history = ChatMessageHistory()
    chain_with_history = RunnableWithMessageHistory(
        chain,
        lambda session_id: message_history,
        input_messages_key="question",
        history_messages_key="history",
    )
    chain_with_history.invoke(
        {"ability": "math", "question": "What does cosine mean?"},
        config={"configurable": {"session_id": "foobar"}},
    )
    chain_with_history.invoke(
        {"ability": "math", "question": "What's its inverse"},
        config={"configurable": {"session_id": "foobar"}},
    )
    assert chain_with_history.get_session_history("foobar").messages == message_history.messages
    assert no_run_ids(message_history.messages) == [
        HumanMessage("What does cosine mean?"),
        AIMessage("Cosine is a ratio."),
        HumanMessage("What's its inverse"),
        AIMessage("Arccosine."),
    ]
    assert no_run_ids(model.calls[1]) == [
        SystemMessage("You're an assistant who's good at math"),
        HumanMessage("What does cosine mean?"),
        AIMessage("Cosine is a ratio."),
        HumanMessage("What's its inverse"),
    ]


def test_each_call_writes_the_history_once() -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(
        _prompt() | FakeListChatModel(responses=["a1", "a2"]),
        get,
        input_messages_key="question",
        history_messages_key="history",
    )
    chat.invoke({"ability": "x", "question": "q1"}, SESSION)
    chat.invoke({"ability": "x", "question": "q2"}, SESSION)
    assert no_run_ids(store["s1"].writes) == [
        [HumanMessage("q1"), AIMessage("a1")],
        [HumanMessage("q2"), AIMessage("a2")],
    ]


def test_sessions_do_not_mix() -> None:
    store, get = _sessions()
    model = FakeListChatModel(responses=["r"])
    chat = RunnableWithMessageHistory(model, get)
    chat.invoke("to alice", {"configurable": {"session_id": "alice"}})
    chat.invoke("to bob", {"configurable": {"session_id": "bob"}})
    assert model.calls[1] == [HumanMessage("to bob")]
    assert [m.text for m in store["alice"].messages] == ["to alice", "r"]


@pytest.mark.parametrize(
    ("input", "expected_new"),
    [
        ("plain text", [HumanMessage("plain text")]),
        (HumanMessage("a message"), [HumanMessage("a message")]),
        ([SystemMessage("s"), HumanMessage("h")], [SystemMessage("s"), HumanMessage("h")]),
        ({"input": "under input"}, [HumanMessage("under input")]),
        ({"only": "the only key"}, [HumanMessage("the only key")]),
    ],
)
def test_a_model_wrapped_directly_gets_history_plus_new_messages(
    input: Any, expected_new: list[BaseMessage]
) -> None:
    """No keys: the runnable receives stored + new messages as one list; the reply (an
    AIMessage) is stored after the new messages."""
    store, get = _sessions()
    store["s1"] = RecordingHistory(messages=[HumanMessage("earlier"), AIMessage("before")])
    model = FakeListChatModel(responses=["reply"])
    RunnableWithMessageHistory(model, get).invoke(input, SESSION)
    assert model.calls[0] == [HumanMessage("earlier"), AIMessage("before"), *expected_new]
    assert no_run_ids(store["s1"].writes) == [[*expected_new, AIMessage("reply")]]


def test_input_messages_key_alone_gets_the_whole_conversation_under_that_key() -> None:
    store, get = _sessions()
    store["s1"] = RecordingHistory(messages=[HumanMessage("earlier")])
    seen = []
    chain = RunnableLambda(lambda value: seen.append(value) or "done")
    RunnableWithMessageHistory(chain, get, input_messages_key="messages").invoke(
        {"messages": "now", "other": 1}, SESSION
    )
    assert seen == [{"messages": [HumanMessage("earlier"), HumanMessage("now")], "other": 1}]
    assert store["s1"].messages == [HumanMessage("earlier"), HumanMessage("now"), AIMessage("done")]


@pytest.mark.parametrize(
    ("output", "output_key", "stored"),
    [
        ("text", None, [AIMessage("text")]),
        (AIMessage("msg", id="m"), None, [AIMessage("msg", id="m")]),
        (AIMessageChunk("chunk"), None, [AIMessageChunk("chunk")]),  # kept, as in LangChain
        ({"answer": "A", "context": []}, "answer", [AIMessage("A")]),
        ({"output": "O", "other": 1}, None, [AIMessage("O")]),
        ({"single": "S"}, None, [AIMessage("S")]),
        ([AIMessage("x"), AIMessage("y")], None, [AIMessage("x"), AIMessage("y")]),
    ],
)
def test_outputs_become_stored_messages(output: Any, output_key: Any, stored: Any) -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(
        RunnableLambda(lambda _: output), get, output_messages_key=output_key
    )
    assert chat.invoke("q", SESSION) == output
    assert store["s1"].messages == [HumanMessage("q"), *stored]


def test_an_output_without_messages_is_an_error_and_nothing_is_stored() -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda _: {"a": 1, "b": 2}), get)
    with pytest.raises(InvalidInputError, match=r"has no key 'output' \(it has \['a', 'b'\]\)"):
        chat.invoke("q", SESSION)
    with pytest.raises(InvalidInputError, match="output must be a str, a message"):
        RunnableWithMessageHistory(RunnableLambda(lambda _: 42), get).invoke("q", SESSION)
    assert store["s1"].messages == []


def test_bad_input_is_refused_before_the_runnable_runs() -> None:
    store, get = _sessions()
    calls = []
    chat = RunnableWithMessageHistory(
        RunnableLambda(lambda x: calls.append(x) or "r"), get, history_messages_key="history"
    )
    with pytest.raises(InvalidInputError, match="input must be a str, a message"):
        chat.invoke({"input": 42}, SESSION)
    with pytest.raises(InvalidInputError, match="so its input must be a dict, got str"):
        chat.invoke("text", SESSION)
    assert calls == [] and store["s1"].messages == []


def test_missing_or_misspelt_session_key_names_what_is_expected() -> None:
    chat = RunnableWithMessageHistory(
        FakeListChatModel(responses=["r"]), lambda s: ChatMessageHistory()
    )
    with pytest.raises(ConfigurationError, match=r"missing key\(s\) \['session_id'\] in config"):
        chat.invoke("hi")
    with pytest.raises(
        ConfigurationError,
        match=r"missing key\(s\) \['session_id'\] in config\['configurable'\] "
        r"\(it has \['sesion_id'\]\); RunnableWithMessageHistory expects \['session_id'\]",
    ):
        chat.invoke("hi", {"configurable": {"sesion_id": "x"}})


def test_an_unknown_extra_configurable_key_is_refused_at_the_root() -> None:
    chat = RunnableWithMessageHistory(
        FakeListChatModel(responses=["r"]), lambda s: ChatMessageHistory()
    )
    with pytest.raises(ConfigurationError, match=r"unknown configurable id\(s\) 'colour'"):
        chat.invoke("hi", {"configurable": {"session_id": "s", "colour": "red"}})


def test_custom_keys_user_and_conversation() -> None:
    """history_factory_config with two keys: get_session_history gets them by keyword."""
    histories: dict[tuple[str, str], ChatMessageHistory] = {}

    def get_session_history(user_id: str, conversation_id: str) -> ChatMessageHistory:
        return histories.setdefault((user_id, conversation_id), ChatMessageHistory())

    chat = RunnableWithMessageHistory(
        FakeListChatModel(responses=["ok"]),
        get_session_history,
        history_factory_config=[
            ConfigurableFieldSpec(id="user_id", annotation=str, name="User ID", default=""),
            ConfigurableFieldSpec(id="conversation_id", annotation=str, default=""),
        ],
    )
    chat.invoke("hi", {"configurable": {"user_id": "u1", "conversation_id": "c1"}})
    chat.invoke("hey", {"configurable": {"user_id": "u1", "conversation_id": "c2"}})
    assert sorted(histories) == [("u1", "c1"), ("u1", "c2")]
    assert [m.text for m in histories["u1", "c2"].messages] == ["hey", "ok"]
    assert [spec.id for spec in chat.config_specs] == ["conversation_id", "user_id"]  # by id
    with pytest.raises(ConfigurationError, match=r"missing key\(s\) \['conversation_id'\]"):
        chat.invoke("hi", {"configurable": {"user_id": "u1"}})


def test_keys_that_do_not_match_the_factory_parameters_fail_when_built() -> None:
    with pytest.raises(ConfigurationError, match=r"ids \['a', 'b'\] do not match the parameter"):
        RunnableWithMessageHistory(
            FakeListChatModel(responses=["r"]),
            lambda user_id, other: ChatMessageHistory(),
            history_factory_config=[ConfigurableFieldSpec(id="a"), ConfigurableFieldSpec(id="b")],
        )
    with pytest.raises(ConfigurationError, match="distinct, non-empty ids"):
        RunnableWithMessageHistory(
            FakeListChatModel(responses=["r"]),
            lambda a: ChatMessageHistory(),
            history_factory_config=[ConfigurableFieldSpec(id="a"), ConfigurableFieldSpec(id="a")],
        )
    with pytest.raises(ConfigurationError, match="get_session_history must be a function"):
        RunnableWithMessageHistory(FakeListChatModel(responses=["r"]), "not callable")


def test_a_factory_that_returns_no_history_is_reported() -> None:
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["r"]), lambda s: [])
    with pytest.raises(ConfigurationError, match="returned list, not a chat message history"):
        chat.invoke("hi", SESSION)


def test_configurable_fields_of_the_wrapped_runnable_still_work() -> None:
    model = FakeListChatModel(responses=["default"]).configurable_alternatives(
        ConfigurableField(id="model"), other=FakeListChatModel(responses=["other"])
    )
    _, get = _sessions()
    chat = RunnableWithMessageHistory(model, get)
    reply = chat.invoke("hi", {"configurable": {"session_id": "s1", "model": "other"}})
    assert reply.content == "other"
    assert sorted(spec.id for spec in chat.config_specs) == ["model", "session_id"]


def test_stream_yields_chunks_then_writes_the_whole_reply_once() -> None:
    store, get = _sessions()
    chain = _prompt() | FakeListChatModel(responses=["Hello"]) | StrOutputParser()
    chat = RunnableWithMessageHistory(
        chain, get, input_messages_key="question", history_messages_key="history"
    )
    chunks = []
    for chunk in chat.stream({"ability": "x", "question": "hi"}, SESSION):
        chunks.append(chunk)
        assert store["s1"].writes == []  # nothing is written while the answer streams
    assert chunks == ["H", "e", "l", "l", "o"]
    assert store["s1"].writes == [[HumanMessage("hi"), AIMessage("Hello")]]


def test_streamed_chat_model_chunks_are_stored_added_up_as_one_chunk() -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["abc"]), get)
    assert [c.content for c in chat.stream("q", SESSION)] == ["a", "b", "c"]
    whole = AIMessageChunk("abc", chunk_position="last")
    assert no_run_ids(store["s1"].messages) == [HumanMessage("q"), whole]
    assert type(store["s1"].messages[1]) is AIMessageChunk  # as LangChain stores it


def test_a_stream_closed_early_or_failing_writes_nothing() -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["abcdef"]), get)
    stream = chat.stream("q", SESSION)
    next(stream)
    stream.close()
    assert store["s1"].messages == []
    failing = RunnableWithMessageHistory(
        FakeListChatModel(responses=["abcdef"], error_on_chunk_number=2), get
    )
    with pytest.raises(RuntimeError, match="error on chunk 2"):
        list(failing.stream("q", SESSION))
    assert store["s1"].messages == []


def test_a_failing_runnable_writes_nothing() -> None:
    store, get = _sessions()

    def boom(_: Any) -> str:
        raise ValueError("model down")

    with pytest.raises(ValueError, match="model down"):
        RunnableWithMessageHistory(RunnableLambda(boom), get).invoke("q", SESSION)
    assert store["s1"].messages == []


def test_batch_runs_one_turn_per_input() -> None:
    store, get = _sessions()
    chat = RunnableWithMessageHistory(RunnableLambda(lambda msgs: f"seen {len(msgs)}"), get)
    configs = [{"configurable": {"session_id": s}, "max_concurrency": 1} for s in ("a", "b", "a")]
    outputs = chat.batch(["x", "y", "z"], configs)  # type: ignore[arg-type]
    assert sorted(outputs) == ["seen 1", "seen 1", "seen 3"]
    assert len(store["a"].messages) == 4 and len(store["b"].messages) == 2


async def test_async_invoke_and_stream_use_the_async_history_methods() -> None:
    store, get = _sessions()
    chain = _prompt() | FakeListChatModel(responses=["one", "two"])
    chat = RunnableWithMessageHistory(
        chain, get, input_messages_key="question", history_messages_key="history"
    )
    reply = await chat.ainvoke({"ability": "x", "question": "q1"}, SESSION)
    assert reply.content == "one"
    chunks = [c.content async for c in chat.astream({"ability": "x", "question": "q2"}, SESSION)]
    assert chunks == ["t", "w", "o"]
    assert no_run_ids(store["s1"].writes) == [
        [HumanMessage("q1"), AIMessage("one")],
        [HumanMessage("q2"), AIMessageChunk("two", chunk_position="last")],
    ]
    results = await asyncio.gather(
        *(
            chat.ainvoke(
                {"ability": "x", "question": f"p{i}"}, {"configurable": {"session_id": f"p{i}"}}
            )
            for i in range(3)
        )
    )
    assert len(results) == 3 and all(len(store[f"p{i}"].messages) == 2 for i in range(3))


def test_callbacks_see_the_wrapper_run_and_everything_below_it() -> None:
    _, get = _sessions()
    chain = _prompt() | FakeListChatModel(responses=["r"])
    chat = RunnableWithMessageHistory(
        chain, get, input_messages_key="question", history_messages_key="history"
    )
    collector = RunCollectorCallbackHandler()
    chat.invoke(
        {"ability": "x", "question": "q"},
        {"configurable": {"session_id": "s1"}, "callbacks": [collector], "tags": ["chat"]},
    )
    (root,) = collector.traced_runs
    assert root.tree() == (
        "RunnableWithMessageHistory",
        [("RunnableSequence", [("ChatPromptTemplate", []), ("FakeListChatModel", [])])],
    )
    assert root.inputs == {"ability": "x", "question": "q"}
    assert no_run_ids(root.outputs) == {"output": AIMessage("r")}
    assert root.tags == ["chat"]
    sequence = root.children[0]
    assert sequence.inputs == {"ability": "x", "question": "q", "history": []}


def test_a_subclass_history_with_only_messages_and_add_message_works() -> None:
    """A LangChain-style custom history (messages list + add_message) plugs in."""

    class Custom(BaseChatMessageHistory):
        def __init__(self) -> None:
            self.messages: list[BaseMessage] = []

        def add_message(self, message: BaseMessage) -> None:
            self.messages.append(message)

        def clear(self) -> None:
            self.messages = []

    history = Custom()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["r"]), lambda s: history)
    chat.invoke("hi", SESSION)
    assert no_run_ids(history.messages) == [HumanMessage("hi"), AIMessage("r")]


def test_the_session_key_may_come_from_an_enclosing_call() -> None:
    """Inside a bigger chain, the wrapper reads the keys of the config the chain got."""
    store, get = _sessions()
    chat = RunnableWithMessageHistory(FakeListChatModel(responses=["r"]), get)
    outer = RunnableLambda(lambda text: text.strip()) | chat
    outer.invoke("  hi  ", {"configurable": {"session_id": "nested"}})
    assert no_run_ids(store["nested"].messages) == [HumanMessage("hi"), AIMessage("r")]
    chat.invoke("top level", {"session_id": "moved"})  # type: ignore[typeddict-unknown-key]
    assert store["moved"].messages[0] == HumanMessage("top level")


def test_verbose_none_is_taken_as_unset_and_a_non_flag_is_refused():
    # LangChain's constructor drops verbose= whatever it is; programs pass verbose=None
    # (an option left unset). None is taken (no effect), a string is still refused
    store: dict[str, InMemoryChatMessageHistory] = {}
    chain = RunnableWithMessageHistory(
        RunnableLambda(lambda messages: AIMessage("ok")),
        lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
        verbose=None,
    )
    assert chain.invoke([HumanMessage("hi")], config=SESSION).content == "ok"
    assert [m.content for m in store["s1"].messages] == ["hi", "ok"]
    with pytest.raises(ConfigurationError, match=r"verbose must be True, False or None, got 'yes'"):
        RunnableWithMessageHistory(
            RunnableLambda(lambda messages: AIMessage("ok")),
            lambda session_id: InMemoryChatMessageHistory(),
            verbose="yes",  # type: ignore[arg-type]
        )

"""Fake models: cycling responses, character streaming, stop sequences, recorded calls."""

from __future__ import annotations

import asyncio

import pytest
from _run_ids import no_run_ids

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatPromptTemplate,
    FakeListChatModel,
    FakeListLLM,
    FakeStreamingListLLM,
    HumanMessage,
    InvalidInputError,
    PromptTemplate,
    RunCollectorCallbackHandler,
    StrOutputParser,
    SystemMessage,
)


def test_fake_llm_cycles_through_its_responses_and_records_prompts():
    llm = FakeListLLM(responses=["one", "two"])
    assert [llm.invoke(f"q{n}") for n in range(3)] == ["one", "two", "one"]
    assert llm.calls == ["q0", "q1", "q2"]
    assert llm.i == 1


def test_fake_llm_streams_its_answer_whole_and_the_streaming_fake_by_character():
    # as LangChain's: FakeListLLM has no _stream; FakeStreamingListLLM yields characters
    llm = FakeListLLM(responses=["abc"])
    assert list(llm.stream("q")) == ["abc"]
    assert llm.calls == ["q"]
    streaming = FakeStreamingListLLM(responses=["abc"])
    assert list(streaming.stream("q")) == ["a", "b", "c"]
    assert streaming.calls == ["q"]


def test_fake_streaming_llm_error_on_chunk_number_fails_mid_stream():
    llm = FakeStreamingListLLM(responses=["abcd"], error_on_chunk_number=2)
    received = []
    with pytest.raises(RuntimeError, match="error on chunk 2"):
        for piece in llm.stream("x"):
            received.append(piece)
    assert received == ["a", "b"]


def test_fake_llm_renders_chat_prompts_as_text():
    llm = FakeListLLM(responses=["x"])
    (ChatPromptTemplate.from_messages([("system", "s"), ("human", "{q}")]) | llm).invoke("h")
    assert llm.calls == ["System: s\nHuman: h"]


def test_fake_chat_model_cycles_and_records_messages():
    model = FakeListChatModel(responses=["Paris.", "Rome."])
    chain = ChatPromptTemplate.from_messages([("system", "Geo bot."), ("human", "{q}")]) | model
    assert [chain.invoke(q).content for q in ("France?", "Italy?", "Spain?")] == [
        "Paris.",
        "Rome.",
        "Paris.",
    ]
    assert model.calls == [
        [SystemMessage("Geo bot."), HumanMessage("France?")],
        [SystemMessage("Geo bot."), HumanMessage("Italy?")],
        [SystemMessage("Geo bot."), HumanMessage("Spain?")],
    ]
    assert model.stops == [None, None, None]


def test_fake_chat_model_streams_one_chunk_per_character():
    model = FakeListChatModel(responses=["Hi!"])
    chunks = list(model.stream("x"))
    # the last one marked as LangChain's fake marks it (so no closing empty chunk follows)
    assert no_run_ids(chunks) == [
        AIMessageChunk("H"),
        AIMessageChunk("i"),
        AIMessageChunk("!", chunk_position="last"),
    ]
    total = chunks[0] + chunks[1] + chunks[2]
    assert no_run_ids(total.to_message()) == AIMessage("Hi!")


def test_streams_and_invokes_share_one_cursor():
    model = FakeListChatModel(responses=["a", "bb", "ccc"])
    assert model.invoke("x").content == "a"
    assert "".join(c.content for c in model.stream("x")) == "bb"
    assert (model | StrOutputParser()).invoke("x") == "ccc"
    assert model.invoke("x").content == "a"


def test_stop_sequences_are_recorded_and_the_answer_stays_whole_as_langchains():
    model = FakeListChatModel(responses=["Answer: 42\nObservation: more"])
    assert model.bind(stop=["\nObservation"]).invoke("q").content == (
        "Answer: 42\nObservation: more"
    )
    assert model.stops == [["\nObservation"]]
    llm = FakeStreamingListLLM(responses=["one. two"])
    assert list(llm.stream("q", stop=[". t", "three"])) == list("one. two")
    assert llm.stops == [[". t", "three"]]


def test_error_on_chunk_number_fails_mid_stream():
    model = FakeListChatModel(responses=["abcd"], error_on_chunk_number=2)
    received = []
    with pytest.raises(RuntimeError, match="error on chunk 2"):
        for chunk in model.stream("x"):
            received.append(chunk.content)
    assert received == ["a", "b"]


async def test_async_streaming_with_sleep():
    model = FakeListChatModel(responses=["abc"], sleep=0.001)
    collector = RunCollectorCallbackHandler()
    chunks = [c.content async for c in model.astream("x", {"callbacks": [collector]})]
    assert chunks == ["a", "b", "c"]
    assert [event for event, _ in collector.event_log] == [
        "chat_model_start", "llm_new_token", "llm_new_token", "llm_new_token", "llm_end",
    ]  # fmt: skip
    assert (await model.ainvoke("y")).content == "abc"
    assert model.calls == [[HumanMessage("x")], [HumanMessage("y")]]


async def test_async_sleep_lets_other_streams_run_in_between():
    order: list[str] = []

    async def consume(name: str) -> None:
        model = FakeListChatModel(responses=["abc"], sleep=0.01)
        async for chunk in model.astream("x"):
            order.append(f"{name}{chunk.content}")

    await asyncio.gather(consume("1"), consume("2"))
    assert sorted(order) == ["1a", "1b", "1c", "2a", "2b", "2c"]
    # the waits are awaited (a blocking sleep would run one stream to its end first)
    assert order[:3] != ["1a", "1b", "1c"]


async def test_async_fake_llm():
    llm = FakeListLLM(responses=["xy"])
    assert [c async for c in llm.astream("q")] == ["xy"]
    assert await llm.ainvoke("q") == "xy"
    streaming = FakeStreamingListLLM(responses=["xy"], sleep=0.001)
    assert [c async for c in streaming.astream("q")] == ["x", "y"]


def test_batch_uses_each_response_once():
    model = FakeListChatModel(responses=["1", "2", "3", "4"])
    answers = (PromptTemplate.from_template("{q}") | model | StrOutputParser()).batch(
        ["a", "b", "c", "d"]
    )
    assert sorted(answers) == ["1", "2", "3", "4"]  # threads may take them in any order
    assert sorted(call[0].content for call in model.calls) == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"responses": []}, "needs a non-empty list of responses, got []"),
        ({"responses": "abc"}, "needs a non-empty list of responses, got 'abc'"),
        ({"responses": ["ok", 3]}, "responses must be strings, got 3"),
        (
            {"responses": ["ok"], "sleep": -1},
            "sleep (seconds) must be a finite number >= 0 or None, got -1",
        ),
    ],
)
def test_bad_options_are_rejected(kwargs, message):
    with pytest.raises(InvalidInputError) as info:
        FakeListChatModel(**kwargs)
    assert str(info.value) == f"FakeListChatModel {message}"


def test_repr():
    assert repr(FakeListChatModel(responses=["a"])) == "FakeListChatModel(responses=['a'])"
    assert repr(FakeListLLM(responses=["a"])) == "FakeListLLM(responses=['a'])"


def test_a_single_stop_string_is_one_sequence():
    model = FakeListChatModel(responses=["ab\ncd"])
    assert model.invoke("x", stop="\n").content == "ab\ncd"
    assert model.stops == [["\n"]]
    with pytest.raises(
        InvalidInputError, match=r"stop must be a string or a list of non-empty strings, got \[''\]"
    ):
        model.invoke("x", stop=[""])
    with pytest.raises(
        InvalidInputError, match="stop must be a string or a list of non-empty strings, got 5"
    ):
        model.invoke("x", stop=5)


# --------------------------------------------------------------------------- scripted messages


def _scripted():
    from ragline.core import FakeMessagesListChatModel

    return FakeMessagesListChatModel(
        responses=[
            AIMessage(
                "Let me add.",
                tool_calls=[
                    {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1"},
                    {"name": "add", "args": {"a": 3, "b": 4}, "id": "call_2"},
                ],
                id="run-1",
            ),
            "The sums are 3 and 7.",
        ]
    )


def test_fake_messages_model_answers_with_its_scripted_messages_in_turn():
    model = _scripted()
    first = model.invoke("add things")
    assert [call["args"] for call in first.tool_calls] == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert first.tool_calls[0] == {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1",
                                   "type": "tool_call"}  # fmt: skip
    assert no_run_ids(model.invoke("next")) == AIMessage("The sums are 3 and 7.")
    assert model.invoke("again") == first  # cycles
    first.tool_calls.clear()
    assert len(model.responses[0].tool_calls) == 2  # callers get copies
    assert model.calls[1] == [HumanMessage("next")]


def test_fake_messages_model_streams_its_reply_whole():
    # as LangChain's (it has no _stream): the scripted AIMessage itself, tool calls whole
    model = _scripted()
    chunks = list(model.stream("x"))
    assert chunks == [model.responses[0]]
    assert type(chunks[0]) is AIMessage


def test_fake_messages_model_accepts_bind_tools_and_records_the_tools():
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    model = _scripted()
    bound = model.bind_tools([add], tool_choice="any")
    assert bound.invoke("x").tool_calls[0]["name"] == "add"
    assert model.call_options == [
        {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "add",
                        "description": "Add two integers.",
                        "parameters": {
                            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                            "required": ["a", "b"],
                            "type": "object",
                        },
                    },
                }
            ],
            "tool_choice": "any",
        }
    ]


def test_fake_messages_model_bind_tools_through_fallbacks_binds_every_model():
    # bind_tools is annotated to return a Runnable, so with_fallbacks hands the call to the
    # primary and to each fallback, each bound to the same tools
    from ragline.core import FakeMessagesListChatModel

    tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
    backup = FakeMessagesListChatModel(responses=[AIMessage("from the backup")])
    primary = FakeMessagesListChatModel(responses=[AIMessage("from the primary")])
    both = primary.with_fallbacks([backup]).bind_tools([tool], tool_choice="auto")
    assert both.invoke("x").content == "from the primary"
    assert primary.call_options == [{"tools": [tool], "tool_choice": "auto"}]
    assert [r.kwargs for r in both.fallbacks] == [{"tools": [tool], "tool_choice": "auto"}]


def test_fake_messages_model_refuses_bad_scripts():
    from ragline.core import FakeMessagesListChatModel

    with pytest.raises(InvalidInputError, match="needs a non-empty list of responses"):
        FakeMessagesListChatModel(responses=[])
    with pytest.raises(InvalidInputError, match="responses must be AIMessages or strings, got 3"):
        FakeMessagesListChatModel(responses=[3])  # type: ignore[list-item]


@pytest.mark.parametrize("annotated", [True, False])
def test_a_subclass_declaring_responses_reads_and_sets_its_live_script(annotated):
    # a pydantic-style subclass gives responses a default; .responses must still be the
    # script the model answers from, and assigning it must change what it answers
    # (the declared class attribute used to hide the property: reads gave the default,
    # assignments went nowhere)
    if annotated:

        class Stand(FakeListChatModel):
            responses: list = ["unused"]  # noqa: RUF012

    else:

        class Stand(FakeListChatModel):  # type: ignore[no-redef]
            responses = ["unused"]  # noqa: RUF012

    given = Stand(responses=["a", "b"])
    assert given.responses == ["a", "b"]
    assert given.invoke("x").content == "a"
    default = Stand()
    assert default.responses == ["unused"]
    default.responses = ["c"]
    assert (default.responses, default.invoke("x").content) == (["c"], "c")
    assert Stand().invoke("x").content == "unused"  # the default is not shared

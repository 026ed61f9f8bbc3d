"""Parity: RunnableWithMessageHistory against langchain_core's: what each turn returns
and what each session's history holds, for the documented ways of wiring it up.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_core.chat_history import InMemoryChatMessageHistory
    from langchain_core.language_models import FakeListChatModel as LCFakeChat
    from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
    from langchain_core.prompts import ChatPromptTemplate as LCChatPrompt
    from langchain_core.prompts import MessagesPlaceholder as LCPlaceholder
    from langchain_core.runnables import ConfigurableFieldSpec as LCFieldSpec
    from langchain_core.runnables import RunnableLambda as LCLambda
    from langchain_core.runnables.history import RunnableWithMessageHistory as LCWithHistory
import langchain_core.messages as lc_messages

import ragline.core as rl
from tests.parity._observe import observe

COVERS = {"core.RunnableWithMessageHistory", "core.ConfigurableFieldSpec"}

LC = {
    "WithHistory": LCWithHistory,
    "History": InMemoryChatMessageHistory,
    "Prompt": LCChatPrompt,
    "Placeholder": LCPlaceholder,
    "Chat": LCFakeChat,
    "Str": LCStrOutputParser,
    "Lambda": LCLambda,
    "FieldSpec": LCFieldSpec,
    "messages": lc_messages,
}
RL = {
    "WithHistory": rl.RunnableWithMessageHistory,
    "History": rl.ChatMessageHistory,
    "Prompt": rl.ChatPromptTemplate,
    "Placeholder": rl.MessagesPlaceholder,
    "Chat": rl.FakeListChatModel,
    "Str": rl.StrOutputParser,
    "Lambda": rl.RunnableLambda,
    "FieldSpec": rl.ConfigurableFieldSpec,
    "messages": rl,
}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():  # deprecated in LangChain
        warnings.simplefilter("ignore")
        yield


def both(run: Any) -> tuple[Any, Any]:
    return observe(run(LC)), observe(run(RL))


def _sessions(m: dict[str, Any]) -> tuple[dict[Any, Any], Any]:
    store: dict[Any, Any] = {}

    def get(*key: Any) -> Any:
        if key not in store:
            store[key] = m["History"]()
        return store[key]

    return store, get


def _session(session_id: str) -> dict[str, Any]:
    return {"configurable": {"session_id": session_id}}


def test_a_prompt_chain_with_two_sessions() -> None:
    def run(m: dict[str, Any]) -> Any:
        store, get = _sessions(m)
        prompt = m["Prompt"].from_messages(
            [("system", "Be brief."), m["Placeholder"]("history"), ("human", "{question}")]
        )
        chain = prompt | m["Chat"](responses=["one", "two", "three"])
        with_history = m["WithHistory"](
            chain, get, input_messages_key="question", history_messages_key="history"
        )
        return [
            with_history.invoke({"question": "hi"}, _session("a")),
            with_history.invoke({"question": "again"}, _session("a")),
            with_history.invoke({"question": "other"}, _session("b")),
            store[("a",)].messages,
            store[("b",)].messages,
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert len(ours[3]) == 4


def test_messages_in_and_strings_out() -> None:
    def run(m: dict[str, Any]) -> Any:
        store, get = _sessions(m)
        plain = m["WithHistory"](m["Chat"](responses=["r1", "r2"]), get)
        seen = [
            plain.invoke([m["messages"].HumanMessage(content="q1")], _session("s")),
            plain.invoke("q2", _session("s")),
            store[("s",)].messages,
        ]
        store, get = _sessions(m)
        prompt = m["Prompt"].from_messages([m["Placeholder"]("history"), ("human", "{input}")])
        text = m["WithHistory"](
            prompt | m["Chat"](responses=["a1", "a2"]) | m["Str"](),
            get,
            input_messages_key="input",
            history_messages_key="history",
        )
        streaming = m["WithHistory"](m["Chat"](responses=["hi there"]), get)
        seen += [
            text.invoke({"input": "x"}, _session("z")),
            text.invoke({"input": "y"}, _session("z")),
            store[("z",)].messages,
            list(streaming.stream("q", _session("t"))),
        ]
        return seen

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[5][-1] == ("AIMessage", "a2", None)


def test_a_streamed_reply_is_stored_as_the_added_up_chunk() -> None:
    # stream / astream store the reply the chunks add up to, an AIMessageChunk, in
    # LangChain; the next turn gives it to the model as it was stored
    import asyncio

    def run(m: dict[str, Any]) -> Any:
        store, get = _sessions(m)
        chat = m["WithHistory"](m["Chat"](responses=["one two", "three", "four"]), get)
        streamed = [chunk.content for chunk in chat.stream("q1", _session("s"))]

        async def more() -> list[Any]:
            return [chunk.content async for chunk in chat.astream("q2", _session("s"))]

        streamed += asyncio.run(more())
        reply = chat.invoke("q3", _session("s"))
        stored = store[("s",)].messages
        return [
            streamed,
            reply,
            stored,
            [type(message).__name__ for message in stored],
            [getattr(message, "chunk_position", None) for message in stored],
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[3] == [
        "HumanMessage",
        "AIMessageChunk",
        "HumanMessage",
        "AIMessageChunk",
        "HumanMessage",
        "AIMessage",
    ]


def test_output_messages_key_and_history_factory_config() -> None:
    def run(m: dict[str, Any]) -> Any:
        store, get = _sessions(m)
        answer = m["WithHistory"](
            m["Lambda"](lambda x: {"answer": "ok", "extra": 1}),
            get,
            input_messages_key="q",
            output_messages_key="answer",
        )
        seen = [answer.invoke({"q": "hi"}, _session("x")), store[("x",)].messages]
        store, get = _sessions(m)
        spec = m["FieldSpec"]

        def by_user(user_id: str, conversation_id: str) -> Any:
            return get(user_id, conversation_id)

        keyed = m["WithHistory"](
            m["Chat"](responses=["u1", "u2"]),
            by_user,
            history_factory_config=[
                spec(
                    id="user_id",
                    annotation=str,
                    name="User ID",
                    description="",
                    default="",
                    is_shared=True,
                ),
                spec(
                    id="conversation_id",
                    annotation=str,
                    name="Conversation",
                    description="",
                    default="",
                    is_shared=True,
                ),
            ],
        )
        config = {"configurable": {"user_id": "u", "conversation_id": "c"}}
        seen += [keyed.invoke("hey", config), store[("u", "c")].messages]
        return seen

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[3] == [("HumanMessage", "hey", None), ("AIMessage", "u1", None)]


def test_a_missing_session_id_is_a_value_error() -> None:
    for m in (LC, RL):
        _, get = _sessions(m)
        with_history = m["WithHistory"](m["Chat"](responses=["x"]), get)
        with pytest.raises(ValueError, match="session_id"):
            with_history.invoke("q")


SCHEMA_WIRINGS = [
    {},
    {"input_messages_key": "question"},
    {"input_messages_key": "question", "history_messages_key": "history"},
    {
        "input_messages_key": "question",
        "history_messages_key": "history",
        "output_messages_key": "answer",
    },
    {"output_messages_key": "answer"},
]


def schema_chain(lib: dict[str, Any], wiring: dict[str, str]) -> tuple[Any, Any]:
    """The wrapped runnable for a wiring and the RunnableWithMessageHistory around it."""
    runnable = lib["Chat"](responses=["fine"])
    if "input_messages_key" in wiring:
        messages: list[Any] = [("system", "Be brief.")]
        if "history_messages_key" in wiring:
            messages.append(lib["Placeholder"](wiring["history_messages_key"]))
        messages.append(("human", "{" + wiring["input_messages_key"] + "}"))
        runnable = lib["Prompt"].from_messages(messages) | runnable
    if "output_messages_key" in wiring:
        key = wiring["output_messages_key"]
        runnable = runnable | lib["Lambda"](lambda message: {key: message})
    histories: dict[str, Any] = {}
    return runnable, lib["WithHistory"](
        runnable, lambda session: histories.setdefault(session, lib["History"]()), **wiring
    )


@pytest.mark.parametrize("wiring", SCHEMA_WIRINGS)
def test_input_and_output_schemas(wiring: dict[str, str]) -> None:
    """The input schema is LangChain's for every wiring (the BaseMessage def without
    LangChain's class docstring). The output schema has LangChain's title and describes
    what a call returns, the wrapped runnable's output; LangChain's describes its
    history-loading step (a deliberate difference)."""
    _, theirs = schema_chain(LC, wiring)
    wrapped, ours = schema_chain(RL, wiring)
    config = {"configurable": {"session_id": "s"}}
    expected = theirs.input_schema.model_json_schema()
    del expected["$defs"]["BaseMessage"]["description"]
    assert ours.input_schema.model_json_schema() == expected
    assert ours.get_input_schema(config).model_json_schema() == expected
    assert ours.get_input_jsonschema() == expected

    lc_output = theirs.output_schema.model_json_schema()
    output = ours.output_schema.model_json_schema()
    assert output["title"] == lc_output["title"] == "RunnableWithChatHistoryOutput"
    assert ours.get_output_schema(config).model_json_schema() == output
    assert output == {**wrapped.output_schema.model_json_schema(), "title": output["title"]}
    # LangChain's output schema is its history-loading step's output
    loads_into_dict = "input_messages_key" in wiring or "history_messages_key" in wiring
    assert lc_output.get("type") == ("object" if loads_into_dict else "array")
    if "output_messages_key" not in wiring:  # a chat model's reply, which LangChain's misses
        assert {"$ref": "#/$defs/AIMessage"} in output["oneOf"]
    assert ours.OutputType == wrapped.OutputType

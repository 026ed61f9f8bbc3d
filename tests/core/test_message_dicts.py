"""messages_to_dict / messages_from_dict / message_to_dict: LangChain's JSON shape, both
ways (checked against langchain-core itself), every message type, clear errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _chat_history_contract import RICH_MESSAGES

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatMessageChunk,
    FunctionMessageChunk,
    HumanMessage,
    InvalidInputError,
    message_to_dict,
    messages_from_dict,
    messages_to_dict,
)
from ragline.core.messages import HumanMessageChunk, SystemMessageChunk, ToolMessageChunk

CHUNKS = [
    AIMessageChunk("par", id="c1"),
    HumanMessageChunk("h"),
    SystemMessageChunk("s"),
    ChatMessageChunk("c", role="critic"),
    ToolMessageChunk("t", tool_call_id="call-9"),
    FunctionMessageChunk("f", name="fn"),
]


def test_the_shape_is_type_plus_data_with_the_type_repeated() -> None:
    assert message_to_dict(HumanMessage("hi", id="m1", name="ada")) == {
        "type": "human",
        "data": {
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "human",
            "name": "ada",
            "id": "m1",
        },
    }
    ai = message_to_dict(AIMessage("x", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c"}]))
    assert list(ai["data"]) == [
        "content",
        "additional_kwargs",
        "response_metadata",
        "type",
        "name",
        "id",
        "tool_calls",
        "invalid_tool_calls",
        "usage_metadata",
    ]
    assert ai["data"]["tool_calls"] == [
        {"name": "f", "args": {"a": 1}, "id": "c", "type": "tool_call"}
    ]


@pytest.mark.parametrize("message", RICH_MESSAGES + CHUNKS, ids=lambda m: type(m).__name__)
def test_every_type_round_trips_through_json(message: Any) -> None:
    text = json.dumps(messages_to_dict([message]))
    (back,) = messages_from_dict(json.loads(text))
    assert back == message
    assert type(back) is type(message)


def test_the_dict_is_a_copy() -> None:
    message = AIMessage("x", response_metadata={"k": [1]})
    data = message_to_dict(message)
    data["data"]["response_metadata"]["k"].append(2)
    assert message.response_metadata == {"k": [1]}


def test_keys_the_class_does_not_have_become_extra_fields() -> None:
    """Older LangChain dicts carry "example"; LangChain's messages keep such keys as extra
    fields, and so do ragline's; one that cannot be a field is left out."""
    (message,) = messages_from_dict(
        [{"type": "human", "data": {"content": "hi", "example": False, "extra": 1, "text": 2}}]
    )
    assert message == HumanMessage("hi", example=False, extra=1)
    assert message != HumanMessage("hi")
    assert (message.example, message.extra, message.text) == (False, 1, "hi")
    assert message_to_dict(message)["data"]["extra"] == 1


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ("text", "takes a list of message dicts, got str"),
        ({"type": "human"}, "takes a list of message dicts, got dict"),
        ([{"type": "human"}], r"message dict at position 0 must look like"),
        ([{"type": "robot", "data": {}}], r"unknown message type 'robot' at position 0"),
        (
            [{"type": "human", "data": {"content": "a"}}, {"type": "tool", "data": {"content": 1}}],
            r"'tool' message dict at position 1 cannot be loaded",
        ),
    ],
)
def test_malformed_dicts_say_what_is_wrong(items: Any, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        messages_from_dict(items)


def test_an_unknown_message_class_cannot_be_turned_into_a_dict() -> None:
    class Custom(HumanMessage):
        pass

    with pytest.raises(InvalidInputError, match="cannot turn Custom into a dict"):
        message_to_dict(Custom("x"))


# ---------------------------------------------------------------- against langchain-core


def _langchain_messages() -> list[Any]:
    messages = pytest.importorskip("langchain_core.messages")
    return [
        messages.SystemMessage("You are terse.", id="m0"),
        messages.HumanMessage(
            ["Look: ", {"type": "image_url", "image_url": {"url": "data:,x"}}],
            name="ada",
            id="m1",
        ),
        messages.AIMessage(
            "",
            tool_calls=[{"name": "search", "args": {"q": "ragline", "k": 2}, "id": "call-1"}],
            invalid_tool_calls=[
                {"name": "calc", "args": "{1+", "id": "call-2", "error": "bad json"}
            ],
            usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
            response_metadata={"model_name": "test-model", "finish_reason": "tool_calls"},
            additional_kwargs={"refusal": None},
        ),
        messages.ToolMessage(
            "2 hits", tool_call_id="call-1", artifact={"hits": [1, 2]}, status="success"
        ),
        messages.ToolMessage("boom", tool_call_id="call-2", status="error"),
        messages.ChatMessage("Looks fine.", role="critic"),
        messages.FunctionMessage('{"temp": 21}', name="weather"),
        messages.AIMessage("Héllo wörld ✓ — 你好"),
    ]


def test_a_history_written_by_langchain_loads_here() -> None:
    """The same conversation built in langchain-core, dumped to JSON by langchain-core,
    loads into ragline messages equal to ours."""
    from langchain_core.messages import messages_to_dict as lc_messages_to_dict

    text = json.dumps(lc_messages_to_dict(_langchain_messages()))
    assert messages_from_dict(json.loads(text)) == RICH_MESSAGES


def test_a_history_written_here_loads_in_langchain() -> None:
    """Our JSON loads in langchain-core into messages equal to the ones built there, and
    langchain-core writes back exactly the dicts we wrote."""
    from langchain_core.messages import messages_from_dict as lc_messages_from_dict
    from langchain_core.messages import messages_to_dict as lc_messages_to_dict

    ours = messages_to_dict(RICH_MESSAGES)
    loaded = lc_messages_from_dict(json.loads(json.dumps(ours)))
    assert loaded == _langchain_messages()
    assert lc_messages_to_dict(loaded) == ours


def test_chunks_load_in_langchain_and_back() -> None:
    from langchain_core.messages import messages_from_dict as lc_messages_from_dict
    from langchain_core.messages import messages_to_dict as lc_messages_to_dict

    loaded = lc_messages_from_dict(messages_to_dict(CHUNKS))
    assert [type(m).__name__ for m in loaded] == [type(m).__name__ for m in CHUNKS]
    assert messages_from_dict(lc_messages_to_dict(loaded)) == CHUNKS

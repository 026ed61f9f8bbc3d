"""Parity: message chunks, tool-call records, message helpers and OpenAI tool schemas.

Each scenario runs through langchain_core's names and ragline's and compares the
observable result: chunk sums, tool-call dicts, transcripts, message dicts, the JSON
schemas sent to a model, and the exception a program catches.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import Any

import langchain_core.messages as lc_messages
import langchain_core.utils.function_calling as lc_function_calling
import pytest
from pydantic import BaseModel, Field

import ragline.core as rl_core
import ragline.core.messages as rl_messages
from tests.parity._observe import observe

COVERS = {
    "core.BaseMessageChunk",
    "core.ChatMessageChunk",
    "core.FunctionMessageChunk",
    "core.HumanMessageChunk",
    "core.SystemMessageChunk",
    "core.ToolMessageChunk",
    "core.ToolCall",
    "core.ToolCallChunk",
    "core.InvalidToolCall",
    "core.UsageMetadata",
    "core.convert_to_messages",
    "core.get_buffer_string",
    "core.message_to_dict",
    "core.messages_from_dict",
    "core.messages_to_dict",
    "core.convert_to_openai_function",
    "core.convert_to_openai_tool",
}


def _namespace(*modules: Any) -> SimpleNamespace:
    names: dict[str, Any] = {}
    for module in modules:
        names.update({n: getattr(module, n) for n in dir(module) if not n.startswith("_")})
    return SimpleNamespace(**names)


LC = _namespace(lc_messages, lc_function_calling)
RL = _namespace(rl_messages, rl_core)


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


CHUNKS = [
    ("HumanMessageChunk", {}),
    ("SystemMessageChunk", {}),
    ("AIMessageChunk", {}),
    ("FunctionMessageChunk", {"name": "f"}),
    ("ToolMessageChunk", {"tool_call_id": "t1"}),
    ("ChatMessageChunk", {"role": "critic"}),
]


@pytest.mark.parametrize(("name", "fields"), CHUNKS)
def test_chunks_add_up(name: str, fields: dict[str, Any]) -> None:
    def run(m: Any) -> Any:
        cls = getattr(m, name)
        total = cls(content="ab", **fields) + cls(content="cd", **fields)
        return [
            type(total).__name__,
            total.content,
            total.type,
            {key: getattr(total, key) for key in fields},
            isinstance(total, m.BaseMessageChunk),
            isinstance(total, m.BaseMessage),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == "abcd"


def test_chat_chunks_of_different_roles_do_not_add() -> None:
    for m in (LC, RL):
        with pytest.raises(ValueError):
            m.ChatMessageChunk(content="a", role="x") + m.ChatMessageChunk(content="b", role="y")


def test_tool_call_chunks_assemble_into_tool_calls() -> None:
    def run(m: Any) -> Any:
        first = m.AIMessageChunk(
            content="",
            tool_call_chunks=[m.ToolCallChunk(name="f", args='{"a":', id="c1", index=0)],
        )
        rest = m.AIMessageChunk(
            content="", tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0}]
        )
        whole = first + rest
        usage = m.AIMessageChunk(
            content="a",
            usage_metadata=m.UsageMetadata(input_tokens=1, output_tokens=2, total_tokens=3),
        ) + m.AIMessageChunk(
            content="b", usage_metadata={"input_tokens": 0, "output_tokens": 4, "total_tokens": 4}
        )
        return {
            "chunks": whole.tool_call_chunks,
            "calls": whole.tool_calls,
            "partial_calls": first.tool_calls,
            "partial_invalid": first.invalid_tool_calls,
            "usage": usage.usage_metadata,
            "records": [
                m.ToolCall(name="f", args={"x": 1}, id="c"),
                m.ToolCallChunk(name="f", args="{}", id="c", index=0),
                m.InvalidToolCall(name="f", args="{", id="c", error="bad"),
            ],
            "on_message": m.AIMessage(
                content="", tool_calls=[m.ToolCall(name="f", args={"x": 1}, id="c")]
            ).tool_calls,
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["calls"] == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert ours["usage"] == {"input_tokens": 1, "output_tokens": 6, "total_tokens": 7}


def test_a_chunk_given_whole_tool_calls_has_them_as_pieces() -> None:
    """AIMessageChunk(tool_calls=..., invalid_tool_calls=...) without pieces: LangChain's
    chunk also lists each call as a piece (arguments as JSON text, no index), so the
    printed chunk and a sum with streamed pieces hold them (port trial set 24, noticed)."""

    def run(m: Any) -> Any:
        whole = m.AIMessageChunk(
            content="",
            tool_calls=[{"name": "f", "args": {"q": "é", "n": [1, 2]}, "id": "c1"}],
            invalid_tool_calls=[{"name": "g", "args": "{bad", "id": "c2", "error": None}],
        )
        streamed = m.AIMessageChunk(
            content="", tool_call_chunks=[{"name": "h", "args": '{"a": 1}', "id": "c3", "index": 0}]
        )
        total = whole + streamed
        return {
            "repr": repr(whole),
            "pieces": whole.tool_call_chunks,
            "calls": whole.tool_calls,
            "sum_calls": total.tool_calls,
            "sum_invalid": total.invalid_tool_calls,
            "sum_pieces": total.tool_call_chunks,
            "no_calls": m.AIMessageChunk(content="x").tool_call_chunks,
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["pieces"][0] == {
        "name": "f",
        "args": '{"q": "\\u00e9", "n": [1, 2]}',
        "id": "c1",
        "index": None,
        "type": "tool_call_chunk",
    }


def _conversation(m: Any) -> list[Any]:
    return [
        m.SystemMessage(content="s"),
        m.HumanMessage(content="h"),
        m.AIMessage(content="a"),
        m.ChatMessage(content="c", role="critic"),
        m.ToolMessage(content="t", tool_call_id="1"),
        m.FunctionMessage(content="f", name="fn"),
        m.AIMessage(content="", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]),
        m.AIMessage(content="y", additional_kwargs={"function_call": {"name": "g"}}),
    ]


def test_get_buffer_string_writes_tool_calls_as_langchain_does() -> None:
    """An AI message's tool calls (else its function_call) follow its text (fails when
    ragline writes only the text: 'AI: ' for a tool-calling turn)."""
    theirs, ours = both(
        lambda m: [
            m.get_buffer_string(_conversation(m)),
            m.get_buffer_string(_conversation(m)[:3], human_prefix="User", ai_prefix="Bot"),
        ]
    )
    assert ours == theirs
    assert ours[0].splitlines()[-2:] == [
        "AI: [{'name': 'f', 'args': {'x': 1}, 'id': 'c1', 'type': 'tool_call'}]",
        "AI: y{'name': 'g'}",
    ]


def test_convert_to_messages() -> None:
    def run(m: Any) -> Any:
        return m.convert_to_messages(
            [
                ("human", "hi"),
                ("ai", "yo"),
                ("system", "s"),
                {"role": "user", "content": "u"},
                "plain",
                m.HumanMessage(content="h"),
                ("assistant", "a"),
                ("user", "u2"),
            ]
        )

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[4] == ("HumanMessage", "plain", None)
    for m in (LC, RL):
        with pytest.raises(ValueError):
            m.convert_to_messages([("alien", "x")])


def test_message_dicts_round_trip() -> None:
    def run(m: Any) -> Any:
        messages = _conversation(m)[:6]
        dicts = m.messages_to_dict(messages)
        return {
            "dicts": dicts,
            "one": m.message_to_dict(m.HumanMessage(content="h", id="x", name="n")),
            "back": m.messages_from_dict(m.messages_to_dict(_conversation(m))),
        }

    theirs, ours = both(run)
    assert ours == theirs
    assert ours["one"]["type"] == "human"
    for m in (LC, RL):
        with pytest.raises(ValueError):
            m.messages_from_dict([{"type": "alien", "data": {"content": "x"}}])


def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: first number
        b: second number
    """
    return a + b


class Inner(BaseModel):
    x: int = 1
    y: str | None = None


class Person(BaseModel):
    """A person."""

    name: str = Field(description="their name")
    age: int | None = None
    home: Inner
    past: list[Inner] = []


SCHEMA_DICT = {
    "name": "lookup",
    "description": "d",
    "parameters": {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "opt": {
                "anyOf": [
                    {"type": "object", "properties": {"k": {"type": "string"}}},
                    {"type": "null"},
                ]
            },
        },
    },
}


@pytest.mark.parametrize("strict", [None, False, True])
@pytest.mark.parametrize("target", [add, Person, SCHEMA_DICT], ids=["function", "model", "dict"])
def test_openai_function_and_tool_schemas(target: Any, strict: bool | None) -> None:
    """Same schema, key order included (a program prints or sends it). Strict mode lists
    every property as required at every level, as OpenAI's structured outputs ask (fails
    when ragline keeps the optional ones out of 'required')."""

    def run(m: Any) -> Any:
        return [
            m.convert_to_openai_function(target, strict=strict),
            m.convert_to_openai_tool(target, strict=strict),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert repr(ours) == repr(theirs)
    if strict:
        assert ours[0]["parameters"]["required"] == list(ours[0]["parameters"]["properties"])


def test_developer_role_is_a_marked_system_message() -> None:
    """('developer', text) is a SystemMessage marked for OpenAI's developer role, in both
    (fails when ragline refuses the role); ragline's ChatOpenAI sends that role."""
    from ragline.chat_models._openai import message_to_openai

    def run(m: Any) -> Any:
        messages = m.convert_to_messages(
            [("developer", "be nice"), {"role": "developer", "content": "x"}]
        )
        return [(observe(x), x.additional_kwargs) for x in messages]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == [["SystemMessage", "be nice", None], {"__openai_role__": "developer"}]
    developer = RL.convert_to_messages([("developer", "be nice")])[0]
    assert message_to_openai(developer) == {"role": "developer", "content": "be nice"}

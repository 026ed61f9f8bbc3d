"""Messages, documents and configs cross the LangChain bridge field for field."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from langchain_core import messages as lc_messages
from langchain_core.documents import Document as LCDocument

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    Document,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from ragline.core.exceptions import InvalidInputError
from ragline.interop import langchain as bridge

USAGE: Any = {
    "input_tokens": 12,
    "output_tokens": 5,
    "total_tokens": 17,
    "input_token_details": {"cache_read": 4},
}
MESSAGES = [
    SystemMessage("be brief", id="s1", name="rules"),
    HumanMessage(
        [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}],
        id="h1",
        additional_kwargs={"k": [1, 2]},
    ),
    AIMessage(
        "",
        id="a1",
        tool_calls=[
            {"name": "search", "args": {"query": "cats"}, "id": "call_1", "type": "tool_call"}
        ],
        invalid_tool_calls=[
            {
                "name": "f",
                "args": "{bad",
                "id": "call_2",
                "error": "bad json",
                "type": "invalid_tool_call",
            }
        ],
        usage_metadata=USAGE,
        response_metadata={"model_name": "m", "finish_reason": "tool_calls"},
    ),
    ToolMessage("found", tool_call_id="call_1", id="t1", status="error", artifact={"n": 1}),
    ChatMessage("hi", role="critic", id="c1"),
    FunctionMessage("42", name="answer", id="f1"),
    AIMessageChunk(
        "par",
        id="a2",
        tool_call_chunks=[
            {"name": "search", "args": '{"q', "id": "call_3", "index": 0, "type": "tool_call_chunk"}
        ],
    ),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_a_message_crosses_both_ways_with_every_field(message: Any) -> None:
    converted = bridge.message_to_langchain(message)
    assert type(converted).__name__ == type(message).__name__
    assert converted.id == message.id
    assert converted.content == message.content
    back = bridge.message_from_langchain(converted)
    assert type(back) is type(message)
    assert back.model_dump() == message.model_dump()


def test_ai_message_fields_are_langchain_s_own() -> None:
    converted = bridge.message_to_langchain(MESSAGES[2])
    assert converted.tool_calls == [
        {"name": "search", "args": {"query": "cats"}, "id": "call_1", "type": "tool_call"}
    ]
    assert converted.usage_metadata == USAGE
    assert converted.response_metadata == {"model_name": "m", "finish_reason": "tool_calls"}
    assert converted.invalid_tool_calls[0]["error"] == "bad json"


def test_a_langchain_message_type_ragline_lacks_raises_naming_it() -> None:
    class PollMessage(lc_messages.BaseMessage):
        type: Literal["poll"] = "poll"

    with pytest.raises(InvalidInputError, match="PollMessage \\(type 'poll'\\)"):
        bridge.message_from_langchain(PollMessage("which day?"))


def test_a_remove_message_crosses_both_ways() -> None:
    ours = bridge.message_from_langchain(lc_messages.RemoveMessage(id="m-7"))
    assert type(ours) is RemoveMessage
    assert ours == RemoveMessage("m-7")
    theirs = bridge.message_to_langchain(RemoveMessage("m-7"))
    assert type(theirs) is lc_messages.RemoveMessage
    assert theirs == lc_messages.RemoveMessage(id="m-7")


def test_a_field_ragline_cannot_hold_raises_naming_it() -> None:
    class Tagged(lc_messages.HumanMessage):
        priority: int = 0

    assert bridge.message_from_langchain(Tagged("hi")) == HumanMessage(
        "hi"
    )  # default: nothing lost
    with pytest.raises(InvalidInputError, match="field 'priority'"):
        bridge.message_from_langchain(Tagged("hi", priority=3))


def test_the_last_chunk_marker_crosses_both_ways() -> None:
    # ragline's chunks carry LangChain 1.x's chunk_position too
    chunk = lc_messages.AIMessageChunk("x", id="a", chunk_position="last")
    ours = AIMessageChunk("x", id="a", chunk_position="last")
    assert bridge.message_from_langchain(chunk) == ours
    assert bridge.message_to_langchain(ours).chunk_position == "last"


def test_documents_cross_with_text_metadata_and_id() -> None:
    document = Document("cats purr", metadata={"source": "a.txt", "tags": ["x"]}, id="d1")
    converted = bridge.document_to_langchain(document)
    assert converted == LCDocument(
        "cats purr", metadata={"source": "a.txt", "tags": ["x"]}, id="d1"
    )
    assert bridge.document_from_langchain(converted) == document
    converted.metadata["tags"].append("y")  # a copy: the original is not shared
    assert document.metadata["tags"] == ["x"]

    class Scored(LCDocument):
        score: float | None = None

    with pytest.raises(InvalidInputError, match="field 'score'"):
        bridge.document_from_langchain(Scored("t", score=0.5))


def test_configs_cross_and_unknown_keys_are_named() -> None:
    config: Any = {
        "tags": ["a"],
        "metadata": {"user": "u"},
        "run_name": "step",
        "max_concurrency": 2,
        "recursion_limit": 9,
        "configurable": {"k": 3},
    }
    assert bridge.config_to_langchain(config) == config
    assert bridge.config_from_langchain(config) == config
    with pytest.raises(InvalidInputError, match="'mode'"):
        bridge.config_to_langchain({"tags": [], "mode": "x"})  # type: ignore[typeddict-unknown-key]


def test_the_package_pins_its_public_names() -> None:
    assert bridge.__all__ == [
        "config_from_langchain",
        "config_to_langchain",
        "document_from_langchain",
        "document_to_langchain",
        "from_langchain",
        "message_from_langchain",
        "message_to_langchain",
        "to_langchain",
    ]


def test_importing_the_bridge_loads_no_langchain() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ragline.interop.langchain import from_langchain, to_langchain\n"
        "import ragline.interop.langchain as bridge\n"
        "[getattr(bridge, name) for name in bridge.__all__]\n"
        "roots = ('langchain_core', 'pydantic')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in roots))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _same_pydantic_object(built: Any, validated: Any) -> None:
    """Equal in every way a program can see: class, fields (in order), which fields
    count as set, extras, repr and dumps."""
    assert type(built) is type(validated)
    assert built == validated
    assert list(built.__dict__.items()) == list(validated.__dict__.items())
    assert built.model_fields_set == validated.model_fields_set
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert repr(built) == repr(validated)
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert built.model_dump_json() == validated.model_dump_json()


PLAIN = [
    HumanMessage("hi"),
    HumanMessage("hi", id="h1", name="ann", additional_kwargs={"k": {"a": [1]}}),
    SystemMessage("be brief", id="s1", response_metadata={"x": 1}),
    AIMessage("echo: hi", id="lc_run--1", usage_metadata=USAGE, response_metadata={"n": 1}),
    AIMessage("", additional_kwargs={"refusal": None}),
]


@pytest.mark.parametrize("message", PLAIN, ids=lambda m: f"{type(m).__name__}-{m.id}")
def test_a_plain_message_is_built_as_langchain_s_constructor_builds_it(message: Any) -> None:
    # Text messages are built without pydantic's validation (the values are already
    # valid); the object is the one LangChain's own constructor makes.
    fields = dict(message.model_dump())
    fields.pop("type")
    validated = getattr(lc_messages, type(message).__name__)(**fields)
    _same_pydantic_object(bridge.message_to_langchain(message), validated)


def test_a_message_with_tool_calls_in_additional_kwargs_still_gets_langchain_s_parsing() -> None:
    raw = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]
    converted = bridge.message_to_langchain(AIMessage("", additional_kwargs={"tool_calls": raw}))
    assert converted.tool_calls == [
        {"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}
    ]


def test_a_document_is_built_as_langchain_s_constructor_builds_it() -> None:
    for document in (Document("t"), Document("cats", metadata={"a": {"b": 1}}, id="d1")):
        validated = LCDocument(
            page_content=document.page_content, metadata=document.metadata, id=document.id
        )
        _same_pydantic_object(bridge.document_to_langchain(document), validated)


def test_documents_are_built_in_one_loop_as_langchain_s_constructor_builds_each() -> None:
    from ragline.interop.langchain._convert import documents_to_langchain

    documents = [
        Document("t"),
        Document("cats", metadata={"a": {"b": [1, {"c": 2}]}}, id="d1"),
        Document("", metadata={}, id=""),
    ]
    converted = documents_to_langchain(iter(documents))
    assert len(converted) == len(documents)
    for built, document in zip(converted, documents, strict=True):
        validated = LCDocument(
            page_content=document.page_content, metadata=document.metadata, id=document.id
        )
        _same_pydantic_object(built, validated)
        assert built.__pydantic_private__ == validated.__pydantic_private__
        # the metadata is the document's own copy, empty or not, nested values too
        assert built.metadata is not document.metadata
    converted[1].metadata["a"]["b"][1]["c"] = 3
    converted[0].metadata["new"] = 1
    assert documents[1].metadata == {"a": {"b": [1, {"c": 2}]}}
    assert documents[0].metadata == {}
    # each document has its own set of the fields that count as set
    converted[0].__pydantic_fields_set__.discard("id")
    assert converted[2].model_fields_set == {"page_content", "metadata", "id"}
    assert documents_to_langchain([]) == []

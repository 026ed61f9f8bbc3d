"""Messages: construction, repr, chunk addition for streaming, conversion from tuples."""

from __future__ import annotations

import pytest

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    InvalidInputError,
    SystemMessage,
    ToolMessage,
)
from ragline.core.messages import (
    ChatMessage,
    HumanMessageChunk,
    ToolMessageChunk,
    add_ai_message_chunks,
    convert_to_messages,
    get_buffer_string,
)

USAGE_A = {"input_tokens": 10, "output_tokens": 1, "total_tokens": 11}
USAGE_B = {"input_tokens": 0, "output_tokens": 4, "total_tokens": 4}


def test_positional_and_keyword_content_are_the_same_message():
    assert HumanMessage("hi") == HumanMessage(content="hi")
    assert HumanMessage("hi") != AIMessage("hi")  # the class is part of equality
    assert [m.type for m in (SystemMessage("a"), HumanMessage("a"), AIMessage("a"))] == [
        "system",
        "human",
        "ai",
    ]
    assert ToolMessage("42", tool_call_id="c1").type == "tool"
    assert AIMessageChunk("a").type == "AIMessageChunk"


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        HumanMessage("hi", {"extra": 1})  # type: ignore[misc]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (42, r"HumanMessage\.content must be a str or a list of content blocks, got int"),
        (None, r"HumanMessage\.content must be a str .*got NoneType"),
        ({"type": "text"}, r"HumanMessage\.content must be a str .*got dict"),
        ([1], r"HumanMessage\.content\[0\] must be a str or a content block dict, got int"),
        (["x", None], r"HumanMessage\.content\[1\] must be .*got NoneType: None"),
    ],
)
def test_content_must_be_text_or_blocks(content, message):
    # a ValueError, as LangChain's (pydantic's ValidationError) is
    with pytest.raises(InvalidInputError, match=message):
        HumanMessage(content)


def test_a_tuple_of_blocks_is_a_list():
    assert HumanMessage(("a", {"type": "text", "text": "b"})).content == [
        "a",
        {"type": "text", "text": "b"},
    ]


def test_bytes_are_utf8_text_and_the_given_list_is_left_alone():
    # as LangChain's messages (pydantic's lax mode) decode them
    blocks: list = ["a", "é".encode(), bytearray(b"c")]
    message = HumanMessage(blocks)
    assert message.content == ["a", "é", "c"]
    assert blocks == ["a", "é".encode(), bytearray(b"c")]
    assert HumanMessage(b"tok").content == "tok"
    with pytest.raises(InvalidInputError, match=r"content\[1\] must be text; got bytes that are "):
        HumanMessage(["a", b"\xff"])
    with pytest.raises(InvalidInputError, match=r"HumanMessage\.content must be text"):
        HumanMessage(b"\xff")


def test_text_joins_text_blocks_and_skips_others():
    message = HumanMessage(
        ["Look at ", {"type": "text", "text": "this"}, {"type": "image_url", "image_url": "x"}]
    )
    assert message.text == "Look at this"


def test_repr_is_langchains_printed_form_with_the_text_whole():
    assert repr(HumanMessage("hi")) == (
        "HumanMessage(content='hi', additional_kwargs={}, response_metadata={})"
    )
    assert repr(ToolMessage("4", tool_call_id="c")) == "ToolMessage(content='4', tool_call_id='c')"
    long = AIMessage("x" * 200, id="m1")
    assert repr(long) == (
        f"AIMessage(content='{'x' * 200}', additional_kwargs={{}}, response_metadata={{}}, "
        "id='m1', tool_calls=[], invalid_tool_calls=[])"
    )


def test_ai_message_tool_calls_get_their_type_key():
    message = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "rag"}, "id": "c1"}])
    assert message.tool_calls == [
        {"name": "search", "args": {"q": "rag"}, "id": "c1", "type": "tool_call"}
    ]


def test_chunks_concatenate_content_and_sum_usage():
    total = (
        AIMessageChunk("Hel", id="run-1", usage_metadata=USAGE_A)
        + AIMessageChunk("lo", response_metadata={"model_name": "m"})
        + AIMessageChunk("!", usage_metadata=USAGE_B, response_metadata={"finish_reason": "stop"})
    )
    assert total == AIMessageChunk(
        "Hello!",
        id="run-1",
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        response_metadata={"model_name": "m", "finish_reason": "stop"},
    )
    assert total.to_message() == AIMessage(
        "Hello!",
        id="run-1",
        usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        response_metadata={"model_name": "m", "finish_reason": "stop"},
    )


def test_usage_details_are_summed_too():
    left = AIMessageChunk("", usage_metadata={**USAGE_A, "input_token_details": {"cache_read": 2}})
    right = AIMessageChunk("", usage_metadata={**USAGE_B, "input_token_details": {"cache_read": 3}})
    assert (left + right).usage_metadata == {
        "input_tokens": 10,
        "output_tokens": 5,
        "total_tokens": 15,
        "input_token_details": {"cache_read": 5},
    }


def test_tool_call_chunks_join_by_index_and_parse_as_they_arrive():
    first = AIMessageChunk(
        "",
        tool_call_chunks=[
            {"name": "search", "args": '{"query": "vec', "id": "call_a", "index": 0},
        ],
    )
    assert first.tool_calls == [
        {"name": "search", "args": {"query": "vec"}, "id": "call_a", "type": "tool_call"}
    ]
    second = AIMessageChunk(
        "",
        tool_call_chunks=[
            {"name": None, "args": 'tor stores"}', "id": None, "index": 0},
            {"name": "add", "args": '{"a": 1, "b": 2}', "id": "call_b", "index": 1},
        ],
    )
    whole = first + second
    assert whole.tool_call_chunks == [
        {
            "name": "search",
            "args": '{"query": "vector stores"}',
            "id": "call_a",
            "index": 0,
            "type": "tool_call_chunk",
        },
        {
            "name": "add",
            "args": '{"a": 1, "b": 2}',
            "id": "call_b",
            "index": 1,
            "type": "tool_call_chunk",
        },
    ]
    assert whole.tool_calls == [
        {"name": "search", "args": {"query": "vector stores"}, "id": "call_a", "type": "tool_call"},
        {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_b", "type": "tool_call"},
    ]
    assert whole.to_message().tool_calls == whole.tool_calls


def test_unparsable_tool_arguments_become_invalid_tool_calls():
    chunk = AIMessageChunk(
        "", tool_call_chunks=[{"name": "f", "args": "not json", "id": "c", "index": 0}]
    )
    assert chunk.tool_calls == []
    assert len(chunk.invalid_tool_calls) == 1
    assert chunk.invalid_tool_calls[0]["args"] == "not json"
    assert chunk.invalid_tool_calls[0]["name"] == "f"


def test_list_content_blocks_with_an_index_are_joined():
    left = AIMessageChunk([{"type": "text", "text": "Hel", "index": 0}])
    right = AIMessageChunk([{"type": "text", "text": "lo", "index": 0}])
    assert (left + right).content == [{"type": "text", "text": "Hello", "index": 0}]
    assert (AIMessageChunk("a") + AIMessageChunk(["b"])).content == ["a", "b"]


def test_additional_kwargs_merge_strings_and_dicts():
    left = AIMessageChunk("", additional_kwargs={"function_call": {"name": "f", "arguments": "{"}})
    right = AIMessageChunk("", additional_kwargs={"function_call": {"arguments": "}"}})
    assert (left + right).additional_kwargs == {"function_call": {"name": "f", "arguments": "{}"}}


def test_only_chunks_of_the_same_class_add_up():
    with pytest.raises(TypeError):
        AIMessageChunk("a") + HumanMessageChunk("b")
    with pytest.raises(TypeError):
        AIMessageChunk("a") + AIMessage("b")
    assert HumanMessageChunk("a") + HumanMessageChunk("b") == HumanMessageChunk("ab")


def test_tool_message_chunks_must_answer_the_same_call():
    assert ToolMessageChunk("4", tool_call_id="c") + ToolMessageChunk(
        "2", tool_call_id="c"
    ) == ToolMessageChunk("42", tool_call_id="c")
    with pytest.raises(InvalidInputError, match="'c' and 'd'"):
        ToolMessageChunk("4", tool_call_id="c") + ToolMessageChunk("2", tool_call_id="d")


def test_convert_to_messages_accepts_tuples_strings_and_dicts():
    assert convert_to_messages(
        [
            ("system", "Be brief."),
            ("user", "Hi"),
            ("assistant", "Hello"),
            "Bye",
            {"role": "tool", "content": "42", "tool_call_id": "c1"},
            AIMessage("kept"),
        ]
    ) == [
        SystemMessage("Be brief."),
        HumanMessage("Hi"),
        AIMessage("Hello"),
        HumanMessage("Bye"),
        ToolMessage("42", tool_call_id="c1"),
        AIMessage("kept"),
    ]


def test_a_wrong_role_names_the_valid_roles():
    with pytest.raises(InvalidInputError) as info:
        convert_to_messages([("bot", "hi")])
    assert str(info.value) == (
        "unknown message role 'bot' in ('bot', 'hi'); valid roles are "
        "'system', 'human', 'user', 'ai', 'assistant', 'tool', 'function'"
    )
    with pytest.raises(InvalidInputError, match="cannot turn 42 into a message"):
        convert_to_messages([42])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="tool_call_id"):
        convert_to_messages([("tool", "42")])


def test_a_message_dict_with_a_role_that_is_no_string_names_the_valid_roles():
    # a list or dict role is refused by name, as a wrong string role is (not a TypeError
    # from looking an unhashable role up)
    for role in (["user"], {"user": 1}):
        item = {"role": role, "content": "hi"}
        with pytest.raises(InvalidInputError) as info:
            convert_to_messages([item])  # type: ignore[list-item]
        assert str(info.value) == (
            f"unknown message role {role!r} in {item!r}; valid roles are "
            "'system', 'human', 'user', 'ai', 'assistant', 'tool', 'function'"
        )


def test_buffer_string_labels_each_role():
    messages = [
        SystemMessage("s"),
        HumanMessage("h"),
        AIMessageChunk("a"),
        ToolMessage("t", tool_call_id="1"),
        ChatMessage("c", role="critic"),
    ]
    assert get_buffer_string(messages) == "System: s\nHuman: h\nAI: a\nTool: t\ncritic: c"
    assert get_buffer_string(messages[1:3], human_prefix="Q", ai_prefix="A") == "Q: h\nA: a"


def test_function_messages_need_a_name_and_chunks_of_one_function_add_up():
    from ragline.core import FunctionMessage, FunctionMessageChunk

    assert FunctionMessage("21", name="weather").type == "function"
    with pytest.raises(InvalidInputError, match="FunctionMessage needs the function's name"):
        FunctionMessage("21")
    joined = FunctionMessageChunk("2", name="f") + FunctionMessageChunk("1", name="f")
    assert joined == FunctionMessageChunk("21", name="f")
    with pytest.raises(InvalidInputError, match="different functions: 'f' and 'g'"):
        FunctionMessageChunk("2", name="f") + FunctionMessageChunk("1", name="g")
    assert convert_to_messages([{"role": "function", "content": "x", "name": "f"}]) == [
        FunctionMessage("x", name="f")
    ]
    with pytest.raises(InvalidInputError, match="a function message needs a 'name'"):
        convert_to_messages([("function", "x")])
    assert get_buffer_string([FunctionMessage("x", name="f")]) == "Function: x"


def test_chat_message_chunks_of_one_role_add_up():
    from ragline.core import ChatMessageChunk

    assert ChatMessageChunk("a", role="critic") + ChatMessageChunk("b", role="critic") == (
        ChatMessageChunk("ab", role="critic")
    )
    with pytest.raises(InvalidInputError, match="different roles: 'critic' and 'judge'"):
        ChatMessageChunk("a", role="critic") + ChatMessageChunk("b", role="judge")
    assert get_buffer_string([ChatMessageChunk("a", role="critic")]) == "critic: a"


def test_invalid_tool_calls_carry_their_type():
    message = AIMessage(
        "", invalid_tool_calls=[{"name": "f", "args": "{", "id": "1", "error": "e"}]
    )
    assert message.invalid_tool_calls[0]["type"] == "invalid_tool_call"


def test_tool_messages_coerce_content_and_ids_as_langchain_does():
    import uuid

    # the values langchain-core 1.x gives for the same arguments
    assert ToolMessage(42, tool_call_id=1).content == "42"
    assert ToolMessage(42, tool_call_id=1).tool_call_id == "1"
    assert ToolMessage([1, "a", {"type": "text", "text": "t"}], tool_call_id=2.5).content == [
        "1", "a", {"type": "text", "text": "t"},
    ]  # fmt: skip
    assert ToolMessage("x", tool_call_id=2.5).tool_call_id == "2.5"
    assert ToolMessage(("a", 3), tool_call_id="c").content == ["a", "3"]
    assert ToolMessage("x", tool_call_id=uuid.UUID(int=1)).tool_call_id == (
        "00000000-0000-0000-0000-000000000001"
    )
    assert ToolMessage({"a": 1}, tool_call_id="c").content == "{'a': 1}"
    assert ToolMessage(None, tool_call_id="c").content == "None"
    with pytest.raises(InvalidInputError, match="tool_call_id must be a str"):
        ToolMessage("x", tool_call_id=["c"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "chunks",
    [
        [AIMessageChunk(c, id="run-1") for c in "streamed reply"],
        [
            AIMessageChunk("a", response_metadata={"model_name": None, "k": 1}),
            AIMessageChunk(
                "b", id="q", response_metadata={"k": None, "z": 2}, usage_metadata=USAGE_A
            ),
            AIMessageChunk("c", name="bot", usage_metadata=USAGE_B),
        ],
        [
            AIMessageChunk(
                "", tool_call_chunks=[{"name": "f", "args": '{"a"', "id": "1", "index": 0}]
            ),
            AIMessageChunk(
                "", tool_call_chunks=[{"name": None, "args": ": 1}", "id": None, "index": 0}]
            ),
        ],
        [AIMessageChunk("x", additional_kwargs={"k": "v"}), AIMessageChunk("y")],
    ],
    ids=["text", "metadata-and-usage", "tool-call-fragments", "extras"],
)
def test_adding_reply_chunks_in_one_step_equals_adding_them_one_by_one(chunks):
    one_by_one = chunks[0]
    for chunk in chunks[1:]:
        one_by_one = one_by_one + chunk
    assert add_ai_message_chunks(chunks) == one_by_one


def test_another_thread_never_sees_a_message_half_way_through_its_first_dict_read():
    # the first read of a message's __dict__ (vars, printing it) puts `type` among its
    # keys; rebuilding the instance dict in place left a moment with it empty or half
    # filled, so another thread reading the same message could get AttributeError
    # ('content') or a short vars()
    import sys
    import threading

    messages = [AIMessage(str(number)) for number in range(50_000)]
    problems: list[object] = []

    def print_them() -> None:
        for message in messages:
            if len(vars(message)) != 9:
                problems.append(sorted(vars(message)))

    def read_them() -> None:
        for message in messages:
            try:
                message.content  # noqa: B018
                message.usage_metadata  # noqa: B018
            except AttributeError as error:
                problems.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        threads = [threading.Thread(target=f) for f in (print_them, read_them) * 2]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert problems == []
    assert list(vars(messages[0])) == [
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


def test_a_message_class_with_a_type_property_lists_its_value_in_its_dict():
    # vars() wrote the class attribute itself, the property object, under 'type'
    class Ticket(HumanMessage):
        @property
        def type(self) -> str:  # type: ignore[override]
            return "ticket"

    ticket = Ticket("printer is down")
    assert vars(ticket) == {
        "content": "printer is down",
        "additional_kwargs": {},
        "response_metadata": {},
        "type": "ticket",
        "name": None,
        "id": None,
    }
    assert ticket.type == "ticket"

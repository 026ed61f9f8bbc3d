"""Parity: a message given a keyword that is not one of its fields.

LangChain's messages are pydantic models that allow extra fields, so
``HumanMessage("hi", example=True)`` (the few-shot marker of older LangChain code) is a
message with an ``example`` attribute, printed and dumped after the fields, compared in
``==``, kept by ``message_to_dict`` and restored by ``messages_from_dict``. ragline raised
a ``TypeError`` there. One program runs through both libraries and the printed text is
compared.
"""

from __future__ import annotations

from tests.parity._port_trial import ported, printed

_EXTRAS = """
import copy

from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    ToolMessage,
    message_to_dict,
    messages_from_dict,
)
from langchain_core.prompts import ChatPromptTemplate

examples = [
    HumanMessage("2 + 2?", example=True),
    AIMessage("4", example=True, source="notes"),
    ToolMessage("done", tool_call_id="c1", step=3),
]
for message in examples:
    print(repr(message))
    print(str(message))
    print(message.model_dump())
print(examples[0].example, examples[1].source, examples[2].step)
print(examples[0].__dict__)
print(examples[0] == HumanMessage("2 + 2?"), examples[0] == HumanMessage("2 + 2?", example=True))
print(examples[0] != HumanMessage("2 + 2?", example=False))
dicts = [message_to_dict(message) for message in examples]
print(dicts)
back = messages_from_dict(dicts)
print(back == examples, [repr(message) for message in back])
print(messages_from_dict([{"type": "human", "data": {"content": "old", "example": False}}]))
print(repr(copy.deepcopy(examples[1])), repr(examples[1].model_copy(update={"content": "5"})))
prompt = ChatPromptTemplate.from_messages([*examples[:2], ("human", "{question}")])
print(prompt.invoke({"question": "3 + 3?"}).to_messages())
"""


def test_extra_fields_of_messages_as_langchains() -> None:
    langchain_printed = printed(_EXTRAS)
    assert (
        "HumanMessage(content='2 + 2?', additional_kwargs={}, response_metadata={}, example=True)"
        in langchain_printed
    )
    assert "'example': True}" in langchain_printed
    assert printed(ported(_EXTRAS)) == langchain_printed


# A content that is neither a str nor a list of str / dict blocks: LangChain raises
# pydantic's ValidationError (a ValueError), which programs catch as ValueError; ragline
# raised a TypeError, and took a list holding other things. A tuple is made a list.
_BAD_CONTENT = """
from langchain_core.messages import AIMessage, HumanMessage

for content in [None, 3, {"type": "text"}, [1], ["x", None], ("a", {"type": "text", "text": "b"})]:
    for cls in (HumanMessage, AIMessage):
        try:
            print(cls.__name__, repr(cls(content=content).content))
        except ValueError:
            print(cls.__name__, "refused", repr(content))
"""


def test_a_content_that_is_not_text_or_blocks_is_a_value_error_in_both() -> None:
    langchain_printed = printed(_BAD_CONTENT)
    assert langchain_printed.count("refused") == 10
    assert printed(ported(_BAD_CONTENT)) == langchain_printed


# Bytes (and a bytearray), alone or as a block, are text to LangChain's messages: pydantic's
# lax mode decodes them as UTF-8 (review of f225380, which refused them); bytes that are
# not UTF-8 are refused as a ValueError in both.
_BYTES_CONTENT = """
from langchain_core.messages import AIMessageChunk, HumanMessage

for content in [b"tok", bytearray(b"y"), "é".encode(), [b"z", "w"], [bytearray(b"q")], b"\\xff"]:
    for cls in (HumanMessage, AIMessageChunk):
        try:
            print(cls.__name__, repr(cls(content=content).content))
        except ValueError:
            print(cls.__name__, "refused", repr(content))
"""


def test_bytes_content_is_utf8_text_in_both() -> None:
    langchain_printed = printed(_BYTES_CONTENT)
    assert "HumanMessage ['z', 'w']" in langchain_printed
    assert langchain_printed.count("refused") == 2
    assert printed(ported(_BYTES_CONTENT)) == langchain_printed


# Any iterable of blocks other than a str, bytes or a dict is a list to LangChain's
# messages (pydantic's lax list), its blocks then checked: a set, a generator, a deque,
# dict keys, an iterator, a class with __iter__ (review of f225380, which took a tuple only).
_ITERABLE_CONTENT = """
import collections

from langchain_core.messages import HumanMessage


class Blocks:
    def __iter__(self):
        return iter(["q", {"type": "text", "text": "r"}])


contents = [
    {"a"}, frozenset({"b"}), (word for word in ["c", "d"]), collections.deque(["e"]),
    {"f": 1}.keys(), iter(["g"]), Blocks(), range(2), {"h": 1}.values(), {"i": 1}.items(),
]
for content in contents:
    try:
        print(repr(HumanMessage(content=content).content))
    except ValueError:
        print("refused", type(content).__name__)
"""


def test_an_iterable_of_blocks_is_a_list_in_both() -> None:
    langchain_printed = printed(_ITERABLE_CONTENT)
    assert "['c', 'd']" in langchain_printed
    assert langchain_printed.count("refused") == 3
    assert printed(ported(_ITERABLE_CONTENT)) == langchain_printed

"""Parity: messages, documents and prompts, against langchain_core.

The pydantic-style methods programs call on LangChain's messages and documents
(``copy``, ``model_copy``, ``model_dump``, ``dict``), the printed form of a Document,
``message + message + "{input}"`` building a chat prompt, and the prompt fields
``tags``, ``metadata``, ``input_types`` and ``output_parser``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core import messages as lc_messages
from langchain_core.documents import Document as LCDocument
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import PromptTemplate as LCPromptTemplate

from ragline.core import Document
from ragline.core import messages as our_messages
from ragline.core.output_parsers import StrOutputParser
from ragline.core.prompts import ChatPromptTemplate, PromptTemplate
from tests.parity._observe import observe

COVERS = {
    "core.Document",
    "core.BaseMessage",
    "core.SystemMessage",
    "core.HumanMessage",
    "core.AIMessage",
    "core.ToolMessage",
    "core.ChatMessage",
    "core.FunctionMessage",
    "core.AIMessageChunk",
    "core.PromptTemplate",
    "core.ChatPromptTemplate",
}

MESSAGES = [
    ("SystemMessage", {"content": "be brief"}),
    ("HumanMessage", {"content": "hi", "name": "ada", "id": "m1"}),
    ("AIMessage", {"content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1"}]}),
    ("ToolMessage", {"content": "42", "tool_call_id": "c1"}),
    ("ChatMessage", {"content": "ok", "role": "critic"}),
    ("FunctionMessage", {"content": "1", "name": "f"}),
    ("AIMessageChunk", {"content": "par"}),
]


def _pair(name: str, fields: dict[str, Any]) -> tuple[Any, Any]:
    return getattr(lc_messages, name)(**fields), getattr(our_messages, name)(**fields)


@pytest.fixture(autouse=True)
def _quiet_pydantic() -> Any:
    with warnings.catch_warnings():  # pydantic warns that copy()/dict() are v1 names
        warnings.simplefilter("ignore")
        yield


# ---- messages -------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "fields"), MESSAGES, ids=[n for n, _ in MESSAGES])
def test_model_dump_and_dict_of_a_message_match_key_for_key_in_order(name: str, fields: Any):
    lc, ours = _pair(name, fields)
    lc_dump = lc.model_dump()
    assert list(ours.model_dump().items()) == list(lc_dump.items())
    assert ours.dict() == ours.model_dump()
    assert ours.model_dump(include={"content", "type"}) == lc.model_dump(
        include={"content", "type"}
    )
    assert ours.model_dump(exclude={"content"}).keys() == lc.model_dump(exclude={"content"}).keys()


@pytest.mark.parametrize("call", ["copy", "model_copy"])
def test_copying_a_message_shares_or_copies_nested_values_as_langchain_does(call: str):
    def run(cls: Any) -> Any:
        message = cls(content="hi", additional_kwargs={"k": [1]})
        shallow, deep = getattr(message, call)(), getattr(message, call)(deep=True)
        shallow.additional_kwargs["k"].append(2)
        deep.additional_kwargs["k"].append(3)
        updated = getattr(message, call)(update={"content": "changed"})
        return message.additional_kwargs, updated.content, message.content, type(updated).__name__

    assert run(our_messages.HumanMessage) == run(lc_messages.HumanMessage)
    assert run(our_messages.HumanMessage) == ({"k": [1, 2]}, "changed", "hi", "HumanMessage")


def test_message_plus_message_plus_string_builds_a_chat_prompt():
    def run(m: Any) -> Any:
        prompt = (
            m.SystemMessage(content="You are {terse}.") + m.HumanMessage(content="hi") + "{input}"
        )
        value = prompt.invoke({"input": "what is RAG?"})
        return type(prompt).__name__, prompt.input_variables, observe(value.to_messages())

    assert run(our_messages) == run(lc_messages)
    assert run(our_messages)[1] == ["input"]  # fixed messages are not templates


def test_message_plus_a_list_of_tuples():
    def run(m: Any) -> Any:
        prompt = m.SystemMessage(content="s") + [("human", "{q}"), ("ai", "a {x}")]  # noqa: RUF005
        return sorted(prompt.input_variables), observe(prompt.format_messages(q="Q", x="X"))

    assert run(our_messages) == run(lc_messages)


def test_a_bare_tuple_is_one_message_with_a_warning_a_deliberate_difference():
    """LangChain appends each element of a bare tuple as a human template (a message
    reading "human"); ragline appends the (role, template) pair as one message and warns."""
    lc = lc_messages.SystemMessage(content="s") + ("human", "{q}")  # noqa: RUF005
    assert observe(lc.format_messages(q="Q"))[1] == ("HumanMessage", "human", None)
    with pytest.warns(UserWarning, match="appends the tuple as one message"):
        ours = our_messages.SystemMessage(content="s") + ("human", "{q}")  # noqa: RUF005
    assert observe(ours.format_messages(q="Q")) == [
        ("SystemMessage", "s", None),
        ("HumanMessage", "Q", None),
    ]


# ---- documents ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fields",
    [
        {"page_content": "hello"},
        {"page_content": "hello", "metadata": {"source": "a.txt", "page": 2}},
        {"page_content": 'it\'s "quoted"\nsecond line', "metadata": {"k": None}, "id": "d1"},
        {"page_content": "x" * 300, "id": "long"},
    ],
)
def test_str_and_print_of_a_document(fields: dict[str, Any], capsys: Any):
    lc, ours = LCDocument(**fields), Document(**fields)
    assert str(ours) == str(lc)
    assert f"{ours}" == f"{lc}"
    print(ours, lc)
    printed = capsys.readouterr().out
    assert printed == f"{lc} {lc}\n"


def test_model_dump_dict_and_copies_of_a_document():
    def run(cls: Any) -> Any:
        doc = cls(page_content="p", metadata={"tags": ["a"]}, id="d1")
        shallow, deep = doc.copy(), doc.model_copy(deep=True)
        shallow.metadata["tags"].append("b")
        deep.metadata["tags"].append("c")
        updated = doc.model_copy(update={"page_content": "q"})
        return (
            list(doc.model_dump().items()),
            doc.dict(),
            doc.metadata,
            str(updated),
            doc.copy(deep=True, update={"id": "d2"}).id,
            doc.model_dump(exclude={"id", "type"}),
        )

    assert run(Document) == run(LCDocument)


# ---- prompt fields --------------------------------------------------------------------------
def test_prompt_fields_default_as_in_langchain():
    for lc, ours in [
        (LCPromptTemplate.from_template("{a}"), PromptTemplate.from_template("{a}")),
        (
            LCChatPromptTemplate.from_messages([("human", "{a}")]),
            ChatPromptTemplate.from_messages([("human", "{a}")]),
        ),
    ]:
        fields = ("tags", "metadata", "input_types", "output_parser")
        assert [getattr(ours, f) for f in fields] == [getattr(lc, f) for f in fields]


async def test_prompt_tags_and_metadata_join_its_runs():
    async def events(prompt: Any) -> list[tuple[str, list[str], dict[str, Any]]]:
        return [
            (e["event"], sorted(e["tags"]), e["metadata"])
            async for e in prompt.astream_events({"a": "x"}, {"tags": ["call"]}, version="v2")
        ]

    lc = LCPromptTemplate.from_template("{a}", tags=["prompt"], metadata={"owner": "docs"})
    ours = PromptTemplate.from_template("{a}", tags=["prompt"], metadata={"owner": "docs"})
    assert await events(ours) == await events(lc)
    assert (await events(ours))[0] == ("on_prompt_start", ["call", "prompt"], {"owner": "docs"})
    lc_chat = LCChatPromptTemplate([("human", "{a}")], tags=["chat"], metadata={"m": 1})
    our_chat = ChatPromptTemplate([("human", "{a}")], tags=["chat"], metadata={"m": 1})
    assert await events(our_chat) == await events(lc_chat)


def test_prompt_input_types_and_output_parser_are_kept_through_partial():
    lc = LCPromptTemplate(
        template="{a} {b}",
        input_variables=["a", "b"],
        input_types={"a": str},
        output_parser=LCStrOutputParser(),
        tags=["t"],
    )
    ours = PromptTemplate(
        "{a} {b}",
        input_variables=["a", "b"],
        input_types={"a": str},
        output_parser=StrOutputParser(),
        tags=["t"],
    )
    assert ours.input_types == lc.input_types == {"a": str}
    assert type(ours.output_parser).__name__ == type(lc.output_parser).__name__
    lc_partial, our_partial = lc.partial(a="1"), ours.partial(a="1")
    assert our_partial.tags == lc_partial.tags == ["t"]
    assert our_partial.input_types == lc_partial.input_types
    assert our_partial.format(b="2") == lc_partial.format(b="2") == "1 2"

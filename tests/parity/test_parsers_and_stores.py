"""Parity: output parsers and the in-memory store, against LangChain's.

LangChain's ``SimpleJsonOutputParser`` and ``RetryOutputParser`` (langchain_core,
langchain_classic) and ``InMemoryStore`` (langchain_core.stores) run the same scenarios
as ragline's classes of the same names: outputs, streamed chunks and exception types are
compared. (The retry prompt's wording is ragline's own; its variables are LangChain's.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.output_parsers import OutputFixingParser as LCOutputFixingParser
from langchain_classic.output_parsers import RetryOutputParser as LCRetryOutputParser
from langchain_classic.output_parsers import (
    RetryWithErrorOutputParser as LCRetryWithErrorOutputParser,
)
from langchain_classic.storage import LocalFileStore as LCLocalFileStore
from langchain_core.exceptions import OutputParserException as LCOutputParserException
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.output_parsers import BaseOutputParser as LCBaseOutputParser
from langchain_core.output_parsers import (
    CommaSeparatedListOutputParser as LCCommaSeparatedListOutputParser,
)
from langchain_core.output_parsers import JsonOutputKeyToolsParser as LCJsonOutputKeyToolsParser
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.output_parsers import JsonOutputToolsParser as LCJsonOutputToolsParser
from langchain_core.output_parsers import PydanticOutputParser as LCPydanticOutputParser
from langchain_core.output_parsers import PydanticToolsParser as LCPydanticToolsParser
from langchain_core.output_parsers import SimpleJsonOutputParser as LCSimpleJsonOutputParser
from langchain_core.output_parsers import StrOutputParser as LCStrOutputParser
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.stores import InMemoryByteStore as LCInMemoryByteStore
from langchain_core.stores import InMemoryStore as LCInMemoryStore
from pydantic import BaseModel

from ragline.core import AIMessage, FakeListChatModel, OutputParserException, PromptTemplate
from ragline.core.output_parsers import (
    BaseOutputParser,
    CommaSeparatedListOutputParser,
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    JsonOutputToolsParser,
    OutputFixingParser,
    PydanticOutputParser,
    PydanticToolsParser,
    RetryOutputParser,
    RetryWithErrorOutputParser,
    SimpleJsonOutputParser,
    StrOutputParser,
)
from ragline.core.stores import InMemoryByteStore, InMemoryStore, LocalFileStore

COVERS = {
    "core.SimpleJsonOutputParser",
    "core.JsonOutputParser",
    "core.RetryOutputParser",
    "core.InMemoryStore",
    "core.StrOutputParser",
    "core.CommaSeparatedListOutputParser",
    "core.PydanticOutputParser",
    "core.JsonOutputToolsParser",
    "core.JsonOutputKeyToolsParser",
    "core.PydanticToolsParser",
    "core.OutputFixingParser",
    "core.RetryWithErrorOutputParser",
    "core.BaseOutputParser",
    "core.OutputParserException",
    "core.InMemoryByteStore",
    "core.LocalFileStore",
}

REPLY = '{"a": [1, "xy"], "b": null}'


def test_simple_json_parser_is_the_json_parser_and_streams_the_same_objects():
    assert LCSimpleJsonOutputParser is LCJsonOutputParser
    assert SimpleJsonOutputParser is JsonOutputParser
    theirs = list((LCFakeListChatModel(responses=[REPLY]) | LCSimpleJsonOutputParser()).stream("q"))
    ours = list((FakeListChatModel(responses=[REPLY]) | SimpleJsonOutputParser()).stream("q"))
    assert ours == theirs
    assert ours[-1] == {"a": [1, "xy"], "b": None}
    fenced = f"```json\n{REPLY}\n```"
    assert SimpleJsonOutputParser().invoke(fenced) == LCSimpleJsonOutputParser().invoke(fenced)


def _retry_pair(replies: list[str], **options):
    theirs = LCRetryOutputParser.from_llm(
        llm=LCFakeListChatModel(responses=replies), parser=LCJsonOutputParser(), **options
    )
    ours = RetryOutputParser.from_llm(
        llm=FakeListChatModel(responses=replies), parser=JsonOutputParser(), **options
    )
    lc_prompt = LCPromptTemplate.from_template("Capital of {country}, as JSON?")
    prompt = PromptTemplate.from_template("Capital of {country}, as JSON?")
    return (
        (theirs, lc_prompt.format_prompt(country="France")),
        (ours, prompt.format_prompt(country="France")),
    )


def test_retry_parser_parse_with_prompt_takes_langchains_keywords():
    (theirs, lc_value), (ours, value) = _retry_pair(['{"city": "Paris"}'])
    expected = theirs.parse_with_prompt(completion="Paris", prompt_value=lc_value)
    assert ours.parse_with_prompt(completion="Paris", prompt_value=value) == expected
    assert expected == {"city": "Paris"}


def test_retry_parser_parses_a_good_completion_without_asking_the_model():
    (theirs, lc_value), (ours, value) = _retry_pair(["not asked"])
    good = '{"city": "Rome"}'
    assert ours.parse_with_prompt(good, value) == theirs.parse_with_prompt(good, lc_value)


def test_retry_parser_raises_the_parse_error_once_retries_are_spent():
    (theirs, lc_value), (ours, value) = _retry_pair(["still not json", "nor this"])
    with pytest.raises(LCOutputParserException) as lc_error:
        theirs.parse_with_prompt(completion="Paris", prompt_value=lc_value)
    with pytest.raises(OutputParserException) as error:
        ours.parse_with_prompt(completion="Paris", prompt_value=value)
    assert isinstance(lc_error.value, ValueError) and isinstance(error.value, ValueError)


def test_retry_parser_async_takes_the_same_keywords():
    (theirs, lc_value), (ours, value) = _retry_pair(['{"city": "Paris"}'])
    expected = asyncio.run(theirs.aparse_with_prompt(completion="x", prompt_value=lc_value))
    assert asyncio.run(ours.aparse_with_prompt(completion="x", prompt_value=value)) == expected


def _store_session(store) -> list:
    """What a program sees of a store: reads, key listings and deletes, sync and async."""
    shared = {"title": "parent"}
    seen = []
    store.mset([("doc:1", shared), ("doc:2", [1, 2]), ("user:1", "x"), ("doc:3", None)])
    seen.append(store.mget(["doc:1", "missing", "doc:2", "doc:3"]))
    seen.append(store.mget(["doc:1"])[0] is shared)  # values are kept, not copied
    seen.append(list(store.yield_keys()))
    seen.append(list(store.yield_keys(prefix="doc:")))
    store.mdelete(["doc:2", "never-there"])
    seen.append(list(store.yield_keys()))

    async def async_part():
        await store.amset([("doc:1", "replaced")])
        got = await store.amget(["doc:1", "doc:2"])
        keys = [key async for key in store.ayield_keys(prefix="user")]
        await store.amdelete(["user:1"])
        return got, keys, [key async for key in store.ayield_keys()]

    seen.append(asyncio.run(async_part()))
    return seen


def test_in_memory_store_behaves_as_langchains():
    expected = _store_session(LCInMemoryStore())
    assert _store_session(InMemoryStore()) == expected
    assert expected[0] == [{"title": "parent"}, None, [1, 2], None]


# ---- more parsers: the same replies through both libraries' parsers ------------------------
class Pet(BaseModel):
    """A pet."""

    name: str
    age: int = 0


def outcome(run: Any) -> Any:
    """What a program sees: the value (pydantic models as dicts), or the error kind."""
    try:
        value = run()
    except ValueError as err:  # both libraries' OutputParserException is a ValueError
        return ("error", type(err).__name__)
    if isinstance(value, list):
        return [item.model_dump() if isinstance(item, BaseModel) else item for item in value]
    return value.model_dump() if isinstance(value, BaseModel) else value


def both(make: Any, reply: Any, method: str = "invoke") -> tuple[Any, Any]:
    theirs = outcome(lambda: getattr(make(LC), method)(reply(LC)))
    ours = outcome(lambda: getattr(make(RL), method)(reply(RL)))
    return ours, theirs


LC = {
    "Str": LCStrOutputParser,
    "List": LCCommaSeparatedListOutputParser,
    "Pydantic": LCPydanticOutputParser,
    "Tools": LCJsonOutputToolsParser,
    "KeyTools": LCJsonOutputKeyToolsParser,
    "PydTools": LCPydanticToolsParser,
    "AIMessage": LCAIMessage,
}
RL = {
    "Str": StrOutputParser,
    "List": CommaSeparatedListOutputParser,
    "Pydantic": PydanticOutputParser,
    "Tools": JsonOutputToolsParser,
    "KeyTools": JsonOutputKeyToolsParser,
    "PydTools": PydanticToolsParser,
    "AIMessage": AIMessage,
}
CALLS = [
    {"name": "Pet", "args": {"name": "Rex", "age": 3}, "id": "a"},
    {"name": "other", "args": {"x": 1}, "id": "b"},
    {"name": "Pet", "args": {"name": "Tom"}, "id": "c"},
]


@pytest.mark.parametrize("text", ["a, b,c", "one", "", " x , y "])
def test_str_and_comma_separated_list_parsers(text):
    assert both(lambda ns: ns["Str"](), lambda ns: text) == both(
        lambda ns: ns["Str"](), lambda ns: text
    )
    ours, theirs = both(lambda ns: ns["List"](), lambda ns: text)
    assert ours == theirs
    ours, theirs = both(lambda ns: ns["Str"](), lambda ns: ns["AIMessage"](text))
    assert ours == theirs == text


@pytest.mark.parametrize(
    "reply",
    ['{"name": "Rex", "age": 3}', '```json\n{"name": "Rex"}\n```', '{"age": 3}', "not json"],
)
def test_pydantic_output_parser(reply):
    ours, theirs = both(lambda ns: ns["Pydantic"](pydantic_object=Pet), lambda ns: reply)
    assert ours == theirs


@pytest.mark.parametrize(
    ("make", "label"),
    [
        (lambda ns: ns["Tools"](), "all calls"),
        (lambda ns: ns["Tools"](first_tool_only=True), "first call"),
        (lambda ns: ns["Tools"](return_id=True), "with ids"),
        (lambda ns: ns["KeyTools"](key_name="Pet"), "one tool"),
        (lambda ns: ns["KeyTools"](key_name="Pet", first_tool_only=True), "its first call"),
        (lambda ns: ns["KeyTools"](key_name="none", first_tool_only=True), "no such call"),
    ],
)
def test_tool_call_parsers(make, label):
    ours, theirs = both(make, lambda ns: ns["AIMessage"](content="", tool_calls=CALLS))
    assert ours == theirs, label


def test_pydantic_tools_parser():
    pets = [call for call in CALLS if call["name"] == "Pet"]
    ours, theirs = both(
        lambda ns: ns["PydTools"](tools=[Pet]),
        lambda ns: ns["AIMessage"](content="", tool_calls=pets),
    )
    assert ours == theirs == [{"name": "Rex", "age": 3}, {"name": "Tom", "age": 0}]
    ours, theirs = both(
        lambda ns: ns["PydTools"](tools=[Pet], first_tool_only=True),
        lambda ns: ns["AIMessage"](content="", tool_calls=pets),
    )
    assert ours == theirs == {"name": "Rex", "age": 3}


@pytest.mark.parametrize("replies", [['{"name": "Rex"}'], ["still bad", "bad again"]])
def test_output_fixing_parser(replies):
    theirs = outcome(
        lambda: LCOutputFixingParser.from_llm(
            llm=LCFakeListChatModel(responses=replies),
            parser=LCPydanticOutputParser(pydantic_object=Pet),
        ).parse("Rex, no JSON")
    )
    ours = outcome(
        lambda: OutputFixingParser.from_llm(
            llm=FakeListChatModel(responses=replies),
            parser=PydanticOutputParser(pydantic_object=Pet),
        ).parse("Rex, no JSON")
    )
    assert ours == theirs


def test_retry_with_error_parser_takes_langchains_keywords():
    lc_value = LCPromptTemplate.from_template("Pet as JSON?").format_prompt()
    value = PromptTemplate.from_template("Pet as JSON?").format_prompt()
    theirs = LCRetryWithErrorOutputParser.from_llm(
        llm=LCFakeListChatModel(responses=['{"name": "Rex"}']), parser=LCJsonOutputParser()
    ).parse_with_prompt(completion="Rex", prompt_value=lc_value)
    ours = RetryWithErrorOutputParser.from_llm(
        llm=FakeListChatModel(responses=['{"name": "Rex"}']), parser=JsonOutputParser()
    ).parse_with_prompt(completion="Rex", prompt_value=value)
    assert ours == theirs == {"name": "Rex"}


def test_a_parser_subclass_writes_parse_only():
    def shout(base: type) -> Any:
        class Shout(base):
            def parse(self, text: str) -> str:
                if not text:
                    raise (
                        LCOutputParserException
                        if base is LCBaseOutputParser
                        else OutputParserException
                    )("empty")
                return text.upper()

        return Shout()

    lc_parser, parser = shout(LCBaseOutputParser), shout(BaseOutputParser)
    assert parser.invoke("hi") == lc_parser.invoke("hi") == "HI"
    assert parser.invoke(AIMessage("hi")) == lc_parser.invoke(LCAIMessage("hi"))
    assert list(parser.stream("hi")) == list(lc_parser.stream("hi"))
    assert outcome(lambda: parser.invoke("")) == outcome(lambda: lc_parser.invoke(""))


# ---- byte stores -----------------------------------------------------------------------
def test_in_memory_byte_store_behaves_as_langchains():
    def session(store: Any) -> list[Any]:
        store.mset([("a", b"1"), ("b/c", b"2"), ("b/d", b"3")])
        seen = [store.mget(["a", "x", "b/c"]), sorted(store.yield_keys(prefix="b/"))]
        store.mdelete(["a"])
        seen.append(sorted(store.yield_keys()))
        return seen

    assert session(InMemoryByteStore()) == session(LCInMemoryByteStore())


def test_local_file_stores_read_each_others_folders(tmp_path):
    theirs, ours = LCLocalFileStore(tmp_path / "lc"), LocalFileStore(tmp_path / "rl")
    pairs = [("k1", b"one"), ("dir/k2", b"two")]
    theirs.mset(pairs)
    ours.mset(pairs)
    assert LocalFileStore(tmp_path / "lc").mget(["k1", "dir/k2", "nope"]) == [b"one", b"two", None]
    assert LCLocalFileStore(tmp_path / "rl").mget(["k1", "dir/k2", "nope"]) == [
        b"one",
        b"two",
        None,
    ]
    assert sorted(ours.yield_keys()) == sorted(theirs.yield_keys())
    assert sorted(ours.yield_keys(prefix="dir")) == sorted(theirs.yield_keys(prefix="dir"))


@pytest.mark.parametrize("reply", ['red, green, "navy, dark"', "one", "a,,b\nc"])
def test_comma_separated_list_parser_streams_an_item_at_a_time(reply):
    theirs = list(
        (LCFakeListChatModel(responses=[reply]) | LCCommaSeparatedListOutputParser()).stream("q")
    )
    ours = list(
        (FakeListChatModel(responses=[reply]) | CommaSeparatedListOutputParser()).stream("q")
    )
    assert ours == theirs
    assert [item for [item] in ours] == CommaSeparatedListOutputParser().parse(reply)

"""Parity: output parsers and the in-memory store, against LangChain's.

LangChain's ``SimpleJsonOutputParser`` and ``RetryOutputParser`` (langchain_core,
langchain_classic) and ``InMemoryStore`` (langchain_core.stores) run the same scenarios
as ragline's classes of the same names: outputs, streamed chunks and exception types are
compared. (The retry prompt's wording is ragline's own; its variables are LangChain's.)
"""

from __future__ import annotations

import asyncio

import pytest
from langchain_classic.output_parsers import RetryOutputParser as LCRetryOutputParser
from langchain_core.exceptions import OutputParserException as LCOutputParserException
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.output_parsers import SimpleJsonOutputParser as LCSimpleJsonOutputParser
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.stores import InMemoryStore as LCInMemoryStore

from ragline.core import FakeListChatModel, OutputParserException, PromptTemplate
from ragline.core.output_parsers import (
    JsonOutputParser,
    RetryOutputParser,
    SimpleJsonOutputParser,
)
from ragline.core.stores import InMemoryStore

COVERS = {
    "core.SimpleJsonOutputParser",
    "core.JsonOutputParser",
    "core.RetryOutputParser",
    "core.InMemoryStore",
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

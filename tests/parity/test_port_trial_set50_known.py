"""Parity: the gaps the fiftieth port trial left open (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "core.caches.RETURN_VAL_TYPE",
    "core.caches.SQLAlchemyCache",
    "core.caches.FullLLMCache",
    "indexing.IndexingException",
    "core.BaseCumulativeTransformOutputParser",
}

# inmemory_cache_maxsize_unit_tests: a cache test helper annotated with RETURN_VAL_TYPE
# imported from langchain_core.caches. That module has no __all__ and the alias reports
# the module of its origin (collections.abc), so the port table did not list it and the
# import stayed LangChain's.
_RETURN_VAL_TYPE = """
import typing

from langchain_core.caches import RETURN_VAL_TYPE, InMemoryCache
from langchain_core.outputs import Generation


def cache_item(i: int) -> tuple[str, str, RETURN_VAL_TYPE]:
    return f"prompt{i}", f"llm_string{i}", [Generation(text=f"text{i}")]


print(typing.get_origin(RETURN_VAL_TYPE), [a.__name__ for a in typing.get_args(RETURN_VAL_TYPE)])
cache = InMemoryCache(maxsize=1)
for i in (1, 2):
    cache.update(*cache_item(i))
print(cache.lookup("prompt1", "llm_string1"), cache.lookup("prompt2", "llm_string2"))
print(isinstance(cache_item(3)[2], typing.get_origin(RETURN_VAL_TYPE)))
print(cache._maxsize, InMemoryCache(maxsize=None)._maxsize, InMemoryCache(maxsize=7)._maxsize)
"""


def test_the_cache_return_type_alias_ports() -> None:
    expected = _printed(_RETURN_VAL_TYPE)
    assert expected.splitlines()[0] == "<class 'collections.abc.Sequence'> ['Generation']"
    assert _printed(_ported(_RETURN_VAL_TYPE)) == expected


# langchain_core_indexing_tests_toy_loader: cleanup where the vector store's delete
# answers False. LangChain raises IndexingException (from langchain_core.indexing.api)
# and keeps the records, so the next run deletes again; ragline lacked the name and went
# on. The program fixes the record manager's clock with patch.object(rm, "get_time"),
# which ragline's InMemoryRecordManager did not stamp records with, so nothing was stale.
_DELETE_FAILS = """
import asyncio
from unittest.mock import patch

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.indexing import InMemoryRecordManager, aindex, index
from langchain_core.indexing.api import IndexingException
from langchain_core.vectorstores import InMemoryVectorStore

rm = InMemoryRecordManager(namespace="toy")
vs = InMemoryVectorStore(DeterministicFakeEmbedding(size=5))


def texts():
    return sorted(doc.page_content for doc in vs.get_by_ids(rm.list_keys()))


def run(docs, at, **kwargs):
    with patch.object(rm, "get_time", return_value=at):
        return index(docs, rm, vs, cleanup="full", **kwargs)


print(run([Document("one"), Document("two")], 1_600_000_000.0))
with patch.object(vs, "delete", return_value=False):
    try:
        run([Document("one"), Document("three")], 1_600_000_100.0)
        print("no exception")
    except IndexingException as err:
        print("raised", type(err).__name__, isinstance(err, Exception))
print(texts(), len(rm.list_keys()))
with patch.object(vs, "delete", return_value=None):
    print(run([Document("one"), Document("three")], 1_600_000_200.0), texts())


async def arun():
    with patch.object(rm, "get_time", return_value=1_600_000_300.0):
        with patch.object(vs, "adelete", return_value=False):
            try:
                await aindex([Document("four")], rm, vs, cleanup="full")
                print("no exception")
            except IndexingException as err:
                print("raised", type(err).__name__)
    print(texts())


asyncio.run(arun())
print(run([Document("four")], 1_600_000_400.0), texts())
"""


def test_a_failed_delete_during_cleanup_raises_indexing_exception() -> None:
    expected = _printed(_DELETE_FAILS)
    assert expected.splitlines()[1] == "raised IndexingException True"
    assert _printed(_ported(_DELETE_FAILS)) == expected


# langchain_cache_tests_inmemory_and_sqlalchemy: LangChain's cache tests run over
# SQLAlchemyCache(engine=create_engine("sqlite://")), and one writes a row of the old
# bare-text format through cache.cache_schema and a Session; ragline had no
# SQLAlchemyCache. Here: the tables and columns made, the rows an update writes (read
# back through the schema model), a bare-text row, a chat generation, the cache behind a
# model, and clear.
_SQLALCHEMY_CACHE = """
from sqlalchemy import create_engine, inspect, select
from sqlalchemy.orm import Session

from langchain_community.cache import FullLLMCache, SQLAlchemyCache
from langchain_core.caches import BaseCache
from langchain_core.globals import set_llm_cache
from langchain_core.language_models import FakeListLLM
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

engine = create_engine("sqlite://")
cache = SQLAlchemyCache(engine, cache_schema=FullLLMCache)
print(isinstance(cache, BaseCache), cache.engine is engine, cache.cache_schema is FullLLMCache)
print(sorted(inspect(engine).get_table_names()))
print([column["name"] for column in inspect(engine).get_columns("full_llm_cache")])
cache.update("2 + 2 =", "model-a", [Generation(text="4"), Generation(text="four")])
print(cache.lookup("2 + 2 =", "model-a"), cache.lookup("2 + 2 =", "model-b"))
with Session(engine) as session:
    rows = session.scalars(select(FullLLMCache).order_by(FullLLMCache.idx)).all()
    for row in rows:
        print(row.prompt, row.llm, row.idx, row.response)
with Session(engine) as session, session.begin():
    session.merge(cache.cache_schema(prompt="old", llm="model-a", idx=0, response="bare text"))
print(cache.lookup("old", "model-a"))
cache.update("hi", "chat", [ChatGeneration(message=AIMessage(content="hello"))])
found = cache.lookup("hi", "chat")
print(type(found[0]).__name__, type(found[0].message).__name__, found[0].text)
set_llm_cache(cache)
llm = FakeListLLM(responses=["first", "second"])
print(llm.invoke("question"), llm.invoke("question"))
set_llm_cache(None)
cache.clear()
print(cache.lookup("2 + 2 =", "model-a"), cache.lookup("old", "model-a"))
with Session(engine) as session:
    print(session.query(FullLLMCache).count())
"""


def test_sqlalchemy_cache_writes_and_reads_langchains_rows() -> None:
    expected = _printed(_SQLALCHEMY_CACHE)
    assert "[Generation(text='bare text')]" in expected
    assert _printed(_ported(_SQLALCHEMY_CACHE)) == expected


# Output parsers: a stream that mixes whole messages and message chunks (a node that
# yields a message it already has between streamed chunks) adds up in LangChain's
# cumulative parsers, where ragline's raised TypeError; and a program's isinstance /
# issubclass checks against BaseCumulativeTransformOutputParser (a custom parser deriving
# from JsonOutputParser) saw another class tree.
_CUMULATIVE = """
import asyncio

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langchain_core.output_parsers import (
    BaseCumulativeTransformOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
    SimpleJsonOutputParser,
    StrOutputParser,
    XMLOutputParser,
)
from langchain_core.output_parsers.openai_tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)


class Words(BaseCumulativeTransformOutputParser):
    def parse(self, text):
        return text.split()

    def parse_result(self, result, *, partial=False):
        head = result[0]
        message = getattr(head, "message", None)
        return [type(message).__name__, head.text.split()]


streams = [
    [AIMessage("a b"), AIMessageChunk(" c")],
    [AIMessageChunk("a"), AIMessage(" b"), AIMessageChunk(" c")],
    [HumanMessage("h"), AIMessageChunk(" z")],
    [AIMessage("x", additional_kwargs={"k": 1}), AIMessageChunk(" y")],
]
for stream in streams:
    print(list(Words().transform(iter(stream))))


async def agen(items):
    for item in items:
        yield item


async def collect(iterator):
    return [item async for item in iterator]


print(asyncio.run(collect(Words().atransform(agen(streams[1])))))
print(list(JsonOutputParser().transform(iter([AIMessage('{"a":'), AIMessageChunk(' 1}')]))))


class Loose(JsonOutputParser):
    pass


for cls in (JsonOutputParser, SimpleJsonOutputParser, PydanticOutputParser, Loose,
            JsonOutputToolsParser, JsonOutputKeyToolsParser, PydanticToolsParser,
            StrOutputParser, XMLOutputParser):
    print(cls.__name__, issubclass(cls, BaseCumulativeTransformOutputParser))
print(isinstance(JsonOutputParser(), BaseCumulativeTransformOutputParser))
print(Loose().invoke('{"b": [1, 2]}'), list(Loose().transform(iter(['{"b": [1', ', 2]}']))))
"""


def test_cumulative_parsers_add_up_mixed_streams_and_share_langchains_tree() -> None:
    expected = _printed(_CUMULATIVE)
    assert "JsonOutputParser True" in expected and "XMLOutputParser False" in expected
    assert _printed(_ported(_CUMULATIVE)) == expected


# The same mixed streams, read by a parser that looks at the message it adds up: a whole
# message's id, name and response metadata go into the sum, as LangChain's keeps them
# (ragline took only its content and additional_kwargs, so the id was the next chunk's).
_CUMULATIVE_FIELDS = """
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import BaseCumulativeTransformOutputParser


class Fields(BaseCumulativeTransformOutputParser):
    def parse(self, text):
        return text

    def parse_result(self, result, *, partial=False):
        message = result[0].message
        return [message.content, message.id, message.response_metadata]


streams = [
    [AIMessage("a", id="run-1", name="bot"), AIMessageChunk("b", id="run-2")],
    [AIMessageChunk("a", id="run-1"), AIMessage("b", id="run-2", response_metadata={"k": 1})],
    [AIMessage("a", response_metadata={"model": "m"}), AIMessageChunk("b", id="run-3")],
]
for stream in streams:
    print(list(Fields().transform(iter(stream))))
"""


def test_cumulative_parsers_keep_a_whole_messages_id_and_metadata() -> None:
    expected = _printed(_CUMULATIVE_FIELDS)
    assert expected.splitlines() == [
        "[['a', 'run-1', {}], ['ab', 'run-1', {}]]",
        "[['a', 'run-1', {}], ['ab', 'run-1', {'k': 1}]]",
        "[['a', None, {'model': 'm'}], ['ab', None, {'model': 'm'}]]",
    ]
    assert _printed(_ported(_CUMULATIVE_FIELDS)) == expected


# A JSON or tool-call parser subclass that overrides parse_result (LangChain's hook,
# calling super().parse_result(result, partial=partial)): LangChain's invoke hands it the
# generation and its streaming re-reads all so far with partial=True. ragline's invoke and
# streaming never called the override, and parse_result ignored partial=True (a cut-off
# function call raised OutputParserException, text with no JSON yet raised instead of None).
_PARSE_RESULT_OVERRIDE = """
import asyncio

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.output_parsers.openai_functions import JsonOutputFunctionsParser
from langchain_core.output_parsers.openai_tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
)
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import BaseModel


class UpperKeys(JsonOutputParser):
    def parse_result(self, result, *, partial=False):
        parsed = super().parse_result(result, partial=partial)
        return {key.upper(): value for key, value in parsed.items()} if parsed else parsed


class Shouted(UpperKeys):
    pass


class CallCount(JsonOutputToolsParser):
    def parse_result(self, result, *, partial=False):
        return len(super().parse_result(result, partial=partial))


class Named(JsonOutputKeyToolsParser):
    def parse_result(self, result, *, partial=False):
        found = super().parse_result(result, partial=partial)
        return ["seen", found]


class Args(JsonOutputFunctionsParser):
    def parse_result(self, result, *, partial=False):
        return sorted((super().parse_result(result, partial=partial) or {}).items())


class Point(BaseModel):
    x: int
    y: int = 0


class Flipped(PydanticOutputParser):
    def parse_result(self, result, *, partial=False):
        point = super().parse_result(result, partial=partial)
        return None if point is None else Point(x=point.y, y=point.x)


chunks = ['{"a"', ': 1, "b', '": [2', "]}"]
print(UpperKeys().invoke('{"a": 1}'), UpperKeys().invoke(AIMessage('```json\\n{"b": 2}\\n```')))
print(list(UpperKeys().transform(iter(chunks))))
print(list(Shouted(diff=True).transform(iter(chunks))))
print(list(Shouted().transform(iter([AIMessageChunk(c) for c in chunks]))))


async def collect(stream):
    return [item async for item in stream]


async def agen(items):
    for item in items:
        yield item


print(asyncio.run(UpperKeys().ainvoke('{"z": 0}')))
print(asyncio.run(collect(UpperKeys().atransform(agen(chunks)))))
calls = AIMessage(
    "",
    tool_calls=[
        {"name": "f", "args": {"x": 1}, "id": "c1"},
        {"name": "g", "args": {}, "id": "c2"},
    ],
)
print(CallCount().invoke(calls), Named(key_name="g").invoke(calls))
flipped = Flipped(pydantic_object=Point)
print(flipped.invoke('{"x": 3, "y": 4}'), list(flipped.transform(iter(['{"x": 3', ', "y": 4}']))))
call = {"name": "f", "arguments": '{"b": 2, "a": "x'}
function = AIMessage("", additional_kwargs={"function_call": call})
print(Args().parse_result([ChatGeneration(message=function)], partial=True))
print(JsonOutputParser().parse_result([Generation(text="no json yet")], partial=True))
print(JsonOutputFunctionsParser().parse_result([ChatGeneration(message=function)], partial=True))
try:
    JsonOutputFunctionsParser().parse_result([ChatGeneration(message=function)])
except Exception as err:
    print(type(err).__name__)
"""


def test_a_parse_result_override_runs_on_invoke_and_stream() -> None:
    expected = _printed(_PARSE_RESULT_OVERRIDE)
    assert expected.splitlines()[:2] == [
        "{'A': 1} {'B': 2}",
        "[{}, {'A': 1}, {'A': 1, 'B': [2]}]",
    ]
    assert _printed(_ported(_PARSE_RESULT_OVERRIDE)) == expected


# aindex over a SQLRecordManager built for synchronous use (a db_url, no async_mode):
# LangChain's raises AssertionError and wants an async engine; ragline's runs, its record
# calls going to a worker thread (docs/differences-from-langchain.md, "Accepted here,
# refused by LangChain"). Both sides pinned.
def test_aindex_over_a_synchronous_sql_record_manager(tmp_path) -> None:
    import asyncio
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_classic.indexes import SQLRecordManager as LCSQLRecordManager
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
    from langchain_core.indexing import aindex as lc_aindex
    from langchain_core.vectorstores import InMemoryVectorStore as LCStore

    from ragline.core import Document
    from ragline.embeddings import DeterministicFakeEmbedding
    from ragline.indexing import SQLRecordManager, aindex
    from ragline.vectorstores import InMemoryVectorStore

    lc_records = LCSQLRecordManager("ns", db_url=f"sqlite:///{tmp_path / 'lc.db'}")
    lc_records.create_schema()
    lc_store = LCStore(LCFake(size=4))
    with pytest.raises(AssertionError):
        asyncio.run(lc_aindex([LCDocument("a")], lc_records, lc_store))

    records = SQLRecordManager("ns", db_url=f"sqlite:///{tmp_path / 'rl.db'}")
    records.create_schema()
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=4))
    docs = [Document("a"), Document("b")]
    result = asyncio.run(aindex(docs, records, store))
    assert result == {"num_added": 2, "num_updated": 0, "num_skipped": 0, "num_deleted": 0}
    assert asyncio.run(aindex(docs, records, store))["num_skipped"] == 2
    assert sorted(d.page_content for d in store.get_by_ids(records.list_keys())) == ["a", "b"]

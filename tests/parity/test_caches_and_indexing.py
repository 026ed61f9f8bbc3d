"""Parity: LLM caches (global and per model) and the indexing API (index / aindex with
record managers) against LangChain's.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.indexes import SQLRecordManager as LCSQLRecordManager
    from langchain_community.cache import SQLiteCache as LCSQLiteCache
from langchain_core.caches import BaseCache as LCBaseCache
from langchain_core.caches import InMemoryCache as LCInMemoryCache
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFakeEmbedding
from langchain_core.globals import get_llm_cache as lc_get_llm_cache
from langchain_core.globals import set_llm_cache as lc_set_llm_cache
from langchain_core.indexing import InMemoryRecordManager as LCInMemoryRecordManager
from langchain_core.indexing import RecordManager as LCRecordManager
from langchain_core.indexing import aindex as lc_aindex
from langchain_core.indexing import index as lc_index
from langchain_core.language_models import FakeListChatModel as LCFakeChat
from langchain_core.language_models import FakeListLLM as LCFakeLLM
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

import ragline.core as rl
import ragline.indexing as rl_indexing
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.vectorstores import InMemoryVectorStore

COVERS = {
    "core.BaseCache",
    "core.InMemoryCache",
    "core.SQLiteCache",
    "core.set_llm_cache",
    "core.get_llm_cache",
    "indexing.index",
    "indexing.aindex",
    "indexing.InMemoryRecordManager",
    "indexing.SQLRecordManager",
    "indexing.RecordManager",
    "indexing.IndexingResult",
}

LC = {
    "set": lc_set_llm_cache,
    "get": lc_get_llm_cache,
    "InMemoryCache": LCInMemoryCache,
    "SQLiteCache": LCSQLiteCache,
    "BaseCache": LCBaseCache,
    "LLM": LCFakeLLM,
    "Chat": LCFakeChat,
    "Document": LCDocument,
    "Store": LCInMemoryVectorStore,
    "Embedding": LCFakeEmbedding,
    "index": lc_index,
    "aindex": lc_aindex,
    "InMemoryRecordManager": LCInMemoryRecordManager,
    "SQLRecordManager": LCSQLRecordManager,
    "RecordManager": LCRecordManager,
}
RL = {
    "set": rl.set_llm_cache,
    "get": rl.get_llm_cache,
    "InMemoryCache": rl.InMemoryCache,
    "SQLiteCache": rl.SQLiteCache,
    "BaseCache": rl.BaseCache,
    "LLM": rl.FakeListLLM,
    "Chat": rl.FakeListChatModel,
    "Document": rl.Document,
    "Store": InMemoryVectorStore,
    "Embedding": DeterministicFakeEmbedding,
    "index": rl_indexing.index,
    "aindex": rl_indexing.aindex,
    "InMemoryRecordManager": rl_indexing.InMemoryRecordManager,
    "SQLRecordManager": rl_indexing.SQLRecordManager,
    "RecordManager": rl_indexing.RecordManager,
}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _with_cache(m: dict[str, Any], cache: Any) -> list[Any]:
    m["set"](cache)
    try:
        llm = m["LLM"](responses=["a", "b", "c"])
        chat = m["Chat"](responses=["x", "y", "z"])
        seen = [llm.invoke("p"), llm.invoke("p"), llm.invoke("q")]
        seen += [chat.invoke("p").content, chat.invoke("p").content, chat.invoke("p2").content]
        seen.append(m["get"]() is cache)
        uncached = m["LLM"](responses=["n1", "n2"], cache=False)
        seen += [uncached.invoke("p"), uncached.invoke("p")]
        return seen
    finally:
        m["set"](None)


@pytest.mark.parametrize("kind", ["InMemoryCache", "SQLiteCache"])
def test_a_global_cache_answers_repeated_prompts(kind: str, tmp_path: Path) -> None:
    def run(m: dict[str, Any]) -> Any:
        if kind == "SQLiteCache":
            cache = m[kind](database_path=str(tmp_path / f"{id(m)}.db"))
        else:
            cache = m[kind]()
        return [*_with_cache(m, cache), isinstance(cache, m["BaseCache"]), m["get"]()]

    theirs, ours = run(LC), run(RL)
    assert ours == theirs == ["a", "a", "b", "x", "x", "y", True, "n1", "n2", True, None]


def test_a_model_s_own_cache_and_the_cache_api() -> None:
    def run(m: dict[str, Any]) -> Any:
        local = m["InMemoryCache"]()
        llm = m["LLM"](responses=["l1", "l2"], cache=local)
        seen: list[Any] = [llm.invoke("p"), llm.invoke("p"), m["get"]()]
        cache = m["InMemoryCache"]()
        cache.update("prompt", "llm-string", [])
        seen += [cache.lookup("prompt", "llm-string"), cache.lookup("other", "llm-string")]
        cache.clear()
        seen.append(cache.lookup("prompt", "llm-string"))
        return seen

    assert run(RL) == run(LC) == ["l1", "l1", None, [], None, None]


def _documents(m: dict[str, Any]) -> list[Any]:
    return [
        m["Document"](page_content="a", metadata={"source": "1"}),
        m["Document"](page_content="b", metadata={"source": "1"}),
        m["Document"](page_content="c", metadata={"source": "2"}),
    ]


def _index_runs(m: dict[str, Any], manager: Any, index: Any) -> list[Any]:
    store = m["Store"](m["Embedding"](size=8))
    docs = _documents(m)
    changed = [docs[0], m["Document"](page_content="b2", metadata={"source": "1"})]
    return [
        index(docs, manager, store, cleanup=None, source_id_key="source"),
        index(docs, manager, store, cleanup=None, source_id_key="source"),
        index(changed, manager, store, cleanup="incremental", source_id_key="source"),
        index([docs[2]], manager, store, cleanup="full", source_id_key="source"),
        index([], manager, store, cleanup="full"),
        len(manager.list_keys()),
        isinstance(manager, m["RecordManager"]),
    ]


def test_index_with_an_in_memory_record_manager() -> None:
    def run(m: dict[str, Any]) -> Any:
        manager = m["InMemoryRecordManager"](namespace="ns")
        manager.create_schema()
        return _index_runs(m, manager, m["index"])

    theirs, ours = run(LC), run(RL)
    assert ours == theirs
    assert ours[2] == {"num_added": 1, "num_updated": 0, "num_skipped": 1, "num_deleted": 1}


def test_index_with_a_sql_record_manager(tmp_path: Path) -> None:
    def run(m: dict[str, Any]) -> Any:
        url = f"sqlite:///{tmp_path / (str(id(m)) + '.db')}"
        manager = m["SQLRecordManager"]("ns", db_url=url)
        manager.create_schema()
        return _index_runs(m, manager, m["index"])

    assert run(RL) == run(LC)


async def test_aindex() -> None:
    async def run(m: dict[str, Any]) -> Any:
        manager = m["InMemoryRecordManager"](namespace="ns")
        await manager.acreate_schema()
        store = m["Store"](m["Embedding"](size=8))
        docs = _documents(m)
        return [
            await m["aindex"](docs, manager, store, cleanup="full", source_id_key="source"),
            await m["aindex"](docs[:2], manager, store, cleanup="full", source_id_key="source"),
        ]

    theirs, ours = await run(LC), await run(RL)
    assert ours == theirs
    assert ours[1]["num_deleted"] == 1


@pytest.mark.parametrize(
    "options", [{"cleanup": "incremental"}, {"cleanup": "bogus"}], ids=["no source", "bad"]
)
def test_bad_index_arguments_are_value_errors(options: dict[str, Any]) -> None:
    for m in (LC, RL):
        manager = m["InMemoryRecordManager"](namespace="ns")
        store = m["Store"](m["Embedding"](size=8))
        with pytest.raises(ValueError):
            m["index"](_documents(m), manager, store, **options)

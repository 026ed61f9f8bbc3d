"""Parity: key-value stores (a program's own BaseStore, InMemoryStore, ByteStore) and a
program's own BaseTransformOutputParser, against langchain_core's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import langchain_core.stores as lc_stores
from langchain_core.language_models import FakeListChatModel as LCFakeChat
from langchain_core.output_parsers import BaseTransformOutputParser as LCTransformParser

import ragline.core as rl
import ragline.core.stores as rl_stores
from tests.parity._observe import observe

COVERS = {"core.BaseStore", "core.stores.ByteStore", "core.BaseTransformOutputParser"}


def _dict_store(base: type) -> Any:
    class DictStore(base):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            self.data: dict[str, Any] = {}

        def mget(self, keys: Sequence[str]) -> list[Any]:
            return [self.data.get(key) for key in keys]

        def mset(self, pairs: Sequence[tuple[str, Any]]) -> None:
            self.data.update(pairs)

        def mdelete(self, keys: Sequence[str]) -> None:
            for key in keys:
                self.data.pop(key, None)

        def yield_keys(self, *, prefix: str | None = None) -> Iterator[str]:
            return (key for key in list(self.data) if prefix is None or key.startswith(prefix))

    return DictStore()


def _use(store: Any) -> list[Any]:
    store.mset([("a", 1), ("b1", {"x": 2}), ("b2", None)])
    seen: list[Any] = [store.mget(["a", "b1", "z"]), sorted(store.yield_keys())]
    seen.append(sorted(store.yield_keys(prefix="b")))
    store.mdelete(["a", "missing"])
    seen.append(sorted(store.yield_keys()))
    return seen


async def _ause(store: Any) -> list[Any]:
    await store.amset([("k", "v")])
    seen: list[Any] = [await store.amget(["k", "none"])]
    seen.append(sorted([key async for key in store.ayield_keys()]))
    await store.amdelete(["k"])
    seen.append([key async for key in store.ayield_keys()])
    return seen


def test_a_program_s_own_store_gets_the_async_methods() -> None:
    assert _use(_dict_store(rl.BaseStore)) == _use(_dict_store(lc_stores.BaseStore))


async def test_a_program_s_own_store_async() -> None:
    ours = await _ause(_dict_store(rl.BaseStore))
    theirs = await _ause(_dict_store(lc_stores.BaseStore))
    assert ours == theirs == [["v", None], ["k"], []]


def test_in_memory_stores() -> None:
    assert _use(rl_stores.InMemoryStore()) == _use(lc_stores.InMemoryStore())
    ours, theirs = rl_stores.InMemoryByteStore(), lc_stores.InMemoryByteStore()
    for store in (ours, theirs):
        store.mset([("x", b"1"), ("y", b"22")])
    assert ours.mget(["x", "y", "q"]) == theirs.mget(["x", "y", "q"]) == [b"1", b"22", None]
    assert isinstance(ours, rl_stores.BaseStore)  # ByteStore is BaseStore[str, bytes] in both
    assert rl_stores.ByteStore == rl_stores.BaseStore[str, bytes]
    assert isinstance(theirs, lc_stores.BaseStore)  # LangChain: BaseStore[str, bytes]


def _upper(base: type) -> Any:
    class Upper(base):  # type: ignore[misc,valid-type]
        def parse(self, text: str) -> str:
            return text.upper()

    return Upper()


def test_a_transform_parser_streams_each_chunk_parsed() -> None:
    def run(chat: type, parser: Any) -> list[Any]:
        chain = chat(responses=["hello there"]) | parser
        return [
            list(chain.stream("x")),
            chain.invoke("x"),
            parser.invoke("abc"),
            list(parser.transform(iter(["ab", "cd"]))),
        ]

    ours = observe(run(rl.FakeListChatModel, _upper(rl.BaseTransformOutputParser)))
    theirs = observe(run(LCFakeChat, _upper(LCTransformParser)))
    assert ours == theirs
    assert ours[1] == "HELLO THERE"

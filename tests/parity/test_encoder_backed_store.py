"""Parity: EncoderBackedStore against LangChain's.

The same encoders over each library's in-memory store and local file store: values
read back (missing keys ``None``), deletes, the encoded keys ``yield_keys`` gives with
and without a prefix, the async twins, and what an encoder's error does (it propagates
before anything is written).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_classic.storage import EncoderBackedStore as LCEncoderBackedStore
from langchain_classic.storage import LocalFileStore as LCLocalFileStore
from langchain_core.stores import InMemoryStore as LCInMemoryStore

from ragline.core.stores import EncoderBackedStore, InMemoryStore, LocalFileStore

COVERS = {"core.stores.EncoderBackedStore"}


def key_encoder(key: Any) -> str:
    if key == "bad":
        raise ValueError("no bad keys")
    return f"k_{type(key).__name__}_{key}"  # characters a file store accepts


def to_bytes(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True).encode()


def from_bytes(kept: bytes) -> Any:
    return json.loads(kept.decode())


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", type(err).__name__, str(err))


def script(store: Any, prefix: bool = True) -> list[Any]:
    seen: list[Any] = []
    seen.append(outcome(store.mset, [(1, {"a": [1, 2]}), ("two", 2.5), (3.5, None)]))
    seen.append(outcome(store.mget, [1, "two", "missing", 3.5]))
    seen.append(outcome(store.mset, [(5, "five"), ("bad", 1)]))
    seen.append(sorted(store.yield_keys()))
    if prefix:  # LangChain's LocalFileStore reads a prefix as a folder: not compared here
        seen.append(sorted(store.yield_keys(prefix="k_str")))
    seen.append(outcome(store.mdelete, [1, "missing"]))
    seen.append(outcome(store.mget, [1, "two", 5]))
    seen.append(outcome(store.mget, ["bad"]))
    return seen


async def ascript(store: Any, prefix: bool = True) -> list[Any]:
    await store.amset([("x", [1]), ("y", {"b": True})])
    seen: list[Any] = [await store.amget(["x", "y", "z"])]
    await store.amdelete(["x"])
    seen.append(await store.amget(["x", "y"]))
    seen.append(sorted([key async for key in store.ayield_keys()]))
    if prefix:
        seen.append(sorted([key async for key in store.ayield_keys(prefix="k_str_y")]))
    return seen


def pair(kind: str, tmp_path: Path) -> tuple[Any, Any]:
    if kind == "memory":
        lc_inner: Any = LCInMemoryStore()
        rl_inner: Any = InMemoryStore()
    else:
        lc_inner = LCLocalFileStore(tmp_path / "lc")
        rl_inner = LocalFileStore(tmp_path / "rl")
    lc = LCEncoderBackedStore(lc_inner, key_encoder, to_bytes, from_bytes)
    rl = EncoderBackedStore(rl_inner, key_encoder, to_bytes, from_bytes)
    return lc, rl


@pytest.mark.parametrize("kind", ["memory", "files"])
def test_sync_calls_as_langchains(kind, tmp_path):
    lc, rl = pair(kind, tmp_path)
    assert script(rl, kind == "memory") == script(lc, kind == "memory")


@pytest.mark.parametrize("kind", ["memory", "files"])
def test_async_calls_as_langchains(kind, tmp_path):
    lc, rl = pair(kind, tmp_path)
    with_prefix = kind == "memory"
    assert asyncio.run(ascript(rl, with_prefix)) == asyncio.run(ascript(lc, with_prefix))

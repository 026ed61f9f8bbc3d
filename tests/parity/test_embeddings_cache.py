"""Parity: CacheBackedEmbeddings shares its caches with LangChain's (langchain_classic).

Same keys for the same namespace, texts and key encoder; a cache one library wrote (an
InMemoryByteStore or a LocalFileStore folder) is read by the other with no model call.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_classic.embeddings import CacheBackedEmbeddings as LCCacheBackedEmbeddings
from langchain_classic.storage import InMemoryByteStore as LCInMemoryByteStore
from langchain_classic.storage import LocalFileStore as LCLocalFileStore

from ragline.core import InMemoryByteStore, LocalFileStore
from ragline.embeddings import CacheBackedEmbeddings, HashingEmbeddings

COVERS = {"embeddings.CacheBackedEmbeddings"}

TEXTS = ["the cat sat", "stock prices fell", "the cat sat", "naïve café"]


class Counting(HashingEmbeddings):
    """Real hashing embeddings that count the texts they are asked to embed."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.embedded: list[str] = []

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return super().embed_documents_array(texts)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return super().embed_queries_array(texts)


def _quiet(build: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # both warn that SHA-1 is weak
        return build(*args, **kwargs)


@pytest.mark.parametrize("key_encoder", [None, "sha1", "blake2b", "sha256", "sha512"])
def test_keys_equal_langchains(key_encoder: str | None) -> None:
    options = {} if key_encoder is None else {"key_encoder": key_encoder}
    theirs, ours = LCInMemoryByteStore(), InMemoryByteStore()
    _quiet(
        LCCacheBackedEmbeddings.from_bytes_store, Counting(), theirs, namespace="mini/", **options
    ).embed_documents(TEXTS)
    _quiet(
        CacheBackedEmbeddings.from_bytes_store, Counting(), ours, namespace="mini/", **options
    ).embed_documents(TEXTS)
    assert sorted(ours.yield_keys()) == sorted(theirs.yield_keys())
    assert len(list(ours.yield_keys())) == 3


def test_a_callable_key_encoder_gives_the_same_keys() -> None:
    def encoder(text: str) -> str:
        return "custom/" + str(len(text))

    theirs, ours = LCInMemoryByteStore(), InMemoryByteStore()
    LCCacheBackedEmbeddings.from_bytes_store(
        Counting(), theirs, key_encoder=encoder
    ).embed_documents(TEXTS[:2])
    CacheBackedEmbeddings.from_bytes_store(Counting(), ours, key_encoder=encoder).embed_documents(
        TEXTS[:2]
    )
    assert sorted(ours.yield_keys()) == sorted(theirs.yield_keys()) == ["custom/11", "custom/17"]
    with pytest.raises(ValueError):
        LCCacheBackedEmbeddings.from_bytes_store(
            Counting(), theirs, namespace="x/", key_encoder=encoder
        )
    with pytest.raises(ValueError):
        CacheBackedEmbeddings.from_bytes_store(
            Counting(), ours, namespace="x/", key_encoder=encoder
        )


def test_a_cache_langchain_wrote_in_a_folder_is_read_with_no_model_call(tmp_path: Path) -> None:
    writer = Counting()
    expected = _quiet(
        LCCacheBackedEmbeddings.from_bytes_store,
        writer,
        LCLocalFileStore(tmp_path),
        namespace="mini/",
        query_embedding_cache=LCLocalFileStore(tmp_path / "queries"),
    )
    vectors = expected.embed_documents(TEXTS)
    query = expected.embed_query("a question")
    reader = Counting()
    ours = _quiet(
        CacheBackedEmbeddings.from_bytes_store,
        reader,
        LocalFileStore(tmp_path),
        namespace="mini/",
        query_embedding_cache=LocalFileStore(tmp_path / "queries"),
    )
    np.testing.assert_allclose(ours.embed_documents(TEXTS), vectors, rtol=0, atol=1e-6)
    np.testing.assert_allclose(ours.embed_query("a question"), query, rtol=0, atol=1e-6)
    assert reader.embedded == []


def test_a_cache_ragline_wrote_is_read_by_langchain_with_no_model_call() -> None:
    store = InMemoryByteStore()
    ours = _quiet(CacheBackedEmbeddings.from_bytes_store, Counting(), store, namespace="mini/")
    vectors = ours.embed_documents(TEXTS)
    theirs_store = LCInMemoryByteStore()
    keys = list(store.yield_keys())
    theirs_store.mset(list(zip(keys, store.mget(keys), strict=True)))
    reader = Counting()
    theirs = _quiet(
        LCCacheBackedEmbeddings.from_bytes_store, reader, theirs_store, namespace="mini/"
    )
    assert theirs.embed_documents(TEXTS) == vectors  # the float32 values, exactly
    assert reader.embedded == []


def test_a_folder_ragline_wrote_is_read_by_langchain(tmp_path: Path) -> None:
    ours = CacheBackedEmbeddings.from_bytes_store(
        Counting(), LocalFileStore(tmp_path), namespace="m/", key_encoder="sha256"
    )
    vectors = ours.embed_documents(TEXTS)
    reader = Counting()
    theirs = LCCacheBackedEmbeddings.from_bytes_store(
        reader, LCLocalFileStore(tmp_path), namespace="m/", key_encoder="sha256"
    )
    assert theirs.embed_documents(TEXTS) == vectors
    assert reader.embedded == []


def test_the_default_encoder_warns_in_both(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_classic.embeddings.cache as lc_cache_module

    import ragline.embeddings.cache as cache_module

    monkeypatch.setattr(lc_cache_module, "_warned_about_sha1", False)
    monkeypatch.setattr(cache_module, "_sha1_warned", False)
    with pytest.warns(UserWarning, match="SHA-1"):
        LCCacheBackedEmbeddings.from_bytes_store(Counting(), LCInMemoryByteStore())
    with pytest.warns(UserWarning, match="SHA-1"):
        CacheBackedEmbeddings.from_bytes_store(Counting(), InMemoryByteStore())

"""CacheBackedEmbeddings: hits cost nothing, misses are embedded once, order is kept."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragline.core import DimensionError, InMemoryByteStore, InvalidInputError, LocalFileStore
from ragline.embeddings import CacheBackedEmbeddings, HashingEmbeddings


class CountingEmbeddings(HashingEmbeddings):
    """A real HashingEmbeddings that records every batch it is asked to embed."""

    def __init__(self, dimension: int = 16) -> None:
        super().__init__(dimension=dimension)
        self.document_calls: list[list[str]] = []
        self.query_calls: list[list[str]] = []

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        self.document_calls.append(list(texts))
        return super().embed_documents_array(texts)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        self.query_calls.append(list(texts))
        return HashingEmbeddings.embed_documents_array(self, texts)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def reference(texts: list[str], dimension: int = 16) -> np.ndarray:
    return HashingEmbeddings(dimension=dimension).embed_documents_array(texts)


def test_second_embedding_of_the_same_texts_calls_nothing() -> None:
    underlying = CountingEmbeddings()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, InMemoryByteStore(), namespace="m:")
    texts = ["alpha", "beta", "gamma"]
    first = cached.embed_documents(texts)
    assert underlying.document_calls == [texts]
    second = cached.embed_documents(texts)
    assert underlying.document_calls == [texts]  # no new call
    assert first == second
    np.testing.assert_array_equal(np.array(first, dtype=np.float32), reference(texts))


def test_partial_hits_embed_only_the_misses_in_order() -> None:
    underlying = CountingEmbeddings()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, InMemoryByteStore(), namespace="m:")
    cached.embed_documents_array(["b", "d"])
    texts = ["a", "b", "c", "d", "e"]
    result = cached.embed_documents_array(texts)
    assert underlying.document_calls == [["b", "d"], ["a", "c", "e"]]
    np.testing.assert_array_equal(result, reference(texts))


def test_duplicates_within_a_call_are_embedded_once() -> None:
    underlying = CountingEmbeddings()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, InMemoryByteStore())
    result = cached.embed_documents_array(["x", "y", "x", "x", "y"])
    assert underlying.document_calls == [["x", "y"]]
    np.testing.assert_array_equal(result, reference(["x", "y", "x", "x", "y"]))


def test_batch_size_splits_the_misses() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, store, batch_size=2)
    cached.embed_documents_array(["1", "2", "3", "4", "5"])
    assert underlying.document_calls == [["1", "2"], ["3", "4"], ["5"]]
    assert len(list(store.yield_keys())) == 5


async def test_small_batches_fill_every_position_of_a_repeated_text() -> None:
    """Each batch's vectors land at every position of their texts, hits left as read."""
    underlying = CountingEmbeddings()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, InMemoryByteStore(), batch_size=2)
    cached.embed_documents_array(["c"])
    texts = ["a", "b", "c", "a", "d", "b", "e", "a"]
    np.testing.assert_array_equal(cached.embed_documents_array(texts), reference(texts))
    assert underlying.document_calls == [["c"], ["a", "b"], ["d", "e"]]
    more = ["f", "a", "g", "f", "h"]
    np.testing.assert_array_equal(await cached.aembed_documents_array(more), reference(more))
    assert underlying.document_calls[3:] == [["f", "g"], ["h"]]


def test_storage_format_is_namespace_digest_key_and_a_json_list() -> None:
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(
        HashingEmbeddings(dimension=16), store, namespace="hash16:", key_encoder="sha256"
    )
    cached.embed_documents(["hello"])
    key = "hash16:" + sha("hello")
    assert list(store.yield_keys()) == [key]
    (value,) = store.mget([key])
    assert value is not None
    assert json.loads(value) == reference(["hello"])[0].tolist()  # the float32 values


def test_default_keys_are_langchains_sha1_uuid5_and_warn_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ragline.embeddings.cache as cache_module

    monkeypatch.setattr(cache_module, "_sha1_warned", False)
    store = InMemoryByteStore()
    with pytest.warns(UserWarning, match="SHA-1 .* not collision-resistant.*key_encoder='sha256'"):
        cached = CacheBackedEmbeddings.from_bytes_store(HashingEmbeddings(4), store, namespace="m/")
    cached.embed_documents(["hello"])
    # uuid5(UUID(int=1985), sha1("hello").hexdigest()), from the stdlib uuid and hashlib
    assert list(store.yield_keys()) == ["m/e885db5b-c0bd-5fbc-88b1-4d1da6020aa5"]


def test_values_written_as_float32_bytes_before_are_still_read() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    store.mset([(sha("old"), reference(["old"])[0].astype("<f4").tobytes())])
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, store, key_encoder="sha256")
    np.testing.assert_array_equal(cached.embed_documents_array(["old"]), reference(["old"]))
    assert underlying.document_calls == []


@pytest.mark.parametrize(
    "bad",
    [b'["0.5"]', b"[true, false]", b"[[1.0]]", b"[]", b"[NaN]", b"[1.0,", b"\x00\x01\x02"],
)
def test_a_damaged_value_is_a_miss(bad: bytes) -> None:
    underlying = CountingEmbeddings(dimension=1)
    store = InMemoryByteStore()
    store.mset([(sha("a"), bad)])
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, store, key_encoder="sha256")
    np.testing.assert_array_equal(cached.embed_documents_array(["a"]), reference(["a"], 1))
    assert underlying.document_calls == [["a"]]


def test_callable_key_encoder_makes_the_whole_key() -> None:
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(
        HashingEmbeddings(4), store, key_encoder=lambda text: "k/" + text.upper()
    )
    cached.embed_documents(["ab"])
    assert list(store.yield_keys()) == ["k/AB"]
    with pytest.raises(InvalidInputError, match="namespace 'n/' given with a callable key_encoder"):
        CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(4), store, namespace="n/", key_encoder=str.upper
        )
    with pytest.raises(InvalidInputError, match=r"key_encoder must be one of 'sha1', .* got 'md5'"):
        CacheBackedEmbeddings.from_bytes_store(HashingEmbeddings(4), store, key_encoder="md5")


def test_queries_are_not_cached_by_default() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, store)
    cached.embed_query("q")
    cached.embed_query("q")
    assert underlying.query_calls == [["q"], ["q"]]
    assert list(store.yield_keys()) == []


def test_query_cache_in_the_document_store_uses_distinct_keys() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(
        underlying, store, namespace="n:", query_embedding_store=True, key_encoder="sha256"
    )
    first = cached.embed_query("same")
    assert cached.embed_query("same") == first
    assert underlying.query_calls == [["same"]]
    cached.embed_documents(["same"])  # a document with the same text is a different entry
    assert underlying.document_calls == [["same"]]
    assert sorted(store.yield_keys()) == sorted(["n:" + sha("same"), "n:query-" + sha("same")])


def test_langchain_name_for_the_query_cache() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(
        underlying, store, query_embedding_cache=True, key_encoder="sha256"
    )
    cached.embed_query("q")
    cached.embed_query("q")
    assert underlying.query_calls == [["q"]]
    assert list(store.yield_keys()) == ["query-" + sha("q")]
    with pytest.raises(InvalidInputError, match="not both"):
        CacheBackedEmbeddings.from_bytes_store(
            underlying, store, query_embedding_store=True, query_embedding_cache=True
        )


def test_query_cache_in_its_own_store() -> None:
    underlying = CountingEmbeddings()
    documents, queries = InMemoryByteStore(), InMemoryByteStore()
    cached = CacheBackedEmbeddings(underlying, documents, query_embedding_store=queries)
    result = cached.embed_queries_array(["q1", "q2"])
    cached.embed_queries_array(["q2", "q3"])
    assert underlying.query_calls == [["q1", "q2"], ["q3"]]
    assert list(documents.yield_keys()) == []
    assert len(list(queries.yield_keys())) == 3
    np.testing.assert_array_equal(result, reference(["q1", "q2"]))


def test_damaged_entry_is_re_embedded_and_repaired() -> None:
    underlying = CountingEmbeddings()
    store = InMemoryByteStore()
    cached = CacheBackedEmbeddings.from_bytes_store(underlying, store, key_encoder="sha256")
    store.mset([(sha("a"), b"\x00\x01\x02"), (sha("b"), np.full(16, np.nan, "<f4").tobytes())])
    result = cached.embed_documents_array(["a", "b"])
    assert underlying.document_calls == [["a", "b"]]
    np.testing.assert_array_equal(result, reference(["a", "b"]))
    assert store.mget([sha("a")]) == [json.dumps(reference(["a"])[0].tolist()).encode()]


def test_namespace_shared_by_two_dimensions_is_an_error() -> None:
    store = InMemoryByteStore()
    CacheBackedEmbeddings.from_bytes_store(
        HashingEmbeddings(8), store, key_encoder="sha256"
    ).embed_documents(["a"])
    other = CacheBackedEmbeddings.from_bytes_store(
        HashingEmbeddings(16), store, key_encoder="sha256"
    )
    with pytest.raises(DimensionError, match=r"dimensions \[8, 16\].*own namespace"):
        other.embed_documents(["a", "b"])
    assert list(store.yield_keys()) == [sha("a")]  # nothing of the 16-d model was stored


def test_two_processes_share_a_local_file_store_cache(tmp_path: Path) -> None:
    """Vectors written by another process are read back here with zero model calls."""
    texts = ["shared one", "shared two", "shared three"]
    script = (
        "import sys\n"
        "from ragline.core import LocalFileStore\n"
        "from ragline.embeddings import CacheBackedEmbeddings, HashingEmbeddings\n"
        "cached = CacheBackedEmbeddings.from_bytes_store(\n"
        "    HashingEmbeddings(dimension=16), LocalFileStore(sys.argv[1]), namespace='h16/',\n"
        "    key_encoder='sha256')\n"
        f"cached.embed_documents({texts!r})\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=300)
    underlying = CountingEmbeddings(dimension=16)
    cached = CacheBackedEmbeddings.from_bytes_store(
        underlying, LocalFileStore(tmp_path), namespace="h16/", key_encoder="sha256"
    )
    result = cached.embed_documents_array([*texts, "new here"])
    assert underlying.document_calls == [["new here"]]
    np.testing.assert_array_equal(result, reference([*texts, "new here"]))
    assert sorted(p.name for p in (tmp_path / "h16").iterdir()) == sorted(
        sha(t) for t in [*texts, "new here"]
    )


async def test_async_paths_use_the_cache_too() -> None:
    underlying = CountingEmbeddings()
    cached = CacheBackedEmbeddings.from_bytes_store(
        underlying, InMemoryByteStore(), query_embedding_store=True
    )
    first = await cached.aembed_documents(["a", "b"])
    assert await cached.aembed_documents(["b", "a"]) == first[::-1]
    assert await cached.aembed_query("q") == await cached.aembed_query("q")
    assert underlying.document_calls == [["a", "b"]]
    assert underlying.query_calls == [["q"]]


def test_first_and_cached_results_are_bit_identical() -> None:
    """The first call already returns the float32 values the cache will hand back later."""
    cached = CacheBackedEmbeddings.from_bytes_store(HashingEmbeddings(16), InMemoryByteStore())
    assert cached.embed_documents(["t"]) == cached.embed_documents(["t"])
    assert cached.embed_documents([]) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 0}, "batch_size must be an int >= 1 or None, got 0"),
        ({"namespace": 5}, "namespace must be a str, got int"),
    ],
)
def test_bad_options_rejected(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        CacheBackedEmbeddings.from_bytes_store(HashingEmbeddings(4), InMemoryByteStore(), **options)  # type: ignore[arg-type]


def test_namespace_unfit_for_a_file_store_is_rejected_up_front(tmp_path: Path) -> None:
    with pytest.raises(
        InvalidInputError, match="namespace 'model:v1' cannot be used with a LocalFileStore"
    ):
        CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(4), LocalFileStore(tmp_path), namespace="model:v1"
        )
    with pytest.raises(InvalidInputError, match=r"namespace '\.\./up' cannot be used"):
        CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(4), InMemoryByteStore(), namespace="../up",
            query_embedding_store=LocalFileStore(tmp_path),
        )  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_bad_underlying_or_store_rejected() -> None:
    with pytest.raises(InvalidInputError, match="underlying_embeddings must be an Embeddings"):
        CacheBackedEmbeddings(object(), InMemoryByteStore())  # type: ignore[arg-type]
    with pytest.raises(
        InvalidInputError, match="document_embedding_store must be a BaseStore, got dict"
    ):
        CacheBackedEmbeddings(HashingEmbeddings(4), {})  # type: ignore[arg-type]

"""Redis-specific behaviour (the shared contract runs in test_contract.py): hash layout,
schema inference and validation, escaping of filter values, TTL, index management,
clients, failures of the server, and the RedisStore byte store.

Every test runs against a real Redis Stack server (the ``redis_url`` fixture in
tests/conftest.py starts one, or uses ``$RAGLINE_REDIS_URL``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _byte_store_contract import ByteStoreContract
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragline.core import (
    ConfigurationError,
    DimensionError,
    Document,
    FilterError,
    InvalidInputError,
    RaglineError,
    StoreConnectionError,
)
from ragline.embeddings import CacheBackedEmbeddings, HashingEmbeddings
from ragline.vectorstores import Redis, RedisStore
from ragline.vectorstores.filters import parse_filter
from ragline.vectorstores.redis._schema import filter_to_query

from .contract import ExplicitEmbeddings, unit

redis = pytest.importorskip("redis")
pytestmark = pytest.mark.redis

MakeStore = Callable[..., Redis]


@pytest.fixture
def embeddings() -> ExplicitEmbeddings:
    return ExplicitEmbeddings()


@pytest.fixture
def raw(redis_url: str) -> Iterator[Any]:
    client = redis.Redis.from_url(redis_url, protocol=2)
    yield client
    client.close()


@pytest.fixture
def make_store(redis_url: str, embeddings: ExplicitEmbeddings) -> Iterator[MakeStore]:
    """Build Redis stores on fresh indexes; drop them (with their documents) afterwards."""
    built: list[Redis] = []

    def make(**options: Any) -> Redis:
        options.setdefault("redis_url", redis_url)
        options.setdefault("index_name", f"test-{uuid.uuid4().hex[:12]}")
        store = Redis(options.pop("embedding", embeddings), **options)
        built.append(store)
        return store

    yield make
    for store in built:
        store.drop_index(delete_documents=True)
        store.close()


def ids_of(documents: list[Document]) -> list[str]:
    return [document.id or "" for document in documents]


# ---------------------------------------------------------------------- layout


def test_documents_are_hashes_under_the_key_prefix(make_store: MakeStore, raw: Any) -> None:
    """One hash per document at {key_prefix}|{id}: text, FLOAT32 vector bytes, metadata JSON
    and one field per indexed metadata field."""
    store = make_store(index_name="layout-idx")
    store.add_texts(["d1"], [{"color": "red", "n": 2, "tags": ["a"]}], ids=["x1"])
    assert store.key_prefix == "doc:layout-idx"
    stored = raw.hgetall("doc:layout-idx|x1")
    assert stored[b"content"] == b"d1"
    assert np.frombuffer(stored[b"content_vector"], dtype=np.float32).tolist() == pytest.approx(
        unit(10)
    )
    assert json.loads(stored[b"_metadata"]) == {"color": "red", "n": 2, "tags": ["a"]}
    assert (stored[b"color"], stored[b"n"]) == (b"red", b"2")
    assert b"tags" not in stored  # a list is kept in the JSON only, not indexed
    assert store.index_schema == {"color": "tag", "n": "numeric"}


def test_readding_an_id_leaves_no_stale_fields(make_store: MakeStore, raw: Any) -> None:
    """Re-adding an id replaces the whole hash: a metadata field the new version lacks no
    longer matches filters."""
    store = make_store()
    store.add_texts(["d0", "d1"], [{"color": "red", "n": 1}, {"color": "red"}], ids=["a", "b"])
    store.add_texts(["d0"], [{"color": "blue"}], ids=["a"])
    assert ids_of(store.similarity_search("q0", k=5, filter={"n": 1})) == []
    assert ids_of(store.similarity_search("q0", k=5, filter={"color": "blue"})) == ["a"]
    assert raw.hget(f"{store.key_prefix}|a", "n") is None
    assert store.count() == 2


def test_ttl_gives_each_document_an_expiry(make_store: MakeStore, raw: Any) -> None:
    """ttl sets an expiry on each written document; expired documents are gone. The
    expiry is read on a 60 s ttl (a 0.3 s one can be over before pttl is asked, on a
    loaded machine); the 0.3 s documents are waited for, up to 30 s, not slept on."""
    lasting = make_store(ttl=60)
    lasting.add_texts(["d0", "d1"], ids=["a", "b"])
    for key in ("a", "b"):
        assert 0 < raw.pttl(f"{lasting.key_prefix}|{key}") <= 60_000
    store = make_store(ttl=0.3)
    store.add_texts(["d0", "d1"], ids=["a", "b"])
    assert 0 < raw.pttl(f"{store.key_prefix}|a") <= 300 or store.get_by_ids(["a"]) == []  # or gone
    deadline = time.monotonic() + 30
    while store.get_by_ids(["a", "b"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.get_by_ids(["a", "b"]) == []
    assert store.similarity_search("q0", k=2) == []
    forever = make_store()
    forever.add_texts(["d0"], ids=["a"])
    assert raw.pttl(f"{forever.key_prefix}|a") == -1


# ---------------------------------------------------------------------- schema


def test_inferred_schema_grows_with_new_fields(make_store: MakeStore) -> None:
    """str and bool -> tag, numbers -> numeric; a field first seen later is added to the
    index and becomes filterable, also on documents written before."""
    store = make_store()
    store.add_texts(["d0", "d1"], [{"a": "x", "b": True}, {"c": 1.5, "d": None}], ids=["0", "1"])
    assert store.index_schema == {"a": "tag", "b": "tag", "c": "numeric"}
    store.add_texts(["d2"], [{"lang": "en", "c": 3}], ids=["2"])
    assert store.index_schema == {"a": "tag", "b": "tag", "c": "numeric", "lang": "tag"}
    assert ids_of(store.similarity_search("q0", k=5, filter={"lang": "en"})) == ["2"]
    assert ids_of(store.similarity_search("q0", k=5, filter={"c": {"$gte": 1}})) == ["1", "2"]
    assert ids_of(store.similarity_search("q0", k=5, filter={"b": True})) == ["0"]


def test_declared_schema_in_both_spellings(make_store: MakeStore) -> None:
    """index_schema takes {"name": kind} or LangChain's {kind: [{"name": ...}]}; with a
    declared schema, undeclared metadata is stored but not indexed."""
    simple = make_store(index_schema={"source": "tag", "page": "numeric", "title": "text"})
    langchain = make_store(
        index_schema={"tag": [{"name": "source"}], "numeric": [{"name": "page"}],
                      "text": [{"name": "title"}]}
    )  # fmt: skip
    for store in (simple, langchain):
        store.add_texts(["d0"], [{"source": "a.txt", "page": 3, "other": "o"}], ids=["0"])
        assert store.index_schema == {"source": "tag", "page": "numeric", "title": "text"}
        assert store.get_by_ids(["0"])[0].metadata == {"source": "a.txt", "page": 3, "other": "o"}
        with pytest.raises(FilterError, match="'other'"):
            store.similarity_search("q0", filter={"other": "o"})


@pytest.mark.parametrize(
    ("metadata", "fragment"),
    [
        ({"page": "three"}, "'page' is a numeric field"),
        ({"page": True}, "'page' is a numeric field"),
        ({"title": 5}, "'title' is a text field"),
        ({"source": ["a", "b"]}, "'source' is a tag field"),
        ({"source": "ok", "when": object()}, "which stores cannot keep"),
    ],
)
def test_metadata_that_does_not_fit_the_schema_writes_nothing(
    make_store: MakeStore, metadata: dict[str, Any], fragment: str
) -> None:
    """A value of the wrong kind for its field fails the whole batch before any write."""
    store = make_store(index_schema={"source": "tag", "page": "numeric", "title": "text"})
    store.add_texts(["d0"], [{"source": "a", "page": 1}], ids=["keep"])
    with pytest.raises(InvalidInputError, match="nothing was written") as info:
        store.add_texts(["d1", "d2"], [{"source": "b"}, metadata], ids=["new1", "new2"])
    assert fragment in str(info.value)
    assert store.count() == 1
    assert ids_of(store.get_by_ids(["keep", "new1", "new2"])) == ["keep"]


def test_existing_index_with_other_settings_is_an_error(
    make_store: MakeStore, embeddings: ExplicitEmbeddings, redis_url: str
) -> None:
    """Opening an index that exists with another metric or dimension raises instead of
    silently mixing; from_existing_index adopts the index as it is."""
    store = make_store(vector_schema={"distance_metric": "L2"})
    store.add_texts(["d0", "d1"], [{"color": "red"}, {"color": "blue"}], ids=["0", "1"])
    other_metric = Redis(embeddings, redis_url=redis_url, index_name=store.index_name)
    with pytest.raises(ConfigurationError, match="distance metric 'L2'"):
        other_metric.similarity_search("q0")
    with pytest.raises(ConfigurationError, match="distance metric 'L2'"):
        other_metric.add_texts(["d2"], ids=["2"])
    opened = Redis.from_existing_index(embeddings, store.index_name, redis_url=redis_url)
    assert opened.score_kind == "squared_l2" and opened.dimension == 3
    assert opened.index_schema == {"color": "tag"}
    assert ids_of(opened.similarity_search("q0", k=1, filter={"color": "blue"})) == ["1"]
    wrong_dim = Redis(
        ExplicitEmbeddings({"v": [1.0, 0.0, 0.0, 0.0]}),
        redis_url=redis_url,
        index_name=store.index_name,
        vector_schema={"distance_metric": "L2"},
    )
    with pytest.raises(DimensionError, match="dimension 3"):
        wrong_dim.add_texts(["v"], ids=["v"])
    assert store.count() == 2
    with pytest.raises(ConfigurationError, match="does not exist"):
        Redis.from_existing_index(embeddings, "no-such-index", redis_url=redis_url)


def test_from_existing_index_reads_an_index_written_by_another_tool(
    embeddings: ExplicitEmbeddings, redis_url: str, raw: Any
) -> None:
    """An index created and filled with plain redis-py (no metadata JSON) opens with its own
    schema; metadata comes back from the indexed fields."""
    name = f"foreign-{uuid.uuid4().hex[:8]}"
    raw.execute_command(
        "FT.CREATE", name, "ON", "HASH", "PREFIX", 1, f"{name}:", "SCHEMA", "text", "TEXT",
        "embedding", "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", 3, "DISTANCE_METRIC", "IP",
        "source", "TAG", "page", "NUMERIC",
    )  # fmt: skip
    for i, angle in enumerate((0, 90)):
        vector = np.array(unit(angle), dtype=np.float32).tobytes()
        raw.hset(f"{name}:n{i}", mapping={"text": f"d{i}", "embedding": vector,
                                          "source": f"s{i}", "page": i + 1})  # fmt: skip
    try:
        store = Redis.from_existing_index(embeddings, name, redis_url=redis_url)
        assert (store.key_prefix, store.score_kind) == (name, "inner_product_distance")
        assert store.index_schema == {"source": "tag", "page": "numeric"}
        [found] = store.similarity_search("q0", k=1, filter={"page": {"$gte": 2}})
        assert (found.id, found.page_content, found.metadata) == (
            "n1",
            "d1",
            {"source": "s1", "page": 2.0},
        )
        with pytest.raises(ConfigurationError, match="reads key_prefix"):
            Redis.from_existing_index(embeddings, name, redis_url=redis_url, key_prefix="x")
    finally:
        raw.execute_command("FT.DROPINDEX", name, "DD")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"index_name": "has space"}, "index_name 'has space'"),
        ({"index_name": "glob*"}, "index_name 'glob*'"),
        ({"index_name": ""}, "index_name"),
        ({"key_prefix": "doc|x"}, "key_prefix 'doc|x'"),
        ({"key_prefix": "a[b]"}, "key_prefix 'a[b]'"),
        ({"index_schema": {"bad-name": "tag"}}, "'bad-name'"),
        ({"index_schema": {"content": "tag"}}, "clashes"),
        ({"index_schema": {"x": "geo"}}, "valid kinds are tag, numeric, text"),
        ({"vector_schema": {"distance_metric": "DOT"}}, "'COSINE', 'IP', 'L2'"),
        ({"vector_schema": {"algorithm": "IVF"}}, "'FLAT', 'HNSW'"),
        ({"vector_schema": {"efruntime": 5}}, "'efruntime'"),
        ({"ttl": 0}, "ttl"),
        ({"ttl": float("inf")}, "ttl (seconds) must be a finite number > 0 or None, got inf"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_bad_options_raise_before_touching_the_server(
    embeddings: ExplicitEmbeddings, options: dict[str, Any], fragment: str
) -> None:
    """Names Redis cannot take (or that would make key patterns unsafe) and unknown options
    are refused by the constructor, which needs no server."""
    with pytest.raises(ConfigurationError) as info:
        Redis(embeddings, redis_url="redis://127.0.0.1:1", **options)
    assert fragment in str(info.value)


# ---------------------------------------------------------------------- filters

TRICKY_VALUES = [
    "a|b", "x}y", "{x}", "a-b", "-neg", "@field", 'q"uote', "q'uote", "sp ace", "a,b", "a*",
    "$p0", "back\\slash", "ünï cødé", "(paren)", "x} | @other:{y",
]  # fmt: skip


def test_tag_values_match_exactly_and_cannot_change_the_query(make_store: MakeStore) -> None:
    """Every tag value, whatever its characters, matches exactly the documents holding it:
    values travel as query parameters, never inside the query text."""
    table = {f"t{i}": unit(i) for i in range(len(TRICKY_VALUES) + 1)}
    table["q0"] = unit(0)
    store = make_store(embedding=ExplicitEmbeddings(table))
    names = list(table)[: len(TRICKY_VALUES) + 1]
    metadatas = [{"tag": value} for value in TRICKY_VALUES] + [{"tag": "other"}]
    store.add_texts(names, metadatas, ids=names)
    for position, value in enumerate(TRICKY_VALUES):
        assert ids_of(store.similarity_search("q0", k=50, filter={"tag": value})) == [
            f"t{position}"
        ], value
    found = store.similarity_search("q0", k=50, filter={"tag": {"$in": ["a|b", "x}y", "nope"]}})
    assert ids_of(found) == ["t0", "t1"]
    assert (
        len(store.similarity_search("q0", k=50, filter={"tag": {"$ne": "a|b"}})) == len(names) - 1
    )
    assert store.similarity_search("q0", filter={"tag": "A|B"}) == []  # case-sensitive


def test_tag_values_are_case_sensitive_and_typed(make_store: MakeStore) -> None:
    """Tags compare exactly (case included) and by kind, as the reference evaluator does:
    True, 1, "1" and "true" are four different values (1 and 1.0 are one)."""
    store = make_store(index_schema={"v": "tag"})
    values: list[Any] = ["Red", True, 1, "1", "true", "\x1etrue", "\x1e1"]
    ids = [str(i) for i in range(len(values))]
    store.add_texts(["d0", "d1", "d2", "d3", "d4", "d5", "d6"], [{"v": v} for v in values], ids=ids)
    for i, value in enumerate(values):
        found = store.similarity_search("q0", k=10, filter={"v": value})
        assert ids_of(found) == [str(i)], value
        found = store.similarity_search("q0", k=10, filter={"v": {"$ne": value}})
        assert sorted(ids_of(found)) == [j for j in ids if j != str(i)], value
    assert store.similarity_search("q0", filter={"v": "red"}) == []
    assert ids_of(store.similarity_search("q0", filter={"v": 1.0})) == ["2"]


def test_text_fields_match_words(make_store: MakeStore) -> None:
    """A text field matches the words of the value as a phrase; punctuation only separates."""
    store = make_store(index_schema={"title": "text"})
    titles = ["Intro to Redis", "redis-search basics", "Cooking pasta"]
    store.add_texts(["d0", "d1", "d2"], [{"title": t} for t in titles], ids=["0", "1", "2"])
    assert ids_of(store.similarity_search("q0", filter={"title": "redis"})) == ["0", "1"]
    assert ids_of(store.similarity_search("q0", filter={"title": "redis search"})) == ["1"]
    assert ids_of(store.similarity_search("q0", filter={"title": "to Redis!"})) == ["0"]
    assert ids_of(store.similarity_search("q0", filter={"title": {"$ne": "redis"}})) == ["2"]
    with pytest.raises(FilterError, match="no words"):
        store.similarity_search("q0", filter={"title": "?!"})


@pytest.mark.parametrize(
    ("filter", "fragment"),
    [
        ({"missing": "x"}, "'missing': it is not in the index schema"),
        ({"color": {"$gt": 1}}, "$gt needs a numeric field, but 'color' is a tag field"),
        ({"n": "three"}, "does not fit field 'n', which is a numeric field"),
        ({"n": {"$in": [1, "x"]}}, "does not fit field 'n'"),
    ],
)
def test_bad_filters_raise_a_filter_error(
    make_store: MakeStore, filter: dict[str, Any], fragment: str
) -> None:
    """A filter on a field the index does not have, or of the wrong kind, is an error (Redis
    itself would silently match nothing)."""
    store = make_store()
    store.add_texts(["d0"], [{"color": "red", "n": 1}], ids=["0"])
    with pytest.raises(FilterError) as info:
        store.similarity_search("q0", filter=filter)
    assert fragment in str(info.value)


def test_filter_translation_is_parametrized() -> None:
    """The query text holds only field names, operators and $parameters."""
    fields = {"color": "tag", "n": "numeric", "title": "text"}
    query, params = filter_to_query(
        parse_filter(
            {"$or": [{"color": {"$nin": ["a|b", "c"]}}, {"n": {"$gt": 2, "$lte": 5}}],
             "title": "Hello, world"}
        ),
        fields,
    )  # fmt: skip
    assert query == (
        "((-((@color:{$p0}) | (@color:{$p1}))) | ((@n:[($p2 +inf]) (@n:[-inf $p3]))) "
        '(@title:"Hello world")'
    )
    assert params == {"p0": "~617c62", "p1": "c", "p2": 2.0, "p3": 5.0}  # "a|b" encoded
    assert filter_to_query(None, fields) == ("*", {})


# ---------------------------------------------------------------------- index management


def test_drop_index_with_and_without_documents(make_store: MakeStore, raw: Any) -> None:
    """drop_index keeps the hashes unless delete_documents=True; dropping twice is False."""
    keep = make_store()
    keep.add_texts(["d0"], ids=["a"])
    assert keep.drop_index() is True
    assert keep.drop_index() is False
    assert raw.exists(f"{keep.key_prefix}|a") == 1
    assert keep.count() == 0
    raw.delete(f"{keep.key_prefix}|a")
    gone = make_store()
    gone.add_texts(["d0"], ids=["a"])
    assert gone.drop_index(delete_documents=True) is True
    assert raw.exists(f"{gone.key_prefix}|a") == 0
    assert gone.dimension is None  # a new index may have another dimension
    gone.add_embeddings([("four", [1.0, 0.0, 0.0, 0.0])], ids=["f"])
    assert gone.dimension == 4 and gone.count() == 1


FOUR_D = {"v": [1.0, 0.0, 0.0, 0.0], "w": [0.0, 1.0, 0.0, 0.0]}


def test_a_write_after_an_index_is_recreated_at_another_dimension_succeeds(
    make_store: MakeStore, raw: Any
) -> None:
    """Another client drops an index (keeping its hashes) and a store re-creates it at
    another dimension: the old 3-D hash fails to index during the backfill, which is not
    the new write's failure, so add_texts succeeds (it used to report "could not index 1
    of the 1 documents just written")."""
    stale = make_store()
    stale.add_texts(["d0"], ids=["old"])
    raw.execute_command("FT.DROPINDEX", stale.index_name)  # another client; hashes stay
    fresh = make_store(index_name=stale.index_name, embedding=ExplicitEmbeddings(FOUR_D))
    assert fresh.add_texts(["v"], ids=["new"]) == ["new"]
    assert fresh.add_texts(["w"], ids=["new2"]) == ["new2"]
    assert fresh.dimension == 4 and fresh.count() == 2
    assert ids_of(fresh.similarity_search("v", k=5)) == ["new", "new2"]
    assert raw.exists(f"{fresh.key_prefix}|old") == 1  # kept: not this write's to delete


def test_drop_index_with_documents_also_deletes_hashes_it_could_not_index(
    make_store: MakeStore, raw: Any
) -> None:
    """FT.DROPINDEX DD deletes only indexed hashes; a hash under the store's prefix that
    the index could not hold (another dimension) must go too. Keys of other stores stay."""
    fresh = make_store(embedding=ExplicitEmbeddings(FOUR_D))
    fresh.add_texts(["v"], ids=["new"])
    three_d = np.array([1.0, 0.0, 0.0], dtype=np.float32).tobytes()
    raw.hset(f"{fresh.key_prefix}|old", mapping={"content": "d0", "content_vector": three_d})
    neighbour = make_store()
    neighbour.add_texts(["d0"], ids=["kept"])
    raw.set(f"{fresh.key_prefix}-not-under-the-prefix", b"x")
    assert fresh.drop_index(delete_documents=True) is True
    assert raw.keys(f"{fresh.key_prefix}|*") == []
    assert raw.get(f"{fresh.key_prefix}-not-under-the-prefix") == b"x"
    assert neighbour.count() == 1
    raw.delete(f"{fresh.key_prefix}-not-under-the-prefix")


def test_a_stale_store_searching_an_index_recreated_at_another_dimension(
    make_store: MakeStore, raw: Any
) -> None:
    """A store that still knows the old index gets a ConfigurationError naming the
    change (not RediSearch's message about query blob sizes)."""
    stale = make_store()
    stale.add_texts(["d0"], ids=["old"])
    raw.execute_command("FT.DROPINDEX", stale.index_name, "DD")  # another client
    fresh = make_store(index_name=stale.index_name, embedding=ExplicitEmbeddings(FOUR_D))
    fresh.add_texts(["v"], ids=["new"])
    message = r"exists with dimension 4, but this store was configured with \(or last saw\) 3"
    with pytest.raises(ConfigurationError, match=message):
        stale.similarity_search("q0")
    assert ids_of(fresh.similarity_search("v")) == ["new"]


def test_two_store_objects_share_one_index(make_store: MakeStore, embeddings: Any) -> None:
    """A second store object on the same index name (another process, say) sees the
    documents, the dimension and the inferred schema."""
    first = make_store()
    first.add_texts(["d0", "d1"], [{"color": "red"}, {"color": "blue"}], ids=["0", "1"])
    second = make_store(index_name=first.index_name)
    assert second.dimension == 3
    assert ids_of(second.similarity_search("q0", filter={"color": "blue"})) == ["1"]
    second.add_texts(["d2"], [{"color": "red", "size": 3}], ids=["2"])
    assert first.count() == 3
    assert ids_of(first.similarity_search("q0", filter={"color": "red"})) == ["0", "2"]
    declaring = make_store(index_name=first.index_name, index_schema={"title": "text"})
    declaring.add_texts(["d3"], [{"title": "Hello there", "color": "blue"}], ids=["3"])
    assert declaring.index_schema == {"color": "tag", "size": "numeric", "title": "text"}
    assert ids_of(first.similarity_search("q0", filter={"color": "blue"})) == ["1", "3"]


@pytest.mark.parametrize("flavour", ["resp3", "decoded", "resp2"])
def test_a_client_can_be_passed_in(make_store: MakeStore, redis_url: str, flavour: str) -> None:
    """A user's redis.Redis client works whatever its protocol or decoding (the store
    derives a RESP2 bytes client from its settings when needed)."""
    options = {"resp3": {}, "decoded": {"decode_responses": True}, "resp2": {"protocol": 2}}
    client = redis.Redis.from_url(redis_url, **options[flavour])
    store = make_store(client=client)
    store.add_texts(["d0", "d1"], [{"n": 1}, {"n": 2}], ids=["0", "1"])
    assert ids_of(store.similarity_search("q0", filter={"n": 2})) == ["1"]
    assert store.get_by_ids(["0"])[0].metadata == {"n": 1}
    client.close()


async def test_async_methods_with_a_native_async_client(
    make_store: MakeStore, redis_url: str
) -> None:
    """async_client= runs the async twins on redis.asyncio, reusing its connections."""
    import redis.asyncio as redis_asyncio

    client = redis_asyncio.Redis.from_url(redis_url, protocol=2)
    store = make_store(async_client=client)
    await store.aadd_texts(["d0", "d1", "d2"], [{"n": 0}, {"n": 1}, {"n": 2}], ids=["0", "1", "2"])
    found = await store.asimilarity_search("q25", k=2, filter={"n": {"$gte": 1}})
    assert ids_of(found) == ["2", "1"]
    assert ids_of(
        await store.amax_marginal_relevance_search("q0", k=2, fetch_k=3, lambda_mult=0.3)
    ) == ["0", "2"]
    await store.adelete(["0"])
    assert await store.acount() == 2
    await client.aclose()


async def test_async_methods_never_use_the_sync_connection(
    make_store: MakeStore, redis_url: str
) -> None:
    """With async_client=, the async twins (dimension checks included) make no blocking
    call on the sync connection: here redis_url points at a port nothing listens on."""
    import redis.asyncio as redis_asyncio

    listener, dead_port = _silent_server()
    listener.close()  # nothing listens on dead_port now
    client = redis_asyncio.Redis.from_url(redis_url, protocol=2)
    store = Redis(ExplicitEmbeddings(), redis_url=f"redis://127.0.0.1:{dead_port}",
                  async_client=client, index_name=f"test-{uuid.uuid4().hex[:12]}",
                  connect_timeout=0.5)  # fmt: skip
    try:
        assert await store.asimilarity_search("q0") == []  # no index yet
        await store.aadd_texts(["d0", "d1"], [{"n": 0}, {"n": 1}], ids=["0", "1"])
        assert ids_of(await store.asimilarity_search("q25", k=1)) == ["1"]
    finally:
        await store.adrop_index(delete_documents=True)
        await client.aclose()


# ---------------------------------------------------------------------- failures


def _silent_server() -> tuple[socket.socket, int]:
    """A TCP socket that accepts connections (backlog) but never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    return listener, listener.getsockname()[1]


def test_a_server_that_is_down_gives_a_clear_error(embeddings: ExplicitEmbeddings) -> None:
    """Nothing listening: StoreConnectionError naming the URL, without the password."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    url = f"redis://user:s3cret@127.0.0.1:{port}/0"
    store = Redis(embeddings, redis_url=url, connect_timeout=0.5, timeout=0.5)
    with pytest.raises(StoreConnectionError) as info:
        store.add_texts(["d0"], ids=["a"])
    message = str(info.value)
    assert f"redis://user:***@127.0.0.1:{port}/0" in message
    assert "s3cret" not in message
    with pytest.raises(StoreConnectionError, match=f"127.0.0.1:{port}"):
        RedisStore(redis_url=url, connect_timeout=0.5).mget(["k"])


async def test_a_server_that_never_answers_times_out(embeddings: ExplicitEmbeddings) -> None:
    """A server that accepts but never replies: StoreConnectionError once the timeout
    passes, sync and async (a generous bound catches a hang, it is not a benchmark)."""
    listener, port = _silent_server()
    try:
        store = Redis(embeddings, redis_url=f"redis://127.0.0.1:{port}", connect_timeout=0.3,
                      timeout=0.3)  # fmt: skip
        started = time.monotonic()
        with pytest.raises(StoreConnectionError, match=f"127.0.0.1:{port}"):
            store.similarity_search("q0")
        with pytest.raises(StoreConnectionError, match=f"127.0.0.1:{port}"):
            await store.aadd_texts(["d0"], ids=["a"])
        assert time.monotonic() - started < 20
    finally:
        listener.close()


def test_server_killed_during_a_large_add_then_readd_stores_each_once(
    redis_server_factory: Callable[[], Any],
) -> None:
    """The server dies (SIGKILL) in the middle of add_embeddings: a clear
    StoreConnectionError. After a restart (with its append-only file), adding the same
    documents with the same ids again leaves each document stored exactly once."""
    server = redis_server_factory().start("--appendonly", "yes")
    count = 30_000
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(count, 8)).astype(np.float32)
    ids = [f"doc-{i}" for i in range(count)]
    pairs = [(f"text {i}", vector.tolist()) for i, vector in enumerate(vectors)]
    metadatas = [{"i": i, "group": f"g{i % 7}"} for i in range(count)]
    store = Redis(HashingEmbeddings(dimension=8), redis_url=server.url, index_name="crash",
                  batch_size=500, connect_timeout=1, timeout=5)  # fmt: skip
    watcher = redis.Redis.from_url(server.url, protocol=2)

    def kill_midway() -> None:
        while True:
            try:
                if watcher.dbsize() >= 3_000:
                    break
            except redis.exceptions.RedisError:
                pass
            time.sleep(0.002)
        server.kill()

    killer = threading.Thread(target=kill_midway)
    killer.start()
    with pytest.raises(StoreConnectionError, match=server.url):
        store.add_embeddings(pairs, metadatas, ids=ids)
    killer.join()

    server.start("--appendonly", "yes")
    survived = redis.Redis.from_url(server.url, protocol=2).dbsize()
    assert 0 < survived < count  # the kill really happened midway
    assert store.add_embeddings(pairs, metadatas, ids=ids) == ids
    assert store.count() == count
    fresh = redis.Redis.from_url(server.url, protocol=2)
    assert fresh.dbsize() == count  # one hash per id, nothing else
    assert store.get_by_ids(["doc-0", f"doc-{count - 1}"])[1].metadata == {
        "i": count - 1,
        "group": f"g{(count - 1) % 7}",
    }
    assert len(store.similarity_search_by_vector(vectors[5], k=10, filter={"group": "g5"})) == 10
    store.close()


# ---------------------------------------------------------------------- RedisStore


@pytest.fixture
def byte_store(redis_url: str, raw: Any) -> Iterator[RedisStore]:
    namespace = f"bytes-{uuid.uuid4().hex[:8]}"
    yield RedisStore(redis_url=redis_url, namespace=namespace)
    for key in raw.scan_iter(match=f"{namespace}/*"):
        raw.delete(key)


class TestRedisByteStoreContract(ByteStoreContract):
    """The byte-store contract every BaseStore passes, on Redis."""

    @pytest.fixture
    def store(self, byte_store: RedisStore) -> RedisStore:
        return byte_store


def test_byte_store_mset_mget_mdelete(byte_store: RedisStore, raw: Any) -> None:
    """mget answers in key order with None for absent keys; mset overwrites; mdelete
    ignores absent keys; values are stored as-is under {namespace}/{key}."""
    byte_store.mset([("a", b"1"), ("b", b"\x00\xff"), ("c", b"")])
    assert byte_store.mget(["c", "missing", "a", "b"]) == [b"", None, b"1", b"\x00\xff"]
    byte_store.mset([("a", bytearray(b"new"))])
    assert byte_store.mget(["a"]) == [b"new"]
    byte_store.mdelete(["a", "never-there"])
    assert byte_store.mget(["a", "b"]) == [None, b"\x00\xff"]
    assert raw.get(f"{byte_store.namespace}/b") == b"\x00\xff"
    assert byte_store.mget([]) == [] and byte_store.mset([]) is None


def test_byte_store_yield_keys_escapes_glob_characters(byte_store: RedisStore) -> None:
    """yield_keys lists this namespace's keys only; a prefix with * ? [ ] is literal."""
    keys = ["user-1", "user-2", "doc-1", "a*b", "a?c", "[x]"]
    byte_store.mset([(key, b"v") for key in keys])
    assert sorted(byte_store.yield_keys()) == sorted(keys)
    assert sorted(byte_store.yield_keys(prefix="user-")) == ["user-1", "user-2"]
    assert list(byte_store.yield_keys(prefix="a*")) == ["a*b"]
    assert list(byte_store.yield_keys(prefix="[x")) == ["[x]"]
    assert list(byte_store.yield_keys(prefix="nothing")) == []


def test_byte_store_rejects_bad_input_before_writing(byte_store: RedisStore) -> None:
    """A bad pair fails the whole batch; nothing is written."""
    with pytest.raises(InvalidInputError, match="bytes"):
        byte_store.mset([("ok", b"1"), ("bad", "text")])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="str"):
        byte_store.mget([1])  # type: ignore[list-item]
    assert byte_store.mget(["ok"]) == [None]


async def test_byte_store_async_twins_and_ttl(redis_url: str, raw: Any) -> None:
    """Async twins agree with the sync methods; ttl gives every value an expiry."""
    store = RedisStore(redis_url=redis_url, namespace=f"ttl-{uuid.uuid4().hex[:8]}", ttl=60)
    await store.amset([("k1", b"v1"), ("k2", b"v2")])
    assert await store.amget(["k2", "k1", "no"]) == [b"v2", b"v1", None]
    assert sorted([key async for key in store.ayield_keys()]) == ["k1", "k2"]
    assert 0 < raw.pttl(f"{store.namespace}/k1") <= 60_000
    await store.amdelete(["k1", "k2"])
    assert store.mget(["k1", "k2"]) == [None, None]


def test_embedding_cache_is_shared_between_processes(redis_url: str, raw: Any) -> None:
    """CacheBackedEmbeddings on a RedisStore: vectors computed in one process are read by
    another, which never calls its model."""
    namespace = f"cache-{uuid.uuid4().hex[:8]}"
    model = HashingEmbeddings(dimension=16)
    cache = RedisStore(redis_url=redis_url, namespace=namespace)
    cached = CacheBackedEmbeddings.from_bytes_store(model, cache, namespace="hash16:")
    expected = cached.embed_documents(["alpha", "beta"])
    script = textwrap.dedent(
        f"""
        import json
        from ragline.embeddings import CacheBackedEmbeddings, Embeddings
        from ragline.vectorstores import RedisStore

        class Refuse(Embeddings):
            def embed_documents(self, texts):
                raise AssertionError("cache miss for " + repr(texts))
            def embed_query(self, text):
                raise AssertionError("query")

        store = RedisStore(redis_url={redis_url!r}, namespace={namespace!r})
        cached = CacheBackedEmbeddings.from_bytes_store(Refuse(), store, namespace="hash16:")
        print(json.dumps(cached.embed_documents(["beta", "alpha"])))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [expected[1], expected[0]]
    for key in raw.scan_iter(match=f"{namespace}/*"):
        raw.delete(key)


def test_refused_writes_are_reported_on_both_write_paths(
    redis_server_factory: Callable[[], Any],
) -> None:
    """Bulk writes switch replies off and count what landed; a user who may not run CLIENT
    gets the plain pipelined path instead. Both report writes the server refuses (here:
    out of memory) instead of losing them silently, and work normally otherwise."""
    server = redis_server_factory().start("--maxmemory", "4mb", "--maxmemory-policy", "noeviction")
    admin = redis.Redis.from_url(server.url, protocol=2)
    admin.execute_command("ACL", "SETUSER", "limited", "on", ">pw", "~*", "&*", "+@all", "-client")
    limited_url = server.url.replace("redis://", "redis://limited:pw@")
    count = 3_000
    rng = np.random.default_rng(5)
    pairs = [(f"t{i}", row.tolist()) for i, row in enumerate(rng.normal(size=(count, 64)))]
    ids = [f"doc-{i}" for i in range(count)]
    for url, fragment in ((server.url, f"of {count} documents"), (limited_url, "maxmemory")):
        store = Redis(HashingEmbeddings(dimension=64), redis_url=url, index_name="small")
        assert store.add_embeddings(pairs[:10], ids=ids[:10]) == ids[:10]
        assert store.count() == 10
        with pytest.raises(RaglineError, match=fragment):
            store.add_embeddings(pairs, ids=ids)
        assert store._quiet_writes is (url == server.url)
        store.drop_index(delete_documents=True)
        store.close()
    admin.close()


# ---------------------------------------------------------------------- exactness (issue 11)


def _keys(raw: Any, prefix: str) -> list[bytes]:
    return sorted(raw.scan_iter(match=prefix.replace("[", "\\[") + "*", count=1000))


def test_stores_whose_names_extend_each_other_never_share_documents(
    make_store: MakeStore, raw: Any
) -> None:
    """Stores 'kb' and 'kb:v2' (default prefixes doc:kb and doc:kb:v2): each counts,
    searches and drops only its own documents (keys are '<prefix>|<id>' and no prefix
    holds '|', so one store's keys never fall under the other's prefix)."""
    name = f"kb-{uuid.uuid4().hex[:6]}"
    kb = make_store(index_name=name)
    v2 = make_store(index_name=f"{name}:v2")
    kb.add_texts(["d0", "d1"], [{"color": "red"}, {"color": "blue"}], ids=["a", "b"])
    v2.add_texts(["d2", "d3", "d4"], [{"color": "red"}] * 3, ids=["a", "c", "d"])
    assert (kb.count(), v2.count()) == (2, 3)
    assert ids_of(kb.similarity_search("q0", k=10)) == ["a", "b"]
    assert ids_of(kb.similarity_search("q0", k=10, filter={"color": "red"})) == ["a"]
    assert kb.get_by_ids(["a"])[0].page_content == "d0"
    assert v2.get_by_ids(["a"])[0].page_content == "d2"
    assert kb.drop_index(delete_documents=True) is True
    assert v2.count() == 3 and ids_of(v2.similarity_search("q0", k=10)) == ["a", "c", "d"]
    assert _keys(raw, f"doc:{name}|") == []
    assert len(_keys(raw, f"doc:{name}:v2|")) == 3


def test_an_index_whose_prefix_would_overlap_is_refused(make_store: MakeStore, raw: Any) -> None:
    """An index of another tool (or an older ragline) whose key prefix covers this store's
    keys (or the other way round) would mix documents: creating the index is refused,
    naming the other index, and nothing is written."""
    other = f"wide-{uuid.uuid4().hex[:6]}"
    raw.execute_command(
        "FT.CREATE", other, "ON", "HASH", "PREFIX", 1, f"{other}:",
        "SCHEMA", "content", "TEXT",
    )  # fmt: skip
    try:
        store = make_store(key_prefix=f"{other}:mine")
        with pytest.raises(ConfigurationError, match=f"index '{other}' covers keys under"):
            store.add_texts(["d0"], ids=["a"])
        assert _keys(raw, f"{other}:mine|") == []
    finally:
        raw.execute_command("FT.DROPINDEX", other)


def test_a_write_after_another_client_dropped_the_index_recreates_it(
    make_store: MakeStore, raw: Any
) -> None:
    """Another client drops the index (keeping the hashes): the store's next write
    re-creates the index it owns with its schema, so old and new documents are indexed,
    counted and filterable; a search alone re-creates it too."""
    store = make_store()
    store.add_texts(["d0", "d1"], [{"color": "red", "n": 1}, {"color": "blue"}], ids=["0", "1"])
    raw.execute_command("FT.DROPINDEX", store.index_name)
    assert store.add_texts(["d2"], [{"color": "red", "n": 3}], ids=["2"]) == ["2"]
    assert store.count() == 3
    assert ids_of(store.similarity_search("q0", k=5, filter={"color": "red"})) == ["0", "2"]
    assert ids_of(store.similarity_search("q0", k=5, filter={"n": {"$gte": 1}})) == ["0", "2"]
    raw.execute_command("FT.DROPINDEX", store.index_name)
    assert ids_of(store.similarity_search("q0", k=5, filter={"color": "blue"})) == ["1"]
    assert store.count() == 3


def test_an_index_recreated_with_another_dimension_fails_the_write(
    make_store: MakeStore, raw: Any
) -> None:
    """Another client re-creates the index with another dimension: add_texts raises a
    clear error before writing (it used to report success while the server logged
    indexing failures)."""
    store = make_store()
    store.add_texts(["d0"], ids=["0"])
    raw.execute_command("FT.DROPINDEX", store.index_name)
    raw.execute_command(
        "FT.CREATE", store.index_name, "ON", "HASH", "PREFIX", 1, f"{store.key_prefix}|",
        "SCHEMA", "content", "TEXT", "content_vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32",
        "DIM", 4, "DISTANCE_METRIC", "COSINE",
    )  # fmt: skip
    with pytest.raises(ConfigurationError, match="exists with dimension 4"):
        store.add_texts(["d1"], ids=["1"])
    assert raw.exists(f"{store.key_prefix}|1") == 0


def _calls(raw: Any, command: str) -> int:
    """How many times the server has run ``command`` (INFO commandstats)."""
    return int(raw.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


def test_writes_to_a_known_index_read_no_index_info(make_store: MakeStore, raw: Any) -> None:
    """FT.INFO costs more the larger the index (~15 ms at 60k HNSW documents, 0.64 s at
    1M): a store that knows its index checks it around each write with commands that cost
    what the write does (it used to send FT.INFO before and after every write). Only its
    first write, which has to learn the index, reads it."""
    store = make_store(vector_schema={"algorithm": "HNSW"})
    store.add_texts(["d0"], [{"color": "red"}], ids=["0"])
    before = _calls(raw, "FT.INFO")
    store.add_texts(["d1", "d2"], [{"color": "blue"}, {"color": "red"}], ids=["1", "2"])
    store.add_texts(["d1"], [{"color": "red"}], ids=["1"])  # a replaced id
    store.add_texts(["d3"], [{"color": "red", "n": 3}], ids=["3"])  # a field first seen
    assert _calls(raw, "FT.INFO") == before
    assert store.count() == 4
    assert ids_of(store.similarity_search("q0", k=5, filter={"color": "red"})) == [
        "0",
        "1",
        "2",
        "3",
    ]
    assert ids_of(store.similarity_search("q0", k=5, filter={"n": 3})) == ["3"]


@pytest.mark.parametrize("holding", ["empty", "holding another client's documents"])
def test_an_index_recreated_at_another_dimension_is_refused_before_writing(
    make_store: MakeStore, raw: Any, holding: str
) -> None:
    """Another client re-creates the index at another dimension, empty or already holding
    its own documents (the server checks a query vector's size only against a non-empty
    index, so both cases are seen): the next write is refused before anything is written,
    naming the change."""
    store = make_store()
    store.add_texts(["d0"], ids=["0"])
    raw.execute_command("FT.DROPINDEX", store.index_name, "DD")
    raw.execute_command(
        "FT.CREATE", store.index_name, "ON", "HASH", "PREFIX", 1, f"{store.key_prefix}|",
        "SCHEMA", "content", "TEXT", "content_vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32",
        "DIM", 4, "DISTANCE_METRIC", "COSINE",
    )  # fmt: skip
    if holding != "empty":
        four = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32).tobytes()
        raw.hset(f"{store.key_prefix}|theirs", mapping={"content": "x", "content_vector": four})
    with pytest.raises(ConfigurationError, match="exists with dimension 4"):
        store.add_texts(["d1"], ids=["1"])
    assert raw.exists(f"{store.key_prefix}|1") == 0
    raw.execute_command("FT.DROPINDEX", store.index_name, "DD")


def test_an_index_recreated_with_another_vector_field_is_refused(
    make_store: MakeStore, raw: Any
) -> None:
    """The server does not check a query's vector field name: an index re-created with
    the same dimension but another vector field (documents there would be indexed
    without their vectors) is still refused before the write."""
    store = make_store()
    store.add_texts(["d0"], ids=["0"])
    raw.execute_command("FT.DROPINDEX", store.index_name)
    raw.execute_command(
        "FT.CREATE", store.index_name, "ON", "HASH", "PREFIX", 1, f"{store.key_prefix}|",
        "SCHEMA", "content", "TEXT", "embedding", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32",
        "DIM", 3, "DISTANCE_METRIC", "COSINE",
    )  # fmt: skip
    raw.hset(
        f"{store.key_prefix}|theirs",
        mapping={"content": "x", "embedding": np.ones(3, dtype=np.float32).tobytes()},
    )
    with pytest.raises(ConfigurationError, match="vector field 'embedding'"):
        store.add_texts(["d1"], ids=["1"])
    assert raw.exists(f"{store.key_prefix}|1") == 0
    raw.execute_command("FT.DROPINDEX", store.index_name, "DD")


def test_a_document_that_fails_to_index_fails_the_write(make_store: MakeStore, raw: Any) -> None:
    """Another client re-creates the index with the store's settings but one of its tag
    fields as NUMERIC, and writes a document of its own there (so the check before the
    write passes): the next document's tag value cannot be indexed, and the write says so
    (the check after it counts the written keys the index holds); the documents that did
    index stay."""
    store = make_store(index_schema={"color": "tag"})
    store.add_texts(["d0"], [{"color": "red"}], ids=["0"])
    raw.execute_command("FT.DROPINDEX", store.index_name)
    raw.execute_command(
        "FT.CREATE", store.index_name, "ON", "HASH", "PREFIX", 1, f"{store.key_prefix}|",
        "SCHEMA", "content", "TEXT", "content_vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32",
        "DIM", 3, "DISTANCE_METRIC", "COSINE", "color", "NUMERIC",
    )  # fmt: skip
    three = np.array([0.0, 1.0, 0.0], dtype=np.float32).tobytes()
    raw.hset(f"{store.key_prefix}|theirs", mapping={"content": "x", "content_vector": three})
    with pytest.raises(RaglineError, match="could not index 1 of the 2 documents just written"):
        store.add_texts(["d1", "d2"], [{"color": "blue"}, {}], ids=["1", "2"])
    assert raw.exists(f"{store.key_prefix}|1") == 1  # written, so the next add can replace it
    assert int(raw.execute_command("FT.SEARCH", store.index_name, "*", "LIMIT", 0, 0)[0]) == 2
    raw.execute_command("FT.DROPINDEX", store.index_name, "DD")


@pytest.mark.parametrize("change", ["dropped", "recreated"])
def test_an_index_changed_while_writing_is_noticed(
    make_store: MakeStore, raw: Any, change: str
) -> None:
    """The index is dropped (or re-created with another dimension) between the store's
    check and its write: the check after the write notices. A dropped index is created
    again and the documents written again (success, all indexed); a re-created one is an
    error, never a success for unindexed documents."""
    store = make_store(batch_size=2)
    store.add_texts(["d0"], ids=["0"])
    write = store._write_rows_op
    changed = []

    def write_then_change(rows: Any, vectors: Any) -> Any:
        yield from write(rows, vectors)
        if not changed:
            changed.append(True)
            raw.execute_command("FT.DROPINDEX", store.index_name)
            if change == "recreated":
                raw.execute_command(
                    "FT.CREATE", store.index_name, "ON", "HASH", "PREFIX", 1,
                    f"{store.key_prefix}|", "SCHEMA", "content", "TEXT", "content_vector",
                    "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", 4, "DISTANCE_METRIC", "COSINE",
                )  # fmt: skip

    store._write_rows_op = write_then_change  # type: ignore[method-assign]
    if change == "dropped":
        assert store.add_texts(["d1", "d2", "d3"], ids=["1", "2", "3"]) == ["1", "2", "3"]
        assert store.count() == 4
        assert ids_of(store.similarity_search("q0", k=5)) == ["0", "1", "2", "3"]
    else:
        with pytest.raises(RaglineError, match=r"not indexed|could not index"):
            store.add_texts(["d1", "d2", "d3"], ids=["1", "2", "3"])
        raw.execute_command("FT.DROPINDEX", store.index_name)


def test_a_server_restarted_empty_gets_the_index_back_on_the_next_write(
    redis_server_factory: Callable[[], Any], embeddings: ExplicitEmbeddings
) -> None:
    """The server restarts without its data: the next add re-creates the index and the new
    documents are searchable and counted (not silently unindexed)."""
    server = redis_server_factory().start()
    store = Redis(embeddings, redis_url=server.url, index_name="restart", connect_timeout=2)
    store.add_texts(["d0", "d1"], [{"color": "red"}, {"color": "blue"}], ids=["0", "1"])
    server.stop()
    server.start()
    assert store.count() == 0  # the server lost the documents; the index is back
    assert store.add_texts(["d2"], [{"color": "red"}], ids=["2"]) == ["2"]
    assert store.count() == 1
    assert ids_of(store.similarity_search("q0", k=5, filter={"color": "red"})) == ["2"]
    store.close()


def test_ids_with_nul_and_percent_round_trip_and_are_dropped(
    make_store: MakeStore, raw: Any
) -> None:
    """Any id round-trips (NUL and '%' are escaped in keys), and drop_index with
    delete_documents leaves none of them behind."""
    store = make_store()
    ids = ["a\x00b", "50%", "%00", "%2500", "\x00", "x|y", "ünï"]
    store.add_texts(["d0", "d1", "d2", "d3", "d4", "d5", "d6"], ids=ids)
    assert ids_of(store.get_by_ids(ids)) == ids
    assert sorted(ids_of(store.similarity_search("q0", k=10))) == sorted(ids)
    store.delete(["%00"])
    assert sorted(ids_of(store.get_by_ids(ids))) == sorted(set(ids) - {"%00"})
    assert store.drop_index(delete_documents=True) is True
    assert _keys(raw, f"{store.key_prefix}|") == []


def test_numbers_compare_exactly_or_raise(make_store: MakeStore) -> None:
    """2**53 and 2**53+1 never compare equal: an inferred field holding an int a double
    cannot hold is a tag (exact); a numeric field refuses such ints when added and in
    filters. +/-inf bounds match as the reference evaluator says."""
    inferred = make_store()
    inferred.add_texts(["d0", "d1"], [{"n": 2**53 + 1}, {"n": 2**53}], ids=["big", "edge"])
    assert inferred.index_schema == {"n": "tag"}
    assert ids_of(inferred.similarity_search("q0", k=5, filter={"n": 2**53})) == ["edge"]
    assert ids_of(inferred.similarity_search("q0", k=5, filter={"n": 2**53 + 1})) == ["big"]
    numeric = make_store(index_schema={"n": "numeric"})
    with pytest.raises(InvalidInputError, match=r"beyond \+/-2\*\*53"):
        numeric.add_texts(["d0"], [{"n": 2**53 + 1}], ids=["big"])
    values = [-1.5, 0, 7, 2**53]
    numeric.add_texts(["d0", "d1", "d2", "d3", "d4"], [{"n": v} for v in values] + [{}],
                      ids=["0", "1", "2", "3", "none"])  # fmt: skip
    with pytest.raises(FilterError, match=r"beyond \+/-2\*\*53"):
        numeric.similarity_search("q0", filter={"n": {"$gte": 2**53 + 1}})
    from ragline.vectorstores.filters import matches

    inf = float("inf")
    metadatas = {str(i): {"n": v} for i, v in enumerate(values)} | {"none": {}}
    for operator in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte"):
        for bound in (inf, -inf, 2**53, 7.0):
            raw_filter = {"n": {operator: bound}}
            expected = sorted(
                i for i, m in metadatas.items() if matches(parse_filter(raw_filter), m)
            )
            found = numeric.similarity_search("q0", k=10, filter=raw_filter)
            assert sorted(ids_of(found)) == expected, raw_filter


def test_a_zero_vector_never_gives_a_nan_score(make_store: MakeStore) -> None:
    """COSINE with a zero query vector (or a stored zero vector) makes RediSearch report
    NaN: the store reports the zero vector as orthogonal (distance 1, relevance 0.5), as
    the in-memory and FAISS stores do, and keeps the order by score."""
    store = make_store()
    store.add_embeddings([("d0", unit(0)), ("d1", unit(90)), ("zero", [0.0, 0.0, 0.0])],
                         ids=["0", "1", "z"])  # fmt: skip
    for _, score in store.similarity_search_with_score_by_vector([0.0, 0.0, 0.0], k=3):
        assert score == 1.0
    pairs = store.similarity_search_with_relevance_scores("q0", k=3)
    assert [(d.id, round(s, 6)) for d, s in pairs] == [("0", 1.0), ("1", 0.5), ("z", 0.5)]
    assert all(s == s for _, s in store.similarity_search_with_score("q0", k=3))


_TAG_TEXT = st.text(
    alphabet=st.sampled_from(
        [" ", "\t", "\n", "\\", "}", "{", "|", ",", "\x1f", "\x1e", "\x00", "~", "#", "%", "*",
         "-", "@", "$", "'", '"', "a", "B", "é", "漢", "\U0001f600", "0", ".", ":", "/", "_"]
    ),
    max_size=6,
)  # fmt: skip
_TAG_VALUE = st.one_of(
    _TAG_TEXT,
    st.booleans(),
    st.integers(-3, 3),
    st.integers(2**53 - 1, 2**53 + 2),
    st.sampled_from([0.5, 1.0, -0.0, 2.5e-7, 1e16]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    stored=st.lists(st.one_of(st.none(), _TAG_VALUE), min_size=1, max_size=8),
    probes=st.lists(_TAG_VALUE, min_size=1, max_size=4),
    data=st.data(),
)
def test_tag_filters_agree_with_the_reference_evaluator(
    tag_store: Redis, stored: list[Any], probes: list[Any], data: Any
) -> None:
    """For generated strings (whitespace only or around, backslashes, the separator, NUL,
    '~' and '#' that start encoded values, emoji, empty ...), bools and numbers, every
    $eq / $ne / $in / $nin filter returns exactly the documents the in-memory store's
    reference evaluator accepts (None means the field is absent)."""
    from ragline.vectorstores.filters import matches

    tag_store.delete([str(i) for i in range(8)])
    metadatas = [{} if value is None else {"v": value} for value in stored]
    ids = [str(i) for i in range(len(stored))]
    tag_store.add_texts(["d0"] * len(ids), metadatas, ids=ids)
    candidates = probes + [value for value in stored if value is not None]
    value = data.draw(st.sampled_from(candidates))
    group = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3))
    for raw_filter in (
        {"v": value},
        {"v": {"$ne": value}},
        {"v": {"$in": group}},
        {"v": {"$nin": group}},
    ):
        expected = sorted(
            i for i, m in zip(ids, metadatas, strict=True) if matches(parse_filter(raw_filter), m)
        )
        found = tag_store.similarity_search("q0", k=10, filter=raw_filter)
        assert sorted(ids_of(found)) == expected, raw_filter


@pytest.fixture(scope="module")
def tag_store(redis_url: str) -> Iterator[Redis]:
    table = {"d0": unit(0), "q0": unit(0)}
    store = Redis(ExplicitEmbeddings(table), redis_url=redis_url,
                  index_name=f"tags-{uuid.uuid4().hex[:8]}", index_schema={"v": "tag"})  # fmt: skip
    yield store
    store.drop_index(delete_documents=True)
    store.close()


def _legacy_index(raw: Any, name: str, docs: dict[str, tuple[float, dict[str, Any]]]) -> None:
    """An index as ragline wrote it before exact keys and tags: keys 'doc:<name>:<id>',
    tag values raw (separator 0x1f, case-sensitive), the metadata JSON beside them."""
    raw.execute_command(
        "FT.CREATE", name, "ON", "HASH", "PREFIX", 1, f"doc:{name}:", "STOPWORDS", 0,
        "SCHEMA", "content", "TEXT", "content_vector", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32",
        "DIM", 3, "DISTANCE_METRIC", "COSINE", "color", "TAG", "SEPARATOR", "\x1f",
        "CASESENSITIVE", "n", "NUMERIC",
    )  # fmt: skip
    for doc_id, (angle, metadata) in docs.items():
        fields = {"content": f"text {doc_id}", "_metadata": json.dumps(metadata),
                  "content_vector": np.array(unit(angle), dtype=np.float32).tobytes()}  # fmt: skip
        fields.update({k: str(v) for k, v in metadata.items() if k in ("color", "n")})
        raw.hset(f"doc:{name}:{doc_id}", mapping=fields)


def test_an_index_of_an_older_ragline_is_read_as_it_is_or_migrated(
    embeddings: ExplicitEmbeddings, redis_url: str, raw: Any
) -> None:
    """An index written with the old layout: a new store on its name says what to do;
    from_existing_index reads it as it is; migrate_index moves it to the exact layout in
    place, leaving alone the documents of a store whose old prefix nested inside it."""
    name = f"old-{uuid.uuid4().hex[:6]}"
    _legacy_index(raw, name, {"a": (0, {"color": "red", "n": 1}), "b": (90, {"color": " x"})})
    _legacy_index(raw, f"{name}:v2", {"c": (10, {"color": "red"})})
    try:
        with pytest.raises(ConfigurationError, match="written by an older ragline") as info:
            Redis(embeddings, redis_url=redis_url, index_name=name).similarity_search("q0")
        assert "Redis.migrate_index" in str(info.value)
        legacy = Redis.from_existing_index(embeddings, name, redis_url=redis_url)
        assert ids_of(legacy.similarity_search("q0", k=1, filter={"color": "red"})) == ["a"]
        migrated = Redis.migrate_index(embeddings, name, redis_url=redis_url)
        assert migrated.key_prefix == f"doc:{name}" and migrated.count() == 2
        assert _keys(raw, f"doc:{name}|") == [f"doc:{name}|a".encode(), f"doc:{name}|b".encode()]
        assert raw.exists(f"doc:{name}:a", f"doc:{name}:b") == 0
        assert raw.exists(f"doc:{name}:v2:c") == 1  # another store's document: untouched
        assert ids_of(migrated.similarity_search("q0", k=5, filter={"color": "red"})) == ["a"]
        assert ids_of(migrated.similarity_search("q0", k=5, filter={"color": " x"})) == ["b"]
        [got] = migrated.get_by_ids(["a"])
        assert (got.page_content, got.metadata) == ("text a", {"color": "red", "n": 1})
        again = Redis.migrate_index(embeddings, name, redis_url=redis_url)
        assert again.count() == 2
        reopened = Redis(embeddings, redis_url=redis_url, index_name=name)
        reopened.add_texts(["d2"], [{"color": "red"}], ids=["new"])
        assert ids_of(reopened.similarity_search("q0", k=5, filter={"color": "red"})) == [
            "a",
            "new",
        ]
    finally:
        for index in (name, f"{name}:v2"):
            with contextlib.suppress(redis.exceptions.ResponseError):
                raw.execute_command("FT.DROPINDEX", index, "DD")


# ---------------------------------------------------------------------- past a batch size


@pytest.mark.parametrize("use_async", [False, True])
async def test_reads_and_deletes_past_the_batch_size(
    make_store: MakeStore, redis_url: str, use_async: bool
) -> None:
    """get_by_ids and delete work in batches of batch_size (here 3): with 10 documents,
    the order asked for survives every batch boundary, unknown ids are skipped wherever
    they fall, and deletes reach the later batches (sync, and async on redis.asyncio)."""
    import redis.asyncio as redis_asyncio

    client = redis_asyncio.Redis.from_url(redis_url, protocol=2) if use_async else None
    store = make_store(batch_size=3, async_client=client)
    ids = [f"id{i}" for i in range(10)]
    table_texts = ["d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "q0", "q3"]
    store.add_texts(table_texts, [{"n": i} for i in range(10)], ids=ids)
    asked = ["id9", "nope", "id0", "id5", "id3", "gone", "id8", "id1", "id7", "id2", "id6"]
    expected = [doc_id for doc_id in asked if doc_id in ids]
    got = await store.aget_by_ids(asked) if use_async else store.get_by_ids(asked)
    assert ids_of(got) == expected
    assert [doc.metadata["n"] for doc in got] == [int(doc_id[2:]) for doc_id in expected]
    doomed = ["id0", "id4", "id5", "id7", "id8", "id9", "never"]
    await store.adelete(doomed) if use_async else store.delete(doomed)
    assert store.count() == 4
    assert ids_of(store.get_by_ids(ids)) == ["id1", "id2", "id3", "id6"]
    if client is not None:
        await client.aclose()


@pytest.mark.parametrize("use_async", [False, True])
async def test_byte_store_past_the_batch_size(redis_url: str, raw: Any, use_async: bool) -> None:
    """RedisStore with batch_size=2: mset, mget (order kept across batches, None for
    missing), yield_keys (several SCAN pages) and mdelete reach every batch."""
    namespace = f"batches-{uuid.uuid4().hex[:8]}"
    store = RedisStore(redis_url=redis_url, namespace=namespace, batch_size=2)
    pairs = [(f"k{i}", f"v{i}".encode()) for i in range(7)]
    asked = ["k6", "x", "k0", "k3", "y", "k5", "k1"]
    try:
        if use_async:
            await store.amset(pairs)
            assert await store.amget(asked) == [b"v6", None, b"v0", b"v3", None, b"v5", b"v1"]
            assert sorted([key async for key in store.ayield_keys()]) == [k for k, _ in pairs]
            await store.amdelete(["k0", "k2", "k4", "k6", "x"])
        else:
            store.mset(pairs)
            assert store.mget(asked) == [b"v6", None, b"v0", b"v3", None, b"v5", b"v1"]
            assert sorted(store.yield_keys()) == [k for k, _ in pairs]
            store.mdelete(["k0", "k2", "k4", "k6", "x"])
        assert store.mget([k for k, _ in pairs]) == [None, b"v1", None, b"v3", None, b"v5", None]
    finally:
        for key in raw.scan_iter(match=f"{namespace}/*"):
            raw.delete(key)

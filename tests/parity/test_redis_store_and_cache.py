"""Parity: RedisStore and RedisCache against langchain_community's on a real Redis Stack.
The stores share keys: each reads what the other wrote.
"""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.cache import RedisCache as LCRedisCache
    from langchain_community.storage import RedisStore as LCRedisStore
from langchain_core.globals import set_llm_cache as lc_set_llm_cache
from langchain_core.language_models import FakeListLLM as LCFakeListLLM

import ragline.core as rl

COVERS = {"core.RedisStore", "core.RedisCache"}

pytestmark = pytest.mark.redis


def test_redis_stores_read_each_other_s_keys(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    theirs = LCRedisStore(client=client, namespace="parity-ns")
    ours = rl.RedisStore(client=client, namespace="parity-ns")
    stale = list(theirs.yield_keys())
    if stale:  # LangChain's mdelete([]) sends DEL with no key, which Redis refuses
        theirs.mdelete(stale)
    theirs.mset([("a", b"1"), ("b", b"2")])
    assert ours.mget(["a", "b", "z"]) == [b"1", b"2", None]
    assert sorted(ours.yield_keys()) == sorted(theirs.yield_keys()) == ["a", "b"]
    ours.mset([("c", b"3")])
    assert theirs.mget(["c"]) == [b"3"]
    ours.mdelete(["a"])
    assert sorted(theirs.yield_keys(prefix="b")) == sorted(ours.yield_keys(prefix="b")) == ["b"]
    by_url = rl.RedisStore(redis_url=redis_url, namespace="parity-ttl", ttl=60)
    by_url.mset([("k", b"v")])
    assert LCRedisStore(redis_url=redis_url, namespace="parity-ttl", ttl=60).mget(["k"]) == [b"v"]
    assert 0 < client.ttl("parity-ttl/k") <= 60
    ours.mdelete(list(ours.yield_keys()))
    by_url.mdelete(["k"])


def test_redis_cache_answers_repeated_prompts(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    answers = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for set_cache, cache, llm in (
            (lc_set_llm_cache, LCRedisCache(redis_=client), LCFakeListLLM(responses=["x", "y"])),
            (rl.set_llm_cache, rl.RedisCache(redis_=client), rl.FakeListLLM(responses=["x", "y"])),
        ):
            cache.clear()
            set_cache(cache)
            try:
                answers.append([llm.invoke("pp"), llm.invoke("pp"), llm.invoke("qq")])
            finally:
                set_cache(None)
                cache.clear()
    assert answers[1] == answers[0] == ["x", "x", "y"]

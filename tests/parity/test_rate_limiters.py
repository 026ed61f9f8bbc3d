"""Parity: ``InMemoryRateLimiter`` and a chat model's ``rate_limiter=``, against LangChain's.

The token bucket runs under one controlled clock (``time.monotonic`` replaced for both
libraries alike), so the sequence of ``acquire(blocking=False)`` answers is compared
exactly, without timing. A recording limiter (a subclass of each library's
``BaseRateLimiter``) shows which model calls take a token: invoke, stream, batch and
their async twins do; a cache hit does not.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from langchain_core.caches import InMemoryCache as LCInMemoryCache
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.rate_limiters import BaseRateLimiter as LCBaseRateLimiter
from langchain_core.rate_limiters import InMemoryRateLimiter as LCInMemoryRateLimiter

from ragline.core import (
    BaseRateLimiter,
    FakeListChatModel,
    InMemoryCache,
    InMemoryRateLimiter,
)

COVERS = {"core.InMemoryRateLimiter", "core.BaseRateLimiter"}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def answers(limiter_class: Any, clock: Clock) -> list[Any]:
    limiter = limiter_class(requests_per_second=2, check_every_n_seconds=0.01, max_bucket_size=3)
    seen: list[Any] = []
    for at, tries in [(100.0, 2), (101.2, 4), (101.5, 2), (110.0, 5), (110.49, 1), (110.5, 2)]:
        clock.now = at
        seen.append([limiter.acquire(blocking=False) for _ in range(tries)])
    clock.now = 111.0
    seen.append(asyncio.run(limiter.aacquire(blocking=False)))
    seen.append(round(limiter.available_tokens, 6))
    return seen


def test_the_bucket_starts_empty_fills_at_the_rate_and_caps_at_the_burst(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(time, "monotonic", clock)
    theirs = answers(LCInMemoryRateLimiter, clock)
    ours = answers(InMemoryRateLimiter, clock)
    assert ours == theirs
    assert ours[0] == [False, False] and ours[1] == [True, True, False, False]


def test_a_blocked_acquire_waits_for_its_token(monkeypatch):
    def run(limiter_class: Any) -> Any:
        clock = Clock()
        monkeypatch.setattr(time, "monotonic", clock)
        naps: list[float] = []

        def sleep(seconds: float) -> None:
            naps.append(seconds)
            clock.now += seconds

        monkeypatch.setattr(time, "sleep", sleep)
        limiter = limiter_class(requests_per_second=4, check_every_n_seconds=0.1)
        got = [limiter.acquire(), limiter.acquire()]
        return got, len(naps), set(naps)

    assert run(InMemoryRateLimiter) == run(LCInMemoryRateLimiter)


def test_the_base_is_abstract():
    for base in (BaseRateLimiter, LCBaseRateLimiter):
        with pytest.raises(TypeError):
            base()


def recording(base: Any) -> Any:
    class Recording(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.calls: list[tuple[str, bool]] = []

        def acquire(self, *, blocking: bool = True) -> bool:
            self.calls.append(("acquire", blocking))
            return True

        async def aacquire(self, *, blocking: bool = True) -> bool:
            self.calls.append(("aacquire", blocking))
            return True

    return Recording()


def model_calls(model_class: Any, base: Any, cache_class: Any) -> list[Any]:
    limiter = recording(base)
    model = model_class(responses=["r1", "r2", "r3"], rate_limiter=limiter)
    seen: list[Any] = []

    def step(label: str, value: Any) -> None:
        seen.append((label, value, list(limiter.calls)))
        limiter.calls.clear()

    step("invoke", model.invoke("a").content)
    step("stream", [c.content for c in model.stream("b")])
    step("batch", [m.content for m in model.batch(["c", "d"])])
    step("ainvoke", asyncio.run(model.ainvoke("e")).content)

    async def astream() -> list[str]:
        return [c.content async for c in model.astream("f")]

    step("astream", asyncio.run(astream()))
    cached = model_class(responses=["x", "y"], rate_limiter=limiter, cache=cache_class())
    step("first", cached.invoke("same").content)
    step("hit", cached.invoke("same").content)
    return seen


def test_a_chat_model_takes_a_token_before_each_call_but_not_on_a_cache_hit():
    theirs = model_calls(LCFakeListChatModel, LCBaseRateLimiter, LCInMemoryCache)
    ours = model_calls(FakeListChatModel, BaseRateLimiter, InMemoryCache)
    assert ours == theirs
    assert ours[-1] == ("hit", "x", [])


def test_the_trial_program_limits_a_model(monkeypatch):
    def run(model_class: Any, limiter_class: Any) -> list[Any]:
        clock = Clock()
        monkeypatch.setattr(time, "monotonic", clock)
        monkeypatch.setattr(time, "sleep", lambda s: setattr(clock, "now", clock.now + s))
        limiter = limiter_class(
            requests_per_second=50, check_every_n_seconds=0.01, max_bucket_size=10
        )
        model = model_class(responses=["r1", "r2", "r3"], rate_limiter=limiter)
        return [model.invoke("hello").content for _ in range(3)] + [limiter.acquire(blocking=False)]

    assert run(FakeListChatModel, InMemoryRateLimiter) == run(
        LCFakeListChatModel, LCInMemoryRateLimiter
    )

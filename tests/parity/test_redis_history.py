"""Parity: RedisChatMessageHistory against langchain_community's on a real Redis Stack:
each library reads and extends the other's sessions (same key, same message format).
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.chat_message_histories import (
        RedisChatMessageHistory as LCRedisHistory,
    )

import langchain_core.messages as lc_messages

import ragline.core as rl_core
from ragline.memory import RedisChatMessageHistory
from tests.parity._observe import observe

COVERS = {"memory.RedisChatMessageHistory"}

pytestmark = pytest.mark.redis


def test_each_reads_and_extends_the_other_s_session(redis_url: str) -> None:
    theirs = LCRedisHistory(session_id="parity-1", url=redis_url)
    theirs.clear()
    theirs.add_user_message("hi")
    theirs.add_ai_message("yo")
    ours = RedisChatMessageHistory(session_id="parity-1", url=redis_url)
    assert ours.key == theirs.key == "message_store:parity-1"
    assert observe(ours.messages) == observe(theirs.messages)
    ours.add_user_message("from ragline")
    again = LCRedisHistory(session_id="parity-1", url=redis_url)
    assert observe(again.messages) == [
        ("HumanMessage", "hi", None),
        ("AIMessage", "yo", None),
        ("HumanMessage", "from ragline", None),
    ]
    ours.clear()
    assert again.messages == []


def test_sessions_are_separate_and_str_prints_the_same(redis_url: str) -> None:
    def fill(history: Any) -> None:
        history.clear()
        history.add_user_message("q")
        history.add_ai_message("a")

    pairs = []
    for session in ("parity-a", "parity-b"):
        fill(LCRedisHistory(session_id=f"lc-{session}", url=redis_url))
        fill(RedisChatMessageHistory(session_id=f"rl-{session}", url=redis_url))
        pairs.append(
            (
                LCRedisHistory(session_id=f"lc-{session}", url=redis_url),
                RedisChatMessageHistory(session_id=f"rl-{session}", url=redis_url),
            )
        )
    for theirs, ours in pairs:
        assert observe(ours.messages) == observe(theirs.messages)
        assert str(ours) == str(theirs) == "Human: q\nAI: a"
        theirs.clear()
        ours.clear()


def _subclass_calls(base: type, messages: Any, redis_url: str, session: str) -> Any:
    """A subclass overriding add_message sees every message of a batch, sync and async
    (LangChain's history has add_message only: its base's add_messages loops over it,
    and aadd_messages runs add_messages in a worker thread)."""
    calls: list[Any] = []

    class Logged(base):  # type: ignore[misc, valid-type]
        def add_message(self, message: Any) -> None:
            calls.append((message.type, message.content))
            super().add_message(message)

    history = Logged(session_id=session, url=redis_url)
    history.clear()
    history.add_messages([messages.HumanMessage("a"), messages.AIMessage("b")])
    asyncio.run(history.aadd_messages([messages.HumanMessage("c")]))
    history.add_ai_message("d")
    stored = [(m.type, m.content) for m in base(session_id=session, url=redis_url).messages]
    history.clear()
    return calls, stored


def test_a_subclass_add_message_sees_every_message(redis_url: str) -> None:
    expected = _subclass_calls(LCRedisHistory, lc_messages, redis_url, "parity-lc-sub")
    actual = _subclass_calls(RedisChatMessageHistory, rl_core, redis_url, "parity-rl-sub")
    assert actual == expected

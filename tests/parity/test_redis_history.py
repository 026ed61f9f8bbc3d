"""Parity: RedisChatMessageHistory against langchain_community's on a real Redis Stack:
each library reads and extends the other's sessions (same key, same message format).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.chat_message_histories import (
        RedisChatMessageHistory as LCRedisHistory,
    )

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

"""The LLM-cache contract: every BaseCache passes these, unchanged.

Subclass ``LLMCacheContract`` in a test module and give it a ``open_cache`` fixture: a
function returning a cache on fresh, empty storage; calling it twice must give two
handles on the SAME storage (for the in-memory cache: the same object)::

    class TestMyCache(LLMCacheContract):
        @pytest.fixture
        def open_cache(self, tmp_path):
            return lambda: MyCache(tmp_path / "cache.db")

Each test's docstring says what to check when it fails.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragline.core import (
    AIMessage,
    BaseCache,
    ChatGeneration,
    Generation,
    InvalidInputError,
)

OpenCache = Callable[[], BaseCache]

CHAT = [
    ChatGeneration(
        message=AIMessage(
            "Paris — 巴黎",
            tool_calls=[{"name": "lookup", "args": {"city": "Paris"}, "id": "call-1"}],
            usage_metadata={"input_tokens": 5, "output_tokens": 2, "total_tokens": 7},
            response_metadata={"finish_reason": "stop"},
            id="run-1",
        ),
        generation_info={"finish_reason": "stop"},
    )
]
TEXT = [Generation("4", {"logprobs": None}), Generation("four")]


class LLMCacheContract:
    """lookup / update / clear and their async twins on an empty cache."""

    @pytest.fixture
    def open_cache(self) -> OpenCache:
        raise NotImplementedError("subclasses return open_cache() -> cache")

    def test_a_miss_is_none(self, open_cache: OpenCache) -> None:
        """Nothing stored: lookup returns None (not an empty list)."""
        assert open_cache().lookup("prompt", "model") is None

    def test_what_is_stored_comes_back_equal(self, open_cache: OpenCache) -> None:
        """Text generations (with their info) and chat generations (with the whole
        message: tool calls, usage, metadata, non-ASCII text) come back equal, in order."""
        cache = open_cache()
        cache.update("2 + 2 =", "llm-a", TEXT)
        cache.update('[{"type": "human"}]', "chat-a", CHAT)
        assert cache.lookup("2 + 2 =", "llm-a") == TEXT
        assert cache.lookup('[{"type": "human"}]', "chat-a") == CHAT
        (hit,) = cache.lookup('[{"type": "human"}]', "chat-a") or []
        assert isinstance(hit, ChatGeneration) and isinstance(hit.message, AIMessage)

    def test_prompt_and_model_string_both_make_the_key(self, open_cache: OpenCache) -> None:
        """Another prompt, or the same prompt for another model string (other params,
        stop words, tools), is a miss."""
        cache = open_cache()
        cache.update("p", "m1", TEXT)
        assert cache.lookup("p", "m2") is None
        assert cache.lookup("p2", "m1") is None
        assert cache.lookup("p", "m1") == TEXT

    def test_update_replaces(self, open_cache: OpenCache) -> None:
        cache = open_cache()
        cache.update("p", "m", TEXT)
        cache.update("p", "m", [Generation("new")])
        assert cache.lookup("p", "m") == [Generation("new")]

    def test_a_second_handle_shares_the_entries(self, open_cache: OpenCache) -> None:
        """Another handle on the same storage (another process, for persistent caches)
        sees the entries."""
        open_cache().update("p", "m", CHAT)
        assert open_cache().lookup("p", "m") == CHAT

    def test_clear_removes_every_entry(self, open_cache: OpenCache) -> None:
        cache = open_cache()
        cache.update("p1", "m", TEXT)
        cache.update("p2", "m", CHAT)
        cache.clear()
        assert cache.lookup("p1", "m") is None and cache.lookup("p2", "m") is None
        cache.update("p1", "m", TEXT)  # still usable
        assert cache.lookup("p1", "m") == TEXT

    @pytest.mark.parametrize("bad", ["text", Generation("not in a list"), [Generation("a"), "b"]])
    def test_bad_values_are_refused_and_nothing_is_stored(
        self, open_cache: OpenCache, bad: object
    ) -> None:
        cache = open_cache()
        cache.update("p", "m", TEXT)
        with pytest.raises(InvalidInputError, match="Generation"):
            cache.update("p", "m", bad)  # type: ignore[arg-type]
        assert cache.lookup("p", "m") == TEXT

    def test_pairs_that_join_to_the_same_text_are_different_entries(
        self, open_cache: OpenCache
    ) -> None:
        """("a\\0b", "c") and ("a", "b\\0c") join to the same text around a NUL; each
        must get its own answer. If they swap answers, the key is built by joining the
        parts with a separator (build it from length-prefixed parts) or the lookup does
        not compare the stored prompt and model string with the asked ones."""
        cache = open_cache()
        cache.update("a\0b", "c", [Generation("first")])
        cache.update("a", "b\0c", [Generation("second")])
        assert cache.lookup("a\0b", "c") == [Generation("first")]
        assert cache.lookup("a", "b\0c") == [Generation("second")]
        assert cache.lookup("a", "b") is None

    @pytest.mark.parametrize(
        ("prompt", "llm_string", "named"),
        [("bad \ud800 prompt", "m", "prompt"), ("p", "model \udfff", "llm_string")],
    )
    def test_a_lone_surrogate_is_refused_by_name(
        self, open_cache: OpenCache, prompt: str, llm_string: str, named: str
    ) -> None:
        """A prompt or model string holding a lone surrogate (not valid Unicode) raises
        InvalidInputError naming the argument, on lookup and update, and stores nothing.
        A raw UnicodeEncodeError means the text reached the database or server unchecked."""
        cache = open_cache()
        cache.update("p", "m", TEXT)
        with pytest.raises(InvalidInputError, match=rf"^{named} holds '\\ud[8f]..' at position"):
            cache.lookup(prompt, llm_string)
        with pytest.raises(InvalidInputError, match=rf"^{named} holds .*lone surrogate"):
            cache.update(prompt, llm_string, TEXT)
        assert cache.lookup("p", "m") == TEXT

    async def test_async_twins(self, open_cache: OpenCache) -> None:
        cache = open_cache()
        assert await cache.alookup("p", "m") is None
        await cache.aupdate("p", "m", CHAT)
        assert await cache.alookup("p", "m") == CHAT
        assert cache.lookup("p", "m") == CHAT
        await cache.aclear()
        assert await cache.alookup("p", "m") is None

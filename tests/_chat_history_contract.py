"""The chat-message-history contract: every BaseChatMessageHistory passes these, unchanged.

Subclass ``ChatHistoryContract`` in a test module and give it a ``open_history`` fixture:
a function ``open_history(session_id)`` returning a history for that session on fresh,
empty storage. Calling it twice with one session id must give two handles on the SAME
stored conversation (for the in-memory history: the same object)::

    class TestMyHistory(ChatHistoryContract):
        @pytest.fixture
        def open_history(self, tmp_path):
            return lambda session_id: MyHistory(session_id, path=tmp_path / "db")

Each test's docstring says what to check when it fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from ragline.core import (
    AIMessage,
    BaseChatMessageHistory,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    InvalidInputError,
    SystemMessage,
    ToolMessage,
)

OpenHistory = Callable[[str], BaseChatMessageHistory]

# One of every message type, with the optional fields filled in.
RICH_MESSAGES = [
    SystemMessage("You are terse.", id="m0"),
    HumanMessage(
        ["Look: ", {"type": "image_url", "image_url": {"url": "data:,x"}}],
        name="ada",
        id="m1",
    ),
    AIMessage(
        "",
        tool_calls=[{"name": "search", "args": {"q": "ragline", "k": 2}, "id": "call-1"}],
        invalid_tool_calls=[{"name": "calc", "args": "{1+", "id": "call-2", "error": "bad json"}],
        usage_metadata={"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
        response_metadata={"model_name": "test-model", "finish_reason": "tool_calls"},
        additional_kwargs={"refusal": None},
    ),
    ToolMessage("2 hits", tool_call_id="call-1", artifact={"hits": [1, 2]}, status="success"),
    ToolMessage("boom", tool_call_id="call-2", status="error"),
    ChatMessage("Looks fine.", role="critic"),
    FunctionMessage('{"temp": 21}', name="weather"),
    AIMessage("Héllo wörld ✓ — 你好"),
]


class ChatHistoryContract:
    """messages / add_message(s) / add_user_message / add_ai_message / clear / async twins."""

    @pytest.fixture
    def open_history(self) -> OpenHistory:
        raise NotImplementedError("subclasses return open_history(session_id) -> history")

    def test_a_new_history_is_empty(self, open_history: OpenHistory) -> None:
        """A session nobody wrote to has no messages (and reading it creates nothing)."""
        history = open_history("empty")
        assert history.messages == []
        assert str(history) == ""

    def test_messages_come_back_in_the_order_they_were_added(
        self, open_history: OpenHistory
    ) -> None:
        """add_user_message / add_ai_message take strings or messages; order is kept."""
        history = open_history("order")
        history.add_user_message("What is RAG?")
        history.add_ai_message("Retrieval-augmented generation.")
        history.add_user_message(HumanMessage("And FAISS?", id="h2"))
        history.add_ai_message(AIMessage("A vector index.", id="a2"))
        history.add_message(SystemMessage("note"))
        assert history.messages == [
            HumanMessage("What is RAG?"),
            AIMessage("Retrieval-augmented generation."),
            HumanMessage("And FAISS?", id="h2"),
            AIMessage("A vector index.", id="a2"),
            SystemMessage("note"),
        ]
        assert str(history).splitlines()[:2] == [
            "Human: What is RAG?",
            "AI: Retrieval-augmented generation.",
        ]

    def test_every_message_type_round_trips_exactly(self, open_history: OpenHistory) -> None:
        """Tool calls, tool results with artifacts, roles, function messages, content
        blocks, ids, names, usage and non-ASCII text all come back equal. If one field
        is lost, look at the history's encoding (message_to_dict / messages_from_dict)."""
        history = open_history("rich")
        history.add_messages(RICH_MESSAGES[:3])
        history.add_messages(RICH_MESSAGES[3:])
        assert history.messages == RICH_MESSAGES
        assert [type(m) for m in history.messages] == [type(m) for m in RICH_MESSAGES]

    def test_a_second_handle_sees_the_same_conversation(self, open_history: OpenHistory) -> None:
        """Opening the same session again (a new process, a new request) reads what the
        first handle wrote, and its writes append to the same conversation."""
        first = open_history("shared")
        first.add_user_message("one")
        second = open_history("shared")
        assert second.messages == [HumanMessage("one")]
        second.add_ai_message("two")
        assert first.messages == [HumanMessage("one"), AIMessage("two")]

    def test_sessions_are_separate(self, open_history: OpenHistory) -> None:
        """Writing to or clearing one session leaves another untouched."""
        alice, bob = open_history("alice"), open_history("bob")
        alice.add_user_message("I am Alice")
        bob.add_user_message("I am Bob")
        alice.clear()
        assert alice.messages == []
        assert bob.messages == [HumanMessage("I am Bob")]

    def test_clear_then_add_starts_a_new_conversation(self, open_history: OpenHistory) -> None:
        """clear() removes every message; the history is usable afterwards."""
        history = open_history("clear")
        history.add_messages([HumanMessage("a"), AIMessage("b")])
        history.clear()
        assert history.messages == []
        history.add_user_message("c")
        assert history.messages == [HumanMessage("c")]
        history.clear()
        history.clear()  # clearing an empty history is fine
        assert history.messages == []

    def test_adding_nothing_changes_nothing(self, open_history: OpenHistory) -> None:
        """add_messages([]) is a no-op."""
        history = open_history("nothing")
        history.add_messages([])
        assert history.messages == []

    @pytest.mark.parametrize(
        "bad",
        [
            "just a string",
            HumanMessage("not in a list"),
            [HumanMessage("ok"), "not a message"],
            [HumanMessage("ok"), {"role": "user", "content": "a dict"}],
            [None],
        ],
    )
    def test_bad_input_is_refused_and_nothing_is_stored(
        self, open_history: OpenHistory, bad: Any
    ) -> None:
        """A non-list or a non-message item raises InvalidInputError before any write:
        the valid messages of the same call are not stored either."""
        history = open_history("bad")
        history.add_user_message("kept")
        with pytest.raises(InvalidInputError, match="message"):
            history.add_messages(bad)
        assert history.messages == [HumanMessage("kept")]

    def test_a_session_id_that_is_not_valid_unicode_is_kept_or_refused_by_name(
        self, open_history: OpenHistory
    ) -> None:
        """A session id holding a lone surrogate either works like any other (a history
        that keeps it in memory) or is refused with InvalidInputError naming the argument
        (session_id, or file_path for a history named by its file) before anything is
        stored. A raw UnicodeEncodeError means it reached the database, server or file
        system unchecked."""
        try:
            history = open_history("bad-\ud800-session")
            history.add_user_message("hi")
        except InvalidInputError as err:
            assert re.match(r"(session_id|file_path) '.*' holds '\\ud800'", str(err)), err
        else:
            assert open_history("bad-\ud800-session").messages == [HumanMessage("hi")]
        assert open_history("bad-").messages == []

    async def test_async_twins(self, open_history: OpenHistory) -> None:
        """aadd_messages / aget_messages / aclear behave like their sync twins and see
        the same storage."""
        history = open_history("async")
        await history.aadd_messages([HumanMessage("hi"), AIMessage("hello")])
        await history.aadd_message(SystemMessage("s"))
        assert await history.aget_messages() == [
            HumanMessage("hi"),
            AIMessage("hello"),
            SystemMessage("s"),
        ]
        assert open_history("async").messages == await history.aget_messages()
        with pytest.raises(InvalidInputError):
            await history.aadd_messages("oops")  # type: ignore[arg-type]
        await history.aclear()
        assert await history.aget_messages() == []
        assert history.messages == []

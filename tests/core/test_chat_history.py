"""Chat message histories in core: the contract suite on the in-memory history, and the
base class written once for every history (subclasses LangChain-style)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from _chat_history_contract import ChatHistoryContract, OpenHistory

from ragline.core import (
    AIMessage,
    BaseChatMessageHistory,
    BaseMessage,
    ChatMessageHistory,
    HumanMessage,
    InMemoryChatMessageHistory,
    InvalidInputError,
)


class TestInMemoryChatMessageHistory(ChatHistoryContract):
    @pytest.fixture
    def open_history(self) -> OpenHistory:
        sessions: dict[str, InMemoryChatMessageHistory] = {}
        return lambda session_id: sessions.setdefault(session_id, InMemoryChatMessageHistory())


def test_chat_message_history_is_the_in_memory_history() -> None:
    assert ChatMessageHistory is InMemoryChatMessageHistory
    history = ChatMessageHistory(messages=[HumanMessage("hi")])
    assert history.messages == [HumanMessage("hi")]
    assert repr(history) == f"InMemoryChatMessageHistory(messages=[{HumanMessage('hi')!r}])"


def test_in_memory_history_checks_its_starting_messages() -> None:
    with pytest.raises(InvalidInputError, match=r"messages\[1\] must be a message"):
        InMemoryChatMessageHistory(messages=[HumanMessage("a"), "b"])
    with pytest.warns(UserWarning, match=r"InMemoryChatMessageHistory\(\) ignores 'session_id'"):
        assert InMemoryChatMessageHistory(session_id="x").messages == []  # type: ignore[call-arg]


def test_a_subclass_implementing_only_add_message_gets_the_rest() -> None:
    """LangChain-era histories implement add_message; add_messages and the helpers work."""

    class OneByOne(BaseChatMessageHistory):
        def __init__(self) -> None:
            self.messages: list[BaseMessage] = []
            self.calls = 0

        def add_message(self, message: BaseMessage) -> None:
            self.calls += 1
            self.messages.append(message)

        def clear(self) -> None:
            self.messages = []

    history = OneByOne()
    history.add_messages([HumanMessage("a"), AIMessage("b")])
    history.add_user_message("c")
    assert history.messages == [HumanMessage("a"), AIMessage("b"), HumanMessage("c")]
    assert history.calls == 3


def test_a_subclass_implementing_only_add_messages_gets_add_message() -> None:
    class Batched(BaseChatMessageHistory):
        def __init__(self) -> None:
            self.messages: list[BaseMessage] = []
            self.batches: list[int] = []

        def add_messages(self, messages: Sequence[BaseMessage]) -> None:
            self.batches.append(len(messages))
            self.messages.extend(messages)

        def clear(self) -> None:
            self.messages = []

    history = Batched()
    history.add_ai_message("x")
    history.add_messages([HumanMessage("a"), AIMessage("b")])
    assert history.batches == [1, 2]


def test_a_subclass_implementing_neither_says_what_is_missing() -> None:
    class Nothing(BaseChatMessageHistory):
        messages: list[BaseMessage] = []  # noqa: RUF012

        def clear(self) -> None:
            pass

    with pytest.raises(NotImplementedError, match="Nothing must implement add_messages"):
        Nothing().add_user_message("hi")


async def test_default_async_twins_use_the_sync_methods() -> None:
    class Plain(BaseChatMessageHistory):
        def __init__(self) -> None:
            self.messages: list[BaseMessage] = []

        def add_messages(self, messages: Sequence[BaseMessage]) -> None:
            self.messages.extend(messages)

        def clear(self) -> None:
            self.messages = []

    history = Plain()
    await history.aadd_messages([HumanMessage("a")])
    assert await history.aget_messages() == [HumanMessage("a")]
    await history.aclear()
    assert history.messages == []


def test_docstring_examples_run() -> None:
    import doctest

    from ragline.core import _message_dicts, _sqlite, chat_history
    from ragline.core.runnables import history

    for module in (chat_history, _message_dicts, _sqlite, history):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__

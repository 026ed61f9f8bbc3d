"""Parity: the legacy memories and the chat message histories against LangChain's.

A conversation is saved turn by turn into langchain_classic's memory and into ragline's
of the same name, and what each turn loads (transcript text or messages) must be equal.
The token-limited memories count with the model's counter; the scenarios give both
models the same word counter (LangChain's default counter downloads GPT-2's tokenizer).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import langchain_classic.memory as lc_memory
    from langchain_classic.base_memory import BaseMemory as LCBaseMemory
    from langchain_classic.memory.chat_memory import BaseChatMemory as LCBaseChatMemory
    from langchain_community.chat_message_histories import (
        ChatMessageHistory as LCChatMessageHistory,
    )
    from langchain_community.chat_message_histories import (
        FileChatMessageHistory as LCFileChatMessageHistory,
    )
    from langchain_community.chat_message_histories import (
        SQLChatMessageHistory as LCSQLChatMessageHistory,
    )
import langchain_core.messages as lc_messages
from langchain_core.chat_history import BaseChatMessageHistory as LCBaseChatMessageHistory
from langchain_core.language_models import FakeListLLM as LCFakeListLLM

import ragline.core as rl_core
import ragline.memory as rl_memory
from tests.parity._observe import observe

COVERS = {
    "memory.BaseChatMemory",
    "memory.BaseMemory",
    "memory.CombinedMemory",
    "memory.ConversationBufferMemory",
    "memory.ConversationBufferWindowMemory",
    "memory.ConversationSummaryBufferMemory",
    "memory.ConversationSummaryMemory",
    "memory.ConversationTokenBufferMemory",
    "memory.ReadOnlySharedMemory",
    "memory.SimpleMemory",
    "memory.FileChatMessageHistory",
    "memory.SQLChatMessageHistory",
    "core.ChatMessageHistory",
    "core.BaseChatMessageHistory",
}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():  # LangChain's memories are deprecated there
        warnings.simplefilter("ignore")
        yield


def _word_counting(base: type) -> type:
    class WordCounting(base):  # type: ignore[misc,valid-type]
        def get_num_tokens(self, text: str) -> int:
            return len(text.split())

    return WordCounting


LC_LLM = _word_counting(LCFakeListLLM)
RL_LLM = _word_counting(rl_core.FakeListLLM)
SUMMARIES = ["S1", "S2", "S3", "S4", "S5"]


def conversation(memory: Any, turns: int = 4) -> list[Any]:
    """What each turn loads before saving it, then after the last, then the variables."""
    loaded = []
    for turn in range(turns):
        loaded.append(observe(memory.load_memory_variables({"input": f"q{turn}"})))
        memory.save_context({"input": f"question {turn}"}, {"output": f"answer {turn}"})
    loaded.append(observe(memory.load_memory_variables({})))
    loaded.append(list(memory.memory_variables))
    return loaded


MEMORIES = {
    "buffer": lambda m, llm: m.ConversationBufferMemory(),
    "buffer messages": lambda m, llm: m.ConversationBufferMemory(
        return_messages=True, memory_key="chat_history"
    ),
    "buffer prefixes": lambda m, llm: m.ConversationBufferMemory(
        human_prefix="User", ai_prefix="Bot", input_key="input", output_key="output"
    ),
    "window": lambda m, llm: m.ConversationBufferWindowMemory(k=1),
    "window messages": lambda m, llm: m.ConversationBufferWindowMemory(k=2, return_messages=True),
    "summary": lambda m, llm: m.ConversationSummaryMemory(llm=llm(responses=SUMMARIES)),
    "summary buffer": lambda m, llm: m.ConversationSummaryBufferMemory(
        llm=llm(responses=SUMMARIES), max_token_limit=12
    ),
    "summary buffer messages": lambda m, llm: m.ConversationSummaryBufferMemory(
        llm=llm(responses=SUMMARIES), max_token_limit=8, return_messages=True
    ),
    "token buffer": lambda m, llm: m.ConversationTokenBufferMemory(
        llm=llm(responses=["x"]), max_token_limit=12
    ),
    "token buffer messages": lambda m, llm: m.ConversationTokenBufferMemory(
        llm=llm(responses=["x"]), max_token_limit=7, return_messages=True
    ),
    "combined": lambda m, llm: m.CombinedMemory(
        memories=[
            m.ConversationBufferMemory(memory_key="one", input_key="input"),
            m.ConversationBufferWindowMemory(k=1, memory_key="two", input_key="input"),
        ]
    ),
}


@pytest.mark.parametrize("name", list(MEMORIES))
def test_a_conversation_loads_the_same_each_turn(name: str) -> None:
    """For the token-limited ones this fails when ragline's base models count a message
    by OpenAI's rule (3 + role + content) instead of its transcript line."""
    theirs = conversation(MEMORIES[name](lc_memory, LC_LLM))
    ours = conversation(MEMORIES[name](rl_memory, RL_LLM))
    assert ours == theirs


def test_token_buffer_keeps_what_fits() -> None:
    ours = conversation(MEMORIES["token buffer"](rl_memory, RL_LLM))
    # "Human: question 3" and "AI: answer 3" are 3 words each: two exchanges fit in 12
    assert ours[-2] == {
        "history": "Human: question 2\nAI: answer 2\nHuman: question 3\nAI: answer 3"
    }


def test_buffer_attributes_and_clear() -> None:
    def run(m: Any) -> Any:
        memory = m.ConversationBufferMemory()
        memory.save_context({"input": "a"}, {"output": "b"})
        seen = [memory.buffer, memory.buffer_as_str, observe(memory.buffer_as_messages)]
        seen.append(observe(memory.chat_memory.messages))
        memory.clear()
        seen.append(memory.buffer)
        return seen

    assert run(rl_memory) == run(lc_memory)
    assert isinstance(rl_memory.ConversationBufferMemory(), rl_memory.BaseChatMemory)
    assert isinstance(lc_memory.ConversationBufferMemory(), LCBaseChatMemory)
    assert isinstance(rl_memory.SimpleMemory(), rl_memory.BaseMemory)
    assert isinstance(lc_memory.SimpleMemory(), LCBaseMemory)


def test_simple_and_read_only_memories() -> None:
    def run(m: Any) -> Any:
        simple = m.SimpleMemory(memories={"k": "v"})
        simple.save_context({"a": 1}, {"b": 2})
        shared = m.ConversationBufferMemory()
        read_only = m.ReadOnlySharedMemory(memory=shared)
        shared.save_context({"input": "x"}, {"output": "y"})
        read_only.save_context({"input": "z"}, {"output": "w"})  # ignored
        read_only.clear()  # ignored
        return [
            simple.memory_variables,
            simple.load_memory_variables({}),
            read_only.memory_variables,
            read_only.load_memory_variables({}),
            shared.load_memory_variables({}),
        ]

    theirs, ours = run(lc_memory), run(rl_memory)
    assert ours == theirs
    assert ours[3] == {"history": "Human: x\nAI: y"}


def test_more_than_one_input_key_is_a_value_error() -> None:
    for m in (lc_memory, rl_memory):
        with pytest.raises(ValueError):
            m.ConversationBufferMemory().save_context({"a": 1, "b": 2}, {"output": "x"})


def _use_history(history: Any, messages: Any) -> list[Any]:
    history.add_user_message("hi")
    history.add_ai_message("yo")
    history.add_message(messages.SystemMessage(content="s"))
    history.add_messages([messages.HumanMessage(content="a"), messages.AIMessage(content="b")])
    seen = [observe(history.messages), str(history)]
    history.clear()
    seen.append(observe(history.messages))
    return seen


def test_chat_message_history_in_memory() -> None:
    theirs = _use_history(LCChatMessageHistory(), lc_messages)
    ours = _use_history(rl_core.ChatMessageHistory(), rl_core)
    assert ours == theirs
    assert ours[1] == "Human: hi\nAI: yo\nSystem: s\nHuman: a\nAI: b"


def test_file_history_reads_the_other_library_s_file(tmp_path: Path) -> None:
    theirs = _use_history(LCFileChatMessageHistory(str(tmp_path / "a.json")), lc_messages)
    ours = _use_history(rl_memory.FileChatMessageHistory(str(tmp_path / "b.json")), rl_core)
    assert ours == theirs
    written = LCFileChatMessageHistory(str(tmp_path / "lc.json"))
    written.add_user_message("from LangChain")
    written.add_ai_message("ok")
    read = rl_memory.FileChatMessageHistory(str(tmp_path / "lc.json"))
    assert observe(read.messages) == observe(written.messages)
    read.add_user_message("from ragline")
    again = LCFileChatMessageHistory(str(tmp_path / "lc.json"))
    assert [m.content for m in again.messages] == ["from LangChain", "ok", "from ragline"]


def test_sql_history_sessions(tmp_path: Path) -> None:
    def run(history_cls: Any, messages: Any, path: Path) -> list[Any]:
        url = f"sqlite:///{path}"
        one = history_cls(session_id="s1", connection=url)
        one.add_user_message("x")
        one.add_ai_message("y")
        two = history_cls(session_id="s2", connection=url)
        two.add_message(messages.HumanMessage(content="other"))
        seen = [observe(history_cls(session_id="s1", connection=url).messages)]
        one.clear()
        seen += [observe(one.messages), observe(two.messages)]
        return seen

    theirs = run(LCSQLChatMessageHistory, lc_messages, tmp_path / "lc.db")
    ours = run(rl_memory.SQLChatMessageHistory, rl_core, tmp_path / "rl.db")
    assert ours == theirs


def test_a_program_s_own_history_class() -> None:
    """A subclass writes ``messages`` and ``add_message`` (or ``add_messages``) and
    ``clear``; the helpers come from the base in both."""

    def run(base: type, messages: Any) -> list[Any]:
        class ListHistory(base):  # type: ignore[misc,valid-type]
            def __init__(self) -> None:
                self.store: list[Any] = []

            @property
            def messages(self) -> list[Any]:  # type: ignore[override]
                return list(self.store)

            def add_messages(self, new: Any) -> None:
                self.store.extend(new)

            def clear(self) -> None:
                self.store = []

        return _use_history(ListHistory(), messages)

    assert run(rl_core.BaseChatMessageHistory, rl_core) == run(
        LCBaseChatMessageHistory, lc_messages
    )

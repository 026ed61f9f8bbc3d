"""Parity: differences found by the twelfth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import langchain_classic.memory as lc_memory
    from langchain_community.chat_message_histories import (
        FileChatMessageHistory as LCFileChatMessageHistory,
    )
    from langchain_community.chat_message_histories import (
        SQLChatMessageHistory as LCSQLChatMessageHistory,
    )
import langchain_core.messages as lc_messages
from langchain_core.chat_history import InMemoryChatMessageHistory as LCInMemoryChatMessageHistory
from langchain_core.language_models import FakeListChatModel as LCFakeListChatModel
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import ChatPromptTemplate as LCChatPromptTemplate
from langchain_core.prompts import MessagesPlaceholder as LCMessagesPlaceholder
from langchain_core.runnables import RunnableWithMessageHistory as LCRunnableWithMessageHistory

import ragline.core as rl_core
import ragline.memory as rl_memory

COVERS = {
    "memory.FileChatMessageHistory",
    "memory.ConversationSummaryBufferMemory",
    "memory.SQLChatMessageHistory",
    "core.InMemoryChatMessageHistory",
}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():  # LangChain's memories are deprecated there
        warnings.simplefilter("ignore")
        yield


def _word_counting(base: type) -> type:
    """A fake LLM whose token count is its word count (LangChain's default counter
    downloads a tokenizer)."""

    class WordCountLLM(base):  # type: ignore[misc, valid-type]
        def get_num_tokens(self, text: str) -> int:
            return len(text.split())

    return WordCountLLM


# ---- cn_summary_buffer_memory_save_context -------------------------------------------
def _summary_buffer_reads(memory_module: Any, llm_base: type, return_messages: bool) -> Any:
    llm = _word_counting(llm_base)(responses=["first summary", "second summary"])
    memory = memory_module.ConversationSummaryBufferMemory(
        llm=llm, max_token_limit=10, return_messages=return_messages
    )
    memory.save_context({"input": "hi"}, {"output": "whats up"})
    memory.save_context({"input": "not much you"}, {"output": "not much"})
    buffer = memory.buffer
    return (
        repr(buffer),
        buffer == memory.load_memory_variables({})["history"],
        memory.memory_variables,
    )


@pytest.mark.parametrize("return_messages", [False, True])
def test_summary_buffer_memory_has_langchains_buffer(return_messages: bool) -> None:
    expected = _summary_buffer_reads(lc_memory, LCFakeListLLM, return_messages)
    assert _summary_buffer_reads(rl_memory, rl_core.FakeListLLM, return_messages) == expected


# ---- zaki_sql_chat_history_respond ---------------------------------------------------
def _sql_history_get_messages(history_class: Any, folder: Path) -> Any:
    url = f"sqlite:///{folder / 'sqlite.db'}"
    history = history_class(session_id="s1", connection=url)
    before = history.get_messages()
    history.add_user_message("hello, I am John")
    history.add_ai_message("hi John")
    after = history_class(session_id="s1", connection=url).get_messages()
    return repr(before), repr(after), after == history.messages


def test_sql_history_get_messages_as_langchains(tmp_path: Path) -> None:
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    expected = _sql_history_get_messages(LCSQLChatMessageHistory, tmp_path / "lc")
    actual = _sql_history_get_messages(rl_memory.SQLChatMessageHistory, tmp_path / "rl")
    assert actual == expected


# ---- verbose_file_history_saves -------------------------------------------------------
def _file_history_subclass_calls(
    base: type, messages: Any, core: Any, history_runnable: type, folder: Path
) -> Any:
    calls: list[Any] = []

    class VerboseHistory(base):  # type: ignore[misc, valid-type]
        def add_message(self, message: Any) -> None:
            calls.append(("one", message.type, message.content))
            super().add_message(message)
            calls.append(("count", len(self.messages)))

    class BatchAndOne(VerboseHistory):
        def add_messages(self, batch: Any) -> None:
            calls.append(("batch", [m.type for m in batch]))
            super().add_messages(batch)

    direct = VerboseHistory(str(folder / "direct.json"))
    direct.add_messages([messages.HumanMessage("a"), messages.AIMessage("b")])
    direct.add_user_message("c")

    prompt = core.ChatPromptTemplate.from_messages(
        [core.MessagesPlaceholder("history"), ("human", "{input}")]
    )
    chain = prompt | core.FakeListChatModel(responses=["hi Sam", "you are Sam"])
    runnable = history_runnable(
        chain,
        lambda session_id: BatchAndOne(str(folder / f"{session_id}.json")),
        input_messages_key="input",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "u1"}}
    for question in ["I am Sam", "who am I?"]:
        runnable.invoke({"input": question}, config=config)
    stored = [(m.type, m.content) for m in BatchAndOne(str(folder / "u1.json")).messages]
    return calls, stored, [(m.type, m.content) for m in direct.messages]


class _LCCore:
    ChatPromptTemplate = LCChatPromptTemplate
    MessagesPlaceholder = LCMessagesPlaceholder
    FakeListChatModel = LCFakeListChatModel


def test_file_history_subclass_add_message_sees_every_message(tmp_path: Path) -> None:
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    expected = _file_history_subclass_calls(
        LCFileChatMessageHistory,
        lc_messages,
        _LCCore,
        LCRunnableWithMessageHistory,
        tmp_path / "lc",
    )
    actual = _file_history_subclass_calls(
        rl_memory.FileChatMessageHistory,
        rl_core,
        rl_core,
        rl_core.RunnableWithMessageHistory,
        tmp_path / "rl",
    )
    assert actual == expected


def _in_memory_subclass_calls(base: type, messages: Any, core: Any, history_runnable: type) -> Any:
    """The in-memory history's turn of the scenario above (found in review of 364d343):
    LangChain's has no add_messages of its own either, so its base's loops over an
    overridden add_message, sync and async."""
    calls: list[Any] = []

    class VerboseHistory(base):  # type: ignore[misc, valid-type]
        def add_message(self, message: Any) -> None:
            calls.append(("one", message.type, message.content))
            super().add_message(message)
            calls.append(("count", len(self.messages)))

    direct = VerboseHistory()
    direct.add_messages([messages.HumanMessage("a"), messages.AIMessage("b")])
    asyncio.run(direct.aadd_messages([messages.HumanMessage("c")]))
    store: dict[str, Any] = {}
    prompt = core.ChatPromptTemplate.from_messages(
        [core.MessagesPlaceholder("history"), ("human", "{input}")]
    )
    chain = prompt | core.FakeListChatModel(responses=["hi Sam", "you are Sam"])
    runnable = history_runnable(
        chain,
        lambda session_id: store.setdefault(session_id, VerboseHistory()),
        input_messages_key="input",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "u1"}}
    for question in ["I am Sam", "who am I?"]:
        runnable.invoke({"input": question}, config=config)
    stored = [(m.type, m.content) for m in store["u1"].messages]
    return calls, stored, [(m.type, m.content) for m in direct.messages]


def test_in_memory_history_subclass_add_message_sees_every_message() -> None:
    expected = _in_memory_subclass_calls(
        LCInMemoryChatMessageHistory, lc_messages, _LCCore, LCRunnableWithMessageHistory
    )
    actual = _in_memory_subclass_calls(
        rl_core.InMemoryChatMessageHistory,
        rl_core,
        rl_core,
        rl_core.RunnableWithMessageHistory,
    )
    assert actual == expected


# ---- sqlchat_history_engine_class -----------------------------------------------------
def _sql_history_over_engine(history_class: Any, messages: Any, folder: Path) -> Any:
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(f"sqlite:///{folder / 'chat_history.db'}")
    first = history_class(connection=engine, session_id="s1")
    first.add_messages(
        [
            messages.SystemMessage("be brief"),
            messages.HumanMessage("hi", id="h1"),
            messages.AIMessage("hello", response_metadata={"model": "x"}),
        ]
    )
    history_class(connection=engine, session_id="s2").add_messages(
        [messages.HumanMessage("other session")]
    )
    read = repr(history_class(connection=engine, session_id="s1").messages)
    columns = [c["name"] for c in inspect(engine).get_columns("message_store")]
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT session_id, message FROM message_store ORDER BY id"))
        stored = [tuple(row) for row in rows]
    first.clear()
    left = [len(history_class(connection=engine, session_id=s).messages) for s in ("s1", "s2")]
    engine.dispose()
    return read, columns, stored, left


def test_sql_history_takes_a_sqlalchemy_engine_as_langchains(tmp_path: Path) -> None:
    (tmp_path / "lc").mkdir()
    (tmp_path / "rl").mkdir()
    expected = _sql_history_over_engine(LCSQLChatMessageHistory, lc_messages, tmp_path / "lc")
    actual = _sql_history_over_engine(rl_memory.SQLChatMessageHistory, rl_core, tmp_path / "rl")
    assert actual == expected


# ---- rmercado_refine_summarize_intermediate -------------------------------------------
_REFINE_ONLY_TEXT = "Summarise in bullet points: ```{text}```"


def _refine_without_existing_answer(summarize: Any, prompt_class: Any, llm_class: Any) -> Any:
    from langchain_core.documents import Document as LCDocument

    import ragline.core as core

    document = LCDocument if summarize.__name__.startswith("langchain") else core.Document
    docs = [document(page_content=t, metadata={"page": i}) for i, t in enumerate("abc")]
    chain = summarize.load_summarize_chain(
        llm_class(responses=["one", "two", "three"]),
        chain_type="refine",
        question_prompt=prompt_class.from_template("Summary of {text}:"),
        refine_prompt=prompt_class.from_template(_REFINE_ONLY_TEXT),
        return_intermediate_steps=True,
    )
    result = chain.invoke({"input_documents": docs})
    return sorted(result), result["output_text"], result["intermediate_steps"]


def test_refine_prompt_without_existing_answer_runs_as_langchains() -> None:
    import langchain_classic.chains.summarize as lc_summarize
    from langchain_core.prompts import PromptTemplate as LCPromptTemplate

    import ragline.chains as rl_chains

    expected = _refine_without_existing_answer(lc_summarize, LCPromptTemplate, LCFakeListLLM)
    with pytest.warns(UserWarning, match="no variable 'existing_answer'"):
        actual = _refine_without_existing_answer(
            rl_chains, rl_core.PromptTemplate, rl_core.FakeListLLM
        )
    assert actual == expected


# ---- extra item: the list fakes and stop words ---------------------------------------
def _fakes_with_stop(llm_class: Any, chat_class: Any) -> Any:
    llm = llm_class(responses=["Action: x\nObservation: y"])
    chat = chat_class(responses=["ab\ncd"])
    return (
        llm.invoke("q", stop=["\nObservation"]),
        llm.bind(stop=["x"]).invoke("q"),
        chat.invoke("q", stop=["\n"]).content,
        "".join(c.content for c in chat.stream("q", stop=["\n"])),
    )


def test_list_fakes_answer_whole_despite_stop_words_as_langchains() -> None:
    expected = _fakes_with_stop(LCFakeListLLM, LCFakeListChatModel)
    assert _fakes_with_stop(rl_core.FakeListLLM, rl_core.FakeListChatModel) == expected


# ---- extra item: on_tool_start's name keyword ------------------------------------------
def _tool_start_names(tool_decorator: Any, handler_base: type) -> Any:
    import asyncio

    seen: list[Any] = []

    class Recorder(handler_base):  # type: ignore[misc, valid-type]
        def on_tool_start(self, serialized: Any, input_str: str, **kwargs: Any) -> None:
            seen.append((serialized["name"], "name" in kwargs, kwargs.get("name")))

    @tool_decorator
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    add.invoke({"a": 1, "b": 2}, config={"callbacks": [Recorder()]})
    add.invoke({"a": 1, "b": 2}, config={"callbacks": [Recorder()], "run_name": "adder"})
    asyncio.run(add.ainvoke({"a": 1, "b": 2}, config={"callbacks": [Recorder()]}))
    add.run({"a": 1, "b": 2}, callbacks=[Recorder()])
    return seen


def test_on_tool_start_name_is_the_run_name_as_langchains() -> None:
    from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
    from langchain_core.tools import tool as lc_tool

    from ragline.tools import tool as rl_tool

    expected = _tool_start_names(lc_tool, LCBaseCallbackHandler)
    assert _tool_start_names(rl_tool, rl_core.BaseCallbackHandler) == expected

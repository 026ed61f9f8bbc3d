"""Parity: SQLiteCache files. Both libraries write LangChain's layout (``full_llm_cache``,
one row per generation in LangChain's serialization format), so an answer cached by either
is hit by the other for the same prompt and model string, and a program that reads the
file sees the same tables and rows. (ragline kept its own ``llm_cache`` table before.)
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.cache import SQLiteCache as LCSQLiteCache
from langchain_core.language_models import FakeListChatModel as LCFakeChat
from langchain_core.language_models import FakeListLLM as LCFakeLLM
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.outputs import ChatGeneration as LCChatGeneration
from langchain_core.outputs import Generation as LCGeneration

import ragline.core as rl


def _rows(path: Path, sql: str) -> list[Any]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def _entries(path: Path) -> list[Any]:
    return _rows(path, "SELECT prompt, llm, idx, response FROM full_llm_cache ORDER BY rowid")


def test_the_file_has_langchains_tables_and_indexes(tmp_path: Path) -> None:
    LCSQLiteCache(str(tmp_path / "lc.db"))
    rl.SQLiteCache(tmp_path / "rl.db")
    schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name"
    assert _rows(tmp_path / "rl.db", schema) == _rows(tmp_path / "lc.db", schema)
    assert len(_rows(tmp_path / "rl.db", schema)) == 7


def _generations(m: Any) -> list[Any]:
    message = m.AIMessage(
        content="Paris — 巴黎",
        id="run-1",
        tool_calls=[{"name": "lookup", "args": {"city": "Paris"}, "id": "call-1"}],
        response_metadata={"finish_reason": "stop"},
    )
    return [
        m.Generation(text="4", generation_info={"logprobs": None, "lc": "data"}),
        m.Generation(text="four"),
        m.ChatGeneration(message=message, generation_info={"finish_reason": "stop"}),
    ]


class _LC:
    AIMessage, Generation, ChatGeneration = LCAIMessage, LCGeneration, LCChatGeneration


def test_both_libraries_write_the_same_rows(tmp_path: Path) -> None:
    LCSQLiteCache(str(tmp_path / "lc.db")).update("2 + 2 =", "m", _generations(_LC))
    rl.SQLiteCache(tmp_path / "rl.db").update("2 + 2 =", "m", _generations(rl))
    assert _entries(tmp_path / "rl.db") == _entries(tmp_path / "lc.db")
    assert len(_entries(tmp_path / "rl.db")) == 3


def _shown(generations: Any) -> list[Any]:
    """What a program sees of each generation, in either library."""
    seen = []
    for item in generations or []:
        message = getattr(item, "message", None)
        if message is not None:
            message = (type(message).__name__, message.content, message.id, message.tool_calls)
        seen.append((type(item).__name__, item.text, item.generation_info, message))
    return seen


def test_each_library_hits_what_the_other_cached(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    LCSQLiteCache(str(path)).update("from langchain", "m", _generations(_LC))
    rl.SQLiteCache(path).update("from ragline", "m", _generations(rl))
    ours, theirs = rl.SQLiteCache(path), LCSQLiteCache(str(path))
    for prompt in ("from langchain", "from ragline"):
        assert _shown(ours.lookup(prompt, "m")) == _shown(theirs.lookup(prompt, "m"))
        assert _shown(ours.lookup(prompt, "m")) == _shown(_generations(rl))
    assert ours.lookup("from langchain", "other") is None


def test_models_hit_answers_the_other_librarys_model_cached(tmp_path: Path) -> None:
    # Each library's fake model caches its answer; the other library's cache finds it
    # under the llm string the model wrote, and its model answers from it uncalled.
    path = tmp_path / ".langchain.db"
    lc_llm = LCFakeLLM(responses=["lc answer"], cache=LCSQLiteCache(str(path)))
    lc_chat = LCFakeChat(responses=["lc reply"], cache=LCSQLiteCache(str(path)))
    assert (lc_llm.invoke("q"), lc_chat.invoke("hi").content) == ("lc answer", "lc reply")
    rl_llm = rl.FakeListLLM(responses=["rl answer"], cache=rl.SQLiteCache(path))
    rl_chat = rl.FakeListChatModel(responses=["rl reply"], cache=rl.SQLiteCache(path))
    assert (rl_llm.invoke("q"), rl_chat.invoke("hi").content) == ("rl answer", "rl reply")
    by_model = {llm: (prompt, response) for prompt, llm, _, response in _entries(path)}
    assert len(by_model) == 4
    ours, theirs = rl.SQLiteCache(path), LCSQLiteCache(str(path))
    for llm_string, (prompt, _) in by_model.items():
        assert _shown(ours.lookup(prompt, llm_string)) == _shown(theirs.lookup(prompt, llm_string))
    lc_text_llm = next(llm for llm in by_model if "fake-list" in llm and "chat" not in llm)
    [hit] = ours.lookup("q", lc_text_llm) or []
    assert (type(hit).__name__, hit.text) == ("Generation", "lc answer")
    # a ragline model whose entry LangChain's cache wrote answers from it, uncalled
    rl_text_llm = next(llm for llm in by_model if "FakeListLLM" in llm)
    theirs.update("new prompt", rl_text_llm, [LCGeneration(text="written by LangChain")])
    assert rl_llm.invoke("new prompt") == "written by LangChain"
    assert rl_llm.invoke("q") == "rl answer"

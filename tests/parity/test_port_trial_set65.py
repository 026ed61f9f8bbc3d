"""Parity: differences found by the sixty-fifth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from pathlib import Path

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# file_history_autosave_demo: a program printed whether the history file exists right
# after FileChatMessageHistory(path); LangChain's creates it holding [] on construction,
# ragline's made it on the first write.
_FILE_HISTORY_CREATED = """
import json, os
from langchain_community.chat_message_histories import FileChatMessageHistory

path = {path!r}
history = FileChatMessageHistory(path)
print(os.path.exists(path), open(path).read(), history.messages)
history.add_user_message("hello")
again = FileChatMessageHistory(path)
print(len(again.messages), json.load(open(path))[0]["data"]["content"])
"""


def test_a_file_history_is_created_on_construction_as_langchains(tmp_path: Path) -> None:
    langchain_printed = _printed(_FILE_HISTORY_CREATED.format(path=str(tmp_path / "lc.json")))
    assert langchain_printed.splitlines() == ["True [] []", "1 hello"]
    ragline_source = _ported(_FILE_HISTORY_CREATED.format(path=str(tmp_path / "rl.json")))
    assert _printed(ragline_source) == langchain_printed


# sqlite_integration_page (probe beside it): a program printed whether the database file
# exists right after SQLChatMessageHistory(...); LangChain's creates the file and its table
# on construction, ragline's opened the database on first use.
_SQL_HISTORY_CREATED = """
import os, sqlite3
from langchain_community.chat_message_histories import SQLChatMessageHistory

path = {path!r}
history = SQLChatMessageHistory("s1", connection="sqlite:///" + path)
print(os.path.exists(path))
tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")
print([name for (name,) in tables], history.messages)
"""


def test_a_sql_history_opens_its_database_on_construction_as_langchains(
    tmp_path: Path,
) -> None:
    langchain_printed = _printed(_SQL_HISTORY_CREATED.format(path=str(tmp_path / "lc.db")))
    assert langchain_printed.splitlines() == ["True", "['message_store'] []"]
    ragline_source = _ported(_SQL_HISTORY_CREATED.format(path=str(tmp_path / "rl.db")))
    assert _printed(ragline_source) == langchain_printed

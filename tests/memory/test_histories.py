"""Persistent chat histories on real storage: the contract suite on a JSON file, a SQLite
file and a Redis server (tests/conftest.py starts Redis Stack), then what each storage
must guarantee: LangChain's layout both ways, broken storage reported and left alone,
writers in several processes, a server that is down, expiry."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from _chat_history_contract import RICH_MESSAGES, ChatHistoryContract, OpenHistory

from ragline.core import (
    AIMessage,
    BaseMessage,
    ConfigurationError,
    HumanMessage,
    InvalidInputError,
    PersistenceError,
    StoreConnectionError,
    ToolMessage,
    messages_to_dict,
)
from ragline.memory import (
    FileChatMessageHistory,
    RedisChatMessageHistory,
    SQLChatMessageHistory,
)

REPO = Path(__file__).resolve().parents[2]


class TestFileChatMessageHistory(ChatHistoryContract):
    @pytest.fixture
    def open_history(self, tmp_path: Path) -> OpenHistory:
        return lambda session_id: FileChatMessageHistory(tmp_path / f"{session_id}.json")


class TestSQLChatMessageHistory(ChatHistoryContract):
    @pytest.fixture
    def open_history(self, tmp_path: Path) -> OpenHistory:
        url = f"sqlite:///{tmp_path / 'chats.db'}"
        return lambda session_id: SQLChatMessageHistory(session_id, connection=url)


@pytest.mark.redis
class TestRedisChatMessageHistory(ChatHistoryContract):
    @pytest.fixture
    def open_history(self, redis_url: str) -> OpenHistory:
        prefix = f"test-history-{uuid.uuid4().hex[:8]}:"
        return lambda session_id: RedisChatMessageHistory(
            session_id, url=redis_url, key_prefix=prefix
        )


# ---------------------------------------------------------------- the file history


def test_file_layout_is_a_json_list_of_langchain_dicts(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "chat.json"
    history = FileChatMessageHistory(path)
    assert path.read_text(encoding="utf-8") == "[]"  # created on construction, as LangChain's
    assert history.messages == []
    history.add_messages([HumanMessage("hi"), AIMessage("hello")])
    assert json.loads(path.read_text(encoding="utf-8")) == messages_to_dict(
        [HumanMessage("hi"), AIMessage("hello")]
    )
    assert sorted(p.name for p in path.parent.iterdir()) == ["chat.json", "chat.json.lock"]


def test_file_written_by_langchain_loads_and_langchain_reads_ours(tmp_path: Path) -> None:
    community = pytest.importorskip("langchain_community.chat_message_histories")
    from langchain_core.messages import AIMessage as LcAI
    from langchain_core.messages import HumanMessage as LcHuman

    theirs = community.FileChatMessageHistory(str(tmp_path / "lc.json"))
    theirs.add_message(LcHuman("from langchain"))
    ours = FileChatMessageHistory(tmp_path / "lc.json")
    assert ours.messages == [HumanMessage("from langchain")]
    ours.add_messages(RICH_MESSAGES)
    ours.add_ai_message("from ragline")
    reread = community.FileChatMessageHistory(str(tmp_path / "lc.json")).messages
    assert len(reread) == 2 + len(RICH_MESSAGES)
    assert reread[-1] == LcAI("from ragline")
    assert reread[0] == LcHuman("from langchain")


def test_a_file_that_is_not_json_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text("{ this is not json", encoding="utf-8")
    history = FileChatMessageHistory(path)
    with pytest.raises(PersistenceError, match=r"chat\.json is not valid JSON .*left as it is"):
        history.messages  # noqa: B018
    with pytest.raises(PersistenceError, match="not valid JSON"):
        history.add_user_message("hi")
    assert path.read_text(encoding="utf-8") == "{ this is not json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1]", r"cannot be read \(item 0\)"),
        ('[{"type": "alien", "data": {"content": "x"}}]', "unknown message type 'alien'"),
        ('[{"type": "human", "data": {"content": "a"}}, "b"]', r"cannot be read \(item 1\)"),
    ],
)
def test_a_file_this_version_cannot_read_is_never_appended_to(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "chat.json"
    path.write_bytes(content.encode())
    with pytest.raises(PersistenceError, match=message):
        FileChatMessageHistory(path).add_messages([HumanMessage("hi"), AIMessage("hello")])
    assert path.read_bytes() == content.encode()


@pytest.mark.parametrize(
    ("file_path", "message"),
    [
        ("chat\x00.json", r"^file_path 'chat\\x00\.json' contains a NUL character \(position 4\)"),
        (
            "x" * 1_000_000 + ".json",
            r"^file_path 'x{60}\.\.\.x{35}\.json' is too long .*"
            r"1000005 bytes",
        ),
        ("dir/" + "y" * 300, r"longest name 300 bytes; at most \d+ per name"),
        ("chat-\udc80\ud800.json", r"^file_path .* holds '\\ud800', which the file system"),
    ],
)
def test_a_file_path_no_file_system_can_hold_is_refused_by_name(
    tmp_path: Path, file_path: str, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message) as caught:
        FileChatMessageHistory(file_path)
    assert len(str(caught.value)) < 400  # a megabyte name is not echoed back
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a\x00b.db", r"contains a NUL character \(position \d+\)"),
        ("a" * 1_000_000 + ".db", r"is too long for the file system"),
        ("\ud800.db", r"holds '\\ud800', which the file system cannot encode"),
    ],
)
def test_a_sqlite_history_refuses_a_database_path_no_file_system_can_hold(
    tmp_path: Path, name: str, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=r"^connection '.*' " + message) as caught:
        SQLChatMessageHistory("s", connection=f"sqlite:///{tmp_path / name}")
    assert len(str(caught.value)) < 400
    assert list(tmp_path.iterdir()) == []


def test_a_redis_history_refuses_a_key_prefix_no_key_can_hold() -> None:
    with pytest.raises(InvalidInputError, match=r"^key_prefix 'h-\\udfff:' holds '\\udfff'"):
        RedisChatMessageHistory("s", url="redis://127.0.0.1:1", key_prefix="h-\udfff:")


def test_a_message_the_file_encoding_cannot_hold_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    history = FileChatMessageHistory(path, ensure_ascii=False)
    history.add_user_message("kept")
    before = path.read_bytes()
    with pytest.raises(InvalidInputError, match=r"holds '\\ud800', which the chat history file"):
        history.add_messages([AIMessage("ok"), AIMessage("bad \ud800")])
    assert path.read_bytes() == before


def test_a_batch_a_file_cannot_hold_stores_nothing_through_an_overridden_add_message(
    tmp_path: Path,
) -> None:
    """A subclass's add_message is called per message (364d343), but only once every
    message of the batch can be stored: a bad one refuses the batch whole."""
    calls: list[str] = []

    class Logged(FileChatMessageHistory):
        def add_message(self, message: BaseMessage) -> None:
            calls.append(message.content)  # type: ignore[arg-type]
            super().add_message(message)

    path = tmp_path / "chat.json"
    history = Logged(path, ensure_ascii=False)
    history.add_user_message("kept")
    before = path.read_bytes()
    with pytest.raises(InvalidInputError) as raised:
        history.add_messages([AIMessage("ok"), AIMessage("no", additional_kwargs={"x": {1, 2}})])
    assert str(raised.value) == (
        "message 1 (AIMessage) cannot be stored as JSON: Object of type set is not JSON "
        "serializable; nothing was stored"
    )
    with pytest.raises(InvalidInputError, match=r"holds '\\ud800', which the chat history file"):
        history.add_messages([AIMessage("ok"), AIMessage("bad \ud800")])
    assert path.read_bytes() == before
    assert calls == ["kept"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"type": "human"}', "holds a JSON dict, not a list"),
        ('[{"type": "human", "data": {"content": "a"}}, 3]', r"cannot be read \(item 1\)"),
        ('[{"type": "alien", "data": {}}]', "unknown message type 'alien'"),
    ],
)
def test_a_file_with_the_wrong_json_is_reported(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "chat.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PersistenceError, match=message):
        FileChatMessageHistory(path).messages  # noqa: B018
    assert path.read_text(encoding="utf-8") == content


def test_an_empty_file_is_an_empty_history(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.touch()
    history = FileChatMessageHistory(path)
    assert history.messages == []
    history.add_user_message("first")
    assert history.messages == [HumanMessage("first")]


def test_a_message_json_cannot_hold_is_refused_before_writing(tmp_path: Path) -> None:
    history = FileChatMessageHistory(tmp_path / "chat.json")
    history.add_user_message("kept")
    before = (tmp_path / "chat.json").read_bytes()
    bad = ToolMessage("x", tool_call_id="c", artifact={"set": {1, 2}})
    with pytest.raises(InvalidInputError, match=r"message 1 \(ToolMessage\) cannot be stored"):
        history.add_messages([AIMessage("fine"), bad])
    assert (tmp_path / "chat.json").read_bytes() == before


def test_a_crash_mid_write_leaves_the_old_conversation(tmp_path: Path) -> None:
    """The write goes to a temporary file first: kill the writer between writing and
    renaming, and the history still holds exactly the old messages."""
    path = tmp_path / "chat.json"
    FileChatMessageHistory(path).add_user_message("before the crash")
    code = textwrap.dedent(
        f"""
        import os
        from ragline.memory import _file_history
        from ragline.memory import FileChatMessageHistory
        real_replace = os.replace
        def crash(src, dst):
            os._exit(9)  # dies after the temporary file is written, before the rename
        _file_history.os.replace = crash
        FileChatMessageHistory({str(path)!r}).add_user_message("lost")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)}, check=False
    )
    assert result.returncode == 9
    assert FileChatMessageHistory(path).messages == [HumanMessage("before the crash")]


_WRITER = textwrap.dedent(
    """
    import sys
    from ragline.memory import FileChatMessageHistory
    history = FileChatMessageHistory(sys.argv[1])
    for n in range(int(sys.argv[3])):
        history.add_user_message(f"{sys.argv[2]}-{n}")
    """
)


def test_writers_in_several_processes_lose_nothing(tmp_path: Path) -> None:
    """Four processes append 25 messages each to one file at the same time: all 100 are
    there, each writer's in its own order (the lock serialises read-append-rename)."""
    path = tmp_path / "shared.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, "25"], env=env)
        for name in ("a", "b", "c", "d")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0, 0]
    texts = [m.text for m in FileChatMessageHistory(path).messages]
    assert len(texts) == 100
    for name in "abcd":
        assert [t for t in texts if t.startswith(name)] == [f"{name}-{n}" for n in range(25)]


def test_file_history_checks_its_path() -> None:
    with pytest.raises(InvalidInputError, match="file_path must be a str or a path"):
        FileChatMessageHistory(42)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the SQLite history


def test_sqlite_layout_is_langchains_message_store(tmp_path: Path) -> None:
    database = tmp_path / "chats.db"
    SQLChatMessageHistory("s1", connection=f"sqlite:///{database}").add_messages(
        [HumanMessage("hi"), AIMessage("hello")]
    )
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT id, session_id, message FROM message_store").fetchall()
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert [(r[0], r[1], json.loads(r[2])) for r in rows] == [
        (1, "s1", messages_to_dict([HumanMessage("hi")])[0]),
        (2, "s1", messages_to_dict([AIMessage("hello")])[0]),
    ]
    assert mode == "wal"


def test_sqlite_written_by_langchain_loads_and_langchain_reads_ours(tmp_path: Path) -> None:
    community = pytest.importorskip("langchain_community.chat_message_histories")
    pytest.importorskip("greenlet")  # langchain-community's SQL history imports asyncio SQLAlchemy
    from langchain_core.messages import AIMessage as LcAI
    from langchain_core.messages import HumanMessage as LcHuman

    url = f"sqlite:///{tmp_path / 'lc.db'}"
    theirs = community.SQLChatMessageHistory(session_id="s", connection=url)
    theirs.add_message(LcHuman("from langchain"))
    ours = SQLChatMessageHistory("s", connection=url)
    assert ours.messages == [HumanMessage("from langchain")]
    ours.add_ai_message("from ragline")
    ours.close()
    reread = community.SQLChatMessageHistory(session_id="s", connection=url).messages
    assert reread == [LcHuman("from langchain"), LcAI("from ragline")]


def test_a_file_that_is_not_a_database_is_reported_and_left_alone(tmp_path: Path) -> None:
    database = tmp_path / "chats.db"
    database.write_bytes(b"this is not a SQLite database, just some bytes" * 100)
    before = database.read_bytes()
    # opened on construction, as LangChain's history opens it
    with pytest.raises(PersistenceError, match=r"chats\.db.*not a database.*left as it is"):
        SQLChatMessageHistory("s", connection=str(database))
    assert database.read_bytes() == before


def test_a_truncated_database_is_reported_and_left_alone(tmp_path: Path) -> None:
    database = tmp_path / "chats.db"
    history = SQLChatMessageHistory("s", connection=str(database))
    history.add_messages([HumanMessage("x" * 2000) for _ in range(50)])
    history.close()  # checkpoints the WAL into the file
    data = database.read_bytes()
    database.write_bytes(data[: len(data) // 2])
    with pytest.raises(PersistenceError, match=r"cannot (read|open) chat history database"):
        SQLChatMessageHistory("s", connection=str(database)).messages  # noqa: B018
    assert database.read_bytes() == data[: len(data) // 2]


def test_a_corrupted_row_is_reported_with_its_session(tmp_path: Path) -> None:
    database = tmp_path / "chats.db"
    history = SQLChatMessageHistory("s", connection=str(database))
    history.add_user_message("fine")
    with sqlite3.connect(database) as connection:
        connection.execute("INSERT INTO message_store (session_id, message) VALUES ('s', '{bad')")
    with pytest.raises(PersistenceError, match=r"session 's'.*cannot be read \(item 1\)"):
        history.messages  # noqa: B018


def test_sqlite_history_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="needs a database"):
        SQLChatMessageHistory("s")
    with pytest.raises(InvalidInputError, match="session_id must be a non-empty str"):
        SQLChatMessageHistory("", connection="sqlite:///:memory:")
    with pytest.raises(ConfigurationError, match="table_name must be a plain SQL name"):
        SQLChatMessageHistory("s", connection=":memory:", table_name="x; DROP TABLE y")
    with pytest.raises(ConfigurationError, match="is not supported"):
        SQLChatMessageHistory("s", connection="postgresql://localhost/db")


def test_an_engine_on_another_database_is_refused_without_its_password() -> None:
    """An Engine on PostgreSQL (its dialect given sqlite3 as DBAPI, never connected):
    the ConfigurationError names its URL as SQLAlchemy prints it, password hidden."""
    from sqlalchemy import create_engine

    engine = create_engine("postgresql+pg8000://bob:s3cret@localhost/db", module=sqlite3)
    with pytest.raises(ConfigurationError) as raised:
        SQLChatMessageHistory("s", connection=engine)
    assert str(raised.value) == (
        "connection 'postgresql+pg8000://bob:***@localhost/db' is not supported: ragline "
        "stores this with the standard library's sqlite3; give a file path or "
        "'sqlite:///path/to/file.db'"
    )


def test_sqlite_custom_table_and_column(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    history = SQLChatMessageHistory(
        "s", connection=url, table_name="chats", session_id_field_name="conversation"
    )
    history.add_user_message("hi")
    with sqlite3.connect(tmp_path / "c.db") as connection:
        assert connection.execute("SELECT conversation FROM chats").fetchall() == [("s",)]


# ---------------------------------------------------------------- the Redis history


@pytest.mark.redis
def test_redis_layout_is_langchains_newest_first_list(redis_url: str) -> None:
    """Seed 003 example 7: LangChain LPUSHes JSON message dicts under message_store:<id>
    and reads the list reversed; messages written that way by hand load here."""
    import redis

    client = redis.from_url(redis_url)
    session = f"foobar-{uuid.uuid4().hex[:8]}"
    history = RedisChatMessageHistory(session, url=redis_url)
    history.add_messages([HumanMessage("q1"), AIMessage("a1")])
    raw = [json.loads(item) for item in client.lrange("message_store:" + session, 0, -1)]
    assert raw == messages_to_dict([AIMessage("a1"), HumanMessage("q1")])
    client.lpush("message_store:" + session, json.dumps(messages_to_dict([HumanMessage("q2")])[0]))
    assert history.messages == [HumanMessage("q1"), AIMessage("a1"), HumanMessage("q2")]
    history.clear()
    assert client.exists("message_store:" + session) == 0


@pytest.mark.redis
def test_redis_written_by_langchain_loads_and_langchain_reads_ours(redis_url: str) -> None:
    community = pytest.importorskip("langchain_community.chat_message_histories")
    from langchain_core.messages import AIMessage as LcAI
    from langchain_core.messages import HumanMessage as LcHuman

    session = f"lc-{uuid.uuid4().hex[:8]}"
    theirs = community.RedisChatMessageHistory(session, url=redis_url)
    theirs.add_message(LcHuman("from langchain"))
    ours = RedisChatMessageHistory(session, url=redis_url)
    assert ours.messages == [HumanMessage("from langchain")]
    ours.add_messages(RICH_MESSAGES)
    ours.add_ai_message("from ragline")
    reread = theirs.messages
    assert reread[0] == LcHuman("from langchain")
    assert reread[-1] == LcAI("from ragline")
    assert len(reread) == 2 + len(RICH_MESSAGES)
    ours.clear()


@pytest.mark.redis
def test_redis_ttl_expires_an_idle_conversation(redis_url: str) -> None:
    import redis

    # the expiry is read on a 60 s ttl (a 0.3 s one can be over before pttl is asked,
    # on a loaded machine); the 0.3 s conversation is waited for, up to 30 s, not slept on
    lasting = RedisChatMessageHistory(f"ttl-{uuid.uuid4().hex[:8]}", url=redis_url, ttl=60)
    lasting.add_user_message("kept a minute")
    assert 0 < redis.from_url(redis_url).pttl(lasting.key) <= 60_000
    lasting.clear()
    history = RedisChatMessageHistory(f"ttl-{uuid.uuid4().hex[:8]}", url=redis_url, ttl=0.3)
    history.add_user_message("soon gone")
    deadline = time.monotonic() + 30
    while history.messages and time.monotonic() < deadline:
        time.sleep(0.05)
    assert history.messages == []


@pytest.mark.redis
def test_a_corrupted_redis_item_is_reported_with_its_key(redis_url: str) -> None:
    import redis

    session = f"bad-{uuid.uuid4().hex[:8]}"
    history = RedisChatMessageHistory(session, url=redis_url)
    history.add_user_message("fine")
    redis.from_url(redis_url).lpush(history.key, b"\xff not json")
    with pytest.raises(PersistenceError, match=rf"message_store:{session}.*cannot be read"):
        history.messages  # noqa: B018
    history.clear()


@pytest.mark.redis
async def test_a_redis_server_that_is_down_is_a_clear_error(redis_server_factory: Any) -> None:
    """A server that dies between writes: the error names the URL and says what to do;
    once it is back, the messages written before are all there (saved with SAVE)."""
    server = redis_server_factory().start()
    history = RedisChatMessageHistory("down", url=server.url, connect_timeout=1, timeout=2)
    history.add_user_message("before")
    import redis

    redis.from_url(server.url).save()
    server.stop()
    with pytest.raises(StoreConnectionError, match=r"cannot reach Redis at redis://127\.0\.0\.1"):
        history.add_ai_message("while down")
    with pytest.raises(StoreConnectionError, match="Is the server running"):
        history.messages  # noqa: B018
    with pytest.raises(StoreConnectionError):
        await history.aget_messages()
    server.start()
    assert history.messages == [HumanMessage("before")]
    history.close()


def test_redis_history_options_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="session_id must be a non-empty str"):
        RedisChatMessageHistory(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"ttl \(seconds\) must be a finite number > 0"):
        RedisChatMessageHistory("s", ttl=0)


def test_the_second_positional_argument_is_the_table_as_in_langchain(tmp_path: Path) -> None:
    """SQLChatMessageHistory(session_id, "chats", connection=url): current LangChain's
    second parameter is ``table_name``; ragline read it as ``connection_string``, so the
    messages went to ``message_store`` while ``connection`` won (port trial set 24)."""
    community = pytest.importorskip("langchain_community.chat_message_histories")
    pytest.importorskip("greenlet")
    from langchain_core.messages import HumanMessage as LcHuman

    def tables(database: Path) -> list[str]:
        with sqlite3.connect(database) as connection:
            rows = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            ).fetchall()
        return [name for (name,) in rows]

    theirs_db, ours_db = tmp_path / "lc.db", tmp_path / "rl.db"
    community.SQLChatMessageHistory("s", "chats", connection=f"sqlite:///{theirs_db}").add_message(
        LcHuman("hi")
    )
    ours = SQLChatMessageHistory("s", "chats", connection=f"sqlite:///{ours_db}")
    ours.add_message(HumanMessage("hi"))
    ours.close()
    assert tables(ours_db) == tables(theirs_db) == ["chats"]
    assert SQLChatMessageHistory("s", "chats", connection=ours_db).messages == [HumanMessage("hi")]


def test_older_langchains_positional_connection_string_still_opens_the_database(
    tmp_path: Path,
) -> None:
    # SQLChatMessageHistory("s", "sqlite:///chat.db"): current LangChain raises ValueError
    # (the URL becomes the table's name); ragline opens the database, as older LangChain did
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    SQLChatMessageHistory("s", url).add_user_message("kept")
    assert SQLChatMessageHistory("s", connection=url).messages == [HumanMessage("kept")]
    assert SQLChatMessageHistory("s", connection_string=url).messages == [HumanMessage("kept")]
    with pytest.raises(ConfigurationError, match="table_name must be a plain SQL name"):
        SQLChatMessageHistory("s", url, connection=url)  # a URL as the table, with a database


def test_older_langchains_positional_url_and_table_are_refused_not_misread(
    tmp_path: Path,
) -> None:
    # older LangChain's (session_id, connection_string, table_name): the third argument was
    # the table; here it is session_id_field_name, so it wrote table message_store with a
    # session column named "chats" (the table the user named was dropped)
    url = f"sqlite:///{tmp_path / 'chat.db'}"
    with pytest.raises(ConfigurationError, match="ambiguous"):
        SQLChatMessageHistory("s", url, "chats")
    with pytest.raises(ConfigurationError, match="ambiguous"):
        SQLChatMessageHistory("s", url, session_id_field_name="sid")
    assert not (tmp_path / "chat.db").exists()  # nothing was created
    history = SQLChatMessageHistory(
        "s", connection=url, table_name="chats", session_id_field_name="sid"
    )
    history.add_user_message("kept")
    tables = sqlite3.connect(tmp_path / "chat.db").execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'"
    )
    assert [row[0] for row in tables] == ["chats"]

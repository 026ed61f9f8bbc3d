"""One contract suite for every RecordManager, plus what only SQLRecordManager does."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragline.core import ConfigurationError, InvalidInputError, PersistenceError
from ragline.indexing import InMemoryRecordManager, RecordManager, SQLRecordManager
from ragline.indexing.sql import sqlite_path

Factory = Callable[[str], RecordManager]


@pytest.fixture(params=["in_memory", "sqlite_memory", "sqlite_file"])
def make_manager(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    """Managers of one kind; all managers a test makes share one database."""
    made: list[RecordManager] = []

    def make(namespace: str) -> RecordManager:
        if request.param == "in_memory":
            manager: RecordManager = InMemoryRecordManager(namespace)
        elif request.param == "sqlite_memory":
            manager = SQLRecordManager(namespace, db_url=":memory:")
        else:
            manager = SQLRecordManager(namespace, db_url=f"sqlite:///{tmp_path / 'records.db'}")
        manager.create_schema()
        made.append(manager)
        return manager

    yield make
    for manager in made:
        if isinstance(manager, SQLRecordManager):
            manager.close()


def test_update_then_exists(make_manager: Factory) -> None:
    """exists answers per key, in order; check update's upsert if it fails."""
    manager = make_manager("docs")
    assert manager.exists([]) == []
    manager.update(["a", "b"], group_ids=["s1", "s2"])
    manager.update(["b", "c"])  # b again: refreshed, not duplicated
    assert manager.exists(["c", "x", "a", "b"]) == [True, False, True, True]
    assert sorted(manager.list_keys()) == ["a", "b", "c"]


def test_get_time_is_strictly_later_than_every_stamp(make_manager: Factory) -> None:
    """A run that starts right after another must see all its records as older."""
    manager = make_manager("docs")
    times = [manager.get_time() for _ in range(50)]
    assert times == sorted(set(times))  # strictly increasing, even within one clock tick
    manager.update(["a"])
    start = manager.get_time()
    assert manager.list_keys(before=start) == ["a"]


def test_list_keys_filters_combine(make_manager: Factory) -> None:
    """before/after are strict, group_ids restrict, limit caps; all combine with AND."""
    manager = make_manager("docs")
    manager.update(["a1", "a2"], group_ids=["a", "a"])
    middle = manager.get_time()
    manager.update(["b1", "n1"], group_ids=["b", None])
    assert manager.list_keys(before=middle) == ["a1", "a2"]
    assert manager.list_keys(after=middle) == ["b1", "n1"]
    assert manager.list_keys(group_ids=["b", "a"]) == ["a1", "a2", "b1"]
    assert manager.list_keys(group_ids=[]) == []
    assert manager.list_keys(group_ids=["a"], after=middle) == []
    assert len(manager.list_keys(limit=3)) == 3
    # a key updated again takes the new group and time
    manager.update(["a1"], group_ids=["b"])
    assert manager.list_keys(group_ids=["b"]) == ["a1", "b1"]
    assert manager.list_keys(before=middle) == ["a2"]


def test_time_at_least_lifts_the_stamp(make_manager: Factory) -> None:
    """A clock behind time_at_least must not make fresh records look stale."""
    manager = make_manager("docs")
    future = manager.get_time() + 3600.0
    manager.update(["a"], time_at_least=future)
    assert manager.list_keys(before=future) == []
    assert manager.list_keys(after=future - 1) == ["a"]
    assert manager.get_time() > future


def test_delete_keys_ignores_unknown_keys(make_manager: Factory) -> None:
    manager = make_manager("docs")
    manager.update(["a", "b", "c"])
    manager.delete_keys(["b", "never-stored"])
    manager.delete_keys([])
    assert manager.list_keys() == ["a", "c"]
    assert manager.exists(["b"]) == [False]


def test_namespaces_do_not_interfere(make_manager: Factory) -> None:
    """Two namespaces on one database: same keys, separate records."""
    left, right = make_manager("left"), make_manager("right")
    left.update(["shared", "only-left"], group_ids=["s", "s"])
    right.update(["shared"], group_ids=["t"])
    assert left.list_keys() == ["shared", "only-left"]
    assert right.list_keys() == ["shared"]
    assert right.exists(["only-left"]) == [False]
    right.delete_keys(["shared", "only-left"])
    assert left.list_keys(group_ids=["s"]) == ["shared", "only-left"]
    assert right.list_keys() == []


def test_many_keys_in_one_call(make_manager: Factory) -> None:
    """More keys than SQLite's variable limit still go in one call."""
    manager = make_manager("docs")
    keys = [f"k{i}" for i in range(40_000)]
    manager.update(keys, group_ids=[f"g{i % 3}" for i in range(40_000)])
    assert sum(manager.exists(keys)) == 40_000
    assert len(manager.list_keys(group_ids=["g0", "g1"])) == 26_667
    manager.delete_keys(keys[:39_999])
    assert manager.list_keys() == ["k39999"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.update("abc"), "keys must be a list of strings, got a single str"),
        (lambda m: m.update(["a", 1]), "keys[1] must be a str, got int"),
        (lambda m: m.update(["a", "b"], group_ids=["g"]), "got 1 group_ids for 2 keys"),
        (lambda m: m.update(["a"], group_ids=[7]), "group_ids[0] must be a str or None"),
        (lambda m: m.list_keys(limit=0), "limit must be an int >= 1 or None, got 0"),
        (lambda m: m.exists([None]), "keys[0] must be a str, got NoneType"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    make_manager: Factory, call: Callable[[RecordManager], object], message: str
) -> None:
    manager = make_manager("docs")
    manager.update(["kept"], group_ids=["g"])
    with pytest.raises(InvalidInputError) as caught:
        call(manager)
    assert message in str(caught.value)
    assert manager.list_keys() == ["kept"]
    assert manager.list_keys(group_ids=["g"]) == ["kept"]


def test_namespace_must_be_a_non_empty_string() -> None:
    with pytest.raises(InvalidInputError, match="namespace must be a non-empty string, got ''"):
        InMemoryRecordManager("")
    with pytest.raises(InvalidInputError, match="got None"):
        SQLRecordManager(None, db_url=":memory:")  # type: ignore[arg-type]


async def test_async_twins(make_manager: Factory) -> None:
    manager = make_manager("docs")
    await manager.acreate_schema()
    start = await manager.aget_time()
    await manager.aupdate(["a", "b"], group_ids=["s", "t"], time_at_least=start)
    assert await manager.aexists(["b", "z"]) == [True, False]
    assert await manager.alist_keys(group_ids=["t"], after=start - 1, before=start + 3600) == ["b"]
    await manager.adelete_keys(["a"])
    assert await manager.alist_keys() == ["b"]
    assert await manager.aget_time() > start


# ---------------------------------------------------------------- SQLRecordManager only


def test_sql_records_persist_across_instances(tmp_path: Path) -> None:
    """A new manager on the same file sees the records, and its clock stays ahead of them."""
    url = f"sqlite:///{tmp_path / 'records.db'}"
    first = SQLRecordManager("docs", db_url=url)
    first.update(["a", "b"], group_ids=["x.txt", "y.txt"])
    stamped_last = first.get_time()
    first.close()
    second = SQLRecordManager("docs", db_url=url)
    assert second.exists(["a", "b", "c"]) == [True, True, False]
    assert second.list_keys(group_ids=["y.txt"]) == ["b"]
    assert second.get_time() > stamped_last - 1  # same clock, never behind the file's stamps
    second.update(["c"], time_at_least=10 * stamped_last)
    third = SQLRecordManager("docs", db_url=url)
    assert third.get_time() > 10 * stamped_last  # learned from the file, not from memory
    second.close()
    third.close()


def test_sql_file_is_readable_with_plain_sqlite(tmp_path: Path) -> None:
    """The table has LangChain's columns: uuid, key, namespace, group_id, updated_at."""
    path = tmp_path / "records.db"
    manager = SQLRecordManager("docs", db_url=f"sqlite:///{path}")
    manager.update(["a"], group_ids=["src"])
    manager.close()
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT key, namespace, group_id, length(uuid) FROM upsertion_record"
        ).fetchall()
    assert rows == [("a", "docs", "src", 36)]


def test_a_failed_write_transaction_leaves_the_records_as_they_were(tmp_path: Path) -> None:
    """update() is one transaction: a row failing after others were written writes none."""
    path = tmp_path / "r.db"
    manager = SQLRecordManager("docs", db_url=f"sqlite:///{path}")
    manager.update(["a"], group_ids=["old"])
    with sqlite3.connect(path) as connection:  # SQLite itself refuses the third row
        connection.execute(
            "CREATE TRIGGER refuse_c BEFORE INSERT ON upsertion_record WHEN NEW.key = 'c' "
            "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
    with pytest.raises(PersistenceError, match=r"cannot write record database .*disk on fire"):
        manager.update(["a", "b", "c"], group_ids=["new", "new", "new"])
    assert manager.list_keys() == ["a"]
    assert manager.list_keys(group_ids=["old"]) == ["a"]
    manager.update(["b"])  # the connection is usable again
    assert manager.list_keys() == ["a", "b"]


@pytest.mark.parametrize(
    ("url", "path"),
    [
        (":memory:", ":memory:"),
        ("sqlite://", ":memory:"),
        ("sqlite:///:memory:", ":memory:"),
        ("sqlite:///records.db", "records.db"),
        ("sqlite:////var/lib/r.db", "/var/lib/r.db"),
        ("sqlite+pysqlite:///r.db", "r.db"),
    ],
)
def test_sqlite_urls(url: str, path: str) -> None:
    assert sqlite_path(url) == path


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://localhost/db", "db_url 'postgresql://localhost/db' is not supported"),
        ("records.db", "give 'sqlite:///path/to/records.db' or ':memory:'"),
        ("sqlite:///r.db?mode=ro", "query options are not supported"),
    ],
)
def test_other_urls_are_refused(url: str, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        SQLRecordManager("docs", db_url=url)
    assert message in str(caught.value)


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    manager = SQLRecordManager("docs", db_url=f"sqlite:///{tmp_path / 'nope' / 'r.db'}")
    with pytest.raises(PersistenceError, match=r"folder .*nope' does not exist"):
        manager.exists(["a"])


def test_db_url_and_engine_both_or_neither_are_named_as_given(tmp_path: Path) -> None:
    import sqlalchemy

    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'r.db'}")
    with pytest.raises(
        ConfigurationError, match=r"^SQLRecordManager takes db_url or engine, got neither$"
    ):
        SQLRecordManager("ns")
    with pytest.raises(
        ConfigurationError, match=r"^SQLRecordManager takes db_url or engine, got both$"
    ):
        SQLRecordManager("ns", db_url=f"sqlite:///{tmp_path / 'r.db'}", engine=engine)


def test_an_engine_names_the_database_its_url_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine's URL prints its database percent-encoded (':memory:' as '%3Amemory%3A',
    'é' as '%C3%A9'): the records must go where the engine points, not to a file of the
    printed name (review of e5d7934)."""
    import sqlalchemy

    monkeypatch.chdir(tmp_path)
    in_memory = SQLRecordManager("ns", engine=sqlalchemy.create_engine("sqlite:///:memory:"))
    in_memory.update(["a"])
    assert in_memory.list_keys() == ["a"]
    in_memory.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no file made for it
    path = tmp_path / "records é@1.db"
    on_disk = SQLRecordManager("ns", engine=sqlalchemy.create_engine(f"sqlite:///{path}"))
    on_disk.update(["b"])
    on_disk.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records é@1.db"]
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT key FROM upsertion_record").fetchall() == [("b",)]
    with pytest.raises(ConfigurationError, match="query options are not supported"):
        SQLRecordManager("ns", engine=sqlalchemy.create_engine(f"sqlite:///{path}?timeout=3"))

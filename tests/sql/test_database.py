"""ragline.sql on a real SQLite file: the read-only option, bad input, and what ragline
does where it differs from LangChain on purpose (every column of a result kept)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")

from ragline.core import BaseCallbackHandler, FakeListChatModel, InvalidInputError  # noqa: E402
from ragline.sql import (  # noqa: E402
    SQL_PROMPTS,
    SQL_QUERY_PROMPT,
    QuerySQLCheckerTool,
    QuerySQLDatabaseTool,
    SQLDatabase,
    SQLDatabaseToolkit,
    SQLReadOnlyError,
    create_sql_query_chain,
)


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL);"
            "INSERT INTO items VALUES (1, 'pen', 1.5), (2, 'ink', 4.0);"
        )
    connection.close()
    return path


def rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        found = connection.execute("SELECT * FROM items ORDER BY id").fetchall()
    connection.close()
    return found


WRITES = [
    "INSERT INTO items VALUES (3, 'cap', 2.0)",
    "  update items SET price = 0",
    "DELETE FROM items",
    "DROP TABLE items",
    "CREATE TABLE other (a INT)",
    "-- a comment first\nDELETE FROM items",
    "/* a block comment */ DELETE FROM items",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE ':memory:' AS other",
    "REPLACE INTO items VALUES (1, 'x', 0)",
]


@pytest.mark.parametrize("statement", WRITES)
def test_read_only_refuses_statements_other_than_queries(db_file, statement):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", read_only=True)
    with pytest.raises(SQLReadOnlyError, match=r"read-only \(read_only=True\)"):
        db.run(statement)
    assert db.run_no_throw(statement).startswith("Error: this SQLDatabase is read-only")
    assert rows(db_file) == [(1, "pen", 1.5), (2, "ink", 4.0)]


@pytest.mark.parametrize(
    "statement",
    [
        "WITH gone AS (SELECT 1) DELETE FROM items",
        "WITH gone AS (SELECT 1) INSERT INTO items VALUES (9, 'x', 1)",
    ],
)
def test_read_only_sqlite_refuses_writes_hidden_behind_a_query(db_file, statement):
    """A statement that starts as a query but writes fails in the database itself
    (SQLite's query_only), and nothing changes."""
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", read_only=True)
    assert db.run_no_throw(statement).startswith("Error: (sqlite3.")
    assert rows(db_file) == [(1, "pen", 1.5), (2, "ink", 4.0)]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT 1; DELETE FROM items",
        "SELECT 1; COMMIT; DROP TABLE items",
        "VALUES (1);\nDROP TABLE items;",
        "SELECT 1 /* ; */",
        "SELECT name FROM items WHERE name = 'a;b'",
    ],
)
def test_read_only_refuses_a_semicolon_inside_a_query(db_file, statement):
    """Several statements in one string are refused before they reach the database, on
    every dialect: psycopg2 (PostgreSQL) runs them all, and a COMMIT among them would end
    the transaction read_only rolls back. A ';' in a comment or string is refused too."""
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", read_only=True)
    with pytest.raises(SQLReadOnlyError, match="one statement at a time, with no ';' inside"):
        db.run(statement)
    assert db.run_no_throw(sqlalchemy.text(statement)).startswith(
        "Error: this SQLDatabase is read-only"
    )
    assert rows(db_file) == [(1, "pen", 1.5), (2, "ink", 4.0)]
    assert db.run("SELECT id FROM items ORDER BY id;\n ") == "[(1,), (2,)]"


def test_read_only_still_answers_queries(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", read_only=True)
    assert db.read_only is True
    assert db.run("SELECT name FROM items ORDER BY id") == "[('pen',), ('ink',)]"
    assert db.run("  /* note */ -- line\n SELECT 1") == "[(1,)]"
    assert db.run("WITH t AS (SELECT 2 AS n) SELECT n FROM t") == "[(2,)]"
    assert db.run("VALUES (3)") == "[(3,)]"
    assert db.run(sqlalchemy.select(sqlalchemy.literal(4))) == "[(4,)]"
    assert db.run(sqlalchemy.text("SELECT :n"), parameters={"n": 5}) == "[(5,)]"
    assert "CREATE TABLE items" in db.table_info
    cursor = db.run("SELECT id FROM items ORDER BY id", fetch="cursor")
    assert cursor.fetchall() == [(1,), (2,)]
    assert db.run("SELECT id FROM items ORDER BY id", fetch="one") == "[(1,)]"
    with pytest.raises(SQLReadOnlyError, match="got a Insert statement"):
        db.run(sqlalchemy.insert(sqlalchemy.table("items", sqlalchemy.column("id"))))
    with pytest.raises(SQLReadOnlyError):
        db.run(sqlalchemy.text("DELETE FROM items"))


def test_read_only_leaves_the_engine_writable_for_its_other_users(db_file):
    """query_only is switched on for ragline's statement and off again: a program's own
    use of the same engine (same pooled connection) still writes."""
    engine = sqlalchemy.create_engine(f"sqlite:///{db_file}", pool_size=1)
    db = SQLDatabase(engine, read_only=True)
    assert db.run_no_throw("WITH g AS (SELECT 1) DELETE FROM items").startswith("Error:")
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO items VALUES (3, 'cap', 2.0)")
    assert rows(db_file)[-1] == (3, "cap", 2.0)
    assert SQLDatabase(engine).run("DELETE FROM items WHERE id = 3") == ""
    assert len(rows(db_file)) == 2


def test_the_query_tool_on_a_read_only_database_reports_the_refusal(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", read_only=True)
    tool = QuerySQLDatabaseTool(db=db)
    assert tool.invoke("DROP TABLE items") == (
        "Error: this SQLDatabase is read-only (read_only=True): only queries (SELECT, WITH, "
        "VALUES) run, got 'DROP TABLE items'"
    )
    assert tool.invoke("SELECT count(*) FROM items") == "[(2,)]"
    assert len(rows(db_file)) == 2


def test_without_read_only_writes_are_committed(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    assert db.read_only is False
    assert db.run("INSERT INTO items VALUES (3, 'cap', 2.0)") == ""
    assert rows(db_file)[-1] == (3, "cap", 2.0)


def test_a_bad_fetch_is_refused_before_anything_runs(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    with pytest.raises(InvalidInputError, match="Fetch parameter must be either"):
        db.run("DELETE FROM items", fetch="many")
    assert len(rows(db_file)) == 2
    with pytest.raises(InvalidInputError):
        db.run_no_throw("SELECT 1", fetch="first")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sample_rows_in_table_info": -1}, "sample_rows_in_table_info must be 0 or more"),
        ({"include_tables": "items"}, "include_tables must be a list of table names"),
        ({"ignore_tables": "items"}, "ignore_tables must be a list of table names"),
    ],
)
def test_bad_options_are_named(db_file, options, message):
    with pytest.raises(InvalidInputError, match=message):
        SQLDatabase.from_uri(f"sqlite:///{db_file}", **options)


def test_bad_arguments_are_named(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    with pytest.raises(InvalidInputError, match="got the string 'items'"):
        db.get_table_info("items")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Query expression has unknown type"):
        db.run(["SELECT 1"])
    with pytest.raises(TypeError, match="unknown_option"):
        SQLDatabase.from_uri(f"sqlite:///{db_file}", unknown_option=1)
    with pytest.raises(InvalidInputError, match="needs db=SQLDatabase"):
        QuerySQLDatabaseTool(db="sqlite:///x.db")
    with pytest.raises(InvalidInputError, match="needs db=SQLDatabase"):
        SQLDatabaseToolkit(db=None, llm=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="needs llm="):
        QuerySQLCheckerTool(db=db)


def test_every_column_of_a_result_is_kept_even_with_the_same_name(db_file):
    """LangChain's run() keeps one value per column name (SELECT a.id, b.id gives one
    id); ragline keeps them all in the tuple form (a documented difference)."""
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    query = "SELECT a.id, b.id FROM items a JOIN items b ON b.id = a.id + 1"
    assert db.run(query) == "[(1, 2)]"
    assert db.run(query, include_columns=True) == "[{'id': 2}]"


def test_long_strings_are_cut_at_a_word(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}", max_string_length=12)
    assert db.run("SELECT 'one two three four'") == "[('one two...',)]"
    assert db.run("SELECT 'abcdefghijklmnop'") == "[('abcdefghi...',)]"
    assert db.run("SELECT 'short one'") == "[('short one',)]"


def test_the_default_prompts_have_langchains_variables():
    for dialect, prompt in SQL_PROMPTS.items():
        assert prompt.input_variables == ["input", "table_info", "top_k"], dialect
    assert SQL_QUERY_PROMPT.input_variables == ["dialect", "input", "table_info", "top_k"]


def test_the_query_chain_for_an_unknown_dialect_names_it(db_file):
    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    seen: list[str] = []
    model = FakeListChatModel(responses=["SELECT 1"])
    chain = create_sql_query_chain(model, db, prompt=SQL_QUERY_PROMPT, k=3)
    chain.invoke({"question": "q"}, {"callbacks": [_PromptRecorder(seen)]})
    assert seen[0].startswith("Human: You write sqlite queries.")
    assert "at most 3 rows" in seen[0]
    assert seen[0].endswith("Question: q\nSQLQuery: ")


class _PromptRecorder(BaseCallbackHandler):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def on_chat_model_start(self, serialized, messages, **kwargs):
        self.seen.append(f"Human: {messages[0][0].content}")


def test_a_missing_sqlalchemy_names_the_extra(tmp_path):
    code = (
        "import sys; sys.modules['sqlalchemy'] = None\n"
        "from ragline.sql import SQLDatabase\n"
        "try:\n"
        "    SQLDatabase.from_uri('sqlite://')\n"
        "except ImportError as err:\n"
        "    print(type(err).__name__, err)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.startswith("MissingDependencyError SQLAlchemy is required")
    assert "pip install 'ragline[sql]'" in out


def test_the_checker_tool_takes_an_llm_chain_with_dialect_and_query(db_file):
    from ragline.chains import LLMChain
    from ragline.core import PromptTemplate

    db = SQLDatabase.from_uri(f"sqlite:///{db_file}")
    model = FakeListChatModel(responses=["SELECT 2"])
    good = LLMChain(llm=model, prompt=PromptTemplate.from_template("{dialect}: {query}"))
    assert QuerySQLCheckerTool(db=db, llm_chain=good).invoke("SELECT 1") == "SELECT 2"
    bad = LLMChain(llm=model, prompt=PromptTemplate.from_template("{query}"))
    with pytest.raises(InvalidInputError, match="must take the input variables 'dialect'"):
        QuerySQLCheckerTool(db=db, llm_chain=bad)
    custom = QuerySQLCheckerTool(db=db, llm=model, template="Fix this {dialect}: {query}")
    assert custom.llm_chain.prompt.template == "Fix this {dialect}: {query}"


def test_indexes_shown_are_those_of_the_tables_schema(tmp_path):
    """With schema= (here an attached SQLite database), each table's indexes are read in
    that schema, not in the default one where a table of the same name has others."""
    main, other = tmp_path / "main.db", tmp_path / "other.db"
    engine = sqlalchemy.create_engine(f"sqlite:///{main}")

    @sqlalchemy.event.listens_for(engine, "connect")
    def attach(dbapi_connection, record):
        dbapi_connection.execute(f"ATTACH DATABASE '{other}' AS other")

    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE other.items (id INTEGER PRIMARY KEY, name TEXT)")
        connection.exec_driver_sql("CREATE INDEX other.items_name ON items (name)")
        connection.exec_driver_sql("CREATE TABLE items (id INTEGER PRIMARY KEY, code TEXT)")
        connection.exec_driver_sql("CREATE UNIQUE INDEX main_code ON items (code)")
    db = SQLDatabase(
        engine, schema="other", indexes_in_table_info=True, sample_rows_in_table_info=0
    )
    assert db.get_table_info() == (
        "\nCREATE TABLE other.items (\n\tid INTEGER, \n\tname TEXT, \n\tPRIMARY KEY (id)\n)"
        "\n\n/*\nTable Indexes:\nName: items_name, Unique: 0, Columns: ['name']\n*/"
    )
    engine.dispose()

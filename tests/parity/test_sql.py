"""Parity: the SQL pieces (ragline.sql) against LangChain's (langchain_community's
SQLDatabase, SQL tools and toolkit; langchain_classic's create_sql_query_chain).

Every scenario runs on a real SQLite file the test writes, once through LangChain and
once through ragline (each on its own copy where a statement writes), and compares what a
program sees exactly: table info text, run() results in every fetch mode, error strings
and exception types, the query chain's output and the prompt's table and question part,
the tools' outputs, and an AgentExecutor driving the toolkit. The prompts' and tool
descriptions' wording is ragline's own (listed in docs/differences-from-langchain.md), so
descriptions are not compared.
"""

# No `from __future__ import annotations`: LangChain's LLM subclass below is a pydantic
# model, and its fields need real annotations.
import shutil
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

import sqlalchemy
from langchain_classic import agents as lc_agents
from langchain_classic.chains import create_sql_query_chain as lc_create_sql_query_chain
from langchain_core import language_models as lc_models
from langchain_core import messages as lc_messages
from langchain_core import prompts as lc_prompts
from langchain_core.utils.function_calling import (
    convert_to_openai_tool as lc_convert_to_openai_tool,
)

from ragline import agents, core, sql

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # langchain_community's sunset notice
    from langchain_community import agent_toolkits as lc_toolkits
    from langchain_community import tools as lc_tools
    from langchain_community import utilities as lc_utilities

COVERS = {
    "sql.SQLDatabase",
    "sql.create_sql_query_chain",
    "sql.QuerySQLDatabaseTool",
    "sql.QuerySQLDataBaseTool",
    "sql.InfoSQLDatabaseTool",
    "sql.ListSQLDatabaseTool",
    "sql.QuerySQLCheckerTool",
    "sql.SQLDatabaseToolkit",
    "sql.create_sql_agent",
}

LONG_BIO = (
    "Australian hard rock band formed in Sydney in 1973 by the brothers Malcolm and Angus "
    "Young, whose line-up changed many times over five decades of touring and recording "
) * 3

SCHEMA = f"""
CREATE TABLE artists (id INTEGER PRIMARY KEY, name NVARCHAR(120) NOT NULL, bio TEXT);
CREATE TABLE albums (
    id INTEGER PRIMARY KEY,
    title VARCHAR(160),
    artist_id INTEGER REFERENCES artists(id),
    price REAL DEFAULT 9.99,
    released DATE
);
CREATE INDEX albums_by_artist ON albums (artist_id);
CREATE UNIQUE INDEX albums_by_title ON albums (title);
CREATE TABLE notes (id INTEGER, note, stars INT);
CREATE TABLE empty (a INT);
CREATE VIEW album_titles AS SELECT title FROM albums;
INSERT INTO artists VALUES (1, 'AC/DC', '{LONG_BIO}'), (2, 'Accept', NULL), (3, 'Björk', 'x');
INSERT INTO albums VALUES
    (1, 'For Those About To Rock', 1, 9.99, '1981-11-23'),
    (2, 'Balls to the Wall', 2, 8.5, NULL),
    (3, 'Let There Be Rock', 1, NULL, '1977-03-21'),
    (4, 'Homogenic', 3, 10, '1997-09-22');
INSERT INTO notes VALUES (1, 'loud', 5), (2, 3.5, 4);
"""


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "music.db"
    with sqlite3.connect(path) as connection:
        connection.executescript(SCHEMA)
    connection.close()
    return path


def pair(path: Path, **options: Any) -> tuple[Any, Any]:
    """(LangChain's SQLDatabase, ragline's) on the file, with the same options."""
    uri = f"sqlite:///{path}"
    return lc_utilities.SQLDatabase.from_uri(uri, **options), sql.SQLDatabase.from_uri(
        uri, **options
    )


def copies(path: Path, **options: Any) -> tuple[Any, Any]:
    """Each library on its own copy of the file, for statements that write."""
    theirs, ours = path.with_suffix(".lc.db"), path.with_suffix(".rl.db")
    shutil.copy(path, theirs)
    shutil.copy(path, ours)
    return (
        lc_utilities.SQLDatabase.from_uri(f"sqlite:///{theirs}", **options),
        sql.SQLDatabase.from_uri(f"sqlite:///{ours}", **options),
    )


def outcome(call: Any) -> Any:
    try:
        return ("ok", call())
    except Exception as err:  # compared: the built-in kind and the message
        kind = next(k for k in (TypeError, ValueError, Exception) if isinstance(err, k))
        return ("raised", kind.__name__, str(err))


OPTIONS = [
    {},
    {"include_tables": ["albums", "artists"]},
    {"ignore_tables": ["notes"]},
    {"sample_rows_in_table_info": 1},
    {"sample_rows_in_table_info": 0},
    {"indexes_in_table_info": True},
    {"indexes_in_table_info": True, "sample_rows_in_table_info": 0},
    {"custom_table_info": {"albums": "ALBUMS: id, title", "nope": "gone"}},
    {"custom_table_info": {"artists": "zzz last"}, "include_tables": ["artists", "empty"]},
    {"max_string_length": 40},
    {"lazy_table_reflection": True},
    {"schema": "main", "sample_rows_in_table_info": 2},
]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_table_info_and_names_as_langchains(db_file, options):
    theirs, ours = pair(db_file, **options)
    assert ours.dialect == theirs.dialect == "sqlite"
    assert ours.get_usable_table_names() == theirs.get_usable_table_names()
    assert ours.table_info == theirs.table_info
    assert ours.get_context() == theirs.get_context()
    for names in (["albums"], ["notes", "artists"], []):
        usable = set(theirs.get_usable_table_names())
        if set(names) <= usable:
            assert ours.get_table_info(names) == theirs.get_table_info(names)
    assert ours.get_table_info_no_throw(["nope"]) == theirs.get_table_info_no_throw(["nope"])
    assert ours.get_table_info(get_col_comments=True) == theirs.get_table_info(
        get_col_comments=True
    )
    assert outcome(lambda: ours.get_table_info(["nope"])) == outcome(
        lambda: theirs.get_table_info(["nope"])
    )


def test_the_default_table_info_text(db_file):
    """One exact text, so a change on either side shows here, not only as a mismatch."""
    _, ours = pair(db_file, include_tables=["notes"], sample_rows_in_table_info=2)
    assert ours.table_info == (
        "\nCREATE TABLE notes (\n\tid INTEGER, \n\tstars INTEGER\n)\n\n"
        "/*\n2 rows from notes table:\nid\tstars\n1\t5\n2\t4\n*/"
    )


QUERIES = [
    "SELECT * FROM artists",
    "SELECT * FROM albums ORDER BY id",
    "SELECT title, price FROM albums WHERE price > 9",
    "SELECT name FROM artists WHERE id = 99",
    "SELECT count(*) AS n FROM albums",
    "SELECT x'00ff', 1.5, NULL, 'a b c', 7",
    "SELECT * FROM album_titles",
    "SELECT * FROM notes",
]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("options", [{}, {"max_string_length": 25}, {"max_string_length": 0}])
def test_run_results_as_langchains(db_file, query, options):
    theirs, ours = pair(db_file, **options)
    for fetch in ("all", "one"):
        for include_columns in (False, True):
            expected = theirs.run(query, fetch, include_columns)
            assert ours.run(query, fetch, include_columns) == expected
            assert ours.run(query, fetch=fetch, include_columns=include_columns) == expected
            assert ours.run_no_throw(query, fetch, include_columns) == expected
    cursor_theirs = theirs.run(query, fetch="cursor")
    cursor_ours = ours.run(query, fetch="cursor")
    assert type(cursor_ours) is type(cursor_theirs)
    assert list(cursor_ours.keys()) == list(cursor_theirs.keys())
    assert cursor_ours.fetchall() == cursor_theirs.fetchall()


def test_run_with_parameters_and_statements_as_langchains(db_file):
    theirs, ours = pair(db_file)
    query = "SELECT title FROM albums WHERE artist_id = :a ORDER BY id"
    for value in (1, 3, 99):
        assert ours.run(query, parameters={"a": value}) == theirs.run(
            query, parameters={"a": value}
        )
    statement = sqlalchemy.select(sqlalchemy.literal(5).label("five"))
    assert ours.run(statement, include_columns=True) == theirs.run(statement, include_columns=True)
    assert ours.run(sqlalchemy.text("SELECT 6")) == theirs.run(sqlalchemy.text("SELECT 6"))
    assert outcome(lambda: ours.run(5)) == outcome(lambda: theirs.run(5))


def test_statements_that_write_as_langchains(db_file):
    theirs, ours = copies(db_file)
    for statement in (
        "CREATE TABLE log (n INTEGER, what TEXT)",
        "INSERT INTO log VALUES (1, 'a'), (2, 'b')",
        "UPDATE log SET what = 'c' WHERE n = 2",
        "DELETE FROM log WHERE n = 1",
    ):
        assert ours.run(statement) == theirs.run(statement) == ""
    # tables are reflected once, when opened: a column added later is not shown
    before = ours.table_info
    assert ours.run("ALTER TABLE albums ADD COLUMN label TEXT") == ""
    assert theirs.run("ALTER TABLE albums ADD COLUMN label TEXT") == ""
    assert ours.table_info == theirs.table_info == before
    assert ours.run("INSERT INTO log VALUES (3, 'd')", fetch="cursor") == []
    assert theirs.run("INSERT INTO log VALUES (3, 'd')", fetch="cursor") == []
    assert (
        ours.run("SELECT * FROM log") == theirs.run("SELECT * FROM log") == ("[(2, 'c'), (3, 'd')]")
    )


BAD = [
    "SELECT * FROM nope",
    "SELEC 1",
    "SELECT nope FROM albums",
    "SELECT 1; SELECT 2",
    "INSERT INTO albums (id) VALUES (1)",
]


@pytest.mark.parametrize("statement", BAD)
def test_errors_as_langchains(db_file, statement):
    theirs, ours = copies(db_file)
    assert ours.run_no_throw(statement) == theirs.run_no_throw(statement)
    assert ours.run_no_throw(statement).startswith("Error: (sqlite3.")
    with pytest.raises(sqlalchemy.exc.SQLAlchemyError) as expected:
        theirs.run(statement)
    with pytest.raises(type(expected.value)) as got:
        ours.run(statement)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    "options",
    [
        {"include_tables": ["nope"]},
        {"ignore_tables": ["nope"]},
        {"include_tables": ["albums"], "ignore_tables": ["notes"]},
        {"sample_rows_in_table_info": "3"},
        {"custom_table_info": ["albums"]},
    ],
)
def test_bad_options_raise_as_langchains(db_file, options):
    uri = f"sqlite:///{db_file}"
    expected = outcome(lambda: lc_utilities.SQLDatabase.from_uri(uri, **options))
    got = outcome(lambda: sql.SQLDatabase.from_uri(uri, **options))
    assert expected[0] == "raised"
    if "custom_table_info" in options:  # ragline's message names the argument
        assert got[:2] == expected[:2]
        assert got[2].startswith("custom_table_info must be a dict")
    else:
        assert got == expected


def test_views_count_as_tables_with_view_support(db_file):
    """LangChain's view_support=True fails on SQLite (it asks SQLAlchemy for materialized
    views, which SQLite's dialect does not list: NotImplementedError); ragline lists the
    views (a difference documented in docs/differences-from-langchain.md)."""
    uri = f"sqlite:///{db_file}"
    with pytest.raises(NotImplementedError):
        lc_utilities.SQLDatabase.from_uri(uri, view_support=True)
    ours = sql.SQLDatabase.from_uri(uri, view_support=True, sample_rows_in_table_info=2)
    assert "album_titles" in ours.get_usable_table_names()
    assert ours.get_table_info(["album_titles"]) == (
        "\nCREATE TABLE album_titles (\n\ttitle VARCHAR(160)\n)\n\n"
        "/*\n2 rows from album_titles table:\ntitle\n"
        "Balls to the Wall\nFor Those About To Rock\n*/"  # the title index's order
    )


# ---- create_sql_query_chain ----


def scripted_llm(which: str, replies: list[str]) -> Any:
    """An LLM of each library that records its prompts and stop words and answers from
    the script, cut at the first stop word (as a real model stops)."""
    base = lc_models.LLM if which == "langchain" else core.LLM

    class Scripted(base):  # type: ignore[misc, valid-type]
        script: list = []  # noqa: RUF012  (pydantic fields of LangChain's LLM)
        seen: list = []  # noqa: RUF012

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _call(self, prompt, stop=None, run_manager=None, **kwargs):
            self.seen.append((prompt, stop))
            text = self.script[len(self.seen) - 1]
            for word in stop or []:
                text = text.split(word)[0]
            return text

    return Scripted(script=list(replies), seen=[])


ANSWERS = [
    "SELECT count(*) FROM albums",
    "  SELECT count(*) FROM albums;  \n",
    "SQLQuery: SELECT count(*) FROM albums",
    "```sql\nSELECT count(*) FROM albums\n```",
    "SELECT count(*) FROM albums\nSQLResult: [(4,)]\nAnswer: four albums",
    '"SELECT 1"',
    "",
]


def _table_and_question(prompt: str) -> str:
    return prompt[prompt.index("\nCREATE TABLE") :]


@pytest.mark.parametrize(
    "inputs",
    [
        {"question": "How many albums?"},
        {"question": "How many albums?", "table_names_to_use": ["albums"]},
        {"question": "Who?", "table_names_to_use": ["artists", "notes"]},
    ],
)
@pytest.mark.parametrize("k", [5, 2])
def test_query_chain_outputs_as_langchains(db_file, inputs, k):
    theirs_db, ours_db = pair(db_file)
    lc_model, rl_model = scripted_llm("langchain", ANSWERS), scripted_llm("ragline", ANSWERS)
    theirs = lc_create_sql_query_chain(lc_model, theirs_db, k=k)
    ours = sql.create_sql_query_chain(rl_model, ours_db, k=k)
    for _ in ANSWERS:
        assert ours.invoke(dict(inputs)) == theirs.invoke(dict(inputs))
    assert [stop for _, stop in rl_model.seen] == [stop for _, stop in lc_model.seen]
    assert [_table_and_question(p) for p, _ in rl_model.seen] == [
        _table_and_question(p) for p, _ in lc_model.seen
    ]
    (lc_prompt,) = theirs.get_prompts()
    (rl_prompt,) = ours.get_prompts()
    assert rl_prompt.input_variables == lc_prompt.input_variables
    assert rl_prompt.partial_variables == lc_prompt.partial_variables
    assert f"at most {k} rows" in rl_model.seen[0][0]


def test_query_chain_streams_and_batches_as_langchains(db_file):
    theirs_db, ours_db = pair(db_file)
    replies = [" SELECT 1\nSQLResult: 1", "SELECT 2 ", "SELECT 3"]
    outputs = {}
    for which, make, db in (
        ("langchain", lc_create_sql_query_chain, theirs_db),
        ("ragline", sql.create_sql_query_chain, ours_db),
    ):
        chain = make(scripted_llm(which, replies), db)
        streamed = list(chain.stream({"question": "a"}))
        batched = chain.batch([{"question": "b"}, {"question": "c"}], {"max_concurrency": 1})
        outputs[which] = (streamed, sorted(batched))
    assert outputs["ragline"] == outputs["langchain"]
    assert outputs["ragline"][0] == ["SELECT 1"]


def test_query_chain_steps_and_run_names_as_langchains(db_file):
    """The chain's steps as a program or a tracer sees them: the drawn graph and the
    names of the runs a callback handler is told about."""
    from langchain_classic.callbacks.base import BaseCallbackHandler as LCHandler

    theirs_db, ours_db = pair(db_file)
    seen = {}
    for which, make, db, handler_base in (
        ("langchain", lc_create_sql_query_chain, theirs_db, LCHandler),
        ("ragline", sql.create_sql_query_chain, ours_db, core.BaseCallbackHandler),
    ):
        chain = make(scripted_llm(which, ["SELECT 1"]), db)
        handler = _recorder(handler_base)
        chain.invoke({"question": "q"}, {"callbacks": [handler]})
        seen[which] = (chain.get_graph().draw_ascii(), handler.starts)
    assert seen["ragline"] == seen["langchain"]
    assert seen["ragline"][1][-1] == "_strip"


def test_query_chain_with_a_custom_prompt_as_langchains(db_file):
    """A program's own prompt is filled identically: dialect, top_k, table info, the
    question line and an extra input passed through."""
    template = "[{dialect}] top {top_k} for {who}\n{table_info}\nQ: {input}"
    theirs_db, ours_db = pair(db_file, include_tables=["artists"])
    lc_model, rl_model = scripted_llm("langchain", ["A"]), scripted_llm("ragline", ["A"])
    theirs = lc_create_sql_query_chain(
        lc_model, theirs_db, lc_prompts.PromptTemplate.from_template(template), k=7
    )
    ours = sql.create_sql_query_chain(
        rl_model, ours_db, core.PromptTemplate.from_template(template), k=7
    )
    question = {"question": "Best?", "who": "me"}
    assert ours.invoke(question) == theirs.invoke(question) == "A"
    assert rl_model.seen == lc_model.seen
    assert rl_model.seen[0][0].startswith("[sqlite] top 7 for me\n\nCREATE TABLE artists")


def test_query_chain_refuses_a_prompt_without_its_variables(db_file):
    theirs_db, ours_db = pair(db_file)
    template = "{table_info} {input}"
    with pytest.raises(ValueError):
        lc_create_sql_query_chain(
            scripted_llm("langchain", ["A"]),
            theirs_db,
            lc_prompts.PromptTemplate.from_template(template),
        )
    with pytest.raises(ValueError, match="top_k"):
        sql.create_sql_query_chain(
            scripted_llm("ragline", ["A"]), ours_db, core.PromptTemplate.from_template(template)
        )
    for make, model, db in (
        (lc_create_sql_query_chain, scripted_llm("langchain", ["A"]), theirs_db),
        (sql.create_sql_query_chain, scripted_llm("ragline", ["A"]), ours_db),
    ):
        with pytest.raises(ValueError, match="get_col_comments=True is only supported"):
            make(model, db, get_col_comments=True)


# ---- the tools and the toolkit ----


def toolkits(db_file: Path, replies: list[str]) -> tuple[Any, Any]:
    theirs_db, ours_db = copies(db_file)
    theirs = lc_toolkits.SQLDatabaseToolkit(
        db=theirs_db, llm=lc_models.FakeListChatModel(responses=replies)
    )
    ours = sql.SQLDatabaseToolkit(db=ours_db, llm=core.FakeListChatModel(responses=replies))
    return theirs, ours


TOOL_INPUTS = {
    "sql_db_query": [
        "SELECT name FROM artists ORDER BY id",
        {"query": "SELECT count(*) FROM albums"},
        "SELECT * FROM nope",
        "DELETE FROM notes",
        "SELECT count(*) FROM notes",
    ],
    "sql_db_schema": [
        "albums",
        "albums, artists",
        " notes ,empty",
        "nope",
        {"table_names": "x, albums"},
    ],
    "sql_db_list_tables": ["", {}, {"tool_input": "anything"}],
    "sql_db_query_checker": ["SELECT 1", {"query": "SELECT 2"}],
}


def _no_descriptions(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_descriptions(v) for k, v in value.items() if k != "description"}
    return value


def test_toolkit_tools_as_langchains(db_file):
    theirs, ours = toolkits(db_file, ["SELECT 1 -- checked", "SELECT 2 -- checked"])
    assert ours.dialect == theirs.dialect
    assert ours.get_context() == theirs.get_context()
    lc_tools_, rl_tools = theirs.get_tools(), ours.get_tools()
    assert [t.name for t in rl_tools] == [t.name for t in lc_tools_]
    for lc_tool, rl_tool in zip(lc_tools_, rl_tools, strict=True):
        assert list(rl_tool.args) == list(lc_tool.args)
        assert {
            k: {f: v for f, v in a.items() if f != "description"} for k, a in rl_tool.args.items()
        } == {
            k: {f: v for f, v in a.items() if f != "description"} for k, a in lc_tool.args.items()
        }
        # what a model is shown: the OpenAI tool spec, but for the descriptions' wording
        assert _no_descriptions(core.convert_to_openai_tool(rl_tool)) == _no_descriptions(
            lc_convert_to_openai_tool(lc_tool)
        )
        assert _no_descriptions(rl_tool.get_input_jsonschema()) == _no_descriptions(
            lc_tool.get_input_jsonschema()
        )
        assert rl_tool.get_output_jsonschema() == lc_tool.get_output_jsonschema()
        assert rl_tool.input_schema.__name__ == lc_tool.input_schema.__name__
        assert rl_tool.is_single_input == lc_tool.is_single_input
        assert rl_tool.return_direct == lc_tool.return_direct
        for given in TOOL_INPUTS[lc_tool.name]:
            assert rl_tool.invoke(given) == lc_tool.invoke(given), (lc_tool.name, given)
        call = {"name": lc_tool.name, "args": {}, "id": "c1", "type": "tool_call"}
        if lc_tool.name == "sql_db_list_tables":
            assert rl_tool.invoke(call).content == lc_tool.invoke(call).content


def test_tools_made_directly_as_langchains(db_file):
    theirs_db, ours_db = pair(db_file)
    pairs = [
        (lc_tools.QuerySQLDatabaseTool(db=theirs_db), sql.QuerySQLDatabaseTool(db=ours_db)),
        (lc_tools.InfoSQLDatabaseTool(db=theirs_db), sql.InfoSQLDatabaseTool(db=ours_db)),
        (lc_tools.ListSQLDatabaseTool(db=theirs_db), sql.ListSQLDatabaseTool(db=ours_db)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain's deprecation of the old spelling
        old = lc_tools.QuerySQLDataBaseTool(db=theirs_db)
    pairs.append((old, sql.QuerySQLDataBaseTool(db=ours_db)))
    assert isinstance(pairs[-1][1], sql.QuerySQLDatabaseTool)
    for theirs, ours in pairs:
        assert ours.name == theirs.name
        assert ours.run("albums" if "schema" in theirs.name else "SELECT 1") == theirs.run(
            "albums" if "schema" in theirs.name else "SELECT 1"
        )
    checker_lc = lc_tools.QuerySQLCheckerTool(
        db=theirs_db, llm=lc_models.FakeListChatModel(responses=["SELECT 3"])
    )
    checker_rl = sql.QuerySQLCheckerTool(
        db=ours_db, llm=core.FakeListChatModel(responses=["SELECT 3"])
    )
    assert checker_rl.name == checker_lc.name == "sql_db_query_checker"
    assert checker_rl.invoke("SELECT 3") == checker_lc.invoke("SELECT 3") == "SELECT 3"


def test_the_checker_tool_asks_through_an_llm_chain_as_langchains(db_file):
    """The check is an LLMChain run under the tool's run (its name, inputs and outputs
    as a callback handler sees them), and the tool keeps it as llm_chain."""
    from langchain_classic.callbacks.base import BaseCallbackHandler as LCHandler

    seen = {}
    for which, base in (("langchain", LCHandler), ("ragline", core.BaseCallbackHandler)):

        class Handler(base):  # type: ignore[misc, valid-type]
            def __init__(self) -> None:
                self.events: list[Any] = []

            def on_chain_start(self, serialized, inputs, **kwargs):
                self.events.append(("start", kwargs.get("name"), inputs))

            def on_chain_end(self, outputs, **kwargs):
                self.events.append(("end", outputs))

        theirs_db, ours_db = pair(db_file)
        models = lc_models if which == "langchain" else core
        tools = lc_tools if which == "langchain" else sql
        tool = tools.QuerySQLCheckerTool(
            db=theirs_db if which == "langchain" else ours_db,
            llm=models.FakeListChatModel(responses=["SELECT 9"]),
        )
        handler = Handler()
        output = tool.invoke("SELECT 1", {"callbacks": [handler]})
        chain = tool.llm_chain
        seen[which] = (output, handler.events, type(chain).__name__, chain.prompt.input_variables)
    assert seen["ragline"] == seen["langchain"]
    assert seen["ragline"][1][0] == (
        "start",
        "LLMChain",
        {"query": "SELECT 1", "dialect": "sqlite"},
    )


async def test_tools_async_as_langchains(db_file):
    theirs, ours = toolkits(db_file, ["SELECT 9"])
    for lc_tool, rl_tool in zip(theirs.get_tools(), ours.get_tools(), strict=True):
        given = TOOL_INPUTS[lc_tool.name][0]
        assert await rl_tool.ainvoke(given) == await lc_tool.ainvoke(given)


def test_a_tool_calling_agent_with_the_toolkit_as_langchains(db_file):
    """An AgentExecutor whose scripted model lists the tables, reads a schema, runs a bad
    query, then a good one, and answers: the same steps, observations and answer."""
    calls = [
        ("sql_db_list_tables", {}),
        ("sql_db_schema", {"table_names": "albums, artists"}),
        ("sql_db_query", {"query": "SELECT title FROM album WHERE price > 9"}),
        ("sql_db_query", {"query": "SELECT title FROM albums WHERE price > 9 ORDER BY id"}),
    ]

    def run(which: str) -> Any:
        ns_agents, ns_core = (lc_agents, lc_messages) if which == "langchain" else (agents, core)
        fake = (
            lc_models.FakeMessagesListChatModel
            if which == "langchain"
            else core.FakeMessagesListChatModel
        )

        class Model(fake):  # type: ignore[misc, valid-type]
            def bind_tools(self, tools, **kwargs):
                return self

        replies = [
            ns_core.AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}])
            for i, (n, a) in enumerate(calls)
        ] + [ns_core.AIMessage(content="Two albums cost more than 9.")]
        prompts = lc_prompts if which == "langchain" else core
        prompt = prompts.ChatPromptTemplate.from_messages(
            [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
        )
        theirs, ours = toolkits(db_file, ["SELECT 1"])
        toolkit = theirs if which == "langchain" else ours
        tools = toolkit.get_tools()
        agent = ns_agents.create_tool_calling_agent(Model(responses=replies), tools, prompt)
        executor = ns_agents.AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
        result = executor.invoke({"input": "Which albums cost more than 9?"})
        steps = [
            (a.tool, a.tool_input, observation) for a, observation in result["intermediate_steps"]
        ]
        return result["output"], steps

    theirs, ours = run("langchain"), run("ragline")
    assert ours == theirs
    assert ours[1][0][2] == "albums, artists, empty, notes"
    assert ours[1][2][2].startswith("Error: (sqlite3.OperationalError) no such table: album")
    assert ours[1][3][2] == "[('For Those About To Rock',), ('Homogenic',)]"


# ---- create_sql_agent ----


def _recorder(base: Any) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.starts: list[Any] = []

        def on_chain_start(self, serialized, inputs, **kwargs):
            self.starts.append(kwargs.get("name"))

    return Recorder()


def _tool_calling_model(which: str, calls: list[tuple[str, dict]], answer: str) -> Any:
    fake, messages = (
        (lc_models.FakeMessagesListChatModel, lc_messages)
        if which == "langchain"
        else (core.FakeMessagesListChatModel, core)
    )

    class Model(fake):  # type: ignore[misc, valid-type]
        def bind_tools(self, tools, **kwargs):
            return self

        def bind(self, **kwargs):  # openai-functions binds functions=
            return self

    replies = [
        messages.AIMessage(content="", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}])
        for i, (n, a) in enumerate(calls)
    ] + [messages.AIMessage(content=answer)]
    return Model(responses=replies)


SQL_AGENT_CALLS = [
    ("sql_db_list_tables", {}),
    ("sql_db_schema", {"table_names": "albums"}),
    ("sql_db_query_checker", {"query": "SELECT count(*) FROM albums"}),
    ("sql_db_query", {"query": "SELECT count(*) FROM albums"}),
]


@pytest.mark.parametrize("agent_type", ["tool-calling", "openai-tools"])
@pytest.mark.parametrize("how", ["db", "toolkit"])
def test_create_sql_agent_tool_calling_as_langchains(db_file, agent_type, how):
    from langchain_classic.callbacks.base import BaseCallbackHandler as LCHandler

    results = {}
    for which in ("langchain", "ragline"):
        make = lc_toolkits.create_sql_agent if which == "langchain" else sql.create_sql_agent
        model = _tool_calling_model(which, SQL_AGENT_CALLS, "There are 4 albums.")
        theirs_db, ours_db = copies(db_file)
        db = theirs_db if which == "langchain" else ours_db
        if how == "db":
            source: dict[str, Any] = {"db": db}
        else:
            kit = lc_toolkits.SQLDatabaseToolkit if which == "langchain" else sql.SQLDatabaseToolkit
            checker = (lc_models if which == "langchain" else core).FakeListChatModel(
                responses=["SELECT count(*) FROM albums"]
            )
            source = {"toolkit": kit(db=db, llm=checker)}
        executor = make(
            model,
            agent_type=agent_type,
            agent_executor_kwargs={"return_intermediate_steps": True},
            **source,
        )
        handler = _recorder(LCHandler if which == "langchain" else core.BaseCallbackHandler)
        result = executor.invoke({"input": "How many albums?"}, {"callbacks": [handler]})
        steps = [(a.tool, a.tool_input, obs) for a, obs in result["intermediate_steps"]]
        results[which] = (
            result["output"],
            steps,
            [t.name for t in executor.tools],
            executor.max_iterations,
            handler.starts[0],
        )
    assert results["ragline"] == results["langchain"]
    output, steps, _, _, name = results["ragline"]
    assert (output, name) == ("There are 4 albums.", "SQL Agent Executor")
    assert steps[0][2] == "albums, artists, empty, notes"
    assert steps[1][2].startswith("\nCREATE TABLE albums")
    if how == "toolkit":  # with db=, the checker asks the agent's own model, as LangChain's
        assert [obs for _, _, obs in steps[2:]] == ["SELECT count(*) FROM albums", "[(4,)]"]


def test_create_sql_agent_react_as_langchains(db_file):
    replies = [
        " I list the tables.\nAction: sql_db_list_tables\nAction Input: ",
        " I count.\nAction: sql_db_query\nAction Input: SELECT count(*) FROM artists",
        " I know.\nFinal Answer: 3 artists",
    ]
    results = {}
    for which in ("langchain", "ragline"):
        make = lc_toolkits.create_sql_agent if which == "langchain" else sql.create_sql_agent
        llm = (lc_models if which == "langchain" else core).FakeListLLM(responses=replies)
        theirs_db, ours_db = pair(db_file)
        executor = make(
            llm,
            db=theirs_db if which == "langchain" else ours_db,
            top_k=3,
            agent_executor_kwargs={"return_intermediate_steps": True},
        )
        result = executor.invoke({"input": "How many artists?"})
        steps = [(a.tool, a.tool_input, obs) for a, obs in result["intermediate_steps"]]
        results[which] = (result["output"], steps)
    assert results["ragline"] == results["langchain"]
    assert results["ragline"][1][1][2] == "[(3,)]"


def test_create_sql_agent_with_a_whole_prompt_as_langchains(db_file):
    """A prompt given whole: top_k, dialect, table_info and table_names filled when the
    agent is made, and the schema and list-tables tools it makes unneeded left out."""
    template = "{dialect} {top_k}\n{table_names}\n{table_info}\n{input}"
    seen = {}
    for which in ("langchain", "ragline"):
        make = lc_toolkits.create_sql_agent if which == "langchain" else sql.create_sql_agent
        prompts = lc_prompts if which == "langchain" else core
        model = _tool_calling_model(which, [], "done")
        theirs_db, ours_db = pair(db_file, include_tables=["artists"])
        prompt = prompts.ChatPromptTemplate.from_messages(
            [("human", template), ("placeholder", "{agent_scratchpad}")]
        )
        executor = make(
            model,
            db=theirs_db if which == "langchain" else ours_db,
            agent_type="tool-calling",
            prompt=prompt,
            top_k=4,
        )
        filled = executor.agent.runnable.get_prompts()[0]
        text = filled.format_messages(input="q", agent_scratchpad=[])[0].content
        seen[which] = ([t.name for t in executor.tools], text, executor.invoke({"input": "q"}))
    assert seen["ragline"] == seen["langchain"]
    assert seen["ragline"][0] == ["sql_db_query", "sql_db_query_checker"]
    assert seen["ragline"][1].startswith("sqlite 4\nartists\n\nCREATE TABLE artists")


@pytest.mark.parametrize(
    "arguments",
    [{}, {"both": True}, {"agent_type": "self-ask-with-search"}],
)
def test_create_sql_agent_refuses_as_langchain(db_file, arguments):
    for which in ("langchain", "ragline"):
        make = lc_toolkits.create_sql_agent if which == "langchain" else sql.create_sql_agent
        theirs_db, ours_db = pair(db_file)
        db = theirs_db if which == "langchain" else ours_db
        kit = lc_toolkits.SQLDatabaseToolkit if which == "langchain" else sql.SQLDatabaseToolkit
        model = _tool_calling_model(which, [], "x")
        options: dict[str, Any] = {}
        if arguments.get("both"):
            options = {"db": db, "toolkit": kit(db=db, llm=model)}
        elif "agent_type" in arguments:
            options = {"db": db, "agent_type": arguments["agent_type"]}
        with pytest.raises(ValueError) as raised:
            make(model, **options)
        if which == "langchain":
            expected = str(raised.value)
    assert str(raised.value) == expected

"""Parity: differences found by the fifty-third port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import sqlite3
from pathlib import Path

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

pytest.importorskip("sqlalchemy")


@pytest.fixture()
def warehouse_db(tmp_path: Path) -> str:
    path = tmp_path / "warehouse.db"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE bins (bin_id INTEGER PRIMARY KEY, aisle TEXT, capacity INTEGER);
        INSERT INTO bins VALUES (1, 'A', 40), (2, 'B', 25);
        """
    )
    con.commit()
    con.close()
    return f"sqlite:///{path}"


# titanic_sql_tools_run / salary_crew_sql_tools: an @tool function that takes no
# argument, wrapping ListSQLDatabaseTool, run as tool.run('') (and invoke('') as an agent
# passes an empty Action Input). LangChain's tool ignores the string; ragline's passed it
# to the function: TypeError "takes 0 positional arguments but 1 was given".
_ZERO_ARGUMENT_TOOL = """
from langchain_core.tools import tool
from langchain_community.tools import ListSQLDatabaseTool, QuerySQLDatabaseTool
from langchain_community.utilities import SQLDatabase

db = SQLDatabase.from_uri({uri!r})

@tool("bin_tables")
def bin_tables() -> str:
    \"\"\"Get all tables in the database\"\"\"
    return ListSQLDatabaseTool(db=db).invoke("")

@tool
async def pinged() -> str:
    \"\"\"Answer pong.\"\"\"
    return "pong"

print(bin_tables.run(""))
print(bin_tables.invoke("anything at all"))
print(bin_tables.run({{}}), bin_tables.args)
print(QuerySQLDatabaseTool(db=db).invoke(f"SELECT SUM(capacity) FROM {{bin_tables.run('')}}"))
import asyncio
print(asyncio.run(pinged.ainvoke("")), asyncio.run(pinged.arun("x")))
"""


def test_a_tool_without_arguments_ignores_a_string_input_as_langchains(
    warehouse_db: str,
) -> None:
    source = _ZERO_ARGUMENT_TOOL.format(uri=warehouse_db)
    langchain_printed = _printed(source)
    assert langchain_printed == "bins\nbins\nbins {}\n[(65,)]\npong pong\n"
    assert _printed(_ported(source)) == langchain_printed


# The other side of that rule: a function taking only **kwargs has no argument a string
# could fill; LangChain's tool refuses the string (a pydantic ValidationError: kwargs must
# be a dict), where ragline (after 56963e8) called it with nothing, dropping the input.
_KEYWORDS_ONLY_TOOL = """
from langchain_core.tools import tool

@tool
def record(**fields) -> str:
    \"\"\"Record the fields.\"\"\"
    return f"recorded {sorted(fields.items())}"

for text in ("city=Oslo", ""):
    try:
        print(record.invoke(text))
    except ValueError as err:
        print(type(err).__name__, isinstance(err, ValueError))
"""


def test_a_keywords_only_tool_refuses_a_string_input_as_langchains() -> None:
    langchain_printed = _printed(_KEYWORDS_ONLY_TOOL)
    assert langchain_printed == "ValidationError True\nValidationError True\n"
    assert _printed(_ported(_KEYWORDS_ONLY_TOOL)) == langchain_printed


# sqlcoder_schema_tool_override_agent: SQLDatabaseToolkit imported from
# langchain_community.agent_toolkits.sql.base (the module imports it from .toolkit and
# programs import it from there), a path the port table lacked, so the ported program kept
# LangChain's toolkit, which refused ragline's SQLDatabase and model.
_TOOLKIT_FROM_SQL_BASE = """
from langchain_community.agent_toolkits.sql.base import SQLDatabaseToolkit, create_sql_agent
from langchain_community.utilities import SQLDatabase
from langchain_core.language_models import FakeListLLM

db = SQLDatabase.from_uri({uri!r})
query = "SELECT aisle FROM bins WHERE capacity > 30"
steps = [f"Action: sql_db_query\\nAction Input: {{query}}", "Final Answer: aisle A"]
llm = FakeListLLM(responses=steps)
tools = [t for t in SQLDatabaseToolkit(db=db, llm=llm).get_tools() if t.name != "sql_db_schema"]
print([t.name for t in tools])
print(tools[0].invoke("SELECT COUNT(*) FROM bins"), tools[1].invoke(""))
agent = create_sql_agent(llm=llm, toolkit=SQLDatabaseToolkit(db=db, llm=llm))
print(agent.invoke({{"input": "which aisle is big?"}})["output"])
"""


def test_the_toolkit_ports_from_the_sql_base_module(warehouse_db: str) -> None:
    source = _TOOLKIT_FROM_SQL_BASE.format(uri=warehouse_db)
    ported = _ported(source)
    assert "from ragline.sql import SQLDatabaseToolkit, create_sql_agent\n" in ported
    langchain_printed = _printed(source)
    assert langchain_printed == (
        "['sql_db_query', 'sql_db_list_tables', 'sql_db_query_checker']\n[(2,)] bins\naisle A\n"
    )
    assert _printed(ported) == langchain_printed


# sqlcoder_schema_tool_override_agent: initialize_agent(tools=..., llm=...,
# agent_type=AgentType.ZERO_SHOT_REACT_DESCRIPTION, ...) (create_sql_agent's keyword, not
# initialize_agent's agent=). LangChain hands it to AgentExecutor, which drops it (the
# default agent type runs); ragline's executor raised TypeError. Now dropped with a warning.
_EXECUTOR_STRAY_KEYWORD = """
from langchain_classic.agents import AgentExecutor, AgentType, initialize_agent
from langchain_core.language_models import FakeListLLM
from langchain_core.tools import tool

@tool
def shout(text: str) -> str:
    \"\"\"Upper-case the text.\"\"\"
    return text.upper()

llm = FakeListLLM(responses=["Action: shout\\nAction Input: hi", "Final Answer: HI",
                             "Final Answer: done"])
agent = initialize_agent(tools=[shout], llm=llm, agent_type=AgentType.OPENAI_FUNCTIONS,
                         return_intermediate_steps=True, handle_parsing_errors=True)
result = agent.invoke({"input": "shout hi"})
print(type(agent.agent).__name__, result["output"], result["intermediate_steps"][0][1])
executor = AgentExecutor(agent=agent.agent, tools=[shout], verbose_level=2)
print(executor.invoke({"input": "again"})["output"], hasattr(executor, "verbose_level"))
"""


def test_the_executor_drops_a_stray_keyword_as_langchains_with_a_warning() -> None:
    ported = _ported(_EXECUTOR_STRAY_KEYWORD)
    langchain_printed = _printed(_EXECUTOR_STRAY_KEYWORD)
    assert langchain_printed == "ZeroShotAgent HI HI\ndone False\n"
    assert _printed(ported) == langchain_printed
    # ragline says what it dropped (LangChain is silent)
    from ragline.agents import initialize_agent
    from ragline.core import FakeListLLM
    from ragline.tools import Tool

    echo = Tool("echo", str, "Repeat the text.")
    with pytest.warns(UserWarning, match="agent_type"):
        initialize_agent([echo], FakeListLLM(responses=["x"]), agent_type="openai-functions")

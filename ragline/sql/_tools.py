"""The SQL tools an agent uses to look at a database and query it, and their toolkit.

Names and arguments are LangChain's (``sql_db_query``, ``sql_db_schema``,
``sql_db_list_tables``, ``sql_db_query_checker``); the descriptions a model reads are
ragline's own wording.
"""

from __future__ import annotations

from typing import Any

from ragline.chains import LLMChain
from ragline.core import BaseTool, InvalidInputError, PromptTemplate
from ragline.core.tools import ArgsSchema
from ragline.sql._database import SQLDatabase

__all__ = [
    "InfoSQLDatabaseTool",
    "ListSQLDatabaseTool",
    "QuerySQLCheckerTool",
    "QuerySQLDataBaseTool",
    "QuerySQLDatabaseTool",
    "SQLDatabaseToolkit",
]


def _one_string(schema_name: str, argument: str, description: str, **extra: Any) -> ArgsSchema:
    return ArgsSchema(
        name=schema_name,
        properties={argument: {"description": description, **extra}},
        required=[] if "default" in extra else [argument],
    )


class _SQLDatabaseTool(BaseTool):
    """A tool over one :class:`SQLDatabase` (the ``db`` field, checked when made)."""

    db: SQLDatabase

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.db, SQLDatabase):
            raise InvalidInputError(
                f"{type(self).__name__} needs db=SQLDatabase(...), got {type(self.db).__name__}"
            )


class QuerySQLDatabaseTool(_SQLDatabaseTool):
    """Runs the model's SQL query and returns the rows as text, or the error as text.

    Fields: ``db`` (the :class:`SQLDatabase`); a read-only database refuses statements
    other than queries, and the refusal is the tool's output, for the model to correct.
    """

    name: str = "sql_db_query"
    description: str = (
        "Runs one SQL query on the database and returns the rows it gives. A query that "
        "fails returns the error text instead: correct the query and call again."
    )
    args_schema: Any = _one_string(
        "_QuerySQLDatabaseToolInput", "query", "The SQL query to run.", type="string"
    )

    def _run(self, query: str) -> Any:
        return self.db.run_no_throw(query)


class QuerySQLDataBaseTool(QuerySQLDatabaseTool):
    """LangChain's older spelling of :class:`QuerySQLDatabaseTool`; the same tool."""


class InfoSQLDatabaseTool(_SQLDatabaseTool):
    """Returns the definitions and sample rows of the tables named, comma-separated."""

    name: str = "sql_db_schema"
    description: str = "Shows the columns and a few rows of the SQL tables named."
    args_schema: Any = _one_string(
        "_InfoSQLDatabaseToolInput",
        "table_names",
        "The tables to describe, separated by commas, as in 'albums, artists'.",
        type="string",
    )

    def _run(self, table_names: str) -> str:
        return self.db.get_table_info_no_throw([name.strip() for name in table_names.split(",")])


class ListSQLDatabaseTool(_SQLDatabaseTool):
    """Returns the database's usable table names, comma-separated."""

    name: str = "sql_db_list_tables"
    description: str = "Lists the database's tables, separated by commas. Takes an empty string."
    args_schema: Any = _one_string(
        "_ListSQLDatabaseToolInput",
        "tool_input",
        "Leave empty.",
        default="",
        type="string",
    )

    def _run(self, tool_input: str = "") -> str:
        return ", ".join(self.db.get_usable_table_names())


QUERY_CHECKER_TEMPLATE = """You are given a {dialect} query that has not run yet:

{query}

Read it against these checks: every table and column it names exists; each selected
column that is not aggregated is in the GROUP BY; NULL is tested with IS / IS NOT, never
with = or <>; text literals use single quotes; each JOIN has its ON condition; aggregates
are filtered in HAVING, not WHERE; a question about one row ends with a LIMIT.

Answer with the query, corrected where a check failed and unchanged otherwise, and with
nothing else.

The checked query: """


class QuerySQLCheckerTool(_SQLDatabaseTool):
    """Asks a model to check (and correct) a SQL query before it runs.

    Fields: ``db``, ``llm`` (any language model); ``template`` (the check's prompt,
    with ``{dialect}`` and ``{query}``); ``llm_chain``: the ``LLMChain`` that asks (made
    from ``llm`` and ``template`` unless given; its prompt's variables ``dialect`` and
    ``query``, as LangChain's).
    """

    llm: Any = None
    llm_chain: Any = None
    template: str = QUERY_CHECKER_TEMPLATE
    name: str = "sql_db_query_checker"
    description: str = (
        "Checks a SQL query for common mistakes and returns it corrected. Call it on a "
        "query before running it with sql_db_query."
    )
    args_schema: Any = _one_string(
        "_QuerySQLCheckerToolInput", "query", "The SQL query to check.", type="string"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.llm_chain is None:
            if self.llm is None:
                raise InvalidInputError("QuerySQLCheckerTool needs llm= (or llm_chain=)")
            prompt = PromptTemplate(template=self.template, input_variables=["dialect", "query"])
            self.llm_chain = LLMChain(llm=self.llm, prompt=prompt)
        prompt = getattr(self.llm_chain, "prompt", None)
        variables = list(getattr(prompt, "input_variables", []))
        if variables != ["dialect", "query"]:
            raise InvalidInputError(
                "QuerySQLCheckerTool's llm_chain must take the input variables 'dialect' and "
                f"'query', got {variables}"
            )

    def _run(self, query: str) -> str:
        return str(self.llm_chain.predict(query=query, dialect=self.db.dialect))

    async def _arun(self, query: str) -> str:
        return str(await self.llm_chain.apredict(query=query, dialect=self.db.dialect))


class SQLDatabaseToolkit:
    """The four SQL tools over one database, for an agent.

    Args:
        db: the :class:`SQLDatabase`.
        llm: the model :class:`QuerySQLCheckerTool` asks.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> db = SQLDatabase.from_uri("sqlite://")
        >>> toolkit = SQLDatabaseToolkit(db=db, llm=FakeListChatModel(responses=["ok"]))
        >>> [t.name for t in toolkit.get_tools()]
        ['sql_db_query', 'sql_db_schema', 'sql_db_list_tables', 'sql_db_query_checker']
    """

    def __init__(self, *, db: SQLDatabase, llm: Any) -> None:
        if not isinstance(db, SQLDatabase):
            raise InvalidInputError(
                f"SQLDatabaseToolkit needs db=SQLDatabase(...), got {type(db).__name__}"
            )
        self.db = db
        self.llm = llm

    def __repr__(self) -> str:
        return f"SQLDatabaseToolkit(dialect={self.dialect!r})"

    @property
    def dialect(self) -> str:
        """The database's dialect name."""
        return self.db.dialect

    def get_tools(self) -> list[BaseTool]:
        """The query, schema, list-tables and query-checker tools, in that order."""
        listing = ListSQLDatabaseTool(db=self.db)
        info = InfoSQLDatabaseTool(
            db=self.db,
            description=(
                "Takes table names separated by commas ('albums, artists') and returns "
                "each table's columns and a few of its rows. Call "
                f"{listing.name} first to learn which tables exist."
            ),
        )
        query = QuerySQLDatabaseTool(
            db=self.db,
            description=(
                "Takes one SQL query and returns the rows it gives. A query that fails "
                "returns the error text: correct the query and call again. For an unknown "
                f"column, call {info.name} to see the table's columns."
            ),
        )
        checker = QuerySQLCheckerTool(
            db=self.db,
            llm=self.llm,
            description=(
                "Checks a SQL query for common mistakes and returns it corrected. Call it "
                f"on every query before running it with {query.name}."
            ),
        )
        return [query, info, listing, checker]

    def get_context(self) -> dict[str, Any]:
        """The database's :meth:`SQLDatabase.get_context`."""
        return self.db.get_context()

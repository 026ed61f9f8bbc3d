"""``create_sql_query_chain``: a question in, the SQL query a model writes for it out.

The chain fills a prompt with the database's table info, the question (followed by
``"\\nSQLQuery: "``, where the model starts writing) and the row limit ``top_k``; stops
the model at ``"\\nSQLResult:"``; and returns its text with surrounding whitespace
removed, nothing else taken off. It does not run the query (``SQLDatabase.run`` or
``QuerySQLDatabaseTool`` does). The default prompts are ragline's own wording, with
LangChain's input variables.
"""

from __future__ import annotations

from typing import Any

from ragline.core import (
    BasePromptTemplate,
    InvalidInputError,
    PromptTemplate,
    Runnable,
    RunnablePassthrough,
    StrOutputParser,
)
from ragline.sql._database import _COMMENT_DIALECTS, SQLDatabase

__all__ = ["SQL_PROMPTS", "SQL_QUERY_PROMPT", "create_sql_query_chain"]

_TEMPLATE = """You write {dialect} queries. Read the question, write one query that answers it, \
then read the query's result and answer the question from it.

Unless the question asks for a number of results, ask for at most {top_k} rows (with \
{limit_clause}). Select only the columns the question needs, never every column; put each \
column name in {quote} quotes. Use only the tables and columns listed below, each column \
with its own table.{today}

Write exactly these four labelled lines:

Question: the question
SQLQuery: the query to run
SQLResult: the query's result
Answer: the answer

The tables:
{table_info}

Question: {input}"""

# (name shown, limit clause, identifier quote, today's date function) per dialect
_DIALECTS = {
    "sqlite": ("SQLite", "LIMIT", "double", "date('now')"),
    "postgresql": ("PostgreSQL", "LIMIT", "double", "CURRENT_DATE"),
    "mysql": ("MySQL", "LIMIT", "backtick", "CURDATE()"),
    "mariadb": ("MariaDB", "LIMIT", "backtick", "CURDATE()"),
    "duckdb": ("DuckDB", "LIMIT", "double", "today()"),
    "mssql": ("MS SQL", "TOP", "square-bracket", "CAST(GETDATE() as date)"),
    "oracle": ("Oracle SQL", "FETCH FIRST n ROWS ONLY", "double", "TRUNC(SYSDATE)"),
    "clickhouse": ("ClickHouse", "LIMIT", "double", "today()"),
    "prestodb": ("PrestoDB", "LIMIT", "double", "current_date"),
    "crate": ("CrateDB", "LIMIT", "double", "CURRENT_DATE"),
    "googlesql": ("GoogleSQL", "LIMIT", "backtick", "CURRENT_DATE()"),
}


def _dialect_prompt(name: str, limit: str, quote: str, today: str) -> PromptTemplate:
    text = (
        _TEMPLATE.replace("{dialect}", name)
        .replace("{limit_clause}", limit)
        .replace("{quote}", quote)
        .replace("{today}", f" For today's date, use {today}.")
    )
    return PromptTemplate.from_template(text)


#: The default prompt of a dialect not in :data:`SQL_PROMPTS` (its ``dialect`` variable
#: is filled with the database's dialect name).
SQL_QUERY_PROMPT = PromptTemplate.from_template(
    _TEMPLATE.replace("{limit_clause}", "the dialect's row limit")
    .replace("{quote}", "the dialect's identifier")
    .replace("{today}", "")
)
#: The default prompt per dialect name (input variables ``input``, ``table_info``, ``top_k``).
SQL_PROMPTS = {dialect: _dialect_prompt(*parts) for dialect, parts in _DIALECTS.items()}

_NEEDED = ("input", "top_k", "table_info")
_STOP = ["\nSQLResult:"]
_INPUT_KEYS = ("question", "table_names_to_use")


def create_sql_query_chain(
    llm: Any,
    db: SQLDatabase,
    prompt: BasePromptTemplate | None = None,
    k: int = 5,
    *,
    get_col_comments: bool | None = None,
) -> Runnable[dict[str, Any], str]:
    """A chain from ``{"question": ...}`` to the SQL query the model writes for it.

    Args:
        llm: the chat model or LLM that writes the query.
        db: the :class:`SQLDatabase` whose tables the prompt shows.
        prompt: a prompt with the variables ``input``, ``top_k`` and ``table_info`` (and
            ``dialect``, filled with ``db.dialect``); default: ragline's prompt for the
            database's dialect.
        k: ``top_k``: the most rows a query should ask for, unless the question says.
        get_col_comments: show the columns' comments (PostgreSQL, MySQL, Oracle only).

    The chain's input: ``question``; optionally ``table_names_to_use`` (the only tables
    shown); any other key goes to the prompt as it is.

    Raises:
        InvalidInputError: the prompt lacks one of the variables, or column comments are
            asked of another dialect (a ``ValueError``, as LangChain's).

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> db = SQLDatabase.from_uri("sqlite://")
        >>> model = FakeListChatModel(responses=["  SELECT 1\\n"])
        >>> create_sql_query_chain(model, db).invoke({"question": "one?"})
        'SELECT 1'
    """
    if prompt is None:
        prompt = SQL_PROMPTS.get(db.dialect, SQL_QUERY_PROMPT)
    given = set(prompt.input_variables) | set(prompt.partial_variables)
    missing = [name for name in _NEEDED if name not in given]
    if missing:
        raise InvalidInputError(
            f"create_sql_query_chain's prompt must have the input variables 'input', 'top_k' "
            f"and 'table_info'; it lacks {missing} (it has {list(prompt.input_variables)}). "
            f"The prompt:\n\n{prompt}"
        )
    if "dialect" in prompt.input_variables:
        prompt = prompt.partial(dialect=db.dialect)
    table_options: dict[str, Any] = {}
    if get_col_comments:
        if db.dialect not in _COMMENT_DIALECTS:
            raise InvalidInputError(
                "get_col_comments=True is only supported for dialects 'postgresql', 'mysql', "
                f"and 'oracle'. Received dialect: {db.dialect}"
            )
        table_options["get_col_comments"] = True

    # Lambdas and a function named _strip, so the steps' run names (callbacks, events,
    # traces, the drawn graph) are LangChain's: RunnableLambda / Lambda, and _strip.
    return (
        RunnablePassthrough.assign(
            input=lambda x: str(x["question"]) + "\nSQLQuery: ",
            table_info=lambda x: db.get_table_info(
                table_names=x.get("table_names_to_use"), **table_options
            ),
        )
        | (lambda x: {key: value for key, value in x.items() if key not in _INPUT_KEYS})
        | prompt.partial(top_k=str(k))
        | llm.bind(stop=_STOP)
        | StrOutputParser()
        | _strip
    )


def _strip(text: str) -> str:
    return text.strip()

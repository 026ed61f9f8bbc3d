"""ragline.sql: a SQL database for models and agents (extra ``sql``: SQLAlchemy).

LangChain's names: ``SQLDatabase`` (table definitions with sample rows, query results
as text; ragline adds ``read_only=True``), ``create_sql_query_chain`` (a question to
the query a model writes), the agent tools ``QuerySQLDatabaseTool`` (also
``QuerySQLDataBaseTool``), ``InfoSQLDatabaseTool``, ``ListSQLDatabaseTool``,
``QuerySQLCheckerTool``, ``SQLDatabaseToolkit`` and ``create_sql_agent`` (an
``AgentExecutor`` over the toolkit).
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "SQLDatabase": "._database",
    "SQLReadOnlyError": "._database",
    "SQL_AGENT_PREFIX": "._agent",
    "SQL_AGENT_SUFFIX": "._agent",
    "SQL_AGENT_TOOLS_SUFFIX": "._agent",
    "create_sql_agent": "._agent",
    "SQL_PROMPTS": "._chain",
    "SQL_QUERY_PROMPT": "._chain",
    "create_sql_query_chain": "._chain",
    "InfoSQLDatabaseTool": "._tools",
    "ListSQLDatabaseTool": "._tools",
    "QuerySQLCheckerTool": "._tools",
    "QuerySQLDataBaseTool": "._tools",
    "QuerySQLDatabaseTool": "._tools",
    "SQLDatabaseToolkit": "._tools",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)

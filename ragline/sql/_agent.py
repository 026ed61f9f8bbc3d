"""``create_sql_agent``: an ``AgentExecutor`` that answers questions from a database with
the :class:`SQLDatabaseToolkit`'s tools.

LangChain's agent types and arguments; the prompts (the prefix with ``{dialect}`` and
``{top_k}``, the suffixes) are ragline's own wording. Give the agent a
``SQLDatabase(..., read_only=True)`` unless it may change the data: the prompt asks the
model not to write, the read-only database makes sure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.agents import (
    FORMAT_INSTRUCTIONS,
    AgentExecutor,
    AgentType,
    RunnableAgent,
    RunnableMultiActionAgent,
    create_openai_functions_agent,
    create_react_agent,
    create_tool_calling_agent,
)
from ragline.core import (
    AIMessage,
    BasePromptTemplate,
    ChatPromptTemplate,
    HumanMessagePromptTemplate,
    InvalidInputError,
    MessagesPlaceholder,
    PromptTemplate,
    SystemMessage,
)
from ragline.sql._database import SQLDatabase
from ragline.sql._tools import InfoSQLDatabaseTool, ListSQLDatabaseTool, SQLDatabaseToolkit

__all__ = ["SQL_AGENT_PREFIX", "SQL_AGENT_SUFFIX", "SQL_AGENT_TOOLS_SUFFIX", "create_sql_agent"]

SQL_AGENT_PREFIX = """You answer questions from a {dialect} database with the tools below.

For a question, write one correct {dialect} query, run it, read what it returns and \
answer from that. Unless the question asks for a number of results, ask for at most \
{top_k} rows, ordered by a column that brings the most telling rows first. Select only \
the columns the question needs.

Look at the database before querying it: list its tables, then read the schema of the \
ones the question concerns. Check a query with the checker tool before running it; when \
a query fails, read the error, correct the query and run it again.

Only read: never write a statement that changes the database (INSERT, UPDATE, DELETE, \
DROP, ALTER, CREATE ...). If the database cannot answer the question, say so."""

SQL_AGENT_SUFFIX = """Begin!

Question: {input}
Thought: First I will list the tables, then read the schema of the ones that matter.
{agent_scratchpad}"""

SQL_AGENT_TOOLS_SUFFIX = (
    "First I will list the database's tables, then read the schema of the ones that matter."
)

_TYPES = ("tool-calling", "openai-tools", "openai-functions", "zero-shot-react-description")


def create_sql_agent(
    llm: Any,
    toolkit: SQLDatabaseToolkit | None = None,
    agent_type: Any = None,
    callback_manager: Any = None,
    prefix: str | None = None,
    suffix: str | None = None,
    format_instructions: str | None = None,
    input_variables: list[str] | None = None,
    top_k: int = 10,
    max_iterations: int | None = 15,
    max_execution_time: float | None = None,
    early_stopping_method: str = "force",
    verbose: bool = False,
    agent_executor_kwargs: dict[str, Any] | None = None,
    extra_tools: Sequence[Any] = (),
    *,
    db: SQLDatabase | None = None,
    prompt: BasePromptTemplate | None = None,
    **agent_options: Any,
) -> AgentExecutor:
    """An ``AgentExecutor`` named ``"SQL Agent Executor"`` over the toolkit's tools.

    Args:
        llm: the model that drives the agent (it must call tools for the tool-calling
            types).
        toolkit: the :class:`SQLDatabaseToolkit`; or give ``db`` (exactly one of them).
        agent_type: ``"tool-calling"``, ``"openai-tools"``, ``"openai-functions"`` or
            ``"zero-shot-react-description"`` (the default), or an ``AgentType``.
        callback_manager: callbacks of the executor (LangChain's deprecated spelling of
            ``agent_executor_kwargs={"callbacks": ...}``).
        prefix: the prompt's opening, with ``{dialect}`` and ``{top_k}``.
        suffix: its ending (ReAct: with ``{input}`` and ``{agent_scratchpad}``; the
            tool-calling types: the model's first message).
        format_instructions: the ReAct format (ReAct only).
        input_variables: ignored (deprecated in LangChain too).
        top_k: the rows a query asks for at most, unless the question says.
        max_iterations, max_execution_time, early_stopping_method, verbose: the
            executor's.
        agent_executor_kwargs: more of the executor's keyword arguments.
        extra_tools: tools added after the toolkit's.
        db: a :class:`SQLDatabase`, for a toolkit made with ``llm``.
        prompt: the whole prompt instead of prefix and suffix; its ``top_k``, ``dialect``,
            ``table_info`` and ``table_names`` variables are filled now (with
            ``table_info`` the schema tool is left out, with ``table_names`` the
            list-tables tool).
        **agent_options: keyword arguments of the agent object (``RunnableAgent``).

    Raises:
        InvalidInputError: neither or both of ``toolkit`` and ``db``, or an unknown
            ``agent_type`` (a ``ValueError``, as LangChain's).
    """
    del input_variables  # accepted for LangChain's signature; unused there too
    if toolkit is None and db is None:
        raise InvalidInputError("Must provide exactly one of 'toolkit' or 'db'. Received neither.")
    if toolkit is not None and db is not None:
        raise InvalidInputError("Must provide exactly one of 'toolkit' or 'db'. Received both.")
    if toolkit is None:
        assert db is not None
        toolkit = SQLDatabaseToolkit(db=db, llm=llm)
    if agent_type is None:
        agent_type = AgentType.ZERO_SHOT_REACT_DESCRIPTION
    kind = str(getattr(agent_type, "value", agent_type))
    if kind not in _TYPES:
        raise InvalidInputError(
            f"Agent type {agent_type} not supported at the moment. Must be one of "
            "'tool-calling', 'openai-tools', 'openai-functions', or "
            "'zero-shot-react-description'."
        )
    tools = [*toolkit.get_tools(), *extra_tools]
    opening = prefix if prefix is not None else SQL_AGENT_PREFIX
    if prompt is None:
        opening = opening.format(dialect=toolkit.dialect, top_k=top_k)
    else:
        prompt, tools = _fill(prompt, tools, toolkit, top_k)

    if kind == "zero-shot-react-description":
        if prompt is None:
            template = "\n\n".join(
                [
                    opening,
                    "{tools}",
                    format_instructions or FORMAT_INSTRUCTIONS,
                    suffix or SQL_AGENT_SUFFIX,
                ]
            )
            prompt = PromptTemplate.from_template(template)
        agent: Any = RunnableAgent(
            runnable=create_react_agent(llm, tools, prompt),
            input_keys_arg=["input"],
            return_keys_arg=["output"],
            **agent_options,
        )
    else:
        if prompt is None:
            prompt = ChatPromptTemplate.from_messages(
                [
                    SystemMessage(content=opening),
                    HumanMessagePromptTemplate.from_template("{input}"),
                    AIMessage(content=suffix or SQL_AGENT_TOOLS_SUFFIX),
                    MessagesPlaceholder(variable_name="agent_scratchpad"),
                ]
            )
        if kind == "openai-functions":
            agent = RunnableAgent(
                runnable=create_openai_functions_agent(llm, tools, prompt),
                input_keys_arg=["input"],
                return_keys_arg=["output"],
                **agent_options,
            )
        else:
            agent = RunnableMultiActionAgent(
                runnable=create_tool_calling_agent(llm, tools, prompt),
                input_keys_arg=["input"],
                return_keys_arg=["output"],
                **agent_options,
            )
    options = dict(agent_executor_kwargs or {})
    if callback_manager is not None:
        options.setdefault("callbacks", callback_manager)
    return AgentExecutor(
        name="SQL Agent Executor",
        agent=agent,
        tools=tools,
        verbose=verbose,
        max_iterations=max_iterations,
        max_execution_time=max_execution_time,
        early_stopping_method=early_stopping_method,
        **options,
    )


def _fill(
    prompt: BasePromptTemplate, tools: list[Any], toolkit: SQLDatabaseToolkit, top_k: int
) -> tuple[BasePromptTemplate, list[Any]]:
    """A whole prompt given: its database variables filled now, and the tools it makes
    unneeded left out."""
    variables = prompt.input_variables
    if "top_k" in variables:
        prompt = prompt.partial(top_k=str(top_k))
    if "dialect" in variables:
        prompt = prompt.partial(dialect=toolkit.dialect)
    if "table_info" in variables or "table_names" in variables:
        context = toolkit.get_context()
        if "table_info" in variables:
            prompt = prompt.partial(table_info=context["table_info"])
            tools = [t for t in tools if not isinstance(t, InfoSQLDatabaseTool)]
        if "table_names" in variables:
            prompt = prompt.partial(table_names=context["table_names"])
            tools = [t for t in tools if not isinstance(t, ListSQLDatabaseTool)]
    return prompt, tools

"""The seeds' tool snippets, run with only their imports changed.

Seeds (../shared/seeds/): 004 "Agent" (WeatherTool, CustomCalculatorTool), 000 §4.3.1
(DuckDuckGoSearchRun with its API wrapper) and §4.3.2 (SQLDatabaseQueryTool), 003
(``@tool`` add/multiply, pydantic Add/Multiply bound to a chat model, tool calls answered
with ToolMessages; single- and multi-argument ``search`` tools). Where a seed calls an
outside service (DuckDuckGo, a SQL database, OpenAI), the test supplies a local stand-in:
a wrapper with fixed results, a real SQLite file, the local OpenAI-protocol server.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Dict, List, Optional  # noqa: UP035 - the seeds' own spelling

import pytest
from _openai_server import CHAT_PATH, Reply, chat_completion
from pydantic import BaseModel, Field

from ragline.chat_models import ChatOpenAI
from ragline.core import RunCollectorCallbackHandler, ToolMessage
from ragline.core.callbacks import BaseCallbackHandler, CallbackManagerForToolRun
from ragline.tools import BaseTool, tool

# ------------------------------------------------------------------ seed 004, "Agent"


# 天气查询工具 ，无论查询什么都返回Sunny
class WeatherTool(BaseTool):
    name = "Weather"
    description = "useful for When you want to know about the weather"

    def _run(self, query: str) -> str:
        return "Sunny^_^"

    async def _arun(self, query: str) -> str:
        """Use the tool asynchronously."""
        raise NotImplementedError("BingSearchRun does not support async")


# 计算工具，暂且写死返回3
class CustomCalculatorTool(BaseTool):
    name = "Calculator"
    description = "useful for when you need to answer questions about math."

    def _run(self, query: str) -> str:
        return "3"

    async def _arun(self, query: str) -> str:
        raise NotImplementedError("BingSearchRun does not support async")


def test_seed_004_tools_answer_whatever_they_are_asked():
    tools = [WeatherTool(), CustomCalculatorTool()]
    assert [t.name for t in tools] == ["Weather", "Calculator"]
    assert tools[0].run("This week") == "Sunny^_^"
    assert tools[1].run("28 + 10") == "3"
    assert tools[0].args == {"query": {"title": "Query", "type": "string"}}


async def test_seed_004_tools_refuse_async_as_written():
    with pytest.raises(NotImplementedError, match="BingSearchRun does not support async"):
        await WeatherTool().arun("This week")


# ------------------------------------------------------------------ seed 000, §4.3.1


class DuckDuckGoSearchAPIWrapper(BaseModel):
    """DuckDuckGo API 封装"""

    region: str = "wt-wt"
    safesearch: str = "moderate"
    time: Optional[str] = None  # noqa: UP045
    max_results: int = 5

    def run(self, query: str) -> str:
        """执行搜索并格式化结果"""
        results = self._ddgs_search(query)

        if not results:
            return "No search results found."

        # 格式化输出
        formatted_results = []
        for result in results[: self.max_results]:
            formatted_results.append(
                f"Title: {result.get('title', 'N/A')}\n"
                f"Link: {result.get('href', 'N/A')}\n"
                f"Snippet: {result.get('body', 'N/A')}\n"
            )

        return "\n".join(formatted_results)

    def _ddgs_search(self, query: str) -> List[Dict[str, Any]]:  # noqa: UP006
        """实际的搜索实现"""
        # 调用 DuckDuckGo API
        pass


class DuckDuckGoSearchRun(BaseTool):
    """DuckDuckGo 搜索工具"""

    name = "duckduckgo_search"
    description = (
        "A wrapper around DuckDuckGo Search. Useful for when you need to answer questions "
        "about current events."
    )

    api_wrapper: DuckDuckGoSearchAPIWrapper = Field(default_factory=DuckDuckGoSearchAPIWrapper)

    def _run(self, query: str, run_manager: Optional[CallbackManagerForToolRun] = None) -> str:  # noqa: UP045
        """执行搜索"""
        try:
            # 调用搜索 API
            results = self.api_wrapper.run(query)

            # 记录搜索过程
            if run_manager:
                run_manager.on_text(f"Searching for: {query}", verbose=True)

            return results

        except Exception as e:
            # 错误处理
            error_msg = f"Search failed: {str(e)}"  # noqa: RUF010
            if run_manager:
                run_manager.on_text(error_msg, color="red")
            return error_msg


class OfflineSearch(DuckDuckGoSearchAPIWrapper):
    """The seed leaves the HTTP call out (``pass``); fixed results stand in for it."""

    def _ddgs_search(self, query: str) -> List[Dict[str, Any]]:  # noqa: UP006
        if query == "boom":
            raise ConnectionError("no network")
        return [{"title": f"About {query}", "href": "https://example.org", "body": "Text."}]


def test_seed_000_search_tool_formats_results_and_reports_its_steps():
    collector, texts = RunCollectorCallbackHandler(), []

    class Texts(BaseCallbackHandler):  # a run record keeps no text, as LangChain's
        def on_text(self, text: str, **kwargs: Any) -> None:
            texts.append(text)

    handlers = [collector, Texts()]
    search = DuckDuckGoSearchRun(api_wrapper=OfflineSearch(max_results=1))
    assert search.run("ragline", callbacks=handlers) == (
        "Title: About ragline\nLink: https://example.org\nSnippet: Text.\n"
    )
    assert search.run("boom", callbacks=handlers) == "Search failed: no network"
    assert texts == ["Searching for: ragline", "Search failed: no network"]
    assert [run.name for run in collector.traced_runs] == ["duckduckgo_search"] * 2
    assert DuckDuckGoSearchRun().run("anything") == "No search results found."
    assert search.args == {"query": {"title": "Query", "type": "string"}}


# ------------------------------------------------------------------ seed 000, §4.3.2


class SQLDatabase:
    """A stand-in for the SQLDatabase the seed uses: ``run(query)`` on a real SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, query: str) -> str:
        with sqlite3.connect(self.path) as connection:
            return str(connection.execute(query).fetchall())


class SQLDatabaseQueryTool(BaseTool):
    """SQL 数据库查询工具"""

    name = "sql_db_query"
    description = "Execute a SQL query against the database and get back the result."

    db: SQLDatabase = Field(exclude=True)

    class Config:
        arbitrary_types_allowed = True

    def _run(self, query: str, run_manager: Optional[CallbackManagerForToolRun] = None) -> str:  # noqa: UP045
        """执行 SQL 查询"""

        # 1. 查询验证
        if not self._is_safe_query(query):
            return "Error: Query contains potentially dangerous operations"

        # 2. 记录查询
        if run_manager:
            run_manager.on_text(f"Executing SQL: {query}", verbose=True)

        try:
            # 3. 执行查询
            result = self.db.run(query)

            # 4. 结果处理
            if run_manager:
                run_manager.on_text(f"Query result: {result}", verbose=True)

            return result

        except Exception as e:
            error_msg = f"SQL execution failed: {str(e)}"  # noqa: RUF010
            if run_manager:
                run_manager.on_text(error_msg, color="red")
            return error_msg

    def _is_safe_query(self, query: str) -> bool:
        """查询安全检查"""
        query_upper = query.upper().strip()

        # 禁止的操作
        dangerous_keywords = [
            "DROP", "DELETE", "UPDATE", "INSERT",
            "ALTER", "CREATE", "TRUNCATE", "REPLACE"
        ]  # fmt: skip

        for keyword in dangerous_keywords:  # noqa: SIM110 - the seed's own loop
            if keyword in query_upper:
                return False

        return True


def test_seed_000_sql_tool_runs_safe_queries_on_a_real_database(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE fruit (name TEXT, price REAL)")
        connection.executemany("INSERT INTO fruit VALUES (?, ?)", [("apple", 0.5), ("fig", 2.0)])
    sql = SQLDatabaseQueryTool(db=SQLDatabase(path))
    assert sql.run("SELECT name FROM fruit WHERE price > 1") == "[('fig',)]"
    assert sql.run("DROP TABLE fruit") == "Error: Query contains potentially dangerous operations"
    assert sql.run("SELECT nope FROM fruit") == "SQL execution failed: no such column: nope"
    assert sql.run("SELECT count(*) FROM fruit") == "[(2,)]"  # the table is still there
    with pytest.raises(TypeError, match="missing required field 'db'"):
        SQLDatabaseQueryTool()


# ------------------------------------------------------------------ seed 003, tool calls


@tool
def add(a: int, b: int) -> int:
    """Adds a and b."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiplies a and b."""
    return a * b


# Note that the docstrings here are crucial, as they will be passed along
# to the model along with the class name.
class Add(BaseModel):
    """Add two integers together."""

    a: int = Field(..., description="First integer")
    b: int = Field(..., description="Second integer")


class Multiply(BaseModel):
    """Multiply two integers together."""

    a: int = Field(..., description="First integer")
    b: int = Field(..., description="Second integer")


@pytest.mark.network
@pytest.mark.parametrize("bound", ["functions", "pydantic"])
def test_seed_003_bound_tools_answer_the_models_tool_calls(openai_server, bound):
    call_id = "call_20240715163333eab6ec8917a24963a9de8bac85ff5580"
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion(
        "", finish_reason="tool_calls",
        tool_calls=[{"id": call_id, "name": "Multiply", "arguments": '{"a":3,"b":12}'}],
    )))  # fmt: skip
    llm = ChatOpenAI(base_url=openai_server.base_url, api_key="sk-test")
    tools = [add, multiply] if bound == "functions" else [Add, Multiply]

    llm_with_tools = llm.bind_tools(tools)

    query = "What is 3 * 12?"

    message = llm_with_tools.invoke(query)  # message: AIMessage

    tool_results = []
    for tool_call in message.tool_calls:
        selected_tool = {"add": add, "multiply": multiply}[tool_call["name"].lower()]
        tool_output = selected_tool.invoke(tool_call["args"])
        tool_results.append(ToolMessage(tool_output, tool_call_id=tool_call["id"]))

    assert message.tool_calls == [
        {"name": "Multiply", "args": {"a": 3, "b": 12}, "id": call_id, "type": "tool_call"}
    ]
    assert tool_results == [ToolMessage(36, tool_call_id=call_id)]  # type: ignore[arg-type]
    sent = openai_server.requests_to(CHAT_PATH)[0].body["tools"]
    names = [spec["function"]["name"] for spec in sent]
    assert names == (["add", "multiply"] if bound == "functions" else ["Add", "Multiply"])
    described = sent[1]["function"]
    if bound == "pydantic":
        assert described["description"] == "Multiply two integers together."
        assert described["parameters"]["properties"]["a"] == {
            "description": "First integer",
            "type": "integer",
        }
    else:
        assert described["description"] == "Multiplies a and b."
    # the tool message goes back to the model on the next turn
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion("3 * 12 = 36")))
    answer = llm_with_tools.invoke([("human", query), message, *tool_results])
    assert answer.content == "3 * 12 = 36"
    history = openai_server.requests_to(CHAT_PATH)[1].body["messages"]
    assert history[1]["tool_calls"][0]["function"] == {
        "name": "Multiply",
        "arguments": json.dumps({"a": 3, "b": 12}),
    }
    assert history[2] == {"role": "tool", "tool_call_id": call_id, "content": "36"}


def test_seed_003_structured_and_single_input_tools():
    # 可适用于 structured_chat
    @tool
    def search(q: str, p: str) -> str:
        """Look up things online."""
        return q + p

    assert search.run(tool_input={"q": "1", "p": "2"}) == "12"

    # 既可适用于 structured_chat, 又可适用于 ReAct
    @tool
    def search(q: str) -> str:
        """Look up things online."""
        return q

    assert search.run(tool_input="1") == "1"
    assert search.run(tool_input={"q": "1"}) == "1"

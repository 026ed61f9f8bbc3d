"""``load_mcp_tools``: a ragline MCP server's tools (over stdio and over HTTP) used as
ragline tools, directly and by a tool-calling agent."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from ragline.agents import AgentExecutor, create_tool_calling_agent
from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    FakeMessagesListChatModel,
    InvalidInputError,
    MessagesPlaceholder,
    ToolException,
)
from ragline.serve import BackgroundServer, create_store_app
from ragline.tools import MCPTools, load_mcp_tools

pytestmark = pytest.mark.network

KEY = "tools-test-key"
FILES = {
    "ops.md": "# Operations\n\nRotate the logs every night so the disk never fills up.\n",
    "dogs.txt": "Dogs bark at strangers and love long walks in the park.\n",
}
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from the documents."), ("human", "{input}"),
     MessagesPlaceholder("agent_scratchpad")]
)  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ragline.store_folder import index_paths

    root = tmp_path_factory.mktemp("mcp-tools")
    (root / "corpus").mkdir()
    for name, text in FILES.items():
        (root / "corpus" / name).write_text(text, encoding="utf-8")
    index_paths([root / "corpus"], root / "store", embedding="hashing")
    return root / "store"


@pytest.fixture(scope="module")
def server(store: Path) -> Iterator[BackgroundServer]:
    with BackgroundServer(create_store_app(store, mcp=True, api_key=KEY)) as running:
        yield running


def command(store: Path) -> list[str]:
    return [sys.executable, "-m", "ragline.cli", "mcp", "--store", str(store), "-q"]


@pytest.fixture(params=["stdio", "http"])
def tools(request: pytest.FixtureRequest, store: Path) -> Iterator[MCPTools]:
    if request.param == "stdio":
        loaded = load_mcp_tools(command(store))
    else:
        url = request.getfixturevalue("server").url + "/mcp"
        loaded = load_mcp_tools(url, headers={"X-API-Key": KEY})
    with loaded:
        yield loaded


def by_name(tools: MCPTools) -> dict[str, Any]:
    return {tool.name: tool for tool in tools}


def test_the_servers_tools_come_with_their_descriptions_and_arguments(tools: MCPTools) -> None:
    named = by_name(tools)
    assert list(named) == ["search", "get_passage", "list_sources"]
    assert list(named["search"].args) == ["query", "k", "search_type", "filter", "source"]
    assert named["search"].description.startswith("Find the passages of the indexed documents")
    assert named["get_passage"].args["neighbors"]["maximum"] == 5


async def test_sync_and_async_calls_give_the_servers_answer(tools: MCPTools) -> None:
    search = by_name(tools)["search"]
    sync = json.loads(search.invoke({"query": "rotate the logs", "k": 1}))
    asynchronous = json.loads(await search.ainvoke({"query": "rotate the logs", "k": 1}))
    assert sync == asynchronous
    (passage,) = sync["passages"]
    assert (passage["source"], passage["section"]) == ("ops.md", "Operations")
    assert passage["text"] == FILES["ops.md"].strip()


def test_a_failed_call_is_a_tool_exception_or_the_models_observation(
    tools: MCPTools, store: Path
) -> None:
    message = (
        "no passage has the id 'f00'; ids come from search (or ask) results of this store, "
        "and change when a file is re-indexed"
    )
    assert by_name(tools)["get_passage"].invoke({"id": "f00"}) == message
    with load_mcp_tools(command(store), handle_tool_error=False,
                        tool_names=["get_passage"]) as strict:  # fmt: skip
        assert [tool.name for tool in strict] == ["get_passage"]
        with pytest.raises(ToolException, match=r"^no passage has the id 'f00'"):
            strict[0].invoke({"id": "f00"})


def script(passage_id: str) -> list[AIMessage]:
    return [
        AIMessage("", tool_calls=[{"name": "search", "args": {"query": "rotate the logs",
                                                              "k": 1}, "id": "c1"}]),
        AIMessage("", tool_calls=[{"name": "get_passage", "args": {"id": passage_id},
                                   "id": "c2"}]),
        AIMessage("Rotate them every night."),
    ]  # fmt: skip


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
async def test_an_agent_searches_and_reads_through_the_mcp_tools(
    tools: MCPTools, mode: str
) -> None:
    found = json.loads(by_name(tools)["search"].invoke({"query": "rotate the logs", "k": 1}))
    passage_id = found["passages"][0]["id"]
    model = FakeMessagesListChatModel(responses=script(passage_id))
    agent = create_tool_calling_agent(model, list(tools), PROMPT)
    executor = AgentExecutor(agent=agent, tools=list(tools), return_intermediate_steps=True)
    question = {"input": "How often are the logs rotated?"}
    if mode == "invoke":
        result = executor.invoke(question)
    else:
        result = await executor.ainvoke(question)
    assert result["output"] == "Rotate them every night."
    steps = result["intermediate_steps"]
    assert [(action.tool, action.tool_input) for action, _ in steps] == [
        ("search", {"query": "rotate the logs", "k": 1}),
        ("get_passage", {"id": passage_id}),
    ]
    assert json.loads(steps[0][1]) == found
    read = json.loads(steps[1][1])
    assert [(p["id"], p["source"], p["text"]) for p in read["passages"]] == [
        (passage_id, "ops.md", FILES["ops.md"].strip())
    ]


def test_closed_tools_say_so(store: Path) -> None:
    loaded = load_mcp_tools(command(store), handle_tool_error=False)
    loaded.close()
    with pytest.raises(ToolException, match=r"^the MCP connection is closed"):
        loaded[0].invoke({"query": "dogs"})


@pytest.mark.parametrize(
    ("server", "options", "error", "message"),
    [
        ([], {}, InvalidInputError, "an MCP server is an http(s) URL or a command"),
        ("http://127.0.0.1:1/mcp", {"env": {"A": "1"}}, InvalidInputError,
         "env and cwd go with a command, not with a URL"),
        ("ragline mcp", {"headers": {"X-API-Key": "k"}}, InvalidInputError,
         "headers go with an HTTP URL, not with a command"),
        ("/nonexistent/mcp-server", {}, ConnectionError,
         "cannot connect to the MCP server: FileNotFoundError"),
    ],
)  # fmt: skip
def test_bad_servers_are_refused_with_a_reason(
    server: Any, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        load_mcp_tools(server, **options)
    assert str(raised.value).startswith(message)


def test_an_unknown_tool_name_is_refused(store: Path) -> None:
    with pytest.raises(InvalidInputError) as raised:
        load_mcp_tools(command(store), tool_names=["search", "delete"])
    assert str(raised.value) == (
        "the MCP server has no tool 'delete'; it has 'get_passage', 'list_sources', 'search'"
    )

"""The store as an MCP server, through the official SDK's own client: over stdio
(``ragline mcp`` in a subprocess) and over Streamable HTTP (``ragline serve --mcp``'s
app under uvicorn on a free loopback port)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import TextResourceContents

from ragline.core import AIMessage, BaseChatModel, Document
from ragline.serve import BackgroundServer, create_store_app

pytestmark = pytest.mark.network

KEY = "mcp-test-key"
GUIDE = (
    "# Guide\n\nRagline indexes folders of documents for search.\n\n"
    "## Install\n\nInstall the package with pip and create a virtual environment first.\n\n"
    "## Logs\n\nRotate the logs every night so the disk never fills up.\n\n"
    "Keep thirty days of logs and compress the older ones to save space.\n"
)
FILES = {
    "guide.md": GUIDE,
    "dogs.txt": "Dogs bark at strangers and love long walks in the park.\n",
    "notes/mars.txt": "Mars is a cold desert planet with the largest volcano.\n",
}
# guide.md's passages in file order: (first words, section: the heading path indexed)
GUIDE_PASSAGES = [
    ("# Guide", "Guide"),
    ("## Install", "Guide > Install"),
    ("## Logs", "Guide > Logs"),
    ("Keep thirty days", "Guide > Logs"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three files, guide.md in four passages (80-character chunks), hashing embedding."""
    from ragline.store_folder import index_paths

    root = tmp_path_factory.mktemp("mcp-store")
    for name, text in FILES.items():
        (root / "corpus" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "corpus" / name).write_text(text, encoding="utf-8")
    index_paths([root / "corpus"], root / "store", embedding="hashing", chunk_size=80,
                chunk_overlap=0)  # fmt: skip
    return root / "store"


class GatedChatModel(BaseChatModel):
    """Answers "42" once ``release`` is set; ``started`` tells that a call is waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()

    @property
    def _llm_type(self) -> str:
        return "gated"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> Any:  # fmt: skip
        from ragline.core import ChatGeneration, ChatResult

        self.started.set()
        self.release.wait(30)
        self.finished.set()
        return ChatResult(generations=[ChatGeneration(message=AIMessage("42"))])


@pytest.fixture(scope="module")
def gated() -> GatedChatModel:
    return GatedChatModel()


@pytest.fixture(scope="module")
def http_server(store: Path, gated: GatedChatModel) -> Iterator[BackgroundServer]:
    app = create_store_app(store, mcp=True, api_key=KEY, model=gated)
    with BackgroundServer(app) as server:
        yield server


@pytest.fixture(scope="module")
def plain_http_server(store: Path) -> Iterator[BackgroundServer]:
    """The same store without a chat model and without an API key."""
    with BackgroundServer(create_store_app(store, mcp=True)) as server:
        yield server


def stdio_parameters(store: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "ragline.cli", "mcp", "--store", str(store), "-q"]
    )


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    transport = streamable_http_client(url + "/mcp", http_client=create_mcp_http_client(headers))
    async with Client(transport) as client:
        yield client


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, store: Path) -> Any:
    """``connect()``: an SDK client of the store's MCP server (no chat model)."""
    if request.param == "stdio":
        return lambda: Client(stdio_parameters(store))
    server = request.getfixturevalue("plain_http_server")
    return lambda: http_client(server.url)


def cli_query(store: Path, *options: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "ragline.cli", "query", *options, "--store", str(store), "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def test_the_tools_are_listed_with_their_schemas(connect: Any) -> None:
    async with connect() as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert list(tools) == ["search", "get_passage", "list_sources"]  # no model: no "ask"
    search = tools["search"]
    assert search.input_schema["required"] == ["query"]
    assert sorted(search.input_schema["properties"]) == ["filter", "k", "query", "search_type",
                                                         "source"]  # fmt: skip
    assert search.input_schema["properties"]["search_type"]["enum"] == [
        "similarity", "mmr", "similarity_score_threshold", "bm25", "hybrid"]  # fmt: skip
    assert search.input_schema["additionalProperties"] is False
    assert tools["get_passage"].input_schema["required"] == ["id"]
    assert all(tool.annotations.read_only_hint for tool in tools.values())
    assert "get_passage" in search.description


@pytest.mark.parametrize(
    ("arguments", "options"),
    [
        ({"query": "rotate the logs", "k": 3}, ["-k", "3"]),
        ({"query": "rotate the logs", "k": 2, "search_type": "mmr"},
         ["-k", "2", "--search-type", "mmr"]),
        ({"query": "logs disk", "search_type": "bm25"}, ["--search-type", "bm25"]),
        ({"query": "planet", "source": "notes/*"}, ["--source", "notes/*"]),
        ({"query": "install", "filter": {"path": "guide.md"}},
         ["--filter", '{"path": "guide.md"}']),
    ],
)  # fmt: skip
async def test_search_finds_what_ragline_query_finds(
    connect: Any, store: Path, arguments: dict[str, Any], options: list[str]
) -> None:
    expected = cli_query(store, arguments["query"], *options)
    async with connect() as client:
        result = await client.call_tool("search", arguments)
    assert result.is_error is False
    found = result.structured_content
    assert json.loads(result.content[0].text) == found
    assert [
        (p["rank"], p["id"], p["source"], p["score"], p["text"]) for p in found["passages"]
    ] == [
        (row["rank"], row["id"], row["metadata"]["path"], row["score"], row["content"])
        for row in expected
    ]
    assert len(expected) >= 1
    assert found["search_type"] == arguments.get("search_type", "similarity")


async def test_a_search_gives_sections_and_the_meaning_of_its_scores(connect: Any) -> None:
    async with connect() as client:
        result = await client.call_tool("search", {"query": "thirty days of logs", "k": 1})
    (passage,) = result.structured_content["passages"]
    assert (passage["source"], passage["section"]) == ("guide.md", "Guide > Logs")
    assert passage["text"].startswith("Keep thirty days")
    assert result.structured_content["score_meaning"] == (
        "relevance in [0, 1], higher is closer: (1 + cosine similarity) / 2"
    )


async def test_get_passage_with_its_neighbours_and_list_sources(connect: Any) -> None:
    async with connect() as client:
        found = await client.call_tool("search", {"query": "install with pip", "k": 1})
        id_ = found.structured_content["passages"][0]["id"]
        alone = (await client.call_tool("get_passage", {"id": id_})).structured_content
        around = (
            await client.call_tool("get_passage", {"id": id_, "neighbors": 5})
        ).structured_content
        sources = (await client.call_tool("list_sources", {"pattern": "*.txt"})).structured_content
        every = (await client.call_tool("list_sources", {})).structured_content
    assert [p["id"] for p in alone["passages"]] == [id_]
    assert alone["passages"][0]["section"] == "Guide > Install"
    assert alone["passages_in_file"] == 4
    assert [(p["text"].split("\n")[0][: len(start)], p["section"], p["position"])
            for p, (start, _) in zip(around["passages"], GUIDE_PASSAGES, strict=True)] == [
        (start, section, position) for position, (start, section) in enumerate(GUIDE_PASSAGES)
    ]  # fmt: skip
    assert sources["sources"] == [
        {"source": "dogs.txt", "passages": 1, "uri": "ragline://source/dogs.txt"},
        {"source": "notes/mars.txt", "passages": 1, "uri": "ragline://source/notes/mars.txt"},
    ]
    assert [row["source"] for row in every["sources"]] == ["dogs.txt", "guide.md",
                                                           "notes/mars.txt"]  # fmt: skip


async def test_each_source_file_is_a_resource(connect: Any) -> None:
    async with connect() as client:
        listed = (await client.list_resources()).resources
        read = await client.read_resource("ragline://source/guide.md")
        with pytest.raises(MCPError, match="no indexed file has the URI 'ragline://source/x'"):
            await client.read_resource("ragline://source/x")
    assert [(r.uri, r.mime_type) for r in listed] == [
        ("ragline://source/dogs.txt", "text/plain"),
        ("ragline://source/guide.md", "text/markdown"),
        ("ragline://source/notes/mars.txt", "text/plain"),
    ]
    assert read.contents[0].text == GUIDE


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("search", {"query": "x", "filter": {"path": {"$like": "a"}}},
         "bad filter: unknown filter operator '$like' on field 'path'; valid operators are "
         "$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin"),
        ("search", {"query": "x", "k": 0}, "search: k: 0 is less than the minimum of 1"),
        ("search", {"query": "x", "k": 101}, "search: k: 101 is greater than the maximum of 100"),
        ("search", {"query": "x", "top": 3},
         "search: Additional properties are not allowed ('top' was unexpected)"),
        ("search", {"k": 3}, "search: 'query' is a required property"),
        ("search", {"query": "x", "search_type": "fuzzy"},
         "search: search_type: 'fuzzy' is not one of ['similarity', 'mmr', "
         "'similarity_score_threshold', 'bm25', 'hybrid']"),
        ("search", {"query": "x", "source": "*.pdf"},
         "source '*.pdf' matches none of the 3 indexed files; paths are relative to the "
         "indexed folder, e.g. 'dogs.txt', 'guide.md', 'notes/mars.txt'; list_sources shows them"),
        ("get_passage", {"id": "f00"},
         "no passage has the id 'f00'; ids come from search (or ask) results of this store, "
         "and change when a file is re-indexed"),
        ("get_passage", {"id": "f00", "neighbors": 6},
         "get_passage: neighbors: 6 is greater than the maximum of 5"),
        ("ask", {"question": "why?"},
         "no chat model configured: start the server with OPENAI_BASE_URL and/or "
         "OPENAI_API_KEY set (model: --model or RAGLINE_MODEL); search still works"),
    ],
)  # fmt: skip
async def test_bad_calls_are_tool_errors_that_say_what_is_wrong(
    connect: Any, tool: str, arguments: dict[str, Any], message: str
) -> None:
    async with connect() as client:
        result = await client.call_tool(tool, arguments)
        still = await client.call_tool("search", {"query": "dogs", "k": 1})
    assert result.is_error is True
    assert [block.text for block in result.content] == [message]
    assert still.structured_content["passages"][0]["source"] == "dogs.txt"


async def test_an_unknown_tool_is_a_protocol_error(connect: Any) -> None:
    async with connect() as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("delete_everything", {})
    assert raised.value.message == (
        "no tool 'delete_everything'; the tools are search, get_passage, list_sources"
    )


async def test_sixteen_concurrent_calls_each_get_their_own_answer(connect: Any) -> None:
    queries = [f"{word} {n}" for n in range(4) for word in ("logs", "dogs", "mars", "pip")]
    async with connect() as client:
        alone = [await client.call_tool("search", {"query": q, "k": 2}) for q in queries]
        together = await asyncio.gather(
            *(client.call_tool("search", {"query": q, "k": 2}) for q in queries)
        )
    assert len(together) == 16
    assert [r.structured_content for r in together] == [r.structured_content for r in alone]
    assert {r.structured_content["query"] for r in together} == set(queries)


def test_stdout_carries_only_the_protocol(store: Path) -> None:
    """Notes and warnings go to stderr: every stdout line is a JSON-RPC message."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "dogs", "k": 1}}},
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "ragline.cli", "mcp", "--store", str(store)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    messages = [json.loads(line) for line in lines]
    assert [m.get("id") for m in messages] == [1, 2]
    assert messages[1]["result"]["structuredContent"]["passages"][0]["source"] == "dogs.txt"
    assert f"serving {store} over MCP on stdio" in done.stderr


async def test_ask_answers_with_its_sources_over_http(
    http_server: BackgroundServer, gated: GatedChatModel
) -> None:
    gated.release.set()
    try:
        async with http_client(http_server.url, {"X-API-Key": KEY}) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            options = {"k": 2, "source": "guide.md"}
            result = await client.call_tool("ask", {"question": "how to install?", **options})
            found = await client.call_tool("search", {"query": "how to install?", **options})
    finally:
        gated.release.clear()
    assert names == ["search", "get_passage", "list_sources", "ask"]
    answer = result.structured_content
    assert answer["answer"] == "42"
    assert answer["sources"] == [
        {key: value for key, value in passage.items() if key not in ("rank", "text")}
        for passage in found.structured_content["passages"]
    ]
    assert (answer["sources"][0]["source"], answer["sources"][0]["section"]) == (
        "guide.md",
        "Guide > Install",
    )


async def test_a_client_that_goes_away_mid_call_leaves_the_server_serving(
    http_server: BackgroundServer, gated: GatedChatModel
) -> None:
    gated.started.clear()
    gated.finished.clear()

    async def leave_mid_call() -> None:
        async with http_client(http_server.url, {"X-API-Key": KEY}) as client:
            call = asyncio.ensure_future(client.call_tool("ask", {"question": "why?"}))
            await asyncio.to_thread(gated.started.wait, 30)
            call.cancel()  # the client stops waiting and closes its session
            with pytest.raises(asyncio.CancelledError):
                await call

    await leave_mid_call()
    assert gated.started.is_set()
    gated.release.set()  # the abandoned model call ends; its answer has nowhere to go
    try:
        await asyncio.to_thread(gated.finished.wait, 30)
        async with http_client(http_server.url, {"X-API-Key": KEY}) as client:
            result = await client.call_tool("search", {"query": "dogs", "k": 1})
    finally:
        gated.release.clear()
    assert result.structured_content["passages"][0]["source"] == "dogs.txt"


async def test_a_stdio_client_that_goes_away_mid_call_ends_its_server(store: Path) -> None:
    """The server process ends with its client; the next client starts its own."""
    async with Client(stdio_parameters(store)) as client:
        call = asyncio.ensure_future(client.call_tool("search", {"query": "logs"}))
        await asyncio.sleep(0)
        call.cancel()
    async with Client(stdio_parameters(store)) as client:
        result = await client.call_tool("search", {"query": "dogs", "k": 1})
    assert result.structured_content["passages"][0]["source"] == "dogs.txt"


@pytest.mark.parametrize(
    ("headers", "status", "detail"),
    [
        ({}, 401, "missing or wrong API key (send it in the X-API-Key header, or as "
                  "Authorization: Bearer)"),
        ({"X-API-Key": "wrong"}, 401, None),
        ({"Authorization": "Bearer wrong"}, 401, None),
        ({"X-API-Key": KEY, "Origin": "http://evil.example"}, 403,
         "requests from pages on 'http://evil.example' are not allowed (add the origin with "
         "--cors-origin, or cors_origins=[...])"),
        ({"X-API-Key": KEY, "Host": "rebound.example"}, 400, None),
    ],
)  # fmt: skip
def test_http_refuses_a_missing_key_a_foreign_origin_and_host(
    http_server: BackgroundServer, headers: dict[str, str], status: int, detail: str | None
) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream"}
    response = httpx.post(http_server.url + "/mcp", json=initialize, headers={**accept, **headers},
                          timeout=10)  # fmt: skip
    assert response.status_code == status
    if detail is not None:
        assert response.json() == {"detail": detail}
    bearer = {**accept, "Authorization": f"Bearer {KEY}"}
    allowed = httpx.post(http_server.url + "/mcp", json=initialize, headers=bearer, timeout=10)
    assert allowed.status_code == 200


async def test_the_sdk_client_without_the_key_cannot_connect(http_server: BackgroundServer) -> None:
    """(the SDK reports the 401 as an error response; the test above reads its body)"""
    with pytest.raises(Exception) as raised:  # an exception group around it
        async with http_client(http_server.url) as client:
            await client.list_tools()
    errors, leaves = [raised.value], []
    while errors:
        error = errors.pop()
        errors.extend(getattr(error, "exceptions", ()))
        leaves.append(error)
    assert [str(e) for e in leaves if isinstance(e, MCPError)] == [
        "Server returned an error response"
    ]


# --- sections recorded at indexing, and files that are not UTF-8 text ----------------
PAGE = (
    "<html><head><title>Field guide</title></head><body>"
    "<h1>Field guide</h1><p>Notes from the expedition.</p>"
    "<h2>Volcanoes</h2><p>Olympus Mons is the largest volcano in the solar system.</p>"
    "<h3>Climbing</h3><p>Climbers need oxygen tanks and three weeks of food.</p>"
    "<h2>Weather</h2><p>Dust storms can cover the whole planet for months.</p>"
    "</body></html>"
)
# a PDF whose second page holds a byte that is not UTF-8 (e-acute in Latin-1)
MANUAL_PAGES = [
    "Mars is a cold desert planet. Olympus Mons is the largest volcano in the solar "
    "system, three times taller than Everest.",
    "Caf\u00e9 owners on Mars brew coffee with melted polar ice and sell it to the rovers.",
]
ASCII_PAGE = "Rovers charge their batteries at noon."


@pytest.fixture(scope="module")
def structured_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An HTML page with h1-h3 headings, a two-page PDF that is not UTF-8 and a one-page
    PDF that is ASCII bytes, in 60-character chunks overlapping by 20 (hashing)."""
    from ragline.store_folder import index_paths
    from tests.loaders.conftest import build_pdf

    root = tmp_path_factory.mktemp("mcp-structured")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "guide.html").write_text(PAGE, encoding="utf-8")
    (corpus / "manual.pdf").write_bytes(build_pdf(MANUAL_PAGES))
    (corpus / "rovers.pdf").write_bytes(build_pdf([ASCII_PAGE]))
    index_paths([corpus], root / "store", embedding="hashing", chunk_size=60,
                chunk_overlap=20)  # fmt: skip
    return root / "store"


async def test_sections_are_the_heading_paths_recorded_at_indexing(
    structured_store: Path,
) -> None:
    """Sections came from Markdown headings found in the passage texts: an HTML page's
    passages had none, and a Markdown one only its last heading's title."""
    async with Client(stdio_parameters(structured_store)) as client:
        found = await client.call_tool(
            "search", {"query": "oxygen tanks", "k": 1, "search_type": "bm25"}
        )
        passage = found.structured_content["passages"][0]
        page = await client.call_tool("get_passage", {"id": passage["id"], "neighbors": 5})
    assert (passage["source"], passage["section"]) == (
        "guide.html",
        "Field guide > Volcanoes > Climbing",
    )
    assert passage["text"].startswith("### Climbing")
    rows = page.structured_content["passages"]
    assert [(row["position"], row["text"].split("\n")[0], row["section"]) for row in rows] == [
        (0, "# Field guide", "Field guide"),
        (1, "## Volcanoes", "Field guide > Volcanoes"),
        (2, "### Climbing", "Field guide > Volcanoes > Climbing"),
        (3, "## Weather", "Field guide > Weather"),
    ]


async def test_a_pdf_resource_is_its_indexed_text_in_order(structured_store: Path) -> None:
    """A PDF resource is its pages' indexed text, each overlap once. A PDF that is not
    UTF-8 was read as its passages in the order of their start offsets alone (the
    second page's first passage before the first page's second) with the overlaps
    repeated, and one that is ASCII bytes as the raw PDF source."""
    from ragline.loaders import PyPDFLoader

    corpus = structured_store.parent / "corpus"
    with pytest.raises(UnicodeDecodeError):
        (corpus / "manual.pdf").read_bytes().decode("utf-8")
    pages = [page.page_content.strip() for page in PyPDFLoader(corpus / "manual.pdf").load()]
    assert pages[0] == MANUAL_PAGES[0] and pages[1].endswith("sell it to the rovers.")
    async with Client(stdio_parameters(structured_store)) as client:
        manual = await client.read_resource("ragline://source/manual.pdf")
        rovers = await client.read_resource("ragline://source/rovers.pdf")
    (manual_text,), (rovers_text,) = manual.contents, rovers.contents
    assert isinstance(manual_text, TextResourceContents)
    assert isinstance(rovers_text, TextResourceContents)
    assert (manual_text.text, manual_text.mime_type) == ("\n\n".join(pages), "text/plain")
    assert rovers_text.text == ASCII_PAGE


async def test_a_store_indexed_before_sections_were_recorded_finds_them_in_markdown() -> None:
    """Chunks without metadata["section"] (a store indexed before it existed): the last
    Markdown heading at or before each passage, as before."""
    from ragline.embeddings import HashingEmbeddings
    from ragline.serve import FolderSearch
    from ragline.serve._mcp import StoreMCP
    from ragline.vectorstores import FAISS

    texts = [
        "# Guide\n\nRagline indexes folders of documents for search.",
        "## Install\n\nInstall the package with pip.",
        "Create a virtual environment first.",
        "## Logs\n\nRotate the logs every night.",
    ]
    starts = ["\n\n".join(texts).index(text) for text in texts]  # as one file
    documents = [
        Document(text, id=f"p{n}", metadata={"path": "guide.md", "source": "/gone/guide.md",
                                             "start_index": start})
        for n, (text, start) in enumerate(zip(texts, starts, strict=True))
    ]  # fmt: skip
    store = FAISS.from_documents(documents[::-1], HashingEmbeddings(64))
    tools = StoreMCP(FolderSearch(store, search_threads=None), name="old")
    page = await tools.call("get_passage", {"id": "p1", "neighbors": 5})
    assert [(row["id"], row["section"]) for row in page["passages"]] == [
        ("p0", "Guide"),
        ("p1", "Install"),
        ("p2", "Install"),
        ("p3", "Logs"),
    ]
    text, mime_type = tools.read("ragline://source/guide.md")  # the file is gone
    assert (text, mime_type) == ("\n\n".join(texts), "text/markdown")


def test_the_quick_argument_check_passes_only_what_the_schema_accepts() -> None:
    """StoreMCP.call skips jsonschema for plainly valid arguments: the quick check says
    yes to those and to nothing the schema refuses (what it says no to, jsonschema
    decides: ``k=2.0`` is valid there, ``k=True`` is not)."""
    import jsonschema

    from ragline.serve._mcp import _plain_check, tool_definitions

    schemas = {t["name"]: t["inputSchema"] for t in tool_definitions(
        ["similarity", "mmr", "bm25"], 100, ask=True)}  # fmt: skip
    plain = [
        ("search", {"query": "logs"}),
        ("search", {"query": "é", "k": 100, "search_type": "bm25", "filter": {"path": "a"},
                    "source": "*.md"}),
        ("search", {"query": "x", "k": 1, "filter": {}}),
        ("get_passage", {"id": "f00", "neighbors": 5}),
        ("list_sources", {}),
        ("list_sources", {"pattern": "docs/*"}),
        ("ask", {"question": "why?", "k": 3, "search_type": "mmr"}),
    ]  # fmt: skip
    others = [
        ("search", {"query": "x", "k": 2.0}, True),
        ("search", {"query": "x", "k": True}, False),
        ("search", {"query": "x", "k": 0}, False),
        ("search", {"query": "x", "k": 101}, False),
        ("search", {"query": ""}, False),
        ("search", {"query": 3}, False),
        ("search", {"k": 3}, False),
        ("search", {"query": "x", "top": 3}, False),
        ("search", {"query": "x", "search_type": "hybrid"}, False),
        ("search", {"query": "x", "search_type": 1}, False),
        ("search", {"query": "x", "filter": []}, False),
        ("search", {"query": "x", "source": None}, False),
        ("get_passage", {"id": "f00", "neighbors": -1}, False),
        ("get_passage", {"neighbors": 1}, False),
        ("list_sources", {"pattern": 7}, False),
        ("ask", {"query": "why?"}, False),
    ]
    for name, arguments in plain:
        assert jsonschema.Draft202012Validator(schemas[name]).is_valid(arguments), arguments
        assert _plain_check(schemas[name])(arguments) is True, arguments
    for name, arguments, valid in others:
        assert jsonschema.Draft202012Validator(schemas[name]).is_valid(arguments) is valid
        assert _plain_check(schemas[name])(arguments) is False, arguments
    assert _plain_check({**schemas["search"], "additionalProperties": True}) is None
    assert (
        _plain_check({"type": "object", "properties": {"q": {"type": "string", "pattern": "a"}}})
        is None
    )


async def test_the_server_gives_a_tools_input_schema_without_listing_the_tools(
    store: Path,
) -> None:
    """Streamable HTTP checks a call's Mcp-Param headers against the tool's input
    schema: the server hands it over directly (before, the SDK ran a tools/list through
    the server on every call)."""
    from ragline.serve._mcp import create_mcp_server, open_store_mcp

    tools = open_store_mcp(store, search_threads=None)
    server = create_mcp_server(tools)
    assert server.get_tool_input_schema("search") == tools.tools[0]["inputSchema"]
    assert server.get_tool_input_schema("delete_everything") is None

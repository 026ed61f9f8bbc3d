"""ChatOpenAI with an LLM cache, against the local OpenAI-protocol server: each request
the server records is one the cache did not answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from _openai_server import CHAT_PATH, OpenAITestServer

from ragline.chat_models import ChatOpenAI
from ragline.core import (
    FunctionMessage,
    HumanMessage,
    InMemoryCache,
    SQLiteCache,
    set_llm_cache,
)

pytestmark = [pytest.mark.network, pytest.mark.usefixtures("no_global_cache")]


def make_model(server: OpenAITestServer, **options: object) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model", **options)


def requests(server: OpenAITestServer) -> int:
    return len(server.requests_to(CHAT_PATH))


def test_identical_calls_reach_the_server_once(openai_server: OpenAITestServer) -> None:
    set_llm_cache(InMemoryCache())
    model = make_model(openai_server, temperature=0)
    assert model.invoke("a b").content == "echo: a b"
    assert make_model(openai_server, temperature=0).invoke("a b").content == "echo: a b"
    assert requests(openai_server) == 1


def test_other_settings_stop_words_and_tools_are_other_entries(
    openai_server: OpenAITestServer,
) -> None:
    set_llm_cache(InMemoryCache())

    def search(query: str) -> str:
        """Search the web."""
        return query

    make_model(openai_server, temperature=0).invoke("q")
    make_model(openai_server, temperature=1).invoke("q")
    ChatOpenAI(base_url=openai_server.base_url, api_key="k", model="other-model").invoke("q")
    make_model(openai_server, temperature=0).invoke("q", stop=["\n"])
    make_model(openai_server, temperature=0, stop=["END"]).invoke("q")
    make_model(openai_server, temperature=0, extra_body={"top_k": 5}).invoke("q")
    make_model(openai_server, temperature=0).bind_tools([search]).invoke("q")
    assert requests(openai_server) == 7
    make_model(openai_server, temperature=0).bind_tools([search]).invoke("q")
    make_model(openai_server, temperature=1).invoke("q")
    assert requests(openai_server) == 7


def test_streaming_invoke_fills_the_cache_and_stream_bypasses_it(
    openai_server: OpenAITestServer,
) -> None:
    cache = InMemoryCache()
    model = make_model(openai_server, streaming=True, cache=cache)
    assert model.invoke("a b").content == "echo: a b"
    assert openai_server.requests_to(CHAT_PATH)[0].body["stream"] is True
    assert model.invoke("a b").content == "echo: a b"
    assert requests(openai_server) == 1
    assert "".join(c.content for c in model.stream("a b")) == "echo: a b"
    assert requests(openai_server) == 2


async def test_async_calls_share_a_persistent_cache(
    openai_server: OpenAITestServer, tmp_path: Path
) -> None:
    first = make_model(openai_server, cache=SQLiteCache(tmp_path / "llm.db"))
    assert (await first.ainvoke([HumanMessage("x y")])).content == "echo: x y"
    second = make_model(openai_server, cache=SQLiteCache(tmp_path / "llm.db"))
    reply = second.invoke([HumanMessage("x y")])
    assert reply.content == "echo: x y"
    # the cached usage, marked as costing nothing this time (as LangChain marks a hit)
    assert reply.usage_metadata == {
        "input_tokens": 7,
        "output_tokens": 3,
        "total_tokens": 10,
        "total_cost": 0,
    }
    assert requests(openai_server) == 1


def test_function_messages_are_sent_with_their_name(openai_server: OpenAITestServer) -> None:
    make_model(openai_server).invoke([HumanMessage("w?"), FunctionMessage("21", name="weather")])
    body = openai_server.requests_to(CHAT_PATH)[0].body
    assert body["messages"][1] == {"role": "function", "content": "21", "name": "weather"}

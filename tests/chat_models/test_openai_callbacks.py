"""ChatOpenAI against the local OpenAI-protocol server, seen by callbacks: an
``on_llm_start``-only handler (seed 000's PerformanceCallbackHandler shape), token usage in
``llm_output`` / ``response_metadata``, the usage context managers summing a whole run,
and ``astream_events`` over real HTTP streaming."""

from __future__ import annotations

import asyncio
from typing import Any

from _openai_server import CHAT_PATH, Reply, chat_completion

from ragline.chat_models import ChatOpenAI
from ragline.core import BaseCallbackHandler, ChatPromptTemplate, RunnableLambda, StrOutputParser
from ragline.core.callbacks import get_openai_callback, get_usage_metadata_callback

TOKEN_USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}


def make_model(server: Any, model: str = "test-model", **options: Any) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="sk-test", model=model, **options)


class LatencyAndTokens(BaseCallbackHandler):
    """The shape of seed 000's performance handler: on_llm_start / on_llm_end / on_llm_error
    only, reading ``llm_output["token_usage"]``."""

    def __init__(self) -> None:
        self.open: dict[Any, list[str]] = {}
        self.finished: list[tuple[list[str], dict[str, int]]] = []
        self.errors = 0

    def on_llm_start(self, serialized: Any, prompts: list[str], *, run_id: Any, **kwargs: Any):
        self.open[run_id] = prompts

    def on_llm_end(self, response: Any, *, run_id: Any, **kwargs: Any) -> None:
        prompts = self.open.pop(run_id)
        usage = (response.llm_output or {}).get("token_usage", {})
        self.finished.append((prompts, usage))

    def on_llm_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self.errors += 1
        self.open.pop(run_id, None)


def test_an_llm_start_only_handler_measures_chat_openai_runs(openai_server):
    handler = LatencyAndTokens()
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    chain = prompt | make_model(openai_server) | StrOutputParser()
    assert chain.invoke({"q": "tides?"}, {"callbacks": [handler]}) == "echo: tides?"
    assert list(chain.stream({"q": "moon?"}, {"callbacks": [handler]}))[-1] == ""
    assert handler.finished == [
        (["System: Be brief.\nHuman: tides?"], TOKEN_USAGE),
        (["System: Be brief.\nHuman: moon?"], TOKEN_USAGE),
    ]
    assert (handler.open, handler.errors) == ({}, 0)
    reply = make_model(openai_server).invoke("x")
    assert reply.response_metadata["token_usage"] == TOKEN_USAGE


def test_get_usage_metadata_callback_sums_every_model_run_of_a_block(openai_server):
    model = make_model(openai_server)
    other = make_model(openai_server, model="other-model")
    both = RunnableLambda(lambda q: [model.invoke(q), other.invoke(q)])

    async def twice() -> None:
        await asyncio.gather(model.ainvoke("a"), model.ainvoke("b"))

    with get_usage_metadata_callback() as cb:
        both.batch(["x", "y"])  # worker threads
        asyncio.run(twice())  # tasks
        list(model.stream("z"))  # usage in the last streamed chunk
    model.invoke("after the block")  # not counted
    seven_three = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    assert cb.usage_metadata == {
        "test-model": {key: value * 5 for key, value in seven_three.items()},
        "other-model": {key: value * 2 for key, value in seven_three.items()},
    }


def test_get_openai_callback_counts_cached_and_reasoning_tokens_and_prices_them(openai_server):
    body = chat_completion("Paris.", model="gpt-4o-mini-2024-07-18", prompt_tokens=2000,
                           completion_tokens=500)  # fmt: skip
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 1024}
    body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 128}
    openai_server.enqueue(CHAT_PATH, Reply(body=body))
    model = make_model(openai_server, model="gpt-4o-mini")
    with get_openai_callback() as cb:
        reply = model.invoke("Capital of France?")
        make_model(openai_server).invoke("unpriced")  # the echo server's "test-model"
    assert reply.usage_metadata == {
        "input_tokens": 2000,
        "output_tokens": 500,
        "total_tokens": 2500,
        "input_token_details": {"cache_read": 1024},
        "output_token_details": {"reasoning": 128},
    }
    assert (cb.prompt_tokens, cb.prompt_tokens_cached, cb.completion_tokens) == (2007, 1024, 503)
    assert (cb.reasoning_tokens, cb.total_tokens, cb.successful_requests) == (128, 2510, 2)
    # gpt-4o-mini: 976 fresh prompt tokens at $0.15/M, 1024 cached at $0.075/M, 500 at $0.60/M
    assert abs(cb.total_cost - (976 * 0.15 + 1024 * 0.075 + 500 * 0.60) / 1e6) < 1e-12
    assert cb.unpriced_models == {"test-model"}
    assert repr(cb).splitlines()[:3] == [
        "Tokens Used: 2510",
        "\tPrompt Tokens: 2007",
        "\t\tPrompt Tokens Cached: 1024",
    ]


def test_astream_events_streams_chat_openai_tokens_over_http(openai_server):
    chain = make_model(openai_server) | StrOutputParser()

    async def collect() -> list[dict[str, Any]]:
        return [event async for event in chain.astream_events("a b c")]

    events = asyncio.run(collect())
    tokens = [e["data"]["chunk"].content for e in events if e["event"] == "on_chat_model_stream"]
    assert "".join(tokens) == "echo: a b c" and len(tokens) >= 4
    parsed = [e["data"]["chunk"] for e in events if e["event"] == "on_parser_stream"]
    assert "".join(parsed) == "echo: a b c"
    end = next(e for e in events if e["event"] == "on_chat_model_end")
    assert end["data"]["output"].usage_metadata["total_tokens"] == 10
    assert [e["event"] for e in events][-1] == "on_chain_end"

"""ChatOpenAI against a real local HTTP server speaking the chat-completions protocol.

The server (tests/_openai_server.py) records each request, so the tests assert the exact
JSON the client sent and the exact number of attempts it made.
"""

from __future__ import annotations

import socket
import sys
import threading
from typing import Literal

import pytest
from _openai_server import (
    CHAT_PATH,
    OpenAITestServer,
    Reply,
    chat_completion,
    chat_completion_chunks,
    error_body,
)

from ragline.chat_models import ChatOpenAI, convert_to_openai_tool
from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatPromptTemplate,
    ConfigurableField,
    ConfigurationError,
    HumanMessage,
    InvalidInputError,
    MissingDependencyError,
    RunCollectorCallbackHandler,
    StoreConnectionError,
    StrOutputParser,
    SystemMessage,
    ToolMessage,
)

pytestmark = pytest.mark.network

USAGE = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
FAST_RETRY = {"retry-after-ms": "10"}  # the SDK honours it instead of backing off 0.5 s+


def make_model(server: OpenAITestServer, **options) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model", **options)


def bodies(server: OpenAITestServer) -> list[dict]:
    return [request.body for request in server.requests_to(CHAT_PATH)]


# --------------------------------------------------------------------------- requests


def test_invoke_sends_the_request_and_reads_the_reply(openai_server):
    model = make_model(openai_server, temperature=0.3, max_tokens=50, stop="\n\n", seed=7)
    reply = model.invoke([("system", "Be brief."), ("human", "What is RAG?")])
    assert reply == AIMessage(
        "echo: What is RAG?",
        id="chatcmpl-test",
        usage_metadata=USAGE,
        response_metadata={
            # LangChain's keys: token_usage as OpenAI sent it (seed 003 shows the same)
            "token_usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
            "model_name": "test-model",
            "finish_reason": "stop",
            "system_fingerprint": "fp_test",
        },
    )
    [request] = openai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.body == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is RAG?"},
        ],
        "temperature": 0.3,
        "max_tokens": 50,
        "seed": 7,
        "stop": ["\n\n"],
    }


def test_every_message_kind_is_sent_in_the_wire_format(openai_server):
    history = [
        SystemMessage("sys"),
        HumanMessage("add 1 and 2", name="ada"),
        AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1"}]),
        ToolMessage("3", tool_call_id="call_1"),
    ]
    make_model(openai_server).invoke(history)
    assert bodies(openai_server)[0]["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "add 1 and 2", "name": "ada"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                }
            ],
        },
        {"role": "tool", "content": "3", "tool_call_id": "call_1"},
    ]


def test_bind_stop_and_per_call_options_override_the_defaults(openai_server):
    model = make_model(openai_server, temperature=0.9, stop=["default"])
    model.bind(stop=["\nObservation:"], temperature=0.0).invoke("a")
    model.invoke("b", stop="END", max_tokens=5)
    first, second = bodies(openai_server)
    assert (first["stop"], first["temperature"]) == (["\nObservation:"], 0.0)
    assert (second["stop"], second["temperature"], second["max_tokens"]) == (["END"], 0.9, 5)


def test_unknown_options_are_rejected_before_any_request(openai_server):
    with pytest.raises(InvalidInputError) as info:
        make_model(openai_server).invoke("x", temprature=0.5)
    assert str(info.value).startswith(
        "ChatOpenAI got unknown option(s) 'temprature'; "
        "valid per-call options are temperature, max_tokens"
    )
    assert openai_server.requests == []


def test_tool_calls_in_a_reply_are_parsed(openai_server):
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion(
        None, finish_reason="tool_calls",
        tool_calls=[{"id": "call_9", "name": "search", "arguments": '{"query": "faiss"}'},
                    {"id": "call_10", "name": "broken", "arguments": "{not json"}],
    )))  # fmt: skip
    tools = [{"type": "function", "function": {"name": "search", "parameters": {}}}]
    reply = make_model(openai_server).invoke("find faiss", tools=tools, tool_choice="auto")
    assert reply.content == ""
    assert reply.tool_calls == [
        {"name": "search", "args": {"query": "faiss"}, "id": "call_9", "type": "tool_call"}
    ]
    assert [(c["name"], c["args"]) for c in reply.invalid_tool_calls] == [("broken", "{not json")]
    assert bodies(openai_server)[0]["tools"] == tools
    assert bodies(openai_server)[0]["tool_choice"] == "auto"


def test_extra_body_fields_are_merged_into_the_request(openai_server):
    make_model(openai_server, extra_body={"top_k": 20}).invoke("x", extra_body={"min_p": 0.1})
    assert bodies(openai_server)[0]["top_k"] == 20
    assert bodies(openai_server)[0]["min_p"] == 0.1


# --------------------------------------------------------------------------- streaming


def test_stream_yields_server_sent_chunks_with_usage_last(openai_server):
    chunks = list(make_model(openai_server).stream("one two"))
    # then the closing empty piece marked "last" (LangChain 1.x, as its ChatOpenAI's)
    assert [c.content for c in chunks] == ["echo: ", "one ", "two", "", "", ""]
    assert chunks[-1].chunk_position == "last"
    chunks = chunks[:-1]
    assert chunks[-1].usage_metadata == USAGE
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.to_message() == AIMessage(
        "echo: one two", id="chatcmpl-test", usage_metadata=USAGE,
        response_metadata={"model_name": "test-model", "finish_reason": "stop"},
    )  # fmt: skip
    body = bodies(openai_server)[0]
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})


def test_stream_usage_can_be_switched_off(openai_server):
    chunks = list(make_model(openai_server, stream_usage=False).stream("x"))
    assert all(chunk.usage_metadata is None for chunk in chunks)
    assert "stream_options" not in bodies(openai_server)[0]


def test_streamed_tool_calls_are_joined(openai_server):
    deltas = [
        [{"index": 0, "id": "call_1", "type": "function",
          "function": {"name": "search", "arguments": '{"que'}}],
        [{"index": 0, "function": {"arguments": 'ry": "rag"}'}}],
    ]  # fmt: skip
    openai_server.enqueue(
        CHAT_PATH,
        Reply(
            events=chat_completion_chunks([], tool_call_deltas=deltas, finish_reason="tool_calls")
        ),
    )
    chunks = list(make_model(openai_server).stream("x"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.tool_calls == [
        {"name": "search", "args": {"query": "rag"}, "id": "call_1", "type": "tool_call"}
    ]
    assert total.response_metadata["finish_reason"] == "tool_calls"


def test_prompt_model_parser_streams_over_http(openai_server):
    prompt = ChatPromptTemplate.from_messages([("system", "s"), ("human", "{q}")])
    chain = prompt | make_model(openai_server) | StrOutputParser()
    assert list(chain.stream({"q": "a b c"})) == ["echo: ", "a ", "b ", "c", "", "", ""]


def test_chunks_arrive_while_the_server_is_still_sending(openai_server):
    gate = threading.Event()
    openai_server.enqueue(
        CHAT_PATH, Reply(events=chat_completion_chunks(["first", " second"]), gate=gate)
    )
    stream = make_model(openai_server).stream("x")
    assert next(stream).content == "first"  # the server holds the rest until the gate opens
    gate.set()
    assert "".join(chunk.content for chunk in stream) == " second"


def test_streaming_invoke_reports_every_token(openai_server):
    collector = RunCollectorCallbackHandler()
    reply = make_model(openai_server, streaming=True).invoke("a b", {"callbacks": [collector]})
    assert reply.content == "echo: a b"
    assert reply.usage_metadata == USAGE
    assert bodies(openai_server)[0]["stream"] is True
    assert [event for event, _ in collector.event_log] == (
        ["chat_model_start"] + ["llm_new_token"] * 6 + ["llm_end"]  # the last: the closing piece
    )
    assert collector.traced_runs[0].outputs["llm_output"] == {
        "token_usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
        "model_name": "test-model",
    }


# --------------------------------------------------------------------------- async


async def test_ainvoke_and_astream(openai_server):
    model = make_model(openai_server)
    collector = RunCollectorCallbackHandler()
    assert (await model.ainvoke("hi", {"callbacks": [collector]})).content == "echo: hi"
    chunks = [c async for c in model.astream("a b", {"callbacks": [collector]})]
    assert [c.content for c in chunks] == ["echo: ", "a ", "b", "", "", ""]
    assert [event for event, _ in collector.event_log] == (
        ["chat_model_start", "llm_end", "chat_model_start"] + ["llm_new_token"] * 6 + ["llm_end"]
    )
    assert [r.headers["x-stainless-async"] for r in openai_server.requests] == ["async:asyncio"] * 2


async def test_async_errors_are_mapped_too(openai_server):
    openai_server.enqueue(
        CHAT_PATH, Reply(status=401, body=error_body("bad key", "invalid_request_error"))
    )
    with pytest.raises(ConfigurationError, match=r"rejected the API key \(HTTP 401\)"):
        await make_model(openai_server).ainvoke("x")


# --------------------------------------------------------------------------- retries and failures


def test_429_and_500_are_retried_until_success(openai_server):
    openai_server.enqueue(
        CHAT_PATH,
        Reply(status=429, body=error_body("slow down", "rate_limit_error"), headers=FAST_RETRY),
        Reply(status=500, body=error_body("oops"), headers=FAST_RETRY),
    )
    reply = make_model(openai_server, max_retries=2).invoke("x")
    assert reply.content == "echo: x"
    assert len(openai_server.requests) == 3
    assert [r.headers["x-stainless-retry-count"] for r in openai_server.requests] == ["0", "1", "2"]


def test_a_server_error_after_the_last_retry_names_the_url(openai_server):
    for _ in range(3):
        openai_server.enqueue(
            CHAT_PATH, Reply(status=500, body=error_body("overloaded"), headers=FAST_RETRY)
        )
    with pytest.raises(StoreConnectionError) as info:
        make_model(openai_server, max_retries=1).invoke("x")
    assert str(info.value) == (
        f"the chat completions endpoint {openai_server.base_url} answered HTTP 500 "
        "(2 attempt(s)): overloaded"
    )
    assert len(openai_server.requests) == 2


def test_a_failing_stream_request_is_retried_and_mapped(openai_server):
    for _ in range(2):
        openai_server.enqueue(
            CHAT_PATH, Reply(status=503, body=error_body("busy"), headers=FAST_RETRY)
        )
    with pytest.raises(StoreConnectionError, match="answered HTTP 503"):
        list(make_model(openai_server, max_retries=1).stream("x"))
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize(
    ("status", "error", "message"),
    [
        (401, ConfigurationError, "rejected the API key (HTTP 401): no"),
        (403, ConfigurationError, "rejected the API key (HTTP 403): no"),
        (404, ConfigurationError, "answered 404 for model 'test-model': no"),
        (400, InvalidInputError, "refused the request (HTTP 400): no"),
    ],
)
def test_client_errors_are_not_retried(openai_server, status, error, message):
    openai_server.enqueue(CHAT_PATH, Reply(status=status, body=error_body("no")))
    with pytest.raises(error) as info:
        make_model(openai_server, max_retries=2).invoke("x")
    assert message in str(info.value)
    assert len(openai_server.requests) == 1


def test_a_slow_server_times_out(openai_server):
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion("late"), delay=2.0))
    with pytest.raises(StoreConnectionError) as info:
        make_model(openai_server, timeout=0.25, max_retries=0).invoke("x")
    assert str(info.value) == (
        f"the chat completions endpoint {openai_server.base_url} did not answer within "
        "0.25 s (1 attempt(s)); raise timeout= or check the server"
    )
    assert len(openai_server.requests) == 1


def test_a_server_that_is_down_names_the_url():
    with socket.socket() as sock:  # a port nobody listens on once the socket is closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    model = ChatOpenAI(base_url=url, api_key="k", max_retries=0)
    with pytest.raises(
        StoreConnectionError, match=f"cannot reach the chat completions endpoint {url}"
    ):
        model.invoke("x")
    with pytest.raises(StoreConnectionError, match=f"cannot reach .* {url}"):
        list(model.stream("x"))


def test_the_error_run_is_reported(openai_server):
    openai_server.enqueue(CHAT_PATH, Reply(status=400, body=error_body("too long")))
    collector = RunCollectorCallbackHandler()
    with pytest.raises(InvalidInputError):
        make_model(openai_server).invoke("x", {"callbacks": [collector]})
    assert [event for event, _ in collector.event_log] == ["chat_model_start", "llm_error"]


# --------------------------------------------------------------------------- configuration


def test_environment_variables_supply_url_and_key(openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    model = ChatOpenAI(model="m")
    assert model.base_url == openai_server.base_url
    model.invoke("x")
    assert openai_server.requests[0].headers["authorization"] == "Bearer sk-from-env"


def test_a_local_server_needs_no_key(openai_server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ChatOpenAI(base_url=openai_server.base_url).invoke("x")
    assert openai_server.requests[0].headers["authorization"] == "Bearer EMPTY"


def test_no_key_and_no_url_is_a_configuration_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigurationError, match="ChatOpenAI has no API key"):
        ChatOpenAI()


def test_langchain_option_names_are_accepted(openai_server):
    model = ChatOpenAI(model_name="m2", openai_api_key="k2", openai_api_base=openai_server.base_url)
    assert (model.model, model.api_key, model.base_url) == ("m2", "k2", openai_server.base_url)
    with pytest.raises(ConfigurationError, match="both model= and model_name="):
        ChatOpenAI(model="a", model_name="b", api_key="k")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": 3}, "temperature must be a number between 0 and 2 or None, got 3"),
        ({"top_p": -0.1}, "top_p must be a number between 0 and 1 or None, got -0.1"),
        ({"max_tokens": 0}, "max_tokens must be an int >= 1 or None, got 0"),
        ({"max_retries": -1}, "max_retries must be an int >= 0, got -1"),
        ({"timeout": 0}, "timeout must be a finite number >= 0.001 or None, got 0"),
        ({"stop": [""]}, "stop must be a string or a list of non-empty strings, got ['']"),
        ({"model": ""}, "model must be a non-empty str, got ''"),
        ({"seed": 1.5}, "seed must be an int or None, got 1.5"),
        ({"base_url": 8000}, "base_url must be a str, got int"),
        ({"extra_body": "top_k=20"}, "extra_body must be a dict, got str: 'top_k=20'"),
        (
            {"default_headers": [("x", "y")]},
            "default_headers must be a dict, got list: [('x', 'y')]",
        ),
    ],
)
def test_bad_options_are_rejected(options, message):
    with pytest.raises(InvalidInputError) as info:
        ChatOpenAI(api_key="k", **options)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": "hot"}, "temperature must be a number between 0 and 2 or None, got 'hot'"),
        ({"max_tokens": 0}, "max_tokens must be an int >= 1 or None, got 0"),
        ({"extra_body": "top_k=20"}, "extra_body must be a dict, got str: 'top_k=20'"),
    ],
)
def test_bad_per_call_options_are_rejected_before_any_request(openai_server, options, message):
    with pytest.raises(InvalidInputError) as info:
        make_model(openai_server).bind(**options).invoke("x")
    assert str(info.value) == message
    assert openai_server.requests == []


async def test_configurable_client_settings_reach_the_request(openai_server):
    model = make_model(openai_server)
    model.invoke("warm")  # the default's client exists before the configured calls
    configurable = model.configurable_fields(
        base_url=ConfigurableField(id="url"), temperature=ConfigurableField(id="temp")
    )
    with OpenAITestServer() as other:
        config = {"configurable": {"url": other.base_url}}
        assert configurable.invoke("a", config).content == "echo: a"
        assert (await configurable.ainvoke("b", config)).content == "echo: b"
        assert [r.body["messages"][0]["content"] for r in other.requests] == ["a", "b"]
    assert configurable.invoke("c", {"configurable": {"temp": 0.5}}).content == "echo: c"
    assert [(b["messages"][0]["content"], b.get("temperature")) for b in bodies(openai_server)] == [
        ("warm", None),
        ("c", 0.5),
    ]
    assert model.base_url == openai_server.base_url  # the default itself is unchanged


def test_the_client_is_created_once_on_first_use(openai_server):
    model = make_model(openai_server)
    assert not model._clients.created  # a cheap constructor: no client until the first call
    model.invoke("a")
    client = model.client
    model.invoke("b")
    assert model.client is client
    assert repr(model) == f"ChatOpenAI(model='test-model', base_url='{openai_server.base_url}')"


def test_token_counting_is_available(openai_server):
    assert make_model(openai_server).get_num_tokens("hello world") == 2


def test_chunks_are_ai_message_chunks(openai_server):
    assert all(isinstance(c, AIMessageChunk) for c in make_model(openai_server).stream("x"))


# --------------------------------------------------------------------------- tools


def search(query: str, k: int = 4, sources: list[str] | None = None, mode: Literal["a", "b"] = "a"):
    """Search the index.

    Longer text that is not part of the description.
    """


def test_functions_become_openai_tool_specs():
    assert convert_to_openai_tool(search) == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the index. Longer text that is not part of the description.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "k": {"type": "integer", "default": 4},
                    "sources": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                        "default": None,
                    },
                    "mode": {"enum": ["a", "b"], "type": "string", "default": "a"},
                },
                "required": ["query"],
            },
        },
    }
    bare = {"name": "f", "description": "d", "parameters": {"type": "object", "properties": {}}}
    assert convert_to_openai_tool(bare) == {"type": "function", "function": bare}
    with pytest.raises(InvalidInputError, match="a tool dict needs a 'name'"):
        convert_to_openai_tool({"description": "nameless"})


def test_bind_tools_sends_the_tools_and_the_choice(openai_server):
    model = make_model(openai_server).bind_tools([search], tool_choice="search")
    model.invoke("find")
    body = bodies(openai_server)[0]
    assert body["tools"] == [convert_to_openai_tool(search)]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "search"}}
    make_model(openai_server).bind_tools([search], tool_choice="any").invoke("x")
    assert bodies(openai_server)[1]["tool_choice"] == "required"


@pytest.mark.parametrize(
    ("tools", "choice", "message"),
    [
        ([lambda a: a], None, "cannot describe <function"),
        ([int], None, "cannot describe <class 'int'> as a tool"),
        ([{"name": "f"}], 3, "tool_choice must be a str, True or a dict, got 3"),
        ([search, {"name": "f"}], True, "tool_choice=True means 'call the only tool', but 2"),
    ],
)
def test_bind_tools_refuses_what_it_cannot_describe(openai_server, tools, choice, message):
    with pytest.raises(InvalidInputError) as info:
        make_model(openai_server).bind_tools(tools, tool_choice=choice)
    assert str(info.value).startswith(message)


def test_bind_tools_takes_tools_pydantic_classes_and_true(openai_server):
    pydantic = pytest.importorskip("pydantic")
    from ragline.core import BaseTool

    class Multiply(pydantic.BaseModel):
        """Multiply two integers together."""

        a: int = pydantic.Field(..., description="First integer")
        b: int = pydantic.Field(..., description="Second integer")

    class Weather(BaseTool):
        name = "weather"
        description = "Weather in a city."

        def _run(self, city: str) -> str:
            return "sunny"

    make_model(openai_server).bind_tools([Multiply, Weather()], strict=True).invoke("x")
    make_model(openai_server).bind_tools([Weather()], tool_choice=True).invoke("x")
    first, second = bodies(openai_server)
    a = {"description": "First integer", "type": "integer"}
    b = {"description": "Second integer", "type": "integer"}
    assert first["tools"] == [
        {"type": "function", "function": {
            "name": "Multiply", "description": "Multiply two integers together.", "strict": True,
            "parameters": {"properties": {"a": a, "b": b}, "required": ["a", "b"],
                           "type": "object", "additionalProperties": False}}},
        {"type": "function", "function": {
            "name": "weather", "description": "Weather in a city.", "strict": True,
            "parameters": {"properties": {"city": {"type": "string"}}, "required": ["city"],
                           "type": "object", "additionalProperties": False}}},
    ]  # fmt: skip
    assert second["tool_choice"] == {"type": "function", "function": {"name": "weather"}}


def test_bind_tools_rejects_an_unknown_choice(openai_server):
    with pytest.raises(InvalidInputError) as info:
        make_model(openai_server).bind_tools([search], tool_choice="serch")
    assert str(info.value) == (
        "tool_choice 'serch' is not one of 'auto', 'none', 'required', 'any', 'search'"
    )


def test_importing_without_the_openai_package_names_the_extra(openai_server, monkeypatch):
    model = make_model(openai_server)  # the constructor needs no openai
    monkeypatch.setitem(sys.modules, "openai", None)  # makes `import openai` fail
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragline\[openai\]'"):
        model.invoke("x")
    assert openai_server.requests == []


def test_closing_a_stream_early_ends_the_run_and_the_response(openai_server):
    gate = threading.Event()
    openai_server.enqueue(
        CHAT_PATH, Reply(events=chat_completion_chunks(["first", " second"]), gate=gate)
    )
    collector = RunCollectorCallbackHandler()
    stream = make_model(openai_server).stream("x", {"callbacks": [collector]})
    assert next(stream).content == "first"
    stream.close()  # the consumer stops reading while the server still holds the rest
    gate.set()
    assert [event for event, _ in collector.event_log] == [
        "chat_model_start",
        "llm_new_token",
        "llm_end",
    ]
    assert collector.traced_runs[0].outputs["generations"][0][0]["text"] == "first"
    assert make_model(openai_server).invoke("again").content == "echo: again"  # client still fine


async def test_closing_an_async_chain_stream_early_ends_the_runs_and_the_response(openai_server):
    gate = threading.Event()
    openai_server.enqueue(
        CHAT_PATH, Reply(events=chat_completion_chunks(["first", " second"]), gate=gate)
    )
    collector = RunCollectorCallbackHandler()
    model = make_model(openai_server)
    stream = (model | StrOutputParser()).astream("x", {"callbacks": [collector]})
    assert await anext(stream) == "first"
    await stream.aclose()  # the consumer stops reading while the server still holds the rest
    gate.set()
    assert [event for event, _ in collector.event_log] == [
        "chain_start", "chat_model_start", "llm_new_token", "chain_start",
        "llm_end", "chain_end", "chain_end",
    ]  # fmt: skip
    model_run = collector.traced_runs[0].find("ChatOpenAI")
    assert model_run.outputs["generations"][0][0]["text"] == "first"
    assert (await model.ainvoke("again")).content == "echo: again"  # client still fine


async def test_async_streaming_invoke(openai_server):
    reply = await make_model(openai_server, streaming=True).ainvoke("a b")
    assert (reply.content, reply.usage_metadata) == ("echo: a b", USAGE)
    assert bodies(openai_server)[0]["stream"] is True


def test_chat_openai_counts_tokens_by_openais_rule() -> None:
    """3 per message + role + content (+1 and the name), 3 to prime the reply; the base
    models count transcript lines instead (LangChain's two rules)."""
    from ragline.core import HumanMessage, SystemMessage

    model = ChatOpenAI(api_key="sk-none")
    assert model.get_num_tokens_from_messages([("user", "hello")]) == 3 + (3 + 1 + 1)
    assert model.get_num_tokens_from_messages(
        [SystemMessage("You are helpful."), HumanMessage("What is RAG?", name="ada")]
    ) == 3 + (3 + 1 + 4) + (3 + 1 + 5 + 1 + 1)  # "What is RAG?" is 5 tokens


def test_chat_openai_counts_messages_with_its_tokenizer_beside_custom_token_ids() -> None:
    """custom_get_token_ids answers get_token_ids and get_num_tokens, but the message
    count keeps OpenAI's tokenizer, as LangChain's ChatOpenAI (its count encodes the
    messages itself)."""
    model = ChatOpenAI(api_key="sk-none", custom_get_token_ids=lambda text: [1])
    assert (model.get_token_ids("a b"), model.get_num_tokens("a b c d")) == ([1], 1)
    messages = [("user", "hello there")]
    plain = ChatOpenAI(api_key="sk-none").get_num_tokens_from_messages(messages)
    assert model.get_num_tokens_from_messages(messages) == plain == 3 + (3 + 1 + 2)


def test_standard_content_blocks_are_sent_in_chat_completions_form(openai_server):
    # expected wire forms checked against langchain_openai's ChatOpenAI for the same blocks
    content = [
        {"type": "text", "text": "look"},
        {"type": "image", "url": "https://example.test/a.png"},
        {"type": "image", "base64": "iVBO", "mime_type": "image/png"},
        {"type": "audio", "base64": "UklG", "mime_type": "audio/wav"},
        {"type": "file", "file_id": "file-7"},
        {"type": "file", "base64": "JVBE", "mime_type": "application/pdf", "filename": "r.pdf"},
        {"type": "image", "source_type": "url", "url": "https://example.test/b.png"},  # v0
        {"type": "image_url", "image_url": {"url": "https://example.test/c.png", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
        {"type": "file", "file": {"file_id": "file-8"}},
        {"type": "custom-kind", "value": 1},
    ]
    message = HumanMessage(content)
    make_model(openai_server).invoke([message])
    assert bodies(openai_server)[0]["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "https://example.test/a.png"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
                {"type": "file", "file": {"file_id": "file-7"}},
                {
                    "type": "file",
                    "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "r.pdf"},
                },
                {"type": "image_url", "image_url": {"url": "https://example.test/b.png"}},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://example.test/c.png", "detail": "low"},
                },
                {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
                {"type": "file", "file": {"file_id": "file-8"}},
                {"type": "custom-kind", "value": 1},
            ],
        }
    ]
    assert message.content == content  # the caller's message is left as it was


def test_a_base64_file_without_a_name_is_sent_with_langchains_placeholder(openai_server):
    block = {"type": "file", "base64": "JVBE", "mime_type": "application/pdf"}
    with pytest.warns(UserWarning, match="filename"):
        make_model(openai_server).invoke([HumanMessage([block])])
    [message] = bodies(openai_server)[0]["messages"]
    assert message["content"] == [
        {
            "type": "file",
            "file": {
                "file_data": "data:application/pdf;base64,JVBE",
                "filename": "LC_AUTOGENERATED",
            },
        }
    ]


def test_a_bare_string_in_a_content_list_is_sent_as_a_text_part(openai_server):
    # LangChain sends the bare string as it is, which Chat Completions refuses: its content
    # parts are objects (docs/differences-from-langchain.md)
    image = {"type": "image", "url": "https://example.test/a.png"}
    make_model(openai_server).invoke([HumanMessage(["see", image])])
    [message] = bodies(openai_server)[0]["messages"]
    assert message["content"] == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "https://example.test/a.png"}},
    ]


def test_raw_tool_calls_that_are_not_dicts_are_refused_before_any_request(openai_server):
    # nothing was parsed from them (no 'function'), and Chat Completions takes objects
    message = AIMessage("", additional_kwargs={"tool_calls": ["add(1, 2)"]})
    with pytest.raises(InvalidInputError, match=r"additional_kwargs\['tool_calls'\] \['add"):
        make_model(openai_server).invoke([HumanMessage("add"), message])
    assert bodies(openai_server) == []

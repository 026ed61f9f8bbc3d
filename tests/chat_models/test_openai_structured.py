"""``ChatOpenAI.with_structured_output`` over HTTP: ``json_schema`` (the default, as in
LangChain's ChatOpenAI), ``function_calling`` and ``json_mode``, against the local
OpenAI-protocol server, which answers structured requests by filling the schema it was
sent (tests/_openai_server.py ``fill_schema``: strings are ``"<field>: <user text>"``,
integers the user text's length)."""

from __future__ import annotations

from typing import Optional, TypedDict

import pytest
from _openai_server import CHAT_PATH, OpenAITestServer, Reply, chat_completion
from pydantic import BaseModel, Field

from ragline.chat_models import ChatOpenAI
from ragline.core import (
    AIMessage,
    ChatPromptTemplate,
    InvalidInputError,
    OutputParserException,
    PydanticOutputParser,
)

pytestmark = pytest.mark.network


class Joke(BaseModel):
    """A joke to tell."""

    setup: str = Field(description="the question")
    rating: Optional[int] = None  # noqa: UP045  (pydantic reads the annotation at run time)


class City(TypedDict):
    name: str
    population: int


JOKE_PARAMETERS = {
    "properties": {
        "setup": {"description": "the question", "type": "string"},
        "rating": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    },
    "required": ["setup"],
    "type": "object",
}


def make_model(server: OpenAITestServer) -> ChatOpenAI:
    return ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model")


def last_body(server: OpenAITestServer) -> dict:
    return server.requests_to(CHAT_PATH)[-1].body


def test_json_schema_is_the_default_and_sends_the_schema(openai_server):
    structured = make_model(openai_server).with_structured_output(Joke)
    assert structured.invoke("Tell a joke") == Joke(setup="setup: Tell a joke", rating=11)
    body = last_body(openai_server)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Joke",
            "description": "A joke to tell.",
            "schema": JOKE_PARAMETERS,
            "strict": False,
        },
    }
    assert "tools" not in body and "tool_choice" not in body


def test_json_schema_strict_closes_every_object(openai_server):
    make_model(openai_server).with_structured_output(City, strict=True).invoke("Paris")
    assert last_body(openai_server)["response_format"]["json_schema"] == {
        "name": "City",
        "schema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
            "required": ["name", "population"],
            "additionalProperties": False,
        },
        "strict": True,
    }


def test_function_calling_forces_the_one_tool(openai_server):
    structured = make_model(openai_server).with_structured_output(Joke, method="function_calling")
    assert structured.invoke("Tell a joke") == Joke(setup="setup: Tell a joke", rating=11)
    body = last_body(openai_server)
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Joke",
                "description": "A joke to tell.",
                "parameters": JOKE_PARAMETERS,
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "Joke"}}
    assert "response_format" not in body


def test_function_calling_streams_the_dict_as_the_arguments_arrive(openai_server):
    structured = make_model(openai_server).with_structured_output(City, method="function_calling")
    # the server sends '{"name": "name: Paris", "population": 5}' in three pieces:
    # '{"name": "name', ': Paris", "pop' and 'ulation": 5}' (after the call's name)
    assert list(structured.stream("Paris")) == [
        {},
        {"name": "name"},
        {"name": "name: Paris"},
        {"name": "name: Paris", "population": 5},
    ]


def test_json_mode_parses_the_reply_text(openai_server):
    model = make_model(openai_server)
    assert model.with_structured_output(None, method="json_mode").invoke("hi") == {"echo": "hi"}
    assert last_body(openai_server)["response_format"] == {"type": "json_object"}
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer in JSON.\n{format}"), ("human", "{question}")]
    ).partial(format=PydanticOutputParser(pydantic_object=Joke).get_format_instructions())
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion('{"setup": "Why?", "rating": 3}')))
    chain = prompt | model.with_structured_output(Joke, method="json_mode")
    assert chain.invoke({"question": "A joke?"}) == Joke(setup="Why?", rating=3)
    system = last_body(openai_server)["messages"][0]["content"]
    assert system.startswith("Answer in JSON.\nReply with one JSON object and nothing else.")


def test_a_json_schema_dict_gives_a_dict(openai_server):
    schema = {
        "title": "Answer",
        "description": "The answer.",
        "type": "object",
        "properties": {"text": {"type": "string"}, "sure": {"type": "boolean"}},
        "required": ["text", "sure"],
    }
    model = make_model(openai_server)
    for method in ("json_schema", "function_calling"):
        assert model.with_structured_output(schema, method=method).invoke("why") == {
            "text": "text: why",
            "sure": True,
        }


def test_include_raw_keeps_the_message_and_reports_errors(openai_server):
    model = make_model(openai_server)
    result = model.with_structured_output(Joke, method="function_calling", include_raw=True).invoke(
        "Tell a joke"
    )
    raw = result["raw"]
    assert isinstance(raw, AIMessage) and raw.tool_calls[0]["id"] == "call_1"
    assert raw.usage_metadata == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}
    assert (result["parsed"], result["parsing_error"]) == (
        Joke(setup="setup: Tell a joke", rating=11),
        None,
    )
    openai_server.enqueue(CHAT_PATH, Reply(body=chat_completion('{"rating": "high"}')))
    broken = model.with_structured_output(Joke, include_raw=True).invoke("x")
    assert broken["raw"].content == '{"rating": "high"}' and broken["parsed"] is None
    assert str(broken["parsing_error"]).startswith(
        "the model's JSON does not fit Joke: 2 validation errors for Joke"
    )


def test_a_refusal_is_an_error_that_says_so(openai_server):
    body = chat_completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    openai_server.enqueue(CHAT_PATH, Reply(body=body))
    with pytest.raises(OutputParserException) as caught:
        make_model(openai_server).with_structured_output(Joke).invoke("x")
    assert str(caught.value) == "the model refused to answer: I can't help with that."


async def test_async_structured_output(openai_server):
    model = make_model(openai_server)
    assert await model.with_structured_output(City).ainvoke("Rome") == {
        "name": "name: Rome",
        "population": 4,
    }
    chunks = [c async for c in model.with_structured_output(City, method="function_calling")
              .astream("Rome")]  # fmt: skip
    assert chunks[-1] == {"name": "name: Rome", "population": 4}
    result = await model.with_structured_output(Joke, include_raw=True).ainvoke("Rome")
    assert result["parsed"] == Joke(setup="setup: Rome", rating=4)


def test_a_schema_without_a_name_is_refused_before_any_request(openai_server):
    with pytest.raises(InvalidInputError, match="JSON Schema dict with a 'title'"):
        make_model(openai_server).with_structured_output({"type": "object", "properties": {}})
    assert openai_server.requests == []

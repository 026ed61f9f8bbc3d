"""``with_structured_output`` on the fake chat models: the schema kinds, the methods,
``include_raw`` and the errors (``ChatOpenAI`` over HTTP: tests/chat_models)."""

from __future__ import annotations

from typing import Annotated, TypedDict

import pytest
from _run_ids import no_run_ids
from pydantic import BaseModel, Field

from ragline.core import (
    AIMessage,
    BaseChatModel,
    ChatPromptTemplate,
    ConfigurationError,
    FakeListChatModel,
    FakeMessagesListChatModel,
    InvalidInputError,
    OutputParserException,
    RunCollectorCallbackHandler,
)


class Joke(BaseModel):
    """A joke to tell."""

    setup: str = Field(description="the question")
    punchline: str


class Movie(TypedDict):
    """A film."""

    title: Annotated[str, ..., "its title"]
    year: int


MOVIE_SCHEMA = {
    "title": "Movie",
    "description": "A film.",
    "type": "object",
    "properties": {"title": {"type": "string"}, "year": {"type": "integer"}},
    "required": ["title", "year"],
}
JOKE_TOOL = {
    "type": "function",
    "function": {
        "name": "Joke",
        "description": "A joke to tell.",
        "parameters": {
            "properties": {
                "setup": {"description": "the question", "type": "string"},
                "punchline": {"type": "string"},
            },
            "required": ["setup", "punchline"],
            "type": "object",
        },
    },
}


def calling(name: str, args: dict) -> FakeMessagesListChatModel:
    return FakeMessagesListChatModel(
        responses=[AIMessage("", tool_calls=[{"name": name, "args": args, "id": "call_1"}])]
    )


def test_function_calling_with_a_pydantic_class_gives_an_instance():
    model = calling("Joke", {"setup": "Why?", "punchline": "Because."})
    structured = model.with_structured_output(Joke)
    assert structured.invoke("Tell a joke") == Joke(setup="Why?", punchline="Because.")
    assert model.call_options == [
        {"tools": [JOKE_TOOL], "tool_choice": "any"}
    ]  # as LangChain's base model


def test_function_calling_with_a_typeddict_or_a_json_schema_gives_a_dict():
    model = calling("Movie", {"title": "Alien", "year": 1979})
    assert model.with_structured_output(Movie).invoke("A film?") == {"title": "Alien", "year": 1979}
    assert model.with_structured_output(MOVIE_SCHEMA).invoke("A film?") == {
        "title": "Alien", "year": 1979,
    }  # fmt: skip
    typed, schema = (options["tools"][0]["function"] for options in model.call_options)
    assert typed == {
        "name": "Movie",
        "description": "A film.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "its title"},
                "year": {"type": "integer"},
            },
            "required": ["title", "year"],
        },
    }
    assert schema["name"] == "Movie" and schema["parameters"]["required"] == ["title", "year"]


def test_the_answer_streams_as_the_arguments_arrive():
    model = calling("Movie", {"title": "Alien", "year": 1979})
    # the fake streams a call's arguments in one piece: one dict, then nothing new
    assert list(model.with_structured_output(Movie).stream("A film?")) == [
        {"title": "Alien", "year": 1979}
    ]


def test_include_raw_returns_the_message_the_answer_and_no_error():
    model = calling("Joke", {"setup": "a", "punchline": "b"})
    result = model.with_structured_output(Joke, include_raw=True).invoke("x")
    assert no_run_ids(result) == {
        "raw": AIMessage(
            "",
            tool_calls=[{"name": "Joke", "args": {"setup": "a", "punchline": "b"}, "id": "call_1"}],
        ),
        "parsed": Joke(setup="a", punchline="b"),
        "parsing_error": None,
    }


def test_include_raw_reports_a_reply_that_does_not_parse():
    model = calling("Joke", {"setup": "only a setup"})
    result = model.with_structured_output(Joke, include_raw=True).invoke("x")
    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], OutputParserException)
    # pydantic's error, as LangChain raises it (and still an OutputParserException)
    assert type(result["parsing_error"]).__name__ == "ValidationError"
    assert str(result["parsing_error"]).startswith("1 validation error for Joke\npunchline")
    with pytest.raises(OutputParserException, match="validation error for Joke"):
        model.with_structured_output(Joke).invoke("x")


def test_no_tool_call_means_none_as_in_langchain():
    model = FakeMessagesListChatModel(responses=["I'd rather not."])
    assert model.with_structured_output(Joke).invoke("x") is None
    raw = model.with_structured_output(Joke, include_raw=True).invoke("x")
    assert (raw["raw"].content, raw["parsed"], raw["parsing_error"]) == (
        "I'd rather not.",
        None,
        None,
    )


async def test_async_invoke_with_and_without_raw():
    model = calling("Joke", {"setup": "a", "punchline": "b"})
    assert await model.with_structured_output(Joke).ainvoke("x") == Joke(setup="a", punchline="b")
    result = await model.with_structured_output(Joke, include_raw=True).ainvoke("x")
    assert result["parsed"] == Joke(setup="a", punchline="b")


def test_json_schema_and_json_mode_send_a_response_format():
    model = FakeListChatModel(responses=['{"title": "Alien", "year": 1979}'])
    assert model.with_structured_output(Movie, method="json_schema").invoke("?") == {
        "title": "Alien", "year": 1979,
    }  # fmt: skip
    assert model.with_structured_output(None, method="json_mode").invoke("?") == {
        "title": "Alien", "year": 1979,
    }  # fmt: skip
    strict = model.with_structured_output(Joke, method="json_schema", strict=True)
    with pytest.raises(OutputParserException, match="does not fit Joke"):
        strict.invoke("?")
    typed, mode, pydantic = model.response_formats
    assert typed == {
        "type": "json_schema",
        "json_schema": {
            "name": "Movie",
            "description": "A film.",
            "schema": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "its title"},
                    "year": {"type": "integer"},
                },
                "required": ["title", "year"],
            },
            "strict": False,
        },
    }
    assert mode == {"type": "json_object"}
    assert pydantic["json_schema"]["strict"] is True
    assert pydantic["json_schema"]["schema"]["additionalProperties"] is False


def test_the_default_method_is_the_first_the_model_supports():
    text_model = FakeListChatModel(responses=['{"title": "Up", "year": 2009}'])
    assert text_model.with_structured_output(Movie).invoke("?") == {"title": "Up", "year": 2009}
    assert text_model.response_formats[0]["type"] == "json_schema"
    assert FakeMessagesListChatModel.structured_output_methods[0] == "function_calling"


def test_unsupported_methods_and_bad_schemas_are_refused_when_built():
    with pytest.raises(ConfigurationError) as caught:
        FakeListChatModel(responses=["x"]).with_structured_output(Joke, method="function_calling")
    assert str(caught.value) == (
        "FakeListChatModel does not support method='function_calling' (it has no "
        "bind_tools); it supports 'json_schema', 'json_mode'"
    )
    model = calling("Joke", {})
    with pytest.raises(ConfigurationError, match="method 'json' is not one of"):
        model.with_structured_output(Joke, method="json")
    with pytest.raises(InvalidInputError, match="needs a schema"):
        model.with_structured_output(None)
    with pytest.raises(InvalidInputError, match="cannot use \\{'type': 'object'\\} as a schema"):
        model.with_structured_output({"type": "object"})


def test_a_custom_model_without_bind_tools_says_so():
    class Echo(BaseChatModel):
        def _generate(self, messages, stop=None):
            return AIMessage(messages[-1].text)

    with pytest.raises(ConfigurationError, match="has no bind_tools"):
        Echo().with_structured_output(Joke)


def test_a_prompt_chain_reports_the_model_and_the_parser():
    collector = RunCollectorCallbackHandler()
    model = calling("Joke", {"setup": "a", "punchline": "b"})
    prompt = ChatPromptTemplate.from_messages([("human", "Tell a joke about {topic}")])
    chain = prompt | model.with_structured_output(Joke)
    assert chain.invoke({"topic": "cats"}, {"callbacks": [collector]}) == Joke(
        setup="a", punchline="b"
    )
    [run] = collector.traced_runs
    assert [child.name for child in run.children] == [
        "ChatPromptTemplate",
        "FakeMessagesListChatModel",
        "PydanticToolsParser",
    ]
    assert model.calls[0][0].content == "Tell a joke about cats"


def test_a_pydantic_title_names_the_tool_as_in_langchain():
    from pydantic import ConfigDict

    class Titled(BaseModel):
        model_config = ConfigDict(title="Verdict")
        guilty: bool

    model = calling("Verdict", {"guilty": False})
    assert model.with_structured_output(Titled).invoke("?") == Titled(guilty=False)
    assert model.call_options[0]["tools"][0]["function"]["name"] == "Verdict"

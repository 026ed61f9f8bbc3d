"""Structured parsers: JSON with a schema, pydantic, tool calls, and the retrying parsers.

Expected outputs are LangChain's documented behaviour for the same inputs (the tool-call
parsers' shapes were checked against langchain-core's; their wording is ours).
"""

from __future__ import annotations

from typing import TypedDict

import pytest
from pydantic import BaseModel, Field

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    ChatGeneration,
    FakeListChatModel,
    Generation,
    InvalidInputError,
    JsonOutputKeyToolsParser,
    JsonOutputParser,
    JsonOutputToolsParser,
    OutputFixingParser,
    OutputParserException,
    PromptTemplate,
    PydanticOutputParser,
    PydanticToolsParser,
    RetryOutputParser,
    RetryWithErrorOutputParser,
    RunCollectorCallbackHandler,
    RunnableParallel,
    StrOutputParser,
)


class Joke(BaseModel):
    """A joke."""

    setup: str = Field(description="the question")
    punchline: str


class Movie(TypedDict):
    """A film."""

    title: str
    year: int


JOKE_SCHEMA_LINE = (
    '{"description": "A joke.", "properties": {"setup": {"description": "the question", '
    '"title": "Setup", "type": "string"}, "punchline": {"title": "Punchline", "type": '
    '"string"}}, "required": ["setup", "punchline"], "type": "object"}'
)
INSTRUCTIONS_HEAD = (
    "Reply with one JSON object and nothing else. It must be valid against the JSON Schema "
    "below (fill in values: do not repeat the schema).\n```json\n"
)


# ---------------------------------------------------------------- JSON and pydantic


def test_json_errors_are_output_parser_exceptions_with_the_reply():
    with pytest.raises(OutputParserException) as caught:
        JsonOutputParser().invoke("the answer is 4")
    assert str(caught.value) == (
        "model output is not valid JSON (Expecting value: line 1 column 1 (char 0)): "
        "'the answer is 4'"
    )
    assert caught.value.llm_output == "the answer is 4"
    assert isinstance(caught.value, InvalidInputError)  # still the error ragline raised before


def test_format_instructions_show_the_schema_without_its_title():
    assert JsonOutputParser().get_format_instructions() == "Return a JSON object and nothing else."
    expected = INSTRUCTIONS_HEAD + JOKE_SCHEMA_LINE + "\n```"
    assert JsonOutputParser(pydantic_object=Joke).get_format_instructions() == expected
    assert PydanticOutputParser(pydantic_object=Joke).get_format_instructions() == expected
    movie = JsonOutputParser(pydantic_object=Movie).get_format_instructions()
    assert movie == INSTRUCTIONS_HEAD + (
        '{"type": "object", "properties": {"title": {"type": "string", "title": "Title"}, '
        '"year": {"type": "integer", "title": "Year"}}, "required": ["title", "year"], '
        '"description": "A film."}\n```'
    )
    schema = {"title": "T", "type": "object", "properties": {"a": {"type": "number"}}}
    assert JsonOutputParser(pydantic_object=schema).get_format_instructions() == (
        INSTRUCTIONS_HEAD + '{"type": "object", "properties": {"a": {"type": "number"}}}\n```'
    )


def test_json_parser_with_a_schema_still_returns_dicts():
    parser = JsonOutputParser(pydantic_object=Joke)
    assert parser.invoke('{"setup": "s", "punchline": "p"}') == {"setup": "s", "punchline": "p"}
    # the output is any JSON, as LangChain's (its output schema ignores pydantic_object)
    assert parser.output_schema.model_json_schema() == {"title": "JsonOutputParserOutput"}
    with pytest.raises(InvalidInputError, match="pydantic model class, a TypedDict or a JSON"):
        JsonOutputParser(pydantic_object=42)


def test_pydantic_parser_validates_into_the_model():
    parser = PydanticOutputParser(pydantic_object=Joke)
    assert parser.invoke('```json\n{"setup": "Why?", "punchline": "Because."}\n```') == Joke(
        setup="Why?", punchline="Because."
    )
    with pytest.raises(OutputParserException) as caught:
        parser.invoke('{"setup": 1}')
    message = str(caught.value)
    assert message.startswith("the model's JSON does not fit Joke: 2 validation errors for Joke")
    assert "punchline\n  Field required" in message
    assert caught.value.llm_output == '{"setup": 1}'
    with pytest.raises(OutputParserException, match="not valid JSON"):
        parser.invoke("no JSON")
    with pytest.raises(InvalidInputError, match="needs a pydantic model class, got <class"):
        PydanticOutputParser(pydantic_object=Movie)


def test_pydantic_parser_streams_instances_once_they_validate():
    chain = FakeListChatModel(responses=['{"setup": "ab", "punchline": "cd"}']) | (
        PydanticOutputParser(pydantic_object=Joke)
    )
    assert list(chain.stream("x")) == [  # what LangChain streams for the same reply
        Joke(setup="ab", punchline=""),
        Joke(setup="ab", punchline="c"),
        Joke(setup="ab", punchline="cd"),
    ]
    bad = FakeListChatModel(responses=['{"setup": "ab"}']) | PydanticOutputParser(
        pydantic_object=Joke
    )
    with pytest.raises(OutputParserException, match="does not fit Joke"):
        list(bad.stream("x"))


async def test_pydantic_parser_streams_asynchronously():
    chain = FakeListChatModel(responses=['{"setup": "a", "punchline": "b"}']) | (
        PydanticOutputParser(pydantic_object=Joke)
    )
    assert [joke async for joke in chain.astream("x")][-1] == Joke(setup="a", punchline="b")


def test_parse_result_reads_the_first_generation():
    assert JsonOutputParser().parse_result([Generation(text='{"a": 1}')]) == {"a": 1}
    message = AIMessage("", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "1"}])
    assert JsonOutputToolsParser().parse_result([ChatGeneration(message=message)]) == [
        {"args": {"x": 1}, "type": "f"}
    ]
    with pytest.raises(InvalidInputError, match="at least one generation"):
        StrOutputParser().parse_result([])


# ---------------------------------------------------------------- tool calls

REPLY = AIMessage(
    "",
    tool_calls=[
        {"name": "Joke", "args": {"setup": "a", "punchline": "b"}, "id": "1"},
        {"name": "x", "args": {"q": 1}, "id": "2"},
    ],
)


def test_tools_parsers_return_langchains_shapes():
    assert JsonOutputToolsParser().invoke(REPLY) == [
        {"args": {"setup": "a", "punchline": "b"}, "type": "Joke"},
        {"args": {"q": 1}, "type": "x"},
    ]
    assert JsonOutputToolsParser(return_id=True, first_tool_only=True).invoke(REPLY) == {
        "args": {"setup": "a", "punchline": "b"}, "id": "1", "type": "Joke",
    }  # fmt: skip
    assert JsonOutputKeyToolsParser(key_name="x").invoke(REPLY) == [{"q": 1}]
    assert JsonOutputKeyToolsParser(key_name="x", first_tool_only=True, return_id=True).invoke(
        REPLY
    ) == {"args": {"q": 1}, "id": "2", "type": "x"}
    assert JsonOutputKeyToolsParser(key_name="zz", first_tool_only=True).invoke(REPLY) is None
    assert JsonOutputToolsParser(first_tool_only=True).invoke(AIMessage("text only")) is None
    assert JsonOutputToolsParser().invoke(AIMessage("text only")) == []


def test_pydantic_tools_parser_builds_the_models():
    joke_only = AIMessage("", tool_calls=REPLY.tool_calls[:1])
    assert PydanticToolsParser(tools=[Joke]).invoke(joke_only) == [Joke(setup="a", punchline="b")]
    with pytest.raises(OutputParserException) as caught:
        PydanticToolsParser(tools=[Joke]).invoke(REPLY)
    assert str(caught.value) == "the model called 'x', which is none of the tools offered (Joke)"
    bad = AIMessage("", tool_calls=[{"name": "Joke", "args": {"setup": "a"}, "id": "1"}])
    with pytest.raises(OutputParserException, match="1 validation error for Joke") as err:
        PydanticToolsParser(tools=[Joke], first_tool_only=True).invoke(bad)
    assert err.value.llm_output == '{"setup": "a"}'
    with pytest.raises(InvalidInputError, match="takes pydantic model classes"):
        PydanticToolsParser(tools=[Movie])


def test_tools_parsers_refuse_text_and_report_unparsable_arguments():
    with pytest.raises(OutputParserException, match="reads a chat model's tool calls"):
        JsonOutputToolsParser().invoke("plain text")
    broken = AIMessage(
        "",
        invalid_tool_calls=[{"name": "x", "args": '{"q": ', "id": "2", "error": "cut short"}],
    )
    with pytest.raises(OutputParserException) as caught:
        JsonOutputKeyToolsParser(key_name="x").invoke(broken)
    assert str(caught.value) == (
        "the arguments of the model's call to 'x' are not a JSON object (cut short): '{\"q\": '"
    )
    assert caught.value.llm_output == '{"q": '
    # an unparsable call to another tool is none of this parser's business
    assert JsonOutputKeyToolsParser(key_name="y").invoke(broken) == []


def test_tools_parsers_stream_growing_arguments():
    pieces = ['{"setup": "a', 'b", "punch', 'line": "c"}']
    chunks = [AIMessageChunk("", tool_call_chunks=[
        {"name": "Joke", "args": "", "id": "1", "index": 0}])] + [
        AIMessageChunk("", tool_call_chunks=[{"name": None, "args": p, "id": None, "index": 0}])
        for p in pieces
    ]  # fmt: skip
    key = JsonOutputKeyToolsParser(key_name="Joke", first_tool_only=True)
    assert list(key.transform(iter(chunks))) == [
        {},
        {"setup": "a"},
        {"setup": "ab"},  # the unfinished key "punch" is held back
        {"setup": "ab", "punchline": "c"},
    ]
    pydantic = PydanticToolsParser(tools=[Joke], first_tool_only=True)
    assert list(pydantic.transform(iter(chunks))) == [Joke(setup="ab", punchline="c")]


# ---------------------------------------------------------------- retrying parsers


def test_output_fixing_parser_asks_the_model_with_instructions_reply_and_error():
    model = FakeListChatModel(responses=['{"setup": "s", "punchline": "p"}'])
    parser = PydanticOutputParser(pydantic_object=Joke)
    fixer = OutputFixingParser.from_llm(model, parser)
    assert fixer.parse('{"setup": "s"}') == Joke(setup="s", punchline="p")
    [[sent]] = model.calls
    error = repr(_error_of(parser, '{"setup": "s"}'))
    assert sent.content == (
        f"A reply had to follow these instructions:\n{parser.get_format_instructions()}\n\n"
        f'The reply was:\n{{"setup": "s"}}\n\nIt could not be used: {error}\n\n'
        "Write the reply again so that it follows the instructions. Answer with the "
        "corrected reply only."
    )
    assert fixer.get_format_instructions() == parser.get_format_instructions()
    assert fixer.invoke('{"setup": "x", "punchline": "y"}') == Joke(setup="x", punchline="y")
    assert len(model.calls) == 1  # a reply that parses needs no model call


class _Lines(BaseModel):
    lines: list[str]


class _LineListParser(PydanticOutputParser):
    """LangChain's old MultiQueryRetriever docs' parser: its own parse(), one item a line."""

    def __init__(self) -> None:
        super().__init__(pydantic_object=_Lines)

    def parse(self, text: str) -> _Lines:
        return _Lines(lines=text.strip().split("\n"))


def test_fixing_and_retry_parsers_read_with_a_json_subclass_own_parse():
    # LangChain's OutputFixingParser / RetryOutputParser call the inner parser's parse():
    # a subclass's own parse() reads "a\nb" and no model is asked. After e4f503c ragline's
    # JSON parsers read a reply without that parse() (invoke, as LangChain's), and the
    # wrappers went that way too: the model was asked and its "fix" returned
    model = FakeListChatModel(responses=['{"lines": ["from the model"]}'])
    fixer = OutputFixingParser.from_llm(model, _LineListParser())
    assert fixer.parse("a\nb") == _Lines(lines=["a", "b"])
    assert fixer.invoke(AIMessage("c\nd")) == _Lines(lines=["c", "d"])
    retry = RetryOutputParser.from_llm(model, _LineListParser())
    assert retry.parse_with_prompt("e\nf", PromptTemplate.from_template("q").invoke({})) == (
        _Lines(lines=["e", "f"])
    )
    assert model.calls == []
    refused = AIMessage("", additional_kwargs={"refusal": "no"})
    with pytest.raises(OutputParserException, match="the model refused to answer: no"):
        OutputFixingParser.from_llm(model, JsonOutputParser(), max_retries=0).invoke(refused)


def _error_of(parser, text):
    try:
        parser.parse(text)
    except OutputParserException as err:
        return err
    raise AssertionError("no error")


def test_output_fixing_parser_gives_up_after_max_retries():
    model = FakeListChatModel(responses=["still not JSON", "nor this"])
    fixer = OutputFixingParser.from_llm(model, JsonOutputParser(), max_retries=2)
    with pytest.raises(OutputParserException) as caught:
        fixer.parse("bad")
    assert caught.value.llm_output == "nor this"  # the last reply's error is raised
    assert len(model.calls) == 2
    no_retry = OutputFixingParser.from_llm(model, JsonOutputParser(), max_retries=0)
    with pytest.raises(OutputParserException):
        no_retry.parse("bad")
    assert len(model.calls) == 2
    with pytest.raises(InvalidInputError, match="max_retries"):
        OutputFixingParser.from_llm(model, JsonOutputParser(), max_retries=-1)
    with pytest.raises(InvalidInputError, match="wraps an output parser"):
        OutputFixingParser(parser="json", retry_chain=model)


async def test_output_fixing_parser_async_uses_the_async_chain():
    model = FakeListChatModel(responses=['{"a": 1}'])
    fixer = OutputFixingParser.from_llm(model, JsonOutputParser())
    assert await fixer.aparse("a is one") == {"a": 1}
    assert await fixer.ainvoke(AIMessage("a is one")) == {"a": 1}
    assert len(model.calls) == 2


def test_output_fixing_parser_runs_are_reported_under_the_parser():
    collector = RunCollectorCallbackHandler()
    model = FakeListChatModel(responses=['{"a": 1}'])
    fixer = OutputFixingParser.from_llm(model, JsonOutputParser())
    fixer.invoke("nope", {"callbacks": [collector]})
    [run] = collector.traced_runs
    assert (run.name, run.run_type) == ("OutputFixingParser", "parser")
    assert [child.name for child in run.children] == ["RunnableSequence"]


def test_retry_parser_needs_the_prompt_and_shows_it_to_the_model():
    model = FakeListChatModel(responses=['{"city": "Paris"}'])
    retry = RetryOutputParser.from_llm(model, JsonOutputParser())
    prompt = PromptTemplate.from_template("Capital of {country}, as JSON?")
    value = prompt.format_prompt(country="France")
    with pytest.raises(NotImplementedError, match="needs the prompt"):
        retry.parse("Paris")
    assert retry.parse_with_prompt("Paris", value) == {"city": "Paris"}
    assert model.calls[0][0].content == (
        "This request:\nCapital of France, as JSON?\n\nwas answered with:\nParis\n\n"
        "That answer does not meet the request's requirements. Answer the request again, "
        "meeting them. Answer with the new reply only."
    )


def test_retry_parser_in_a_chain_as_langchain_documents():
    prompt = PromptTemplate.from_template("Capital of {country}, as JSON?")
    answers = FakeListChatModel(responses=["Paris"])
    fixer_model = FakeListChatModel(responses=['{"city": "Paris"}'])
    retry = RetryWithErrorOutputParser.from_llm(fixer_model, JsonOutputParser())
    chain = RunnableParallel(completion=prompt | answers | StrOutputParser(), prompt_value=prompt)
    assert (chain | retry).invoke({"country": "France"}) == {"city": "Paris"}
    sent = fixer_model.calls[0][0].content
    assert sent.startswith("This request:\nCapital of France, as JSON?\n\nwas answered with:\n")
    assert "That answer could not be used: OutputParserException(" in sent


async def test_retry_parser_async():
    model = FakeListChatModel(responses=['{"ok": true}'])
    retry = RetryOutputParser.from_llm(model, JsonOutputParser())
    assert await retry.aparse_with_prompt("no", "Say ok as JSON") == {"ok": True}
    assert model.calls[0][0].content.startswith("This request:\nSay ok as JSON\n\n")

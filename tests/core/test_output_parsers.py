"""Output parsers: plain parsing, chunk-by-chunk streaming, partial JSON, their runs."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.core import (
    AIMessage,
    AIMessageChunk,
    BaseOutputParser,
    CommaSeparatedListOutputParser,
    FakeListChatModel,
    InvalidInputError,
    JsonOutputParser,
    RunCollectorCallbackHandler,
    RunnableLambda,
    StrOutputParser,
    _partial_json,
)
from ragline.core._partial_json import parse_partial_json

JSON_REPLY = '```json\n{"answer": "Paris", "sources": [1, 2]}\n```'


def test_str_parser_takes_text_or_a_message():
    assert StrOutputParser().invoke("plain") == "plain"
    assert StrOutputParser().invoke(AIMessage("from a model")) == "from a model"
    with pytest.raises(InvalidInputError, match="takes a str or a message, got int"):
        StrOutputParser().invoke(42)


def test_str_parser_transforms_chunks_one_by_one():
    seen: list[str] = []

    def chunks() -> Iterator[AIMessageChunk]:
        for piece in ["Hel", "lo", "!"]:
            seen.append(piece)
            yield AIMessageChunk(piece)

    out = StrOutputParser().transform(chunks())
    assert next(out) == "Hel"
    assert seen == ["Hel"]  # the parser did not wait for the rest of the input
    assert list(out) == ["lo", "!"]


def test_str_parser_streamed_run_reports_the_input_chunks_added_up():
    """As LangChain: the run's input is the streamed message chunks added up."""
    collector = RunCollectorCallbackHandler()
    chunks = iter([AIMessageChunk("a"), AIMessageChunk("b")])
    assert list(StrOutputParser().transform(chunks, {"callbacks": [collector]})) == ["a", "b"]
    [run] = collector.traced_runs
    assert (run.name, run.run_type, run.inputs, run.outputs) == (
        "StrOutputParser", "parser", {"input": AIMessageChunk("ab")}, {"output": "ab"},
    )  # fmt: skip


def test_json_parser_parses_fenced_and_bare_json():
    assert JsonOutputParser().invoke(JSON_REPLY) == {"answer": "Paris", "sources": [1, 2]}
    assert JsonOutputParser().invoke(AIMessage('[1, {"a": null}]')) == [1, {"a": None}]
    assert JsonOutputParser().parse('Sure! ```\n{"x": true}\n``` Anything else?') == {"x": True}


def test_json_parser_names_bad_output():
    with pytest.raises(
        InvalidInputError, match=r"model output is not valid JSON .*'I cannot help'"
    ):
        JsonOutputParser().invoke("I cannot help")


def test_json_parser_streams_progressively_more_complete_objects():
    model = FakeListChatModel(responses=['{"answer": "Pa", "n": [1, 23]}'])
    chain = model | JsonOutputParser()
    assert list(chain.stream("q")) == [
        {},
        {"answer": ""},
        {"answer": "P"},
        {"answer": "Pa"},
        {"answer": "Pa", "n": []},
        {"answer": "Pa", "n": [1]},
        {"answer": "Pa", "n": [1, 2]},
        {"answer": "Pa", "n": [1, 23]},
    ]


def test_json_parser_streams_through_a_markdown_fence():
    chunks = ["```js", "on\n", '{"a"', ': "x', 'y"}', "\n```"]
    assert list(JsonOutputParser().transform(iter(chunks))) == [
        {},
        {"a": "x"},
        {"a": "xy"},
    ]


def test_json_streamed_run_reports_the_last_object_not_a_sum():
    collector = RunCollectorCallbackHandler()
    chunks = iter(['{"a": "x', 'y"}'])
    assert list(JsonOutputParser().transform(chunks, {"callbacks": [collector]})) == [
        {"a": "x"},
        {"a": "xy"},
    ]
    assert collector.traced_runs[0].outputs == {"a": "xy"}
    assert collector.traced_runs[0].inputs == {"input": '{"a": "xy"}'}


def test_json_stream_that_never_parses_raises_and_reports_the_error():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        list(JsonOutputParser().transform(iter(["no ", "json"]), {"callbacks": [collector]}))
    assert [event for event, _ in collector.event_log] == ["chain_start", "chain_error"]


async def test_async_json_streaming():
    model = FakeListChatModel(responses=['{"k": [true]}'])
    chunks = [chunk async for chunk in (model | JsonOutputParser()).astream("q")]
    assert chunks == [{}, {"k": []}, {"k": [True]}]


async def test_async_str_streaming_and_invoke():
    chain = FakeListChatModel(responses=["abc"]) | StrOutputParser()
    assert [chunk async for chunk in chain.astream("q")] == ["a", "b", "c"]
    assert await StrOutputParser().ainvoke(AIMessage("x")) == "x"


def test_parser_after_a_non_streaming_step_gets_one_chunk():
    chain = RunnableLambda(lambda x: x + "!") | StrOutputParser()
    assert list(chain.stream("hi")) == ["hi!"]


def test_comma_separated_list():
    parser = CommaSeparatedListOutputParser()
    # LangChain's CSV reading: the space before a comma and the empty last item stay
    assert parser.invoke("red, green ,blue,") == ["red", "green ", "blue", ""]
    assert parser.invoke('"navy, dark", teal\ngrey') == ["navy, dark", "teal", "grey"]
    assert "comma-separated" in parser.get_format_instructions()


# --------------------------------------------------------------------------- partial JSON


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": ', {}),
        ('{"a": tr', {}),  # a half-written literal is dropped
        ('{"a": 1, ', {"a": 1}),  # so is a dangling comma
        ("[1, 2", [1, 2]),
        ('{"a": "x\\', {"a": "x"}),  # a lone trailing backslash cannot end a string
        ('{"q": "say \\"hi', {"q": 'say "hi'}),
        ('"abc', "abc"),
        ('{"ab', {}),  # a half-written key is dropped
        ('{"a": 1.', {"a": 1}),
        ('{"a": {"b": 1}, "c": tr', {"a": {"b": 1}}),
        ('{"a": "x", "b', {"a": "x"}),
        ('{"a": [', {"a": []}),
        ('[{"a": 1}, {"b', [{"a": 1}, {}]),
        ('{"a": 1} trailing words', {"a": 1}),
    ],
)
def test_partial_json_cases(text, expected):
    assert parse_partial_json(text) == expected


def test_partial_json_rejects_what_is_not_json():
    with pytest.raises(ValueError, match="not JSON"):
        parse_partial_json("Sorry, I cannot")


def test_a_fenced_stream_after_a_bracketed_note_is_scanned_once(monkeypatch):
    # The reply is read as itself first (it starts with '[', so it is scanned), then as
    # the fence's body: each of the two texts must resume its own scan chunk by chunk,
    # not rescan from the start (a whole stream costs a scan of its length).
    body = json.dumps({"items": list(range(60))})
    reply = "[note] see below\n```json\n" + body + "\n```"
    scanned = 0
    finditer = _partial_json._TOKEN.finditer

    def counting_finditer(text, pos=0):
        nonlocal scanned
        for match in finditer(text, pos):
            scanned += 1
            yield match

    monkeypatch.setattr(
        _partial_json, "_TOKEN", type("Counting", (), {"finditer": staticmethod(counting_finditer)})
    )
    parser, chunks = JsonOutputParser(), [reply[i : i + 5] for i in range(0, len(reply), 5)]
    assert list(parser.transform(iter(chunks)))[-1] == {"items": list(range(60))}
    tokens_once = len(list(finditer(reply)))
    assert scanned <= 2 * (tokens_once + len(chunks))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=8,
)


@settings(max_examples=50, deadline=None)
@given(
    st.dictionaries(st.text(max_size=5), json_values, max_size=4)
    | st.lists(json_values, max_size=4)
)
def test_every_prefix_of_a_json_document_parses(document):
    text = json.dumps(document)
    for end in range(1, len(text)):
        parsed = parse_partial_json(text[:end])
        assert isinstance(parsed, type(document))
    assert parse_partial_json(text) == document


async def test_bound_keyword_options_are_refused_not_dropped():
    bound = StrOutputParser().bind(strip=True)
    message = "StrOutputParser takes no keyword options, got strip"
    with pytest.raises(TypeError, match=message):
        bound.invoke("x")
    with pytest.raises(TypeError, match=message):
        list(bound.stream("x"))
    with pytest.raises(TypeError, match=message):
        await bound.ainvoke("x")
    with pytest.raises(TypeError, match=message):
        [chunk async for chunk in bound.astream("x")]


def test_a_hand_written_init_taking_name_itself_gets_it() -> None:
    # name= is every parser's (LangChain's Runnable field), added to a hand-written
    # __init__ by a wrapper; an __init__ with its own name parameter is left as written
    class Tagged(BaseOutputParser[tuple[str, list[str]]]):
        def __init__(self, name: str, sep: str = ",") -> None:
            super().__init__()
            self.label, self.sep = name, sep

        def parse(self, text: str) -> tuple[str, list[str]]:
            return self.label, text.split(self.sep)

    class Plain(BaseOutputParser[str]):
        def __init__(self, sep: str = ",") -> None:
            super().__init__()
            self.sep = sep

        def parse(self, text: str) -> str:
            return text

    tagged = Tagged(name="tags")
    assert (tagged.invoke("a,b"), tagged.name) == (("tags", ["a", "b"]), None)
    plain = Plain(name="mine", sep=";")
    assert (plain.sep, plain.name, plain.get_name()) == (";", "mine", "mine")

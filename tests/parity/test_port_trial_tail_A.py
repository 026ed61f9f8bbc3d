"""Parity: differences left in port-trial sets 1-6 (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print, read or catch.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException as LCOutputParserException
from langchain_core.messages import AIMessageChunk as LCAIMessageChunk
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser
from langchain_core.output_parsers import PydanticOutputParser as LCPydanticOutputParser
from pydantic import BaseModel

from ragline.core import JsonOutputParser
from ragline.core.exceptions import OutputParserException
from ragline.core.messages import AIMessageChunk
from ragline.core.output_parsers import PydanticOutputParser

COVERS = {"core.JsonOutputParser", "core.PydanticOutputParser"}


def outcome(call: Any, *args: Any) -> Any:
    """What a program sees: the value, or that an OutputParserException was raised."""
    try:
        return ("ok", call(*args))
    except (OutputParserException, LCOutputParserException) as err:
        return ("raised", type(err).__name__)


# Brackets that all close, but the text is not JSON: LangChain raises an
# OutputParserException; ragline's scanner cut it back to what parsed ({} or a shortened
# value) and returned that. Truncated replies (the streaming case) still parse to what
# has arrived, in both.
COMPLETE_BUT_NOT_JSON = [
    "{'name': 'Tom Hanks', 'film_names': ['Forrest Gump']}",  # set 2 parser_pydantic_fixing
    "[{'a': 1}]",
    '{"a": True}',
    '{"a": None, "b": 2}',
    '{"a": 1,}',
    '{"a": [1, 2,], "b": 3}',
    "{a: 1}",
    '{"a": "x" "b": 2}',
    "{\"a\": 1, 'b': 2}",
    "```json\n{'a': 1}\n```",
]
TRUNCATED_OR_TRAILING = [
    '{"a": {"b": 1}, "c": tr',
    '[{"a": 1}, {"b',
    '{"a": [1, 2',
    '{"a": "x", "b',
    '{"ab',
    '{"a": 1, "b": {"c": [1, 2, {"d": "e',
    '{"a": 1} trailing words',
]


@pytest.mark.parametrize("reply", COMPLETE_BUT_NOT_JSON + TRUNCATED_OR_TRAILING)
def test_json_output_parser_parse_as_langchains(reply):
    ours = outcome(JsonOutputParser().parse, reply)
    assert ours == outcome(LCJsonOutputParser().parse, reply)
    if reply in COMPLETE_BUT_NOT_JSON:
        assert ours == ("raised", "OutputParserException")


@pytest.mark.parametrize("reply", [*COMPLETE_BUT_NOT_JSON[:6], '{"a": 1, "b": True}'])
def test_json_output_parser_stream_as_langchains(reply):
    # a stream yields each new value that its text so far parses to (the lone "{" gives
    # {}), and a chunk that does not parse yields nothing, in both (ragline's stream of
    # a trailing comma in a list yielded the list cut short)
    chunks = [reply[i : i + 4] for i in range(0, len(reply), 4)]
    ours = outcome(lambda: list(JsonOutputParser().transform(iter(chunks))))
    assert ours == outcome(lambda: list(LCJsonOutputParser().transform(iter(chunks))))


def test_pydantic_parser_refuses_a_python_dict_reply_as_langchains():
    # set 2 parser_pydantic_fixing: a reply in Python's dict form is not JSON; LangChain
    # raises (so OutputFixingParser asks the model again), ragline validated {} instead
    class Actor(BaseModel):
        name: str
        film_names: list[str]

    reply = "{'name': 'Tom Hanks', 'film_names': ['Forrest Gump']}"
    ours = PydanticOutputParser(pydantic_object=Actor)
    theirs = LCPydanticOutputParser(pydantic_object=Actor)
    with pytest.raises(OutputParserException) as caught:
        ours.parse(reply)
    with pytest.raises(LCOutputParserException):
        theirs.parse(reply)
    assert "not valid JSON" in str(caught.value)  # ragline's words, not a missing-field error


@pytest.mark.parametrize("args", ["{'a': 1}", '{"a": True}', '{"a": 1}', '{"a": "par'])
def test_tool_call_chunk_arguments_as_langchains(args):
    # a tool call whose arguments are not JSON is an invalid tool call, not a call with {}
    chunk = {"name": "f", "args": args, "id": "1", "index": 0}
    ours = AIMessageChunk(content="", tool_call_chunks=[chunk])
    theirs = LCAIMessageChunk(content="", tool_call_chunks=[chunk])
    assert ours.tool_calls == theirs.tool_calls
    assert ours.invalid_tool_calls == theirs.invalid_tool_calls


AGENT_REPLIES = [
    '{"action": "search", "action_input": "bees"',  # cut off: LangChain reads what arrived
    '```json\n{"action": "Final Answer", "action_input": "4',
    '{"action": "search", "action_input": {"q": "bees", "k": 2',
    '{"action": "search", "action_input": "bees"}',
    "{'action': 'search', 'action_input': 'bees'}",  # not JSON: raises in both
]


def _agent_step(value: Any) -> Any:
    if hasattr(value, "return_values"):
        return ("finish", value.return_values, value.log)
    return ("action", value.tool, value.tool_input, value.log)


@pytest.mark.parametrize("reply", AGENT_REPLIES)
def test_json_agent_parser_reads_a_cut_off_reply_as_langchains(reply):
    from langchain_classic.agents.output_parsers import JSONAgentOutputParser as LCParser

    from ragline.agents import JSONAgentOutputParser

    ours = outcome(lambda: _agent_step(JSONAgentOutputParser().parse(reply)))
    assert ours == outcome(lambda: _agent_step(LCParser().parse(reply)))


@pytest.mark.parametrize(
    "reply",
    [
        '{"destination": "physics", "next_inputs": "why is the sky blue?"',
        '```json\n{"destination": "DEFAULT", "next_inputs": "hi"\n',
        '{"destination": "physics", "next_inputs": "why?"}',
        "{'destination': 'physics', 'next_inputs': 'why?'}",
    ],
)
def test_router_parser_reads_a_cut_off_reply_as_langchains(reply):
    from langchain_classic.chains.router.llm_router import RouterOutputParser as LCRouter

    from ragline.chains import RouterOutputParser

    assert outcome(RouterOutputParser().parse, reply) == outcome(LCRouter().parse, reply)


@pytest.mark.parametrize(
    "reply",
    ['{"a": 1}}', '{"a": [1}', "[1, 2]]", '{"a": 1, "b": [2}, "c": 3}', "null", '{"a": 1}'],
)
def test_json_output_parser_stray_closing_bracket_as_langchains(reply):
    # a closing bracket that matches no open one: LangChain's parser gives None (parse,
    # invoke) and its stream leaves None out; ragline gave the value before the bracket
    # ({'a': []} for '{"a": [1}', dropping the 1) and streamed a None for "null"
    chunks = [reply[i : i + 3] for i in range(0, len(reply), 3)]
    for ours, theirs in [
        (lambda: JsonOutputParser().parse(reply), lambda: LCJsonOutputParser().parse(reply)),
        (lambda: JsonOutputParser().invoke(reply), lambda: LCJsonOutputParser().invoke(reply)),
        (
            lambda: list(JsonOutputParser().transform(iter(chunks))),
            lambda: list(LCJsonOutputParser().transform(iter(chunks))),
        ),
    ]:
        assert outcome(ours) == outcome(theirs)


def test_stray_closing_bracket_in_agent_structured_and_tool_call_as_langchains():
    from langchain_classic.agents.output_parsers import JSONAgentOutputParser as LCParser
    from langchain_classic.output_parsers import ResponseSchema as LCResponseSchema
    from langchain_classic.output_parsers import (
        StructuredOutputParser as LCStructuredOutputParser,
    )

    from ragline.agents import JSONAgentOutputParser
    from ragline.core.output_parsers import ResponseSchema, StructuredOutputParser

    reply = '{"action": "search", "action_input": "bees"}}'
    assert outcome(JSONAgentOutputParser().parse, reply) == outcome(LCParser().parse, reply)
    ours = StructuredOutputParser.from_response_schemas(
        [ResponseSchema(name="action", description="a")]
    )
    theirs = LCStructuredOutputParser.from_response_schemas(
        [LCResponseSchema(name="action", description="a")]
    )
    assert outcome(ours.parse, reply) == outcome(theirs.parse, reply)
    assert outcome(ours.parse, reply) == ("raised", "OutputParserException")
    chunk = {"name": "f", "args": '{"q": [1}', "id": "1", "index": 0}
    ours_message = AIMessageChunk(content="", tool_call_chunks=[chunk])
    theirs_message = LCAIMessageChunk(content="", tool_call_chunks=[chunk])
    assert ours_message.tool_calls == theirs_message.tool_calls == []
    assert ours_message.invalid_tool_calls == theirs_message.invalid_tool_calls


FENCED_REPLIES = [
    # a string value holding a fence of its own: ragline cut the body at it and returned
    # {'answer': 'Use:'}, or raised for the bare reply
    '```json\n{"answer": "Use:\n```python\nprint(1)\n```\nthen run it."}\n```',
    '{"answer": "see ```code```"}',
    'Sure!\n```json\n{"a": "```"}\n```',
    # backquotes around the JSON, a closing fence alone, text after the fence
    '`{"a": 1}`',
    '{"a": 1}\n```',
    'Here:\n```json\n{"a": 1}\n```\nDone.',
    '```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```',
    '```json{"a": 1}```',
    "```json\n[1, 2\n",
]


@pytest.mark.parametrize("reply", FENCED_REPLIES)
def test_json_output_parser_fenced_replies_as_langchains(reply):
    # (a stream that never parses raises at its end in ragline, where LangChain's yields
    # nothing: not compared here)
    assert outcome(JsonOutputParser().parse, reply) == outcome(LCJsonOutputParser().parse, reply)
    chunks = [reply[i : i + 3] for i in range(0, len(reply), 3)]
    ours = outcome(lambda: list(JsonOutputParser().transform(iter(chunks))))
    assert ours == outcome(lambda: list(LCJsonOutputParser().transform(iter(chunks))))


def test_agent_action_input_with_a_code_fence_as_langchains():
    from langchain_classic.agents.output_parsers import JSONAgentOutputParser as LCParser

    from ragline.agents import JSONAgentOutputParser

    reply = '```json\n{"action": "Final Answer", "action_input": "Run:\n```bash\nls\n```"}\n```'
    ours = _agent_step(JSONAgentOutputParser().parse(reply))
    assert ours == _agent_step(LCParser().parse(reply))
    assert ours[1] == {"output": "Run:\n```bash\nls\n```"}


@pytest.mark.parametrize("reply", ["``` json\n{}\n```", "```python\n{}\n```", 'say {"a": 1}'])
def test_json_output_parser_refuses_what_langchain_refuses(reply):
    assert outcome(JsonOutputParser().parse, reply) == outcome(LCJsonOutputParser().parse, reply)


def test_json_stream_that_never_parses_raises_where_langchains_yields_nothing():
    # deliberate (docs/differences-from-langchain.md, "Structured output"): the stream
    # raises what invoke raises; LangChain's stream ends quietly with nothing
    chunks = ["Sorry, ", "I have ", "no JSON."]
    assert list(LCJsonOutputParser().transform(iter(chunks))) == []
    with pytest.raises(LCOutputParserException):
        LCJsonOutputParser().invoke("".join(chunks))
    with pytest.raises(OutputParserException, match="not valid JSON"):
        list(JsonOutputParser().transform(iter(chunks)))
    with pytest.raises(OutputParserException, match="not valid JSON"):
        JsonOutputParser().invoke("".join(chunks))


def test_upper_case_json_fence_is_read_where_langchain_refuses():
    reply = '```JSON\n{"a": 1}\n```'
    assert JsonOutputParser().parse(reply) == {"a": 1}
    with pytest.raises(LCOutputParserException):
        LCJsonOutputParser().parse(reply)

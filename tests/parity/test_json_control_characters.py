"""Parity: JSON replies with a raw newline or tab inside a string, as models write them.

LangChain's JSON parsing reads such strings (``json.loads(..., strict=False)``); ragline's
partial-JSON scanner read them as broken and fell back to what came before (``{}``).
Compared: ``JsonOutputParser`` parse and streaming, the structured-chat agent parser, and
``StructuredOutputParser``.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_classic.agents.output_parsers import JSONAgentOutputParser as LCJSONAgentOutputParser
from langchain_classic.output_parsers import ResponseSchema as LCResponseSchema
from langchain_classic.output_parsers import StructuredOutputParser as LCStructuredOutputParser
from langchain_core.output_parsers import JsonOutputParser as LCJsonOutputParser

from ragline.agents import JSONAgentOutputParser
from ragline.core import JsonOutputParser
from ragline.core.output_parsers import ResponseSchema, StructuredOutputParser

COVERS = {"core.JsonOutputParser", "agents.JSONAgentOutputParser"}

REPLIES = [
    '{"answer": "line one\nline two"}',
    '```json\n{"answer": "tab\there", "n": 2}\n```',
    '{"answer": "a\nb", "list": ["c\nd"]}',
    '{"answer": "unfinished\nline',
]


def outcome(call: Any, *args: Any) -> Any:
    try:
        value = call(*args)
    except Exception as err:
        return ("raised", type(err).__name__)
    if hasattr(value, "return_values"):
        return ("finish", value.return_values)
    if hasattr(value, "tool_input"):
        return ("action", value.tool, value.tool_input)
    return ("ok", value)


@pytest.mark.parametrize("reply", REPLIES)
def test_json_output_parser(reply):
    assert outcome(JsonOutputParser().parse, reply) == outcome(LCJsonOutputParser().parse, reply)
    chunks = [reply[i : i + 5] for i in range(0, len(reply), 5)]
    assert list(JsonOutputParser().transform(iter(chunks))) == list(
        LCJsonOutputParser().transform(iter(chunks))
    )


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"action": "Final Answer", "action_input": "first\nsecond"}\n```',
        '{"action": "search", "action_input": "multi\nline query"}',
    ],
)
def test_agent_and_structured_parsers(reply):
    assert outcome(JSONAgentOutputParser().parse, reply) == outcome(
        LCJSONAgentOutputParser().parse, reply
    )
    ours = StructuredOutputParser.from_response_schemas(
        [
            ResponseSchema(name="action", description="a"),
            ResponseSchema(name="action_input", description="b"),
        ]
    )
    theirs = LCStructuredOutputParser.from_response_schemas(
        [
            LCResponseSchema(name="action", description="a"),
            LCResponseSchema(name="action_input", description="b"),
        ]
    )
    assert outcome(ours.parse, reply) == outcome(theirs.parse, reply)

"""Parity: the input and output schemas of ``RunnablePassthrough.assign(...)``, of a
``RunnableParallel`` whose branches take objects, and of sequences that start or end with
an assign, against langchain_core's (everything but ``$defs``).

LangChain reads each branch's input schema as a model: an object's fields, or one
``root`` field for a branch that takes anything. An assign's output is its mapper's input
fields followed by the added keys (``RunnableAssignOutput``); after another step, the
schema before it is extended (``RunnableSequenceOutput``).
"""

from __future__ import annotations

import types
from typing import Any

import langchain_core.output_parsers as lc_parsers
import langchain_core.prompts as lc_prompts
import langchain_core.runnables as lc_runnables
import pytest

import ragline.core as rl

COVERS = {"core.RunnableAssign"}

LC = types.SimpleNamespace(
    PromptTemplate=lc_prompts.PromptTemplate,
    RunnableLambda=lc_runnables.RunnableLambda,
    RunnableParallel=lc_runnables.RunnableParallel,
    RunnablePassthrough=lc_runnables.RunnablePassthrough,
    StrOutputParser=lc_parsers.StrOutputParser,
)
OURS = types.SimpleNamespace(
    PromptTemplate=rl.PromptTemplate,
    RunnableLambda=rl.RunnableLambda,
    RunnableParallel=rl.RunnableParallel,
    RunnablePassthrough=rl.RunnablePassthrough,
    StrOutputParser=rl.StrOutputParser,
)


def _increment(x: int) -> int:
    return x + 1


def _runnables(ns: Any) -> dict[str, Any]:
    assign = ns.RunnablePassthrough.assign
    topic = ns.PromptTemplate.from_template("about {topic}")
    other = ns.PromptTemplate.from_template("on {other}")
    return {
        "assign_any": assign(y=lambda d: 1),
        "assign_prompt": assign(y=topic),
        "assign_typed": assign(y=ns.RunnableLambda(_increment)),
        "assign_two": assign(y=topic | ns.StrOutputParser(), z=lambda d: d["w"]),
        "assign_passthrough": assign(y=ns.RunnablePassthrough()),
        "parallel_any": ns.RunnableParallel(y=lambda d: 1),
        "parallel_mixed": ns.RunnableParallel(y=lambda d: 1, z=other),
        "parallel_typed": ns.RunnableParallel(y=ns.RunnableLambda(_increment), z=topic),
        "parallel_then_assign": ns.RunnableParallel(a=topic, b=other) | assign(y=lambda d: 1),
        "prompt_then_assign": topic | assign(y=lambda d: 1),
        "assign_then_assign": assign(y=topic) | assign(z=lambda d: 1),
        "lambda_then_assign": ns.RunnableLambda(lambda x: x) | assign(y=lambda d: 1),
        "three_steps": topic | ns.StrOutputParser() | assign(y=lambda d: 1),
        "assign_then_prompt": assign(y=topic) | ns.PromptTemplate.from_template("{y} {q}"),
        "assigns_then_prompt": assign(y=topic)
        | assign(q=lambda d: 1)
        | ns.PromptTemplate.from_template("{y} {q}"),
    }


def _without_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without ``$defs`` (the definitions of the message models a prompt's
    output refers to are compared elsewhere)."""
    return {key: value for key, value in schema.items() if key != "$defs"}


def _schemas(ns: Any, name: str) -> tuple[Any, ...]:
    runnable = _runnables(ns)[name]
    return (
        _without_defs(runnable.get_input_jsonschema()),
        _without_defs(runnable.get_output_jsonschema()),
        _without_defs(runnable.output_schema.model_json_schema()),
        _without_defs(runnable.input_schema.model_json_schema()),
    )


@pytest.mark.parametrize("name", list(_runnables(OURS)))
def test_schemas_match_langchain_s(name: str) -> None:
    assert _schemas(OURS, name) == _schemas(LC, name)


def test_the_trial_program_s_assign_schema() -> None:
    expected = {
        "properties": {"root": {"title": "Root"}, "y": {"title": "Y"}},
        "required": ["root", "y"],
        "title": "RunnableAssignOutput",
        "type": "object",
    }
    schema = rl.RunnablePassthrough.assign(y=lambda d: 1).get_output_jsonschema()
    assert schema == expected
    assert list(schema) == list(expected)  # printed key order as well

"""Parity: filter_messages, merge_message_runs and trim_messages against langchain_core.

Found by the port trial (LangChain's trim/filter/merge how-to guides): ragline lacked
the three names. Each scenario runs the same history through both and compares the
printed result (type, content, name, id, tool calls: everything a program sees).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core import messages as lc

from ragline import core as ours

COVERS = {"core.filter_messages", "core.merge_message_runs", "core.trim_messages"}


def _history(m: Any) -> list[Any]:
    return [
        m.SystemMessage(content="be a pirate"),
        m.HumanMessage(content="why the name"),
        m.AIMessage(content="ropes and sentences, arr"),
        m.HumanMessage(content="who is chasing whom"),
        m.AIMessage(content="the cook, chasing the last biscuit"),
        m.HumanMessage(content="a silent parrot?"),
    ]


@pytest.mark.parametrize(
    "options",
    [
        {"max_tokens": 5, "start_on": "human", "end_on": ("human", "tool"), "include_system": True},
        {"max_tokens": 4},
        {"max_tokens": 3, "include_system": True},
        {"max_tokens": 3, "start_on": "human"},
        {"max_tokens": 4, "end_on": "ai"},
        {"max_tokens": 0},
        {"max_tokens": 100},
        {"max_tokens": 2, "strategy": "first"},
        {"max_tokens": 3, "strategy": "first", "end_on": "ai"},
    ],
)
def test_trim_messages_keeps_the_same_messages(options: dict[str, Any]):
    mine = ours.trim_messages(_history(ours), token_counter=len, **options)
    theirs = lc.trim_messages(_history(lc), token_counter=len, **options)
    assert repr(mine) == repr(theirs)


def test_trim_messages_without_messages_is_a_runnable():
    mine = ours.trim_messages(max_tokens=2, token_counter=len).invoke(_history(ours))
    theirs = lc.trim_messages(max_tokens=2, token_counter=len).invoke(_history(lc))
    assert repr(mine) == repr(theirs)


def _named(m: Any) -> list[Any]:
    return [
        m.SystemMessage(content="s", id="1"),
        m.HumanMessage(content="e", id="2", name="example_user"),
        m.AIMessage(content="o", id="3", name="example_assistant"),
        m.HumanMessage(content="r", id="4", name="bob"),
        m.AIMessage(content="ro", id="5", name="alice"),
    ]


@pytest.mark.parametrize(
    "options",
    [
        {"include_types": "human"},
        {"exclude_names": ["example_user", "example_assistant"]},
        {"include_types": ["human", "ai"], "exclude_ids": ["3"]},
        {"include_names": ["bob"], "include_ids": ["1"]},
        {},
    ],
)
def test_filter_messages_keeps_the_same_messages(options: dict[str, Any]):
    mine = ours.filter_messages(_named(ours), **options)
    assert repr(mine) == repr(lc.filter_messages(_named(lc), **options))


def test_filter_by_class():
    mine = ours.filter_messages(_named(ours), include_types=[ours.HumanMessage])
    theirs = lc.filter_messages(_named(lc), include_types=[lc.HumanMessage])
    assert repr(mine) == repr(theirs)


def _runs(m: Any) -> list[Any]:
    call = {"name": "f", "args": {}, "id": "1"}
    return [
        m.SystemMessage(content="a"),
        m.SystemMessage(content="b"),
        m.HumanMessage(content=[{"type": "text", "text": "x"}]),
        m.HumanMessage(content="y"),
        m.AIMessage(content="p", tool_calls=[call], id="A", response_metadata={"k": 1}),
        m.AIMessage(content="q", name="n", id="B", additional_kwargs={"z": 1}),
        m.ToolMessage(content="t", tool_call_id="1"),
        m.ToolMessage(content="u", tool_call_id="2"),
        m.HumanMessage(content=""),
        m.HumanMessage(content="z", id="late", name="late"),
    ]


@pytest.mark.parametrize("separator", [None, " | "])
def test_merge_message_runs_joins_the_same_runs(separator: Any):
    options = {} if separator is None else {"chunk_separator": separator}
    mine = ours.merge_message_runs(_runs(ours), **options)
    assert repr(mine) == repr(lc.merge_message_runs(_runs(lc), **options))


def test_the_messages_given_are_not_changed():
    history = _runs(ours)
    before = repr(history)
    ours.merge_message_runs(history)
    ours.trim_messages(history, max_tokens=2, token_counter=len)
    assert repr(history) == before


def _streamed(m: Any) -> list[Any]:
    # a streamed reply as providers send it: the usage and the finish reason on the last
    # pieces (a run of AI messages and chunks, and a run of human messages with metadata)
    return [
        m.HumanMessage(content="hi", response_metadata={"lang": "en"}),
        m.HumanMessage(content="there", response_metadata={"seen": True}),
        m.AIMessageChunk(content="Hel", id="r1"),
        m.AIMessageChunk(content="lo", response_metadata={"model_name": "m1"}),
        m.AIMessageChunk(
            content="!",
            response_metadata={"finish_reason": "stop"},
            usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        ),
        m.AIMessageChunk(
            content="",
            usage_metadata={"input_tokens": 1, "output_tokens": 4, "total_tokens": 5},
        ),
    ]


def test_merge_message_runs_adds_up_every_pieces_usage():
    # the joined reply's usage is the pieces' sum (LangChain adds the pieces up); the
    # first piece's alone lost it. The response metadata stays the first piece's (LangChain
    # clears the others' before adding)
    mine = ours.merge_message_runs(_streamed(ours), chunk_separator="")
    theirs = lc.merge_message_runs(_streamed(lc), chunk_separator="")
    assert mine[1].usage_metadata == {"input_tokens": 4, "output_tokens": 6, "total_tokens": 10}
    assert mine[0].response_metadata == {"lang": "en"}
    assert mine[1].response_metadata == {}
    assert repr(mine) == repr(theirs)

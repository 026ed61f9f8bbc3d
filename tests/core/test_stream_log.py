"""astream_log: JSON Patch ops in LangChain's RunLogPatch shapes that add up to the
run's final state; diff=False, filters, repeated names, and the patch arithmetic."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _run_ids import no_run_ids

from ragline.core import (
    AIMessageChunk,
    ChatPromptTemplate,
    FakeListChatModel,
    RunLog,
    RunLogPatch,
    RunnableLambda,
    StrOutputParser,
)
from ragline.core.exceptions import InvalidInputError


def patches(runnable: Any, input: Any, **options: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [patch async for patch in runnable.astream_log(input, **options)]

    return asyncio.run(run())


def chain() -> Any:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    return prompt | FakeListChatModel(responses=["Hi"]) | StrOutputParser()


def test_patches_in_order_and_their_sum() -> None:
    found = patches(chain(), {"q": "hello"})
    assert all(isinstance(patch, RunLogPatch) for patch in found)
    shape = [[(op["op"], op["path"]) for op in patch.ops] for patch in found]
    assert shape == [
        [("replace", "")],
        [("add", "/logs/ChatPromptTemplate")],
        [("add", "/logs/ChatPromptTemplate/final_output"),
         ("add", "/logs/ChatPromptTemplate/end_time")],
        [("add", "/logs/FakeListChatModel")],
        [("add", "/logs/FakeListChatModel/streamed_output_str/-"),
         ("add", "/logs/FakeListChatModel/streamed_output/-")],
        [("add", "/logs/StrOutputParser")],
        [("add", "/logs/StrOutputParser/streamed_output/-")],
        [("add", "/streamed_output/-"), ("replace", "/final_output")],
        [("add", "/logs/FakeListChatModel/streamed_output_str/-"),
         ("add", "/logs/FakeListChatModel/streamed_output/-")],
        [("add", "/logs/StrOutputParser/streamed_output/-")],
        [("add", "/streamed_output/-"), ("replace", "/final_output")],
        [("add", "/logs/FakeListChatModel/final_output"),
         ("add", "/logs/FakeListChatModel/end_time")],
        [("add", "/logs/StrOutputParser/final_output"),
         ("add", "/logs/StrOutputParser/end_time")],
    ]  # fmt: skip
    log = found[0]
    for patch in found[1:]:
        log = log + patch
    assert isinstance(log, RunLog)
    state = log.state
    assert sorted(state) == ["final_output", "id", "logs", "name", "streamed_output", "type"]
    assert (state["name"], state["type"]) == ("RunnableSequence", "chain")
    assert (state["streamed_output"], state["final_output"]) == (["H", "i"], "Hi")
    entry = state["logs"]["FakeListChatModel"]
    assert sorted(entry) == [
        "end_time", "final_output", "id", "metadata", "name", "start_time",
        "streamed_output", "streamed_output_str", "tags", "type",
    ]  # fmt: skip
    assert entry["type"] == "llm" and entry["streamed_output_str"] == ["H", "i"]
    assert no_run_ids(entry["streamed_output"]) == [
        AIMessageChunk(content="H"),
        AIMessageChunk(content="i", chunk_position="last"),
    ]
    generation = entry["final_output"]["generations"][0][0]
    assert (entry["final_output"]["type"], generation["text"]) == ("LLMResult", "Hi")
    assert state["logs"]["StrOutputParser"]["final_output"] == {"output": "Hi"}
    assert state["logs"]["ChatPromptTemplate"]["type"] == "prompt"
    assert entry["start_time"] <= entry["end_time"] and entry["end_time"].endswith("+00:00")
    assert found[1].ops[0]["value"]["streamed_output"] == []  # summing changed no patch


def test_diff_false_yields_the_log_so_far_and_filters_pick_entries() -> None:
    logs = patches(chain(), {"q": "hello"}, diff=False, include_types=["parser"])
    assert all(isinstance(log, RunLog) for log in logs)
    assert [sorted(log.state["logs"]) for log in logs][:2] == [[], ["StrOutputParser"]]
    assert logs[-1].state["final_output"] == "Hi"
    assert [log.state["streamed_output"] for log in logs][-1] == ["H", "i"]
    models = patches(chain(), {"q": "hello"}, include_types=["llm"])
    added = [op["path"] for p in models for op in p.ops if op["path"].startswith("/logs/")]
    assert sorted(set(path.split("/")[2] for path in added)) == ["FakeListChatModel"]


def test_without_the_streamed_output_list_only_final_output_changes() -> None:
    found = patches(chain(), {"q": "hello"}, with_streamed_output_list=False,
                    include_names=["nothing"])  # fmt: skip
    assert [[(op["op"], op["path"], op.get("value")) for op in p.ops] for p in found][1:] == [
        [("replace", "/final_output", "H")],
        [("replace", "/final_output", "Hi")],
    ]


def test_repeated_names_are_numbered_and_slashes_escaped() -> None:
    step = RunnableLambda(lambda x: x + 1, name="a/b")
    found = patches(step | step | step, 0)
    keys = [
        p.ops[0]["path"]
        for p in found
        if p.ops[0]["op"] == "add"
        and p.ops[0]["path"].count("/") == 2
        and "logs" in p.ops[0]["path"]
    ]
    assert keys == ["/logs/a~1b", "/logs/a~1b:2", "/logs/a~1b:3"]
    log = found[0]
    for patch in found[1:]:
        log = log + patch
    assert sorted(log.state["logs"]) == ["a/b", "a/b:2", "a/b:3"]
    assert log.state["final_output"] == 3


def test_patch_arithmetic_and_bad_patches() -> None:
    first = RunLogPatch({"op": "replace", "path": "", "value": {"items": []}})
    second = RunLogPatch({"op": "add", "path": "/items/-", "value": 1})
    log = first + second
    assert log.state == {"items": [1]} and log.ops == [*first.ops, *second.ops]
    assert (log + second).state == {"items": [1, 1]} and log.state == {"items": [1]}
    assert first == RunLogPatch({"op": "replace", "path": "", "value": {"items": []}})
    with pytest.raises(InvalidInputError, match="op 'move' is not one of add, replace, remove"):
        first + RunLogPatch({"op": "move", "path": "/x", "from": "/items"})
    with pytest.raises(InvalidInputError, match="path '/nowhere/x' does not apply"):
        first + RunLogPatch({"op": "add", "path": "/nowhere/x", "value": 1})

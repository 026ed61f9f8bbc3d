"""astream_events and astream_log side by side with langchain-core's, run on the same
chains here: the same events in the same order, with the same parents and data keys (the
tags aside: ragline adds no ``seq:step:N`` tags), and the same log patch paths."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

from ragline.core import ChatPromptTemplate, FakeListChatModel, RunnableLambda, StrOutputParser
from ragline.core.callbacks import adispatch_custom_event
from ragline.tools import tool

lc_prompts = pytest.importorskip("langchain_core.prompts")
lc_models = pytest.importorskip("langchain_core.language_models")
lc_parsers = pytest.importorskip("langchain_core.output_parsers")
lc_runnables = pytest.importorskip("langchain_core.runnables")
lc_callbacks = pytest.importorskip("langchain_core.callbacks")
lc_tools = pytest.importorskip("langchain_core.tools")

MESSAGES = [("system", "Be brief."), ("human", "{q}")]


def events(runnable: Any, input: Any) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        return [event async for event in runnable.astream_events(input, version="v2")]

    return asyncio.run(run())


def shape(found: list[dict[str, Any]]) -> list[tuple[str, str, int, list[str]]]:
    return [(e["event"], e["name"], len(e["parent_ids"]), sorted(e["data"])) for e in found]


def plain(value: Any) -> Any:
    """Chunks and outputs compared by text (the two libraries' message classes differ)."""
    return getattr(value, "content", value)


def test_prompt_model_parser_events_are_langchains() -> None:
    ours = events(
        ChatPromptTemplate.from_messages(MESSAGES)
        | FakeListChatModel(responses=["Hi!"])
        | StrOutputParser(),
        {"q": "hello"},
    )
    theirs = events(
        lc_prompts.ChatPromptTemplate.from_messages(MESSAGES)
        | lc_models.FakeListChatModel(responses=["Hi!"])
        | lc_parsers.StrOutputParser(),
        {"q": "hello"},
    )
    assert shape(ours) == shape(theirs)
    for mine, other in zip(ours, theirs, strict=True):
        if "chunk" in mine["data"]:
            assert plain(mine["data"]["chunk"]) == plain(other["data"]["chunk"])
        if mine["event"] in ("on_chain_start", "on_chain_end", "on_parser_end"):
            assert mine["data"].get("output") == other["data"].get("output")
    assert ours[0]["data"] == theirs[0]["data"] == {"input": {"q": "hello"}}
    root = {e["run_id"] for e in ours if not e["parent_ids"]}
    assert len(root) == 1 and all(e["parent_ids"] in ([], [*root]) for e in ours)


def test_tool_and_custom_events_are_langchains() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @lc_tools.tool
    def lc_add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    lc_add.name = "add"
    ours, theirs = events(add, {"a": 1, "b": 2}), events(lc_add, {"a": 1, "b": 2})
    assert [(e["event"], e["name"], e["data"]) for e in ours] == [
        (e["event"], e["name"], e["data"]) for e in theirs
    ]

    async def step(x: int) -> int:
        await adispatch_custom_event("progress", {"done": x})
        return x

    async def lc_step(x: int) -> int:
        await lc_callbacks.adispatch_custom_event("progress", {"done": x})
        return x

    ours = events(RunnableLambda(step, name="step"), 3)
    theirs = events(lc_runnables.RunnableLambda(lc_step, name="step"), 3)
    assert [(e["event"], e["name"], e["data"]) for e in ours] == [
        (e["event"], e["name"], e["data"]) for e in theirs
    ]
    assert ours[1]["run_id"] == ours[0]["run_id"]  # the custom event belongs to its run


def test_astream_log_patch_paths_are_langchains() -> None:
    async def paths(runnable: Any) -> list[list[tuple[str, str]]]:
        return [
            [(op["op"], op["path"]) for op in patch.ops]
            async for patch in runnable.astream_log({"q": "hello"})
        ]

    ours = asyncio.run(
        paths(
            ChatPromptTemplate.from_messages(MESSAGES)
            | FakeListChatModel(responses=["Hi"])
            | StrOutputParser()
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain-core 1.x deprecates astream_log
        theirs = asyncio.run(
            paths(
                lc_prompts.ChatPromptTemplate.from_messages(MESSAGES)
                | lc_models.FakeListChatModel(responses=["Hi"])
                | lc_parsers.StrOutputParser()
            )
        )
    assert ours == theirs

"""Parity: differences found by the sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from langchain_community.chat_message_histories import ChatMessageHistory as LCChatMessageHistory
from langchain_community.document_loaders import JSONLoader as LCJSONLoader
from langchain_core.chat_history import InMemoryChatMessageHistory as LCInMemoryHistory
from langchain_core.messages import AIMessage as LCAIMessage
from langchain_core.messages import HumanMessage as LCHumanMessage
from langchain_core.messages import SystemMessage as LCSystemMessage
from langchain_core.runnables import RunnableLambda as LCRunnableLambda
from langchain_core.runnables.history import (
    RunnableWithMessageHistory as LCRunnableWithMessageHistory,
)
from langchain_core.tools import BaseTool as LCBaseTool
from langchain_core.tools import StructuredTool as LCStructuredTool
from langchain_core.tools import Tool as LCTool
from langchain_core.tools import tool as lc_tool
from pydantic import BaseModel

from ragline.core.chat_history import ChatMessageHistory, InMemoryChatMessageHistory
from ragline.core.messages import AIMessage, HumanMessage, SystemMessage
from ragline.core.runnables import RunnableLambda
from ragline.core.runnables.history import RunnableWithMessageHistory
from ragline.core.tools import BaseTool
from ragline.loaders import JSONLoader
from ragline.tools import StructuredTool, Tool, tool


def _metadata(documents: list[Any]) -> list[dict[str, Any]]:
    return [dict(d.metadata) for d in documents]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding a JSON and a JSON Lines file, entered as the cwd."""
    records = [{"id": 1, "text": "one"}, {"id": 2, "text": "two"}]
    (tmp_path / "pages.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "pages.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path / "pages.json", tmp_path / "sub" / "link.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "given",
    ["pages.json", "./pages.json", "sub/../pages.json", "sub/link.json"],
)
def test_json_loader_source_is_the_resolved_path(workdir: Path, given: str) -> None:
    options: dict[str, Any] = {"jq_schema": ".[]", "content_key": "text"}
    theirs = _metadata(LCJSONLoader(given, **options).load())
    ours = _metadata(JSONLoader(given, **options).load())
    assert ours == theirs
    source = str((workdir / "pages.json").resolve())
    assert ours == [{"source": source, "seq_num": 1}, {"source": source, "seq_num": 2}]


def test_json_lines_source_and_path_object(workdir: Path) -> None:
    options: dict[str, Any] = {"jq_schema": ".text", "json_lines": True}
    theirs = _metadata(LCJSONLoader(Path("pages.jsonl"), **options).load())
    ours = _metadata(JSONLoader(Path("pages.jsonl"), **options).load())
    assert ours == theirs
    assert ours[1] == {"source": str(workdir.resolve() / "pages.jsonl"), "seq_num": 2}


def test_metadata_func_receives_the_resolved_source(workdir: Path) -> None:
    seen: dict[str, list[dict[str, Any]]] = {"theirs": [], "ours": []}

    def recorder(side: str) -> Any:
        def metadata_func(record: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
            seen[side].append(dict(metadata))
            metadata["page_id"] = record["id"]
            return metadata

        return metadata_func

    theirs = LCJSONLoader(
        "pages.json", ".[]", content_key="text", metadata_func=recorder("theirs")
    ).load()
    ours = JSONLoader(
        "pages.json", ".[]", content_key="text", metadata_func=recorder("ours")
    ).load()
    assert seen["ours"] == seen["theirs"]
    assert _metadata(ours) == _metadata(theirs)
    assert ours[0].metadata["source"] == str(workdir.resolve() / "pages.json")


def test_source_is_fixed_when_the_loader_is_made(workdir: Path, tmp_path_factory: Any) -> None:
    theirs_loader = LCJSONLoader("pages.json", ".[].text")
    ours_loader = JSONLoader("pages.json", ".[].text")
    os.chdir(tmp_path_factory.mktemp("elsewhere"))
    assert _metadata(ours_loader.load()) == _metadata(theirs_loader.load())


def _filled(history: Any, system: Any, human: Any, ai: Any) -> Any:
    history.add_messages([system("Be brief."), human("What does Verba index?", id="q1")])
    history.add_message(ai("PDFs and text."))
    history.add_user_message("What did I ask?")
    return history


def test_in_memory_history_repr_lists_its_messages() -> None:
    lc = (LCSystemMessage, LCHumanMessage, LCAIMessage)
    ours_types = (SystemMessage, HumanMessage, AIMessage)
    theirs = {"abc": _filled(LCInMemoryHistory(), *lc), "empty": LCChatMessageHistory()}
    ours = {
        "abc": _filled(InMemoryChatMessageHistory(), *ours_types),
        "empty": ChatMessageHistory(),
    }
    assert repr(ours) == repr(theirs)
    assert str(ours["abc"]) == str(theirs["abc"])
    assert repr(ours["empty"]) == "InMemoryChatMessageHistory(messages=[])"


@pytest.mark.parametrize(
    "keys",
    [
        {"input_messages_key": "input", "history_messages_key": "history"},
        {"input_messages_key": "user_question", "history_messages_key": "chat_history"},
        {"input_messages_key": "question"},
        {"history_messages_key": "history"},
        {},
    ],
    ids=["input+history", "two-word keys", "input only", "history only", "no keys"],
)
def test_history_runnable_input_schema(keys: dict[str, str]) -> None:
    theirs = LCRunnableWithMessageHistory(
        LCRunnableLambda(lambda x: x), lambda session_id: LCInMemoryHistory(), **keys
    )
    ours = RunnableWithMessageHistory(
        RunnableLambda(lambda x: x), lambda session_id: InMemoryChatMessageHistory(), **keys
    )
    expected = theirs.input_schema.model_json_schema()
    # LangChain's BaseMessage def carries its class docstring; ragline leaves it out
    del expected["$defs"]["BaseMessage"]["description"]
    got = ours.input_schema.model_json_schema()
    assert got == expected
    assert list(got) == list(expected)  # printed: pydantic's key order too
    assert repr(got) == repr(expected)
    assert ours.get_input_jsonschema() == got
    assert ours.get_input_schema().__name__ == theirs.get_input_schema().__name__


def multiply(a: int, b: int) -> int:
    """Multiply two numbers"""
    return a * b


async def amultiply(a: int, b: int) -> int:
    return a * b


def search(query: str) -> str:
    return query


class Pair(BaseModel):
    a: int
    b: int


def _tools(structured: Any, plain: Any, decorator: Any, base: Any) -> list[Any]:
    class MultiplyNumbersTool(base):  # type: ignore[misc, valid-type]
        name: str = "multiply_numbers"
        description: str = "Multiply two numbers"

        def _run(self, a: int, b: int) -> int:
            return a * b

    return [
        structured.from_function(
            func=multiply,
            coroutine=amultiply,
            args_schema=Pair,
            tags=["math"],
            metadata={"unit": "none"},
            return_direct=True,
        ),
        structured.from_function(
            coroutine=amultiply, name="amul", description="Async.", args_schema=Pair
        ),
        plain(name="search", func=search, description="Look it up."),
        decorator(multiply),
        MultiplyNumbersTool(),
        MultiplyNumbersTool(name="other", handle_tool_error=True),
    ]


def test_tool_repr_and_str_list_the_fields_set() -> None:
    theirs = _tools(LCStructuredTool, LCTool, lc_tool, LCBaseTool)
    ours = _tools(StructuredTool, Tool, tool, BaseTool)
    # a given pydantic args_schema prints the same; the @tool one is compared apart below
    assert [repr(t) for t in ours[:3] + ours[4:]] == [repr(t) for t in theirs[:3] + theirs[4:]]
    assert [str(t) for t in ours[:3] + ours[4:]] == [str(t) for t in theirs[:3] + theirs[4:]]
    assert str(ours[4]) == ""


def test_decorated_tool_repr_differs_only_in_its_args_schema() -> None:
    theirs, ours = lc_tool(multiply), tool(multiply)
    # LangChain's inferred schema is a pydantic class made in langchain_core.utils.pydantic
    assert repr(theirs.args_schema) == "<class 'langchain_core.utils.pydantic.multiply'>"
    assert repr(ours) == repr(theirs).replace(repr(theirs.args_schema), repr(ours.args_schema))
    assert str(ours) == str(theirs).replace(repr(theirs.args_schema), repr(ours.args_schema))
    assert str(ours).startswith("name='multiply' description='Multiply two numbers' args_schema=")

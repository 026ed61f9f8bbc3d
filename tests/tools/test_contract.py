"""The tool contract (tests/tools/contract.py) on every kind of tool."""

from __future__ import annotations

from typing import Any

import pytest

from ragline.core import BaseRetriever, Document, ToolException
from ragline.tools import BaseTool, StructuredTool, create_retriever_tool, tool

from .contract import DESCRIPTION, ToolCase, ToolContract

QUERY = {"properties": {"query": {"type": "string"}}, "required": ["query"], "type": "object"}


def _answer(calls: list[str], query: str, fail: bool, prefix: str = "") -> str:
    if fail:
        raise ToolException("backend down")
    calls.append(prefix + query)
    return f"results for {query}"


def decorated_case() -> ToolCase:
    calls: list[str] = []

    def make(fail: bool = False) -> BaseTool:
        @tool
        def lookup(query: str) -> str:
            """Look things up."""
            return _answer(calls, query, fail)

        return lookup

    return ToolCase(make, calls, QUERY, async_prefix="")  # a sync function: worker thread


def structured_case() -> ToolCase:
    calls: list[str] = []

    def make(fail: bool = False) -> BaseTool:
        def lookup(query: str) -> str:
            return _answer(calls, query, fail)

        async def alookup(query: str) -> str:
            return _answer(calls, query, fail, "async:")

        return StructuredTool.from_function(
            func=lookup, coroutine=alookup, name="lookup", description=DESCRIPTION
        )

    return ToolCase(make, calls, QUERY)


def subclass_case() -> ToolCase:
    calls: list[str] = []

    class Lookup(BaseTool):
        name = "lookup"
        description = DESCRIPTION
        fail: bool = False

        def _run(self, query: str) -> str:
            return _answer(calls, query, self.fail)

        async def _arun(self, query: str) -> str:
            return _answer(calls, query, self.fail, "async:")

    return ToolCase(lambda fail=False: Lookup(fail=fail), calls, QUERY)


def retriever_case() -> ToolCase:
    calls: list[str] = []

    class Fixed(BaseRetriever):
        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def _get_relevant_documents(self, query: str) -> list[Document]:
            return [Document(_answer(calls, query, self.fail))]

        async def _aget_relevant_documents(self, query: str) -> list[Document]:
            return [Document(_answer(calls, query, self.fail, "async:"))]

    def make(fail: bool = False) -> BaseTool:
        return create_retriever_tool(Fixed(fail), "lookup", DESCRIPTION)

    parameters: dict[str, Any] = {
        "properties": {"query": {"description": "query to look up in retriever", "type": "string"}},
        "required": ["query"],
        "type": "object",
    }
    return ToolCase(make, calls, parameters, children=[("Fixed", [])])


CASES = {
    "decorator": decorated_case,
    "structured": structured_case,
    "subclass": subclass_case,
    "retriever": retriever_case,
}


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest) -> ToolCase:
    return CASES[request.param]()


class TestToolContract(ToolContract):
    pass

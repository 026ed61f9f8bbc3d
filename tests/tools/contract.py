"""The tool contract: one suite, run unchanged on every kind of tool.

``tests/tools/test_contract.py`` runs :class:`ToolContract` once per entry of the
``case`` fixture: a ``@tool`` function, a ``StructuredTool`` with a sync and an async
function, a ``BaseTool`` subclass with ``_run`` / ``_arun``, and a retriever tool. Each
is a ``lookup(query: str)`` tool answering ``"results for <query>"`` and recording its
calls, so every expectation below is exact. Each test's docstring says what to look at
when it fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from ragline.core import (
    RunCollectorCallbackHandler,
    RunnableLambda,
    ToolException,
    ToolMessage,
    ToolValidationError,
)
from ragline.tools import BaseTool, convert_to_openai_tool

DESCRIPTION = "Look things up."


@dataclass
class ToolCase:
    """One kind of tool under the contract.

    Attributes:
        make: builds the tool; ``make(fail=True)`` builds one whose work raises
            ``ToolException("backend down")``.
        calls: what the tool's work was called with, in order (``"async:"`` prefixed
            when the async path ran it).
        parameters: the JSON Schema the tool shows a model.
        children: the run tree below the tool's own run, for one call.
        async_prefix: what async calls record (``""`` when the async path runs the sync
            function in a worker thread).
    """

    make: Callable[..., BaseTool]
    calls: list[str]
    parameters: dict[str, Any]
    children: list[Any] = field(default_factory=list)
    async_prefix: str = "async:"


def tool_call(args: Any, call_id: str = "call_1") -> dict[str, Any]:
    return {"name": "lookup", "args": args, "id": call_id, "type": "tool_call"}


class ToolContract:
    """Tests every tool passes; the ``case`` fixture says which tool."""

    def test_invoke_with_arguments_returns_the_output(self, case: ToolCase) -> None:
        """A dict of arguments runs the work once. Check the tool's argument mapping."""
        assert case.make().invoke({"query": "etna"}) == "results for etna"
        assert case.calls == ["etna"]

    def test_a_string_fills_the_single_argument(self, case: ToolCase) -> None:
        """ReAct agents pass one string. Check _to_args_and_kwargs for str input."""
        assert case.make().run("etna") == "results for etna"
        assert case.make().invoke("vesuvius") == "results for vesuvius"
        assert case.calls == ["etna", "vesuvius"]

    def test_a_tool_call_gets_a_tool_message(self, case: ToolCase) -> None:
        """Tool-calling models send ToolCalls; the answer carries their id and the tool name."""
        message = case.make().invoke(tool_call({"query": "etna"}, "call_9"))
        assert message == ToolMessage("results for etna", tool_call_id="call_9", name="lookup")

    async def test_async_gives_the_same_results(self, case: ToolCase) -> None:
        """ainvoke / arun / abatch use the async path. Check _arun and the driver."""
        tool = case.make()
        assert await tool.ainvoke({"query": "a"}) == "results for a"
        assert await tool.arun("b") == "results for b"
        assert await tool.abatch([{"query": "c"}, {"query": "d"}]) == [
            "results for c",
            "results for d",
        ]
        message = await tool.ainvoke(tool_call({"query": "e"}))
        assert message.content == "results for e"
        assert sorted(case.calls) == sorted(f"{case.async_prefix}{q}" for q in "abcde")

    def test_the_run_is_reported_with_its_children(self, case: ToolCase) -> None:
        """One tool run (start, end) with the work's own runs below it. Check the child
        config is current while the work runs."""
        collector = RunCollectorCallbackHandler()
        case.make().invoke({"query": "etna"}, {"callbacks": [collector], "run_name": "t1"})
        (run,) = collector.traced_runs
        assert (run.name, run.run_type) == ("t1", "tool")
        # LangChain's shapes: the arguments as given, the output under "output"
        assert (run.inputs, run.outputs) == ({"query": "etna"}, {"output": "results for etna"})
        assert run.tree() == ("t1", case.children)
        events = [event for event, r in collector.event_log if r is run]
        assert events == ["tool_start", "tool_end"]

    async def test_async_runs_are_reported_with_their_children(self, case: ToolCase) -> None:
        """The same run tree from ainvoke. Check the config crosses into the async work."""
        collector = RunCollectorCallbackHandler()
        await case.make().ainvoke({"query": "etna"}, {"callbacks": [collector]})
        assert collector.traced_runs[0].tree() == ("lookup", case.children)

    def test_bad_arguments_are_refused_before_the_work_runs(self, case: ToolCase) -> None:
        """Arguments are checked against the schema first. Check ArgsSchema.validate."""
        collector = RunCollectorCallbackHandler()
        tool = case.make()
        with pytest.raises(ToolValidationError) as info:
            tool.invoke({"query": 5}, {"callbacks": [collector]})
        assert info.value.errors == [("query", "expected a string, got 5")]
        with pytest.raises(ToolValidationError, match="query: missing"):
            tool.invoke({})
        assert case.calls == []
        assert [event for event, _ in collector.event_log] == ["tool_start", "tool_error"]

    def test_bad_arguments_become_the_observation_when_handled(self, case: ToolCase) -> None:
        """handle_validation_error=True hands LangChain's fixed text back to the model;
        handle_validation_error=str the message naming each bad argument."""
        tool = case.make()
        tool.handle_validation_error = True
        message = tool.invoke(tool_call({"q": "etna"}))
        assert (message.status, message.content) == ("error", "Tool input validation error")
        tool.handle_validation_error = str
        message = tool.invoke(tool_call({"q": "etna"}))
        assert message.status == "error"
        assert message.content.startswith("tool 'lookup' got invalid arguments: query: missing")
        assert case.calls == []

    def test_tool_errors_are_raised_or_handled(self, case: ToolCase) -> None:
        """A ToolException propagates, or becomes the output with handle_tool_error."""
        with pytest.raises(ToolException, match="backend down"):
            case.make(fail=True).invoke({"query": "etna"})
        handled = case.make(fail=True)
        handled.handle_tool_error = True
        assert handled.invoke({"query": "etna"}) == "backend down"
        handled.handle_tool_error = lambda err: f"sorry: {err}"
        message = handled.invoke(tool_call({"query": "etna"}))
        assert (message.content, message.status) == ("sorry: backend down", "error")

    def test_a_model_sees_the_name_description_and_schema(self, case: ToolCase) -> None:
        """convert_to_openai_tool describes the tool. Check tool_call_schema."""
        assert convert_to_openai_tool(case.make()) == {
            "type": "function",
            "function": {
                "name": "lookup",
                "description": DESCRIPTION,
                "parameters": case.parameters,
            },
        }

    def test_tools_batch_and_compose_like_any_runnable(self, case: ToolCase) -> None:
        """A tool is a Runnable: batch keeps order; it composes with |."""
        tool = case.make()
        assert tool.batch([{"query": "a"}, {"query": "b"}]) == ["results for a", "results for b"]
        chain = RunnableLambda(lambda text: {"query": text.strip()}) | tool
        assert chain.invoke("  c ") == "results for c"

    def test_concurrent_async_calls_run_together(self, case: ToolCase) -> None:
        """Independent calls do not wait for each other (asyncio.gather)."""

        async def main() -> list[Any]:
            tool = case.make()
            return await asyncio.gather(*(tool.ainvoke({"query": q}) for q in "xyz"))

        assert asyncio.run(main()) == ["results for x", "results for y", "results for z"]

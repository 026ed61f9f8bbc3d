"""Tool-calling agents (create_tool_calling_agent) driven by scripted AIMessages."""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from typing import Any

import pytest
from _run_ids import RUN_ID, no_run_ids

from ragline.agents import (
    AgentExecutor,
    ToolsAgentOutputParser,
    create_tool_calling_agent,
    format_to_tool_messages,
    initialize_agent,
)
from ragline.core import (
    AgentFinish,
    AIMessage,
    ChatPromptTemplate,
    FakeListLLM,
    FakeMessagesListChatModel,
    FunctionMessage,
    HumanMessage,
    InvalidInputError,
    MessagesPlaceholder,
    OutputParserException,
    RunCollectorCallbackHandler,
    SystemMessage,
    ToolAgentAction,
    ToolMessage,
    ToolValidationError,
)
from ragline.core.exceptions import AgentParsingError
from ragline.tools import tool

from ._math_tools import add, multiply

PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a helpful assistant"),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)


def calls(*pairs: tuple[str, dict[str, Any], str], content: str = "") -> AIMessage:
    return AIMessage(
        content,
        tool_calls=[{"name": name, "args": args, "id": call_id} for name, args, call_id in pairs],
    )


PARALLEL = calls(("add", {"a": 1, "b": 2}, "c1"), ("multiply", {"a": 3, "b": 4}, "c2"),
                 content="Let me compute both.")  # fmt: skip
FINAL = AIMessage("1 + 2 = 3 and 3 * 4 = 12.")


def agent_with(*replies: AIMessage, tools: list[Any] | None = None, **options: Any):
    model = FakeMessagesListChatModel(responses=list(replies))
    tools = tools if tools is not None else [add, multiply]
    agent = create_tool_calling_agent(model, tools, PROMPT)
    return AgentExecutor(agent=agent, tools=tools, **options), model


def test_parallel_tool_calls_run_in_one_step_and_go_back_as_tool_messages():
    executor, model = agent_with(PARALLEL, FINAL, return_intermediate_steps=True)
    result = executor.invoke({"input": "What is 1 + 2 and 3 * 4?"})
    assert result["output"] == "1 + 2 = 3 and 3 * 4 = 12."
    first, second = result["intermediate_steps"]
    replied = copy.copy(PARALLEL)  # the reply as the model gave it: with its run's id
    replied.id = first[0].message_log[0].id
    assert replied.id is not None and RUN_ID.fullmatch(replied.id), replied.id
    assert first == (
        ToolAgentAction("add", {"a": 1, "b": 2},
                        "\nInvoking: `add` with `{'a': 1, 'b': 2}`\nresponded: Let me compute "
                        "both.\n\n", [replied], tool_call_id="c1"),
        3,
    )  # fmt: skip
    assert (second[0].tool_call_id, second[1]) == ("c2", 12)
    # the second call shows the model its reply once, then one ToolMessage per call
    assert model.calls[1] == [
        SystemMessage("You are a helpful assistant"),
        HumanMessage("What is 1 + 2 and 3 * 4?"),
        replied,
        ToolMessage("3", tool_call_id="c1", additional_kwargs={"name": "add"}),
        ToolMessage("12", tool_call_id="c2", additional_kwargs={"name": "multiply"}),
    ]
    assert [spec["function"]["name"] for spec in model.call_options[0]["tools"]] == [
        "add", "multiply"
    ]  # fmt: skip


def test_callbacks_report_each_action_before_its_tool_run():
    executor, _ = agent_with(PARALLEL, FINAL)
    collector = RunCollectorCallbackHandler()
    executor.invoke({"input": "x"}, {"callbacks": [collector]})
    agent_level = [
        (event, name) for event, name, parent in collector.timeline()
        if name == "AgentExecutor" or parent == "AgentExecutor"
    ]  # fmt: skip
    assert agent_level == [
        ("chain_start", "AgentExecutor"),
        ("chain_start", "RunnableSequence"), ("chain_end", "RunnableSequence"),
        ("agent_action", "AgentExecutor"), ("tool_start", "add"), ("tool_end", "add"),
        ("agent_action", "AgentExecutor"), ("tool_start", "multiply"), ("tool_end", "multiply"),
        ("chain_start", "RunnableSequence"), ("chain_end", "RunnableSequence"),
        ("agent_finish", "AgentExecutor"),
        ("chain_end", "AgentExecutor"),
    ]  # fmt: skip
    plan = collector.traced_runs[0].children[0]
    assert [child.name for child in plan.children] == [
        "RunnableAssign<agent_scratchpad>", "ChatPromptTemplate", "FakeMessagesListChatModel",
        "ToolsAgentOutputParser",
    ]  # fmt: skip
    assert collector.traced_runs[0].children[1].inputs == {"a": 1, "b": 2}


def test_stream_yields_both_actions_then_both_steps_then_the_output():
    executor, _ = agent_with(PARALLEL, FINAL)
    chunks = list(executor.stream({"input": "x"}))
    assert [next(iter(chunk)) for chunk in chunks] == ["actions", "actions", "steps", "steps",
                                                       "output"]  # fmt: skip
    assert no_run_ids(chunks[0]["messages"]) == [PARALLEL]
    assert chunks[2]["messages"] == [FunctionMessage("3", name="add")]
    assert chunks[-1] == {"output": FINAL.content, "messages": [AIMessage(FINAL.content)]}


async def test_async_runs_the_calls_of_one_step_concurrently():
    """Each call waits until the other has started: run one after the other, the first
    would wait for the second in vain (until the 60 s bound that only stops a hang)."""
    started: list[int] = []
    both_started = asyncio.Event()
    met: list[bool] = []

    @tool
    async def slow_add(a: int, b: int) -> int:
        """Adds slowly."""
        started.append(a)
        if len(started) == 2:
            both_started.set()
        try:
            await asyncio.wait_for(both_started.wait(), timeout=60)
            met.append(True)
        except TimeoutError:
            met.append(False)
        return a + b

    reply = calls(("slow_add", {"a": 1, "b": 2}, "c1"), ("slow_add", {"a": 3, "b": 4}, "c2"))
    executor, _ = agent_with(reply, FINAL, tools=[slow_add], return_intermediate_steps=True)
    result = await executor.ainvoke({"input": "x"})
    assert [observation for _, observation in result["intermediate_steps"]] == [3, 7]
    assert met == [True, True]  # both were running at once


async def test_async_stops_the_other_calls_when_one_fails():
    finished: list[str] = []

    @tool
    async def slow(text: str) -> str:
        """Slow."""
        await asyncio.sleep(0.5)
        finished.append(text)
        return text

    @tool
    async def broken(text: str) -> str:
        """Broken."""
        raise RuntimeError("boom")

    reply = calls(("slow", {"text": "a"}, "c1"), ("broken", {"text": "b"}, "c2"))
    executor, _ = agent_with(reply, FINAL, tools=[slow, broken])
    with pytest.raises(RuntimeError, match="boom"):
        await executor.ainvoke({"input": "x"})
    await asyncio.sleep(0.6)
    assert finished == []


def test_a_single_input_tool_gets_its_one_argument():
    @tool(infer_schema=False)
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    executor, _ = agent_with(calls(("shout", {"__arg1": "hi"}, "c1")), FINAL, tools=[shout],
                             return_intermediate_steps=True)  # fmt: skip
    ((action, observation),) = executor.invoke({"input": "x"})["intermediate_steps"]
    assert (action.tool_input, observation) == ("hi", "HI")


def test_bad_tool_calls():
    # unknown tool: the invalid_tool observation goes back as that call's ToolMessage
    executor, model = agent_with(calls(("divide", {"a": 1}, "c1")), FINAL)
    assert executor.invoke({"input": "x"})["output"] == FINAL.content
    assert model.calls[1][-1] == ToolMessage(
        "divide is not a valid tool, try one of [add, multiply].",
        tool_call_id="c1",
        additional_kwargs={"name": "divide"},
    )
    # arguments that fail the schema: a clear error, or the tool's observation
    executor, _ = agent_with(calls(("add", {"a": "one", "b": 2}, "c1")), FINAL)
    with pytest.raises(ToolValidationError, match="tool 'add' got invalid arguments: a: expected"):
        executor.invoke({"input": "x"})
    # arguments that are not JSON: an output parsing error (handled here)
    broken = AIMessage("", invalid_tool_calls=[
        {"name": "add", "args": "a=1, b=2", "id": "c1", "error": "bad json"}])  # fmt: skip
    executor, model = agent_with(broken, FINAL, handle_parsing_errors=True)
    assert executor.invoke({"input": "x"})["output"] == FINAL.content
    assert model.calls[1][-1] == AIMessage(
        "Could not parse tool input: {'name': 'add', 'arguments': 'a=1, b=2'} because the "
        "`arguments` is not valid JSON."
    )
    executor, _ = agent_with(broken, FINAL)
    with pytest.raises(AgentParsingError, match="handle_parsing_errors=True"):
        executor.invoke({"input": "x"})


def test_a_model_that_keeps_calling_is_stopped_by_max_iterations():
    executor, model = agent_with(calls(("add", {"a": 1, "b": 1}, "c1")), max_iterations=4)
    result = executor.invoke({"input": "x"})
    assert result["output"] == "Agent stopped due to max iterations."  # LangChain's words
    assert len(model.calls) == 4


def test_the_agent_needs_a_scratchpad_and_a_model_that_binds_tools():
    model = FakeMessagesListChatModel(responses=[FINAL])
    with pytest.raises(InvalidInputError, match="must have input variable `agent_scratchpad`"):
        create_tool_calling_agent(
            model, [add], ChatPromptTemplate.from_messages([("human", "{x}")])
        )
    with pytest.raises(InvalidInputError, match="needs a model with bind_tools; FakeListLLM"):
        create_tool_calling_agent(FakeListLLM(responses=["x"]), [add], PROMPT)


def test_the_parser_and_the_formatter_alone():
    actions = ToolsAgentOutputParser().invoke(PARALLEL)
    assert [(a.tool, a.tool_call_id) for a in actions] == [("add", "c1"), ("multiply", "c2")]
    assert ToolsAgentOutputParser().invoke(FINAL) == AgentFinish(
        {"output": FINAL.content}, FINAL.content
    )
    with pytest.raises(OutputParserException, match="parses AI messages, got HumanMessage"):
        ToolsAgentOutputParser().invoke(HumanMessage("x"))
    assert format_to_tool_messages([(actions[0], 3), (actions[1], {"v": 12})]) == [
        PARALLEL,
        ToolMessage("3", tool_call_id="c1", additional_kwargs={"name": "add"}),
        ToolMessage('{"v": 12}', tool_call_id="c2", additional_kwargs={"name": "multiply"}),
    ]


def test_initialize_agent_with_openai_functions_is_a_tool_calling_agent():
    model = FakeMessagesListChatModel(responses=[calls(("add", {"a": 2, "b": 2}, "c1")), FINAL])
    executor = initialize_agent([add], model, agent="openai-functions")
    assert executor.run("2 + 2?") == FINAL.content
    assert model.calls[1][-1].content == "4"


async def test_async_runs_report_the_same_run_tree():
    one = calls(("add", {"a": 1, "b": 2}, "c1"))
    executor, _ = agent_with(one, FINAL)
    collector = RunCollectorCallbackHandler()
    chunks = [c async for c in executor.astream({"input": "x"}, {"callbacks": [collector]})]
    assert [next(iter(chunk)) for chunk in chunks] == ["actions", "steps", "output"]
    root = collector.traced_runs[0]
    assert [(child.name, child.run_type) for child in root.children] == [
        ("RunnableSequence", "chain"), ("add", "tool"), ("RunnableSequence", "chain")
    ]  # fmt: skip
    assert [event for event, name, _ in collector.timeline() if name == "AgentExecutor"] == [
        "chain_start", "agent_action", "agent_finish", "chain_end"
    ]  # fmt: skip
    assert root.outputs == {"output": FINAL.content}


async def test_truncated_streamed_arguments_never_run_the_tool():
    """A stream cut off inside a tool call's arguments (issue 31) is a parsing error, not a
    call with the leniently repaired arguments: with the default stream_runnable=True the
    tool used to run as delete_path('/srv/data/tmp-cache/old')."""
    deleted: list[str] = []

    @tool
    def delete_path(path: str) -> str:
        """Delete a path."""
        deleted.append(path)
        return "deleted"

    cut = '{"path": "/srv/data/tmp-cache/old'
    truncated = AIMessage(
        "", invalid_tool_calls=[{"name": "delete_path", "args": cut, "id": "c1", "error": None}]
    )
    executor, model = agent_with(truncated, FINAL, tools=[delete_path], handle_parsing_errors=True)
    assert executor.invoke({"input": "clean up"})["output"] == FINAL.content
    assert model.calls[1][-1] == AIMessage(
        f"Could not parse tool input: {{'name': 'delete_path', 'arguments': {cut!r}}} because "
        "the `arguments` is not valid JSON."
    )
    executor, _ = agent_with(truncated, FINAL, tools=[delete_path])
    with pytest.raises(AgentParsingError, match="handle_parsing_errors=True"):
        await executor.ainvoke({"input": "clean up"})
    assert deleted == []
    # the same arguments complete still run, streamed
    whole = calls(("delete_path", {"path": "/srv/data/tmp-cache/old"}, "c1"))
    executor, _ = agent_with(whole, FINAL, tools=[delete_path])
    assert executor.invoke({"input": "clean up"})["output"] == FINAL.content
    assert deleted == ["/srv/data/tmp-cache/old"]


def test_max_execution_time_cuts_a_sync_tool_under_ainvoke():
    """A sync tool that outlasts max_execution_time under ainvoke (issue 31: a 30 s sleep
    ran to the end under a 2 s limit): the run ends with the time-limit outcome while the
    tool is still running, and asyncio.run returns without waiting for its thread."""
    release, finished = threading.Event(), threading.Event()

    @tool
    def slow(x: int) -> str:
        """Wait to be released."""
        release.wait(60)
        finished.set()
        return "done"

    executor, _ = agent_with(
        calls(("slow", {"x": 1}, "c1")), FINAL, tools=[slow], max_execution_time=0.3
    )
    try:
        started = time.monotonic()
        result = asyncio.run(executor.ainvoke({"input": "x"}))
        elapsed = time.monotonic() - started
        assert result["output"] == "Agent stopped due to max iterations."  # LangChain's words
        assert not finished.is_set(), f"the run waited for the tool ({elapsed:.1f} s)"
    finally:
        release.set()
    assert finished.wait(5)

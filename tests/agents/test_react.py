"""ReAct agents (create_react_agent) under AgentExecutor, driven by scripted text replies."""

from __future__ import annotations

import asyncio
import re
from types import SimpleNamespace
from typing import Any

import pytest

from ragline.agents import (
    REACT_PROMPT,
    AgentExecutor,
    ReActSingleInputOutputParser,
    create_react_agent,
    format_log_to_str,
)
from ragline.chains import RUN_KEY
from ragline.core import (
    AgentAction,
    AgentFinish,
    AgentStep,
    AIMessage,
    BaseCallbackHandler,
    ConfigurationError,
    FakeListChatModel,
    FakeListLLM,
    HumanMessage,
    InvalidInputError,
    OutputParserException,
    PromptTemplate,
    RunCollectorCallbackHandler,
    RunInfo,
    ToolException,
    ToolValidationError,
)
from ragline.core.exceptions import AgentParsingError
from ragline.tools import Tool, tool

QUESTION = "Where is Etna, and how tall?"


@tool
def search(query: str) -> str:
    """Search the notes."""
    return {"etna": "Etna is in Sicily.", "height": "Etna is 3,357 m tall."}.get(
        query.lower(), "nothing found"
    )


@tool(return_direct=True)
def lookup(query: str) -> str:
    """Look an answer up directly."""
    return f"direct: {query}"


def react(
    *replies: str, tools: list[Any] | None = None, **options: Any
) -> tuple[AgentExecutor, Any]:
    llm = FakeListLLM(responses=list(replies))
    tools = tools if tools is not None else [search]
    agent = create_react_agent(llm, tools, REACT_PROMPT)
    return AgentExecutor(agent=agent, tools=tools, **options), llm


TWO_SEARCHES = (
    " I should search for Etna.\nAction: search\nAction Input: etna",
    ' Now its height.\nAction: search\nAction Input: "height"',
    " I now know the final answer.\nFinal Answer: Sicily, 3,357 m.",
)


def test_the_loop_plans_acts_observes_and_finishes():
    executor, llm = react(*TWO_SEARCHES, return_intermediate_steps=True)
    result = executor.invoke({"input": QUESTION})
    first = AgentAction("search", "etna", TWO_SEARCHES[0])
    second = AgentAction("search", "height", TWO_SEARCHES[1])
    assert result == {
        "input": QUESTION,
        "output": "Sicily, 3,357 m.",
        "intermediate_steps": [(first, "Etna is in Sicily."), (second, "Etna is 3,357 m tall.")],
    }
    assert llm.stops == [["\nObservation"]] * 3
    # the third prompt shows the model its own steps (LangChain's scratchpad format)
    assert llm.calls[2].endswith(
        f"Question: {QUESTION}\nThought:{TWO_SEARCHES[0]}\nObservation: Etna is in Sicily.\n"
        f"Thought: {TWO_SEARCHES[1]}\nObservation: Etna is 3,357 m tall.\nThought: "
    )
    assert llm.calls[0] == REACT_PROMPT.format(
        tools="search(query: 'str') -> 'str' - Search the notes.",
        tool_names="search",
        input=QUESTION,
        agent_scratchpad="",
    )


def test_callbacks_see_one_run_tree_in_order():
    executor, _ = react(*TWO_SEARCHES[1:])
    collector, actions = RunCollectorCallbackHandler(), []

    class Actions(BaseCallbackHandler):
        def on_agent_action(self, action: Any, **kwargs: Any) -> None:
            actions.append(action)

    config = {"callbacks": [collector, Actions()], "tags": ["agent"]}
    executor.invoke({"input": QUESTION}, config)
    events = [(event, name) for event, name, _ in collector.timeline()]
    one_plan = [
        ("chain_start", "RunnableSequence"),
        ("chain_start", "RunnableAssign<agent_scratchpad>"),
        ("chain_start", "RunnableParallel<agent_scratchpad>"),
        ("chain_start", "RunnableLambda"),
        ("chain_end", "RunnableLambda"),
        ("chain_end", "RunnableParallel<agent_scratchpad>"),
        ("chain_end", "RunnableAssign<agent_scratchpad>"),
        ("chain_start", "PromptTemplate"),
        ("chain_end", "PromptTemplate"),
        ("llm_start", "FakeListLLM"),
        ("llm_end", "FakeListLLM"),
    ]
    parser = "ReActSingleInputOutputParser"
    plan_end = [("chain_start", parser), ("chain_end", parser), ("chain_end", "RunnableSequence")]
    assert events[0] == ("chain_start", "AgentExecutor")
    body = [e for e in events[1:] if e[0] != "llm_new_token"]
    assert body == [
        *one_plan, *plan_end,
        ("agent_action", "AgentExecutor"), ("tool_start", "search"), ("tool_end", "search"),
        *one_plan, *plan_end,
        ("agent_finish", "AgentExecutor"), ("chain_end", "AgentExecutor"),
    ]  # fmt: skip
    root = collector.traced_runs[0]
    assert [child.name for child in root.children] == ["RunnableSequence", "search",
                                                       "RunnableSequence"]  # fmt: skip
    assert root.tags == ["agent"] and root.children[1].tags == ["agent"]
    assert root.outputs == {"output": "Sicily, 3,357 m."}
    assert actions == [AgentAction("search", "height", TWO_SEARCHES[1])]


def test_a_chat_model_works_the_same_and_streams_tokens_to_callbacks():
    model = FakeListChatModel(responses=list(TWO_SEARCHES[1:]))
    agent = create_react_agent(model, [search], REACT_PROMPT)
    collector = RunCollectorCallbackHandler()
    result = AgentExecutor(agent=agent, tools=[search]).invoke(
        {"input": QUESTION}, {"callbacks": [collector]}
    )
    assert result["output"] == "Sicily, 3,357 m."
    assert model.stops == [["\nObservation"]] * 2
    assert model.calls[1] == [HumanMessage(model.calls[1][0].text)]
    tokens = [e for e, _ in collector.event_log if e == "llm_new_token"]
    assert len(tokens) == len(TWO_SEARCHES[1]) + len(TWO_SEARCHES[2])  # streamed by default
    no_stream = AgentExecutor(agent=agent, tools=[search], stream_runnable=False)
    collector = RunCollectorCallbackHandler()
    no_stream.invoke({"input": QUESTION}, {"callbacks": [collector]})
    assert "llm_new_token" not in [e for e, _ in collector.event_log]


def test_stream_yields_actions_steps_and_the_output_as_they_happen():
    executor, _ = react(*TWO_SEARCHES[1:])
    chunks = list(executor.stream({"input": QUESTION}))
    action = AgentAction("search", "height", TWO_SEARCHES[1])
    step = AgentStep(action=action, observation="Etna is 3,357 m tall.")
    assert chunks == [
        {"actions": [action], "messages": [AIMessage(TWO_SEARCHES[1])]},
        {"steps": [step], "messages": [HumanMessage("Etna is 3,357 m tall.")]},
        {"output": "Sicily, 3,357 m.", "messages": [AIMessage(TWO_SEARCHES[2])]},
    ]


def test_iter_yields_each_round_then_the_output():
    executor, _ = react(*TWO_SEARCHES)
    chunks = list(executor.iter({"input": QUESTION}))
    assert [list(chunk) for chunk in chunks] == [["intermediate_step"]] * 2 + [
        ["output", "messages"]
    ]
    assert chunks[1]["intermediate_step"] == [
        (AgentAction("search", "height", TWO_SEARCHES[1]), "Etna is 3,357 m tall.")
    ]


def test_stopping_a_stream_early_ends_the_executor_run():
    executor, llm = react(*TWO_SEARCHES)
    collector = RunCollectorCallbackHandler()
    stream = executor.stream({"input": QUESTION}, {"callbacks": [collector]})
    assert "actions" in next(stream)
    stream.close()
    root = collector.traced_runs[0]
    assert (root.end_time is not None, root.error) == (True, None)
    assert len(llm.calls) == 1  # nothing ran after the consumer stopped


async def test_async_invoke_stream_and_iter_match_the_sync_ones():
    executor, _ = react(*TWO_SEARCHES)
    result = await executor.ainvoke({"input": QUESTION})
    assert result["output"] == "Sicily, 3,357 m."
    executor, _ = react(*TWO_SEARCHES[1:])
    chunks = [chunk async for chunk in executor.astream({"input": QUESTION})]
    assert [next(iter(chunk)) for chunk in chunks] == ["actions", "steps", "output"]
    executor, _ = react(*TWO_SEARCHES)
    rounds = [chunk async for chunk in executor.iter({"input": QUESTION})]
    assert len(rounds) == 3 and rounds[-1]["output"] == "Sicily, 3,357 m."


def test_legacy_call_shapes_run_and_call():
    executor, _ = react(" I know.\nFinal Answer: Sicily")
    # a Runnable agent has no output keys (LangChain's), so run() refuses
    with pytest.raises(ValueError, match="exactly one output key"):
        executor.run(QUESTION)
    assert executor({"input": QUESTION}, return_only_outputs=True) == {"output": "Sicily"}
    assert executor.invoke(QUESTION) == {"input": QUESTION, "output": "Sicily"}
    assert executor.batch([{"input": "a"}, {"input": "b"}]) == [
        {"input": "a", "output": "Sicily"},
        {"input": "b", "output": "Sicily"},
    ]
    with pytest.raises(TypeError, match="unexpected keyword argument 'tag'"):
        executor({"input": QUESTION}, tag=["x"])  # type: ignore[call-arg]


def test_include_run_info_gives_the_executor_runs_id():
    collector = RunCollectorCallbackHandler()
    executor, _ = react(" I know.\nFinal Answer: Sicily")
    result = executor(
        QUESTION, True, [collector], tags=["t"], run_name="mine", include_run_info=True
    )
    root = collector.traced_runs[0]
    assert result == {"output": "Sicily", RUN_KEY: RunInfo(root.id)}
    assert (root.name, root.tags) == ("mine", ["t"])
    executor, _ = react(*TWO_SEARCHES)
    collector.traced_runs.clear()
    *rounds, last = executor.iter({"input": QUESTION}, [collector], include_run_info=True)
    assert len(rounds) == 2 and RUN_KEY not in rounds[-1]
    assert last[RUN_KEY] == RunInfo(collector.traced_runs[0].id)


# --------------------------------------------------------------------------- the parser


@pytest.mark.parametrize(
    ("text", "observation"),
    [
        ("I am thinking hard.", "Invalid Format: Missing 'Action:' after 'Thought:'"),
        (
            "I will search.\nAction: search",
            "Invalid Format: Missing 'Action Input:' after 'Action:'",
        ),
    ],
)
def test_malformed_replies_carry_the_observation_for_the_model(text, observation):
    with pytest.raises(OutputParserException) as info:
        ReActSingleInputOutputParser().parse(text)
    error = info.value
    assert str(error) == f"Could not parse LLM output: `{text}`"
    assert (error.observation, error.llm_output, error.send_to_llm) == (observation, text, True)


def test_the_parser_reads_actions_and_answers_like_langchains():
    parser = ReActSingleInputOutputParser()
    assert parser.parse('Thought\nAction 1: search\nAction Input 1: "quoted" ') == AgentAction(
        "search", "quoted", 'Thought\nAction 1: search\nAction Input 1: "quoted" '
    )
    assert parser.parse("ok\nFinal Answer: a\nFinal Answer: b") == AgentFinish(
        {"output": "b"}, "ok\nFinal Answer: a\nFinal Answer: b"
    )
    with pytest.raises(OutputParserException, match="both a final answer and a parse-able"):
        parser.parse("Action: search\nAction Input: x\nFinal Answer: y")


UNPARSED = "Could not parse LLM output: `I am lost.`"


@pytest.mark.parametrize(
    ("handle", "observation", "log"),
    [
        (True, "Invalid Format: Missing 'Action:' after 'Thought:'", "I am lost."),
        ("Please use the format.", "Please use the format.", UNPARSED),
        (lambda err: f"Error: {err.observation}",
         "Error: Invalid Format: Missing 'Action:' after 'Thought:'", UNPARSED),
    ],
)  # fmt: skip
def test_handled_parsing_errors_go_back_to_the_model(handle, observation, log):
    executor, llm = react("I am lost.", " Fine.\nFinal Answer: done",
                          handle_parsing_errors=handle, return_intermediate_steps=True)  # fmt: skip
    collector = RunCollectorCallbackHandler()
    result = executor.invoke({"input": QUESTION}, {"callbacks": [collector]})
    assert result["output"] == "done"
    assert result["intermediate_steps"] == [
        (AgentAction("_Exception", observation, log), observation)
    ]
    assert llm.calls[1].endswith(f"Thought:{log}\nObservation: {observation}\nThought: ")
    assert [run.name for run in collector.traced_runs[0].children] == [
        "RunnableSequence", "_Exception", "RunnableSequence"
    ]  # fmt: skip


def test_an_unhandled_parsing_error_names_the_switch():
    executor, _ = react("I am lost.")
    collector = RunCollectorCallbackHandler()
    with pytest.raises(AgentParsingError) as info:
        executor.invoke({"input": QUESTION}, {"callbacks": [collector]})
    assert str(info.value).startswith(
        "The agent's reply could not be parsed: Could not parse LLM output: `I am lost.`\n"
    )
    assert "handle_parsing_errors=True" in str(info.value)
    assert type(info.value).__name__ == "ValueError"  # as LangChain's executor raises
    assert isinstance(info.value.__cause__, OutputParserException)
    assert collector.traced_runs[0].exception is info.value


# --------------------------------------------------------------------------- tools and limits


def test_an_unknown_tool_is_answered_with_the_invalid_tool_observation():
    executor, llm = react(" Let me google.\nAction: google\nAction Input: etna",
                          " Ok.\nFinal Answer: Sicily", return_intermediate_steps=True)  # fmt: skip
    collector = RunCollectorCallbackHandler()
    result = executor.invoke({"input": QUESTION}, {"callbacks": [collector]})
    observation = "google is not a valid tool, try one of [search]."
    assert result["intermediate_steps"][0][1] == observation
    assert collector.traced_runs[0].children[1].name == "invalid_tool"
    assert f"Observation: {observation}\nThought: " in llm.calls[1]


def test_a_return_direct_tool_ends_the_run_with_its_output():
    executor, llm = react(" Look it up.\nAction: lookup\nAction Input: etna",
                          tools=[search, lookup])  # fmt: skip
    assert executor.invoke({"input": QUESTION})["output"] == "direct: etna"
    assert len(llm.calls) == 1


def test_a_raising_tool_fails_the_run_or_becomes_the_observation():
    def flaky(query: str) -> str:
        raise ToolException("service down")

    broken = Tool("flaky", flaky, "Flaky service.")
    replies = (" Try it.\nAction: flaky\nAction Input: x", " Gave up.\nFinal Answer: unknown")
    executor, _ = react(*replies, tools=[broken])
    collector = RunCollectorCallbackHandler()
    with pytest.raises(ToolException, match="service down"):
        executor.invoke({"input": QUESTION}, {"callbacks": [collector]})
    assert [e for e, _ in collector.event_log][-2:] == ["tool_error", "chain_error"]
    root = collector.traced_runs[0]
    assert isinstance(root.exception, ToolException) and root.children[1].run_type == "tool"
    handled = Tool("flaky", flaky, "Flaky service.", handle_tool_error=True)
    executor, llm = react(*replies, tools=[handled])
    assert executor.invoke({"input": QUESTION})["output"] == "unknown"
    assert "Observation: service down\nThought: " in llm.calls[1]


def test_max_iterations_stops_a_model_that_never_finishes():
    forever = " Again.\nAction: search\nAction Input: etna"
    executor, llm = react(forever, max_iterations=3, return_intermediate_steps=True)
    result = executor.invoke({"input": QUESTION})
    assert result["output"] == "Agent stopped due to iteration limit or time limit."
    assert len(result["intermediate_steps"]) == 3 and len(llm.calls) == 3


def test_generate_is_refused_when_a_runnable_agent_is_stopped():
    """As LangChain's: only the older Agent classes write a final answer when stopped;
    the run's steps happen first, the error comes when the limit is reached."""
    forever = " Again.\nAction: search\nAction Input: etna"
    executor, llm = react(forever, forever, max_iterations=2, early_stopping_method="generate")
    with pytest.raises(ConfigurationError, match="RunnableAgent cannot 'generate'"):
        executor.invoke({"input": QUESTION})
    assert len(llm.calls) == 2
    answered, _ = react(" So.\nFinal Answer: Sicily", early_stopping_method="generate")
    assert answered.invoke({"input": QUESTION})["output"] == "Sicily"


def test_max_execution_time_stops_between_rounds(monkeypatch):
    """Each search takes 0.05 s of the executor's clock: rounds end at 0.05, 0.10 and
    0.15 s, so a 0.12 s limit lets exactly three rounds start. The clock is the test's
    (the tool moves it), not the wall clock: on a loaded machine the first round alone
    could outlast 0.12 s of real time, and the loop would stop after one round."""
    clock = [1000.0]
    monkeypatch.setattr(
        "ragline.agents._executor.time", SimpleNamespace(monotonic=lambda: clock[0])
    )

    @tool
    def slow(query: str) -> str:
        """Slow search."""
        clock[0] += 0.05
        return "later"

    forever = " Again.\nAction: slow\nAction Input: etna"
    # max_iterations=10, not None: should the time limit not stop the loop, the test
    # fails at once (10 calls, not 3) instead of running forever
    executor, llm = react(forever, tools=[slow], max_iterations=10, max_execution_time=0.12)
    assert executor.invoke({"input": QUESTION})["output"] == (
        "Agent stopped due to iteration limit or time limit."
    )
    assert len(llm.calls) == 3


async def test_max_execution_time_interrupts_an_async_round():
    class Stuck(Tool):
        pass

    async def hang(query: str) -> str:
        await asyncio.sleep(120)
        return "never"

    stuck = Stuck("stuck", None, "Never returns.", coroutine=hang)
    executor, _ = react(" Wait.\nAction: stuck\nAction Input: x", tools=[stuck],
                        max_execution_time=0.1, return_intermediate_steps=True)  # fmt: skip
    collector = RunCollectorCallbackHandler()
    # a round that is not interrupted fails here at 60 s (wait_for), not after one 120 s
    # wait per round of the agent's default max_iterations
    run = executor.ainvoke({"input": QUESTION}, {"callbacks": [collector]})
    result = await asyncio.wait_for(run, timeout=60)
    assert result["output"] == "Agent stopped due to iteration limit or time limit."
    assert result["intermediate_steps"] == []
    assert collector.traced_runs[0].outputs == {
        "output": "Agent stopped due to iteration limit or time limit.",
        "intermediate_steps": [],
    }


def test_trim_intermediate_steps_limits_what_the_agent_sees():
    replies = [f" Step {n}.\nAction: search\nAction Input: etna" for n in range(3)]
    executor, llm = react(*replies, " Done.\nFinal Answer: x", trim_intermediate_steps=1)
    executor.invoke({"input": QUESTION})
    assert "Step 0" not in llm.calls[2] and "Step 1" in llm.calls[2]
    executor, llm = react(*replies, " Done.\nFinal Answer: x",
                          trim_intermediate_steps=lambda steps: steps[:1])  # fmt: skip
    executor.invoke({"input": QUESTION})
    assert "Step 0" in llm.calls[3] and "Step 2" not in llm.calls[3]


def test_verbose_prints_the_react_transcript(capsys):
    executor, _ = react(*TWO_SEARCHES[1:], verbose=True)
    executor.invoke({"input": QUESTION})
    assert capsys.readouterr().out == (
        "\n\n\x1b[1m> Entering new AgentExecutor chain...\x1b[0m\n"
        f"\x1b[32;1m\x1b[1;3m{TWO_SEARCHES[1]}\x1b[0m"  # the agent's thought: green
        "\x1b[36;1m\x1b[1;3mEtna is 3,357 m tall.\x1b[0m"  # the first tool's answer: blue
        f"\x1b[32;1m\x1b[1;3m{TWO_SEARCHES[2]}\x1b[0m\n"
        "\n\x1b[1m> Finished chain.\x1b[0m\n"
    )


# --------------------------------------------------------------------------- building


def test_bad_agents_and_options_are_refused_when_built():
    llm = FakeListLLM(responses=["x"])
    twin = Tool("search", str, "Another search.")
    with pytest.raises(InvalidInputError, match="two tools are named 'search'"):
        create_react_agent(llm, [search, twin], REACT_PROMPT)
    agent = create_react_agent(llm, [search], REACT_PROMPT)
    with pytest.raises(InvalidInputError, match="two tools are named 'search'"):
        AgentExecutor(agent=agent, tools=[search, twin])
    # a plain ValueError, LangChain's type (tests/parity/test_port_trial_set60.py)
    with pytest.raises(
        ValueError, match=re.escape("missing required variables: ['tool_names'")
    ) as caught:
        create_react_agent(
            llm, [search], PromptTemplate.from_template("{tools} {agent_scratchpad}")
        )
    assert type(caught.value) is ValueError
    for options, message in [
        ({"max_iterations": 0}, "max_iterations must be an int >= 1 or None, got 0"),
        ({"max_execution_time": -1}, "max_execution_time must be a finite number > 0, got -1"),
        ({"early_stopping_method": "stop"}, "early_stopping_method 'stop' is not one of"),
        ({"handle_parsing_errors": 3}, "handle_parsing_errors must be a bool, a str or a callable"),
        ({"tools": [search, "calculator"]}, r"tools\[1\] must be a tool"),
    ]:
        with pytest.raises(ValueError, match=message):
            AgentExecutor(**{"agent": agent, "tools": [search], **options})
    with pytest.raises(ValueError, match="AgentExecutor is missing input"):
        AgentExecutor(agent=_keyed_agent(), tools=[search]).invoke({"question": "x"})


def _keyed_agent() -> Any:
    from ragline.agents import ZeroShotAgent

    return ZeroShotAgent.from_llm_and_tools(FakeListLLM(responses=["x"]), [search])


def test_validation_errors_of_a_tools_arguments_are_raised_or_observed():
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    bad_call = ' Add.\nAction: add\nAction Input: {"a": "one", "b": 2}'
    executor, _ = react(bad_call, tools=[add])
    with pytest.raises(ToolValidationError, match="a: expected an integer, got 'one'"):
        executor.invoke({"input": "1+2?"})
    add.handle_validation_error = True
    executor, llm = react(bad_call, " Ok.\nFinal Answer: 3", tools=[add])
    assert executor.invoke({"input": "1+2?"})["output"] == "3"
    assert "Observation: Tool input validation error\n" in llm.calls[1]
    add.handle_validation_error = str
    executor, llm = react(bad_call, " Ok.\nFinal Answer: 3", tools=[add])
    assert executor.invoke({"input": "1+2?"})["output"] == "3"
    assert "Observation: tool 'add' got invalid arguments: a: expected an integer" in llm.calls[1]


def test_format_log_to_str_prefixes():
    action = AgentAction("t", "i", "log")
    assert format_log_to_str([(action, 1)], "Obs: ", "Next:") == "log\nObs: 1\nNext:"


def test_a_legacy_memory_is_read_before_and_written_after():
    class Memory:
        def __init__(self) -> None:
            self.saved: list[tuple[dict, dict]] = []

        def load_memory_variables(self, inputs: dict) -> dict:
            return {"history": "Human: hi"}

        def save_context(self, inputs: dict, outputs: dict) -> None:
            self.saved.append((inputs, outputs))

    memory = Memory()
    executor, _ = react(" I know.\nFinal Answer: Sicily", memory=memory)
    assert executor.invoke({"input": QUESTION}) == {
        "input": QUESTION,
        "history": "Human: hi",
        "output": "Sicily",
    }
    assert memory.saved == [({"input": QUESTION, "history": "Human: hi"}, {"output": "Sicily"})]


def test_a_legacy_agent_runs_the_prompt_and_model_set_after_it_was_built():
    from ragline.agents import AgentType, initialize_agent

    seen: list[str] = []

    class Prompts(BaseCallbackHandler):
        def on_llm_start(self, serialized: Any, prompts: list[str], **kwargs: Any) -> None:
            seen.append(prompts[0])

    calc = Tool(name="calc", func=lambda q: "4", description="math")
    executor = initialize_agent(
        [calc], FakeListLLM(responses=["Final Answer: 4"]),
        agent=AgentType.ZERO_SHOT_REACT_DESCRIPTION,
    )  # fmt: skip
    agent = executor.agent
    agent.prompt = PromptTemplate.from_template("MINE {input} {agent_scratchpad}")
    agent.llm_chain.llm = FakeListLLM(responses=["Final Answer: 5"])
    assert executor.invoke({"input": "2+2?"}, {"callbacks": [Prompts()]})["output"] == "5"
    assert seen == ["MINE 2+2? "]
    # each side now holds what was set on the other
    assert agent.llm is agent.llm_chain.llm
    assert agent.llm_chain.prompt is agent.prompt

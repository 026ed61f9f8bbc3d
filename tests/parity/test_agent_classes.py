"""Parity: a program's own agents (BaseSingleActionAgent / BaseMultiActionAgent
subclasses) and the legacy ZeroShotAgent (an Agent), run by AgentExecutor in both
libraries. Compared: the answer and the intermediate steps (tool, input, log,
observation), and what a limit-stopped agent answers.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core import agents as lc_schema

from ragline import agents as ragline_agents
from tests.parity.test_agents import echo_tool, lib, without_link

COVERS = {
    "agents.BaseSingleActionAgent",
    "agents.BaseMultiActionAgent",
    "agents.ZeroShotAgent",
    "agents.Agent",
    "agents.RunnableMultiActionAgent",
}


def schema(ns: dict[str, Any]) -> Any:
    """Where each library keeps AgentAction and AgentFinish."""
    return lc_schema if ns["agents"] is not ragline_agents else ragline_agents


def single_action_agent(ns: dict[str, Any]) -> Any:
    agents = ns["agents"]
    steps = schema(ns)

    class EchoTwice(agents.BaseSingleActionAgent):  # type: ignore[name-defined]
        """Echoes the input, then the first observation, then answers with the last one."""

        @property
        def input_keys(self) -> list[str]:
            return ["input"]

        def plan(self, intermediate_steps: Any, callbacks: Any = None, **kwargs: Any) -> Any:
            if len(intermediate_steps) == 2:
                answer = intermediate_steps[-1][1]
                return steps.AgentFinish({"output": f"got {answer}"}, f"done: {answer}")
            text = intermediate_steps[-1][1] + "!" if intermediate_steps else kwargs["input"]
            return steps.AgentAction("echo", text, f"echo {text}")

        async def aplan(self, intermediate_steps: Any, callbacks: Any = None, **kwargs: Any) -> Any:
            return self.plan(intermediate_steps, callbacks, **kwargs)

    return EchoTwice()


def multi_action_agent(ns: dict[str, Any]) -> Any:
    agents = ns["agents"]
    steps = schema(ns)

    class EchoBoth(agents.BaseMultiActionAgent):  # type: ignore[name-defined]
        """Echoes two texts in one step, then answers with both observations."""

        @property
        def input_keys(self) -> list[str]:
            return ["input"]

        def plan(self, intermediate_steps: Any, callbacks: Any = None, **kwargs: Any) -> Any:
            if intermediate_steps:
                seen = ", ".join(observation for _, observation in intermediate_steps)
                return steps.AgentFinish({"output": seen}, "both echoed")
            words = kwargs["input"].split()
            return [steps.AgentAction("echo", word, f"echo {word}") for word in words[:2]]

        async def aplan(self, intermediate_steps: Any, callbacks: Any = None, **kwargs: Any) -> Any:
            return self.plan(intermediate_steps, callbacks, **kwargs)

    return EchoBoth()


def run(ns: dict[str, Any], agent: Any, **options: Any) -> Any:
    executor = ns["agents"].AgentExecutor(
        agent=agent, tools=[echo_tool(ns)], return_intermediate_steps=True, **options
    )
    return executor.invoke({"input": "red apple"})


@pytest.mark.parametrize("build", [single_action_agent, multi_action_agent])
def test_a_programs_own_agent_runs_the_same(build: Any) -> None:
    theirs = run(lib("langchain"), build(lib("langchain")))
    ours = run(lib("ragline"), build(lib("ragline")))
    assert without_link(ours) == without_link(theirs)


def test_the_expected_single_action_steps() -> None:
    ours = run(lib("ragline"), single_action_agent(lib("ragline")))
    assert ours["output"] == "got red apple!"
    assert [(s[0].tool_input, s[1]) for s in ours["intermediate_steps"]] == [
        ("red apple", "red apple"),
        ("red apple!", "red apple!"),
    ]


async def test_a_programs_own_agent_runs_the_same_async() -> None:
    for build in (single_action_agent, multi_action_agent):
        theirs = (
            await lib("langchain")["agents"]
            .AgentExecutor(agent=build(lib("langchain")), tools=[echo_tool(lib("langchain"))])
            .ainvoke({"input": "red apple"})
        )
        ours = await agents_executor(build).ainvoke({"input": "red apple"})
        assert ours == theirs


def agents_executor(build: Any) -> Any:
    ns = lib("ragline")
    return ns["agents"].AgentExecutor(agent=build(ns), tools=[echo_tool(ns)])


def stopped(ns: dict[str, Any], method: str) -> Any:
    agent = single_action_agent(ns)
    try:
        return run(ns, agent, max_iterations=1, early_stopping_method=method)
    except ValueError as err:
        return ("ValueError", str(err))


def test_a_stopped_single_action_agent_answers_the_same() -> None:
    ours = stopped(lib("ragline"), "force")
    assert without_link(ours) == without_link(stopped(lib("langchain"), "force"))
    assert ours["output"] == "Agent stopped due to iteration limit or time limit."


CLASSES = [
    "BaseSingleActionAgent",
    "BaseMultiActionAgent",
    "Agent",
    "ZeroShotAgent",
    "RunnableAgent",
    "RunnableMultiActionAgent",
]


def _family(ns: dict[str, Any]) -> list[tuple[str, str, bool]]:
    agents = ns["agents"]
    return [
        (a, b, issubclass(getattr(agents, a), getattr(agents, b)))
        for a in CLASSES
        for b in CLASSES
        if a != b
    ]


def test_the_class_family_is_langchains() -> None:
    from langchain_classic.agents.agent import RunnableAgent, RunnableMultiActionAgent

    theirs = {**lib("langchain"), "agents": _LCAgents(RunnableAgent, RunnableMultiActionAgent)}
    assert _family(lib("ragline")) == _family(theirs)
    agents = lib("ragline")["agents"]
    # siblings: neither kind is the other
    assert not issubclass(agents.BaseMultiActionAgent, agents.BaseSingleActionAgent)
    assert not issubclass(agents.BaseSingleActionAgent, agents.BaseMultiActionAgent)
    assert not isinstance(multi_action_agent(lib("ragline")), agents.BaseSingleActionAgent)
    assert issubclass(agents.RunnableMultiActionAgent, agents.BaseMultiActionAgent)
    assert issubclass(agents.RunnableAgent, agents.BaseSingleActionAgent)


class _LCAgents:
    """LangChain's agents module with the two Runnable agents (kept in agent.py there)."""

    def __init__(self, runnable: Any, multi: Any) -> None:
        self.RunnableAgent = runnable
        self.RunnableMultiActionAgent = multi

    def __getattr__(self, name: str) -> Any:
        return getattr(lib("langchain")["agents"], name)


def test_generate_is_refused_for_a_programs_agent_as_langchain() -> None:
    # LangChain writes a final answer only for its older Agent classes
    assert stopped(lib("langchain"), "generate") == (
        "ValueError",
        "Got unsupported early_stopping_method `generate`",
    )
    kind, message = stopped(lib("ragline"), "generate")
    assert kind == "ValueError"
    assert message.startswith("EchoTwice cannot 'generate' a final answer")


def test_generate_is_refused_for_a_multi_action_agent_too() -> None:
    for ns in (lib("langchain"), lib("ragline")):
        with pytest.raises(ValueError, match="generate"):
            run(ns, multi_action_agent(ns), max_iterations=1, early_stopping_method="generate")


ZERO_SHOT_REPLIES = [
    " I should echo it.\nAction: echo\nAction Input: plums",
    " I now know.\nFinal Answer: plums were echoed",
]


def zero_shot(ns: dict[str, Any], **options: Any) -> Any:
    agents = ns["agents"]
    echo = echo_tool(ns)
    agent = agents.ZeroShotAgent.from_llm_and_tools(
        ns["FakeListLLM"](responses=list(ZERO_SHOT_REPLIES)), [echo]
    )
    return agent, agents.AgentExecutor.from_agent_and_tools(
        agent=agent, tools=[echo], return_intermediate_steps=True, **options
    )


def test_zero_shot_agent_runs_the_same() -> None:
    lc_agent, theirs = zero_shot(lib("langchain"))
    agent, ours = zero_shot(lib("ragline"))
    assert isinstance(agent, lib("ragline")["agents"].Agent)
    assert isinstance(lc_agent, lib("langchain")["agents"].Agent)
    assert agent.input_keys == lc_agent.input_keys == ["input"]
    assert agent.return_values == lc_agent.return_values == ["output"]
    assert agent.observation_prefix == lc_agent.observation_prefix
    assert agent.llm_prefix == lc_agent.llm_prefix
    result = ours.invoke({"input": "echo plums"})
    assert without_link(result) == without_link(theirs.invoke({"input": "echo plums"}))
    assert result["output"] == "plums were echoed"


def test_zero_shot_agent_stopped_by_force_answers_the_same() -> None:
    theirs = zero_shot(lib("langchain"), max_iterations=1)[1].invoke({"input": "q"})
    ours = zero_shot(lib("ragline"), max_iterations=1)[1].invoke({"input": "q"})
    assert without_link(ours) == without_link(theirs)


def test_zero_shot_prompt_lists_tools_as_the_seed_does() -> None:
    # listed in docs/differences-from-langchain.md: seed 004 writes "name: description" lines
    def prompt(which: str) -> str:
        ns = lib(which)
        return str(ns["agents"].ZeroShotAgent.create_prompt([echo_tool(ns)]).template)

    lead = (
        "Answer the following questions as best you can. "
        "You have access to the following tools:\n\n"
    )
    assert prompt("langchain").startswith(lead + "echo(text: str) -> str - Repeat the text.\n\n")
    assert prompt("ragline").startswith(lead + "echo: Repeat the text.\n\n")
    theirs = prompt("langchain").split("\n\n", 2)[2]
    assert prompt("ragline").split("\n\n", 2)[2] == theirs

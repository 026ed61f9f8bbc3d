"""Parity: ``early_stopping_method="generate"`` when an executor's limit stops the agent.

In LangChain only the older prompt-and-model agents (``Agent``: ``ZeroShotAgent`` and
the conversational ones) write a final answer from the steps so far; every other kind
(``LLMSingleActionAgent``, a Runnable agent from ``create_react_agent``, a program's own
``BaseSingleActionAgent`` / ``BaseMultiActionAgent`` subclass) raises a ``ValueError``
when the limit is reached, after the steps it took (the executor is built without
complaint, and a run that ends before the limit answers). Each scenario is one program,
run through LangChain and, after ``ragline port``, through ragline; what it prints
(answers, the tool calls made, whether a ``ValueError`` was raised) is compared.
"""

from __future__ import annotations

import pytest

from ragline.core import ConfigurationError
from tests.parity._port_trial import ported, printed

COVERS: set[str] = set()  # the agent classes are listed by their own parity modules

_PROGRAM = """
import asyncio

from langchain_classic.agents import (
    AgentExecutor,
    BaseMultiActionAgent,
    BaseSingleActionAgent,
    LLMSingleActionAgent,
    Tool,
    ZeroShotAgent,
    create_react_agent,
)
from langchain_classic.agents.mrkl.output_parser import MRKLOutputParser
from langchain_classic.chains import LLMChain
from langchain_core.agents import AgentAction
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

calls = []


def shout(text):
    calls.append(text)
    return text.upper()


tools = [Tool(name="shout", func=shout, description="Say it loudly.")]
again = "I shout.\\nAction: shout\\nAction Input: hi"


def llm():
    return FakeListLLM(responses=[again, again, "I know.\\nFinal Answer: HI"])


def single_action():
    prompt = PromptTemplate.from_template("Q: {input}\\n{intermediate_steps}")
    return LLMSingleActionAgent(
        llm_chain=LLMChain(llm=llm(), prompt=prompt),
        output_parser=MRKLOutputParser(),
        stop=["\\nObservation:"],
        allowed_tools=["shout"],
    )


def react():
    prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    return create_react_agent(llm(), tools, prompt)


def zero_shot():
    prompt = PromptTemplate.from_template("Q: {input}\\n{agent_scratchpad}")
    return ZeroShotAgent(llm_chain=LLMChain(llm=llm(), prompt=prompt), allowed_tools=["shout"])


class OwnSingle(BaseSingleActionAgent):
    @property
    def input_keys(self):
        return ["input"]

    def plan(self, intermediate_steps, callbacks=None, **kwargs):
        return AgentAction("shout", "own", "log")

    async def aplan(self, intermediate_steps, callbacks=None, **kwargs):
        return self.plan(intermediate_steps, callbacks, **kwargs)


class OwnMulti(BaseMultiActionAgent):
    @property
    def input_keys(self):
        return ["input"]

    def plan(self, intermediate_steps, callbacks=None, **kwargs):
        return [AgentAction("shout", "a", "log a"), AgentAction("shout", "b", "log b")]

    async def aplan(self, intermediate_steps, callbacks=None, **kwargs):
        return self.plan(intermediate_steps, callbacks, **kwargs)


agents = {
    "LLMSingleActionAgent": single_action,
    "create_react_agent": react,
    "ZeroShotAgent": zero_shot,
    "own single": OwnSingle,
    "own multi": OwnMulti,
}
for name, build in agents.items():
    for limit in (1, 3):
        for run in ("invoke", "ainvoke"):
            calls.clear()
            executor = AgentExecutor(
                agent=build(), tools=tools, max_iterations=limit, early_stopping_method="generate"
            )
            try:
                if run == "invoke":
                    answer = executor.invoke({"input": "hi"})["output"]
                else:
                    answer = asyncio.run(executor.ainvoke({"input": "hi"}))["output"]
            except ValueError:  # ragline's ConfigurationError is one
                answer = "raised ValueError"
            print(name, limit, run, repr(answer), calls)
"""


def test_only_the_older_agents_generate_when_stopped_as_langchains() -> None:
    langchain_printed = printed(_PROGRAM)
    assert "LLMSingleActionAgent 1 invoke 'raised ValueError' ['hi']" in langchain_printed
    # the zero-shot agent asks its model once more; the reply still wants a tool: its text
    assert "ZeroShotAgent 1 invoke 'I shout.\\nAction: shout\\nAction Input: hi'" in (
        langchain_printed
    )
    assert printed(ported(_PROGRAM)) == langchain_printed


def test_the_error_says_which_agents_generate() -> None:
    from ragline.agents import AgentExecutor, LLMSingleActionAgent, MRKLOutputParser
    from ragline.chains import LLMChain
    from ragline.core import FakeListLLM, PromptTemplate
    from ragline.tools import Tool

    llm = FakeListLLM(responses=["Go.\nAction: shout\nAction Input: hi"])
    agent = LLMSingleActionAgent(
        llm_chain=LLMChain(llm=llm, prompt=PromptTemplate.from_template("{input}")),
        output_parser=MRKLOutputParser(),
        stop=["\nObservation:"],
    )
    tools = [Tool(name="shout", func=str.upper, description="Say it loudly.")]
    executor = AgentExecutor(
        agent=agent, tools=tools, max_iterations=1, early_stopping_method="generate"
    )
    with pytest.raises(ConfigurationError, match="LLMSingleActionAgent cannot 'generate'"):
        executor.invoke({"input": "hi"})

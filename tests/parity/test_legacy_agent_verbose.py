"""Parity: what a legacy agent (``ZeroShotAgent``, ``initialize_agent``) prints and
reports through its ``llm_chain``, against LangChain's.

LangChain's older agents run their ``llm_chain`` (an ``LLMChain``) at each step. So an
``LLMChain`` that is verbose (given ``verbose=True``, or built after ``set_verbose(True)``,
as ``initialize_agent`` builds one) prints ``> Entering new LLMChain chain...`` and the
formatted prompt inside the executor's own lines, also for the final "generate" pass;
and a callback handler sees that chain's run with LangChain's inputs (the scratchpad and
the ``stop`` words) and outputs (``{"text": ...}``) and the prompt as ``on_text``.

Each scenario is one program, run through LangChain and, after ``ragline port``, through
ragline; what they print is compared. The prompts are the programs' own (or LangChain's
zero-shot wording, which ragline keeps) and list no tool: the tool lines of the zero-shot
prompt are written differently (docs/differences-from-langchain.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core import globals as langchain_globals

from ragline.core import set_debug, set_verbose
from tests.parity._port_trial import ported, printed

COVERS: set[str] = set()  # the agent classes are listed by their own parity modules


@pytest.fixture(autouse=True)
def _switches_off() -> Iterator[None]:
    yield
    langchain_globals.set_verbose(False)
    langchain_globals.set_debug(False)
    set_verbose(False)
    set_debug(False)


_PROGRAM_HEAD = """
import asyncio

from langchain_classic.agents import AgentExecutor, Tool, ZeroShotAgent, initialize_agent
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_verbose
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

replies = [
    "I shout.\\nAction: shout\\nAction Input: hi",
    "I know.\\nFinal Answer: HI",
]
shout = Tool(name="shout", func=lambda text: text.upper(), description="Say it loudly.")
prompt = PromptTemplate.from_template("Tools: shout.\\nQuestion: {input}\\n{agent_scratchpad}")


def custom_agent(llm_chain_verbose=None):
    options = {} if llm_chain_verbose is None else {"verbose": llm_chain_verbose}
    llm_chain = LLMChain(llm=FakeListLLM(responses=replies), prompt=prompt, **options)
    return ZeroShotAgent(llm_chain=llm_chain, allowed_tools=["shout"])
"""

# set_verbose(True) before the agent is built: its LLMChain prints inside the executor's
# run, sync and async; an explicit verbose=True on the LLMChain alone prints only it;
# set_verbose(True) after the agent was built leaves its LLMChain quiet (the flag is read
# when a chain is built); initialize_agent builds its LLMChain after the flag; with
# max_iterations=1 and "generate" the final pass prints the LLMChain too.
_VERBOSE = (
    _PROGRAM_HEAD
    + """
built_before = custom_agent()
set_verbose(True)
executor = AgentExecutor(agent=custom_agent(), tools=[shout])
print(executor.invoke({"input": "say hi"}))
print(asyncio.run(executor.ainvoke({"input": "say hi again"})))
print(AgentExecutor(agent=built_before, tools=[shout]).invoke({"input": "before"}))
set_verbose(False)
only_chain = AgentExecutor(agent=custom_agent(llm_chain_verbose=True), tools=[shout])
print(only_chain.invoke({"input": "chain only"}))
set_verbose(True)
built = initialize_agent([shout], FakeListLLM(responses=["-"]), agent="zero-shot-react-description")
print(built.verbose, built.agent.llm_chain.verbose)
generating = AgentExecutor(
    agent=custom_agent(),
    tools=[shout],
    max_iterations=1,
    early_stopping_method="generate",
)
print(generating.invoke({"input": "juggle"}))
"""
)


def test_a_verbose_llm_chain_prints_inside_the_agent_as_langchains() -> None:
    langchain_printed = printed(_VERBOSE)
    assert langchain_printed.count("> Entering new LLMChain chain...") == 8
    assert printed(ported(_VERBOSE)) == langchain_printed


# a handler given to the executor's call sees each step's LLMChain run: its inputs (the
# scratchpad and the stop words), the prompt as text, its {"text": ...} output; and
# get_full_inputs gives the same keys.
_EVENTS = (
    _PROGRAM_HEAD
    + """

class Seen(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("start", kwargs["name"], inputs, kwargs["parent_run_id"] is not None)

    def on_chain_end(self, outputs, **kwargs):
        print("end", outputs)

    def on_text(self, text, **kwargs):
        print("text", repr(text))

    def on_llm_start(self, serialized, prompts, **kwargs):
        print("llm", prompts, kwargs["invocation_params"]["stop"])


agent = custom_agent()
print(agent.get_full_inputs([], input="x"))
executor = AgentExecutor(agent=agent, tools=[shout])
print(executor.invoke({"input": "say hi"}, {"callbacks": [Seen()]}))
"""
)


def test_a_handler_sees_the_agents_llm_chain_run_as_langchains() -> None:
    langchain_printed = printed(_EVENTS)
    assert langchain_printed.count("start LLMChain") == 2
    assert printed(ported(_EVENTS)) == langchain_printed

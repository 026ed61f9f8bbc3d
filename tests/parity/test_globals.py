"""Parity: the process-wide switches (``set_verbose``, ``set_debug``) and the console
handlers that print every run (``ConsoleCallbackHandler``, ``FunctionCallbackHandler``).

Each scenario is one program, run through LangChain and, after ``ragline port``, through
ragline; what they print is compared. A run's duration (``[3ms]``) and a reply's message
id (``lc_run--<uuid>``) differ between two runs of the same program, so both are masked
on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from langchain_core import globals as langchain_globals

from ragline.core import ConfigurationError, get_debug, get_verbose, set_debug, set_verbose
from tests.parity._port_trial import ported, printed

COVERS = {
    "core.set_verbose",
    "core.get_verbose",
    "core.set_debug",
    "core.get_debug",
    "core.callbacks.ConsoleCallbackHandler",
    "core.callbacks.FunctionCallbackHandler",
}


@pytest.fixture(autouse=True)
def _switches_off() -> Iterator[None]:
    yield
    for module in (langchain_globals,):
        module.set_verbose(False)
        module.set_debug(False)
    set_verbose(False)
    set_debug(False)


def _timeless(text: str) -> str:
    text = re.sub(r"lc_run--[0-9a-f-]{36}", "lc_run--ID", text)
    return re.sub(r"\] \[\d+(?:ms|\.\d\ds)\] ", "] [T] ", text)


# set_verbose: the legacy chains built after it print their runs; one built before it,
# or given verbose=False, does not; a chain that builds inner chains (load_qa_chain)
# gives them the default too. The models and LCEL runnables print nothing.
_VERBOSE = """
from langchain_classic.chains import LLMChain
from langchain_classic.chains.question_answering import load_qa_chain
from langchain_core.documents import Document
from langchain_core.globals import get_verbose, set_verbose
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

prompt = PromptTemplate.from_template("Say {x}")
llm = FakeListLLM(responses=["one", "two", "three", "four", "five"])
before = LLMChain(llm=llm, prompt=prompt)
set_verbose(True)
print(get_verbose())
after = LLMChain(llm=llm, prompt=prompt)
quiet = LLMChain(llm=llm, prompt=prompt, verbose=False)
print(before.verbose, after.verbose, quiet.verbose)
for chain, x in ((before, "a"), (after, "b"), (quiet, "c")):
    print(chain.invoke({"x": x}))
qa = load_qa_chain(
    llm, chain_type="stuff", prompt=PromptTemplate.from_template("{context} / {question}")
)
print(qa.verbose, qa.llm_chain.verbose)
print(qa.invoke({"input_documents": [Document(page_content="doc")], "question": "q"}))
print((prompt | llm).invoke({"x": "lcel"}))
set_verbose(False)
print(get_verbose(), LLMChain(llm=llm, prompt=prompt).verbose)
"""


def test_set_verbose_prints_the_chains_built_after_it_as_langchains() -> None:
    langchain_printed = printed(_VERBOSE)
    assert "> Entering new StuffDocumentsChain chain..." in langchain_printed
    assert langchain_printed.count("> Finished chain.") == 3  # after, qa and its LLMChain
    assert printed(ported(_VERBOSE)) == langchain_printed


# set_debug: every run prints its start and end (the path from the outermost run, the
# inputs and outputs as JSON, "[inputs]" / "[outputs]" where they are not JSON), for a
# prompt | chat model | parser sequence, a plain LLM, a tool given a string, a chain that
# fails, and a legacy chain with verbose=True (its stdout lines give way to the console's).
_DEBUG = """
from langchain_classic.chains import LLMChain
from langchain_core.globals import get_debug, set_debug
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool

set_debug(True)
print(get_debug())
chain = (
    ChatPromptTemplate.from_messages([("system", "be brief"), ("human", "about {topic}")])
    | FakeListChatModel(responses=["bears are big"])
    | StrOutputParser()
)
print(chain.invoke({"topic": "bears"}))
print(FakeListLLM(responses=["plain"]).invoke("  hi  "))


@tool
def shout(text: str) -> str:
    \"\"\"Say it louder.\"\"\"
    return text.upper() + "  "


print(shout.invoke("hey"))


def fail(x):
    raise ValueError("no " + str(x))


try:
    (RunnableLambda(lambda x: x + 1) | RunnableLambda(fail)).invoke(1)
except ValueError as error:
    print("caught", error)
legacy = LLMChain(
    llm=FakeListLLM(responses=["z"]), prompt=PromptTemplate.from_template("Say {x}"), verbose=True
)
print(legacy.invoke({"x": "d"}))
set_debug(False)
print(get_debug(), chain.invoke({"topic": "quiet"}))
"""


def _without_tracebacks(text: str) -> str:
    # an error's text is its repr and then its traceback, whose file names and lines are
    # each library's own: keep the repr line only
    return re.sub(r"\"ValueError\('no 2'\)Traceback .*", "\"ValueError('no 2')\"", text)


def test_set_debug_prints_every_run_as_langchains() -> None:
    langchain_printed = _without_tracebacks(_timeless(printed(_DEBUG)))
    assert "[chain:RunnableSequence > llm:FakeListChatModel] Entering LLM run" in langchain_printed
    assert "Entering Parser run with input:\n\x1b[0m[inputs]" in langchain_printed
    assert "[chain/error]" in langchain_printed
    assert '"HEY"' in langchain_printed  # a tool's output, stripped and quoted
    assert "> Entering new LLMChain" not in langchain_printed
    assert _without_tracebacks(_timeless(printed(ported(_DEBUG)))) == langchain_printed


# The handlers given to one run: ConsoleCallbackHandler prints that run and the runs
# inside it only; FunctionCallbackHandler hands each text to a function.
_HANDLERS = """
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers import ConsoleCallbackHandler
from langchain_core.tracers.stdout import FunctionCallbackHandler

chain = PromptTemplate.from_template("{a}-{b}") | RunnableLambda(lambda p: p.to_string())
# a sequence, not a parallel: parallel branches run in threads, their lines in any order
outer = RunnableLambda(lambda d: {**d, "b": d["b"] * 2}) | chain | RunnableLambda(str.upper)
print(outer.invoke({"a": 1, "b": "x"}, config={"callbacks": [ConsoleCallbackHandler()]}))
lines = []
config = {"callbacks": [FunctionCallbackHandler(lines.append)], "run_name": "mine"}
chain.invoke({"a": "é", "b": 2}, config)
print(len(lines))
for line in lines:
    print(line)
print(chain.invoke({"a": 0, "b": 0}))
"""


def test_the_console_handlers_print_a_run_as_langchains() -> None:
    langchain_printed = _timeless(printed(_HANDLERS))
    assert "[chain:RunnableSequence > prompt:PromptTemplate] Entering Prompt" in langchain_printed
    assert "[chain:RunnableSequence > chain:upper] [T] Exiting Chain" in langchain_printed
    assert '"a": "é"' in langchain_printed  # not escaped
    assert langchain_printed.endswith("0-0\n")
    assert _timeless(printed(ported(_HANDLERS))) == langchain_printed


@pytest.mark.parametrize("switch", [set_verbose, set_debug])
def test_a_switch_takes_a_bool_only(switch) -> None:
    with pytest.raises(ConfigurationError, match="takes True or False, got 'yes'"):
        switch("yes")
    assert get_verbose() is False and get_debug() is False


# set_debug with a verbose tool and a verbose AgentExecutor (review of c7948fd): as for a
# verbose LLMChain, their stdout lines (the tool's coloured output, "> Entering new
# AgentExecutor chain...", the agent's thoughts) give way to the console's.
_DEBUG_VERBOSE_AGENT = """
from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_core.globals import set_debug
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import tool


@tool
def echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    return text


set_debug(True)
echo.verbose = True
print(echo.invoke("hi"))
echo.verbose = False
prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
llm = FakeListLLM(responses=["Thought: x\\nAction: echo\\nAction Input: a", "Final Answer: done"])
agent = create_react_agent(llm, [echo], prompt)
print(AgentExecutor(agent=agent, tools=[echo], verbose=True).invoke({"input": "q"}))
"""


def test_set_debug_quiets_a_verbose_tools_and_agents_stdout_as_langchain() -> None:
    langchain_printed = _timeless(printed(_DEBUG_VERBOSE_AGENT))
    assert "[chain:AgentExecutor > tool:echo] Entering Tool run" in langchain_printed
    assert "> Entering new AgentExecutor chain" not in langchain_printed
    assert "Final Answer: done\x1b[0m" not in langchain_printed
    assert _timeless(printed(ported(_DEBUG_VERBOSE_AGENT))) == langchain_printed

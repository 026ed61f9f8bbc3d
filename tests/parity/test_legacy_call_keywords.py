"""Parity: a config key given as a keyword to a legacy chain's or an agent executor's call.

LangChain's legacy ``Chain.invoke`` (``AgentExecutor`` included) reads only
``return_only_outputs`` and ``include_run_info`` from its keywords, so
``executor.invoke(inputs, callbacks=[handler])`` runs and the handler never hears of it
(port trial set 59, agents_readme_stdout_tool_logger). ragline's raised ``TypeError``; it
now runs the same and warns at the calling line, as its sequences do.
"""

import asyncio
import warnings

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

_CALLBACKS_AS_KEYWORD = """
import asyncio
from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import tool

heard = []

class Recorder(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        heard.append("chain")

@tool
def shout(text: str) -> str:
    \"\"\"Upper-case the text.\"\"\"
    return text.upper()

prompt = PromptTemplate.from_template(
    "Tools: {tools} ({tool_names})\\nQuestion: {input}\\n{agent_scratchpad}")
llm = FakeListLLM(responses=["Action: shout\\nAction Input: hi", "Final Answer: HI",
                             "Final Answer: again"])
executor = AgentExecutor(agent=create_react_agent(llm, [shout], prompt), tools=[shout])
print(executor.invoke({"input": "shout hi"}, callbacks=[Recorder()])["output"])
print(asyncio.run(executor.ainvoke({"input": "twice"}, tags=["t"]))["output"])
chain = LLMChain(llm=FakeListLLM(responses=["one", "two"]),
                 prompt=PromptTemplate.from_template("Say {word}"))
print(chain.invoke({"word": "a"}, callbacks=[Recorder()], run_name="r"))
print(chain.batch([{"word": "b"}], callbacks=[Recorder()]))
print(heard)
"""


def test_a_config_key_given_as_a_keyword_is_ignored_as_by_langchain() -> None:
    ported = _ported(_CALLBACKS_AS_KEYWORD)
    langchain_printed = _printed(_CALLBACKS_AS_KEYWORD)
    assert langchain_printed == (
        "HI\nagain\n{'word': 'a', 'text': 'one'}\n[{'word': 'b', 'text': 'two'}]\n[]\n"
    )
    assert _printed(ported) == langchain_printed


def test_ragline_warns_at_the_calling_line_and_still_refuses_other_keywords() -> None:
    from ragline.agents import AgentExecutor, create_react_agent
    from ragline.chains import LLMChain
    from ragline.core import FakeListLLM, PromptTemplate
    from ragline.tools import Tool

    chain = LLMChain(llm=FakeListLLM(responses=["one"]), prompt=PromptTemplate.from_template("{w}"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert chain.invoke({"w": "a"}, callbacks=[], tags=["t"]) == {"w": "a", "text": "one"}
    assert [str(w.message) for w in caught] == [
        "LLMChain.invoke ignores callbacks, tags given as a keyword argument; "
        "pass config={'callbacks': ...} to apply it"
    ]
    assert caught[0].filename == __file__
    with pytest.raises(TypeError, match="takes no keyword options, got colour"):
        chain.invoke({"w": "a"}, colour="red")

    echo = Tool("echo", lambda text: text, "Repeat the text.")
    prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    executor = AgentExecutor(
        agent=create_react_agent(FakeListLLM(responses=["Final Answer: ok"] * 3), [echo], prompt),
        tools=[echo],
    )
    with pytest.warns(UserWarning, match=r"AgentExecutor\.stream ignores metadata"):
        chunks = list(executor.stream({"input": "x"}, metadata={"k": 1}))
    assert chunks[-1]["output"] == "ok"
    with pytest.warns(UserWarning, match=r"AgentExecutor\.ainvoke ignores run_name"):
        assert asyncio.run(executor.ainvoke({"input": "x"}, run_name="r"))["output"] == "ok"
    with pytest.raises(TypeError, match="takes no keyword options, got colour"):
        executor.invoke({"input": "x"}, colour="red")


# An AgentExecutor is a LangChain Chain: its invoke / ainvoke read return_only_outputs and
# include_run_info as a legacy chain's do. ragline's executor refused both (TypeError
# 'takes no keyword options'), while its legacy chains took them (review of eef45c9).
_EXECUTOR_CHAIN_KEYWORDS = """
import asyncio
from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import tool


@tool
def shout(text: str) -> str:
    \"\"\"Upper-case the text.\"\"\"
    return text.upper()


prompt = PromptTemplate.from_template(
    "Tools: {tools} ({tool_names})\\nQuestion: {input}\\n{agent_scratchpad}")
llm = FakeListLLM(responses=["Action: shout\\nAction Input: hi", "Final Answer: HI",
                             "Final Answer: two", "Final Answer: three"])
executor = AgentExecutor(agent=create_react_agent(llm, [shout], prompt), tools=[shout],
                         return_intermediate_steps=True)
result = executor.invoke({"input": "shout hi"}, return_only_outputs=True)
print(sorted(result), result["output"], len(result["intermediate_steps"]))
print(sorted(executor.invoke({"input": "again"}, include_run_info=True)))
result = asyncio.run(executor.ainvoke({"input": "x"}, return_only_outputs=True))
print(sorted(result), result["output"])
"""


def test_an_executor_takes_a_chains_invoke_keywords() -> None:
    langchain_printed = _printed(_EXECUTOR_CHAIN_KEYWORDS)
    assert langchain_printed == (
        "['intermediate_steps', 'output'] HI 1\n"
        "['__run', 'input', 'intermediate_steps', 'output']\n"
        "['intermediate_steps', 'output'] three\n"
    )
    assert _printed(_ported(_EXECUTOR_CHAIN_KEYWORDS)) == langchain_printed

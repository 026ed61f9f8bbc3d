"""Parity: create_xml_agent, XMLAgentOutputParser and format_xml against LangChain's.

A fake model answers with XML tool calls and a final answer; each library's
AgentExecutor runs its own agent. Compared: output and steps, the scratchpad text the
model gets back (tags inside a tool's text written as ``[[tool]]`` stand-ins), the
parser on well-formed and malformed replies (with and without escaping), the printed
form, and the prompt check.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_classic.agents import AgentExecutor as LCAgentExecutor
from langchain_classic.agents import create_xml_agent as lc_create
from langchain_classic.agents.format_scratchpad import format_xml as lc_format_xml
from langchain_classic.agents.output_parsers import XMLAgentOutputParser as LCXMLAgentOutputParser
from langchain_core.agents import AgentAction as LCAgentAction
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.prompts import PromptTemplate as LCPromptTemplate
from langchain_core.tools import Tool as LCTool

from ragline.agents import AgentExecutor, XMLAgentOutputParser, create_xml_agent, format_xml
from ragline.core import AgentAction, FakeListLLM, PromptTemplate
from ragline.tools import Tool

COVERS = {"agents.create_xml_agent", "agents.XMLAgentOutputParser", "agents.format_xml"}

TEMPLATE = "Tools:\n{tools}\n\nQuestion: {input}\n{agent_scratchpad}"
REPLIES = [
    "<tool>echo</tool><tool_input>say [[tool]]x[[/tool]]</tool_input>",
    "I will shout.\n<tool>shout</tool><tool_input>hi there</tool_input>",
    "<final_answer>Done: HI THERE!</final_answer>",
]


def tools_for(tool_class: Any) -> list[Any]:
    return [
        tool_class(name="echo", func=lambda text: f"echo <observation>{text}", description="Echo."),
        tool_class(name="shout", func=lambda text: text.upper() + "!", description="Shout."),
    ]


def steps(result: dict[str, Any]) -> Any:
    return [(a.tool, a.tool_input, a.log, seen) for a, seen in result["intermediate_steps"]]


# ragline's fake models honour stop sequences (LangChain's ignore them), so the runs use
# stops the replies do not contain; the default stop is compared as the bound argument
@pytest.mark.parametrize("options", [{"stop_sequence": False}, {"stop_sequence": ["<x>"]}])
def test_an_agent_run_as_langchains(options):
    lc_tools, rl_tools = tools_for(LCTool), tools_for(Tool)
    lc_agent = lc_create(
        LCFakeListLLM(responses=REPLIES),
        lc_tools,
        LCPromptTemplate.from_template(TEMPLATE),
        **options,
    )
    rl_agent = create_xml_agent(
        FakeListLLM(responses=REPLIES), rl_tools, PromptTemplate.from_template(TEMPLATE), **options
    )
    lc = LCAgentExecutor(agent=lc_agent, tools=lc_tools, return_intermediate_steps=True)
    rl = AgentExecutor(agent=rl_agent, tools=rl_tools, return_intermediate_steps=True)
    theirs, ours = lc.invoke({"input": "go"}), rl.invoke({"input": "go"})
    assert ours["output"] == theirs["output"] == "Done: HI THERE!"
    assert steps(ours) == steps(theirs)
    lc_pad = lc_agent.steps[0].invoke(
        {"input": "q", "intermediate_steps": theirs["intermediate_steps"]}
    )
    rl_pad = rl_agent.steps[0].invoke(
        {"input": "q", "intermediate_steps": ours["intermediate_steps"]}
    )
    assert rl_pad["agent_scratchpad"] == lc_pad["agent_scratchpad"]
    assert "[[observation]]" in rl_pad["agent_scratchpad"]


def outcome(call: Any, *args: Any) -> Any:
    try:
        value = call(*args)
    except Exception as err:
        return ("raised", type(err).__name__, str(err))
    if hasattr(value, "return_values"):
        return ("finish", value.return_values, value.log)
    return ("action", value.tool, value.tool_input, value.log)


@pytest.mark.parametrize(
    "reply",
    [
        *REPLIES,
        "<tool>a[[tool]]b[[/tool]]</tool>",
        "<tool>a</tool><tool>b</tool>",
        "<tool>a</tool><tool_input>1</tool_input><tool_input>2</tool_input>",
        "<final_answer>x</final_answer><final_answer>y</final_answer>",
        "<final_answer>multi\nline [[observation]]</final_answer>",
        "<final_answer>unclosed",
        "plain text",
    ],
)
@pytest.mark.parametrize("escape_format", ["minimal", None])
def test_the_parser_as_langchains(reply, escape_format):
    lc = LCXMLAgentOutputParser(escape_format=escape_format)
    rl = XMLAgentOutputParser(escape_format=escape_format)
    assert outcome(rl.parse, reply) == outcome(lc.parse, reply)
    assert outcome(rl.invoke, reply) == outcome(lc.invoke, reply)
    assert repr(rl) == repr(lc)


def test_the_default_stop_sequence():
    lc_agent = lc_create(
        LCFakeListLLM(responses=["x"]), [], LCPromptTemplate.from_template(TEMPLATE)
    )
    rl_agent = create_xml_agent(
        FakeListLLM(responses=["x"]), [], PromptTemplate.from_template(TEMPLATE)
    )
    assert rl_agent.steps[2].kwargs == lc_agent.steps[2].kwargs == {"stop": ["</tool_input>"]}


def test_format_xml_and_the_prompt_check():
    lc_steps = [
        (LCAgentAction("t<tool>", "in</tool_input>", ""), "<observation>1"),
        (LCAgentAction("u", {"a": 1}, ""), 2),
    ]
    rl_steps = [
        (AgentAction("t<tool>", "in</tool_input>", ""), "<observation>1"),
        (AgentAction("u", {"a": 1}, ""), 2),
    ]
    for escape_format in ["minimal", None]:
        assert format_xml(rl_steps, escape_format=escape_format) == lc_format_xml(
            lc_steps, escape_format=escape_format
        )
    with pytest.raises(ValueError) as lc_error:
        lc_create(
            LCFakeListLLM(responses=["x"]), [], LCPromptTemplate.from_template("{input} {tools}")
        )
    with pytest.raises(ValueError) as rl_error:
        create_xml_agent(
            FakeListLLM(responses=["x"]), [], PromptTemplate.from_template("{input} {tools}")
        )
    assert str(rl_error.value) == str(lc_error.value)

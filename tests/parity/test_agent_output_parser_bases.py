"""Parity: the agent reply parsers are AgentOutputParsers, as LangChain's are.

A ported program that checks ``isinstance(parser, AgentOutputParser)`` (or annotates a
field with it and validates) must see the same answer for each built-in parser.
"""

import pytest
from langchain_classic.agents import agent as lc_agent
from langchain_classic.agents import output_parsers as lc_parsers
from langchain_classic.agents.conversational import output_parser as lc_convo
from langchain_classic.agents.mrkl import output_parser as lc_mrkl

from ragline import agents


@pytest.mark.parametrize(
    ("name", "langchain_class"),
    [
        ("JSONAgentOutputParser", lc_parsers.JSONAgentOutputParser),
        ("ReActSingleInputOutputParser", lc_parsers.ReActSingleInputOutputParser),
        ("XMLAgentOutputParser", lc_parsers.XMLAgentOutputParser),
        ("ConvoOutputParser", lc_convo.ConvoOutputParser),
        ("MRKLOutputParser", lc_mrkl.MRKLOutputParser),
        ("ToolsAgentOutputParser", lc_parsers.ToolsAgentOutputParser),
    ],
)
def test_builtin_reply_parsers_are_agent_output_parsers_as_in_langchain(
    name: str, langchain_class: type
) -> None:
    expected = issubclass(langchain_class, lc_agent.AgentOutputParser)
    assert issubclass(getattr(agents, name), agents.AgentOutputParser) is expected

"""The prompts agents use by default, in LangChain's wording (models are tuned on it)."""

from __future__ import annotations

from ragline.core import PromptTemplate

__all__ = ["FORMAT_INSTRUCTIONS", "PREFIX", "REACT_PROMPT", "REACT_TEMPLATE", "SUFFIX"]

# The zero-shot ReAct ("MRKL") agent's pieces, as seed 004 shows them.
PREFIX = "Answer the following questions as best you can. You have access to the following tools:"
FORMAT_INSTRUCTIONS = """Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question"""
SUFFIX = """Begin!

Question: {input}
Thought:{agent_scratchpad}"""

# The ReAct prompt create_react_agent is usually given (LangChain hub's "hwchase17/react"):
# variables tools, tool_names, input and agent_scratchpad.
REACT_TEMPLATE = f"{PREFIX}\n\n{{tools}}\n\n{FORMAT_INSTRUCTIONS}\n\n{SUFFIX}"
REACT_PROMPT = PromptTemplate.from_template(REACT_TEMPLATE)

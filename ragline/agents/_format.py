"""Scratchpads: the steps so far, as the text or the messages the next prompt shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.agents._output_parsers import escape_xml_tags
from ragline.core import (
    AgentAction,
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolAgentAction,
    ToolMessage,
)
from ragline.core.agents import AgentActionMessageLog, observation_text
from ragline.core.messages import FunctionMessage

__all__ = [
    "format_log_to_messages",
    "format_log_to_str",
    "format_to_openai_function_messages",
    "format_to_tool_messages",
    "format_xml",
]

Steps = Sequence[tuple[AgentAction, Any]]


def format_log_to_str(
    intermediate_steps: Steps,
    observation_prefix: str = "Observation: ",
    llm_prefix: str = "Thought: ",
) -> str:
    """The ReAct scratchpad: each action's log, its observation, and the next prompt word.

    Example:
        >>> action = AgentAction("search", "etna", "Action: search\\nAction Input: etna")
        >>> format_log_to_str([(action, "a volcano")])
        'Action: search\\nAction Input: etna\\nObservation: a volcano\\nThought: '
    """
    thoughts = ""
    for action, observation in intermediate_steps:
        thoughts += action.log
        thoughts += f"\n{observation_prefix}{observation}\n{llm_prefix}"
    return thoughts


def format_log_to_messages(
    intermediate_steps: Steps, template_tool_response: str = "{observation}"
) -> list[BaseMessage]:
    """The chat scratchpad of a JSON chat agent: each action's log as an AI message, its
    observation (written with ``template_tool_response``) as a human message.

    Example:
        >>> action = AgentAction("search", "etna", '{"action": "search"}')
        >>> [m.content for m in format_log_to_messages([(action, "a volcano")])]
        ['{"action": "search"}', 'a volcano']
    """
    thoughts: list[BaseMessage] = []
    for action, observation in intermediate_steps:
        thoughts.append(AIMessage(content=action.log))
        thoughts.append(
            HumanMessage(content=template_tool_response.format(observation=observation))
        )
    return thoughts


def _unique(messages: list[BaseMessage], new: Sequence[BaseMessage]) -> None:
    # The model's message behind parallel calls appears once, not once per call.
    for message in new:
        if not any(message is seen or message == seen for seen in messages):
            messages.append(message)


def format_to_tool_messages(intermediate_steps: Steps) -> list[BaseMessage]:
    """The tool-calling scratchpad: the model's messages, each tool call answered by a
    ``ToolMessage`` with its ``tool_call_id`` (other actions: their log as an AI message).

    Example:
        >>> reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])
        >>> action = ToolAgentAction("add", {"a": 1}, "", [reply], tool_call_id="c1")
        >>> [m.type for m in format_to_tool_messages([(action, 2)])]
        ['ai', 'tool']
    """
    messages: list[BaseMessage] = []
    for action, observation in intermediate_steps:
        if isinstance(action, ToolAgentAction):
            answer = ToolMessage(
                observation_text(observation),
                tool_call_id=action.tool_call_id or "",
                additional_kwargs={"name": action.tool},
            )
            _unique(messages, [*action.message_log, answer])
        else:
            messages.append(AIMessage(action.log))
    return messages


format_to_openai_tool_messages = format_to_tool_messages


def format_to_openai_function_messages(intermediate_steps: Steps) -> list[BaseMessage]:
    """The older function-calling scratchpad: the model's messages and a
    ``FunctionMessage`` per observation."""
    messages: list[BaseMessage] = []
    for action, observation in intermediate_steps:
        if isinstance(action, AgentActionMessageLog):
            messages.extend(action.message_log)
            messages.append(FunctionMessage(observation_text(observation), name=action.tool))
        else:
            messages.append(AIMessage(action.log))
    return messages


# LangChain's older name for it, kept there (and here) for programs that still use it
format_to_openai_functions = format_to_openai_function_messages


def format_xml(intermediate_steps: Steps, *, escape_format: str | None = "minimal") -> str:
    """The XML agent's scratchpad: ``<tool>...</tool><tool_input>...</tool_input>
    <observation>...</observation>`` per step (no spaces between). With
    ``escape_format="minimal"`` (the default) these tags inside a part are written as
    ``[[tool]]`` ... stand-ins.

    Example:
        >>> action = AgentAction("search", "etna", "")
        >>> format_xml([(action, "a <tool> volcano")])
        '<tool>search</tool><tool_input>etna</tool_input><observation>a [[tool]] volcano</observation>'
    """  # noqa: E501

    def escaped(text: str) -> str:
        return escape_xml_tags(text) if escape_format == "minimal" else text

    log = ""
    for action, observation in intermediate_steps:
        tool, tool_input = escaped(action.tool), escaped(str(action.tool_input))
        log += (
            f"<tool>{tool}</tool><tool_input>{tool_input}</tool_input>"
            f"<observation>{escaped(str(observation))}</observation>"
        )
    return log

"""What agents decide and what they saw: ``AgentAction``, ``AgentFinish``, ``AgentStep``.

An agent maps ``(inputs, intermediate_steps)`` to either actions (call these tools) or a
finish (here is the answer). The executor runs the actions and records each one with the
tool's output as ``(action, observation)``. Each type can also render itself as chat
messages (``.messages``), which is what streamed executor chunks carry.

Example:
    >>> action = AgentAction("search", "etna", "Action: search\\nAction Input: etna")
    >>> AgentStep(action=action, observation="a volcano").messages
    [HumanMessage(content='a volcano', additional_kwargs={}, response_metadata={})]
    >>> AgentFinish({"output": "Etna is a volcano."}, "Final Answer: Etna is a volcano.")
    AgentFinish(return_values={'output': 'Etna is a volcano.'}, log='Final Answer: Etna is a volcano.')
"""  # noqa: E501

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ragline.core.messages import AIMessage, BaseMessage, FunctionMessage, HumanMessage

__all__ = [
    "AgentAction",
    "AgentActionMessageLog",
    "AgentFinish",
    "AgentStep",
    "ToolAgentAction",
    "observation_text",
]


@dataclass
class AgentAction:
    """Call ``tool`` with ``tool_input``; ``log`` is what the model wrote to decide it.

    Args:
        tool: the tool's name.
        tool_input: a string, or a dict of arguments.
        log: the model's text (for ReAct, the thought, action and input lines), kept so
            the next prompt can show the model what it did.
    """

    tool: str
    tool_input: str | dict[str, Any]
    log: str

    type = "AgentAction"

    def __str__(self) -> str:
        return _fields_str(self)

    @property
    def messages(self) -> list[BaseMessage]:
        """The action as chat messages: the model's log as an AI message."""
        return [AIMessage(self.log)]


@dataclass
class AgentActionMessageLog(AgentAction):
    """An action that came from chat messages (a tool call), which it keeps.

    Args:
        message_log: the model's messages behind the action (the ``AIMessage`` with the
            tool calls); an agent shows them to the model again instead of ``log``.
    """

    message_log: Sequence[BaseMessage] = field(default_factory=list)

    type = "AgentActionMessageLog"

    @property
    def messages(self) -> list[BaseMessage]:
        """The messages the action came from."""
        return list(self.message_log)


@dataclass
class ToolAgentAction(AgentActionMessageLog):
    """An action from a model's tool call; the observation goes back as a ToolMessage.

    Args:
        tool_call_id: the ``id`` of the tool call this action answers.
    """

    tool_call_id: str | None = None

    type = "ToolAgentAction"


@dataclass
class AgentStep:
    """An action the executor ran, and what the tool returned."""

    action: AgentAction
    observation: Any

    def __str__(self) -> str:
        return _fields_str(self)

    @property
    def messages(self) -> list[BaseMessage]:
        """The observation as chat messages (a function message for tool-call actions,
        else a human message)."""
        text = observation_text(self.observation)
        if isinstance(self.action, AgentActionMessageLog):
            return [FunctionMessage(text, name=self.action.tool)]
        return [HumanMessage(text)]


@dataclass
class AgentFinish:
    """The agent's answer: ``return_values`` (``{"output": ...}``) and the model's log."""

    return_values: dict[str, Any]
    log: str

    type = "AgentFinish"

    def __str__(self) -> str:
        return _fields_str(self)

    @property
    def messages(self) -> list[BaseMessage]:
        """The answer as chat messages: the model's log as an AI message."""
        return [AIMessage(self.log)]


def _fields_str(obj: Any) -> str:
    """``name=repr(value)`` for each field, space-separated: ``str()`` of LangChain's
    agent types (pydantic models) reads so."""
    return " ".join(f"{f.name}={getattr(obj, f.name)!r}" for f in fields(obj))


def observation_text(observation: Any) -> str:
    """An observation as the text a model is shown (JSON for non-string values).

    Example:
        >>> observation_text({"temperature": 21}), observation_text("sunny")
        ('{"temperature": 21}', 'sunny')
    """
    if isinstance(observation, str):
        return observation
    if isinstance(observation, BaseMessage):
        return observation.text
    try:
        return json.dumps(observation, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(observation)

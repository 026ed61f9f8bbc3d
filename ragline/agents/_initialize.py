"""``initialize_agent`` and ``AgentType``: the legacy way the seeds build agents."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from ragline.agents._agent import (
    ConversationalAgent,
    ConversationalChatAgent,
    ZeroShotAgent,
    _StructuredChatAgent,
    runnable_agent,
)
from ragline.agents._executor import AgentExecutor
from ragline.core import (
    BaseTool,
    ChatPromptTemplate,
    ConfigurationError,
    InvalidInputError,
    MessagesPlaceholder,
)

__all__ = ["AgentType", "initialize_agent"]


class AgentType(str, enum.Enum):
    """LangChain's agent type names (``initialize_agent(agent=...)``)."""

    ZERO_SHOT_REACT_DESCRIPTION = "zero-shot-react-description"
    REACT_DOCSTORE = "react-docstore"
    SELF_ASK_WITH_SEARCH = "self-ask-with-search"
    CONVERSATIONAL_REACT_DESCRIPTION = "conversational-react-description"
    CHAT_ZERO_SHOT_REACT_DESCRIPTION = "chat-zero-shot-react-description"
    CHAT_CONVERSATIONAL_REACT_DESCRIPTION = "chat-conversational-react-description"
    STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION = "structured-chat-zero-shot-react-description"
    OPENAI_FUNCTIONS = "openai-functions"
    OPENAI_MULTI_FUNCTIONS = "openai-multi-functions"


_SUPPORTED = (
    AgentType.ZERO_SHOT_REACT_DESCRIPTION,
    AgentType.CHAT_ZERO_SHOT_REACT_DESCRIPTION,
    AgentType.CONVERSATIONAL_REACT_DESCRIPTION,
    AgentType.CHAT_CONVERSATIONAL_REACT_DESCRIPTION,
    AgentType.STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION,
    AgentType.OPENAI_FUNCTIONS,
    AgentType.OPENAI_MULTI_FUNCTIONS,
)
_TOOL_CALLING_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "You are a helpful assistant"),
        ("human", "{input}"),
        MessagesPlaceholder("agent_scratchpad"),
    ]
)


def initialize_agent(
    tools: Sequence[BaseTool],
    llm: Any,
    agent: AgentType | str | None = None,
    callback_manager: Any = None,
    agent_path: str | None = None,
    agent_kwargs: dict[str, Any] | None = None,
    *,
    tags: Sequence[str] | None = None,
    **kwargs: Any,
) -> AgentExecutor:
    """Build an agent of a known type and its executor.

    Args:
        tools: the tools.
        llm: the model.
        agent: ``"zero-shot-react-description"`` (the default; also
            ``"chat-zero-shot-react-description"``): ReAct text with the tools listed in
            the prompt; ``"conversational-react-description"``: ReAct text with the
            memory's ``chat_history`` and ``AI: <reply>`` answers
            (:class:`ConversationalAgent`); ``"chat-conversational-react-description"``:
            JSON replies with
            the memory's ``chat_history`` in the prompt (:class:`ConversationalChatAgent`);
            ``"structured-chat-zero-shot-react-description"``: JSON-blob replies, the
            tools listed with their arguments (multi-input tools get a dict);
            ``"openai-functions"`` / ``"openai-multi-functions"``: native tool calls
            (``create_tool_calling_agent``).
        callback_manager: handlers for the executor's runs (or ``callbacks=[...]``).
        agent_path: not supported (agents are not loaded from files here).
        agent_kwargs: for the agent (``prefix``, ``suffix``, ``format_instructions``; for
            the chat-conversational agent ``system_message``, ``human_message``).
        tags: tags for the executor's runs.
        **kwargs: for the executor (``verbose``, ``max_iterations``,
            ``handle_parsing_errors`` ...).

    Raises:
        ConfigurationError: an agent type not supported here, or ``agent_path``.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> from ragline.tools import Tool
        >>> echo = Tool("echo", str, "Repeat the text.")
        >>> llm = FakeListLLM(responses=[" I can answer.\\nFinal Answer: hi"])
        >>> initialize_agent([echo], llm, agent="zero-shot-react-description").run("Say hi")
        'hi'
    """
    if agent_path is not None:
        raise ConfigurationError("initialize_agent(agent_path=...) is not supported; pass agent=")
    kind = _agent_type(agent)
    options = dict(agent_kwargs or {})
    callbacks = kwargs.pop("callbacks", None)
    if callbacks is not None and callback_manager is not None:
        raise InvalidInputError(
            "initialize_agent got both callback_manager and callbacks; pass one of them"
        )
    callback_manager = callback_manager if callbacks is None else callbacks
    if kind in (AgentType.OPENAI_FUNCTIONS, AgentType.OPENAI_MULTI_FUNCTIONS):
        from ragline.agents._create import create_tool_calling_agent

        prompt = options.pop("prompt", _TOOL_CALLING_PROMPT)
        # LangChain builds its OpenAIFunctionsAgent here, whose keys are "input" / "output"
        # (so run() works), where a Runnable agent has none
        agent = runnable_agent(create_tool_calling_agent(llm, tools, prompt))
        agent.input_keys_arg, agent.return_keys_arg = ["input"], ["output"]
        return AgentExecutor(agent=agent, tools=tools, callbacks=callback_manager,
                             tags=list(tags) if tags else None, **kwargs)  # fmt: skip
    agent_class = _AGENT_CLASSES.get(kind, ZeroShotAgent)
    agent_object = agent_class.from_llm_and_tools(llm, tools, **options)
    return AgentExecutor(agent=agent_object, tools=tools, callbacks=callback_manager,
                         tags=[*(tags or []), kind.value], **kwargs)  # fmt: skip


_AGENT_CLASSES: dict[AgentType, type[Any]] = {
    AgentType.CONVERSATIONAL_REACT_DESCRIPTION: ConversationalAgent,
    AgentType.CHAT_CONVERSATIONAL_REACT_DESCRIPTION: ConversationalChatAgent,
    AgentType.STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION: _StructuredChatAgent,
}


def _agent_type(agent: AgentType | str | None) -> AgentType:
    if agent is None:
        return AgentType.ZERO_SHOT_REACT_DESCRIPTION
    try:
        kind = AgentType(agent)
    except ValueError:
        kind = None
    if kind not in _SUPPORTED:
        options = ", ".join(repr(k.value) for k in _SUPPORTED)
        raise ConfigurationError(f"agent type {agent!r} is not supported; use one of {options}")
    return kind  # type: ignore[return-value]

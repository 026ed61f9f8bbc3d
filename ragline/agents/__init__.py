"""ragline.agents: agents that decide which tools to call, and the executor that runs them.

``create_react_agent`` (ReAct text), ``create_structured_chat_agent`` (a JSON action per
reply, parsed by ``JSONAgentOutputParser``) and ``create_tool_calling_agent`` (native tool calls)
build agents as Runnables; ``AgentExecutor`` runs one with its tools until it answers;
``initialize_agent`` keeps LangChain's older one-call shape.
"""

from ragline.core._lazy import attach

_EXPORTS = {
    "AgentAction": "ragline.core",
    "AgentActionMessageLog": "ragline.core",
    "AgentFinish": "ragline.core",
    "AgentStep": "ragline.core",
    "ToolAgentAction": "ragline.core",
    "Agent": "._agent",
    "BaseMultiActionAgent": "._agent",
    "BaseSingleActionAgent": "._agent",
    "ConversationalAgent": "._agent",
    "ConversationalChatAgent": "._agent",
    "LLMSingleActionAgent": "._agent",
    "RunnableAgent": "._agent",
    "RunnableMultiActionAgent": "._agent",
    "ZeroShotAgent": "._agent",
    "AgentExecutor": "._executor",
    "AgentExecutorIterator": "._executor",
    "create_openai_tools_agent": "._create",
    "create_openai_functions_agent": "._create",
    "create_json_chat_agent": "._create",
    "create_xml_agent": "._create",
    "create_react_agent": "._create",
    "create_self_ask_with_search_agent": "._create",
    "create_structured_chat_agent": "._create",
    "create_tool_calling_agent": "._create",
    "format_log_to_str": "._format",
    "format_log_to_messages": "._format",
    "format_xml": "._format",
    "format_to_openai_function_messages": "._format",
    "format_to_openai_functions": "._format",
    "format_to_openai_tool_messages": "._format",
    "format_to_tool_messages": "._format",
    "AgentType": "._initialize",
    "initialize_agent": "._initialize",
    "AgentOutputParser": "._output_parsers",
    "ConvoOutputParser": "._output_parsers",
    "JSONAgentOutputParser": "._output_parsers",
    "MRKLOutputParser": "._output_parsers",
    "OpenAIToolsAgentOutputParser": "._output_parsers",
    "OpenAIFunctionsAgentOutputParser": "._output_parsers",
    "ReActSingleInputOutputParser": "._output_parsers",
    "SelfAskOutputParser": "._output_parsers",
    "ToolsAgentOutputParser": "._output_parsers",
    "XMLAgentOutputParser": "._output_parsers",
    "FORMAT_INSTRUCTIONS": "._prompts",
    "PREFIX": "._prompts",
    "REACT_PROMPT": "._prompts",
    "SUFFIX": "._prompts",
    "ExceptionTool": "._tools",
    "InvalidTool": "._tools",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = attach(__name__, _EXPORTS)

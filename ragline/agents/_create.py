"""``create_react_agent``, ``create_structured_chat_agent``, ``create_tool_calling_agent``,
``create_self_ask_with_search_agent`` and the others: agents as Runnable chains.

Each returns ``RunnablePassthrough.assign(agent_scratchpad=...) | prompt | model |
parser``, called with ``{**inputs, "intermediate_steps": [...]}``; give it to an
``AgentExecutor`` with the same tools.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ragline.agents._format import (
    format_log_to_messages,
    format_log_to_str,
    format_to_openai_function_messages,
    format_to_tool_messages,
    format_xml,
)
from ragline.agents._output_parsers import (
    JSONAgentOutputParser,
    OpenAIFunctionsAgentOutputParser,
    OpenAIToolsAgentOutputParser,
    ReActSingleInputOutputParser,
    SelfAskOutputParser,
    ToolsAgentOutputParser,
    XMLAgentOutputParser,
)
from ragline.core import (
    BasePromptTemplate,
    BaseTool,
    InvalidInputError,
    Runnable,
    RunnablePassthrough,
)
from ragline.tools import render_text_description, render_text_description_and_args

__all__ = [
    "TEMPLATE_TOOL_RESPONSE",
    "create_json_chat_agent",
    "create_openai_functions_agent",
    "create_react_agent",
    "create_self_ask_with_search_agent",
    "create_structured_chat_agent",
    "create_tool_calling_agent",
    "create_xml_agent",
]


def _variables(prompt: BasePromptTemplate) -> set[str]:
    return {*prompt.input_variables, *prompt.optional_variables, *prompt.partial_variables}


def _check_tools(tools: Sequence[BaseTool]) -> list[BaseTool]:
    tools = list(tools)
    names = [tool.name for tool in tools]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InvalidInputError(
            f"two tools are named {duplicates[0]!r}; an agent tells tools apart by name, so give "
            "each a unique name"
        )
    return tools


def _stopping(
    llm: Runnable[Any, Any], stop_sequence: bool | list[str], default: list[str]
) -> Runnable[Any, Any]:
    """``llm`` bound to stop at ``default`` (``stop_sequence=True``), at the list given,
    or unbound (``False``)."""
    if not stop_sequence:
        return llm
    return llm.bind(stop=default if stop_sequence is True else list(stop_sequence))


def create_react_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    output_parser: Any = None,
    tools_renderer: Callable[[list[BaseTool]], str] = render_text_description,
    *,
    stop_sequence: bool | list[str] = True,
) -> Runnable[Any, Any]:
    """A ReAct agent: the model writes ``Thought`` / ``Action`` / ``Action Input`` text,
    stops before writing an ``Observation`` itself, and ends with ``Final Answer``.

    Args:
        llm: a chat model or an LLM.
        tools: the tools (one string input each).
        prompt: with ``{tools}``, ``{tool_names}`` and ``{agent_scratchpad}`` (e.g.
            :data:`ragline.agents.REACT_PROMPT`, LangChain hub's ``hwchase17/react``).
        output_parser: default :class:`ReActSingleInputOutputParser`.
        tools_renderer: how the tools are listed in ``{tools}``.
        stop_sequence: ``True`` binds ``stop=["\\nObservation"]``; a list binds that list;
            ``False`` binds none.

    Raises:
        ValueError: the prompt lacks one of the three variables.
        InvalidInputError: two tools share a name.
    """
    tools = _check_tools(tools)
    missing = {"tools", "tool_names", "agent_scratchpad"} - _variables(prompt)
    if missing:
        # a plain ValueError, as LangChain's (and the other create_*_agent functions here)
        raise ValueError(f"Prompt missing required variables: {sorted(missing)}")
    prompt = prompt.partial(
        tools=tools_renderer(tools), tool_names=", ".join(tool.name for tool in tools)
    )
    llm = _stopping(llm, stop_sequence, ["\nObservation"])
    return (
        RunnablePassthrough.assign(
            agent_scratchpad=lambda x: format_log_to_str(x["intermediate_steps"])
        )
        | prompt
        | llm
        | (output_parser or ReActSingleInputOutputParser())
    )


def create_self_ask_with_search_agent(
    llm: Runnable[Any, Any], tools: Sequence[BaseTool], prompt: BasePromptTemplate
) -> Runnable[Any, Any]:
    """A self-ask agent: the model asks itself follow-up questions (``Follow up: ...``),
    each answered by the one tool, until it writes ``So the final answer is: ...``.

    Args:
        llm: a chat model or an LLM; it is bound to stop before writing an
            ``Intermediate answer:`` itself.
        tools: exactly one tool, named ``"Intermediate Answer"`` (a search that answers).
        prompt: with ``{agent_scratchpad}`` (LangChain hub's ``hwchase17/self-ask-with-search``
            shape: few-shot questions, then ``Question: {input}`` and
            ``Are followup questions needed here:{agent_scratchpad}``); ``{chat_history}``,
            if the prompt has it, defaults to ``""``.

    Raises:
        ValueError: the prompt lacks ``{agent_scratchpad}``, or the tools are not one tool
            named ``"Intermediate Answer"``.
    """
    if "agent_scratchpad" not in _variables(prompt):
        # a plain ValueError, as LangChain's (and the other create_*_agent functions here)
        raise ValueError("Prompt missing required variables: ['agent_scratchpad']")
    tools = list(tools)
    if len(tools) != 1:
        raise ValueError(f"a self-ask agent takes exactly one tool, got {len(tools)}")
    if tools[0].name != "Intermediate Answer":
        raise ValueError(
            f"a self-ask agent's tool must be named 'Intermediate Answer', got {tools[0].name!r}"
        )
    return (
        RunnablePassthrough.assign(
            agent_scratchpad=lambda x: format_log_to_str(
                x["intermediate_steps"],
                observation_prefix="\nIntermediate answer: ",
                llm_prefix="",
            ),
            chat_history=lambda x: x.get("chat_history", ""),
        )
        | prompt
        | llm.bind(stop=["\nIntermediate answer:"])
        | SelfAskOutputParser()
    )


def create_structured_chat_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    tools_renderer: Callable[[list[BaseTool]], str] = render_text_description_and_args,
    *,
    stop_sequence: bool | list[str] = True,
) -> Runnable[Any, Any]:
    """A structured-chat agent: the model answers with one JSON blob, ``{"action": <tool
    name or "Final Answer">, "action_input": ...}``, so tools may take several arguments.

    It is the ReAct agent's chain with the tools listed with their arguments and
    :class:`JSONAgentOutputParser` as the parser (LangChain builds it the same way).

    Args:
        llm: a chat model or an LLM.
        tools: the tools.
        prompt: with ``{tools}``, ``{tool_names}`` and ``{agent_scratchpad}``.
        tools_renderer: how the tools are listed in ``{tools}`` (default: name,
            description and arguments).
        stop_sequence: ``True`` binds ``stop=["\nObservation"]``; a list binds that list;
            ``False`` binds none.

    Raises:
        ValueError: the prompt lacks one of the three variables.
        InvalidInputError: two tools share a name.
    """
    return create_react_agent(
        llm,
        tools,
        prompt,
        JSONAgentOutputParser(),
        tools_renderer,
        stop_sequence=stop_sequence,
    )


def create_tool_calling_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    *,
    message_formatter: Callable[[Any], list[Any]] = format_to_tool_messages,
) -> Runnable[Any, Any]:
    """An agent for models that call tools natively: the model gets the tools through
    ``bind_tools``, may call several at once (one step runs them all), and the steps go
    back as its tool-call messages followed by one ``ToolMessage`` per call.

    Args:
        llm: a chat model with ``bind_tools`` (``ChatOpenAI``, ``FakeMessagesListChatModel``).
        tools: the tools.
        prompt: a chat prompt with ``MessagesPlaceholder("agent_scratchpad")``.
        message_formatter: how the steps become messages.

    Raises:
        InvalidInputError: the prompt has no ``agent_scratchpad``, the model cannot bind
            tools, or two tools share a name.
    """
    tools = _check_tools(tools)
    _check_tool_calling(llm, prompt)
    return _tool_calling_agent(llm, tools, prompt, message_formatter, ToolsAgentOutputParser())


def _check_tool_calling(llm: Runnable[Any, Any], prompt: BasePromptTemplate) -> None:
    if "agent_scratchpad" not in _variables(prompt):
        raise InvalidInputError(
            "Prompt must have input variable `agent_scratchpad`, but wasn't found. Found "
            f"{sorted(prompt.input_variables)} instead; add MessagesPlaceholder('agent_scratchpad')"
        )
    if not hasattr(llm, "bind_tools"):
        raise InvalidInputError(
            f"a tool-calling agent needs a model with bind_tools; {type(llm).__name__} has none"
        )


def _tool_calling_agent(
    llm: Runnable[Any, Any],
    tools: list[BaseTool],
    prompt: BasePromptTemplate,
    message_formatter: Callable[[Any], list[Any]],
    parser: Runnable[Any, Any],
    **bind_options: Any,
) -> Runnable[Any, Any]:
    llm_with_tools = llm.bind_tools(tools, **bind_options)  # type: ignore[attr-defined]
    return (
        RunnablePassthrough.assign(
            agent_scratchpad=lambda x: message_formatter(x["intermediate_steps"])
        )
        | prompt
        | llm_with_tools
        | parser
    )


def create_openai_tools_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    strict: bool | None = None,
) -> Runnable[Any, Any]:
    """:func:`create_tool_calling_agent` under LangChain's older name, ending in
    :class:`OpenAIToolsAgentOutputParser` as LangChain's does.

    Args:
        strict: passed to ``bind_tools`` when given (OpenAI's strict tool schemas).

    Raises:
        InvalidInputError: as :func:`create_tool_calling_agent`.
    """
    options = {} if strict is None else {"strict": strict}
    tools = _check_tools(tools)
    _check_tool_calling(llm, prompt)
    return _tool_calling_agent(
        llm, tools, prompt, format_to_tool_messages, OpenAIToolsAgentOutputParser(), **options
    )


def create_openai_functions_agent(
    llm: Runnable[Any, Any], tools: Sequence[BaseTool], prompt: BasePromptTemplate
) -> Runnable[Any, Any]:
    """An agent for OpenAI's older function calling: the model gets the tools as
    ``functions=`` (bound), calls one at a time through ``function_call``, and the steps
    go back as its function-call messages followed by ``FunctionMessage`` results.

    Args:
        llm: a chat model that accepts ``functions`` (``ChatOpenAI``, or a fake model).
        tools: the tools.
        prompt: a chat prompt with ``MessagesPlaceholder("agent_scratchpad")``.

    Raises:
        ValueError: the prompt has no ``agent_scratchpad``.
    """
    from ragline.core.tools import convert_to_openai_function

    if "agent_scratchpad" not in _variables(prompt):
        raise ValueError(
            "Prompt must have input variable `agent_scratchpad`, but wasn't found. "
            f"Found {prompt.input_variables} instead."
        )
    llm_with_functions = llm.bind(functions=[convert_to_openai_function(t) for t in tools])
    return (
        RunnablePassthrough.assign(
            agent_scratchpad=lambda x: format_to_openai_function_messages(x["intermediate_steps"])
        )
        | prompt
        | llm_with_functions
        | OpenAIFunctionsAgentOutputParser()
    )


# How a JSON chat agent hears back from a tool (ragline's wording; LangChain's template
# takes the same variable, {observation}).
TEMPLATE_TOOL_RESPONSE = """TOOL RESULT:
---------------------
{observation}

Using that result, reply to my last message with one JSON blob in a Markdown code block,
either another tool call or your final answer. Do not mention the tool by name; I only
see your final answer, not the tool's output."""


def create_json_chat_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    stop_sequence: bool | list[str] = True,
    tools_renderer: Callable[[list[BaseTool]], str] = render_text_description,
    template_tool_response: str = TEMPLATE_TOOL_RESPONSE,
) -> Runnable[Any, Any]:
    """A chat agent that answers with a JSON blob (``{"action": ..., "action_input":
    ...}``, ``"Final Answer"`` to finish); each step goes back as the model's own message
    followed by the tool's result as a human message (``template_tool_response``).

    Args:
        llm: a chat model.
        tools: the tools.
        prompt: with ``{tools}``, ``{tool_names}`` and ``{agent_scratchpad}`` (a
            ``MessagesPlaceholder``).
        stop_sequence: ``True`` binds ``stop=["\nObservation"]``; a list binds that list;
            ``False`` binds none.
        tools_renderer: how the tools are listed in ``{tools}``.
        template_tool_response: how a tool's result is written; takes ``{observation}``.

    Raises:
        ValueError: the prompt lacks one of the three variables, or the template has no
            ``{observation}``.
    """
    missing = {"tools", "tool_names", "agent_scratchpad"} - _variables(prompt)
    if missing:
        raise ValueError(f"Prompt missing required variables: {missing}")
    if "{observation}" not in template_tool_response:
        raise ValueError("Template tool response missing required variable 'observation'")
    tools = list(tools)
    prompt = prompt.partial(
        tools=tools_renderer(tools), tool_names=", ".join(tool.name for tool in tools)
    )
    llm = _stopping(llm, stop_sequence, ["\nObservation"])
    return (
        RunnablePassthrough.assign(
            agent_scratchpad=lambda x: format_log_to_messages(
                x["intermediate_steps"], template_tool_response=template_tool_response
            )
        )
        | prompt
        | llm
        | JSONAgentOutputParser()
    )


def create_xml_agent(
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool],
    prompt: BasePromptTemplate,
    tools_renderer: Callable[[list[BaseTool]], str] = render_text_description,
    *,
    stop_sequence: bool | list[str] = True,
) -> Runnable[Any, Any]:
    """An agent whose model calls tools with XML tags (``<tool>``, ``<tool_input>``) and
    ends with ``<final_answer>``; the steps go back as :func:`format_xml` text.

    Args:
        llm: a chat model or an LLM.
        tools: the tools.
        prompt: with ``{tools}`` and ``{agent_scratchpad}`` (a string).
        tools_renderer: how the tools are listed in ``{tools}``.
        stop_sequence: ``True`` binds ``stop=["</tool_input>"]``; a list binds that list;
            ``False`` binds none.

    Raises:
        ValueError: the prompt lacks one of the two variables.
    """
    missing = {"tools", "agent_scratchpad"} - _variables(prompt)
    if missing:
        raise ValueError(f"Prompt missing required variables: {missing}")
    prompt = prompt.partial(tools=tools_renderer(list(tools)))
    llm = _stopping(llm, stop_sequence, ["</tool_input>"])
    return (
        RunnablePassthrough.assign(agent_scratchpad=lambda x: format_xml(x["intermediate_steps"]))
        | prompt
        | llm
        | XMLAgentOutputParser()
    )

"""Agents: what maps ``(inputs, intermediate_steps)`` to actions or a finish.

An executor takes any Runnable (what ``create_react_agent`` and
``create_tool_calling_agent`` return) and wraps it in :class:`RunnableAgent`; the legacy
agents ``initialize_agent`` builds (:class:`ZeroShotAgent`) keep LangChain's older shape:
a prompt and a model, a scratchpad built from the steps, stop words, and a final
"generate" call when the executor stops early.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import re
import warnings
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from ragline.agents._output_parsers import (
    AgentOutputParser,
    ConvoOutputParser,
    JSONAgentOutputParser,
    MRKLOutputParser,
    _ToolCallsAgentOutputParser,
)
from ragline.agents._prompts import FORMAT_INSTRUCTIONS, PREFIX, SUFFIX
from ragline.core import (
    AgentAction,
    AgentFinish,
    AIMessage,
    BaseTool,
    ChatPromptTemplate,
    ConfigurationError,
    Fields,
    HumanMessage,
    HumanMessagePromptTemplate,
    InvalidInputError,
    MessagesPlaceholder,
    OutputParserException,
    PromptTemplate,
    Runnable,
    StrOutputParser,
    SystemMessagePromptTemplate,
)
from ragline.core.config import use_config
from ragline.core.messages import BaseMessage
from ragline.core.runnables.runs import add_chunks

__all__ = [
    "Agent",
    "BaseMultiActionAgent",
    "BaseSingleActionAgent",
    "ConversationalAgent",
    "ConversationalChatAgent",
    "LLMSingleActionAgent",
    "RunnableAgent",
    "RunnableMultiActionAgent",
    "ZeroShotAgent",
]

Steps = list[tuple[AgentAction, Any]]
STOPPED = "Agent stopped due to iteration limit or time limit."
# LangChain's multi-action agents (the tool-calling agent among them) say it this way.
STOPPED_MULTI = "Agent stopped due to max iterations."
EARLY_STOPPING_METHODS = ("force", "generate")


async def _in_thread(function: Any, *args: Any, **kwargs: Any) -> Any:
    context = contextvars.copy_context()
    call = functools.partial(context.run, function, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(None, call)


class _AgentProtocol(Fields):
    """What both agent kinds share: ``plan(intermediate_steps, callbacks=None, **inputs)``
    returns an action (or a list of them) or a finish. Subclasses write ``plan``;
    ``aplan`` runs it in a worker thread unless overridden. Private: a program subclasses
    :class:`BaseSingleActionAgent` or :class:`BaseMultiActionAgent` (siblings, as in
    LangChain)."""

    # a stray keyword (ZeroShotAgent(llm_chain=..., tools=tools, verbose=True), as
    # LangChain's agent guides write it) is dropped with a warning: LangChain's drops it
    __ragline_extra__ = "ignore"

    stopped_message = STOPPED  # the "force" answer when a limit stops the executor

    @property
    def input_keys(self) -> list[str]:
        """The input keys the agent needs (``[]``: whatever the caller gives)."""
        return []

    @property
    def return_values(self) -> list[str]:
        """The keys of the final answer."""
        return ["output"]

    def get_allowed_tools(self) -> list[str] | None:
        """The tool names the agent was built for (``None``: any)."""
        return None

    def tool_run_logging_kwargs(self) -> dict[str, Any]:
        """What the executor passes to each tool run for printing (prefixes)."""
        return {}

    @abstractmethod
    def plan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | list[AgentAction] | AgentFinish:
        """Decide the next action(s), or finish."""

    async def aplan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | list[AgentAction] | AgentFinish:
        """Async :meth:`plan` (by default ``plan`` in a worker thread)."""
        return await _in_thread(self.plan, intermediate_steps, callbacks, **kwargs)

    def return_stopped_response(
        self, early_stopping_method: str, intermediate_steps: Steps, **kwargs: Any
    ) -> AgentFinish:
        """The answer when the executor stops the agent (iteration or time limit):
        ``"force"`` says so. Only the prompt-and-model agents (:class:`Agent`) can
        ``"generate"`` a final answer from the steps, as in LangChain.

        Raises:
            ConfigurationError: ``"generate"`` (a ``ValueError``, as LangChain's), or an
                unknown method.
        """
        if early_stopping_method == "force":
            return AgentFinish({"output": self.stopped_message}, "")
        if early_stopping_method == "generate":
            raise ConfigurationError(
                f"{type(self).__name__} cannot 'generate' a final answer when the executor "
                "stops it: only the prompt-and-model agents (ZeroShotAgent, "
                "ConversationalAgent, ConversationalChatAgent, or an Agent subclass) write one "
                "from their steps, as in LangChain; use early_stopping_method='force', or "
                "raise max_iterations"
            )
        raise _unknown_method(early_stopping_method)

    async def areturn_stopped_response(
        self, early_stopping_method: str, intermediate_steps: Steps, **kwargs: Any
    ) -> AgentFinish:
        """Async :meth:`return_stopped_response` (in a worker thread: a subclass's
        override may block)."""
        return await _in_thread(  # type: ignore[no-any-return]
            self.return_stopped_response, early_stopping_method, intermediate_steps, **kwargs
        )


class BaseSingleActionAgent(_AgentProtocol):
    """An agent whose ``plan`` returns one action or a finish (LangChain's base class).

    Example:
        >>> from ragline.core import AgentFinish
        >>> class Done(BaseSingleActionAgent):
        ...     def plan(self, intermediate_steps, callbacks=None, **kwargs):
        ...         return AgentFinish({"output": "done"}, "done")
        >>> Done().plan([]).return_values
        {'output': 'done'}
    """


class LLMSingleActionAgent(BaseSingleActionAgent):
    """A program's own prompt, chain and parser as one agent (LangChain's): each step runs
    ``llm_chain`` with the inputs, ``intermediate_steps`` (the prompt writes its own
    scratchpad from them) and ``stop``, and ``output_parser`` reads the reply.

    Args:
        llm_chain: the chain to run (an ``LLMChain``); its prompt takes
            ``intermediate_steps``.
        output_parser: turns the reply into an ``AgentAction`` or ``AgentFinish``.
        stop: the stop words passed to the model; the first is what the executor prints
            before an observation.
        allowed_tools: accepted and not used, as LangChain's agent ignores it (the
            executor runs any of its tools).

    Example:
        >>> from ragline.chains import LLMChain
        >>> from ragline.core import FakeListLLM, PromptTemplate
        >>> from ragline.agents import MRKLOutputParser
        >>> prompt = PromptTemplate.from_template("{input}{intermediate_steps}")
        >>> agent = LLMSingleActionAgent(
        ...     llm_chain=LLMChain(llm=FakeListLLM(responses=["Final Answer: 4"]), prompt=prompt),
        ...     output_parser=MRKLOutputParser(), stop=["\\nObservation:"])
        >>> agent.input_keys, agent.plan([], input="2+2?").return_values
        (['input'], {'output': '4'})
    """

    llm_chain: Any
    output_parser: Any
    stop: list[str]
    allowed_tools: Any = None

    @property
    def input_keys(self) -> list[str]:
        return [name for name in self.llm_chain.input_keys if name != "intermediate_steps"]

    def plan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | AgentFinish:
        output = self.llm_chain.run(
            intermediate_steps=intermediate_steps, stop=self.stop, callbacks=callbacks, **kwargs
        )
        return self.output_parser.parse(output)  # type: ignore[no-any-return]

    async def aplan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | AgentFinish:
        output = await self.llm_chain.arun(
            intermediate_steps=intermediate_steps, stop=self.stop, callbacks=callbacks, **kwargs
        )
        return self.output_parser.parse(output)  # type: ignore[no-any-return]

    def tool_run_logging_kwargs(self) -> dict[str, Any]:
        return {"llm_prefix": "", "observation_prefix": self.stop[0] if self.stop else ""}


class BaseMultiActionAgent(_AgentProtocol):
    """An agent whose ``plan`` returns a list of actions (run in one step) or a finish.

    A sibling of :class:`BaseSingleActionAgent`, not a subclass, as in LangChain.
    """

    stopped_message = STOPPED_MULTI


def _unknown_method(method: str) -> ConfigurationError:
    options = ", ".join(repr(name) for name in EARLY_STOPPING_METHODS)
    return ConfigurationError(f"early_stopping_method {method!r} is not one of {options}")


class _RunnablePlanner(_AgentProtocol):
    """A Runnable (``create_react_agent`` / ``create_tool_calling_agent``) as an agent.

    ``plan`` calls ``runnable`` with ``{**inputs, "intermediate_steps": steps}``. With
    ``stream_runnable`` (the default, as LangChain) it streams, so the model's tokens
    reach callbacks as they come, and adds the output chunks up.
    """

    runnable: Runnable[Any, Any]
    input_keys_arg: list[str] = []  # noqa: RUF012 - copied per instance by Fields
    return_keys_arg: list[str] = []  # noqa: RUF012
    stream_runnable: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.runnable, Runnable):
            kind = type(self.runnable).__name__
            raise InvalidInputError(f"an agent must be a Runnable or an agent object, got {kind}")

    @property
    def input_keys(self) -> list[str]:
        return list(self.input_keys_arg)

    @property
    def return_values(self) -> list[str]:
        # LangChain's: the keys given, none by default (its finishes still carry "output")
        return list(self.return_keys_arg)

    def plan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | list[AgentAction] | AgentFinish:
        inputs = {**kwargs, "intermediate_steps": intermediate_steps}
        config: Any = {"callbacks": callbacks}
        if not self.stream_runnable:
            return self.runnable.invoke(inputs, config)  # type: ignore[no-any-return]
        output: Any = _NOTHING
        for chunk in self.runnable.stream(inputs, config):
            output = add_chunks(output, chunk)
        return output  # type: ignore[no-any-return]

    async def aplan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | list[AgentAction] | AgentFinish:
        inputs = {**kwargs, "intermediate_steps": intermediate_steps}
        config: Any = {"callbacks": callbacks}
        if not self.stream_runnable:
            return await self.runnable.ainvoke(inputs, config)  # type: ignore[no-any-return]
        output: Any = _NOTHING
        async for chunk in self.runnable.astream(inputs, config):
            output = add_chunks(output, chunk)
        return output  # type: ignore[no-any-return]


class RunnableAgent(_RunnablePlanner, BaseSingleActionAgent):
    """A Runnable as a single-action agent (``plan`` may still give a list of actions).

    ``plan`` calls ``runnable`` with ``{**inputs, "intermediate_steps": steps}``. With
    ``stream_runnable`` (the default, as LangChain) it streams, so the model's tokens
    reach callbacks as they come, and adds the output chunks up. ``AgentExecutor`` wraps
    a Runnable in this class, or in :class:`RunnableMultiActionAgent` when it ends in a
    tool-calling parser, as LangChain's executor does.
    """


class RunnableMultiActionAgent(_RunnablePlanner, BaseMultiActionAgent):
    """A Runnable as a multi-action agent; see :class:`RunnableAgent`."""


def runnable_agent(runnable: Any, *, stream_runnable: bool = True) -> _RunnablePlanner:
    """Wrap a Runnable as LangChain's executor does: multi-action when it ends in a
    tool-calling parser (its output is a list of actions), single-action otherwise."""
    last = getattr(runnable, "last", runnable)
    multi = isinstance(last, _ToolCallsAgentOutputParser)
    kind = RunnableMultiActionAgent if multi else RunnableAgent
    return kind(runnable=runnable, stream_runnable=stream_runnable)


_NOTHING: Any = object()
_PLAIN_TEXT = StrOutputParser()


class Agent(BaseSingleActionAgent):
    """The older agent shape: a prompt and a model (an ``llm_chain``), an output parser,
    and a scratchpad written from the steps between ``observation_prefix`` and
    ``llm_prefix``; the model stops before it writes an observation itself.

    Give either ``llm_chain`` (an ``LLMChain``; each step runs it, so its ``verbose``
    and callbacks apply) or ``llm`` and ``prompt`` (an ``LLMChain`` over them is built).
    """

    llm_chain: Any = None
    llm: Any = None
    prompt: Any = None
    output_parser: Any = None
    allowed_tools: list[str] | None = None

    def __post_init__(self) -> None:
        if self.llm_chain is not None:
            if not callable(getattr(self.llm_chain, "predict", None)):
                kind = type(self.llm_chain).__name__
                raise InvalidInputError(
                    f"{type(self).__name__}.llm_chain must be an LLMChain (each step runs its "
                    f"predict), got {kind}; or give llm= and prompt= instead"
                )
            self.llm = self.llm if self.llm is not None else self.llm_chain.llm
            self.prompt = self.prompt if self.prompt is not None else self.llm_chain.prompt
        if self.llm is None or self.prompt is None:
            raise InvalidInputError(
                f"{type(self).__name__} needs an llm and a prompt (or an llm_chain)"
            )
        if "agent_scratchpad" not in self.prompt.input_variables:
            raise InvalidInputError(
                f"{type(self).__name__}'s prompt needs an {{agent_scratchpad}} variable; it "
                f"has {self.prompt.input_variables}"
            )
        if self.llm_chain is None:
            # built now, as LangChain's from_llm_and_tools builds it: its verbose is the
            # global flag of this moment (set_verbose(True) before it prints each step)
            from ragline.chains import LLMChain

            self.llm_chain = LLMChain(llm=self.llm, prompt=self.prompt)
        if self.output_parser is None:
            self.output_parser = self._get_default_output_parser()
        self._seen = (self.llm, self.prompt)

    def _sync(self) -> Any:
        """Follow a model or prompt set after construction, and return ``llm_chain``.
        LangChain's agent runs ``llm_chain``, so ``agent.llm_chain.prompt = ...`` (or
        ``.llm``) takes effect; so does ``agent.prompt = ...`` here (it is passed on to
        ``llm_chain``)."""
        seen_llm, seen_prompt = self._seen
        chain = self.llm_chain
        for name, seen in (("llm", seen_llm), ("prompt", seen_prompt)):
            if getattr(chain, name) is not seen:
                setattr(self, name, getattr(chain, name))
            elif getattr(self, name) is not seen:
                setattr(chain, name, getattr(self, name))
        self._seen = (self.llm, self.prompt)
        return chain

    @property
    @abstractmethod
    def observation_prefix(self) -> str:
        """What precedes an observation in the scratchpad."""

    @property
    @abstractmethod
    def llm_prefix(self) -> str:
        """What the scratchpad ends with, for the model to continue."""

    @classmethod
    def _get_default_output_parser(cls) -> Any:
        return MRKLOutputParser()

    @property
    def _stop(self) -> list[str]:
        return [f"\n{self.observation_prefix.rstrip()}", f"\n\t{self.observation_prefix.rstrip()}"]

    @property
    def input_keys(self) -> list[str]:
        self._sync()
        return [name for name in self.prompt.input_variables if name != "agent_scratchpad"]

    def get_allowed_tools(self) -> list[str] | None:
        return self.allowed_tools

    def tool_run_logging_kwargs(self) -> dict[str, Any]:
        return {"llm_prefix": self.llm_prefix, "observation_prefix": self.observation_prefix}

    def _construct_scratchpad(self, intermediate_steps: Steps) -> str:
        thoughts = ""
        for action, observation in intermediate_steps:
            thoughts += action.log
            thoughts += f"\n{self.observation_prefix}{observation}\n{self.llm_prefix}"
        return thoughts

    def get_full_inputs(self, intermediate_steps: Steps, **kwargs: Any) -> dict[str, Any]:
        """What ``llm_chain`` runs with: the inputs, the scratchpad and the ``stop``
        words (LangChain's keys)."""
        thoughts = self._construct_scratchpad(intermediate_steps)
        return {**kwargs, "agent_scratchpad": thoughts, "stop": self._stop}

    def plan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | AgentFinish:
        # llm_chain itself runs (its own verbose and callbacks too), as in LangChain
        full_inputs = self.get_full_inputs(intermediate_steps, **kwargs)
        text = self._sync().predict(callbacks=callbacks, **full_inputs)
        return self.output_parser.parse(text)  # type: ignore[no-any-return]

    async def aplan(
        self, intermediate_steps: Steps, callbacks: Any = None, **kwargs: Any
    ) -> AgentAction | AgentFinish:
        full_inputs = self.get_full_inputs(intermediate_steps, **kwargs)
        text = await self._sync().apredict(callbacks=callbacks, **full_inputs)
        return self.output_parser.parse(text)  # type: ignore[no-any-return]

    def _final_inputs(self, intermediate_steps: Steps, kwargs: dict[str, Any]) -> dict[str, Any]:
        thoughts = self._construct_scratchpad(intermediate_steps)
        thoughts += "\n\nI now need to return a final answer based on the previous steps:"
        return {**kwargs, "agent_scratchpad": thoughts, "stop": self._stop}

    def _final_answer(self, text: str) -> AgentFinish:
        try:
            parsed = self.output_parser.parse(text)
        except InvalidInputError:
            parsed = None
        if isinstance(parsed, AgentFinish):
            return parsed
        return AgentFinish({"output": text}, text)

    def return_stopped_response(
        self, early_stopping_method: str, intermediate_steps: Steps, **kwargs: Any
    ) -> AgentFinish:
        if early_stopping_method != "generate":
            return super().return_stopped_response(early_stopping_method, intermediate_steps)
        # LangChain runs this last call with no callbacks at all (the executor's handlers,
        # given or inherited, do not see it), so neither does ragline
        kwargs.pop("callbacks", None)
        inputs = self._final_inputs(intermediate_steps, kwargs)
        with use_config(None):
            return self._final_answer(self._sync().predict(**inputs))

    async def areturn_stopped_response(
        self, early_stopping_method: str, intermediate_steps: Steps, **kwargs: Any
    ) -> AgentFinish:
        if early_stopping_method != "generate":
            return super().return_stopped_response(early_stopping_method, intermediate_steps)
        kwargs.pop("callbacks", None)  # no callbacks, as return_stopped_response
        inputs = self._final_inputs(intermediate_steps, kwargs)
        with use_config(None):
            return self._final_answer(await self._sync().apredict(**inputs))

    @classmethod
    def create_prompt(cls, tools: Sequence[BaseTool]) -> Any:
        """The agent's default prompt for ``tools``."""
        raise NotImplementedError

    @classmethod
    def _validate_tools(cls, tools: Sequence[BaseTool]) -> None:
        return None

    @classmethod
    def from_llm_and_tools(
        cls,
        llm: Any,
        tools: Sequence[BaseTool],
        callback_manager: Any = None,
        output_parser: Any = None,
        **kwargs: Any,
    ) -> Agent:
        """Build the agent with its default prompt for ``tools``.

        ``prefix``, ``suffix``, ``format_instructions`` and ``input_variables`` in
        ``kwargs`` go to :meth:`create_prompt`; the rest to the agent.
        """
        cls._validate_tools(tools)
        _drop_prompt(cls, kwargs)
        prompt_options = {k: kwargs.pop(k) for k in list(kwargs) if k in _PROMPT_OPTIONS}
        prompt = cls.create_prompt(tools, **prompt_options)
        return cls(llm=llm, prompt=prompt, allowed_tools=[tool.name for tool in tools],
                   output_parser=output_parser, **kwargs)  # fmt: skip


_PROMPT_OPTIONS = ("prefix", "suffix", "format_instructions", "input_variables")


def _drop_prompt(cls: type[Any], kwargs: dict[str, Any]) -> None:
    """``from_llm_and_tools(..., prompt=...)`` (``initialize_agent``'s
    ``agent_kwargs={"prompt": ...}``): LangChain's agent drops the keyword without a word
    and keeps the prompt it builds; so does this one, with a warning."""
    if "prompt" in kwargs:
        del kwargs["prompt"]
        warnings.warn(
            f"{cls.__name__}.from_llm_and_tools ignores prompt=: the agent builds its own "
            "prompt from prefix, suffix and format_instructions (as LangChain's does); to "
            "run your prompt, build the agent with create_react_agent(llm, tools, prompt)",
            UserWarning,
            stacklevel=3,
        )


class _ThoughtObservationAgent(Agent):
    """An agent whose scratchpad reads ``Thought:`` ... ``Observation: ``: the zero-shot
    and both conversational agents."""

    @property
    def observation_prefix(self) -> str:
        return "Observation: "

    @property
    def llm_prefix(self) -> str:
        return "Thought:"


class ZeroShotAgent(_ThoughtObservationAgent):
    """The zero-shot ReAct agent ("MRKL"): one prompt listing the tools as ``name:
    description`` lines, ReAct text, single-input tools.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> from ragline.tools import Tool
        >>> echo = Tool("echo", str, "Repeat the text.")
        >>> agent = ZeroShotAgent.from_llm_and_tools(FakeListLLM(responses=["x"]), [echo])
        >>> print(agent.prompt.template.splitlines()[2])
        echo: Repeat the text.
    """

    @classmethod
    def create_prompt(  # type: ignore[override]
        cls,
        tools: Sequence[BaseTool],
        prefix: str = PREFIX,
        suffix: str = SUFFIX,
        format_instructions: str = FORMAT_INSTRUCTIONS,
        input_variables: list[str] | None = None,
    ) -> PromptTemplate:
        """The prompt: ``prefix``, one ``name: description`` line per tool, the format
        instructions (with the tool names), ``suffix``."""
        tool_strings = "\n".join(f"{tool.name}: {tool.description}" for tool in tools)
        instructions = format_instructions.format(tool_names=", ".join(t.name for t in tools))
        template = f"{prefix}\n\n{tool_strings}\n\n{instructions}\n\n{suffix}"
        if input_variables:
            return PromptTemplate(template, input_variables=input_variables)
        return PromptTemplate.from_template(template)

    @classmethod
    def _validate_tools(cls, tools: Sequence[BaseTool]) -> None:
        for tool in tools:
            if not tool.description:
                raise InvalidInputError(
                    f"a description must be given for tool {tool.name!r}: the zero-shot "
                    "agent chooses tools by their descriptions"
                )
            _single_input_tools("ZeroShotAgent", [tool])


def _single_input_tools(agent: str, tools: Sequence[BaseTool]) -> None:
    """Refuse a tool with several arguments (these agents call a tool with one text
    input)."""
    for tool in tools:
        if len(tool.get_input_schema().properties) > 1:
            raise InvalidInputError(
                f"{agent} does not support multi-input tool {tool.name!r}; use a "
                "tool-calling agent (create_tool_calling_agent) for it"
            )


# ragline's own wording for the chat-conversational agent's default prompt (LangChain's
# is not copied): the tools, the JSON reply format, the user's message; each tool
# result comes back as a user message asking for the next JSON reply.
CHAT_SYSTEM_MESSAGE = (
    "You are an assistant in a conversation with a user. Answer from what you know, or "
    "use one of the tools below when it helps."
)
# formatted twice, as LangChain formats its human message: first the format
# instructions, then the tools and their names (so {input} is written with four braces)
CHAT_HUMAN_MESSAGE = """Tools:

{{tools}}

{format_instructions}

The user's message:
{{{{input}}}}"""
CHAT_FORMAT_INSTRUCTIONS = """Reply with a single JSON object in a ```json code block, with
two keys: "action": the name of one tool ({tool_names}), or "Final Answer" to answer the user;
"action_input": the tool's input, or your answer to the user."""
CHAT_TOOL_RESPONSE = """Result of the tool:
{observation}

Reply to my last message with one JSON object, as asked above."""


class ConversationalChatAgent(_ThoughtObservationAgent):
    """The chat-conversational ReAct agent (``initialize_agent(agent=
    "chat-conversational-react-description")``): a chat prompt with the conversation's
    history (``chat_history``, from the executor's memory), each reply one JSON object
    ``{"action": ..., "action_input": ...}`` (``"Final Answer"`` ends the run), and a
    scratchpad of messages: each step's reply as an AI message, its tool result as a
    human message. Single-input tools.

    Example:
        >>> from ragline.core import FakeListChatModel
        >>> reply = '{"action": "Final Answer", "action_input": "hi"}'
        >>> agent = ConversationalChatAgent.from_llm_and_tools(
        ...     FakeListChatModel(responses=[reply]), [])
        >>> agent.input_keys
        ['chat_history', 'input']
        >>> agent.plan([], input="hello", chat_history=[]).return_values
        {'output': 'hi'}
    """

    template_tool_response: str = CHAT_TOOL_RESPONSE

    @classmethod
    def _get_default_output_parser(cls) -> Any:
        return JSONAgentOutputParser()

    @classmethod
    def _validate_tools(cls, tools: Sequence[BaseTool]) -> None:
        _single_input_tools(cls.__name__, tools)

    def _construct_scratchpad(self, intermediate_steps: Steps) -> list[BaseMessage]:  # type: ignore[override]
        thoughts: list[BaseMessage] = []
        for action, observation in intermediate_steps:
            thoughts.append(AIMessage(content=action.log))
            text = self.template_tool_response.format(observation=observation)
            thoughts.append(HumanMessage(content=text))
        return thoughts

    def _final_inputs(self, intermediate_steps: Steps, kwargs: dict[str, Any]) -> dict[str, Any]:
        thoughts = self._construct_scratchpad(intermediate_steps)
        ask = "Give your final answer now, from the tool results so far."
        return {**kwargs, "agent_scratchpad": [*thoughts, HumanMessage(content=ask)]}

    @classmethod
    def create_prompt(  # type: ignore[override]
        cls,
        tools: Sequence[BaseTool],
        system_message: str = CHAT_SYSTEM_MESSAGE,
        human_message: str = CHAT_HUMAN_MESSAGE,
        input_variables: list[str] | None = None,
        output_parser: Any = None,
    ) -> ChatPromptTemplate:
        """The prompt: the system message, ``chat_history``, a human message listing the
        tools (``> name: description``) with the reply format, ``agent_scratchpad``."""
        tool_strings = "\n".join(f"> {tool.name}: {tool.description}" for tool in tools)
        tool_names = ", ".join(tool.name for tool in tools)
        with_format = human_message.format(format_instructions=CHAT_FORMAT_INSTRUCTIONS)
        human = with_format.format(tool_names=tool_names, tools=tool_strings)
        return ChatPromptTemplate.from_messages(
            [
                SystemMessagePromptTemplate.from_template(system_message),
                MessagesPlaceholder("chat_history"),
                HumanMessagePromptTemplate.from_template(human),
                MessagesPlaceholder("agent_scratchpad"),
            ]
        )

    @classmethod
    def from_llm_and_tools(  # type: ignore[override]
        cls,
        llm: Any,
        tools: Sequence[BaseTool],
        callback_manager: Any = None,
        output_parser: Any = None,
        system_message: str = CHAT_SYSTEM_MESSAGE,
        human_message: str = CHAT_HUMAN_MESSAGE,
        input_variables: list[str] | None = None,
        **kwargs: Any,
    ) -> ConversationalChatAgent:
        """Build the agent with its default prompt (``system_message`` and
        ``human_message`` replace its parts, as in LangChain's ``agent_kwargs``)."""
        cls._validate_tools(tools)
        _drop_prompt(cls, kwargs)
        prompt = cls.create_prompt(tools, system_message=system_message,
                                   human_message=human_message)  # fmt: skip
        return cls(llm=llm, prompt=prompt, allowed_tools=[tool.name for tool in tools],
                   output_parser=output_parser, **kwargs)  # fmt: skip


# ragline's own wording for the text conversational agent's default prompt (LangChain's
# is not copied); the reply protocol is LangChain's: "Action:" / "Action Input:" lines to
# call a tool, "<ai_prefix>: <reply>" to answer.
CONVERSATION_PREFIX = (
    "You are an assistant talking with a user. You can answer from what you know, and you "
    "can use these tools:"
)
CONVERSATION_FORMAT_INSTRUCTIONS = """To use a tool, write:

```
Thought: Do I need to use a tool? Yes
Action: the tool's name, one of [{tool_names}]
Action Input: the tool's input
Observation: the tool's result
```

To reply to the {human_prefix} without a tool, write:

```
Thought: Do I need to use a tool? No
{ai_prefix}: your reply
```"""
CONVERSATION_SUFFIX = """The conversation so far:
{chat_history}

New message: {input}
{agent_scratchpad}"""


class ConversationalAgent(_ThoughtObservationAgent):
    """The text conversational ReAct agent (``initialize_agent(agent=
    "conversational-react-description")``): one text prompt with the conversation so far
    (``chat_history``, a memory's string buffer), the tools as ``> name: description``
    lines; the model calls a tool with ``Action:`` / ``Action Input:`` lines or answers
    with ``<ai_prefix>: <reply>`` (:class:`ConvoOutputParser`). Single-input tools.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> llm = FakeListLLM(responses=["Do I need to use a tool? No\\nAI: hello"])
        >>> agent = ConversationalAgent.from_llm_and_tools(llm, [])
        >>> agent.plan([], input="hi", chat_history="").return_values
        {'output': 'hello'}
    """

    ai_prefix: str = "AI"

    def _get_default_output_parser(self) -> Any:  # type: ignore[override]
        return ConvoOutputParser(ai_prefix=self.ai_prefix)

    @classmethod
    def _validate_tools(cls, tools: Sequence[BaseTool]) -> None:
        _single_input_tools(cls.__name__, tools)

    @classmethod
    def create_prompt(  # type: ignore[override]
        cls,
        tools: Sequence[BaseTool],
        prefix: str = CONVERSATION_PREFIX,
        suffix: str = CONVERSATION_SUFFIX,
        format_instructions: str = CONVERSATION_FORMAT_INSTRUCTIONS,
        ai_prefix: str = "AI",
        human_prefix: str = "Human",
        input_variables: list[str] | None = None,
    ) -> PromptTemplate:
        """The prompt: ``prefix``, one ``> name: description`` line per tool, the format
        instructions (tool names and prefixes filled in), ``suffix``."""
        tool_strings = "\n".join(f"> {tool.name}: {tool.description}" for tool in tools)
        instructions = format_instructions.format(
            tool_names=", ".join(tool.name for tool in tools),
            ai_prefix=ai_prefix,
            human_prefix=human_prefix,
        )
        template = f"{prefix}\n\n{tool_strings}\n\n{instructions}\n\n{suffix}"
        variables = input_variables or ["input", "chat_history", "agent_scratchpad"]
        return PromptTemplate(template, input_variables=variables)

    @classmethod
    def from_llm_and_tools(  # type: ignore[override]
        cls,
        llm: Any,
        tools: Sequence[BaseTool],
        callback_manager: Any = None,
        output_parser: Any = None,
        prefix: str = CONVERSATION_PREFIX,
        suffix: str = CONVERSATION_SUFFIX,
        format_instructions: str = CONVERSATION_FORMAT_INSTRUCTIONS,
        ai_prefix: str = "AI",
        human_prefix: str = "Human",
        input_variables: list[str] | None = None,
        **kwargs: Any,
    ) -> ConversationalAgent:
        """Build the agent with its default prompt (the keywords replace its parts, as
        in LangChain's ``agent_kwargs``); ``ai_prefix`` is also what ends a run."""
        cls._validate_tools(tools)
        _drop_prompt(cls, kwargs)
        prompt = cls.create_prompt(tools, prefix=prefix, suffix=suffix,
                                   format_instructions=format_instructions,
                                   ai_prefix=ai_prefix, human_prefix=human_prefix,
                                   input_variables=input_variables)  # fmt: skip
        parser = output_parser or ConvoOutputParser(ai_prefix=ai_prefix)
        return cls(llm=llm, prompt=prompt, allowed_tools=[tool.name for tool in tools],
                   output_parser=parser, ai_prefix=ai_prefix, **kwargs)  # fmt: skip


# ragline's own wording for the structured-chat agent's default prompt (LangChain's is
# not copied); the reply protocol is LangChain's: one JSON blob {"action", "action_input"}
# in a ``` block, "Final Answer" to answer.
STRUCTURED_PREFIX = "Answer the user as well as you can. You can use these tools:"
STRUCTURED_FORMAT_INSTRUCTIONS = """Reply with one JSON blob in a ``` block, with two keys:
"action": a tool's name ({tool_names}) or "Final Answer"; "action_input": the tool's
arguments, or your answer to the user. After each tool result (an Observation), reply
with the next blob; answer with "Final Answer" when you can."""
STRUCTURED_SUFFIX = "Reply with the JSON blob only."
STRUCTURED_HUMAN_MESSAGE = "{input}\n\n{agent_scratchpad}"
_BLOB = re.compile(r"```(?:json\s+)?(\W.*?)```", re.DOTALL)


class _StructuredChatOutputParser(AgentOutputParser):
    """The structured-chat agent's replies: the first ``` block's JSON blob is an action
    (``"Final Answer"``: the answer); a reply without a block is the answer itself."""

    def parse(self, text: str) -> AgentAction | AgentFinish:
        match = _BLOB.search(text)
        if match is None:
            return AgentFinish({"output": text}, text)
        try:
            blob = json.loads(match.group(1).strip(), strict=False)
            if isinstance(blob, list):
                blob = blob[0]
            if blob["action"] == "Final Answer":
                return AgentFinish({"output": blob.get("action_input", {})}, text)
            return AgentAction(blob["action"], blob.get("action_input", {}), text)
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise OutputParserException(f"Could not parse LLM output: {text}") from err


class _StructuredChatAgent(_ThoughtObservationAgent):
    """The structured-chat ReAct agent of ``initialize_agent(agent=
    "structured-chat-zero-shot-react-description")``: a system message listing the tools
    with their arguments, the user's message with the scratchpad, JSON-blob replies;
    tools with several arguments get them as a dict."""

    @classmethod
    def _get_default_output_parser(cls) -> Any:
        return _StructuredChatOutputParser()

    @property
    def _stop(self) -> list[str]:
        return ["Observation:"]

    def _construct_scratchpad(self, intermediate_steps: Steps) -> str:
        thoughts = super()._construct_scratchpad(intermediate_steps)
        if not thoughts:
            return thoughts
        return f"Your steps so far (only your final answer reaches the user):\n{thoughts}"

    @classmethod
    def create_prompt(  # type: ignore[override]
        cls,
        tools: Sequence[BaseTool],
        prefix: str = STRUCTURED_PREFIX,
        suffix: str = STRUCTURED_SUFFIX,
        human_message_template: str = STRUCTURED_HUMAN_MESSAGE,
        format_instructions: str = STRUCTURED_FORMAT_INSTRUCTIONS,
        input_variables: list[str] | None = None,
        memory_prompts: list[Any] | None = None,
    ) -> ChatPromptTemplate:
        """The prompt: a system message (``prefix``, one ``name: description, args:
        {...}`` line per tool, the format instructions, ``suffix``), then
        ``memory_prompts``, then the human message."""
        lines = []
        for tool in tools:
            args = str(tool.args).replace("{", "{{").replace("}", "}}")
            lines.append(f"{tool.name}: {tool.description}, args: {args}")
        instructions = format_instructions.format(tool_names=", ".join(t.name for t in tools))
        template = "\n\n".join([prefix, "\n".join(lines), instructions, suffix])
        return ChatPromptTemplate.from_messages(
            [
                SystemMessagePromptTemplate.from_template(template),
                *(memory_prompts or []),
                HumanMessagePromptTemplate.from_template(human_message_template),
            ]
        )

    @classmethod
    def from_llm_and_tools(  # type: ignore[override]
        cls,
        llm: Any,
        tools: Sequence[BaseTool],
        callback_manager: Any = None,
        output_parser: Any = None,
        prefix: str = STRUCTURED_PREFIX,
        suffix: str = STRUCTURED_SUFFIX,
        human_message_template: str = STRUCTURED_HUMAN_MESSAGE,
        format_instructions: str = STRUCTURED_FORMAT_INSTRUCTIONS,
        input_variables: list[str] | None = None,
        memory_prompts: list[Any] | None = None,
        **kwargs: Any,
    ) -> _StructuredChatAgent:
        """Build the agent with its default prompt (the keywords replace its parts, as
        in LangChain's ``agent_kwargs``)."""
        _drop_prompt(cls, kwargs)
        prompt = cls.create_prompt(tools, prefix=prefix, suffix=suffix,
                                   human_message_template=human_message_template,
                                   format_instructions=format_instructions,
                                   memory_prompts=memory_prompts)  # fmt: skip
        return cls(llm=llm, prompt=prompt, allowed_tools=[tool.name for tool in tools],
                   output_parser=output_parser, **kwargs)  # fmt: skip

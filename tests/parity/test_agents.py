"""Parity: agents and their executor, against LangChain's (langchain_classic.agents).

Each scenario builds the same agent from LangChain's classes and from ragline's classes
of the same names, with scripted fake models, and compares outputs, the callback events
a handler sees and the answer a limit stops the agent with.
"""

# No `from __future__ import annotations`: the tools' signatures are rendered into the
# prompts, and LangChain writes postponed annotations as strings ('int') where ragline
# resolves them (int); real annotations read the same in both.
import asyncio
import warnings
from typing import Any

import pytest
from langchain_classic import agents as lc_agents
from langchain_classic.agents.output_parsers import JSONAgentOutputParser as LCJSONAgentOutputParser
from langchain_classic.chains.base import Chain as LCChain
from langchain_core import callbacks as lc_callbacks
from langchain_core import language_models as lc_models
from langchain_core import messages as lc_messages
from langchain_core import prompts as lc_prompts
from langchain_core import tools as lc_tools

from ragline import agents, chains, core, tools

COVERS = {
    "agents.AgentExecutor",
    "agents.AgentExecutorIterator",
    "agents.InvalidTool",
    "agents.ExceptionTool",
    "agents.RunnableAgent",
    "agents.ReActSingleInputOutputParser",
    "agents.MRKLOutputParser",
    "agents.ToolsAgentOutputParser",
    "agents.format_log_to_str",
    "agents.format_to_tool_messages",
    "agents.format_to_openai_tool_messages",
    "agents.format_to_openai_function_messages",
    "agents.AgentAction",
    "agents.AgentActionMessageLog",
    "agents.AgentStep",
    "agents.AgentFinish",
    "agents.ToolAgentAction",
    "agents.AgentType",
    "chains.Chain",
    "agents.JSONAgentOutputParser",
    "agents.create_structured_chat_agent",
    "tools.render_text_description_and_args",
    "agents.initialize_agent",
    "agents.create_tool_calling_agent",
    "agents.create_react_agent",
}

REACT_REPLIES = [" I will echo.\nAction: echo\nAction Input: hi", " I know.\nFinal Answer: hi"]


def lib(which: str) -> dict[str, Any]:
    """The classes a scenario uses, from LangChain or from ragline, by the same names."""
    if which == "langchain":
        return {
            "agents": lc_agents,
            "Handler": lc_callbacks.BaseCallbackHandler,
            "FakeListLLM": lc_models.FakeListLLM,
            "FakeChat": lc_models.FakeMessagesListChatModel,
            "AIMessage": lc_messages.AIMessage,
            "ChatPromptTemplate": lc_prompts.ChatPromptTemplate,
            "PromptTemplate": lc_prompts.PromptTemplate,
            "tool": lc_tools.tool,
        }
    return {
        "agents": agents,
        "Handler": core.BaseCallbackHandler,
        "FakeListLLM": core.FakeListLLM,
        "FakeChat": core.FakeMessagesListChatModel,
        "AIMessage": core.AIMessage,
        "ChatPromptTemplate": core.ChatPromptTemplate,
        "PromptTemplate": core.PromptTemplate,
        "tool": tools.tool,
    }


def echo_tool(ns: dict[str, Any]) -> Any:
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    return ns["tool"](echo)


def recorder(ns: dict[str, Any]) -> Any:
    class Recorder(ns["Handler"]):
        def __init__(self) -> None:
            self.events: list[tuple[Any, ...]] = []

        def on_chain_start(self, serialized, inputs, **kw):
            self.events.append(("chain_start", kw.get("name")))

        def on_chain_end(self, outputs, **kw):
            self.events.append(("chain_end",))

        def on_llm_start(self, serialized, prompts, **kw):
            self.events.append(("llm_start",))

        def on_tool_start(self, serialized, input_str, **kw):
            self.events.append(("tool_start", input_str))

        def on_agent_action(self, action, **kw):
            self.events.append(("agent_action", action.tool, action.tool_input))

        def on_agent_finish(self, finish, **kw):
            self.events.append(("agent_finish", dict(finish.return_values)))

    return Recorder()


@pytest.mark.parametrize("how", ["constructor", "invoke"])
def test_initialize_agent_takes_callbacks_scoped_as_langchain_scopes_them(how):
    """Handlers given to the constructor see the executor's own run only; handlers
    given to invoke see every run below it too."""
    seen = {}
    for which in ("langchain", "ragline"):
        ns = lib(which)
        handler = recorder(ns)
        options = {"callbacks": [handler]} if how == "constructor" else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain's deprecation of initialize_agent
            executor = ns["agents"].initialize_agent(
                [echo_tool(ns)],
                ns["FakeListLLM"](responses=REACT_REPLIES),
                agent="zero-shot-react-description",
                **options,
            )
        config = {"callbacks": [handler]} if how == "invoke" else None
        output = executor.invoke({"input": "Say hi"}, config)
        seen[which] = (output, handler.events)
    assert seen["ragline"] == seen["langchain"]
    if how == "constructor":
        assert seen["ragline"][1] == [
            ("chain_start", "AgentExecutor"),
            ("agent_action", "echo", "hi"),
            ("agent_finish", {"output": "hi"}),
            ("chain_end",),
        ]


def tool_calling_executor(ns: dict[str, Any], **options: Any) -> Any:
    class Model(ns["FakeChat"]):
        def bind_tools(self, tools, **kwargs):
            return self

    call = {"name": "echo", "args": {"text": "x"}}
    replies = [ns["AIMessage"](content="", tool_calls=[{**call, "id": f"c{n}"}]) for n in range(4)]
    prompt = ns["ChatPromptTemplate"].from_messages(
        [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
    )
    echo = echo_tool(ns)
    agent = ns["agents"].create_tool_calling_agent(Model(responses=replies), [echo], prompt)
    return ns["agents"].AgentExecutor(agent=agent, tools=[echo], **options)


def react_executor(ns: dict[str, Any], **options: Any) -> Any:
    prompt = ns["PromptTemplate"].from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    llm = ns["FakeListLLM"](responses=[REACT_REPLIES[0]] * 4)
    echo = echo_tool(ns)
    agent = ns["agents"].create_react_agent(llm, [echo], prompt)
    return ns["agents"].AgentExecutor(agent=agent, tools=[echo], **options)


@pytest.mark.parametrize("build", [tool_calling_executor, react_executor])
@pytest.mark.parametrize("limit", [{"max_iterations": 2}, {"max_execution_time": 1e-9}])
def test_the_answer_when_a_limit_stops_the_agent_is_langchains(build, limit):
    theirs = build(lib("langchain"), **limit).invoke({"input": "go"})
    ours = build(lib("ragline"), **limit).invoke({"input": "go"})
    assert ours == theirs
    expected = {
        tool_calling_executor: "Agent stopped due to max iterations.",
        react_executor: "Agent stopped due to iteration limit or time limit.",
    }[build]
    assert ours["output"] == expected


def prompt_recorder(ns: dict[str, Any]) -> Any:
    class Prompts(ns["Handler"]):
        def __init__(self) -> None:
            self.prompts: list[list[str]] = []

        def on_llm_start(self, serialized, prompts, **kw):
            self.prompts.append(list(prompts))

    return Prompts()


STRUCTURED_REPLIES = [
    'Thought: add them\n```json\n{"action": "add", "action_input": {"a": 2, "b": 3}}\n```',
    '{"action": "Final Answer", "action_input": "5"}',
]


def structured_run(ns: dict[str, Any]) -> tuple[Any, ...]:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    adder = ns["tool"](add)
    prompt = ns["ChatPromptTemplate"].from_messages(
        [
            ("system", "Tools:\n{tools}\nNames: {tool_names}"),
            ("human", "{input}\n\n{agent_scratchpad}"),
        ]
    )
    llm = ns["FakeListLLM"](responses=STRUCTURED_REPLIES)
    agent = ns["agents"].create_structured_chat_agent(llm, [adder], prompt)
    executor = ns["agents"].AgentExecutor(
        agent=agent, tools=[adder], return_intermediate_steps=True
    )
    handler = prompt_recorder(ns)
    output = executor.invoke({"input": "2+3?"}, {"callbacks": [handler]})
    steps = [(a.tool, a.tool_input, a.log, o) for a, o in output.pop("intermediate_steps")]
    return output, steps, handler.prompts


@pytest.mark.parametrize("build", [tool_calling_executor, react_executor])
def test_a_runnable_agents_output_keys_and_run_are_langchains(build):
    """Over a Runnable agent LangChain's output keys are the agent's return values, none
    (so ``run()`` raises a ValueError), plus ``intermediate_steps`` when asked for;
    ``chain(inputs, return_only_outputs=True)`` still gives every output."""
    for options in [{}, {"return_intermediate_steps": True}]:
        theirs = build(lib("langchain"), max_iterations=1, **options)
        ours = build(lib("ragline"), max_iterations=1, **options)
        assert ours.agent.return_values == theirs.agent.return_values == []
        assert ours.output_keys == theirs.output_keys
        assert ours.input_keys == theirs.input_keys == []
        lc_outputs = theirs({"input": "go"}, return_only_outputs=True)
        outputs = ours({"input": "go"}, return_only_outputs=True)
        assert list(outputs) == list(lc_outputs)
        assert outputs["output"] == lc_outputs["output"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LangChain's run() is deprecated
            if options:  # one output key, the steps: run() gives them
                lc_steps = theirs.run(input="go")
                steps = ours.run(input="go")
                assert [a.tool for a, _ in steps] == [a.tool for a, _ in lc_steps] == ["echo"]
                continue
            with pytest.raises(ValueError) as lc_error:
                theirs.run("go")
        with pytest.raises(ValueError, match=r"exactly one output key.*\[\]"):
            ours.run("go")
        with pytest.raises(ValueError, match=r"exactly one output key"):
            asyncio.run(ours.arun("go"))
        assert "exactly one output key" in str(lc_error.value)
    assert theirs.output_keys == ["intermediate_steps"]


def test_initialize_agent_openai_functions_keys_are_langchains():
    """LangChain's initialize_agent builds an OpenAIFunctionsAgent there, whose keys are
    ``input`` / ``output``, so its executor's ``run()`` works."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in ["openai-functions", "openai-multi-functions"]:
            for which in ["langchain", "ragline"]:
                ns = lib(which)

                class Model(ns["FakeChat"]):
                    def bind_tools(self, tools, **kwargs):
                        return self

                model = Model(responses=[ns["AIMessage"](content="four")])
                executor = ns["agents"].initialize_agent([echo_tool(ns)], model, agent=kind)
                assert (executor.input_keys, executor.output_keys) == (["input"], ["output"])
            assert executor.run("2 + 2?") == "four"  # ragline's


def test_structured_chat_agent_sends_the_same_prompts_and_answers_the_same():
    theirs = structured_run(lib("langchain"))
    ours = structured_run(lib("ragline"))
    assert ours == theirs
    output, steps, prompts = ours
    assert output == {"input": "2+3?", "output": "5"}
    assert steps == [("add", {"a": 2, "b": 3}, STRUCTURED_REPLIES[0], 5)]
    assert prompts[0][0].startswith(
        "System: Tools:\nadd(a: int, b: int) -> int - Add two numbers., args: "
        "{'a': {'title': 'A', 'type': 'integer'}, 'b': {'title': 'B', 'type': 'integer'}}"
    )


@pytest.mark.parametrize(
    "reply",
    [
        '{"action": "Final Answer", "action_input": {"city": "Rome"}}',
        '```json\n{"action": "search", "action_input": "Etna"}\n```',
        '{"action": "search"}',
        '{"action": "search", "action_input": null}',
        '[{"action": "a", "action_input": "x"}, {"action": "b", "action_input": "y"}]',
        '{"action": "add", "action_input": 1}',
        '{"action": "Final Answer", "action_input": 42}',
        "no json here",
        '{"action_input": "no action"}',
        "```json\n{broken\n```",
    ],
)
def test_json_agent_output_parser_parses_as_langchains(reply):
    def outcome(parser: Any) -> Any:
        try:
            result = parser.parse(reply)
        except ValueError as err:  # both libraries' OutputParserException
            return ("error", type(err).__name__, str(err).split("\n")[0])
        fields = ("tool", "tool_input", "return_values", "log")
        return (type(result).__name__, *[getattr(result, f, None) for f in fields])

    assert outcome(agents.JSONAgentOutputParser()) == outcome(LCJSONAgentOutputParser())


def subclasses(ns: dict[str, Any]) -> tuple[type, type]:
    """Two AgentExecutor subclasses as programs write them (seed 000, section 8): one
    wraps the whole run in ``_call`` with a retry, one watches ``_take_next_step``."""

    class Retrying(ns["agents"].AgentExecutor):
        attempts: int = 0

        def _call(self, inputs, run_manager=None):
            for attempt in range(2):
                self.attempts += 1
                try:
                    return super()._call(inputs, run_manager)
                except ValueError:
                    if run_manager:
                        run_manager.on_text(f"attempt {attempt + 1} failed")
            return {"output": "fallback"}

    class Watching(ns["agents"].AgentExecutor):
        rounds: list[int] = []  # noqa: RUF012 - both libraries copy it per instance

        def _take_next_step(
            self, name_to_tool_map, color_mapping, inputs, intermediate_steps, run_manager=None
        ):
            self.rounds.append(len(intermediate_steps))
            result = super()._take_next_step(
                name_to_tool_map, color_mapping, inputs, intermediate_steps, run_manager
            )
            if isinstance(result, list):
                self.rounds.append(-len(result))
            return result

    return Retrying, Watching


def text_recorder(ns: dict[str, Any]) -> Any:
    handler = recorder(ns)

    def on_text(text, **kw):
        handler.events.append(("text", text))

    handler.on_text = on_text
    return handler


def react_agent(ns: dict[str, Any], replies: list[str]) -> tuple[Any, Any]:
    prompt = ns["PromptTemplate"].from_template("{tools} {tool_names} {input} {agent_scratchpad}")
    echo = echo_tool(ns)
    return ns["agents"].create_react_agent(
        ns["FakeListLLM"](responses=replies), [echo], prompt
    ), echo


@pytest.mark.parametrize("call", ["invoke", "__call__"])
def test_an_executor_subclass_that_overrides_call_has_it_called(call):
    seen = {}
    for which in ("langchain", "ragline"):
        ns = lib(which)
        retrying, _ = subclasses(ns)
        assert issubclass(retrying, ns["agents"].AgentExecutor)
        agent, echo = react_agent(ns, ["no action here", *REACT_REPLIES])
        executor = retrying(agent=agent, tools=[echo])
        handler = text_recorder(ns)
        if call == "invoke":
            output = executor.invoke({"input": "Say hi"}, {"callbacks": [handler]})
        else:
            output = executor({"input": "Say hi"}, callbacks=[handler])
        events = [e for e in handler.events if e[0] in ("chain_start", "chain_end", "text")]
        seen[which] = (output, executor.attempts, events)
    assert seen["ragline"] == seen["langchain"]
    output, attempts, events = seen["ragline"]
    assert attempts == 2 and ("text", "attempt 1 failed") in events


def test_an_executor_subclass_that_overrides_take_next_step_has_it_called():
    seen = {}
    for which in ("langchain", "ragline"):
        ns = lib(which)
        _, watching = subclasses(ns)
        agent, echo = react_agent(ns, REACT_REPLIES)
        executor = watching(agent=agent, tools=[echo])
        seen[which] = (executor.invoke({"input": "Say hi"}), executor.rounds)
    assert seen["ragline"] == seen["langchain"]
    assert seen["ragline"][1] == [0, -1, 1]


def test_an_agent_executor_is_a_chain():
    assert issubclass(lc_agents.AgentExecutor, LCChain)
    assert issubclass(agents.AgentExecutor, chains.Chain)


# ---- the agents' parsers, scratchpads and schema objects -----------------------------------
def agent_parts(library: str) -> dict[str, Any]:
    if library == "langchain":
        from langchain_classic.agents import AgentType as LCAgentType
        from langchain_classic.agents import format_scratchpad as lc_pad
        from langchain_classic.agents.format_scratchpad.openai_tools import (
            format_to_openai_tool_messages as lc_openai_tool_messages,
        )
        from langchain_classic.agents.mrkl.output_parser import MRKLOutputParser as LCMRKL
        from langchain_classic.agents.output_parsers import (
            ReActSingleInputOutputParser as LCReAct,
        )
        from langchain_classic.agents.output_parsers import ToolsAgentOutputParser as LCTools
        from langchain_core import agents as lc_schema

        return {
            "ReAct": LCReAct,
            "MRKL": LCMRKL,
            "Tools": LCTools,
            "format_log_to_str": lc_pad.format_log_to_str,
            "format_to_tool_messages": lc_pad.format_to_tool_messages,
            "format_to_openai_tool_messages": lc_openai_tool_messages,
            "format_to_openai_function_messages": lc_pad.format_to_openai_function_messages,
            "AgentAction": lc_schema.AgentAction,
            "AgentActionMessageLog": lc_schema.AgentActionMessageLog,
            "AgentStep": lc_schema.AgentStep,
            "AgentType": LCAgentType,
            "AIMessage": lc_messages.AIMessage,
        }
    return {
        "ReAct": agents.ReActSingleInputOutputParser,
        "MRKL": agents.MRKLOutputParser,
        "Tools": agents.ToolsAgentOutputParser,
        "format_log_to_str": agents.format_log_to_str,
        "format_to_tool_messages": agents.format_to_tool_messages,
        "format_to_openai_tool_messages": agents.format_to_openai_tool_messages,
        "format_to_openai_function_messages": agents.format_to_openai_function_messages,
        "AgentAction": agents.AgentAction,
        "AgentActionMessageLog": agents.AgentActionMessageLog,
        "AgentStep": agents.AgentStep,
        "AgentType": agents.AgentType,
        "AIMessage": core.AIMessage,
    }


def observed(value: Any) -> Any:
    """Agent objects and messages by their observable fields."""
    if isinstance(value, list):
        return [observed(item) for item in value]
    if hasattr(value, "tool"):
        return (type(value).__name__, value.tool, value.tool_input, value.log,
                getattr(value, "tool_call_id", None))  # fmt: skip
    if hasattr(value, "return_values"):
        return (type(value).__name__, value.return_values, value.log)
    if hasattr(value, "content"):
        return (type(value).__name__, value.content, getattr(value, "tool_call_id", None),
                getattr(value, "name", None), dict(value.additional_kwargs))  # fmt: skip
    return value


def parsed(parser: Any, reply: Any) -> Any:
    try:
        return observed(parser.invoke(reply))
    except ValueError as err:  # LangChain adds a troubleshooting link after the message
        return ("error", type(err).__name__, str(err).split("\nFor troubleshooting")[0])


REACT_TEXTS = [
    " I should search.\nAction: search\nAction Input: Etna",
    " I know.\nFinal Answer: Sicily",
    'Thought: x\nAction: search\nAction Input: "Etna"\n',
    "nothing",
    "Action: search",
    "Action: s\nAction Input: q\nFinal Answer: x",
]


@pytest.mark.parametrize("text", REACT_TEXTS)
@pytest.mark.parametrize("parser", ["ReAct", "MRKL"])
def test_react_parsers_parse_as_langchains(parser, text):
    theirs = parsed(agent_parts("langchain")[parser](), text)
    assert parsed(agent_parts("ragline")[parser](), text) == theirs


def tool_scenario(ns: dict[str, Any]) -> list[Any]:
    calls = [
        {"name": "search", "args": {"q": "Etna"}, "id": "c1"},
        {"name": "calc", "args": {"x": 1}, "id": "c2"},
    ]
    actions = ns["Tools"]().invoke(ns["AIMessage"](content="", tool_calls=calls))
    function_log = ns["AgentActionMessageLog"](
        tool="search",
        tool_input="Etna",
        log="x",
        message_log=[
            ns["AIMessage"](
                content="",
                additional_kwargs={"function_call": {"name": "search", "arguments": "{}"}},
            )
        ],
    )
    react_steps = [(ns["AgentAction"]("search", "Etna", REACT_TEXTS[0]), "Sicily")]
    return [
        actions,
        ns["Tools"]().invoke(ns["AIMessage"](content="Done")),
        ns["format_to_tool_messages"]([(a, f"seen {i}") for i, a in enumerate(actions)]),
        ns["format_to_openai_tool_messages"]([(a, {"r": i}) for i, a in enumerate(actions)]),
        ns["format_to_openai_function_messages"]([(function_log, "Sicily")]),
        ns["format_to_openai_function_messages"]([(ns["AgentAction"]("s", "E", "log"), "x")]),
        ns["format_log_to_str"](react_steps),
        ns["format_log_to_str"](react_steps, observation_prefix="Obs: ", llm_prefix="T: "),
        ns["AgentStep"](action=ns["AgentAction"]("t", "i", "l"), observation="o").observation,
        sorted(kind.value for kind in ns["AgentType"]),
    ]


def test_tool_agent_parser_scratchpads_and_agent_types_match_langchains():
    theirs = observed(tool_scenario(agent_parts("langchain")))
    ours = observed(tool_scenario(agent_parts("ragline")))
    for index, (mine, expected) in enumerate(zip(ours, theirs, strict=True)):
        assert mine == expected, index


# ---- the executor's loop: unknown tools, unparsable replies, iter and stream ---------------
def loop_executor(ns: dict[str, Any], replies: list[str], **options: Any) -> Any:
    agent, echo = react_agent(ns, replies)
    return ns["agents"].AgentExecutor(
        agent=agent, tools=[echo], return_intermediate_steps=True, **options
    )


def without_link(value: Any) -> Any:
    """Observable fields, LangChain's troubleshooting link cut from texts."""
    if isinstance(value, dict):
        return {k: without_link(v) for k, v in value.items() if k != "messages"}
    if isinstance(value, (list, tuple)):
        return [without_link(item) for item in value]
    if hasattr(value, "action"):  # an AgentStep
        return ("step", without_link(value.action), value.observation)
    if hasattr(value, "tool"):
        return (value.tool, value.tool_input, without_link(value.log))
    if isinstance(value, str):
        return value.split("\nFor troubleshooting")[0]
    return value


DONE = " I know.\nFinal Answer: done"
ECHO = " x\nAction: echo\nAction Input: hi"
LOOP_CASES = {
    "unknown tool": ([" x\nAction: nope\nAction Input: a", DONE], {}),
    "parse error, True": (["garbage", DONE], {"handle_parsing_errors": True}),
    "parse error, text": (["garbage", DONE], {"handle_parsing_errors": "Try again"}),
    "parse error, function": (
        ["garbage", DONE],
        {"handle_parsing_errors": lambda err: "fn:" + str(err)[:20]},
    ),
}


@pytest.mark.parametrize("case", sorted(LOOP_CASES))
def test_the_loop_answers_unknown_tools_and_bad_replies_as_langchains(case):
    replies, options = LOOP_CASES[case]
    theirs = loop_executor(lib("langchain"), replies, **options).invoke({"input": "q"})
    ours = loop_executor(lib("ragline"), replies, **options).invoke({"input": "q"})
    assert without_link(ours) == without_link(theirs)


def test_an_unparsable_reply_raises_a_value_error_in_both():
    for which in ("langchain", "ragline"):
        with pytest.raises(ValueError, match="handle_parsing_errors=True"):
            loop_executor(lib(which), ["garbage"]).invoke({"input": "q"})


@pytest.mark.parametrize("how", ["iter", "stream"])
def test_iter_and_stream_give_langchains_chunks(how):
    def chunks(which: str) -> list[Any]:
        executor = loop_executor(lib(which), [ECHO, DONE])
        run = executor.iter if how == "iter" else executor.stream
        return without_link(list(run({"input": "q"})))

    assert chunks("ragline") == chunks("langchain")

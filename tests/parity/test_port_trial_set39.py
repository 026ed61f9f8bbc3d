"""Parity: differences found by the thirty-ninth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# eda_zero_shot_prefix_suffix_memory, recon_conversational_react_rewrapped_executor,
# show_map_chat_conversational_token_callback: an agent built by initialize_agent (or
# from_llm_and_tools) had no llm_chain, so agent.agent.llm_chain.prompt / .llm failed.
_AGENT_LLM_CHAIN = """
from langchain_classic.agents import AgentType, Tool, initialize_agent
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.language_models import FakeListLLM

llm = FakeListLLM(
    responses=[" I know.\\nFinal Answer: 4", "Thought: Do I need to use a tool? No\\nAI: hi"]
)
tools = [Tool(name="calc", func=lambda q: "4", description="math")]
suffix = "History: {chat_history}\\nQuestion: {input}\\n{agent_scratchpad}"
zero = initialize_agent(tools, llm, agent=AgentType.ZERO_SHOT_REACT_DESCRIPTION,
                        agent_kwargs={"suffix": suffix},
                        memory=ConversationBufferMemory(memory_key="chat_history"))
chain = zero.agent.llm_chain
print(type(chain).__name__, chain.prompt.input_variables, chain.llm is llm)
print(chain.prompt is zero.agent.llm_chain.prompt, chain.output_key)
print(zero.run("2+2?"))
convo = initialize_agent(tools, llm, agent=AgentType.CONVERSATIONAL_REACT_DESCRIPTION,
                         memory=ConversationBufferMemory(memory_key="chat_history"))
convo_prompt = convo.agent.llm_chain.prompt
print(type(convo.agent).__name__, convo_prompt.input_variables, convo.agent.ai_prefix)
print(convo.run("hello"))
"""


def test_an_initialized_agent_has_an_llm_chain_with_its_prompt_and_model() -> None:
    langchain_printed = _printed(_AGENT_LLM_CHAIN)
    assert langchain_printed.count("\n") == 5
    assert _printed(_ported(_AGENT_LLM_CHAIN)) == langchain_printed


# supply_chain_structured_chat_tools, house_price_structured_chat_basetool_memory:
# initialize_agent(agent=STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION) was refused.
_STRUCTURED_CHAT = """
from langchain_classic.agents import AgentType, Tool, initialize_agent
from langchain_classic.memory import ConversationBufferMemory
from langchain_community.chat_models.fake import FakeListChatModel
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field


class Area(BaseModel):
    width: float = Field(description="width in m")
    depth: float = Field(description="depth in m")


class AreaTool(BaseTool):
    name: str = "area"
    description: str = "Area of a room."
    args_schema: type = Area

    def _run(self, width: float, depth: float) -> str:
        return f"{width * depth:.1f} m2"


stock = Tool(name="stock", func=lambda q: f"{q.strip()}: 8 units", description="Stock of a product")
llm = FakeListChatModel(responses=[
    'Thought: size first\\nAction:\\n```\\n'
    '{"action": "area", "action_input": {"width": 3, "depth": 4.5}}\\n```',
    'Action:\\n```json\\n{"action": "stock", "action_input": "Emasol"}\\n```',
    'I will answer without a blob',
    '```\\n{"action": "Final Answer", "action_input": "13.5 m2 and 8 units"}\\n```',
])
memory = ConversationBufferMemory(memory_key="chat_history", return_messages=True)
kind = AgentType.STRUCTURED_CHAT_ZERO_SHOT_REACT_DESCRIPTION
agent = initialize_agent([AreaTool(), stock], llm, agent=kind, memory=memory, verbose=True,
                         return_intermediate_steps=True)
print(type(agent).__name__, agent.agent.llm_chain.prompt.input_variables, agent.input_keys)
result = agent.invoke({"input": "room size and stock?"})
print(sorted(result), repr(result["output"]))
for action, observation in result["intermediate_steps"]:
    print(action.tool, action.tool_input, repr(observation))
print(agent.invoke({"input": "again"})["output"])
print([m.content for m in memory.chat_memory.messages])
"""


def test_initialize_agent_builds_the_structured_chat_agent_as_langchain() -> None:
    langchain_printed = _printed(_STRUCTURED_CHAT)
    assert "Observation: \x1b[" in langchain_printed
    assert _printed(_ported(_STRUCTURED_CHAT)) == langchain_printed


# eda_zero_shot_prefix_suffix_memory, react_executor_take_next_step_override: the
# zero-shot agent's observation for a reply without "Action:" is LangChain's MRKL text
# (no closing quote), which the model, the verbose log and intermediate_steps all show.
_MRKL_MISSING_ACTION = """
from langchain_classic.agents import AgentType, Tool, initialize_agent
from langchain_classic.agents.mrkl.output_parser import MRKLOutputParser
from langchain_classic.agents.output_parsers import ReActSingleInputOutputParser
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListLLM

for parser in (MRKLOutputParser(), ReActSingleInputOutputParser()):
    for text in ("no idea", "Action: calc"):
        try:
            parser.parse(text)
        except OutputParserException as err:
            print(type(parser).__name__, repr(err.observation), err.send_to_llm)
llm = FakeListLLM(responses=["hmm", " I know.\\nFinal Answer: 4"])
tools = [Tool(name="calc", func=lambda q: "4", description="math")]
agent = initialize_agent(tools, llm, agent=AgentType.ZERO_SHOT_REACT_DESCRIPTION, verbose=True,
                         handle_parsing_errors=True, return_intermediate_steps=True)
result = agent.invoke({"input": "2+2?"})
print([(a.tool, a.tool_input, o) for a, o in result["intermediate_steps"]])
"""


def test_the_zero_shot_agents_missing_action_observation_is_langchains() -> None:
    langchain_printed = _printed(_MRKL_MISSING_ACTION)
    assert "Missing 'Action:' after 'Thought:\n" in langchain_printed
    assert _printed(_ported(_MRKL_MISSING_ACTION)) == langchain_printed


# compile_agent_iter_include_run_info, iris_structured_chat_iter_progress,
# instagram_story_openai_tools_stream: AgentExecutor.iter / .stream with verbose=True
# printed "Entering new AgentExecutor chain" where LangChain's iterator (which starts the
# run with the config's run_name, None here) prints "Entering new None chain", and
# yielded the output before "Finished chain" where LangChain yields it after the run's end.
_ITER_AND_STREAM = """
from langchain_classic.agents import AgentExecutor, Tool, ZeroShotAgent
from langchain_core.language_models import FakeListLLM

replies = [" look\\nAction: calc\\nAction Input: 2+2", " I know.\\nFinal Answer: 4"]
tools = [Tool(name="calc", func=lambda q: "4", description="math")]


def executor():
    agent = ZeroShotAgent.from_llm_and_tools(FakeListLLM(responses=replies), tools)
    return AgentExecutor.from_agent_and_tools(agent=agent, tools=tools, verbose=True)


for step in executor().iter({"input": "2+2?"}, include_run_info=True):
    print("ITER", sorted(step))
for chunk in executor().stream({"input": "2+2?"}):
    print("STREAM", sorted(chunk))
for chunk in executor().stream({"input": "2+2?"}, {"run_name": "calc-agent"}):
    print("NAMED", sorted(chunk))
print(executor().invoke({"input": "2+2?"})["output"])
"""


def test_iter_and_stream_name_the_run_and_yield_the_output_as_langchain() -> None:
    langchain_printed = _printed(_ITER_AND_STREAM)
    assert langchain_printed.count("Entering new None chain") == 2
    assert _printed(_ported(_ITER_AND_STREAM)) == langchain_printed


# jobcompass_zero_shot_agent_kwargs_prompt: initialize_agent(..., agent_kwargs={"prompt":
# ...}) raised TypeError (prompt given twice); LangChain's agent drops the keyword and
# keeps the prompt it builds. ragline does the same, and warns.
_AGENT_KWARGS_PROMPT = """
from langchain_classic.agents import AgentType, Tool, initialize_agent
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

mine = PromptTemplate.from_template("Query: {query}")
tools = [Tool(name="calc", func=lambda q: "4", description="math")]
for kind, reply in ((AgentType.ZERO_SHOT_REACT_DESCRIPTION, " I know.\\nFinal Answer: 4"),
                    (AgentType.CONVERSATIONAL_REACT_DESCRIPTION, "Use a tool? No\\nAI: 4")):
    llm = FakeListLLM(responses=[reply])
    agent = initialize_agent(tools, llm, agent=kind, agent_kwargs={"prompt": mine})
    prompt = agent.agent.llm_chain.prompt
    answer = agent.invoke({"input": "2+2?", "chat_history": ""})["output"]
    print(kind.value, prompt.input_variables, prompt is mine, answer)
"""


def test_a_prompt_in_agent_kwargs_is_dropped_as_langchain_drops_it() -> None:
    import pytest

    langchain_printed = _printed(_AGENT_KWARGS_PROMPT)
    assert langchain_printed.count(" False 4\n") == 2
    ported = _ported(_AGENT_KWARGS_PROMPT)
    assert _printed(ported) == langchain_printed
    with pytest.warns(UserWarning, match="ignores prompt="):
        exec(compile(ported, "<program>", "exec"), {"__name__": "__program__"})


COVERS = {"agents.LLMSingleActionAgent", "core.prompts.BaseChatPromptTemplate"}

# oraclegpt_llm_single_action_chat_prompt, tesla_llm_single_action_iteration_fallback:
# LLMSingleActionAgent and BaseChatPromptTemplate were missing. A program's own chat
# prompt writes the scratchpad from intermediate_steps; the agent runs its LLMChain with
# the inputs, the steps and its stop words, and its parser reads the reply.
_SINGLE_ACTION_CHAT_PROMPT = """
import asyncio
import re

from langchain_classic.agents import AgentExecutor, AgentOutputParser, LLMSingleActionAgent, Tool
from langchain_classic.chains import LLMChain
from langchain_classic.memory import ConversationBufferWindowMemory
from langchain_classic.prompts import BaseChatPromptTemplate
from langchain_community.chat_models.fake import FakeListChatModel
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import HumanMessage, SystemMessage

TEMPLATE = "Tools: {tools}\\nPast:\\n{history}\\nQuestion: {input}\\n{agent_scratchpad}"


class StepsPrompt(BaseChatPromptTemplate):
    template: str
    tools: list

    def format_messages(self, **kwargs):
        steps = kwargs.pop("intermediate_steps")
        kwargs["agent_scratchpad"] = "".join(
            f"{a.log}\\nObservation: {o}\\nThought: " for a, o in steps)
        kwargs["tools"] = ", ".join(t.name for t in self.tools)
        return [SystemMessage(content="Be brief."),
                HumanMessage(content=self.template.format(**kwargs))]


class Parser(AgentOutputParser):
    def parse(self, text):
        if "Final Answer:" in text:
            return AgentFinish({"output": text.split("Final Answer:")[-1].strip()}, text)
        match = re.search(r"Action: (.*?)\\nAction Input: (.*)", text, re.DOTALL)
        return AgentAction(match.group(1).strip(), match.group(2).strip('" '), text)


class Stops(BaseCallbackHandler):
    def on_chat_model_start(self, serialized, messages, **kwargs):
        print("STOP", kwargs["invocation_params"].get("stop"), len(messages[0]))


tools = [Tool(name="Search", func=lambda q: "found " + q, description="search")]
prompt = StepsPrompt(template=TEMPLATE, tools=tools,
                     input_variables=["input", "intermediate_steps", "history"])
print(type(prompt.format_prompt(input="q", history="", intermediate_steps=[])).__name__)
print(repr(prompt.format(input="q", history="h", intermediate_steps=[])))
value = prompt.invoke({"input": "q", "history": "", "intermediate_steps": []})
print(type(value).__name__, [type(m).__name__ for m in value.to_messages()])
print(repr(asyncio.run(prompt.aformat(input="a", history="", intermediate_steps=[]))))
try:
    type("NoMessages", (BaseChatPromptTemplate,), {})(input_variables=["x"])
except TypeError:
    print("abstract format_messages")
llm = FakeListChatModel(responses=[
    'Thought: look\\nAction: Search\\nAction Input: "vacuum"',
    "Thought: done\\nFinal Answer: Tune vacuum.",
    "Final Answer: You asked about vacuum.",
    "Final Answer: again",
])
agent = LLMSingleActionAgent(llm_chain=LLMChain(llm=llm, prompt=prompt),
                             output_parser=Parser(), stop=["\\nObservation:"],
                             allowed_tools=["Search"])
print(sorted(agent.input_keys), agent.return_values, agent.tool_run_logging_kwargs())
print(agent.get_allowed_tools())
executor = AgentExecutor.from_agent_and_tools(
    agent=agent, tools=tools, verbose=True, memory=ConversationBufferWindowMemory(k=1),
    return_intermediate_steps=True)
print(sorted(executor.input_keys), executor.output_keys)
print(executor.invoke({"input": "How to vacuum?"}, {"callbacks": [Stops()]}))
print(executor.invoke({"input": "What did I ask?"})["output"])
print(asyncio.run(executor.ainvoke({"input": "Again?"}))["output"])
print(executor.memory.load_memory_variables({}))
"""


def test_llm_single_action_agent_with_a_chat_prompt_runs_as_langchains() -> None:
    langchain_printed = _printed(_SINGLE_ACTION_CHAT_PROMPT)
    assert "STOP ['\\nObservation:'] 2" in langchain_printed
    assert "Tune vacuum." in langchain_printed
    assert _printed(_ported(_SINGLE_ACTION_CHAT_PROMPT)) == langchain_printed


# tesla_llm_single_action_iteration_fallback: a StringPromptTemplate prompt, a completion
# model, max_iterations with return_intermediate_steps, and the stopped answer.
_SINGLE_ACTION_ITERATION_LIMIT = """
from langchain_classic.agents import AgentExecutor, LLMSingleActionAgent, Tool
from langchain_classic.agents.mrkl.output_parser import MRKLOutputParser
from langchain_classic.chains.llm import LLMChain
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import StringPromptTemplate


class Prompt(StringPromptTemplate):
    def format(self, **kwargs):
        steps = kwargs.pop("intermediate_steps")
        print("steps", len(steps))
        return f"Q: {kwargs['input']}\\n" + "".join(f"{a.log}\\nObs: {o}\\n" for a, o in steps)


llm = FakeListLLM(responses=[
    "Action: price\\nAction Input: Model 3", "Final Answer: 23k",
    "Action: price\\nAction Input: Model X", "Action: price\\nAction Input: X",
])
tools = [Tool(name="price", func=lambda q: "price of " + q, description="prices")]
prompt = Prompt(input_variables=["input", "intermediate_steps"])
agent = LLMSingleActionAgent(llm_chain=LLMChain(llm=llm, prompt=prompt),
                             output_parser=MRKLOutputParser(), stop=[])
print(agent.input_keys, agent.tool_run_logging_kwargs())
executor = AgentExecutor.from_agent_and_tools(agent=agent, tools=tools, max_iterations=2,
                                              return_intermediate_steps=True)
for question in ["Model 3?", "Model X?"]:
    result = executor.invoke({"input": question})
    print(result["output"], [(a.tool, a.tool_input, o) for a, o in result["intermediate_steps"]])
"""


def test_llm_single_action_agent_stops_at_the_iteration_limit_as_langchains() -> None:
    langchain_printed = _printed(_SINGLE_ACTION_ITERATION_LIMIT)
    assert "Agent stopped due to iteration limit or time limit." in langchain_printed
    assert _printed(_ported(_SINGLE_ACTION_ITERATION_LIMIT)) == langchain_printed


# review of 2d19c66: the agent's llm_chain existed but the agent never read it, so a prompt
# or model set on it after initialize_agent was silently ignored (LangChain's agent runs it).
_LLM_CHAIN_REASSIGNED = """
from langchain_classic.agents import AgentType, Tool, initialize_agent
from langchain_classic.chains import LLMChain
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Prompts(BaseCallbackHandler):
    def on_llm_start(self, serialized, prompts, **kwargs):
        print("PROMPT", repr(prompts[0][:40]))


tools = [Tool(name="calc", func=lambda q: "4", description="math")]
agent = initialize_agent(tools, FakeListLLM(responses=[" I know.\\nFinal Answer: 4"] * 3),
                         agent=AgentType.ZERO_SHOT_REACT_DESCRIPTION)
agent.agent.llm_chain.prompt = PromptTemplate.from_template(
    "OTHER {topic} {input} {agent_scratchpad}")
print(sorted(agent.input_keys))
print(agent.invoke({"input": "2+2?", "topic": "sums"}, {"callbacks": [Prompts()]})["output"])
agent.agent.llm_chain.llm = FakeListLLM(responses=[" I know.\\nFinal Answer: 5"])
print(agent.invoke({"input": "2+2?", "topic": "sums"}, {"callbacks": [Prompts()]})["output"])
new_prompt = PromptTemplate.from_template("NEW {input} {agent_scratchpad}")
agent.agent.llm_chain = LLMChain(llm=FakeListLLM(responses=["Final Answer: 6"]), prompt=new_prompt)
print(sorted(agent.input_keys))
print(agent.invoke({"input": "2+2?"}, {"callbacks": [Prompts()]})["output"])
"""


def test_a_prompt_or_model_set_on_the_agents_llm_chain_is_used_as_langchain() -> None:
    langchain_printed = _printed(_LLM_CHAIN_REASSIGNED)
    assert "PROMPT 'OTHER sums 2+2? '\n4\n" in langchain_printed
    assert langchain_printed.endswith("PROMPT 'NEW 2+2? '\n6\n")
    assert _printed(_ported(_LLM_CHAIN_REASSIGNED)) == langchain_printed


# personal_agent_zero_shot_subclass_prompt: a ZeroShotAgent subclass's from_llm_and_tools
# built LLMChain(llm=..., prompt=..., callback_manager=callback_manager), LangChain's
# deprecated spelling of callbacks; ragline refused the keyword (TypeError).
_CALLBACK_MANAGER_KEYWORD = """
from langchain_classic.chains import ConversationChain, LLMChain
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Starts(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("START", kwargs.get("name"), sorted(inputs))

    def on_llm_start(self, serialized, prompts, **kwargs):
        print("LLM", prompts)


prompt = PromptTemplate.from_template("Say {word}")
chain = LLMChain(llm=FakeListLLM(responses=["hi", "yo"]), prompt=prompt, callback_manager=None)
print(chain.callbacks, chain.callback_manager, chain.run("a"))
chain = LLMChain(llm=FakeListLLM(responses=["hi", "yo"]), prompt=prompt,
                 callback_manager=CallbackManager([Starts()]))
print(type(chain.callbacks).__name__, chain.callback_manager)
print(chain.invoke({"word": "hi"}))
talk = ConversationChain(llm=FakeListLLM(responses=["ok"]), memory=ConversationBufferMemory(),
                         callback_manager=CallbackManager([Starts()]))
print(talk.predict(input="hello"))
try:
    LLMChain(llm=FakeListLLM(responses=["x"]), prompt=prompt,
             callback_manager=CallbackManager([]), callbacks=[Starts()])
except ValueError:
    print("both refused")
"""


def test_chain_takes_callback_manager_as_callbacks_as_langchain() -> None:
    import warnings

    import pytest

    langchain_printed = _printed(_CALLBACK_MANAGER_KEYWORD)
    assert "START LLMChain ['word']" in langchain_printed
    assert langchain_printed.endswith("both refused\n")
    ported = _ported(_CALLBACK_MANAGER_KEYWORD)
    assert _printed(ported) == langchain_printed
    with warnings.catch_warnings(), pytest.warns(DeprecationWarning, match="callback_manager"):
        warnings.simplefilter("ignore", UserWarning)
        exec(compile(ported, "<program>", "exec"), {"__name__": "__program__"})


# react_executor_take_next_step_override, rich_react_agent_callback_memory: the callback
# managers imported from langchain_classic.callbacks.manager (a re-export of
# langchain_core.callbacks.manager) were unmapped, so the ported programs kept LangChain's.
_CLASSIC_CALLBACK_MANAGER = """
from langchain_classic.callbacks.manager import CallbackManager, CallbackManagerForChainRun
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM


class Printer(BaseCallbackHandler):
    def on_llm_start(self, serialized, prompts, **kwargs):
        print("llm start", prompts)

    def on_llm_end(self, response, **kwargs):
        print("llm end", response.generations[0][0].text)


llm = FakeListLLM(responses=["pong"], callbacks=CallbackManager(handlers=[Printer()]))
print(llm.invoke("ping"))
print(CallbackManagerForChainRun.__name__)
"""


def test_the_classic_callback_manager_module_ports_to_raglines() -> None:
    ported = _ported(_CLASSIC_CALLBACK_MANAGER)
    assert "langchain" not in ported
    langchain_printed = _printed(_CLASSIC_CALLBACK_MANAGER)
    expected = "llm start ['ping']\nllm end pong\npong\nCallbackManagerForChainRun\n"
    assert langchain_printed == expected
    assert _printed(ported) == langchain_printed

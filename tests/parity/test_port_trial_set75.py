"""Parity: differences found by the seventy-fifth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "agents.SelfAskOutputParser",
    "agents.create_self_ask_with_search_agent",
    "core.callbacks.Callbacks",
}

# structured_output_agent (set 75, p08): a Runnable agent whose own parser finishes with
# several return values ({"answer": ..., "sources": ...}), invoked with
# return_only_outputs=True. LangChain gives the finish's keys; ragline kept only "output",
# so the program printed {}.
_FINISH_WITH_SEVERAL_KEYS = """
import asyncio

from langchain_classic.agents import AgentExecutor
from langchain_core.agents import AgentFinish
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import Tool

tools = [Tool(name="t", func=lambda q: q, description="echo")]
agent = RunnableLambda(lambda x: AgentFinish({"answer": "yes", "sources": [3]}, "log"))
executor = AgentExecutor(agent=agent, tools=tools)
steps = AgentExecutor(agent=agent, tools=tools, return_intermediate_steps=True)
print(executor.invoke({"input": "q"}, return_only_outputs=True))
print(executor({"input": "q"}, return_only_outputs=True))
print(executor.invoke({"input": "q"}))
print(steps.invoke({"input": "q"}, return_only_outputs=True))
print(asyncio.run(executor.ainvoke({"input": "q"}, return_only_outputs=True)))
print(sorted(executor.invoke({"input": "q"}, return_only_outputs=True, include_run_info=True)))
"""


def test_return_only_outputs_gives_every_key_of_the_agents_finish() -> None:
    langchain_printed = _printed(_FINISH_WITH_SEVERAL_KEYS)
    assert langchain_printed.startswith("{'answer': 'yes', 'sources': [3]}\n" * 2)
    assert _printed(_ported(_FINISH_WITH_SEVERAL_KEYS)) == langchain_printed


# handle_parsing_errors_guide (set 75, p15): a ReAct agent whose reply has no "Action:",
# run by an executor left at handle_parsing_errors=False; the program printed the error's
# class. LangChain's executor raises ValueError (not its OutputParserException); ragline's
# raised OutputParserException.
_UNHANDLED_PARSING_ERROR = """
import asyncio

from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import Tool

prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
tools = [Tool(name="search", func=lambda q: q, description="look it up")]
llm = FakeListLLM(responses=["I should search\\nAction Input: x"])
executor = AgentExecutor(agent=create_react_agent(llm, tools, prompt), tools=tools)
for call in (lambda: executor.invoke({"input": "q"}),
             lambda: asyncio.run(executor.ainvoke({"input": "q"}))):
    try:
        call()
    except OutputParserException as e:
        print("parser exception", type(e).__name__)
    except ValueError as e:
        print(type(e).__name__, isinstance(e.__cause__, OutputParserException))
"""


def test_an_unhandled_parsing_error_raises_a_value_error_as_langchains() -> None:
    langchain_printed = _printed(_UNHANDLED_PARSING_ERROR)
    assert langchain_printed == "ValueError True\n" * 2
    assert _printed(_ported(_UNHANDLED_PARSING_ERROR)) == langchain_printed


# zero_shot_agent_memory (set 75, p26): LangChain's memory-agent guide builds
# ZeroShotAgent(llm_chain=llm_chain, tools=tools, verbose=True); LangChain's agents drop
# keywords that are not their fields, ragline's refused them with a TypeError.
_AGENT_WITH_STRAY_KEYWORDS = """
from langchain_classic.agents import AgentExecutor, Tool, ZeroShotAgent
from langchain_classic.agents.agent import RunnableAgent
from langchain_classic.chains import LLMChain
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.agents import AgentFinish
from langchain_core.language_models import FakeListLLM
from langchain_core.runnables import RunnableLambda

tools = [Tool(name="Search", func=lambda q: "1.4 billion", description="search")]
prompt = ZeroShotAgent.create_prompt(
    tools, suffix="{chat_history}\\nQuestion: {input}\\n{agent_scratchpad}",
    input_variables=["input", "chat_history", "agent_scratchpad"],
)
llm = FakeListLLM(responses=["Action: Search\\nAction Input: India", "Final Answer: 1.4 billion"])
agent = ZeroShotAgent(llm_chain=LLMChain(llm=llm, prompt=prompt), tools=tools, verbose=True)
print(agent.allowed_tools, hasattr(agent, "tools"), hasattr(agent, "verbose"))
memory = ConversationBufferMemory(memory_key="chat_history")
chain = AgentExecutor.from_agent_and_tools(agent=agent, tools=tools, memory=memory)
print(chain.run(input="How many people live in India?"))
print(memory.buffer)
finish = RunnableLambda(lambda x: AgentFinish({"output": "done"}, ""))
print(AgentExecutor(agent=RunnableAgent(runnable=finish, name="x"), tools=tools).invoke({}))
"""


def test_an_agent_drops_keywords_that_are_not_its_fields_as_langchains() -> None:
    langchain_printed = _printed(_AGENT_WITH_STRAY_KEYWORDS)
    assert langchain_printed.startswith("None False False\n1.4 billion\n")
    assert _printed(_ported(_AGENT_WITH_STRAY_KEYWORDS)) == langchain_printed


# self_ask_with_search (set 75, p23): LangChain's self-ask agent guide,
# create_self_ask_with_search_agent(llm, tools, prompt) with one "Intermediate Answer"
# tool. ragline had neither it nor SelfAskOutputParser, so the port kept LangChain's
# function, which cannot take ragline's prompt.
_SELF_ASK = """
from langchain_classic.agents import AgentExecutor, create_self_ask_with_search_agent
from langchain_classic.agents.output_parsers import SelfAskOutputParser
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import Tool

answers = iter(["Novak Djokovic.", "Belgrade, Serbia."])
tools = [Tool(name="Intermediate Answer", func=lambda q: next(answers), description="answers")]
prompt = PromptTemplate.from_template(
    "Question: {input}\\nAre followup questions needed here:{agent_scratchpad}"
)
llm = FakeListLLM(responses=[
    " Yes.\\nFollow up: Who is the U.S. Open champion?",
    "\\nFollow up: Where is he from?",
    "\\nSo the final answer is: Belgrade",
    "I am not sure.",
])
agent = create_self_ask_with_search_agent(llm, tools, prompt)
executor = AgentExecutor(agent=agent, tools=tools, verbose=True,
                         return_intermediate_steps=True, handle_parsing_errors=True,
                         max_iterations=4)
result = executor.invoke({"input": "Hometown of the champion?"})
print(result["output"])
print([(a.tool, a.tool_input, o) for a, o in result["intermediate_steps"]])
parser = SelfAskOutputParser()
for text in ("Follow up: a\\nIntermediate answer: b\\nFollowup: c?", "So the final answer is: x",
             "x\\nSo the final answer is:y"):
    try:
        print(parser.parse(text))
    except ValueError as e:
        print(type(e).__name__)
for bad in ([], tools * 2, [Tool(name="search", func=len, description="d")]):
    try:
        create_self_ask_with_search_agent(llm, bad, prompt)
    except ValueError as e:
        print(type(e).__name__)
try:
    create_self_ask_with_search_agent(llm, tools, PromptTemplate.from_template("{input}"))
except ValueError as e:
    print(type(e).__name__)
"""


def test_the_self_ask_with_search_agent_runs_as_langchains() -> None:
    langchain_printed = _printed(_SELF_ASK)
    assert "Belgrade\n[('Intermediate Answer', 'Who is the U.S. Open champion?'," in (
        langchain_printed
    )
    assert _printed(_ported(_SELF_ASK)) == langchain_printed


# astream_events_cat_hiding (set 75, p17): a tool that takes ``callbacks: Callbacks`` and
# passes them to the model it calls. ``Callbacks`` (langchain_core.callbacks, .base and
# .manager) had no port-table row, so the port left LangChain's import in place.
_TOOL_TAKING_CALLBACKS = """
import asyncio

from langchain_core.callbacks import BaseCallbackHandler, Callbacks
from langchain_core.callbacks.base import Callbacks as BaseCallbacks
from langchain_core.callbacks.manager import Callbacks as ManagerCallbacks
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool

print(Callbacks == BaseCallbacks == ManagerCallbacks)
model = FakeListChatModel(responses=["socks, shoes"])


class Names(BaseCallbackHandler):
    def on_chat_model_start(self, serialized, messages, **kwargs):
        print("model start", kwargs.get("name"))


@tool
async def get_items(place: str, callbacks: Callbacks) -> str:
    '''Items in a place.'''
    chain = ChatPromptTemplate.from_messages([("human", "{place}")]) | model.with_config(
        {"run_name": "Items LLM", "callbacks": callbacks}
    )
    return "".join([c.content async for c in chain.astream({"place": place})])


def helper(callbacks: Callbacks = None) -> Callbacks:
    return callbacks


print(sorted(get_items.args))
print(asyncio.run(get_items.ainvoke({"place": "bed"}, {"callbacks": [Names()]})))
print(helper([]))
"""


def test_the_callbacks_type_ports_and_a_tool_taking_it_runs_as_langchains() -> None:
    langchain_printed = _printed(_TOOL_TAKING_CALLBACKS)
    assert langchain_printed == "True\n['place']\nmodel start Items LLM\nsocks, shoes\n[]\n"
    assert _printed(_ported(_TOOL_TAKING_CALLBACKS)) == langchain_printed

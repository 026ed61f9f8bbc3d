"""Parity: differences found by the sixtieth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# client_side_tools_agent_chain: an AgentExecutor piped between two RunnableLambdas and
# streamed. The last lambda gets the executor's chunks added together; LangChain's chunks
# are AddableDicts, so their "messages" lists join (tool call, tool result, answer).
_STREAMED_EXECUTOR_IN_A_CHAIN = """
from langchain_classic.agents import AgentExecutor
from langchain_classic.agents.format_scratchpad.openai_tools import (
    format_to_openai_tool_messages,
)
from langchain_classic.agents.output_parsers.openai_tools import OpenAIToolsAgentOutputParser
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool


@tool
def stock(item: str) -> str:
    \"\"\"How many of an item are in the shop.\"\"\"
    return f"{item}: 12 left"


model = FakeMessagesListChatModel(responses=[
    AIMessage("", id="a", tool_calls=[
        {"name": "stock", "args": {"item": "tea"}, "id": "t1", "type": "tool_call"}
    ]),
    AIMessage("Twelve packs of tea are left.", id="b"),
])
prompt = ChatPromptTemplate.from_messages([
    ("system", "You run a shop."),
    MessagesPlaceholder("chat_history"),
    MessagesPlaceholder("agent_scratchpad"),
])
agent = (
    {"chat_history": lambda x: x["chat_history"],
     "agent_scratchpad": lambda x: format_to_openai_tool_messages(x["intermediate_steps"])}
    | prompt | model | OpenAIToolsAgentOutputParser()
)
executor = AgentExecutor(agent=agent, tools=[stock])


def summary(chunk):
    return {key: chunk[key] for key in sorted(chunk) if key not in ("actions", "steps")}


chain = RunnableLambda(lambda x: x) | executor | RunnableLambda(summary)
for out in chain.stream({"chat_history": [HumanMessage("Any tea left?")]}):
    print(sorted(out))
    for message in out["messages"]:
        print(type(message).__name__, repr(message.content))
    print(out["output"])
for chunk in executor.stream({"chat_history": [HumanMessage("Any tea left?")]}):
    print(type(chunk).__name__, sorted(chunk))
"""


def test_a_streamed_executor_s_chunks_add_up_in_a_chain_as_langchains() -> None:
    langchain_printed = _printed(_STREAMED_EXECUTOR_IN_A_CHAIN)
    # the chain's output holds all three messages: the tool call, its result, the answer
    assert langchain_printed.startswith(
        "['messages', 'output']\nAIMessage ''\nFunctionMessage 'tea: 12 left'\n"
        "AIMessage 'Twelve packs of tea are left.'\n"
    )
    assert langchain_printed.endswith(
        "AddableDict ['actions', 'messages']\nAddableDict ['messages', 'steps']\n"
        "AddableDict ['messages', 'output']\n"
    )
    assert _printed(_ported(_STREAMED_EXECUTOR_IN_A_CHAIN)) == langchain_printed


_ASTREAMED_EXECUTOR = _STREAMED_EXECUTOR_IN_A_CHAIN.replace(
    "for chunk in executor.stream(",
    "import asyncio\n\nasync def main():\n    async for chunk in executor.astream(",
).replace(
    "    print(type(chunk).__name__, sorted(chunk))\n",
    "        print(type(chunk).__name__, sorted(chunk))\n\nasyncio.run(main())\n",
)


def test_an_astreamed_executor_s_chunks_are_addable_dicts_as_langchains() -> None:
    langchain_printed = _printed(_ASTREAMED_EXECUTOR)
    assert langchain_printed.endswith(
        "AddableDict ['actions', 'messages']\nAddableDict ['messages', 'steps']\n"
        "AddableDict ['messages', 'output']\n"
    )
    assert _printed(_ported(_ASTREAMED_EXECUTOR)) == langchain_printed


# pydantic_v1_v2_openai_function: convert_to_openai_function of a pydantic.v1 model;
# LangChain writes its parameters in v1's key order (type, properties, required).
_PYDANTIC_V1_FUNCTION = """
from typing import List, Optional

from pydantic import BaseModel as BaseModelV2, Field as FieldV2
from pydantic.v1 import BaseModel, Field
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_function, convert_to_openai_tool


class Inner(BaseModel):
    \"\"\"An inner thing.\"\"\"
    x: int = Field(description="x value")


class Outer(BaseModel):
    \"\"\"Outer model.\"\"\"
    name: str = Field(description="a name")
    n: Optional[int] = None
    items: List[Inner] = []


class Empty(BaseModel):
    \"\"\"Nothing.\"\"\"


class V2(BaseModelV2):
    \"\"\"A v2 model.\"\"\"
    output: str = FieldV2(description="a text")


def f(name: str, n: int = 0, items: list = []):
    return name


print(convert_to_openai_function(Outer))
print(convert_to_openai_tool(Inner))
print(convert_to_openai_function(Empty))
print(convert_to_openai_function(V2))
print(convert_to_openai_function(
    StructuredTool.from_function(f, name="f", description="d", args_schema=Outer)
))
"""


def test_a_pydantic_v1_model_converts_in_v1_key_order_as_langchains() -> None:
    langchain_printed = _printed(_PYDANTIC_V1_FUNCTION)
    assert "'parameters': {'type': 'object', 'properties': {'name'" in langchain_printed
    assert "'parameters': {'type': 'object', 'properties': {}}}" in langchain_printed
    # a pydantic 2 model keeps v2's order
    assert "'parameters': {'properties': {'output'" in langchain_printed
    assert _printed(_ported(_PYDANTIC_V1_FUNCTION)) == langchain_printed


# time_tool_react_vs_structured: create_react_agent with a prompt that lacks the agent's
# variables; the program prints the exception's type.
_REACT_PROMPT_WITHOUT_VARIABLES = """
from langchain_classic.agents import create_react_agent
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import Tool

tools = [Tool(name="Time", func=lambda _: "03:30 PM", description="The time.")]
llm = FakeListChatModel(responses=["Final Answer: 03:30 PM"])
for template in ("Conversation:\\n{input}\\n\\nYour answer:", "{tools}\\n{input}"):
    try:
        create_react_agent(llm=llm, tools=tools, prompt=PromptTemplate.from_template(template))
    except Exception as e:
        print(type(e).__name__, type(e).__mro__[1].__name__, isinstance(e, ValueError))
"""


def test_a_react_prompt_without_its_variables_raises_valueerror_as_langchains() -> None:
    langchain_printed = _printed(_REACT_PROMPT_WITHOUT_VARIABLES)
    assert langchain_printed == "ValueError Exception True\nValueError Exception True\n"
    assert _printed(_ported(_REACT_PROMPT_WITHOUT_VARIABLES)) == langchain_printed


# client_side_tools_agent_chain (its second cause): the program rebuilds the streamed
# messages with pydantic's unchecked constructors, ``ToolMessage.construct(**args)`` from
# a ``FunctionMessage.dict()``; ragline's messages lacked construct / model_construct.
_CONSTRUCTED_MESSAGES = """
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, FunctionMessage, HumanMessage, ToolMessage

function = FunctionMessage(content="21°C", name="get_weather")
args = function.dict()
args.pop("type")
args["tool_call_id"] = "call_w"
tool = ToolMessage.construct(**args)
print(repr(tool), tool.status, tool.type)
answer = AIMessage(content="hi", id="m1", tool_calls=[
    {"name": "x", "args": {}, "id": "c1", "type": "tool_call"}
])
dumped = answer.dict()
dumped.pop("type")
rebuilt = AIMessage.model_construct(**dumped)
print(repr(rebuilt), rebuilt == answer)
print(repr(HumanMessage.construct(content="yo")))
print(repr(Document.construct(page_content="p", metadata={"a": 1})))
"""


def test_messages_and_documents_construct_without_validation_as_langchains() -> None:
    langchain_printed = _printed(_CONSTRUCTED_MESSAGES)
    assert langchain_printed.startswith(
        "ToolMessage(content='21°C', name='get_weather', tool_call_id='call_w') success tool\n"
    )
    assert _printed(_ported(_CONSTRUCTED_MESSAGES)) == langchain_printed

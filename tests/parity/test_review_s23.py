"""Parity: what the session-23 review found beside the commits it read (issue 24).

Each scenario runs the same program through LangChain and, after ``ragline port``,
through ragline, and compares what it prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# Review of 8c19120 (an AIMessageChunk sum's id, chunk + [chunks]): the other chunk
# classes. LangChain's sum of two system, human, tool, chat or function chunks keeps the
# left one's id, None included (ragline took the right one's when the left had none),
# and a chunk plus a list of chunks of its class is their sum (ragline refused the list).
_CHUNK_SUMS = """
from langchain_core.messages import (
    ChatMessageChunk,
    FunctionMessageChunk,
    HumanMessageChunk,
    SystemMessageChunk,
    ToolMessageChunk,
)

sums = [
    SystemMessageChunk(content="a") + SystemMessageChunk(content="b", id="2"),
    HumanMessageChunk(content="a") + HumanMessageChunk(content="b", id="2"),
    ToolMessageChunk(content="a", tool_call_id="t")
    + ToolMessageChunk(content="b", tool_call_id="t", id="2"),
    ChatMessageChunk(content="a", role="r") + ChatMessageChunk(content="b", role="r", id="2"),
    FunctionMessageChunk(content="a", name="f")
    + FunctionMessageChunk(content="b", name="f", id="2"),
    HumanMessageChunk(content="a", id="1") + HumanMessageChunk(content="b", id="2"),
    SystemMessageChunk(content="a", id="1")
    + [SystemMessageChunk(content="b", id="2"), SystemMessageChunk(content="c")],
    HumanMessageChunk(content="a") + [HumanMessageChunk(content="b", id="2")],
    HumanMessageChunk(content="a", id="1") + [],
]
for total in sums:
    print(type(total).__name__, repr(total.id), repr(total.content))
for wrong in (["x"], (HumanMessageChunk(content="b"),)):
    try:
        HumanMessageChunk(content="a") + wrong
    except TypeError:
        print("TypeError")
"""


def test_a_chunk_sum_keeps_the_left_id_and_takes_a_list_as_langchains() -> None:
    langchain_printed = _printed(_CHUNK_SUMS)
    lines = langchain_printed.splitlines()
    assert lines[:5] == [
        "SystemMessageChunk None 'ab'",
        "HumanMessageChunk None 'ab'",
        "ToolMessageChunk None 'ab'",
        "ChatMessageChunk None 'ab'",
        "FunctionMessageChunk None 'ab'",
    ]
    assert lines[5:] == [
        "HumanMessageChunk '1' 'ab'",
        "SystemMessageChunk '1' 'abc'",
        "HumanMessageChunk None 'ab'",
        "HumanMessageChunk '1' 'a'",
        "TypeError",
        "TypeError",
    ]
    assert _printed(_ported(_CHUNK_SUMS)) == langchain_printed


# Beside c745b8b (with_structured_output's bind_tools): a tool-call parser streamed over a
# model without _stream. LangChain's parser makes the whole AIMessage a plain message
# chunk, which has no tool_calls, so its stream yields [] (or nothing for one tool) where
# invoke gives the calls; ragline's stream yields invoke's answer (a documented
# difference: LangChain's stream loses the answer).
_TOOL_PARSERS_STREAMED = """
import asyncio
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers.openai_tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
)

reply = AIMessage("", tool_calls=[{"name": "P", "args": {"name": "Ann"}, "id": "c1"}])
one = JsonOutputKeyToolsParser(key_name="P", first_tool_only=True)
for parser in (JsonOutputToolsParser(), one):
    chain = FakeMessagesListChatModel(responses=[reply]) | parser
    print(chain.invoke("x"))
    print(list(chain.stream("x")))


async def main():
    chain = FakeMessagesListChatModel(responses=[reply]) | JsonOutputToolsParser()
    print([chunk async for chunk in chain.astream("x")])


asyncio.run(main())
"""


def test_a_tool_parser_streamed_over_a_whole_reply_gives_invokes_answer() -> None:
    assert _printed(_TOOL_PARSERS_STREAMED) == (  # LangChain's stream loses the calls
        "[{'args': {'name': 'Ann'}, 'type': 'P'}]\n[[]]\n{'name': 'Ann'}\n[]\n[[]]\n"
    )
    assert _printed(_ported(_TOOL_PARSERS_STREAMED)) == (
        "[{'args': {'name': 'Ann'}, 'type': 'P'}]\n[[{'args': {'name': 'Ann'}, 'type': 'P'}]]\n"
        "{'name': 'Ann'}\n[{'name': 'Ann'}]\n[[{'args': {'name': 'Ann'}, 'type': 'P'}]]\n"
    )


# Beside 45a4aa2 (AgentExecutor's return_only_outputs): include_run_info. LangChain adds
# the __run key to what invoke returns after the run has ended, so the executor's own
# on_chain_end sees the outputs without it; ragline's handlers saw __run too.
_AGENT_RUN_INFO = """
from langchain_classic.agents import AgentExecutor, create_react_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.tools import tool


@tool
def echo(x: str) -> str:
    \"\"\"Echo x.\"\"\"
    return x


class Ends(BaseCallbackHandler):
    def on_chain_end(self, outputs, **kwargs):
        if kwargs.get("parent_run_id") is None:
            print("end", sorted(outputs))


prompt = PromptTemplate.from_template("{tools} {tool_names} {input} {agent_scratchpad}")
for only_outputs in (False, True):
    replies = ["Thought: x\\nAction: echo\\nAction Input: hi", "Final Answer: done"]
    agent = create_react_agent(FakeListLLM(responses=replies), [echo], prompt)
    executor = AgentExecutor(agent=agent, tools=[echo], callbacks=[Ends()])
    result = executor.invoke(
        {"input": "q"}, include_run_info=True, return_only_outputs=only_outputs
    )
    print(sorted(result))
"""


def test_an_agents_run_info_is_added_after_its_run_ends_as_langchains() -> None:
    langchain_printed = _printed(_AGENT_RUN_INFO)
    assert langchain_printed == (
        "end ['output']\n['__run', 'input', 'output']\nend ['output']\n['__run', 'output']\n"
    )
    assert _printed(_ported(_AGENT_RUN_INFO)) == langchain_printed


# Review of 1a29579 (as_tool's placeholder description): an empty description is no
# description to LangChain's as_tool (description or the placeholder); ragline's kept "".
_AS_TOOL_EMPTY_DESCRIPTION = """
from pydantic import BaseModel
from langchain_core.runnables import RunnableLambda


class Args(BaseModel):
    a: int


tool = RunnableLambda(lambda d: d["a"] * 2).as_tool(args_schema=Args, description="")
print(tool.description)
print(tool.invoke({"a": 2}))
"""


def test_as_tool_takes_an_empty_description_as_none_as_langchains() -> None:
    langchain_printed = _printed(_AS_TOOL_EMPTY_DESCRIPTION)
    assert langchain_printed == (
        "Takes {'properties': {'a': {'title': 'A', 'type': 'integer'}}, 'required': ['a'], "
        "'title': 'Args', 'type': 'object'}.\n4\n"
    )
    assert _printed(_ported(_AS_TOOL_EMPTY_DESCRIPTION)) == langchain_printed


# Review of d841f29 (a TypedDict described in pydantic v1's shape): bare list, tuple, set
# and dict fields. v1 writes type before items, and a bare dict as {"type": "object"};
# ragline wrote items first and added additionalProperties: true.
_TYPEDDICT_BARE_FIELDS = """
from typing_extensions import TypedDict
from langchain_core.utils.function_calling import convert_to_openai_tool


class Bag(TypedDict):
    \"\"\"A bag.\"\"\"

    items: list
    pair: tuple
    seen: set
    extra: dict


print(convert_to_openai_tool(Bag)["function"]["parameters"]["properties"])
"""


def test_a_typeddicts_bare_containers_are_described_as_langchains() -> None:
    langchain_printed = _printed(_TYPEDDICT_BARE_FIELDS)
    assert langchain_printed == (
        "{'items': {'type': 'array', 'items': {}}, 'pair': {'type': 'array', 'items': {}}, "
        "'seen': {'type': 'array', 'items': {}, 'uniqueItems': True}, "
        "'extra': {'type': 'object'}}\n"
    )
    assert _printed(_ported(_TYPEDDICT_BARE_FIELDS)) == langchain_printed

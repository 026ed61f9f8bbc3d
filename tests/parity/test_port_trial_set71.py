"""Parity: differences found by the seventy-first port trial (issue 24), one scenario each.

The set's theme: chat models with tool calling and streaming (tool schemas, ToolCalls
sent to tools, ToolMessages sent back, summed AIMessageChunks). Each scenario runs the
same program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# A probe beside the set (a tool-calling loop as in p02/p25 of set 71, whose tool builds
# its own ToolMessage, as LangGraph-style tools do): LangChain's tool hands a ToolMessage
# the function returns back as it is when invoked with a ToolCall; ragline wrapped it in a
# second ToolMessage whose content was the first one's text.
_TOOL_RETURNS_ITS_OWN_MESSAGE = """
import asyncio
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, tool


@tool
def lookup(city: str):
    \"\"\"Look a city up.\"\"\"
    return ToolMessage(content=f"{city}: 21C", tool_call_id="own-id", artifact={"c": 21})


@tool(response_format="content_and_artifact")
def paired(city: str):
    \"\"\"Look a city up, with an artifact.\"\"\"
    return ToolMessage(content=city, tool_call_id="pair-id"), {"raw": city}


async def alookup(city: str):
    return ToolMessage(content=city.upper(), tool_call_id="async-id")


async_tool = StructuredTool.from_function(coroutine=alookup, name="alookup", description="d")
call = {"name": "lookup", "args": {"city": "Oslo"}, "id": "call_1", "type": "tool_call"}
for result in [
    lookup.invoke(call),
    lookup.invoke({"city": "Rome"}),
    asyncio.run(lookup.ainvoke(call)),
    asyncio.run(async_tool.ainvoke({**call, "name": "alookup"})),
    paired.invoke({**call, "name": "paired"}),
]:
    print(repr(result))
"""


def test_a_tool_returning_a_tool_message_hands_it_back_as_it_is() -> None:
    langchain_printed = _printed(_TOOL_RETURNS_ITS_OWN_MESSAGE)
    assert langchain_printed.splitlines()[0] == (
        "ToolMessage(content='Oslo: 21C', tool_call_id='own-id', artifact={'c': 21})"
    )
    assert _printed(_ported(_TOOL_RETURNS_ITS_OWN_MESSAGE)) == langchain_printed

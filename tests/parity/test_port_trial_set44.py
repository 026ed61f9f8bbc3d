"""Parity: differences found by the forty-fourth port trial (issue 24: structured output
and tool-calling chat models), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# A tool whose args_schema is a pydantic.v1 model with pydantic 2 ``Field(...)`` defaults
# (a mix learners write): the model has no JSON Schema (its ``schema()`` raises TypeError)
# but validates its calls. LangChain's tool runs; ragline built the schema when the tool
# was first invoked and failed there.
_V1_MODEL_WITH_V2_FIELDS = """
import warnings
warnings.simplefilter("ignore")
from typing import Type
from pydantic import Field
from pydantic.v1 import BaseModel
from langchain_core.tools import BaseTool


class PriceInput(BaseModel):
    amount: int = Field(..., description="the amount")
    rate: int = Field(..., description="the rate")


class PriceTool(BaseTool):
    name: str = "price"
    description: str = "Multiply an amount by a rate"
    args_schema: Type[BaseModel] = PriceInput

    def _run(self, amount: int, rate: int) -> int:
        return amount * rate


price = PriceTool()
print(price.invoke({"amount": 4, "rate": 7}))
call = {"name": "price", "args": {"amount": "6", "rate": 2}, "id": "c9", "type": "tool_call"}
print(repr(price.invoke(call)))
try:
    price.invoke({"amount": "many", "rate": 2})
except Exception as err:
    print(type(err).__name__)
try:
    print(price.args)
except TypeError as err:
    print("args:", type(err).__name__)
"""


def test_a_v1_args_schema_without_json_schema_still_validates_calls() -> None:
    langchain_printed = _printed(_V1_MODEL_WITH_V2_FIELDS)
    assert langchain_printed == (
        "28\nToolMessage(content='12', name='price', tool_call_id='c9')\n"
        "ValidationError\nargs: TypeError\n"
    )
    assert _printed(_ported(_V1_MODEL_WITH_V2_FIELDS)) == langchain_printed


# A tool-calling model streamed through PydanticToolsParser / JsonOutputKeyToolsParser:
# the first chunk names a call whose arguments have not arrived (they do not validate, or
# belong to another tool), so the parsed list is empty. LangChain's parser yields that
# empty list once before the calls; ragline skipped it.
_STREAMED_TOOLS_PARSER = """
from pydantic import BaseModel
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.output_parsers.openai_tools import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)


class Area(BaseModel):
    width: int
    height: int


class Streamer(GenericFakeChatModel):
    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        yield ChatGenerationChunk(message=AIMessageChunk(content="Let me see. "))
        pieces = [
            ("Area", "call_a", ""),
            (None, None, '{"width": 3'),
            (None, None, ', "height": 4}'),
        ]
        for name, call_id, args in pieces:
            chunk = {"name": name, "args": args, "id": call_id, "index": 0}
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[chunk]))


for parser in (
    PydanticToolsParser(tools=[Area]),
    JsonOutputKeyToolsParser(key_name="Volume"),
    JsonOutputKeyToolsParser(key_name="Area", first_tool_only=True),
    JsonOutputToolsParser(),
):
    chain = Streamer(messages=iter([AIMessage("unused")])) | parser
    print(type(parser).__name__, list(chain.stream("area?")))
"""


def test_a_streamed_tools_parser_yields_the_empty_list_first() -> None:
    langchain_printed = _printed(_STREAMED_TOOLS_PARSER)
    assert langchain_printed == (
        "PydanticToolsParser [[], [Area(width=3, height=4)]]\n"
        "JsonOutputKeyToolsParser [[]]\n"
        "JsonOutputKeyToolsParser [{}, {'width': 3}, {'width': 3, 'height': 4}]\n"
        "JsonOutputToolsParser [[], [{'args': {}, 'type': 'Area'}], "
        "[{'args': {'width': 3}, 'type': 'Area'}], "
        "[{'args': {'width': 3, 'height': 4}, 'type': 'Area'}]]\n"
    )
    assert _printed(_ported(_STREAMED_TOOLS_PARSER)) == langchain_printed


# rich.print of a chat model's reply (rprint(response) after bind_tools(...).invoke): rich
# asks a pydantic model for its fields (__rich_repr__) and lays them out one a line when
# the repr does not fit; ragline's messages and documents printed as one wrapped repr.
_RICH_PRINTED_MESSAGES = """
import io
from rich.console import Console
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage

out = io.StringIO()
console = Console(file=out, width=60, color_system=None)
reply = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"}, "id": "c1"}])
console.print(reply)
console.print(HumanMessage("short"))
console.print(ToolMessage("12 degrees", tool_call_id="c1", name="get_weather"))
piece = {"name": "f", "args": "{", "id": "2", "index": 0}
chunk = AIMessageChunk(content="x", tool_call_chunks=[piece])
console.print(chunk)
console.print(Document(page_content="a text long enough not to fit in sixty columns", id="d1"))
console.print([HumanMessage("hi"), Document(page_content="d", metadata={"k": 1})])
print(out.getvalue(), end="")
"""


def test_rich_prints_messages_and_documents_field_by_field() -> None:
    langchain_printed = _printed(_RICH_PRINTED_MESSAGES)
    assert langchain_printed.startswith("AIMessage(\n    content='',\n    additional_kwargs={},\n")
    assert "Document(\n    id='d1',\n    metadata={},\n" in langchain_printed
    assert _printed(_ported(_RICH_PRINTED_MESSAGES)) == langchain_printed

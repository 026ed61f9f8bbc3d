"""Parity: differences found by the sixty-third port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# structured_output_docstring (with_structured_output's own reference example): the
# schema was ``convert_to_openai_tool(AnswerWithJustification)``, an OpenAI tool dict;
# LangChain answers with the call's arguments as a dict, ragline refused the dict.
_TOOL_DICT_SCHEMA = """
from pydantic import BaseModel
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.utils.function_calling import convert_to_openai_tool


class ToolModel(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


class Answer(BaseModel):
    '''An answer with its reason.'''

    answer: str
    why: str


def reply(args):
    return AIMessage(content="", tool_calls=[{"name": "Answer", "args": args, "id": "c1"}])


tool = convert_to_openai_tool(Answer)
good = {"answer": "same", "why": "a pound is a pound"}
print(ToolModel(responses=[reply(good)]).with_structured_output(tool).invoke("q"))
result = ToolModel(responses=[reply(good)]).with_structured_output(
    tool, include_raw=True
).invoke("q")
print(result["parsed"], result["parsing_error"], result["raw"].tool_calls[0]["name"])
"""


def test_an_openai_tool_dict_is_a_structured_output_schema() -> None:
    langchain_printed = _printed(_TOOL_DICT_SCHEMA)
    assert langchain_printed.splitlines() == [
        "{'answer': 'same', 'why': 'a pound is a pound'}",
        "{'answer': 'same', 'why': 'a pound is a pound'} None Answer",
    ]
    assert _printed(_ported(_TOOL_DICT_SCHEMA)) == langchain_printed

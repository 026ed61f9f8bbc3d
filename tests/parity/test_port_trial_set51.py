"""Parity: differences found by the fifty-first port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "core.BaseCumulativeTransformOutputParser",
    "core.output_parsers.JSON_FORMAT_INSTRUCTIONS",
}

# lcel_branches_housing_ladder_list: ChatPromptTemplate.from_template(...,
# partial_variables={"format_instructions": ...}) was refused (TypeError), so the
# program stopped at its second example.
_FROM_TEMPLATE_PARTIALS = """
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import CommaSeparatedListOutputParser
from langchain_core.prompts import ChatPromptTemplate

parser = CommaSeparatedListOutputParser()
prompt = ChatPromptTemplate.from_template(
    "Answer in 3 points: {question}.\\n{format_instructions}",
    partial_variables={"format_instructions": "Reply as: a, b, c"},
)
print(prompt.input_variables, prompt.partial_variables)
print(prompt.invoke({"question": "How to save?"}).to_messages())
print(prompt.partial(question="Why?").format_messages())
chain = prompt | FakeListChatModel(responses=["Budget, Cook at home, Cycle"]) | parser
print(chain.invoke({"question": "How to save?"}))

jinja = ChatPromptTemplate.from_template(
    "{{ q }} in {{ lang }}", template_format="jinja2", partial_variables={"lang": "Danish"}
)
print(jinja.input_variables, jinja.format(q="Hello"))
"""


def test_a_chat_template_from_one_string_takes_partial_variables_as_langchains() -> None:
    langchain_printed = _printed(_FROM_TEMPLATE_PARTIALS)
    assert langchain_printed.splitlines()[0] == "['question'] {}"
    assert "Reply as: a, b, c" in langchain_printed
    assert _printed(_ported(_FROM_TEMPLATE_PARTIALS)) == langchain_printed


# redbox_streaming_json_field_parser: a BaseCumulativeTransformOutputParser subclass
# (LangChain's base of streaming parsers that re-parse all they received) and the
# JSON_FORMAT_INSTRUCTIONS template from langchain_core.output_parsers.format_instructions
# were not mapped, so the ported program failed at its imports.
_CUMULATIVE_PARSER = """
import asyncio
import json

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.callbacks.manager import dispatch_custom_event
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessageChunk
from langchain_core.output_parsers import BaseCumulativeTransformOutputParser
from langchain_core.output_parsers.format_instructions import JSON_FORMAT_INSTRUCTIONS
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.utils.json import parse_json_markdown


class Words(BaseCumulativeTransformOutputParser):
    def parse(self, text):
        return text.split()

    def parse_result(self, result, *, partial=False):
        words = self.parse(result[0].text)
        return words if len(words) % 2 == 0 or not partial else None


class Field(BaseCumulativeTransformOutputParser):
    field: str = "answer"

    def parse(self, text):
        return super().parse(text)

    def _transform(self, input):
        total, sent = None, 0
        for chunk in input:
            piece = (
                ChatGenerationChunk(message=chunk)
                if isinstance(chunk, BaseMessageChunk)
                else GenerationChunk(text=chunk)
            )
            total = piece if total is None else total + piece
            try:
                parsed = parse_json_markdown(total.text)
            except json.JSONDecodeError:
                continue
            value = parsed.get(self.field) or ""
            if value[sent:]:
                dispatch_custom_event("tokens", data=value[sent:])
                sent = len(value)
                yield parsed

    async def _atransform(self, input):
        async for chunk in input:
            yield chunk.content


class Events(BaseCallbackHandler):
    def __init__(self):
        self.seen = []

    def on_custom_event(self, name, data, **kwargs):
        self.seen.append((name, data))


def model(text):
    return GenericFakeChatModel(messages=iter([AIMessage(content=text)]))


class Lines(BaseCumulativeTransformOutputParser):
    def parse(self, text):
        return [line.strip() for line in text.strip().split("\\n")]


print(list(Words().transform(iter(["one two", " three", " four five six"]))))
lines = FakeListChatModel(responses=["red\\ngreen", "red\\ngreen"]) | Lines()
print(lines.invoke("colors"), list(lines.stream("colors")))
print(Words().invoke("a b c"), Words(diff=False).diff, Field().field)
print(list((model("alpha beta gamma delta") | Words()).stream("go")))
try:
    list(Words(diff=True).transform(iter(["a b"])))
except NotImplementedError:
    print("no _diff")

events = Events()
answer = '{"answer": "Offices open at nine.", "page": 4}'
chain = model(answer) | Field()
print(list(chain.stream("when?", config={"callbacks": [events]})))
print(events.seen)
print(Field().parse("text"))

text = JSON_FORMAT_INSTRUCTIONS.format(schema='{"properties": {"a": {"type": "string"}}}')
print('{"properties": {"a": {"type": "string"}}}' in text, "```" in text)


async def collect():
    return [p async for p in (model("p q r") | Field()).astream("q")]


print(asyncio.run(collect()))
"""


def test_a_cumulative_streaming_parser_subclass_ports_and_streams_as_langchains() -> None:
    langchain_printed = _printed(_CUMULATIVE_PARSER)
    first = "[['one', 'two'], ['one', 'two', 'three', 'four', 'five', 'six']]"
    assert langchain_printed.splitlines()[0] == first
    assert _printed(_ported(_CUMULATIVE_PARSER)) == langchain_printed


# hotel_tools_functions_and_text_map: a documented difference (docs/differences-from-
# langchain.md, "Unknown tool arguments are refused"): LangChain lists a function's
# **kwargs as one more argument, an object named after it, and drops an argument it does
# not know; ragline lists only the named parameters and hands unknown ones to **kwargs.
_VAR_KEYWORD_TOOL = """
from langchain_core.tools import tool


@tool
def find(city: str, **extra) -> str:
    \"\"\"Find a hotel.\"\"\"
    return repr(extra)


print(sorted(find.args))
print(find.invoke({"city": "Beijing", "wifi": True}))
"""


def test_a_tools_var_keyword_parameter_is_listed_and_passed_as_documented() -> None:
    assert _printed(_VAR_KEYWORD_TOOL) == "['city', 'extra']\n{'extra': None}\n"
    assert _printed(_ported(_VAR_KEYWORD_TOOL)) == "['city']\n{'wifi': True}\n"

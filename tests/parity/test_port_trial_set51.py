"""Parity: differences found by the fifty-first port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

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

"""Parity: differences found by the thirtieth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# fhtttt_history_rag_duck_embeddings: a course notebook pulls the text out of its chunks
# with ``for name, value in document`` (pydantic models iterate as (field, value) pairs);
# ragline's Document was not iterable (TypeError).
_DOCUMENT_ITERATION = """
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage

splits = [
    Document(page_content="Task decomposition", metadata={"source": "a.txt"}),
    Document(page_content="Self-reflection", metadata={}, id="d2"),
]
texts = [content for document in splits for name, content in document if name == "page_content"]
print(texts)
for document in splits:
    print(list(document))
    print(dict(document))
print(list(HumanMessage("hi", id="m1")))
print(dict(AIMessage("there", name="bot")))
"""


def test_documents_and_messages_iterate_as_field_value_pairs_as_langchains() -> None:
    ported = _ported(_DOCUMENT_ITERATION)
    langchain_printed = _printed(_DOCUMENT_ITERATION)
    assert langchain_printed.count("\n") == 7
    assert "('page_content', 'Task decomposition')" in langchain_printed
    assert _printed(ported) == langchain_printed


# hiteshram_pydantic_and_structured_parsers: a course script declares
# ``input_variables=[]`` for a template that reads {topic} (its other variable is
# partial). LangChain takes the variables from the template and ignores the declared
# list unless validate_template=True; ragline refused the prompt (InvalidInputError).
_DECLARED_INPUT_VARIABLES = """
from langchain_core.prompts import FewShotPromptTemplate, PromptTemplate

template = PromptTemplate(
    template="Give 3 facts about the {topic} \\n {format_instructions}",
    input_variables=[],
    partial_variables={"format_instructions": "Answer in JSON."},
)
print(template.input_variables, repr(template.invoke({"topic": "Solar System"}).to_string()))
print(PromptTemplate(template="{a}{b}", input_variables=["a", "c"]).input_variables)
validated = PromptTemplate(template="{a}{b}", input_variables=["b", "a"], validate_template=True)
print(validated.input_variables)
try:
    PromptTemplate(template="{a}{b}", input_variables=["a", "c"], validate_template=True)
except ValueError:
    print("refused with validate_template")
example = PromptTemplate.from_template("{q} -> {a}")
few_shot = FewShotPromptTemplate(
    examples=[{"q": "1", "a": "2"}], example_prompt=example, suffix="{x}", input_variables=["q"]
)
print(few_shot.input_variables, repr(few_shot.format(x="3")))
print(PromptTemplate.from_examples(["2+2=4"], "{sum}=", ["total"], prefix="Add:").input_variables)
"""


def test_declared_input_variables_give_way_to_the_templates_as_langchains() -> None:
    ported = _ported(_DECLARED_INPUT_VARIABLES)
    langchain_printed = _printed(_DECLARED_INPUT_VARIABLES)
    assert langchain_printed.count("\n") == 6
    assert "refused with validate_template" in langchain_printed
    assert _printed(ported) == langchain_printed

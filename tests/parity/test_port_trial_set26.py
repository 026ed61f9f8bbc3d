"""Parity: differences found by the twenty-sixth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# dtcms_runnable_lambda_format_docs: print(RunnableLambda(format_docs).input_schema
# .model_json_schema()) for a function of List[Document]. ragline's Document entry lacked
# the metadata's "additionalProperties": True and the "type": "string" of its type tag;
# its message entries were a sketch (no tool-call / usage entries, no ToolMessage status,
# no open objects), and a function of one Document or one message had the schema
# {"$ref": ...} titled after the function, where LangChain's is the model's own, titled
# with its name. The descriptions (LangChain's docstrings) are left out on both sides:
# ragline's entries have none (docs/differences-from-langchain.md).
_MODEL_SCHEMAS = """
from typing import List

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda


def without_descriptions(value):
    if isinstance(value, dict):
        return {k: without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [without_descriptions(v) for v in value]
    return value


def join_pages(docs: List[Document]) -> str:
    return ", ".join(doc.page_content for doc in docs)


def first_page(doc: Document) -> HumanMessage:
    return HumanMessage(content=doc.page_content)


def answer_tool(message: AIMessage) -> ToolMessage:
    return ToolMessage(content=message.content, tool_call_id="1")


def last_chunk(chunk: AIMessageChunk) -> str:
    return chunk.content


runnables = [
    RunnableLambda(join_pages),
    RunnableLambda(first_page),
    RunnableLambda(answer_tool),
    RunnableLambda(last_chunk),
    ChatPromptTemplate.from_template("{x}"),
]
for runnable in runnables:
    for schema in (runnable.input_schema, runnable.output_schema):
        print(schema.__name__, without_descriptions(schema.model_json_schema()))
"""


def test_document_and_message_schemas_are_langchains_but_for_descriptions() -> None:
    ported = _ported(_MODEL_SCHEMAS)
    langchain_printed = _printed(_MODEL_SCHEMAS)
    lines = langchain_printed.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == [
        "join_pages_input",
        "join_pages_output",
        "Document",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessageChunk",
        "last_chunk_output",
        "PromptInput",
        "ChatPromptTemplateOutput",
    ]
    assert "'metadata': {'additionalProperties': True, 'title': 'Metadata'" in lines[0]
    assert "'ToolCallChunk': {'additionalProperties': True" in lines[6]
    assert _printed(ported) == langchain_printed


_DESCRIPTIONS = """
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda


def first_page(doc: Document) -> str:
    return doc.page_content


schema = RunnableLambda(first_page).input_schema.model_json_schema()
print("description" in schema, sorted(schema))
"""


def test_a_documents_schema_has_no_description_where_langchains_has_its_docstring() -> None:
    # a documented difference: LangChain's description is its class docstring (its own
    # wording); ragline's entries have none
    assert _printed(_DESCRIPTIONS) == (
        "True ['description', 'properties', 'required', 'title', 'type']\n"
    )
    assert _printed(_ported(_DESCRIPTIONS)) == "False ['properties', 'required', 'title', 'type']\n"

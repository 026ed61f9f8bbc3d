"""Parity: differences found by the twenty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# openai_tools_agent_node: a model scripted with OpenAI's raw tool calls in
# additional_kwargs (the form older chat models returned). LangChain parses them into
# tool_calls when none are given, so the agent runs the tools; ragline left tool_calls
# empty and the agent finished at once with "".
_RAW_TOOL_CALLS_AGENT = """
from langchain_classic.agents import AgentExecutor, create_openai_tools_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.tools import tool


@tool
def stock(item: str) -> int:
    \"\"\"How many of an item the shop holds.\"\"\"
    return {"pens": 40, "pads": 7}.get(item, 0)


def raw(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


model = FakeMessagesListChatModel(
    responses=[
        AIMessage(content="", additional_kwargs={"tool_calls": [
            raw("c1", "stock", '{"item": "pens"}'), raw("c2", "stock", '{"item": "pads"}'),
        ]}),
        AIMessage(content="40 pens and 7 pads."),
    ]
)
prompt = ChatPromptTemplate.from_messages(
    [("system", "You keep the shop."), ("human", "{input}"),
     MessagesPlaceholder(variable_name="agent_scratchpad")]
)
agent = create_openai_tools_agent(model, [stock], prompt)
executor = AgentExecutor(agent=agent, tools=[stock], return_intermediate_steps=True)
result = executor.invoke({"input": "How many pens and pads?"})
print(result["output"])
for action, observation in result["intermediate_steps"]:
    print(action.tool, action.tool_input, action.tool_call_id, observation)
"""


def test_raw_openai_tool_calls_in_additional_kwargs_drive_the_agent_as_langchains() -> None:
    ported = _ported(_RAW_TOOL_CALLS_AGENT)
    langchain_printed = _printed(_RAW_TOOL_CALLS_AGENT)
    assert langchain_printed == (
        "40 pens and 7 pads.\nstock {'item': 'pens'} c1 40\nstock {'item': 'pads'} c2 7\n"
    )
    assert _printed(ported) == langchain_printed


_RAW_TOOL_CALLS_MESSAGES = """
from langchain_core.messages import AIMessage, AIMessageChunk

raw = [
    {"id": "a", "type": "function", "function": {"name": "add", "arguments": '{"x": 1}'}},
    {"id": "b", "type": "function", "function": {"name": "add", "arguments": "{bad json"}},
    {"id": "c", "type": "function", "function": {"name": "noop", "arguments": "null"}},
    {"id": "d", "type": "web_search"},
]
message = AIMessage(content="", additional_kwargs={"tool_calls": raw})
print(message.tool_calls)
print(message.invalid_tool_calls)
print(message)
# tool_calls given: the raw ones are left alone
given = AIMessage(content="", additional_kwargs={"tool_calls": raw},
                  tool_calls=[{"name": "other", "args": {}, "id": "z"}])
print(given.tool_calls, given.invalid_tool_calls)
# a raw call without a function name spoils the whole list: nothing is parsed
broken = AIMessage(content="", additional_kwargs={"tool_calls": [
    {"id": "e", "function": {"arguments": "{}"}}] + raw})
print(broken.tool_calls, broken.invalid_tool_calls)
chunk = AIMessageChunk(content="", additional_kwargs={"tool_calls": [
    {"index": 0, "id": "a", "function": {"name": "add", "arguments": '{"x": '}},
    {"index": 1, "id": "d", "type": "web_search"},
]})
print(chunk.tool_call_chunks)
print(chunk.tool_calls)
print(AIMessage(content="hi", additional_kwargs={"tool_calls": []}).tool_calls)
"""


def test_raw_openai_tool_calls_become_tool_calls_as_langchains() -> None:
    ported = _ported(_RAW_TOOL_CALLS_MESSAGES)
    langchain_printed = _printed(_RAW_TOOL_CALLS_MESSAGES)
    assert langchain_printed.count("\n") == 8
    assert "{'name': 'add', 'args': {'x': 1}, 'id': 'a', 'type': 'tool_call'}" in (
        langchain_printed
    )
    assert _printed(ported) == langchain_printed


# load_qa_chain_simple / stuff_documents_chain_context: the classic StuffDocumentsChain
# lists the prompt's other variables after the documents' key in input_keys, and builds
# the prompt's inputs with _get_inputs (programs call it); ragline listed the documents'
# key alone and had no _get_inputs.
_STUFF_INPUT_KEYS = """
from langchain_classic.chains import LLMChain, StuffDocumentsChain
from langchain_classic.chains.question_answering import load_qa_chain
from langchain_classic.chains.summarize import load_summarize_chain
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=["ok"])
print(load_qa_chain(llm, chain_type="stuff").input_keys)
print(load_summarize_chain(llm, chain_type="stuff").input_keys)
prompt = PromptTemplate.from_template(
    "Answer in {language} for {user}.\\n{context}\\nQuestion: {question}"
)
chain = StuffDocumentsChain(
    llm_chain=LLMChain(llm=llm, prompt=prompt), document_variable_name="context"
)
print(chain.input_keys, chain.output_keys)
docs = [Document(page_content="alpha", metadata={"n": 1}), Document(page_content="beta")]
print(chain._get_inputs(docs, question="q?", language="French", stray=1))
print(chain._get_inputs([], user="ana"))
custom = StuffDocumentsChain(
    llm_chain=LLMChain(llm=llm, prompt=prompt),
    document_variable_name="context",
    document_prompt=PromptTemplate.from_template("[{n}] {page_content}"),
    document_separator=" | ",
    input_key="docs",
)
print(custom.input_keys)
print(custom._get_inputs([docs[0], Document(page_content="gamma", metadata={"n": 2})]))
"""


def test_stuff_documents_chain_input_keys_and_inputs_are_langchains() -> None:
    ported = _ported(_STUFF_INPUT_KEYS)
    langchain_printed = _printed(_STUFF_INPUT_KEYS)
    assert langchain_printed.splitlines()[:3] == [
        "['input_documents', 'question']",
        "['input_documents']",
        "['input_documents', 'language', 'question', 'user'] ['output_text']",
    ]
    assert _printed(ported) == langchain_printed

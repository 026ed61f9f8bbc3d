"""Parity: differences found by the forty-third port trial (issue 24; callbacks, tracing
and debugging output), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# jarvis_callback_kwargs: a handler printed the keywords a model's start event gets;
# ragline gave name= first, LangChain gives it after invocation_params and options.
_MODEL_START_KEYWORDS = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, FakeListLLM


class Keywords(BaseCallbackHandler):
    def on_llm_start(self, serialized, prompts, *, run_id, parent_run_id=None, tags=None,
                     metadata=None, **kwargs):
        print("llm", kwargs)

    def on_chat_model_start(self, serialized, messages, **kwargs):
        print("chat", [key for key in kwargs])


config = {"callbacks": [Keywords()], "run_name": "turn"}
FakeListLLM(responses=["a"]).invoke("x", config=config)
FakeListLLM(responses=["b", "c"]).batch(["x", "y"], config={"callbacks": [Keywords()]})
list(FakeListLLM(responses=["d"]).stream("x", config=config))
FakeListChatModel(responses=["e"]).invoke("x", config=config)
list(FakeListChatModel(responses=["f"]).stream("x", config={"callbacks": [Keywords()]}))
"""


def test_a_models_start_event_gives_its_keywords_in_langchains_order() -> None:
    langchain_printed = _printed(_MODEL_START_KEYWORDS)
    assert "'options': {'stop': None}, 'name': 'turn', 'batch_size': 1}" in langchain_printed
    assert langchain_printed.count("\n") == 6
    assert _printed(_ported(_MODEL_START_KEYWORDS)) == langchain_printed


# inventory_agent_set_verbose: @tool(description="Analyze Simulation output ") printed
# its description with the trailing space; LangChain strips a tool's description,
# whichever source gave it.
_TOOL_DESCRIPTION_STRIPPED = """
from pydantic import BaseModel, Field
from langchain_core.tools import StructuredTool, tool


@tool(description="Analyze Simulation output ")
def analyze_simulation(simulation_data: str) -> str:
    return simulation_data


@tool
def documented(x: int) -> int:
    '''  Doubles x.
    '''
    return 2 * x


class Args(BaseModel):
    '''  Adds one.  '''
    x: int = Field(description="a number")


def plus_one(x: int) -> int:
    return x + 1


given = StructuredTool.from_function(func=plus_one, description="\\n  Adds one, kindly.\\n")
schema = StructuredTool.from_function(func=plus_one, args_schema=Args)
for t in (analyze_simulation, documented, given, schema):
    print(repr(t.name), repr(t.description))
"""


def test_a_tools_description_is_stripped_as_langchains() -> None:
    langchain_printed = _printed(_TOOL_DESCRIPTION_STRIPPED)
    assert "'analyze_simulation' 'Analyze Simulation output'\n" in langchain_printed
    assert "'plus_one' 'Adds one, kindly.'\n" in langchain_printed
    assert _printed(_ported(_TOOL_DESCRIPTION_STRIPPED)) == langchain_printed


# openai_asker_retrievalqa_stdout: RetrievalQA.from_chain_type(memory=...) raised
# TypeError; LangChain's chain loads the memory's variables into each call's inputs (and
# its output dict, and the start event's inputs) and saves each question and answer.
_RETRIEVAL_QA_MEMORY = """
import asyncio

from langchain_classic.chains import RetrievalQA
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever


class Fixed(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content="Books have an isbn.")]


class Inputs(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        if kwargs.get("name") == "RetrievalQA":
            print("start", sorted(inputs))


prompt = PromptTemplate(input_variables=["context", "question"],
                        template="Context: {context}\\nQ: {question}\\nA:")
memory = ConversationBufferMemory(memory_key="chat_history", return_messages=True)
chain = RetrievalQA.from_chain_type(
    llm=FakeListLLM(
        responses=["Add isbn.", "Sort by title.", "Done.", "Again.", "Streamed.", "Async."]
    ),
    retriever=Fixed(),
    memory=memory,
    chain_type="stuff",
    chain_type_kwargs={"prompt": prompt},
    callbacks=[Inputs()],
)
out = chain({"query": "Add an isbn field"})
print(list(out), out["result"], [m.content for m in out["chat_history"]])
out = chain.invoke({"query": "Sort the books"})
print(list(out), [m.content for m in out["chat_history"]])
print(chain.run("Anything else?"))
print(chain({"query": "Last"}, return_only_outputs=True))
out = asyncio.run(chain.ainvoke({"query": "async"}))
print(list(out), out["result"])
chunks = list(chain.stream({"query": "streamed"}))
print(len(chunks), list(chunks[0]), chunks[0]["result"])


async def astreamed():
    return [chunk async for chunk in chain.astream({"query": "astreamed"})]


chunks = asyncio.run(astreamed())
print(len(chunks), list(chunks[0]), chunks[0]["result"])
print([type(m).__name__ + ":" + m.content for m in memory.chat_memory.messages])
print(memory.load_memory_variables({})["chat_history"][-1].content)
"""


def test_retrieval_qa_takes_a_memory_as_langchains() -> None:
    langchain_printed = _printed(_RETRIEVAL_QA_MEMORY)
    assert "['query', 'chat_history', 'result'] Add isbn. ['Add an isbn field', 'Add isbn.']\n" in (
        langchain_printed
    )
    assert "{'result': 'Again.'}\n" in langchain_printed
    assert _printed(_ported(_RETRIEVAL_QA_MEMORY)) == langchain_printed


# planner_agents_logging_callback: a handler read serialized.get("name") in
# on_chain_start; LangChain's AgentExecutor passes serialized=None when invoked (the
# handler's call fails and prints nothing), ragline passed a dict and it printed a line.
_AGENT_EXECUTOR_SERIALIZED = """
from langchain_classic.agents import AgentExecutor, create_tool_calling_agent
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool


class Logging(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("Chain started:", serialized.get("name", "Unknown"), sorted(inputs))

    def on_chain_end(self, outputs, **kwargs):
        print("Chain ended:", outputs)


class ToolChat(FakeMessagesListChatModel):
    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=tools, **kwargs)


@tool
def data_analysis(data: str) -> str:
    '''Analyze provided data.'''
    return f"Analysis: {data}"


llm = ToolChat(responses=[
    AIMessage(content="", tool_calls=[{"name": "data_analysis", "args": {"data": "[1,2]"},
                                       "id": "c1"}]),
    AIMessage(content="Done."),
])
prompt = ChatPromptTemplate.from_messages(
    [("human", "{input}"), ("placeholder", "{agent_scratchpad}")]
)
agent = create_tool_calling_agent(llm, [data_analysis], prompt)
executor = AgentExecutor(agent=agent, tools=[data_analysis], callbacks=[Logging()])
print(executor.invoke({"input": "analyze [1,2]"})["output"])
"""


def test_an_agent_executors_start_event_has_no_serialized_form_as_langchains() -> None:
    langchain_printed = _printed(_AGENT_EXECUTOR_SERIALIZED)
    assert "Chain started" not in langchain_printed
    assert "Chain ended: {'output': 'Done.'}\n" in langchain_printed
    assert _printed(_ported(_AGENT_EXECUTOR_SERIALIZED)) == langchain_printed

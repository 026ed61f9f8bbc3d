"""Parity: differences found by the twenty-eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# fbellame_custom_handler_async_on_llm_start: a follow-up question to a
# ConversationalRetrievalChain, the history given as (human, ai) pairs; a handler prints
# the prompts the model gets. LangChain writes each turn of the history on its own line
# after a newline, so the condense prompt's "{chat_history}" starts with an empty line;
# ragline joined the turns with no leading newline. Messages with no text are left out
# of the history text, as in LangChain.
_CONDENSE_PROMPT_HISTORY = """
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_classic.chains import ConversationalRetrievalChain


class Prompts(BaseCallbackHandler):
    def on_llm_start(self, serialized, prompts, **kwargs):
        print(repr(prompts[0]))


class Shelf(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content="The talk is about RAG.")]


condense = PromptTemplate.from_template("History:{chat_history}|Follow-up: {question}|")
answer = PromptTemplate.from_template("{context} Q: {question}")
llm = FakeListLLM(responses=["What is the talk about?", "RAG."] * 2, callbacks=[Prompts()])
chain = ConversationalRetrievalChain.from_llm(
    llm, Shelf(), condense_question_prompt=condense, combine_docs_chain_kwargs={"prompt": answer}
)
pairs = [("Who talks?", "Farid."), ("When?", "Today.")]
print(chain.run(question="And the topic?", chat_history=pairs))
history = [HumanMessage("Who talks?"), AIMessage(""), AIMessage("Farid."), HumanMessage("")]
print(chain.invoke({"question": "And the topic?", "chat_history": history})["answer"])
"""


def test_the_condensed_history_starts_each_turn_on_a_new_line_as_langchains() -> None:
    langchain_printed = _printed(_CONDENSE_PROMPT_HISTORY)
    assert langchain_printed.splitlines()[0] == (
        "'History:\\nHuman: Who talks?\\nAssistant: Farid.\\nHuman: When?\\nAssistant: Today."
        "|Follow-up: And the topic?|'"
    )
    assert langchain_printed.splitlines()[3] == (
        "'History:\\nHuman: Who talks?\\nAssistant: Farid.|Follow-up: And the topic?|'"
    )
    assert _printed(_ported(_CONDENSE_PROMPT_HISTORY)) == langchain_printed


# suyashmohan_async_iterator_callback_agenerate: a FastAPI route starts
# ``model.agenerate(messages=[[HumanMessage(...)]])`` in a task and streams the tokens an
# AsyncIteratorCallbackHandler collects. LangChain names generate's first parameter
# ``messages`` on a chat model and ``prompts`` on an LLM; ragline's was ``inputs``, so the
# keyword call raised TypeError.
_GENERATE_BY_KEYWORD = """
import asyncio
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.messages import HumanMessage

chat = FakeListChatModel(responses=["Hi!", "Bye."])
result = chat.generate(messages=[[HumanMessage(content="hello")]])
print(result.generations[0][0].text, type(result.generations[0][0]).__name__)
result = asyncio.run(chat.agenerate(messages=[[HumanMessage(content="hello")]], stop=["x"]))
print(result.generations[0][0].text, result.llm_output)
llm = FakeListLLM(responses=["one", "two"])
print(llm.generate(prompts=["a"]).generations[0][0].text)
print(asyncio.run(llm.agenerate(prompts=["b"])).generations[0][0].text)
"""


def test_generate_takes_its_inputs_by_langchains_keyword() -> None:
    langchain_printed = _printed(_GENERATE_BY_KEYWORD)
    assert langchain_printed == "Hi! ChatGeneration\nBye. {}\none\ntwo\n"
    assert _printed(_ported(_GENERATE_BY_KEYWORD)) == langchain_printed


def test_generate_without_inputs_or_with_them_twice_says_so() -> None:
    from ragline.core import FakeListChatModel, HumanMessage

    chat = FakeListChatModel(responses=["Hi!"])
    with pytest.raises(TypeError, match=r"generate\(\) needs its inputs"):
        chat.generate()
    with pytest.raises(TypeError, match="positionally and as messages="):
        chat.generate([[HumanMessage("a")]], messages=[[HumanMessage("b")]])


# pradeepk_tool_calling_agent_retriever_tool (rc 0 vs 1): a tool-calling agent over a fake
# chat model built with ``disable_streaming=True`` (AgentExecutor streams the agent, and a
# streamed fake loses its tool calls). ragline's chat models did not take the field;
# with it, stream / astream yield the reply from invoke in one piece, as LangChain's do
# ("tool_calling": only when tools are bound).
_DISABLE_STREAMING = """
import asyncio
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.tools import tool
from langchain_classic.agents import AgentExecutor, create_tool_calling_agent


class Tokens(BaseCallbackHandler):
    def __init__(self):
        self.tokens = []

    def on_llm_new_token(self, token, **kwargs):
        self.tokens.append(token)


class ToolFake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=tools)


@tool
def lookup(query: str) -> str:
    \"\"\"Look a word up.\"\"\"
    return f"{query}: quarterly"


call = {"name": "lookup", "args": {"query": "rebalance"}, "id": "call_1"}
replies = [AIMessage(content="", tool_calls=[call]), AIMessage(content="Every quarter.")]
model = ToolFake(disable_streaming=True, messages=iter(replies))
prompt = ChatPromptTemplate.from_messages(
    [("system", "Help."), MessagesPlaceholder("messages"), MessagesPlaceholder("agent_scratchpad")]
)
agent = create_tool_calling_agent(model, [lookup], prompt)
executor = AgentExecutor(agent=agent, tools=[lookup], return_intermediate_steps=True)
result = executor.invoke({"messages": [HumanMessage("How often?")]})
print(result["output"], [(a.tool, observation) for a, observation in result["intermediate_steps"]])

tokens = Tokens()
whole = ToolFake(disable_streaming=True, messages=iter(["a b c"]))
chunks = list(whole.stream("hi", config={"callbacks": [tokens]}))
print(len(chunks), type(chunks[0]).__name__, chunks[0].content, tokens.tokens)
some = ToolFake(disable_streaming="tool_calling", messages=iter(["x y", "p q"]))
print([c.content for c in some.stream("hi")])
schema = {"type": "function", "function": {"name": "f", "parameters": {}}}
print([c.content for c in some.bind_tools([schema]).stream("hi")])
listed = FakeListChatModel(responses=["abc"], disable_streaming=True)


async def main():
    return [c.content async for c in listed.astream("hi")]


print(asyncio.run(main()), listed.disable_streaming)
"""


def test_disable_streaming_makes_a_chat_model_stream_its_reply_whole() -> None:
    langchain_printed = _printed(_DISABLE_STREAMING)
    assert langchain_printed == (
        "Every quarter. [('lookup', 'rebalance: quarterly')]\n"
        "1 AIMessage a b c []\n"
        "['x', ' ', 'y']\n"
        "['p q']\n"
        "['abc'] True\n"
    )
    assert _printed(_ported(_DISABLE_STREAMING)) == langchain_printed


def test_disable_streaming_takes_a_bool_or_tool_calling_only() -> None:
    from ragline.core import FakeListChatModel, InvalidInputError

    with pytest.raises(InvalidInputError, match="disable_streaming must be True, False or"):
        FakeListChatModel(responses=["a"], disable_streaming="always")


# shikanet_multiquery_discord_logging: the program turns up MultiQueryRetriever's logger
# by its LangChain name, as LangChain's docs show, to see the generated queries. ragline
# writes the same record under "ragline.retrievers.multi_query", so after `port` nothing
# was logged; port now renames the logger in getLogger("...") calls it has a twin of.
_MULTI_QUERY_LOGGER = """
import logging
import sys

from langchain_classic.retrievers.multi_query import MultiQueryRetriever
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.retrievers import BaseRetriever


class Board(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content=f"about {query.split()[-1]}")]


logger = logging.getLogger("langchain_classic.retrievers.multi_query")
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
logger.addHandler(handler)
logger.setLevel(logging.INFO)
llm = FakeListChatModel(responses=["When is the raid?\\nWho leads the raid?\\n\\nWhat to bring?"])
retriever = MultiQueryRetriever.from_llm(retriever=Board(), llm=llm)
print([d.page_content for d in retriever.invoke("raid time and leader")])
logger.removeHandler(handler)
"""


def test_port_renames_the_multi_query_logger_so_its_records_still_show() -> None:
    ported = _ported(_MULTI_QUERY_LOGGER)
    assert 'logging.getLogger("ragline.retrievers.multi_query")' in ported
    langchain_printed = _printed(_MULTI_QUERY_LOGGER)
    assert langchain_printed == (
        "INFO Generated queries: ['When is the raid?', 'Who leads the raid?', "
        "'What to bring?']\n['about raid?', 'about bring?']\n"
    )
    assert _printed(ported) == langchain_printed


def test_port_renames_only_twin_loggers_named_by_a_plain_literal() -> None:
    from ragline.cli._port_rewrite import port_source

    source = (
        "import logging\n"
        "from logging import getLogger\n"
        "getLogger('langchain.retrievers.multi_query')\n"
        'logging.getLogger("langchain.chains")\n'
        'logging.getLogger(r"langchain.retrievers.multi_query")\n'
    )
    assert port_source(source).source == (
        "import logging\n"
        "from logging import getLogger\n"
        "getLogger('ragline.retrievers.multi_query')\n"
        'logging.getLogger("langchain.chains")\n'
        'logging.getLogger(r"langchain.retrievers.multi_query")\n'
    )

"""Parity: differences found by the forty-ninth port trial (issue 24, chat history in
real apps), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# trim_and_filter_messages_jokes: a stand-in model declared pydantic-style, a subclass
# of the fake that gives its ``responses`` field a default, then built with no
# responses (as the program builds ChatOpenAI(model=...)); ragline's fakes required the
# keyword (TypeError) where LangChain's take the subclass's default.
_FIELD_DEFAULT = """
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel, FakeMessagesListChatModel)
from langchain_core.language_models.fake import FakeListLLM, FakeStreamingListLLM
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages


class WordCounter(FakeListChatModel):
    responses: list = ["unused"]

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


class Echo(FakeListLLM):
    responses: list = ["one", "two"]


class Streamer(FakeStreamingListLLM):
    responses: list = ["abc"]


class Scripted(FakeMessagesListChatModel):
    responses: list = [AIMessage("scripted")]


messages = [
    SystemMessage("you answer with a joke"),
    HumanMessage("why is it called a chain"),
    AIMessage("because WordRope did not have the same ring to it"),
    HumanMessage("who is harrison chasing"),
]
print(trim_messages(messages, max_tokens=12, strategy="last", token_counter=WordCounter()))
print(WordCounter().invoke("hi").content, WordCounter(responses=["given"]).invoke("hi").content)
echo = Echo()
print(echo.invoke("a"), echo.invoke("b"), echo.invoke("c"))
print(list(Streamer().stream("q")), Scripted().invoke("q").content)
"""


def test_a_fake_subclass_gives_its_responses_a_default_as_langchains() -> None:
    ported = _ported(_FIELD_DEFAULT)
    assert "from ragline.core import" in ported
    langchain_printed = _printed(_FIELD_DEFAULT)
    assert langchain_printed.splitlines()[1:] == [
        "unused given",
        "one two one",
        "['a', 'b', 'c'] scripted",
    ]
    assert _printed(ported) == langchain_printed


# router_lambda_chains_history_verbose_ainvoke: RunnableWithMessageHistory(...,
# verbose=True) over a routing chain, awaited; LangChain's constructor takes verbose
# (and it changes nothing printed), ragline's raised TypeError.
_HISTORY_VERBOSE = """
import asyncio

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

model = FakeListChatModel(responses=["Paris.", "About two million."])
answer = ChatPromptTemplate.from_messages(
    [MessagesPlaceholder("chat_history"), ("human", "{question}")]
) | model | StrOutputParser()
chain = {"question": lambda x: x["question"], "chat_history": lambda x: x["chat_history"]} | (
    RunnableLambda(lambda info: answer))
store = {}
with_history = RunnableWithMessageHistory(
    chain,
    lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
    input_messages_key="question",
    history_messages_key="chat_history",
    verbose=True,
)


async def main():
    config = {"configurable": {"session_id": "s1"}}
    print(await with_history.ainvoke({"question": "Capital of France?"}, config))
    print(await with_history.ainvoke({"question": "How many live there?"}, config))
    print([(m.type, m.content) for m in store["s1"].messages])


asyncio.run(main())
"""


def test_message_history_takes_verbose_as_langchains() -> None:
    ported = _ported(_HISTORY_VERBOSE)
    assert "from ragline.core import RunnableWithMessageHistory" in ported
    langchain_printed = _printed(_HISTORY_VERBOSE)
    assert langchain_printed.splitlines()[:2] == ["Paris.", "About two million."]
    assert _printed(ported) == langchain_printed


# token_buffer_memory_from_chat_messages: ConversationTokenBufferMemory over an in-memory
# history, past its token limit. Both load the same newest messages; LangChain's also
# deletes the older ones from the history when it saves (its chat_memory shrinks),
# ragline's history keeps every message (a documented difference: the memory chooses
# what is loaded, nothing stored is removed).
_TOKEN_BUFFER = """
from langchain_classic.memory import ChatMessageHistory, ConversationTokenBufferMemory
from langchain_core.language_models.fake_chat_models import FakeListChatModel


class WordCounter(FakeListChatModel):
    def get_num_tokens(self, text: str) -> int:
        return len(text.split())


memory = ConversationTokenBufferMemory(
    llm=WordCounter(responses=["unused"]), max_token_limit=12,
    chat_memory=ChatMessageHistory(), return_messages=True)
memory.save_context({"input": "What is the capital of France?"}, {"output": "Paris."})
memory.save_context({"input": "And its river?"}, {"output": "The Seine."})
print([m.content for m in memory.load_memory_variables({})["history"]])
print([m.content for m in memory.chat_memory.messages])
"""


def test_the_token_buffer_memory_keeps_the_history_where_langchains_deletes() -> None:
    loaded = "['Paris.', 'And its river?', 'The Seine.']"
    assert _printed(_TOKEN_BUFFER).splitlines() == [loaded, loaded]
    assert _printed(_ported(_TOKEN_BUFFER)).splitlines() == [
        loaded,
        "['What is the capital of France?', 'Paris.', 'And its river?', 'The Seine.']",
    ]


# diy_file_chat_history_add_message_sequence_zh: a history class whose add_message
# cannot store the message it is given. LangChain logs the error of its history-saving
# listener and returns the answer, nothing stored; ragline's invoke raises the error (a
# documented difference: a turn that cannot be stored is not reported as answered).
_FAILING_HISTORY = """
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory


class ReadOnlyHistory(BaseChatMessageHistory):
    messages = []

    def add_message(self, message):
        raise PermissionError("the history is read-only")

    def clear(self):
        pass


prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{q}")])
chain = RunnableWithMessageHistory(
    prompt | FakeListChatModel(responses=["hello"]), lambda session_id: ReadOnlyHistory(),
    input_messages_key="q", history_messages_key="history")
try:
    print(chain.invoke({"q": "hi"}, {"configurable": {"session_id": "s"}}).content)
except PermissionError as error:
    print("raised:", error)
"""


def test_a_failing_history_write_raises_where_langchain_logs_it() -> None:
    assert _printed(_FAILING_HISTORY) == "hello\n"
    assert _printed(_ported(_FAILING_HISTORY)) == "raised: the history is read-only\n"


# trimmer_stream_history_todd_joke: RunnablePassthrough imported from
# langchain_core.runnables.history (the module imports it; a tutorial imports both names
# from there), a path the port table lacked: the program was left unported.
_PASSTHROUGH_FROM_HISTORY = """
from operator import itemgetter

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage, trim_messages
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnablePassthrough, RunnableWithMessageHistory

trimmer = trim_messages(max_tokens=2, strategy="last", token_counter=len)
prompt = ChatPromptTemplate.from_messages(
    [("system", "Answer in {language}."), MessagesPlaceholder("messages")])
chain = RunnablePassthrough.assign(messages=itemgetter("messages") | trimmer) | prompt | (
    FakeListChatModel(responses=["Hi Todd!", "You are Todd."]))
store = {}
with_history = RunnableWithMessageHistory(
    chain, lambda session_id: store.setdefault(session_id, InMemoryChatMessageHistory()),
    input_messages_key="messages")
config = {"configurable": {"session_id": "a"}}
for text in ["hi, I'm Todd", "who am I?"]:
    reply = with_history.invoke(
        {"messages": [HumanMessage(text)], "language": "English"}, config)
    print(reply.content)
print([(m.type, m.content) for m in store["a"].messages])
"""


def test_the_passthrough_imported_from_the_history_module_ports() -> None:
    ported = _ported(_PASSTHROUGH_FROM_HISTORY)
    assert "from ragline.core import RunnablePassthrough, RunnableWithMessageHistory" in ported
    langchain_printed = _printed(_PASSTHROUGH_FROM_HISTORY)
    assert langchain_printed.splitlines()[:2] == ["Hi Todd!", "You are Todd."]
    assert _printed(ported) == langchain_printed

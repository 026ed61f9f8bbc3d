"""Parity: differences found by the seventy-seventh port trial (issue 24), one scenario each.

The set's programs were chatbots with conversation memory (legacy memories in chains,
RunnableWithMessageHistory, trim_messages) from public repositories and tutorials. Each
scenario runs the same program through LangChain and through ragline (its source after
``ragline port``) and compares what it prints.
"""

from tests.parity._port_trial import ported
from tests.parity._port_trial import printed as _printed

# Offline programs count tokens with a function of their own: custom_get_token_ids is a
# field of every LangChain model. ragline's models dropped it with a warning and counted
# with their own tokenizer, so a summary-buffer memory pruned other messages and a
# trimmer given the model as its token_counter kept other messages.
_CUSTOM_TOKEN_IDS = """
from langchain_classic.memory import ConversationSummaryBufferMemory
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, trim_messages


def by_word(text):
    return [7] * len(text.split())


llm = FakeListLLM(responses=["S1", "S2", "S3"], custom_get_token_ids=by_word)
print(llm.get_num_tokens("one two three four"), llm.get_token_ids("a b"))
chat = FakeListChatModel(responses=["ok"], custom_get_token_ids=by_word)
print(chat.get_num_tokens_from_messages([HumanMessage("red green blue")]))

memory = ConversationSummaryBufferMemory(llm=llm, max_token_limit=7)
memory.save_context({"input": "hello there"}, {"output": "hi"})
memory.save_context({"input": "how are you doing"}, {"output": "fine thanks"})
print(memory.load_memory_variables({}))

history = [
    SystemMessage("be brief"),
    HumanMessage("first question here"),
    AIMessage("first answer"),
    HumanMessage("second question"),
    AIMessage("second answer here now"),
]
kept = trim_messages(history, max_tokens=12, strategy="last", token_counter=chat,
                     include_system=True, start_on="human")
print([m.content for m in kept])
"""


def test_a_models_custom_get_token_ids_counts_its_tokens() -> None:
    expected = _printed(_CUSTOM_TOKEN_IDS)
    assert expected.splitlines() == [
        "4 [7, 7]",
        "4",
        "{'history': 'System: S1\\nAI: fine thanks'}",
        "['be brief', 'second question', 'second answer here now']",
    ]
    assert _printed(ported(_CUSTOM_TOKEN_IDS)) == expected


# A trimmer made without messages (trim_messages(max_tokens=..., ...)) prints as
# LangChain's, RunnableLambda(...): ragline's wrapped its options in a lambda, whose
# source the printed runnable showed. filter_messages and merge_message_runs too.
_DEFERRED_PRINTED = """
from langchain_core.messages import filter_messages, merge_message_runs, trim_messages

trimmer = trim_messages(max_tokens=3, strategy="last", token_counter=len)
print(trimmer)
print(repr(filter_messages(include_types=["human"])))
print(merge_message_runs() | trimmer)
"""


def test_a_deferred_message_helper_prints_as_langchains() -> None:
    expected = _printed(_DEFERRED_PRINTED)
    assert expected.splitlines() == [
        "RunnableLambda(...)",
        "RunnableLambda(...)",
        "first=RunnableLambda(...) middle=[] last=RunnableLambda(...)",
    ]
    assert _printed(ported(_DEFERRED_PRINTED)) == expected


# A ConversationChain whose prompt does not fit its memory is refused with pydantic's
# ValidationError, as LangChain's pydantic chain refuses it (a ValueError; its text is
# pydantic's report there and ragline's sentence here). ragline raised only its
# InvalidInputError, so `except ValidationError` missed it and the printed class differed.
_CONVERSATION_REFUSED = """
from pydantic import ValidationError
from langchain_classic.chains import ConversationChain
from langchain_classic.memory import ConversationBufferMemory
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=["ok"])
tries = [
    dict(prompt=PromptTemplate.from_template("{history} {question}")),
    dict(memory=ConversationBufferMemory(memory_key="chat")),
    dict(memory=ConversationBufferMemory(memory_key="input")),
]
for kwargs in tries:
    try:
        ConversationChain(llm=llm, **kwargs)
    except ValidationError as error:
        print(type(error).__name__, isinstance(error, ValueError), error.error_count(),
              error.title, error.errors()[0]["type"])
"""


def test_a_conversation_chains_refused_prompt_is_a_validation_error() -> None:
    expected = _printed(_CONVERSATION_REFUSED)
    assert expected.splitlines() == ["ValidationError True 1 ConversationChain value_error"] * 3
    assert _printed(ported(_CONVERSATION_REFUSED)) == expected


# merge_message_runs joins a run as LangChain adds the messages as chunks: the joined
# message has no name (a function message keeps its function's), and an AI message's id
# is chosen as a streamed reply's (a provider's id before an lc_ one); ragline kept the
# first message's name and id, so a merged chat history printed otherwise.
_MERGED_RUNS = """
from langchain_core.messages import (
    AIMessage, ChatMessage, FunctionMessage, HumanMessage, SystemMessage, merge_message_runs,
)

history = [
    SystemMessage("rules", name="setup", id="s1"),
    HumanMessage("first", name="bob", id="h1"),
    HumanMessage("second", name="bob", id="h2"),
    AIMessage("one", name="bot"),
    AIMessage("two", id="lc_run-7"),
    AIMessage("three", id="provider-9"),
    ChatMessage(role="critic", content="c1", name="cr", id="c1"),
    ChatMessage(role="critic", content="c2", id="c2"),
    FunctionMessage(name="f", content="x", id="f1"),
    FunctionMessage(name="f", content="y", id="f2"),
]
for message in merge_message_runs(history):
    print(type(message).__name__, repr(message.content), message.name, message.id)
"""


def test_merged_runs_drop_the_name_and_pick_the_id_as_langchains() -> None:
    expected = _printed(_MERGED_RUNS)
    assert expected.splitlines() == [
        "SystemMessage 'rules' setup s1",
        "HumanMessage 'first\\nsecond' None h1",
        "AIMessage 'one\\ntwo\\nthree' None provider-9",
        "ChatMessage 'c1\\nc2' None c1",
        "FunctionMessage 'x\\ny' f f1",
    ]
    assert _printed(ported(_MERGED_RUNS)) == expected


# A MessagesPlaceholder given a string instead of a list of messages raises ValueError
# in LangChain; ragline's error printed as InvalidInputError (it is a ValueError too).
_PLACEHOLDER_NOT_A_LIST = """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{q}")])
try:
    prompt.invoke({"q": "hi", "history": "we talked before"})
except ValueError as error:
    print(type(error).__name__)
"""


def test_a_placeholder_given_a_string_raises_what_prints_as_value_error() -> None:
    expected = _printed(_PLACEHOLDER_NOT_A_LIST)
    assert expected.splitlines() == ["ValueError"]
    assert _printed(ported(_PLACEHOLDER_NOT_A_LIST)) == expected


# A chat prompt fills each optional MessagesPlaceholder's variable with no messages, as
# LangChain's does: it shows in partial_variables (and stays optional); a caller's
# partial_variables keep their place before it. ragline's partial_variables were empty.
_OPTIONAL_PLACEHOLDER_PARTIALS = """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

prompt = ChatPromptTemplate.from_messages(
    [("system", "You are {role}."), MessagesPlaceholder("history", optional=True), ("human", "{q}")]
)
print(prompt.partial_variables, prompt.input_variables, prompt.optional_variables)
filled = prompt.partial(role="a tutor")
print(filled.partial_variables, filled.input_variables, filled.optional_variables)
given = ChatPromptTemplate(
    [MessagesPlaceholder("h", optional=True), ("human", "{q}")], partial_variables={"q": "Q"}
)
print(given.partial_variables, given.input_variables, given.optional_variables)
print([m.content for m in given.invoke({}).to_messages()])
print([m.content for m in given.invoke({"h": [("ai", "earlier")]}).to_messages()])
"""


def test_an_optional_placeholder_is_a_partial_variable_as_in_langchain() -> None:
    expected = _printed(_OPTIONAL_PLACEHOLDER_PARTIALS)
    assert expected.splitlines() == [
        "{'history': []} ['q', 'role'] ['history']",
        "{'history': [], 'role': 'a tutor'} ['q'] ['history']",
        "{'q': 'Q', 'h': []} [] ['h']",
        "['Q']",
        "['earlier', 'Q']",
    ]
    assert _printed(ported(_OPTIONAL_PLACEHOLDER_PARTIALS)) == expected


# CombinedMemory refuses two memories with the same variable with pydantic's
# ValidationError, as LangChain's pydantic memory does (ragline's text is its own).
_COMBINED_REFUSED = """
from pydantic import ValidationError
from langchain_classic.memory import CombinedMemory, ConversationBufferMemory

try:
    CombinedMemory(memories=[ConversationBufferMemory(), ConversationBufferMemory()])
except ValidationError as error:
    print(type(error).__name__, isinstance(error, ValueError), error.error_count(), error.title)
"""


def test_combined_memories_sharing_a_variable_are_a_validation_error() -> None:
    expected = _printed(_COMBINED_REFUSED)
    assert expected.splitlines() == ["ValidationError True 1 CombinedMemory"]
    assert _printed(ported(_COMBINED_REFUSED)) == expected

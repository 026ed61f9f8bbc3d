"""Parity: differences found by the fortieth port trial (issue 24), one scenario each.

The set's theme was conversation memory and chat history. Each scenario runs the same
program shape through LangChain and through ragline (the program's source after
``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# opentutorial_buffer_memory_bank_account: a notebook shows a memory as its bare
# expression (``memory``), which prints the fields; ragline printed
# ``<ragline.memory._buffer.ConversationBufferMemory object at 0x...>``.
_MEMORY_PRINTED = """
from langchain_classic.memory import (
    CombinedMemory,
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
)

memory = ConversationBufferMemory()
print(memory)
print(repr(memory))
memory.save_context({"human": "hi"}, {"ai": "hello"})
print(memory)
window = ConversationBufferWindowMemory(
    k=2, memory_key="chat_history", input_key="q", output_key="a",
    return_messages=True, human_prefix="User",
)
print(window)
print(repr(window))
print(ConversationBufferWindowMemory(k=5, ai_prefix=""))
combined = CombinedMemory(
    memories=[ConversationBufferMemory(memory_key="a"), ConversationBufferMemory(input_key="x")]
)
print(combined)
print([combined])
"""


def test_a_memory_prints_its_fields_as_langchains() -> None:
    langchain_printed = _printed(_MEMORY_PRINTED)
    assert (
        langchain_printed.splitlines()[0] == "chat_memory=InMemoryChatMessageHistory(messages=[])"
    )
    assert "output_key='a', input_key='q'" in langchain_printed
    assert _printed(_ported(_MEMORY_PRINTED)) == langchain_printed


# mistral_history_buffer_override: a ConversationBufferMemory subclass overrides the
# ``buffer`` property to render the conversation in Mistral's [INST] format; LangChain's
# load_memory_variables returns ``{memory_key: self.buffer}``, so chains load that form,
# where ragline's rendered its own transcript.
_BUFFER_OVERRIDE = """
from typing import Any

from langchain_classic.memory import (
    ConversationBufferMemory,
    ConversationBufferWindowMemory,
)
from langchain_core.messages import AIMessage


class Inst(ConversationBufferMemory):
    @property
    def buffer(self) -> Any:
        if self.return_messages:
            return self.chat_memory.messages
        parts = [
            m.content if isinstance(m, AIMessage) else f"[INST] {m.content} [/INST]"
            for m in self.chat_memory.messages
        ]
        return "<s>" + " ".join(parts) + "</s>"


class Shouting(ConversationBufferWindowMemory):
    @property
    def buffer(self) -> Any:
        return self.buffer_as_str.upper()


memory = Inst(memory_key="chat_history", input_key="question", output_key="answer")
memory.save_context({"question": "Was ist die DGUV?", "x": 1}, {"answer": "Eine Versicherung."})
memory.save_context({"question": "Und die BG?"}, {"answer": "Eine Genossenschaft."})
print(memory.load_memory_variables({}))
print(memory.buffer_as_str)
memory.return_messages = True
print(memory.load_memory_variables({}))
window = Shouting(k=1)
window.save_context({"input": "hi"}, {"output": "hello"})
window.save_context({"input": "how are you?"}, {"output": "fine"})
print(window.load_memory_variables({}))
"""


def test_a_memory_subclass_buffer_is_what_is_loaded_as_langchains() -> None:
    langchain_printed = _printed(_BUFFER_OVERRIDE)
    assert langchain_printed.splitlines()[0] == (
        "{'chat_history': '<s>[INST] Was ist die DGUV? [/INST] Eine Versicherung. "
        "[INST] Und die BG? [/INST] Eine Genossenschaft.</s>'}"
    )
    assert langchain_printed.splitlines()[-1] == "{'history': 'HUMAN: HOW ARE YOU?\\nAI: FINE'}"
    assert _printed(_ported(_BUFFER_OVERRIDE)) == langchain_printed


# summary_memory_essay_ideas: a completion model's summary starts with a newline
# (OpenAI's completions do); LangChain keeps the model's text as it is, ragline stripped
# it, so the loaded history printed differently.
_SUMMARY_AS_WRITTEN = """
from langchain_classic.memory import ConversationSummaryMemory
from langchain_core.language_models import FakeListLLM

memory = ConversationSummaryMemory(
    llm=FakeListLLM(responses=["\\nThe human asks for essay ideas. ", "\\n  Both said hi.\\n"])
)
memory.save_context({"input": "ideas for an AI essay?"}, {"output": "write about LLMs"})
print(repr(memory.load_memory_variables({})["history"]))
print(repr(memory.buffer))
print(repr(memory.predict_new_summary(memory.chat_memory.messages, memory.buffer)))
"""


def test_a_summary_is_kept_as_the_model_wrote_it_as_langchains() -> None:
    langchain_printed = _printed(_SUMMARY_AS_WRITTEN)
    assert langchain_printed.splitlines()[0] == "'\\nThe human asks for essay ideas. '"
    assert langchain_printed.splitlines()[-1] == "'\\n  Both said hi.\\n'"
    assert _printed(_ported(_SUMMARY_AS_WRITTEN)) == langchain_printed


# dial_messages_convert_roles: convert_to_messages of an item with a role LangChain does
# not know (("robot", ...)) raises ValueError; the program prints type(err).__name__,
# which read InvalidInputError on ragline (still a ValueError for ``except`` clauses).
_UNKNOWN_ROLE = """
from langchain_core.messages import convert_to_messages
from langchain_core.prompts import ChatPromptTemplate

for bad in ([("robot", "beep")], [{"role": "robot", "content": "beep"}]):
    try:
        convert_to_messages(bad)
    except ValueError as err:
        print(type(err).__name__, isinstance(err, ValueError), repr(err).split("(")[0])
try:
    ChatPromptTemplate.from_messages([("robot", "beep {x}")])
except ValueError as err:
    print(type(err).__name__)
"""


def test_an_unknown_message_role_prints_as_langchains_value_error() -> None:
    langchain_printed = _printed(_UNKNOWN_ROLE)
    assert langchain_printed == "ValueError True ValueError\n" * 2 + "ValueError\n"
    assert _printed(_ported(_UNKNOWN_ROLE)) == langchain_printed


# inmemory_history_subclass_agent_output_key: input_messages_key and
# history_messages_key both "messages". In both libraries the stored messages replace the
# new ones in the runnable's input (the model never sees the user's message); LangChain
# then stores the old messages again as the turn's input ([AI1, AI1, AI2] after two turns),
# ragline stores the turn (deliberate, documented) and warns when the wrapper is built.
_SAME_KEY = """
import warnings

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

seen = []
prompt = ChatPromptTemplate.from_messages([("system", "S"), MessagesPlaceholder("messages")])
model = FakeListChatModel(responses=["a1", "a2"])
chain = (
    prompt
    | RunnableLambda(lambda v: seen.append([m.content for m in v.to_messages()]) or v)
    | model
    | RunnableLambda(lambda m: {"output": m})
)
history = InMemoryChatMessageHistory()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    wrapped = RunnableWithMessageHistory(
        chain,
        lambda session_id: history,
        input_messages_key="messages",
        history_messages_key="messages",
        output_messages_key="output",
    )
print([str(w.message).split(":")[0] for w in caught if w.category is UserWarning])
config = {"configurable": {"session_id": "s"}}
for text in ("h1", "h2"):
    print(wrapped.invoke({"messages": [HumanMessage(text)]}, config)["output"].content)
print(seen)
print([m.content for m in history.messages])
"""


def test_input_and_history_under_one_key_store_the_turn_and_warn() -> None:
    langchain_printed = _printed(_SAME_KEY)
    assert langchain_printed == ("[]\na1\na2\n[['S'], ['S', 'a1']]\n['a1', 'a1', 'a2']\n")
    assert _printed(_ported(_SAME_KEY)) == (
        "['RunnableWithMessageHistory']\na1\na2\n[['S'], ['S', 'h1', 'a1']]\n"
        "['h1', 'a1', 'h2', 'a2']\n"
    )


# belajar_runnable_with_history_sessions_stream: history_factory_config names user_id and
# conversation_id, get_session_history takes session_id. LangChain builds the wrapper and
# raises ValueError at its first call; ragline raises ConfigurationError (a ValueError)
# when it is built, before anything runs (deliberate, documented). Both programs exit.
_MISMATCHED_FACTORY = """
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import ConfigurableFieldSpec
from langchain_core.runnables.history import RunnableWithMessageHistory


def get_session_history(session_id):
    return InMemoryChatMessageHistory()


specs = [
    ConfigurableFieldSpec(id=i, annotation=str, name=i, default="", is_shared=True)
    for i in ("user_id", "conversation_id")
]
try:
    wrapped = RunnableWithMessageHistory(
        FakeListChatModel(responses=["hi"]), get_session_history, history_factory_config=specs
    )
    print("built")
    wrapped.invoke("hello", {"configurable": {"user_id": "u", "conversation_id": "c"}})
except ValueError as err:
    print(type(err).__name__, "user_id" in str(err) and "session_id" in str(err))
"""


def test_a_factory_config_that_misses_the_parameters_is_refused_when_built() -> None:
    assert _printed(_MISMATCHED_FACTORY) == "built\nValueError True\n"
    assert _printed(_ported(_MISMATCHED_FACTORY)) == "ConfigurationError True\n"


# Noticed while writing the summary scenario: LangChain's ConversationSummaryMemory has
# no async save of its own, so asave_context stores the messages and leaves the summary
# as it was; ragline's async save folds the turn into the summary as its sync save does
# (as for ConversationEntityMemory; deliberate, documented).
_SUMMARY_ASYNC_SAVE = """
import asyncio

from langchain_classic.memory import ConversationSummaryMemory
from langchain_core.language_models import FakeListLLM

memory = ConversationSummaryMemory(llm=FakeListLLM(responses=["The human said hi."]))
asyncio.run(memory.asave_context({"input": "hi"}, {"output": "hello"}))
print(repr(memory.buffer), len(memory.chat_memory.messages))
"""


def test_a_summary_memory_async_save_updates_the_summary() -> None:
    assert _printed(_SUMMARY_ASYNC_SAVE) == "'' 2\n"
    assert _printed(_ported(_SUMMARY_ASYNC_SAVE)) == "'The human said hi.' 2\n"

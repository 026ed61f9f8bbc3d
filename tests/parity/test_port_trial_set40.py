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

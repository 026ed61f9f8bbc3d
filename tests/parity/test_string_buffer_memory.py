"""Parity: ConversationStringBufferMemory against LangChain's.

A scripted conversation through both libraries' memories (default and renamed keys and
prefixes, explicit input and output keys): the transcript after each save, what loading
gives, ``clear``, the async twins, a ``ConversationChain`` over the memory, and the
errors (ambiguous inputs or outputs, ``return_messages=True``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains import ConversationChain as LCConversationChain
from langchain_classic.memory import ConversationStringBufferMemory as LCMemory
from langchain_core.language_models import FakeListLLM as LCFakeListLLM

from ragline.chains import ConversationChain
from ragline.core import FakeListLLM
from ragline.memory import ConversationStringBufferMemory

COVERS = {"memory.ConversationStringBufferMemory"}

TURNS = [({"input": "hi"}, {"output": "hello"}), ({"input": "2+2?"}, {"output": "4"})]


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", isinstance(err, ValueError), str(err).splitlines()[0])


def script(memory: Any) -> list[Any]:
    seen = [memory.memory_variables, memory.load_memory_variables({"input": "x"})]
    for inputs, outputs in TURNS:
        memory.save_context(inputs, outputs)
        seen.append(memory.load_memory_variables({}))
    seen.append(memory.buffer)
    memory.clear()
    seen.append(memory.load_memory_variables({}))
    return seen


@pytest.mark.parametrize(
    "options",
    [{}, {"human_prefix": "Me", "ai_prefix": "Bot", "memory_key": "chat", "buffer": "Earlier."}],
)
def test_transcript_as_langchains(options):
    assert script(ConversationStringBufferMemory(**options)) == script(LCMemory(**options))


def test_keys_async_and_errors():
    lc = LCMemory(input_key="q", output_key="a")
    rl = ConversationStringBufferMemory(input_key="q", output_key="a")
    for memory in (lc, rl):
        memory.save_context({"q": "one", "other": "x"}, {"a": "two", "b": "y"})
        asyncio.run(memory.asave_context({"q": "three"}, {"a": "four"}))
    assert asyncio.run(rl.aload_memory_variables({})) == asyncio.run(lc.aload_memory_variables({}))
    plain_lc, plain_rl = LCMemory(), ConversationStringBufferMemory()
    for inputs, outputs in [({"a": "1", "b": "2"}, {"o": "x"}), ({"a": "1"}, {"o": "x", "p": "y"})]:
        theirs = outcome(plain_lc.save_context, inputs, outputs)
        ours = outcome(plain_rl.save_context, inputs, outputs)
        assert ours[:2] == theirs[:2] == ("raised", True)
    assert outcome(plain_rl.save_context, {"a": "1"}, {"o": "x", "p": "y"}) == outcome(
        plain_lc.save_context, {"a": "1"}, {"o": "x", "p": "y"}
    )
    assert plain_rl.buffer == plain_lc.buffer == ""
    ours = outcome(lambda: ConversationStringBufferMemory(return_messages=True))
    theirs = outcome(lambda: LCMemory(return_messages=True))
    assert ours[:2] == theirs[:2] == ("raised", True)
    with pytest.raises(ValueError) as lc_error:
        LCMemory(return_messages=True)
    assert ours[2] in str(lc_error.value)


def test_conversation_chain_over_it():
    replies = ["Hello!", "It is 4."]
    lc = LCConversationChain(llm=LCFakeListLLM(responses=replies), memory=LCMemory())
    rl = ConversationChain(
        llm=FakeListLLM(responses=replies), memory=ConversationStringBufferMemory()
    )
    for said in ["hi", "2+2?"]:
        assert rl.invoke({"input": said}) == lc.invoke({"input": said})
    assert rl.memory.buffer == lc.memory.buffer

"""Parity: ConversationEntityMemory and InMemoryEntityStore against LangChain's.

The same fake model replies (entity lists, then one summary per entity) go through both
libraries' memories over a scripted conversation: the loaded history (text or messages,
the last ``k`` exchanges), the entities with their summaries so far, the entity cache
and store after each save, ``NONE``, explicit and ambiguous input keys, ``clear``, and a
``ConversationChain`` over the memory with ENTITY_MEMORY_CONVERSATION_TEMPLATE. The
prompts are ragline's own wording with LangChain's variables; only the model's replies
reach the outputs.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.chains import ConversationChain as LCConversationChain
from langchain_classic.memory import ConversationEntityMemory as LCConversationEntityMemory
from langchain_classic.memory import InMemoryEntityStore as LCInMemoryEntityStore
from langchain_classic.memory.entity import BaseEntityStore as LCBaseEntityStore
from langchain_classic.memory.prompt import (
    ENTITY_MEMORY_CONVERSATION_TEMPLATE as LC_ENTITY_MEMORY_CONVERSATION_TEMPLATE,
)
from langchain_core.language_models import FakeListLLM as LCFakeListLLM

from ragline.chains import ConversationChain
from ragline.core import FakeListLLM
from ragline.memory import (
    ENTITY_MEMORY_CONVERSATION_TEMPLATE,
    BaseEntityStore,
    ConversationEntityMemory,
    InMemoryEntityStore,
)

COVERS = {
    "memory.ConversationEntityMemory",
    "memory.InMemoryEntityStore",
    "memory.BaseEntityStore",
    "memory.ENTITY_MEMORY_CONVERSATION_TEMPLATE",
}

# (input, output, entity-extraction reply, one summary reply per entity found)
TURNS = [
    (
        "Deven and Sam are working on a hackathon",
        "Sounds fun!",
        "Deven, Sam",
        ["Deven works on a hackathon.", "Sam works on a hackathon with Deven."],
    ),
    ("It is called Landmark", "Nice name.", " Landmark ", ["  A hackathon project.  "]),
    ("How are you?", "Fine.", "NONE", []),
    ("Sam likes tea", "Noted.", "Sam,", ["Sam likes tea.", ""]),
    ("Bye", "Bye!", "Deven,Landmark", ["Deven said bye.", "Landmark."]),
]


def replies() -> list[str]:
    return [text for _, _, found, summaries in TURNS for text in [found, *summaries]]


def outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as err:
        return ("raised", isinstance(err, ValueError))


def shown(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shown(v) for v in value]
    if hasattr(value, "content"):
        return (type(value).__name__, value.content)
    return value


def script(memory: Any) -> list[Any]:
    seen = []
    for said, answer, _, _ in TURNS:
        seen.append(shown(memory.load_memory_variables({"input": said})))
        seen.append(list(memory.entity_cache))
        memory.save_context({"input": said}, {"output": answer})
        seen.append(dict(memory.entity_store.store))
        seen.append(shown(memory.buffer))
    return seen


@pytest.mark.parametrize(
    "options",
    [{}, {"k": 1}, {"return_messages": True}, {"k": 0, "human_prefix": "Me", "ai_prefix": "Bot"}],
)
def test_a_conversation_as_langchains(options):
    lc = LCConversationEntityMemory(llm=LCFakeListLLM(responses=replies()), **options)
    rl = ConversationEntityMemory(llm=FakeListLLM(responses=replies()), **options)
    assert rl.memory_variables == lc.memory_variables
    assert script(rl) == script(lc)
    rl.clear()
    lc.clear()
    assert (shown(rl.buffer), rl.entity_cache, rl.entity_store.store) == (
        shown(lc.buffer),
        lc.entity_cache,
        lc.entity_store.store,
    )


def test_async_and_input_keys():
    lc = LCConversationEntityMemory(llm=LCFakeListLLM(responses=replies()), input_key="q")
    rl = ConversationEntityMemory(llm=FakeListLLM(responses=replies()), input_key="q")

    async def run(memory: Any) -> list[Any]:
        loaded = await memory.aload_memory_variables({"q": TURNS[0][0], "other": 1})
        await memory.asave_context({"q": TURNS[0][0], "other": 1}, {"output": "ok"})
        return [shown(loaded), dict(memory.entity_store.store), shown(memory.buffer)]

    ours, theirs = asyncio.run(run(rl)), asyncio.run(run(lc))
    assert (ours[0], ours[2]) == (theirs[0], theirs[2])
    # LangChain's asave_context is its chat memory's: it stores the messages but never
    # asks for the summaries (saving the same exchange synchronously does). ragline's
    # async save does what its sync save does: a deliberate difference.
    assert theirs[1] == {}
    assert ours[1] == {"Deven": TURNS[0][3][0], "Sam": TURNS[0][3][1]}
    two = {"a": "x", "b": "y"}
    lc2 = LCConversationEntityMemory(llm=LCFakeListLLM(responses=["NONE"]))
    rl2 = ConversationEntityMemory(llm=FakeListLLM(responses=["NONE"]))
    assert outcome(rl2.load_memory_variables, two) == outcome(lc2.load_memory_variables, two)
    assert outcome(rl2.load_memory_variables, two)[0] == "raised"


def test_in_memory_entity_store():
    stores = [LCInMemoryEntityStore(), InMemoryEntityStore()]
    seen = []
    for store in stores:
        steps = []
        store.set("a", "1")
        store.set("b", None)
        steps += [store.get("a"), store.get("b"), store.get("c"), store.get("c", "d")]
        steps += [store.exists("a"), store.exists("c"), outcome(store.delete, "a")]
        steps += [outcome(store.delete, "a")[0], dict(store.store)]
        store.clear()
        steps.append(dict(store.store))
        seen.append(steps)
    assert seen[1] == seen[0]


def test_conversation_chain_with_the_entity_template():
    assert set(ENTITY_MEMORY_CONVERSATION_TEMPLATE.input_variables) == set(
        LC_ENTITY_MEMORY_CONVERSATION_TEMPLATE.input_variables
    )
    answers = ["Hello Deven.", "Sam too."]
    lc_replies = ["Deven", answers[0], "Deven is here.", "Sam", answers[1], "Sam is here."]
    lc = LCConversationChain(
        llm=LCFakeListLLM(responses=lc_replies),
        prompt=LC_ENTITY_MEMORY_CONVERSATION_TEMPLATE,
        memory=LCConversationEntityMemory(llm=LCFakeListLLM(responses=lc_replies)),
    )
    rl = ConversationChain(
        llm=FakeListLLM(responses=lc_replies),
        prompt=ENTITY_MEMORY_CONVERSATION_TEMPLATE,
        memory=ConversationEntityMemory(llm=FakeListLLM(responses=lc_replies)),
    )
    for said in ["I am Deven", "Sam is here"]:
        assert shown(rl.invoke({"input": said})) == shown(lc.invoke({"input": said}))
    assert rl.memory.entity_store.store == lc.memory.entity_store.store


def upper_store(base: Any) -> Any:
    """A program's own entity store: keeps summaries upper-cased, in a list of pairs."""

    class UpperStore(base):
        pairs: list[tuple[str, str | None]] = []  # noqa: RUF012  (a field, as LangChain's)

        def get(self, key: str, default: str | None = None) -> str | None:
            found = [value for k, value in self.pairs if k == key]
            return found[-1] if found else default

        def set(self, key: str, value: str | None) -> None:
            self.pairs.append((key, value.upper() if value else value))

        def delete(self, key: str) -> None:
            self.pairs = [(k, v) for k, v in self.pairs if k != key]

        def exists(self, key: str) -> bool:
            return any(k == key for k, _ in self.pairs)

        def clear(self) -> None:
            self.pairs.clear()

    return UpperStore


def test_a_programs_own_entity_store():
    class LCBare(LCBaseEntityStore):
        pass

    class Bare(BaseEntityStore):
        pass

    assert outcome(Bare)[0] == outcome(LCBare)[0] == "raised"
    lc_store, rl_store = upper_store(LCBaseEntityStore)(), upper_store(BaseEntityStore)()
    lc = LCConversationEntityMemory(llm=LCFakeListLLM(responses=replies()), entity_store=lc_store)
    rl = ConversationEntityMemory(llm=FakeListLLM(responses=replies()), entity_store=rl_store)
    for said, answer, _, _ in TURNS:
        assert shown(rl.load_memory_variables({"input": said})) == shown(
            lc.load_memory_variables({"input": said})
        )
        rl.save_context({"input": said}, {"output": answer})
        lc.save_context({"input": said}, {"output": answer})
        assert rl_store.pairs == lc_store.pairs
    assert upper_store(BaseEntityStore)().pairs == []  # a fresh list per store

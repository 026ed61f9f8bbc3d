"""Parity: ConversationalRetrievalChain and a buffer memory's messages in a chain's
result, against langchain_classic's.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.chains import ConversationalRetrievalChain as LCConversational
    from langchain_classic.chains import ConversationChain as LCConversationChain
    from langchain_classic.memory import ConversationBufferMemory as LCBufferMemory
    from langchain_classic.memory import ConversationBufferWindowMemory as LCWindowMemory
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.language_models import FakeListLLM as LCFakeLLM
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

import ragline.chains as rl_chains
import ragline.memory as rl_memory
from ragline.core import BaseRetriever, Document, FakeListLLM
from tests.parity._observe import observe

COVERS = {"chains.ConversationalRetrievalChain"}


class LCNotes(LCBaseRetriever):
    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        return [
            LCDocument(page_content=f"doc about {query}", metadata={"source": "s1"}),
            LCDocument(page_content="second", metadata={"source": "s2"}),
        ]


class RLNotes(BaseRetriever):
    def _get_relevant_documents(self, query: str) -> list[Document]:
        return [
            Document(f"doc about {query}", metadata={"source": "s1"}),
            Document("second", metadata={"source": "s2"}),
        ]


LC = {"Chain": LCConversational, "LLM": LCFakeLLM, "Notes": LCNotes, "Buffer": LCBufferMemory,
      "Window": LCWindowMemory, "Conversation": LCConversationChain}  # fmt: skip
RL = {"Chain": rl_chains.ConversationalRetrievalChain, "LLM": FakeListLLM, "Notes": RLNotes,
      "Buffer": rl_memory.ConversationBufferMemory,
      "Window": rl_memory.ConversationBufferWindowMemory,
      "Conversation": rl_chains.ConversationChain}  # fmt: skip


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_questions_with_a_chat_history_given() -> None:
    def run(m: dict[str, Any]) -> Any:
        chain = m["Chain"].from_llm(
            m["LLM"](responses=["answer one", "rephrased", "answer two"]), m["Notes"]()
        )
        first = observe(chain.invoke({"question": "what?", "chat_history": []}))
        second = observe(
            chain.invoke({"question": "and?", "chat_history": [("what?", "answer one")]})
        )
        return [first, second, chain.input_keys, chain.output_keys]

    theirs, ours = run(LC), run(RL)
    assert ours == theirs
    assert ours[1]["answer"] == "answer two"


def test_source_documents_and_generated_question() -> None:
    def run(m: dict[str, Any]) -> Any:
        chain = m["Chain"].from_llm(
            m["LLM"](responses=["a1"]),
            m["Notes"](),
            return_source_documents=True,
            return_generated_question=True,
        )
        return observe(chain.invoke({"question": "q", "chat_history": []}))

    theirs, ours = run(LC), run(RL)
    assert ours == theirs
    assert ours["generated_question"] == "q"


def test_with_a_memory_the_printed_result_shows_the_saved_turn() -> None:
    """A buffer memory with return_messages hands out the history's own list, so the
    result printed after invoke holds the turn just saved (fails when ragline's memory
    hands out a copy: 'chat_history' printed [] for the first turn)."""

    def run(m: dict[str, Any]) -> Any:
        memory = m["Buffer"](memory_key="chat_history", return_messages=True)
        chain = m["Chain"].from_llm(m["LLM"](responses=["a1", "rq", "a2"]), m["Notes"](),
                                    memory=memory)  # fmt: skip
        first = repr(observe(chain.invoke({"question": "q1"})))
        second = repr(observe(chain.invoke({"question": "q2"})))
        return [first, second, observe(memory.load_memory_variables({}))]

    theirs, ours = run(LC), run(RL)
    assert ours == theirs
    assert "('HumanMessage', 'q1', None), ('AIMessage', 'a1', None)]" in ours[0]


@pytest.mark.parametrize("memory", ["Buffer", "Window"])
@pytest.mark.parametrize("return_messages", [True, False])
def test_conversation_chain_results_as_printed(memory: str, return_messages: bool) -> None:
    def run(m: dict[str, Any]) -> Any:
        options = {"k": 1} if memory == "Window" else {}
        chain = m["Conversation"](
            llm=m["LLM"](responses=["a1", "a2"]),
            memory=m[memory](return_messages=return_messages, **options),
        )
        return [repr(observe(chain.invoke({"input": "hi"}))),
                repr(observe(chain.invoke({"input": "again"})))]  # fmt: skip

    assert run(RL) == run(LC)

"""Parity: astream_events on a legacy chain as the outermost run.

A LangChain legacy ``Chain`` streams by handing over ``invoke``'s result after its run has
ended, so ``astream_events`` shows no ``on_chain_stream`` event for it: start, then end.
ragline showed one chunk event before the end, as it does for an outermost runnable that
could not stream while it ran (review of a051a9e). Chains written with runnables
(``create_stuff_documents_chain``, ``create_retrieval_chain``) stream in both.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

_LEGACY_EVENTS = """
import asyncio
from langchain_classic.chains import ConversationChain, LLMChain, SimpleSequentialChain
from langchain_classic.chains import create_retrieval_chain
from langchain_classic.chains.combine_documents import create_stuff_documents_chain
from langchain_classic.chains.question_answering import load_qa_chain
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableLambda


def llm():
    return FakeListLLM(responses=["a1", "a2", "a3"])


docs = [Document(page_content="alpha")]
stuff = create_stuff_documents_chain(llm(), PromptTemplate.from_template("{context}"))
echo = PromptTemplate.from_template("{x}")
cases = [
    (LLMChain(llm=llm(), prompt=PromptTemplate.from_template("Say {w}")), {"w": "x"}),
    (ConversationChain(llm=llm()), {"input": "hi"}),
    (SimpleSequentialChain(chains=[LLMChain(llm=llm(), prompt=echo)]), "in"),
    (load_qa_chain(llm(), chain_type="stuff"), {"input_documents": docs, "question": "q"}),
    (stuff, {"context": docs}),
    (create_retrieval_chain(RunnableLambda(lambda q: docs), stuff), {"input": "q"}),
]


async def root_events(chain, given):
    events, root = [], None
    async for event in chain.astream_events(given, version="v2"):
        root = root or event["run_id"]
        if event["run_id"] == root:
            events.append(event["event"].replace("on_chain_", ""))
    return events


for chain, given in cases:
    print(asyncio.run(root_events(chain, given)))
"""


def test_a_legacy_chain_shows_no_stream_event_as_the_outermost_run() -> None:
    langchain_printed = _printed(_LEGACY_EVENTS)
    assert langchain_printed.splitlines() == [
        "['start', 'end']",
        "['start', 'end']",
        "['start', 'end']",
        "['start', 'end']",
        "['start', 'stream', 'end']",
        "['start', 'stream', 'stream', 'stream', 'end']",
    ]
    assert _printed(_ported(_LEGACY_EVENTS)) == langchain_printed

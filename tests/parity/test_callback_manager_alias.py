"""Parity: ``callback_manager=`` (LangChain's deprecated spelling of ``callbacks``) on the
chains whose constructors ragline writes by hand: ``RetrievalQA`` (and its
``from_chain_type`` / ``from_llm``), the combine-documents chains (stuff, map-reduce,
reduce, refine, map-rerank) and ``load_qa_chain`` / ``load_summarize_chain``.

As in LangChain, the manager becomes the chain's ``callbacks`` (so its handlers see the
chain's runs), ``chain.callback_manager`` reads ``None`` afterwards, a ``None`` manager
is accepted silently, giving both keywords is refused with a ``ValueError``, and
``load_qa_chain`` hands the manager to the chains it builds inside, as it hands
``callbacks``. Each scenario is one program, run through LangChain and, after
``ragline port``, through ragline; what they print is compared.
"""

from __future__ import annotations

import warnings

import pytest

from tests.parity._port_trial import ported, printed

COVERS: set[str] = set()  # the chain classes are listed by their own parity modules

_PROGRAM = """
from langchain_classic.chains import (
    LLMChain,
    MapReduceDocumentsChain,
    MapRerankDocumentsChain,
    ReduceDocumentsChain,
    RefineDocumentsChain,
    RetrievalQA,
    StuffDocumentsChain,
)
from langchain_classic.chains.question_answering import load_qa_chain
from langchain_classic.chains.summarize import load_summarize_chain
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever


class Starts(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("  START", kwargs.get("name"))


class Fixed(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [Document(page_content="Paris is in France.")]


class WordCountLLM(FakeListLLM):
    def get_num_tokens(self, text):  # no tokenizer to download
        return len(text.split())


def manager():
    return CallbackManager([Starts()])


def llm(reply="Paris."):
    return WordCountLLM(responses=[reply] * 10)


qa_prompt = PromptTemplate.from_template("{context}\\nQ: {question}")


def stuff(**options):
    return StuffDocumentsChain(
        llm_chain=LLMChain(llm=llm(), prompt=qa_prompt), document_variable_name="context", **options
    )


docs = [Document(page_content="Paris is in France."), Document(page_content="Rome is in Italy.")]
builders = {
    "stuff": lambda **o: stuff(**o),
    "reduce": lambda **o: ReduceDocumentsChain(combine_documents_chain=stuff(), **o),
    "map_reduce": lambda **o: MapReduceDocumentsChain(
        llm_chain=LLMChain(llm=llm(), prompt=qa_prompt),
        reduce_documents_chain=ReduceDocumentsChain(combine_documents_chain=stuff()),
        document_variable_name="context",
        **o,
    ),
    "refine": lambda **o: RefineDocumentsChain(
        initial_llm_chain=LLMChain(llm=llm(), prompt=qa_prompt),
        refine_llm_chain=LLMChain(
            llm=llm(), prompt=PromptTemplate.from_template("{existing_answer} {context}")
        ),
        document_variable_name="context",
        initial_response_name="existing_answer",
        **o,
    ),
    "load_qa_chain stuff": lambda **o: load_qa_chain(llm(), chain_type="stuff", **o),
    "load_qa_chain map_reduce": lambda **o: load_qa_chain(llm(), chain_type="map_reduce", **o),
    "load_qa_chain refine": lambda **o: load_qa_chain(llm(), chain_type="refine", **o),
    "load_summarize_chain": lambda **o: load_summarize_chain(llm(), chain_type="stuff", **o),
}
for name, build in builders.items():
    chain = build(callback_manager=manager())
    print(name, type(chain.callbacks).__name__, chain.callback_manager)
    print(chain.invoke({"input_documents": docs, "question": "Where is Paris?"})["output_text"])

rerank = load_qa_chain(
    llm("Paris.\\nScore: 90"), chain_type="map_rerank", callback_manager=manager()
)
print(rerank.invoke({"input_documents": docs, "question": "Where?"})["output_text"])
rerank = MapRerankDocumentsChain(
    llm_chain=rerank.llm_chain,
    document_variable_name="context",
    input_key="input_documents",  # ragline's default here is the document variable
    output_key="output_text",
    rank_key="score",
    answer_key="answer",
    callback_manager=manager(),
)
print(rerank.invoke({"input_documents": docs, "question": "Where?"})["output_text"])

qas = {
    "RetrievalQA": lambda **o: RetrievalQA(
        combine_documents_chain=stuff(), retriever=Fixed(), **o
    ),
    "from_chain_type": lambda **o: RetrievalQA.from_chain_type(llm(), retriever=Fixed(), **o),
    "from_chain_type kwargs": lambda **o: RetrievalQA.from_chain_type(
        llm(), retriever=Fixed(), chain_type_kwargs=o
    ),
    "from_llm": lambda **o: RetrievalQA.from_llm(llm(), retriever=Fixed(), **o),
}
for name, build in qas.items():
    qa = build(callback_manager=manager())
    print(name, type(qa.callbacks).__name__, qa.callback_manager)
    print(qa.invoke({"query": "Where is Paris?"})["result"])

quiet = RetrievalQA.from_chain_type(llm(), retriever=Fixed(), callback_manager=None)
print(quiet.callbacks, quiet.callback_manager, quiet.run("Where is Paris?"))
for build in (stuff, qas["RetrievalQA"], builders["load_qa_chain stuff"]):
    try:
        build(callback_manager=manager(), callbacks=[Starts()])
    except ValueError:
        print("both refused")
"""


def test_hand_written_chains_take_callback_manager_as_langchains() -> None:
    langchain_printed = printed(_PROGRAM)
    assert langchain_printed.count("both refused") == 3
    assert "  START LLMChain" in langchain_printed
    ours = ported(_PROGRAM)
    assert printed(ours) == langchain_printed
    with warnings.catch_warnings(), pytest.warns(DeprecationWarning, match="callback_manager"):
        warnings.simplefilter("ignore", UserWarning)
        exec(compile(ours, "<program>", "exec"), {"__name__": "__program__"})

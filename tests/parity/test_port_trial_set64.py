"""Parity: differences found by the sixty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# stuff_from_file_pretty_print: the program wrote an import over a backslash line
# continuation; ``ragline port`` left it importing LangChain's create_stuff_documents_chain,
# which then refused ragline's prompt.
_CONTINUED_IMPORT = """
from langchain_classic.chains.combine_documents \\
    import create_stuff_documents_chain
from \\
    langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate

chain = create_stuff_documents_chain(
    FakeListLLM(responses=["short"]), PromptTemplate.from_template("Sum up: {context}")
)
print(chain.invoke({"context": [Document(page_content="a"), Document(page_content="b")]}))
"""


def test_an_import_over_a_line_continuation_is_ported() -> None:
    langchain_printed = _printed(_CONTINUED_IMPORT)
    assert langchain_printed == "short\n"
    assert _printed(_ported(_CONTINUED_IMPORT)) == langchain_printed


# stuff_chain_migration_stream: ``for chunk in chain.stream(documents): print(chunk)`` on a
# StuffDocumentsChain. A LangChain Chain does not stream: it yields invoke's result once
# (inputs and outputs); ragline yielded the inputs, then the answer's pieces, and failed on
# the bare list of documents.
_LEGACY_CHAIN_STREAM = """
import asyncio

from langchain_classic.chains import LLMChain, RetrievalQA, StuffDocumentsChain
from langchain_classic.chains.summarize import load_summarize_chain
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.vectorstores import InMemoryVectorStore

llm = FakeListChatModel(responses=["Fruit colours."])
docs = [Document(page_content="Apples are red"), Document(page_content="Kiwis are green")]
stuff = StuffDocumentsChain(
    llm_chain=LLMChain(llm=llm, prompt=ChatPromptTemplate.from_template("Sum up: {context}")),
    document_variable_name="context",
)
store = InMemoryVectorStore.from_documents(docs, DeterministicFakeEmbedding(size=4))
qa = RetrievalQA.from_chain_type(llm, retriever=store.as_retriever(), return_source_documents=True)
chains = [
    (stuff, [docs, {"input_documents": docs}]),
    (load_summarize_chain(llm, chain_type="map_reduce", return_intermediate_steps=True), [docs]),
    (load_summarize_chain(llm, chain_type="refine"), [{"input_documents": docs}]),
    (qa, ["q"]),
]


async def chunks(chain, given):
    return [chunk async for chunk in chain.astream(given)]


for chain, inputs in chains:
    for given in inputs:
        for chunk in chain.stream(given):
            print(sorted(chunk), chunk["output_text" if "output_text" in chunk else "result"])
        print(len(asyncio.run(chunks(chain, given))))
"""


def test_a_legacy_chain_streams_its_invoke_result_whole() -> None:
    langchain_printed = _printed(_LEGACY_CHAIN_STREAM)
    assert langchain_printed.startswith(
        "['input_documents', 'output_text'] Fruit colours.\n1\n"
        "['input_documents', 'output_text'] Fruit colours.\n1\n"
        "['input_documents', 'intermediate_steps', 'output_text'] Fruit colours.\n1\n"
    )
    assert langchain_printed.endswith("['query', 'result', 'source_documents'] Fruit colours.\n1\n")
    assert _printed(_ported(_LEGACY_CHAIN_STREAM)) == langchain_printed


# reduce_documents_chain_docstring: ``chain.combine_docs(docs)`` on a ReduceDocumentsChain
# (LangChain's BaseCombineDocumentsChain method: the answer and the other outputs, with
# no run of the chain itself); ragline's chains lacked it.
_COMBINE_DOCS = """
import asyncio

from langchain_classic.chains import (
    LLMChain,
    MapReduceDocumentsChain,
    ReduceDocumentsChain,
    RefineDocumentsChain,
    StuffDocumentsChain,
)
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM
from langchain_core.prompts import PromptTemplate


class Starts(BaseCallbackHandler):
    def on_chain_start(self, serialized, inputs, **kwargs):
        print("start", kwargs.get("name"))


llm = FakeListLLM(responses=["one", "two", "three"])
stuff = StuffDocumentsChain(
    llm_chain=LLMChain(llm=llm, prompt=PromptTemplate.from_template("{topic}: {context}")),
    document_variable_name="context",
)
reduce = ReduceDocumentsChain(combine_documents_chain=stuff)
docs = [Document(page_content="a", metadata={"n": 1}), Document(page_content="b")]
print(stuff.combine_docs(docs, topic="t"))
print(reduce.combine_docs(docs, callbacks=[Starts()], topic="t"))
print(asyncio.run(reduce.acombine_docs(docs, topic="t")))
mapper = LLMChain(llm=llm, prompt=PromptTemplate.from_template("Map {context}"))
map_reduce = MapReduceDocumentsChain(
    llm_chain=mapper, reduce_documents_chain=reduce, return_intermediate_steps=True
)
print(map_reduce.combine_docs(docs, topic="t"))
refine = RefineDocumentsChain(
    initial_llm_chain=mapper,
    refine_llm_chain=LLMChain(llm=llm, prompt=PromptTemplate.from_template("{prev} {context}")),
    document_variable_name="context",
    initial_response_name="prev",
)
print(refine.combine_docs(docs))
try:
    stuff.combine_docs(docs)
except Exception as e:
    print(type(e).__name__, isinstance(e, ValueError))
"""


def test_combine_docs_gives_the_answer_and_the_other_outputs() -> None:
    langchain_printed = _printed(_COMBINE_DOCS)
    assert langchain_printed == (
        "('one', {})\nstart LLMChain\n('two', {})\n('three', {})\n"
        "('three', {'intermediate_steps': ['one', 'two']})\n('two', {})\nValueError True\n"
    )
    assert _printed(_ported(_COMBINE_DOCS)) == langchain_printed


# refine_docstring_prev_response: ``chain.copy(update={"return_intermediate_steps": True})``,
# the pydantic copy LangChain's runnables have (``model_copy`` too); ragline's runnables
# lacked both.
_RUNNABLE_COPIES = """
from langchain_classic.chains import LLMChain
from langchain_classic.chains.summarize import load_summarize_chain
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.prompts import PromptTemplate

llm = FakeListLLM(responses=["first", "second"])
docs = [Document(page_content="a"), Document(page_content="b")]
refine = load_summarize_chain(llm, chain_type="refine")
steps = refine.copy(update={"return_intermediate_steps": True})
print(sorted(steps.invoke(docs)), sorted(refine.invoke(docs)), steps is refine)
mr = load_summarize_chain(llm, chain_type="map_reduce")
print(mr.model_copy(update={"return_intermediate_steps": True}).invoke(docs)["intermediate_steps"])
chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template("{x}"))
print(chain.model_copy(update={"output_key": "summary"}).invoke({"x": "1"}))
print(chain.model_copy(update={"llm": FakeListLLM(responses=["other"])}).invoke({"x": "1"}))
print(chain.invoke({"x": "2"}))
chat = FakeListChatModel(responses=["r1"]).model_copy(update={"responses": ["r2"]})
print(chat.invoke("hi").content)
deep = refine.copy(deep=True)
print(deep is refine, deep.initial_llm_chain is refine.initial_llm_chain)
print(deep.invoke(docs)["output_text"], refine.invoke(docs)["output_text"])
"""


def test_runnables_copy_as_langchains_pydantic_models() -> None:
    langchain_printed = _printed(_RUNNABLE_COPIES)
    assert langchain_printed.startswith(
        "['input_documents', 'intermediate_steps', 'output_text'] "
        "['input_documents', 'output_text'] False\n['first', 'second']\n"
        "{'x': '1', 'summary': 'second'}\n{'x': '1', 'text': 'other'}\n"
    )
    assert _printed(_ported(_RUNNABLE_COPIES)) == langchain_printed

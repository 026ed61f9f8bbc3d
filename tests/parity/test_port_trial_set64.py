"""Parity: differences found by the sixty-fourth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

COVERS = {
    "chains.split_list_of_docs",
    "chains.collapse_docs",
    "chains.acollapse_docs",
    "chains.CombineDocsProtocol",
    "chains.AsyncCombineDocsProtocol",
}

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


# lcel_collapse_nodes_by_hand: a map-reduce written by hand with LangChain's helpers
# split_list_of_docs and acollapse_docs (a chain's ainvoke as the combine function);
# ragline had no public helpers, so ``ragline port`` left them imported from LangChain.
_COLLAPSE_HELPERS = """
import asyncio

from langchain_classic.chains.combine_documents import acollapse_docs, split_list_of_docs
from langchain_classic.chains.combine_documents.reduce import (
    AsyncCombineDocsProtocol,
    CombineDocsProtocol,
    collapse_docs,
)
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate


def words(docs, **kwargs):
    return sum(len(d.page_content.split()) for d in docs) + kwargs.get("extra", 0)


def joined(docs, sep=" | "):
    return sep.join(d.page_content for d in docs)


def collapse_with(func: CombineDocsProtocol, docs):
    return collapse_docs(docs, func, sep=" + ")


async def acollapse_with(func: AsyncCombineDocsProtocol, docs):
    return await acollapse_docs(docs, func)


docs = [
    Document(page_content="a b", metadata={"page": 1, "src": "x"}),
    Document(page_content="c", metadata={"page": 2}),
    Document(page_content="d e f", metadata={"page": 3, "tag": None}),
]
runs = split_list_of_docs(docs, words, 3)
print([[d.page_content for d in run] for run in runs])
print([[d.page_content for d in run] for run in split_list_of_docs(docs, words, 3, extra=1)])
print([[d.page_content for d in run] for run in split_list_of_docs(docs, words, 2)])
print(split_list_of_docs([], words, 3))
try:
    split_list_of_docs(docs, words, 1)
except Exception as e:
    print(type(e).__name__, isinstance(e, ValueError))
print(collapse_docs(docs, joined))
print(collapse_with(joined, runs[0]))
reduce_chain = (
    ChatPromptTemplate([("human", "Sum up: {docs}")])
    | FakeListChatModel(responses=["short"])
    | StrOutputParser()
)
print(asyncio.run(acollapse_with(reduce_chain.ainvoke, docs)))
"""


def test_the_collapse_helpers_split_and_collapse_as_langchains() -> None:
    langchain_printed = _printed(_COLLAPSE_HELPERS)
    assert langchain_printed.startswith(
        "[['a b', 'c'], ['d e f']]\n[['a b'], ['c'], ['d e f']]\n[['a b'], ['c'], ['d e f']]\n"
        "[[]]\nValueError True\n"
    )
    assert "metadata={'page': '1, 2, 3', 'src': 'x', 'tag': 'None'}" in langchain_printed
    assert _printed(_ported(_COLLAPSE_HELPERS)) == langchain_printed

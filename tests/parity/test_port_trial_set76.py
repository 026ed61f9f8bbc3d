"""Parity: differences found by the seventy-sixth port trial (issue 24), one scenario each.

The set's programs were whole RAG apps from public repositories. Each scenario runs the
same program through LangChain and through ragline (its source after ``ragline port``)
and compares what it prints.
"""

from ragline.cli._port_rewrite import port_source
from tests.parity._port_trial import printed as _printed

# vchart_qdrant_multiquery_qa: a Qdrant store (langchain_qdrant, an integration package
# ragline port leaves as it is) gave its retriever to MultiQueryRetriever.from_llm; the
# port kept that import and added ragline.interop.langchain.compose, but ragline's
# constructors checked for a ragline Runnable and refused LangChain's retriever (only a
# chain's steps were wrapped). Every part that is given a retriever or a model is here.
_FOREIGN_RETRIEVER = """
from langchain_classic.chains import RetrievalQA
from langchain_classic.chains.combine_documents import create_stuff_documents_chain
from langchain_classic.chains.retrieval import create_retrieval_chain
from langchain_classic.retrievers import (
    ContextualCompressionRetriever,
    EnsembleRetriever,
    MergerRetriever,
    MultiQueryRetriever,
)
from langchain_classic.retrievers.document_compressors import LLMChainFilter
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListChatModel, FakeListLLM
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import create_retriever_tool
from langchain_qdrant import QdrantVectorStore

store = QdrantVectorStore.from_texts(
    ["cats purr", "dogs bark", "birds sing"],
    DeterministicFakeEmbedding(size=16),
    location=":memory:",
    collection_name="pets",
    ids=["00000000-0000-0000-0000-00000000000%d" % i for i in range(3)],
)
retriever = store.as_retriever(search_kwargs={"k": 2})
prompt = ChatPromptTemplate.from_messages([("system", "{context}"), ("human", "{input}")])
chain = create_retrieval_chain(
    retriever, create_stuff_documents_chain(FakeListChatModel(responses=["Purring."]), prompt)
)
result = chain.invoke({"input": "cats purr"})
print("chain", result["answer"], [d.page_content for d in result["context"]])
model = FakeListChatModel(responses=["dogs bark\\nbirds sing"])
multi = MultiQueryRetriever.from_llm(retriever, model)
print("multi", sorted(d.page_content for d in multi.invoke("pets")))
ensemble = EnsembleRetriever(retrievers=[retriever, retriever], weights=[0.5, 0.5])
print("ensemble", [d.page_content for d in ensemble.invoke("birds sing")])
merger = MergerRetriever(retrievers=[retriever])
print("merger", [d.page_content for d in merger.invoke("dogs bark")])
keep = LLMChainFilter.from_llm(FakeListChatModel(responses=["YES", "NO"]))
compressed = ContextualCompressionRetriever(base_compressor=keep, base_retriever=retriever)
print("compressed", [d.page_content for d in compressed.invoke("cats purr")])
tool = create_retriever_tool(retriever, "pets", "Search the pet notes.")
print("tool", repr(tool.invoke({"query": "birds sing"})))
qa = RetrievalQA.from_chain_type(llm=FakeListLLM(responses=["Singing."]), retriever=retriever)
print("qa", qa.invoke({"query": "birds sing"})["result"])
"""


def test_an_integration_packages_retriever_goes_into_ragline_parts() -> None:
    expected = _printed(_FOREIGN_RETRIEVER)
    assert expected.splitlines() == [
        "chain Purring. ['cats purr', 'birds sing']",
        "multi ['birds sing', 'dogs bark']",
        "ensemble ['birds sing', 'dogs bark']",
        "merger ['dogs bark', 'birds sing']",
        "compressed ['cats purr']",
        "tool 'birds sing\\n\\ndogs bark'",
        "qa Singing.",
    ]
    result = port_source(_FOREIGN_RETRIEVER)
    assert result.unmapped == []
    kept = [line for line in result.source.splitlines() if "langchain" in line]
    assert kept == [
        "import ragline.interop.langchain.compose  # ragline port: LangChain objects join chains",
        "from langchain_qdrant import QdrantVectorStore",
    ]
    assert _printed(result.source) == expected

"""Parity: differences found by the seventy-second port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

# reorder_qa_retrieval: a RetrievalQA subclass overrode _get_docs(question, *,
# run_manager) to reorder the retrieved documents (LongContextReorder) and print the
# question; LangChain's chain asks that hook for the documents, ragline's invoked the
# retriever itself, so the hook never ran. The async hook (_aget_docs), a hook calling
# super(), and a hook without run_manager are LangChain's other forms.
_GET_DOCS_HOOK = """
import asyncio
from typing import List
from langchain_classic.chains import RetrievalQA
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import FakeListLLM
from langchain_core.vectorstores import InMemoryVectorStore


class Reversed(RetrievalQA):
    def _get_docs(self, question: str, *, run_manager) -> List[Document]:
        print("sync hook", question)
        docs = self.retriever.invoke(question, config={"callbacks": run_manager.get_child()})
        return list(reversed(docs))


class Upper(RetrievalQA):
    def _get_docs(self, question, *, run_manager):
        return [Document(page_content=d.page_content.upper(), metadata=d.metadata)
                for d in super()._get_docs(question, run_manager=run_manager)]

    async def _aget_docs(self, question, *, run_manager):
        print("async hook", question)
        docs = await super()._aget_docs(question, run_manager=run_manager)
        return docs[:1]


class NoManager(RetrievalQA):
    def _get_docs(self, question):
        return [Document(page_content="fixed " + question)]


store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
store.add_texts([f"doc {i}" for i in range(3)], ids=[f"d{i}" for i in range(3)])
retriever = store.as_retriever(search_kwargs={"k": 3})
llm = FakeListLLM(responses=["answer"])
for cls in (Reversed, Upper, NoManager):
    qa = cls.from_chain_type(llm=llm, retriever=retriever, return_source_documents=True)
    out = qa.invoke({"query": "doc 1"})
    print(cls.__name__, [d.page_content for d in out["source_documents"]])
    out = asyncio.run(qa.ainvoke({"query": "doc 1"}))
    print(cls.__name__, "async", [d.page_content for d in out["source_documents"]])
    called = qa({"query": "doc 2"})
    print(cls.__name__, "call", [d.page_content for d in called["source_documents"]])
"""


def test_a_retrieval_qa_subclass_hook_chooses_the_documents() -> None:
    langchain_printed = _printed(_GET_DOCS_HOOK)
    assert "Reversed ['doc 2', 'doc 0', 'doc 1']" in langchain_printed
    assert "Upper async ['doc 1']" in langchain_printed
    assert "NoManager ['fixed doc 1']" in langchain_printed
    assert [line for line in langchain_printed.splitlines() if "hook" in line] == [
        "sync hook doc 1",
        "sync hook doc 2",
        "async hook doc 1",
    ]
    assert _printed(_ported(_GET_DOCS_HOOK)) == langchain_printed


# a probe beside the trial (the theme's EmbeddingsRedundantFilter): LangChain's filter
# returns its stateful copies (_DocumentWithState, the embedding under
# state["embedded_doc"]), so a program reading d.state after it, or printing the
# documents' class, differed; ragline returned the plain documents.
_REDUNDANT_FILTER_STATE = """
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_classic.retrievers.document_compressors import DocumentCompressorPipeline
from langchain_community.document_transformers import (
    EmbeddingsRedundantFilter,
    LongContextReorder,
)

emb = DeterministicFakeEmbedding(size=16)
docs = [Document(page_content=t, metadata={"i": i}) for i, t in enumerate("aabcad")]
redundant = EmbeddingsRedundantFilter(embeddings=emb)
for found in (redundant.transform_documents(docs), redundant.transform_documents(docs[:1])):
    print([(type(d).__name__, d.metadata["i"], sorted(d.state)) for d in found])
    print([len(d.state["embedded_doc"]) for d in found])
print(redundant.transform_documents([]))
pipeline = DocumentCompressorPipeline(transformers=[redundant, LongContextReorder()])
print([(type(d).__name__, d.metadata["i"]) for d in pipeline.compress_documents(docs, "q")])
"""


def test_the_redundant_filter_returns_documents_with_their_embedding_state() -> None:
    langchain_printed = _printed(_REDUNDANT_FILTER_STATE)
    assert "('_DocumentWithState', 2, ['embedded_doc'])" in langchain_printed
    assert "[16, 16, 16, 16]" in langchain_printed
    assert _printed(_ported(_REDUNDANT_FILTER_STATE)) == langchain_printed

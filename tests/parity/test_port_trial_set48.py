"""Parity: differences found by the forty-eighth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline (the
program's source after ``ragline port``) and compares what the program prints.
"""

import pytest

from tests.parity._port_trial import ported as _ported
from tests.parity._port_trial import printed as _printed

pytest.importorskip("faiss")

# generative_agent_memory_time_weighted: FAISS built with a plain function
# (embeddings_model.embed_query) as its embedding_function, as the generative-agents
# notebooks do; LangChain calls it once per text, ragline failed on the first add
# ('function' object has no attribute 'embed_documents').
_FUNCTION_AS_EMBEDDINGS = """
import math

import faiss
from langchain_community.docstore import InMemoryDocstore
from langchain_community.vectorstores import FAISS
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_classic.retrievers import TimeWeightedVectorStoreRetriever

emb = DeterministicFakeEmbedding(size=16)


def relevance(score):
    return 1.0 - score / math.sqrt(2)


store = FAISS(emb.embed_query, faiss.IndexFlatL2(16), InMemoryDocstore({}), {},
              relevance_score_fn=relevance)
print(store.embedding_function == emb.embed_query)
store.add_texts(["alpha", "beta", "gamma"], metadatas=[{"n": 0}, {"n": 1}, {"n": 2}])
for doc, score in store.similarity_search_with_score("beta", k=2):
    print(doc.page_content, doc.metadata, round(float(score), 4))
print([d.page_content for d in store.similarity_search("gamma", k=1)])

memory = TimeWeightedVectorStoreRetriever(
    vectorstore=FAISS(emb.embed_query, faiss.IndexFlatL2(16), InMemoryDocstore({}), {},
                      relevance_score_fn=relevance),
    other_score_keys=["importance"], k=2,
)
memory.add_documents([Document(page_content="beta", metadata={"importance": 0.9})])
memory.add_documents([Document(page_content="delta", metadata={"importance": 0.1})])
print([(d.page_content, d.metadata["buffer_idx"]) for d in memory.invoke("beta")])
"""


def test_faiss_takes_a_plain_function_as_its_embeddings_as_langchain_does() -> None:
    ported = _ported(_FUNCTION_AS_EMBEDDINGS)
    assert "from ragline.vectorstores import FAISS\n" in ported
    langchain_printed = _printed(_FUNCTION_AS_EMBEDDINGS)
    assert langchain_printed.splitlines()[0] == "True"
    assert langchain_printed.count("\n") == 5
    assert _printed(ported) == langchain_printed

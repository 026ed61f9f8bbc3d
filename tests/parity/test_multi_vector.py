"""Parity: ``MultiVectorRetriever`` and ``SearchType`` against LangChain's
(langchain_classic.retrievers.multi_vector).

Summaries stand in for two documents in an in-memory vector store (a deterministic
letter-count embedding); the documents sit in a byte store or a document store. Each
search type, a search type changed on the retriever, a stand-in whose document is
missing, the async path, what the byte store holds, and the errors are compared.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.retrievers.multi_vector import (
    MultiVectorRetriever as LCMultiVectorRetriever,
)
from langchain_classic.retrievers.multi_vector import SearchType as LCSearchType
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.stores import InMemoryByteStore as LCInMemoryByteStore
from langchain_core.stores import InMemoryStore as LCInMemoryStore
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.core import Document, InMemoryByteStore
from ragline.core.stores import InMemoryStore
from ragline.embeddings import Embeddings
from ragline.retrievers import MultiVectorRetriever, SearchType
from ragline.vectorstores import InMemoryVectorStore
from tests.parity._letters import letter_counts

COVERS = {"retrievers.MultiVectorRetriever", "retrievers.SearchType"}

PARENTS = [
    ("parent-0", "Ketanji Brown Jackson was nominated to the Supreme Court.", {"source": "a"}),
    ("parent-1", "The economy grew and inflation slowed last quarter.", {"source": "b"}),
    ("parent-2", "A recipe for bread: flour, water, salt and yeast.", {"source": "c"}),
]
SUMMARIES = [
    ("judge nomination court", "parent-0"),
    ("economy inflation growth", "parent-1"),
    ("inflation of prices", "parent-1"),
    ("bread baking recipe", "parent-2"),
    ("orphan summary about a judge", "parent-9"),
]


def embeddings(base: Any) -> Any:
    class Letters(base):  # type: ignore[misc, valid-type]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [letter_counts(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return letter_counts(text)

    return Letters()


LC = {
    "retriever": LCMultiVectorRetriever,
    "search": LCSearchType,
    "document": LCDocument,
    "embeddings": LCEmbeddings,
    "store": LCInMemoryVectorStore,
    "bytes": LCInMemoryByteStore,
    "docs": LCInMemoryStore,
}
RL = {
    "retriever": MultiVectorRetriever,
    "search": SearchType,
    "document": Document,
    "embeddings": Embeddings,
    "store": InMemoryVectorStore,
    "bytes": InMemoryByteStore,
    "docs": InMemoryStore,
}


def shown(docs: list[Any]) -> list[tuple[Any, ...]]:
    return [(type(d).__name__, d.page_content, d.metadata, d.id) for d in docs]


def scenario(m: dict[str, Any], use_bytes: bool) -> list[Any]:
    vectorstore = m["store"](embeddings(m["embeddings"]))
    store = m["bytes"]() if use_bytes else m["docs"]()
    kwargs = {"byte_store": store} if use_bytes else {"docstore": store}
    retriever = m["retriever"](vectorstore=vectorstore, id_key="doc_id", **kwargs)
    vectorstore.add_documents(
        [m["document"](page_content=t, metadata={"doc_id": p}) for t, p in SUMMARIES]
        + [m["document"](page_content="no key judge")]
    )
    retriever.docstore.mset(
        [(key, m["document"](page_content=text, metadata=meta)) for key, text, meta in PARENTS]
    )
    out: list[Any] = [shown(retriever.invoke("justice judge"))]
    out.append(shown(retriever.invoke("inflation")))
    retriever.search_type = m["search"].mmr
    out.append(shown(retriever.invoke("inflation")))
    retriever.search_kwargs = {"k": 2, "fetch_k": 5, "lambda_mult": 0.3}
    out.append(shown(retriever.invoke("judge")))
    retriever.search_type = m["search"].similarity
    retriever.search_kwargs = {"k": 3}
    out.append(shown(asyncio.run(retriever.ainvoke("bread recipe"))))
    out.append([shown(r) for r in retriever.batch(["judge", "bread"])])
    out.append(sorted(store.yield_keys()))
    out.append(type(store.mget(["parent-0"])[0]).__name__)
    return out


@pytest.mark.parametrize("use_bytes", [True, False])
def test_searches_return_the_documents_their_stand_ins_name(use_bytes):
    theirs = scenario(LC, use_bytes)
    ours = scenario(RL, use_bytes)
    assert ours == theirs
    assert ours[0][0][1] == PARENTS[0][1]


def test_score_threshold_search_over_faiss():
    from langchain_community.vectorstores import FAISS as LCFAISS

    from ragline.vectorstores import FAISS

    def run(m: dict[str, Any], faiss: Any) -> list[Any]:
        stand_ins = [m["document"](page_content=t, metadata={"doc_id": p}) for t, p in SUMMARIES]
        vectorstore = faiss.from_documents(stand_ins, embeddings(m["embeddings"]))
        retriever = m["retriever"](
            vectorstore=vectorstore,
            docstore=m["docs"](),
            search_type=m["search"].similarity_score_threshold,
            search_kwargs={"score_threshold": 0.55, "k": 5},
        )
        retriever.docstore.mset(
            [(key, m["document"](page_content=text, metadata=meta)) for key, text, meta in PARENTS]
        )
        return [shown(retriever.invoke(q)) for q in ("inflation prices", "judge", "zzz")]

    theirs, ours = run(LC, LCFAISS), run(RL, FAISS)
    assert ours == theirs
    assert [len(found) for found in ours] != [0, 0, 0]


def test_search_type_enum():
    assert [(t.name, t.value) for t in SearchType] == [(t.name, t.value) for t in LCSearchType]
    assert SearchType.mmr == "mmr" and isinstance(SearchType.mmr, str)
    assert repr(SearchType.mmr) == repr(LCSearchType.mmr).replace("LC", "")


def test_a_docstore_or_byte_store_is_required():
    for m in (LC, RL):
        vectorstore = m["store"](embeddings(m["embeddings"]))
        with pytest.raises(ValueError):
            m["retriever"](vectorstore=vectorstore)
    retriever = MultiVectorRetriever(
        vectorstore=InMemoryVectorStore(embeddings(Embeddings)), docstore=InMemoryStore()
    )
    lc = LCMultiVectorRetriever(
        vectorstore=LCInMemoryVectorStore(embeddings(LCEmbeddings)), docstore=LCInMemoryStore()
    )
    assert (retriever.id_key, retriever.search_kwargs, retriever.search_type) == (
        lc.id_key,
        lc.search_kwargs,
        lc.search_type,
    )

"""Parity: vector-store retrievers, compressors, the parent-document retriever and a
program's own retriever, against LangChain's.

Both libraries embed with the same hand-made embedding (a word-stem counter subclassing
each library's ``Embeddings``), so the scores are equal and the documents must come back
in the same order, ties included.
"""

from __future__ import annotations

import uuid
import warnings
from typing import Any

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_classic.output_parsers.boolean import BooleanOutputParser as LCBoolean
    from langchain_classic.retrievers import ContextualCompressionRetriever as LCCompression
    from langchain_classic.retrievers import ParentDocumentRetriever as LCParent
    from langchain_classic.retrievers.document_compressors import (
        DocumentCompressorPipeline as LCPipeline,
    )
    from langchain_classic.retrievers.document_compressors import (
        EmbeddingsFilter as LCEmbeddingsFilter,
    )
    from langchain_classic.retrievers.document_compressors import (
        LLMChainExtractor as LCExtractor,
    )
    from langchain_classic.retrievers.document_compressors import LLMChainFilter as LCFilter
    from langchain_classic.retrievers.document_compressors.chain_extract import (
        NoOutputParser as LCNoOutput,
    )
    from langchain_classic.storage import InMemoryByteStore as LCByteStore
    from langchain_classic.storage import create_kv_docstore as lc_kv_docstore
    from langchain_community.document_transformers import (
        EmbeddingsRedundantFilter as LCRedundant,
    )
    from langchain_community.retrievers.bm25 import (
        default_preprocessing_func as lc_preprocess,
    )
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import BaseDocumentCompressor as LCBaseCompressor
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import Embeddings as LCEmbeddings
from langchain_core.language_models import FakeListLLM as LCFakeListLLM
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.stores import InMemoryStore as LCInMemoryStore
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore
from langchain_text_splitters import CharacterTextSplitter as LCSplitter

import ragline.retrievers as rl
from ragline.core import BaseRetriever, Document, FakeListLLM
from ragline.core.stores import InMemoryByteStore, InMemoryStore
from ragline.embeddings import Embeddings
from ragline.splitters import CharacterTextSplitter
from ragline.vectorstores import InMemoryVectorStore
from tests.parity._observe import observe

COVERS = {
    "core.BaseRetriever",
    "embeddings.Embeddings",
    "vectorstores.VectorStoreRetriever",
    "retrievers.BaseDocumentCompressor",
    "retrievers.BooleanOutputParser",
    "retrievers.ContextualCompressionRetriever",
    "retrievers.DocumentCompressorPipeline",
    "retrievers.EmbeddingsFilter",
    "retrievers.EmbeddingsRedundantFilter",
    "retrievers.LLMChainExtractor",
    "retrievers.LLMChainFilter",
    "retrievers.NoOutputParser",
    "retrievers.ParentDocumentRetriever",
    "retrievers.create_kv_docstore",
    "retrievers.default_preprocessing_func",
}

STEMS = ["cat", "dog", "fish", "bird", "car", "tree", "sun", "moon"]


def stem_vector(text: str) -> list[float]:
    words = text.lower().replace(".", " ").replace(",", " ").split()
    counts = [float(sum(word.startswith(stem) for word in words)) for stem in STEMS]
    norm = sum(c * c for c in counts) ** 0.5
    return [c / norm for c in counts] if norm else counts


def _embeddings(base: type) -> Any:
    class StemCounts(base):  # type: ignore[misc,valid-type]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [stem_vector(t) for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return stem_vector(text)

    return StemCounts()


ROWS = [
    ("cats and dogs play", {"id": 1}),
    ("the dog runs to the car", {"id": 2}),
    ("fish swim under the moon", {"id": 3}),
    ("a bird in a tree", {"id": 4}),
    ("sun and moon and cats", {"id": 5}),
    ("cats and dogs play", {"id": 6}),  # the same text as id 1
]

LC = {
    "Document": LCDocument,
    "embeddings": _embeddings(LCEmbeddings),
    "store": LCInMemoryVectorStore,
    "llm": LCFakeListLLM,
    "splitter": LCSplitter,
    "EmbeddingsFilter": LCEmbeddingsFilter,
    "Redundant": LCRedundant,
    "Compression": LCCompression,
    "Pipeline": LCPipeline,
    "Filter": LCFilter,
    "Extractor": LCExtractor,
    "Parent": LCParent,
    "InMemoryStore": LCInMemoryStore,
    "ByteStore": LCByteStore,
    "kv_docstore": lc_kv_docstore,
}
RL = {
    "Document": Document,
    "embeddings": _embeddings(Embeddings),
    "store": InMemoryVectorStore,
    "llm": FakeListLLM,
    "splitter": CharacterTextSplitter,
    "EmbeddingsFilter": rl.EmbeddingsFilter,
    "Redundant": rl.EmbeddingsRedundantFilter,
    "Compression": rl.ContextualCompressionRetriever,
    "Pipeline": rl.DocumentCompressorPipeline,
    "Filter": rl.LLMChainFilter,
    "Extractor": rl.LLMChainExtractor,
    "Parent": rl.ParentDocumentRetriever,
    "InMemoryStore": InMemoryStore,
    "ByteStore": InMemoryByteStore,
    "kv_docstore": rl.create_kv_docstore,
}


def docs(m: dict[str, Any], rows: Any = ROWS) -> list[Any]:
    return [m["Document"](page_content=text, metadata=meta) for text, meta in rows]


def both(run: Any) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return observe(run(LC)), observe(run(RL))


def _store(m: dict[str, Any]) -> Any:
    return m["store"].from_documents(docs(m, ROWS[:5]), m["embeddings"])


@pytest.mark.parametrize(
    ("search_type", "search_kwargs", "query"),
    [
        ("similarity", {"k": 2}, "cats"),
        ("similarity", {"k": 3}, "dog cats"),
        ("similarity", {"k": 2}, "moon and sun"),
        ("mmr", {"k": 2, "fetch_k": 2}, "cats"),
        ("mmr", {"k": 2, "fetch_k": 3, "lambda_mult": 0.2}, "dog cats"),
    ],
)
def test_vector_store_retriever(search_type: str, search_kwargs: Any, query: str) -> None:
    def run(m: dict[str, Any]) -> Any:
        retriever = _store(m).as_retriever(search_type=search_type, search_kwargs=search_kwargs)
        return retriever.invoke(query)

    theirs, ours = both(run)
    assert ours == theirs
    assert ours


@pytest.mark.parametrize(
    "options", [{"similarity_threshold": 0.5}, {"k": 2}, {"k": 3, "similarity_threshold": 0.1}]
)
def test_embeddings_filter(options: Any) -> None:
    theirs, ours = both(
        lambda m: m["EmbeddingsFilter"](embeddings=m["embeddings"], **options).compress_documents(
            docs(m), "moon"
        )
    )
    assert ours == theirs


def scaled_dot(left: Any, right: Any) -> Any:
    """A similarity that is not a cosine in [-1, 1]: ten times the dot product."""
    return 10 * np.dot(np.asarray(left), np.asarray(right).T)


def test_a_similarity_fn_of_their_own() -> None:
    def run(m: dict[str, Any]) -> Any:
        kept = m["EmbeddingsFilter"](
            embeddings=m["embeddings"], similarity_fn=scaled_dot, similarity_threshold=3, k=3
        )
        dedup = m["Redundant"](
            embeddings=m["embeddings"], similarity_fn=scaled_dot, similarity_threshold=6
        )
        return [
            kept.compress_documents(docs(m), "cats and the moon"),
            dedup.transform_documents(docs(m)),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert [meta["id"] for _, _, meta in ours[0]] == [5, 6, 3]  # 8.2, then three at 5.0
    assert [meta["id"] for _, _, meta in ours[1]] == [2, 3, 4, 5, 6]


def test_contextual_compression_over_a_store_retriever() -> None:
    def run(m: dict[str, Any]) -> Any:
        base = _store(m).as_retriever(search_kwargs={"k": 2})
        keep = m["EmbeddingsFilter"](embeddings=m["embeddings"], similarity_threshold=0.6)
        splitter = m["splitter"](separator=" ", chunk_size=14, chunk_overlap=0)
        piped = m["Pipeline"](
            transformers=[
                splitter,
                m["EmbeddingsFilter"](embeddings=m["embeddings"], similarity_threshold=0.6),
            ]
        )
        return [
            m["Compression"](base_compressor=keep, base_retriever=base).invoke("cats"),
            m["Compression"](base_compressor=piped, base_retriever=base).invoke("moon"),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == [("Document", "cats and dogs play", {"id": 1})]
    assert ours[1] == [
        ("Document", "under the moon", {"id": 3}),
        ("Document", "sun and moon", {"id": 5}),
    ]


def test_redundant_filter_drops_by_pairs_and_keeps_the_later_copy() -> None:
    theirs, ours = both(
        lambda m: m["Redundant"](embeddings=m["embeddings"]).transform_documents(docs(m))
    )
    assert ours == theirs
    assert [meta["id"] for _, _, meta in ours] == [2, 3, 4, 5, 6]
    # a chain: a like b (0.95), b like c (0.89), a unlike c (0.71); three equal copies
    chain = [
        ("cats cats dogs", {"id": "a"}),
        ("cats dogs", {"id": "b"}),
        ("sun", {"id": "x"}),
        ("cats dogs dogs dogs", {"id": "c"}),
        ("moon", {"id": "m1"}),
        ("moon", {"id": "m2"}),
        ("moon", {"id": "m3"}),
    ]
    theirs, ours = both(
        lambda m: m["Redundant"](
            embeddings=m["embeddings"], similarity_threshold=0.85
        ).transform_documents(docs(m, chain))
    )
    assert ours == theirs
    assert [meta["id"] for _, _, meta in ours] == ["x", "c", "m3"]
    distinct = ROWS[:5]
    theirs, ours = both(
        lambda m: m["Redundant"](embeddings=m["embeddings"]).transform_documents(docs(m, distinct))
    )
    assert ours == theirs
    # ragline's rule, one argument away: the first copy stays, and so does "c"
    first = rl.EmbeddingsRedundantFilter(RL["embeddings"], 0.85, keep_first=True)
    assert [d.metadata["id"] for d in first.transform_documents(docs(RL, chain))] == [
        "a",
        "x",
        "c",
        "m1",
    ]


def test_llm_filter_and_extractor() -> None:
    def run(m: dict[str, Any]) -> Any:
        four = docs(m)[:4]
        kept = m["Filter"].from_llm(m["llm"](responses=["YES", "no", "Yes", "NO"]))
        extracted = m["Extractor"].from_llm(
            m["llm"](responses=["cats", "NO_OUTPUT", "x y", "NO_OUTPUT"])
        )
        return [kept.compress_documents(four, "cats"), extracted.compress_documents(four, "cats")]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[1] == [("Document", "cats", {"id": 1}), ("Document", "x y", {"id": 3})]


@pytest.mark.parametrize("text", ["YES", "no", "Yes.", "The answer is yes", "NO"])
def test_boolean_output_parser(text: str) -> None:
    assert rl.BooleanOutputParser().parse(text) == LCBoolean().parse(text)


@pytest.mark.parametrize("text", ["maybe", "yes and no"])
def test_boolean_output_parser_refuses_as_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        LCBoolean().parse(text)
    with pytest.raises(ValueError):
        rl.BooleanOutputParser().parse(text)


@pytest.mark.parametrize("text", ["  NO_OUTPUT ", "text ", "", "NO_OUTPUT here"])
def test_no_output_parser(text: str) -> None:
    assert rl.NoOutputParser().parse(text) == LCNoOutput().parse(text)


def test_parent_document_retriever_with_a_docstore() -> None:
    def run(m: dict[str, Any]) -> Any:
        docstore = m["InMemoryStore"]()
        retriever = m["Parent"](
            vectorstore=m["store"](m["embeddings"]),
            docstore=docstore,
            child_splitter=m["splitter"](separator=" ", chunk_size=12, chunk_overlap=0),
            search_kwargs={"k": 2},
        )
        retriever.add_documents(docs(m)[:5], ids=[f"p{i}" for i in range(5)])
        return [retriever.invoke("moon"), sorted(docstore.yield_keys())]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == [
        ("Document", "fish swim under the moon", {"id": 3}),
        ("Document", "sun and moon and cats", {"id": 5}),
    ]


def test_parent_document_retriever_without_ids_draws_new_keys() -> None:
    """Without ids= each parent gets a new uuid4 key, whatever its Document.id: two parents
    with the same id are both kept, and adding them again stores them again."""
    rows = [("cats cats", "same"), ("cats and dogs", "same"), ("dogs", "m")]

    def run(m: dict[str, Any]) -> Any:
        docstore = m["InMemoryStore"]()
        retriever = m["Parent"](
            vectorstore=m["store"](m["embeddings"]),
            docstore=docstore,
            child_splitter=m["splitter"](separator=" ", chunk_size=20, chunk_overlap=0),
            search_kwargs={"k": 2},
        )
        parents = [m["Document"](page_content=t, id=i) for t, i in rows]
        retriever.add_documents(parents)
        first = [list(docstore.yield_keys()), retriever.invoke("cats")]
        retriever.add_documents(parents)
        keys = list(docstore.yield_keys())
        try:
            retriever.add_documents(parents, add_to_docstore=False)
        except ValueError:
            refused = True
        else:
            refused = False
        return [
            [
                len(first[0]),
                all(uuid.UUID(k).version == 4 for k in first[0]),
                set(first[0]) & {"same", "m"},
            ],
            first[1],
            len(keys),
            retriever.invoke("cats"),
            [d.id for d in retriever.invoke("cats")],
            refused,
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == [3, True, set()]
    assert ours[1] == [("Document", "cats cats", {}), ("Document", "cats and dogs", {})]
    assert ours[2] == 6
    assert ours[3] == [("Document", "cats cats", {})] * 2  # the parent, stored twice
    assert ours[4] == ["same", "same"]
    assert ours[5] is True


def test_parent_document_retriever_on_a_kv_docstore() -> None:
    rows = [("cats purr loudly", {"n": 1}), ("a bird sings in a tree", {"n": 2})]

    def run(m: dict[str, Any]) -> Any:
        byte_store = m["ByteStore"]()
        docstore = m["kv_docstore"](byte_store)
        retriever = m["Parent"](
            vectorstore=m["store"](m["embeddings"]),
            docstore=docstore,
            child_splitter=m["splitter"](separator=" ", chunk_size=10, chunk_overlap=0),
        )
        retriever.add_documents(docs(m, rows), ids=["a", "b"])
        return [
            retriever.invoke("tree bird"),
            docstore.mget(["a", "b", "missing"]),
            sorted(byte_store.yield_keys()),
        ]

    theirs, ours = both(run)
    assert ours == theirs
    assert ours[0] == [("Document", "a bird sings in a tree", {"n": 2}),
                       ("Document", "cats purr loudly", {"n": 1})]  # fmt: skip


def test_a_program_s_own_retriever_and_compressor() -> None:
    class LCEcho(LCBaseRetriever):
        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[LCDocument]:
            return [LCDocument(page_content=query * 2), LCDocument(page_content="short")]

    class RLEcho(BaseRetriever):
        def _get_relevant_documents(self, query: str) -> list[Document]:
            return [Document(page_content=query * 2), Document(page_content="short")]

    class LCLong(LCBaseCompressor):
        def compress_documents(self, documents: Any, query: str, callbacks: Any = None) -> Any:
            return [d for d in documents if len(d.page_content) > len(query)]

    class RLLong(rl.BaseDocumentCompressor):
        def compress_documents(self, documents: Any, query: str) -> Any:
            return [d for d in documents if len(d.page_content) > len(query)]

    theirs = [
        observe(LCEcho().invoke("ab")),
        observe(LCEcho().batch(["x", "y"])),
        observe(LCCompression(base_compressor=LCLong(), base_retriever=LCEcho()).invoke("abc")),
    ]
    ours = [
        observe(RLEcho().invoke("ab")),
        observe(RLEcho().batch(["x", "y"])),
        observe(
            rl.ContextualCompressionRetriever(
                base_compressor=RLLong(), base_retriever=RLEcho()
            ).invoke("abc")
        ),
    ]
    assert ours == theirs
    assert ours[2] == [("Document", "abcabc", {}), ("Document", "short", {})]


def test_bm25_default_tokenizer_is_langchains_str_split() -> None:
    """The default tokenizer keeps case and punctuation, as LangChain's; ragline's
    lowercase word tokens are ``BM25Tokenizer()``."""
    assert lc_preprocess("Hello, World  foo") == ["Hello,", "World", "foo"]
    assert rl.default_preprocessing_func("Hello, World  foo") == ["Hello,", "World", "foo"]
    assert rl.BM25Tokenizer()("Hello, World  foo") == ["hello", "world", "foo"]

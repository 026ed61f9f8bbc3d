"""The public surface of ragline.retrievers, its docstring examples, and the Runnable
contract every retriever keeps (one suite, run on each of them)."""

from __future__ import annotations

import doctest
import importlib

import pytest

import ragline.retrievers
from ragline.core import (
    BaseRetriever,
    Document,
    FakeListChatModel,
    InMemoryByteStore,
    InvalidInputError,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.core.structured_query import StructuredQuery
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import (
    BM25Retriever,
    ContextualCompressionRetriever,
    EmbeddingsFilter,
    EnsembleRetriever,
    MultiQueryRetriever,
    ParentDocumentRetriever,
    SelfQueryRetriever,
)
from ragline.splitters import RecursiveCharacterTextSplitter
from ragline.vectorstores import InMemoryVectorStore

EXPECTED = [
    "AttributeInfo",
    "BM25Index",
    "BM25Retriever",
    "BM25Tokenizer",
    "BaseDocumentCompressor",
    "BooleanOutputParser",
    "ContextualCompressionRetriever",
    "DocumentCompressorPipeline",
    "EmbeddingsClusteringFilter",
    "EmbeddingsFilter",
    "EmbeddingsRedundantFilter",
    "EnsembleRetriever",
    "FilterTranslator",
    "HybridRetriever",
    "InMemoryDocumentStore",
    "KNNRetriever",
    "LLMChainExtractor",
    "LLMChainFilter",
    "LLMListwiseRerank",
    "LineListOutputParser",
    "LongContextReorder",
    "MergerRetriever",
    "MultiQueryRetriever",
    "MultiVectorRetriever",
    "NoOutputParser",
    "ParentDocumentRetriever",
    "RePhraseQueryRetriever",
    "RedisTranslator",
    "SearchType",
    "SelfQueryRetriever",
    "StructuredQueryOutputParser",
    "TFIDFRetriever",
    "TimeWeightedVectorStoreRetriever",
    "adaptive_weights",
    "construct_examples",
    "create_kv_docstore",
    "default_preprocessing_func",
    "fix_filter_directive",
    "get_parser",
    "get_query_constructor_prompt",
    "load_query_constructor_runnable",
    "normalize_scores",
    "score_fusion",
    "score_peak",
    "term_coverage",
    "weighted_reciprocal_rank",
]

MODULES = [
    "_bm25",
    "_ensemble",
    "_fusion",
    "_hybrid",
    "_tokenizer",
    "_multi_query",
    "_compression",
    "_compressors",
    "_llm_filter",
    "_docstore",
    "_parent_document",
    "_query_parser",
    "_query_constructor",
    "_query_translators",
    "_self_query",
]


def test_all_is_pinned_and_every_name_resolves():
    assert ragline.retrievers.__all__ == EXPECTED
    assert sorted(dir(ragline.retrievers)) == EXPECTED
    for name in EXPECTED:
        assert getattr(ragline.retrievers, name).__name__ == name


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"ragline.retrievers.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


# --------------------------------------------------------------------------- contract

TEXTS = ["cats purr when happy", "dogs bark at night", "stock prices fell", "kittens purr too"]
IDS = ["c", "d", "s", "k"]
EMBEDDINGS = HashingEmbeddings(dimension=128)


def _store():
    return InMemoryVectorStore.from_texts(TEXTS, EMBEDDINGS, ids=IDS)


def _parent():
    retriever = ParentDocumentRetriever(
        InMemoryVectorStore(EMBEDDINGS),
        InMemoryByteStore(),
        RecursiveCharacterTextSplitter(chunk_size=10, chunk_overlap=0, separators=[" "]),
        # k=2: deeper, children tie at cosine 0 and the store may break such ties
        # differently for one query and for a batch
        search_kwargs={"k": 2},
    )
    retriever.add_documents([Document(t, id=i) for t, i in zip(TEXTS, IDS, strict=True)])
    return retriever


BUILDERS = {
    "bm25": lambda: BM25Retriever.from_texts(TEXTS, ids=IDS, k=2),
    "ensemble": lambda: EnsembleRetriever(
        [
            BM25Retriever.from_texts(TEXTS, ids=IDS, k=2),
            _store().as_retriever(search_kwargs={"k": 2}),
        ],
        weights=[1, 2],
    ),
    # a fake model repeats the question: the retriever still works as a Runnable
    "multi_query": lambda: MultiQueryRetriever.from_llm(
        _store().as_retriever(search_kwargs={"k": 2}),
        RunnableLambda(lambda p: p.to_string().split(": ")[-1]),
        prompt=None,
    ),
    "compression": lambda: ContextualCompressionRetriever(
        EmbeddingsFilter(EMBEDDINGS, k=1), BM25Retriever.from_texts(TEXTS, ids=IDS)
    ),
    "parent_document": _parent,
    # the query constructor passes the question on with no filter
    "self_query": lambda: SelfQueryRetriever(
        vectorstore=_store(),
        query_constructor=RunnableLambda(lambda request: StructuredQuery(request["query"])),
        search_kwargs={"k": 2},
    ),
}
QUERIES = ["cats purr", "stock prices", "barking dogs at night"]


@pytest.fixture(params=sorted(BUILDERS))
def retriever(request) -> BaseRetriever:
    return BUILDERS[request.param]()


def test_is_a_retriever_returning_documents(retriever):
    assert isinstance(retriever, BaseRetriever)
    found = retriever.invoke("cats purr")
    assert found and all(isinstance(d, Document) for d in found)
    assert found[0].page_content == "cats purr when happy"


async def test_invoke_ainvoke_batch_and_abatch_agree(retriever):
    one_by_one = [retriever.invoke(q) for q in QUERIES]
    assert [await retriever.ainvoke(q) for q in QUERIES] == one_by_one
    assert retriever.batch(QUERIES) == one_by_one
    assert await retriever.abatch(QUERIES) == one_by_one


def test_one_retriever_run_per_query_with_config(retriever):
    collector = RunCollectorCallbackHandler()
    retriever.batch(
        QUERIES[:2], {"callbacks": [collector], "tags": ["mine"], "metadata": {"user": "u"}}
    )
    roots = collector.traced_runs
    # without a batch hook the queries run in threads: runs may start in any order
    assert sorted((r.run_type, r.inputs["query"]) for r in roots) == [
        ("retriever", "cats purr"),
        ("retriever", "stock prices"),
    ]
    assert all("mine" in r.tags and r.metadata["user"] == "u" for r in roots)
    named = RunCollectorCallbackHandler()
    retriever.invoke("cats", {"callbacks": [named], "run_name": "search"})
    assert named.traced_runs[0].name == "search"


def test_bad_queries_are_rejected_and_options_at_call_time_dropped(retriever):
    with pytest.raises(InvalidInputError, match="needs a str query, got dict"):
        retriever.invoke({"question": "cats"})
    # per-call options a retriever's hook does not take are dropped (as LangChain drops
    # them), with a warning naming them
    with pytest.warns(UserWarning, match="ignores the search options k"):
        assert retriever.invoke("cats", k=3) == retriever.invoke("cats")


def test_composes_in_a_chain(retriever):
    chain = retriever | RunnableLambda(lambda docs: [d.page_content for d in docs][:1])
    assert chain.invoke("cats purr") == ["cats purr when happy"]


def test_nested_retrievers_report_a_full_run_tree():
    store = _store()
    multi = MultiQueryRetriever.from_llm(
        store.as_retriever(search_kwargs={"k": 1}), FakeListChatModel(responses=["kittens\ndogs"])
    )
    compressed = ContextualCompressionRetriever(EmbeddingsFilter(EMBEDDINGS, k=3), multi)
    collector = RunCollectorCallbackHandler()
    # the model's two queries find k and d; the filter keeps both, reordered by its cosine
    assert sorted(d.id for d in compressed.invoke("cats", {"callbacks": [collector]})) == ["d", "k"]
    assert collector.traced_runs[0].tree() == (
        "ContextualCompressionRetriever",
        [
            (
                "MultiQueryRetriever",
                [
                    (
                        "RunnableSequence",
                        [
                            ("PromptTemplate", []),
                            ("FakeListChatModel", []),
                            ("LineListOutputParser", []),
                        ],
                    ),
                    ("VectorStoreRetriever", []),
                    ("VectorStoreRetriever", []),
                ],
            ),
        ],
    )


def test_in_a_rag_chain_batch_each_retriever_run_sits_under_its_own_input():
    from ragline.core import RunnablePassthrough

    hybrid = BUILDERS["ensemble"]()
    chain = {"context": hybrid, "question": RunnablePassthrough()} | RunnableLambda(
        lambda x: [d.id for d in x["context"]], name="ids"
    )
    collector = RunCollectorCallbackHandler()
    one_by_one = [chain.invoke(q) for q in QUERIES[:2]]
    assert chain.batch(QUERIES[:2], {"callbacks": [collector]}) == one_by_one
    for root, query in zip(collector.traced_runs, QUERIES[:2], strict=True):
        ensemble = root.find("EnsembleRetriever")
        assert ensemble is not None and ensemble.inputs == {"query": query}
        assert sorted(child.name for child in ensemble.children) == [
            "BM25Retriever",
            "VectorStoreRetriever",
        ]
        assert all(child.inputs == {"query": query} for child in ensemble.children)

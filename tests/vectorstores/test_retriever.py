"""VectorStoreRetriever: runs in callbacks, one backend call per batch, option checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ragline.core import (
    BaseCallbackHandler,
    ConfigurationError,
    Document,
    InvalidInputError,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.vectorstores import InMemoryVectorStore, VectorStoreRetriever
from ragline.vectorstores.base import SearchHit
from ragline.vectorstores.filters import FilterNode

from .contract import IDS, METADATAS, TEXTS, ExplicitEmbeddings, texts_of


class CountingStore(InMemoryVectorStore):
    """Records how many query vectors each backend search received."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.searches: list[int] = []
        self.async_searches: list[int] = []

    def _search(
        self, queries: np.ndarray, k: int, filter: FilterNode | None, *, with_vectors: bool
    ) -> list[list[SearchHit]]:
        self.searches.append(len(queries))
        return super()._search(queries, k, filter, with_vectors=with_vectors)

    async def _asearch(
        self, queries: np.ndarray, k: int, filter: FilterNode | None, *, with_vectors: bool
    ) -> list[list[SearchHit]]:
        self.async_searches.append(len(queries))
        return self._search(queries, k, filter, with_vectors=with_vectors)


@pytest.fixture
def embeddings() -> ExplicitEmbeddings:
    return ExplicitEmbeddings()


@pytest.fixture
def store(embeddings: ExplicitEmbeddings) -> CountingStore:
    return CountingStore.from_texts(TEXTS, embeddings, metadatas=METADATAS, ids=IDS)


def test_invoke_is_one_retriever_run(store: CountingStore) -> None:
    collector = RunCollectorCallbackHandler()
    retriever = store.as_retriever(search_kwargs={"k": 2}, tags=["mine"], metadata={"user": 7})
    documents = retriever.invoke("q0", config={"callbacks": [collector]})
    [run] = collector.traced_runs
    assert (run.name, run.run_type, run.inputs) == (
        "VectorStoreRetriever",
        "retriever",
        {"query": "q0"},
    )
    assert run.outputs == {"documents": documents} and texts_of(documents) == ["d0", "d1"]
    assert run.tags == ["mine"]  # given tags replace the store's, as in LangChain
    assert run.metadata == {
        "user": 7,
        "ls_retriever_name": "vectorstore",
        "ls_vector_store_provider": "CountingStore",
        "ls_embedding_provider": "ExplicitEmbeddings",
    }
    assert [event["name"] for event in run.events] == ["start", "end"]


def test_batch_searches_once_and_reports_one_run_per_query(
    store: CountingStore, embeddings: ExplicitEmbeddings
) -> None:
    """1000 queries would be one embed_queries_array call and one backend _search call."""
    collector = RunCollectorCallbackHandler()
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 4})
    queries = ["q0", "q3", "q25", "q95"]
    results = retriever.batch(queries, config={"callbacks": [collector]})
    assert store.searches == [4] and embeddings.query_batches == [4]
    assert texts_of(results[1]) == ["d0", "d3", "d1"]
    assert [(run.run_type, run.inputs) for run in collector.traced_runs] == [
        ("retriever", {"query": query}) for query in queries
    ]
    assert [run.outputs for run in collector.traced_runs] == [
        {"documents": documents} for documents in results
    ]


async def test_abatch_searches_once_and_ainvoke_uses_the_async_primitive(
    store: CountingStore,
) -> None:
    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert [texts_of(docs) for docs in await retriever.abatch(["q0", "q95", "q25"])] == [
        ["d0"],
        ["d5"],
        ["d2"],
    ]
    assert store.searches == [3]
    assert texts_of(await retriever.ainvoke("q95")) == ["d5"]
    assert store.async_searches == [1]  # a backend's native async search is used


def test_retriever_inside_a_chain_is_a_child_run(store: CountingStore) -> None:
    collector = RunCollectorCallbackHandler()
    clean = RunnableLambda(lambda question: question.strip())
    chain = clean | store.as_retriever()
    assert len(chain.invoke("  q0 ", config={"callbacks": [collector]})) == 4
    assert collector.timeline() == [
        ("chain_start", "RunnableSequence", None),
        ("chain_start", clean.get_name(), "RunnableSequence"),
        ("chain_end", clean.get_name(), "RunnableSequence"),
        ("retriever_start", "VectorStoreRetriever", "RunnableSequence"),
        ("retriever_end", "VectorStoreRetriever", "RunnableSequence"),
        ("chain_end", "RunnableSequence", None),
    ]


class DetailsHandler(BaseCallbackHandler):
    """A handler that asks for each search's k and scores (as ragline.tracing's does)."""

    def __init__(self) -> None:
        self.started: list[Any] = []
        self.details: list[tuple[Any, ...]] = []

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: Any, **kw: Any) -> None:
        self.started.append(run_id)

    def on_retriever_details(
        self, *, run_id: Any, k: int, search_type: str, scores: list[float], score_type: str
    ) -> None:
        self.details.append((run_id, k, search_type, scores, score_type))


def test_a_handler_that_asks_gets_each_searchs_details(store: CountingStore) -> None:
    handler, collector = DetailsHandler(), RunCollectorCallbackHandler()
    retriever = store.as_retriever(search_kwargs={"k": 2})
    found = retriever.invoke("q0", config={"callbacks": [collector, handler]})
    assert texts_of(found) == ["d0", "d1"]
    [(run_id, k, search_type, scores, kind)] = handler.details
    assert run_id == handler.started[0] == collector.traced_runs[0].id
    assert (k, search_type, kind) == (2, "similarity", "native")
    assert scores == pytest.approx([1.0, float(np.cos(np.radians(10)))])
    assert all(type(score) is float for score in scores)
    # with score_key the documents carry their relevances, and those are reported
    keyed = VectorStoreRetriever(store, search_kwargs={"k": 2}, score_key="relevance")
    found = keyed.invoke("q0", config={"callbacks": [handler]})
    assert handler.details[1][1:3] + handler.details[1][4:] == (2, "similarity", "relevance")
    assert handler.details[1][3] == [doc.metadata["relevance"] for doc in found]
    assert keyed.invoke("q0")[0].metadata["relevance"] == found[0].metadata["relevance"]
    # a handler without the method, or none: the same documents
    assert texts_of(retriever.invoke("q0", config={"callbacks": [collector]})) == ["d0", "d1"]
    assert texts_of(retriever.invoke("q0")) == ["d0", "d1"] and len(handler.details) == 2


def test_invoke_calls_a_subclass_own_hooks(store: CountingStore) -> None:
    class Reversed(VectorStoreRetriever):
        def _get_relevant_documents(self, query: str, **options: Any) -> list[Document]:
            return super()._get_relevant_documents(query, **options)[::-1]

    class FirstOnly(VectorStoreRetriever):
        def _batch_get_relevant_documents(  # type: ignore[override]
            self, queries: list[str], **options: Any
        ) -> list[list[Document]]:
            found = super()._batch_get_relevant_documents(queries, **options)
            return [documents[:1] for documents in found]

    assert texts_of(Reversed(store, search_kwargs={"k": 2}).invoke("q0")) == ["d1", "d0"]
    assert texts_of(FirstOnly(store, search_kwargs={"k": 2}).invoke("q0")) == ["d0"]
    assert texts_of(VectorStoreRetriever(store, search_kwargs={"k": 2}).invoke("q0")) == [
        "d0",
        "d1",
    ]


def test_search_errors_are_reported_as_retriever_errors(store: CountingStore) -> None:
    collector = RunCollectorCallbackHandler()
    retriever = store.as_retriever()
    with pytest.raises(LookupError, match="no vector for 'unknown query'"):
        retriever.invoke("unknown query", config={"callbacks": [collector]})
    [run] = collector.traced_runs
    assert isinstance(run.exception, LookupError)
    assert [event["name"] for event in run.events] == ["start", "error"]


def test_a_query_that_is_not_a_string_is_refused(store: CountingStore) -> None:
    with pytest.raises(InvalidInputError, match="needs a str query"):
        store.as_retriever().invoke(["q0"])  # type: ignore[arg-type]
    assert store.searches == []


def test_options_are_checked_when_built(store: CountingStore) -> None:
    with pytest.raises(
        ConfigurationError,
        match="search_type 'simlarity' is not one of 'similarity', 'similarity_score_threshold', "
        "'mmr'",
    ):
        VectorStoreRetriever(store, search_type="simlarity")
    # a key the search does not take is ignored, as LangChain's stores drop it, and named
    with pytest.warns(
        UserWarning,
        match="search_kwargs 'n', 'top_k' ignored: search_type 'similarity' takes 'k', 'filter'",
    ):
        ignoring = store.as_retriever(search_kwargs={"top_k": 3, "k": 2, "n": 1})
    assert len(ignoring.invoke("q0")) == 2
    assert len(ignoring.invoke("q0", k=1)) == 1
    assert ignoring.search_kwargs == {"top_k": 3, "k": 2, "n": 1}
    with pytest.raises(InvalidInputError, match="'top_k' not accepted by search_type"):
        ignoring.invoke("q0", top_k=1)  # a call's own option is still checked
    with pytest.raises(InvalidInputError, match="k must be an int >= 1, got 0"):
        store.as_retriever(search_kwargs={"k": 0})
    with pytest.raises(InvalidInputError, match="lambda_mult must be a number between 0 and 1"):
        store.as_retriever(search_type="mmr", search_kwargs={"lambda_mult": 2})


def test_mmr_fetch_k_defaults_to_20_as_langchains(embeddings: ExplicitEmbeddings) -> None:
    """LangChain's default fetch_k (20) also when k is larger: 20 documents come back,
    with a warning naming both numbers; fetch_k given lets k through."""
    table = {f"t{i}": [np.cos(i / 10), np.sin(i / 10)] for i in range(30)}
    table["q"] = [1.0, 0.0]
    many = InMemoryVectorStore.from_texts(list(table)[:30], ExplicitEmbeddings(table))
    with pytest.warns(UserWarning, match=r"fetch_k \(20\) is below k \(25\)"):
        capped = many.as_retriever(search_type="mmr", search_kwargs={"k": 25})
    assert len(capped.invoke("q")) == 20
    wide = many.as_retriever(search_type="mmr", search_kwargs={"k": 25, "fetch_k": 30})
    assert len(wide.invoke("q")) == 25


def test_repr_and_attributes(store: CountingStore) -> None:
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 2})
    assert retriever.vectorstore is store
    assert (retriever.search_type, retriever.search_kwargs) == ("mmr", {"k": 2})
    assert repr(retriever) == (
        "VectorStoreRetriever(vectorstore=CountingStore, search_type='mmr', search_kwargs={'k': 2})"
    )


def test_changed_search_options_take_effect_or_raise(store: CountingStore) -> None:
    """search_kwargs / search_type set per call through configurable_fields (a per-user
    filter, say) or assigned by hand are checked and used; they used to be ignored
    silently because the search plan was built once in __init__."""
    from ragline.core import ConfigurableField

    retriever = store.as_retriever(search_kwargs={"k": 3})
    configurable = retriever.configurable_fields(search_kwargs=ConfigurableField(id="search"))
    per_user = {"configurable": {"search": {"k": 2, "filter": {"color": "blue"}}}}
    assert texts_of(configurable.invoke("q0", config=per_user)) == ["d1", "d4"]
    assert texts_of(configurable.invoke("q0")) == ["d0", "d1", "d2"]  # the default is kept
    retriever.search_kwargs = {"k": 1}
    assert texts_of(retriever.invoke("q0")) == ["d0"]
    retriever.search_type = "mmr"
    assert (retriever.search_type, retriever.search_kwargs) == ("mmr", {"k": 1})
    with pytest.raises(TypeError):
        retriever.search_kwargs["k"] = 5  # type: ignore[index]  # in place: refused, not ignored
    with pytest.raises(InvalidInputError, match="k must be an int >= 1, got 0"):
        retriever.search_kwargs = {"k": 0}
    assert retriever.search_kwargs == {"k": 1}  # a refused value changes nothing
    with pytest.warns(UserWarning, match="'score_threshold' ignored: search_type 'mmr'"):
        retriever.search_kwargs = {"score_threshold": 0.5}  # not an MMR option: dropped
    assert len(retriever.invoke("q0")) == 4


async def test_add_documents_goes_to_the_store(store: CountingStore) -> None:
    retriever = store.as_retriever(search_kwargs={"k": 1})
    assert retriever.add_documents([Document("d8", id="id8")]) == ["id8"]
    assert await retriever.aadd_documents([Document("d9", id="id9")]) == ["id9"]
    assert texts_of(retriever.invoke("d9")) == ["d9"]
    assert store.count() == 10
    assert retriever.allowed_search_types == ("similarity", "similarity_score_threshold", "mmr")

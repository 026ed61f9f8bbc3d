"""BaseRetriever: the one hook, retriever runs, the batch fast path, async paths, bad input."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from ragline.core import (
    BaseRetriever,
    Document,
    InvalidInputError,
    RunCollectorCallbackHandler,
    RunnableLambda,
    RunnablePassthrough,
    RunnablePick,
)

DOCS = [
    Document("red apple", {"id": 1}),
    Document("green apple", {"id": 2}),
    Document("pear", {"id": 3}),
]


class Keyword(BaseRetriever):
    """Returns the documents containing the query."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def _get_relevant_documents(self, query):
        self.queries.append(query)
        if query == "explode":
            raise RuntimeError("index unavailable")
        return [d for d in DOCS if query in d.page_content]


class BatchKeyword(Keyword):
    """Also searches many queries at once."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def _batch_get_relevant_documents(self, queries):
        self.batches.append(list(queries))
        if "explode" in queries:
            raise RuntimeError("batch failed")
        return [[d for d in DOCS if q in d.page_content] for q in queries]


class AsyncKeyword(Keyword):
    def __init__(self) -> None:
        super().__init__()
        self.async_threads: list[int] = []

    async def _aget_relevant_documents(self, query):
        self.async_threads.append(threading.get_ident())
        await asyncio.sleep(0)
        return [d for d in DOCS if query in d.page_content][:1]


def test_invoke_calls_the_hook_and_reports_a_retriever_run():
    collector = RunCollectorCallbackHandler()
    retriever = Keyword()
    assert retriever.invoke("apple", {"callbacks": [collector]}) == DOCS[:2]
    (run,) = collector.traced_runs
    assert (run.name, run.run_type, run.inputs, run.outputs) == (
        "Keyword",
        "retriever",
        {"query": "apple"},
        {"documents": DOCS[:2]},
    )
    assert [event for event, _ in collector.event_log] == ["retriever_start", "retriever_end"]


def test_errors_are_reported_and_raised():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(RuntimeError, match="index unavailable"):
        Keyword().invoke("explode", {"callbacks": [collector]})
    assert [event for event, _ in collector.event_log] == ["retriever_start", "retriever_error"]
    assert str(collector.traced_runs[0].exception) == "index unavailable"
    assert collector.traced_runs[0].error.endswith("\nRuntimeError: index unavailable")


def test_a_query_that_is_not_a_string_is_rejected_before_searching():
    retriever = Keyword()
    with pytest.raises(InvalidInputError, match="Keyword needs a str query, got dict"):
        retriever.invoke({"question": "apple"})  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        retriever.batch(["apple", 3])  # type: ignore[list-item]
    assert retriever.queries == []


def test_keyword_options_the_hook_does_not_take_are_dropped_with_a_warning():
    retriever = Keyword()
    with pytest.warns(UserWarning, match="Keyword ignores the search options k: its _get"):
        assert retriever.invoke("apple", k=2) == retriever.invoke("apple")
    with pytest.warns(UserWarning, match="ignores the search options k"):
        assert retriever.batch(["apple"], k=2) == [retriever.invoke("apple")]
    assert retriever.queries == ["apple"] * 4


def test_tags_and_metadata_of_the_retriever_are_added_to_its_runs():
    collector = RunCollectorCallbackHandler()
    retriever = Keyword()
    retriever.tags = ["kw"]
    retriever.metadata = {"index": "fruit"}
    retriever.invoke(
        "pear", {"callbacks": [collector], "tags": ["call"], "metadata": {"user": "u"}}
    )
    run = collector.traced_runs[0]
    assert run.tags == ["call", "kw"]  # the call's tags, then the retriever's (LangChain)
    # and LangChain's ls_retriever_name: the class name without "Retriever", lowercased
    assert run.metadata == {"index": "fruit", "user": "u", "ls_retriever_name": "keyword"}


def test_batch_without_a_batch_hook_calls_the_hook_per_query():
    retriever = Keyword()
    assert retriever.batch(["red", "pear"]) == [[DOCS[0]], [DOCS[2]]]
    assert sorted(retriever.queries) == ["pear", "red"]


def test_batch_hook_is_called_once_with_one_run_per_query():
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    assert retriever.batch(["red", "green", "pear"], {"callbacks": [collector]}) == [
        [DOCS[0]],
        [DOCS[1]],
        [DOCS[2]],
    ]
    assert retriever.batches == [["red", "green", "pear"]]
    assert retriever.queries == []  # the single-query hook was not used
    assert [(r.name, r.inputs, r.outputs) for r in collector.traced_runs] == [
        ("BatchKeyword", {"query": "red"}, {"documents": [DOCS[0]]}),
        ("BatchKeyword", {"query": "green"}, {"documents": [DOCS[1]]}),
        ("BatchKeyword", {"query": "pear"}, {"documents": [DOCS[2]]}),
    ]
    assert retriever.invoke("pear") == [DOCS[2]]  # invoke still uses the one-query hook


def test_batch_runs_from_one_config_or_one_per_query():
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    retriever.tags, retriever.metadata = ["own"], {"store": "kw"}
    first_id = uuid.uuid4()
    config = {
        "callbacks": [collector],
        "tags": ["t"],
        "metadata": {"user": 7},
        "run_name": "search",
        "run_id": first_id,
    }
    retriever.batch(["red", "green", "pear"], config)
    runs = collector.traced_runs
    assert runs[0].id == first_id  # run_id names one run: the first
    assert len({run.id for run in runs}) == 3
    assert [(r.name, r.tags, r.metadata) for r in runs] == [
        ("search", ["t", "own"], {"store": "kw", "user": 7, "ls_retriever_name": "batchkeyword"})
    ] * 3
    runs[0].tags.append("changed")  # each run has its own containers
    assert runs[1].tags == ["t", "own"]
    collector = RunCollectorCallbackHandler()
    retriever.batch(
        ["red", "pear"],
        [{"callbacks": [collector], "tags": ["a"]}, {"callbacks": [collector], "tags": ["b"]}],
    )
    assert [r.tags for r in collector.traced_runs] == [["a", "own"], ["b", "own"]]


def test_batch_hook_inside_a_sequence_batch_is_still_called_once():
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    chain = RunnableLambda(lambda q: q.lower(), name="normalise") | retriever
    assert chain.batch(["RED", "PEAR"], {"callbacks": [collector]}) == [[DOCS[0]], [DOCS[2]]]
    assert retriever.batches == [["red", "pear"]]
    assert [r.tree() for r in collector.traced_runs] == [
        ("RunnableSequence", [("normalise", []), ("BatchKeyword", [])])
    ] * 2


def test_batch_hook_failure_is_reported_for_every_query():
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    results = retriever.batch(
        ["red", "explode"], {"callbacks": [collector]}, return_exceptions=True
    )
    assert [str(r) for r in results] == ["batch failed", "batch failed"]
    assert [type(r.exception).__name__ for r in collector.traced_runs] == [
        "RuntimeError",
        "RuntimeError",
    ]
    with pytest.raises(RuntimeError, match="batch failed"):
        retriever.batch(["explode"])


def test_batch_hook_returning_the_wrong_count_is_an_error():
    class Broken(BaseRetriever):
        def _get_relevant_documents(self, query):
            return []

        def _batch_get_relevant_documents(self, queries):
            return [[]]

    with pytest.raises(InvalidInputError, match="returned 1 results for 2 queries"):
        Broken().batch(["a", "b"])


async def test_ainvoke_uses_the_async_hook_on_the_event_loop():
    collector = RunCollectorCallbackHandler()
    retriever = AsyncKeyword()
    assert await retriever.ainvoke("apple", {"callbacks": [collector]}) == DOCS[:1]
    assert retriever.async_threads == [threading.get_ident()]
    assert retriever.queries == []
    assert collector.traced_runs[0].run_type == "retriever"


async def test_ainvoke_default_runs_the_sync_hook_in_a_thread_as_a_child_run():
    collector = RunCollectorCallbackHandler()
    retriever = Keyword()

    async def outer(q):
        return await retriever.ainvoke(q)

    assert await RunnableLambda(outer, name="outer").ainvoke(
        "pear", {"callbacks": [collector]}
    ) == [DOCS[2]]
    assert collector.traced_runs[0].tree() == ("outer", [("Keyword", [])])


async def test_abatch_uses_the_batch_hook_once():
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    assert await retriever.abatch(["red", "green"], {"callbacks": [collector]}) == [
        [DOCS[0]],
        [DOCS[1]],
    ]
    assert retriever.batches == [["red", "green"]]
    assert len(collector.traced_runs) == 2
    results = await retriever.abatch(["explode"], return_exceptions=True)
    assert isinstance(results[0], RuntimeError)


async def test_abatch_without_a_batch_hook():
    assert await Keyword().abatch(["red", "pear"]) == [[DOCS[0]], [DOCS[2]]]


def test_a_retriever_must_implement_the_hook():
    class Nothing(BaseRetriever):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Nothing()  # type: ignore[abstract]


def test_rag_shaped_chain_batch_searches_once():
    """Sequence -> parallel -> retriever: the batch hook still runs once for all inputs."""
    collector = RunCollectorCallbackHandler()
    retriever = BatchKeyword()
    chain = {"context": retriever, "question": RunnablePassthrough()} | RunnableLambda(
        lambda d: f"{d['question']}:{len(d['context'])}", name="prompt"
    )
    assert chain.batch(["apple", "pear", "kiwi"], {"callbacks": [collector]}) == [
        "apple:2",
        "pear:1",
        "kiwi:0",
    ]
    assert retriever.batches == [["apple", "pear", "kiwi"]]
    assert retriever.queries == []
    assert [[c.name for c in r.children] for r in collector.traced_runs] == [
        ["RunnableParallel<context,question>", "prompt"]
    ] * 3
    for run in collector.traced_runs:
        parallel = run.children[0]
        assert sorted(c.name for c in parallel.children) == ["BatchKeyword", "RunnablePassthrough"]
        assert all(c.parent_run_id == parallel.id for c in parallel.children)


async def test_assign_chain_abatch_searches_once():
    retriever = BatchKeyword()
    chain = RunnablePassthrough.assign(context=RunnablePick("q") | retriever)
    results = await chain.abatch([{"q": "red"}, {"q": "pear"}])
    assert results == [{"q": "red", "context": [DOCS[0]]}, {"q": "pear", "context": [DOCS[2]]}]
    assert retriever.batches == [["red", "pear"]]
    assert chain.batch([{"q": "green"}]) == [{"q": "green", "context": [DOCS[1]]}]
    assert retriever.batches[-1] == ["green"]

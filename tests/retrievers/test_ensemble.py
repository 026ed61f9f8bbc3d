"""EnsembleRetriever: weighted RRF with exact fused orders, dedup keys, concurrency, runs."""

from __future__ import annotations

import asyncio
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.core import (
    BaseRetriever,
    Document,
    InvalidInputError,
    RunCollectorCallbackHandler,
    RunnableLambda,
)
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import BM25Retriever, EnsembleRetriever, weighted_reciprocal_rank
from ragline.vectorstores import InMemoryVectorStore


class Fixed(BaseRetriever):
    """Returns the same ranked list for every query; can wait at a barrier first."""

    def __init__(
        self, name: str, documents: list[Document], barrier: threading.Barrier | None = None
    ):
        self.name = name
        self.documents = documents
        self.barrier = barrier

    def _get_relevant_documents(self, query):
        if self.barrier is not None:
            # only passes when the other retriever runs at the same time (60 s: a hang)
            self.barrier.wait(timeout=60)
        if query == f"explode {self.name}":
            raise RuntimeError(f"{self.name} failed")
        return list(self.documents)


A, B, C, D = (Document(text, id=text) for text in "abcd")


def ids(documents):
    return [d.id for d in documents]


def test_weighted_rrf_order_computed_by_hand():
    retriever = EnsembleRetriever(
        [Fixed("one", [A, B, C]), Fixed("two", [C, D, A])], weights=[0.7, 0.3]
    )
    # a: .7/61 + .3/63 = .016237   b: .7/62 = .011290
    # c: .7/63 + .3/61 = .016029   d: .3/62 = .004839
    scores = {"a": 0.7 / 61 + 0.3 / 63, "b": 0.7 / 62, "c": 0.7 / 63 + 0.3 / 61, "d": 0.3 / 62}
    assert sorted(scores, key=scores.get, reverse=True) == ["a", "c", "b", "d"]
    assert ids(retriever.invoke("q")) == ["a", "c", "b", "d"]
    # weight on the second list flips a and c
    assert ids(
        EnsembleRetriever(
            [Fixed("one", [A, B, C]), Fixed("two", [C, D, A])], weights=[0.3, 0.7]
        ).invoke("q")
    ) == ["c", "a", "d", "b"]


def test_c_changes_how_much_rank_matters():
    # one: [a, b], two: [b] with weights 1 and 0.6:
    # c=0:  a = 1/1 = 1.0, b = 1/2 + 0.6/1 = 1.1           -> b first
    # c=60: a = 1/61 = .01639, b = 1/62 + .6/61 = .02597  -> b first
    # c=0 with weights 1, 0.4: a = 1.0, b = .5 + .4 = .9   -> a first
    one, two = Fixed("one", [A, B]), Fixed("two", [B])
    assert ids(EnsembleRetriever([one, two], weights=[1, 0.6], c=0).invoke("q")) == ["b", "a"]
    assert ids(EnsembleRetriever([one, two], weights=[1, 0.4], c=0).invoke("q")) == ["a", "b"]
    assert ids(EnsembleRetriever([one, two], weights=[1, 0.4], c=60).invoke("q")) == ["b", "a"]


def test_equal_scores_keep_the_order_of_first_appearance():
    assert ids(EnsembleRetriever([Fixed("one", [A, B]), Fixed("two", [B, A])]).invoke("q")) == [
        "a",
        "b",
    ]
    assert ids(EnsembleRetriever([Fixed("one", [B, A]), Fixed("two", [A, B])]).invoke("q")) == [
        "b",
        "a",
    ]


def test_default_weights_are_equal():
    retriever = EnsembleRetriever([Fixed("one", [A]), Fixed("two", [B]), Fixed("three", [C])])
    assert retriever.weights == [1 / 3, 1 / 3, 1 / 3]
    assert ids(retriever.invoke("q")) == ["a", "b", "c"]


def test_documents_are_the_same_by_text_and_the_first_copy_is_returned():
    with_meta = Document("a", {"from": "two"}, id="a")
    fused = EnsembleRetriever([Fixed("one", [B, A]), Fixed("two", [with_meta])]).invoke("q")
    assert fused == [A, B]  # a: 1/62 + 1/61 beats b: 1/61; the copy from "one" is kept
    same_text = [Document("x", {"n": 1}), Document("x", {"n": 2})]
    assert EnsembleRetriever([Fixed("one", same_text[:1]), Fixed("two", same_text[1:])]).invoke(
        "q"
    ) == [Document("x", {"n": 1})]
    # the text decides, not the id (LangChain's rule: a BM25 side without ids and a
    # store side with ids name one chunk the same way)
    other_ids = [Document("x", id="1"), Document("x", id="2")]
    assert ids(
        EnsembleRetriever([Fixed("one", other_ids[:1]), Fixed("two", other_ids[1:])]).invoke("q")
    ) == ["1"]


def test_id_key_identifies_documents_by_metadata():
    one = [Document("chunk A", {"source": "s1"}), Document("chunk B", {"source": "s2"})]
    two = [Document("other text", {"source": "s2"})]
    fused = EnsembleRetriever([Fixed("one", one), Fixed("two", two)], id_key="source").invoke("q")
    assert [d.page_content for d in fused] == ["chunk B", "chunk A"]
    with pytest.raises(InvalidInputError, match="id_key 'source' is missing from the metadata of"):
        EnsembleRetriever([Fixed("one", [A])], id_key="source").invoke("q")


def test_a_document_repeated_by_one_retriever_counts_once_at_its_best_rank():
    assert ids(weighted_reciprocal_rank([[A, B, A], [B]], [1, 1])) == ["b", "a"]
    assert ids(weighted_reciprocal_rank([[A, A], [B]], [1, 1])) == ["a", "b"]  # a tie: 1/61 each


def test_hybrid_bm25_and_vector_search_fused_order():
    texts = [
        "the cat purrs on the mat",
        "a kitten is purring",
        "dog barks at the cat",
        "stock prices fell sharply",
        "cats and kittens nap",
    ]
    keys = ["t1", "t2", "t3", "t4", "t5"]
    keyword = BM25Retriever.from_texts(texts, ids=keys, k=3, idf="lucene", only_matching=True)
    store = InMemoryVectorStore.from_texts(texts, HashingEmbeddings(dimension=256), ids=keys)
    vector = store.as_retriever(search_kwargs={"k": 3})
    assert ids(keyword.invoke("cat purring")) == ["t2", "t3", "t1"]
    assert ids(vector.invoke("cat purring")) == ["t2", "t1", "t3"]
    # t1 = .3/63 + .7/62 > t3 = .3/62 + .7/63: the vector side decides the tie
    hybrid = EnsembleRetriever([keyword, vector], weights=[0.3, 0.7])
    assert ids(hybrid.invoke("cat purring")) == ["t2", "t1", "t3"]
    assert ids(EnsembleRetriever([keyword, vector], weights=[0.7, 0.3]).invoke("cat purring")) == [
        "t2",
        "t3",
        "t1",
    ]
    # BM25 finds only the exact word; vectors add neighbours
    assert ids(keyword.invoke("kitten")) == ["t2"]
    assert ids(hybrid.invoke("kitten")) == ["t2", "t5", "t4"]
    # a batch embeds and searches all the queries in one store call
    searches = []
    search = store._search_texts
    store._search_texts = lambda queries, plan, **options: (
        searches.append(list(queries)) or search(queries, plan, **options)
    )
    assert [ids(docs) for docs in hybrid.batch(["cat purring", "kitten"])] == [
        ["t2", "t1", "t3"],
        ["t2", "t5", "t4"],
    ]
    assert searches == [["cat purring", "kitten"]]


def test_child_retrievers_run_concurrently_as_child_runs():
    barrier = threading.Barrier(2)
    retriever = EnsembleRetriever([Fixed("one", [A], barrier), Fixed("two", [B], barrier)])
    collector = RunCollectorCallbackHandler()
    assert ids(retriever.invoke("q", {"callbacks": [collector], "tags": ["t"]})) == ["a", "b"]
    (run,) = collector.traced_runs
    assert (run.name, run.run_type, run.inputs) == (
        "EnsembleRetriever",
        "retriever",
        {"query": "q"},
    )
    assert sorted(child.name for child in run.children) == ["one", "two"]
    assert all(
        child.run_type == "retriever" and child.inputs == {"query": "q"} for child in run.children
    )
    assert all("t" in child.tags for child in run.children)  # config flows to the children


class Where(BaseRetriever):
    """Returns its documents and notes the name of the thread it ran on."""

    def __init__(self, documents: list[Document], seen: list[str]):
        self.documents, self.seen = documents, seen

    def _get_relevant_documents(self, query):
        self.seen.append(threading.current_thread().name)
        return list(self.documents)


def test_invoke_runs_children_on_one_shared_pool_not_a_new_thread_per_call():
    """The first child runs on the calling thread, the others on the shared pool's workers
    (a pool per call started threads on every query: 4-8 ms each on a loaded machine)."""
    first, second = [], []
    retriever = EnsembleRetriever([Where([A], first), Where([B], second)])
    for _ in range(30):
        assert ids(retriever.invoke("q")) == ["a", "b"]
    assert set(first) == {threading.current_thread().name}
    assert len(set(second)) <= 8 and all(n.startswith("ragline-ensemble") for n in second)


def test_nested_ensembles_from_many_threads_finish():
    """Ensembles of ensembles invoked by 24 threads at once (more than the pool's 8
    workers): a worker runs a nested ensemble's children itself, so none waits for
    another and the pool cannot deadlock."""
    inner = [EnsembleRetriever([Fixed(f"x{n}", [A]), Fixed(f"y{n}", [B])]) for n in range(3)]
    outer = EnsembleRetriever([*inner, Fixed("z", [C])])
    results: list[list[str]] = []

    def call() -> None:
        for _ in range(5):
            results.append(ids(outer.invoke("q")))

    threads = [threading.Thread(target=call, daemon=True) for _ in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "deadlocked"
    assert results == [["a", "b", "c"]] * 120


async def test_async_children_run_concurrently():
    started = []
    release = asyncio.Event()

    class Waiting(Fixed):
        async def _aget_relevant_documents(self, query):
            started.append(self.name)
            if len(started) == 2:
                release.set()
            await asyncio.wait_for(release.wait(), timeout=60)
            return list(self.documents)

    collector = RunCollectorCallbackHandler()
    retriever = EnsembleRetriever([Waiting("one", [A]), Waiting("two", [B])])
    assert ids(await retriever.ainvoke("q", {"callbacks": [collector]})) == ["a", "b"]
    assert sorted(c.name for c in collector.traced_runs[0].children) == ["one", "two"]


def test_batch_and_any_runnable_as_a_child():
    echo = RunnableLambda(lambda q: [Document(q, id=q)], name="echo")
    retriever = EnsembleRetriever([echo, Fixed("one", [A])], weights=[2, 1])
    assert [ids(docs) for docs in retriever.batch(["x", "y"])] == [["x", "a"], ["y", "a"]]


async def test_a_child_that_returns_no_document_list_is_named():
    """A Runnable child answering with text: an error naming the child, in every path;
    in a batch only the queries it answered that way fail."""
    text = RunnableLambda(
        lambda q: "not documents" if q == "bad" else [Document(q, id=q)], name="text"
    )
    retriever = EnsembleRetriever([Fixed("one", [A]), text])
    message = (
        r"EnsembleRetriever retrievers\[1\] \(text\) must return a list of Document, "
        r"got 'not documents'"
    )
    with pytest.raises(InvalidInputError, match=message):
        retriever.invoke("bad")
    with pytest.raises(InvalidInputError, match=message):
        await retriever.ainvoke("bad")
    good, bad = retriever.batch(["ok", "bad"], return_exceptions=True)
    assert ids(good) == ["a", "ok"]
    assert isinstance(bad, InvalidInputError)
    assert str(bad).startswith(
        "EnsembleRetriever retrievers[1] (text) must return a list of Document"
    )


def test_a_failing_child_fails_the_ensemble_run():
    collector = RunCollectorCallbackHandler()
    with pytest.raises(RuntimeError, match="two failed"):
        EnsembleRetriever([Fixed("one", [A]), Fixed("two", [B])]).invoke(
            "explode two", {"callbacks": [collector]}
        )
    (run,) = collector.traced_runs
    assert str(run.exception) == "two failed"
    assert sorted((child.name, str(child.exception)) for child in run.children) == [
        ("one", "None"),
        ("two", "two failed"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"retrievers": []}, "needs a non-empty list of retrievers"),
        (
            {"retrievers": [object()]},
            r"retrievers\[0\] must be a retriever \(a Runnable\), got object",
        ),
        ({"weights": [1.0]}, "got 1 weights for 2 retrievers"),
        ({"weights": [1.0, -0.5]}, r"weights\[1\] must be a finite number >= 0, got -0.5"),
        ({"weights": [0, 0]}, r"weights must sum to a positive number, got \[0, 0\]"),
        ({"weights": [1, float("inf")]}, r"weights\[1\] must be a finite number"),
        ({"weights": "11"}, "weights must be a list of numbers"),
        ({"c": -1}, "c must be a finite number >= 0, got -1"),
        ({"id_key": 3}, "id_key must be a str or None, got 3"),
    ],
)
def test_bad_options_are_rejected(kwargs, message):
    options = {"retrievers": [Fixed("one", [A]), Fixed("two", [B])], **kwargs}
    with pytest.raises(InvalidInputError, match=message):
        EnsembleRetriever(**options)


class BatchFixed(Fixed):
    """Fixed, plus a batch hook that records each batch."""

    def __init__(self, name, documents):
        super().__init__(name, documents)
        self.batches = []

    def _batch_get_relevant_documents(self, queries):
        self.batches.append(list(queries))
        return [
            [Document(f"{self.name}:{q}", id=f"{self.name}:{q}"), *self.documents] for q in queries
        ]


def test_batch_gives_each_child_all_queries_at_once_with_runs_per_query():
    one, two = BatchFixed("one", [A]), BatchFixed("two", [A, B])
    retriever = EnsembleRetriever([one, two], weights=[1, 1])
    collector = RunCollectorCallbackHandler()
    results = retriever.batch(["x", "y"], {"callbacks": [collector], "tags": ["t"]})
    # query x: one -> [one:x, a], two -> [two:x, a, b]; a = 1/62 + 1/62 beats the 1/61s
    assert [ids(docs) for docs in results] == [
        ["a", "one:x", "two:x", "b"],
        ["a", "one:y", "two:y", "b"],
    ]
    assert one.batches == [["x", "y"]] and two.batches == [["x", "y"]]
    assert [(run.name, run.inputs) for run in collector.traced_runs] == [
        ("EnsembleRetriever", {"query": "x"}),
        ("EnsembleRetriever", {"query": "y"}),
    ]
    for run in collector.traced_runs:
        query = run.inputs["query"]
        assert sorted((child.name, child.inputs) for child in run.children) == [
            ("one", {"query": query}),
            ("two", {"query": query}),
        ]
        assert all("t" in child.tags for child in run.children)
        assert ids(run.outputs["documents"]) == ["a", f"one:{query}", f"two:{query}", "b"]
    assert retriever.batch([]) == []


async def test_abatch_matches_batch_with_runs_per_query():
    one, two = BatchFixed("one", [A]), BatchFixed("two", [B])
    retriever = EnsembleRetriever([one, two])
    collector = RunCollectorCallbackHandler()
    assert await retriever.abatch(["x", "y"], {"callbacks": [collector]}) == retriever.batch(
        ["x", "y"]
    )
    assert one.batches == [["x", "y"], ["x", "y"]]
    assert [len(run.children) for run in collector.traced_runs] == [2, 2]


@pytest.mark.parametrize("asynchronous", [False, True])
async def test_a_child_failing_on_one_query_fails_only_that_query(asynchronous):
    retriever = EnsembleRetriever([Fixed("one", [A]), Fixed("two", [B])])
    collector = RunCollectorCallbackHandler()
    queries = ["fine", "explode two"]
    config = {"callbacks": [collector]}
    if asynchronous:
        results = await retriever.abatch(queries, config, return_exceptions=True)
    else:
        results = retriever.batch(queries, config, return_exceptions=True)
    assert ids(results[0]) == ["a", "b"]
    assert isinstance(results[1], RuntimeError) and str(results[1]) == "two failed"
    by_query = {run.inputs["query"]: run for run in collector.traced_runs}
    assert by_query["fine"].error is None
    assert str(by_query["explode two"].exception) == "two failed"
    with pytest.raises(RuntimeError, match="two failed"):
        retriever.batch(queries)
    with pytest.raises(InvalidInputError, match="needs a str query, got int"):
        retriever.batch(["ok", 3])


@settings(max_examples=80, deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=6), min_size=1, max_size=4),
    data=st.data(),
)
def test_fusion_matches_the_formula_on_random_rankings(lists, data):
    weights = data.draw(
        st.lists(st.integers(0, 5), min_size=len(lists), max_size=len(lists)).filter(any)
    )
    c = data.draw(st.sampled_from([0, 1, 60]))
    # reference: each list's first occurrence of a letter at rank r adds w / (c + r)
    scores, first = {}, []
    for letters, weight in zip(lists, weights, strict=True):
        for letter in dict.fromkeys(letters):
            scores[letter] = scores.get(letter, 0.0) + weight / (c + letters.index(letter) + 1)
        first.extend(letter for letter in dict.fromkeys(letters) if letter not in first)
    expected = sorted(first, key=lambda letter: (-scores[letter], first.index(letter)))
    docs = [[Document(letter) for letter in letters] for letters in lists]
    fused = [d.page_content for d in weighted_reciprocal_rank(docs, weights, c)]
    assert fused == expected
    # scaling every weight changes no order (by 4: a power of two keeps the float sums exact)
    assert [
        d.page_content for d in weighted_reciprocal_rank(docs, [w * 4 for w in weights], c)
    ] == fused

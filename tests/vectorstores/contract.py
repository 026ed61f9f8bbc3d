"""The VectorStore contract: one suite, run unchanged on every backend and metric.

``tests/vectorstores/test_contract.py`` runs :class:`VectorStoreContract` once per entry
of the ``store_factory`` fixture (``tests/vectorstores/conftest.py``). The data is small
and hand-checkable: eight unit vectors in a plane at known angles, so the expected
order, relevance scores and MMR picks follow from a few cosines. Each test's docstring
says what to look at when it fails.

Geometry (3-D vectors ``(cos a, sin a, 0)``)::

    text   angle  id    metadata n, color, even, weight (+ "extra" on d7 only)
    d0       0    id0   0 red   True  0.0
    d1      10    id1   1 blue  False 0.5
    d2      20    id2   2 red   True  1.0
    d3      35    id3   3 green False 1.5
    d4      55    id4   4 blue  True  2.0
    d5      80    id5   5 red   False 2.5
    d6     120    id6   6 green True  3.0
    d7     170    id7   7 blue  False 3.5

For unit vectors every metric ranks alike and the relevance of a document at angle
``t`` from the query is ``(1 + cos t) / 2`` on every backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from ragline.core import (
    ConfigurationError,
    DimensionError,
    Document,
    FilterError,
    InvalidInputError,
)
from ragline.embeddings import Embeddings
from ragline.vectorstores import VectorStore

# ---------------------------------------------------------------------- test data

ANGLES = {"d0": 0, "d1": 10, "d2": 20, "d3": 35, "d4": 55, "d5": 80, "d6": 120, "d7": 170}
TEXTS = list(ANGLES)
IDS = [f"id{i}" for i in range(len(TEXTS))]
COLORS = ["red", "blue", "red", "green", "blue", "red", "green", "blue"]
METADATAS: list[dict[str, Any]] = [
    {"n": i, "color": COLORS[i], "even": i % 2 == 0, "weight": i * 0.5} for i in range(8)
]
METADATAS[7]["extra"] = "x"
# queries: name -> angle
QUERY_ANGLES = {"q0": 0, "q3": 3, "q25": 25, "q95": 95}
# extra texts used by single tests: new documents, and vectors that must be refused
EXTRA_ANGLES = {"d8": 45, "d9": 65, "d0-moved": 175}


def unit(angle_degrees: float) -> list[float]:
    """The 3-D unit vector at ``angle_degrees`` in the first plane."""
    radians = math.radians(angle_degrees)
    return [math.cos(radians), math.sin(radians), 0.0]


def relevance_at(angle_degrees: float) -> float:
    """The relevance every backend must give a document ``angle_degrees`` away."""
    return (1.0 + math.cos(math.radians(angle_degrees))) / 2.0


def texts_of(documents: Sequence[Document]) -> list[str]:
    return [document.page_content for document in documents]


class ExplicitEmbeddings(Embeddings):
    """Embeddings from a fixed table, so every vector in the tests is known exactly.

    An unknown text raises LookupError (a test typo must not pass silently). The table
    also holds vectors that stores must refuse: ``"nan"``, ``"inf"`` and ``"wrongdim"`` /
    ``"wrongdim2"`` (4-D).
    ``query_batches`` records the size of every ``embed_queries_array`` call.
    """

    def __init__(self, table: dict[str, list[float]] | None = None) -> None:
        if table is None:
            table = {name: unit(angle) for name, angle in ANGLES.items()}
            table.update({name: unit(angle) for name, angle in QUERY_ANGLES.items()})
            table.update({name: unit(angle) for name, angle in EXTRA_ANGLES.items()})
            table["nan"] = [float("nan"), 0.0, 0.0]
            table["inf"] = [float("inf"), 0.0, 0.0]
            table["wrongdim"] = [1.0, 0.0, 0.0, 0.0]
            table["wrongdim2"] = [0.0, 1.0, 0.0, 0.0]
        self.table = table
        self.query_batches: list[int] = []

    def _vector(self, text: str) -> list[float]:
        try:
            return list(self.table[text])
        except KeyError:
            raise LookupError(f"ExplicitEmbeddings has no vector for {text!r}") from None

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
        # deliberately unvalidated: the STORE must refuse NaN / wrong dimensions
        rows = [self._vector(text) for text in texts]
        return np.array(rows, dtype=np.float32) if rows else np.zeros((0, 3), np.float32)

    def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
        self.query_batches.append(len(texts))
        return np.array([self._vector(text) for text in texts], dtype=np.float32)


@dataclass
class StoreFactory:
    """Builds empty stores of one backend: ``factory(embeddings)``.

    Attributes:
        cls: the VectorStore subclass.
        metric: the distance metric its stores use (for messages and metric checks).
        options: returns the constructor's keyword options, freshly for every store
            (a Redis factory gives each store its own index name).
        cleanup: called on every store built, when the test ends (drop an index ...).
    """

    cls: type[VectorStore]
    metric: str
    options: Callable[[], dict[str, Any]] = dict
    cleanup: Callable[[VectorStore], None] | None = None
    built: list[VectorStore] = field(default_factory=list)

    def __call__(self, embeddings: Embeddings) -> VectorStore:
        return self._keep(self.cls(embeddings, **self.options()))

    def from_texts(self, texts: list[str], embeddings: Embeddings, **kwargs: Any) -> VectorStore:
        return self._keep(self.cls.from_texts(texts, embeddings, **kwargs, **self.options()))

    def from_documents(self, documents: list[Document], embeddings: Embeddings) -> VectorStore:
        return self._keep(self.cls.from_documents(documents, embeddings, **self.options()))

    async def afrom_texts(
        self, texts: list[str], embeddings: Embeddings, **kwargs: Any
    ) -> VectorStore:
        store = await self.cls.afrom_texts(texts, embeddings, **kwargs, **self.options())
        return self._keep(store)

    def _keep(self, store: VectorStore) -> VectorStore:
        self.built.append(store)
        return store

    def close(self) -> None:
        if self.cleanup is not None:
            for store in self.built:
                self.cleanup(store)
        self.built.clear()


def assert_intact(store: VectorStore) -> None:
    """The eight documents are still there, unchanged, and searchable in the right order."""
    assert store.count() == 8
    found = store.similarity_search("q0", k=8)
    assert texts_of(found) == TEXTS
    assert [document.id for document in found] == IDS
    assert [document.metadata for document in store.get_by_ids(IDS)] == METADATAS


# Filters with the ids they must return for query q0 (nearest first), k = 3.
FILTER_CASES = [
    pytest.param({"color": "blue"}, ["id1", "id4", "id7"], id="implicit-eq"),
    pytest.param({"color": {"$eq": "green"}}, ["id3", "id6"], id="eq-only-two-match"),
    pytest.param({"color": {"$ne": "red"}}, ["id1", "id3", "id4"], id="ne"),
    pytest.param({"n": {"$gt": 4}}, ["id5", "id6", "id7"], id="gt"),
    pytest.param({"n": {"$gte": 6}}, ["id6", "id7"], id="gte"),
    pytest.param({"n": {"$lt": 2}}, ["id0", "id1"], id="lt"),
    pytest.param({"weight": {"$lte": 1.0}}, ["id0", "id1", "id2"], id="lte-float"),
    pytest.param({"n": {"$gt": 1, "$lt": 5}}, ["id2", "id3", "id4"], id="range"),
    pytest.param({"color": {"$in": ["green", "blue"]}}, ["id1", "id3", "id4"], id="in"),
    pytest.param({"color": {"$nin": ["red", "blue"]}}, ["id3", "id6"], id="nin"),
    pytest.param({"even": True}, ["id0", "id2", "id4"], id="bool"),
    pytest.param({"extra": "x"}, ["id7"], id="field-on-one-doc"),
    pytest.param({"extra": {"$ne": "x"}}, ["id0", "id1", "id2"], id="ne-missing-field"),
    pytest.param({"color": "red", "even": False}, ["id5"], id="implicit-and"),
    pytest.param({"$and": [{"n": {"$ne": 0}}, {"color": "red"}]}, ["id2", "id5"], id="and"),
    pytest.param({"$or": [{"color": "green"}, {"n": {"$lt": 1}}]}, ["id0", "id3", "id6"], id="or"),
    pytest.param(
        {"$or": [{"$and": [{"color": "blue"}, {"n": {"$gt": 3}}]}, {"n": 6}]},
        ["id4", "id6", "id7"],
        id="nested",
    ),
    pytest.param({"$not": {"color": "red"}}, ["id1", "id3", "id4"], id="not-eq"),
    pytest.param({"$not": {"n": {"$gt": 4}}}, ["id0", "id1", "id2"], id="not-range"),
    pytest.param({"$not": {"extra": "x"}}, ["id0", "id1", "id2"], id="not-missing-field"),
    pytest.param(
        {"$and": [{"$not": {"color": "blue"}}, {"n": {"$gt": 2}}]},
        ["id3", "id5", "id6"],
        id="not-inside-and",
    ),
    pytest.param({"color": "purple"}, [], id="no-match"),
]

# Calls that must fail before changing anything: (call, error type, message fragment).
BAD_CALLS = [
    pytest.param(
        lambda s: s.add_texts(["d8", "d9"], metadatas=[{}]),
        InvalidInputError,
        "metadatas",
        id="texts-metadatas-lengths",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], ids=["a", "b"]), InvalidInputError, "ids", id="ids-length"
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "d9"], ids=["x", "x"]),
        InvalidInputError,
        "'x'",
        id="duplicate-ids",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "d9"], ids=["id0", "id0"]),
        InvalidInputError,
        "'id0'",
        id="duplicate-stored-id",
    ),
    pytest.param(
        lambda s: s.add_documents([Document("d8", id="z"), Document("d9", id="z")]),
        InvalidInputError,
        "'z'",
        id="duplicate-document-ids",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "nan"], ids=["id8", "id9"]),
        DimensionError,
        "NaN",
        id="nan-embedding",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "inf"], ids=["id8", "id9"]),
        DimensionError,
        "infinite",
        id="inf-embedding",
    ),
    pytest.param(
        lambda s: s.add_texts(["wrongdim", "wrongdim2"], ids=["id8", "id9"]),
        DimensionError,
        "dimension",
        id="wrong-dimension-embedding",
    ),
    pytest.param(
        lambda s: s.add_embeddings([("d8", [1.0, 0.0])]),
        DimensionError,
        "dimension",
        id="wrong-dimension-vector",
    ),
    pytest.param(
        lambda s: s.add_embeddings([("d8", [float("nan"), 1.0, 0.0])]),
        DimensionError,
        "NaN",
        id="nan-vector",
    ),
    pytest.param(
        lambda s: s.add_texts([1, 2]),  # type: ignore[list-item]
        InvalidInputError,
        "texts[0]",
        id="non-string-text",
    ),
    pytest.param(
        lambda s: s.add_texts("d8"), InvalidInputError, "single string", id="text-not-a-list"
    ),
    pytest.param(lambda s: s.delete("id0"), InvalidInputError, "ids", id="delete-a-string"),
    pytest.param(
        lambda s: s.similarity_search_by_vector([1.0, 0.0]),
        DimensionError,
        "dimension",
        id="query-wrong-dimension",
    ),
    pytest.param(
        lambda s: s.similarity_search_by_vector([float("nan"), 0.0, 0.0]),
        DimensionError,
        "NaN",
        id="query-nan",
    ),
    pytest.param(
        lambda s: s.similarity_search_by_vector([float("inf"), 0.0, 0.0]),
        DimensionError,
        "infinite",
        id="query-inf",
    ),
    pytest.param(
        lambda s: s.similarity_search("nan"), DimensionError, "NaN", id="embedded-query-nan"
    ),
    pytest.param(
        lambda s: s.similarity_search_by_vector(np.array([0.0, float("inf"), 0.0], np.float32)),
        DimensionError,
        "infinite",
        id="query-array-inf",
    ),
    pytest.param(lambda s: s.similarity_search("q0", k=0), InvalidInputError, "k", id="k-0"),
    pytest.param(
        lambda s: s.similarity_search_with_score("q0", k=-1), InvalidInputError, "k", id="k-neg"
    ),
    pytest.param(
        lambda s: s.similarity_search_with_relevance_scores("q0", k=0),
        InvalidInputError,
        "k",
        id="relevance-k-0",
    ),
    pytest.param(
        lambda s: s.max_marginal_relevance_search("q0", k=0),
        InvalidInputError,
        "k",
        id="mmr-k-0",
    ),
    pytest.param(
        lambda s: s.max_marginal_relevance_search("q0", lambda_mult=-0.1),
        InvalidInputError,
        "lambda_mult",
        id="lambda-below-0",
    ),
    pytest.param(
        lambda s: s.max_marginal_relevance_search_by_vector(unit(0), lambda_mult=1.5),
        InvalidInputError,
        "lambda_mult",
        id="lambda-above-1",
    ),
    pytest.param(
        lambda s: s.similarity_search_with_relevance_scores("q0", score_threshold=-0.1),
        InvalidInputError,
        "score_threshold",
        id="threshold-below-0",
    ),
    pytest.param(
        lambda s: s.similarity_search_with_relevance_scores("q0", score_threshold=1.1),
        InvalidInputError,
        "score_threshold",
        id="threshold-above-1",
    ),
    pytest.param(
        lambda s: s.similarity_search("q0", filter={"n": {"$regex": "1"}}),
        FilterError,
        "$regex",
        id="unknown-operator",
    ),
    pytest.param(
        lambda s: s.similarity_search("q0", filter={"$nor": [{"n": 1}]}),
        FilterError,
        "$nor",
        id="unknown-logical-operator",
    ),
    pytest.param(
        lambda s: s.max_marginal_relevance_search("q0", filter={"n": {"$in": 3}}),
        FilterError,
        "$in",
        id="bad-operand",
    ),
    pytest.param(
        lambda s: s.as_retriever(search_type="simlarity"),
        ConfigurationError,
        "'similarity', 'similarity_score_threshold', 'mmr'",
        id="unknown-search-type",
    ),
    pytest.param(
        # a call's own option the search does not take (a search_kwargs key is ignored
        # with a warning instead: test_unknown_search_kwargs_are_ignored_with_a_warning)
        lambda s: s.as_retriever(search_kwargs={"k": 2}).invoke("q0", top_k=3),
        InvalidInputError,
        "'top_k'",
        id="unknown-search-kwarg",
    ),
    pytest.param(
        lambda s: s.as_retriever(search_type="mmr").invoke("q0", score_threshold=0.5),
        InvalidInputError,
        "'score_threshold'",
        id="kwarg-of-another-search-type",
    ),
    pytest.param(
        lambda s: s.as_retriever(
            search_type="similarity_score_threshold", search_kwargs={"score_threshold": 1.5}
        ),
        InvalidInputError,
        "score_threshold",
        id="retriever-threshold-above-1",
    ),
    pytest.param(
        lambda s: s.as_retriever(search_type="similarity_score_threshold"),
        InvalidInputError,
        "score_threshold",
        id="retriever-threshold-missing",
    ),
    pytest.param(
        lambda s: s.as_retriever(search_kwargs={"filter": {"n": {"$like": 1}}}),
        FilterError,
        "$like",
        id="retriever-unknown-operator",
    ),
]


def _nested_filter(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"n": 1}
    for _ in range(depth):
        node = {"$and": [node]}
    return node


def _nested_list(depth: int) -> list[Any]:
    node: list[Any] = []
    for _ in range(depth):
        node = [node]
    return node


# Input every backend refuses the same way when added, because a save, a load or a server
# round trip would not give it back unchanged (issue 11, "small ones").
BAD_CALLS += [
    # a query with a lone surrogate is refused by the store before any embedding sees it
    # (issue 31): ExplicitEmbeddings would raise LookupError, a tokenizer a TypeError
    pytest.param(
        lambda s: s.similarity_search("q0\ud800"),
        InvalidInputError,
        "query holds a lone surrogate '\\ud800' at position 2",
        id="lone-surrogate-query",
    ),
    pytest.param(
        lambda s: s.max_marginal_relevance_search("\udfffq0", k=2),
        InvalidInputError,
        "query holds a lone surrogate '\\udfff' at position 0",
        id="lone-surrogate-mmr-query",
    ),
    pytest.param(
        lambda s: s.as_retriever().batch(["q0", "q\ud800"]),
        InvalidInputError,
        "queries[1] holds a lone surrogate '\\ud800' at position 1",
        id="lone-surrogate-retriever-batch",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "d9\ud800"], ids=["id8", "id9"]),
        InvalidInputError,
        "texts[1] holds a lone surrogate",
        id="lone-surrogate-text",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"who": "x\udcff"}], ids=["id8"]),
        InvalidInputError,
        "metadatas[0]['who'] holds a lone surrogate",
        id="lone-surrogate-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"k\ud800": 1}], ids=["id8"]),
        InvalidInputError,
        "lone surrogate",
        id="lone-surrogate-key",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "d9"], [{}, {"pair": (1, 2)}], ids=["id8", "id9"]),
        InvalidInputError,
        "metadatas[1]['pair'] is a tuple, which comes back as a list",
        id="tuple-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{1: "one"}], ids=["id8"]),
        InvalidInputError,
        "has the key 1 (int); metadata keys must be str",
        id="int-metadata-key",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"nested": {2: "x"}}], ids=["id8"]),
        InvalidInputError,
        "metadatas[0]['nested'] has the key 2",
        id="nested-int-metadata-key",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"score": float("nan")}], ids=["id8"]),
        InvalidInputError,
        "metadatas[0]['score'] is nan, which JSON cannot hold",
        id="nan-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"score": [float("-inf")]}], ids=["id8"]),
        InvalidInputError,
        "metadatas[0]['score'][0] is -inf",
        id="inf-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"tags": {"a", "b"}}], ids=["id8"]),
        InvalidInputError,
        "is of type set, which stores cannot keep",
        id="set-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"n": np.int64(3)}], ids=["id8"]),
        InvalidInputError,
        "is of type int64",
        id="numpy-int-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8"], [{"deep": _nested_list(3000)}], ids=["id8"]),
        InvalidInputError,
        "nested deeper than 100 levels",
        id="deeply-nested-metadata",
    ),
    pytest.param(
        lambda s: s.add_texts(["d8", "d9"], ids=["ok", "bad\udfff"]),
        InvalidInputError,
        "ids[1] = 'bad\\udfff' holds a lone surrogate",
        id="lone-surrogate-id",
    ),
    pytest.param(
        lambda s: s.get_by_ids(["\ud800"]),
        InvalidInputError,
        "ids[0]",
        id="lone-surrogate-id-get",
    ),
    pytest.param(
        lambda s: s.held_ids(["id0", ""]),
        InvalidInputError,
        "ids[1]",
        id="empty-id-held",
    ),
    pytest.param(
        lambda s: s.held_ids("id0"),  # type: ignore[arg-type]
        InvalidInputError,
        "ids must be a list",
        id="str-ids-held",
    ),
    pytest.param(
        lambda s: s.add_texts(None),  # type: ignore[arg-type]
        InvalidInputError,
        "texts must be a list of strings, got NoneType",
        id="texts-none",
    ),
    pytest.param(
        lambda s: s.add_documents([Document("d8", {"when": (2024, 1)}, id="id8")]),
        InvalidInputError,
        "is a tuple",
        id="document-tuple-metadata",
    ),
    pytest.param(
        lambda s: s.similarity_search("q0", filter=_nested_filter(3000)),
        FilterError,
        "nested more than 100 levels deep",
        id="filter-3000-deep",
    ),
    pytest.param(
        lambda s: s.similarity_search("q0", k=np.float64(2.0)),
        InvalidInputError,
        "k must be an int",
        id="k-numpy-float",
    ),
]


class VectorStoreContract:
    """The tests every VectorStore backend passes; needs a ``store_factory`` fixture."""

    @pytest.fixture
    def embeddings(self) -> ExplicitEmbeddings:
        return ExplicitEmbeddings()

    @pytest.fixture
    def store(self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings) -> VectorStore:
        store = store_factory(embeddings)
        assert store.add_texts(TEXTS, METADATAS, ids=IDS) == IDS
        return store

    # ------------------------------------------------------------------ similarity

    def test_similarity_search_orders_by_closeness(self, store: VectorStore) -> None:
        """Nearest first. If this fails, check the sign/direction of the native score in
        ``_search`` (a distance sorted descending, or a similarity ascending)."""
        assert texts_of(store.similarity_search("q0", k=8)) == TEXTS
        assert texts_of(store.similarity_search("q25", k=5)) == ["d2", "d3", "d1", "d0", "d4"]
        assert texts_of(store.similarity_search("q95", k=3)) == ["d5", "d6", "d4"]

    def test_k_limits_the_number_of_results(self, store: VectorStore) -> None:
        """Exactly k results when at least k documents are stored; all of them otherwise."""
        assert texts_of(store.similarity_search("q0", k=1)) == ["d0"]
        assert texts_of(store.similarity_search("q0")) == ["d0", "d1", "d2", "d3"]  # k=4
        assert texts_of(store.similarity_search("q0", k=50)) == TEXTS

    def test_results_carry_ids_and_metadata(self, store: VectorStore) -> None:
        """Search results are Documents with the id and metadata they were stored with."""
        by_id = dict(zip(IDS, zip(TEXTS, METADATAS, strict=True), strict=True))
        for document in store.similarity_search("q25", k=8):
            assert document.id in by_id
            assert (document.page_content, document.metadata) == by_id[document.id]

    def test_metadata_round_trips(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """Metadata of every JSON type comes back equal (types included) from get_by_ids
        and from search. If this fails, check the backend's metadata serialization."""
        metadata = {
            "s": "text with spaces, commas; and ünïcode",
            "i": 3,
            "neg": -12,
            "f": 2.5,
            "t": True,
            "fls": False,
            "none": None,
            "list": ["a", "b"],
            "nested": {"k": [1, 2], "x": {"y": "z"}},
        }
        store = store_factory(embeddings)
        store.add_texts(["d0", "d1"], [metadata, {}], ids=["a", "b"])
        [got] = store.get_by_ids(["a"])
        assert got.metadata == metadata
        assert {key: type(value) for key, value in got.metadata.items()} == {
            key: type(value) for key, value in metadata.items()
        }
        assert store.similarity_search("q0", k=1)[0].metadata == metadata
        assert store.get_by_ids(["b"])[0].metadata == {}

    def test_get_by_ids_keeps_order_and_skips_unknown(self, store: VectorStore) -> None:
        """get_by_ids returns the stored documents in the order asked, without unknown ids."""
        got = store.get_by_ids(["id3", "nope", "id1"])
        assert [(d.id, d.page_content, d.metadata) for d in got] == [
            ("id3", "d3", METADATAS[3]),
            ("id1", "d1", METADATAS[1]),
        ]
        assert store.get_by_ids([]) == []

    def test_held_ids_are_what_get_by_ids_finds(self, store: VectorStore) -> None:
        """held_ids answers which ids are stored, without reading the documents: the ids
        get_by_ids finds, for any mix of stored, unknown and repeated ids."""
        asked = ["id3", "nope", "id1", "id3", "ID1", "id7"]
        assert store.held_ids(asked) == {"id1", "id3", "id7"}
        assert store.held_ids(asked) == {d.id for d in store.get_by_ids(asked)}
        assert store.held_ids(IDS) == set(IDS)
        assert store.held_ids([]) == set()
        store.delete(["id3"])
        assert store.held_ids(asked) == {"id1", "id7"}
        store.add_texts(["d3"], ids=["id3"])
        assert store.held_ids(["id3"]) == {"id3"}

    def test_returned_documents_are_copies(self, store: VectorStore) -> None:
        """Mutating a returned Document must not change the store (return fresh copies)."""
        found = store.similarity_search("q0", k=1)[0]
        found.metadata["color"] = "changed"
        found.page_content = "changed"
        fetched = store.get_by_ids(["id0"])[0]
        fetched.metadata["n"] = 99
        assert_intact(store)

    def test_stored_metadata_shares_nothing_with_the_caller(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """Changing the caller's metadata (nested values too) after adding it, or a
        returned document's nested metadata, must not change what is stored."""
        store = store_factory(embeddings)
        metadata = {"tags": ["a"], "nested": {"k": 1}}
        store.add_texts(["d0"], [metadata], ids=["x"])
        metadata["tags"].append("caller")
        metadata["nested"]["k"] = 2
        store.get_by_ids(["x"])[0].metadata["tags"].append("reader")
        store.similarity_search("q0", k=1)[0].metadata["nested"]["k"] = 3
        assert store.get_by_ids(["x"])[0].metadata == {"tags": ["a"], "nested": {"k": 1}}

    def test_stored_vectors_share_nothing_with_the_caller(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """A store may normalize the vectors it is given, but only its own copy: arrays the
        caller still holds (returned by the embeddings, or passed in) stay as they were,
        and changing them afterwards changes nothing stored."""
        held = np.array([[3.0 * x for x in unit(0)], [2.0 * x for x in unit(90)]], np.float32)
        original = held.copy()

        class HeldEmbeddings(ExplicitEmbeddings):
            def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
                return held  # the same array every time, still referenced by its owner

        store = store_factory(HeldEmbeddings())
        store.add_texts(["d0", "d90"], ids=["a", "b"])
        np.testing.assert_array_equal(held, original)
        held[:] = np.array([unit(90), unit(0)], np.float32) * 5  # swap the caller's rows
        assert [d.id for d in store.similarity_search("q0", k=2)] == ["a", "b"]

        rows = np.array([[0.0, 4.0, 0.0], [0.5, 0.0, 0.0]], np.float32)
        kept = rows.copy()
        store.add_embeddings([("c", rows[0]), ("d", rows[1])], ids=["c", "d"])
        np.testing.assert_array_equal(rows, kept)

    def test_search_by_vector_equals_search_by_text(self, store: VectorStore) -> None:
        """Searching with the query's vector gives the same documents and scores."""
        by_text = store.similarity_search_with_score("q25", k=5)
        by_vector = store.similarity_search_with_score_by_vector(unit(25), k=5)
        assert [d.id for d, _ in by_vector] == [d.id for d, _ in by_text]
        assert [s for _, s in by_vector] == pytest.approx([s for _, s in by_text], abs=1e-6)
        assert texts_of(store.similarity_search_by_vector(unit(95), k=2)) == ["d5", "d6"]
        assert texts_of(store.similarity_search_by_vector(np.array(unit(0)), k=1)) == ["d0"]

    def test_empty_store_returns_no_results(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """Searching a store with nothing in it returns [] (no error, no crash)."""
        store = store_factory(embeddings)
        assert store.count() == 0
        assert store.similarity_search("q0") == []
        assert store.similarity_search_with_relevance_scores("q0") == []
        assert store.max_marginal_relevance_search("q0") == []
        assert store.get_by_ids(["id0"]) == []

    # ------------------------------------------------------------------ scores

    def test_native_scores_match_the_documented_score_kind(self, store: VectorStore) -> None:
        """``similarity_search_with_score`` returns the native score named by
        ``score_kind``: mapping it through the store's relevance function must give
        (1 + cos) / 2. If this fails, the backend returns another score than it says
        (e.g. a distance where it declares a similarity, or squared vs plain L2)."""
        pairs = store.similarity_search_with_score("q25", k=8)
        angles = [abs(ANGLES[document.page_content] - 25) for document, _ in pairs]
        native = np.array([score for _, score in pairs])
        assert store._relevance_scores(native) == pytest.approx(
            [relevance_at(angle) for angle in angles], abs=1e-5
        )

    def test_relevance_scores_are_exact_in_unit_interval_and_monotonic(
        self, store: VectorStore
    ) -> None:
        """Relevance is (1 + cos) / 2 for unit vectors on every backend and metric, within
        [0, 1] and non-increasing down the list. If this fails, check score_kind and the
        relevance function for the metric (utils.RELEVANCE_FUNCTIONS)."""
        pairs = store.similarity_search_with_relevance_scores("q0", k=8)
        assert [d.page_content for d, _ in pairs] == TEXTS
        scores = [score for _, score in pairs]
        assert scores == pytest.approx([relevance_at(a) for a in ANGLES.values()], abs=1e-5)
        assert all(0.0 <= score <= 1.0 for score in scores)
        assert scores == sorted(scores, reverse=True)

    def test_score_threshold_drops_less_relevant_results(self, store: VectorStore) -> None:
        """Only results with relevance >= score_threshold are kept, still at most k.
        Relevances for q0: d0 1.0, d1 .992, d2 .970, d3 .910, d4 .787, d5 .587 ..."""
        found = store.similarity_search_with_relevance_scores("q0", k=8, score_threshold=0.9)
        assert [d.page_content for d, _ in found] == ["d0", "d1", "d2", "d3"]
        found = store.similarity_search_with_relevance_scores("q0", k=2, score_threshold=0.9)
        assert [d.page_content for d, _ in found] == ["d0", "d1"]
        found = store.similarity_search_with_relevance_scores("q0", k=8, score_threshold=0.0)
        assert len(found) == 8
        found = store.similarity_search_with_relevance_scores(
            "q0", k=8, filter={"color": "red"}, score_threshold=0.5
        )
        assert [d.page_content for d, _ in found] == ["d0", "d2", "d5"]

    # ------------------------------------------------------------------ MMR

    def test_mmr_picks_diverse_results(self, store: VectorStore) -> None:
        """With query q3 (3 degrees) the plain top 3 is d0, d1, d2; MMR over the top 4
        (lambda 0.5) trades d2 and d1 for the farther d3: [d0, d3, d1]. lambda 1 is plain
        similarity, lambda 0 pure diversity. If this fails, check that _search returns
        the stored vectors when with_vectors=True, in rank order."""
        assert texts_of(store.similarity_search("q3", k=3)) == ["d0", "d1", "d2"]
        mmr = store.max_marginal_relevance_search
        assert texts_of(mmr("q3", k=3, fetch_k=4, lambda_mult=0.5)) == ["d0", "d3", "d1"]
        assert texts_of(mmr("q3", k=3, fetch_k=4, lambda_mult=1.0)) == ["d0", "d1", "d2"]
        assert texts_of(mmr("q3", k=3, fetch_k=4, lambda_mult=0.0)) == ["d0", "d3", "d2"]
        assert texts_of(mmr("q3", k=2, fetch_k=2)) == ["d0", "d1"]
        by_vector = store.max_marginal_relevance_search_by_vector(unit(3), k=3, fetch_k=4)
        assert texts_of(by_vector) == ["d0", "d3", "d1"]
        assert all(document.id == IDS[TEXTS.index(document.page_content)] for document in by_vector)

    def test_mmr_with_fetch_k_below_k_returns_the_candidates_and_warns(
        self, store: VectorStore
    ) -> None:
        """fetch_k below k gives the fetch_k candidates, as LangChain's stores do, with a
        UserWarning naming both numbers; in a retriever too (warned when it is built)."""
        mmr = store.max_marginal_relevance_search
        with pytest.warns(UserWarning, match=r"fetch_k \(2\) is below k \(3\)"):
            assert texts_of(mmr("q3", k=3, fetch_k=2, lambda_mult=1.0)) == ["d0", "d1"]
        with pytest.warns(UserWarning, match=r"fetch_k \(4\) is below k \(5\)"):
            retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 5, "fetch_k": 4})
        assert texts_of(retriever.invoke("q3")) == ["d0", "d3", "d1", "d2"]

    def test_mmr_with_filter(self, store: VectorStore) -> None:
        """MMR candidates are the fetch_k nearest documents that pass the filter:
        non-blue for q3 are d0, d2, d3, d5; MMR picks d0 then the far d5."""
        found = store.max_marginal_relevance_search(
            "q3", k=2, fetch_k=4, lambda_mult=0.5, filter={"color": {"$ne": "blue"}}
        )
        assert texts_of(found) == ["d0", "d5"]
        found = store.max_marginal_relevance_search("q3", k=5, fetch_k=20, filter={"n": 1})
        assert texts_of(found) == ["d1"]

    # ------------------------------------------------------------------ filters

    @pytest.mark.parametrize(("filter", "expected"), FILTER_CASES)
    def test_filter_returns_k_results_whenever_k_match(
        self, store: VectorStore, filter: dict[str, Any], expected: list[str]
    ) -> None:
        """A filtered search returns the nearest matching documents, k of them whenever k
        match (never fewer because non-matching documents were nearer). If this fails,
        compare with ragline.vectorstores.filters.matches, the reference evaluator."""
        found = store.similarity_search("q0", k=3, filter=filter)
        assert [document.id for document in found] == expected
        with_scores = store.similarity_search_with_relevance_scores("q0", k=3, filter=filter)
        assert [document.id for document, _ in with_scores] == expected

    def test_filter_finds_far_matches_among_many_near_distractors(
        self, store_factory: StoreFactory
    ) -> None:
        """300 documents lie near the query and do NOT match; the 3 matching ones are the
        farthest. k=3 must still return those 3 (a backend that filters only the top
        results of an unfiltered search fails here)."""
        rng = np.random.default_rng(7)
        near = rng.normal(size=(300, 8)) * 0.1 + np.eye(8)[0]
        far = -np.eye(8)[:3] + np.eye(8)[[1, 2, 3]] * 0.2
        vectors = np.vstack([near, far])
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        table = {f"t{i}": vector.tolist() for i, vector in enumerate(vectors)}
        table["query"] = np.eye(8)[0].tolist()
        store = store_factory(ExplicitEmbeddings(table))
        names = [f"t{i}" for i in range(len(vectors))]
        metadatas = [{"group": "near"}] * 300 + [{"group": "far"}] * 3
        store.add_texts(names, metadatas, ids=names)
        found = store.similarity_search("query", k=3, filter={"group": "far"})
        assert sorted(texts_of(found)) == ["t300", "t301", "t302"]
        found = store.similarity_search("query", k=5, filter={"group": {"$ne": "near"}})
        assert len(found) == 3

    # ------------------------------------------------------------------ writes

    def test_delete_and_readd(self, store: VectorStore) -> None:
        """A deleted document disappears from search, get_by_ids and count; unknown ids
        are ignored; re-adding it brings it back exactly."""
        store.delete(["id0", "unknown"])
        assert store.count() == 7
        assert store.get_by_ids(["id0"]) == []
        assert texts_of(store.similarity_search("q0", k=8)) == TEXTS[1:]
        store.delete([])
        assert store.count() == 7
        store.add_texts(["d0"], [METADATAS[0]], ids=["id0"])
        assert_intact(store)

    def test_adding_a_stored_id_replaces_it(self, store: VectorStore) -> None:
        """Upsert: re-adding id0 with a new text, vector and metadata replaces the old one
        (count unchanged, old vector gone from search)."""
        store.add_texts(["d0-moved"], [{"color": "black"}], ids=["id0"])
        assert store.count() == 8
        assert texts_of(store.similarity_search("q0", k=1)) == ["d1"]
        [replaced] = store.get_by_ids(["id0"])
        assert (replaced.page_content, replaced.metadata) == ("d0-moved", {"color": "black"})
        assert store.similarity_search("q0", k=8)[-1].id == "id0"  # 175 degrees: farthest
        assert store.similarity_search("q0", k=8, filter={"color": "red"})[0].id == "id2"
        # the same batch again is idempotent
        store.add_texts(TEXTS, METADATAS, ids=IDS)
        store.add_texts(TEXTS, METADATAS, ids=IDS)
        assert_intact(store)

    def test_add_texts_generates_unique_ids(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """Without ids, add_texts returns new unique uuid4 strings that get_by_ids finds."""
        store = store_factory(embeddings)
        ids = store.add_texts(["d0", "d1", "d2"])
        assert len(set(ids)) == 3 and all(len(doc_id) == 36 for doc_id in ids)
        assert texts_of(store.get_by_ids(ids)) == ["d0", "d1", "d2"]
        assert store.add_texts([]) == []
        assert store.count() == 3

    def test_add_documents_uses_document_ids(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """add_documents keys documents by their own id (a uuid4 when id is None), and
        ``ids=`` overrides them."""
        store = store_factory(embeddings)
        ids = store.add_documents([Document("d0", {"a": 1}, id="first"), Document("d1", {"a": 2})])
        assert ids[0] == "first" and len(ids[1]) == 36
        found = store.similarity_search("q0", k=2)
        assert [(d.id, d.metadata) for d in found] == [("first", {"a": 1}), (ids[1], {"a": 2})]
        assert store.add_documents([Document("d2", id="ignored")], ids=["chosen"]) == ["chosen"]
        assert store.get_by_ids(["chosen", "ignored"])[0].page_content == "d2"
        assert store.count() == 3

    def test_from_texts_and_from_documents(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """The class constructors build a store holding exactly what they were given."""
        store = store_factory.from_texts(TEXTS, embeddings, metadatas=METADATAS, ids=IDS)
        assert_intact(store)
        documents = [
            Document(text, metadata, id=doc_id)
            for text, metadata, doc_id in zip(TEXTS, METADATAS, IDS, strict=True)
        ]
        assert_intact(store_factory.from_documents(documents, embeddings))

    # ------------------------------------------------------------------ bad input

    @pytest.mark.parametrize(("call", "error", "fragment"), BAD_CALLS)
    def test_bad_input_raises_a_clear_error_and_changes_nothing(
        self,
        store: VectorStore,
        call: Callable[[VectorStore], Any],
        error: type[Exception],
        fragment: str,
    ) -> None:
        """Bad input raises the documented error, whose message names the problem, before
        anything is written: the store's contents stay exactly as they were."""
        with pytest.raises(error) as info:
            call(store)
        assert fragment in str(info.value)
        assert_intact(store)
        assert store.get_by_ids(["id8", "id9", "x", "z", "a"]) == []

    def test_unknown_search_kwargs_are_ignored_with_a_warning(self, store: VectorStore) -> None:
        """A search_kwargs key the search type does not take is dropped, as LangChain's
        stores drop it, with a UserWarning naming it; the search runs with the rest."""
        with pytest.warns(UserWarning, match="'top_k' ignored: search_type 'similarity'"):
            retriever = store.as_retriever(search_kwargs={"k": 2, "top_k": 3})
        assert texts_of(retriever.invoke("q0")) == ["d0", "d1"]
        with pytest.warns(UserWarning, match="'score_threshold' ignored: search_type 'mmr'"):
            store.as_retriever(search_type="mmr", search_kwargs={"score_threshold": 0.5})
        assert_intact(store)

    def test_numpy_integers_are_ints(self, store: VectorStore) -> None:
        """k, fetch_k (and search_kwargs) given as numpy integers work as ints would: an
        index computed with numpy is a natural k."""
        two, four = np.int64(2), np.int32(4)
        assert texts_of(store.similarity_search("q0", k=two)) == ["d0", "d1"]
        assert texts_of(store.similarity_search("q0", k=two, filter={"color": "red"})) == [
            "d0",
            "d2",
        ]
        pairs = store.similarity_search_with_relevance_scores("q0", k=two)
        assert [d.page_content for d, _ in pairs] == ["d0", "d1"]
        mmr = store.max_marginal_relevance_search("q3", k=np.int64(3), fetch_k=four)
        assert texts_of(mmr) == ["d0", "d3", "d1"]
        retriever = store.as_retriever(search_kwargs={"k": two})
        assert texts_of(retriever.invoke("q25")) == ["d2", "d3"]

    def test_metadata_at_the_json_limits_round_trips(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """What is accepted comes back equal: unicode beyond the BMP, NUL and control
        characters, 99 levels of nesting, ints past 2**63, floats at their extremes."""
        metadata = {
            "emoji": "\U0001f600 caf\u00e9",
            "nul": "a\x00b\x1f",
            "deep": _nested_list(98),
            "big": 2**70,
            "tiny": 5e-324,
            "huge": 1.7976931348623157e308,
            "": "empty key",
        }
        store = store_factory(embeddings)
        store.add_texts(["d0"], [metadata], ids=["m"])
        assert store.get_by_ids(["m"])[0].metadata == metadata
        assert store.similarity_search("q0", k=1)[0].metadata == metadata

    async def test_every_vector_is_right_after_adds_past_any_batch_size(
        self, store_factory: StoreFactory
    ) -> None:
        """3,000 documents added in two calls (1,500 sync, 1,500 async): past Redis's
        default write batch of 1,000 on both paths, past IVF training and in-memory
        growth. Every stored vector is then checked, not just counted: for unit vectors
        the relevance to each axis e_j is (1 + v[j]) / 2, so 8 searches returning all
        documents recover every stored vector. If this fails, check that each write batch
        pairs its documents with their own vectors (not the first batch's)."""
        count, dim = 3000, 8
        rng = np.random.default_rng(11)
        vectors = rng.standard_normal((count, dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        names = [f"v{i}" for i in range(count)]
        table = {name: row.tolist() for name, row in zip(names, vectors, strict=True)}
        axes = [f"axis{j}" for j in range(dim)]
        table.update({axis: np.eye(dim)[j].tolist() for j, axis in enumerate(axes)})
        store = store_factory(ExplicitEmbeddings(table))
        half = count // 2
        assert store.add_texts(names[:half], ids=names[:half]) == names[:half]
        assert await store.aadd_texts(names[half:], ids=names[half:]) == names[half:]
        assert store.count() == count
        recovered = np.full((count, dim), np.nan)
        for j, axis in enumerate(axes):
            pairs = store.similarity_search_with_relevance_scores(axis, k=count)
            assert len(pairs) == count, axis
            for document, relevance in pairs:
                recovered[int(document.id[1:]), j] = 2.0 * relevance - 1.0  # type: ignore[index]
        wrong = np.flatnonzero(np.abs(recovered - vectors).max(axis=1) > 1e-4)
        assert wrong.tolist() == [], f"{len(wrong)} documents hold another vector"
        assert store.get_by_ids([names[0], names[-1]])[1].id == names[-1]

    # ------------------------------------------------------------------ async twins

    async def test_async_search_refuses_a_lone_surrogate(self, store: VectorStore) -> None:
        """The async search path checks the query as the sync one does (issue 31)."""
        with pytest.raises(InvalidInputError, match=r"query holds a lone surrogate '\\ud800'"):
            await store.asimilarity_search("q0\ud800")
        with pytest.raises(InvalidInputError, match=r"queries\[0\] holds a lone surrogate"):
            await store.as_retriever().abatch(["\ud800", "q0"])

    async def test_async_twins_match_sync(
        self, store_factory: StoreFactory, embeddings: ExplicitEmbeddings
    ) -> None:
        """Every async method gives the same result as its sync twin."""
        store = await store_factory.afrom_texts(TEXTS, embeddings, metadatas=METADATAS, ids=IDS)
        assert_intact(store)
        assert texts_of(await store.asimilarity_search("q25", k=5)) == texts_of(
            store.similarity_search("q25", k=5)
        )
        pairs = await store.asimilarity_search_with_score("q25", k=3, filter={"color": "red"})
        expected = store.similarity_search_with_score("q25", k=3, filter={"color": "red"})
        assert [d.id for d, _ in pairs] == [d.id for d, _ in expected]
        assert [s for _, s in pairs] == pytest.approx([s for _, s in expected], abs=1e-6)
        relevance = await store.asimilarity_search_with_relevance_scores(
            "q0", k=8, score_threshold=0.9
        )
        assert [d.page_content for d, _ in relevance] == ["d0", "d1", "d2", "d3"]
        mmr = await store.amax_marginal_relevance_search("q3", k=3, fetch_k=4)
        assert texts_of(mmr) == ["d0", "d3", "d1"]
        mmr = await store.amax_marginal_relevance_search_by_vector(unit(3), k=3, fetch_k=4)
        assert texts_of(mmr) == ["d0", "d3", "d1"]
        assert texts_of(await store.asimilarity_search_by_vector(unit(95), k=2)) == ["d5", "d6"]
        assert texts_of(await store.aget_by_ids(["id2", "id1"])) == ["d2", "d1"]
        assert await store.aheld_ids(["id2", "nope", "id1"]) == {"id1", "id2"}
        await store.adelete(["id0"])
        assert await store.aheld_ids(["id0", "id1"]) == {"id1"}
        assert store.count() == 7
        assert await store.aadd_texts(["d0"], [METADATAS[0]], ids=["id0"]) == ["id0"]
        assert_intact(store)
        assert await store.aadd_documents([Document("d8", id="id8")]) == ["id8"]
        assert texts_of(store.get_by_ids(["id8"])) == ["d8"]
        with pytest.raises(InvalidInputError):
            await store.aadd_texts(["d9", "d9"], ids=["same", "same"])
        with pytest.raises(InvalidInputError):
            await store.asimilarity_search("q0", k=0)
        assert store.count() == 9

    # ------------------------------------------------------------------ retriever

    def test_retriever_search_types(self, store: VectorStore) -> None:
        """as_retriever gives a VectorStoreRetriever whose invoke matches the store method
        for each search_type, with search_kwargs passed through (filter included)."""
        from ragline.vectorstores import VectorStoreRetriever

        retriever = store.as_retriever(search_kwargs={"k": 2})
        assert isinstance(retriever, VectorStoreRetriever)
        assert texts_of(retriever.invoke("q25")) == ["d2", "d3"]
        assert [d.id for d in retriever.invoke("q25")] == ["id2", "id3"]
        assert texts_of(store.as_retriever().invoke("q0")) == ["d0", "d1", "d2", "d3"]
        filtered = store.as_retriever(search_kwargs={"k": 2, "filter": {"color": "green"}})
        assert texts_of(filtered.invoke("q0")) == ["d3", "d6"]
        threshold = store.as_retriever(
            search_type="similarity_score_threshold",
            search_kwargs={"score_threshold": 0.9, "k": 8},
        )
        assert texts_of(threshold.invoke("q0")) == ["d0", "d1", "d2", "d3"]
        mmr = store.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 4})
        assert texts_of(mmr.invoke("q3")) == ["d0", "d3", "d1"]

    @pytest.mark.parametrize(
        ("search_type", "search_kwargs"),
        [
            ("similarity", {"k": 3}),
            ("similarity", {"k": 2, "filter": {"even": False}}),
            ("similarity_score_threshold", {"k": 8, "score_threshold": 0.75}),
            ("mmr", {"k": 3, "fetch_k": 5, "lambda_mult": 0.3}),
            ("mmr", {"k": 2, "fetch_k": 4, "filter": {"color": {"$ne": "blue"}}}),
        ],
    )
    async def test_retriever_batch_equals_per_query(
        self,
        store: VectorStore,
        embeddings: ExplicitEmbeddings,
        search_type: str,
        search_kwargs: dict[str, Any],
    ) -> None:
        """retriever.batch embeds all queries in ONE embed_queries_array call and gives
        the same documents as invoking the retriever once per query; abatch too."""
        retriever = store.as_retriever(search_type=search_type, search_kwargs=search_kwargs)
        queries = ["q0", "q3", "q25", "q95"]
        one_by_one = [texts_of(retriever.invoke(query)) for query in queries]
        embeddings.query_batches.clear()
        assert [texts_of(docs) for docs in retriever.batch(queries)] == one_by_one
        assert embeddings.query_batches == [4]
        assert [texts_of(docs) for docs in await retriever.abatch(queries)] == one_by_one
        assert [texts_of(await retriever.ainvoke(query)) for query in queries] == one_by_one

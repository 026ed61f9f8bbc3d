"""Parity: ragline's FAISS against langchain_community's FAISS, scores to 1e-6.

Hand-checkable vectors (a fixed table, some not unit length) go through both stores
built the same way; the test compares documents, native scores, relevance scores, the
warnings and errors, and LangChain's docstore surface. Where LangChain's numbers are
wrong (a relevance outside [0, 1]; MAX_INNER_PRODUCT's inverted relevance) the test pins
ragline's fix and its warning instead (see ragline/vectorstores/faiss/_scores.py).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import faiss
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.docstore.in_memory import InMemoryDocstore as LCInMemoryDocstore
    from langchain_community.vectorstores import FAISS as LCFAISS
    from langchain_community.vectorstores.utils import DistanceStrategy as LCDistanceStrategy

from langchain_core.embeddings import Embeddings as LCEmbeddings

from ragline.core import ConfigurationError, PersistenceError
from ragline.embeddings import Embeddings
from ragline.vectorstores import FAISS, DistanceStrategy, InMemoryDocstore

COVERS = {"vectorstores.FAISS", "vectorstores.DistanceStrategy", "vectorstores.InMemoryDocstore"}

TABLE = {
    "north": [0.0, 1.0, 0.0],
    "east": [1.0, 0.0, 0.0],
    "north-east": [0.6, 0.8, 0.0],
    "south": [0.0, -1.0, 0.0],
    "up": [0.0, 0.0, 2.0],  # not unit length
    "west-ish": [-0.8, 0.6, 0.0],
    "q-north": [0.0, 1.0, 0.0],
    "q-mixed": [0.5, 0.5, 0.5],
}
TEXTS = ["north", "east", "north-east", "south", "up", "west-ish"]
IDS = [f"id-{text}" for text in TEXTS]
METADATAS = [{"group": "a" if i % 2 == 0 else "b", "n": i} for i in range(len(TEXTS))]


class Table(Embeddings):
    """Texts map to the fixed vectors above."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(TABLE[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(TABLE[text])


class LCTable(LCEmbeddings):
    """The same table as a LangChain Embeddings (LangChain's FAISS calls anything else as
    a function)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(TABLE[text]) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return list(TABLE[text])


def _pair(**options: Any) -> tuple[Any, FAISS]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # normalize_L2 with a non-L2 strategy
        theirs = LCFAISS.from_texts(TEXTS, LCTable(), METADATAS, ids=IDS, **_lc(options))
        ours = FAISS.from_texts(TEXTS, Table(), METADATAS, ids=IDS, **options)
    return theirs, ours


def _lc(options: dict[str, Any]) -> dict[str, Any]:
    strategy = options.get("distance_strategy")
    if strategy is None:
        return options
    return {**options, "distance_strategy": LCDistanceStrategy(strategy.value)}


def _seen(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, ...]]:
    return [(d.id, d.page_content, dict(d.metadata)) for d, _ in pairs]


def _scores(pairs: list[tuple[Any, Any]]) -> list[float]:
    return [float(score) for _, score in pairs]


def _same(theirs: list[tuple[Any, Any]], ours: list[tuple[Any, Any]]) -> None:
    assert _seen(ours) == _seen(theirs)
    assert _scores(ours) == pytest.approx(_scores(theirs), abs=1e-6)


def _relevance(store: Any, query: str, **options: Any) -> tuple[list[Any], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = store.similarity_search_with_relevance_scores(query, **options)
    return found, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


STRATEGIES = [
    {},  # LangChain's default: EUCLIDEAN_DISTANCE
    {"distance_strategy": DistanceStrategy.EUCLIDEAN_DISTANCE},
    {"distance_strategy": DistanceStrategy.COSINE},
    {"distance_strategy": DistanceStrategy.MAX_INNER_PRODUCT},
    {"distance_strategy": DistanceStrategy.EUCLIDEAN_DISTANCE, "normalize_L2": True},
    {"distance_strategy": DistanceStrategy.MAX_INNER_PRODUCT, "normalize_L2": True},
]


@pytest.mark.parametrize("options", STRATEGIES, ids=repr)
@pytest.mark.parametrize("query", ["q-north", "q-mixed"])
def test_native_scores_equal_langchains(options: dict[str, Any], query: str) -> None:
    theirs, ours = _pair(**options)
    _same(
        theirs.similarity_search_with_score(query, k=6),
        ours.similarity_search_with_score(query, k=6),
    )
    vector = TABLE[query]
    _same(
        theirs.similarity_search_with_score_by_vector(vector, k=3),
        ours.similarity_search_with_score_by_vector(vector, k=3),
    )
    assert [d.id for d in ours.similarity_search(query, k=2)] == [
        d.id for d in theirs.similarity_search(query, k=2)
    ]


def test_default_scores_are_squared_euclidean_by_hand() -> None:
    _, ours = _pair()
    found = ours.similarity_search_with_score("q-north", k=6)
    assert [(d.page_content, round(s, 6)) for d, s in found] == [
        ("north", 0.0),
        ("north-east", 0.4),  # 0.6**2 + 0.2**2
        ("west-ish", 0.8),
        ("east", 2.0),
        ("south", 4.0),
        ("up", 5.0),  # 1 + 2**2
    ]


@pytest.mark.parametrize(
    "options",
    [{}, {"distance_strategy": DistanceStrategy.COSINE}, {"normalize_L2": True}],
    ids=repr,
)
def test_relevance_equals_langchains_where_in_range_and_is_clipped_with_a_warning(
    options: dict[str, Any],
) -> None:
    theirs, ours = _pair(**options)
    lc_found, lc_warned = _relevance(theirs, "q-north", k=6)
    found, warned = _relevance(ours, "q-north", k=6)
    assert _seen(found) == _seen(lc_found)
    expected = [min(max(s, 0.0), 1.0) for s in _scores(lc_found)]
    assert _scores(found) == pytest.approx(expected, abs=1e-6)
    outside = [s for s in _scores(lc_found) if not 0.0 <= s <= 1.0]
    assert outside, "the scenario must reach LangChain's out-of-range relevance"
    assert lc_warned and any("between 0 and 1" in m for m in lc_warned)
    assert warned and all("outside [0, 1]" in m and "clips" in m for m in warned)


def test_euclidean_relevance_by_hand() -> None:
    _, ours = _pair()
    found, _ = _relevance(ours, "q-north", k=3)
    assert _scores(found) == pytest.approx([1.0, 1 - 0.4 / math.sqrt(2), 1 - 0.8 / math.sqrt(2)])


@pytest.mark.parametrize("threshold", [0.3, 0.7, 0.9])
@pytest.mark.parametrize("options", [{}, {"distance_strategy": DistanceStrategy.COSINE}], ids=repr)
def test_score_threshold_keeps_what_langchain_keeps(
    options: dict[str, Any], threshold: float
) -> None:
    theirs, ours = _pair(**options)
    lc_found, _ = _relevance(theirs, "q-north", k=6, score_threshold=threshold)
    found, _ = _relevance(ours, "q-north", k=6, score_threshold=threshold)
    _same(lc_found, found)
    assert found  # the nearest always passes
    search = {
        "search_type": "similarity_score_threshold",
        "search_kwargs": {"score_threshold": threshold},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert [d.id for d in ours.as_retriever(**search).invoke("q-north")] == [
            d.id for d in theirs.as_retriever(**search).invoke("q-north")
        ]


def test_max_inner_product_relevance_is_ragline_s_with_a_warning() -> None:
    theirs, ours = _pair(distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT)
    lc_found, _ = _relevance(theirs, "q-north", k=3)
    found, warned = _relevance(ours, "q-north", k=3)
    assert _seen(found) == _seen(lc_found)  # same documents, same order
    # LangChain's relevance is 1 - s for s > 0: the nearest document scores lowest
    assert _scores(lc_found) == pytest.approx([0.0, 1 - 0.8, 1 - 0.6])
    assert _scores(found) == pytest.approx([1.0, 0.9, 0.8])  # (1 + s) / 2
    assert len(warned) == 1 and "MAX_INNER_PRODUCT" in warned[0]
    _, again = _relevance(ours, "q-north", k=3)
    assert again == []  # once per store


def test_relevance_score_fn_is_used_as_langchain_uses_it() -> None:
    def relevance(score: float) -> float:
        return 1.0 / (1.0 + score)

    theirs, ours = _pair(relevance_score_fn=relevance)
    lc_found, _ = _relevance(theirs, "q-mixed", k=6)
    found, warned = _relevance(ours, "q-mixed", k=6)
    _same(lc_found, found)
    assert warned == []


def test_ragline_cosine_is_one_argument_away() -> None:
    ours = FAISS.from_texts(TEXTS, Table(), METADATAS, ids=IDS, metric="cosine")
    found = ours.similarity_search_with_score("q-north", k=3)
    assert [(d.page_content, round(s, 6)) for d, s in found] == [
        ("north", 1.0),
        ("north-east", 0.8),
        ("west-ish", 0.6),
    ]
    relevance, warned = _relevance(ours, "q-north", k=6)
    assert _scores(relevance)[-1] == pytest.approx(0.0)  # south: (1 + -1) / 2
    assert _scores(relevance)[:3] == pytest.approx([1.0, 0.9, 0.8])
    assert warned == []
    with pytest.raises(ConfigurationError, match="not both"):
        FAISS(Table(), metric="cosine", distance_strategy=DistanceStrategy.COSINE)


@pytest.mark.parametrize("strategy", ["DOT_PRODUCT", "JACCARD"])
def test_strategies_faiss_cannot_score_raise_value_error(strategy: str) -> None:
    theirs = LCFAISS.from_texts(
        TEXTS, LCTable(), ids=IDS, distance_strategy=LCDistanceStrategy(strategy)
    )
    with pytest.raises(ValueError):  # LangChain: at the first relevance search
        theirs.similarity_search_with_relevance_scores("q-north")
    with pytest.raises(ValueError, match="distance_strategy must be one of"):  # ragline: at once
        FAISS.from_texts(TEXTS, Table(), ids=IDS, distance_strategy=strategy)


@pytest.mark.parametrize("options", STRATEGIES[1:], ids=repr)
def test_saved_store_loads_with_its_strategy(options: dict[str, Any], tmp_path: Path) -> None:
    _, ours = _pair(**options)
    ours.save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, Table(), allow_dangerous_deserialization=True)
    assert loaded.distance_strategy == ours.distance_strategy
    _same(
        ours.similarity_search_with_score("q-mixed", k=6),
        loaded.similarity_search_with_score("q-mixed", k=6),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        _same(
            ours.similarity_search_with_relevance_scores("q-mixed", k=6),
            loaded.similarity_search_with_relevance_scores("q-mixed", k=6),
        )


def test_a_folder_langchain_saved_is_refused_unread_and_named(tmp_path: Path) -> None:
    theirs, _ = _pair()
    theirs.save_local(str(tmp_path), index_name="shelf")
    pickled = (tmp_path / "shelf.pkl").read_bytes()
    with pytest.raises(PersistenceError) as caught:
        FAISS.load_local(tmp_path, Table(), "shelf", allow_dangerous_deserialization=True)
    assert str(caught.value) == (
        f"{str(tmp_path)!r} holds a store LangChain saved (shelf.faiss with a pickled "
        "shelf.pkl); ragline never unpickles a file, so it cannot load it: build the store "
        "again from the documents with ragline"
    )
    assert (tmp_path / "shelf.pkl").read_bytes() == pickled  # left as it was


def test_a_cosine_store_loads_as_cosine(tmp_path: Path) -> None:
    FAISS.from_texts(TEXTS, Table(), ids=IDS, metric="cosine").save_local(tmp_path)
    loaded = FAISS.load_local(tmp_path, Table())
    assert loaded.metric == "cosine" and loaded.distance_strategy is None
    assert loaded.similarity_search_with_score("q-north", k=1)[0][1] == pytest.approx(1.0)


# ------------------------------------------------------------------ LangChain's constructor


def _empty_pair() -> tuple[Any, FAISS]:
    theirs = LCFAISS(
        embedding_function=LCTable(),
        index=faiss.IndexFlatL2(3),
        docstore=LCInMemoryDocstore(),
        index_to_docstore_id={},
    )
    ours = FAISS(
        embedding_function=Table(),
        index=faiss.IndexFlatL2(3),
        docstore=InMemoryDocstore(),
        index_to_docstore_id={},
    )
    return theirs, ours


def test_reference_constructor_then_add_texts() -> None:
    theirs, ours = _empty_pair()
    theirs.add_texts(TEXTS, METADATAS, ids=IDS)
    ours.add_texts(TEXTS, METADATAS, ids=IDS)
    _same(
        theirs.similarity_search_with_score("q-mixed", k=6),
        ours.similarity_search_with_score("q-mixed", k=6),
    )
    assert ours.index.ntotal == theirs.index.ntotal == 6


def test_docstore_and_index_to_docstore_id_read_as_langchains() -> None:
    theirs, ours = _pair()
    assert ours.index_to_docstore_id == theirs.index_to_docstore_id
    lc_dict, our_dict = theirs.docstore._dict, ours.docstore._dict
    assert list(our_dict) == list(lc_dict) == IDS
    assert [(d.page_content, d.metadata) for d in our_dict.values()] == [
        (d.page_content, d.metadata) for d in lc_dict.values()
    ]
    found, lc_found = ours.docstore.search("id-east"), theirs.docstore.search("id-east")
    assert (found.page_content, found.metadata) == (lc_found.page_content, lc_found.metadata)
    assert ours.docstore.search("nope") == theirs.docstore.search("nope") == "ID nope not found."
    ours.delete(["id-east"])
    theirs.delete(["id-east"])
    assert ours.index_to_docstore_id == theirs.index_to_docstore_id
    assert len(ours.docstore._dict) == len(theirs.docstore._dict) == 5
    assert ours.embedding_function is ours.embeddings


def test_a_langchain_filled_index_is_taken_over() -> None:
    theirs, _ = _pair()
    ours = FAISS(Table(), theirs.index, theirs.docstore, theirs.index_to_docstore_id)
    _same(
        theirs.similarity_search_with_score("q-mixed", k=6),
        ours.similarity_search_with_score("q-mixed", k=6),
    )
    assert ours.index_to_docstore_id == theirs.index_to_docstore_id
    with pytest.raises(ConfigurationError, match="inner product"):
        FAISS(Table(), faiss.IndexFlatIP(3), InMemoryDocstore(), {})


def test_in_memory_docstore_as_langchains() -> None:
    theirs, ours = LCInMemoryDocstore(), InMemoryDocstore()
    from langchain_core.documents import Document as LCDocument

    from ragline.core import Document

    theirs.add({"a": LCDocument(page_content="x")})
    ours.add({"a": Document("x")})
    assert ours.search("a").page_content == theirs.search("a").page_content == "x"
    assert ours.search("b") == theirs.search("b")
    with pytest.raises(ValueError):
        theirs.add({"a": LCDocument(page_content="y")})
    with pytest.raises(ValueError):
        ours.add({"a": Document("y")})
    ours.delete(["a"])
    theirs.delete(["a"])
    assert ours._dict == {} and theirs._dict == {}


# ------------------------------------------------------------------ fetch_k with a filter

GROUP_A = {"group": "a"}  # north (0), north-east (0.4) and up (5.0) from q-north


def test_fetch_k_with_a_filter_gives_langchains_documents_when_they_fit() -> None:
    theirs, ours = _pair()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: nothing beyond the window
        found = ours.similarity_search_with_score("q-north", k=2, filter=GROUP_A, fetch_k=2)
        by_retriever = ours.as_retriever(
            search_kwargs={"k": 2, "filter": GROUP_A, "fetch_k": 3}
        ).invoke("q-north")
    _same(theirs.similarity_search_with_score("q-north", k=2, filter=GROUP_A, fetch_k=2), found)
    lc_retriever = theirs.as_retriever(search_kwargs={"k": 2, "filter": GROUP_A, "fetch_k": 3})
    assert [d.id for d in by_retriever] == [d.id for d in lc_retriever.invoke("q-north")]


async def test_fetch_k_too_small_returns_all_matches_and_warns() -> None:
    theirs, ours = _pair()
    lc_found = theirs.similarity_search("q-north", k=3, filter=GROUP_A, fetch_k=4)
    assert [d.page_content for d in lc_found] == ["north", "north-east"]  # up is 5th
    with pytest.warns(UserWarning, match=r"returned 1 document\(s\) beyond the fetch_k=4"):
        found = ours.similarity_search("q-north", k=3, filter=GROUP_A, fetch_k=4)
    assert [d.page_content for d in found] == ["north", "north-east", "up"]
    with pytest.warns(UserWarning, match="beyond the fetch_k=4"):
        found = await ours.asimilarity_search("q-north", k=3, filter=GROUP_A, fetch_k=4)
    assert [d.page_content for d in found] == ["north", "north-east", "up"]
    with pytest.raises(ValueError, match="fetch_k"):
        ours.similarity_search("q-north", k=3, filter=GROUP_A, fetch_k=0)

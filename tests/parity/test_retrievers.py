"""Parity: ragline's retrievers against LangChain's (langchain_classic, langchain_core).

Each scenario runs through LangChain's class and ragline's class of the same name and
compares what a program observes: the documents, in order, with their ids and metadata.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_classic.retrievers import EnsembleRetriever as LCEnsembleRetriever
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever
from langchain_core.runnables import ConfigurableField as LCConfigurableField
from langchain_core.vectorstores import InMemoryVectorStore as LCInMemoryVectorStore

from ragline.core import BaseRetriever, ConfigurableField, Document
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import EnsembleRetriever
from ragline.vectorstores import InMemoryVectorStore

COVERS = {"retrievers.EnsembleRetriever", "retrievers.weighted_reciprocal_rank"}

TEXTS = ["apples are red", "bananas are yellow", "cherries are red too", "dates are brown"]


class LCFixed(LCBaseRetriever):
    """A LangChain retriever that returns a fixed list (a BM25 side built without ids)."""

    documents: list[LCDocument]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[LCDocument]:
        return [LCDocument(**d.model_dump()) for d in self.documents]


class Fixed(BaseRetriever):
    """The same fixed list, as a ragline retriever."""

    def __init__(self, documents: list[Document]) -> None:
        self.documents = documents

    def _get_relevant_documents(self, query: str) -> list[Document]:
        return [
            Document(d.page_content, metadata=dict(d.metadata), id=d.id) for d in self.documents
        ]


def _seen(documents: list[Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    return [(d.page_content, d.id, dict(d.metadata)) for d in documents]


def _sides(
    ids: list[str | None], order: list[int], metadata: dict[str, Any] | None = None
) -> tuple[list[LCDocument], list[Document]]:
    meta = metadata or {}
    theirs = [LCDocument(page_content=TEXTS[i], id=ids[i], metadata=dict(meta)) for i in order]
    ours = [Document(TEXTS[i], metadata=dict(meta), id=ids[i]) for i in order]
    return theirs, ours


def _pair(
    lists: list[tuple[list[int], list[str | None]]], **options: Any
) -> tuple[list[Any], list[Any]]:
    lc_children, children = [], []
    for order, ids in lists:
        theirs, ours = _sides(ids, order)
        lc_children.append(LCFixed(documents=theirs))
        children.append(Fixed(ours))
    lc = LCEnsembleRetriever(retrievers=lc_children, **options)
    rl = EnsembleRetriever(retrievers=children, **options)
    return lc.invoke("red fruit"), rl.invoke("red fruit")


NO_IDS: list[str | None] = [None, None, None, None]
WITH_IDS: list[str | None] = ["a", "b", "c", "d"]


def test_a_side_without_ids_and_a_side_with_ids_give_each_chunk_once() -> None:
    theirs, ours = _pair([([0, 2, 1], NO_IDS), ([2, 0, 3], WITH_IDS)], weights=[0.5, 0.5])
    assert _seen(ours) == _seen(theirs)
    # each text once, the first copy seen kept (the id-less one for the BM25-like side)
    assert [d.page_content for d in ours] == [TEXTS[0], TEXTS[2], TEXTS[1], TEXTS[3]]
    assert [d.id for d in ours] == [None, None, None, "d"]


def test_unequal_weights_and_c_give_langchains_order() -> None:
    theirs, ours = _pair([([3, 1, 0], WITH_IDS), ([0, 2, 1], NO_IDS)], weights=[0.8, 0.2], c=1)
    assert _seen(ours) == _seen(theirs)


def test_same_text_under_two_ids_is_one_document_in_both() -> None:
    theirs, ours = _pair([([0], ["x", None, None, None]), ([0], ["y", None, None, None])])
    assert _seen(ours) == _seen(theirs) == [(TEXTS[0], "x", {})]


def test_id_key_identifies_documents_in_both() -> None:
    def build(lib: str) -> list[Any]:
        make_lc = LCDocument if lib == "lc" else None
        first, second = [], []
        for text, key in (("alpha", 1), ("beta", 2)):
            first.append((text, {"doc": key}))
        for text, key in (("beta, reworded", 2), ("gamma", 3)):
            second.append((text, {"doc": key}))
        if make_lc:
            return [
                LCFixed(documents=[LCDocument(page_content=t, metadata=m) for t, m in side])
                for side in (first, second)
            ]
        return [Fixed([Document(t, metadata=m) for t, m in side]) for side in (first, second)]

    theirs = LCEnsembleRetriever(retrievers=build("lc"), id_key="doc").invoke("q")
    ours = EnsembleRetriever(retrievers=build("rl"), id_key="doc").invoke("q")
    assert _seen(ours) == _seen(theirs)
    assert [d.page_content for d in ours] == ["beta", "alpha", "gamma"]


def _stores() -> tuple[Any, Any]:
    embeddings = HashingEmbeddings(dimension=64)
    ids = ["a", "b", "c", "d"]
    lc_store = LCInMemoryVectorStore(embedding=embeddings)  # type: ignore[arg-type]
    lc_store.add_texts(TEXTS, ids=ids)
    store = InMemoryVectorStore.from_texts(TEXTS, embeddings, ids=ids)
    return lc_store, store


def test_configurable_child_runs_with_a_config_in_both() -> None:
    """LangChain's how-to: one child's search_kwargs configurable, set per call."""
    lc_store, store = _stores()
    lc_dense = lc_store.as_retriever(search_kwargs={"k": 3}).configurable_fields(
        search_kwargs=LCConfigurableField(id="search_kwargs_dense")
    )
    dense = store.as_retriever(search_kwargs={"k": 3}).configurable_fields(
        search_kwargs=ConfigurableField(id="search_kwargs_dense")
    )
    theirs_side, ours_side = _sides(NO_IDS, [1])
    lc = LCEnsembleRetriever(retrievers=[LCFixed(documents=theirs_side), lc_dense])
    rl = EnsembleRetriever(retrievers=[Fixed(ours_side), dense])
    config = {"configurable": {"search_kwargs_dense": {"k": 1}}}
    theirs = lc.invoke("apples are red", config=config)
    ours = rl.invoke("apples are red", config=config)  # crashed: _children was a list
    assert _seen(ours) == _seen(theirs)
    assert len(ours) == 2
    assert [spec.id for spec in rl.config_specs] == ["search_kwargs_dense"]
    # without the config, the child's own k=3
    assert _seen(rl.invoke("apples are red")) == _seen(lc.invoke("apples are red"))


@pytest.mark.parametrize("method", ["batch", "abatch"])
async def test_batch_fuses_like_invoke_in_both(method: str) -> None:
    lc_store, store = _stores()
    theirs_side, ours_side = _sides(NO_IDS, [2, 0])
    lc = LCEnsembleRetriever(
        retrievers=[LCFixed(documents=theirs_side), lc_store.as_retriever(search_kwargs={"k": 2})]
    )
    rl = EnsembleRetriever(
        retrievers=[Fixed(ours_side), store.as_retriever(search_kwargs={"k": 2})]
    )
    queries = ["apples are red", "dates are brown"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if method == "batch":
            theirs, ours = lc.batch(queries), rl.batch(queries)
        else:
            theirs, ours = await lc.abatch(queries), await rl.abatch(queries)
    assert [_seen(r) for r in ours] == [_seen(r) for r in theirs]

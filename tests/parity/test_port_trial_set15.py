"""Parity: differences found by the fifteenth port trial (issue 24), one scenario each.

Each scenario runs the same program shape through LangChain and through ragline and
compares what the program would print or read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

from langchain_classic.embeddings import CacheBackedEmbeddings as LCCacheBackedEmbeddings
from langchain_classic.storage import LocalFileStore as LCLocalFileStore
from langchain_community.vectorstores import FAISS as LCFAISS
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding as LCDeterministicFakeEmbedding

from ragline.core import Document, LocalFileStore
from ragline.embeddings import CacheBackedEmbeddings, DeterministicFakeEmbedding
from ragline.vectorstores import FAISS


def _counting(base: type) -> type:
    class Counting(base):  # type: ignore[misc, valid-type]
        calls: ClassVar[int] = 0
        query_calls: ClassVar[int] = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            type(self).calls += len(texts)
            return super().embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            type(self).query_calls += 1
            return super().embed_query(text)

    return Counting


def _cached_faiss_counts(
    base: type, store_cls: type, cache_cls: type, faiss: type, doc: type, folder: Path
) -> list[Any]:
    # rajasgs_cache_backed_localfilestore_keys: a subclass of the fake embedding that
    # counts its embed_documents calls, behind CacheBackedEmbeddings, into FAISS (texts
    # distinct: ragline embeds a text repeated within one call once, LangChain each time)
    embedding = _counting(base)(size=8)
    cached = cache_cls.from_bytes_store(embedding, store_cls(str(folder)), namespace="m")
    docs = [doc(page_content=t) for t in ["alpha beta", "gamma delta", "epsilon"]]
    seen = [embedding.calls]
    db = faiss.from_documents(docs, cached)
    seen.append(embedding.calls)
    faiss.from_documents(docs, cached)
    seen.append(embedding.calls)
    seen.append(db.similarity_search("gamma delta", k=1)[0].page_content)
    seen.append(embedding.query_calls)
    plain = faiss.from_texts(["one", "two"], embedding)  # no cache: the store calls it too
    seen.append(embedding.calls)
    seen.append(plain.similarity_search("two", k=1)[0].page_content)
    seen.append(embedding.query_calls)
    seen.append(len(asyncio.run(cached.aembed_documents(["new text"]))[0]))
    seen.append(embedding.calls)
    return seen


def _documents_only_counts(base: type, cache_cls: type, store_cls: type, folder: Path) -> list[Any]:
    # the program's subclass overrides embed_documents only: queries do not go through it
    class Counting(base):  # type: ignore[misc, valid-type]
        calls: ClassVar[int] = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            type(self).calls += len(texts)
            return super().embed_documents(texts)

    embedding = Counting(size=8)
    cached = cache_cls.from_bytes_store(embedding, store_cls(str(folder)), namespace="n")
    seen = [len(cached.embed_documents(["a", "b"])), Counting.calls]
    seen += [len(cached.embed_query("a")), len(embedding.embed_query("c")), Counting.calls]
    return seen


def test_subclass_overriding_embed_documents_only_embeds_queries_as_langchains(
    tmp_path: Path,
) -> None:
    lc = _documents_only_counts(
        LCDeterministicFakeEmbedding, LCCacheBackedEmbeddings, LCLocalFileStore, tmp_path / "l"
    )
    rl = _documents_only_counts(
        DeterministicFakeEmbedding, CacheBackedEmbeddings, LocalFileStore, tmp_path / "r"
    )
    assert rl == lc
    assert lc == [2, 2, 8, 8, 2]


def test_subclass_overriding_embed_documents_is_called_as_langchains(tmp_path: Path) -> None:
    lc = _cached_faiss_counts(
        LCDeterministicFakeEmbedding,
        LCLocalFileStore,
        LCCacheBackedEmbeddings,
        LCFAISS,
        LCDocument,
        tmp_path / "lc",
    )
    rl = _cached_faiss_counts(
        DeterministicFakeEmbedding,
        LocalFileStore,
        CacheBackedEmbeddings,
        FAISS,
        Document,
        tmp_path / "rl",
    )
    assert rl == lc
    assert lc == [0, 3, 3, "gamma delta", 1, 5, "two", 2, 8, 6]


def _db_retriever(base: type, document: type) -> list[Any]:
    # neuralbase_custom_db_retriever_init: a retriever whose own __init__ passes its
    # fields up with super().__init__(db=..., category_filter=..., min_relevance=...)
    class DbRetriever(base):  # type: ignore[misc, valid-type]
        db: dict = {}  # noqa: RUF012 (the pydantic shape the program uses)
        category_filter: str | None = None
        min_relevance: float = 0.5
        label: str = "db"

        def __init__(
            self,
            db: dict,
            category_filter: str | None = None,
            min_relevance: float = 0.5,
            **kw: Any,
        ) -> None:
            super().__init__(
                db=db, category_filter=category_filter, min_relevance=min_relevance, **kw
            )

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Any]:
            return [
                document(page_content=text, metadata={"id": key})
                for key, text in self.db.items()
                if query in text and (self.category_filter in (None, key[0]))
            ]

    first = DbRetriever(db={"a1": "x y", "b2": "x"}, category_filter="a", min_relevance=1)
    second = DbRetriever({"c3": "x"}, tags=["t"], label="other")
    return [
        first.category_filter,
        first.min_relevance,
        type(first.min_relevance).__name__,
        first.label,
        [d.metadata["id"] for d in first.invoke("x")],
        second.db,
        second.category_filter,
        second.min_relevance,
        second.label,
        second.tags,
        first.db is not second.db,
        [d.metadata["id"] for d in second.invoke("x")],
    ]


def test_fields_passed_up_from_a_hand_written_init_are_set_as_langchains() -> None:
    from langchain_core.documents import Document as LCDoc
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

    from ragline.core import BaseRetriever

    lc = _db_retriever(LCBaseRetriever, LCDoc)
    assert _db_retriever(BaseRetriever, Document) == lc
    assert lc == [
        "a",
        1.0,
        "float",
        "db",
        ["a1"],
        {"c3": "x"},
        None,
        0.5,
        "other",
        ["t"],
        True,
        ["c3"],
    ]

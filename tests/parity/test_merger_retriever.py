"""Parity: ``MergerRetriever`` against LangChain's (langchain_classic.retrievers): the
interleaved results (sync, async, batch), duplicates kept, and the child runs each
retriever makes (names, tags ``retriever_N``, parent), seen by each library's handler.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_classic.retrievers import MergerRetriever as LCMergerRetriever
from langchain_core.callbacks import BaseCallbackHandler as LCBaseCallbackHandler
from langchain_core.documents import Document as LCDocument
from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

from ragline.core import BaseCallbackHandler, BaseRetriever, Document
from ragline.retrievers import MergerRetriever

COVERS = {"retrievers.MergerRetriever"}

LISTS = [["1", "2", "3"], ["a", "same"], [], ["same", "x", "y", "z"]]


def retrievers(base: Any, document: Any) -> list[Any]:
    class Fixed(base):  # type: ignore[misc, valid-type]
        def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
            return [document(page_content=f"{text}", metadata={"q": query}) for text in self.items]

    made = []
    for items in LISTS:
        retriever = Fixed()
        object.__setattr__(retriever, "items", items)
        made.append(retriever)
    return made


def recorder(base: Any) -> Any:
    class Recorder(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[Any] = []
            self.ids: dict[Any, int] = {}

        def on_retriever_start(
            self,
            serialized: Any,
            query: str,
            *,
            run_id: Any,
            parent_run_id: Any = None,
            tags: Any = None,
            **kwargs: Any,
        ) -> None:
            self.ids[run_id] = len(self.ids)
            parent = self.ids.get(parent_run_id)
            self.seen.append((kwargs.get("name"), sorted(tags or []), query, parent))

    return Recorder()


def run(merger: Any, base: Any, document: Any, handler_base: Any) -> list[Any]:
    retriever = merger(retrievers=retrievers(base, document))
    handler = recorder(handler_base)
    out: list[Any] = []
    shown = lambda docs: [(d.page_content, d.metadata) for d in docs]  # noqa: E731
    out.append(shown(retriever.invoke("q", {"callbacks": [handler]})))
    out.append(handler.seen)
    out.append(shown(asyncio.run(retriever.ainvoke("r"))))
    out.append([shown(docs) for docs in retriever.batch(["s", "t"])])
    return out


def test_interleaved_results_and_child_runs():
    ours = run(MergerRetriever, BaseRetriever, Document, BaseCallbackHandler)
    theirs = run(LCMergerRetriever, LCBaseRetriever, LCDocument, LCBaseCallbackHandler)
    assert ours == theirs
    assert [text for text, _ in ours[0]] == ["1", "a", "same", "2", "same", "x", "3", "y", "z"]


def test_no_retrievers_and_bad_retrievers():
    assert MergerRetriever(retrievers=[]).invoke("q") == []
    assert LCMergerRetriever(retrievers=[]).invoke("q") == []
    for merger in (MergerRetriever, LCMergerRetriever):
        with pytest.raises(ValueError):
            merger(retrievers=["not a retriever"])

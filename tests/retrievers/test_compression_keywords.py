"""ContextualCompressionRetriever's keywords: LangChain's retriever fields tags=,
metadata= and name= are kept (49bce5c dropped them with a warning), and the warning
for a dropped keyword names the user's line."""

from __future__ import annotations

import sys
import warnings
from typing import Any

from langchain_classic.retrievers import (
    ContextualCompressionRetriever as LcContextualCompressionRetriever,
)
from langchain_core.documents import BaseDocumentCompressor as LcCompressor
from langchain_core.documents import Document as LcDocument
from langchain_core.retrievers import BaseRetriever as LcBaseRetriever

from ragline.core.callbacks.base import BaseCallbackHandler
from ragline.core.documents import Document
from ragline.core.retrievers import BaseRetriever
from ragline.retrievers import BaseDocumentCompressor, ContextualCompressionRetriever


class _Keep(BaseDocumentCompressor):
    def compress_documents(self, documents: Any, query: str, callbacks: Any = None) -> Any:
        return list(documents)


class _Docs(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
        return [Document(query)]


class _LcKeep(LcCompressor):
    def compress_documents(self, documents: Any, query: str, callbacks: Any = None) -> Any:
        return list(documents)


class _LcDocs(LcBaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> Any:
        return [LcDocument(page_content=query)]


class _Starts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[tuple[Any, Any, Any]] = []

    def on_retriever_start(self, serialized: Any, query: str, **kwargs: Any) -> None:
        self.seen.append((kwargs.get("tags"), kwargs.get("metadata"), kwargs.get("name")))


def test_tags_metadata_and_name_are_kept_as_langchains() -> None:
    options = {"tags": ["ccr"], "metadata": {"team": "a"}, "name": "squeeze"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = ContextualCompressionRetriever(
            base_compressor=_Keep(), base_retriever=_Docs(), **options
        )
    theirs = LcContextualCompressionRetriever(
        base_compressor=_LcKeep(), base_retriever=_LcDocs(), **options
    )
    assert (ours.tags, ours.metadata, ours.name) == (theirs.tags, theirs.metadata, theirs.name)
    assert ours.get_name() == theirs.get_name() == "squeeze"
    starts = _Starts()
    assert [d.page_content for d in ours.invoke("q", {"callbacks": [starts]})] == ["q"]
    # the outer run's start, as LangChain's handler sees it for the same retriever
    assert starts.seen[0] == (["ccr"], {"ls_retriever_name": "squeeze", "team": "a"}, "squeeze")


def test_a_dropped_keyword_is_reported_at_the_users_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        ContextualCompressionRetriever(_Keep(), _Docs(), search_kwargs={"k": 3})
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(UserWarning, __file__, line)]
    assert "'search_kwargs'" in str(caught[0].message)

"""Parity: ``LongContextReorder`` against LangChain's
(langchain_community.document_transformers): the order for every list length up to 9,
the async twin, that the documents are the same objects, extra keyword arguments, the
printed form, and the transformer inside a compression pipeline after a retriever.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

from langchain_core.documents import Document as LCDocument

from ragline.core import Document
from ragline.retrievers import LongContextReorder

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # langchain_community's sunset notice
    from langchain_community.document_transformers import (
        LongContextReorder as LCLongContextReorder,
    )

COVERS = {"retrievers.LongContextReorder"}


def contents(docs: list[Any]) -> list[str]:
    return [d.page_content for d in docs]


def test_order_for_every_length():
    for n in range(10):
        ours = LongContextReorder().transform_documents([Document(str(i)) for i in range(n)])
        theirs = LCLongContextReorder().transform_documents(
            [LCDocument(page_content=str(i)) for i in range(n)]
        )
        assert contents(ours) == contents(theirs), n
    assert contents(
        LongContextReorder().transform_documents([Document(f"doc {i}") for i in range(7)])
    ) == ["doc 0", "doc 2", "doc 4", "doc 6", "doc 5", "doc 3", "doc 1"]


def test_async_same_objects_kwargs_and_printed_form():
    docs = [Document(str(i), {"i": i}) for i in range(5)]
    lc_docs = [LCDocument(page_content=str(i), metadata={"i": i}) for i in range(5)]
    ours = asyncio.run(LongContextReorder().atransform_documents(docs, extra=1))
    theirs = asyncio.run(LCLongContextReorder().atransform_documents(lc_docs, extra=1))
    assert contents(ours) == contents(theirs)
    assert [id(d) for d in ours] == [id(docs[int(d.page_content)]) for d in ours]
    assert [id(d) for d in theirs] == [id(lc_docs[int(d.page_content)]) for d in theirs]
    assert repr(LongContextReorder()) == repr(LCLongContextReorder())


def test_in_a_compression_pipeline():
    from langchain_classic.retrievers import (
        ContextualCompressionRetriever as LCContextualCompressionRetriever,
    )
    from langchain_classic.retrievers.document_compressors import (
        DocumentCompressorPipeline as LCDocumentCompressorPipeline,
    )
    from langchain_core.retrievers import BaseRetriever as LCBaseRetriever

    from ragline.core import BaseRetriever
    from ragline.retrievers import ContextualCompressionRetriever, DocumentCompressorPipeline

    def ranked(base: Any, document: Any) -> Any:
        class Ranked(base):  # type: ignore[misc, valid-type]
            def _get_relevant_documents(self, query: str, **kwargs: Any) -> list[Any]:
                return [document(page_content=f"{query} {i}") for i in range(6)]

        return Ranked()

    ours = ContextualCompressionRetriever(
        base_compressor=DocumentCompressorPipeline(transformers=[LongContextReorder()]),
        base_retriever=ranked(BaseRetriever, Document),
    ).invoke("q")
    theirs = LCContextualCompressionRetriever(
        base_compressor=LCDocumentCompressorPipeline(transformers=[LCLongContextReorder()]),
        base_retriever=ranked(LCBaseRetriever, LCDocument),
    ).invoke("q")
    assert contents(ours) == contents(theirs) == ["q 1", "q 3", "q 5", "q 4", "q 2", "q 0"]

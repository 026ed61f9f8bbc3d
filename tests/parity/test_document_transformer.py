"""Parity: BaseDocumentTransformer, the base of document transformers, against LangChain's.

A program's own transformer written on each library's base gives the same documents by
``transform_documents`` and by the default ``atransform_documents``, with keyword
options passed through; an unfinished subclass cannot be built in either; and the
splitters, ``LongContextReorder`` and ``EmbeddingsRedundantFilter`` are document
transformers in both, ignoring extra keywords as LangChain's do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_community.document_transformers import (
    EmbeddingsRedundantFilter as LCEmbeddingsRedundantFilter,
)
from langchain_community.document_transformers import LongContextReorder as LCLongContextReorder
from langchain_core.documents import BaseDocumentTransformer as LCBaseDocumentTransformer
from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding as LCFake
from langchain_text_splitters import RecursiveCharacterTextSplitter as LCSplitter

from ragline.core import BaseDocumentTransformer, Document
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.retrievers import EmbeddingsRedundantFilter, LongContextReorder
from ragline.splitters import RecursiveCharacterTextSplitter

COVERS = {"core.BaseDocumentTransformer"}


def tagger(base: Any, document: Any) -> Any:
    class Tagger(base):
        def transform_documents(self, documents: Sequence[Any], **kwargs: Any) -> list[Any]:
            tag = kwargs.get("tag", "none")
            return [
                document(d.page_content[::-1], metadata={**d.metadata, "tag": tag})
                for d in documents
                if d.page_content
            ]

    return Tagger()


def seen(docs: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, d.metadata) for d in docs]


TEXTS = [("abc", {"n": 1}), ("", {"n": 2}), ("xyz long text here", {"n": 3})]


def test_a_programs_own_transformer():
    lc, rl = (
        tagger(LCBaseDocumentTransformer, LCDocument),
        tagger(BaseDocumentTransformer, Document),
    )
    lc_docs = [LCDocument(t, metadata=m) for t, m in TEXTS]
    rl_docs = [Document(t, metadata=m) for t, m in TEXTS]
    assert seen(rl.transform_documents(rl_docs)) == seen(lc.transform_documents(lc_docs))
    assert seen(rl.transform_documents(rl_docs, tag="t")) == seen(
        lc.transform_documents(lc_docs, tag="t")
    )
    assert seen(asyncio.run(rl.atransform_documents(rl_docs, tag="a"))) == seen(
        asyncio.run(lc.atransform_documents(lc_docs, tag="a"))
    )

    class LCBare(LCBaseDocumentTransformer):
        pass

    class Bare(BaseDocumentTransformer):
        pass

    for bare in (LCBare, Bare):
        try:
            bare()
        except TypeError:
            pass
        else:
            raise AssertionError(f"{bare.__name__}() was built")


def test_the_library_transformers_are_document_transformers():
    pairs = [
        (
            LCSplitter(chunk_size=8, chunk_overlap=0),
            RecursiveCharacterTextSplitter(chunk_size=8, chunk_overlap=0),
        ),
        (LCLongContextReorder(), LongContextReorder()),
        (
            LCEmbeddingsRedundantFilter(embeddings=LCFake(size=4)),
            EmbeddingsRedundantFilter(embeddings=DeterministicFakeEmbedding(size=4)),
        ),
    ]
    lc_docs = [LCDocument(t, metadata=m) for t, m in TEXTS if t]
    rl_docs = [Document(t, metadata=m) for t, m in TEXTS if t]
    for lc, rl in pairs:
        assert isinstance(lc, LCBaseDocumentTransformer)
        assert isinstance(rl, BaseDocumentTransformer)
        assert seen(rl.transform_documents(rl_docs, extra=1)) == seen(
            lc.transform_documents(lc_docs, extra=1)
        )
        assert seen(asyncio.run(rl.atransform_documents(rl_docs))) == seen(
            asyncio.run(lc.atransform_documents(lc_docs))
        )

"""VectorstoreIndexCreator / VectorStoreIndexWrapper: errors from ragline's tree."""

from __future__ import annotations

import asyncio

import pytest

from ragline.core import Document, RaglineError
from ragline.core.exceptions import UnsupportedMethodError
from ragline.embeddings import DeterministicFakeEmbedding
from ragline.pipelines import VectorstoreIndexCreator
from ragline.vectorstores import InMemoryVectorStore


def test_a_question_without_a_model_is_a_ragline_error_printed_as_langchains() -> None:
    index = VectorstoreIndexCreator(
        vectorstore_cls=InMemoryVectorStore, embedding=DeterministicFakeEmbedding(size=8)
    ).from_documents([Document(page_content="Paris is in France.")])
    calls = {
        "query": lambda: index.query("Where is Paris?"),
        "query_with_sources": lambda: index.query_with_sources("Where is Paris?"),
        "aquery": lambda: asyncio.run(index.aquery("Where is Paris?")),
        "aquery_with_sources": lambda: asyncio.run(index.aquery_with_sources("Where?")),
    }
    for method, call in calls.items():
        with pytest.raises(UnsupportedMethodError) as caught:
            call()
        # a RaglineError a user catches as ragline's, and LangChain's NotImplementedError
        assert isinstance(caught.value, RaglineError)
        assert isinstance(caught.value, NotImplementedError)
        assert str(caught.value) == (
            f"VectorStoreIndexWrapper.{method} needs a model to answer with: "
            f"pass llm=... (a chat model or an LLM)"
        )

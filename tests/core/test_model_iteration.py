"""A Document or a message given where a list is wanted is named as itself, not taken
apart into the (field, value) pairs it iterates as (85f857f: they iterate as pydantic
models do, so a message's content or add_documents' list read them as pairs)."""

from __future__ import annotations

import pytest

from ragline.core import AIMessage, Document, HumanMessage, InvalidInputError
from ragline.embeddings import HashingEmbeddings
from ragline.vectorstores import InMemoryVectorStore


@pytest.mark.parametrize("content", [Document("x"), AIMessage("x")])
def test_a_message_content_that_is_a_document_or_message_is_named(content: object) -> None:
    kind = type(content).__name__
    with pytest.raises(
        InvalidInputError,
        match=rf"HumanMessage.content must be a str or a list of content blocks, got {kind}",
    ):
        HumanMessage(content=content)  # type: ignore[arg-type]


def test_add_documents_given_one_document_says_so() -> None:
    store = InMemoryVectorStore(HashingEmbeddings(dimension=8))
    with pytest.raises(InvalidInputError, match=r"a list of Documents, got one Document"):
        store.add_documents(Document("x"))  # type: ignore[arg-type]
    assert store.add_documents([Document("x", id="a")]) == ["a"]


def test_they_still_iterate_as_pairs() -> None:
    assert dict(Document("x", metadata={"k": 1})) == {
        "id": None,
        "metadata": {"k": 1},
        "page_content": "x",
        "type": "Document",
    }

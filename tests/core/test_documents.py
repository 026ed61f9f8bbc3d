"""Document's page_content check: UTF-8 bytes become the text, anything else is refused
with ragline's errors."""

from __future__ import annotations

import pytest

from ragline.core.documents import Document
from ragline.core.exceptions import InvalidInputError


def test_utf8_bytes_become_the_text_they_encode() -> None:
    assert Document(page_content="café".encode()).page_content == "café"
    assert Document(page_content=bytearray(b"meow")).page_content == "meow"


def test_bytes_that_are_not_utf8_raise_ragline_invalid_input() -> None:
    """Fails when the error is a bare ValueError, outside ragline's exception tree."""
    with pytest.raises(InvalidInputError, match="not UTF-8 text") as caught:
        Document(page_content=b"ok \xff")
    assert isinstance(caught.value, ValueError)  # LangChain's ValidationError is one


def test_construct_takes_back_what_dict_gave_as_langchains() -> None:
    """Fails when construct(**doc.dict()) refuses the 'type' tag dict() adds (LangChain's
    Document takes it back: type is one of its fields)."""
    doc = Document(page_content="x", metadata={"n": 1}, id="d1")
    assert doc.dict()["type"] == "Document"
    rebuilt = Document.construct(**doc.dict())
    assert rebuilt == doc
    assert repr(rebuilt) == "Document(id='d1', metadata={'n': 1}, page_content='x')"
    assert Document.model_construct(**doc.model_dump()) == doc

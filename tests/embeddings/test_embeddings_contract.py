"""The Embeddings contract: every implementation passes these, unchanged.

Implementations under test: HashingEmbeddings, DeterministicFakeEmbedding, the real
MiniLM SentenceTransformerEmbeddings (torch and ONNX backends), OpenAIEmbeddings against
a real local HTTP server, CacheBackedEmbeddings over a byte store, and a minimal subclass
that implements only the two abstract list methods (so the interface's defaults are held
to the contract too).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from _openai_server import OpenAITestServer

from ragline.core import InMemoryByteStore, InvalidInputError
from ragline.embeddings import (
    CacheBackedEmbeddings,
    DeterministicFakeEmbedding,
    Embeddings,
    HashingEmbeddings,
    OpenAIEmbeddings,
    SentenceTransformerEmbeddings,
)

TEXTS = ["The cat sits on the mat", "Stock markets fell sharply", "", "naïve café ☕"]


class ListOnlyEmbeddings(Embeddings):
    """Implements just the abstract methods; everything else is the interface's default."""

    def __init__(self) -> None:
        self._inner = HashingEmbeddings(dimension=10)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._inner.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._inner.embed_query(text)


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer() as running:
        yield running


IMPLEMENTATIONS = ["hashing", "fake", "minilm", "minilm-onnx", "openai", "cached", "list-only"]


@pytest.fixture(params=IMPLEMENTATIONS)
def embeddings(request: pytest.FixtureRequest) -> Embeddings:
    kind = request.param
    if kind == "hashing":
        return HashingEmbeddings(dimension=32)
    if kind == "fake":
        return DeterministicFakeEmbedding(size=12)
    if kind == "minilm":
        return SentenceTransformerEmbeddings(normalize_embeddings=True)
    if kind == "minilm-onnx":
        return SentenceTransformerEmbeddings(backend="onnx", normalize_embeddings=True)
    if kind == "openai":
        server = request.getfixturevalue("server")
        return OpenAIEmbeddings(model="test-model", base_url=server.base_url, max_retries=0)
    if kind == "cached":
        return CacheBackedEmbeddings.from_bytes_store(
            HashingEmbeddings(dimension=24),
            InMemoryByteStore(),
            namespace="hash24:",
            query_embedding_store=True,
        )
    return ListOnlyEmbeddings()


def test_array_shape_dtype_and_finiteness(embeddings: Embeddings) -> None:
    """embed_documents_array must give a C-contiguous float32 (n, d) array of finite values."""
    matrix = embeddings.embed_documents_array(TEXTS)
    assert matrix.dtype == np.float32
    assert matrix.ndim == 2 and matrix.shape[0] == len(TEXTS) and matrix.shape[1] > 0
    assert matrix.flags["C_CONTIGUOUS"]
    assert np.isfinite(matrix).all()


def test_list_and_array_paths_agree(embeddings: Embeddings) -> None:
    """embed_documents (lists of Python floats) must hold the same numbers as the array path."""
    vectors = embeddings.embed_documents(TEXTS)
    assert isinstance(vectors, list) and all(isinstance(v, list) for v in vectors)
    assert all(isinstance(x, float) for x in vectors[0])
    assert len({len(v) for v in vectors}) == 1
    np.testing.assert_allclose(
        np.array(vectors), embeddings.embed_documents_array(TEXTS), rtol=0, atol=1e-6
    )


def test_query_paths_agree(embeddings: Embeddings) -> None:
    """embed_queries_array must equal embed_query applied one query at a time."""
    queries = ["where is the cat?", "market crash"]
    batch = embeddings.embed_queries_array(queries)
    one_by_one = np.array([embeddings.embed_query(q) for q in queries])
    assert batch.dtype == np.float32 and batch.shape == one_by_one.shape
    np.testing.assert_allclose(batch, one_by_one, rtol=0, atol=1e-5)


def test_deterministic_and_order_preserving(embeddings: Embeddings) -> None:
    """Same input, same output; reversing the input reverses the rows (no cross-talk)."""
    first = embeddings.embed_documents_array(TEXTS)
    again = embeddings.embed_documents_array(TEXTS)
    reversed_rows = embeddings.embed_documents_array(TEXTS[::-1])[::-1]
    np.testing.assert_allclose(first, again, rtol=0, atol=1e-6)
    np.testing.assert_allclose(first, reversed_rows, rtol=0, atol=1e-5)


def test_empty_input(embeddings: Embeddings) -> None:
    """No texts, no vectors, no error (and no request to a server)."""
    assert embeddings.embed_documents([]) == []
    assert embeddings.embed_documents_array([]).shape[0] == 0
    assert embeddings.embed_queries_array([]).shape[0] == 0


@pytest.mark.parametrize("bad", [["ok", 3], ["ok", None], [b"bytes"]])
def test_non_string_texts_rejected(embeddings: Embeddings, bad: list[object]) -> None:
    """A non-string text is an InvalidInputError naming its position, before any work."""
    with pytest.raises(InvalidInputError, match=r"texts\[\d\] must be a str"):
        embeddings.embed_documents_array(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"queries\[\d\] must be a str"):
        embeddings.embed_queries_array(bad)  # type: ignore[arg-type]


async def test_lone_surrogate_rejected_with_its_position(embeddings: Embeddings) -> None:
    """A lone surrogate is an InvalidInputError naming the argument and the position, the
    same for every model, before any tokenizer or request (which fail in their own words:
    TypeError, UnicodeEncodeError). A subclass's own ``embed_query`` is its own business,
    so the list-only class is held to this on the array methods alone."""
    surrogate = r"holds a lone surrogate '\\ud800' at position 3"
    with pytest.raises(InvalidInputError, match=r"texts\[1\] " + surrogate):
        embeddings.embed_documents_array(["fine", "cat\ud800"])
    with pytest.raises(InvalidInputError, match=r"queries\[0\] " + surrogate):
        embeddings.embed_queries_array(["cat\ud800", "fine"])
    with pytest.raises(InvalidInputError, match=r"texts\[1\] " + surrogate):
        await embeddings.aembed_documents_array(["fine", "cat\ud800"])
    if isinstance(embeddings, ListOnlyEmbeddings):
        return
    with pytest.raises(InvalidInputError, match=r"texts\[0\] " + surrogate):
        embeddings.embed_documents(["cat\ud800"])
    with pytest.raises(InvalidInputError, match=r"text " + surrogate):
        embeddings.embed_query("cat\ud800")
    with pytest.raises(InvalidInputError, match=r"text " + surrogate):
        await embeddings.aembed_query("cat\ud800")


def test_single_string_instead_of_list_rejected(embeddings: Embeddings) -> None:
    """Passing one string where a list is expected must not embed its characters."""
    with pytest.raises(InvalidInputError, match="wrap it in a list"):
        embeddings.embed_documents_array("a sentence")


async def test_async_twins_match_sync(embeddings: Embeddings) -> None:
    """The async methods return what the sync ones do."""
    np.testing.assert_allclose(
        await embeddings.aembed_documents_array(TEXTS),
        embeddings.embed_documents_array(TEXTS),
        rtol=0,
        atol=1e-6,
    )
    np.testing.assert_allclose(
        await embeddings.aembed_queries_array(["q1", "q2"]),
        embeddings.embed_queries_array(["q1", "q2"]),
        rtol=0,
        atol=1e-6,
    )
    assert np.allclose(
        await embeddings.aembed_documents(TEXTS[:2]),
        embeddings.embed_documents(TEXTS[:2]),
        atol=1e-6,
    )
    assert np.allclose(await embeddings.aembed_query("q"), embeddings.embed_query("q"), atol=1e-6)

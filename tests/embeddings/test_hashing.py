"""HashingEmbeddings: exact vectors, stability across processes, similarity, bad options."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from ragline.core import InvalidInputError
from ragline.embeddings import DeterministicFakeEmbedding, HashingEmbeddings


def blake(feature: str) -> int:
    """The documented feature hash: first 8 bytes of BLAKE2b, little-endian."""
    return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")


def one_hot(feature: str, dimension: int) -> np.ndarray:
    value = blake(feature)
    vector = np.zeros(dimension, dtype=np.float32)
    vector[value % dimension] = -1.0 if value >> 63 else 1.0
    return vector


def test_features_are_words_then_padded_char_ngrams() -> None:
    embeddings = HashingEmbeddings(dimension=8, char_ngrams=(2, 3))
    assert embeddings.features("Hi, yo!") == [
        "w:hi", "w:yo",
        "c:<h", "c:hi", "c:i>", "c:<hi", "c:hi>",
        "c:<y", "c:yo", "c:o>", "c:<yo", "c:yo>",
    ]  # fmt: skip
    assert HashingEmbeddings(8, char_ngrams=None, lowercase=False).features("Hi yo") == [
        "w:Hi",
        "w:yo",
    ]


def test_single_word_is_a_signed_one_hot_at_its_hash() -> None:
    """Words only: one feature, so the vector is +-1 at blake2b(feature) mod dimension."""
    embeddings = HashingEmbeddings(dimension=7, char_ngrams=None)
    np.testing.assert_array_equal(embeddings.embed_documents_array(["Cat"])[0], one_hot("w:cat", 7))


def test_vector_is_the_normalised_signed_sum_of_features() -> None:
    embeddings = HashingEmbeddings(dimension=50, char_ngrams=(3, 3))
    text = "red cat red"
    expected = sum(one_hot(f, 50).astype(np.float64) for f in embeddings.features(text))
    expected /= np.linalg.norm(expected)
    np.testing.assert_allclose(embeddings.embed_query(text), expected, rtol=0, atol=1e-7)


def test_same_vectors_in_another_process_with_another_hash_seed() -> None:
    """No dependence on Python's salted hash(): a fresh process gives identical bytes."""
    texts = ["The cat sits on the mat", "éèê unicode ☕", ""]
    here = HashingEmbeddings(dimension=64).embed_documents_array(texts).tobytes().hex()
    script = (
        "import sys; from ragline.embeddings import HashingEmbeddings\n"
        f"print(HashingEmbeddings(dimension=64).embed_documents_array({texts!r}).tobytes().hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()
    assert there == here


def test_every_vector_has_unit_norm_even_empty_text() -> None:
    texts = ["", "   ", "!!!", "a", "The cat sits on the mat"]
    matrix = HashingEmbeddings(dimension=16).embed_documents_array(texts)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), np.ones(5), rtol=0, atol=1e-6)
    # no features at all: the fallback is the one-hot of the whole text
    np.testing.assert_array_equal(matrix[0], one_hot("t:", 16))
    np.testing.assert_array_equal(matrix[2], one_hot("t:!!!", 16))


def test_exact_cancellation_falls_back_to_the_text_one_hot() -> None:
    """Two words of opposite sign in a 1-d space sum to zero; the result is still unit."""
    positive = next(w for w in (f"p{i}" for i in range(100)) if not blake(f"w:{w}") >> 63)
    negative = next(w for w in (f"n{i}" for i in range(100)) if blake(f"w:{w}") >> 63)
    text = f"{positive} {negative}"
    vector = HashingEmbeddings(dimension=1, char_ngrams=None).embed_documents_array([text])[0]
    np.testing.assert_array_equal(vector, one_hot(f"t:{text}", 1))


def test_cosine_ordering_on_hand_checked_sentences() -> None:
    """Shared words and word pieces make texts closer; unrelated texts are near zero."""
    embeddings = HashingEmbeddings(dimension=384)
    cat, rug, stocks = embeddings.embed_documents_array(
        ["The cat sits on the mat", "A cat is sitting on a rug", "Stock markets fell sharply"]
    )
    assert float(cat @ rug) > 0.3
    assert abs(float(cat @ stocks)) < 0.1
    assert float(cat @ rug) > float(cat @ stocks) + 0.2


def test_large_batches_equal_one_by_one_across_block_boundaries() -> None:
    """Rows are computed in blocks of 2048; results must not depend on the blocking."""
    embeddings = HashingEmbeddings(dimension=32)
    texts = [f"document {i} about topic {i % 7}" for i in range(2050)]
    batch = embeddings.embed_documents_array(texts)
    for index in (0, 2047, 2048, 2049):
        np.testing.assert_array_equal(
            batch[index], embeddings.embed_documents_array([texts[index]])[0]
        )


def test_case_folding_option() -> None:
    folded = HashingEmbeddings(dimension=32).embed_documents_array(["CAT", "cat"])
    np.testing.assert_array_equal(folded[0], folded[1])
    kept = HashingEmbeddings(dimension=32, lowercase=False).embed_documents_array(["CAT", "cat"])
    assert not np.array_equal(kept[0], kept[1])


@pytest.mark.parametrize("dimension", [0, -3, 1.5, "8", True, None])
def test_bad_dimension_rejected(dimension: object) -> None:
    with pytest.raises(
        InvalidInputError, match=f"dimension must be an int >= 1, got {dimension!r}"
    ):
        HashingEmbeddings(dimension=dimension)  # type: ignore[arg-type]


@pytest.mark.parametrize("ngrams", [(0, 2), (3, 2), (3,), [3, 4], (1.0, 2)])
def test_bad_char_ngrams_rejected(ngrams: object) -> None:
    with pytest.raises(InvalidInputError, match="char_ngrams must be None or a"):
        HashingEmbeddings(dimension=8, char_ngrams=ngrams)  # type: ignore[arg-type]


def test_embed_query_rejects_non_string() -> None:
    with pytest.raises(InvalidInputError, match="text must be a str, got int"):
        HashingEmbeddings(dimension=8).embed_query(3)  # type: ignore[arg-type]


def test_deterministic_fake_embedding_is_langchain_shaped() -> None:
    fake = DeterministicFakeEmbedding(size=10)
    assert fake.size == 10
    assert len(fake.embed_query("hello")) == 10
    assert fake.embed_query("hello") == fake.embed_documents(["hello"])[0]
    assert fake.embed_query("hello") != HashingEmbeddings(dimension=10).embed_query("hello")
    with pytest.raises(InvalidInputError, match="size must be an int >= 1, got 0"):
        DeterministicFakeEmbedding(size=0)

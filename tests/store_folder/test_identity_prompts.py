"""A store folder built with a document prompt refuses queries embedded another way.

Real parts: the packaged all-MiniLM-L6-v2 on torch (CPU), a real FAISS store folder.
Before prompts were part of the identity, a store embedded with ``"passage: "`` before
every chunk opened without complaint with embeddings that put nothing (or something
else) before their documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.core import ConfigurationError, Document
from ragline.embeddings import SentenceTransformerEmbeddings
from ragline.store_folder import EmbeddingBackend, StoreFolder, register_embedding

pytestmark = pytest.mark.slow

CHUNKS = [
    Document("Cats purr when they are content.", metadata={"source": "cats.md"}),
    Document("Mars has the tallest volcano in the solar system.", metadata={"source": "mars.md"}),
    Document("Bread rises because yeast makes gas.", metadata={"source": "bread.md"}),
]


def _minilm(document_prompt: str | None = None) -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings(
        device="cpu", normalize_embeddings=True, document_prompt=document_prompt
    )


@pytest.fixture(scope="module")
def passage_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    register_embedding(
        "health-minilm-passage",
        EmbeddingBackend(lambda options, progress: _minilm("passage: ")),
    )
    folder = tmp_path_factory.mktemp("identity") / "store"
    with StoreFolder(folder).writer(embedding="health-minilm-passage") as writer:
        writer.index(CHUNKS)
    return folder


def test_the_manifest_records_the_document_prompt(passage_store: Path) -> None:
    identity = StoreFolder(passage_store).read_manifest().extras["embedding_identity"]
    assert identity["document_prompt"] == "passage: "
    assert "query_prompt" not in identity


def test_the_same_prompt_opens_and_finds(passage_store: Path) -> None:
    for store in (
        StoreFolder(passage_store).open_store(),  # the embedding the manifest names
        StoreFolder(passage_store).open_store(embeddings=_minilm("passage: ")),
    ):
        found = store.similarity_search("which planet has a big volcano?", k=1)
        assert found[0].metadata["source"] == "mars.md"


@pytest.mark.parametrize(
    ("document_prompt", "theirs"),
    [(None, None), ("doc: ", "document_prompt 'doc: '")],
)
def test_another_document_prompt_is_refused_by_name(
    passage_store: Path, document_prompt: str | None, theirs: str | None
) -> None:
    before = {p: p.read_bytes() for p in passage_store.rglob("*") if p.is_file()}
    with pytest.raises(ConfigurationError) as raised:
        StoreFolder(passage_store).open_store(embeddings=_minilm(document_prompt))
    message = str(raised.value)
    assert "they differ in document_prompt, so its vectors cannot be compared" in message
    assert message.count("document_prompt 'passage: '") == 1  # the store's side
    if theirs is not None:
        assert theirs in message
    after = {p: p.read_bytes() for p in passage_store.rglob("*") if p.is_file()}
    assert after == before


def test_a_store_without_prompts_opens_with_unprompted_embeddings(tmp_path: Path) -> None:
    """The identity recorded with no prompt has the keys it always had, and opens."""
    register_embedding("health-minilm-plain", EmbeddingBackend(lambda options, progress: _minilm()))
    folder = tmp_path / "plain"
    with StoreFolder(folder).writer(embedding="health-minilm-plain") as writer:
        writer.index(CHUNKS)
    identity = StoreFolder(folder).read_manifest().extras["embedding_identity"]
    assert sorted(identity) == [
        "backend", "dimension", "model", "normalized", "precision", "weights_sha256",
    ]  # fmt: skip
    store = StoreFolder(folder).open_store(embeddings=_minilm())
    assert store.similarity_search("purring pets", k=1)[0].metadata["source"] == "cats.md"

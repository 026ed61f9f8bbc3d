"""ragline.store_folder: the folder `ragline index/query/ask` share, used as a library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragline.core import (
    ConfigurationError,
    Document,
    InvalidInputError,
    LoaderError,
    PersistenceError,
)
from ragline.store_folder import (
    EmbeddingBackend,
    Manifest,
    StoreFolder,
    embedding_names,
    index_paths,
    load_paths,
    make_embeddings,
    open_store,
    register_embedding,
    source_filter,
    split_documents,
)

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("Alpha text about volcanoes.", encoding="utf-8")
    (root / "b.md").write_text("# Bees\n\nBees make honey.", encoding="utf-8")
    (root / "sub" / "c.py").write_text("def c():\n    return 3\n", encoding="utf-8")
    return root


def test_index_paths_then_open_store(corpus: Path, tmp_path: Path) -> None:
    folder = tmp_path / "store"
    result = index_paths([corpus], folder, embedding="hashing")
    assert {key: result[key] for key in ("num_added", "num_skipped", "num_deleted")} == {
        "num_added": 3,
        "num_skipped": 0,
        "num_deleted": 0,
    }
    assert (result["documents"], result["chunks"], result["stored_chunks"]) == (3, 3, 3)
    assert result["skipped_files"] == []
    store = open_store(folder)
    (best,) = store.similarity_search("Bees make honey.", k=1)
    assert best.page_content == "# Bees\n\nBees make honey."
    assert best.metadata["source"] == str(corpus / "b.md")
    manifest = StoreFolder(folder).read_manifest()
    assert (manifest.embedding, manifest.chunk_size, manifest.chunk_overlap) == (
        "hashing",
        1000,
        150,
    )
    assert (manifest.documents, manifest.chunks) == (3, 3)


def test_source_filter_matches_relative_paths_or_absolute_sources(
    corpus: Path, tmp_path: Path
) -> None:
    index_paths([corpus], tmp_path / "store", embedding="hashing")
    store = open_store(tmp_path / "store")
    wanted = {"source": {"$in": [str(corpus / "sub" / "c.py")]}}
    assert source_filter(store, "sub/*.py") == wanted
    assert source_filter(store, str(corpus / "sub" / "*")) == wanted
    assert source_filter(store, "*.[mt]*") == {
        "source": {"$in": [str(corpus / "a.txt"), str(corpus / "b.md")]}
    }
    (found,) = store.similarity_search("return", k=3, filter=source_filter(store, "sub/*"))
    assert found.metadata["path"] == "sub/c.py"
    with pytest.raises(
        InvalidInputError,
        match=r"^'nope\*' matches none of the 3 indexed files; paths are relative to the "
        r"indexed folder, e\.g\. 'a\.txt', 'b\.md', 'sub/c\.py'$",
    ):
        source_filter(store, "nope*")


def test_documents_in_the_manifest_describe_the_store_not_the_last_run(
    corpus: Path, tmp_path: Path
) -> None:
    """Indexing one file into a store of three leaves documents=3 (the run loaded one)."""
    folder = tmp_path / "store"
    index_paths([corpus], folder, embedding="hashing")
    result = index_paths([corpus / "a.txt"], folder)
    assert result["documents"] == 1
    manifest = json.loads((folder / "ragline.json").read_text())
    assert (manifest["documents"], manifest["chunks"]) == (3, 3)


def test_writer_indexes_your_own_documents(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    docs = [
        Document("cats purr", metadata={"source": "cats"}),
        Document("dogs bark", metadata={"source": "dogs"}),
    ]
    with folder.writer(embedding="hashing", chunk_size=200, chunk_overlap=0) as writer:
        assert writer.index(docs)["num_added"] == 2
    with folder.writer() as writer:  # the embedding and chunking come from the manifest
        assert (writer.manifest.embedding, writer.manifest.chunk_size) == ("hashing", 200)
        result = writer.index([Document("dogs bark loudly", metadata={"source": "dogs"})])
        assert (result["num_added"], result["num_deleted"]) == (1, 1)
    store = folder.open_store()
    assert sorted(doc.page_content for doc in store.similarity_search("x", k=5)) == [
        "cats purr",
        "dogs bark loudly",
    ]


def test_a_failed_run_changes_nothing(tmp_path: Path) -> None:
    folder = StoreFolder(tmp_path / "store")
    with folder.writer(embedding="hashing") as writer:
        writer.index([Document("kept", metadata={"source": "a"})])
    before = {
        p.relative_to(folder.path): p.read_bytes() for p in folder.path.rglob("*") if p.is_file()
    }
    with pytest.raises(RuntimeError, match="boom"), folder.writer() as writer:
        writer.index([Document("lost", metadata={"source": "a"})])
        raise RuntimeError("boom")
    after = {
        p.relative_to(folder.path): p.read_bytes() for p in folder.path.rglob("*") if p.is_file()
    }
    assert after == before


def test_manifest_keeps_keys_it_does_not_know(tmp_path: Path) -> None:
    """A helper's own entry in ragline.json survives every later run unchanged."""
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.manifest.extras["bm25"] = {"k1": 1.2, "fields": ["text"]}
        writer.index([Document("x", metadata={"source": "a"})])
    with StoreFolder(folder).writer() as writer:
        writer.index([Document("y", metadata={"source": "a"})])
    data = json.loads((folder / "ragline.json").read_text())
    assert data["bm25"] == {"k1": 1.2, "fields": ["text"]}
    assert StoreFolder(folder).read_manifest().extras == {"bm25": {"k1": 1.2, "fields": ["text"]}}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", "no 'embedding' name"),
        ("[]", "not a JSON object"),
        ('{"embedding": "hashing"}', "'chunk_size' is None, not a count"),
        ("{not json", "Expecting property name"),
    ],
)
def test_a_bad_manifest_says_how_to_recover(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "ragline.json").write_text(content)
    with pytest.raises(PersistenceError, match="--rebuild") as caught:
        open_store(tmp_path)
    assert message in str(caught.value)


def test_no_store_says_to_index_first(tmp_path: Path) -> None:
    with pytest.raises(PersistenceError, match=r"not a ragline store .*run 'ragline index' first"):
        open_store(tmp_path)


def test_manifest_round_trip() -> None:
    manifest = Manifest(embedding="hashing", chunk_size=10, chunk_overlap=2, extras={"x": [1]})
    assert Manifest.from_json(manifest.to_json(), Path("m")) == manifest


def test_embeddings_by_name() -> None:
    assert embedding_names()[:3] == ("minilm", "hashing", "openai")
    assert len(make_embeddings("hashing", {"dimension": 8}).embed_query("hi")) == 8
    with pytest.raises(ConfigurationError, match="embedding 'nope' is not one of 'minilm'"):
        make_embeddings("nope")
    for bad in (True, 0, "8"):  # a manifest edited by hand: refused before any model loads
        with pytest.raises(
            ConfigurationError,
            match=rf"^hashing embedding option 'dimension' must be an int >= 1, got {bad!r}$",
        ):
            make_embeddings("hashing", {"dimension": bad})
    from ragline.embeddings import HashingEmbeddings

    register_embedding(
        "tiny-test", EmbeddingBackend(lambda options, progress: HashingEmbeddings(dimension=4))
    )
    assert "tiny-test" in embedding_names()
    assert len(make_embeddings("tiny-test").embed_query("hi")) == 4


def test_load_paths_skips_binary_and_undecodable_files(corpus: Path) -> None:
    (corpus / "logo.png").write_bytes(PNG)
    (corpus / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    loaded = load_paths([corpus])
    assert loaded.files == 5
    assert sorted(Path(d.metadata["source"]).name for d in loaded.documents) == [
        "a.txt",
        "b.md",
        "c.py",
    ]
    reasons = {Path(s.path).name: s.reason for s in loaded.skipped}
    assert reasons["logo.png"] == "binary data (a NUL byte), not text"
    assert "latin.txt" in reasons["latin.txt"] and "utf-8" in reasons["latin.txt"]
    with pytest.raises(LoaderError, match=r"latin\.txt"):
        load_paths([corpus / "latin.txt"], strict=True)
    # the encoding options read it; the PNG stays binary whatever the encoding
    for options in ({"encoding": "latin-1"}, {"autodetect_encoding": True}):
        loaded = load_paths([corpus], **options)  # type: ignore[arg-type]
        assert [Path(s.path).name for s in loaded.skipped] == ["logo.png"]
        (latin,) = [d for d in loaded.documents if d.metadata["source"].endswith("latin.txt")]
        assert latin.page_content == "caf\xe9"


def test_load_paths_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no such file or directory"):
        load_paths([tmp_path / "missing"])
    with pytest.raises(InvalidInputError, match="encoding 'nope' is not a known text encoding"):
        load_paths([tmp_path], encoding="nope")


def test_split_documents_uses_the_language_preset() -> None:
    code = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    chunks = split_documents(
        [Document(code, metadata={"source": "x.py"})], chunk_size=30, chunk_overlap=0
    )
    assert [c.page_content for c in chunks] == ["def a():\n    return 1", "def b():\n    return 2"]
    assert [c.metadata["start_index"] for c in chunks] == [0, 24]

"""index_paths hashes each chunk once: the embed-ahead plan and index() share the keys,
which stay the sha256 of content and metadata that stores were built with."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.core import Document
from ragline.indexing import api
from ragline.store_folder import StoreFolder, index_paths, load_paths, split_documents
from ragline.store_folder import _index as index_module


def test_each_chunk_hashed_once_and_ids_are_the_content_hashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("alpha beta gamma. " * 120, encoding="utf-8")
    (corpus / "b.md").write_text("# Title\n\nsome words here\n\n## Part\n\nmore words\n")
    calls: list[str] = []
    original = api.hash_document

    def counted(document: Document, algorithm: str = "sha256") -> str:
        calls.append(document.page_content)
        return original(document, algorithm)

    monkeypatch.setattr(api, "hash_document", counted)
    monkeypatch.setattr(index_module, "hash_document", counted)
    result = index_paths([corpus], tmp_path / "store", embedding="hashing")

    documents = load_paths([corpus.absolute()]).documents
    chunks = split_documents(documents, chunk_size=1000, chunk_overlap=150)
    assert result["chunks"] == len(chunks) == 5
    assert len(calls) == len(chunks)  # twice per chunk before the keys were shared
    expected = sorted(original(chunk, "sha256") for chunk in chunks)
    with StoreFolder(tmp_path / "store").writer() as writer:
        assert writer.store is not None
        assert sorted(writer.store.snapshot().ids) == expected
    again = index_paths([corpus], tmp_path / "store")
    assert (again["num_added"], again["num_skipped"], again["num_deleted"]) == (0, 5, 0)

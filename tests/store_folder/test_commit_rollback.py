"""Writer commits: one that fails partway, then one that succeeds, in the same writer;
what a run with no new chunks commits; which embedding identity the manifest keeps.

The failure is a real one from the file system: the manifest's path is made a folder,
so the rename that commits (``os.replace`` onto ``ragline.json``) fails after the new
generation was written. The writer must point its manifest back at the committed
generation, so that the next commit removes that generation (not the failed one's
folder, already gone) and nothing stored is lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragline.core import Document
from ragline.embeddings import HashingEmbeddings
from ragline.store_folder import EmbeddingBackend, StoreFolder, register_embedding


def _chunks(count: int) -> list[Document]:
    return [Document(f"chunk {n}", metadata={"source": "s"}) for n in range(count)]


def _generations(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir() if entry.name.startswith("gen-"))


def _committed(folder: Path) -> str | None:
    return StoreFolder(folder).read_manifest().generation


def test_a_failed_commit_rolls_back_and_the_next_commit_replaces_the_old_generation(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(_chunks(3))
    first = _committed(folder)
    assert _generations(folder) == [first]

    manifest_file = folder / "ragline.json"
    with StoreFolder(folder).writer(embedding="hashing", checkpoint_seconds=3600) as writer:
        writer.index(_chunks(5))
        saved = manifest_file.read_bytes()
        manifest_file.unlink()
        manifest_file.mkdir()  # the commit's rename onto the manifest now fails
        with pytest.raises(OSError):
            writer.commit()
        manifest_file.rmdir()
        manifest_file.write_bytes(saved)
        # the failed generation's folder is gone; the committed one is untouched
        assert (_committed(folder), _generations(folder)) == (first, [first])
        assert writer.manifest.generation == first

        writer.commit()
        second = _committed(folder)
        assert second not in (None, first)
        assert _generations(folder) == [second]  # the old generation was removed
    assert _generations(folder) == [second]
    store = StoreFolder(folder).open_store()
    assert sorted(store.snapshot().texts) == [f"chunk {n}" for n in range(5)]  # type: ignore[attr-defined]


def test_a_run_that_only_changes_a_setting_commits_it(tmp_path: Path) -> None:
    """No chunk changes, only chunk_size: leaving the block commits the new setting (the
    next run splits with it), in a new generation with the same chunks."""
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="hashing") as writer:
        writer.index(_chunks(3))
    first = StoreFolder(folder).read_manifest()
    assert first.chunk_size != 321
    with StoreFolder(folder).writer(chunk_size=321):
        pass
    after = StoreFolder(folder).read_manifest()
    assert (after.chunk_size, after.chunks) == (321, 3)
    assert _generations(folder) == [after.generation] != [first.generation]
    with StoreFolder(folder).writer():  # nothing changes now: no new generation
        pass
    assert _committed(folder) == after.generation


class _Identified(HashingEmbeddings):
    """Hashing vectors that name the backend that made them (as MiniLM's torch and ONNX
    runs do: the same vectors, another backend)."""

    def __init__(self, backend: str) -> None:
        super().__init__(dimension=32)
        self._backend = backend

    @property
    def embedding_identity(self) -> dict[str, Any]:
        return {"model": "hashing", "backend": self._backend, "dimension": 32}


def test_the_identity_recorded_is_that_of_the_run_that_built_the_store(
    tmp_path: Path,
) -> None:
    """A later run with the same vectors from another backend adds chunks; the manifest
    still names what built the store (it is recorded once, and again only on a rebuild)."""
    backends = iter(["torch", "onnx", "onnx"])
    register_embedding(
        "issue32-identified",
        EmbeddingBackend(lambda options, progress: _Identified(next(backends))),
    )
    folder = tmp_path / "store"
    with StoreFolder(folder).writer(embedding="issue32-identified") as writer:
        writer.index(_chunks(2))
    with StoreFolder(folder).writer() as writer:
        writer.index(_chunks(4))
    manifest = StoreFolder(folder).read_manifest()
    assert manifest.chunks == 4
    assert manifest.extras["embedding_identity"] == {
        "model": "hashing",
        "backend": "torch",
        "dimension": 32,
    }
    with StoreFolder(folder).writer(rebuild=True) as writer:
        writer.index(_chunks(4))
    assert StoreFolder(folder).read_manifest().extras["embedding_identity"]["backend"] == "onnx"

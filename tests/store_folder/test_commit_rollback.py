"""A commit that fails partway, then a commit that succeeds, in the same writer.

The failure is a real one from the file system: the manifest's path is made a folder,
so the rename that commits (``os.replace`` onto ``ragline.json``) fails after the new
generation was written. The writer must point its manifest back at the committed
generation, so that the next commit removes that generation (not the failed one's
folder, already gone) and nothing stored is lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.core import Document
from ragline.store_folder import StoreFolder


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

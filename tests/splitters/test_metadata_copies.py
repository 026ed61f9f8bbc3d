"""create_documents: every chunk owns its metadata (a shallow copy for flat metadata of
immutable values, a deep copy otherwise)."""

from __future__ import annotations

from ragline.splitters import RecursiveCharacterTextSplitter


def test_flat_and_nested_metadata_are_each_chunks_own() -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=5, chunk_overlap=0, add_start_index=True)
    flat = {"source": "a.txt", "page": 1, "score": 0.5, "ok": True, "none": None}
    nested = {"source": "b.txt", "tags": ["x"], "info": {"k": 1}}
    chunks = splitter.create_documents(["aaaa bbbb cccc", "dddd eeee"], [flat, nested])
    assert [c.metadata["start_index"] for c in chunks] == [0, 5, 10, 0, 5]
    chunks[0].metadata["source"] = "changed"
    chunks[3].metadata["tags"].append("y")
    chunks[3].metadata["info"]["k"] = 2
    assert chunks[1].metadata == {**flat, "start_index": 5}
    assert flat == {"source": "a.txt", "page": 1, "score": 0.5, "ok": True, "none": None}
    assert chunks[4].metadata == {"source": "b.txt", "tags": ["x"], "info": {"k": 1},
                                  "start_index": 5}  # fmt: skip
    assert nested == {"source": "b.txt", "tags": ["x"], "info": {"k": 1}}

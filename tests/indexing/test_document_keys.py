"""Document keys stay what stores were built with: the hash of the JSON array
``[page_content, metadata]`` (sorted keys, no spaces, UTF-8), however it is computed.

``hash_document`` builds that payload without the JSON encoder for most texts (issue 25);
a key that changed would make every existing store re-embed everything.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragline.core import Document, InvalidInputError
from ragline.indexing.api import hash_document
from ragline.store_folder import StoreFolder, index_paths


def reference_key(document: Document, algorithm: str = "sha256") -> str:
    """The key as documented: the digest of the JSON payload, spelled out with json.dumps."""
    payload = json.dumps(
        [document.page_content, document.metadata],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.new(algorithm, payload.encode("utf-8")).hexdigest()


# keys computed by ragline 49ba47e (before the payload was built without the JSON
# encoder): stores built then hold these ids
KNOWN = [
    (
        Document(
            "def f(x):\n\treturn \"a\\\\b\" + 'c'\r\n",
            metadata={"source": "/src/mod.py", "start_index": 0},
        ),
        "a15cbc4823353d7afa90d3d24a7b9e1a17745b79137d42b41aed9b4d151db43e",
        "5e0024cc1d9e8fd8",
    ),
    (
        Document(
            "caf\u00e9 \u2014 na\u00efve \U0001f600 \u65e5\u672c\x7f",
            metadata={"source": "C:\\docs\\\u00e9t\u00e9.md", "page": 3},
        ),
        "a3ff1455335e0761f541de11096003048a806fee652380e5c7c9c92a621bd7b5",
        "6b2183be184a3282",
    ),
    (
        Document("page one\x0cpage two\x00\x1b[0m\x08", metadata={}),
        "9bbc24c8765fa6acc4c6714fc61325e8e90c230ccf32bc6769ae8679d7dc85c1",
        "44f53b3a83be2f33",
    ),
    (
        Document(
            "",
            metadata={
                "z": [1, 2.5, None, True],
                "a": {"y": float("inf"), "b": '"q"\n'},
                "\u00e9": -0.0,
            },
        ),
        "b36face22aa63f0c2c72ae29d26881599d0ebf1f5fbed98494c8f62e40520af1",
        "e4034f21b6c2a40f",
    ),
]


@pytest.mark.parametrize(("document", "sha256", "blake2b_head"), KNOWN)
def test_keys_of_stores_built_before_are_unchanged(
    document: Document, sha256: str, blake2b_head: str
) -> None:
    assert hash_document(document) == sha256
    assert hash_document(document, "blake2b")[:16] == blake2b_head


# texts rich in what JSON escapes (quotes, backslashes, every control character) and in
# multi-byte UTF-8 characters
TEXTS = st.text(
    alphabet=st.sampled_from('ab "\\/\n\r\t\x0c\x08\x00\x1f\x7f\u00e9\u2028\U0001f600'),
    max_size=40,
) | st.text(max_size=40)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from([float("inf"), float("-inf")])
    | TEXTS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(text=TEXTS, metadata=st.dictionaries(TEXTS, JSON_VALUES, max_size=4))
def test_every_key_is_the_digest_of_the_json_payload(text: str, metadata: dict[str, Any]) -> None:
    document = Document(text, metadata=metadata)
    assert hash_document(document) == reference_key(document)
    assert hash_document(document, "sha1") == reference_key(document, "sha1")


def test_metadata_json_cannot_hold_is_refused_as_before() -> None:
    with pytest.raises(InvalidInputError, match="cannot hash the metadata of the document"):
        hash_document(Document("text", metadata={"tags": {"a", "b"}}))
    circular: dict[str, Any] = {}
    circular["self"] = circular
    with pytest.raises(InvalidInputError, match="Circular reference"):
        hash_document(Document("text", metadata=circular))
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate, as before
        hash_document(Document("half \ud800 a pair"))


def test_a_store_folder_of_tricky_files_is_keyed_by_the_payload_and_not_re_embedded(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    files = {
        "crlf.txt": 'first "line"\r\nsecond\\line\r\n\ttabbed\r\n',
        "feed.py": "def a():\n    pass\n\x0c\ndef b():\n    return '\\n'\n",
        "accents.md": "# Caf\u00e9\n\nna\u00efve \u65e5\u672c \U0001f600 words\n",
    }
    for name, text in files.items():
        (corpus / name).write_bytes(text.encode("utf-8"))
    first = index_paths([corpus], tmp_path / "store", embedding="hashing")
    assert first["num_added"] == 3
    with StoreFolder(tmp_path / "store").writer() as writer:
        assert writer.store is not None
        snapshot = writer.store.snapshot()
        stored = [
            Document(text, metadata=metadata)
            for text, metadata in zip(snapshot.texts, snapshot.metadatas, strict=True)
        ]
        assert sorted(snapshot.ids) == sorted(reference_key(chunk) for chunk in stored)
    # the texts kept what takes each way: a form feed (the encoder's); a text file's
    # \r\n is read as \n, as LangChain's TextLoader reads it (0d8df69)
    assert sorted(chunk.page_content for chunk in stored) == sorted(
        text.replace("\r\n", "\n").strip() for text in files.values()
    )
    again = index_paths([corpus], tmp_path / "store")
    assert (again["num_added"], again["num_skipped"], again["num_deleted"]) == (0, 3, 0)

"""Parity: ragline's JSONLoader against LangChain's (langchain_community, which runs jq).

A chat export and a JSON Lines file are loaded the ways LangChain's guide shows: a jq
path to strings, a path to objects with ``content_key``, ``metadata_func`` adding fields
of each record, ``text_content=False`` for non-string values, and ``json_lines=True``.
Compared: every document's text and metadata (source and seq_num included), in order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_community.document_loaders import JSONLoader as LCJSONLoader

from ragline.core import LoaderError
from ragline.loaders import JSONLoader

COVERS = {"loaders.JSONLoader"}

CHAT = {
    "image": {"creation_timestamp": 1675549016, "uri": "image_of_the_chat.jpg"},
    "is_still_participant": True,
    "messages": [
        {"sender_name": "User 2", "timestamp_ms": 1675597571851, "content": "Bye!"},
        {"sender_name": "User 1", "timestamp_ms": 1675597435669, "content": "Oh no worries!"},
        {"sender_name": "User 2", "timestamp_ms": 1675596277579, "content": "Ça va, 你好"},
    ],
    "scores": [3, 1.5, None, {"a": [1, 2]}],
}
LINES = [
    {"html": "<h1>One</h1>", "source": "a.html", "n": 1},
    {"html": "<h1>Two</h1>", "source": "b.html", "n": 2},
]


def _seen(documents: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, dict(d.metadata)) for d in documents]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT, ensure_ascii=False), encoding="utf-8")
    lines = tmp_path / "pages.jsonl"
    lines.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    return {"chat": chat, "lines": lines}


def _both(path: Path, **options: Any) -> tuple[list[Any], list[Any]]:
    theirs = LCJSONLoader(file_path=path, **options).load()
    ours = JSONLoader(file_path=path, **options).load()
    return _seen(ours), _seen(theirs)


def test_a_jq_path_to_strings(files: dict[str, Path]) -> None:
    ours, theirs = _both(files["chat"], jq_schema=".messages[].content")
    assert ours == theirs
    source = str(files["chat"])
    assert ours[2] == ("Ça va, 你好", {"source": source, "seq_num": 3})


def test_content_key_and_metadata_func(files: dict[str, Path]) -> None:
    def metadata_func(record: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
        metadata["sender_name"] = record.get("sender_name")
        metadata["timestamp_ms"] = record.get("timestamp_ms")
        return metadata

    ours, theirs = _both(
        files["chat"],
        jq_schema=".messages[]",
        content_key="content",
        metadata_func=metadata_func,
    )
    assert ours == theirs
    assert ours[0][1]["sender_name"] == "User 2"


def test_text_content_false_serializes_other_values(files: dict[str, Path]) -> None:
    ours, theirs = _both(files["chat"], jq_schema=".scores[]", text_content=False)
    assert ours == theirs
    ours, theirs = _both(files["chat"], jq_schema=".image", text_content=False)
    assert ours == theirs
    ours, theirs = _both(files["chat"], jq_schema=".messages[]", text_content=False)
    assert ours == theirs
    assert ours[2][0].endswith('"content": "\\u00c7a va, \\u4f60\\u597d"}')


def test_json_lines_with_a_content_key(files: dict[str, Path]) -> None:
    ours, theirs = _both(files["lines"], jq_schema=".", content_key="html", json_lines=True)
    assert ours == theirs
    assert [text for text, _ in ours] == ["<h1>One</h1>", "<h1>Two</h1>"]


@pytest.mark.parametrize(
    ("jq", "kind"),
    [(".image", "an object"), (".scores[0]", "a number"), (".is_still_participant", "a boolean")],
)
def test_a_non_string_with_text_content_is_a_value_error(
    files: dict[str, Path], jq: str, kind: str
) -> None:
    with pytest.raises(ValueError):
        LCJSONLoader(file_path=files["chat"], jq_schema=jq).load()
    with pytest.raises(ValueError, match=rf"content at {re.escape(jq)} in .*chat\.json is {kind}"):
        JSONLoader(file_path=files["chat"], jq_schema=jq).load()
    # ragline's loader contract holds too: a LoaderError, which is an OSError
    with pytest.raises(LoaderError) as caught:
        JSONLoader(file_path=files["chat"], jq_schema=jq).load()
    assert isinstance(caught.value, OSError)


def test_null_content_is_empty_text(files: dict[str, Path]) -> None:
    ours, theirs = _both(files["chat"], jq_schema=".scores[2]")
    assert ours == theirs == [("", {"source": str(files["chat"]), "seq_num": 1})]

"""MarkdownLoader: front matter to metadata, with and without PyYAML."""

from __future__ import annotations

import sys

import pytest

from ragline.core import LoaderError
from ragline.loaders import MarkdownLoader

SIMPLE = """---
title: "Hello: world"
draft: false
weight: 3
ratio: 0.5
date: 2024-05-01
empty:
quoted: 'it''s'
tags: [rag, "search engines", 7]
authors:
  - Ada
  - 'Bob B'
note: plain text # a comment
# a comment line
---

# Heading

Body text.
"""

SIMPLE_METADATA = {
    "title": "Hello: world",
    "draft": False,
    "weight": 3,
    "ratio": 0.5,
    "date": "2024-05-01",
    "empty": None,
    "quoted": "it's",
    "tags": ["rag", "search engines", 7],
    "authors": ["Ada", "Bob B"],
    "note": "plain text",
}


def write(tmp_path, text: str, name: str = "post.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_simple_front_matter_becomes_metadata(tmp_path) -> None:
    path = write(tmp_path, SIMPLE)
    [document] = MarkdownLoader(path).load()
    assert document.metadata == {**SIMPLE_METADATA, "source": str(path)}
    assert document.page_content == "# Heading\n\nBody text.\n"


def test_simple_front_matter_needs_no_pyyaml(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    path = write(tmp_path, SIMPLE)
    assert MarkdownLoader(path).load()[0].metadata == {**SIMPLE_METADATA, "source": str(path)}


def test_no_front_matter(tmp_path) -> None:
    path = write(tmp_path, "# Title\n\n---\n\ntext\n")
    [document] = MarkdownLoader(path).load()
    assert document.metadata == {"source": str(path)}
    assert document.page_content == "# Title\n\n---\n\ntext\n"


def test_unclosed_front_matter_is_plain_content(tmp_path) -> None:
    path = write(tmp_path, "---\ntitle: x\n\nno closing line\n")
    [document] = MarkdownLoader(path).load()
    assert document.metadata == {"source": str(path)}
    assert document.page_content == "---\ntitle: x\n\nno closing line\n"


def test_dots_close_and_crlf_lines(tmp_path) -> None:
    path = write(tmp_path, "---\r\ntitle: Win\r\n...\r\nbody\r\n")
    [document] = MarkdownLoader(path).load()
    assert document.metadata == {"title": "Win", "source": str(path)}
    assert document.page_content == "body\r\n"


def test_front_matter_source_key_is_replaced_by_the_file(tmp_path) -> None:
    path = write(tmp_path, "---\nsource: https://elsewhere\n---\nx\n")
    assert MarkdownLoader(path).load()[0].metadata == {"source": str(path)}


def test_front_matter_false_keeps_everything(tmp_path) -> None:
    path = write(tmp_path, "---\ntitle: x\n---\nbody\n")
    [document] = MarkdownLoader(path, front_matter=False).load()
    assert (document.page_content, document.metadata) == (
        "---\ntitle: x\n---\nbody\n",
        {"source": str(path)},
    )


NESTED = """---
author:
  name: Ada
  born: 1815-12-10
aliases: &a [x]
---
text
"""


def test_complex_yaml_uses_pyyaml_when_installed(tmp_path) -> None:
    pytest.importorskip("yaml")
    path = write(tmp_path, NESTED)
    [document] = MarkdownLoader(path).load()
    assert document.metadata == {
        "author": {"name": "Ada", "born": "1815-12-10"},  # dates stay JSON-friendly strings
        "aliases": ["x"],
        "source": str(path),
    }


def test_complex_yaml_without_pyyaml_names_file_and_line(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    path = write(tmp_path, NESTED)
    with pytest.raises(
        LoaderError,
        match=r"front matter of .*post\.md uses YAML the built-in parser does not read \(line 3\); "
        r"install PyYAML",
    ):
        MarkdownLoader(path).load()


def test_invalid_yaml_and_non_mapping(tmp_path) -> None:
    pytest.importorskip("yaml")
    path = write(tmp_path, "---\nkey: [unclosed\n  other: {\n---\nx\n")
    with pytest.raises(LoaderError, match=r"front matter of .*post\.md is not valid YAML"):
        MarkdownLoader(path).load()
    path = write(tmp_path, "---\n- a\n- b\n---\nx\n")
    with pytest.raises(
        LoaderError,
        match=r"front matter of .*post\.md must be a mapping of keys to values, got list",
    ):
        MarkdownLoader(path).load()


def test_missing_and_undecodable_files(tmp_path) -> None:
    with pytest.raises(LoaderError, match=r"file not found: .*none\.md"):
        MarkdownLoader(tmp_path / "none.md").load()
    path = tmp_path / "latin.md"
    path.write_bytes("---\ntitle: Café\n---\n".encode("cp1252"))
    with pytest.raises(
        LoaderError, match=r"cannot decode .*latin\.md as utf-8: byte 0xe9 at offset 14 \(line 2\)"
    ):
        MarkdownLoader(path).load()
    assert MarkdownLoader(path, autodetect_encoding=True).load()[0].metadata["title"] == "Café"

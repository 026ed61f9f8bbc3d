"""MarkdownHeaderTextSplitter: header paths, fenced code, options, and LangChain parity."""

from __future__ import annotations

import langchain_text_splitters as lc
import pytest

from ragline.core import Document, InvalidInputError
from ragline.splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

HEADERS = [("#", "H1"), ("##", "H2"), ("###", "H3")]

GUIDE = """Preface text.
# Guide
Welcome to the guide.
It has two lines.

## Install
Run the installer.
```bash
# this is a shell comment, not a header
pip install ragline
```
Done installing.

### Offline
Copy the wheel.
## Use
#Not a header (no space)
#### Too deep: plain text
Import it.
# Appendix
~~~
## inside a tilde fence
~~~
The end.
"""


def sections(splitter: MarkdownHeaderTextSplitter, text: str) -> list[tuple[str, dict[str, str]]]:
    return [(d.page_content, d.metadata) for d in splitter.split_text(text)]


def test_header_paths_and_fenced_code() -> None:
    assert sections(MarkdownHeaderTextSplitter(HEADERS), GUIDE) == [
        ("Preface text.", {}),
        ("Welcome to the guide.\nIt has two lines.", {"H1": "Guide"}),
        (
            "Run the installer.\n```bash\n# this is a shell comment, not a header\n"
            "pip install ragline\n```\nDone installing.",
            {"H1": "Guide", "H2": "Install"},
        ),
        ("Copy the wheel.", {"H1": "Guide", "H2": "Install", "H3": "Offline"}),
        (
            "#Not a header (no space)\n#### Too deep: plain text\nImport it.",
            {"H1": "Guide", "H2": "Use"},
        ),
        ("~~~\n## inside a tilde fence\n~~~\nThe end.", {"H1": "Appendix"}),
    ]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"return_each_line": True},
        {"strip_headers": False},
        {"strip_headers": False, "return_each_line": True},
    ],
)
def test_same_sections_as_langchain(options: dict[str, bool]) -> None:
    ours = sections(MarkdownHeaderTextSplitter(HEADERS, **options), GUIDE)
    theirs = [
        (d.page_content, d.metadata)
        for d in lc.MarkdownHeaderTextSplitter(HEADERS, **options).split_text(GUIDE)
    ]
    assert ours == theirs


def test_code_keeps_its_indentation() -> None:
    text = "# Code\n```python\ndef f():\n    # not a header\n    return 1\n```\n"
    assert sections(MarkdownHeaderTextSplitter(HEADERS), text) == [
        ("```python\ndef f():\n    # not a header\n    return 1\n```", {"H1": "Code"})
    ]
    # LangChain strips every line, code included.
    theirs = lc.MarkdownHeaderTextSplitter(HEADERS).split_text(text)
    assert theirs[0].page_content == "```python\ndef f():\n# not a header\nreturn 1\n```"


def test_strip_headers_false_keeps_header_lines() -> None:
    splitter = MarkdownHeaderTextSplitter(HEADERS, strip_headers=False)
    assert sections(splitter, "# A\n## B\ntext\n# C\nmore") == [
        ("# A  \n## B\ntext", {"H1": "A", "H2": "B"}),
        ("# C\nmore", {"H1": "C"}),
    ]


def test_return_each_line_keeps_blocks_apart() -> None:
    text = "# A\none\n\ntwo"
    assert sections(MarkdownHeaderTextSplitter(HEADERS), text) == [("one  \ntwo", {"H1": "A"})]
    assert sections(MarkdownHeaderTextSplitter(HEADERS, return_each_line=True), text) == [
        ("one", {"H1": "A"}),
        ("two", {"H1": "A"}),
    ]


def test_a_higher_header_closes_deeper_ones() -> None:
    text = "# A\n## B\n### C\nc\n## D\nd"
    assert sections(MarkdownHeaderTextSplitter(HEADERS), text) == [
        ("c", {"H1": "A", "H2": "B", "H3": "C"}),
        ("d", {"H1": "A", "H2": "D"}),
    ]


def test_split_documents_and_invoke_merge_document_metadata() -> None:
    splitter = MarkdownHeaderTextSplitter([("#", "title")])
    docs = [
        Document("# One\nfirst", {"source": "a.md"}),
        Document("# Two\nsecond", {"source": "b.md"}),
    ]
    expected = [
        Document("first", {"source": "a.md", "title": "One"}),
        Document("second", {"source": "b.md", "title": "Two"}),
    ]
    assert splitter.split_documents(docs) == expected
    assert splitter.invoke(docs) == expected
    assert docs[0].metadata == {"source": "a.md"}


def test_sections_can_be_split_further() -> None:
    sections_ = MarkdownHeaderTextSplitter(HEADERS).split_text("# Big\n" + "word " * 10)
    chunks = RecursiveCharacterTextSplitter(chunk_size=20, chunk_overlap=0).split_documents(
        sections_
    )
    assert [(d.page_content, d.metadata) for d in chunks] == [
        ("word word word word", {"H1": "Big"}),
        ("word word word word", {"H1": "Big"}),
        ("word word", {"H1": "Big"}),
    ]


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ([], "headers_to_split_on must be a non-empty list of"),
        ("#", "headers_to_split_on must be a non-empty list of"),
        (
            [("#",)],
            r"headers_to_split_on holds \('#',\); each item must be a \(marker, name\) pair",
        ),
        ([("", "H0")], "headers_to_split_on holds \\('', 'H0'\\)"),
    ],
)
def test_bad_headers_raise(headers: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        MarkdownHeaderTextSplitter(headers)  # type: ignore[arg-type]


def test_bad_text_and_documents_raise() -> None:
    splitter = MarkdownHeaderTextSplitter(HEADERS)
    with pytest.raises(InvalidInputError, match="text must be a str, got NoneType"):
        splitter.split_text(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="documents must hold Document objects, got str"):
        splitter.invoke(["# A"])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="strip_headers must be a bool, got 'no'"):
        MarkdownHeaderTextSplitter(HEADERS, strip_headers="no")  # type: ignore[arg-type]

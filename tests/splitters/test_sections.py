"""MarkdownSectionSplitter: chunks inside one section each, with their heading path."""

from __future__ import annotations

import pytest

from ragline.core import Document, InvalidInputError
from ragline.splitters import MarkdownSectionSplitter

TEXT = (
    "Before any heading.\n\n"
    "# Guide {#guide}\n\n"
    "## Install¶\n\n"
    "Run pip install ragline.\n\n"
    "```\n# not a heading: a comment in code\npip list\n```\n\n"
    '## Use <a id="use"></a>\n\n'
    "Import it.\n\n"
    "### load(path, *, strict=False)\n\n"
    "Reads a file.\n\n"
    "# Other\n\n"
    "Last words."
)


def test_chunks_follow_sections_and_carry_the_heading_path() -> None:
    splitter = MarkdownSectionSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True)
    chunks = splitter.split_documents([Document(TEXT, {"source": "guide.md"})])
    assert [(c.page_content, c.metadata.get("section")) for c in chunks] == [
        ("Before any heading.", None),
        (
            "# Guide {#guide}\n\n## Install¶\n\nRun pip install ragline.\n\n"
            "```\n# not a heading: a comment in code\npip list\n```",
            "Guide > Install",
        ),
        ('## Use <a id="use"></a>\n\nImport it.', "Guide > Use"),
        ("### load(path, *, strict=False)\n\nReads a file.", "Guide > Use > load()"),
        ("# Other\n\nLast words.", "Other"),
    ]
    for chunk in chunks:
        start = chunk.metadata["start_index"]
        assert TEXT[start : start + len(chunk.page_content)] == chunk.page_content
        assert chunk.metadata["source"] == "guide.md"


def test_a_long_section_is_cut_inside_itself_never_across_a_heading() -> None:
    body = " ".join(f"word{n}" for n in range(60))  # 472 characters
    text = f"# A\n\n{body}\n\n# B\n\nshort"
    chunks = MarkdownSectionSplitter(chunk_size=200, chunk_overlap=40).create_documents([text])
    sections = [c.metadata["section"] for c in chunks]
    assert sections == ["A", "A", "A", "B"]
    assert chunks[0].page_content.startswith("# A\n\nword0 ")
    assert chunks[-1].page_content == "# B\n\nshort"
    assert len(chunks[0].page_content) <= 200 + len("# A\n\n")  # the heading comes along
    assert all(len(c.page_content) <= 200 for c in chunks[1:])


def test_heading_titles_in_the_path() -> None:
    text = "# C#\n\nx\n\n## Closing ##\n\ny\n\n#hashtag\n\n## Install ¶\n\nz"
    chunks = MarkdownSectionSplitter(chunk_size=100, chunk_overlap=0).create_documents([text])
    assert [c.metadata["section"] for c in chunks] == [
        "C#",
        "C# > Closing",  # "#hashtag" is text (no space after the '#')
        "C# > Install",
    ]


def test_options_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="path_separator must be a non-empty str"):
        MarkdownSectionSplitter(path_separator="")
    with pytest.raises(InvalidInputError, match="metadatas has 1 items but texts has 2"):
        MarkdownSectionSplitter().create_documents(["a", "b"], [{}])
    assert MarkdownSectionSplitter(path_separator=" / ").create_documents(["# A\n## B\nx"])[
        0
    ].metadata == {"section": "A / B"}

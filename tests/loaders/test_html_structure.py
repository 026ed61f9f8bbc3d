"""HTML loaded with its structure and split on it: chunk boundaries on real manual pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragline.core import InvalidInputError
from ragline.loaders import DEFAULT_LOADER_MAPPING, BSHTMLLoader, loader_mapping
from ragline.loaders._html import parse_html, structured_text
from ragline.splitters import Language, RecursiveCharacterTextSplitter, language_for_path
from ragline.store_folder import split_documents

PAGES = Path(__file__).resolve().parent.parent / "data" / "html"
REAL_PAGES = ["indexes-types.html", "sql-truncate.html", "django-signals.html"]


def test_structured_text_by_hand() -> None:
    html = (
        "<title>T</title><body><div><h1>Top  title</h1><p>First\n paragraph.</p>"
        "<p>Second <b>bold</b> one.</p><h2>Sub</h2><ul><li>one</li><li>two</li></ul>"
        "<pre>def f():\n    return 1\n</pre><table><tr><td>a</td><td>b</td></tr></table>"
        "<script>hidden()</script></div></body>"
    )
    assert structured_text(parse_html(html)) == (
        "# Top title\n\nFirst paragraph.\n\nSecond bold one.\n\n## Sub\n\none\ntwo\n\n"
        "```\ndef f():\n    return 1\n```\n\na b"
    )


def test_the_loader_option_and_the_index_mapping(tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<h2>Head</h2><p>Text</p>", encoding="utf-8")
    assert BSHTMLLoader(page).load()[0].page_content == "HeadText"  # LangChain's get_text()
    assert BSHTMLLoader(page, visible=True).load()[0].page_content == "Head\nText"
    assert BSHTMLLoader(page, structured=True).load()[0].page_content == "## Head\n\nText"
    for mapping in (DEFAULT_LOADER_MAPPING, loader_mapping(encoding="utf-8")):
        assert mapping[".html"](page).load()[0].page_content == "## Head\n\nText"
    assert language_for_path("a/b.HTML") is Language.MARKDOWN
    with pytest.raises(InvalidInputError, match="structured=True cannot be combined"):
        BSHTMLLoader(page, get_text_separator=" ", structured=True)
    with pytest.raises(InvalidInputError, match="structured=True cannot be combined"):
        BSHTMLLoader(page, visible=True, structured=True)


def _chunks(text: str, source: str = "page.html") -> list:
    from ragline.core import Document

    return split_documents([Document(text, {"source": source})], chunk_size=1000, chunk_overlap=150)


@pytest.mark.parametrize("name", REAL_PAGES)
def test_no_chunk_of_a_real_page_starts_or_ends_inside_a_word(name: str) -> None:
    """The old way (line layout + the HTML preset, whose separators are tags the text no
    longer has) cut fixed windows: most chunks started mid-word. Now every chunk starts
    and ends at a word boundary, and a heading starts a chunk whenever one falls inside."""
    document = DEFAULT_LOADER_MAPPING[".html"](PAGES / name).load()[0]
    text = document.page_content
    chunks = _chunks(text)
    assert len(chunks) >= 3
    for chunk in chunks:
        start = chunk.metadata["start_index"]
        end = start + len(chunk.page_content)
        assert text[start:end] == chunk.page_content
        assert start == 0 or not (text[start - 1].isalnum() and text[start].isalnum())
        assert end == len(text) or not (text[end - 1].isalnum() and text[end].isalnum())
    old = RecursiveCharacterTextSplitter.from_language(
        Language.HTML, chunk_size=1000, chunk_overlap=150, add_start_index=True
    ).split_documents([BSHTMLLoader(PAGES / name).load()[0]])
    old_text = BSHTMLLoader(PAGES / name).load()[0].page_content
    cut = [
        c
        for c in old
        if c.metadata["start_index"] > 0
        and old_text[c.metadata["start_index"] - 1].isalnum()
        and c.page_content[0].isalnum()
    ]
    assert len(cut) >= len(old) // 3  # what the user saw before


def test_an_edit_in_one_section_changes_only_that_sections_chunks() -> None:
    """Chunk ids are content hashes: with the split anchored at headings, an edit changes
    (re-embeds) only chunks of the section it is in, not the rest of the page."""
    text = DEFAULT_LOADER_MAPPING[".html"](PAGES / "django-signals.html").load()[0].page_content
    marker = "## Listening to signals"  # Sphinx's permalink mark (¶) is dropped
    assert "¶" not in text
    edited = text.replace(marker + "\n\n", marker + "\n\nAn added sentence, before the rest. ", 1)
    start = edited.index(marker)
    section = edited[start : edited.index("\n#", start + 1)]  # up to the next heading
    before = {c.page_content for c in _chunks(text)}
    after = {c.page_content for c in _chunks(edited)}
    changed = after - before
    assert 1 <= len(changed) < len(after) // 4
    assert all(chunk in section for chunk in changed)


def test_a_sphinx_page_is_cut_at_its_sections_and_api_entries(tmp_path: Path) -> None:
    """A page written like Sphinx's (tests/data/html/sphinx-floats.html, written for these
    tests): no permalink mark or navigation bar in the text; each API entry's signature
    starts the chunk with its description; every chunk names its heading path; a
    ``# comment`` inside a code example is code, not a heading."""
    document = DEFAULT_LOADER_MAPPING[".html"](PAGES / "sphinx-floats.html").load()[0]
    assert "¶" not in document.page_content and "Example »" not in document.page_content
    chunks = _chunks(document.page_content, source="sphinx-floats.html")
    assert [(c.metadata.get("section"), c.page_content.split("\n")[0]) for c in chunks] == [
        ("floats — Comparing numbers", "# floats — Comparing numbers"),
        ("floats — Comparing numbers > Tolerances", "## Tolerances"),
        (
            "floats — Comparing numbers > Tolerances > floats.near()",
            "### floats.near(a, b, *, rel_tol=1e-09)",
        ),
        (
            "floats — Comparing numbers > Tolerances > class floats.Meter()",
            "### class floats.Meter(unit, precision=3, rounding='half-even')",
        ),
        (
            "floats — Comparing numbers > Tolerances > class floats.Meter() > read()",
            "#### read()",
        ),
    ]
    near = chunks[2].page_content
    assert "Return True if the values a and b are close" in near
    assert near.endswith(
        "```\n>>> # sums that differ in the last bit\n>>> near(0.1 + 0.2, 0.3)\nTrue\n```"
    )

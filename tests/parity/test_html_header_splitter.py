"""Parity: ``HTMLHeaderTextSplitter`` against LangChain's (langchain_text_splitters).

The trial's page, hand-made pages (skipped header levels, nested tags in a header,
head/script/style, comments, a doctype, text outside any element, blank headers) and
400 seeded random pages of nested tags are split through both, in both modes
(sections, ``return_each_element=True``): contents and metadata, in order. Also files
(a path and an open file) and the header list's checks.
"""

from __future__ import annotations

import io
import random
import warnings
from typing import Any

import pytest
from langchain_text_splitters import HTMLHeaderTextSplitter as LCHTMLHeaderTextSplitter

from ragline.splitters import HTMLHeaderTextSplitter

COVERS = {"splitters.HTMLHeaderTextSplitter"}

HEADERS = [("h1", "Header 1"), ("h2", "Header 2"), ("h3", "Header 3")]
TRIAL = """
<!DOCTYPE html>
<html>
<body>
    <div>
        <h1>Foo</h1>
        <p>Some intro text about Foo.</p>
        <div>
            <h2>Bar main section</h2>
            <p>Some intro text about Bar.</p>
            <h3>Bar subsection 1</h3>
            <p>Some text about the first subtopic of Bar.</p>
        </div>
        <h2>Baz</h2>
        <p>Some text about Baz</p>
    </div>
</body>
</html>
"""
PAGES = [
    TRIAL,
    "<h1>A</h1><p>a1</p><h3>C</h3><p>c1</p><h2>B</h2><p>b1</p><h1>A2</h1><p>x</p>",
    "<html><head><title>T</title><style>p{}</style><script>var x=1;</script></head>"
    "<body><h2><a href='#'>link</a> text</h2><p>p &amp; q<br>r</p></body></html>",
    "",
    "<p>only text</p>",
    "<div><h1>X</h1>intro<p>  spaced   out  </p></div>tail",
    "<h1>  </h1><p>e</p><h2>B</h2><h2>B2</h2><p>b2</p>",
    "plain text without tags",
    "<table><tr><td>1</td><td>2</td></tr></table><h1>H</h1><pre>  code\n  here</pre>",
    "<!DOCTYPE html><h1>x</h1><!-- a comment --><p>y</p>",
    "<p>pre <b>bold</b> text</p><h1>T</h1><ul><li>a</li><li>b</li></ul><h2>S</h2>"
    "tail text<div>x<span>y</span></div><h2></h2><p>z</p>",
]


def split(splitter_class: Any, headers: Any, html: str, each: bool) -> list[tuple[str, dict]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = splitter_class(headers, return_each_element=each).split_text(html)
    return [(d.page_content, d.metadata) for d in docs]


@pytest.mark.parametrize("each", [False, True])
@pytest.mark.parametrize("html", PAGES)
def test_pages(html, each):
    for headers in (HEADERS, [("h2", "H2"), ("h1", "H1")], [("h2", "H2")]):
        ours = split(HTMLHeaderTextSplitter, headers, html, each)
        assert ours == split(LCHTMLHeaderTextSplitter, headers, html, each)


def test_the_trial_page_sections():
    assert split(HTMLHeaderTextSplitter, HEADERS, TRIAL, False)[4:6] == [
        (
            "Bar subsection 1",
            {"Header 1": "Foo", "Header 2": "Bar main section", "Header 3": "Bar subsection 1"},
        ),
        (
            "Some text about the first subtopic of Bar.",
            {"Header 1": "Foo", "Header 2": "Bar main section", "Header 3": "Bar subsection 1"},
        ),
    ]


def random_page(rng: random.Random) -> str:
    tags = ["h1", "h2", "h3", "h4", "p", "div", "span", "b", "li", "ul", "section", "a", "pre"]
    words = ["alpha", "beta", " gamma ", "d&amp;e", "  ", "\n", "zeta eta", "<!-- n -->", "<br>"]

    def fragment(depth: int) -> str:
        out = []
        for _ in range(rng.randint(0, 4)):
            if rng.random() < 0.45 and depth < 4:
                tag = rng.choice(tags)
                out.append(f"<{tag}>{fragment(depth + 1)}</{tag}>")
            else:
                out.append(rng.choice(words))
        return "".join(out)

    page = fragment(0)
    if rng.random() < 0.5:
        page = f"<html><head><title>t</title></head><body>{page}</body></html>"
    return page


def test_random_pages():
    rng = random.Random(24)
    for _ in range(400):
        page = random_page(rng)
        headers = rng.choice([HEADERS, [("h2", "B"), ("h1", "A")], [("h3", "C"), ("h4", "D")]])
        each = rng.random() < 0.4
        ours = split(HTMLHeaderTextSplitter, headers, page, each)
        assert ours == split(LCHTMLHeaderTextSplitter, headers, page, each), page


def test_files_and_header_checks(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<h1>a</h1><p>é</p>", encoding="utf-8")
    for source in (str(path), io.StringIO("<h1>a</h1><p>é</p>")):
        if not isinstance(source, str):
            lc_source: Any = io.StringIO(source.getvalue())
        else:
            lc_source = source
        ours = HTMLHeaderTextSplitter([("h1", "A")]).split_text_from_file(source)
        theirs = LCHTMLHeaderTextSplitter([("h1", "A")]).split_text_from_file(lc_source)
        assert [(d.page_content, d.metadata) for d in ours] == [
            (d.page_content, d.metadata) for d in theirs
        ]
    for splitter_class in (HTMLHeaderTextSplitter, LCHTMLHeaderTextSplitter):
        with pytest.raises(ValueError):
            splitter_class([("p", "P")])
    assert (
        HTMLHeaderTextSplitter([("h2", "B"), ("h1", "A")]).headers_to_split_on
        == LCHTMLHeaderTextSplitter([("h2", "B"), ("h1", "A")]).headers_to_split_on
    )

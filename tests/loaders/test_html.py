"""BSHTMLLoader: real pages parsed by BeautifulSoup; LangChain's get_text() by default,
the visible text and collapsed title with visible=True."""

from __future__ import annotations

import sys

import pytest

from ragline.core import InvalidInputError, LoaderError, MissingDependencyError
from ragline.loaders import BSHTMLLoader

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <title>  The   Page  </title>
  <meta name="description" content="about">
  <style>p { color: red; }</style>
  <script>var secret = "do not index";</script>
</head>
<body>
  <h1>Heading</h1>
  <p>First <b>bold</b>
     paragraph, <a href="/x">a link</a>.</p>
  <!-- a comment that is not shown -->
  <noscript>enable javascript</noscript>
  <ul><li>one</li><li>two</li></ul>
  <div hidden>invisible</div>
  <table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
  <p>x &amp; y&nbsp;z<br>second line</p>
  <script type="application/ld+json">{"also": "hidden"}</script>
  <template><p>template content</p></template>
</body>
</html>
"""


def write(tmp_path, text: str, name: str = "page.html", encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_visible_text_and_title(tmp_path) -> None:
    path = write(tmp_path, PAGE)
    [document] = BSHTMLLoader(path, visible=True).load()
    assert document.page_content == (
        "Heading\nFirst bold paragraph, a link.\none\ntwo\nk v\na 1\nx & y z\nsecond line"
    )
    assert document.metadata == {"source": str(path), "title": "The Page"}


def test_get_text_separator_joins_visible_strings(tmp_path) -> None:
    path = write(tmp_path, "<title>T</title><p>a <b>b</b></p><script>x</script><p>c</p>")
    assert BSHTMLLoader(path, get_text_separator="|", visible=True).load()[0].page_content == (
        "a|b|c"
    )
    # without visible=True: LangChain's get_text("|"), title included, strings unstripped
    assert BSHTMLLoader(path, get_text_separator="|").load()[0].page_content == "T|a |b|c"


def test_page_without_title_has_empty_title(tmp_path) -> None:
    path = write(tmp_path, "<p>no title here</p>")
    assert BSHTMLLoader(path).load()[0].metadata == {"source": str(path), "title": ""}


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ("<p>one<div>two</span><p>three", "one\ntwo\nthree"),
        (
            "<html><body><p>unclosed <b>bold <i>both</p> after</b> tail",
            "unclosed bold both\nafter tail",
        ),
        ("<table><tr><td>a<td>b<tr><td>c</table>", "a b\nc"),
        ("</p></div>text only<br>next line", "text only\nnext line"),
        ("<p>a < b and c > d</p>", "a < b and c > d"),
        ("<div>" * 3000 + "deep" + "</div>" * 10, "deep"),  # no RecursionError
    ],
)
def test_malformed_html_is_parsed_not_crashed(tmp_path, markup, expected) -> None:
    assert BSHTMLLoader(write(tmp_path, markup), visible=True).load()[0].page_content == expected


def test_declared_charset_is_honoured_without_open_encoding(tmp_path) -> None:
    markup = '<meta charset="iso-8859-1"><title>Grüße</title><p>Café crème</p>'
    path = write(tmp_path, markup, encoding="latin-1")
    [document] = BSHTMLLoader(path).load()
    assert (document.page_content, document.metadata["title"]) == ("GrüßeCafé crème", "Grüße")


def test_open_encoding_decodes_strictly(tmp_path) -> None:
    path = write(tmp_path, "<p>Café</p>", encoding="cp1252")
    assert BSHTMLLoader(path, open_encoding="cp1252").load()[0].page_content == "Café"
    with pytest.raises(LoaderError, match=r"cannot decode .*page\.html as utf-8: byte 0xe9"):
        BSHTMLLoader(path, open_encoding="utf-8").load()


def test_missing_file(tmp_path) -> None:
    with pytest.raises(LoaderError, match=r"file not found: .*gone\.html"):
        BSHTMLLoader(tmp_path / "gone.html").load()


def test_bad_options(tmp_path) -> None:
    with pytest.raises(
        InvalidInputError, match=r"unknown bs_kwargs key\(s\) 'parser'; valid keys:"
    ):
        BSHTMLLoader(tmp_path / "a.html", bs_kwargs={"parser": "lxml"})
    with pytest.raises(InvalidInputError, match="encoding 'nope'"):
        BSHTMLLoader(tmp_path / "a.html", open_encoding="nope")


def test_missing_beautifulsoup_names_the_extra(tmp_path, monkeypatch) -> None:
    path = write(tmp_path, "<p>x</p>")
    monkeypatch.setitem(sys.modules, "bs4", None)  # makes `import bs4` fail
    with pytest.raises(
        MissingDependencyError, match=r"beautifulsoup4 .* pip install 'ragline\[html\]'"
    ):
        BSHTMLLoader(path).load()


@pytest.mark.parametrize(
    ("encoding", "bs_kwargs"),
    [
        ("utf-16-le", {"from_encoding": "utf-16-le"}),  # no byte-order mark: named
        ("utf-16", {}),  # the mark says so
        ("utf-32", {}),
    ],
)
def test_wide_encoding_line_ends_read_as_newlines_and_no_byte_changed(
    tmp_path, encoding, bs_kwargs
) -> None:
    # "\u010d" (c caron) is 0D 01 in UTF-16-LE: a 0x0D byte that is no carriage return
    path = write(tmp_path, "<p>\u010dx\r\ny\rz</p>", encoding=encoding)
    loader = BSHTMLLoader(path, bs_kwargs=bs_kwargs)
    assert loader.load()[0].page_content == "\u010dx\ny\nz"

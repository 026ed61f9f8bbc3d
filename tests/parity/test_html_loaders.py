"""Parity: ragline's BSHTMLLoader and WebBaseLoader against LangChain's (BeautifulSoup).

A page is loaded from a file (BSHTMLLoader) and over real HTTP from a loopback server
(WebBaseLoader). Compared, exactly: the text (BeautifulSoup's ``get_text()`` in both:
the title, hidden and ``<noscript>`` text and the page's own line breaks included,
scripts and styles not; with and without a separator) and the metadata (source, title
as written; description and language for a web page). ragline's cleaned visible text is
``visible=True``. An empty ``<title>`` or one holding a tag is the one deliberate
difference (docs/differences-from-langchain.md): LangChain's BSHTMLLoader writes ``"None"`` there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_community.document_loaders import BSHTMLLoader as LCBSHTMLLoader
from langchain_community.document_loaders import WebBaseLoader as LCWebBaseLoader

from ragline.loaders import BSHTMLLoader, WebBaseLoader

COVERS = {"loaders.BSHTMLLoader", "loaders.WebBaseLoader"}

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <title>Fruit  facts</title>
  <meta name="description" content="What grows where.">
</head>
<body>
  <h1>Apples</h1>
  <p>Apples grow on <b>trees</b> in cool climates.</p>
  <ul>
    <li>Red</li>
    <li>Green</li>
  </ul>
  <p>Bananas &amp; plantains grow in the tropics, café au lait.</p>
</body>
</html>
"""
NOISY = """<html lang="it"><head><title> Pears <b>and</b> plums </title>
<style>p { color: red }</style><script>track("visit");</script></head>
<body><p>Pears<script>var x = 1;</script> ripen <i>off</i> the tree.</p>
<noscript>Turn on scripts.</noscript><p hidden>Secret.</p><!-- a comment -->
<ul><li>Red</li><li>Green</li></ul></body></html>
"""
PAGES = {
    "/fruit": PAGE,
    "/plain": "<html><body><p>No title here.</p></body></html>",
    "/noisy": NOISY,
}


@pytest.fixture
def site() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = PAGES.get(self.path)
            body = (page or "not found").encode("utf-8")
            self.send_response(200 if page else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _seen(documents: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, dict(d.metadata)) for d in documents]


@pytest.mark.parametrize("separator", [None, " | "])
@pytest.mark.parametrize("page", ["fruit", "plain"])
def test_bshtml_loader_gives_langchains_text_and_metadata(
    tmp_path: Path, page: str, separator: str | None
) -> None:
    path = tmp_path / f"{page}.html"
    path.write_text(PAGES[f"/{page}"], encoding="utf-8")
    # html.parser: LangChain's loader asks for lxml unless told (ragline's default)
    options: dict[str, Any] = {"open_encoding": "utf-8", "bs_kwargs": {"features": "html.parser"}}
    if separator is not None:
        options["get_text_separator"] = separator
    theirs = LCBSHTMLLoader(str(path), **options).load()
    ours = BSHTMLLoader(str(path), **options).load()
    assert _seen(ours) == _seen(theirs)


def test_bshtml_loader_text_in_full(tmp_path: Path) -> None:
    path = tmp_path / "fruit.html"
    path.write_text(PAGE, encoding="utf-8")
    (ours,) = BSHTMLLoader(str(path)).load()
    assert ours.metadata == {"source": str(path), "title": "Fruit  facts"}
    assert ours.page_content == (
        "\n\n\nFruit  facts\n\n\n\nApples\nApples grow on trees in cool climates.\n\nRed\n"
        "Green\n\nBananas & plantains grow in the tropics, café au lait.\n\n\n"
    )
    # ragline's cleaned visible text is one option away
    (visible,) = BSHTMLLoader(str(path), visible=True).load()
    assert visible.metadata == {"source": str(path), "title": "Fruit facts"}
    assert visible.page_content == (
        "Apples\nApples grow on trees in cool climates.\nRed\nGreen\n"
        "Bananas & plantains grow in the tropics, café au lait."
    )


def test_a_title_holding_a_tag_is_its_text_where_langchain_writes_none(tmp_path: Path) -> None:
    # listed in docs/differences-from-langchain.md
    path = tmp_path / "noisy.html"
    path.write_text(NOISY, encoding="utf-8")
    options: dict[str, Any] = {"bs_kwargs": {"features": "html.parser"}}
    (theirs,) = LCBSHTMLLoader(str(path), **options).load()
    (ours,) = BSHTMLLoader(str(path), **options).load()
    assert theirs.metadata["title"] == "None"
    assert ours.metadata["title"] == " Pears and plums "
    assert ours.page_content == theirs.page_content
    assert ours.page_content == (
        " Pears and plums \n\nPears ripen off the tree.\nTurn on scripts.Secret.\nRedGreen\n"
    )


def test_web_base_loader_gives_langchains_text_and_metadata(site: str) -> None:
    urls = [f"{site}/fruit", f"{site}/plain", f"{site}/noisy"]
    theirs = LCWebBaseLoader(urls).load()
    ours = WebBaseLoader(urls).load()
    assert _seen(ours) == _seen(theirs)
    assert ours[0].metadata == {
        "source": urls[0],
        "title": "Fruit  facts",
        "description": "What grows where.",
        "language": "en",
    }
    assert ours[2].metadata["title"] == " Pears and plums "
    assert ours[1].page_content == "No title here."
    visible = WebBaseLoader(urls, visible=True).load()
    assert [d.page_content for d in visible[1:]] == [
        "No title here.",
        "Pears ripen off the tree.\nRed\nGreen",
    ]
    assert visible[0].metadata["title"] == "Fruit facts"

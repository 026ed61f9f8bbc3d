"""Parity: ragline's BSHTMLLoader and WebBaseLoader against LangChain's (BeautifulSoup).

A page is loaded from a file (BSHTMLLoader) and over real HTTP from a loopback server
(WebBaseLoader). Compared: the metadata (source, title; description and language for a
web page) and the words of the text. The text's layout differs on purpose: LangChain
returns ``soup.get_text()`` (every text node, script and style included, with the
page's own newlines), ragline the visible text, cleaned, and the title with its
whitespace collapsed (docs/differences.md); so the scenarios' pages have no script or
style, and the words in order are compared, LangChain's led by the title's (get_text()
reads the <title> too).
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
PAGES = {"/fruit": PAGE, "/plain": "<html><body><p>No title here.</p></body></html>"}


def _words(text: str) -> list[str]:
    return text.split()


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


def test_bshtml_loader_gives_the_same_title_source_and_words(tmp_path: Path) -> None:
    path = tmp_path / "fruit.html"
    path.write_text(PAGE, encoding="utf-8")
    # html.parser: LangChain's loader asks for lxml unless told (ragline's default)
    options: dict[str, Any] = {"open_encoding": "utf-8", "bs_kwargs": {"features": "html.parser"}}
    (theirs,) = LCBSHTMLLoader(str(path), **options).load()
    (ours,) = BSHTMLLoader(str(path), **options).load()
    assert theirs.metadata == {"source": str(path), "title": "Fruit  facts"}
    # ragline collapses the title's whitespace (docs/differences.md)
    assert ours.metadata == {"source": str(path), "title": "Fruit facts"}
    # get_text() starts with the <title>'s text; ragline's text is the body's
    assert _words(theirs.page_content) == ["Fruit", "facts", *_words(ours.page_content)]
    assert "Bananas & plantains grow in the tropics, café au lait." in ours.page_content


def test_web_base_loader_gives_the_same_metadata_and_words(site: str) -> None:
    urls = [f"{site}/fruit", f"{site}/plain"]
    theirs = LCWebBaseLoader(urls).load()
    ours = WebBaseLoader(urls).load()
    assert theirs[0].metadata["title"] == "Fruit  facts"
    theirs[0].metadata["title"] = "Fruit facts"  # collapsed in ragline (docs/differences.md)
    assert [d.metadata for d in ours] == [d.metadata for d in theirs]
    assert ours[0].metadata == {
        "source": urls[0],
        "title": "Fruit facts",
        "description": "What grows where.",
        "language": "en",
    }
    assert [_words(d.page_content) for d in theirs] == [
        ["Fruit", "facts", *_words(ours[0].page_content)],
        _words(ours[1].page_content),
    ]
    assert _words(ours[1].page_content) == ["No", "title", "here."]

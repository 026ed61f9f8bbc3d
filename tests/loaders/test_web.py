"""WebBaseLoader against a real HTTP server on 127.0.0.1 started by each test."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import time

import pytest

from ragline.core import InvalidInputError, LoaderError
from ragline.loaders import WebBaseLoader

from .conftest import Route, Server

pytestmark = pytest.mark.network

PAGE = b"""<!DOCTYPE html>
<html lang="fr">
<head><title>Accueil</title><meta name="description" content="A test page">
<script>track()</script><style>h1 { x: y }</style></head>
<body><h1>Bonjour</h1><p>Un <em>petit</em> texte.</p></body>
</html>"""


def loader(urls, **options) -> WebBaseLoader:
    options.setdefault("requests_per_second", None)  # tests are not rate limited unless they say so
    return WebBaseLoader(urls, **options)


def test_page_text_and_metadata(http_server: Server) -> None:
    http_server.routes["/"] = Route(PAGE)
    [document] = loader(http_server.url("/"), visible=True).load()
    assert document.page_content == "Bonjour\nUn petit texte."
    # LangChain's default: get_text(), the title and the page's line breaks included
    [document] = loader(http_server.url("/")).load()
    assert document.page_content == "\n\nAccueil\n\nBonjourUn petit texte.\n"
    assert document.metadata == {
        "source": http_server.url("/"),
        "title": "Accueil",
        "description": "A test page",
        "language": "fr",
    }


def test_metadata_keys_follow_what_the_page_has(http_server: Server) -> None:
    http_server.routes["/bare"] = Route(b"<p>just text</p>")
    http_server.routes["/partial"] = Route(b'<html><meta name="description"><p>x</p></html>')
    bare, partial = loader([http_server.url("/bare"), http_server.url("/partial")]).load()
    assert bare.metadata == {"source": http_server.url("/bare")}
    assert partial.metadata == {
        "source": http_server.url("/partial"),
        "description": "No description found.",
        "language": "No language found.",
    }


def test_web_paths_is_langchains_other_name(http_server: Server) -> None:
    http_server.routes["/"] = Route(PAGE)
    web = WebBaseLoader(web_paths=[http_server.url("/")], requests_per_second=None)
    assert web.web_paths == [http_server.url("/")]
    assert web.load()[0].metadata["title"] == "Accueil"


def test_sends_headers(http_server: Server) -> None:
    http_server.routes["/"] = Route(PAGE)
    loader(http_server.url("/"), header_template={"X-Test": "yes"}).load()
    headers = http_server.request_headers[0]
    assert headers["X-Test"] == "yes"
    assert headers["User-Agent"] == "ragline-WebBaseLoader/0.1"


def test_follows_a_redirect(http_server: Server) -> None:
    http_server.routes["/old"] = Route(status=301, headers={"Location": "/new"})
    http_server.routes["/new"] = Route(b"<title>New</title><p>moved here</p>")
    [document] = loader(http_server.url("/old")).load()
    assert (document.page_content, document.metadata["title"]) == ("Newmoved here", "New")
    assert document.metadata["source"] == http_server.url("/old")
    assert [path for path, _ in http_server.arrivals] == ["/old", "/new"]


def test_redirect_limits(http_server: Server) -> None:
    http_server.routes["/loop"] = Route(status=302, headers={"Location": "/loop"})
    with pytest.raises(LoaderError, match=r"/loop returned HTTP 30\d"):
        loader(http_server.url("/loop"), max_redirects=3).load()
    http_server.routes["/ftp"] = Route(status=302, headers={"Location": "ftp://example.org/x"})
    with pytest.raises(
        LoaderError, match=r"/ftp redirects to 'ftp://example.org/x', which is not an http\(s\) URL"
    ):
        loader(http_server.url("/ftp")).load()
    http_server.routes["/file"] = Route(status=302, headers={"Location": "file:///etc/passwd"})
    with pytest.raises(
        LoaderError, match=r"/file returned HTTP 302 .*'file:///etc/passwd' is not allowed"
    ):
        loader(http_server.url("/file")).load()


def test_not_found_names_the_url(http_server: Server) -> None:
    url = http_server.url("/missing")
    with pytest.raises(LoaderError, match=rf"^{url} returned HTTP 404 Not Found$"):
        loader(url).load()


def test_unreachable_url_names_it() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/page"
    with pytest.raises(LoaderError, match=rf"^cannot fetch {url}: .*[Cc]onnection refused"):
        loader(url, timeout=5).load()


def test_slow_page_times_out(http_server: Server) -> None:
    http_server.routes["/slow"] = Route(PAGE, delay=5.0)
    url = http_server.url("/slow")
    with pytest.raises(LoaderError, match=rf"^fetching {url} timed out after 0.3 s$"):
        loader(url, timeout=0.3).load()


def test_charset_from_the_content_type_header(http_server: Server) -> None:
    body = "<title>Grüße</title><p>Café crème à la carte</p>".encode("iso-8859-1")
    http_server.routes["/latin"] = Route(body, content_type="text/html; charset=ISO-8859-1")
    [document] = loader(http_server.url("/latin"), visible=True).load()
    assert (document.page_content, document.metadata["title"]) == ("Café crème à la carte", "Grüße")


def test_charset_from_meta_and_explicit_encoding(http_server: Server) -> None:
    body = '<meta charset="windows-1251"><p>Привет, мир</p>'.encode("cp1251")
    http_server.routes["/meta"] = Route(body, content_type="text/html")
    assert loader(http_server.url("/meta")).load()[0].page_content == "Привет, мир"
    mislabelled = "<p>Привет</p>".encode("cp1251")
    http_server.routes["/wrong"] = Route(mislabelled, content_type="text/html; charset=utf-8")
    assert loader(http_server.url("/wrong"), encoding="cp1251").load()[0].page_content == "Привет"
    # Without the override, bytes invalid in the declared charset become U+FFFD.
    assert loader(http_server.url("/wrong")).load()[0].page_content == "\ufffd" * 6


def test_size_cap(http_server: Server) -> None:
    big = b"<p>" + b"x" * 5000 + b"</p>"
    http_server.routes["/big"] = Route(big)
    http_server.routes["/big-unannounced"] = Route(big, send_length=False)
    with pytest.raises(LoaderError, match=r"/big is 5007 bytes, more than max_bytes=1000$"):
        loader(http_server.url("/big"), max_bytes=1000).load()
    with pytest.raises(LoaderError, match=r"/big-unannounced is larger than max_bytes=1000$"):
        loader(http_server.url("/big-unannounced"), max_bytes=1000).load()
    assert len(loader(http_server.url("/big-unannounced")).load()[0].page_content) == 5000


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("image/png", b"\x89PNG..."),
        # 'xml' inside the subtype's name does not make a zip archive text
        ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", b"PK\x03\x04"),
    ],
)
def test_non_text_content_is_refused(http_server: Server, content_type, body) -> None:
    http_server.routes["/file"] = Route(body, content_type=content_type)
    with pytest.raises(
        LoaderError, match=rf"/file is '{re.escape(content_type)}', not HTML or text"
    ):
        loader(http_server.url("/file")).load()


@pytest.mark.parametrize("content_type", ["application/xhtml+xml", "application/xml", "text/plain"])
def test_html_xml_and_text_content_types_are_parsed(http_server: Server, content_type) -> None:
    http_server.routes["/page"] = Route(b"<p>hello</p>", content_type=content_type)
    assert loader(http_server.url("/page")).load()[0].page_content == "hello"


def test_continue_on_failure_skips_and_logs(http_server: Server, caplog) -> None:
    http_server.routes["/a"] = Route(b"<p>A</p>")
    http_server.routes["/c"] = Route(b"<p>C</p>")
    urls = [http_server.url(p) for p in ("/a", "/b", "/c")]
    with caplog.at_level(logging.WARNING, logger="ragline.loaders._web"):
        documents = loader(urls, continue_on_failure=True).load()
    assert [d.page_content for d in documents] == ["A", "C"]
    assert [r.getMessage() for r in caplog.records] == [
        f"skipping {urls[1]}: {urls[1]} returned HTTP 404 Not Found"
    ]


def test_lazy_load_fetches_one_page_at_a_time(http_server: Server) -> None:
    for name in "abc":
        http_server.routes[f"/{name}"] = Route(f"<p>{name}</p>".encode())
    stream = loader([http_server.url(f"/{n}") for n in "abc"]).lazy_load()
    assert next(stream).page_content == "a"
    assert [path for path, _ in http_server.arrivals] == ["/a"]
    assert [d.page_content for d in stream] == ["b", "c"]


@pytest.mark.parametrize("max_concurrency", [1, 3])
async def test_alazy_load_fetches_concurrently_in_url_order(
    http_server: Server, max_concurrency
) -> None:
    """Six slow pages: the server sees exactly ``max_concurrency`` requests at once;
    the documents still come out in URL order. The first page answers only once that
    many requests were in at once (not after a fixed delay: on a loaded machine the
    client could send the others after it had answered)."""
    names = [f"p{i}" for i in range(6)]
    for i, name in enumerate(names):
        # later pages answer faster, so completion order differs from URL order
        http_server.routes[f"/{name}"] = Route(
            f"<p>{name}</p>".encode(),
            delay=0.15 + 0.03 * (5 - i),
            until=(lambda: http_server.peak >= max_concurrency) if i == 0 else None,
        )
    web = loader([http_server.url(f"/{n}") for n in names], max_concurrency=max_concurrency)
    documents = [d async for d in web.alazy_load()]
    assert [d.page_content for d in documents] == names
    assert http_server.peak == max_concurrency


async def test_aload_raises_for_a_failing_url(http_server: Server) -> None:
    http_server.routes["/ok"] = Route(b"<p>ok</p>")
    web = loader([http_server.url("/ok"), http_server.url("/gone"), http_server.url("/ok")])
    with pytest.raises(LoaderError, match=r"/gone returned HTTP 404"):
        await web.aload()


async def test_alazy_load_can_stop_early(http_server: Server) -> None:
    """A consumer that stops after the first page: no page past the read-ahead window
    (max_concurrency=2, so /0 and /1) is ever requested."""
    for i in range(5):
        http_server.routes[f"/{i}"] = Route(f"<p>{i}</p>".encode(), delay=0.05)
    web = loader([http_server.url(f"/{i}") for i in range(5)], max_concurrency=2)
    stream = web.alazy_load()
    async for document in stream:
        assert document.page_content == "0"
        break
    await stream.aclose()
    await asyncio.sleep(0.3)  # time for any stray request to reach the server
    requested = {path for path, _ in http_server.arrivals}
    assert "/0" in requested and requested <= {"/0", "/1"}


@pytest.mark.parametrize("use_async", [False, True])
async def test_requests_per_second_spaces_request_starts(http_server: Server, use_async) -> None:
    for i in range(4):
        http_server.routes[f"/{i}"] = Route(b"<p>x</p>")
    web = WebBaseLoader(
        [http_server.url(f"/{i}") for i in range(4)], requests_per_second=5, max_concurrency=4
    )
    started = time.monotonic()
    documents = [d async for d in web.alazy_load()] if use_async else web.load()
    assert len(documents) == 4
    # The k-th request may leave no sooner than k / 5 s after the load began. A busy machine
    # only delays arrivals, so this bound holds however loaded it is (gaps between arrivals
    # do not: one late arrival shortens the next gap).
    # (only this test's paths: on a shared machine a stray client of another test's
    # server may reach this port once the port is reused)
    ours = {f"/{i}" for i in range(4)}
    arrivals = sorted(t - started for path, t in http_server.arrivals if path in ours)
    assert len(arrivals) == 4
    too_early = [(k, t) for k, t in enumerate(arrivals) if t < k * 0.2 - 0.005]
    assert too_early == []


@pytest.mark.parametrize(
    ("urls", "options", "message"),
    [
        ("ftp://example.org/x", {}, r"'ftp://example.org/x' is not an http:// or https:// URL"),
        (
            ["http://ok.example", "example.org"],
            {},
            r"'example.org' is not an http:// or https:// URL",
        ),
        ([], {}, "needs at least one URL"),
        (
            "http://a.example",
            {"web_paths": ["http://b.example"]},
            "as web_path or as web_paths, not both",
        ),
        ("http://a.example", {"timeout": 0}, "timeout must be a finite number > 0, got 0"),
        ("http://a.example", {"max_concurrency": 0}, "max_concurrency must be an int >= 1, got 0"),
        (
            "http://a.example",
            {"requests_per_second": -1},
            "requests_per_second must be a finite number > 0 or None, got -1",
        ),
        ("http://a.example", {"encoding": "nope"}, "encoding 'nope' is not a known text encoding"),
        ("http://a.example", {"encoding": 5}, "encoding 5 is not a known text encoding"),
        ("http://a.example", {"encoding": "hex"}, "encoding 'hex' is not a known text encoding"),
        (
            "http://a.example",
            {"bs_kwargs": {"markup": "x"}},
            r"unknown bs_kwargs key\(s\) 'markup'",
        ),
    ],
)
def test_bad_arguments_fail_at_construction(urls, options, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        WebBaseLoader(urls, **options)


def test_body_cut_short_is_an_error(http_server: Server) -> None:
    http_server.routes["/short"] = Route(
        b"<p>only part", headers={"Content-Length": "100"}, send_length=False
    )
    url = http_server.url("/short")
    with pytest.raises(LoaderError, match=rf"^{url} ended after 12 of its 100 bytes$"):
        loader(url).load()

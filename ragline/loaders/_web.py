"""WebBaseLoader: web pages over HTTP(S), parsed with BeautifulSoup.

Fetching uses only the standard library (``urllib``), so the loader needs just
the ``html`` extra (beautifulsoup4) for parsing.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

from ragline.core import Document, InvalidInputError, LoaderError
from ragline.core._checks import (
    check_non_negative_int,
    check_optional_number,
    check_positive_int,
    check_positive_number,
)
from ragline.loaders._base import BaseLoader
from ragline.loaders._encoding import check_encoding
from ragline.loaders._html import (
    check_bs_kwargs,
    check_text_options,
    page_text,
    page_title,
    parse_html,
)

__all__ = ["WebBaseLoader"]

logger = logging.getLogger(__name__)

DEFAULT_HEADERS = {
    "User-Agent": "ragline-WebBaseLoader/0.1",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,text/*;q=0.8",
}
_CHUNK = 1 << 16


class _RateLimiter:
    """Spaces request starts at least ``1 / per_second`` apart, across threads and tasks."""

    def __init__(self, per_second: float | None) -> None:
        self.interval = 1.0 / per_second if per_second else 0.0
        self._next_start = 0.0
        self._lock = threading.Lock()

    def _reserve(self) -> float:
        """Book the next start slot and return how long to wait for it."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + self.interval
            return start - now

    def wait(self) -> None:
        time.sleep(self._reserve())

    async def await_turn(self) -> None:
        await asyncio.sleep(self._reserve())


class _HTTPOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) URLs only (never file: or ftp:), at most ``limit``."""

    def __init__(self, limit: int) -> None:
        # urllib reads this limit through the instance, so one per loader works.
        self.max_redirections = limit  # type: ignore[misc]

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise LoaderError(
                f"{req.full_url} redirects to {newurl!r}, which is not an http(s) URL"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _check_url(url: Any) -> str:
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInputError(f"{url!r} is not an http:// or https:// URL")
    return url


class WebBaseLoader(BaseLoader):
    """Fetch web pages and load their text, one Document per URL.

    The text is LangChain's, BeautifulSoup's ``get_text()`` (the title and hidden
    elements included, scripts and styles not; the page's own line breaks), unless
    ``visible=True`` (the visible text, cleaned, as :class:`BSHTMLLoader` gives it) or
    ``structured=True``.

    Each document's metadata has ``source`` (the URL as given) and, as
    LangChain's loader does, ``title`` when the page has a ``<title>`` (as written;
    whitespace collapsed with ``visible`` or ``structured``),
    ``description`` when it has ``<meta name="description">`` (its ``content``,
    or ``"No description found."``) and ``language`` when it has an ``<html>``
    element (its ``lang``, or ``"No language found."``).

    Decoding: ``encoding`` if given, else the charset of the ``Content-Type``
    header, else BeautifulSoup's guess (byte-order mark, ``<meta charset>``,
    detection). Bytes invalid in a named charset become U+FFFD, as browsers do.

    A URL fails with LoaderError naming it when it cannot be reached, answers
    with an HTTP error status (4xx/5xx), redirects more than ``max_redirects``
    times or to a non-http(s) URL, takes longer than ``timeout``, is larger than
    ``max_bytes``, or is not text (e.g. ``image/png``). With
    ``continue_on_failure`` the failure is logged (logger
    ``ragline.loaders._web``, WARNING) and the URL skipped.

    Args:
        web_path: one URL or a list of them.
        web_paths: the same, under LangChain's other name for it.
        header_template: HTTP headers, merged over a default User-Agent and Accept.
        requests_per_second: at most this many request starts per second, for
            ``lazy_load`` and ``alazy_load`` alike; ``None`` for no limit.
        max_concurrency: pages fetched at once by ``alazy_load`` / ``aload``.
        timeout: seconds allowed to connect, for each wait for data, and for
            downloading the whole body.
        max_bytes: the largest body accepted (default 10 MiB).
        max_redirects: redirects followed per URL.
        encoding: decode every page with this encoding.
        continue_on_failure: skip failing URLs instead of raising.
        default_parser: BeautifulSoup parser (``"html.parser"``, ``"lxml"`` ...).
        bs_kwargs: other BeautifulSoup options (see :class:`BSHTMLLoader`).
        get_text_separator: as in :class:`BSHTMLLoader`.
        visible: the visible text, cleaned (see :class:`BSHTMLLoader`).
        structured: the visible text with headings and paragraphs kept.
        trust_env: use proxy settings from the environment (off by default).

    Raises:
        InvalidInputError: a URL that is not http(s), or a bad option (at construction).
        LoaderError: on load, as above.
        MissingDependencyError: beautifulsoup4 is missing.

    Example:
        >>> loader = WebBaseLoader(["https://example.org/a", "https://example.org/b"])
        >>> loader.web_paths
        ['https://example.org/a', 'https://example.org/b']
    """

    def __init__(
        self,
        web_path: str | Sequence[str] = (),
        *,
        web_paths: Sequence[str] = (),
        header_template: Mapping[str, str] | None = None,
        requests_per_second: float | None = 2.0,
        max_concurrency: int = 4,
        timeout: float = 10.0,
        max_bytes: int = 10 * 1024 * 1024,
        max_redirects: int = 5,
        encoding: str | None = None,
        continue_on_failure: bool = False,
        default_parser: str = "html.parser",
        bs_kwargs: Mapping[str, Any] | None = None,
        get_text_separator: str | None = None,
        trust_env: bool = False,
        visible: bool = False,
        structured: bool = False,
    ) -> None:
        check_text_options("WebBaseLoader", get_text_separator, visible, structured)
        self.visible = visible
        self.structured = structured
        if web_path and web_paths:
            raise InvalidInputError("pass the URLs as web_path or as web_paths, not both")
        given = web_path or web_paths
        urls = [given] if isinstance(given, str) else list(given)
        if not urls:
            raise InvalidInputError("WebBaseLoader needs at least one URL")
        self.web_paths = [_check_url(url) for url in urls]
        self.headers = {**DEFAULT_HEADERS, **dict(header_template or {})}
        check_optional_number("requests_per_second", requests_per_second, low=0, low_open=True)
        check_positive_int("max_concurrency", max_concurrency)
        check_positive_number("timeout", timeout)
        check_positive_int("max_bytes", max_bytes)
        check_non_negative_int("max_redirects", max_redirects)
        self.requests_per_second = requests_per_second
        self.max_concurrency = max_concurrency
        self.timeout = float(timeout)
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.encoding = check_encoding(encoding)
        self.continue_on_failure = continue_on_failure
        self.bs_kwargs = check_bs_kwargs({"features": default_parser, **dict(bs_kwargs or {})})
        self.get_text_separator = get_text_separator
        self.trust_env = trust_env
        self._limiter = _RateLimiter(requests_per_second)

    # -- one page --------------------------------------------------------------

    def fetch(self, url: str) -> tuple[bytes, str | None]:
        """Download one URL; return its body and the charset its headers name.

        Raises:
            LoaderError: see the class docstring.
        """
        proxies = (
            urllib.request.ProxyHandler() if self.trust_env else urllib.request.ProxyHandler({})
        )
        opener = urllib.request.build_opener(proxies, _HTTPOnlyRedirects(self.max_redirects))
        request = urllib.request.Request(url, headers=self.headers)
        deadline = time.monotonic() + self.timeout
        try:
            with opener.open(request, timeout=self.timeout) as response:
                _check_content_type(url, response.headers.get_content_type(), response.headers)
                length = response.headers.get("Content-Length", "")
                expected = int(length) if length.isdigit() else None
                if expected is not None and expected > self.max_bytes:
                    raise LoaderError(
                        f"{url} is {expected} bytes, more than max_bytes={self.max_bytes}"
                    )
                body = self._read_body(url, response, deadline)
                if expected is not None and len(body) < expected:
                    raise LoaderError(f"{url} ended after {len(body)} of its {expected} bytes")
                return body, response.headers.get_content_charset()
        except LoaderError:
            raise
        except urllib.error.HTTPError as err:
            err.close()
            raise LoaderError(f"{url} returned HTTP {err.code} {err.reason}") from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, TimeoutError):
                raise self._timed_out(url) from err
            raise LoaderError(f"cannot fetch {url}: {err.reason}") from err
        except TimeoutError as err:
            raise self._timed_out(url) from err
        # connection reset, a bad status line, a body cut short ...
        except (OSError, ValueError, http.client.HTTPException) as err:
            raise LoaderError(f"cannot fetch {url}: {type(err).__name__}: {err}") from err

    def _read_body(self, url: str, response: Any, deadline: float) -> bytes:
        chunks, size = [], 0
        while chunk := response.read1(_CHUNK):
            size += len(chunk)
            if size > self.max_bytes:
                raise LoaderError(f"{url} is larger than max_bytes={self.max_bytes}")
            if time.monotonic() > deadline:  # a server dripping bytes slowly
                raise self._timed_out(url)
            chunks.append(chunk)
        return b"".join(chunks)

    def _timed_out(self, url: str) -> LoaderError:
        return LoaderError(f"fetching {url} timed out after {self.timeout:g} s")

    def _load_page(self, url: str) -> Document | None:
        """Fetch and parse one page; None when it fails and continue_on_failure is set."""
        try:
            body, charset = self.fetch(url)
        except LoaderError as err:
            if not self.continue_on_failure:
                raise
            logger.warning("skipping %s: %s", url, err)
            return None
        return self._document(url, body, charset)

    def _document(self, url: str, body: bytes, charset: str | None) -> Document:
        markup: str | bytes = body
        encoding = self.encoding or charset
        if encoding is not None:
            try:
                markup = body.decode(encoding, errors="replace")
            except LookupError:  # a charset Python does not know: let BeautifulSoup guess
                markup = body
        soup = parse_html(markup, self.bs_kwargs)
        metadata: dict[str, Any] = {"source": url}
        title = page_title(soup, collapse=self.visible or self.structured)
        if title is not None:
            metadata["title"] = title
        description = soup.find("meta", attrs={"name": "description"})
        if description is not None:
            metadata["description"] = description.get("content", "No description found.")
        html = soup.find("html")
        if html is not None:
            metadata["language"] = html.get("lang", "No language found.")
        text = page_text(
            soup, self.get_text_separator, visible=self.visible, structured=self.structured
        )
        return Document(text, metadata=metadata)

    # -- many pages ------------------------------------------------------------

    def lazy_load(self) -> Iterator[Document]:
        """Fetch the URLs one after another, yielding each page as it arrives.

        Raises:
            LoaderError: a URL fails and ``continue_on_failure`` is off.
        """
        for url in self.web_paths:
            self._limiter.wait()
            document = self._load_page(url)
            if document is not None:
                yield document

    async def alazy_load(self) -> AsyncIterator[Document]:
        """Fetch up to ``max_concurrency`` URLs at once; yield pages in URL order.

        At most ``max_concurrency`` pages are in flight or waiting to be
        yielded, so memory stays bounded however many URLs there are.

        Raises:
            LoaderError: a URL fails and ``continue_on_failure`` is off.
        """
        loop = asyncio.get_running_loop()
        pool = ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="ragline-web")

        async def load(url: str) -> Document | None:
            await self._limiter.await_turn()
            return await loop.run_in_executor(pool, self._load_page, url)

        pending: deque[asyncio.Task[Document | None]] = deque()
        try:
            for url in self.web_paths:
                pending.append(asyncio.ensure_future(load(url)))
                if len(pending) < self.max_concurrency:
                    continue
                document = await pending.popleft()
                if document is not None:
                    yield document
            while pending:
                document = await pending.popleft()
                if document is not None:
                    yield document
        finally:
            for task in pending:  # the consumer stopped early, or a page failed
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            pool.shutdown(wait=False, cancel_futures=True)

    def __repr__(self) -> str:
        return f"WebBaseLoader({self.web_paths!r})"


def _check_content_type(url: str, content_type: str, headers: Any) -> None:
    # get_content_type() says "text/plain" when the header is missing: fine to parse.
    # The subtype is compared whole: "xml" inside a name (Office's "openxmlformats"
    # zip archives) is not markup.
    major, _, subtype = content_type.partition("/")
    if major == "text" or subtype in ("html", "xml") or subtype.endswith("+xml"):
        return
    raise LoaderError(f"{url} is {headers.get('Content-Type')!r}, not HTML or text")

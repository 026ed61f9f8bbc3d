"""The ``ragline serve`` page in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, installed by scripts/chromium.sh; never a downloaded browser): a
person searches, asks a question, watches the answer stream in with its sources, and
opens a passage. Screenshots go to the test's output folder (``tmp_path``)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragline.core import FakeListChatModel
from ragline.serve import BackgroundServer, create_store_app

pytestmark = pytest.mark.network

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]
ANSWER = "Mars is home to Olympus Mons, the largest volcano in the solar system."


@pytest.fixture
def browser() -> Iterator[Any]:
    """Chromium from /usr/bin with a fresh profile (scripts/test.sh installs it)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), (
        "Debian's chromium and chromium-driver are needed: run scripts/chromium.sh install"
    )
    profile = tempfile.mkdtemp(prefix="ragline-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _screenshot(browser: Any, path: Path) -> None:
    """Save the window as a PNG (printed at the end; ``-rP`` or ``-s`` shows the paths)."""
    assert browser.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def _wait(condition: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("the page did not get there in time")


def test_a_person_searches_asks_and_opens_a_passage(
    browser: Any, store_folder: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    model = FakeListChatModel(responses=[ANSWER], sleep=0.03)  # ~2 s of streaming
    with BackgroundServer(create_store_app(store_folder, model=model, k=2)) as server:
        browser.get(server.url + "/")
        _wait(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        info = browser.find_element(By.ID, "store-info").text
        assert info == "4 passages · hashing · model FakeListChatModel (stuff)"

        # search
        browser.find_element(By.ID, "search-query").send_keys("volcano")
        browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
        results = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#search-results .passage"))
        assert len(results) == 2
        first = results[0].find_element(By.CLASS_NAME, "source").text
        assert first.startswith("[1] ") and first.endswith("mars.txt")
        assert results[0].find_elements(By.CLASS_NAME, "offset") == []  # no "@ 0" any more
        assert results[0].find_element(By.CLASS_NAME, "score").text.startswith("relevance 0.")

        # ask: the answer grows while it streams, then the sources are listed
        browser.find_element(By.ID, "chat-input").send_keys("Where is the largest volcano?")
        browser.find_element(By.ID, "chat-send").click()
        seen: list[str] = []

        def streamed() -> bool:
            text = browser.find_element(By.CSS_SELECTOR, ".message.ai .answer").text
            if text and (not seen or seen[-1] != text):
                seen.append(text)
            return text == ANSWER

        _wait(streamed)
        assert len(seen) >= 3, f"the answer did not stream: {seen}"
        assert all(ANSWER.startswith(part) for part in seen)
        sources = browser.find_elements(By.CSS_SELECTOR, ".message.ai .sources .passage")
        assert len(sources) == 2
        assert sources[0].find_element(By.CLASS_NAME, "source").text.endswith("mars.txt")
        _screenshot(browser, tmp_path / "answer.png")

        # open the first source's passage
        sources[0].find_element(By.CLASS_NAME, "open").click()
        dialog = browser.find_element(By.ID, "passage-dialog")
        _wait(dialog.is_displayed)
        assert browser.find_element(By.ID, "passage-text").text == (
            "Mars is a cold desert planet with the largest volcano in the solar system."
        )
        _screenshot(browser, tmp_path / "passage.png")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
    print(f"screenshots: {tmp_path / 'answer.png'}, {tmp_path / 'passage.png'}")


def test_without_a_model_the_page_says_so_and_shows_passages(
    browser: Any, store_folder: Path, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    with BackgroundServer(create_store_app(store_folder)) as server:
        browser.get(server.url + "/")
        _wait(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        browser.find_element(By.ID, "chat-input").send_keys("volcano")
        browser.find_element(By.ID, "chat-send").click()
        reply = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, ".message.ai.error"))[0]
        assert reply.find_element(By.CLASS_NAME, "answer").text.startswith(
            "no chat model configured: start 'ragline serve' with OPENAI_BASE_URL"
        )
        _wait(lambda: reply.find_elements(By.CSS_SELECTOR, ".sources .passage"))
        _screenshot(browser, tmp_path / "no-model.png")
    print(f"screenshot: {tmp_path / 'no-model.png'}")


def test_with_an_api_key_the_page_asks_for_it_then_works(browser: Any, store_folder: Path) -> None:
    """/healthz needs the key too: the page shows the key box, and once the key is
    typed it describes the store and chats (a session id the server issued)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    model = FakeListChatModel(responses=[ANSWER])
    app = create_store_app(store_folder, model=model, k=2, api_key="k-page")
    with BackgroundServer(app) as server:
        browser.get(server.url + "/")
        info = browser.find_element(By.ID, "store-info")
        _wait(lambda: info.text == "this server needs its API key")
        assert browser.find_element(By.ID, "key-box").is_displayed()
        browser.find_element(By.ID, "api-key").send_keys("k-page", Keys.TAB)
        _wait(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        assert info.text == "4 passages · hashing · model FakeListChatModel (stuff)"
        browser.find_element(By.ID, "chat-input").send_keys("Where is the largest volcano?")
        browser.find_element(By.ID, "chat-send").click()
        _wait(lambda: browser.find_element(By.CSS_SELECTOR, ".message.ai .answer").text == ANSWER)
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert all("/healthz" in e["message"] and "401" in e["message"] for e in errors), errors


# ---- issue 29: narrow screens, long paths, sections, BM25 scores, the newest turn ----

LONG_DIR = "reference/library/long-package-name/deeper-folder/even-deeper"
SECTIONED = """<html><head><title>handlers</title></head><body>
<div role="navigation"><a href="index.html">Docs</a></div>
<h1>logging.handlers — Logging handlers<a class="headerlink" href="#top">¶</a></h1>
<p>Handlers send log records to their destinations.</p>
<h2>RotatingFileHandler<a class="headerlink" href="#rfh">¶</a></h2>
<p>A rotating handler starts a new log file when the current one reaches a maximum size,
keeping a number of backups of the old log files.</p>
<h2>TimedRotatingFileHandler<a class="headerlink" href="#trfh">¶</a></h2>
<p>This handler starts a new file at timed intervals, such as every midnight.</p>
</body></html>"""
LONG_ANSWER = " ".join(["The log rotates when it is full."] * 12)


@pytest.fixture(scope="module")
def sectioned_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of one Sphinx-like page under a long path, and two short text files."""
    from ragline.store_folder import index_paths

    root = tmp_path_factory.mktemp("sectioned")
    page = root / "corpus" / LONG_DIR / "handlers-ref.html"
    page.parent.mkdir(parents=True)
    page.write_text(SECTIONED, encoding="utf-8")
    (root / "corpus" / "notes.txt").write_text("Backups of log files are kept.", encoding="utf-8")
    index_paths([root / "corpus"], root / "store", embedding="hashing")
    return root / "store"


def _width(browser: Any, width: int) -> None:
    browser.set_window_size(width, 800)
    inner = browser.execute_script("return window.innerWidth")
    assert abs(inner - width) <= 20, f"the window is {inner} px wide, not {width}"


_LINE_BREAKS = """
const breaks = [];
for (const element of arguments[0]) {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let previous = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      const here = { top: rect.top, char: node.data[i] };
      if (previous && here.top > previous.top + 2) breaks.push(previous.char + here.char);
      previous = here;
    }
  }
}
return breaks;
"""

_OVERFLOWS = """
const page = document.documentElement.scrollWidth > window.innerWidth;
const cut = [...document.querySelectorAll('.passage .score, .passage .source')].filter((e) => {
  const box = e.getBoundingClientRect(), card = e.closest('.passage').getBoundingClientRect();
  return box.right > card.right + 0.5 || box.left < card.left - 0.5;
}).map((e) => e.textContent);
return { page, cut };
"""


@pytest.mark.parametrize("width", [360, 420])
def test_the_page_at_phone_widths(
    browser: Any, sectioned_store: Path, tmp_path: Path, width: int
) -> None:
    """Issue 29: at 360-420 px the cards overflowed and 'relevance 0.' was cut off; a long
    path broke mid-word; BM25 scores read 'relevance 17.1'; search types were unexplained."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with BackgroundServer(create_store_app(sectioned_store, k=3)) as server:
        _width(browser, width)
        browser.get(server.url + "/")
        _wait(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        help_line = browser.find_element(By.ID, "search-type-help")
        assert help_line.text == (
            "meaning: the passages closest to the query's embedding; relevance in [0, 1]"
        )
        Select(browser.find_element(By.ID, "search-type")).select_by_value("bm25")
        assert help_line.text.startswith("keywords: passages sharing the query's words (BM25)")
        browser.find_element(By.ID, "search-query").send_keys("rotating log file backups")
        browser.find_element(By.CSS_SELECTOR, "#search-form button").click()
        results = _wait(lambda: browser.find_elements(By.CSS_SELECTOR, "#search-results .passage"))
        first = results[0]
        path = f"{LONG_DIR}/handlers-ref.html"
        assert first.find_element(By.CLASS_NAME, "source").text.replace("\n", "") == f"[1] {path}"
        assert first.find_element(By.CLASS_NAME, "section").text == (
            "logging.handlers — Logging handlers > RotatingFileHandler"
        )
        scores = [r.find_element(By.CLASS_NAME, "score").text for r in results]
        assert all(s.startswith("BM25 score ") for s in scores), scores
        assert not any("relevance" in s for s in scores)
        assert browser.execute_script(_OVERFLOWS) == {"page": False, "cut": []}
        sources = browser.find_elements(By.CSS_SELECTOR, "#search-results .source .path")
        breaks = browser.execute_script(_LINE_BREAKS, sources)
        assert breaks, "at this width the long path should take several lines"
        assert all(pair[0] == "/" for pair in breaks), breaks  # never inside a name
        _screenshot(browser, tmp_path / f"search-{width}px.png")

        # clicking the source itself opens the passage
        first.find_element(By.CLASS_NAME, "source").click()
        dialog = browser.find_element(By.ID, "passage-dialog")
        _wait(dialog.is_displayed)
        assert browser.find_element(By.ID, "passage-title").text == (
            f"[1] {path} § logging.handlers — Logging handlers > RotatingFileHandler"
        )
        assert browser.find_element(By.ID, "passage-text").text.startswith(
            "## RotatingFileHandler\n\nA rotating handler starts a new log file"
        )
        _screenshot(browser, tmp_path / f"passage-{width}px.png")
    print(f"screenshots: {tmp_path}")


_IN_SIGHT = """
const log = document.getElementById('chat-log').getBoundingClientRect();
const question = [...document.querySelectorAll('#chat-log .message.human')].pop();
const answer = [...document.querySelectorAll('#chat-log .message.ai .answer')].pop();
const q = question.getBoundingClientRect(), a = answer.getBoundingClientRect();
const top = Math.max(log.top, 0), bottom = Math.min(log.bottom, window.innerHeight);
return q.top >= top - 1 && q.bottom <= bottom + 1 && a.top < bottom - 10;
"""


def _answers(browser: Any) -> list[Any]:
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, ".message.ai .answer")  # type: ignore[no-any-return]


@pytest.mark.parametrize("width", [1280, 400])
def test_the_ask_panel_follows_the_newest_turn(
    browser: Any, sectioned_store: Path, tmp_path: Path, width: int
) -> None:
    """Issue 29: after three questions the panel stayed at the top, the answers out of
    sight. Now the newest question and the start of its answer are in view (in the log
    and in the window)."""
    from selenium.webdriver.common.by import By

    # the same reply every time (from the second turn the chain also asks the model to
    # rephrase the question, which takes a reply too)
    model = FakeListChatModel(responses=[LONG_ANSWER] * 10)
    with BackgroundServer(create_store_app(sectioned_store, model=model, k=3)) as server:
        _width(browser, width)
        browser.get(server.url + "/")
        _wait(lambda: browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        for number in (1, 2, 3):
            browser.find_element(By.ID, "chat-input").send_keys(f"question {number}: rotation?")
            browser.find_element(By.ID, "chat-send").click()
            _wait(lambda number=number: len(_answers(browser)) == number)
            _wait(lambda: _answers(browser)[-1].text == LONG_ANSWER)
            _wait(lambda: browser.find_element(By.ID, "chat-send").is_enabled())
            assert browser.execute_script(_IN_SIGHT), f"turn {number} is out of sight"
        log_scrolled = browser.execute_script(
            "return document.getElementById('chat-log').scrollTop"
        )
        assert log_scrolled > 0
        scores = browser.find_elements(By.CSS_SELECTOR, ".message.ai .sources .score")
        assert scores and all(s.text.startswith("relevance 0.") for s in scores)
        _screenshot(browser, tmp_path / f"ask-{width}px.png")
    print(f"screenshot: {tmp_path / f'ask-{width}px.png'}")

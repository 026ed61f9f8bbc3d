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
        assert results[0].find_element(By.CLASS_NAME, "offset").text == "@ 0"
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

"""Shared pieces of the serve tests: a callback recorder and a small store folder."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from ragline.core import BaseCallbackHandler

FILES = {
    "cats.md": "# Cats\n\nCats purr when they are content and sleep most of the day.",
    "dogs.txt": "Dogs bark at strangers and love long walks in the park.",
    "mars.txt": "Mars is a cold desert planet with the largest volcano in the solar system.",
    "moon.txt": "The Moon causes the tides of the oceans on Earth.",
}


class TokenRecorder(BaseCallbackHandler):
    """Counts the tokens a model streams on the server, and how its run ended."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.ended = threading.Event()  # the model finished its answer
        self.failed = threading.Event()  # the model's run ended with an error
        self.errors: list[BaseException] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.ended.set()

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.errors.append(error)
        self.failed.set()


@pytest.fixture(scope="module")
def store_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store folder of four one-chunk files, built with the hashing embedding."""
    from ragline.store_folder import index_paths

    root = tmp_path_factory.mktemp("serve-store")
    corpus = root / "corpus"
    corpus.mkdir()
    for name, text in FILES.items():
        (corpus / name).write_text(text, encoding="utf-8")
    index_paths([corpus], root / "store", embedding="hashing")
    return root / "store"

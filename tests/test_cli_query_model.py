"""``ragline query`` builds a MiniLM store's ONNX session in a thread while the store opens.

Real parts: the packaged MiniLM on ONNX Runtime (export cached in the suite's
RAGLINE_CACHE_DIR, see conftest), real FAISS store folders, the real command.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragline.cli import _query, main
from ragline.embeddings import _onnx, huggingface
from ragline.store_folder._embeddings import make_embeddings
from tests._cli_corpus import write_corpus

pytestmark = pytest.mark.slow

TEXTS = [
    "which animal purrs?",
    "a red planet with a volcano",
    "",
    "Dogs bark at strangers. " * 60,  # past MiniLM's 256 tokens: truncated
    "naïve café — 東京 🙂",
]


@pytest.fixture
def minilm_store(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder), "-q"]) == 0
    return folder


def fresh_model_caches(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Empty shared model caches for this test (the suite's own come back after it)."""
    sessions: dict[str, Any] = {}
    monkeypatch.setattr(_onnx, "_sessions", sessions)
    monkeypatch.setattr(huggingface, "_models", {})
    return sessions


def query_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "ragline-query-model"]


def run_query(
    store: Path, capsys: pytest.CaptureFixture[str], *extra: str, text: str = "which animal purrs?"
) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["query", text, "--store", str(store), *extra])
    captured = capsys.readouterr()
    return status, captured.out if status == 0 else captured.err


def test_the_session_opened_ahead_gives_the_same_vectors_and_results(
    minilm_store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = fresh_model_caches(monkeypatch)
    model: Any = make_embeddings("minilm")
    export = _onnx.export_path(model.weights_sha256, "fp32")
    open_session = _query.prepare_query_model(str(minilm_store), None)
    assert open_session is not None and sessions == {}  # the session itself is left to it
    open_session()
    assert list(sessions) == [str(export)]
    ahead = model.embed_documents_array(TEXTS)
    status, overlapped = run_query(minilm_store, capsys, "-k", "3", "--json")
    assert status == 0 and query_threads() == []  # joined before the command returns
    assert list(sessions) == [str(export)]  # the command used the session opened ahead

    # the same command and texts with the session opened on the query's own path
    sessions = fresh_model_caches(monkeypatch)
    monkeypatch.setattr(_query, "start_model_load", lambda args: None)
    assert run_query(minilm_store, capsys, "-k", "3", "--json") == (0, overlapped)
    assert list(sessions) == [str(export)]
    assert np.array_equal(make_embeddings("minilm").embed_documents_array(TEXTS), ahead)
    assert Path(json.loads(overlapped)[0]["source"]).name == "cats.md"


def test_nothing_is_loaded_ahead_where_the_query_would_not_load_it(
    minilm_store: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Other embeddings, torch, keyword-only search, a folder that is not a store."""
    hashing = tmp_path / "hashing-store"
    corpus = str(minilm_store.parent / "corpus")
    assert main(["index", corpus, "--store", str(hashing), "--embedding", "hashing", "-q"]) == 0
    assert _query.prepare_query_model(str(hashing), None) is None
    assert _query.prepare_query_model(str(minilm_store), "minilm-torch") is None
    assert _query.prepare_query_model(str(minilm_store), "hashing") is None
    assert _query.prepare_query_model(str(tmp_path / "nothing"), None) is None
    sessions = fresh_model_caches(monkeypatch)
    status, found = run_query(minilm_store, capsys, "--search-type", "bm25", text="cats purr")
    assert status == 0 and "cats.md" in found and sessions == {}


@pytest.mark.parametrize("where", ["store", "device"])
def test_errors_are_the_commands_own(
    minilm_store: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """An error met while loading ahead is reported once, by the command, as before;
    no loading thread outlives the command."""
    if where == "store":
        faiss_files = list(minilm_store.glob("gen-*/faiss/*.faiss"))
        assert faiss_files
        for path in faiss_files:
            path.unlink()
        expected = "ragline: error: "
    else:
        monkeypatch.setenv("RAGLINE_DEVICE", "bogus")
        expected = "ragline: error: RAGLINE_DEVICE 'bogus' is not a device: use auto, cpu"
        assert _query.prepare_query_model(str(minilm_store), None) is None
    fresh_model_caches(monkeypatch)
    status, error = run_query(minilm_store, capsys)
    monkeypatch.setattr(_query, "start_model_load", lambda args: None)
    assert run_query(minilm_store, capsys) == (status, error)  # the same as without it
    assert status == 2 and error.startswith(expected) and error.count("\n") == 1
    assert query_threads() == []

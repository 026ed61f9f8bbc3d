"""The CLI and the store folder with the real MiniLM: ONNX by default, identities, progress.

Real parts: the packaged MiniLM on ONNX Runtime (the export is cached in the suite's
RAGLINE_CACHE_DIR, see conftest) and on torch, real FAISS store folders, and a real
pseudo-terminal for the progress bar.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from ragline.cli import main
from ragline.store_folder import StoreFolder
from ragline.store_folder import _embeddings as folder_embeddings
from tests._cli_corpus import write_corpus

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus")


@pytest.fixture
def minilm_store(corpus: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder), "-q"]) == 0
    return folder


def manifest(folder: Path) -> dict[str, object]:
    return json.loads((folder / "ragline.json").read_text(encoding="utf-8"))


def query_json(folder: Path, text: str, *extra: str) -> list[dict[str, object]]:
    run = subprocess.run(
        [sys.executable, "-m", "ragline.cli", "query", text, "--store", str(folder), "--json",
         *extra],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_default_minilm_is_onnx_and_the_store_records_its_identity(minilm_store: Path) -> None:
    data = manifest(minilm_store)
    assert data["embedding"] == "minilm"
    identity = data["embedding_identity"]
    assert isinstance(identity, dict)
    assert {key: identity[key] for key in ("model", "backend", "precision", "normalized")} == {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "backend": "onnx",
        "precision": "fp32",
        "normalized": True,
    }
    assert identity["dimension"] == 384 and len(str(identity["weights_sha256"])) == 64


def test_without_the_onnx_extra_minilm_is_torch(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_embeddings, "onnx_installed", lambda: False)
    folder = tmp_path / "torch-store"
    assert main(["index", str(corpus), "--store", str(folder), "-q"]) == 0
    assert manifest(folder)["embedding_identity"]["backend"] == "torch"  # type: ignore[index]


def test_torch_and_onnx_query_a_store_alike(minilm_store: Path) -> None:
    """fp32 ONNX and torch are the same vectors: same ranking, same scores (3 decimals)."""
    onnx = query_json(minilm_store, "which animal purrs?", "-k", "3")
    torch = query_json(
        minilm_store, "which animal purrs?", "-k", "3", "--embedding", "minilm-torch"
    )
    assert [row["source"] for row in onnx] == [row["source"] for row in torch]
    assert str(onnx[0]["source"]).endswith("cats.md")
    for ours, theirs in zip(onnx, torch, strict=True):
        assert ours["score"] == pytest.approx(theirs["score"], abs=1e-3)


_HEAVY = """
import json, sys
from ragline.cli import main
main(["query", "volcano", "--store", sys.argv[1], "-k", "1", "-q"])
print(json.dumps(sorted(m for m in ("torch", "transformers", "sentence_transformers")
                        if m in sys.modules)))
"""


def test_query_on_an_onnx_store_imports_no_torch(minilm_store: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _HEAVY, str(minilm_store)],
        capture_output=True, text=True, check=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert "mars.txt" in run.stdout
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []


def _set_identity(folder: Path, **changes: object) -> None:
    data = manifest(folder)
    data["embedding_identity"] = {**data["embedding_identity"], **changes}  # type: ignore[dict-item]
    (folder / "ragline.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"precision": "int8"}, "precision"),
        ({"weights_sha256": "0" * 64}, "weights_sha256"),
        ({"model": "other/model", "dimension": 768}, "dimension"),  # same weights: name aside
        (
            {"model": "other/model", "weights_sha256": "1" * 64},
            "model, weights_sha256",
        ),
    ],
)
def test_another_identity_is_a_clear_error(
    minilm_store: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], named: str
) -> None:
    """Query and re-index refuse; nothing in the folder changes."""
    _set_identity(minilm_store, **change)
    before = {path.name: path.read_bytes() for path in minilm_store.rglob("*") if path.is_file()}
    capsys.readouterr()
    assert main(["query", "cats", "--store", str(minilm_store)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("ragline: error: ")
    assert f"they differ in {named}, so its vectors cannot be compared" in error
    assert "all-MiniLM-L6-v2 (onnx fp32, normalized, dimension 384" in error
    corpus = minilm_store.parent / "corpus"
    assert main(["index", str(corpus), "--store", str(minilm_store), "-q"]) == 2
    assert f"they differ in {named}" in capsys.readouterr().err
    after = {path.name: path.read_bytes() for path in minilm_store.rglob("*") if path.is_file()}
    assert after == before


def test_an_int8_store_is_queried_with_int8_only(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """minilm-int8 records precision int8: its own queries work, MiniLM fp32 (any
    backend) is refused by name, and the other way round."""
    folder = tmp_path / "int8-store"
    assert main(["index", str(corpus), "--store", str(folder), "--embedding", "minilm-int8",
                 "-q"]) == 0  # fmt: skip
    identity = manifest(folder)["embedding_identity"]
    assert isinstance(identity, dict)
    assert (identity["backend"], identity["precision"]) == ("onnx", "int8")
    found = query_json(folder, "a red planet with a volcano")
    assert Path(str(found[0]["metadata"]["source"])).name == "mars.txt"  # type: ignore[index]
    capsys.readouterr()
    assert main(["query", "cats", "--store", str(folder), "--embedding", "minilm"]) == 2
    assert "was built with the 'minilm-int8' embedding, not 'minilm'" in capsys.readouterr().err
    fp32 = tmp_path / "fp32-store"
    assert main(["index", str(corpus), "--store", str(fp32), "-q"]) == 0
    assert main(["query", "cats", "--store", str(fp32), "--embedding", "minilm-int8"]) == 2
    assert "not 'minilm-int8'" in capsys.readouterr().err


def test_another_embedding_name_is_refused(
    minilm_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["query", "cats", "--store", str(minilm_store), "--embedding", "hashing"]) == 2
    assert (
        "was built with the 'minilm' embedding, not 'hashing'; query it with --embedding minilm"
        in capsys.readouterr().err
    )


def test_reindex_with_minilm_torch_on_an_onnx_store_is_allowed(
    minilm_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = minilm_store.parent / "corpus"
    (corpus / "owls.txt").write_text("Owls hunt at night and turn their heads far around.")
    args = ["index", str(corpus), "--store", str(minilm_store), "--embedding", "minilm-torch"]
    assert main(args) == 0
    assert "added 1, updated 0, skipped 3, deleted 0" in capsys.readouterr().out
    data = manifest(minilm_store)
    assert data["embedding"] == "minilm" and data["chunks"] == 4
    assert data["embedding_identity"]["backend"] == "onnx"  # type: ignore[index]
    store = StoreFolder(minilm_store).open_store()
    assert store.similarity_search("nocturnal bird", k=1)[0].metadata["source"].endswith("owls.txt")


def test_progress_summary_line_when_not_a_terminal(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a terminal: no bar, one summary line; --quiet: nothing on stderr."""
    folder = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(folder)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "it/s" not in err
    assert "loaded 3 documents, split into 3 chunks" in err
    assert "loading the embedding model: sentence-transformers/all-MiniLM-L6-v2 (onnx fp32)" in err
    assert re.search(r"embedded 3 of 3 chunks in [\d.]+ s \(\d+ chunks/s\); 0 unchanged", err)
    (corpus / "owls.txt").write_text("Owls hunt at night.")
    assert main(["index", str(corpus), "--store", str(folder), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_one_bar_for_the_whole_run_on_a_terminal(corpus: Path, tmp_path: Path) -> None:
    """On a terminal: one bar (files, then chunks embedded of the total, rate, ETA)."""
    for number in range(40):
        (corpus / f"note{number}.txt").write_text(f"Note {number} about topic {number % 7}.")
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    run = subprocess.Popen(
        [sys.executable, "-m", "ragline.cli", "index", str(corpus), "--store",
         str(tmp_path / "store")],
        stdout=subprocess.PIPE, stderr=follower, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    os.close(follower)
    screen = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        screen += data
    os.close(leader)
    stdout, _ = run.communicate(timeout=300)
    assert run.returncode == 0
    text = screen.decode("utf-8", "replace")
    final = text.replace("\r\n", "\n").split("\r")[-1]
    assert "added 43, updated 0, skipped 0, deleted 0" in stdout
    assert re.search(r"embedding: 100%.*43/43 \[.*chunk/s, 43 documents, 0 unchanged\]", final)
    assert "loading the embedding model" in text
    assert "Embedding:" not in text  # no bar of the model's own, restarting per batch
    assert "43/43" in text and "loading: " in text  # the same bar counted the files first

